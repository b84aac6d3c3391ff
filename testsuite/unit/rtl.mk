# unit tests of the per-resource node timeline fw_rtl (test_rtl and
# test_rtl_asan, as test_plan in plan.mk): hand-worked cases and a
# property test against a brute-force oracle.
check_PROGRAMS += testsuite/unit/test_rtl
testsuite_unit_test_rtl_SOURCES = testsuite/unit/test_rtl.c
testsuite_unit_test_rtl_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_rtl_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_rtl_asan
testsuite_unit_test_rtl_asan_SOURCES = $(testsuite_unit_test_rtl_SOURCES)
testsuite_unit_test_rtl_asan_CFLAGS = $(UNIT_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_rtl_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_rtl_asan_LDADD = $(CORE_ASAN)
endif
