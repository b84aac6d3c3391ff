# Slurm plugins: thin adapters over the core.  Built as modules without
# Slurm -l flags (slurmctld and libslurmfull resolve Slurm's symbols at
# dlopen time, lazily), never with -z now.  libmunge authenticates the
# fairway command's requests from other hosts (as Slurm's auth/munge does).
FW_PLUGIN_LDFLAGS = -module -avoid-version -shared -export-dynamic
FW_PLUGIN_COMMON = src/plugins/common/fw_slurm.c src/plugins/common/fw_slurm.h \
	src/plugins/common/fw_server.c src/plugins/common/fw_server.h

plugin_LTLIBRARIES += src/plugins/priority/fairway/priority_fairway.la
src_plugins_priority_fairway_priority_fairway_la_SOURCES = \
	src/plugins/priority/fairway/priority_fairway.c \
	src/plugins/priority/fairway/pf_recalc.c \
	src/plugins/priority/fairway/pf_jobs.c src/plugins/priority/fairway/pf_usage.c \
	src/plugins/priority/fairway/pf.h $(FW_PLUGIN_COMMON)
src_plugins_priority_fairway_priority_fairway_la_CFLAGS = $(FW_SLURM_CFLAGS)
src_plugins_priority_fairway_priority_fairway_la_LDFLAGS = $(FW_PLUGIN_LDFLAGS)
src_plugins_priority_fairway_priority_fairway_la_LIBADD = src/core/libfwcore.la -lmunge -lm

plugin_LTLIBRARIES += src/plugins/sched/fairway/sched_fairway.la
src_plugins_sched_fairway_sched_fairway_la_SOURCES = \
	src/plugins/sched/fairway/sched_fairway.c src/plugins/sched/fairway/sf.h \
	src/plugins/sched/fairway/sf_cluster.c src/plugins/sched/fairway/sf_pass.c \
	src/plugins/sched/fairway/sf_table.c src/plugins/sched/fairway/sf_devices.c \
	src/plugins/sched/fairway/sf_preempt.c $(FW_PLUGIN_COMMON)
src_plugins_sched_fairway_sched_fairway_la_CFLAGS = $(FW_SLURM_CFLAGS)
src_plugins_sched_fairway_sched_fairway_la_LDFLAGS = $(FW_PLUGIN_LDFLAGS)
src_plugins_sched_fairway_sched_fairway_la_LIBADD = src/core/libfwcore.la -lmunge -lm

# The plugins' own objects, without the core they link: the core includes
# no Slurm header, so contrib/compile-check.sh builds it against one Slurm
# tree only and just these objects against every other release.
plugin-objects: $(src_plugins_priority_fairway_priority_fairway_la_OBJECTS) \
	$(src_plugins_sched_fairway_sched_fairway_la_OBJECTS)
.PHONY: plugin-objects

# Stage the built plugins in <builddir>/plugins so a local cluster can name
# that directory first in a colon-separated PluginDir.  Copy, then rename:
# overwriting the file in place changes the code under a running
# slurmctld that has it mapped, which then dies with SIGSEGV.
all-local: stage-plugins
stage-plugins: $(plugin_LTLIBRARIES)
	@$(MKDIR_P) plugins
	@for la in $(plugin_LTLIBRARIES); do \
	  base=`basename $$la .la`; \
	  so=`dirname $$la`/.libs/$$base.so; \
	  cp -f $$so plugins/.$$base.so.new && mv -f plugins/.$$base.so.new plugins/$$base.so; \
	done
.PHONY: stage-plugins

# Only the .so belongs in Slurm's PluginDir.
install-data-hook:
	rm -f $(DESTDIR)$(plugindir)/priority_fairway.la $(DESTDIR)$(plugindir)/sched_fairway.la
clean-local:
	rm -rf plugins

# The priority plugin as client commands (sshare) load it (needs the
# installed Slurm the plugins were built for: not in compile-only builds).
if !COMPILE_ONLY
TESTS += testsuite/plugins/client_load.sh
endif
EXTRA_DIST += testsuite/plugins/client_load.sh
