/*
 * test_run.h - how every unit-test program runs its suites.
 *
 * Plain programs keep Check's fork per test: a crash or a hang stays in
 * its test, and CK_DEFAULT_TIMEOUT applies.  Programs built with
 * AddressSanitizer (the *_asan twins) run every test in the program's own
 * process instead: under ASan a fork costs about 25 ms and LeakSanitizer's
 * check at each child's exit about 130 ms more, so the 2,000-seed property
 * loops of test_plan_asan took 5-10 minutes of CI, against 7 s in one
 * process.  LeakSanitizer then checks the whole run once, at exit, which
 * finds the same leaks; the plain twin has already run the same tests in
 * isolation.  CK_FORK in the environment still chooses, as Check documents.
 */
#ifndef FW_TEST_RUN_H
#define FW_TEST_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int fw_test_run(SRunner *sr)
{
	int failed;

#ifdef __SANITIZE_ADDRESS__
	if (!getenv("CK_FORK"))
		srunner_set_fork_status(sr, CK_NOFORK);
#endif
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
