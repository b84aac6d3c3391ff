/*
 * Unit tests for the fair-share configuration: slurm.conf keys, fairway.conf
 * keys and entity lines, cross-checks; every error path names key, value
 * and reason.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_fairshare.h"

struct fw_fs_conf *fs_test_conf(const char *const *slurm,
				const char *const *lines);
Suite *fs_conf_suite(void);

/* Offer one fairway.conf line; used[] reports what was consumed. */
static int offer(struct fw_fs_conf *c, const char *line, bool *used,
		 struct fw_err *err)
{
	struct fw_kv kv;
	int rc;

	fw_err_clear(err);
	memset(used, 0, FW_KV_MAX * sizeof(bool));
	ck_assert_int_eq(fw_kv_parse(line, &kv, err), 0);
	rc = fw_fs_conf_line(c, &kv, used, err);
	fw_kv_free(&kv);
	return rc;
}

/* The error names key, value and a reason containing `why`. */
static void check_err(const struct fw_err *err, const char *what,
		      const char *key, const char *value, const char *why)
{
	ck_assert_msg(!strcmp(err->key, key), "%s: key '%s', expected '%s'",
		      what, err->key, key);
	ck_assert_msg(!strcmp(err->value, value),
		      "%s: value '%s', expected '%s'", what, err->value, value);
	ck_assert_msg(strstr(err->msg, why) != NULL,
		      "%s: reason '%s' lacks '%s'", what, err->msg, why);
}

