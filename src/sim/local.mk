# fairway-sim: discrete-event replay of a workload through the policy core.
# SIM_SRC (inputs, reports, charts) does not depend on the core modules and
# is shared with the unit tests; SIM_RUN_SRC is the engine and the adapter
# to fw_prio, fw_fairshare and fw_plan.
SIM_SRC = \
	src/sim/sim_util.c src/sim/sim_util.h \
	src/sim/sim_trace.c src/sim/sim_trace.h \
	src/sim/sim_cluster.c src/sim/sim_cluster.h \
	src/sim/sim_report.c src/sim/sim_report.h \
	src/sim/sim_preempt.c src/sim/sim_preempt.h \
	src/sim/sim_svg.c
SIM_RUN_SRC = \
	src/sim/sim_engine.c src/sim/sim_engine.h \
	src/sim/sim_core.c src/sim/sim_core.h

bin_PROGRAMS += src/sim/fairway-sim
src_sim_fairway_sim_SOURCES = $(SIM_SRC) $(SIM_RUN_SRC) src/sim/sim_main.c
src_sim_fairway_sim_CFLAGS = $(FW_CORE_CFLAGS) -I$(top_srcdir)/src/sim
src_sim_fairway_sim_LDADD = src/core/libfwcore.la -lm
EXTRA_DIST += testsuite/sim

# Deterministic synthetic workloads (SWF) for performance runs.
noinst_PROGRAMS += src/sim/fairway-sim-gentrace
src_sim_fairway_sim_gentrace_SOURCES = src/sim/sim_gentrace.c
src_sim_fairway_sim_gentrace_CFLAGS = $(FW_CORE_CFLAGS)
src_sim_fairway_sim_gentrace_LDADD = src/core/libfwcore.la -lm
dist_man_MANS += doc/man/fairway-sim.1
