# benchmark of core module 'prio': noinst_PROGRAMS += testsuite/bench/bench_prio; BENCH_PROGS += testsuite/bench/bench_prio
