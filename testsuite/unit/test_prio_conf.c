/*
 * Unit tests of the prio module's configuration: slurm.conf keys with
 * Slurm's meaning, fairway.conf keys and entities, and every error path
 * (each error must name key, value and reason).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "test_prio.h"

/* ----------------------------------------------------------------- helpers */

struct feed {
	struct fw_prio_conf *c;
	struct fw_err *err;
	bool slurm;
};

static int feed_line(void *ctx, const char *line, int lineno)
{
	struct feed *f = ctx;
	struct fw_kv kv;
	bool used[FW_KV_MAX] = { false };
	int rc = 0;

	if (fw_kv_parse(line, &kv, f->err))
		return -1;
	if (f->slurm) {
		for (int i = 0; i < kv.n && !rc; i++) {
			int r = fw_prio_conf_slurm(f->c, kv.key[i], kv.val[i], f->err);

			if (r == FW_CONF_ERR)
				rc = -1;
			else if (r == FW_CONF_UNKNOWN)
				rc = fw_err_set(f->err, NULL, lineno, kv.key[i], kv.val[i],
						"not a prio slurm.conf key");
		}
	} else if (kv.n) {
		int r = fw_prio_conf_line(f->c, &kv, used, f->err);

		if (r == FW_CONF_ERR)
			rc = -1;
		for (int i = 0; i < kv.n && !rc; i++)
			if (!used[i])
				rc = fw_err_set(f->err, NULL, lineno, kv.key[i], kv.val[i],
						"unknown key");
		/* a consumed line reports OK, an unconsumed one UNKNOWN */
		if (!rc)
			ck_assert_int_eq(r, FW_CONF_OK);
	}
	if (rc)
		fw_err_locate(f->err, NULL, lineno);
	fw_kv_free(&kv);
	return rc;
}

struct fw_prio_conf *conf_try(const char *slurm, const char *fairway,
			      struct fw_err *err)
{
	struct fw_prio_conf *c = fw_prio_conf_new();
	struct feed f = { c, err, true };

	fw_err_clear(err);
	if (slurm && fw_read_lines_mem(slurm, strlen(slurm), feed_line, &f))
		goto fail;
	f.slurm = false;
	if (fairway && fw_read_lines_mem(fairway, strlen(fairway), feed_line, &f))
		goto fail;
	if (fw_prio_conf_finish(c, err) != FW_CONF_OK)
		goto fail;
	return c;
fail:
	fw_prio_conf_free(c);
	return NULL;
}

struct fw_prio_conf *conf_ok(const char *slurm, const char *fairway)
{
	struct fw_err err;
	struct fw_prio_conf *c = conf_try(slurm, fairway, &err);
	char buf[600];

	if (!c)
		ck_abort_msg("configuration rejected: %s", fw_err_str(&err, buf, sizeof(buf)));
	return c;
}

void conf_rejects(const char *slurm, const char *fairway, const char *key,
		  const char *value)
{
	struct fw_err err;
	struct fw_prio_conf *c = conf_try(slurm, fairway, &err);
	char buf[600];

	if (c) {
		fw_prio_conf_free(c);
		ck_abort_msg("accepted, expected an error for %s=%s", key, value);
	}
	fw_err_str(&err, buf, sizeof(buf));
	ck_assert_msg(!strcasecmp(err.key, key), "error names key '%s', expected '%s' (%s)",
		      err.key, key, buf);
	/* struct fw_err truncates long values */
	ck_assert_msg(!strncmp(err.value, value, sizeof(err.value) - 1) &&
		      strlen(err.value) == (strlen(value) < sizeof(err.value) ?
					    strlen(value) : sizeof(err.value) - 1),
		      "error names value '%s', expected '%s' (%s)", err.value, value, buf);
	ck_assert_msg(err.msg[0] && strcmp(err.msg, "unknown key"),
		      "error without a prio reason: %s", buf);
}

struct fw_prio_job job_plain(uint32_t id)
{
	struct fw_prio_job j;

	fw_prio_job_init(&j);
	j.job_id = id;
	return j;
}

/* ----------------------------------------------------------- slurm.conf */

