/*
 * End-to-end scenarios of fairway-sim through the real core (fw_prio,
 * fw_fairshare, fw_plan).  Expected schedules are worked out by hand from
 * the scheduling primer (seed 004) and written with their arithmetic.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cluster.h"
#include "sim_core.h"
#include "sim_engine.h"
#include "sim_report.h"
#include "sim_trace.h"
#include "test_run.h"

#define H 3600
/* 2024-01-01T00:00:00Z */
#define T0 1704067200LL

struct run {
	struct sim_cluster c;
	struct sim_assocs a;
	struct sim_trace t;
	struct sim_core *k;
	struct sim_result r;
	struct sim_metrics m;
};

/* Read everything from memory (fairway_conf and the sacctmgr dump may be
 * NULL), run, compute metrics.  Returns 0 or -1. */
static int run_case_full(struct run *x, const char *slurm_conf,
			 const char *fairway_conf, const char *dump,
			 const char *csv, struct sim_options *o,
			 struct fw_err *e)
{
	struct sim_read_opts ro = { 0 };

	memset(x, 0, sizeof(*x));
	fw_err_clear(e);
	sim_cluster_init(&x->c);
	sim_assocs_init(&x->a);
	sim_trace_init(&x->t);
	if (sim_read_slurm_conf_mem(&x->c, "slurm.conf", slurm_conf,
				    strlen(slurm_conf), e) ||
	    sim_cluster_finish(&x->c, e) ||
	    sim_read_csv_mem(&x->t, "jobs.csv", csv, strlen(csv), &ro, e))
		return -1;
	if (dump && sim_read_sacctmgr_dump_mem(&x->a, "dump", dump,
					       strlen(dump), e))
		return -1;
	x->k = sim_core_new(&x->c, dump ? &x->a : NULL, o->policy, e);
	if (!x->k)
		return -1;
	if (fairway_conf &&
	    sim_core_read_fairway_conf_mem(x->k, "fairway.conf", fairway_conf,
					   strlen(fairway_conf), e))
		return -1;
	if (sim_core_finish(x->k, e) || sim_run(&x->t, &x->c, x->k, o, &x->r, e))
		return -1;
	sim_metrics_compute(&x->r, &x->m);
	return 0;
}

static int run_case(struct run *x, const char *slurm_conf,
		    const char *fairway_conf, const char *csv,
		    struct sim_options *o, struct fw_err *e)
{
	return run_case_full(x, slurm_conf, fairway_conf, NULL, csv, o, e);
}

static void run_free(struct run *x)
{
	sim_result_free(&x->r);
	sim_core_free(x->k);
	sim_trace_free(&x->t);
	sim_assocs_free(&x->a);
	sim_cluster_free(&x->c);
}

static const struct sim_outjob *job(const struct run *x, uint32_t id)
{
	for (size_t i = 0; i < x->r.n; i++)
		if (x->r.job[i].id == id)
			return &x->r.job[i];
	ck_abort_msg("no job %u", id);
	return NULL;
}

/* ------------------------------------------------------------ primer */

/* Four nodes, no priority weights: the queue is in submit order. */
static const char primer_conf[] =
	"NodeName=node[1-4] CPUs=4\n"
	"PartitionName=batch Nodes=node[1-4] Default=YES MaxTime=1-0\n";

/* The primer's job mix (123-126), submitted together. */
static const char primer_jobs[] =
	"id,submit,user,account,nodes,time_limit,run_time\n"
	"123,1704067200,markov,phys-part,2,2:00:00,2:00:00\n"
	"124,1704067200,markov,phys-part,2,2:00:00,2:00:00\n"
	"125,1704067200,julie,bio-env,1,1:00:00,1:00:00\n"
	"126,1704067200,mendle,bio-epi,4,4:00:00,4:00:00\n";

static void run_primer(struct run *x, enum sim_policy p)
{
	struct sim_options o = { .policy = p };
	struct fw_err e;

	if (run_case(x, primer_conf, NULL, primer_jobs, &o, &e)) {
		char buf[512];
		ck_abort_msg("%s", fw_err_str(&e, buf, sizeof(buf)));
	}
}

START_TEST(primer_serial_takes_9h)
{
	struct run x;

	run_primer(&x, SIM_POLICY_SERIAL);
	/* one job at a time: 123 0-2h, 124 2-4h, 125 4-5h, 126 5-9h */
	ck_assert_int_eq(job(&x, 123)->start, T0);
	ck_assert_int_eq(job(&x, 124)->start, T0 + 2 * H);
	ck_assert_int_eq(job(&x, 125)->start, T0 + 4 * H);
	ck_assert_int_eq(job(&x, 126)->start, T0 + 5 * H);
	ck_assert_int_eq(x.m.makespan, 9 * H);
	/* node-hours 2*2 + 2*2 + 1*1 + 4*4 = 25 of 4 nodes * 9 h */
	ck_assert_double_eq_tol(x.m.utilisation, 25.0 / 36.0, 1e-12);
	run_free(&x);
}
END_TEST

/* Shared expectations of the concurrent policies on the primer's mix. */
static void check_primer_7h(const struct run *x)
{
	/* 123 and 124 fill the four nodes at 0h; at 2h 125 takes one node and
	   126 (all four nodes) waits for it: 125 2-3h, 126 3-7h. */
	ck_assert_int_eq(job(x, 123)->start, T0);
	ck_assert_int_eq(job(x, 124)->start, T0);
	ck_assert_int_eq(job(x, 125)->start, T0 + 2 * H);
	ck_assert_int_eq(job(x, 126)->start, T0 + 3 * H);
	ck_assert_int_eq(job(x, 126)->end, T0 + 7 * H);
	ck_assert_int_eq(x->m.makespan, 7 * H);
	/* 25 node-hours of 4 nodes * 7 h = 89.3% */
	ck_assert_double_eq_tol(x->m.utilisation, 25.0 / 28.0, 1e-12);
	ck_assert_uint_eq(x->m.done, 4);
	/* 123 and 124 got different nodes */
	ck_assert_uint_ne(job(x, 123)->node[0], job(x, 124)->node[0]);
}

START_TEST(primer_easy_takes_7h)
{
	struct run x;

	run_primer(&x, SIM_POLICY_EASY);
	check_primer_7h(&x);
	run_free(&x);
}
END_TEST

START_TEST(primer_conservative_takes_7h)
{
	struct run x;

	run_primer(&x, SIM_POLICY_CONSERVATIVE);
	check_primer_7h(&x);
	run_free(&x);
}
END_TEST

/*
 * Plain FIFO (main pass only) is also 7 h here: nothing could be
 * backfilled.  Between 2h and 3h three nodes idle, but the only waiting job
 * (126) needs four; the main pass starts 125 at 2h exactly as backfill
 * would, and 126 when 125 ends.
 */
START_TEST(primer_fifo_takes_7h_too)
{
	struct run x;

	run_primer(&x, SIM_POLICY_FIFO);
	check_primer_7h(&x);
	ck_assert_uint_eq(x.r.bf_passes, 0);
	run_free(&x);
}
END_TEST

/*
 * Where backfill matters: 4 nodes; A (3 nodes, 2 h), B (4 nodes, 1 h),
 * C (1 node, 1 h), submitted in that order at 0.
 *   FIFO: A 0-2h; B blocks the partition, so C waits: B 2-3h, C 3-4h.
 *   EASY: B is reserved at 2h; C fits on the idle node 0-1h without
 *         delaying B: C 0-1h (backfilled), A 0-2h, B 2-3h.  3 h.
 */
