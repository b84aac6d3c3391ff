/*
 * Unit tests of the factor model.  Expected values are worked out by hand
 * from the seeds' formulas and Slurm's multifactor definitions; the
 * arithmetic is in the comments.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_prio.h"
#include "test_run.h"

#define EPS 1e-9
#define ck_near(a, b) ck_assert_msg(fabs((double)(a) - (double)(b)) < EPS * (1 + fabs((double)(b))), \
				    "%s = %.12g, expected %.12g", #a, (double)(a), (double)(b))

/* 2026-01-01T00:00:00Z: 56 years after 1970 with 14 leap days,
   (56*365 + 14) * 86400 = 20454 * 86400; a Thursday (20454 % 7 == 0). */
#define JAN1_2026 1767225600LL
#define DAY 86400LL
#define HOUR 3600LL

static struct fw_prio_ctx ctx_at(fw_time_t now)
{
	struct fw_prio_ctx x = { .now = now, .total_nodes = 10, .total_cpus = 100,
				 .total_mem_mb = 1024000 };
	return x;
}

/*
 * Fairway's columns add up to the priority exactly; multifactor's (only
 * Slurm's terms) are the exact weighted factors, whose sum sprio
 * truncates, as multifactor truncates the priority.
 */
static void check_sprio_identity(const struct fw_prio_conf *c,
				 const struct fw_prio_result *r)
{
	const struct fw_prio_sprio *s = &r->sprio;
	double sum = s->age + s->assoc + s->fairshare + s->jobsize + s->partition +
		     s->qos + s->site - s->nice;

	for (int k = 0; k < s->ntres; k++)
		sum += s->tres[k];
	if (!fw_prio_multifactor(c)) {
		ck_assert_int_eq((int64_t)sum, (int64_t)r->priority);
		return;
	}
	if (sum < 1)
		sum = 1;
	if (sum > 4294967295.0)
		sum = 4294967295.0;
	ck_assert_int_eq((int64_t)sum, (int64_t)r->priority);
}

static uint32_t prio_of(const struct fw_prio_conf *c, const struct fw_prio_ctx *x,
			const struct fw_prio_job *j, struct fw_prio_result *r)
{
	uint32_t p = fw_prio_compute(c, x, j, r);
	uint32_t b;

	check_sprio_identity(c, r);
	/* the batch path gives the same answer */
	fw_prio_compute_batch(c, x, j, 1, &b, NULL);
	ck_assert_uint_eq(b, p);
	return p;
}

/* --------------------------------------------------------- seed 000: IT4I */

/*
 * IT4I: 1000*queue_priority + fairshare_priority/1000 + eligible_time/864000,
 * fair-share 0..1e6 (MAX_FAIRSHARE * (1 - U_project/U_total)).  Queue
 * priorities here: qexp 150, qprod 50, qlong 40 (test values).
 */
START_TEST(it4i_formula)
{
	const char *conf = "PriorityWeightQueuePriority=1000\n"
			   "PriorityWeightFS=1/1000\n"
			   "PriorityWeightEligibleTime=1/864000\n"
			   "PriorityScale=1000\n";
	struct fw_prio_conf *c = conf_ok(NULL, conf);
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job a = job_plain(1), b, cc, d, e;

	/* A: qprod, fs 800000, eligible 1 h:
	   50*1000 + 800000/1000 + 3600/864000 = 50800.0041666..; x1000 -> 50800004 */
	a.part_prio_raw = 50;
	a.fairshare = 800000;
	a.accrue_time = now - 3600;
	ck_assert_uint_eq(prio_of(c, &x, &a, &r), 50800004);
	ck_near(r.total, 50800 + 3600.0 / 864000);
	ck_near(r.value[FW_PRIO_T_QUEUE_PRIORITY], 50000);
	ck_near(r.value[FW_PRIO_T_FS], 800);
	ck_near(r.value[FW_PRIO_T_ELIGIBLE_TIME], 3600.0 / 864000);

	/* B: same, eligible 2 h: 50800 + 7200/864000 = 50800.008333; -> 50800008 */
	b = a;
	b.job_id = 2;
	b.accrue_time = now - 7200;
	ck_assert_uint_eq(prio_of(c, &x, &b, &r), 50800008);

	/* C: qprod, fs 900000, eligible 0: 50000 + 900 = 50900 -> 50900000 */
	cc = a;
	cc.fairshare = 900000;
	cc.accrue_time = 0;
	ck_assert_uint_eq(prio_of(c, &x, &cc, &r), 50900000);

	/* D: qexp, fs 0: 150*1000 = 150000 -> 150000000, above every qprod job */
	d = job_plain(4);
	d.part_prio_raw = 150;
	ck_assert_uint_eq(prio_of(c, &x, &d, &r), 150000000);

	/* E: qlong, fs 1e6, eligible 10 days = 864000 s: 40*1000 + 1e6/1000
	   + 864000/864000 = 41001 -> 41001000: fair-share and waiting cannot
	   beat a higher queue */
	e = job_plain(5);
	e.part_prio_raw = 40;
	e.fairshare = 1e6;
	e.accrue_time = now - 10 * DAY;
	ck_assert_uint_eq(prio_of(c, &x, &e, &r), 41001000);
	fw_prio_conf_free(c);

	/* Without PriorityScale A and B both round to 50800: the tiny
	   eligible-time term is lost, which is what PriorityScale is for. */
	c = conf_ok(NULL, "PriorityWeightQueuePriority=1000\nPriorityWeightFS=1/1000\n"
			  "PriorityWeightEligibleTime=1/864000\n");
	ck_assert_uint_eq(prio_of(c, &x, &a, &r), 50800);
	ck_assert_uint_eq(prio_of(c, &x, &b, &r), 50800);
	fw_prio_conf_free(c);
}
END_TEST

/* ---------------------------------------------------------- seed 001: MSU */

static const char *msu_slurm =
	"PriorityWeightAge=60000\nPriorityMaxAge=30-0\n"
	"PriorityWeightFairshare=60000\nPriorityWeightQOS=3000\n";
static const char *msu_fairway = "PriorityWeightCPUs=100\nPriorityWeightMemGB=20\n";

START_TEST(msu_age)
{
	struct fw_prio_conf *c = conf_ok(msu_slurm, msu_fairway);
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* 15 of 30 days: 15/30 * 60000 = 30000 */
	j.accrue_time = now - 15 * DAY;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 30000);
	ck_near(r.raw[FW_PRIO_T_AGE], 0.5);
	ck_assert_int_eq(r.sprio.age, 30000);
	/* 45 days: min(45/30, 1) * 60000 = 60000 */
	j.accrue_time = now - 45 * DAY;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 60000);
	ck_near(r.raw[FW_PRIO_T_AGE], 1.0);
	/* not accruing (accrue_time 0): no age; the floor of 1 applies */
	j.accrue_time = 0;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1);
	/* accrue_time in the future: 0 as in Slurm */
	j.accrue_time = now + 100;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(msu_size_qos_fairshare)
{
	struct fw_prio_conf *c = conf_ok(msu_slurm, msu_fairway);
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* size: 4 CPUs + 8 GB = 4*100 + 8*20 = 560 */
	j.cpus = 4;
	j.mem_mb = 8 * 1024;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 560);
	ck_near(r.value[FW_PRIO_T_CPUS], 400);
	ck_near(r.value[FW_PRIO_T_MEMGB], 160);
	/* MSU leaves PriorityWeightJobSize at 0, so plain sprio has no
	   JOBSIZE column: the size terms are in SITE (the columns must add up
	   in every sprio view) */
	ck_assert_int_eq(r.sprio.jobsize, 0);
	ck_assert_int_eq(r.sprio.site, 560);

	/* buy-in QOS: the highest QOS priority, normalised 1: +3000 */
	j.qos_prio_raw = 10;
	j.qos_prio_norm = 1.0;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 3560);
	ck_assert_int_eq(r.sprio.qos, 3000);

	/* all together: age 15 d (30000) + fair-share 0.5 (30000) + 560 + 3000
	   = 63560 */
	j.accrue_time = now - 15 * DAY;
	j.fairshare = 0.5;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 63560);
	ck_assert_int_eq(r.sprio.fairshare, 30000);
	ck_assert_int_eq(r.sprio.age, 30000);
	fw_prio_conf_free(c);
}
END_TEST

/* -------------------------------------------------------- seed 002: Sigma2 */