START_TEST(slurm_defaults)
{
	struct fw_prio_conf *c = conf_ok(NULL, NULL);

	/* Slurm 22.05: FAIR_TREE on, PriorityMaxAge 7-0, CalcPeriod 5 min,
	   all weights 0, FavorSmall no */
	ck_assert_uint_eq(fw_prio_flags(c), FW_PRIO_FLAG_FAIR_TREE);
	ck_assert_int_eq(fw_prio_max_age(c), 7 * 86400);
	ck_assert_int_eq(fw_prio_calc_period(c), 300);
	ck_assert(!fw_prio_favor_small(c));
	ck_assert(fw_prio_weight(c, FW_PRIO_T_AGE) == 0);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_QUEUE_TIME) == 0);
	/* credential, boost and base terms are points as written */
	ck_assert(fw_prio_weight(c, FW_PRIO_T_CRED_QOS) == 1);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_BOOST) == 1);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_BASE) == 1);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_NICE) == -1);
	ck_assert(isinf(fw_prio_cap(c, FW_PRIO_T_AGE)));
	ck_assert(fw_prio_group_weight(c, FW_PRIO_G_RES) == 1);
	ck_assert(isinf(fw_prio_group_cap(c, FW_PRIO_G_RES)));
	ck_assert(fw_prio_scale(c) == 1);
	ck_assert_int_eq(fw_prio_accrue_policy(c), FW_ACCRUE_ACCRUE_TIME);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(slurm_keys)
{
	struct fw_prio_conf *c = conf_ok(
		"PriorityWeightAge=60000 PriorityWeightFairshare=60000\n"
		"PriorityWeightJobSize=5 PriorityWeightPartition=6 PriorityWeightQOS=3000\n"
		"PriorityWeightAssoc=7\n"
		"PriorityMaxAge=30-0\n"
		"PriorityCalcPeriod=1:30\n"
		"PriorityFavorSmall=YES\n"
		"PriorityFlags=\"ACCRUE_ALWAYS,small_relative_to_time, INCR_ONLY\"\n"
		"PriorityWeightTRES=CPU=1000,Mem=0.25G,GRES/gpu=3000,billing=2KB\n", NULL);

	ck_assert(fw_prio_weight(c, FW_PRIO_T_AGE) == 60000);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_FAIRSHARE) == 60000);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_JOBSIZE) == 5);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_PARTITION) == 6);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_QOS) == 3000);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_ASSOC) == 7);
	/* 30-0 = 30 days = 2592000 s */
	ck_assert_int_eq(fw_prio_max_age(c), 2592000);
	/* 1:30 is min:sec = 90 s, rounded up to whole minutes like Slurm: 120 */
	ck_assert_int_eq(fw_prio_calc_period(c), 120);
	ck_assert(fw_prio_favor_small(c));
	ck_assert_uint_eq(fw_prio_flags(c), FW_PRIO_FLAG_FAIR_TREE |
			  FW_PRIO_FLAG_ACCRUE_ALWAYS | FW_PRIO_FLAG_SIZE_RELATIVE |
			  FW_PRIO_FLAG_INCR_ONLY);
	/* TRES bound in the order written (no adapter list) */
	ck_assert_int_eq(fw_prio_weighted_tres(c), 4);
	ck_assert_int_eq(fw_prio_tres_count(c), 4);
	/* billing has no base unit: K divides by 1024, as Slurm; "B" is allowed */
	ck_assert(fw_prio_weighted_tres_weight(c, 3) == 2.0 / 1024);
	ck_assert_str_eq(fw_prio_tres_name(c, 2), "GRES/gpu");
	ck_assert(fw_prio_weighted_tres_weight(c, 0) == 1000);
	/* Mem=0.25G: per MB, 0.25/1024 */
	ck_assert(fw_prio_weighted_tres_weight(c, 1) == 0.25 / 1024);
	fw_prio_conf_free(c);

	/* trailing blanks, bb's MB base unit (G divides by 1024 once), and a
	   TRES given twice (the last weight wins, as in Slurm) */
	c = conf_ok("PriorityFlags=\"INCR_ONLY , MAX_TRES \"\n"
		    "PriorityWeightTRES=bb/cray=3G,cpu=1,CPU=5\n", NULL);
	ck_assert_uint_eq(fw_prio_flags(c), FW_PRIO_FLAG_FAIR_TREE | FW_PRIO_FLAG_INCR_ONLY |
			  FW_PRIO_FLAG_MAX_TRES);
	ck_assert_int_eq(fw_prio_weighted_tres(c), 2);
	ck_assert(fw_prio_weighted_tres_weight(c, 0) == 3.0 / 1024);
	ck_assert(fw_prio_weighted_tres_weight(c, 1) == 5);
	fw_prio_conf_free(c);

	/* UNLIMITED age horizon, as Slurm stores it: 2^32 - 60 s */
	c = conf_ok("PriorityMaxAge=UNLIMITED\nPriorityMaxAge=UNLIMITED\n", NULL);
	ck_assert_int_eq(fw_prio_max_age(c), 4294967236LL);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(priority_flags_like_slurm)
{
	struct fw_err e;
	uint32_t f;

	ck_assert_int_eq(fw_prio_parse_flags("", &f, &e), 0);
	ck_assert_uint_eq(f, FW_PRIO_FLAG_FAIR_TREE);
	/* NO_FAIR_TREE clears the default */
	ck_assert_int_eq(fw_prio_parse_flags("NO_FAIR_TREE", &f, &e), 0);
	ck_assert_uint_eq(f, 0);
	/* DEPTH_OBLIVIOUS implies no Fair Tree, even with FAIR_TREE written */
	ck_assert_int_eq(fw_prio_parse_flags("FAIR_TREE,DEPTH_OBLIVIOUS", &f, &e), 0);
	ck_assert_uint_eq(f, FW_PRIO_FLAG_DEPTH_OBLIVIOUS);
	ck_assert_int_eq(fw_prio_parse_flags("NO_NORMAL_ALL", &f, &e), 0);
	ck_assert_uint_eq(f, FW_PRIO_FLAG_FAIR_TREE | FW_PRIO_FLAG_NO_NORMAL_ASSOC |
			  FW_PRIO_FLAG_NO_NORMAL_PART | FW_PRIO_FLAG_NO_NORMAL_QOS |
			  FW_PRIO_FLAG_NO_NORMAL_TRES);
	ck_assert_int_eq(fw_prio_parse_flags("max_tres,CALCULATE_RUNNING,NO_NORMAL_PART,"
					     "NO_NORMAL_QOS,NO_NORMAL_ASSOC,NO_NORMAL_TRES",
					     &f, &e), 0);
	ck_assert_uint_eq(f, FW_PRIO_FLAG_FAIR_TREE | FW_PRIO_FLAG_MAX_TRES |
			  FW_PRIO_FLAG_CALCULATE_RUNNING | FW_PRIO_FLAG_NO_NORMAL_ASSOC |
			  FW_PRIO_FLAG_NO_NORMAL_PART | FW_PRIO_FLAG_NO_NORMAL_QOS |
			  FW_PRIO_FLAG_NO_NORMAL_TRES);
	/* bits are Slurm's: SMALL_RELATIVE_TO_TIME is bit 2, INCR_ONLY bit 6 */
	ck_assert_uint_eq(FW_PRIO_FLAG_SIZE_RELATIVE, 4);
	ck_assert_uint_eq(FW_PRIO_FLAG_INCR_ONLY, 64);
	ck_assert_uint_eq(FW_PRIO_FLAG_NO_NORMAL_TRES, 1024);
}
END_TEST

