# unit tests of core module 'prio' (test_prio and test_prio_asan, as test_common in local.mk)
check_PROGRAMS += testsuite/unit/test_prio
testsuite_unit_test_prio_SOURCES = testsuite/unit/test_prio.c \
	testsuite/unit/test_prio_conf.c testsuite/unit/test_prio_accrue.c \
	testsuite/unit/test_prio.h
# the tests check that every example of the man page fragment is accepted
testsuite_unit_test_prio_CFLAGS = $(UNIT_CFLAGS) -DFW_TOP_SRCDIR='"$(abs_top_srcdir)"'
testsuite_unit_test_prio_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_prio_asan
testsuite_unit_test_prio_asan_SOURCES = $(testsuite_unit_test_prio_SOURCES)
testsuite_unit_test_prio_asan_CFLAGS = $(testsuite_unit_test_prio_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_prio_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_prio_asan_LDADD = $(CORE_ASAN)
endif