static const char *sigma2 =
	"QOS=devel BasePriority=20000 GrowthPerMinute=1\n"
	"QOS=short BasePriority=19880 GrowthPerMinute=1\n"
	"QOS=normal BasePriority=19760 GrowthPerMinute=1\n"
	"QOS=unpri BasePriority=19040 GrowthPerMinute=1\n"
	"QOS=optimist BasePriority=1 GrowthPerMinute=1 BasePriorityMax=10080\n";

static uint32_t sigma2_prio(const struct fw_prio_conf *c, const char *qos,
			    int64_t queued_sec)
{
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, qos);
	ck_assert_int_ge(j.qos, 0);
	j.accrue_time = now - queued_sec;
	return prio_of(c, &x, &j, &r);
}

START_TEST(sigma2_start_values_and_growth)
{
	struct fw_prio_conf *c = conf_ok(NULL, sigma2);

	/* start values */
	ck_assert_uint_eq(sigma2_prio(c, "devel", 0), 20000);
	ck_assert_uint_eq(sigma2_prio(c, "short", 0), 19880);
	ck_assert_uint_eq(sigma2_prio(c, "normal", 0), 19760);
	ck_assert_uint_eq(sigma2_prio(c, "unpri", 0), 19040);
	ck_assert_uint_eq(sigma2_prio(c, "optimist", 0), 1);
	/* short reaches 20000 at minute 120 (19880 + 120), not before:
	   7199 s is 119 whole minutes -> 19999 */
	ck_assert_uint_eq(sigma2_prio(c, "short", 7199), 19999);
	ck_assert_uint_eq(sigma2_prio(c, "short", 7200), 20000);
	/* normal after 4 h: 19760 + 240; unpri after 16 h: 19040 + 960 */
	ck_assert_uint_eq(sigma2_prio(c, "normal", 4 * HOUR), 20000);
	ck_assert_uint_eq(sigma2_prio(c, "unpri", 16 * HOUR - 60), 19999);
	ck_assert_uint_eq(sigma2_prio(c, "unpri", 16 * HOUR), 20000);
	/* optimist: 1 + minutes, stops at 10080: 10078 min -> 10079,
	   10079 min -> 10080, 20000 min -> still 10080 */
	ck_assert_uint_eq(sigma2_prio(c, "optimist", 10078 * 60), 10079);
	ck_assert_uint_eq(sigma2_prio(c, "optimist", 10079 * 60), 10080);
	ck_assert_uint_eq(sigma2_prio(c, "optimist", 20000 * 60), 10080);
	/* devel keeps growing: 20000 + 30 after 30 min */
	ck_assert_uint_eq(sigma2_prio(c, "devel", 1800), 20030);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(base_qos_wins_over_partition)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"QOS=devel BasePriority=20000 GrowthPerMinute=1\n"
		"QOS=plain Priority=0\n"
		"Partition=bigmem BasePriority=19760 GrowthPerMinute=2 BasePriorityMax=19800\n");
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	j.partition = fw_prio_resolve(c, FW_PRIO_PARTITION, "bigmem");
	j.queue_sec = 600; /* 10 minutes, given by the adapter/ledger */
	/* partition's base: 19760 + 2*10 = 19780 */
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 19780);
	/* a QOS without a base leaves the partition's */
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "plain");
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 19780);
	/* the QOS's base wins: 20000 + 10 */
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "devel");
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 20010);
	/* partition max: 19760 + 2*60 = 19880 > 19800 -> 19800 */
	j.qos = -1;
	j.queue_sec = 3600;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 19800);
	fw_prio_conf_free(c);
}
END_TEST

/* ---------------------------------------------------------- seed 003: Moab */

START_TEST(moab_xfactor_table)
{
	struct fw_prio_conf *c = conf_ok(NULL, "PriorityWeightXFactor=100\n");
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	const int64_t queued_h[5] = { 1, 2, 4, 8, 16 };
	/* 1 + q/1: 2, 3, 5, 9, 17;  1 + q/4: 1.25, 1.5, 2, 3, 5 */
	const double one_h[5] = { 2, 3, 5, 9, 17 };
	const double four_h[5] = { 1.25, 1.5, 2, 3, 5 };

	for (int i = 0; i < 5; i++) {
		struct fw_prio_job j = job_plain(1);

		j.accrue_time = now - queued_h[i] * HOUR;
		j.time_limit_min = 60;
		prio_of(c, &x, &j, &r);
		ck_near(r.raw[FW_PRIO_T_XFACTOR], one_h[i]);
		j.time_limit_min = 240;
		prio_of(c, &x, &j, &r);
		ck_near(r.raw[FW_PRIO_T_XFACTOR], four_h[i]);
	}
	/* no time limit and no XFMinWCLimit: the denominator is at least one
	   minute: 2 min queued -> 1 + 120/60 = 3 */
	{
		struct fw_prio_job j = job_plain(1);

		j.accrue_time = now - 120;
		prio_of(c, &x, &j, &r);
		ck_near(r.raw[FW_PRIO_T_XFACTOR], 3);
	}
	/* weighted: 1 h job after 1 h: 100 * 2 = 200 */
	{
		struct fw_prio_job j = job_plain(1);

		j.accrue_time = now - HOUR;
		j.time_limit_min = 60;
		ck_assert_uint_eq(prio_of(c, &x, &j, &r), 200);
	}
	fw_prio_conf_free(c);

	/* XFMinWCLimit=2:00:00: a 1 h job counts as 2 h: 1 + 1/2 = 1.5 */
	c = conf_ok(NULL, "PriorityWeightXFactor=100\nXFMinWCLimit=2:00:00\n");
	{
		struct fw_prio_job j = job_plain(1);

		j.accrue_time = now - HOUR;
		j.time_limit_min = 60;
		ck_assert_uint_eq(prio_of(c, &x, &j, &r), 150);
		ck_near(r.raw[FW_PRIO_T_XFACTOR], 1.5);
		/* a 4 h job is above the minimum: 1 + 1/4 */
		j.time_limit_min = 240;
		prio_of(c, &x, &j, &r);
		ck_near(r.raw[FW_PRIO_T_XFACTOR], 1.25);
	}
	fw_prio_conf_free(c);
}
END_TEST

/*
 * Starvation: minutes of queue time past StarvationThreshold, 0 before.
 * XFactor 1000 with XFMinWCLimit=10, Starvation 100 a minute past 4 h.
 */
START_TEST(starvation_hinge)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"PriorityWeightXFactor=1000\nXFMinWCLimit=10\n"
		"PriorityWeightStarvation=100\nStarvationThreshold=4:00:00\n");
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* 10-minute job queued 3 h: XFactor 1 + 10800/600 = 19 -> 19000,
	   below the threshold: Starvation 0 */
	j.time_limit_min = 10;
	j.accrue_time = now - 3 * HOUR;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 19000);
	ck_near(r.raw[FW_PRIO_T_STARVATION], 0);
	ck_near(r.value[FW_PRIO_T_STARVATION], 0);
	/* 2-day job queued exactly 4 h: 1 + 14400/172800 = 1.08333 -> 1083,
	   still 0 at the threshold */
	j.time_limit_min = 2880;
	j.accrue_time = now - 4 * HOUR;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1083);
	ck_near(r.raw[FW_PRIO_T_STARVATION], 0);
	/* queued 5 h: 1000 * (1 + 18000/172800) = 1104.17, plus 60 minutes
	   past the threshold * 100 = 6000: 7104.17 -> 7104 */
	j.accrue_time = now - 5 * HOUR;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 7104);
	ck_near(r.raw[FW_PRIO_T_STARVATION], 60);
	ck_near(r.value[FW_PRIO_T_STARVATION], 6000);
	/* queued 8 h: 1166.67 + 240 * 100 = 25166.67 -> 25167: now ahead of
	   the 10-minute job of 3 h (19000), which the XFactor alone put
	   17 times higher */
	j.accrue_time = now - 8 * HOUR;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 25167);
	ck_near(r.raw[FW_PRIO_T_STARVATION], 240);
	/* 30 s past the threshold: half a minute (the term is not rounded
	   to minutes, so two old jobs a few seconds apart keep their order) */
	j.accrue_time = now - 4 * HOUR - 30;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_STARVATION], 0.5);
	ck_assert_str_eq(fw_prio_term_name(FW_PRIO_T_STARVATION), "Starvation");
	ck_assert_int_eq(fw_prio_term_group(FW_PRIO_T_STARVATION), FW_PRIO_G_SERVICE);
	ck_assert(!fw_prio_time_invariant(c));
	fw_prio_conf_free(c);
}
END_TEST

/*
 * XFWidthExponent: the expansion factor's growth times CPUs^e, so that
 * its order is WFP's: e = 1/2 orders as (queue time / limit)^2 x CPUs.
 */
