/*
 * Unit tests for fair-share state: save/load round trips (half-life and
 * window decay), carrying usage onto rebuilt trees, and rejection of
 * corrupt, truncated or malformed input.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_fairshare.h"

struct fw_fs_conf *fs_test_conf(const char *const *slurm,
				const char *const *lines);
struct fw_fs_tree *fs_test_tree(const struct fw_fs_conf *c);
Suite *fs_state_suite(void);

#define DAY 86400
#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define TREE_DEFS "Account=phys Shares=60", "Account=theory Parent=phys", \
	"Account=bio Shares=40", "User=alice Account=phys,bio", \
	"User=bob Account=theory Shares=3", "User=carol Account=bio"

static double usage_of(const struct fw_fs_tree *t, int node)
{
	struct fw_fs_values v;

	ck_assert_int_eq(fw_fs_node_values(t, node, &v), 0);
	return v.usage_raw;
}

static void charge_some(struct fw_fs_tree *t, fw_time_t t0)
{
	fw_fs_charge(t, fw_fs_find_user(t, "phys", "alice"), 8, t0, t0 + 3 * DAY);
	fw_fs_charge(t, fw_fs_find_user(t, "bio", "alice"), 2, t0 + DAY, t0 + 3 * DAY);
	fw_fs_charge(t, fw_fs_find_user(t, "theory", "bob"), 1.5, t0 + 5, t0 + 2 * DAY);
	fw_fs_charge(t, fw_fs_find_user(t, "bio", "carol"), 64, t0 + 2 * DAY,
		     t0 + 3 * DAY);
}

/* Same nodes in the same order: every usage must be bit-identical. */
static void assert_same_usage(const struct fw_fs_tree *a,
			      const struct fw_fs_tree *b)
{
	ck_assert_uint_eq(fw_fs_node_count(a), fw_fs_node_count(b));
	for (int i = 0; i < (int)fw_fs_node_count(a); i++)
		ck_assert_msg(usage_of(a, i) == usage_of(b, i),
			      "node %d: %.17g != %.17g", i, usage_of(a, i),
			      usage_of(b, i));
}

