# Check unit tests.  The core is compiled twice for the tests - plainly and
# with AddressSanitizer + UBSan - into two static libraries, and every test
# program is linked against each (suffix _asan for the sanitized one).
# test_run.h: how each program runs its suites (the ASan twins in one
# process, the plain programs a fork per test).
EXTRA_DIST += testsuite/unit/test_run.h
if HAVE_CHECK
UNIT_CFLAGS = $(FW_CORE_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/testsuite/unit
UNIT_LIBS = $(CHECK_LIBS) -lm

check_LIBRARIES = testsuite/unit/libcore_plain.a
testsuite_unit_libcore_plain_a_SOURCES = $(FW_CORE_SRC)
testsuite_unit_libcore_plain_a_CFLAGS = $(FW_CORE_CFLAGS)
CORE_PLAIN = testsuite/unit/libcore_plain.a $(UNIT_LIBS)
if HAVE_SANITIZERS
check_LIBRARIES += testsuite/unit/libcore_asan.a
testsuite_unit_libcore_asan_a_SOURCES = $(FW_CORE_SRC)
testsuite_unit_libcore_asan_a_CFLAGS = $(FW_CORE_CFLAGS) $(SAN_FLAGS)
CORE_ASAN = testsuite/unit/libcore_asan.a $(UNIT_LIBS)
endif

check_PROGRAMS += testsuite/unit/test_common
testsuite_unit_test_common_SOURCES = testsuite/unit/test_common.c
testsuite_unit_test_common_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_common_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_common_asan
testsuite_unit_test_common_asan_SOURCES = $(testsuite_unit_test_common_SOURCES)
testsuite_unit_test_common_asan_CFLAGS = $(UNIT_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_common_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_common_asan_LDADD = $(CORE_ASAN)
endif

include testsuite/unit/prio.mk
include testsuite/unit/fs.mk
include testsuite/unit/plan.mk
include testsuite/unit/config.mk
include testsuite/unit/topo.mk
include testsuite/unit/sim.mk
include testsuite/fuzz/local.mk

TESTS += $(check_PROGRAMS)
endif
