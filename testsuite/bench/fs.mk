# benchmark of core module 'fs': noinst_PROGRAMS += testsuite/bench/bench_fs; BENCH_PROGS += testsuite/bench/bench_fs
