/*
 * The site presets of doc/examples, loaded through the configuration
 * dispatcher the plugins and the simulator use, produce the numbers each
 * seed document gives.  Also the dispatcher's own error paths.
 *
 * Expected values are worked out by hand from the seeds; the arithmetic is
 * in the comments.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_config.h"
#include "test_run.h"

/* 2026-11-22T00:00:00Z, a Sunday; tests run with TZ=UTC. */
#define NOW ((fw_time_t)1795305600)
#define DAY 86400

static const char *srcdir(void)
{
	const char *s = getenv("FW_SRCDIR");

	return s ? s : ".";
}

static struct fw_config *load_preset(const char *site)
{
	struct fw_config *c = fw_config_new();
	struct fw_err err;
	char path[1024], msg[1024];

	fw_err_clear(&err);
	snprintf(path, sizeof(path), "%s/doc/examples/%s/slurm.conf", srcdir(), site);
	if (fw_config_load_slurm_conf(c, path, &err))
		ck_abort_msg("%s", fw_err_str(&err, msg, sizeof(msg)));
	snprintf(path, sizeof(path), "%s/doc/examples/%s/fairway.conf", srcdir(), site);
	if (fw_config_load_file(c, path, &err))
		ck_abort_msg("%s", fw_err_str(&err, msg, sizeof(msg)));
	if (fw_config_finish(c, &err))
		ck_abort_msg("%s", fw_err_str(&err, msg, sizeof(msg)));
	return c;
}

static struct fw_prio_ctx ctx_at(fw_time_t now)
{
	struct fw_prio_ctx ctx = { .now = now, .total_nodes = 16,
				   .total_cpus = 16 * 24,
				   .total_mem_mb = 16 * 64000 };
	return ctx;
}

/* ------------------------------------------------------------- IT4I */

START_TEST(it4i_formula)
{
	struct fw_config *c = load_preset("it4i");
	struct fw_fs_tree *t = fw_fs_tree_new(c->fs);
	struct fw_prio_ctx ctx = ctx_at(NOW);
	struct fw_prio_result r;
	struct fw_prio_job j;
	struct fw_err err;
	int ua, ub;

	ck_assert_int_eq(fw_fs_tree_formula(t), FW_FS_FORMULA_PROPORTIONAL);
	ck_assert_int_ge(fw_fs_add_account(t, "proja", "root", 1, 0, &err), 0);
	ck_assert_int_ge(fw_fs_add_account(t, "projb", "root", 1, 0, &err), 0);
	ua = fw_fs_add_user(t, "proja", "alice", 1, 0, &err);
	ub = fw_fs_add_user(t, "projb", "bob", 1, 0, &err);
	ck_assert_int_ge(ua, 0);
	ck_assert_int_ge(ub, 0);
	/* proja used 30 core-hours, projb 10, over the same hour (so decay
	 * scales both alike): U_total = 40. */
	fw_fs_advance(t, NOW - 3600);
	ck_assert_int_eq(fw_fs_charge(t, ua, 30, NOW - 3600, NOW), 0);
	ck_assert_int_eq(fw_fs_charge(t, ub, 10, NOW - 3600, NOW), 0);
	fw_fs_advance(t, NOW);
	ck_assert_int_eq(fw_fs_compute(t), 0);
	/* 1e6 * (1 - 30/40) = 250000 and 1e6 * (1 - 10/40) = 750000 */
	ck_assert_double_eq_tol(fw_fs_factor(t, ua), 250000.0, 1e-3);
	ck_assert_double_eq_tol(fw_fs_factor(t, ub), 750000.0, 1e-3);

	/* qprod (queue priority 0), project A, eligible for one day:
	 *   1000*0 + 250000/1000 + 86400/864000 = 250.1;  x PriorityScale
	 *   1000 = 250100 */
	fw_prio_job_init(&j);
	j.job_id = 1;
	j.part_prio_raw = 0;
	j.fairshare = fw_fs_factor(t, ua);
	j.submit_time = j.eligible_time = j.accrue_time = NOW - DAY;
	ck_assert_uint_eq(fw_prio_compute(c->prio, &ctx, &j, &r), 250100);
	ck_assert_double_eq_tol(r.total, 250.1, 1e-9);

	/* qexp (150), project A, just eligible: 150000 + 250 = 150250 */
	j.part_prio_raw = 150;
	j.accrue_time = NOW;
	ck_assert_uint_eq(fw_prio_compute(c->prio, &ctx, &j, &r), 150250000);

	/* qprod, project B, just eligible: 750 -> 750000.  "Execution
	 * priority of jobs in higher priority queues is always greater than
	 * execution priority of jobs in lower priority queues" */
	j.part_prio_raw = 0;
	j.fairshare = fw_fs_factor(t, ub);
	ck_assert_uint_eq(fw_prio_compute(c->prio, &ctx, &j, &r), 750000);
	ck_assert_uint_lt(750000, 150250000);

	/* "Jobs Queued in Queue qexp Are Not Calculated to Project's Usage" */
	ck_assert(!fw_fs_usage_counts(c->fs, "qexp", NULL));
	ck_assert(fw_fs_usage_counts(c->fs, "qprod", NULL));
	fw_fs_tree_free(t);
	fw_config_free(c);
}
END_TEST