START_TEST(xfactor_width_exponent)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"PriorityWeightXFactor=100\nXFWidthExponent=0.5\n");
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* 1-hour job queued 30 min on 16 CPUs: 1 + 0.5 * sqrt(16) = 3 */
	j.time_limit_min = 60;
	j.cpus = 16;
	j.accrue_time = now - HOUR / 2;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 300);
	ck_near(r.raw[FW_PRIO_T_XFACTOR], 3);
	/* the same job on 1 CPU, and with no CPU count (taken as one):
	   1 + 0.5 = 1.5 */
	j.cpus = 1;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_XFACTOR], 1.5);
	j.cpus = 0;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_XFACTOR], 1.5);
	/* at submission every job has 1, whatever its width */
	j.cpus = 64;
	j.accrue_time = now;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_XFACTOR], 1);
	/* WFP's order: a 4-CPU job at wait/limit 2 (score 2^2 * 4 = 16)
	   ranks with a 16-CPU job at 1 (1^2 * 16 = 16): both 1 + 2 * 2 =
	   1 + 1 * 4 = 5 */
	j.cpus = 4;
	j.accrue_time = now - 2 * HOUR;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 500);
	j.cpus = 16;
	j.accrue_time = now - HOUR;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 500);
	fw_prio_conf_free(c);

	/* a negative exponent favours narrow jobs: 1 + 1 / 4 on 16 CPUs
	   after one limit of queue time */
	c = conf_ok(NULL, "PriorityWeightXFactor=100\nXFWidthExponent=-0.5\n");
	j.cpus = 16;
	j.accrue_time = now - HOUR;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_XFACTOR], 1.25);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(moab_service_terms)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"PriorityWeightQueueTime=1 PriorityWeightBypass=10 PriorityWeightStartCount=-100\n"
		"PriorityWeightUserPrio=1 PriorityWeightDeadline=1000\n");
	fw_time_t t0 = JAN1_2026;
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);
	struct fw_prio_ctx x;

	/* queue 2 h = 120 min; bypass 3 -> 30; start count 1 -> -100;
	   user prio 500; no deadline: 120 + 30 - 100 + 500 = 550 */
	x = ctx_at(t0 + 2 * HOUR);
	j.submit_time = t0;
	j.accrue_time = t0;
	j.bypass_count = 3;
	j.start_count = 1;
	j.user_prio = 500;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 550);
	ck_near(r.raw[FW_PRIO_T_QUEUE_TIME], 120);

	/* deadline t0+3h with a 1 h limit: latest start t0+2h; at t0+1h half
	   of [submit, latest start] has passed: 0.5 * 1000 = 500 */
	j.bypass_count = j.start_count = 0;
	j.user_prio = 0;
	j.time_limit_min = 60;
	j.deadline = t0 + 3 * HOUR;
	x = ctx_at(t0 + HOUR);
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_DEADLINE], 0.5);
	ck_near(r.value[FW_PRIO_T_DEADLINE], 500);
	/* at submission 0, at the latest start 1, after it still 1 */
	x = ctx_at(t0);
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_DEADLINE], 0);
	x = ctx_at(t0 + 2 * HOUR);
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_DEADLINE], 1);
	x = ctx_at(t0 + 5 * HOUR);
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_DEADLINE], 1);
	/* a deadline that cannot be met from submission on: 1 at once */
	j.deadline = t0 + 30 * 60;
	x = ctx_at(t0);
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_DEADLINE], 1);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(per_qos_weight_adjustments)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"PriorityWeightQueueTime=1 PriorityWeightXFactor=10\n"
		"QOS=special QueueTimeWeight=5000 XFactorWeight=90\n");
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* 2 min queued, 60 min limit: XF = 1 + 2/60.
	   plain: 1*2 + 10*(1 + 1/30) = 2 + 10.333 = 12.333 -> 12 */
	j.accrue_time = now - 120;
	j.time_limit_min = 60;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 12);
	/* special: (1+5000)*2 + (10+90)*(1 + 1/30) = 10002 + 103.333 = 10105.33 */
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "special");
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 10105);
	ck_near(r.weight[FW_PRIO_T_QUEUE_TIME], 5001);
	ck_near(r.weight[FW_PRIO_T_XFACTOR], 100);
	fw_prio_conf_free(c);
}
END_TEST

/* A column's terms are in the column when plain sprio shows it. */
START_TEST(sprio_column_shown_with_its_slurm_weight)
{
	struct fw_prio_conf *c = conf_ok("PriorityWeightJobSize=1\n",
					 "PriorityWeightCPUs=100\n");
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* CPUs 4*100 = 400 plus Slurm's job size (0/10 nodes + 4/100 CPUs)/2
	   = 0.02 with weight 1: 400.02 -> 400, all in JOBSIZE */
	j.cpus = 4;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 400);
	ck_assert_int_eq(r.sprio.jobsize, 400);
	ck_assert_int_eq(r.sprio.site, 0);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(credential_priorities)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"User=alice Priority=-1000\nAccount=phys Priority=10\n"
		"QOS=high Priority=100\nPartition=big Priority=7 BasePriority=2000\n");
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	j.user = fw_prio_resolve(c, FW_PRIO_USER, "alice");
	j.account = fw_prio_resolve(c, FW_PRIO_ACCOUNT, "phys");
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "high");
	j.partition = fw_prio_resolve(c, FW_PRIO_PARTITION, "big");
	/* 2000 (base) - 1000 + 10 + 100 + 7 = 1117 */
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1117);
	/* no Slurm weights for Assoc, QOS, Partition: plain sprio shows none
	   of those columns, so everything is in SITE */
	ck_assert_int_eq(r.sprio.assoc, 0);
	ck_assert_int_eq(r.sprio.qos, 0);
	ck_assert_int_eq(r.sprio.partition, 0);
	ck_assert_int_eq(r.sprio.site, 1117);
	fw_prio_conf_free(c);

	/* with those weights set (the job's normalised Slurm factors are 0,
	   so the total stays 1117) sprio shows the columns: user and account
	   -> ASSOC (-990), QOS -> QOS (100), partition -> PARTITION (7), base
	   -> SITE (2000) */
	c = conf_ok("PriorityWeightAssoc=1 PriorityWeightQOS=1 PriorityWeightPartition=1\n",
		"User=alice Priority=-1000\nAccount=phys Priority=10\n"
		"QOS=high Priority=100\nPartition=big Priority=7 BasePriority=2000\n");
	j.user = fw_prio_resolve(c, FW_PRIO_USER, "alice");
	j.account = fw_prio_resolve(c, FW_PRIO_ACCOUNT, "phys");
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "high");
	j.partition = fw_prio_resolve(c, FW_PRIO_PARTITION, "big");
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1117);
	ck_assert_int_eq(r.sprio.assoc, -990);
	ck_assert_int_eq(r.sprio.qos, 100);
	ck_assert_int_eq(r.sprio.partition, 7);
	ck_assert_int_eq(r.sprio.site, 2000);
	fw_prio_conf_free(c);

	c = conf_ok(NULL, "PriorityWeightCredUser=2 PriorityGroupWeightCred=3\n"
			  "User=alice Priority=-1000\nAccount=phys Priority=10\n"
			  "Partition=big BasePriority=10000\n");
	j.user = fw_prio_resolve(c, FW_PRIO_USER, "alice");
	j.account = fw_prio_resolve(c, FW_PRIO_ACCOUNT, "phys");
	j.qos = -1;
	j.partition = fw_prio_resolve(c, FW_PRIO_PARTITION, "big");
	/* 10000 + 3 * (2*(-1000) + 10) = 10000 - 5970 = 4030 */
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 4030);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(resource_terms)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"PriorityWeightNodes=1000 PriorityWeightGPUs=500 PriorityWeightWalltime=-1\n"
		"PriorityWeightProcSeconds=1/1000 PriorityWeightPE=10\n");
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* cluster: 100 CPUs, 1024000 MB.  Job: 2 nodes, 25 CPUs, 512000 MB,
	   2 GPUs, 60 min.
	   nodes 2*1000 = 2000; GPUs 2*500 = 1000; walltime -60;
	   proc-seconds 25*3600 = 90000 /1000 = 90;
	   PE = max(25/100, 512000/1024000) * 100 = 0.5*100 = 50 -> *10 = 500;
	   total 2000 + 1000 - 60 + 90 + 500 = 3530 */
	j.nodes = 2;
	j.cpus = 25;
	j.mem_mb = 512000;
	j.gpus = 2;
	j.time_limit_min = 60;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 3530);
	ck_near(r.raw[FW_PRIO_T_PE], 50);
	ck_near(r.raw[FW_PRIO_T_PROC_SECONDS], 90000);
	/* CPU share larger: 50 CPUs, 10 GB -> PE = 0.5*100 = 50 too; 60 CPUs -> 60 */
	j.cpus = 60;
	j.mem_mb = 10240;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_PE], 60);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(usage_terms_running_only)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"PriorityWeightConsumed=1 PriorityWeightRemaining=1 PriorityWeightPercent=1\n"
		"PriorityWeightExecutionTime=1\n");
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* running 1800 s of a 60 min limit on 4 CPUs:
	   consumed 1800*4 = 7200, remaining (3600-1800)*4 = 7200,
	   percent 50, execution 1800: 7200+7200+50+1800 = 16250 */
	j.running = true;
	j.start_time = now - 1800;
	j.run_sec = 1800;
	j.alloc_cpus = 4;
	j.time_limit_min = 60;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 16250);
	ck_near(r.raw[FW_PRIO_T_PERCENT], 50);
	/* past the limit nothing remains */
	j.run_sec = 4000;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_REMAINING], 0);
	/* pending jobs have no usage */
	j.running = false;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1);
	fw_prio_conf_free(c);
}
END_TEST