START_TEST(backfill_uses_the_hole)
{
	static const char jobs[] =
		"id,submit,nodes,time_limit,run_time\n"
		"1,1704067200,3,2:00:00,2:00:00\n"
		"2,1704067200,4,1:00:00,1:00:00\n"
		"3,1704067200,1,1:00:00,1:00:00\n";
	struct sim_options o = { .policy = SIM_POLICY_FIFO };
	struct run x;
	struct fw_err e;

	ck_assert_int_eq(run_case(&x, primer_conf, NULL, jobs, &o, &e), 0);
	ck_assert_int_eq(job(&x, 2)->start, T0 + 2 * H);
	ck_assert_int_eq(job(&x, 3)->start, T0 + 3 * H);
	ck_assert_int_eq(x.m.makespan, 4 * H);
	ck_assert_uint_eq(x.m.backfilled, 0);
	run_free(&x);

	o.policy = SIM_POLICY_EASY;
	ck_assert_int_eq(run_case(&x, primer_conf, NULL, jobs, &o, &e), 0);
	ck_assert_int_eq(job(&x, 1)->start, T0);
	ck_assert_int_eq(job(&x, 3)->start, T0);
	ck_assert(job(&x, 3)->backfilled);
	ck_assert_int_eq(job(&x, 2)->start, T0 + 2 * H);
	ck_assert_int_eq(x.m.makespan, 3 * H);
	/* B waited while C, behind it, started: one bypass */
	ck_assert_uint_eq(job(&x, 2)->bypass, 1);
	run_free(&x);
}
END_TEST


/*
 * Where EASY and conservative backfill part: 5 nodes, submitted in this
 * order at 0:  A1 (1 node, 2 h), A2 (3 nodes, 10 h), B (5 nodes, 1 h),
 * C (2 nodes, 8 h), D (1 node, 3 h).  A1 takes n1, A2 n2-n4; n5 is idle.
 *   Both: B is protected at 10 h (all five nodes).
 *   Conservative: C is protected too, at 2 h on n1 and n5 (ends at 10 h,
 *     in time for B).  D cannot start on n5 now without delaying C: it
 *     runs after B, 11-14 h.  Makespan 14 h.
 *   EASY: only B is protected.  D starts now on n5 (ends at 3 h, before
 *     B).  C then finds n1+n5 free only at 3 h, and 3 h + 8 h would delay
 *     B, so C runs after B: 11-19 h.  Makespan 19 h.
 */
START_TEST(easy_and_conservative_differ)
{
	static const char conf[] =
		"NodeName=n[1-5] CPUs=4\n"
		"PartitionName=p Nodes=n[1-5] Default=YES MaxTime=1-0\n";
	static const char jobs[] =
		"id,submit,nodes,time_limit,run_time\n"
		"1,1704067200,1,2:00:00,2:00:00\n"
		"2,1704067200,3,10:00:00,10:00:00\n"
		"3,1704067200,5,1:00:00,1:00:00\n"
		"4,1704067200,2,8:00:00,8:00:00\n"
		"5,1704067200,1,3:00:00,3:00:00\n";
	struct sim_options o = { .policy = SIM_POLICY_CONSERVATIVE };
	struct run x;
	struct fw_err e;

	ck_assert_int_eq(run_case(&x, conf, NULL, jobs, &o, &e), 0);
	ck_assert_int_eq(job(&x, 3)->start, T0 + 10 * H);
	ck_assert_int_eq(job(&x, 4)->start, T0 + 2 * H);
	ck_assert_int_eq(job(&x, 5)->start, T0 + 11 * H);
	ck_assert_int_eq(x.m.makespan, 14 * H);
	run_free(&x);

	o.policy = SIM_POLICY_EASY;
	ck_assert_int_eq(run_case(&x, conf, NULL, jobs, &o, &e), 0);
	ck_assert_int_eq(job(&x, 5)->start, T0);
	ck_assert(job(&x, 5)->backfilled);
	ck_assert_int_eq(job(&x, 3)->start, T0 + 10 * H);
	ck_assert_int_eq(job(&x, 4)->start, T0 + 11 * H);
	ck_assert_int_eq(x.m.makespan, 19 * H);
	run_free(&x);
}
END_TEST


/*
 * Invariants on random workloads, for every policy: a node runs one job at
 * a time, no job starts before it is eligible, a job runs for
 * min(run time, limit) on as many nodes as it asked for, and every job
 * ends (the cluster can hold each of them).
 */
START_TEST(random_workloads_keep_invariants)
{
	static const char conf[] =
		"NodeName=n[1-6] CPUs=8\n"
		"PartitionName=p Nodes=n[1-6] Default=YES MaxTime=1-0\n"
		"PriorityWeightAge=1000\nPriorityWeightJobSize=100\n"
		"SchedulerParameters=bf_interval=60\n";
	static const enum sim_policy pol[] = {
		SIM_POLICY_FAIRWAY, SIM_POLICY_FIFO, SIM_POLICY_EASY,
		SIM_POLICY_CONSERVATIVE, SIM_POLICY_SERIAL,
	};
	unsigned seed = 7;

	for (int round = 0; round < 4; round++) {
		struct fw_buf csv = { 0 };
		fw_buf_printf(&csv, "id,submit,eligible,user,nodes,time_limit_s,run_time_s\n");
		for (int i = 1; i <= 120; i++) {
			long sub = 1704067200L + rand_r(&seed) % 20000;
			long el = rand_r(&seed) % 4 ? 0 : sub + rand_r(&seed) % 3000;
			long lim = 60 + rand_r(&seed) % 7200;
			long run = 1 + rand_r(&seed) % (lim + lim / 4);
			fw_buf_printf(&csv, "%d,%ld,%s%ld,u%d,%d,%ld,%ld\n", i, sub,
				       "", el ? el : sub, rand_r(&seed) % 5,
				       1 + rand_r(&seed) % 6, lim, run);
		}
		for (size_t pi = 0; pi < sizeof(pol) / sizeof(pol[0]); pi++) {
			struct sim_options o = { .policy = pol[pi] };
			struct run x;
			struct fw_err e;
			char buf[512];

			if (run_case(&x, conf, NULL, csv.s, &o, &e))
				ck_abort_msg("%s", fw_err_str(&e, buf, sizeof(buf)));
			ck_assert_uint_eq(x.m.done, 120);
			for (size_t a = 0; a < x.r.n; a++) {
				const struct sim_outjob *j = &x.r.job[a];
				const struct sim_job *tj = NULL;
				for (size_t t = 0; t < x.t.n; t++)
					if (x.t.job[t].id == j->id)
						tj = &x.t.job[t];
				ck_assert_int_ge(j->start, j->eligible);
				ck_assert_int_ge(j->eligible, j->submit);
				int64_t run = tj->run_time < tj->time_limit ? tj->run_time
									    : tj->time_limit;
				ck_assert_int_eq(j->end - j->start, run);
				ck_assert_uint_eq(j->nodes, tj->nodes);
				/* no other job on any of its nodes while it runs */
				for (size_t b = a + 1; b < x.r.n; b++) {
					const struct sim_outjob *k = &x.r.job[b];
					if (k->start >= j->end || j->start >= k->end ||
					    k->start == k->end || j->start == j->end)
						continue;
					for (uint32_t u = 0; u < j->nodes; u++)
						for (uint32_t v = 0; v < k->nodes; v++)
							ck_assert_msg(j->node[u] != k->node[v],
								      "policy %s: jobs %u and %u share node %u",
								      sim_policy_name(pol[pi]), j->id, k->id,
								      j->node[u]);
				}
			}
			if (pol[pi] == SIM_POLICY_FIFO || pol[pi] == SIM_POLICY_SERIAL)
				ck_assert_uint_eq(x.m.backfilled, 0);
			run_free(&x);
		}
		fw_buf_free(&csv);
	}
}
END_TEST

/* A job that runs past its limit is killed at the limit. */
START_TEST(killed_at_time_limit)
{
	static const char jobs[] =
		"id,submit,nodes,time_limit,run_time\n"
		"1,1704067200,1,1:00:00,3:00:00\n";
	struct sim_options o = { .policy = SIM_POLICY_EASY };
	struct run x;
	struct fw_err e;

	ck_assert_int_eq(run_case(&x, primer_conf, NULL, jobs, &o, &e), 0);
	ck_assert_int_eq(job(&x, 1)->end, T0 + H);
	ck_assert(job(&x, 1)->killed);
	ck_assert_uint_eq(x.m.killed, 1);
	run_free(&x);
}
END_TEST

