# unit tests of core module 'fs' (test_fs and test_fs_asan, as test_common in local.mk)