/* ------------------------------------------------------ Slurm: job size */

START_TEST(slurm_jobsize)
{
	struct fw_prio_ctx x = ctx_at(JAN1_2026); /* 10 nodes, 100 CPUs */
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);
	struct fw_prio_conf *c;

	/* favour large: (2/10 + 20/100)/2 = 0.2 -> 1000*0.2 = 200 */
	c = conf_ok("PriorityWeightJobSize=1000\n", NULL);
	j.nodes = 2;
	j.cpus = 20;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 200);
	ck_near(r.raw[FW_PRIO_T_JOBSIZE], 0.2);
	/* Slurm's quirk: without a CPU count the node share is not halved:
	   4/10 = 0.4 -> 400 */
	j.nodes = 4;
	j.cpus = 0;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 400);
	fw_prio_conf_free(c);

	/* PriorityFavorSmall: ((10-2)/10 + (100-20)/100)/2 = 0.8 -> 800 */
	c = conf_ok("PriorityWeightJobSize=1000\nPriorityFavorSmall=YES\n", NULL);
	j.nodes = 2;
	j.cpus = 20;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 800);
	fw_prio_conf_free(c);

	/* SMALL_RELATIVE_TO_TIME: max(nodes*C/N, cpus)/limit/C.
	   2 nodes, 5 CPUs, 10 min: max(2*100/10, 5) = 20; 20/10/100 = 0.02 -> 20 */
	c = conf_ok("PriorityWeightJobSize=1000\nPriorityFlags=SMALL_RELATIVE_TO_TIME\n", NULL);
	j.cpus = 5;
	j.time_limit_min = 10;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 20);
	ck_near(r.raw[FW_PRIO_T_JOBSIZE], 0.02);
	/* 50 CPUs beat the nodes' 20: 50/10/100 = 0.05 -> 50 */
	j.cpus = 50;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 50);
	/* no limit counts as 1 min: 50/1/100 = 0.5 -> 500 */
	j.time_limit_min = 0;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 500);
	/* clamped to 1: 200 CPUs / 1 min / 100 = 2 -> 1 -> 1000 */
	j.cpus = 200;
	j.time_limit_min = 1;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1000);
	fw_prio_conf_free(c);

	/* with FavorSmall: 1 - 0.02 = 0.98 -> 980 */
	c = conf_ok("PriorityWeightJobSize=1000\nPriorityFavorSmall=yes\n"
		    "PriorityFlags=SMALL_RELATIVE_TO_TIME\n", NULL);
	j.cpus = 5;
	j.time_limit_min = 10;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 980);
	/* clamped to 0: 1 - 2 -> 0; the floor of 1 applies */
	j.cpus = 200;
	j.time_limit_min = 1;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1);
	ck_near(r.raw[FW_PRIO_T_JOBSIZE], 0);
	fw_prio_conf_free(c);
}
END_TEST

/* ---------------------------------------------- Slurm: normalisation flags */

static struct fw_prio_job norm_job(void)
{
	static const uint64_t tres[2] = { 16, 32768 };      /* cpu, mem MB */
	static const uint64_t total[2] = { 64, 131072 };
	struct fw_prio_job j = job_plain(1);

	j.part_prio_raw = 5;
	j.part_prio_norm = 0.5;
	j.qos_prio_raw = 10;
	j.qos_prio_norm = 0.25;
	j.assoc_prio_raw = 3;
	j.assoc_prio_norm = 0.3;
	j.tres = tres;
	j.part_tres_total = total;
	return j;
}

static uint32_t norm_prio(const char *flags, struct fw_prio_result *r)
{
	char slurm[400];
	struct fw_prio_conf *c;
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_job j = norm_job();
	uint32_t p;

	snprintf(slurm, sizeof(slurm),
		 "PriorityWeightPartition=1000 PriorityWeightQOS=100 PriorityWeightAssoc=10\n"
		 "PriorityWeightTRES=CPU=1000,Mem=2000\nPriorityFlags=%s\n", flags);
	c = conf_ok(slurm, NULL);
	p = prio_of(c, &x, &j, r);
	fw_prio_conf_free(c);
	return p;
}

START_TEST(slurm_no_normal_flags)
{
	struct fw_prio_result r;

	/* normalised: 1000*0.5 + 100*0.25 + 10*0.3 = 528;
	   TRES: 1000*16/64 + 2000*32768/131072 = 250 + 500 = 750; total 1278 */
	ck_assert_uint_eq(norm_prio("", &r), 1278);
	ck_near(r.tres[0], 250);
	ck_near(r.tres[1], 500);
	ck_assert_int_eq(r.sprio.ntres, 2);
	ck_assert_int_eq(r.sprio.tres[0], 250);
	ck_assert_int_eq(r.sprio.tres[1], 500);
	ck_assert_int_eq(r.sprio.partition, 500);
	ck_assert_int_eq(r.sprio.qos, 25);
	ck_assert_int_eq(r.sprio.assoc, 3);
	/* NO_NORMAL_PART: 1000*5 + 25 + 3 + 750 = 5778 */
	ck_assert_uint_eq(norm_prio("NO_NORMAL_PART", &r), 5778);
	/* NO_NORMAL_QOS: 500 + 100*10 + 3 + 750 = 2253 */
	ck_assert_uint_eq(norm_prio("NO_NORMAL_QOS", &r), 2253);
	/* NO_NORMAL_ASSOC: 500 + 25 + 10*3 + 750 = 1305 */
	ck_assert_uint_eq(norm_prio("NO_NORMAL_ASSOC", &r), 1305);
	/* NO_NORMAL_TRES: 528 + 1000*16 + 2000*32768 = 528 + 16000 + 65536000
	   = 65552528 */
	ck_assert_uint_eq(norm_prio("NO_NORMAL_TRES", &r), 65552528);
	/* NO_NORMAL_ALL: 5000 + 1000 + 30 + 65552000 = 65558030 */
	ck_assert_uint_eq(norm_prio("NO_NORMAL_ALL", &r), 65558030);
}
END_TEST

START_TEST(slurm_zero_priorities_and_totals)
{
	struct fw_prio_conf *c = conf_ok(
		"PriorityWeightPartition=1000 PriorityWeightQOS=100\n"
		"PriorityWeightTRES=CPU=1000,Mem=2000\n", NULL);
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result r;
	struct fw_prio_job j = norm_job();
	static const uint64_t no_mem_total[2] = { 64, 0 };

	/* Slurm ignores the normalised value when the raw priority is 0 */
	j.part_prio_raw = 0;
	j.qos_prio_raw = 0;
	/* a partition without that TRES gives its factor 0: 1000*16/64 = 250 */
	j.part_tres_total = no_mem_total;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 250);
	/* no TRES counts at all: 0 -> floor 1 */
	j.tres = NULL;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(site_and_nice)
{
	struct fw_prio_conf *c = conf_ok("PriorityWeightAge=1000\n", NULL);
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* age 3.5 of 7 days: 500; site +100; nice 50 subtracted: 550 */
	j.accrue_time = now - 3 * DAY - 12 * HOUR;
	j.site_factor = 100;
	j.nice = 50;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 550);
	ck_assert_int_eq(r.sprio.age, 500);
	/* only Slurm's terms: columns as multifactor fills them, SITE the
	   site factor and NICE the nice value (sprio -l shows it) */
	ck_assert(fw_prio_multifactor(c));
	ck_assert_int_eq(r.sprio.site, 100);
	ck_assert_int_eq(r.sprio.nice, 50);
	/* negative nice raises it: 500 + 100 + 300 = 900 */
	j.nice = -300;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 900);
	ck_assert_int_eq(r.sprio.site, 100);
	ck_assert_int_eq(r.sprio.nice, -300);
	/* below 1 -> 1 (0 is for held jobs); site absorbs the clamp */
	j.nice = 10000;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1);
	ck_near(r.total, 500 + 100 - 10000);
	fw_prio_conf_free(c);

	/* above 2^32-1 -> 2^32-1 */
	c = conf_ok(NULL, "PriorityWeightCPUs=1e9\n");
	j = job_plain(2);
	j.cpus = 100;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), UINT32_MAX);
	fw_prio_conf_free(c);
}
END_TEST