/* Jobs that can never run are rejected with a reason, not lost. */
START_TEST(impossible_jobs_are_rejected)
{
	static const char jobs[] =
		"id,submit,nodes,partition,time_limit,run_time\n"
		"1,1704067200,5,,1:00:00,1:00:00\n"
		"2,1704067200,1,nope,1:00:00,1:00:00\n"
		"3,1704067200,1,,2-00:00:00,1:00:00\n"
		"4,1704067200,1,,1:00:00,1:00:00\n";
	struct sim_options o = { .policy = SIM_POLICY_EASY };
	struct run x;
	struct fw_err e;

	ck_assert_int_eq(run_case(&x, primer_conf, NULL, jobs, &o, &e), 0);
	ck_assert_int_eq(job(&x, 1)->state, SIM_JOB_REJECTED);
	ck_assert_str_eq(job(&x, 1)->reason, "more nodes than the partition has");
	ck_assert_int_eq(job(&x, 2)->state, SIM_JOB_REJECTED);
	ck_assert_str_eq(job(&x, 2)->reason, "unknown partition");
	ck_assert_int_eq(job(&x, 3)->state, SIM_JOB_REJECTED);
	ck_assert_str_eq(job(&x, 3)->reason, "time limit exceeds the partition's MaxTime");
	ck_assert_int_eq(job(&x, 4)->state, SIM_JOB_DONE);
	ck_assert_uint_eq(x.m.rejected, 3);
	run_free(&x);
}
END_TEST

/* ----------------------------------------------------- jack and jill */

/*
 * The primer's fair-share example: jack owns one node of four, jill three;
 * P = S - U with daily usage windows (decay 0.7, seven windows), U = used
 * node-hours / 96 node-hours a day.  Both submit six jobs at once, each
 * asking for all four nodes for six hours.
 *
 *   0h:  P(jack) = 0.25 - 0     = 0.25   P(jill) = 0.75 - 0     = 0.75  -> jill
 *   6h:  P(jill) = 0.75 - 24/96 = 0.50                                    -> jill
 *  12h:  P(jill) = 0.75 - 48/96 = 0.25 = P(jack): tie, higher share wins -> jill
 *  18h:  P(jill) = 0.75 - 72/96 = 0                                       -> jack
 *
 * Weights: PriorityWeightFairshare=1000000 makes P worth 10^6 points per
 * unit; the tie-break is a credential priority proportional to the share
 * (Account=jill Priority=3, jack 1; weight 1), three or one point, far
 * below any fair-share difference the example produces (0.25 * 10^6).
 */
static const char jj_slurm[] =
	"NodeName=pi[1-4] CPUs=1\n"
	"PartitionName=pis Nodes=pi[1-4] Default=YES MaxTime=1-0\n"
	"PriorityWeightFairshare=1000000\n"
	"PriorityCalcPeriod=5\n"
	"SchedulerParameters=bf_interval=30\n";

static const char jj_fairway[] =
	"FairShareFormula=share_minus_usage\n"
	"FairShareDecay=window\n"
	"FairShareWindow=1d\n"
	"FairShareWindowCount=7\n"
	"FairShareWindowFactor=0.7\n"
	"Account=jack Parent=root Shares=1 Priority=1\n"
	"Account=jill Parent=root Shares=3 Priority=3\n"
	"User=jack Account=jack Shares=1\n"
	"User=jill Account=jill Shares=1\n";

START_TEST(jack_and_jill)
{
	struct fw_buf csv = { 0 };
	struct sim_options o = { .policy = SIM_POLICY_FAIRWAY };
	struct run x;
	struct fw_err e;
	char buf[512];

	fw_buf_printf(&csv, "id,submit,user,account,nodes,time_limit,run_time\n");
	/* jack's jobs 1-6 are submitted before jill's 7-12 (same second), so
	   submit order alone would favour jack. */
	for (int i = 1; i <= 12; i++)
		fw_buf_printf(&csv, "%d,1704067200,%s,%s,4,6:00:00,6:00:00\n", i,
			       i <= 6 ? "jack" : "jill", i <= 6 ? "jack" : "jill");
	if (run_case(&x, jj_slurm, jj_fairway, csv.s, &o, &e))
		ck_abort_msg("%s", fw_err_str(&e, buf, sizeof(buf)));
	const char *who[4];
	for (int slot = 0; slot < 4; slot++) {
		who[slot] = NULL;
		for (size_t i = 0; i < x.r.n; i++)
			if (x.r.job[i].start == T0 + slot * 6 * H)
				who[slot] = x.r.job[i].user;
		ck_assert_ptr_nonnull(who[slot]);
	}
	ck_assert_str_eq(who[0], "jill");
	ck_assert_str_eq(who[1], "jill");
	ck_assert_str_eq(who[2], "jill");
	ck_assert_str_eq(who[3], "jack");
	/* The sprio columns at start add up to the priority the scheduler
	   used (the credential tie-break lands in the site column). */
	for (size_t i = 0; i < x.r.n; i++) {
		const struct sim_outjob *j = &x.r.job[i];
		const struct sim_prio_cols *c = &j->cols;
		int64_t sum = c->age + c->assoc + c->fairshare + c->jobsize +
			      c->partition + c->qos + c->tres + c->site - c->nice;
		ck_assert_int_eq(sum, j->priority);
	}
	/* jill's first job: P = 0.75 * 10^6 plus credential 3 */
	ck_assert_uint_eq(job(&x, 7)->priority, 750003);
	run_free(&x);
	fw_buf_free(&csv);
}
END_TEST

/* ------------------------------------------------------------ explain */

START_TEST(explain_names_the_blocker)
{
	static const char jobs[] =
		"id,submit,nodes,time_limit,run_time\n"
		"1,1704067200,3,2:00:00,2:00:00\n"
		"2,1704067200,4,1:00:00,1:00:00\n";
	struct sim_options o = { .policy = SIM_POLICY_EASY, .explain = true,
				 .explain_job = 2, .explain_at = T0 + H };
	struct run x;
	struct fw_err e;
	char *text = NULL;
	size_t len = 0;

	o.explain_out = open_memstream(&text, &len);
	ck_assert_int_eq(run_case(&x, primer_conf, NULL, jobs, &o, &e), 0);
	fclose(o.explain_out);
	/* At 1h job 1 holds three nodes until 2h: job 2 is planned at 2h on
	   all four nodes. */
	ck_assert_msg(strstr(text, "== job 2 at 2024-01-01T01:00:00"), "%s", text);
	ck_assert_msg(strstr(text, "planned start 2024-01-01T02:00:00 on node[1-4]"), "%s", text);
	ck_assert_msg(strstr(text, "why not running:"), "%s", text);
	/* the explanation did not change the run */
	ck_assert_int_eq(job(&x, 2)->start, T0 + 2 * H);
	free(text);
	run_free(&x);
}
END_TEST

/* Configuration errors name the file, line, key and value. */
START_TEST(config_errors_are_located)
{
	struct sim_options o = { .policy = SIM_POLICY_FAIRWAY };
	struct run x;
	struct fw_err e;
	char conf[512];

	snprintf(conf, sizeof(conf), "%sPriorityWeightAge=lots\n", primer_conf);
	ck_assert_int_eq(run_case(&x, conf, NULL, primer_jobs, &o, &e), -1);
	ck_assert_str_eq(e.file, "slurm.conf");
	ck_assert_int_eq(e.line, 3);
	ck_assert_str_eq(e.key, "PriorityWeightAge");
	ck_assert_str_eq(e.value, "lots");
	run_free(&x);
	ck_assert_int_eq(run_case(&x, primer_conf, "\nNoSuchKey=1\n", primer_jobs,
				  &o, &e), -1);
	ck_assert_str_eq(e.file, "fairway.conf");
	ck_assert_int_eq(e.line, 2);
	ck_assert_str_eq(e.key, "NoSuchKey");
	ck_assert_str_eq(e.value, "1");
	ck_assert_msg(strstr(e.msg, "unknown"), "%s", e.msg);
	run_free(&x);
}
END_TEST