/* -------------------------------------------------------------- MSU */

START_TEST(msu_factors_and_thresholds)
{
	struct fw_config *c = load_preset("msu");
	struct fw_prio_ctx ctx = ctx_at(NOW);
	struct fw_prio_result r;
	struct fw_prio_job j;

	fw_prio_job_init(&j);
	j.job_id = 7;
	j.cpus = 4;
	j.mem_mb = 8 * 1024;
	j.fairshare = 1.0;         /* no recent usage */
	j.qos_prio_raw = 1;
	j.qos_prio_norm = 1.0;     /* buy-in QOS */
	j.submit_time = j.eligible_time = j.accrue_time = NOW - 15 * DAY;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	/* age: 60000 * 15/30 = 30000 */
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_AGE], 30000.0, 1e-6);
	/* size: 4 CPUs * 100 + 8 GB * 20 = 560 */
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_CPUS] + r.value[FW_PRIO_T_MEMGB],
				560.0, 1e-9);
	/* fair-share 60000 * 1.0, buy-in 3000 * 1.0 */
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_FAIRSHARE], 60000.0, 1e-9);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_QOS], 3000.0, 1e-9);
	/* 30000 + 560 + 60000 + 3000 = 93560 */
	ck_assert_uint_eq(r.priority, 93560);

	/* after 45 days the age factor stays at 60000 */
	j.accrue_time = NOW - 45 * DAY;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_AGE], 60000.0, 1e-6);
	/* "Buy-in account jobs are never below this threshold": a brand-new
	 * buy-in job of a heavy user (fair-share 0) still has >= 3000 */
	j.accrue_time = NOW;
	j.fairshare = 0.0;
	j.cpus = 1;
	j.mem_mb = 0;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_uint_ge(r.priority, c->plan->bf_min_prio_reserve);

	/* "Priority 3000 ... Age 30 minutes", "within the next 7 days" */
	ck_assert_uint_eq(c->plan->bf_min_prio_reserve, 3000);
	ck_assert_int_eq(c->plan->bf_min_age_reserve, 1800);
	ck_assert_int_eq(c->plan->bf_window, 7 * DAY);
	ck_assert_int_eq(c->plan->bf_interval, 20);
	/* "Usage for this calculation is decayed 50% each day" */
	ck_assert_int_eq(c->fs->halflife_sec, DAY);
	fw_config_free(c);
}
END_TEST

/* ----------------------------------------------------------- Sigma2 */

static uint32_t sigma2_prio(const struct fw_config *c, const char *qos,
			    const char *part, int64_t waited_min)
{
	struct fw_prio_ctx ctx = ctx_at(NOW);
	struct fw_prio_result r;
	struct fw_prio_job j;

	fw_prio_job_init(&j);
	j.job_id = 1;
	j.qos = qos ? fw_prio_resolve(c->prio, FW_PRIO_QOS, qos) : -1;
	j.partition = part ? fw_prio_resolve(c->prio, FW_PRIO_PARTITION, part) : -1;
	j.submit_time = j.eligible_time = j.accrue_time = NOW - waited_min * 60;
	return fw_prio_compute(c->prio, &ctx, &j, &r);
}