START_TEST(slurm_key_errors)
{
	conf_rejects("PriorityWeightAge=-5", NULL, "PriorityWeightAge", "-5");
	conf_rejects("PriorityWeightQOS=1/2", NULL, "PriorityWeightQOS", "1/2");
	conf_rejects("PriorityWeightFairshare=lots", NULL, "PriorityWeightFairshare", "lots");
	conf_rejects("PriorityWeightJobSize=4294967296", NULL, "PriorityWeightJobSize",
		     "4294967296");
	conf_rejects("PriorityMaxAge=7days", NULL, "PriorityMaxAge", "7days");
	conf_rejects("PriorityCalcPeriod=0", NULL, "PriorityCalcPeriod", "0");
	conf_rejects("PriorityCalcPeriod=UNLIMITED", NULL, "PriorityCalcPeriod", "UNLIMITED");
	conf_rejects("PriorityFavorSmall=maybe", NULL, "PriorityFavorSmall", "maybe");
	conf_rejects("PriorityFlags=ACCRUE_ALWAYS,FAIR_FOREST", NULL, "PriorityFlags",
		     "ACCRUE_ALWAYS,FAIR_FOREST");
	conf_rejects("PriorityFlags=INCR_ONLYX", NULL, "PriorityFlags", "INCR_ONLYX");
	conf_rejects("PriorityWeightTRES=CPU", NULL, "PriorityWeightTRES", "CPU");
	conf_rejects("PriorityWeightTRES=CPU=", NULL, "PriorityWeightTRES", "CPU=");
	conf_rejects("PriorityWeightTRES==5", NULL, "PriorityWeightTRES", "=5");
	conf_rejects("PriorityWeightTRES=CPU=abc", NULL, "PriorityWeightTRES", "CPU=abc");
	conf_rejects("PriorityWeightTRES=Mem=2X", NULL, "PriorityWeightTRES", "Mem=2X");
	conf_rejects("PriorityWeightTRES=Mem=2GiB", NULL, "PriorityWeightTRES", "Mem=2GiB");
	conf_rejects("PriorityFlags=INCR_ONLY,AN_EXCEEDINGLY_LONG_FLAG_NAME_THAT_NOBODY_EVER_DEFINED_ANYWHERE_AT_ALL_REALLY",
		     NULL, "PriorityFlags",
		     "INCR_ONLY,AN_EXCEEDINGLY_LONG_FLAG_NAME_THAT_NOBODY_EVER_DEFINED_ANYWHERE_AT_ALL_REALLY");
	{
		/* at most FW_PRIO_MAX_TRES weighted TRES */
		char v[1024] = "", line[1100];

		for (int i = 0; i <= FW_PRIO_MAX_TRES; i++)
			snprintf(v + strlen(v), sizeof(v) - strlen(v), "%slicense/l%d=1",
				 i ? "," : "", i);
		snprintf(line, sizeof(line), "PriorityWeightTRES=%s", v);
		conf_rejects(line, NULL, "PriorityWeightTRES", v);
	}
}
END_TEST

START_TEST(slurm_unknown_key_is_not_ours)
{
	struct fw_prio_conf *c = fw_prio_conf_new();
	struct fw_err e;

	ck_assert_int_eq(fw_prio_conf_slurm(c, "SchedulerType", "sched/fairway", &e),
			 FW_CONF_UNKNOWN);
	ck_assert_int_eq(fw_prio_conf_slurm(c, "PriorityDecayHalfLife", "7-0", &e),
			 FW_CONF_UNKNOWN);
	ck_assert_int_eq(fw_prio_conf_slurm(c, "priorityweightage", "10", &e), FW_CONF_OK);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_AGE) == 10);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(tres_binding)
{
	const char *names[] = { "cpu", "mem", "energy", "node", "billing", "gres/gpu" };
	struct fw_prio_conf *c = fw_prio_conf_new();
	struct fw_err e;

	ck_assert_int_eq(fw_prio_conf_slurm(c, "PriorityWeightTRES",
					    "CPU=1000,GRES/gpu=3000", &e), FW_CONF_OK);
	ck_assert_int_eq(fw_prio_bind_tres(c, names, 6, &e), FW_CONF_OK);
	ck_assert_int_eq(fw_prio_conf_finish(c, &e), FW_CONF_OK);
	ck_assert_int_eq(fw_prio_tres_count(c), 6);
	/* weighted TRES point into the adapter's list, case-insensitively */
	ck_assert_int_eq(fw_prio_weighted_tres_index(c, 0), 0);
	ck_assert_int_eq(fw_prio_weighted_tres_index(c, 1), 5);
	fw_prio_conf_free(c);

	c = fw_prio_conf_new();
	ck_assert_int_eq(fw_prio_conf_slurm(c, "PriorityWeightTRES",
					    "CPU=1,license/matlab=5", &e), FW_CONF_OK);
	ck_assert_int_eq(fw_prio_bind_tres(c, names, 6, &e), FW_CONF_ERR);
	ck_assert_str_eq(e.key, "PriorityWeightTRES");
	ck_assert_str_eq(e.value, "CPU=1,license/matlab=5");
	ck_assert_ptr_nonnull(strstr(e.msg, "license/matlab"));
	fw_prio_conf_free(c);

	/* bound first, weights later: checked again at finish */
	c = fw_prio_conf_new();
	ck_assert_int_eq(fw_prio_bind_tres(c, names, 6, &e), FW_CONF_OK);
	ck_assert_int_eq(fw_prio_conf_slurm(c, "PriorityWeightTRES", "bb/cray=2", &e),
			 FW_CONF_OK);
	ck_assert_int_eq(fw_prio_conf_finish(c, &e), FW_CONF_ERR);
	ck_assert_str_eq(e.key, "PriorityWeightTRES");
	fw_prio_conf_free(c);
}
END_TEST