/* A job without an account runs under the user's first association. */
START_TEST(default_account_from_the_tree)
{
	static const char fw[] =
		"Account=chem Parent=root Shares=1\n"
		"Account=bio Parent=root Shares=1\n"
		"User=ann Account=bio Shares=1\n"
		"User=ann Account=chem Shares=1\n";
	static const char jobs[] =
		"id,submit,user,nodes,time_limit,run_time\n"
		"1,1704067200,ann,1,1:00:00,1:00:00\n"
		"2,1704067200,zed,1,1:00:00,1:00:00\n";
	struct sim_options o = { .policy = SIM_POLICY_EASY };
	struct run x;
	struct fw_err e;

	ck_assert_int_eq(run_case(&x, primer_conf, fw, jobs, &o, &e), 0);
	ck_assert_str_eq(job(&x, 1)->account, "bio");
	ck_assert_ptr_null(job(&x, 2)->account); /* unknown user: none */
	/* ann's hour on one node of 4 CPUs is bio's usage: 4 * 3600 */
	for (size_t i = 0; i < x.r.nshares; i++)
		if (!strcmp(x.r.share[i].account, "bio"))
			ck_assert_double_eq_tol(x.r.share[i].usage, 4 * 3600.0, 1e-9);
	run_free(&x);
}
END_TEST

/*
 * SWF dependencies: job 2 follows job 1 (field 17) after 100 s of think
 * time (field 18): submitted at 1's end (0 + 50) + 100 = 150.
 */
START_TEST(swf_dependencies)
{
	static const char swf[] =
		"; UnixStartTime: 1704067200\n"
		"1 0 -1 50 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 10 -1 20 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 1 100\n";
	struct sim_options o = { .policy = SIM_POLICY_EASY,
				 .swf_dependencies = true };
	struct sim_read_opts ro = { .cpus_per_node = 4 };
	struct run x;
	struct fw_err e;

	memset(&x, 0, sizeof(x));
	sim_cluster_init(&x.c);
	sim_assocs_init(&x.a);
	sim_trace_init(&x.t);
	ck_assert_int_eq(sim_read_slurm_conf_mem(&x.c, "s", primer_conf,
						 strlen(primer_conf), &e), 0);
	ck_assert_int_eq(sim_cluster_finish(&x.c, &e), 0);
	ck_assert_int_eq(sim_read_swf_mem(&x.t, "w.swf", swf, strlen(swf), &ro, &e), 0);
	x.k = sim_core_new(&x.c, NULL, o.policy, &e);
	ck_assert_ptr_nonnull(x.k);
	ck_assert_int_eq(sim_core_finish(x.k, &e), 0);
	ck_assert_int_eq(sim_run(&x.t, &x.c, x.k, &o, &x.r, &e), 0);
	ck_assert_int_eq(job(&x, 1)->end, T0 + 50);
	ck_assert_int_eq(job(&x, 2)->submit, T0 + 150);
	ck_assert_int_eq(job(&x, 2)->start, T0 + 150);
	run_free(&x);
	/* without the option job 2 starts at its own submit time, 10 s */
	o.swf_dependencies = false;
	sim_cluster_init(&x.c);
	sim_assocs_init(&x.a);
	sim_trace_init(&x.t);
	sim_read_slurm_conf_mem(&x.c, "s", primer_conf, strlen(primer_conf), &e);
	sim_cluster_finish(&x.c, &e);
	sim_read_swf_mem(&x.t, "w.swf", swf, strlen(swf), &ro, &e);
	x.k = sim_core_new(&x.c, NULL, o.policy, &e);
	sim_core_finish(x.k, &e);
	ck_assert_int_eq(sim_run(&x.t, &x.c, x.k, &o, &x.r, &e), 0);
	ck_assert_int_eq(job(&x, 2)->start, T0 + 10);
	run_free(&x);
}
END_TEST

/* ------------------------------------------------------ shared nodes */

/*
 * Two 4-CPU nodes with 8,000 MB each.  On a cluster that shares nodes
 * (SelectType=select/cons_tres, Slurm's default) jobs are packed by CPUs
 * and memory; with select/linear each job takes whole nodes.
 */
static const char shared_conf[] =
	"NodeName=n[1-2] CPUs=4 RealMemory=8000\n"
	"PartitionName=p Nodes=n[1-2] Default=YES MaxTime=1-0\n";
static const char linear_conf[] =
	"SelectType=select/linear\n"
	"NodeName=n[1-2] CPUs=4 RealMemory=8000\n"
	"PartitionName=p Nodes=n[1-2] Default=YES MaxTime=1-0\n";

/*
 * Five 2-CPU jobs of one hour at 0.  Shared: two per node, so 1-4 start
 * at 0 and 5 at 1 h.  Whole nodes: one per node, so 1-2 at 0, 3-4 at
 * 1 h, 5 at 2 h.
 */
START_TEST(shared_nodes_pack_by_cpus)
{
	static const char jobs[] =
		"id,submit,cpus,time_limit,run_time\n"
		"1,1704067200,2,1:00:00,1:00:00\n"
		"2,1704067200,2,1:00:00,1:00:00\n"
		"3,1704067200,2,1:00:00,1:00:00\n"
		"4,1704067200,2,1:00:00,1:00:00\n"
		"5,1704067200,2,1:00:00,1:00:00\n";
	static const fw_time_t shared_start[] = { 0, 0, 0, 0, H };
	static const fw_time_t whole_start[] = { 0, 0, H, H, 2 * H };
	struct sim_options o = { .policy = SIM_POLICY_EASY };
	struct run x;
	struct fw_err e;

	ck_assert_int_eq(run_case(&x, shared_conf, NULL, jobs, &o, &e), 0);
	for (uint32_t i = 1; i <= 5; i++)
		ck_assert_int_eq(job(&x, i)->start, T0 + shared_start[i - 1]);
	ck_assert_int_eq(x.m.makespan, 2 * H);
	/* 5 jobs x half a node x 1 h over 2 nodes x 2 h = 2.5 / 4 */
	ck_assert_double_eq_tol(x.m.utilisation, 0.625, 1e-9);
	run_free(&x);
	ck_assert_int_eq(run_case(&x, linear_conf, NULL, jobs, &o, &e), 0);
	for (uint32_t i = 1; i <= 5; i++)
		ck_assert_int_eq(job(&x, i)->start, T0 + whole_start[i - 1]);
	ck_assert_int_eq(x.m.makespan, 3 * H);
	/* 5 whole nodes x 1 h over 2 nodes x 3 h */
	ck_assert_double_eq_tol(x.m.utilisation, 5.0 / 6.0, 1e-9);
	run_free(&x);
}
END_TEST

/*
 * Node Weight (lower first, as Slurm allocates): n1 of weight 10, n2 of
 * weight 1.  Shared: two 2-CPU jobs both go to n2, a third to n1.  Whole
 * nodes (select/linear): the first job gets n2, the second n1.
 */
START_TEST(nodes_in_weight_order)
{
	static const char wshared[] =
		"NodeName=n1 CPUs=4 RealMemory=8000 Weight=10\n"
		"NodeName=n2 CPUs=4 RealMemory=8000 Weight=1\n"
		"PartitionName=p Nodes=n[1-2] Default=YES MaxTime=1-0\n";
	static const char wlinear[] =
		"SelectType=select/linear\n"
		"NodeName=n1 CPUs=4 RealMemory=8000 Weight=10\n"
		"NodeName=n2 CPUs=4 RealMemory=8000 Weight=1\n"
		"PartitionName=p Nodes=n[1-2] Default=YES MaxTime=1-0\n";
	static const char jobs[] =
		"id,submit,cpus,time_limit,run_time\n"
		"1,1704067200,2,1:00:00,1:00:00\n"
		"2,1704067200,2,1:00:00,1:00:00\n"
		"3,1704067200,2,1:00:00,1:00:00\n";
	struct sim_options o = { .policy = SIM_POLICY_EASY };
	struct run x;
	struct fw_err e;

	ck_assert_int_eq(run_case(&x, wshared, NULL, jobs, &o, &e), 0);
	ck_assert_uint_eq(job(&x, 1)->node[0], 1);
	ck_assert_uint_eq(job(&x, 2)->node[0], 1);
	ck_assert_uint_eq(job(&x, 3)->node[0], 0);
	run_free(&x);
	ck_assert_int_eq(run_case(&x, wlinear, NULL, jobs, &o, &e), 0);
	ck_assert_uint_eq(job(&x, 1)->node[0], 1);
	ck_assert_uint_eq(job(&x, 2)->node[0], 0);
	run_free(&x);
}
END_TEST

