/*
 * Unit tests for the fair-share module: tree and lookups, usage charging
 * and decay, usage resets, and the four formulas.  Expected values are
 * worked out by hand from the seeds' and Slurm's formulas (arithmetic in
 * the comments).  Configuration tests are in test_fs_conf.c, state tests in
 * test_fs_state.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fw_fairshare.h"
#include "test_run.h"

/* shared with test_fs_conf.c and test_fs_state.c */
struct fw_fs_conf *fs_test_conf(const char *const *slurm,
				const char *const *lines);
struct fw_fs_tree *fs_test_tree(const struct fw_fs_conf *c);
Suite *fs_conf_suite(void);
Suite *fs_state_suite(void);

#define DAY 86400
#define HOUR 3600
#define NONE_END ((const char *const[]){ NULL })
/* slurm.conf pairs for undecayed usage (Slurm requires a reset period) */
#define NO_DECAY ((const char *const[]){ "PriorityDecayHalfLife=0", \
	"PriorityUsageResetPeriod=NONE", NULL })

#define ck_near(a, b, tol) \
	ck_assert_msg(fabs((double)(a) - (double)(b)) <= (tol), \
		      "%s = %.17g, expected %.17g (tol %g)", #a, (double)(a), \
		      (double)(b), (double)(tol))
#define ck_rel(a, b, rel) \
	ck_assert_msg(fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)), \
		      "%s = %.17g, expected %.17g (rel %g)", #a, (double)(a), \
		      (double)(b), (double)(rel))

struct fw_fs_conf *fs_test_conf(const char *const *slurm,
				const char *const *lines)
{
	struct fw_fs_conf *c = fw_fs_conf_new();
	struct fw_err err = { 0 };
	char buf[128];

	for (int i = 0; slurm && slurm[i]; i++) {
		const char *eq = strchr(slurm[i], '=');

		ck_assert_ptr_nonnull(eq);
		snprintf(buf, sizeof(buf), "%.*s", (int)(eq - slurm[i]), slurm[i]);
		ck_assert_msg(fw_fs_conf_slurm(c, buf, eq + 1, &err) == FW_CONF_OK,
			      "%s: %s", slurm[i], err.msg);
	}
	for (int i = 0; lines && lines[i]; i++) {
		struct fw_kv kv;
		bool used[FW_KV_MAX] = { false };

		ck_assert_int_eq(fw_kv_parse(lines[i], &kv, &err), 0);
		ck_assert_msg(fw_fs_conf_line(c, &kv, used, &err) == FW_CONF_OK,
			      "%s: %s", lines[i], err.msg);
		for (int k = 0; k < kv.n; k++)
			ck_assert_msg(used[k], "%s: %s not consumed", lines[i],
				      kv.key[k]);
		fw_kv_free(&kv);
	}
	ck_assert_msg(fw_fs_conf_finish(c, &err) == FW_CONF_OK, "finish: %s",
		      err.msg);
	return c;
}

struct fw_fs_tree *fs_test_tree(const struct fw_fs_conf *c)
{
	struct fw_fs_tree *t = fw_fs_tree_new(c);
	struct fw_err err = { 0 };

	ck_assert_msg(fw_fs_tree_add_conf_defs(t, c, &err) == 0, "%s", err.msg);
	return t;
}

static double usage_of(const struct fw_fs_tree *t, int node)
{
	struct fw_fs_values v;

	ck_assert_int_eq(fw_fs_node_values(t, node, &v), 0);
	return v.usage_raw;
}

static struct fw_fs_values values_of(const struct fw_fs_tree *t, int node)
{
	struct fw_fs_values v;

	ck_assert_int_eq(fw_fs_node_values(t, node, &v), 0);
	return v;
}

/* -------------------------------------------------------------- the tree */