/* ---------------------------------------------------------- fairway.conf */

START_TEST(fairway_keys)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"PriorityWeightQueueTime=10 PriorityWeightXFactor=-2.5\n"
		"PriorityWeightEligibleTime=1/864000\n"
		"PriorityCapXFactor=-100 PriorityCapAge=UNLIMITED\n"
		"PriorityGroupWeightRes=3 PriorityGroupCapService=1e6\n"
		"PriorityScale=1000\n"
		"XFMinWCLimit=30\n"
		"AccrueMaxJobsPerUser=4\n");

	ck_assert(fw_prio_weight(c, FW_PRIO_T_QUEUE_TIME) == 10);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_XFACTOR) == -2.5);
	ck_assert(fw_prio_weight(c, FW_PRIO_T_ELIGIBLE_TIME) == 1.0 / 864000);
	/* a cap bounds |value|: its sign does not matter */
	ck_assert(fw_prio_cap(c, FW_PRIO_T_XFACTOR) == 100);
	ck_assert(isinf(fw_prio_cap(c, FW_PRIO_T_AGE)));
	ck_assert(fw_prio_group_weight(c, FW_PRIO_G_RES) == 3);
	ck_assert(fw_prio_group_cap(c, FW_PRIO_G_SERVICE) == 1e6);
	ck_assert(fw_prio_scale(c) == 1000);
	/* a per-user accrual limit implies Fairway's own queue-time count */
	ck_assert_int_eq(fw_prio_accrue_policy(c), FW_ACCRUE_ELIGIBLE);
	ck_assert_uint_eq(fw_prio_accrue_max_user(c), 4);
	ck_assert_uint_eq(fw_prio_accrue_max_account(c), 0);
	fw_prio_conf_free(c);

	/* UNLIMITED spelled out: no limit, so no implied policy */
	c = conf_ok(NULL, "AccrueMaxJobsPerUser=UNLIMITED AccrueMaxJobsPerAccount=unlimited\n"
			  "QOS=q BasePriority=5 BasePriorityMax=UNLIMITED\n");
	ck_assert_uint_eq(fw_prio_accrue_max_user(c), 0);
	ck_assert_int_eq(fw_prio_accrue_policy(c), FW_ACCRUE_ACCRUE_TIME);
	fw_prio_conf_free(c);
}
END_TEST

/* Which configurations give priorities that cannot change while jobs wait. */
START_TEST(time_invariant)
{
	static const struct { const char *slurm, *fairway; bool inv; } cases[] = {
		{ NULL, NULL, true },                       /* no weights */
		{ "PriorityWeightQOS=1000\nPriorityWeightJobSize=10\n",
		  "PriorityWeightCPUs=100\nQOS=hi Priority=5\n", true },
		{ NULL, "QOS=q BasePriority=5\n", true },    /* no growth */
		{ "PriorityWeightAge=1\n", NULL, false },
		{ "PriorityWeightFairshare=1\n", NULL, false },
		{ NULL, "PriorityWeightXFactor=1\n", false },
		{ NULL, "PriorityWeightQueueTime=1\n", false },
		{ NULL, "PriorityWeightBypass=1\n", false },
		{ NULL, "QOS=q QueueTimeWeight=5\n", false }, /* per-QOS addition */
		{ NULL, "QOS=q BasePriority=5 GrowthPerMinute=1\n", false },
		{ NULL, "PriorityWeightBase=0\nQOS=q BasePriority=5 GrowthPerMinute=1\n", true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fw_prio_conf *c = conf_ok(cases[i].slurm, cases[i].fairway);

		ck_assert_msg(fw_prio_time_invariant(c) == cases[i].inv, "case %zu", i);
		fw_prio_conf_free(c);
	}
}
END_TEST

START_TEST(entities_and_resolve)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"QOS=devel BasePriority=20000 GrowthPerMinute=1 Priority=5\n"
		"QOS=optimist BasePriority=1 GrowthPerMinute=1 BasePriorityMax=10080\n"
		"QOS=special QueueTimeWeight=5000 XFactorWeight=100 TargetQueueTime=2:00:00 "
		"TargetXFactor=3\n"
		"Partition=normal Priority=7 BasePriority=19760 GrowthPerMinute=1\n"
		"Account=payroll Priority=10\n"
		"User=alice Priority=-1000\n"
		"Boost=payday Account=payroll Priority=50000 When=monthly:25-28\n"
		"Boost=weekend Account=biology QOS=normal Priority=10 When=weekly:Sat-Sun\n");

	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_QOS, "devel"), 0);
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_QOS, "optimist"), 1);
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_QOS, "special"), 2);
	/* a Boost selector registers its entity too */
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_QOS, "normal"), 3);
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_ACCOUNT, "biology"), 1);
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_PARTITION, "normal"), 0);
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_USER, "alice"), 0);
	/* no entry: -1; names are case-sensitive */
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_USER, "bob"), -1);
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_USER, "Alice"), -1);
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_QOS, NULL), -1);
	ck_assert_int_eq(fw_prio_entity_count(c, FW_PRIO_QOS), 4);
	ck_assert_str_eq(fw_prio_entity_name(c, FW_PRIO_ACCOUNT, 0), "payroll");
	ck_assert_ptr_null(fw_prio_entity_name(c, FW_PRIO_ACCOUNT, 2));
	fw_prio_conf_free(c);
}
END_TEST