START_TEST(sigma2_job_types)
{
	struct fw_config *c = load_preset("sigma2");

	/* start values */
	ck_assert_uint_eq(sigma2_prio(c, "devel", "normal", 0), 20000);
	ck_assert_uint_eq(sigma2_prio(c, "short", "normal", 0), 19880);
	ck_assert_uint_eq(sigma2_prio(c, NULL, "normal", 0), 19760);
	ck_assert_uint_eq(sigma2_prio(c, NULL, "bigmem", 0), 19760);
	ck_assert_uint_eq(sigma2_prio(c, "unpri", "normal", 0), 19040);
	ck_assert_uint_eq(sigma2_prio(c, "optimist", "normal", 0), 1);
	/* "short jobs start with 19,880, so get a reservation in 2 hours":
	 * 19880 + 119 = 19999 < 20000 = 19880 + 120 */
	ck_assert_uint_eq(sigma2_prio(c, "short", "normal", 119), 19999);
	ck_assert_uint_eq(sigma2_prio(c, "short", "normal", 120), 20000);
	/* normal: 19760 + 240 minutes = 20000 ("in 4 hours") */
	ck_assert_uint_eq(sigma2_prio(c, NULL, "normal", 240), 20000);
	/* unpri: 19040 + 960 minutes = 20000 ("in 16 hrs") */
	ck_assert_uint_eq(sigma2_prio(c, "unpri", "normal", 960), 20000);
	/* optimist: 1 + 10079 = 10080, then it stops */
	ck_assert_uint_eq(sigma2_prio(c, "optimist", "normal", 10079), 10080);
	ck_assert_uint_eq(sigma2_prio(c, "optimist", "normal", 100000), 10080);
	/* "once the priority reaches 20,000, the job gets a reservation" */
	ck_assert_uint_eq(c->plan->bf_min_prio_reserve, 20000);
	ck_assert_int_eq(c->plan->topo, FW_TOPO_PREFER);
	fw_config_free(c);
}
END_TEST

/* ------------------------------------------------------------- Moab */

START_TEST(moab_weights_and_caps)
{
	struct fw_config *c = load_preset("moab");
	struct fw_prio_ctx ctx = ctx_at(NOW);
	struct fw_prio_result r;
	struct fw_prio_job j;

	fw_prio_job_init(&j);
	j.job_id = 3;
	j.nodes = 1;
	j.cpus = 1;
	/* a 1-hour job queued 2 hours: XFactor 1 + 120/60 = 3, weight 100 */
	j.time_limit_min = 60;
	j.submit_time = j.eligible_time = j.accrue_time = NOW - 2 * 3600;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_XFACTOR], 300.0, 1e-9);
	/* queue time 120 minutes, weight 1 */
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_QUEUE_TIME], 120.0, 1e-9);
	/* XFMinWCLimit=10 min: a 1-minute job queued 60 minutes has
	 * 1 + 60/max(10, 1) = 7 -> 700 */
	j.time_limit_min = 1;
	j.accrue_time = NOW - 3600;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_XFACTOR], 700.0, 1e-9);
	/* queued 1000 minutes: 1 + 100 = 101 -> 10100, capped at 5000 */
	j.accrue_time = NOW - 1000 * 60;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_XFACTOR], 5000.0, 1e-9);
	/* "USERCFG[paul] PRIORITY=-1000" */
	j.user = fw_prio_resolve(c->prio, FW_PRIO_USER, "paul");
	ck_assert_int_ge(j.user, 0);
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_CRED_USER], -1000.0, 1e-9);
	/* "QOSCFG[special] QTWEIGHT=5000": queue-time weight 1 + 5000 */
	j.user = -1;
	j.qos = fw_prio_resolve(c->prio, FW_PRIO_QOS, "special");
	j.accrue_time = NOW - 600; /* 10 minutes */
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_QUEUE_TIME], 10.0 * 5001, 1e-6);
	/* bypass: 50 per time */
	j.qos = -1;
	j.bypass_count = 3;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_BYPASS], 150.0, 1e-9);
	fw_config_free(c);
}
END_TEST

/* ------------------------------------------------------- starvation */

