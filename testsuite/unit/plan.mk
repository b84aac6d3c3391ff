# unit tests of core module 'plan' (test_plan and test_plan_asan, as
# test_common in local.mk).  test_plan_util.h holds the small-cluster
# builders the test files share.
PLAN_TEST_SRC = testsuite/unit/test_plan.c testsuite/unit/test_plan_conf.c \
	testsuite/unit/test_plan_bitset.c testsuite/unit/test_plan_prop.c \
	testsuite/unit/test_plan_size.c testsuite/unit/test_plan_share.c \
	testsuite/unit/test_plan_preempt.c \
	testsuite/unit/test_plan_util.c testsuite/unit/test_plan_util.h

check_PROGRAMS += testsuite/unit/test_plan
testsuite_unit_test_plan_SOURCES = $(PLAN_TEST_SRC)
testsuite_unit_test_plan_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_plan_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_plan_asan
testsuite_unit_test_plan_asan_SOURCES = $(testsuite_unit_test_plan_SOURCES)
testsuite_unit_test_plan_asan_CFLAGS = $(UNIT_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_plan_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_plan_asan_LDADD = $(CORE_ASAN)
endif
include testsuite/unit/rtl.mk