/* Many entities: the name index must keep working across growth. */
START_TEST(many_entities)
{
	size_t cap = 400 * 32 + 1;
	char *text = malloc(cap), name[32];
	size_t off = 0;
	struct fw_prio_conf *c;

	for (int i = 0; i < 400; i++)
		off += (size_t)snprintf(text + off, cap - off, "User=u%d Priority=%d\n", i, i);
	c = conf_ok(NULL, text);
	for (int i = 0; i < 400; i++) {
		snprintf(name, sizeof(name), "u%d", i);
		ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_USER, name), i);
	}
	fw_prio_conf_free(c);
	free(text);
}
END_TEST

/* An entity line shared with the fs module: we take only what is ours. */
START_TEST(shared_entity_lines)
{
	struct fw_prio_conf *c = fw_prio_conf_new();
	struct fw_kv kv;
	struct fw_err e;
	bool used[FW_KV_MAX] = { false };

	ck_assert_int_eq(fw_kv_parse("Account=phys Parent=root Shares=60 Priority=10",
				     &kv, &e), 0);
	ck_assert_int_eq(fw_prio_conf_line(c, &kv, used, &e), FW_CONF_OK);
	ck_assert(used[0] && !used[1] && !used[2] && used[3]);
	fw_kv_free(&kv);

	memset(used, 0, sizeof(used));
	ck_assert_int_eq(fw_kv_parse("User=alice Account=phys Shares=1", &kv, &e), 0);
	ck_assert_int_eq(fw_prio_conf_line(c, &kv, used, &e), FW_CONF_OK);
	ck_assert(used[0] && !used[1] && !used[2]);
	fw_kv_free(&kv);

	/* a line of another module: not ours */
	memset(used, 0, sizeof(used));
	ck_assert_int_eq(fw_kv_parse("FairShareFormula=classic", &kv, &e), 0);
	ck_assert_int_eq(fw_prio_conf_line(c, &kv, used, &e), FW_CONF_UNKNOWN);
	ck_assert(!used[0]);
	fw_kv_free(&kv);

	/* a mixed global line: only our pair is marked */
	memset(used, 0, sizeof(used));
	ck_assert_int_eq(fw_kv_parse("FairShareFormula=classic PriorityScale=2", &kv, &e), 0);
	ck_assert_int_eq(fw_prio_conf_line(c, &kv, used, &e), FW_CONF_OK);
	ck_assert(!used[0] && used[1]);
	fw_kv_free(&kv);

	ck_assert_int_eq(fw_kv_parse("", &kv, &e), 0);
	ck_assert_int_eq(fw_prio_conf_line(c, &kv, used, &e), FW_CONF_UNKNOWN);
	fw_kv_free(&kv);
	ck_assert_int_eq(fw_prio_conf_finish(c, &e), FW_CONF_OK);
	ck_assert(fw_prio_scale(c) == 2);
	ck_assert_int_eq(fw_prio_resolve(c, FW_PRIO_ACCOUNT, "phys"), 0);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(recalc_period)
{
	/* RecalcPeriod keeps seconds (0:05 = min:sec = 5 s) and wins over
	 * PriorityCalcPeriod, which Slurm counts in whole minutes (2 = 120 s) */
	struct fw_prio_conf *c = conf_ok("PriorityCalcPeriod=2\n", "RecalcPeriod=0:05\n");

	ck_assert_int_eq(fw_prio_calc_period(c), 5);
	fw_prio_conf_free(c);
	/* a plain number is minutes, as everywhere in Slurm: 3 = 180 s */
	c = conf_ok("PriorityCalcPeriod=2\n", "RecalcPeriod=3\n");
	ck_assert_int_eq(fw_prio_calc_period(c), 180);
	fw_prio_conf_free(c);
	/* without it, PriorityCalcPeriod */
	c = conf_ok("PriorityCalcPeriod=2\n", NULL);
	ck_assert_int_eq(fw_prio_calc_period(c), 120);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(fairway_errors)
{
	/* Slurm's own keys belong in slurm.conf */
	conf_rejects(NULL, "PriorityWeightAge=1000", "PriorityWeightAge", "1000");
	conf_rejects(NULL, "PriorityWeightTRES=CPU=1", "PriorityWeightTRES", "CPU=1");
	conf_rejects(NULL, "PriorityFlags=INCR_ONLY", "PriorityFlags", "INCR_ONLY");
	conf_rejects(NULL, "PriorityMaxAge=1-0", "PriorityMaxAge", "1-0");
	conf_rejects(NULL, "PriorityFavorSmall=yes", "PriorityFavorSmall", "yes");
	conf_rejects(NULL, "PriorityCalcPeriod=5", "PriorityCalcPeriod", "5");
	/* RecalcPeriod: a duration of at least one second, given once */
	conf_rejects(NULL, "RecalcPeriod=0", "RecalcPeriod", "0");
	conf_rejects(NULL, "RecalcPeriod=soon", "RecalcPeriod", "soon");
	conf_rejects(NULL, "RecalcPeriod=UNLIMITED", "RecalcPeriod", "UNLIMITED");
	conf_rejects(NULL, "RecalcPeriod=0:05\nRecalcPeriod=0:06", "RecalcPeriod", "0:06");
	conf_rejects(NULL, "QOS=x PriorityWeightQOS=5", "PriorityWeightQOS", "5");
	/* fixed weights */
	conf_rejects(NULL, "PriorityWeightNice=2", "PriorityWeightNice", "2");
	conf_rejects(NULL, "PriorityWeightSite=2", "PriorityWeightSite", "2");
	/* values */
	conf_rejects(NULL, "PriorityWeightQueueTime=fast", "PriorityWeightQueueTime", "fast");
	conf_rejects(NULL, "PriorityWeightCPUs=1/0", "PriorityWeightCPUs", "1/0");
	conf_rejects(NULL, "PriorityCapXFactor=big", "PriorityCapXFactor", "big");
	conf_rejects(NULL, "PriorityGroupWeightRes=x", "PriorityGroupWeightRes", "x");
	conf_rejects(NULL, "PriorityGroupCapRes=", "PriorityGroupCapRes", "");
	conf_rejects(NULL, "PriorityScale=0", "PriorityScale", "0");
	conf_rejects(NULL, "PriorityScale=-1", "PriorityScale", "-1");
	conf_rejects(NULL, "PriorityScale=a", "PriorityScale", "a");
	conf_rejects(NULL, "XFMinWCLimit=soon", "XFMinWCLimit", "soon");
	conf_rejects(NULL, "XFWidthExponent=wide", "XFWidthExponent", "wide");
	conf_rejects(NULL, "XFWidthExponent=3", "XFWidthExponent", "3");
	conf_rejects(NULL, "XFWidthExponent=-1.5", "XFWidthExponent", "-1.5");
	conf_rejects(NULL, "StarvationThreshold=soon", "StarvationThreshold", "soon");
	conf_rejects(NULL, "StarvationThreshold=0", "StarvationThreshold", "0");
	conf_rejects(NULL, "StarvationThreshold=UNLIMITED", "StarvationThreshold",
		     "UNLIMITED");
	conf_rejects(NULL, "AccruePolicy=Sometimes", "AccruePolicy", "Sometimes");
	conf_rejects(NULL, "AccrueMaxJobsPerUser=0", "AccrueMaxJobsPerUser", "0");
	conf_rejects(NULL, "AccrueMaxJobsPerAccount=-3", "AccrueMaxJobsPerAccount", "-3");
	/* given twice */
	conf_rejects(NULL, "PriorityWeightCPUs=1\nPriorityWeightCPUs=2",
		     "PriorityWeightCPUs", "2");
	conf_rejects(NULL, "PriorityCapCPUs=1 PriorityCapCPUs=2", "PriorityCapCPUs", "2");
	conf_rejects(NULL, "PriorityGroupWeightRes=1\nPriorityGroupWeightRes=1",
		     "PriorityGroupWeightRes", "1");
	conf_rejects(NULL, "PriorityGroupCapRes=1\nPriorityGroupCapRes=1",
		     "PriorityGroupCapRes", "1");
	conf_rejects(NULL, "PriorityScale=1\nPriorityScale=1", "PriorityScale", "1");
	conf_rejects(NULL, "XFMinWCLimit=1\nXFMinWCLimit=1", "XFMinWCLimit", "1");
	conf_rejects(NULL, "XFWidthExponent=1\nXFWidthExponent=0.5", "XFWidthExponent",
		     "0.5");
	conf_rejects(NULL, "StarvationThreshold=1\nStarvationThreshold=2",
		     "StarvationThreshold", "2");
	conf_rejects(NULL, "AccruePolicy=Eligible\nAccruePolicy=Eligible", "AccruePolicy",
		     "Eligible");
	conf_rejects(NULL, "AccrueMaxJobsPerUser=1\nAccrueMaxJobsPerUser=1",
		     "AccrueMaxJobsPerUser", "1");
	conf_rejects(NULL, "AccrueMaxJobsPerAccount=1\nAccrueMaxJobsPerAccount=UNLIMITED",
		     "AccrueMaxJobsPerAccount", "UNLIMITED");
	/* cross-check: a Starvation weight needs its threshold */
	conf_rejects(NULL, "PriorityWeightStarvation=100", "PriorityWeightStarvation",
		     "100");
	/* cross-check: limits need Fairway's queue-time count */
	conf_rejects(NULL, "AccruePolicy=AccrueTime\nAccrueMaxJobsPerAccount=5",
		     "AccruePolicy", "AccrueTime");
}
END_TEST

START_TEST(entity_errors)
{
	conf_rejects(NULL, "QOS= Priority=1", "QOS", "");
	conf_rejects(NULL, "User=a,b Priority=1", "User", "a,b");
	conf_rejects(NULL, "Account=a Priority=high", "Priority", "high");
	conf_rejects(NULL, "Account=a Priority=1\nAccount=a Priority=2", "Priority", "2");
	conf_rejects(NULL, "QOS=q BasePriority=x", "BasePriority", "x");
	conf_rejects(NULL, "QOS=q BasePriority=1 BasePriority=2", "BasePriority", "2");
	conf_rejects(NULL, "Partition=p BasePriority=1 GrowthPerMinute=fast",
		     "GrowthPerMinute", "fast");
	conf_rejects(NULL, "Partition=p BasePriority=1 BasePriorityMax=lots",
		     "BasePriorityMax", "lots");
	conf_rejects(NULL, "Partition=p BasePriority=1 BasePriorityMax=9 BasePriorityMax=9",
		     "BasePriorityMax", "9");
	conf_rejects(NULL, "QOS=q QueueTimeWeight=?", "QueueTimeWeight", "?");
	conf_rejects(NULL, "QOS=q XFactorWeight=", "XFactorWeight", "");
	conf_rejects(NULL, "QOS=q TargetQueueTime=later", "TargetQueueTime", "later");
	conf_rejects(NULL, "QOS=q TargetQueueTime=0", "TargetQueueTime", "0");
	conf_rejects(NULL, "QOS=q TargetXFactor=1", "TargetXFactor", "1");
	conf_rejects(NULL, "QOS=q TargetXFactor=two", "TargetXFactor", "two");
	/* finish: growth without a base, max below base */
	conf_rejects(NULL, "QOS=q GrowthPerMinute=1", "GrowthPerMinute", "1");
	conf_rejects(NULL, "Partition=p BasePriorityMax=100", "BasePriorityMax", "100");
	conf_rejects(NULL, "QOS=q BasePriority=100 BasePriorityMax=99", "BasePriorityMax", "99");
	/* attributes that are not ours stay unconsumed (dispatcher: unknown key) */
	{
		struct fw_err e;
		struct fw_prio_conf *c = conf_try(NULL, "Account=a TargetXFactor=2", &e);

		ck_assert_ptr_null(c);
		ck_assert_str_eq(e.key, "TargetXFactor");
		ck_assert_str_eq(e.msg, "unknown key");
		c = conf_try(NULL, "Partition=p QueueTimeWeight=2", &e);
		ck_assert_ptr_null(c);
		ck_assert_str_eq(e.key, "QueueTimeWeight");
		c = conf_try(NULL, "User=u BasePriority=2", &e);
		ck_assert_ptr_null(c);
		ck_assert_str_eq(e.key, "BasePriority");
		/* a global key on an entity line is not taken either */
		c = conf_try(NULL, "QOS=q PriorityScale=2", &e);
		ck_assert_ptr_null(c);
		ck_assert_str_eq(e.key, "PriorityScale");
		c = conf_try(NULL, "Boost=b User=u Priority=1 When=monthly:1 Shares=3", &e);
		ck_assert_ptr_null(c);
		ck_assert_str_eq(e.key, "Shares");
		ck_assert_str_eq(e.msg, "unknown key");
	}
}
END_TEST

START_TEST(boost_errors)
{
	conf_rejects(NULL, "Boost=b Account=a Priority=5", "Boost", "b");
	conf_rejects(NULL, "Boost=b Account=a When=daily:01:00-02:00", "Boost", "b");
	conf_rejects(NULL, "Boost=b Priority=5 When=daily:01:00-02:00", "Boost", "b");
	conf_rejects(NULL, "Boost= Account=a Priority=5 When=daily:01:00-02:00", "Boost", "");
	conf_rejects(NULL, "Boost=b Account=a Priority=x When=daily:01:00-02:00",
		     "Priority", "x");
	conf_rejects(NULL, "Boost=b Account=a Account=c Priority=1 When=daily:01:00-02:00",
		     "Account", "c");
	conf_rejects(NULL, "Boost=b QOS= Priority=1 When=daily:01:00-02:00", "QOS", "");
	conf_rejects(NULL, "Boost=b Account=a Priority=1 When=daily:01:00-02:00\n"
		     "Boost=b Account=a Priority=1 When=daily:01:00-02:00", "Boost", "b");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=hourly:5", "When", "hourly:5");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=daily:25:00-26:00", "When",
		     "daily:25:00-26:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=daily:10:00-10:00", "When",
		     "daily:10:00-10:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=weekly:Caturday", "When",
		     "weekly:Caturday");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=weekly:Fri@18:00-Mon", "When",
		     "weekly:Fri@18:00-Mon");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=monthly:0-3", "When", "monthly:0-3");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=monthly:32", "When", "monthly:32");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=once:2026-12-03T00:00/2026-12-01T00:00",
		     "When", "once:2026-12-03T00:00/2026-12-01T00:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=once:2026-02-30T00:00/2026-03-01T00:00",
		     "When", "once:2026-02-30T00:00/2026-03-01T00:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=daily:01:00-02:00,", "When",
		     "daily:01:00-02:00,");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=", "When", "");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=daily:24:00-02:00", "When",
		     "daily:24:00-02:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=daily:1:00", "When", "daily:1:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=daily:10-12", "When", "daily:10-12");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=daily:10:5x-11:00", "When",
		     "daily:10:5x-11:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=weekly:Fri@1800-Mon@06:00", "When",
		     "weekly:Fri@1800-Mon@06:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=daily:10:60-11:00", "When",
		     "daily:10:60-11:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=weekly:Fri@10:00-Fri@10:00", "When",
		     "weekly:Fri@10:00-Fri@10:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=weekly:Fr", "When", "weekly:Fr");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=weekly:Mon-", "When", "weekly:Mon-");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=monthly:x", "When", "monthly:x");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=monthly:1-", "When", "monthly:1-");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=monthly:1-2x", "When", "monthly:1-2x");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=once:2026-01-01", "When",
		     "once:2026-01-01");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=once:2026-13-01T00:00/2027-01-01T00:00",
		     "When", "once:2026-13-01T00:00/2027-01-01T00:00");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=noon", "When", "noon");
	conf_rejects(NULL, "Boost=b User=u Priority=1 When=monthly:1,,monthly:2", "When",
		     "monthly:1,,monthly:2");
	{
		/* one window longer than any valid one */
		char v[200], line[300];

		snprintf(v, sizeof(v), "once:%0120d", 0);
		snprintf(line, sizeof(line), "Boost=b User=u Priority=1 When=%s", v);
		conf_rejects(NULL, line, "When", v);
	}
	{
		/* at most FW_PRIO_MAX_BOOSTS */
		size_t cap = (FW_PRIO_MAX_BOOSTS + 1) * 64;
		char *t = malloc(cap);
		size_t off = 0;

		for (int i = 0; i <= FW_PRIO_MAX_BOOSTS; i++)
			off += (size_t)snprintf(t + off, cap - off,
						"Boost=b%d User=u Priority=1 When=monthly:1\n", i);
		conf_rejects(NULL, t, "Boost", "b64");
		free(t);
	}
}
END_TEST