START_TEST(starvation_xfactor_and_age_threshold)
{
	struct fw_config *c = load_preset("starvation");
	struct fw_prio_ctx ctx = ctx_at(NOW);
	struct fw_prio_result r;
	struct fw_prio_job j;
	uint32_t short_prio;

	fw_prio_job_init(&j);
	j.job_id = 1;
	j.nodes = 1;
	j.cpus = 1;
	/* a 10-minute job queued 10 minutes: XFactor 1 + 10/10 = 2 -> 2000,
	 * queue time 10 minutes x 3 = 30: 2030 */
	j.time_limit_min = 10;
	j.submit_time = j.eligible_time = j.accrue_time = NOW - 600;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_XFACTOR], 2000.0, 1e-9);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_QUEUE_TIME], 30.0, 1e-9);
	ck_assert_uint_eq(r.priority, 2030);
	short_prio = r.priority;
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_STARVATION], 0.0, 1e-9);
	/* a 2-day job queued 2 days less an hour (2820 minutes):
	 * 1000 x (1 + 2820/2880) = 1979.17, + 3 x 2820 = 8460, + Starvation
	 * 30 x (2820 - 720) = 63000 past the 12 hours: 73439.17 -> 73439 */
	j.time_limit_min = 2880;
	j.accrue_time = NOW - 2820 * 60;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_STARVATION], 63000.0, 1e-9);
	ck_assert_uint_eq(r.priority, 73439);
	/* the hinge: at exactly 12 hours (720 minutes) the term is still 0:
	 * 1000 x (1 + 720/2880) + 3 x 720 = 1250 + 2160 = 3410 */
	j.accrue_time = NOW - 720 * 60;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_STARVATION], 0.0, 1e-9);
	ck_assert_uint_eq(r.priority, 3410);
	/* two old jobs: the 2-day job queued 14 h (840 minutes),
	 * 1000 x (1 + 840/2880) + 3 x 840 + 30 x 120 = 1291.67 + 2520 + 3600
	 * = 7411.67 -> 7412, is ahead of an 8-hour job queued 13 h (780
	 * minutes), 1000 x (1 + 780/480) + 3 x 780 + 30 x 60 = 2625 + 2340
	 * + 1800 = 6765; without the Starvation term the 8-hour job would
	 * lead, 4965 to 3811.67 */
	j.accrue_time = NOW - 840 * 60;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_uint_eq(r.priority, 7412);
	j.time_limit_min = 480;
	j.accrue_time = NOW - 780 * 60;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_uint_eq(r.priority, 6765);
	/* ... but a 1-hour job queued 13 h still goes by its expansion
	 * factor: 1000 x (1 + 780/60) + 2340 + 1800 = 18140 */
	j.time_limit_min = 60;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_uint_eq(r.priority, 18140);
	j.time_limit_min = 2880;
	/* ... while the same 2-day job queued 10 minutes is behind the
	 * 10-minute job: 1000 x (1 + 10/2880) + 30 = 1033.47 */
	j.accrue_time = NOW - 600;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_uint_eq(r.priority, 1033);
	ck_assert_uint_lt(r.priority, short_prio);
	/* XFMinWCLimit=10: a 1-minute job counts as 10 minutes */
	j.time_limit_min = 1;
	fw_prio_compute(c->prio, &ctx, &j, &r);
	ck_assert_double_eq_tol(r.value[FW_PRIO_T_XFACTOR], 2000.0, 1e-9);
	/* the worst-case bound: protected after 12 hours, no depth limit */
	ck_assert_int_eq(c->plan->bf_min_age_reserve, 12 * 3600);
	ck_assert_uint_eq(c->plan->bf_job_part_count_reserve, 0);
	ck_assert(!c->plan->resv_depth_set);
	ck_assert_int_eq(c->plan->bf_interval, 30);
	ck_assert_int_eq(c->plan->bf_window, 2 * DAY);
	ck_assert(!fw_prio_time_invariant(c->prio));
	fw_config_free(c);
}
END_TEST

/* ----------------------------------------------------------- primer */

