# fairway.conf(5) is assembled from one section per core module, so each
# module documents its own keys next to its code's owner.
FAIRWAY_CONF_MAN_PARTS = doc/man/fairway.conf.head.man \
	doc/man/fairway.conf.prio.man doc/man/fairway.conf.fs.man \
	doc/man/fairway.conf.plan.man doc/man/fairway.conf.tail.man
man5_MANS = doc/man/fairway.conf.5
man8_MANS = doc/man/sched_fairway.8
man1_MANS = doc/man/fairway.1
CLEANFILES += doc/man/fairway.conf.5
doc/man/fairway.conf.5: $(FAIRWAY_CONF_MAN_PARTS)
	@$(MKDIR_P) doc/man
	$(AM_V_GEN)for f in $(FAIRWAY_CONF_MAN_PARTS); do \
	  if test -f "$$f"; then cat "$$f"; else cat "$(srcdir)/$$f"; fi; \
	done | sed 's/@VERSION@/$(PACKAGE_VERSION)/' > $@

# priority/fairway (the plugin, its state, sprio/sshare, the fairway command)
man8_MANS += doc/man/priority_fairway.8
