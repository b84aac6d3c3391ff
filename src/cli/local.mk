# The user command: talks to the plugins inside slurmctld.
bin_PROGRAMS += src/cli/fairway
src_cli_fairway_SOURCES = src/cli/fairway.c
src_cli_fairway_CFLAGS = -std=gnu11 $(FW_WARN)
src_cli_fairway_LDADD = -lslurm