START_TEST(primer_share_minus_usage_and_boosts)
{
	struct fw_config *c = load_preset("primer");
	struct fw_fs_tree *t = fw_fs_tree_new(c->fs);
	struct fw_prio_ctx ctx = ctx_at(NOW);
	struct fw_prio_result r;
	struct fw_prio_job j;
	struct fw_err err;
	int jack, jill;

	ck_assert_int_eq(fw_fs_tree_add_conf_defs(t, c->fs, &err), 0);
	jack = fw_fs_find_user(t, "pi-owners", "jack");
	jill = fw_fs_find_user(t, "pi-owners", "jill");
	ck_assert_int_ge(jack, 0);
	ck_assert_int_ge(jill, 0);
	fw_fs_advance(t, NOW);
	ck_assert_int_eq(fw_fs_compute(t), 0);
	/* "P(jack) = 0.25 - U(0) == 0.25, P(jill) = 0.75 - U(0) == 0.75";
	 * the pi-owners account holds 1/3 of root's shares here, but the
	 * primer's S is the user's share of the cluster it bought */
	fw_prio_job_init(&j);
	j.fairshare = fw_fs_factor(t, jill);
	fw_prio_compute(c->prio, &ctx, &j, &r);
	/* weight 1000 x S: jill's job scores above jack's */
	j.fairshare = fw_fs_factor(t, jack);
	{
		struct fw_prio_result rj;

		fw_prio_compute(c->prio, &ctx, &j, &rj);
		ck_assert_uint_gt(r.priority, rj.priority);
	}
	/* after jill's first job (4 nodes x 6 h = 24 node-hours in today's
	 * window): U(jill) = 24/96 = 0.25, so P(jill) = 0.75 - 0.25 = 0.5 of
	 * her share, and jack's stays */
	{
		double before_jack = fw_fs_factor(t, jack);
		double before_jill = fw_fs_factor(t, jill);

		ck_assert_int_eq(fw_fs_charge(t, jill, 4, NOW, NOW + 6 * 3600), 0);
		fw_fs_advance(t, NOW + 6 * 3600);
		fw_fs_compute(t);
		ck_assert_double_eq_tol(fw_fs_factor(t, jack), before_jack, 1e-12);
		ck_assert_double_eq_tol(before_jill - fw_fs_factor(t, jill), 0.25, 1e-9);
	}
	/* payday boost: active on the 26th, not on the 22nd */
	ck_assert_int_eq(fw_prio_window_active("monthly:25-28", NOW + 4 * DAY, &err), 1);
	ck_assert_int_eq(fw_prio_window_active("monthly:25-28", NOW, &err), 0);
	/* weekend biology boost: NOW is a Sunday */
	ck_assert_int_eq(fw_prio_window_active("weekly:Sat-Sun", NOW, &err), 1);
	ck_assert_int_eq(fw_prio_window_active("weekly:Sat-Sun", NOW + DAY, &err), 0);
	fw_fs_tree_free(t);
	fw_config_free(c);
}
END_TEST

/* ------------------------------------------------------- dispatcher */

static void rejects(const char *text, const char *key, const char *value,
		    const char *msg_part)
{
	struct fw_config *c = fw_config_new();
	struct fw_err err;
	char buf[1024];

	fw_err_clear(&err);
	ck_assert_int_eq(fw_config_load_buf(c, "fairway.conf", text, strlen(text), &err), -1);
	ck_assert_str_eq(err.file, "fairway.conf");
	ck_assert_int_eq(err.line, 2);
	ck_assert_str_eq(err.key, key);
	ck_assert_str_eq(err.value, value);
	ck_assert_msg(strstr(err.msg, msg_part), "message '%s' lacks '%s'",
		      fw_err_str(&err, buf, sizeof(buf)), msg_part);
	fw_config_free(c);
}

START_TEST(dispatcher_errors_name_file_line_key_value)
{
	rejects("# line 1\nNoSuchKey=3\n", "NoSuchKey", "3", "unknown parameter");
	rejects("\nPriorityWeightAge=1000\n", "PriorityWeightAge", "1000", "slurm.conf");
	rejects("\nSchedulerParameters=bf_window=10\n", "SchedulerParameters",
		"bf_window=10", "slurm.conf");
	rejects("\nQOS=devel BasePriority=20000 Colour=blue\n", "Colour", "blue",
		"unknown attribute");
	rejects("PriorityWeightQueueTime=1\nPriorityWeightQueueTime=ten\n",
		"PriorityWeightQueueTime", "ten", "");
	rejects("\nTopologyPlacement=sometimes\n", "TopologyPlacement", "sometimes", "");
	rejects("\nFairShareFormula=magic\n", "FairShareFormula", "magic", "");
	rejects("\nstray\n", "stray", "", "without '='");
	rejects("\nFairwayPort=65535\n", "FairwayPort", "65535", "next port");
	rejects("\nFairwayPort=http\n", "FairwayPort", "http", "");
	rejects("\nFairwayPort=6820 Host=ctl\n", "Host", "ctl", "no attributes");
}
END_TEST

/* A cross-check error of fw_config_finish() names where the key was set. */
static void finish_rejects(const char *slurm_key, const char *slurm_value,
			   const char *text, const char *file, int line,
			   const char *key, const char *value, const char *msg_part)
{
	struct fw_config *c = fw_config_new();
	struct fw_err err;
	char buf[1024];

	fw_err_clear(&err);
	if (slurm_key)
		ck_assert_int_eq(fw_config_slurm_at(c, slurm_key, slurm_value,
						    "/etc/slurm/slurm.conf", 7, &err),
				 FW_CONF_OK);
	ck_assert_int_eq(fw_config_load_buf(c, "fairway.conf", text, strlen(text), &err), 0);
	ck_assert_int_eq(fw_config_finish(c, &err), -1);
	fw_err_str(&err, buf, sizeof(buf));
	ck_assert_msg(!strcmp(err.file, file) && err.line == line &&
		      !strcmp(err.key, key) && !strcmp(err.value, value) &&
		      strstr(err.msg, msg_part),
		      "got '%s', expected %s:%d: %s=%s: ...%s...", buf, file, line,
		      key, value, msg_part);
	fw_config_free(c);
}

