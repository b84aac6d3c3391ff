# The configuration dispatcher and the site presets of doc/examples.
check_PROGRAMS += testsuite/unit/test_presets
testsuite_unit_test_presets_SOURCES = testsuite/unit/test_presets.c
testsuite_unit_test_presets_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_presets_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_presets_asan
testsuite_unit_test_presets_asan_SOURCES = $(testsuite_unit_test_presets_SOURCES)
testsuite_unit_test_presets_asan_CFLAGS = $(UNIT_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_presets_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_presets_asan_LDADD = $(CORE_ASAN)
endif
