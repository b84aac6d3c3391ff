# Check unit tests.  Every test program is built twice: normally, and with
# AddressSanitizer + UBSan (suffix _asan).  Module fragments below follow the
# pattern of test_common.
if HAVE_CHECK
UNIT_CFLAGS = $(FW_CORE_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/testsuite/unit
UNIT_LIBS = $(CHECK_LIBS) -lm

check_PROGRAMS += testsuite/unit/test_common
testsuite_unit_test_common_SOURCES = testsuite/unit/test_common.c $(FW_CORE_SRC)
testsuite_unit_test_common_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_common_LDADD = $(UNIT_LIBS)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_common_asan
testsuite_unit_test_common_asan_SOURCES = $(testsuite_unit_test_common_SOURCES)
testsuite_unit_test_common_asan_CFLAGS = $(UNIT_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_common_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_common_asan_LDADD = $(UNIT_LIBS)
endif

include testsuite/unit/prio.mk
include testsuite/unit/fs.mk
include testsuite/unit/plan.mk
include testsuite/unit/config.mk
include testsuite/unit/sim.mk

TESTS += $(check_PROGRAMS)
endif