/* ------------------------------------------------ man page examples */

static bool starts_with_slurm_key(const char *line)
{
	static const char *const keys[] = { "PriorityWeightAge=", "PriorityWeightFairshare=",
		"PriorityWeightJobSize=", "PriorityWeightPartition=", "PriorityWeightQOS=",
		"PriorityWeightAssoc=", "PriorityWeightTRES=", "PriorityMaxAge=",
		"PriorityFavorSmall=", "PriorityCalcPeriod=", "PriorityFlags=" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strncmp(line, keys[i], strlen(keys[i])))
			return true;
	return false;
}

/* Remove troff's "\-" escapes and the trailing newline. */
static void untroff(char *s)
{
	char *d = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] == '-')
			continue;
		if (*p != '\n')
			*d++ = *p;
	}
	*d = '\0';
}

static void example_ok(const char *text, int lineno)
{
	struct fw_err err;
	struct fw_prio_conf *c;
	char buf[600];

	if (starts_with_slurm_key(text))
		c = conf_try(text, NULL, &err);
	else
		c = conf_try(NULL, text, &err);
	ck_assert_msg(c, "man page line %d: example '%s' rejected: %s", lineno, text,
		      fw_err_str(&err, buf, sizeof(buf)));
	fw_prio_conf_free(c);
}

