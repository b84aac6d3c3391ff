# benchmark of the per-resource node timeline fw_rtl (make bench): 10,000
# shared nodes, 100,000 take + earliest-start operations (doc/perf-rtl.md)
noinst_PROGRAMS += testsuite/bench/bench_rtl
BENCH_PROGS += testsuite/bench/bench_rtl
testsuite_bench_bench_rtl_SOURCES = testsuite/bench/bench_rtl.c $(FW_CORE_SRC)
testsuite_bench_bench_rtl_CFLAGS = $(BENCH_CFLAGS)
