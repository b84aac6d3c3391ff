# The user command: talks to the plugins inside slurmctld (fw_server.c holds
# the protocol both sides share; fairway.conf is read with the core's parser).
bin_PROGRAMS += src/cli/fairway
src_cli_fairway_SOURCES = src/cli/fairway.c src/plugins/common/fw_server.c \
	src/plugins/common/fw_server.h
src_cli_fairway_CFLAGS = -std=gnu11 $(FW_WARN) -I$(srcdir)/src/core \
	-I$(srcdir)/src/plugins/common -pthread
src_cli_fairway_LDADD = src/core/libfwcore.la -lslurm -lmunge -lm
src_cli_fairway_LDFLAGS = -pthread