/*
 * Memory, not CPUs: 1-CPU jobs of 5,000 MB on 8,000 MB nodes run one per
 * node although 3 CPUs stay idle: jobs 1-2 at 0, 3-4 at 1 h.  A 1-CPU job
 * of 2,000 MB (5) fits beside them at 0 on n1.
 */
START_TEST(shared_nodes_memory_bound)
{
	static const char jobs[] =
		"id,submit,cpus,mem,time_limit,run_time\n"
		"1,1704067200,1,5000M,1:00:00,1:00:00\n"
		"2,1704067200,1,5000M,1:00:00,1:00:00\n"
		"3,1704067200,1,5000M,1:00:00,1:00:00\n"
		"4,1704067200,1,5000M,1:00:00,1:00:00\n"
		"5,1704067200,1,2000M,1:00:00,1:00:00\n";
	struct sim_options o = { .policy = SIM_POLICY_EASY };
	struct run x;
	struct fw_err e;

	ck_assert_int_eq(run_case(&x, shared_conf, NULL, jobs, &o, &e), 0);
	ck_assert_int_eq(job(&x, 1)->start, T0);
	ck_assert_int_eq(job(&x, 2)->start, T0);
	ck_assert_int_eq(job(&x, 3)->start, T0 + H);
	ck_assert_int_eq(job(&x, 4)->start, T0 + H);
	ck_assert_int_eq(job(&x, 5)->start, T0);
	ck_assert_uint_eq(job(&x, 5)->node[0], job(&x, 1)->node[0]);
	run_free(&x);
}
END_TEST

/*
 * Random shared workloads under every policy: no node ever runs more CPUs
 * or memory than it has, every job runs exactly its time, and sharing
 * does happen (some node holds two jobs at once).
 */
START_TEST(shared_random_never_oversubscribes)
{
	static const char conf[] =
		"NodeName=n[1-5] CPUs=8 RealMemory=16000\n"
		"PartitionName=p Nodes=n[1-5] Default=YES MaxTime=1-0\n"
		"PriorityWeightAge=1000\nPriorityWeightJobSize=100\n"
		"SchedulerParameters=bf_interval=60\n";
	static const enum sim_policy pol[] = {
		SIM_POLICY_FAIRWAY, SIM_POLICY_FIFO, SIM_POLICY_EASY,
		SIM_POLICY_CONSERVATIVE,
	};
	unsigned seed = 11;
	bool shared_seen = false;
	struct fw_buf csv = { 0 };

	fw_buf_printf(&csv, "id,submit,cpus,mem,time_limit_s,run_time_s\n");
	for (int i = 1; i <= 150; i++) {
		long lim = 60 + rand_r(&seed) % 7200;

		fw_buf_printf(&csv, "%d,%ld,%d,%dM,%ld,%ld\n", i,
			      1704067200L + rand_r(&seed) % 20000,
			      1 + rand_r(&seed) % 12,
			      1000 * (1 + rand_r(&seed) % 12), lim,
			      1 + rand_r(&seed) % (lim + lim / 4));
	}
	for (size_t pi = 0; pi < sizeof(pol) / sizeof(pol[0]); pi++) {
		struct sim_options o = { .policy = pol[pi] };
		struct run x;
		struct fw_err e;
		char buf[512];

		if (run_case(&x, conf, NULL, csv.s, &o, &e))
			ck_abort_msg("%s", fw_err_str(&e, buf, sizeof(buf)));
		ck_assert_uint_eq(x.m.done, 150);
		/* At every job start, add up what runs on each of its nodes. */
		for (size_t a = 0; a < x.r.n; a++) {
			const struct sim_outjob *ja = &x.r.job[a];

			for (uint32_t u = 0; u < ja->nodes; u++) {
				uint64_t cpus = 0, mem = 0, jobs_on = 0;

				for (size_t b = 0; b < x.r.n; b++) {
					const struct sim_outjob *jb = &x.r.job[b];
					const struct sim_job *tb = &x.t.job[b];

					if (jb->start > ja->start || jb->end <= ja->start)
						continue;
					for (uint32_t v = 0; v < jb->nodes; v++)
						if (jb->node[v] == ja->node[u]) {
							cpus += (tb->cpus + jb->nodes - 1) / jb->nodes;
							mem += (tb->mem_mb + jb->nodes - 1) / jb->nodes;
							jobs_on++;
						}
				}
				ck_assert_msg(cpus <= 8 && mem <= 16000,
					      "policy %s: node %u at job %u: %lu CPUs %lu MB",
					      sim_policy_name(pol[pi]), ja->node[u], ja->id,
					      (unsigned long)cpus, (unsigned long)mem);
				shared_seen = shared_seen || jobs_on > 1;
			}
		}
		run_free(&x);
	}
	ck_assert(shared_seen);
	fw_buf_free(&csv);
}
END_TEST

/* ------------------------------------------------------- preemption */

/*
 * Two 4-CPU nodes shared by a scavenger partition (PriorityTier=1) and an
 * owner partition (PriorityTier=10) over the same nodes; Slurm's
 * preempt/partition_prio lets owner jobs preempt scavenger jobs.
 */
#define PREEMPT_PART_CONF(scav_extra, global_extra)                          \
	"PreemptType=preempt/partition_prio\n"                               \
	"PreemptMode=REQUEUE\n" global_extra                                 \
	"NodeName=n[1-2] CPUs=4 RealMemory=8000\n"                           \
	"PartitionName=scav Nodes=n[1-2] Default=YES MaxTime=1-0 "           \
	"PriorityTier=1" scav_extra "\n"                                     \
	"PartitionName=owner Nodes=n[1-2] MaxTime=1-0 PriorityTier=10\n"

/*
 * Four 2-CPU scavenger jobs of 10 h submitted 10 s apart fill both nodes
 * (1 and 2 on n1, 3 and 4 on n2, each at its submit time); a 4-CPU owner
 * job of 1 h arrives at 1 h.
 */
static const char scav_jobs[] =
	"id,submit,partition,cpus,time_limit_s,run_time_s\n"
	"1,1704067200,scav,2,43200,36000\n"
	"2,1704067210,scav,2,43200,36000\n"
	"3,1704067220,scav,2,43200,36000\n"
	"4,1704067230,scav,2,43200,36000\n"
	"5,1704070800,owner,4,3600,3600\n";

static void run_or_abort(struct run *x, const char *conf, const char *dump,
			 const char *csv)
{
	struct sim_options o = { .policy = SIM_POLICY_FAIRWAY };
	struct fw_err e;
	char buf[512];

	if (run_case_full(x, conf, NULL, dump, csv, &o, &e))
		ck_abort_msg("%s", fw_err_str(&e, buf, sizeof(buf)));
}

/*
 * The owner job needs a whole node: each node needs both its jobs
 * preempted; Slurm's rank is the youngest first (4, 3, 2, 1), so n2,
 * whose worst victim (3) ranks before n1's (1), is chosen: 4 and 3 are
 * requeued at 1 h and 5 starts at once on n2.  Work lost: 2 CPUs x
 * (3600 - 20) + 2 x (3600 - 30) = 7160 + 7140.  Requeued, 3 and 4 are
 * held until 1 h + 121 s (Slurm's requeue hold) and then wait for 5 to
 * end at 2 h: they run 2 h - 12 h.
 */
