# Benchmarks (not run by 'make check'; run with 'make bench').  Each module's
# fragment adds a program to noinst_PROGRAMS and its name to BENCH_PROGS.
BENCH_PROGS =
BENCH_CFLAGS = $(FW_CORE_CFLAGS) -O2
include testsuite/bench/prio.mk
include testsuite/bench/fs.mk
include testsuite/bench/plan.mk

bench: $(BENCH_PROGS)
	@for b in $(BENCH_PROGS); do echo "== $$b"; ./$$b || exit 1; done
.PHONY: bench
