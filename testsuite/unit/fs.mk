# unit tests of core module 'fs' (test_fs and test_fs_asan, as test_common in local.mk)
FS_TEST_SRC = testsuite/unit/test_fs.c testsuite/unit/test_fs_conf.c \
	testsuite/unit/test_fs_state.c
check_PROGRAMS += testsuite/unit/test_fs
testsuite_unit_test_fs_SOURCES = $(FS_TEST_SRC)
testsuite_unit_test_fs_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_fs_LDADD = $(CORE_PLAIN)
if HAVE_SANITIZERS
check_PROGRAMS += testsuite/unit/test_fs_asan
testsuite_unit_test_fs_asan_SOURCES = $(testsuite_unit_test_fs_SOURCES)
testsuite_unit_test_fs_asan_CFLAGS = $(UNIT_CFLAGS) $(SAN_FLAGS)
testsuite_unit_test_fs_asan_LDFLAGS = $(SAN_FLAGS)
testsuite_unit_test_fs_asan_LDADD = $(CORE_ASAN)
endif