static void round_trip(const char *const *slurm, const char *const *lines)
{
	struct fw_fs_conf *c = fs_test_conf(slurm, lines);
	struct fw_fs_tree *t = fs_test_tree(c), *u = fs_test_tree(c);
	struct fw_err err = { 0 };
	size_t len, dropped = 99;
	char *buf;

	charge_some(t, 1700000000);
	buf = fw_fs_state_save(t, &len);
	ck_assert_uint_eq(strlen(buf), len);
	ck_assert_msg(fw_fs_state_load(u, buf, len, &dropped, &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(dropped, 0);
	ck_assert_int_eq(fw_fs_clock(u), fw_fs_clock(t));
	ck_assert_int_eq(fw_fs_last_reset(u), fw_fs_last_reset(t));
	assert_same_usage(t, u);
	/* the decay goes on identically (window rings included) */
	for (int d = 1; d <= 9; d++) {
		fw_fs_advance(t, 1700000000 + (3 + d) * DAY);
		fw_fs_advance(u, 1700000000 + (3 + d) * DAY);
		assert_same_usage(t, u);
	}
	fw_fs_compute(t);
	fw_fs_compute(u);
	for (int i = 0; i < (int)fw_fs_node_count(t); i++)
		ck_assert(fw_fs_factor(t, i) == fw_fs_factor(u, i));
	free(buf);
	fw_fs_tree_free(t);
	fw_fs_tree_free(u);
	fw_fs_conf_free(c);
}

START_TEST(round_trip_halflife)
{
	round_trip(L("PriorityDecayHalfLife=2-0"), L(TREE_DEFS));
}
END_TEST

START_TEST(round_trip_window)
{
	round_trip(NULL, L("FairShareDecay=window FairShareWindowCount=5",
			   "FairShareWindowFactor=0.6", TREE_DEFS));
}
END_TEST

START_TEST(round_trip_reset_times)
{
	struct fw_fs_conf *c = fs_test_conf(L("PriorityDecayHalfLife=0",
					      "PriorityUsageResetPeriod=DAILY"),
					    L(TREE_DEFS));
	struct fw_fs_tree *t = fs_test_tree(c), *u = fs_test_tree(c);
	struct fw_err err = { 0 };
	int carol = fw_fs_find_user(t, "bio", "carol");
	size_t len;
	char *buf;

	/* start 2023-11-14 22:13:20 UTC; reset at 2023-11-15 00:00 */
	fw_fs_advance(t, 1700000000);
	fw_fs_charge(t, carol, 1, 1700000000, 1700000000 + DAY);
	ck_assert_int_eq(fw_fs_last_reset(t), 1700006400);
	buf = fw_fs_state_save(t, &len);
	ck_assert_int_eq(fw_fs_state_load(u, buf, len, NULL, &err), 0);
	ck_assert_int_eq(fw_fs_last_reset(u), 1700006400);
	/* only [00:00, 22:13:20) of the day counted: 80000 s */
	ck_assert(usage_of(u, fw_fs_find_user(u, "bio", "carol")) == 80000.0);
	/* the next reset (16 Nov 00:00 = 1700092800) still happens */
	fw_fs_advance(u, 1700092800);
	ck_assert(usage_of(u, 0) == 0.0);
	free(buf);
	fw_fs_tree_free(t);
	fw_fs_tree_free(u);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(reset_now_after_restart)
{
	/* PriorityUsageResetPeriod=NOW resets once per (re)start, also after
	 * the saved usage was loaded */
	struct fw_fs_conf *c = fs_test_conf(L("PriorityDecayHalfLife=0",
					      "PriorityUsageResetPeriod=NONE"),
					    L(TREE_DEFS));
	struct fw_fs_conf *now = fs_test_conf(L("PriorityDecayHalfLife=0",
						"PriorityUsageResetPeriod=NOW"),
					      L(TREE_DEFS));
	struct fw_fs_tree *t = fs_test_tree(c), *u = fs_test_tree(now);
	struct fw_err err = { 0 };
	size_t len;
	char *buf;

	charge_some(t, 1000);
	buf = fw_fs_state_save(t, &len);
	ck_assert_int_eq(fw_fs_state_load(u, buf, len, NULL, &err), 0);
	ck_assert(usage_of(u, 0) == usage_of(t, 0));
	ck_assert(usage_of(u, 0) > 0);
	fw_fs_advance(u, 1000 + 4 * DAY);
	ck_assert(usage_of(u, 0) == 0.0);
	ck_assert_int_eq(fw_fs_last_reset(u), 1000 + 4 * DAY);
	free(buf);
	fw_fs_tree_free(t);
	fw_fs_tree_free(u);
	fw_fs_conf_free(c);
	fw_fs_conf_free(now);
}
END_TEST

START_TEST(names_are_escaped)
{
	struct fw_fs_conf *c = fs_test_conf(L("PriorityDecayHalfLife=0",
					      "PriorityUsageResetPeriod=NONE"), NULL);
	struct fw_fs_tree *t = fw_fs_tree_new(c), *u = fw_fs_tree_new(c);
	struct fw_err err = { 0 };
	const char *acct = "we ird/acct%", *user = "jo hn\t%2F";
	size_t len;
	char *buf;

	for (int k = 0; k < 2; k++) {
		struct fw_fs_tree *x = k ? u : t;

		ck_assert_int_gt(fw_fs_add_account(x, acct, NULL, 1, 0, &err), 0);
		ck_assert_int_gt(fw_fs_add_user(x, acct, user, 1, 0, &err), 0);
	}
	fw_fs_charge(t, fw_fs_find_user(t, acct, user), 3, 0, 7);
	buf = fw_fs_state_save(t, &len);
	ck_assert_ptr_null(strchr(buf, '\t'));
	ck_assert_int_eq(fw_fs_state_load(u, buf, len, NULL, &err), 0);
	ck_assert(usage_of(u, fw_fs_find_user(u, acct, user)) == 21.0);
	ck_assert(usage_of(u, fw_fs_find_account(u, acct)) == 21.0);
	free(buf);
	fw_fs_tree_free(t);
	fw_fs_tree_free(u);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(carry_onto_changed_tree)
{
	struct fw_fs_conf *c = fs_test_conf(L("PriorityDecayHalfLife=0",
					      "PriorityUsageResetPeriod=NONE"),
					    L(TREE_DEFS));
	/* today: bob gone, dave new, theory moved under bio */
	struct fw_fs_conf *c2 = fs_test_conf(L("PriorityDecayHalfLife=0",
					       "PriorityUsageResetPeriod=NONE"),
		L("Account=phys Shares=60", "Account=bio Shares=40",
		  "Account=theory Parent=bio", "User=alice Account=phys,bio",
		  "User=carol Account=bio", "User=dave Account=phys"));
	struct fw_fs_tree *t = fs_test_tree(c);
	struct fw_fs_tree *viafile = fs_test_tree(c2), *direct = fs_test_tree(c2);
	struct fw_err err = { 0 };
	size_t len, dropped = 0;
	char *buf;
	const char *keep[][2] = { { "phys", "alice" }, { "bio", "alice" },
				  { "bio", "carol" } };

	charge_some(t, 0);
	buf = fw_fs_state_save(t, &len);
	ck_assert_int_eq(fw_fs_state_load(viafile, buf, len, &dropped, &err), 0);
	/* dropped: theory (path root/phys/theory is gone) and bob */
	ck_assert_uint_eq(dropped, 2);
	ck_assert_uint_eq(fw_fs_tree_carry_usage(direct, t), 2);
	for (size_t i = 0; i < 3; i++) {
		double want = usage_of(t, fw_fs_find_user(t, keep[i][0], keep[i][1]));

		ck_assert(usage_of(viafile, fw_fs_find_user(viafile, keep[i][0],
							    keep[i][1])) == want);
		ck_assert(usage_of(direct, fw_fs_find_user(direct, keep[i][0],
							   keep[i][1])) == want);
	}
	/* accounts carry their own totals (phys still includes bob's) */
	ck_assert(usage_of(viafile, fw_fs_find_account(viafile, "phys")) ==
		  usage_of(t, fw_fs_find_account(t, "phys")));
	ck_assert(usage_of(direct, 0) == usage_of(t, 0));
	ck_assert(usage_of(viafile, fw_fs_find_user(viafile, "phys", "dave")) == 0);
	ck_assert(usage_of(viafile, fw_fs_find_account(viafile, "theory")) == 0);
	ck_assert_int_eq(fw_fs_clock(direct), fw_fs_clock(t));
	free(buf);
	fw_fs_tree_free(t);
	fw_fs_tree_free(viafile);
	fw_fs_tree_free(direct);
	fw_fs_conf_free(c);
	fw_fs_conf_free(c2);
}
END_TEST

START_TEST(decay_mode_change_keeps_amount)
{
	struct fw_fs_conf *hl = fs_test_conf(L("PriorityDecayHalfLife=1-0"),
					     L(TREE_DEFS));
	struct fw_fs_conf *win = fs_test_conf(NULL, L("FairShareDecay=window",
						      TREE_DEFS));
	struct fw_fs_tree *a = fs_test_tree(hl), *b = fs_test_tree(win);
	struct fw_fs_tree *c = fs_test_tree(hl);
	int alice;
	double before;

	charge_some(a, 1700000000);
	/* half-life -> window: the decayed amount lands in today's window */
	ck_assert_uint_eq(fw_fs_tree_carry_usage(b, a), 0);
	for (int i = 0; i < (int)fw_fs_node_count(a); i++)
		ck_assert_msg(fabs(usage_of(b, i) - usage_of(a, i)) <=
			      1e-12 * usage_of(a, i), "node %d", i);
	/* ... and decays by D = 0.7 a day later */
	alice = fw_fs_find_user(b, "phys", "alice");
	before = usage_of(b, alice);
	fw_fs_advance(b, fw_fs_clock(b) + DAY);
	ck_assert(fabs(usage_of(b, alice) - 0.7 * before) <= 1e-9 * before);
	/* window -> half-life: the decayed sum is kept */
	ck_assert_uint_eq(fw_fs_tree_carry_usage(c, b), 0);
	ck_assert(usage_of(c, alice) == usage_of(b, alice));
	fw_fs_tree_free(a);
	fw_fs_tree_free(b);
	fw_fs_tree_free(c);
	fw_fs_conf_free(hl);
	fw_fs_conf_free(win);
}
END_TEST

/*
 * PriorityUsageResetPeriod=NOW resets at start and at every reconfigure
 * (slurmctld), not when the tree is rebuilt for an association change:
 * carrying usage onto a rebuilt tree carries "NOW done" along, and only
 * fw_fs_rearm_reset_now() (the adapter's reconfigure) arms it again.
 */
START_TEST(reset_now_not_repeated_by_rebuild)
{
	struct fw_fs_conf *c = fs_test_conf(L("PriorityDecayHalfLife=0",
					      "PriorityUsageResetPeriod=NOW"),
					    L(TREE_DEFS));
	struct fw_fs_conf *none = fs_test_conf(L("PriorityDecayHalfLife=0",
						 "PriorityUsageResetPeriod=NONE"),
					       L(TREE_DEFS));
	struct fw_fs_tree *t = fs_test_tree(c), *u = fs_test_tree(c);
	struct fw_fs_tree *fresh = fs_test_tree(c), *fresh2 = fs_test_tree(c);
	struct fw_fs_tree *n = fs_test_tree(none);
	int alice;

	fw_fs_advance(t, 1000);                 /* NOW: reset at start */
	ck_assert_int_eq(fw_fs_last_reset(t), 1000);
	alice = fw_fs_find_user(t, "phys", "alice");
	fw_fs_charge(t, alice, 1, 1000, 2000);
	ck_assert(usage_of(t, alice) == 1000.0);
	/* rebuilt tree (association change): usage stays */
	ck_assert_uint_eq(fw_fs_tree_carry_usage(u, t), 0);
	fw_fs_advance(u, 3000);
	ck_assert(usage_of(u, fw_fs_find_user(u, "phys", "alice")) == 1000.0);
	ck_assert_int_eq(fw_fs_last_reset(u), 1000);
	/* reconfigure: reset again at the next advance, even at the same time */
	fw_fs_rearm_reset_now(u);
	fw_fs_advance(u, 3000);
	ck_assert(usage_of(u, fw_fs_find_user(u, "phys", "alice")) == 0.0);
	ck_assert(usage_of(u, 0) == 0.0);
	ck_assert_int_eq(fw_fs_last_reset(u), 3000);
	/* a NOW not yet done is not lost by a rebuild before the first advance */
	ck_assert_uint_eq(fw_fs_tree_carry_usage(fresh2, fresh), 0);
	fw_fs_advance(fresh2, 50);
	ck_assert_int_eq(fw_fs_last_reset(fresh2), 50);
	/* re-arming means nothing without NOW */
	fw_fs_advance(n, 10);
	fw_fs_charge(n, fw_fs_find_user(n, "bio", "carol"), 1, 10, 20);
	fw_fs_rearm_reset_now(n);
	fw_fs_advance(n, 30);
	ck_assert_int_eq(fw_fs_last_reset(n), 0);
	ck_assert(usage_of(n, 0) == 10.0);
	fw_fs_tree_free(t);
	fw_fs_tree_free(u);
	fw_fs_tree_free(fresh);
	fw_fs_tree_free(fresh2);
	fw_fs_tree_free(n);
	fw_fs_conf_free(c);
	fw_fs_conf_free(none);
}
END_TEST

/* A tree with known usage, to check that failed loads leave it alone. */
static struct fw_fs_tree *witness(struct fw_fs_conf **c)
{
	struct fw_fs_tree *t;

	*c = fs_test_conf(L("PriorityDecayHalfLife=0",
			    "PriorityUsageResetPeriod=NONE"), L(TREE_DEFS));
	t = fs_test_tree(*c);
	fw_fs_charge(t, fw_fs_find_user(t, "bio", "carol"), 1, 100, 142);
	return t;
}

static void assert_witness(const struct fw_fs_tree *t)
{
	ck_assert(usage_of(t, fw_fs_find_user(t, "bio", "carol")) == 42.0);
	ck_assert(usage_of(t, 0) == 42.0);
	ck_assert_int_eq(fw_fs_clock(t), 142);
}

START_TEST(truncated_and_corrupt_state)
{
	struct fw_fs_conf *c, *wc;
	struct fw_fs_tree *t, *w = witness(&wc);
	struct fw_err err = { 0 };
	size_t len;
	char *buf;

	c = fs_test_conf(NULL, L("FairShareDecay=window", TREE_DEFS));
	t = fs_test_tree(c);
	charge_some(t, 1700000000);
	buf = fw_fs_state_save(t, &len);
	/* every truncation is detected */
	for (size_t n = 0; n < len; n++) {
		ck_assert_msg(fw_fs_state_load(w, buf, n, NULL, &err) == -1,
			      "prefix %zu accepted", n);
		ck_assert_ptr_nonnull(strstr(err.msg, "fair-share state"));
	}
	/* every single-bit flip is detected */
	for (size_t i = 0; i < len; i++) {
		buf[i] ^= 1;
		ck_assert_msg(fw_fs_state_load(w, buf, len, NULL, &err) == -1,
			      "flip at %zu accepted", i);
		buf[i] ^= 1;
	}
	assert_witness(w);
	/* a NUL byte */
	buf[10] = '\0';
	ck_assert_int_eq(fw_fs_state_load(w, buf, len, NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "NUL"));
	ck_assert_int_eq(fw_fs_state_load(w, NULL, 0, NULL, &err), -1);
	assert_witness(w);
	free(buf);
	fw_fs_tree_free(t);
	fw_fs_tree_free(w);
	fw_fs_conf_free(c);
	fw_fs_conf_free(wc);
}
END_TEST

/* The format's checksum, computed here independently: FNV-1a 64. */
static char *seal(const char *body, size_t *len)
{
	uint64_t h = 1469598103934665603ull;
	size_t n = strlen(body);
	char *s = malloc(n + 64);

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)body[i]) * 1099511628211ull;
	*len = (size_t)sprintf(s, "%schecksum %016" PRIx64 "\n", body, h);
	return s;
}

#define HDR "fairway-fs-state 1\nclock 1 142\nreset - -\ndecay halflife 0\n"

START_TEST(malformed_state_with_valid_checksum)
{
	static const struct {
		const char *body, *why;
		int line;
	} cases[] = {
		{ "fairway-fs-stats 1\n", "not a fair-share state", 1 },
		{ "fairway-fs-state 2\n" "clock 1 5\n", "unsupported version 2", 1 },
		{ HDR "node A root 1\nbogus 1\nend 1\n", "unknown record 'bogus'", 6 },
		{ HDR "node A root 1\n", "no end record", 5 },
		{ HDR "node A root 1\nend 2\n", "does not match 1 node", 6 },
		{ HDR "node A root 1\nend 1\nnode A root 1\n", "after the end", 7 },
		{ HDR "node A root -1\nend 1\n", "bad usage value '-1'", 5 },
		{ HDR "node A root nan\nend 1\n", "bad usage value 'nan'", 5 },
		{ HDR "node A root 1e999\nend 1\n", "bad usage value", 5 },
		{ HDR "node A root 1x\nend 1\n", "bad usage value", 5 },
		{ HDR "node A root 1\nnode A root 2\nend 2\n", "appears twice", 6 },
		{ HDR "node A phys 1\nend 1\n", "does not start at root", 5 },
		{ HDR "node A root/%zz 1\nend 1\n", "bad name", 5 },
		{ HDR "node A root/%00 1\nend 1\n", "bad name", 5 },
		{ HDR "node A root//x 1\nend 1\n", "bad name", 5 },
		{ HDR "node U root/bio car\x01ol 1\nend 1\n", "bad user name", 5 },
		{ HDR "node A root 1 2\nend 1\n", "fields", 5 },
		{ HDR "node U root/bio 1\nend 1\n", "fields", 5 },
		{ HDR "node X root 1\nend 1\n", "bad node record", 5 },
		{ "fairway-fs-state 1\nnode A root 1\nend 1\n", "before the clock", 2 },
		{ HDR "clock 1 7\nend 0\n", "duplicate clock", 5 },
		{ "fairway-fs-state 1\nclock 2 142\n", "bad clock", 2 },
		{ "fairway-fs-state 1\nclock 1\n", "bad clock", 2 },
		{ "fairway-fs-state 1\nreset x -\n", "bad reset", 2 },
		{ "fairway-fs-state 1\ndecay halflife -5\n", "bad half-life", 2 },
		{ "fairway-fs-state 1\ndecay window 0 7 0.7 1\n", "bad window", 2 },
		{ "fairway-fs-state 1\ndecay window 86400 1001 0.7 1\n", "bad window", 2 },
		{ "fairway-fs-state 1\ndecay window 86400 7 1.5 1\n", "bad window", 2 },
		{ "fairway-fs-state 1\ndecay linear\n", "bad decay", 2 },
		{ HDR "\nend 0\n", "malformed line", 5 },
		{ HDR "node A root 1 \n", "no end record", 5 },
	};
	struct fw_fs_conf *wc;
	struct fw_fs_tree *w = witness(&wc);

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct fw_err err = { 0 };
		size_t len;
		char *buf = seal(cases[i].body, &len);

		ck_assert_msg(fw_fs_state_load(w, buf, len, NULL, &err) == -1,
			      "case %zu accepted", i);
		ck_assert_msg(strstr(err.msg, cases[i].why) != NULL,
			      "case %zu: '%s' lacks '%s'", i, err.msg, cases[i].why);
		ck_assert_msg(err.line == cases[i].line, "case %zu: line %d not %d",
			      i, err.line, cases[i].line);
		free(buf);
	}
	assert_witness(w);
	fw_fs_tree_free(w);
	fw_fs_conf_free(wc);
}
END_TEST

START_TEST(hand_written_state_loads)
{
	struct fw_fs_conf *wc;
	struct fw_fs_tree *w = witness(&wc);
	struct fw_err err = { 0 };
	size_t len, dropped = 0;
	/* unknown nodes are dropped; unlisted ones get 0; account names match
	 * case-insensitively */
	char *buf = seal(HDR "node A root 10\nnode A root/BIO 7\n"
			 "node U root/bio carol 7\nnode A root/ghost 3\n"
			 "node U root/bio ghost 3\nend 5\n", &len);

	ck_assert_msg(fw_fs_state_load(w, buf, len, &dropped, &err) == 0, "%s",
		      err.msg);
	ck_assert_uint_eq(dropped, 2);
	ck_assert(usage_of(w, 0) == 10.0);
	ck_assert(usage_of(w, fw_fs_find_account(w, "bio")) == 7.0);
	ck_assert(usage_of(w, fw_fs_find_user(w, "bio", "carol")) == 7.0);
	ck_assert(usage_of(w, fw_fs_find_user(w, "phys", "alice")) == 0.0);
	ck_assert_int_eq(fw_fs_clock(w), 142);
	free(buf);
	fw_fs_tree_free(w);
	fw_fs_conf_free(wc);
}
END_TEST

Suite *fs_state_suite(void)
{
	Suite *s = suite_create("fairshare-state");
	TCase *tc = tcase_create("state");

	tcase_add_test(tc, round_trip_halflife);
	tcase_add_test(tc, round_trip_window);
	tcase_add_test(tc, round_trip_reset_times);
	tcase_add_test(tc, reset_now_after_restart);
	tcase_add_test(tc, names_are_escaped);
	tcase_add_test(tc, carry_onto_changed_tree);
	tcase_add_test(tc, decay_mode_change_keeps_amount);
	tcase_add_test(tc, reset_now_not_repeated_by_rebuild);
	tcase_add_test(tc, truncated_and_corrupt_state);
	tcase_add_test(tc, malformed_state_with_valid_checksum);
	tcase_add_test(tc, hand_written_state_loads);
	suite_add_tcase(s, tc);
	return s;
}