/* ------------------------------------ multifactor mode (issue 18 item 5) */

/*
 * Only Slurm's keys: the total is truncated as priority/multifactor's
 * _get_priority_internal() does ((uint64_t) cast after the < 1 floor), and
 * sprio gets the exact weighted factors (sprio rounds each with %.0f).
 */
START_TEST(multifactor_truncates)
{
	struct fw_prio_conf *c = conf_ok("PriorityWeightAge=1000\n"
					 "PriorityWeightTRES=CPU=125\n", NULL);
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);
	uint64_t tres[1] = { 1 }, total[1] = { 2 };
	char buf[32];

	ck_assert(fw_prio_multifactor(c));
	/* age 1 of 7 days: 1000/7 = 142.857; cpu 1 of 2: 125 * 0.5 = 62.5;
	   sum 205.357 -> 205 (rounding would give 205 too: see below) */
	j.accrue_time = now - DAY;
	j.tres = tres;
	j.part_tres_total = total;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 205);
	ck_near(r.sprio.age, 1000.0 / 7);
	ck_assert(r.sprio.tres[0] == 62.5);
	/* sprio prints %.0f: 62.5 -> "62" (ties to even), as multifactor's
	   sprio shows cpu=62; Fairway's rounding mode printed 63 */
	snprintf(buf, sizeof(buf), "%.0f", r.sprio.tres[0]);
	ck_assert_str_eq(buf, "62");
	ck_assert_int_eq(r.sprio.site, 0);
	/* age 4 of 7 days: 571.43; + 62.5 = 633.93 -> 633, not 634 */
	j.accrue_time = now - 4 * DAY;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 633);
	/* age 2/3 of a 3-minute max age: 666.67 alone -> 666, not 667 */
	fw_prio_conf_free(c);
	c = conf_ok("PriorityWeightAge=1000\nPriorityMaxAge=3\n", NULL);
	j = job_plain(2);
	j.accrue_time = now - 120;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 666);
	ck_assert_int_eq(r.sprio.site, 0);
	/* the batch path truncates the same way (prio_of checks it) and
	   explain names the rule and the residue: shown 667, priority 666 */
	{
		char text[2048];

		fw_prio_explain(c, &j, &r, text, sizeof(text));
		ck_assert_msg(strstr(text, "trunc(total 666.666667)") != NULL, "%s", text);
		ck_assert_msg(strstr(text, "rounding residue (priority - sum of the rounded "
				     "columns): -1") != NULL, "%s", text);
	}
	fw_prio_conf_free(c);
}
END_TEST

/* Multifactor's sum adds the TRES parts in Slurm's TRES order, whatever
 * the order PriorityWeightTRES is written in. */
START_TEST(multifactor_tres_order)
{
	struct fw_prio_conf *a = conf_ok("PriorityWeightTRES=CPU=1000,Mem=2000\n", NULL);
	struct fw_prio_conf *b = conf_ok("PriorityWeightTRES=Mem=2000,CPU=1000\n", NULL);
	const char *names[] = { "cpu", "mem", "energy", "node" };
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result ra, rb;
	struct fw_prio_job j = norm_job();
	struct fw_err err;

	ck_assert_int_eq(fw_prio_bind_tres(a, names, 4, &err), FW_CONF_OK);
	ck_assert_int_eq(fw_prio_bind_tres(b, names, 4, &err), FW_CONF_OK);
	/* cpu 16/64 * 1000 = 250, mem 32768/131072 * 2000 = 500 (norm_job) */
	j.tres = (uint64_t[]){ 16, 32768, 0, 0 };
	j.part_tres_total = (uint64_t[]){ 64, 131072, 0, 0 };
	ck_assert_uint_eq(prio_of(a, &x, &j, &ra), 750);
	ck_assert_uint_eq(prio_of(b, &x, &j, &rb), 750);
	ck_assert(ra.total == rb.total);
	fw_prio_conf_free(a);
	fw_prio_conf_free(b);
}
END_TEST

/* Which configurations are multifactor's: Slurm's keys, plus fairway.conf
 * lines that do not touch the priority. */
START_TEST(multifactor_mode_detection)
{
	static const struct { const char *fairway; bool mf; } cases[] = {
		{ NULL, true },
		{ "RecalcPeriod=0:02\n", true },
		{ "PriorityWeightCPUs=0\n", true },
		{ "Account=phys Priority=0\n", true },
		{ "PriorityWeightCPUs=100\n", false },
		{ "PriorityScale=2\n", false },
		{ "PriorityCapAge=10\n", false },
		{ "PriorityGroupWeightSlurm=2\n", false },
		{ "Account=phys Priority=10\n", false },
		{ "QOS=q BasePriority=100\n", false },
		{ "Boost=b Account=phys Priority=5 When=weekly:Mon-Sun\n", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fw_prio_conf *c = conf_ok("PriorityWeightAge=1000\n", cases[i].fairway);

		ck_assert_msg(fw_prio_multifactor(c) == cases[i].mf, "%s",
			      cases[i].fairway ? cases[i].fairway : "(none)");
		fw_prio_conf_free(c);
	}
}
END_TEST

START_TEST(rounding_not_truncation)
{
	struct fw_prio_conf *c = conf_ok(NULL, "PriorityWeightCPUs=2.5\n");
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* 3 * 2.5 = 7.5 -> 8 (Slurm would truncate to 7) */
	j.cpus = 3;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 8);
	/* 5 * 2.5 = 12.5 -> 13; 1 * 2.5 = 2.5 -> 3 */
	j.cpus = 5;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 13);
	j.cpus = 1;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 3);
	fw_prio_conf_free(c);
}
END_TEST

/* ----------------------------------------------- caps, negative weights */

START_TEST(term_caps_and_negative_weights)
{
	struct fw_prio_conf *c = conf_ok("PriorityWeightAge=1000\n",
		"PriorityWeightCPUs=-10 PriorityCapCPUs=50\n"
		"PriorityWeightQueueTime=1 PriorityCapQueueTime=100\n"
		"PriorityCapAge=500\n"
		"QOS=q BasePriority=1000\n");
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* CPUs: -10*8 = -80, capped at -50 (a cap bounds both directions);
	   queue time 3 h = 180 min, capped at 100;
	   age 5.25 of 7 days = 0.75 * 1000 = 750, capped at 500;
	   base 1000: total 1000 - 50 + 100 + 500 = 1550 */
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "q");
	j.cpus = 8;
	j.accrue_time = now - 5 * DAY - 6 * HOUR;
	j.queue_sec = 3 * HOUR;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1550);
	ck_near(r.value[FW_PRIO_T_CPUS], -50);
	ck_near(r.value[FW_PRIO_T_QUEUE_TIME], 100);
	ck_near(r.value[FW_PRIO_T_AGE], 500);
	ck_assert_int_eq(r.sprio.age, 500 + 100);
	/* no PriorityWeightJobSize: CPUs in SITE with the base, 1000 - 50 */
	ck_assert_int_eq(r.sprio.jobsize, 0);
	ck_assert_int_eq(r.sprio.site, 950);
	/* under the caps the weights apply unchanged: 2 CPUs -> -20,
	   60 min -> 60, age 1 day = 1/7*1000 = 142.857: 1000-20+60+142.857
	   = 1182.857 -> 1183 */
	j.cpus = 2;
	j.queue_sec = HOUR;
	j.accrue_time = now - DAY;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1183);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(group_weights_and_caps)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"PriorityWeightCPUs=100 PriorityWeightMemGB=20\n"
		"PriorityGroupWeightRes=2 PriorityGroupCapRes=1000\n");
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* 2 CPUs: 2*100 = 200, group weight 2 -> 400, under the cap */
	j.cpus = 2;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 400);
	/* 4 CPUs + 8 GB: 560 * 2 = 1120 -> capped 1000 */
	j.cpus = 4;
	j.mem_mb = 8192;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1000);
	ck_near(r.group_sum[FW_PRIO_G_RES], 1120);
	ck_near(r.group_value[FW_PRIO_G_RES], 1000);
	/* sprio: the capped group scales its terms in proportion:
	   CPUs 400*2*1000/1120 = 714.29 -> 714, MemGB 160*2*1000/1120 = 285.71
	   -> 286, 1000 together; without PriorityWeightJobSize plain sprio has
	   no JOBSIZE column, so they are in SITE */
	ck_assert_int_eq(r.sprio.jobsize, 0);
	ck_assert_int_eq(r.sprio.site, 1000);
	fw_prio_conf_free(c);

	/* a negative group weight, capped in the negative direction too:
	   -2 * 560 = -1120 -> -1000; with a base of 5000: 4000 */
	c = conf_ok(NULL,
		"PriorityWeightCPUs=100 PriorityWeightMemGB=20\n"
		"PriorityGroupWeightRes=-2 PriorityGroupCapRes=1000\n"
		"Partition=p BasePriority=5000\n");
	j.partition = fw_prio_resolve(c, FW_PRIO_PARTITION, "p");
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 4000);
	ck_assert_int_eq(r.sprio.jobsize, 0);
	ck_assert_int_eq(r.sprio.site, 4000);
	fw_prio_conf_free(c);

	/* group weight on Slurm's group: 2 * age 0.5*1000 = 1000 */
	c = conf_ok("PriorityWeightAge=1000\n", "PriorityGroupWeightSlurm=2\n");
	j = job_plain(2);
	j.accrue_time = JAN1_2026 - 3 * DAY - 12 * HOUR;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1000);
	ck_assert_int_eq(r.sprio.age, 1000);
	fw_prio_conf_free(c);
}
END_TEST