START_TEST(cross_check_errors_name_file_line_key_value)
{
	/* an item of a list, on the line that names it */
	finish_rejects(NULL, NULL, "Account=phys\n# users\nUser=alice Account=phys,chem\n",
		       "fairway.conf", 3, "Account", "chem", "not defined");
	finish_rejects(NULL, NULL, "Account=phys\nAccount=theory Parent=physics\n",
		       "fairway.conf", 2, "Parent", "physics", "not defined");
	finish_rejects(NULL, NULL, "\n\nFairShareCapacity=4\n", "fairway.conf", 3,
		       "FairShareCapacity", "4", "share_minus_usage");
	finish_rejects(NULL, NULL, "\nQOS=devel BasePriorityMax=100\n", "fairway.conf", 2,
		       "BasePriorityMax", "100", "needs BasePriority");
	/* a slurm.conf key fed by an adapter, with its file and line */
	finish_rejects("PriorityDecayHalfLife", "0", "", "/etc/slurm/slurm.conf", 7,
		       "PriorityDecayHalfLife", "0", "PriorityUsageResetPeriod");
	/* an item of SchedulerParameters, on the slurm.conf line */
	finish_rejects("SchedulerParameters", "defer,bf_max_job_user=5,bf_max_job_assoc=3",
		       "", "/etc/slurm/slurm.conf", 7, "bf_max_job_user", "5",
		       "bf_max_job_assoc");
}
END_TEST

START_TEST(fairway_port)
{
	struct fw_config *c = fw_config_new();
	const char *text = "# fairway command from login nodes\nFairwayPort=6820\n";
	struct fw_err err;

	ck_assert_int_eq(c->service_port, 0); /* default: controller host only */
	fw_err_clear(&err);
	ck_assert_int_eq(fw_config_load_buf(c, "fairway.conf", text, strlen(text), &err), 0);
	ck_assert_int_eq(c->service_port, 6820);
	ck_assert_int_eq(fw_config_finish(c, &err), 0);
	fw_config_free(c);
}
END_TEST

START_TEST(dispatcher_slurm_keys)
{
	struct fw_config *c = fw_config_new();
	struct fw_err err;

	/* keys no module uses are Slurm's business, not an error */
	ck_assert_int_eq(fw_config_slurm(c, "SlurmctldPort", "6817", &err), FW_CONF_UNKNOWN);
	ck_assert_int_eq(fw_config_slurm(c, "PriorityWeightAge", "1000", &err), FW_CONF_OK);
	ck_assert_int_eq(fw_config_slurm(c, "PriorityWeightAge", "many", &err), FW_CONF_ERR);
	ck_assert_str_eq(err.key, "PriorityWeightAge");
	ck_assert_int_eq(fw_config_slurm(c, "SchedulerParameters", "bf_window=0", &err),
			 FW_CONF_ERR);
	ck_assert_int_eq(fw_config_slurm(c, "SchedulerParameters",
					 "sched_interval=-1,defer,bf_window=60", &err),
			 FW_CONF_OK);
	ck_assert(fw_config_is_slurm_key("priorityflags"));
	ck_assert(!fw_config_is_slurm_key("PriorityScale"));
	fw_config_free(c);
}
END_TEST

static Suite *presets_suite(void)
{
	Suite *s = suite_create("presets");
	TCase *tc = tcase_create("presets");

	tcase_add_test(tc, it4i_formula);
	tcase_add_test(tc, msu_factors_and_thresholds);
	tcase_add_test(tc, sigma2_job_types);
	tcase_add_test(tc, moab_weights_and_caps);
	tcase_add_test(tc, starvation_xfactor_and_age_threshold);
	tcase_add_test(tc, primer_share_minus_usage_and_boosts);
	tcase_add_test(tc, dispatcher_errors_name_file_line_key_value);
	tcase_add_test(tc, dispatcher_slurm_keys);
	tcase_add_test(tc, cross_check_errors_name_file_line_key_value);
	tcase_add_test(tc, fairway_port);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(presets_suite());

	return fw_test_run(sr);
}
