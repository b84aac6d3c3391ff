# fairway-sim: discrete-event replay of a workload through the policy core.
# SIM_SRC is everything but main(), shared with the unit tests.
SIM_SRC = \
	src/sim/sim_util.c src/sim/sim_util.h \
	src/sim/sim_trace.c src/sim/sim_trace.h \
	src/sim/sim_cluster.c src/sim/sim_cluster.h \
	src/sim/sim_report.c src/sim/sim_report.h \
	src/sim/sim_svg.c

bin_PROGRAMS += src/sim/fairway-sim
src_sim_fairway_sim_SOURCES = $(SIM_SRC) src/sim/sim_main.c
src_sim_fairway_sim_CFLAGS = $(FW_CORE_CFLAGS) -I$(top_srcdir)/src/sim
src_sim_fairway_sim_LDADD = src/core/libfwcore.la -lm