/* Every "Example: .B ..." and every example block must be accepted. */
START_TEST(man_page_examples_parse)
{
	FILE *f = fopen(FW_TOP_SRCDIR "/doc/man/fairway.conf.prio.man", "r");
	char line[512], block[4096] = "";
	bool want_example = false, in_block = false;
	int lineno = 0, examples = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		untroff(line);
		if (!strcmp(line, ".RS") && in_block) {
			block[0] = '\0';
		} else if (!strcmp(line, ".nf")) {
			in_block = true;
			block[0] = '\0';
		} else if (!strcmp(line, ".fi")) {
			in_block = false;
			/* the formula blocks are not configuration */
			if (strchr(block, '=') && !strstr(block, "(x)") && !strstr(block, "total")) {
				example_ok(block, lineno);
				examples++;
			}
		} else if (in_block && line[0] != '.') {
			strncat(block, line, sizeof(block) - strlen(block) - 2);
			strcat(block, "\n");
		} else if (want_example && !strncmp(line, ".B ", 3)) {
			example_ok(line + 3, lineno);
			examples++;
		}
		want_example = strstr(line, "Example") && line[strlen(line) - 1] == ':';
	}
	fclose(f);
	/* guard against the scan silently finding nothing */
	ck_assert_int_ge(examples, 30);
}
END_TEST

Suite *prio_conf_suite(void)
{
	Suite *s = suite_create("prio_conf");
	TCase *tc = tcase_create("conf");

	tcase_add_test(tc, slurm_defaults);
	tcase_add_test(tc, slurm_keys);
	tcase_add_test(tc, priority_flags_like_slurm);
	tcase_add_test(tc, slurm_key_errors);
	tcase_add_test(tc, slurm_unknown_key_is_not_ours);
	tcase_add_test(tc, tres_binding);
	tcase_add_test(tc, fairway_keys);
	tcase_add_test(tc, entities_and_resolve);
	tcase_add_test(tc, many_entities);
	tcase_add_test(tc, shared_entity_lines);
	tcase_add_test(tc, recalc_period);
	tcase_add_test(tc, fairway_errors);
	tcase_add_test(tc, entity_errors);
	tcase_add_test(tc, boost_errors);
	tcase_add_test(tc, man_page_examples_parse);
	tcase_add_test(tc, time_invariant);
	suite_add_tcase(s, tc);
	return s;
}