START_TEST(defaults)
{
	struct fw_fs_conf *c = fw_fs_conf_new();
	struct fw_err err = { 0 };

	ck_assert_int_eq(c->halflife_sec, 7 * 86400);  /* Slurm: 7-0 */
	ck_assert_int_eq(c->reset, FW_FS_RESET_NONE);
	ck_assert_uint_eq(c->damp, 1);
	ck_assert(c->max == 1e6);
	ck_assert_int_eq(c->decay, FW_FS_DECAY_HALFLIFE);
	ck_assert_int_eq(c->window_sec, 86400);
	ck_assert_uint_eq(c->window_count, 7);
	ck_assert(c->window_factor == 0.7);
	ck_assert_int_eq(c->unknown, FW_FS_UNKNOWN_CREATE);
	ck_assert_uint_eq(c->unknown_shares, 1);
	ck_assert_int_eq(fw_fs_conf_finish(c, &err), FW_CONF_OK);
	/* Slurm's default is Fair Tree */
	ck_assert_int_eq(c->formula, FW_FS_FORMULA_FAIR_TREE);
	ck_assert(fw_fs_usage_counts(c, "any", "any"));
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(slurm_keys)
{
	struct fw_fs_conf *c = fw_fs_conf_new();
	struct fw_err err = { 0 };

	/* Slurm's time format: "14-0" is 14 days, a bare number is minutes */
	ck_assert_int_eq(fw_fs_conf_slurm(c, "PriorityDecayHalfLife", "14-0", &err),
			 FW_CONF_OK);
	ck_assert_int_eq(c->halflife_sec, 14 * 86400);
	ck_assert_int_eq(fw_fs_conf_slurm(c, "prioritydecayhalflife", "90", &err),
			 FW_CONF_OK);
	ck_assert_int_eq(c->halflife_sec, 5400);
	ck_assert_int_eq(fw_fs_conf_slurm(c, "PriorityUsageResetPeriod", "weekly",
					  &err), FW_CONF_OK);
	ck_assert_int_eq(c->reset, FW_FS_RESET_WEEKLY);
	ck_assert_int_eq(fw_fs_conf_slurm(c, "FairShareDampeningFactor", "5", &err),
			 FW_CONF_OK);
	ck_assert_uint_eq(c->damp, 5);
	/* other valid flags are accepted silently */
	ck_assert_int_eq(fw_fs_conf_slurm(c, "PriorityFlags",
		"CALCULATE_RUNNING,max_tres,NO_FAIR_TREE,SMALL_RELATIVE_TO_TIME", &err),
		FW_CONF_OK);
	ck_assert(c->flag_no_fair_tree);
	ck_assert_int_eq(fw_fs_conf_slurm(c, "PriorityWeightAge", "1000", &err),
			 FW_CONF_UNKNOWN);
	ck_assert_int_eq(fw_fs_conf_slurm(c, "SchedulerParameters", "bf_continue",
					  &err), FW_CONF_UNKNOWN);
	ck_assert_int_eq(fw_fs_conf_finish(c, &err), FW_CONF_OK);
	ck_assert_int_eq(c->formula, FW_FS_FORMULA_CLASSIC);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(formula_follows_priority_flags)
{
	static const struct {
		const char *flags;
		enum fw_fs_formula want;
	} cases[] = {
		{ "", FW_FS_FORMULA_FAIR_TREE },
		{ "FAIR_TREE", FW_FS_FORMULA_FAIR_TREE },
		{ "ACCRUE_ALWAYS", FW_FS_FORMULA_FAIR_TREE },
		{ "NO_FAIR_TREE", FW_FS_FORMULA_CLASSIC },
		{ "DEPTH_OBLIVIOUS", FW_FS_FORMULA_DEPTH_OBLIVIOUS },
		/* Slurm: DEPTH_OBLIVIOUS wins over NO_FAIR_TREE and FAIR_TREE */
		{ "NO_FAIR_TREE,DEPTH_OBLIVIOUS", FW_FS_FORMULA_DEPTH_OBLIVIOUS },
		{ "FAIR_TREE,NO_FAIR_TREE", FW_FS_FORMULA_CLASSIC },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct fw_fs_conf *c = fw_fs_conf_new();
		struct fw_err err = { 0 };

		ck_assert_int_eq(fw_fs_conf_slurm(c, "PriorityFlags", cases[i].flags,
						  &err), FW_CONF_OK);
		ck_assert_int_eq(fw_fs_conf_finish(c, &err), FW_CONF_OK);
		ck_assert_msg(c->formula == cases[i].want, "%s", cases[i].flags);
		fw_fs_conf_free(c);
	}
}
END_TEST

START_TEST(fairway_keys)
{
	struct fw_fs_conf *c = fw_fs_conf_new();
	struct fw_err err = { 0 };
	bool used[FW_KV_MAX];

	ck_assert_int_eq(offer(c, "FairShareFormula=Proportional FairShareMax=1e5",
			       used, &err), FW_CONF_OK);
	ck_assert(used[0] && used[1]);
	ck_assert_int_eq(c->formula_conf, FW_FS_FORMULA_PROPORTIONAL);
	ck_assert(c->max == 1e5);
	ck_assert_int_eq(offer(c, "FairShareDecay=window FairShareWindow=12h "
			       "FairShareWindowCount=14 FairShareWindowFactor=0.5",
			       used, &err), FW_CONF_OK);
	ck_assert_int_eq(c->decay, FW_FS_DECAY_WINDOW);
	ck_assert_int_eq(c->window_sec, 43200);
	ck_assert_uint_eq(c->window_count, 14);
	ck_assert(c->window_factor == 0.5);
	/* a line may mix our keys with others': only ours are marked */
	ck_assert_int_eq(offer(c, "FairShareExcludePartitions=qexp,qfree "
			       "PriorityWeightSite=5 FairShareExcludeQOS=scav",
			       used, &err), FW_CONF_OK);
	ck_assert(used[0] && !used[1] && used[2]);
	ck_assert_uint_eq(c->n_excl_part, 2);
	ck_assert_str_eq(c->excl_part[1], "qfree");
	/* lists accumulate over lines */
	ck_assert_int_eq(offer(c, "FairShareExcludePartitions=debug", used, &err),
			 FW_CONF_OK);
	ck_assert_uint_eq(c->n_excl_part, 3);
	ck_assert(!fw_fs_usage_counts(c, "debug", NULL));
	ck_assert_int_eq(offer(c, "FairShareUnknownAccount=IGNORE "
			       "FairShareUnknownShares=parent", used, &err),
			 FW_CONF_OK);
	ck_assert_int_eq(c->unknown, FW_FS_UNKNOWN_IGNORE);
	ck_assert_uint_eq(c->unknown_shares, FW_FS_USE_PARENT);
	ck_assert_int_eq(offer(c, "PriorityWeightAge=1000", used, &err),
			 FW_CONF_UNKNOWN);
	ck_assert(!used[0]);
	ck_assert_int_eq(offer(c, "QOS=devel Priority=10", used, &err),
			 FW_CONF_UNKNOWN);
	ck_assert_int_eq(offer(c, "", used, &err), FW_CONF_UNKNOWN);
	ck_assert_int_eq(fw_fs_conf_finish(c, &err), FW_CONF_OK);
	ck_assert_int_eq(c->formula, FW_FS_FORMULA_PROPORTIONAL);
	fw_fs_conf_free(c);

	c = fw_fs_conf_new();
	ck_assert_int_eq(offer(c, "FairShareFormula=share_minus_usage "
			       "FairShareCapacity=4 FairShareWindow=1d",
			       used, &err), FW_CONF_OK);
	ck_assert(c->capacity == 4);
	ck_assert_int_eq(fw_fs_conf_finish(c, &err), FW_CONF_OK);
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(entity_lines)
{
	struct fw_fs_conf *c = fw_fs_conf_new();
	struct fw_err err = { 0 };
	bool used[FW_KV_MAX];

	/* Priority= belongs to the prio module: not marked */
	ck_assert_int_eq(offer(c, "Account=phys Parent=root Shares=60 Priority=10",
			       used, &err), FW_CONF_OK);
	ck_assert(used[0] && used[1] && used[2] && !used[3]);
	ck_assert_int_eq(offer(c, "Account=theory Parent=phys Shares=PARENT",
			       used, &err), FW_CONF_OK);
	/* an Account line with only other modules' keys still defines it */
	ck_assert_int_eq(offer(c, "Account=chem Priority=5", used, &err),
			 FW_CONF_OK);
	ck_assert(used[0] && !used[1]);
	/* Account=root names root for other modules */
	ck_assert_int_eq(offer(c, "Account=root Priority=1", used, &err),
			 FW_CONF_OK);
	ck_assert(used[0] && !used[1]);
	ck_assert_int_eq(offer(c, "User=alice Account=phys,chem Shares=2 Priority=3",
			       used, &err), FW_CONF_OK);
	ck_assert(used[0] && used[1] && used[2] && !used[3]);
	/* a User line without Account= is another module's */
	ck_assert_int_eq(offer(c, "User=bob Priority=7", used, &err),
			 FW_CONF_UNKNOWN);
	ck_assert(!used[0] && !used[1]);
	ck_assert_int_eq(offer(c, "User=bob Account=root", used, &err), FW_CONF_OK);
	ck_assert_int_eq(fw_fs_conf_finish(c, &err), FW_CONF_OK);

	ck_assert_uint_eq(c->n_acct, 3);
	ck_assert_str_eq(c->acct[0].name, "phys");
	ck_assert_str_eq(c->acct[0].parent, "root");
	ck_assert_uint_eq(c->acct[0].shares, 60);
	ck_assert_uint_eq(c->acct[1].shares, FW_FS_USE_PARENT);
	ck_assert_str_eq(c->acct[2].parent, "root");    /* defaults */
	ck_assert_uint_eq(c->acct[2].shares, 1);
	ck_assert_uint_eq(c->n_user, 3);
	ck_assert_str_eq(c->user[1].account, "chem");
	ck_assert_uint_eq(c->user[1].shares, 2);
	ck_assert_str_eq(c->user[2].account, "root");
	fw_fs_conf_free(c);
}
END_TEST

START_TEST(slurm_key_errors)
{
	static const struct {
		const char *key, *value, *why;
	} cases[] = {
		{ "PriorityDecayHalfLife", "soon", "duration" },
		{ "PriorityDecayHalfLife", "UNLIMITED", "unlimited" },
		{ "PriorityUsageResetPeriod", "sometimes", "DAILY" },
		{ "PriorityUsageResetPeriod", "", "DAILY" },
		{ "FairShareDampeningFactor", "0", "1..65535" },
		{ "FairShareDampeningFactor", "70000", "1..65535" },
		{ "FairShareDampeningFactor", "x", "integer" },
		{ "PriorityFlags", "FAIR_TREE,BOGUS", "unknown flag 'BOGUS'" },
		{ "PriorityFlags", "FAIR_TREE,", "unknown flag ''" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct fw_fs_conf *c = fw_fs_conf_new();
		struct fw_err err = { 0 };

		ck_assert_msg(fw_fs_conf_slurm(c, cases[i].key, cases[i].value,
					       &err) == FW_CONF_ERR, "%s=%s",
			      cases[i].key, cases[i].value);
		check_err(&err, cases[i].key, cases[i].key, cases[i].value,
			  cases[i].why);
		fw_fs_conf_free(c);
	}
}
END_TEST

START_TEST(fairway_line_errors)
{
	static const struct {
		const char *line, *key, *value, *why;
	} cases[] = {
		/* slurm.conf parameters do not belong in fairway.conf */
		{ "PriorityDecayHalfLife=7-0", "PriorityDecayHalfLife", "7-0", "slurm.conf" },
		{ "PriorityUsageResetPeriod=NONE", "PriorityUsageResetPeriod", "NONE", "slurm.conf" },
		{ "FairShareDampeningFactor=2", "FairShareDampeningFactor", "2", "slurm.conf" },
		{ "PriorityFlags=NO_FAIR_TREE", "PriorityFlags", "NO_FAIR_TREE", "slurm.conf" },
		{ "FairShareFormula=fancy", "FairShareFormula", "fancy", "proportional" },
		{ "FairShareMax=0", "FairShareMax", "0", "greater than 0" },
		{ "FairShareMax=lots", "FairShareMax", "lots", "number" },
		{ "FairShareDecay=linear", "FairShareDecay", "linear", "halflife or window" },
		{ "FairShareWindow=0", "FairShareWindow", "0", "greater than 0" },
		{ "FairShareWindow=often", "FairShareWindow", "often", "duration" },
		{ "FairShareWindowCount=0", "FairShareWindowCount", "0", "1..1000" },
		{ "FairShareWindowCount=1001", "FairShareWindowCount", "1001", "1..1000" },
		{ "FairShareWindowCount=x", "FairShareWindowCount", "x", "integer" },
		{ "FairShareWindowFactor=1.5", "FairShareWindowFactor", "1.5", "0..1" },
		{ "FairShareWindowFactor=-0.1", "FairShareWindowFactor", "-0.1", "0..1" },
		{ "FairShareWindowFactor=half", "FairShareWindowFactor", "half", "number" },
		{ "FairShareCapacity=-4", "FairShareCapacity", "-4", "greater than 0" },
		{ "FairShareExcludePartitions=", "FairShareExcludePartitions", "", "list" },
		{ "FairShareExcludePartitions=a,,b", "FairShareExcludePartitions", "a,,b", "empty name" },
		{ "FairShareExcludeQOS=,", "FairShareExcludeQOS", ",", "empty name" },
		{ "FairShareUnknownAccount=maybe", "FairShareUnknownAccount", "maybe", "create, root or ignore" },
		{ "FairShareUnknownShares=x", "FairShareUnknownShares", "x", "share count" },
		/* entity lines */
		{ "Account=", "Account", "", "empty account name" },
		{ "Account=a Parent=", "Parent", "", "empty parent" },
		{ "Account=a Parent=A", "Parent", "A", "its own parent" },
		{ "Account=a Shares=-1", "Shares", "-1", "share count" },
		{ "Account=a Shares=many", "Shares", "many", "share count" },
		{ "Account=a Shares=2147483647", "Shares", "2147483647", "out of range" },
		{ "Account=root Shares=5", "Account", "root", "no Parent or Shares" },
		{ "User=bob Shares=5", "Shares", "5", "needs Account=" },
		{ "User= Account=a", "User", "", "empty user name" },
		{ "User=bob Account=", "Account", "", "empty account name" },
		{ "User=bob Account=a,,b", "Account", "a,,b", "empty name" },
		{ "User=bob Account=a Shares=x", "Shares", "x", "share count" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct fw_fs_conf *c = fw_fs_conf_new();
		struct fw_err err = { 0 };
		bool used[FW_KV_MAX];

		ck_assert_msg(offer(c, cases[i].line, used, &err) == FW_CONF_ERR,
			      "%s", cases[i].line);
		check_err(&err, cases[i].line, cases[i].key, cases[i].value,
			  cases[i].why);
		fw_fs_conf_free(c);
	}
}
END_TEST

START_TEST(duplicate_definitions)
{
	struct fw_fs_conf *c = fw_fs_conf_new();
	struct fw_err err = { 0 };
	bool used[FW_KV_MAX];

	ck_assert_int_eq(offer(c, "Account=phys", used, &err), FW_CONF_OK);
	ck_assert_int_eq(offer(c, "Account=PHYS Shares=2", used, &err), FW_CONF_ERR);
	check_err(&err, "dup account", "Account", "PHYS", "defined twice");
	ck_assert_int_eq(offer(c, "User=bob Account=phys", used, &err), FW_CONF_OK);
	ck_assert_int_eq(offer(c, "User=bob Account=phys Shares=3", used, &err),
			 FW_CONF_ERR);
	check_err(&err, "dup user", "User", "bob", "defined twice");
	/* the same user in another account is fine */
	ck_assert_int_eq(offer(c, "User=bob Account=root", used, &err), FW_CONF_OK);
	fw_fs_conf_free(c);
}
END_TEST

/* Lines and slurm pairs that pass one by one but fail in finish. */
static void finish_fails(const char *const *slurm, const char *const *lines,
			 const char *key, const char *value, const char *why)
{
	struct fw_fs_conf *c = fw_fs_conf_new();
	struct fw_err err = { 0 };
	bool used[FW_KV_MAX];
	char k[64];

	for (int i = 0; slurm && slurm[i]; i++) {
		const char *eq = strchr(slurm[i], '=');

		snprintf(k, sizeof(k), "%.*s", (int)(eq - slurm[i]), slurm[i]);
		ck_assert_int_eq(fw_fs_conf_slurm(c, k, eq + 1, &err), FW_CONF_OK);
	}
	for (int i = 0; lines && lines[i]; i++)
		ck_assert_msg(offer(c, lines[i], used, &err) == FW_CONF_OK, "%s: %s",
			      lines[i], err.msg);
	ck_assert_int_eq(fw_fs_conf_finish(c, &err), FW_CONF_ERR);
	check_err(&err, why, key, value, why);
	fw_fs_conf_free(c);
}

#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })

START_TEST(finish_errors)
{
	/* no decay needs a reset period, as Slurm requires */
	finish_fails(L("PriorityDecayHalfLife=0"), NULL, "PriorityDecayHalfLife",
		     "0", "PriorityUsageResetPeriod");
	/* explicit formula against PriorityFlags that choose one */
	finish_fails(L("PriorityFlags=NO_FAIR_TREE"), L("FairShareFormula=fair_tree"),
		     "FairShareFormula", "fair_tree", "selects classic");
	finish_fails(L("PriorityFlags=FAIR_TREE"), L("FairShareFormula=classic"),
		     "FairShareFormula", "classic", "selects fair_tree");
	finish_fails(L("PriorityFlags=DEPTH_OBLIVIOUS"), L("FairShareFormula=classic"),
		     "FairShareFormula", "classic", "selects depth_oblivious");
	finish_fails(L("PriorityFlags=NO_FAIR_TREE"),
		     L("FairShareFormula=depth_oblivious"), "FairShareFormula",
		     "depth_oblivious", "selects classic");
	/* keys that would do nothing */
	finish_fails(NULL, L("FairShareMax=10"), "FairShareMax", "10",
		     "proportional");
	finish_fails(NULL, L("FairShareWindowCount=3"), "FairShareWindowCount", "3",
		     "FairShareDecay=window");
	finish_fails(NULL, L("FairShareWindowFactor=0.5"), "FairShareWindowFactor",
		     "0.5", "FairShareDecay=window");
	finish_fails(NULL, L("FairShareWindow=2d"), "FairShareWindow", "172800",
		     "FairShareDecay=window");
	finish_fails(NULL, L("FairShareCapacity=4"), "FairShareCapacity", "4",
		     "share_minus_usage");
	/* tree definitions */
	finish_fails(NULL, L("Account=a Parent=nosuch"), "Parent", "nosuch",
		     "not defined");
	finish_fails(NULL, L("Account=a Parent=b", "Account=b Parent=a"), "Parent",
		     "b", "cycle");
	finish_fails(NULL, L("User=u Account=nosuch"), "Account", "nosuch",
		     "not defined");
}
END_TEST

START_TEST(finish_accepts)
{
	/* Slurm accepts no decay with an explicit NONE reset */
	struct fw_fs_conf *c = fs_test_conf(L("PriorityDecayHalfLife=0",
					      "PriorityUsageResetPeriod=NONE"), NULL);

	fw_fs_conf_free(c);
	/* window decay ignores PriorityDecayHalfLife=0 */
	c = fs_test_conf(L("PriorityDecayHalfLife=0"), L("FairShareDecay=window"));
	fw_fs_conf_free(c);
	/* a formula that agrees with the flags, and flags that choose none */
	c = fs_test_conf(L("PriorityFlags=NO_FAIR_TREE"), L("FairShareFormula=classic"));
	ck_assert_int_eq(c->formula, FW_FS_FORMULA_CLASSIC);
	fw_fs_conf_free(c);
	c = fs_test_conf(L("PriorityFlags=CALCULATE_RUNNING"),
			 L("FairShareFormula=classic"));
	ck_assert_int_eq(c->formula, FW_FS_FORMULA_CLASSIC);
	fw_fs_conf_free(c);
	c = fs_test_conf(L("PriorityFlags=NO_FAIR_TREE"),
			 L("FairShareFormula=proportional"));
	ck_assert_int_eq(c->formula, FW_FS_FORMULA_PROPORTIONAL);
	fw_fs_conf_free(c);
	/* FairShareWindow is the normaliser of share_minus_usage */
	c = fs_test_conf(NULL, L("FairShareFormula=share_minus_usage",
				 "FairShareWindow=12h"));
	fw_fs_conf_free(c);
	/* definitions in any order */
	c = fs_test_conf(NULL, L("User=u Account=leaf", "Account=leaf Parent=mid",
				 "Account=mid"));
	fw_fs_conf_free(c);
}
END_TEST

Suite *fs_conf_suite(void)
{
	Suite *s = suite_create("fairshare-conf");
	TCase *tc = tcase_create("conf");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, slurm_keys);
	tcase_add_test(tc, formula_follows_priority_flags);
	tcase_add_test(tc, fairway_keys);
	tcase_add_test(tc, entity_lines);
	tcase_add_test(tc, slurm_key_errors);
	tcase_add_test(tc, fairway_line_errors);
	tcase_add_test(tc, duplicate_definitions);
	tcase_add_test(tc, finish_errors);
	tcase_add_test(tc, finish_accepts);
	suite_add_tcase(s, tc);
	return s;
}
