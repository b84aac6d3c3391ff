# Unit tests of fairway-sim (inputs, reports, engine scenarios), each built
# plainly and with ASan/UBSan and linked with the core library of the same
# flavour, like test_common.
SIM_TEST_CFLAGS = $(UNIT_CFLAGS) -I$(top_srcdir)/src/sim

check_PROGRAMS += testsuite/unit/test_sim_io
testsuite_unit_test_sim_io_SOURCES = testsuite/unit/test_sim_io.c $(SIM_SRC)
testsuite_unit_test_sim_io_CFLAGS = $(SIM_TEST_CFLAGS)
testsuite_unit_test_sim_io_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_sim_io_asan
testsuite_unit_test_sim_io_asan_SOURCES = $(testsuite_unit_test_sim_io_SOURCES)
testsuite_unit_test_sim_io_asan_CFLAGS = $(SIM_TEST_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_sim_io_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_sim_io_asan_LDADD = $(CORE_ASAN)
endif

# End-to-end scenarios through the real prio, fs and plan modules.
check_PROGRAMS += testsuite/unit/test_sim_run
testsuite_unit_test_sim_run_SOURCES = testsuite/unit/test_sim_run.c $(SIM_SRC) $(SIM_RUN_SRC)
testsuite_unit_test_sim_run_CFLAGS = $(SIM_TEST_CFLAGS)
testsuite_unit_test_sim_run_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_sim_run_asan
testsuite_unit_test_sim_run_asan_SOURCES = $(testsuite_unit_test_sim_run_SOURCES)
testsuite_unit_test_sim_run_asan_CFLAGS = $(SIM_TEST_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_sim_run_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_sim_run_asan_LDADD = $(CORE_ASAN)
endif

# The command line end to end (uses the built fairway-sim).
TESTS += testsuite/sim/cli.sh
