# The fuzz harnesses as a `make check` test: replay.c runs every seed
# (corpus/<target>/) and every kept crash input (regress/<target>/) through
# its harness, built plainly and with ASan/UBSan like the unit tests.  The
# fuzzing itself (clang, libFuzzer) is testsuite/fuzz/run.sh.
FUZZ_HARNESSES = \
	testsuite/fuzz/fuzz_fairway_conf.c testsuite/fuzz/fuzz_slurm_keys.c \
	testsuite/fuzz/fuzz_slurm_conf.c testsuite/fuzz/fuzz_swf.c \
	testsuite/fuzz/fuzz_csv.c testsuite/fuzz/fuzz_sacct.c \
	testsuite/fuzz/fuzz_sacctmgr_dump.c testsuite/fuzz/fuzz_state.c
FUZZ_REPLAY_CFLAGS = $(FW_CORE_CFLAGS) -DFUZZ_REPLAY -I$(top_srcdir)/src/sim \
	-I$(top_srcdir)/testsuite/fuzz

check_PROGRAMS += testsuite/fuzz/replay
testsuite_fuzz_replay_SOURCES = testsuite/fuzz/replay.c $(FUZZ_HARNESSES) \
	$(SIM_SRC) $(SIM_RUN_SRC)
testsuite_fuzz_replay_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
testsuite_fuzz_replay_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/fuzz/replay_asan
testsuite_fuzz_replay_asan_SOURCES = $(testsuite_fuzz_replay_SOURCES)
testsuite_fuzz_replay_asan_CFLAGS = $(FUZZ_REPLAY_CFLAGS) $(SAN_FLAGS)
testsuite_fuzz_replay_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_fuzz_replay_asan_LDADD = $(CORE_ASAN)
endif
