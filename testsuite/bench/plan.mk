# benchmark of core module 'plan': noinst_PROGRAMS += testsuite/bench/bench_plan; BENCH_PROGS += testsuite/bench/bench_plan
