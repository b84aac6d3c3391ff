# unit tests of core module 'prio' (test_prio and test_prio_asan, as test_common in local.mk)