START_TEST(preempt_requeue_youngest)
{
	struct run x;

	run_or_abort(&x, PREEMPT_PART_CONF("", ""), NULL, scav_jobs);
	ck_assert_int_eq(job(&x, 5)->start, T0 + H);
	ck_assert_uint_eq(job(&x, 5)->node[0], 1);
	ck_assert_uint_eq(job(&x, 1)->preempted, 0);
	ck_assert_uint_eq(job(&x, 2)->preempted, 0);
	ck_assert_uint_eq(job(&x, 3)->preempted, 1);
	ck_assert_uint_eq(job(&x, 4)->preempted, 1);
	ck_assert_double_eq_tol(job(&x, 3)->work_lost, 7160, 1e-9);
	ck_assert_double_eq_tol(job(&x, 4)->work_lost, 7140, 1e-9);
	ck_assert_uint_eq(x.m.preemptions, 2);
	ck_assert_double_eq_tol(x.m.work_lost, 14300, 1e-9);
	ck_assert_uint_eq(x.m.cancelled, 0);
	ck_assert_uint_eq(x.m.done, 5);
	for (uint32_t id = 3; id <= 4; id++) {
		ck_assert_int_eq(job(&x, id)->start, T0 + 2 * H);
		ck_assert_int_eq(job(&x, id)->end, T0 + 12 * H);
		ck_assert_int_eq(job(&x, id)->state, SIM_JOB_DONE);
	}
	ck_assert_int_eq(job(&x, 1)->end, T0 + 10 * H);
	/* the preempted runs: 20 s / 30 s to 1 h on n2 */
	ck_assert_uint_eq(x.r.nprun, 2);
	for (size_t i = 0; i < x.r.nprun; i++) {
		ck_assert_int_eq(x.r.prun[i].end, T0 + H);
		ck_assert_uint_eq(x.r.prun[i].node[0], 1);
	}
	run_free(&x);
}
END_TEST

/*
 * The requeue hold: a 4-CPU owner job of 60 s arrives at 1 h and preempts
 * the youngest scavenger job (2, on n2).  Slurm's batch_requeue_fini()
 * holds a requeued job until the credential lifetime (120 s by default)
 * plus one second have passed: 2 starts again at 1 h + 121 s on n2, which
 * the owner job left at 1 h + 60 s, and runs its 10 h again.
 */
static const char hold_jobs[] =
	"id,submit,partition,cpus,time_limit_s,run_time_s\n"
	"1,1704067200,scav,4,43200,36000\n"
	"2,1704067210,scav,4,43200,36000\n"
	"3,1704070800,owner,4,3600,60\n";

START_TEST(preempt_requeue_hold)
{
	struct run x;

	run_or_abort(&x, PREEMPT_PART_CONF("", ""), NULL, hold_jobs);
	ck_assert_int_eq(job(&x, 3)->start, T0 + H);
	ck_assert_uint_eq(job(&x, 3)->node[0], 1);
	ck_assert_uint_eq(job(&x, 2)->preempted, 1);
	ck_assert_int_eq(job(&x, 2)->start, T0 + H + 121);
	ck_assert_int_eq(job(&x, 2)->end, T0 + H + 121 + 10 * H);
	run_free(&x);
}
END_TEST

/*
 * select/linear: every job holds whole nodes.  Two 1-CPU scavenger jobs
 * of 10 h (submitted 10 s apart) hold n1 and n2 whole; a 1-CPU owner job
 * of 1 h arrives at 1 h.  It needs a whole node, so it preempts the
 * youngest victim (2, on n2) and starts at once there.  Work lost: the
 * 4 CPUs of n2 (select/linear allocates them all) x (3600 - 10) s.
 * Requeued, 2 is held until 1 h + 121 s and then waits for 3 to end at
 * 2 h: it runs 2 h - 12 h.  On select/cons_tres the owner job fits beside
 * job 1 and preempts nobody.
 */
static const char linear_jobs[] =
	"id,submit,partition,cpus,time_limit_s,run_time_s\n"
	"1,1704067200,scav,1,43200,36000\n"
	"2,1704067210,scav,1,43200,36000\n"
	"3,1704070800,owner,1,3600,3600\n";

START_TEST(preempt_linear_whole_nodes)
{
	struct run x;

	run_or_abort(&x, PREEMPT_PART_CONF("", "SelectType=select/linear\n"),
		     NULL, linear_jobs);
	ck_assert_int_eq(job(&x, 1)->start, T0);
	ck_assert_uint_eq(job(&x, 1)->node[0], 0);
	ck_assert_uint_eq(job(&x, 2)->node[0], 1);
	ck_assert_int_eq(job(&x, 3)->start, T0 + H);
	ck_assert_uint_eq(job(&x, 3)->node[0], 1);
	ck_assert_uint_eq(job(&x, 1)->preempted, 0);
	ck_assert_uint_eq(job(&x, 2)->preempted, 1);
	ck_assert_uint_eq(x.m.preemptions, 1);
	ck_assert_double_eq_tol(job(&x, 2)->work_lost, 4.0 * 3590, 1e-9);
	ck_assert_int_eq(job(&x, 2)->start, T0 + 2 * H);
	ck_assert_int_eq(job(&x, 2)->end, T0 + 12 * H);
	ck_assert_int_eq(job(&x, 1)->end, T0 + 10 * H);
	ck_assert_uint_eq(x.m.done, 3);
	run_free(&x);

	run_or_abort(&x, PREEMPT_PART_CONF("", ""), NULL, linear_jobs);
	ck_assert_int_eq(job(&x, 3)->start, T0 + H);
	ck_assert_uint_eq(x.m.preemptions, 0);
	run_free(&x);
}
END_TEST

/*
 * GraceTime=300 on the scavenger partition: the victims run on until
 * 1 h 5 min (a whole bf_resolution slot: no rounding), the owner job
 * starts then; the runs lost are 300 s longer: 2 x 3880 + 2 x 3870.
 * Requeued at 1 h 5 min, 3 and 4 start when 5 ends at 2 h 5 min.
 */
START_TEST(preempt_grace_delays_the_start)
{
	struct run x;

	run_or_abort(&x, PREEMPT_PART_CONF(" GraceTime=300", ""), NULL,
		     scav_jobs);
	ck_assert_int_eq(job(&x, 5)->start, T0 + H + 300);
	ck_assert_uint_eq(job(&x, 3)->preempted, 1);
	ck_assert_uint_eq(job(&x, 4)->preempted, 1);
	ck_assert_double_eq_tol(x.m.work_lost, 2.0 * 3880 + 2.0 * 3870, 1e-9);
	ck_assert_int_eq(job(&x, 3)->start, T0 + 2 * H + 300);
	run_free(&x);
}
END_TEST

/*
 * A victim is planned again in the backfill pass that preempts it.  A
 * third partition, low (PriorityTier=0, not preemptable), and
 * GraceTime=300 on scav, so that the preemption is a backfill pass's (a
 * main pass does not preempt for a start after a grace time).  1 (scav,
 * 4 CPUs, 10 h) runs on n1 from 0; 2 (owner, 2 CPUs, 1 h 30 min) on n2
 * from 10 s to 1 h 30 min 10 s.  At 1 h come 5 (owner, 4 CPUs, 1 h) and
 * 6 (low, 2 CPUs, 2 h).  The backfill pass reserves 5 on n1 at 1 h 5 min,
 * signalling 1 (gone after its grace, 4 x 3900 CPU-s lost).  1, requeued
 * then and held until 1 h 7 min 1 s, joins the pass before 6 (tier 1
 * before tier 0): n1 is 5's until 2 h 5 min, n2 has its 4 CPUs from
 * 1 h 30 min 10 s: reserved there.  6 would fit on n2's 2 free CPUs at
 * once, but until 3 h: that delays 1, so 6 waits for n1 at 2 h 5 min.
 * 1 starts again on n2 when 2 ends.  (Planned only from the next pass on,
 * as before, 6 started at 1 h on n2, and 1 waited for n1 until 2 h 5 min.)
 */
