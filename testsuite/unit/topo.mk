# unit tests of core module 'topo' (test_topo and test_topo_asan, as
# test_common in local.mk).
check_PROGRAMS += testsuite/unit/test_topo
testsuite_unit_test_topo_SOURCES = testsuite/unit/test_topo.c
testsuite_unit_test_topo_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_topo_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_topo_asan
testsuite_unit_test_topo_asan_SOURCES = $(testsuite_unit_test_topo_SOURCES)
testsuite_unit_test_topo_asan_CFLAGS = $(UNIT_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_topo_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_topo_asan_LDADD = $(CORE_ASAN)
endif