/* ------------------------------------------------------------- targets */

START_TEST(target_shape)
{
	/* f(x) = (e^(5x)-1)/(e^5-1) up to x = 1, then 1 + s(x-1) with
	   s = 5e^5/(e^5-1) = 5*148.41316/147.41316 = 5.03392 */
	const double e5 = exp(5.0), s = 5 * e5 / (e5 - 1);
	double prev = -1;

	ck_near(fw_prio_target_shape(0), 0);
	ck_near(fw_prio_target_shape(-3), 0);
	ck_near(fw_prio_target_shape(1), 1);
	/* small early: f(0.5) = (e^2.5-1)/(e^5-1) = 11.18249/147.41316 = 0.075858 */
	ck_assert(fabs(fw_prio_target_shape(0.5) - 0.075858) < 1e-6);
	ck_assert(fw_prio_target_shape(0.5) < 0.1);
	/* steep near the target: the last tenth gains more than the first half */
	ck_assert(fw_prio_target_shape(1) - fw_prio_target_shape(0.9) >
		  fw_prio_target_shape(0.5) - fw_prio_target_shape(0));
	/* missed: keeps growing linearly with the slope at the target */
	ck_near(fw_prio_target_shape(2), 1 + s);
	ck_near(fw_prio_target_shape(3) - fw_prio_target_shape(2), s);
	ck_near(fw_prio_target_shape(11) - fw_prio_target_shape(10), s);
	/* C1 at the target: one-sided slopes agree */
	{
		double h = 1e-6;
		double left = (fw_prio_target_shape(1) - fw_prio_target_shape(1 - h)) / h;
		double right = (fw_prio_target_shape(1 + h) - fw_prio_target_shape(1)) / h;

		ck_assert(fabs(left - s) < 1e-4 && fabs(right - s) < 1e-9);
	}
	/* strictly increasing on a grid */
	for (double x = 0.01; x < 4; x += 0.01) {
		double f = fw_prio_target_shape(x);

		ck_assert(f > prev);
		prev = f;
	}
}
END_TEST

START_TEST(target_terms)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"PriorityWeightTargetQueueTime=1000 PriorityWeightTargetXFactor=100\n"
		"QOS=fast TargetQueueTime=2:00:00\nQOS=fair TargetXFactor=3\nQOS=none\n");
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);
	const double e5 = exp(5.0), s = 5 * e5 / (e5 - 1);

	/* 1 h of a 2 h target: x = 0.5 -> 0.075858 -> 75.858 */
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "fast");
	j.accrue_time = now - HOUR;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_TARGET_QUEUE_TIME], expm1(2.5) / (e5 - 1));
	ck_assert_uint_eq(r.priority, 76);
	/* 4 h: x = 2 -> (1 + s) * 1000 = 6033.9 -> 6034 */
	j.accrue_time = now - 4 * HOUR;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), (uint32_t)llround((1 + s) * 1000));
	/* XFactor target 3: a 1 h job queued 1 h has XF 2, x = (2-1)/(3-1) = 0.5 */
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "fair");
	j.accrue_time = now - HOUR;
	j.time_limit_min = 60;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_TARGET_XFACTOR], expm1(2.5) / (e5 - 1));
	ck_near(r.raw[FW_PRIO_T_TARGET_QUEUE_TIME], 0);
	/* a QOS without targets: no target terms */
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "none");
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 1);
	fw_prio_conf_free(c);

	/* XFWidthExponent scales the XFactor term, not the target's
	   expansion factor: the same 16-CPU job has XFactor 1 + 4 = 5 and
	   still x = 0.5 against target 3 */
	c = conf_ok(NULL, "PriorityWeightTargetXFactor=100 XFWidthExponent=0.5\n"
		    "QOS=fair TargetXFactor=3\n");
	j.qos = fw_prio_resolve(c, FW_PRIO_QOS, "fair");
	j.cpus = 16;
	prio_of(c, &x, &j, &r);
	ck_near(r.raw[FW_PRIO_T_XFACTOR], 5);
	ck_near(r.raw[FW_PRIO_T_TARGET_XFACTOR], expm1(2.5) / (e5 - 1));
	fw_prio_conf_free(c);
}
END_TEST

/* --------------------------------------------------------------- boosts */