START_TEST(preempt_victim_planned_in_the_same_pass)
{
	static const char conf[] =
		"PreemptType=preempt/partition_prio\n"
		"PreemptMode=REQUEUE\n"
		"NodeName=n[1-2] CPUs=4 RealMemory=8000\n"
		"PartitionName=scav Nodes=n[1-2] Default=YES MaxTime=1-0 "
		"PriorityTier=1 GraceTime=300\n"
		"PartitionName=owner Nodes=n[1-2] MaxTime=1-0 PriorityTier=10\n"
		"PartitionName=low Nodes=n[1-2] MaxTime=1-0 PriorityTier=0 "
		"PreemptMode=OFF\n";
	static const char jobs[] =
		"id,submit,partition,cpus,time_limit_s,run_time_s\n"
		"1,1704067200,scav,4,43200,36000\n"
		"2,1704067210,owner,2,5400,5400\n"
		"5,1704070800,owner,4,3600,3600\n"
		"6,1704070800,low,2,7200,7200\n";
	struct run x;

	run_or_abort(&x, conf, NULL, jobs);
	ck_assert_int_eq(job(&x, 5)->start, T0 + H + 300);
	ck_assert_uint_eq(job(&x, 5)->node[0], 0);
	ck_assert_uint_eq(job(&x, 1)->preempted, 1);
	ck_assert_double_eq_tol(job(&x, 1)->work_lost, 4.0 * 3900, 1e-9);
	ck_assert_int_eq(job(&x, 1)->start, T0 + 5410);
	ck_assert_uint_eq(job(&x, 1)->node[0], 1);
	ck_assert_int_eq(job(&x, 6)->start, T0 + 2 * H + 300);
	ck_assert_uint_eq(job(&x, 6)->node[0], 0);
	run_free(&x);
}
END_TEST

/*
 * PreemptExemptTime=00:10:00: two 4-CPU scavenger jobs, 1 at 0 (n1) and
 * 2 at 55 min (n2).  At 1 h the youngest (2) would be preempted, but it
 * is exempt until 1 h 5 min: 1 is preempted instead and 5 runs on n1.
 * Without the exemption 2 is the victim (the test can tell them apart).
 */
START_TEST(preempt_exempt_time_protects_young_jobs)
{
	static const char jobs[] =
		"id,submit,partition,cpus,time_limit_s,run_time_s\n"
		"1,1704067200,scav,4,43200,36000\n"
		"2,1704070500,scav,4,43200,36000\n"
		"5,1704070800,owner,4,3600,3600\n";
	struct run x;

	run_or_abort(&x, PREEMPT_PART_CONF("", "PreemptExemptTime=00:10:00\n"),
		     NULL, jobs);
	ck_assert_int_eq(job(&x, 5)->start, T0 + H);
	ck_assert_uint_eq(job(&x, 5)->node[0], 0);
	ck_assert_uint_eq(job(&x, 1)->preempted, 1);
	ck_assert_uint_eq(job(&x, 2)->preempted, 0);
	ck_assert_double_eq_tol(x.m.work_lost, 4.0 * 3600, 1e-9);
	run_free(&x);
	run_or_abort(&x, PREEMPT_PART_CONF("", ""), NULL, jobs);
	ck_assert_int_eq(job(&x, 5)->start, T0 + H);
	ck_assert_uint_eq(job(&x, 5)->node[0], 1);
	ck_assert_uint_eq(job(&x, 1)->preempted, 0);
	ck_assert_uint_eq(job(&x, 2)->preempted, 1);
	ck_assert_double_eq_tol(x.m.work_lost, 4.0 * 300, 1e-9);
	run_free(&x);
}
END_TEST

/* preempt/qos: owner's QOS may preempt scavenger, whose PreemptMode is
 * CANCEL (the global mode is REQUEUE); normal preempts nobody. */
static const char qos_conf[] =
	"PreemptType=preempt/qos\n"
	"PreemptMode=REQUEUE\n"
	"NodeName=n[1-2] CPUs=4 RealMemory=8000\n"
	"PartitionName=all Nodes=n[1-2] Default=YES MaxTime=1-0\n";
static const char qos_dump[] =
	"Cluster - 'c':Fairshare=1\n"
	"QOS - 'normal':Priority=0\n"
	"QOS - 'scavenger':Priority=0:PreemptMode=CANCEL\n"
	"QOS - 'owner':Priority=100:Preempt='scavenger'\n";

/*
 * The scenario of preempt_requeue_youngest with QOS: 3 and 4 are
 * cancelled at 1 h (state cancelled, end 1 h, never rerun), 5 starts at
 * 1 h.  A job of QOS normal in 5's place preempts nobody: it waits for
 * n1 to empty at 10 h 10 s (job 2's end).  Nor does a job whose QOS lists
 * itself.
 */
START_TEST(preempt_qos_cancel_and_non_preempting_qos)
{
	static const char jobs[] =
		"id,submit,qos,cpus,time_limit_s,run_time_s\n"
		"1,1704067200,scavenger,2,43200,36000\n"
		"2,1704067210,scavenger,2,43200,36000\n"
		"3,1704067220,scavenger,2,43200,36000\n"
		"4,1704067230,scavenger,2,43200,36000\n"
		"5,1704070800,%s,4,3600,3600\n";
	char csv[512];
	struct run x;

	snprintf(csv, sizeof(csv), jobs, "owner");
	run_or_abort(&x, qos_conf, qos_dump, csv);
	ck_assert_int_eq(job(&x, 5)->start, T0 + H);
	for (uint32_t id = 3; id <= 4; id++) {
		ck_assert_int_eq(job(&x, id)->state, SIM_JOB_CANCELLED);
		ck_assert_int_eq(job(&x, id)->end, T0 + H);
		ck_assert_uint_eq(job(&x, id)->preempted, 1);
	}
	ck_assert_uint_eq(x.m.cancelled, 2);
	ck_assert_uint_eq(x.m.done, 3);
	ck_assert_double_eq_tol(x.m.work_lost, 14300, 1e-9);
	run_free(&x);

	snprintf(csv, sizeof(csv), jobs, "normal");
	run_or_abort(&x, qos_conf, qos_dump, csv);
	ck_assert_int_eq(job(&x, 5)->start, T0 + 10 * H + 10);
	ck_assert_uint_eq(x.m.preemptions, 0);
	ck_assert_uint_eq(x.m.cancelled, 0);
	run_free(&x);

	/* A QOS listing itself does not preempt its own jobs (Slurm needs
	   PreemptMode=WITHIN for that): a scavenger job in 5's place waits
	   like the normal one. */
	snprintf(csv, sizeof(csv), jobs, "scavenger");
	run_or_abort(&x, qos_conf,
		     "Cluster - 'c':Fairshare=1\n"
		     "QOS - 'scavenger':Priority=0:Preempt='scavenger'\n", csv);
	ck_assert_int_eq(job(&x, 5)->start, T0 + 10 * H + 10);
	ck_assert_uint_eq(x.m.preemptions, 0);
	run_free(&x);
}
END_TEST

/* Configuration errors name file, line, key and value. */
START_TEST(preempt_config_errors)
{
	static const struct {
		const char *conf, *dump, *key;
		int line;
	} bad[] = {
		/* Slurm refuses PreemptType without a PreemptMode */
		{ "PreemptType=preempt/qos\nNodeName=n1 CPUs=1\n"
		  "PartitionName=p Nodes=n1\n", NULL, "PreemptType", 1 },
		{ "PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG\n"
		  "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n", NULL,
		  "PreemptMode", 2 },
		{ "PreemptType=preempt/fancy\nPreemptMode=REQUEUE\n"
		  "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n", NULL,
		  "PreemptType", 1 },
		/* a Preempt= list naming a QOS the dump lacks */
		{ qos_conf, "QOS - 'a':Priority=1\nQOS - 'b':Preempt='a,zz'\n",
		  "Preempt", 2 },
	};
	static const char csv[] = "id,submit,cpus,time_limit_s,run_time_s\n"
				  "1,1704067200,1,60,60\n";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sim_options o = { .policy = SIM_POLICY_FAIRWAY };
		struct run x;
		struct fw_err e;

		ck_assert_int_eq(run_case_full(&x, bad[i].conf, NULL, bad[i].dump,
					       csv, &o, &e), -1);
		ck_assert_str_eq(e.key, bad[i].key);
		ck_assert_int_eq(e.line, bad[i].line);
		run_free(&x);
	}
}
END_TEST

/* CPUs and memory of one run on each of its nodes. */
struct occ_run {
	fw_time_t start, end;
	const uint32_t *node;
	uint32_t nodes;
	uint64_t cpus, mem;
};

