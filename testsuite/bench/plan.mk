# benchmark of core module 'plan' (make bench): 100k pending jobs on 10k
# nodes plus growth curves; see doc/perf-plan.md.
noinst_PROGRAMS += testsuite/bench/bench_plan
BENCH_PROGS += testsuite/bench/bench_plan
testsuite_bench_bench_plan_SOURCES = testsuite/bench/bench_plan.c $(FW_CORE_SRC)
testsuite_bench_bench_plan_CFLAGS = $(BENCH_CFLAGS)
testsuite_bench_bench_plan_LDADD = -lm
include testsuite/bench/rtl.mk
# the backfill pass with preemption (issue 16): 2,000 nodes, 5,000 pending
# jobs, 2,000 preemptable running jobs; see doc/performance.md.
noinst_PROGRAMS += testsuite/bench/bench_preempt
BENCH_PROGS += testsuite/bench/bench_preempt
testsuite_bench_bench_preempt_SOURCES = testsuite/bench/bench_preempt.c $(FW_CORE_SRC)
testsuite_bench_bench_preempt_CFLAGS = $(BENCH_CFLAGS)
testsuite_bench_bench_preempt_LDADD = -lm