START_TEST(boost_windows)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"Boost=payday Account=payroll Priority=50000 When=monthly:25-28\n"
		"Boost=weekend Account=biology Priority=1000 When=weekly:Sat-Sun\n"
		"Boost=night Account=biology QOS=batch Priority=7 When=daily:18:00-06:00\n");
	struct fw_prio_result r;
	struct fw_prio_job pay = job_plain(1), bio = job_plain(2);
	struct fw_prio_ctx x;

	pay.account = fw_prio_resolve(c, FW_PRIO_ACCOUNT, "payroll");
	bio.account = fw_prio_resolve(c, FW_PRIO_ACCOUNT, "biology");
	/* Mon 2026-01-26 12:00 UTC (Jan 1 is a Thursday, +25 days = Monday):
	   payday window (25th-28th) open, weekend closed */
	x = ctx_at(JAN1_2026 + 25 * DAY + 12 * HOUR);
	ck_assert_uint_eq(prio_of(c, &x, &pay, &r), 50000);
	ck_assert_uint_eq(prio_of(c, &x, &bio, &r), 1);
	/* Sat 2026-01-24 12:00: weekend open, payday closed */
	x = ctx_at(JAN1_2026 + 23 * DAY + 12 * HOUR);
	ck_assert_uint_eq(prio_of(c, &x, &pay, &r), 1);
	ck_assert_uint_eq(prio_of(c, &x, &bio, &r), 1000);
	/* the 28th until 23:59 is in, the 29th is out */
	x = ctx_at(JAN1_2026 + 27 * DAY + 23 * HOUR + 59 * 60);
	ck_assert_uint_eq(prio_of(c, &x, &pay, &r), 50000);
	x = ctx_at(JAN1_2026 + 28 * DAY);
	ck_assert_uint_eq(prio_of(c, &x, &pay, &r), 1);
	/* selectors combine: biology jobs in QOS batch at 20:00 on Saturday
	   get weekend 1000 + night 7 */
	bio.qos = fw_prio_resolve(c, FW_PRIO_QOS, "batch");
	x = ctx_at(JAN1_2026 + 23 * DAY + 20 * HOUR);
	ck_assert_uint_eq(prio_of(c, &x, &bio, &r), 1007);
	ck_near(r.raw[FW_PRIO_T_BOOST], 1007);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(window_syntax)
{
	struct fw_err e;
	/* Thu 2026-01-01 00:00 UTC */
	const fw_time_t thu = JAN1_2026, fri = thu + DAY, mon = thu + 4 * DAY;

	/* daily wrapping midnight: 18:00 in, 05:59 in, 06:00 out, 12:00 out */
	ck_assert_int_eq(fw_prio_window_active("daily:18:00-06:00", thu + 18 * HOUR, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("daily:18:00-06:00", thu + 5 * HOUR + 59 * 60, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("daily:18:00-06:00", thu + 6 * HOUR, &e), 0);
	ck_assert_int_eq(fw_prio_window_active("daily:18:00-06:00", thu + 12 * HOUR, &e), 0);
	ck_assert_int_eq(fw_prio_window_active("daily:09:00-17:00", thu + 9 * HOUR, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("daily:09:00-17:00", thu + 17 * HOUR, &e), 0);
	ck_assert_int_eq(fw_prio_window_active("daily:00:00-24:00", thu + 17 * HOUR, &e), 1);
	/* weekly with times: Fri 18:00 to Mon 06:00 */
	ck_assert_int_eq(fw_prio_window_active("weekly:Fri@18:00-Mon@06:00", fri + 17 * HOUR, &e), 0);
	ck_assert_int_eq(fw_prio_window_active("weekly:Fri@18:00-Mon@06:00", fri + 18 * HOUR, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("weekly:Fri@18:00-Mon@06:00", mon + 5 * HOUR, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("weekly:Fri@18:00-Mon@06:00", mon + 6 * HOUR, &e), 0);
	/* a single day, full names, several windows */
	ck_assert_int_eq(fw_prio_window_active("weekly:thursday", thu + HOUR, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("weekly:Thu", fri, &e), 0);
	ck_assert_int_eq(fw_prio_window_active("weekly:Sun", thu + 3 * DAY + 23 * HOUR, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("weekly:Mon-Sun", fri, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("monthly:5,weekly:Fri", fri, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("monthly:5,weekly:Sat", fri, &e), 0);
	/* monthly wrapping the month's end: 28-3 contains the 1st */
	ck_assert_int_eq(fw_prio_window_active("monthly:28-3", thu, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("monthly:28-3", thu + 5 * DAY, &e), 0);
	/* once, half-open */
	ck_assert_int_eq(fw_prio_window_active("once:2025-12-31T23:00/2026-01-01T01:00", thu, &e), 1);
	ck_assert_int_eq(fw_prio_window_active("once:2025-12-31T23:00/2026-01-01T01:00",
					       thu + HOUR, &e), 0);
	ck_assert_int_eq(fw_prio_window_active("nonsense", thu, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "nonsense"));
}
END_TEST

/* ----------------------------------------------------------- INCR_ONLY */

START_TEST(incr_only)
{
	struct fw_prio_conf *c = conf_ok(NULL, "PriorityWeightCPUs=1000\n");
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* without the flag the previous priority is ignored: 3*1000 */
	j.cpus = 3;
	j.prev_priority = 5000;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 3000);
	fw_prio_conf_free(c);

	c = conf_ok("PriorityFlags=INCR_ONLY\n", "PriorityWeightCPUs=1000\n");
	/* 3000 < 5000: keeps 5000; sprio's SITE takes the difference (and
	   the CPUs term: no PriorityWeightJobSize, no JOBSIZE column) */
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 5000);
	ck_assert_int_eq(r.sprio.jobsize, 0);
	ck_assert_int_eq(r.sprio.site, 5000);
	/* 6000 > 5000: increases */
	j.cpus = 6;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 6000);
	/* no previous priority */
	j.cpus = 3;
	j.prev_priority = 0;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 3000);
	fw_prio_conf_free(c);
}
END_TEST

/* -------------------------------------------------------- queue time */

START_TEST(queue_time_sources)
{
	struct fw_prio_conf *c = conf_ok(NULL, "PriorityWeightQueueTime=1\n");
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(1);

	/* derived: now - accrue_time = 30 min */
	j.accrue_time = now - 1800;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 30);
	/* from the ledger: 600 s = 10 min */
	j.queue_sec = 600;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 10);
	/* running: queue time stopped at the start, 20 min after accrue_time */
	j.queue_sec = FW_PRIO_QUEUE_AUTO;
	j.running = true;
	j.start_time = now - 600;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 20);
	fw_prio_conf_free(c);
}
END_TEST

/* ------------------------------------------- sprio identity, batch, explain */

static uint32_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static const char *all_slurm =
	"PriorityWeightAge=10000 PriorityWeightFairshare=20000 PriorityWeightJobSize=3000\n"
	"PriorityWeightPartition=4000 PriorityWeightQOS=5000 PriorityWeightAssoc=600\n"
	"PriorityWeightTRES=CPU=700,Mem=0.5G,GRES/gpu=900\n";
static const char *all_fairway =
	"PriorityWeightCredUser=1 PriorityWeightCredAccount=2 PriorityWeightQueuePriority=3\n"
	"PriorityWeightFS=1/1000 PriorityWeightNodes=1.5 PriorityWeightCPUs=-0.7\n"
	"PriorityWeightMemGB=0.3 PriorityWeightGPUs=11 PriorityWeightWalltime=0.01\n"
	"PriorityWeightProcSeconds=1e-6 PriorityWeightPE=2 PriorityWeightQueueTime=0.9\n"
	"PriorityWeightXFactor=13 PriorityWeightEligibleTime=1/864000 PriorityWeightBypass=5\n"
	"PriorityWeightStartCount=-7 PriorityWeightDeadline=300 PriorityWeightUserPrio=0.5\n"
	"PriorityWeightTargetQueueTime=50 PriorityWeightTargetXFactor=40\n"
	"PriorityWeightConsumed=1e-5 PriorityWeightRemaining=-1e-5 PriorityWeightPercent=3\n"
	"PriorityWeightExecutionTime=0.001\n"
	"PriorityCapXFactor=2000 PriorityCapAge=7777.7 PriorityGroupCapRes=5000.5\n"
	"PriorityGroupWeightService=1.3 PriorityGroupWeightSlurm=0.9 PriorityScale=3.7\n"
	"QOS=q0 Priority=10 BasePriority=100 GrowthPerMinute=0.5 TargetQueueTime=1:00:00\n"
	"QOS=q1 Priority=-5 QueueTimeWeight=2 XFactorWeight=3 TargetXFactor=4\n"
	"Partition=p0 Priority=3 BasePriority=50 GrowthPerMinute=1 BasePriorityMax=500\n"
	"Partition=p1 Priority=1\n"
	"Account=a0 Priority=20\nAccount=a1 Priority=-20\n"
	"User=u0 Priority=1\nUser=u1 Priority=2\nUser=u2 Priority=-3\n"
	"Boost=b0 Account=a0 Priority=123 When=daily:00:00-24:00\n"
	"Boost=b1 User=u1 Priority=-45 When=weekly:Mon-Sun\n";

static void random_job(uint64_t *s, fw_time_t now, struct fw_prio_job *j,
		       uint64_t *tres, uint64_t *tot)
{
	fw_prio_job_init(j);
	j->job_id = lcg(s);
	j->user = (int)(lcg(s) % 4) - 1;
	j->account = (int)(lcg(s) % 3) - 1;
	j->qos = (int)(lcg(s) % 3) - 1;
	j->partition = (int)(lcg(s) % 3) - 1;
	j->submit_time = now - lcg(s) % (20 * DAY);
	j->accrue_time = lcg(s) % 5 ? j->submit_time + lcg(s) % 3600 : 0;
	j->nodes = 1 + lcg(s) % 10;
	j->cpus = lcg(s) % 200;
	j->mem_mb = lcg(s) % 500000;
	j->gpus = lcg(s) % 8;
	j->time_limit_min = lcg(s) % 3000;
	j->deadline = lcg(s) % 4 ? 0 : now + (fw_time_t)(lcg(s) % (5 * DAY));
	j->nice = (int32_t)(lcg(s) % 2001) - 1000;
	j->site_factor = (int64_t)(lcg(s) % 501) - 250;
	j->user_prio = (int32_t)(lcg(s) % 2048) - 1024;
	j->bypass_count = lcg(s) % 20;
	j->start_count = lcg(s) % 3;
	j->fairshare = (lcg(s) % 1000001) / 1e6;
	j->part_prio_raw = lcg(s) % 4;
	j->part_prio_norm = j->part_prio_raw / 3.0;
	j->qos_prio_raw = lcg(s) % 11;
	j->qos_prio_norm = j->qos_prio_raw / 10.0;
	j->assoc_prio_raw = lcg(s) % 6;
	j->assoc_prio_norm = j->assoc_prio_raw / 5.0;
	j->running = lcg(s) % 10 == 0;
	if (j->running) {
		j->run_sec = lcg(s) % 100000;
		j->start_time = now - j->run_sec;
		j->alloc_cpus = j->cpus;
	}
	j->prev_priority = lcg(s) % 3 ? 0 : lcg(s) % 200000;
	for (int i = 0; i < 3; i++) {
		tres[i] = lcg(s) % 1000;
		tot[i] = lcg(s) % 4 ? 1000 + lcg(s) % 100000 : 0;
	}
	j->tres = tres;
	j->part_tres_total = tot;
}

START_TEST(sprio_identity_random_jobs)
{
	struct fw_prio_conf *c = conf_ok(all_slurm, all_fairway);
	fw_time_t now = JAN1_2026 + 17 * DAY + 5 * HOUR;
	struct fw_prio_ctx x = ctx_at(now);
	uint64_t seed = 42;
	enum { N = 2000 };
	static struct fw_prio_job jobs[N];
	static uint64_t tres[N][3], tot[N][3];
	static uint32_t batch[N];
	static double totals[N];

	for (int i = 0; i < N; i++)
		random_job(&seed, now, &jobs[i], tres[i], tot[i]);
	static struct fw_prio_result many[N];

	fw_prio_compute_batch(c, &x, jobs, N, batch, totals);
	fw_prio_compute_many(c, &x, jobs, N, many);
	for (int i = 0; i < N; i++) {
		struct fw_prio_result r;
		double sum = 0;

		fw_prio_compute(c, &x, &jobs[i], &r);
		ck_assert(!memcmp(&r, &many[i], sizeof(r)));
		check_sprio_identity(c, &r);
		ck_assert_uint_eq(batch[i], r.priority);
		ck_assert(totals[i] == r.total);
		/* the total is the sum of group values, each the capped
		   group-weighted sum of its term values */
		for (int g = 0; g < FW_PRIO_NGROUPS; g++)
			sum += r.group_value[g];
		ck_near(r.total, sum);
		ck_assert(fabs(r.value[FW_PRIO_T_XFACTOR]) <= 2000);
		ck_assert(fabs(r.group_value[FW_PRIO_G_RES]) <= 5000.5);
	}
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(explain_text)
{
	struct fw_prio_conf *c = conf_ok(msu_slurm, msu_fairway);
	fw_time_t now = JAN1_2026;
	struct fw_prio_ctx x = ctx_at(now);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(77);
	char buf[4096], small[16];
	size_t n;

	j.accrue_time = now - 15 * DAY;
	j.cpus = 4;
	j.mem_mb = 8192;
	fw_prio_compute(c, &x, &j, &r);
	n = fw_prio_explain(c, &j, &r, buf, sizeof(buf));
	ck_assert_uint_eq(n, strlen(buf));
	ck_assert_ptr_nonnull(strstr(buf, "Job 77: priority 30560"));
	ck_assert_ptr_nonnull(strstr(buf, "Age"));
	ck_assert_ptr_nonnull(strstr(buf, "weight 60000"));
	ck_assert_ptr_nonnull(strstr(buf, "CPUs"));
	ck_assert_ptr_nonnull(strstr(buf, "value 400.0000"));
	ck_assert_ptr_nonnull(strstr(buf, "sprio: AGE 30000"));
	ck_assert_ptr_nonnull(strstr(buf, "JOBSIZE 0"));
	ck_assert_ptr_nonnull(strstr(buf, "SITE 560"));
	ck_assert_ptr_nonnull(strstr(buf, "zero (no weight or nothing to add): JobSize"));
	/* default-weighted terms that add nothing are not listed */
	ck_assert_ptr_null(strstr(buf, "    CredUser"));
	/* snprintf semantics: truncated, NUL-terminated, full length returned */
	ck_assert_uint_eq(fw_prio_explain(c, &j, &r, small, sizeof(small)), n);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	fw_prio_conf_free(c);
}
END_TEST

/* Explain with caps, TRES parts and a priority held by INCR_ONLY. */
START_TEST(explain_caps_tres_incr_only)
{
	struct fw_prio_conf *c = conf_ok(
		"PriorityWeightTRES=CPU=1000\nPriorityFlags=INCR_ONLY\n",
		"PriorityWeightCPUs=10 PriorityCapCPUs=25\n");
	struct fw_prio_ctx x = ctx_at(JAN1_2026);
	struct fw_prio_result r;
	struct fw_prio_job j = job_plain(9);
	static const uint64_t tres[1] = { 8 }, tot[1] = { 64 };
	char buf[4096];

	/* CPUs 4*10 = 40 capped 25; TRES 1000*8/64 = 125: 150, below the
	   previous 200 which INCR_ONLY keeps */
	j.cpus = 4;
	j.tres = tres;
	j.part_tres_total = tot;
	j.prev_priority = 200;
	ck_assert_uint_eq(prio_of(c, &x, &j, &r), 200);
	fw_prio_explain(c, &j, &r, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "INCR_ONLY keeps the previous 200"));
	ck_assert_ptr_nonnull(strstr(buf, "cap 25"));
	ck_assert_ptr_nonnull(strstr(buf, "TRES CPU"));
	ck_assert_ptr_nonnull(strstr(buf, "factor 0.125"));
	ck_assert_ptr_nonnull(strstr(buf, "TRES:CPU 125"));
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(term_and_group_names)
{
	ck_assert_str_eq(fw_prio_term_name(FW_PRIO_T_QUEUE_TIME), "QueueTime");
	ck_assert_str_eq(fw_prio_term_name(FW_PRIO_NTERMS), "?");
	ck_assert_int_eq(fw_prio_term_group(FW_PRIO_T_NICE), FW_PRIO_G_SLURM);
	ck_assert_int_eq(fw_prio_term_group(FW_PRIO_T_QUEUE_PRIORITY), FW_PRIO_G_CRED);
	ck_assert_int_eq(fw_prio_term_group(FW_PRIO_T_PE), FW_PRIO_G_RES);
	ck_assert_int_eq(fw_prio_term_group(FW_PRIO_T_TARGET_XFACTOR), FW_PRIO_G_TARGET);
	ck_assert_int_eq(fw_prio_term_group(FW_PRIO_T_BASE), FW_PRIO_G_BASE);
	ck_assert_str_eq(fw_prio_group_name(FW_PRIO_G_SERVICE), "Service");
}
END_TEST

Suite *prio_compute_suite(void)
{
	Suite *s = suite_create("prio");
	TCase *tc = tcase_create("compute");

	tcase_add_test(tc, it4i_formula);
	tcase_add_test(tc, msu_age);
	tcase_add_test(tc, msu_size_qos_fairshare);
	tcase_add_test(tc, sigma2_start_values_and_growth);
	tcase_add_test(tc, base_qos_wins_over_partition);
	tcase_add_test(tc, moab_xfactor_table);
	tcase_add_test(tc, xfactor_width_exponent);
	tcase_add_test(tc, starvation_hinge);
	tcase_add_test(tc, moab_service_terms);
	tcase_add_test(tc, per_qos_weight_adjustments);
	tcase_add_test(tc, sprio_column_shown_with_its_slurm_weight);
	tcase_add_test(tc, credential_priorities);
	tcase_add_test(tc, resource_terms);
	tcase_add_test(tc, usage_terms_running_only);
	tcase_add_test(tc, slurm_jobsize);
	tcase_add_test(tc, slurm_no_normal_flags);
	tcase_add_test(tc, slurm_zero_priorities_and_totals);
	tcase_add_test(tc, site_and_nice);
	tcase_add_test(tc, rounding_not_truncation);
	tcase_add_test(tc, term_caps_and_negative_weights);
	tcase_add_test(tc, group_weights_and_caps);
	tcase_add_test(tc, target_shape);
	tcase_add_test(tc, target_terms);
	tcase_add_test(tc, boost_windows);
	tcase_add_test(tc, window_syntax);
	tcase_add_test(tc, incr_only);
	tcase_add_test(tc, queue_time_sources);
	tcase_add_test(tc, sprio_identity_random_jobs);
	tcase_add_test(tc, multifactor_truncates);
	tcase_add_test(tc, multifactor_tres_order);
	tcase_add_test(tc, multifactor_mode_detection);
	tcase_add_test(tc, explain_text);
	tcase_add_test(tc, explain_caps_tres_incr_only);
	tcase_add_test(tc, term_and_group_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;

	/* windows are evaluated in local time; the tests are written in UTC */
	setenv("TZ", "UTC", 1);
	tzset();
	sr = srunner_create(prio_compute_suite());
	srunner_add_suite(sr, prio_conf_suite());
	srunner_add_suite(sr, prio_accrue_suite());
	return fw_test_run(sr);
}