/* Every run of x (the final ones and the preempted ones); with whole,
 * each run holds all of its nodes' 8 CPUs and 16 GB (select/linear). */
static size_t occ_runs(const struct run *x, struct occ_run *o, bool whole)
{
	size_t n = 0;

	for (size_t i = 0; i < x->r.n; i++) {
		const struct sim_outjob *j = &x->r.job[i];
		const struct sim_job *t = &x->t.job[i];

		if (j->start < 0 || !j->node)
			continue;
		o[n++] = (struct occ_run){ j->start, j->end, j->node, j->nodes,
			(t->cpus + j->nodes - 1) / j->nodes,
			(t->mem_mb + j->nodes - 1) / j->nodes };
	}
	for (size_t i = 0; i < x->r.nprun; i++) {
		const struct sim_prun *p = &x->r.prun[i];
		const struct sim_job *t = &x->t.job[p->job];

		o[n++] = (struct occ_run){ p->start, p->end, p->node, p->nodes,
			(t->cpus + p->nodes - 1) / p->nodes,
			(t->mem_mb + p->nodes - 1) / p->nodes };
	}
	for (size_t i = 0; whole && i < n; i++) {
		o[i].cpus = 8;
		o[i].mem = 16000;
	}
	return n;
}

/* At every run's start, no node of it holds more than 8 CPUs / 16 GB. */
static void check_no_oversubscription(const struct run *x, bool whole)
{
	struct occ_run *o = fw_xcalloc(x->r.n + x->r.nprun + 1, sizeof(*o));
	size_t n = occ_runs(x, o, whole);

	for (size_t a = 0; a < n; a++)
		for (uint32_t u = 0; u < o[a].nodes; u++) {
			uint64_t cpus = 0, mem = 0;

			for (size_t b = 0; b < n; b++) {
				if (o[b].start > o[a].start || o[b].end <= o[a].start)
					continue;
				for (uint32_t v = 0; v < o[b].nodes; v++)
					if (o[b].node[v] == o[a].node[u]) {
						cpus += o[b].cpus;
						mem += o[b].mem;
					}
			}
			ck_assert_msg(cpus <= 8 && mem <= 16000,
				      "node %u at %lld: %lu CPUs %lu MB",
				      o[a].node[u], (long long)o[a].start,
				      (unsigned long)cpus, (unsigned long)mem);
		}
	free(o);
}

/*
 * Random shared workloads of scavenger and owner jobs with preemption
 * (REQUEUE, grace time, exempt time) under the backfill policies: no
 * node is ever oversubscribed counting preempted runs until they end,
 * only scavenger jobs are preempted, each preempted run was cut short
 * and not while exempt, every job ends, and preemption does happen.
 */
START_TEST(preempt_random_never_oversubscribes)
{
	/* GraceTime 0 (victims go at once, the job starts now) and 120 s
	   (the job is reserved until they are gone). */
#define RANDOM_CONF(grace, select)                                          \
		select                                                       \
		"PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n"  \
		"PreemptExemptTime=5\n"                                      \
		"NodeName=n[1-5] CPUs=8 RealMemory=16000\n"                  \
		"PartitionName=scav Nodes=n[1-5] Default=YES MaxTime=1-0 "   \
		"PriorityTier=1 GraceTime=" #grace "\n"                      \
		"PartitionName=owner Nodes=n[1-5] MaxTime=1-0 PriorityTier=10\n" \
		"PriorityWeightAge=1000\nPriorityWeightJobSize=100\n"
	/* ... on shared nodes and on select/linear (whole nodes) */
	static const char *const conf[] = {
		RANDOM_CONF(0, ""), RANDOM_CONF(120, ""),
		RANDOM_CONF(0, "SelectType=select/linear\n"),
		RANDOM_CONF(120, "SelectType=select/linear\n"),
	};
	static const int64_t grace[] = { 0, 120, 0, 120 };
	static const enum sim_policy pol[] = {
		SIM_POLICY_FAIRWAY, SIM_POLICY_FIFO, SIM_POLICY_EASY,
		SIM_POLICY_CONSERVATIVE,
	};
	unsigned seed = 23;
	uint64_t preempted[4] = { 0, 0, 0, 0 };
	struct fw_buf csv = { 0 };

	fw_buf_printf(&csv, "id,submit,partition,cpus,mem,time_limit_s,run_time_s\n");
	for (int i = 1; i <= 150; i++) {
		long lim = 60 + rand_r(&seed) % 7200;
		bool owner = rand_r(&seed) % 5 < 2;

		fw_buf_printf(&csv, "%d,%ld,%s,%d,%dM,%ld,%ld\n", i,
			      1704067200L + rand_r(&seed) % 20000,
			      owner ? "owner" : "scav",
			      1 + rand_r(&seed) % 8,
			      1000 * (1 + rand_r(&seed) % 12), lim,
			      1 + rand_r(&seed) % lim);
	}
	for (size_t ci = 0; ci < 4; ci++)
	for (size_t pi = 0; pi < sizeof(pol) / sizeof(pol[0]); pi++) {
		struct sim_options o = { .policy = pol[pi] };
		struct run x;
		struct fw_err e;
		char buf[512];

		if (run_case(&x, conf[ci], NULL, csv.s, &o, &e))
			ck_abort_msg("%s", fw_err_str(&e, buf, sizeof(buf)));
		ck_assert_uint_eq(x.m.done, 150);
		check_no_oversubscription(&x, ci >= 2);
		for (size_t i = 0; i < x.r.nprun; i++) {
			const struct sim_prun *p = &x.r.prun[i];

			ck_assert_str_eq(x.r.job[p->job].partition, "scav");
			ck_assert_int_lt(p->end - p->start, x.t.job[p->job].run_time);
			/* exempt for 5 min after its start, then its grace */
			ck_assert_int_ge(p->end - p->start, 300 + grace[ci]);
		}
		preempted[ci] += x.r.nprun;
		ck_assert_uint_eq(x.m.preemptions, x.r.nprun);
		run_free(&x);
	}
	for (size_t ci = 0; ci < 4; ci++)
		ck_assert_uint_gt(preempted[ci], 0);
	fw_buf_free(&csv);
#undef RANDOM_CONF
}
END_TEST

static Suite *run_suite(void)
{
	Suite *s = suite_create("sim_run");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, primer_serial_takes_9h);
	tcase_add_test(tc, primer_easy_takes_7h);
	tcase_add_test(tc, primer_conservative_takes_7h);
	tcase_add_test(tc, primer_fifo_takes_7h_too);
	tcase_add_test(tc, backfill_uses_the_hole);
	tcase_add_test(tc, easy_and_conservative_differ);
	tcase_add_test(tc, random_workloads_keep_invariants);
	tcase_add_test(tc, killed_at_time_limit);
	tcase_add_test(tc, impossible_jobs_are_rejected);
	tcase_add_test(tc, jack_and_jill);
	tcase_add_test(tc, explain_names_the_blocker);
	tcase_add_test(tc, config_errors_are_located);
	tcase_add_test(tc, default_account_from_the_tree);
	tcase_add_test(tc, swf_dependencies);
	tcase_add_test(tc, shared_nodes_pack_by_cpus);
	tcase_add_test(tc, nodes_in_weight_order);
	tcase_add_test(tc, shared_nodes_memory_bound);
	tcase_add_test(tc, shared_random_never_oversubscribes);
	tcase_add_test(tc, preempt_requeue_youngest);
	tcase_add_test(tc, preempt_requeue_hold);
	tcase_add_test(tc, preempt_linear_whole_nodes);
	tcase_add_test(tc, preempt_grace_delays_the_start);
	tcase_add_test(tc, preempt_victim_planned_in_the_same_pass);
	tcase_add_test(tc, preempt_exempt_time_protects_young_jobs);
	tcase_add_test(tc, preempt_qos_cancel_and_non_preempting_qos);
	tcase_add_test(tc, preempt_config_errors);
	tcase_add_test(tc, preempt_random_never_oversubscribes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(run_suite());

	return fw_test_run(sr);
}
