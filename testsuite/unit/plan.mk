# unit tests of core module 'plan' (test_plan and test_plan_asan, as test_common in local.mk)
