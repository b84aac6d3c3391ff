# benchmark of core module 'prio': 100,000 pending jobs, all factors enabled
noinst_PROGRAMS += testsuite/bench/bench_prio
BENCH_PROGS += testsuite/bench/bench_prio
testsuite_bench_bench_prio_SOURCES = testsuite/bench/bench_prio.c $(FW_CORE_SRC)
testsuite_bench_bench_prio_CFLAGS = $(BENCH_CFLAGS)
testsuite_bench_bench_prio_LDADD = -lm