START_TEST(tree_from_conf_and_lookups)
{
	struct fw_fs_conf *c = fs_test_conf(NULL, (const char *const[]){
		"Account=phys Parent=root Shares=60",
		"Account=theory Parent=phys Shares=parent",
		"Account=bio Shares=40",
		"User=alice Account=phys,bio Shares=3",
		"User=bob Account=theory", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	struct fw_err err = { 0 };
	int phys, theory, bio, a1, a2, bob;
	struct fw_fs_values v;

	/* root + 3 accounts + alice twice + bob */
	ck_assert_uint_eq(fw_fs_node_count(t), 7);
	ck_assert_uint_eq(fw_fs_user_count(t), 3);
	phys = fw_fs_find_account(t, "phys");
	theory = fw_fs_find_account(t, "theory");
	bio = fw_fs_find_account(t, "bio");
	ck_assert_int_gt(phys, 0);
	ck_assert_int_gt(theory, 0);
	ck_assert_int_gt(bio, 0);
	/* account names are case-insensitive (Slurm lower-cases them) */
	ck_assert_int_eq(fw_fs_find_account(t, "PHYS"), phys);
	a1 = fw_fs_find_user(t, "phys", "alice");
	a2 = fw_fs_find_user(t, "bio", "alice");
	bob = fw_fs_find_user(t, "theory", "bob");
	ck_assert_int_gt(a1, 0);
	ck_assert_int_gt(a2, 0);
	ck_assert_int_ne(a1, a2);
	ck_assert_int_gt(bob, 0);
	/* user names are exact */
	ck_assert_int_eq(fw_fs_find_user(t, "phys", "Alice"), -1);
	ck_assert_int_eq(fw_fs_find_user(t, "phys", "bob"), -1);
	ck_assert_int_eq(fw_fs_find_account(t, "alice"), -1);
	v = values_of(t, theory);
	ck_assert_int_eq(v.parent, phys);
	ck_assert_uint_eq(v.shares_raw, FW_FS_USE_PARENT);
	v = values_of(t, a2);
	ck_assert(v.is_user);
	ck_assert_str_eq(v.account, "bio");
	ck_assert_uint_eq(v.shares_raw, 3);
	v = values_of(t, bob);
	ck_assert_uint_eq(v.shares_raw, 1);   /* default Shares */
	ck_assert_int_eq(values_of(t, 0).parent, -1);

	/* adding: duplicates and missing parents are errors */
	ck_assert_int_eq(fw_fs_add_account(t, "phys", NULL, 1, 0, &err), -1);
	ck_assert_str_eq(err.value, "phys");
	ck_assert_int_eq(fw_fs_add_account(t, "x", "nosuch", 1, 0, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "nosuch"));
	ck_assert_int_eq(fw_fs_add_user(t, "nosuch", "u", 1, 0, &err), -1);
	ck_assert_int_eq(fw_fs_add_user(t, "phys", "alice", 1, 0, &err), -1);
	ck_assert_int_eq(fw_fs_add_user(t, "phys", "", 1, 0, &err), -1);
	ck_assert_int_eq(fw_fs_add_account(t, "y", NULL, FW_FS_USE_PARENT + 1, 0,
					   &err), -1);
	ck_assert_int_eq(fw_fs_set_shares(t, 0, 5), -1);      /* root */
	ck_assert_int_eq(fw_fs_set_shares(t, 99, 5), -1);
	ck_assert_int_eq(fw_fs_set_shares(t, bob, 5), 0);
	ck_assert_uint_eq(values_of(t, bob).shares_raw, 5);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(external_ids)
{
	struct fw_fs_conf *c = fs_test_conf(NULL, NULL);
	struct fw_fs_tree *t = fw_fs_tree_new(c);
	struct fw_err err = { 0 };
	int a, u;

	ck_assert_int_eq(fw_fs_set_ext_id(t, 0, 1), 0);
	a = fw_fs_add_account(t, "chem", "root", 10, 2, &err);
	u = fw_fs_add_user(t, "chem", "carol", 1, 3, &err);
	ck_assert_int_eq(fw_fs_find_ext(t, 1), 0);
	ck_assert_int_eq(fw_fs_find_ext(t, 2), a);
	ck_assert_int_eq(fw_fs_find_ext(t, 3), u);
	ck_assert_int_eq(fw_fs_find_ext(t, 4), -1);
	ck_assert_int_eq(fw_fs_find_ext(t, 0), -1);
	/* an id is unique */
	ck_assert_int_eq(fw_fs_add_user(t, "chem", "dave", 1, 3, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "3"));
	ck_assert_int_eq(fw_fs_set_ext_id(t, a, 3), -1);
	/* re-numbering moves the id */
	ck_assert_int_eq(fw_fs_set_ext_id(t, u, 30), 0);
	ck_assert_int_eq(fw_fs_find_ext(t, 3), -1);
	ck_assert_int_eq(fw_fs_find_ext(t, 30), u);
	ck_assert_int_eq(fw_fs_set_ext_id(t, u, 0), 0);
	ck_assert_int_eq(fw_fs_find_ext(t, 30), -1);
	ck_assert_int_eq(fw_fs_find_ext(t, 2), a);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(many_nodes_grow_indexes)
{
	struct fw_fs_conf *c = fs_test_conf(NULL, NULL);
	struct fw_fs_tree *t = fw_fs_tree_new(c);
	struct fw_err err = { 0 };
	char a[32], u[32];

	/* 50 accounts x 40 users, with ids: every lookup still finds its node */
	for (int i = 0; i < 50; i++) {
		snprintf(a, sizeof(a), "acct%d", i);
		ck_assert_int_gt(fw_fs_add_account(t, a, NULL, 1,
						   (uint32_t)(1000 + i), &err), 0);
		for (int j = 0; j < 40; j++) {
			snprintf(u, sizeof(u), "user%d", j);
			ck_assert_int_gt(fw_fs_add_user(t, a, u, 1,
				(uint32_t)(10000 + i * 40 + j), &err), 0);
		}
	}
	ck_assert_uint_eq(fw_fs_node_count(t), 1 + 50 + 2000);
	for (int i = 0; i < 50; i++) {
		int ai;

		snprintf(a, sizeof(a), "acct%d", i);
		ai = fw_fs_find_account(t, a);
		ck_assert_int_eq(fw_fs_find_ext(t, (uint32_t)(1000 + i)), ai);
		for (int j = 0; j < 40; j += 13) {
			int ui;

			snprintf(u, sizeof(u), "user%d", j);
			ui = fw_fs_find_user(t, a, u);
			ck_assert_int_eq(values_of(t, ui).parent, ai);
			ck_assert_int_eq(fw_fs_find_ext(t,
				(uint32_t)(10000 + i * 40 + j)), ui);
		}
	}
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(unknown_account_policies)
{
	struct fw_fs_conf *c = fs_test_conf(NULL, (const char *const[]){
		"Account=phys", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int u, a;

	/* create (default): unknown account under root, Shares=1, user in it */
	u = fw_fs_resolve(t, "newacct", "zed");
	a = fw_fs_find_account(t, "newacct");
	ck_assert_int_gt(a, 0);
	ck_assert_int_eq(values_of(t, a).parent, 0);
	ck_assert_uint_eq(values_of(t, a).shares_raw, 1);
	ck_assert_int_eq(u, fw_fs_find_user(t, "newacct", "zed"));
	ck_assert_int_eq(fw_fs_resolve(t, "newacct", "zed"), u); /* found now */
	/* an unknown user of a known account is always created in it */
	u = fw_fs_resolve(t, "phys", "amy");
	ck_assert_int_eq(values_of(t, u).parent, fw_fs_find_account(t, "phys"));
	/* no account: root */
	u = fw_fs_resolve(t, "", "ann");
	ck_assert_int_eq(values_of(t, u).parent, 0);
	ck_assert_int_eq(fw_fs_resolve(t, "phys", ""), -1);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);

	c = fs_test_conf(NULL, (const char *const[]){
		"FairShareUnknownAccount=root FairShareUnknownShares=5", NULL });
	t = fs_test_tree(c);
	u = fw_fs_resolve(t, "ghost", "gus");
	ck_assert_int_eq(values_of(t, u).parent, 0);
	ck_assert_uint_eq(values_of(t, u).shares_raw, 5);
	ck_assert_int_eq(fw_fs_find_account(t, "ghost"), -1);
	ck_assert_int_eq(fw_fs_resolve(t, "ghost2", "gus"), u);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);

	c = fs_test_conf(NULL, (const char *const[]){
		"FairShareUnknownAccount=ignore", NULL });
	t = fs_test_tree(c);
	ck_assert_int_eq(fw_fs_resolve(t, "ghost", "gus"), -1);
	ck_assert_uint_eq(fw_fs_node_count(t), 1);
	ck_assert(fw_fs_factor(t, -1) == 0.0);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

/* ------------------------------------------------------------------ decay */

START_TEST(one_halflife_halves_usage)
{
	struct fw_fs_conf *c = fs_test_conf((const char *const[]){
		"PriorityDecayHalfLife=1-0", NULL }, (const char *const[]){
		"Account=a", "User=u Account=a", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int u = fw_fs_find_user(t, "a", "u");
	double u0;

	fw_fs_advance(t, 1000);
	ck_assert_int_eq(fw_fs_charge(t, u, 10, 900, 1000), 0);
	/*
	 * 10 units for 100 s, decayed within the interval:
	 * 10 * tau * (1 - e^(-100/tau)), tau = 86400/ln 2 = 124648.85 s,
	 * = 10 * 100 * (1 - x/2 + x^2/6), x = 100/tau = 8.0226e-4
	 * = 999.599
	 */
	u0 = usage_of(t, u);
	ck_near(u0, 999.599, 1e-3);
	/* parents carry the same usage */
	ck_assert(usage_of(t, fw_fs_find_account(t, "a")) == u0);
	ck_assert(usage_of(t, 0) == u0);
	fw_fs_advance(t, 1000 + DAY);
	ck_rel(usage_of(t, u), u0 / 2, 1e-14);
	ck_rel(usage_of(t, 0), u0 / 2, 1e-14);
	/* time going backwards changes nothing */
	fw_fs_advance(t, 500);
	ck_rel(usage_of(t, u), u0 / 2, 1e-14);
	ck_assert_int_eq(fw_fs_clock(t), 1000 + DAY);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);

	/* seed 000: usage is cut in half every 168 hours */
	c = fs_test_conf((const char *const[]){
		"PriorityDecayHalfLife=168:00:00", NULL }, (const char *const[]){
		"User=u Account=root", NULL });
	t = fs_test_tree(c);
	u = fw_fs_find_user(t, "root", "u");
	fw_fs_advance(t, 0);
	fw_fs_charge(t, u, 8, 0, 1);
	u0 = usage_of(t, u);
	/* 8 units x 1 s; decay inside that second: 8 * 1/(2 tau) = 4.6e-6 */
	ck_near(u0, 8.0, 1e-5);
	fw_fs_advance(t, 168 * HOUR + 1);
	ck_rel(usage_of(t, u), u0 / 2, 1e-14);
	fw_fs_advance(t, 2 * 168 * HOUR + 1);
	ck_rel(usage_of(t, u), u0 / 4, 1e-14);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(charging_is_slice_invariant)
{
	struct fw_fs_conf *c = fs_test_conf((const char *const[]){
		"PriorityDecayHalfLife=1-0", NULL }, (const char *const[]){
		"User=u Account=root", NULL });
	struct fw_fs_tree *one = fs_test_tree(c), *many = fs_test_tree(c);
	struct fw_fs_tree *odd = fs_test_tree(c);
	int u = fw_fs_find_user(one, "root", "u");
	const double tau = DAY / log(2.0);
	fw_time_t t;

	/* 4 units over 10 days: one call ... */
	fw_fs_charge(one, u, 4, 0, 10 * DAY);
	/* ... equals 240 hourly calls, advancing between them ... */
	for (t = 0; t < 10 * DAY; t += HOUR) {
		fw_fs_advance(many, t + HOUR);
		fw_fs_charge(many, u, 4, t, t + HOUR);
	}
	/* ... and uneven slices charged late, after the clock moved on */
	fw_fs_advance(odd, 10 * DAY);
	for (t = 0; t < 10 * DAY;) {
		fw_time_t next = t + 7 * HOUR + 13;

		if (next > 10 * DAY)
			next = 10 * DAY;
		fw_fs_charge(odd, u, 4, t, next);
		t = next;
	}
	/* closed form: 4 * tau * (1 - 2^-10) */
	ck_rel(usage_of(one, u), 4 * tau * (1 - 1.0 / 1024), 1e-12);
	ck_rel(usage_of(many, u), usage_of(one, u), 1e-12);
	ck_rel(usage_of(odd, u), usage_of(one, u), 1e-12);
	fw_fs_tree_free(one);
	fw_fs_tree_free(many);
	fw_fs_tree_free(odd);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(no_decay_and_bad_charges)
{
	struct fw_fs_conf *c = fs_test_conf(NO_DECAY, (const char *const[]){
		"User=u Account=root", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int u = fw_fs_find_user(t, "root", "u");

	/* no decay: 16 CPUs x 2 h = 115200 CPU-seconds, kept forever */
	ck_assert_int_eq(fw_fs_charge(t, u, 16, 0, 2 * HOUR), 0);
	fw_fs_advance(t, 400 * DAY);
	ck_assert(usage_of(t, u) == 115200.0);
	ck_assert_int_eq(fw_fs_charge(t, -1, 1, 0, 1), -1);
	ck_assert_int_eq(fw_fs_charge(t, 99, 1, 0, 1), -1);
	ck_assert_int_eq(fw_fs_charge(t, u, -1, 0, 1), -1);
	ck_assert_int_eq(fw_fs_charge(t, u, NAN, 0, 1), -1);
	ck_assert_int_eq(fw_fs_charge(t, u, INFINITY, 0, 1), -1);
	ck_assert_int_eq(fw_fs_charge(t, u, 1, 10, 5), -1);
	ck_assert_int_eq(fw_fs_charge(t, u, 1, 10, 10), 0);  /* empty */
	ck_assert(usage_of(t, u) == 115200.0);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

/* The primer's cluster: 4 nodes, daily windows, D = 0.7 over 7 days. */
#define PRIMER_CONF ((const char *const[]){ \
	"FairShareFormula=share_minus_usage FairShareCapacity=4", \
	"FairShareDecay=window FairShareWindow=1d FairShareWindowCount=7", \
	"FairShareWindowFactor=0.7", \
	"User=jack Account=root Shares=1", \
	"User=jill Account=root Shares=3", NULL })

START_TEST(windowed_decay_primer)
{
	struct fw_fs_conf *c = fs_test_conf(NULL, PRIMER_CONF);
	struct fw_fs_tree *t = fs_test_tree(c);
	int jill = fw_fs_find_user(t, "root", "jill");
	const fw_time_t d0 = 19000 * (fw_time_t)DAY;   /* a midnight */
	struct fw_fs_values v;

	fw_fs_advance(t, d0);
	/* jill's 3 nodes all day: U = 3*24/96 = 0.75 -> P = 0.75 - 0.75 = 0 */
	fw_fs_charge(t, jill, 3, d0, d0 + DAY);
	ck_assert_int_eq(fw_fs_compute(t), 0);
	v = values_of(t, jill);
	ck_near(v.usage_efctv, 0.75, 1e-12);
	ck_near(v.fs_factor, 0.0, 1e-12);
	ck_near(v.usage_raw, 3.0 * DAY, 1e-6);  /* unit-seconds */
	/* The job's day ended at d0 + DAY; from the next second on it is
	 * yesterday: U = 0.7 * 0.75 = 0.525 -> P = 0.225, all day long */
	fw_fs_advance(t, d0 + DAY + 5 * HOUR);
	fw_fs_compute(t);
	ck_near(values_of(t, jill).usage_efctv, 0.525, 1e-12);
	ck_near(fw_fs_factor(t, jill), 0.225, 1e-12);
	fw_fs_advance(t, d0 + 2 * DAY);
	fw_fs_compute(t);
	ck_near(values_of(t, jill).usage_efctv, 0.525, 1e-12);
	ck_near(fw_fs_factor(t, jill), 0.225, 1e-12);
	/* two days later: U = 0.49 * 0.75 = 0.3675 -> P = 0.3825 */
	fw_fs_advance(t, d0 + 2 * DAY + 1);
	fw_fs_compute(t);
	ck_near(values_of(t, jill).usage_efctv, 0.3675, 1e-12);
	ck_near(fw_fs_factor(t, jill), 0.3825, 1e-12);
	/* after 7 windows the day falls out: 0.7^6 is the last weight
	 * (the window ending at d0 + 7 days is the 7th: day, 6 after it) */
	fw_fs_advance(t, d0 + 7 * DAY);
	fw_fs_compute(t);
	ck_near(values_of(t, jill).usage_efctv, 0.75 * pow(0.7, 6), 1e-12);
	fw_fs_advance(t, d0 + 8 * DAY);
	fw_fs_compute(t);
	ck_near(values_of(t, jill).usage_efctv, 0.0, 1e-15);
	ck_near(fw_fs_factor(t, jill), 0.75, 1e-12);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(windowed_charging_is_slice_invariant)
{
	struct fw_fs_conf *c = fs_test_conf(NULL, (const char *const[]){
		"FairShareDecay=window FairShareWindow=1d FairShareWindowCount=3",
		"FairShareWindowFactor=0.5", "User=u Account=root", NULL });
	struct fw_fs_tree *one = fs_test_tree(c), *many = fs_test_tree(c);
	int u = fw_fs_find_user(one, "root", "u");

	/* 2 units from 12:00 on day 0 to 06:00 on day 3, seen at day 3 06:00:
	 * day0 12h, day1 24h, day2 24h, day3 6h; 3 windows kept (day 0 out):
	 * 2*(6h + 0.5*24h + 0.25*24h) = 2*3600*(6 + 12 + 6) = 172800 */
	fw_fs_charge(one, u, 2, DAY / 2, 3 * DAY + 6 * HOUR);
	for (fw_time_t t = DAY / 2; t < 3 * DAY + 6 * HOUR; t += 1800)
		fw_fs_charge(many, u, 2, t, t + 1800);
	ck_near(usage_of(one, u), 172800.0, 1e-6);
	ck_near(usage_of(many, u), 172800.0, 1e-6);
	fw_fs_tree_free(one);
	fw_fs_tree_free(many);
	fw_fs_conf_free(c);
}
END_TEST

/* ------------------------------------------------------------------ resets */

/* A tree with one user (no decay) reset at `period`, started at `start`,
 * holding 100 units x 1 s. */
static struct fw_fs_tree *reset_tree(const char *period, fw_time_t start,
				     struct fw_fs_conf **c, int *u)
{
	char p[64];
	struct fw_fs_tree *t;

	snprintf(p, sizeof(p), "PriorityUsageResetPeriod=%s", period);
	*c = fs_test_conf((const char *const[]){ "PriorityDecayHalfLife=0", p,
						 NULL },
			  (const char *const[]){ "User=u Account=root", NULL });
	t = fs_test_tree(*c);
	*u = fw_fs_find_user(t, "root", "u");
	fw_fs_advance(t, start);
	fw_fs_charge(t, *u, 100, start - 1, start);
	return t;
}

START_TEST(usage_reset_periods)
{
	/* started Wed 2024-01-10 12:00 UTC = 1704888000 (TZ=UTC) */
	const fw_time_t start = 1704888000;
	static const struct {
		const char *period;
		fw_time_t boundary;
	} cases[] = {
		{ "DAILY", 1704931200 },     /* Thu 2024-01-11 00:00 */
		{ "WEEKLY", 1705190400 },    /* Sun 2024-01-14 00:00 */
		{ "MONTHLY", 1706745600 },   /* 2024-02-01 00:00 */
		{ "QUARTERLY", 1711929600 }, /* 2024-04-01 00:00 */
		{ "YEARLY", 1735689600 },    /* 2025-01-01 00:00 */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct fw_fs_conf *c;
		int u;
		struct fw_fs_tree *t = reset_tree(cases[i].period, start, &c, &u);

		ck_assert(usage_of(t, u) == 100.0);
		fw_fs_advance(t, cases[i].boundary - 1);
		ck_assert_msg(usage_of(t, u) == 100.0, "%s", cases[i].period);
		ck_assert_int_eq(fw_fs_last_reset(t), 0);
		fw_fs_advance(t, cases[i].boundary);
		ck_assert_msg(usage_of(t, u) == 0.0, "%s", cases[i].period);
		ck_assert(usage_of(t, 0) == 0.0);
		ck_assert_int_eq(fw_fs_last_reset(t), cases[i].boundary);
		/* a charge reaching back before the reset counts after it only */
		fw_fs_charge(t, u, 2, cases[i].boundary - HOUR,
			     cases[i].boundary + 10);
		ck_assert(usage_of(t, u) == 20.0);   /* 2 units x 10 s */
		fw_fs_tree_free(t);
		fw_fs_conf_free(c);
	}
}
END_TEST

START_TEST(reset_skips_to_last_boundary)
{
	struct fw_fs_conf *c;
	int u;
	struct fw_fs_tree *t = reset_tree("DAILY", 1704888000, &c, &u);

	/* 10 days of downtime: the last boundary passed is 2024-01-20 00:00
	 * = 1704931200 + 9 * 86400 = 1705708800 */
	fw_fs_advance(t, 1705708800 + 5 * HOUR);
	ck_assert(usage_of(t, u) == 0.0);
	ck_assert_int_eq(fw_fs_last_reset(t), 1705708800);
	fw_fs_charge(t, u, 1, 1705708800 + HOUR, 1705708800 + 2 * HOUR);
	/* next one is the following midnight */
	fw_fs_advance(t, 1705708800 + DAY - 1);
	ck_assert(usage_of(t, u) == 3600.0);
	fw_fs_advance(t, 1705708800 + DAY);
	ck_assert(usage_of(t, u) == 0.0);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(reset_now_once)
{
	struct fw_fs_conf *c = fs_test_conf((const char *const[]){
		"PriorityDecayHalfLife=0", "PriorityUsageResetPeriod=NOW", NULL },
		(const char *const[]){ "User=u Account=root", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int u = fw_fs_find_user(t, "root", "u");

	/* the first advance resets (at 1000); later ones do not */
	fw_fs_advance(t, 1000);
	ck_assert_int_eq(fw_fs_last_reset(t), 1000);
	fw_fs_charge(t, u, 1, 0, 2000);      /* only [1000, 2000) counts */
	ck_assert(usage_of(t, u) == 1000.0);
	fw_fs_advance(t, 5000);
	ck_assert(usage_of(t, u) == 1000.0);
	ck_assert_int_eq(fw_fs_last_reset(t), 1000);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

/* --------------------------------------------------------------- formulas */

START_TEST(share_minus_usage_jack_and_jill)
{
	struct fw_fs_conf *c = fs_test_conf(NULL, PRIMER_CONF);
	struct fw_fs_tree *t = fs_test_tree(c);
	int jack = fw_fs_find_user(t, "root", "jack");
	int jill = fw_fs_find_user(t, "root", "jill");
	const fw_time_t d0 = 19000 * (fw_time_t)DAY;

	/* S = 1/4 and 3/4; no usage: P = 0.25 and 0.75 */
	fw_fs_advance(t, d0);
	ck_assert_int_eq(fw_fs_compute(t), 0);
	ck_near(values_of(t, jack).shares_norm, 0.25, 1e-15);
	ck_near(fw_fs_factor(t, jack), 0.25, 1e-12);
	ck_near(fw_fs_factor(t, jill), 0.75, 1e-12);
	/* jill's 1st job, 4 nodes x 6 h: U = 24/96 = 0.25 -> P = 0.5 */
	fw_fs_charge(t, jill, 4, d0, d0 + 6 * HOUR);
	fw_fs_compute(t);
	ck_near(fw_fs_factor(t, jack), 0.25, 1e-12);
	ck_near(fw_fs_factor(t, jill), 0.5, 1e-12);
	/* 2nd job: U = 48/96 = 0.5 -> P = 0.25 (tie with jack) */
	fw_fs_charge(t, jill, 4, d0 + 6 * HOUR, d0 + 12 * HOUR);
	fw_fs_compute(t);
	ck_near(fw_fs_factor(t, jack), 0.25, 1e-12);
	ck_near(fw_fs_factor(t, jill), 0.25, 1e-12);
	/* 3rd job: U = 72/96 = 0.75 -> P = 0 */
	fw_fs_charge(t, jill, 4, d0 + 12 * HOUR, d0 + 18 * HOUR);
	fw_fs_compute(t);
	ck_near(fw_fs_factor(t, jack), 0.25, 1e-12);
	ck_near(fw_fs_factor(t, jill), 0.0, 1e-12);
	/* jack's job: U = 24/96 = 0.25 -> P = 0; both 0 at the day's end */
	fw_fs_charge(t, jack, 4, d0 + 18 * HOUR, d0 + DAY);
	fw_fs_compute(t);
	ck_near(fw_fs_factor(t, jack), 0.0, 1e-12);
	ck_near(fw_fs_factor(t, jill), 0.0, 1e-12);
	/* overuse is clamped: jack 4 nodes for 2 more days, seen at their end
	 * U = (1 + 0.7 + 0.49*0.25) = 1.8225 -> 0.25 - 1.8225 < -1 -> -1 */
	fw_fs_charge(t, jack, 4, d0 + DAY, d0 + 3 * DAY);
	fw_fs_compute(t);
	ck_near(values_of(t, jack).usage_efctv, 1.8225, 1e-12);
	ck_near(fw_fs_factor(t, jack), -1.0, 1e-15);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(share_minus_usage_needs_capacity)
{
	struct fw_fs_conf *c = fs_test_conf(NULL, (const char *const[]){
		"FairShareFormula=share_minus_usage",
		"User=jack Account=root Shares=1",
		"User=jill Account=root Shares=3", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int jill = fw_fs_find_user(t, "root", "jill");

	fw_fs_charge(t, jill, 1, 0, HOUR);
	ck_assert_int_eq(fw_fs_compute(t), -1);
	ck_assert(fw_fs_factor(t, jill) == 0.0);
	ck_assert_int_eq(fw_fs_set_capacity(t, 0), -1);
	ck_assert_int_eq(fw_fs_set_capacity(t, NAN), -1);
	/* the adapter gives 4 CPUs; halflife mode normalises by
	 * capacity x FairShareWindow (1 day): U = usage / (4 * 86400).
	 * usage of 1 unit for 1 h under the default 7-day half-life:
	 * 3600 * (1 - e^-x)/x, x = 3600 * 0.693147181 / 604800 = 0.004125876,
	 * (1 - e^-x)/x = 1 - x/2 + x^2/6 - x^3/24
	 *              = 1 - 0.002062938 + 0.000002837 - 0.000000003
	 *              = 0.997939896
	 * U = 3600 * 0.997939896 / 345600 = 0.997939896 / 96 */
	ck_assert_int_eq(fw_fs_set_capacity(t, 4), 0);
	ck_assert_int_eq(fw_fs_compute(t), 0);
	ck_near(values_of(t, jill).usage_efctv, 0.997939896 / 96, 1e-10);
	ck_near(fw_fs_factor(t, jill), 0.75 - 0.997939896 / 96, 1e-10);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(proportional_projects)
{
	struct fw_fs_conf *c = fs_test_conf(NO_DECAY, (const char *const[]){
		"FairShareFormula=proportional",
		"Account=pa", "Account=pb", "Account=pc",
		"User=u1 Account=pa", "User=u2 Account=pa",
		"User=u3 Account=pb", "User=u4 Account=pc", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int u1 = fw_fs_find_user(t, "pa", "u1"), u2 = fw_fs_find_user(t, "pa", "u2");
	int u3 = fw_fs_find_user(t, "pb", "u3"), u4 = fw_fs_find_user(t, "pc", "u4");

	/* no usage at all: MAX for everyone */
	fw_fs_advance(t, 0);
	fw_fs_compute(t);
	ck_assert(fw_fs_factor(t, u1) == 1e6);
	ck_assert(fw_fs_factor(t, u4) == 1e6);
	/* pa 600 (u1 100 + u2 500), pb 300, pc 100; total 1000:
	 * pa 1e6*(1-0.6) = 400000, pb 1e6*(1-0.3) = 700000,
	 * pc 1e6*(1-0.1) = 900000; all members of pa share its value */
	fw_fs_charge(t, u1, 1, 0, 100);
	fw_fs_charge(t, u2, 5, 0, 100);
	fw_fs_charge(t, u3, 3, 0, 100);
	fw_fs_charge(t, u4, 1, 0, 100);
	fw_fs_compute(t);
	ck_near(fw_fs_factor(t, u1), 400000, 1e-6);
	ck_near(fw_fs_factor(t, u2), 400000, 1e-6);
	ck_near(fw_fs_factor(t, u3), 700000, 1e-6);
	ck_near(fw_fs_factor(t, u4), 900000, 1e-6);
	ck_near(fw_fs_factor(t, fw_fs_find_account(t, "pb")), 700000, 1e-6);
	ck_near(values_of(t, u2).usage_efctv, 0.6, 1e-15);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);

	/* two projects, MAX = 100: 3/4 and 1/4 of the usage -> 25 and 75 */
	c = fs_test_conf(NO_DECAY, (const char *const[]){
		"FairShareFormula=proportional FairShareMax=100",
		"Account=pa", "Account=pb",
		"User=u1 Account=pa", "User=u2 Account=pb", NULL });
	t = fs_test_tree(c);
	u1 = fw_fs_find_user(t, "pa", "u1");
	u2 = fw_fs_find_user(t, "pb", "u2");
	fw_fs_charge(t, u1, 3, 0, 10);
	fw_fs_charge(t, u2, 1, 0, 10);
	fw_fs_compute(t);
	ck_near(fw_fs_factor(t, u1), 25, 1e-12);
	ck_near(fw_fs_factor(t, u2), 75, 1e-12);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(qexp_usage_does_not_count)
{
	struct fw_fs_conf *c = fs_test_conf(NO_DECAY, (const char *const[]){
		"FairShareFormula=proportional",
		"FairShareExcludePartitions=qexp,qfree FairShareExcludeQOS=Scavenger",
		"Account=pa", "Account=pb",
		"User=u1 Account=pa", "User=u2 Account=pb", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	static const struct {
		const char *user, *acct, *part, *qos;
		double cpus;
	} jobs[] = {
		{ "u1", "pa", "qprod", "normal", 4 },   /* counts */
		{ "u2", "pb", "qexp", "normal", 100 },  /* qexp: does not */
		{ "u2", "pb", "qprod", "scavenger", 100 }, /* QOS, any case */
		{ "u2", "pb", "qprod", NULL, 1 },       /* counts */
	};

	ck_assert(!fw_fs_usage_counts(c, "qexp", NULL));
	ck_assert(!fw_fs_usage_counts(c, "qfree", ""));
	ck_assert(fw_fs_usage_counts(c, "QEXP", NULL));  /* partitions exact */
	ck_assert(fw_fs_usage_counts(c, "qprod", "normal"));
	ck_assert(!fw_fs_usage_counts(c, "qprod", "SCAVENGER"));
	ck_assert(fw_fs_usage_counts(c, NULL, NULL));
	/* the adapter charges only what counts */
	for (size_t i = 0; i < sizeof(jobs) / sizeof(*jobs); i++)
		if (fw_fs_usage_counts(c, jobs[i].part, jobs[i].qos))
			fw_fs_charge(t, fw_fs_resolve(t, jobs[i].acct, jobs[i].user),
				     jobs[i].cpus, 0, HOUR);
	fw_fs_compute(t);
	/* pa 4*3600, pb 1*3600: pa = 1e6 * (1 - 4/5) = 200000 */
	ck_near(fw_fs_factor(t, fw_fs_find_user(t, "pa", "u1")), 200000, 1e-6);
	ck_near(fw_fs_factor(t, fw_fs_find_user(t, "pb", "u2")), 800000, 1e-6);
	/* QOS UsageFactor: applied when >= 0 */
	ck_assert(fw_fs_apply_usage_factor(4, 0.5) == 2.0);
	ck_assert(fw_fs_apply_usage_factor(4, 0) == 0.0);
	ck_assert(fw_fs_apply_usage_factor(4, -1) == 4.0);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

/* root -> A(60) -> a1(1), a2(3); root -> B(40) -> b1(1) */
#define CLASSIC_TREE \
	"Account=A Shares=60", "Account=B Shares=40", \
	"User=a1 Account=A Shares=1", "User=a2 Account=A Shares=3", \
	"User=b1 Account=B Shares=1"

static void charge_classic(struct fw_fs_tree *t)
{
	/* a1 100, a2 300, b1 600 unit-seconds (no decay) */
	fw_fs_charge(t, fw_fs_find_user(t, "A", "a1"), 1, 0, 100);
	fw_fs_charge(t, fw_fs_find_user(t, "A", "a2"), 3, 0, 100);
	fw_fs_charge(t, fw_fs_find_user(t, "B", "b1"), 6, 0, 100);
}

START_TEST(classic_two_levels)
{
	struct fw_fs_conf *c = fs_test_conf(NO_DECAY, (const char *const[]){
		"FairShareFormula=classic", CLASSIC_TREE, NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int A = fw_fs_find_account(t, "A"), B = fw_fs_find_account(t, "B");
	int a1 = fw_fs_find_user(t, "A", "a1"), a2 = fw_fs_find_user(t, "A", "a2");
	int b1 = fw_fs_find_user(t, "B", "b1");
	struct fw_fs_values v;

	charge_classic(t);
	fw_fs_compute(t);
	/* shares_norm: A 60/100 = 0.6, B 0.4, a1 0.6*1/4 = 0.15,
	 * a2 0.6*3/4 = 0.45, b1 0.4*1/1 = 0.4 */
	ck_near(values_of(t, A).shares_norm, 0.6, 1e-15);
	ck_near(values_of(t, B).shares_norm, 0.4, 1e-15);
	ck_near(values_of(t, a1).shares_norm, 0.15, 1e-15);
	ck_near(values_of(t, a2).shares_norm, 0.45, 1e-15);
	ck_near(values_of(t, b1).shares_norm, 0.4, 1e-15);
	/* usage_norm = usage / root usage 1000 */
	ck_near(values_of(t, A).usage_norm, 0.4, 1e-15);
	ck_near(values_of(t, a1).usage_norm, 0.1, 1e-15);
	ck_near(values_of(t, b1).usage_norm, 0.6, 1e-15);
	ck_near(values_of(t, 0).usage_norm, 1.0, 1e-15);
	/* usage_efctv: children of root = usage_norm; below:
	 * a1 = 0.1 + (0.4 - 0.1) * 1/4 = 0.175
	 * a2 = 0.3 + (0.4 - 0.3) * 3/4 = 0.375
	 * b1 = 0.6 + (0.6 - 0.6) * 1/1 = 0.6 */
	ck_near(values_of(t, A).usage_efctv, 0.4, 1e-15);
	ck_near(values_of(t, a1).usage_efctv, 0.175, 1e-15);
	ck_near(values_of(t, a2).usage_efctv, 0.375, 1e-15);
	ck_near(values_of(t, b1).usage_efctv, 0.6, 1e-15);
	/* factor 2^(-(Ue/S)):
	 * A  2^(-0.4/0.6)    = 2^(-2/3) = 0.629960525
	 * B  2^(-0.6/0.4)    = 2^(-1.5) = 0.353553391
	 * a1 2^(-0.175/0.15) = 2^(-7/6) = 0.445449359
	 * a2 2^(-0.375/0.45) = 2^(-5/6) = 0.561231024
	 * b1 2^(-0.6/0.4)    = 0.353553391 */
	ck_near(fw_fs_factor(t, A), 0.629960525, 1e-9);
	ck_near(fw_fs_factor(t, B), 0.353553391, 1e-9);
	ck_near(fw_fs_factor(t, a1), 0.445449359, 1e-9);
	ck_near(fw_fs_factor(t, a2), 0.561231024, 1e-9);
	ck_near(fw_fs_factor(t, b1), 0.353553391, 1e-9);
	v = values_of(t, a1);
	ck_near(v.usage_raw, 100, 1e-12);
	ck_assert(v.level_fs == 0.0);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);

	/* FairShareDampeningFactor=2: a1 2^(-(7/6)/2) = 2^(-7/12) = 0.667419927 */
	c = fs_test_conf((const char *const[]){ "PriorityDecayHalfLife=0",
		"PriorityUsageResetPeriod=NONE", "FairShareDampeningFactor=2",
		"PriorityFlags=NO_FAIR_TREE", NULL },
		(const char *const[]){ CLASSIC_TREE, NULL });
	t = fs_test_tree(c);
	ck_assert_int_eq(fw_fs_tree_formula(t), FW_FS_FORMULA_CLASSIC);
	charge_classic(t);
	fw_fs_compute(t);
	ck_near(fw_fs_factor(t, fw_fs_find_user(t, "A", "a1")), 0.667419927, 1e-9);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(classic_use_parent)
{
	/* root -> P(1) -> X(parent) -> u1(1), u2(1); P -> p1(2); root -> Q(1).
	 * X is Shares=parent: u1, u2 are re-parented to P for fair-share, so
	 * P's level is {X, u1, u2, p1} with level shares 1+1+2 = 4 (X: 0).
	 * A user a3 with Shares=parent under P takes P's values. */
	struct fw_fs_conf *c = fs_test_conf(NO_DECAY, (const char *const[]){
		"FairShareFormula=classic", "Account=P Shares=1",
		"Account=Q Shares=1", "Account=X Parent=P Shares=parent",
		"User=u1 Account=X", "User=u2 Account=X",
		"User=p1 Account=P Shares=2", "User=p3 Account=P Shares=parent",
		NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int P = fw_fs_find_account(t, "P"), X = fw_fs_find_account(t, "X");
	int u1 = fw_fs_find_user(t, "X", "u1"), u2 = fw_fs_find_user(t, "X", "u2");
	int p1 = fw_fs_find_user(t, "P", "p1"), p3 = fw_fs_find_user(t, "P", "p3");

	fw_fs_charge(t, u1, 1, 0, 100);
	fw_fs_charge(t, p1, 1, 0, 100);
	fw_fs_compute(t);
	/* usage: u1 100, p1 100, X 100 (direct parent of u1), P 200 = root */
	ck_near(values_of(t, X).usage_raw, 100, 1e-12);
	/* shares_norm: P 1/2; u1 = 1/4 * 1/2 = 0.125 (X adds no factor);
	 * p1 = 2/4 * 1/2 = 0.25; X and p3 take P's 0.5 */
	ck_near(values_of(t, P).shares_norm, 0.5, 1e-15);
	ck_near(values_of(t, u1).shares_norm, 0.125, 1e-15);
	ck_near(values_of(t, u2).shares_norm, 0.125, 1e-15);
	ck_near(values_of(t, p1).shares_norm, 0.25, 1e-15);
	ck_near(values_of(t, X).shares_norm, 0.5, 1e-15);
	ck_near(values_of(t, p3).shares_norm, 0.5, 1e-15);
	/* usage_efctv: P = usage_norm = 1;
	 * u1 = 0.5 + (1 - 0.5) * 1/4 = 0.625  -> 2^(-0.625/0.125) = 2^-5
	 * p1 = 0.5 + (1 - 0.5) * 2/4 = 0.75   -> 2^(-0.75/0.25) = 2^-3
	 * u2 = 0   + (1 - 0)   * 1/4 = 0.25   -> 2^(-0.25/0.125) = 2^-2
	 * p3 = P's: 2^(-1/0.5) = 2^-2 */
	ck_near(values_of(t, u1).usage_efctv, 0.625, 1e-15);
	ck_near(fw_fs_factor(t, u1), 0.03125, 1e-15);
	ck_near(fw_fs_factor(t, p1), 0.125, 1e-15);
	ck_near(fw_fs_factor(t, u2), 0.25, 1e-15);
	ck_near(values_of(t, p3).usage_efctv, 1.0, 1e-15);
	ck_near(fw_fs_factor(t, p3), 0.25, 1e-15);
	ck_near(fw_fs_factor(t, P), 0.25, 1e-15);
	/* turning p3 into an ordinary user (Shares=4) re-levels P:
	 * level shares 1+1+2+4 = 8; p1 = 2/8*1/2 = 0.125 */
	ck_assert_int_eq(fw_fs_set_shares(t, p3, 4), 0);
	fw_fs_compute(t);
	ck_near(values_of(t, p1).shares_norm, 0.125, 1e-15);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(depth_oblivious)
{
	/* root -> A(1) -> a1(1), a2(1); root -> B(1) -> b1(1) */
	struct fw_fs_conf *c = fs_test_conf((const char *const[]){
		"PriorityDecayHalfLife=0", "PriorityUsageResetPeriod=NONE",
		"PriorityFlags=DEPTH_OBLIVIOUS,NO_FAIR_TREE", NULL },
		(const char *const[]){ "Account=A", "Account=B",
		"User=a1 Account=A", "User=a2 Account=A", "User=b1 Account=B",
		NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int a1 = fw_fs_find_user(t, "A", "a1"), a2 = fw_fs_find_user(t, "A", "a2");
	int b1 = fw_fs_find_user(t, "B", "b1");

	ck_assert_int_eq(fw_fs_tree_formula(t), FW_FS_FORMULA_DEPTH_OBLIVIOUS);
	/* a1 300, a2 100, b1 100: A 400, B 100, root 500.
	 * S: A 0.5, B 0.5, a1 0.25, a2 0.25, b1 0.5;
	 * usage_norm: A 0.8, B 0.2, a1 0.6, a2 0.2, b1 0.2 */
	fw_fs_charge(t, a1, 3, 0, 100);
	fw_fs_charge(t, a2, 1, 0, 100);
	fw_fs_charge(t, b1, 1, 0, 100);
	fw_fs_compute(t);
	/* a1: ratio_p = 0.8/0.5 = 1.6, ratio_s = (0.6+0.2)/0.5 = 1.6,
	 * ratio_l = (0.6/0.25)/1.6 = 1.5; logs both > 0 -> k = 1;
	 * Ue = 1.6*1.5*0.25 = 0.6; factor 2^(-0.6/0.25) = 2^-2.4 = 0.189464571 */
	ck_near(values_of(t, a1).usage_efctv, 0.6, 1e-12);
	ck_near(fw_fs_factor(t, a1), 0.189464571, 1e-9);
	/* a2: ratio_l = (0.2/0.25)/1.6 = 0.5; ln 1.6 = 0.470004 > 0 > ln 0.5:
	 * k = 1/(1 + (5*0.470004)^2) = 1/6.522594 = 0.1533134;
	 * Ue = 1.6 * 0.5^0.1533134 * 0.25 = 1.6 * 0.8991829 * 0.25 = 0.3596732;
	 * factor 2^(-0.3596732/0.25) = 2^-1.4386927 = 0.3689014 */
	ck_near(values_of(t, a2).usage_efctv, 0.3596732, 1e-7);
	ck_near(fw_fs_factor(t, a2), 0.3689014, 1e-7);
	/* b1: ratio_p = 0.2/0.5 = 0.4 = ratio_s, ratio_l = (0.2/0.5)/0.4 = 1,
	 * ln 1 = 0 -> k = 1; Ue = 0.4*1*0.5 = 0.2; 2^(-0.4) = 0.757858283 */
	ck_near(values_of(t, b1).usage_efctv, 0.2, 1e-12);
	ck_near(fw_fs_factor(t, b1), 0.757858283, 1e-9);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(fair_tree_ranking_with_ties)
{
	/* root -> A(1){a1,a2}, B(1){b1}, C(2){c1,c2}, user r1(1) */
	struct fw_fs_conf *c = fs_test_conf(NO_DECAY, (const char *const[]){
		"Account=A", "Account=B", "Account=C Shares=2",
		"User=a1 Account=A", "User=a2 Account=A", "User=b1 Account=B",
		"User=c1 Account=C", "User=c2 Account=C", "User=r1 Account=root",
		NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int a1 = fw_fs_find_user(t, "A", "a1"), a2 = fw_fs_find_user(t, "A", "a2");
	int b1 = fw_fs_find_user(t, "B", "b1"), c1 = fw_fs_find_user(t, "C", "c1");
	int c2 = fw_fs_find_user(t, "C", "c2"), r1 = fw_fs_find_user(t, "root", "r1");

	ck_assert_int_eq(fw_fs_tree_formula(t), FW_FS_FORMULA_FAIR_TREE);
	/* usage a1 10, a2 30 (A 40), b1 40, c2 20 (C 20), r1 40; root 140 */
	fw_fs_charge(t, a1, 1, 0, 10);
	fw_fs_charge(t, a2, 3, 0, 10);
	fw_fs_charge(t, b1, 4, 0, 10);
	fw_fs_charge(t, c2, 2, 0, 10);
	fw_fs_charge(t, r1, 4, 0, 10);
	fw_fs_compute(t);
	/* root level shares 1+1+2+1 = 5.  level_fs = S/U:
	 * A = (1/5)/(40/140) = 0.7, B = 0.7, r1 = 0.7, C = (2/5)/(20/140) = 2.8
	 * order: C, r1 (users first on ties), A, B (by name)
	 * 6 users; rank starts at 6:
	 *  C: c1 S=1/2 U=0 -> inf: rank 6 -> 6/6; c2 S=1/2 U=1 -> 0.5: 5/6
	 *  r1: not tied with C: rank 4 -> 4/6
	 *  A tied with r1: A's first user keeps rank 4:
	 *    a1 S=1/2 U=10/40 -> 2.0: 4/6; a2 U=30/40 -> 0.667: rank 2 -> 2/6
	 *  B tied with A (22.05 does not merge tied accounts): its first
	 *    user keeps the current rank: b1 -> 2/6 */
	ck_near(values_of(t, fw_fs_find_account(t, "C")).level_fs, 2.8, 1e-12);
	ck_near(values_of(t, fw_fs_find_account(t, "A")).level_fs, 0.7, 1e-12);
	ck_near(values_of(t, r1).level_fs, 0.7, 1e-12);
	ck_assert(isinf(values_of(t, c1).level_fs));
	ck_near(values_of(t, a1).level_fs, 2.0, 1e-12);
	ck_near(values_of(t, a1).shares_norm, 0.5, 1e-15);
	ck_near(values_of(t, a1).usage_efctv, 0.25, 1e-15);
	ck_near(fw_fs_factor(t, c1), 6.0 / 6, 1e-15);
	ck_near(fw_fs_factor(t, c2), 5.0 / 6, 1e-15);
	ck_near(fw_fs_factor(t, r1), 4.0 / 6, 1e-15);
	ck_near(fw_fs_factor(t, a1), 4.0 / 6, 1e-15);
	ck_near(fw_fs_factor(t, a2), 2.0 / 6, 1e-15);
	ck_near(fw_fs_factor(t, b1), 2.0 / 6, 1e-15);
	/* accounts carry no fs_factor in Fair Tree */
	ck_assert(fw_fs_factor(t, fw_fs_find_account(t, "A")) == 0.0);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(fair_tree_tied_users_and_use_parent)
{
	/* root -> users x(1), y(1), z(1), w(parent) */
	struct fw_fs_conf *c = fs_test_conf(NO_DECAY, (const char *const[]){
		"User=x Account=root", "User=y Account=root", "User=z Account=root",
		"User=w Account=root Shares=parent", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int x = fw_fs_find_user(t, "root", "x"), y = fw_fs_find_user(t, "root", "y");
	int z = fw_fs_find_user(t, "root", "z"), w = fw_fs_find_user(t, "root", "w");

	/* x 10, y 10, w 30, z 0: level shares 3 (w adds none);
	 * x = (1/3)/(10/50) = 1.667 = y; z: U = 0 -> inf; w (parent): inf.
	 * order: w, z (inf, tied; by name), x, y (tied).
	 * 4 users: w rank 4 -> 1; z tied -> 1; x rank 2 -> 2/4; y tied -> 2/4 */
	fw_fs_charge(t, x, 1, 0, 10);
	fw_fs_charge(t, y, 1, 0, 10);
	fw_fs_charge(t, w, 3, 0, 10);
	fw_fs_compute(t);
	ck_near(values_of(t, x).level_fs, 5.0 / 3, 1e-12);
	ck_assert(isinf(values_of(t, w).level_fs));
	ck_near(fw_fs_factor(t, w), 1.0, 1e-15);
	ck_near(fw_fs_factor(t, z), 1.0, 1e-15);
	ck_near(fw_fs_factor(t, x), 0.5, 1e-15);
	ck_near(fw_fs_factor(t, y), 0.5, 1e-15);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(fair_tree_use_parent_account)
{
	/* root -> P(1) -> X(parent) -> u1, u2; P -> p1(2); root -> Q(3) -> q1.
	 * In Fair Tree X's users rank within P's level: {X, u1, u2, p1} */
	struct fw_fs_conf *c = fs_test_conf(NO_DECAY, (const char *const[]){
		"Account=P", "Account=Q Shares=3", "Account=X Parent=P Shares=parent",
		"User=u1 Account=X", "User=u2 Account=X", "User=p1 Account=P Shares=2",
		"User=q1 Account=Q", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int u1 = fw_fs_find_user(t, "X", "u1"), u2 = fw_fs_find_user(t, "X", "u2");
	int p1 = fw_fs_find_user(t, "P", "p1"), q1 = fw_fs_find_user(t, "Q", "q1");

	/* u1 30, u2 10, p1 40 -> P 80; q1 20; root 100.
	 * root level: P = (1/4)/(0.8) = 0.3125, Q = (3/4)/0.2 = 3.75 -> Q first
	 *   q1: rank 4 -> 1.0
	 * P level (level shares 1+1+2 = 4), U relative to P's 80:
	 *   u1 = 0.25/0.375 = 0.667, u2 = 0.25/0.125 = 2, p1 = 0.5/0.5 = 1,
	 *   X (parent account) sorts first but has no fs-children.
	 *   order u2, p1, u1: 3/4, 2/4, 1/4 */
	fw_fs_charge(t, u1, 3, 0, 10);
	fw_fs_charge(t, u2, 1, 0, 10);
	fw_fs_charge(t, p1, 4, 0, 10);
	fw_fs_charge(t, q1, 2, 0, 10);
	fw_fs_compute(t);
	ck_near(values_of(t, u1).usage_efctv, 0.375, 1e-15);
	ck_near(fw_fs_factor(t, q1), 1.0, 1e-15);
	ck_near(fw_fs_factor(t, u2), 0.75, 1e-15);
	ck_near(fw_fs_factor(t, p1), 0.5, 1e-15);
	ck_near(fw_fs_factor(t, u1), 0.25, 1e-15);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(resolve_recomputes_factors)
{
	struct fw_fs_conf *c = fs_test_conf(NO_DECAY, (const char *const[]){
		"User=x Account=root", NULL });
	struct fw_fs_tree *t = fs_test_tree(c);
	int x = fw_fs_find_user(t, "root", "x"), y;

	fw_fs_charge(t, x, 1, 0, 10);
	fw_fs_compute(t);
	ck_near(fw_fs_factor(t, x), 1.0, 1e-15);  /* alone: rank 1/1 */
	/* a new user with no usage outranks x at once: y 2/2, x 1/2 */
	y = fw_fs_resolve(t, "root", "y");
	ck_near(fw_fs_factor(t, y), 1.0, 1e-15);
	ck_near(fw_fs_factor(t, x), 0.5, 1e-15);
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
}
END_TEST

static Suite *fs_suite(void)
{
	Suite *s = suite_create("fairshare");
	TCase *tc = tcase_create("tree");

	tcase_add_test(tc, tree_from_conf_and_lookups);
	tcase_add_test(tc, external_ids);
	tcase_add_test(tc, many_nodes_grow_indexes);
	tcase_add_test(tc, unknown_account_policies);
	tcase_add_test(tc, resolve_recomputes_factors);
	suite_add_tcase(s, tc);
	tc = tcase_create("usage");
	tcase_add_test(tc, one_halflife_halves_usage);
	tcase_add_test(tc, charging_is_slice_invariant);
	tcase_add_test(tc, no_decay_and_bad_charges);
	tcase_add_test(tc, windowed_decay_primer);
	tcase_add_test(tc, windowed_charging_is_slice_invariant);
	tcase_add_test(tc, usage_reset_periods);
	tcase_add_test(tc, reset_skips_to_last_boundary);
	tcase_add_test(tc, reset_now_once);
	suite_add_tcase(s, tc);
	tc = tcase_create("formulas");
	tcase_add_test(tc, share_minus_usage_jack_and_jill);
	tcase_add_test(tc, share_minus_usage_needs_capacity);
	tcase_add_test(tc, proportional_projects);
	tcase_add_test(tc, qexp_usage_does_not_count);
	tcase_add_test(tc, classic_two_levels);
	tcase_add_test(tc, classic_use_parent);
	tcase_add_test(tc, depth_oblivious);
	tcase_add_test(tc, fair_tree_ranking_with_ties);
	tcase_add_test(tc, fair_tree_tied_users_and_use_parent);
	tcase_add_test(tc, fair_tree_use_parent_account);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;

	/* reset boundaries are in local time, as in slurmctld */
	setenv("TZ", "UTC", 1);
	tzset();
	sr = srunner_create(fs_suite());
	srunner_add_suite(sr, fs_conf_suite());
	srunner_add_suite(sr, fs_state_suite());
	return fw_test_run(sr);
}
