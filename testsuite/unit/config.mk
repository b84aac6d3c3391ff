# unit tests of core module 'config' (test_config and test_config_asan, as test_common in local.mk)
