# benchmark of core module 'fs': full fair-share recomputation on 10,000 associations
noinst_PROGRAMS += testsuite/bench/bench_fs
BENCH_PROGS += testsuite/bench/bench_fs
testsuite_bench_bench_fs_SOURCES = testsuite/bench/bench_fs.c $(FW_CORE_SRC)
testsuite_bench_bench_fs_CFLAGS = $(BENCH_CFLAGS)
