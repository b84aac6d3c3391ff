/*
 * Unit tests of the planner's passes on small clusters.  Every expected
 * schedule is worked out by hand in the comment next to it (H = hour, times
 * relative to NOW; nodes are listed by index, chosen lowest-first).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_plan_util.h"
#include "test_run.h"

/* One test's world. */
struct world {
	struct fw_cluster *cl;
	struct fw_plan_conf *conf;
	struct fw_plan *p;
	struct fw_plan_job jobs[32];
	struct fw_plan_result res[32];
	size_t n;
	char buf[128];
};

static void w_init(struct world *w, struct fw_cluster *cl)
{
	struct fw_err e;

	memset(w, 0, sizeof(*w));
	w->cl = cl;
	w->conf = fw_plan_conf_new();
	w->p = fw_plan_new(cl, w->conf, NOW, &e);
	ck_assert_ptr_nonnull(w->p);
}

/* Replace the plan (after changing the configuration). */
static void w_replan(struct world *w)
{
	struct fw_err e;

	fw_plan_free(w->p);
	w->p = fw_plan_new(w->cl, w->conf, NOW, &e);
	ck_assert_ptr_nonnull(w->p);
}

static struct fw_plan_job *w_add(struct world *w, struct fw_plan_job j)
{
	ck_assert_uint_lt(w->n, 32);
	w->jobs[w->n] = j;
	return &w->jobs[w->n++];
}

static void w_run(struct world *w, enum fw_plan_pass pass)
{
	struct fw_err e;
	int rc;

	fw_plan_sort(w->cl, w->jobs, w->n);
	if (pass == FW_PASS_BACKFILL)
		rc = fw_plan_backfill(w->p, w->jobs, w->n, w->res, &e);
	else
		rc = fw_plan_main(w->p, w->jobs, w->n, w->res, &e);
	ck_assert_msg(rc == 0, "pass failed: %s", e.msg);
}

static const struct fw_plan_result *w_res(struct world *w, uint32_t id)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->jobs[i].id == id)
			return &w->res[i];
	ck_abort_msg("no job %u", id);
	return NULL;
}

static int32_t w_idx(struct world *w, uint32_t id)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->jobs[i].id == id)
			return (int32_t)i;
	return -1;
}

static const char *w_nodes(struct world *w, uint32_t id)
{
	struct fw_bitset *b = fw_plan_result_nodes(w_res(w, id), w->cl->nnodes);

	tp_fmt(b, w->buf, sizeof(w->buf));
	fw_bitset_free(b);
	return w->buf;
}

static void w_free(struct world *w)
{
	fw_plan_results_free(w->res, w->n);
	fw_plan_free(w->p);
	fw_plan_conf_free(w->conf);
	fw_cluster_free(w->cl);
}

#define ck_kind(w, id, k) ck_assert_msg(w_res(w, id)->kind == (k), \
	"job %u: kind %s, expected %s", id, fw_plan_kind_str(w_res(w, id)->kind), \
	fw_plan_kind_str(k))
#define ck_start(w, id, t) ck_assert_int_eq(w_res(w, id)->start, (t))
#define ck_nodes(w, id, s) ck_assert_str_eq(w_nodes(w, id), (s))
#define ck_reason(w, id, r) ck_assert_msg(w_res(w, id)->reason == (r), \
	"job %u: reason %s, expected %s", id, fw_plan_reason_str(w_res(w, id)->reason), \
	fw_plan_reason_str(r))

/* ------------------------------------------------------------------ */
/* Seed 004: the scheduling primer's job mix                           */
/* ------------------------------------------------------------------ */

static void primer_jobs(struct world *w, int32_t lic)
{
	static const struct fw_plan_lic one = { 0, 1 };
	/* 123, 124: 2 nodes 2 h; 125: 1 node 1 h; 126: 4 nodes 4 h; FIFO
	 * order = priority order */
	struct fw_plan_job *j[4];

	j[0] = w_add(w, tp_job(123, 400, 0, 2, 2 * H));
	j[1] = w_add(w, tp_job(124, 300, 0, 2, 2 * H));
	j[2] = w_add(w, tp_job(125, 200, 0, 1, 1 * H));
	j[3] = w_add(w, tp_job(126, 100, 0, 4, 4 * H));
	if (lic >= 0)
		for (int k = 0; k < 4; k++) {
			j[k]->lics = &one;
			j[k]->nlics = 1;
		}
}

static void makespan(struct world *w, fw_time_t *end, fw_time_t *node_sec)
{
	*end = 0;
	*node_sec = 0;
	for (size_t i = 0; i < w->n; i++) {
		if (w->res[i].end > *end)
			*end = w->res[i].end;
		*node_sec += (w->res[i].end - w->res[i].start) * w->res[i].nnodes;
	}
}

START_TEST(primer_fifo_with_backfill)
{
	struct world w;
	fw_time_t end, ns;

	w_init(&w, tp_simple(4));
	primer_jobs(&w, -1);
	w_run(&w, FW_PASS_BACKFILL);
	/* 123 on nodes 0-1 and 124 on 2-3 start at 0 h */
	ck_kind(&w, 123, FW_PLAN_START_NOW);
	ck_nodes(&w, 123, "0-1");
	ck_kind(&w, 124, FW_PLAN_START_NOW);
	ck_nodes(&w, 124, "2-3");
	/* 125: every node busy until 2 h, then node 0 (lowest) */
	ck_kind(&w, 125, FW_PLAN_RESERVED);
	ck_start(&w, 125, NOW + 2 * H);
	ck_nodes(&w, 125, "0");
	/* 126 needs all 4 nodes for 4 h: node 0 is 125's until 3 h */
	ck_kind(&w, 126, FW_PLAN_RESERVED);
	ck_start(&w, 126, NOW + 3 * H);
	ck_nodes(&w, 126, "0-3");
	/* makespan 3 h + 4 h = 7 h; node-hours 2*2 + 2*2 + 1 + 4*4 = 25 of
	 * 4 * 7 = 28 (89 %) */
	makespan(&w, &end, &ns);
	ck_assert_int_eq(end - NOW, 7 * H);
	ck_assert_int_eq(ns, 25 * H);
	ck_assert_int_eq(100 * ns / (4 * (end - NOW)), 89);
	/* 125 waits because every node is running 123/124 */
	ck_reason(&w, 125, FW_REASON_NODES);
	ck_assert(!w_res(&w, 123)->backfilled);
	ck_assert(!w_res(&w, 124)->backfilled);
	/* what "fairway" shows for it */
	{
		char line[256];

		ck_assert_str_eq(fw_plan_explain(w.cl, w.jobs, w.res,
						 (size_t)w_idx(&w, 125), NOW,
						 line, sizeof(line)),
				 "job 125: reserved: starts in 02:00:00 in partition "
				 "all on n00; later jobs cannot delay it; reason: "
				 "Resources");
		ck_assert_str_eq(fw_plan_explain(w.cl, w.jobs, w.res,
						 (size_t)w_idx(&w, 123), NOW,
						 line, sizeof(line)),
				 "job 123: starts now in partition all on n00,n01");
		/* truncated, still terminated */
		fw_plan_explain(w.cl, w.jobs, w.res, (size_t)w_idx(&w, 126), NOW,
				line, 20);
		/* 16 characters + "..." + NUL = 20 */
		ck_assert_str_eq(line, "job 126: reserve...");
	}
	w_free(&w);
}
END_TEST

START_TEST(primer_one_job_at_a_time)
{
	struct world w;
	struct fw_cluster *cl = tp_begin();
	fw_time_t end, ns;

	/* A cluster-wide license of count 1 that every job needs: the
	 * primer's FIFO runs one job at a time. */
	tp_nodes(cl, 4, 32, 0, -1);
	tp_part(cl, "all", "0-3", 1);
	tp_lic(cl, "fifo", 1);
	tp_end(cl);
	w_init(&w, cl);
	primer_jobs(&w, 0);
	w_run(&w, FW_PASS_BACKFILL);
	/* 123 [0,2h) nodes 0-1; 124 [2h,4h) 0-1; 125 [4h,5h) 0;
	 * 126 [5h,9h) 0-3 */
	ck_kind(&w, 123, FW_PLAN_START_NOW);
	ck_start(&w, 124, NOW + 2 * H);
	ck_nodes(&w, 124, "0-1");
	ck_start(&w, 125, NOW + 4 * H);
	ck_start(&w, 126, NOW + 5 * H);
	makespan(&w, &end, &ns);
	ck_assert_int_eq(end - NOW, 9 * H);
	/* still 25 node-hours, now of 4 * 9 = 36 */
	ck_assert_int_eq(ns, 25 * H);
	/* the license (index 0) is what 124 waits for */
	ck_reason(&w, 124, FW_REASON_LICENSE);
	ck_assert_int_eq(w_res(&w, 124)->blocker_lic, 0);
	{
		char line[256];

		fw_plan_explain(w.cl, w.jobs, w.res, (size_t)w_idx(&w, 124), NOW,
				line, sizeof(line));
		ck_assert_ptr_nonnull(strstr(line, "reason: Licenses (fifo)"));
	}
	w_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Reservations protect; backfill fills holes                          */
/* ------------------------------------------------------------------ */

/* 6 nodes; a running job holds nodes 0-1 until 2 h.  W (all 6 nodes,
 * 1 h) waits; S (2 nodes, 1 h) and L (2 nodes, 3 h) come after it. */
static void wide_setup(struct world *w, uint32_t wprio)
{
	w_init(w, tp_simple(6));
	tp_running(w->p, w->cl, "0-1", NOW + 2 * H);
	w_add(w, tp_job(1, wprio, 0, 6, 1 * H));	/* W */
	w_add(w, tp_job(2, 400, 0, 2, 1 * H));		/* S */
	w_add(w, tp_job(3, 300, 0, 2, 3 * H));		/* L */
}

START_TEST(wide_job_reservation_and_backfill)
{
	struct world w;

	wide_setup(&w, 5000);
	w_run(&w, FW_PASS_BACKFILL);
	/* W: 6 nodes free only when the running job ends: [2h, 3h) */
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + 2 * H);
	ck_nodes(&w, 1, "0-5");
	ck_assert(w_res(&w, 1)->is_protected);
	/* S: [0, 1h) on nodes 2-3 ends before W starts: backfilled */
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "2-3");
	ck_assert(w_res(&w, 2)->backfilled);
	/* L: nodes 4-5 are idle, but [0, 3h) would overlap W at 2 h; its
	 * earliest start is when W ends (3 h), on nodes 0-1 */
	ck_kind(&w, 3, FW_PLAN_RESERVED);
	ck_start(&w, 3, NOW + 3 * H);
	ck_nodes(&w, 3, "0-1");
	ck_reason(&w, 3, FW_REASON_RESERVED);
	ck_assert_int_eq(w_res(&w, 3)->blocker, w_idx(&w, 1));
	{
		char line[256];

		fw_plan_explain(w.cl, w.jobs, w.res, (size_t)w_idx(&w, 3), NOW,
				line, sizeof(line));
		ck_assert_ptr_nonnull(strstr(line, "starts in 03:00:00"));
		ck_assert_ptr_nonnull(strstr(line, "(nodes/licenses kept for job 1)"));
	}
	/* W waited while S started: bypassed once; L was never passed */
	ck_assert_uint_eq(w_res(&w, 1)->bypass_inc, 1);
	ck_assert_uint_eq(w_res(&w, 3)->bypass_inc, 0);
	w_free(&w);
}
END_TEST

START_TEST(below_threshold_is_delayed_above_is_not)
{
	struct world w;

	/* seed 001: bf_min_prio_reserve=3000.  W at 2999 is below it. */
	wide_setup(&w, 2999);
	w.conf->bf_min_prio_reserve = 3000;
	w_replan(&w);
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w_run(&w, FW_PASS_BACKFILL);
	/* W only gets an estimate (2 h) and no nodes */
	ck_kind(&w, 1, FW_PLAN_ESTIMATED);
	ck_start(&w, 1, NOW + 2 * H);
	ck_assert_ptr_null(w_res(&w, 1)->node_idx);
	ck_assert(!w_res(&w, 1)->is_protected);
	/* ... so L may take nodes 4-5 for 3 h now, delaying W to 3 h */
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	ck_nodes(&w, 3, "4-5");
	ck_assert(w_res(&w, 3)->backfilled);
	ck_assert_uint_eq(w_res(&w, 1)->bypass_inc, 2);
	w_free(&w);

	/* At exactly 3000 W is protected and L is not started; L itself
	 * (300) is below the threshold: only an estimate, after W. */
	wide_setup(&w, 3000);
	w.conf->bf_min_prio_reserve = 3000;
	w_replan(&w);
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_kind(&w, 3, FW_PLAN_ESTIMATED);
	ck_start(&w, 3, NOW + 3 * H);
	ck_reason(&w, 3, FW_REASON_RESERVED);
	w_free(&w);
}
END_TEST

START_TEST(age_threshold)
{
	struct world w;

	/* seed 001: 30 minutes in the queue.  W eligible 29 min ago: below. */
	wide_setup(&w, 5000);
	w.conf->bf_min_age_reserve = 30 * MIN;
	w_replan(&w);
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w.jobs[0].eligible = NOW - 29 * MIN;
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_ESTIMATED);
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	w_free(&w);

	/* eligible 30 min ago: protected */
	wide_setup(&w, 5000);
	w.conf->bf_min_age_reserve = 30 * MIN;
	w_replan(&w);
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w.jobs[0].eligible = NOW - 30 * MIN;
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_kind(&w, 3, FW_PLAN_RESERVED);
	w_free(&w);

	/* a per-job threshold (QOS MinPrioThreshold) overrides the global one */
	wide_setup(&w, 5000);
	w.conf->bf_min_prio_reserve = 3000;
	w_replan(&w);
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w.jobs[0].prio_reserve = 6000;
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_ESTIMATED);
	w_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Reservation depth                                                   */
/* ------------------------------------------------------------------ */

/* 4 nodes; running job on nodes 0-1 until 2 h.
 *   A (3 nodes, 1 h): node 3 and 2 are free now, 3 nodes only at 2 h ->
 *     [2h, 3h) on nodes 0-2; node 3 stays free.
 *   B (4 nodes, 1 h): after A, [3h, 4h) on 0-3.
 *   D (1 node, 4 h): node 3 is idle now; [0, 4h) overlaps only B. */
static void depth_setup(struct world *w)
{
	w_init(w, tp_simple(4));
	tp_running(w->p, w->cl, "0-1", NOW + 2 * H);
	w_add(w, tp_job(1, 500, 0, 3, 1 * H));
	w_add(w, tp_job(2, 400, 0, 4, 1 * H));
	w_add(w, tp_job(3, 300, 0, 1, 4 * H));
}

START_TEST(conservative_vs_easy)
{
	struct world w;

	depth_setup(&w);
	w_run(&w, FW_PASS_BACKFILL);
	ck_start(&w, 1, NOW + 2 * H);
	ck_nodes(&w, 1, "0-2");
	ck_kind(&w, 2, FW_PLAN_RESERVED);
	ck_start(&w, 2, NOW + 3 * H);
	/* conservative: D would delay B; it goes after B (4 h, node 0) */
	ck_kind(&w, 3, FW_PLAN_RESERVED);
	ck_start(&w, 3, NOW + 4 * H);
	ck_nodes(&w, 3, "0");
	ck_reason(&w, 3, FW_REASON_RESERVED);
	ck_assert_int_eq(w_res(&w, 3)->blocker, w_idx(&w, 2));
	w_free(&w);

	/* EASY: only A is protected; D starts now on node 3 and B is only
	 * estimated (3 h, computed against A) */
	depth_setup(&w);
	w.conf->resv_depth = 1;
	w.conf->resv_depth_set = true;
	w_replan(&w);
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_kind(&w, 2, FW_PLAN_ESTIMATED);
	ck_start(&w, 2, NOW + 3 * H);
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	ck_nodes(&w, 3, "3");
	ck_assert(w_res(&w, 3)->backfilled);
	w_free(&w);

	/* top-2 per partition (bf_job_part_count_reserve=2): A and B are
	 * protected, D (third) only estimated -- still after B, 4 h */
	depth_setup(&w);
	w.conf->bf_job_part_count_reserve = 2;
	w_replan(&w);
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 2, FW_PLAN_RESERVED);
	ck_kind(&w, 3, FW_PLAN_ESTIMATED);
	ck_start(&w, 3, NOW + 4 * H);
	w_free(&w);
}
END_TEST

START_TEST(depth_counts_per_partition)
{
	struct world w;
	struct fw_cluster *cl = tp_begin();

	/* Two partitions of 2 nodes, both full until 1 h; EASY protects the
	 * first waiting job of each partition. */
	tp_nodes(cl, 4, 32, 0, -1);
	tp_part(cl, "p1", "0-1", 1);
	tp_part(cl, "p2", "2-3", 1);
	tp_end(cl);
	w_init(&w, cl);
	w.conf->resv_depth = 1;
	w.conf->resv_depth_set = true;
	w_replan(&w);
	tp_running(w.p, cl, "0-3", NOW + 1 * H);
	w_add(&w, tp_job(1, 900, 0, 2, H));	/* p1 head: [1h, 2h) */
	w_add(&w, tp_job(2, 800, 1, 2, H));	/* p2 head: [1h, 2h) */
	w_add(&w, tp_job(3, 700, 0, 2, H));	/* p1 second: estimate 2 h */
	w_add(&w, tp_job(4, 600, 1, 2, H));	/* p2 second: estimate 2 h */
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_kind(&w, 2, FW_PLAN_RESERVED);
	ck_kind(&w, 3, FW_PLAN_ESTIMATED);
	ck_start(&w, 3, NOW + 2 * H);
	ck_kind(&w, 4, FW_PLAN_ESTIMATED);
	ck_start(&w, 4, NOW + 2 * H);
	w_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Window and resolution                                               */
/* ------------------------------------------------------------------ */

START_TEST(resolution_rounds_ends_up)
{
	struct world w;
	struct fw_err e;
	fw_time_t now = NOW + 100;	/* 100 s into a 300 s step */
	fw_time_t t0 = NOW;

	w_init(&w, tp_simple(1));
	w.conf->bf_resolution = 300;
	fw_plan_free(w.p);
	w.p = fw_plan_new(w.cl, w.conf, now, &e);
	ck_assert_int_eq(fw_plan_t0(w.p), t0);
	/* 1 day / 300 s = 288 steps */
	ck_assert_int_eq(fw_plan_window_slots(w.p), 288);
	/* running until now+1000 = t0+1100: busy through step 3 (900-1200),
	 * so the node is free from t0+1200 */
	tp_running(w.p, w.cl, "0", now + 1000);
	w_add(&w, tp_job(1, 10, 0, 1, 600));
	w_add(&w, tp_job(2, 5, 0, 1, 600));
	w_run(&w, FW_PASS_BACKFILL);
	ck_start(&w, 1, t0 + 1200);
	ck_assert_int_eq(w_res(&w, 1)->end, t0 + 1800);
	/* 600 s = 2 steps: 2 starts at t0+1800 */
	ck_start(&w, 2, t0 + 1800);
	w_free(&w);

	/* A job starting now (100 s into the step) for 600 s holds the node
	 * until t0+700, rounded up to t0+900. */
	w_init(&w, tp_simple(1));
	w.conf->bf_resolution = 300;
	fw_plan_free(w.p);
	w.p = fw_plan_new(w.cl, w.conf, now, &e);
	w_add(&w, tp_job(1, 10, 0, 1, 600));
	w_add(&w, tp_job(2, 5, 0, 1, 600));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_START_NOW);
	ck_start(&w, 1, now);
	ck_start(&w, 2, t0 + 900);
	w_free(&w);
}
END_TEST

START_TEST(window_edges)
{
	struct world w;
	static const fw_time_t until[3] = { 59 * MIN, 60 * MIN, 2 * H };
	static const enum fw_plan_kind want[3] = {
		FW_PLAN_RESERVED, FW_PLAN_NOT_IN_WINDOW, FW_PLAN_NOT_IN_WINDOW
	};

	/* bf_window = 60 min, 60 s steps: starts at steps 0..59 are inside */
	for (int k = 0; k < 3; k++) {
		w_init(&w, tp_simple(1));
		w.conf->bf_window = 60 * MIN;
		w_replan(&w);
		ck_assert_int_eq(fw_plan_window_slots(w.p), 60);
		tp_running(w.p, w.cl, "0", NOW + until[k]);
		w_add(&w, tp_job(1, 10, 0, 1, 10 * MIN));
		w_run(&w, FW_PASS_BACKFILL);
		ck_kind(&w, 1, want[k]);
		if (want[k] == FW_PLAN_RESERVED)
			ck_start(&w, 1, NOW + 59 * MIN);
		else
			ck_start(&w, 1, 0);
		w_free(&w);
	}
}
END_TEST

START_TEST(end_of_window_state_persists)
{
	struct world w;
	struct fw_bitset *r;
	struct fw_err e;

	/* 1 h window.  Node 1 runs until 2 h (past the window end: treated as
	 * never ending).  X needs both nodes for 30 min: not in the window.
	 * Y needs one node for 3 h: node 0 is free for good, it starts. */
	w_init(&w, tp_simple(2));
	w.conf->bf_window = 60 * MIN;
	w_replan(&w);
	tp_running(w.p, w.cl, "1", NOW + 2 * H);
	w_add(&w, tp_job(1, 10, 0, 2, 30 * MIN));
	w_add(&w, tp_job(2, 5, 0, 1, 3 * H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_NOT_IN_WINDOW);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "0");
	w_free(&w);

	/* An advanced reservation on node 0 starting at 2 h (after the
	 * window end) counts from the window end: Y cannot run 3 h there. */
	w_init(&w, tp_simple(2));
	w.conf->bf_window = 60 * MIN;
	w_replan(&w);
	tp_running(w.p, w.cl, "1", NOW + 2 * H);
	r = tp_set(w.cl, "0");
	ck_assert_int_eq(fw_plan_add_resv(w.p, "later", r, NOW + 2 * H, NOW + 3 * H,
					  &e), 0);
	fw_bitset_free(r);
	w_add(&w, tp_job(2, 5, 0, 1, 3 * H));
	w_add(&w, tp_job(3, 4, 0, 1, 30 * MIN));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 2, FW_PLAN_NOT_IN_WINDOW);
	/* a 30 min job ends before the window end: it starts on node 0 */
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	ck_nodes(&w, 3, "0");
	w_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Licenses and GPUs                                                   */
/* ------------------------------------------------------------------ */

START_TEST(licenses_over_time)
{
	struct world w;
	struct fw_cluster *cl = tp_begin();
	struct fw_bitset *n0;
	struct fw_err e;
	static const struct fw_plan_lic two = { 0, 2 }, one = { 0, 1 };
	struct fw_plan_job *j;

	tp_nodes(cl, 4, 32, 0, -1);
	tp_part(cl, "all", "0-3", 1);
	tp_lic(cl, "matlab", 2);
	tp_end(cl);
	w_init(&w, cl);
	/* a running job holds 1 of the 2 licenses (and node 0) until 1 h */
	n0 = tp_set(cl, "0");
	ck_assert_int_eq(fw_plan_add_running(w.p, n0, NOW + H, &one, 1, &e), 0);
	fw_bitset_free(n0);
	/* J1 needs both: [1h, 2h) */
	j = w_add(&w, tp_job(1, 900, 0, 1, H));
	j->lics = &two;
	j->nlics = 1;
	/* J3 needs 1 for 2 h: the idle license is needed by J1 at 1 h, so
	 * [2h, 4h) */
	j = w_add(&w, tp_job(3, 800, 0, 1, 2 * H));
	j->lics = &one;
	j->nlics = 1;
	/* J2 needs 1 for 30 min: fits before J1 -> starts now */
	j = w_add(&w, tp_job(2, 700, 0, 1, 30 * MIN));
	j->lics = &one;
	j->nlics = 1;
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + H);
	ck_reason(&w, 1, FW_REASON_LICENSE);
	ck_assert_int_eq(w_res(&w, 1)->blocker_lic, 0);
	ck_kind(&w, 3, FW_PLAN_RESERVED);
	ck_start(&w, 3, NOW + 2 * H);
	/* one license is idle now, but J1's reservation takes both */
	ck_reason(&w, 3, FW_REASON_RESERVED);
	ck_assert_int_eq(w_res(&w, 3)->blocker, w_idx(&w, 1));
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	w_free(&w);
}
END_TEST

START_TEST(gpus_and_capacity_filter)
{
	struct world w;
	struct fw_cluster *cl = tp_begin();
	struct fw_plan_job *j;

	tp_nodes(cl, 2, 32, 0, -1);	/* 0-1: CPU nodes */
	tp_nodes(cl, 2, 64, 4, -1);	/* 2-3: 4 GPUs, 64 CPUs */
	tp_part(cl, "all", "0-3", 1);
	tp_end(cl);
	w_init(&w, cl);
	tp_running(w.p, cl, "2", NOW + H);
	/* G: 2 nodes with 2 GPUs each -> only nodes 2-3: [1h, 2h) */
	j = w_add(&w, tp_job(1, 900, 0, 2, H));
	j->gpus_per_node = 2;
	/* G3: 3 GPU nodes do not exist */
	j = w_add(&w, tp_job(2, 800, 0, 3, H));
	j->gpus_per_node = 1;
	/* C: 48 CPUs per node -> only nodes 2-3, 1 node: node 3 now, for
	 * 30 min (before G at 1 h) */
	j = w_add(&w, tp_job(3, 700, 0, 1, 30 * MIN));
	j->cpus_per_node = 48;
	/* H: plain, 2 nodes, 2 h: nodes 0-1 */
	w_add(&w, tp_job(4, 600, 0, 2, 2 * H));
	/* M: more memory than any node has */
	j = w_add(&w, tp_job(5, 500, 0, 1, H));
	j->mem_per_node_mb = 128000;
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + H);
	ck_nodes(&w, 1, "2-3");
	ck_reason(&w, 1, FW_REASON_GPUS);
	ck_kind(&w, 2, FW_PLAN_NOT_RUNNABLE);
	ck_reason(&w, 2, FW_REASON_NEVER_FITS);
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	ck_nodes(&w, 3, "3");
	ck_kind(&w, 4, FW_PLAN_START_NOW);
	ck_nodes(&w, 4, "0-1");
	ck_kind(&w, 5, FW_PLAN_NOT_RUNNABLE);
	ck_reason(&w, 5, FW_REASON_NEVER_FITS);
	w_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Islands                                                             */
/* ------------------------------------------------------------------ */

static struct fw_cluster *two_islands(void)
{
	struct fw_cluster *cl = tp_begin();

	tp_nodes(cl, 4, 32, 0, 0);	/* nodes 0-3: island 0 */
	tp_nodes(cl, 4, 32, 0, 1);	/* nodes 4-7: island 1 */
	tp_part(cl, "all", "0-7", 1);
	tp_end(cl);
	return cl;
}

static void set_topo(struct world *w, enum fw_topo_placement t)
{
	w->conf->topo = t;
	w_replan(w);
}

START_TEST(island_fits_in_one)
{
	struct world w;

	/* Busy: 0, 1, 4.  A (3 nodes): island 0 has 2 free, island 1 has
	 * 5-7 -> A on 5-7 (not the lowest indices 2,3,5). */
	w_init(&w, two_islands());
	tp_running(w.p, w.cl, "0-1,4", NOW + H);
	w_add(&w, tp_job(1, 10, 0, 3, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_START_NOW);
	ck_nodes(&w, 1, "5-7");
	ck_assert(!w_res(&w, 1)->across_islands);
	w_free(&w);

	/* TopologyPlacement=none takes the lowest: 2, 3, 5 */
	w_init(&w, two_islands());
	set_topo(&w, FW_TOPO_NONE);
	tp_running(w.p, w.cl, "0-1,4", NOW + H);
	w_add(&w, tp_job(1, 10, 0, 3, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_nodes(&w, 1, "2-3,5");
	ck_assert(w_res(&w, 1)->across_islands);
	w_free(&w);
}
END_TEST

START_TEST(island_prefer_vs_strict)
{
	struct world w;

	/* Busy 0 and 4 until 2 h: 3 nodes free in each island.  C needs 4:
	 * prefer: the only way to start now is across islands -> 1-3,5;
	 * strict: [2h, 3h) in island 0. */
	w_init(&w, two_islands());
	tp_running(w.p, w.cl, "0,4", NOW + 2 * H);
	w_add(&w, tp_job(1, 10, 0, 4, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_START_NOW);
	ck_nodes(&w, 1, "1-3,5");
	ck_assert(w_res(&w, 1)->across_islands);
	w_free(&w);

	w_init(&w, two_islands());
	set_topo(&w, FW_TOPO_STRICT);
	tp_running(w.p, w.cl, "0,4", NOW + 2 * H);
	w_add(&w, tp_job(1, 10, 0, 4, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + 2 * H);
	ck_nodes(&w, 1, "0-3");
	w_free(&w);

	/* Cannot start now at all: busy 0,4 until 2 h; 1,5 until 3 h; 2,6
	 * until 1 h; free now 3,7.  C (3 nodes): at 1 h 2,3,6,7 are free
	 * but only 2 per island; at 2 h island 0 has 0,2,3.  prefer plans
	 * 2 h in one island rather than 1 h across. */
	w_init(&w, two_islands());
	tp_running(w.p, w.cl, "0,4", NOW + 2 * H);
	tp_running(w.p, w.cl, "1,5", NOW + 3 * H);
	tp_running(w.p, w.cl, "2,6", NOW + 1 * H);
	w_add(&w, tp_job(1, 10, 0, 3, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + 2 * H);
	ck_nodes(&w, 1, "0,2-3");
	w_free(&w);

	/* ... with none it is 1 h on the lowest free: 2, 3, 6 */
	w_init(&w, two_islands());
	set_topo(&w, FW_TOPO_NONE);
	tp_running(w.p, w.cl, "0,4", NOW + 2 * H);
	tp_running(w.p, w.cl, "1,5", NOW + 3 * H);
	tp_running(w.p, w.cl, "2,6", NOW + 1 * H);
	w_add(&w, tp_job(1, 10, 0, 3, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_start(&w, 1, NOW + H);
	ck_nodes(&w, 1, "2-3,6");
	w_free(&w);
}
END_TEST

START_TEST(island_too_small)
{
	struct world w;

	/* 5 nodes never fit in a 4-node island: prefer places across
	 * islands (it must), strict can never run it. */
	w_init(&w, two_islands());
	w_add(&w, tp_job(1, 10, 0, 5, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_START_NOW);
	ck_nodes(&w, 1, "0-4");
	ck_assert(w_res(&w, 1)->across_islands);
	w_free(&w);

	w_init(&w, two_islands());
	set_topo(&w, FW_TOPO_STRICT);
	w_add(&w, tp_job(1, 10, 0, 5, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_NOT_RUNNABLE);
	ck_reason(&w, 1, FW_REASON_TOPOLOGY);
	w_free(&w);
}
END_TEST

START_TEST(nodes_without_island)
{
	struct world w;
	struct fw_cluster *cl = tp_begin();

	/* nodes 0-3 in island 5, nodes 4-5 in none: those form one more
	 * island, tried after the real ones */
	tp_nodes(cl, 4, 32, 0, 5);
	tp_nodes(cl, 2, 32, 0, -1);
	tp_part(cl, "all", "0-5", 1);
	tp_end(cl);
	ck_assert_uint_eq(cl->nislands, 2);
	ck_assert_int_eq(cl->islands[0].id, 5);
	ck_assert_int_eq(cl->islands[1].id, -1);
	w_init(&w, cl);
	w.conf->topo = FW_TOPO_STRICT;
	w_replan(&w);
	tp_running(w.p, cl, "0-2", NOW + H);
	/* A (2 nodes): island 5 has only node 3 free -> nodes 4-5 */
	w_add(&w, tp_job(1, 20, 0, 2, H));
	/* B (1 node): island 5 first -> node 3 */
	w_add(&w, tp_job(2, 10, 0, 1, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_START_NOW);
	ck_nodes(&w, 1, "4-5");
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "3");
	w_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Bypass counts and per-cycle limits                                  */
/* ------------------------------------------------------------------ */

START_TEST(bypass_counts)
{
	struct world w;

	/* 6 nodes; nodes 0-1 busy until 2 h.  Order: W (6 nodes, [2h,3h)),
	 * S1 (1 node 1 h, starts on 2), X (5 nodes 1 h: 3 free now, 4 at
	 * 1 h, W at 2 h -> [3h,4h)), S2, S3 (1 node 30 min, start on 3 and
	 * 4).  W was passed by S1, S2, S3 = 3; X by S2, S3 = 2. */
	w_init(&w, tp_simple(6));
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w_add(&w, tp_job(1, 900, 0, 6, H));
	w_add(&w, tp_job(2, 800, 0, 1, H));
	w_add(&w, tp_job(3, 700, 0, 5, H));
	w_add(&w, tp_job(4, 600, 0, 1, 30 * MIN));
	w_add(&w, tp_job(5, 500, 0, 1, 30 * MIN));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "2");
	ck_kind(&w, 3, FW_PLAN_RESERVED);
	ck_start(&w, 3, NOW + 3 * H);
	ck_kind(&w, 4, FW_PLAN_START_NOW);
	ck_nodes(&w, 4, "3");
	ck_kind(&w, 5, FW_PLAN_START_NOW);
	ck_nodes(&w, 5, "4");
	ck_assert_uint_eq(w_res(&w, 1)->bypass_inc, 3);
	ck_assert_uint_eq(w_res(&w, 3)->bypass_inc, 2);
	ck_assert_uint_eq(w_res(&w, 2)->bypass_inc, 0);
	ck_assert_uint_eq(w_res(&w, 5)->bypass_inc, 0);
	w_free(&w);
}
END_TEST

START_TEST(per_cycle_limits)
{
	struct world w;
	struct fw_plan_job *j;

	/* bf_max_job_user=2: user 7's third job is not tested */
	w_init(&w, tp_simple(8));
	w.conf->bf_max_job_user = 2;
	w_replan(&w);
	for (uint32_t i = 1; i <= 3; i++)
		w_add(&w, tp_job(i, 100 - i, 0, 1, H))->uid = 7;
	w_add(&w, tp_job(4, 10, 0, 1, H))->uid = 8;
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_kind(&w, 3, FW_PLAN_SKIPPED);
	ck_reason(&w, 3, FW_REASON_BF_MAX_USER);
	ck_kind(&w, 4, FW_PLAN_START_NOW);
	w_free(&w);

	/* bf_max_job_user_part=1 and bf_max_job_part=2 */
	w_init(&w, tp_simple(8));
	w.conf->bf_max_job_user_part = 1;
	w.conf->bf_max_job_part = 2;
	w_replan(&w);
	w_add(&w, tp_job(1, 90, 0, 1, H))->uid = 7;
	w_add(&w, tp_job(2, 80, 0, 1, H))->uid = 7;	/* user 7 again */
	w_add(&w, tp_job(3, 70, 0, 1, H))->uid = 8;
	w_add(&w, tp_job(4, 60, 0, 1, H))->uid = 9;	/* 3rd of partition */
	w_run(&w, FW_PASS_BACKFILL);
	ck_reason(&w, 2, FW_REASON_BF_MAX_USER_PART);
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	ck_reason(&w, 4, FW_REASON_BF_MAX_PART);
	w_free(&w);

	/* bf_max_job_assoc=1 counts (user, account) */
	w_init(&w, tp_simple(8));
	w.conf->bf_max_job_assoc = 1;
	w_replan(&w);
	j = w_add(&w, tp_job(1, 90, 0, 1, H));
	j->uid = 7;
	j->account = 1;
	j = w_add(&w, tp_job(2, 80, 0, 1, H));
	j->uid = 7;
	j->account = 2;
	j = w_add(&w, tp_job(3, 70, 0, 1, H));
	j->uid = 7;
	j->account = 1;
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_reason(&w, 3, FW_REASON_BF_MAX_ASSOC);
	w_free(&w);

	/* bf_max_job_start=2: after two starts the cycle is over */
	w_init(&w, tp_simple(8));
	w.conf->bf_max_job_start = 2;
	w_replan(&w);
	for (uint32_t i = 1; i <= 4; i++)
		w_add(&w, tp_job(i, 100 - i, 0, 1, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_kind(&w, 3, FW_PLAN_SKIPPED);
	ck_reason(&w, 3, FW_REASON_BF_MAX_START);
	ck_reason(&w, 4, FW_REASON_BF_MAX_START);
	w_free(&w);

	/* bf_max_job_test=2: the third job is not evaluated */
	w_init(&w, tp_simple(8));
	w.conf->bf_max_job_test = 2;
	w_replan(&w);
	for (uint32_t i = 1; i <= 3; i++)
		w_add(&w, tp_job(i, 100 - i, 0, 1, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_reason(&w, 3, FW_REASON_BF_MAX_TEST);
	w_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Main pass                                                           */
/* ------------------------------------------------------------------ */

static struct fw_cluster *overlapping_parts(void)
{
	struct fw_cluster *cl = tp_begin();

	tp_nodes(cl, 6, 32, 0, -1);
	tp_part(cl, "p1", "0-3", 1);
	tp_part(cl, "p2", "2-5", 1);
	tp_end(cl);
	return cl;
}

/* ------------------------------------------------------------------ */
/* ReservationOrder=submit                                             */
/* ------------------------------------------------------------------ */

static void set_submit_order(struct world *w, uint32_t depth)
{
	w->conf->resv_depth = depth;
	w->conf->resv_depth_set = true;
	w->conf->resv_by_submit = true;
	w_replan(w);
}

/* 4 nodes; running job on nodes 0-1 until 2 h.  Submit time = job id.
 *   1 (oldest, prio 100): 3 nodes, 1 h
 *   2 (prio 500): 1 node, 4 h
 *   3 (prio 400): 1 node, 3 h
 *   4 (prio 450): 1 node, 1 h */
static void oldest_setup(struct world *w, bool by_submit)
{
	w_init(w, tp_simple(4));
	if (by_submit)
		set_submit_order(w, 1);
	else {
		w->conf->resv_depth = 1;
		w->conf->resv_depth_set = true;
		w_replan(w);
	}
	tp_running(w->p, w->cl, "0-1", NOW + 2 * H);
	w_add(w, tp_job(1, 100, 0, 3, 1 * H));
	w_add(w, tp_job(2, 500, 0, 1, 4 * H));
	w_add(w, tp_job(3, 400, 0, 1, 3 * H));
	w_add(w, tp_job(4, 450, 0, 1, 1 * H));
}

START_TEST(oldest_job_gets_the_reservation)
{
	struct world w;

	/* Submit order, depth 1: job 1 is the head and goes first.  Only
	 * nodes 2-3 are idle: it is reserved at 2 h on 0-2 (lowest first);
	 * that fills the one place.  Then by priority: 2 (4 h) fits only on
	 * node 3, which 1 does not use; 4 (1 h) fits on node 2 before 1
	 * needs it at 2 h; 3 (3 h) would hold node 2 past 2 h and no other
	 * node is idle: estimated, at 3 h when 1 ends (node 0). */
	oldest_setup(&w, true);
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + 2 * H);
	ck_nodes(&w, 1, "0-2");
	ck_assert(w_res(&w, 1)->is_protected);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "3");
	ck_assert(w_res(&w, 2)->backfilled);
	ck_kind(&w, 4, FW_PLAN_START_NOW);
	ck_nodes(&w, 4, "2");
	ck_kind(&w, 3, FW_PLAN_ESTIMATED);
	ck_start(&w, 3, NOW + 3 * H);
	ck_reason(&w, 3, FW_REASON_NODES);	/* no node idle now */
	ck_assert(!w_res(&w, 3)->is_protected);
	/* 2 and 4 were started while 1 waited */
	ck_assert_uint_eq(w_res(&w, 1)->bypass_inc, 2);
	w_free(&w);

	/* Priority order, depth 1 (EASY by priority): 2 starts on node 2,
	 * 4 on node 3 (1 h); 3 is the first that cannot start and gets the
	 * one reservation: node 3 at 1 h.  Job 1 is only estimated: nodes
	 * 0-1 at 2 h, node 2 at 4 h, node 3 at 4 h -> 4 h, two hours later
	 * than with submit order. */
	oldest_setup(&w, false);
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "2");
	ck_kind(&w, 4, FW_PLAN_START_NOW);
	ck_nodes(&w, 4, "3");
	ck_kind(&w, 3, FW_PLAN_RESERVED);
	ck_start(&w, 3, NOW + 1 * H);
	ck_nodes(&w, 3, "3");
	ck_kind(&w, 1, FW_PLAN_ESTIMATED);
	ck_start(&w, 1, NOW + 4 * H);
	w_free(&w);
}
END_TEST

START_TEST(oldest_started_next_oldest_reserved)
{
	struct world w;

	/* Submit order, depth 1; nodes 0-1 busy until 2 h.
	 *   1 (oldest, prio 100): 1 node, 1 h -> starts now on node 2
	 *     (nothing waits yet: not backfilled); the place stays free,
	 *   2 (prio 200): 4 nodes, 1 h -> the next oldest becomes the head
	 *     in the same pass: reserved at 2 h on 0-3 (node 2 free at 1 h,
	 *     0-1 at 2 h).
	 *   3 (prio 900): 1 node, 3 h: node 3 is idle but 2 needs it at 2 h
	 *     -> estimated after 2, at 3 h.
	 *   4 (prio 800): 1 node, 2 h: ends at 2 h on node 3 -> starts. */
	w_init(&w, tp_simple(4));
	set_submit_order(&w, 1);
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w_add(&w, tp_job(1, 100, 0, 1, 1 * H));
	w_add(&w, tp_job(2, 200, 0, 4, 1 * H));
	w_add(&w, tp_job(3, 900, 0, 1, 3 * H));
	w_add(&w, tp_job(4, 800, 0, 1, 2 * H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_START_NOW);
	ck_nodes(&w, 1, "2");
	ck_assert(!w_res(&w, 1)->backfilled);
	ck_kind(&w, 2, FW_PLAN_RESERVED);
	ck_start(&w, 2, NOW + 2 * H);
	ck_nodes(&w, 2, "0-3");
	ck_kind(&w, 3, FW_PLAN_ESTIMATED);
	ck_start(&w, 3, NOW + 3 * H);
	ck_kind(&w, 4, FW_PLAN_START_NOW);
	ck_nodes(&w, 4, "3");
	ck_assert(w_res(&w, 4)->backfilled);
	w_free(&w);

	/* By priority (depth 1): 3 starts on node 2 (3 h), 4 on node 3
	 * (2 h); 2 is the first that waits and is reserved when 4 nodes are
	 * free: 0-1 and 3 at 2 h, node 2 at 3 h -> 3 h.  1 (1 h) fits on
	 * node 0 in [2 h, 3 h): estimated at 2 h. */
	w_init(&w, tp_simple(4));
	w.conf->resv_depth = 1;
	w.conf->resv_depth_set = true;
	w_replan(&w);
	tp_running(w.p, w.cl, "0-1", NOW + 2 * H);
	w_add(&w, tp_job(1, 100, 0, 1, 1 * H));
	w_add(&w, tp_job(2, 200, 0, 4, 1 * H));
	w_add(&w, tp_job(3, 900, 0, 1, 3 * H));
	w_add(&w, tp_job(4, 800, 0, 1, 2 * H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	ck_nodes(&w, 3, "2");
	ck_kind(&w, 4, FW_PLAN_START_NOW);
	ck_nodes(&w, 4, "3");
	ck_kind(&w, 2, FW_PLAN_RESERVED);
	ck_start(&w, 2, NOW + 3 * H);
	ck_kind(&w, 1, FW_PLAN_ESTIMATED);
	ck_start(&w, 1, NOW + 2 * H);
	w_free(&w);
}
END_TEST

START_TEST(oldest_job_main_pass)
{
	struct world w;

	/* Main pass, submit order: job 1 (3 nodes) cannot start and blocks
	 * the partition, so 2, 4 and 3 wait (Priority), as FCFS EASY's main
	 * pass stops at its first job. */
	oldest_setup(&w, true);
	w_run(&w, FW_PASS_MAIN);
	ck_kind(&w, 1, FW_PLAN_WAITING);
	ck_reason(&w, 1, FW_REASON_NODES);
	ck_kind(&w, 2, FW_PLAN_WAITING);
	ck_reason(&w, 2, FW_REASON_PRIORITY);
	ck_kind(&w, 4, FW_PLAN_WAITING);
	ck_kind(&w, 3, FW_PLAN_WAITING);
	w_free(&w);

	/* The head fits: 1 (now 1 node, 1 h) starts on node 2; the next
	 * oldest, 2, starts on node 3; 3 cannot start and blocks the
	 * partition: 4 (prio 450, above 3's 400) waits.  FCFS order. */
	oldest_setup(&w, true);
	w.jobs[0].nodes_min = 1;
	w_run(&w, FW_PASS_MAIN);
	ck_kind(&w, 1, FW_PLAN_START_NOW);
	ck_nodes(&w, 1, "2");
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "3");
	ck_kind(&w, 3, FW_PLAN_WAITING);
	ck_reason(&w, 3, FW_REASON_NODES);
	ck_kind(&w, 4, FW_PLAN_WAITING);
	ck_reason(&w, 4, FW_REASON_PRIORITY);
	w_free(&w);

	/* By priority: 2 on node 2, 4 on node 3; 3 and 1 wait. */
	oldest_setup(&w, false);
	w.jobs[0].nodes_min = 1;
	w_run(&w, FW_PASS_MAIN);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "2");
	ck_kind(&w, 4, FW_PLAN_START_NOW);
	ck_nodes(&w, 4, "3");
	ck_kind(&w, 3, FW_PLAN_WAITING);
	ck_kind(&w, 1, FW_PLAN_WAITING);
	w_free(&w);
}
END_TEST

START_TEST(heads_cursor)
{
	struct fw_cluster *cl = overlapping_parts();
	struct fw_plan_conf *c = fw_plan_conf_new();
	struct fw_plan_heads *h;
	struct fw_plan_job j[5];

	/* submit = id; p1: 1, 2, 5; p2: 3, 4 (array order scrambled) */
	j[0] = tp_job(2, 900, 0, 1, H);
	j[1] = tp_job(1, 100, 0, 1, H);
	j[2] = tp_job(4, 800, 1, 1, H);
	j[3] = tp_job(3, 50, 1, 1, H);
	j[4] = tp_job(5, 999, 0, 1, H);
	c->resv_depth = 1;
	c->resv_depth_set = true;
	/* priority order: no cursor */
	ck_assert_ptr_null(fw_plan_heads_new(cl, c, NOW, j, 5));
	ck_assert_uint_eq(fw_plan_heads_next(NULL), FW_PLAN_NO_HEAD);
	ck_assert(!fw_plan_heads_taken(NULL, 0));

	/* submit order, depth 1: oldest first; 1 (p1) is reserved and fills
	 * p1's place; 3 (p2) starts, so 4 (p2) is next; 4 waits; 2 and 5
	 * (p1) are never heads. */
	c->resv_by_submit = true;
	h = fw_plan_heads_new(cl, c, NOW, j, 5);
	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(fw_plan_heads_next(h), 1);	/* job 1 */
	fw_plan_heads_outcome(h, FW_PLAN_RESERVED);
	ck_assert_uint_eq(fw_plan_heads_next(h), 3);	/* job 3 */
	fw_plan_heads_outcome(h, FW_PLAN_START_NOW);
	ck_assert_uint_eq(fw_plan_heads_next(h), 2);	/* job 4 */
	fw_plan_heads_outcome(h, FW_PLAN_ESTIMATED);
	ck_assert_uint_eq(fw_plan_heads_next(h), FW_PLAN_NO_HEAD);
	ck_assert(fw_plan_heads_taken(h, 1) && fw_plan_heads_taken(h, 3) &&
		  fw_plan_heads_taken(h, 2));
	ck_assert(!fw_plan_heads_taken(h, 0) && !fw_plan_heads_taken(h, 4));
	fw_plan_heads_free(h);

	/* a never-runnable head leaves its place: 1, then 2 (p1) */
	h = fw_plan_heads_new(cl, c, NOW, j, 5);
	ck_assert_uint_eq(fw_plan_heads_next(h), 1);
	fw_plan_heads_outcome(h, FW_PLAN_NOT_RUNNABLE);
	ck_assert_uint_eq(fw_plan_heads_next(h), 0);	/* job 2 */
	fw_plan_heads_outcome(h, FW_PLAN_WAITING);
	ck_assert_uint_eq(fw_plan_heads_next(h), 3);	/* job 3 */
	fw_plan_heads_free(h);

	/* bf_min_age_reserve 30 min: job 1 (eligible 29 min ago) is too
	 * young, job 3 is in an advanced reservation: 2, then 4 */
	c->bf_min_age_reserve = 30 * MIN;
	for (int i = 0; i < 5; i++)
		j[i].eligible = NOW - H;
	j[1].eligible = NOW - 29 * MIN;
	j[3].resv = 0;
	h = fw_plan_heads_new(cl, c, NOW, j, 5);
	ck_assert_uint_eq(fw_plan_heads_next(h), 0);	/* job 2 */
	fw_plan_heads_outcome(h, FW_PLAN_RESERVED);
	ck_assert_uint_eq(fw_plan_heads_next(h), 2);	/* job 4 */
	fw_plan_heads_outcome(h, FW_PLAN_RESERVED);
	ck_assert_uint_eq(fw_plan_heads_next(h), FW_PLAN_NO_HEAD);
	fw_plan_heads_free(h);

	/* depth 2: job 2 then 5 in p1 */
	c->resv_depth = 2;
	h = fw_plan_heads_new(cl, c, NOW, j, 5);
	ck_assert_uint_eq(fw_plan_heads_next(h), 0);
	fw_plan_heads_outcome(h, FW_PLAN_RESERVED);
	ck_assert_uint_eq(fw_plan_heads_next(h), 2);
	fw_plan_heads_outcome(h, FW_PLAN_RESERVED);
	ck_assert_uint_eq(fw_plan_heads_next(h), 4);	/* job 5 */
	fw_plan_heads_outcome(h, FW_PLAN_RESERVED);
	ck_assert_uint_eq(fw_plan_heads_next(h), FW_PLAN_NO_HEAD);
	fw_plan_heads_free(h);

	/* heads sort before everything, oldest first; at equal submit
	 * times by job id, whatever their priorities (as the cursor) */
	j[0].head = j[4].head = true;
	j[4].submit = j[0].submit;
	fw_plan_sort(cl, j, 5);
	ck_assert_uint_eq(j[0].id, 2);
	ck_assert_uint_eq(j[1].id, 5);
	ck_assert_uint_eq(j[2].id, 3);	/* advanced reservation */
	ck_assert_uint_eq(j[3].id, 4);	/* 800 */
	ck_assert_uint_eq(j[4].id, 1);	/* 100 */
	fw_plan_conf_free(c);
	fw_cluster_free(cl);
}
END_TEST

START_TEST(main_pass_blocks_partition_and_nodes)
{
	struct world w;

	/* Nodes 0-1 busy.  A (p1, 3 nodes): p1 has only 2, 3 free -> cannot
	 * start, blocks p1 and its nodes 0-3.  B (p1, 1 node): partition
	 * blocked.  C (p2, 2 nodes): nodes 2-3 are blocked, takes 4-5.
	 * D (p2, 2 nodes): 2-3 are idle but blocked -> Priority. */
	w_init(&w, overlapping_parts());
	tp_running(w.p, w.cl, "0-1", NOW + H);
	w_add(&w, tp_job(1, 500, 0, 3, H));
	w_add(&w, tp_job(2, 400, 0, 1, H));
	w_add(&w, tp_job(3, 300, 1, 2, H));
	w_add(&w, tp_job(4, 200, 1, 2, H));
	w_run(&w, FW_PASS_MAIN);
	ck_kind(&w, 1, FW_PLAN_WAITING);
	ck_reason(&w, 1, FW_REASON_NODES);
	ck_kind(&w, 2, FW_PLAN_WAITING);
	ck_reason(&w, 2, FW_REASON_PRIORITY);
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	ck_nodes(&w, 3, "4-5");
	ck_assert(!w_res(&w, 3)->backfilled);	/* main pass */
	ck_kind(&w, 4, FW_PLAN_WAITING);
	ck_reason(&w, 4, FW_REASON_PRIORITY);
	/* A and B were passed by C */
	ck_assert_uint_eq(w_res(&w, 1)->bypass_inc, 1);
	ck_assert_uint_eq(w_res(&w, 2)->bypass_inc, 1);
	w_free(&w);
}
END_TEST

START_TEST(main_pass_threshold_does_not_block)
{
	struct world w;

	/* Same, but A (prio 500) is below bf_min_prio_reserve=1000: it does
	 * not block p1, B starts on node 2, C on 3-4. */
	w_init(&w, overlapping_parts());
	w.conf->bf_min_prio_reserve = 1000;
	w_replan(&w);
	tp_running(w.p, w.cl, "0-1", NOW + H);
	w_add(&w, tp_job(1, 500, 0, 3, H));
	w_add(&w, tp_job(2, 400, 0, 1, H));
	w_add(&w, tp_job(3, 300, 1, 2, H));
	w_run(&w, FW_PASS_MAIN);
	ck_kind(&w, 1, FW_PLAN_WAITING);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "2");
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	ck_nodes(&w, 3, "3-4");
	w_free(&w);
}
END_TEST

START_TEST(main_pass_primer_plain_fifo)
{
	struct world w;

	/* Concurrent FIFO without backfill: 123 and 124 start, 125 cannot
	 * and blocks the partition, so 126 is not even tried. */
	w_init(&w, tp_simple(4));
	primer_jobs(&w, -1);
	w_run(&w, FW_PASS_MAIN);
	ck_kind(&w, 123, FW_PLAN_START_NOW);
	ck_kind(&w, 124, FW_PLAN_START_NOW);
	ck_kind(&w, 125, FW_PLAN_WAITING);
	ck_reason(&w, 125, FW_REASON_NODES);
	ck_kind(&w, 126, FW_PLAN_WAITING);
	ck_reason(&w, 126, FW_REASON_PRIORITY);
	w_free(&w);
}
END_TEST

START_TEST(partition_tiers_and_limits)
{
	struct world w;
	struct fw_cluster *cl = tp_begin();
	struct fw_bitset *b;
	struct fw_err e;
	struct fw_partition_def d = { .name = "short", .priority_tier = 5,
				      .max_time = 30 * MIN, .max_nodes = 2 };

	tp_nodes(cl, 2, 32, 0, -1);
	tp_part(cl, "normal", "0-1", 1);
	b = tp_set(cl, "0-1");
	d.nodes = b;
	ck_assert_int_eq(fw_cluster_add_partition(cl, &d, &e), 1);
	fw_bitset_free(b);
	tp_end(cl);
	w_init(&w, cl);
	/* the high tier goes first regardless of priority: job 2 (tier 5,
	 * prio 1) takes node 0 before job 1 (tier 1, prio 1000) */
	w_add(&w, tp_job(1, 1000, 0, 2, H));
	w_add(&w, tp_job(2, 1, 1, 1, 10 * MIN));
	/* over MaxTime / MaxNodes of "short" */
	w_add(&w, tp_job(3, 1, 1, 1, H));
	w_add(&w, tp_job(4, 1, 1, 3, 10 * MIN));
	w_run(&w, FW_PASS_BACKFILL);
	ck_assert_uint_eq(w.jobs[0].id, 2);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "0");
	ck_kind(&w, 3, FW_PLAN_NOT_RUNNABLE);
	ck_reason(&w, 3, FW_REASON_PART_LIMIT);
	ck_reason(&w, 4, FW_REASON_PART_LIMIT);
	/* job 1 waits for node 0: 10 min */
	ck_start(&w, 1, NOW + 10 * MIN);
	w_free(&w);
}
END_TEST

START_TEST(alternative_partitions)
{
	struct world w;
	struct fw_cluster *cl = tp_begin();
	static const int32_t alt[1] = { 1 };
	struct fw_plan_job *j;

	tp_nodes(cl, 4, 32, 0, -1);
	tp_part(cl, "a", "0-1", 1);
	tp_part(cl, "b", "2-3", 1);
	tp_end(cl);
	w_init(&w, cl);
	tp_running(w.p, cl, "0-1", NOW + 2 * H);
	tp_running(w.p, cl, "2-3", NOW + 1 * H);
	/* both partitions full: a frees at 2 h, b at 1 h -> b, 1 h */
	j = w_add(&w, tp_job(1, 10, 0, 2, H));
	j->alt_parts = alt;
	j->nalt_parts = 1;
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + H);
	ck_assert_int_eq(w_res(&w, 1)->part, 1);
	ck_nodes(&w, 1, "2-3");
	w_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Advanced reservations, required/excluded nodes, down nodes          */
/* ------------------------------------------------------------------ */

/* A CoreCnt reservation holds part of each node: jobs outside it still use
 * its nodes (the adapter keeps off them those that need more than the
 * unreserved cores); its own jobs still run only there.  The same
 * reservation on whole nodes keeps the 4-node job waiting until it ends. */
static void core_resv_world(struct world *w, bool partial)
{
	struct fw_bitset *r = tp_set(w->cl, "0");
	struct fw_err e;
	int32_t ri = partial ?
		fw_plan_add_partial_resv(w->p, "cores", r, NOW, NOW + 2 * H, &e) :
		fw_plan_add_resv(w->p, "cores", r, NOW, NOW + 2 * H, &e);

	ck_assert_int_eq(ri, 0);
	fw_bitset_free(r);
}

START_TEST(core_reservation_shares_its_nodes)
{
	struct world w;
	struct fw_plan_job *j;

	w_init(&w, tp_simple(4));
	core_resv_world(&w, true);
	w_add(&w, tp_job(1, 900, 0, 4, 30 * MIN));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_START_NOW);
	ck_assert_uint_eq(w_res(&w, 1)->nnodes, 4);
	w_free(&w);

	w_init(&w, tp_simple(4));
	core_resv_world(&w, false);
	w_add(&w, tp_job(1, 900, 0, 4, 30 * MIN));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + 2 * H);
	w_free(&w);

	/* Its own job runs on node 0 only; a 3-node outsider on 1-3. */
	w_init(&w, tp_simple(4));
	core_resv_world(&w, true);
	j = w_add(&w, tp_job(1, 1, 0, 1, H));
	j->resv = 0;
	w_add(&w, tp_job(2, 900, 0, 3, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_START_NOW);
	ck_nodes(&w, 1, "0");
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "1-3");
	w_free(&w);
}
END_TEST

START_TEST(advanced_reservations)
{
	struct world w;
	struct fw_bitset *r;
	struct fw_err e;
	struct fw_plan_job *j;
	int32_t ri;

	/* 4 nodes; reservation "maint" holds nodes 2-3 from 1 h to 2 h. */
	w_init(&w, tp_simple(4));
	r = tp_set(w.cl, "2-3");
	ri = fw_plan_add_resv(w.p, "maint", r, NOW + H, NOW + 2 * H, &e);
	ck_assert_int_eq(ri, 0);
	fw_bitset_free(r);
	/* R (in maint, 2 nodes, 1 h): sorted first; starts when maint
	 * does, on its nodes */
	j = w_add(&w, tp_job(1, 1, 0, 2, H));
	j->resv = ri;
	/* A (4 nodes, 30 min): all nodes free before 1 h -> now */
	w_add(&w, tp_job(2, 900, 0, 4, 30 * MIN));
	/* B (2 nodes, 2 h): 0-1 are A's until 30 min; 2-3 hit maint at 1 h.
	 * [30m, 2h30) on 0-1 */
	w_add(&w, tp_job(3, 800, 0, 2, 2 * H));
	/* C (3 nodes, 1 h): needs a node of 2-3, free only after maint
	 * (2 h) and B holds 0-1 until 2h30 -> 2h30 */
	w_add(&w, tp_job(4, 700, 0, 3, H));
	w_run(&w, FW_PASS_BACKFILL);
	ck_assert_uint_eq(w.jobs[0].id, 1);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + H);
	ck_nodes(&w, 1, "2-3");
	ck_reason(&w, 1, FW_REASON_RESV_TIME);
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_kind(&w, 3, FW_PLAN_RESERVED);
	ck_start(&w, 3, NOW + 30 * MIN);
	ck_nodes(&w, 3, "0-1");
	ck_kind(&w, 4, FW_PLAN_RESERVED);
	ck_start(&w, 4, NOW + 2 * H + 30 * MIN);
	w_free(&w);

	/* With nodes 0-1 busy until 3 h, a 2-node job that cannot avoid
	 * maint waits for the reservation, not for other jobs. */
	w_init(&w, tp_simple(4));
	r = tp_set(w.cl, "2-3");
	ck_assert_int_eq(fw_plan_add_resv(w.p, "maint", r, NOW + H, NOW + 2 * H, &e), 0);
	fw_bitset_free(r);
	tp_running(w.p, w.cl, "0-1", NOW + 3 * H);
	w_add(&w, tp_job(1, 10, 0, 2, 90 * MIN));
	w_run(&w, FW_PASS_BACKFILL);
	ck_reason(&w, 1, FW_REASON_ADV_RESV);
	ck_start(&w, 1, NOW + 2 * H);
	w_free(&w);
}
END_TEST

START_TEST(required_excluded_down_nodes)
{
	struct world w;
	struct fw_bitset *req, *exc;
	struct fw_err e;
	struct fw_plan_job *j;

	w_init(&w, tp_simple(4));
	ck_assert_int_eq(fw_plan_node_down(w.p, 3, &e), 0);
	tp_running(w.p, w.cl, "1", NOW + H);
	req = tp_set(w.cl, "1");
	exc = tp_set(w.cl, "0");
	/* needs node 1 (busy until 1 h) plus one more */
	j = w_add(&w, tp_job(1, 90, 0, 2, H));
	j->req_nodes = req;
	/* may not use node 0: of 1, 2 (3 is down) -> 2 now */
	j = w_add(&w, tp_job(2, 80, 0, 1, 30 * MIN));
	j->exc_nodes = exc;
	/* needs all 4 nodes, one is down */
	w_add(&w, tp_job(3, 70, 0, 4, H));
	w_run(&w, FW_PASS_BACKFILL);
	/* job 1: node 1 at 1 h plus the lowest other: 0 */
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + H);
	ck_nodes(&w, 1, "0-1");
	ck_kind(&w, 2, FW_PLAN_START_NOW);
	ck_nodes(&w, 2, "2");
	ck_kind(&w, 3, FW_PLAN_NOT_IN_WINDOW);
	ck_reason(&w, 3, FW_REASON_NODES_DOWN);
	w_free(&w);
	fw_bitset_free(req);
	fw_bitset_free(exc);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Step API                                                            */
/* ------------------------------------------------------------------ */

/*
 * Whole nodes: a requeued job (eligible ahead) is planned from its begin time.
 * Two nodes, n1 busy until +1 h.  r (1 node, 2 h) may not start before
 * +10 min: reserved then on node 0, reason BeginTime.  b (1 node, 20 min)
 * would overlap r's reservation on node 0 and node 1 is busy: +1 h on node
 * 1.  c (1 node, 5 min) ends before r's start: now, on node 0.
 */
START_TEST(requeued_job_whole_nodes)
{
	struct world w;

	w_init(&w, tp_simple(2));
	tp_running(w.p, w.cl, "1", NOW + H);
	w_add(&w, tp_job(1, 90, 0, 1, 2 * H))->eligible = NOW + 10 * MIN;
	w_add(&w, tp_job(2, 80, 0, 1, 20 * MIN));
	w_add(&w, tp_job(3, 70, 0, 1, 5 * MIN));
	w_run(&w, FW_PASS_BACKFILL);
	ck_kind(&w, 1, FW_PLAN_RESERVED);
	ck_start(&w, 1, NOW + 10 * MIN);
	ck_nodes(&w, 1, "0");
	ck_reason(&w, 1, FW_REASON_BEGIN_TIME);
	ck_kind(&w, 2, FW_PLAN_RESERVED);
	ck_start(&w, 2, NOW + H);
	ck_nodes(&w, 2, "1");
	ck_kind(&w, 3, FW_PLAN_START_NOW);
	ck_nodes(&w, 3, "0");
	w_free(&w);
}
END_TEST

START_TEST(step_api_outcomes)
{
	struct fw_cluster *cl = tp_simple(4);
	struct fw_plan_conf *conf = fw_plan_conf_new();
	struct fw_err e;
	struct fw_plan *p = fw_plan_new(cl, conf, NOW, &e);
	struct fw_plan_job a = tp_job(1, 90, 0, 2, H), b = tp_job(2, 80, 0, 3, H);
	struct fw_plan_job c = tp_job(3, 70, 0, 2, H), z = tp_job(9, 95, 0, 1, H);
	struct fw_plan_decision d;
	struct fw_bitset *actual = tp_set(cl, "2-3");
	char buf[64];
	uint32_t inc[4];

	ck_assert_int_eq(fw_plan_decide(p, &a, FW_PASS_BACKFILL, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_START_NOW);
	ck_assert_str_eq(fw_bitset_fmt(d.nodes, buf, sizeof(buf)), "0-1");
	ck_assert_str_eq(fw_bitset_fmt(d.allowed, buf, sizeof(buf)), "0-3");
	/* no new decision before the outcome */
	ck_assert_int_eq(fw_plan_decide(p, &b, FW_PASS_BACKFILL, &d, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "outcome"));
	/* select_nodes() picked 2-3 instead: the plan follows */
	ck_assert_int_eq(fw_plan_started(p, actual, &e), 0);
	ck_assert_int_eq(fw_plan_started(p, NULL, &e), -1);
	/* b (3 nodes) now: only 0-1 free -> 1 h */
	ck_assert_int_eq(fw_plan_decide(p, &b, FW_PASS_BACKFILL, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + H);
	/* c (2 nodes 1 h) fits on 0-1 before b... but b reserved 0-2 at 1 h,
	 * c would end at 1 h exactly: starts now */
	ck_assert_int_eq(fw_plan_decide(p, &c, FW_PASS_BACKFILL, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_START_NOW);
	ck_assert(d.backfilled);
	/* the start fails: c is planned from the next step on, after b */
	ck_assert_int_eq(fw_plan_start_failed(p, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + 2 * H);
	ck_assert_int_eq(d.reason, FW_REASON_START_FAILED);
	/* out of order */
	ck_assert_int_eq(fw_plan_decide(p, &z, FW_PASS_BACKFILL, &d, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "out of queue order"));
	ck_assert_str_eq(e.value, "9");
	/* set-up is closed */
	ck_assert_int_eq(fw_plan_add_running(p, actual, NOW + H, NULL, 0, &e), -1);
	/* a started once while b and c waited after it: nothing passed them */
	fw_plan_bypass(p, inc, 4);
	ck_assert_uint_eq(inc[0], 0);
	ck_assert_uint_eq(inc[1], 0);
	ck_assert_uint_eq(inc[2], 0);
	ck_assert_uint_eq(inc[3], 0);
	fw_bitset_free(actual);
	fw_plan_free(p);
	fw_plan_conf_free(conf);
	fw_cluster_free(cl);
}
END_TEST

/*
 * Main pass, one partition of 4 nodes: a (3 nodes) is offered first.
 * If slurmctld cannot start it because of the nodes (start_failed), the
 * partition is blocked and b (1 node, lower priority) waits behind it:
 * seed 001's "stop at the first job that cannot start".  If a is refused
 * for a usage limit of its own (start_refused), nothing is blocked: b
 * starts now, as Slurm's main scheduler goes on past a job held by
 * ESLURM_ACCOUNTING_POLICY.
 */
static enum fw_plan_kind main_pass_second_job(bool refused)
{
	struct fw_cluster *cl = tp_simple(4);
	struct fw_plan_conf *conf = fw_plan_conf_new();
	struct fw_err e;
	struct fw_plan *p = fw_plan_new(cl, conf, NOW, &e);
	struct fw_plan_job a = tp_job(1, 90, 0, 3, H), b = tp_job(2, 80, 0, 1, H);
	struct fw_plan_decision d;
	enum fw_plan_kind kind;

	ck_assert_int_eq(fw_plan_decide(p, &a, FW_PASS_MAIN, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_START_NOW);
	if (refused) {
		ck_assert_int_eq(fw_plan_start_refused(p, &d, &e), 0);
		ck_assert_int_eq(d.kind, FW_PLAN_SKIPPED);
		ck_assert_int_eq(d.reason, FW_REASON_JOB_LIMIT);
		ck_assert_str_eq(fw_plan_reason_str(d.reason), "JobLimit");
		/* only once per START_NOW */
		ck_assert_int_eq(fw_plan_start_refused(p, &d, &e), -1);
	} else {
		ck_assert_int_eq(fw_plan_start_failed(p, &d, &e), 0);
		ck_assert_int_eq(d.kind, FW_PLAN_WAITING);
	}
	ck_assert_int_eq(fw_plan_decide(p, &b, FW_PASS_MAIN, &d, &e), 0);
	kind = d.kind;
	if (kind == FW_PLAN_START_NOW)
		ck_assert_int_eq(fw_plan_started(p, NULL, &e), 0);
	else
		ck_assert_int_eq(d.reason, FW_REASON_PRIORITY);
	fw_plan_free(p);
	fw_plan_conf_free(conf);
	fw_cluster_free(cl);
	return kind;
}

START_TEST(main_pass_limit_refusal_blocks_nothing)
{
	ck_assert_int_eq(main_pass_second_job(false), FW_PLAN_WAITING);
	ck_assert_int_eq(main_pass_second_job(true), FW_PLAN_START_NOW);
}
END_TEST

START_TEST(input_errors)
{
	struct fw_cluster *cl = tp_simple(4);
	struct fw_cluster *other = tp_simple(5);
	struct fw_plan_conf *conf = fw_plan_conf_new();
	struct fw_err e;
	struct fw_plan *p = fw_plan_new(cl, conf, NOW, &e);
	struct fw_bitset *wrong = fw_bitset_new(5);
	struct fw_plan_job j = tp_job(1, 1, 3, 1, H);
	struct fw_plan_decision d;
	struct fw_plan_lic bad = { 4, 1 };
	struct fw_node_def nd = { .name = "n00", .usable = true };
	struct fw_cluster *nf = fw_cluster_new();

	ck_assert_int_eq(fw_plan_add_running(p, wrong, NOW + H, NULL, 0, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "4 nodes"));
	ck_assert_int_eq(fw_plan_add_running(p, cl->usable, NOW + H, &bad, 1, &e), -1);
	ck_assert_int_eq(fw_plan_add_resv(p, "r", cl->usable, NOW + H, NOW, &e), -1);
	ck_assert_str_eq(e.value, "r");
	ck_assert_int_eq(fw_plan_node_down(p, 4, &e), -1);
	ck_assert_int_eq(fw_plan_decide(p, &j, FW_PASS_BACKFILL, &d, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "partition index 3"));
	j = tp_job(1, 1, 0, 0, H);
	ck_assert_int_eq(fw_plan_decide(p, &j, FW_PASS_BACKFILL, &d, &e), -1);
	j = tp_job(1, 1, 0, 2, H);
	j.nodes_max = 1;
	ck_assert_int_eq(fw_plan_decide(p, &j, FW_PASS_BACKFILL, &d, &e), -1);
	j = tp_job(1, 1, 0, 1, H);
	j.req_nodes = wrong;
	ck_assert_int_eq(fw_plan_decide(p, &j, FW_PASS_BACKFILL, &d, &e), -1);
	j = tp_job(1, 1, 0, 1, H);
	j.resv = 0;
	ck_assert_int_eq(fw_plan_decide(p, &j, FW_PASS_BACKFILL, &d, &e), -1);
	/* cluster building errors */
	ck_assert_int_eq(fw_cluster_add_node(other, &nd, &e), -1);	/* finalised */
	ck_assert_int_eq(fw_cluster_add_node(nf, &nd, &e), 0);
	ck_assert_int_eq(fw_cluster_add_node(nf, &nd, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "twice"));
	ck_assert_ptr_null(fw_plan_new(nf, conf, NOW, &e));	/* not final */
	ck_assert_ptr_null(fw_cluster_nodes(other, "n0[0-5]", &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "unknown node 'n05'"));
	fw_cluster_free(nf);
	fw_bitset_free(wrong);
	fw_plan_free(p);
	fw_plan_conf_free(conf);
	fw_cluster_free(cl);
	fw_cluster_free(other);
}
END_TEST

START_TEST(sort_order_is_slurms)
{
	struct fw_cluster *cl = tp_begin();
	struct fw_plan_job j[5];
	size_t order[5];

	tp_nodes(cl, 2, 32, 0, -1);
	tp_part(cl, "lo", "0-1", 1);
	tp_part(cl, "hi", "0-1", 2);
	tp_end(cl);
	j[0] = tp_job(10, 500, 0, 1, H);	/* tier 1 */
	j[1] = tp_job(11, 100, 1, 1, H);	/* tier 2 beats priority */
	j[2] = tp_job(12, 500, 0, 1, H);
	j[2].submit = 5;			/* same prio, earlier submit */
	j[3] = tp_job(9, 500, 0, 1, H);
	j[3].submit = 10;			/* same as 10's submit: lower id */
	j[4] = tp_job(13, 1, 0, 1, H);
	j[4].resv = 0;				/* in a reservation: first */
	ck_assert_int_eq(j[0].resv, -1);	/* fw_plan_job_init: none */
	fw_plan_sort_index(cl, j, 5, order);
	ck_assert_uint_eq(j[order[0]].id, 13);
	ck_assert_uint_eq(j[order[1]].id, 11);
	ck_assert_uint_eq(j[order[2]].id, 12);
	ck_assert_uint_eq(j[order[3]].id, 9);
	ck_assert_uint_eq(j[order[4]].id, 10);
	ck_assert_int_lt(fw_plan_job_cmp(cl, &j[1], &j[0]), 0);
	ck_assert_int_gt(fw_plan_job_cmp(cl, &j[0], &j[3]), 0);
	ck_assert_int_eq(fw_plan_job_cmp(cl, &j[0], &j[0]), 0);
	fw_cluster_free(cl);
}
END_TEST

START_TEST(cluster_lookup)
{
	struct fw_cluster *cl = tp_begin();
	struct fw_bitset *b;
	struct fw_err e;
	char buf[32];

	tp_nodes(cl, 40, 32, 0, -1);	/* grows the name table */
	tp_part(cl, "all", "0-39", 1);
	tp_lic(cl, "matlab", 3);
	tp_end(cl);
	ck_assert_int_eq(fw_cluster_node_index(cl, "n17"), 17);
	ck_assert_int_eq(fw_cluster_node_index(cl, "n40"), -1);
	ck_assert_int_eq(fw_cluster_partition_index(cl, "all"), 0);
	ck_assert_int_eq(fw_cluster_license_index(cl, "matlab"), 0);
	ck_assert_int_eq(fw_cluster_license_index(cl, "abaqus"), -1);
	b = fw_cluster_nodes(cl, "n[01-03],n39", &e);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(fw_bitset_fmt(b, buf, sizeof(buf)), "1-3,39");
	fw_bitset_free(b);
	ck_assert_uint_eq(cl->ntypes, 1);
	ck_assert_uint_eq(cl->nislands, 0);
	fw_cluster_free(cl);
}
END_TEST

/* Node sets back to hostlist expressions: expected strings written by
 * hand, and a round trip through the independent expander
 * (fw_cluster_nodes) for every subset pattern below. */
START_TEST(cluster_hostlist)
{
	static const char *names[] = { "n1", "n2", "n3", "n5", "n9", "n10",
		"n11", "gpu08", "gpu09", "gpu10", "login", "x7", "n05" };
	const uint32_t nn = sizeof(names) / sizeof(names[0]);
	struct fw_cluster *cl = fw_cluster_new();
	struct fw_bitset *b = fw_bitset_new(nn), *back;
	struct fw_err e;
	char *s;

	for (uint32_t i = 0; i < nn; i++) {
		struct fw_node_def d = { .name = names[i], .cpus = 1,
					 .island = -1, .usable = true };

		ck_assert_int_eq(fw_cluster_add_node(cl, &d, &e), (int)i);
	}
	ck_assert_int_eq(fw_cluster_finalize(cl, &e), 0);
	s = fw_cluster_hostlist(cl, b);
	ck_assert_str_eq(s, "");
	free(s);
	fw_bitset_set_all(b);
	s = fw_cluster_hostlist(cl, b);
	ck_assert_str_eq(s, "n[1-3,5,9-11],gpu[08-10],login,x7,n05");
	free(s);
	fw_bitset_clear_all(b);
	fw_bitset_set(b, 1);
	s = fw_cluster_hostlist(cl, b);
	ck_assert_str_eq(s, "n2");
	free(s);
	fw_bitset_set(b, 0);
	fw_bitset_set(b, 3);
	fw_bitset_set(b, 8);
	fw_bitset_set(b, 9);
	s = fw_cluster_hostlist(cl, b);
	ck_assert_str_eq(s, "n[1-2,5],gpu[09-10]");
	free(s);
	for (uint32_t pat = 0; pat < (1u << nn); pat += 7) {
		fw_bitset_clear_all(b);
		for (uint32_t i = 0; i < nn; i++)
			if (pat & (1u << i))
				fw_bitset_set(b, i);
		s = fw_cluster_hostlist(cl, b);
		if (!*s) {
			free(s);
			continue;
		}
		back = fw_cluster_nodes(cl, s, &e);
		ck_assert_msg(back && fw_bitset_equal(back, b), "round trip of %s", s);
		fw_bitset_free(back);
		free(s);
	}
	fw_bitset_free(b);
	fw_cluster_free(cl);
}
END_TEST

static Suite *sched_suite_build(void)
{
	Suite *s = suite_create("plan_sched");
	TCase *tc = tcase_create("sched");

	tcase_add_test(tc, primer_fifo_with_backfill);
	tcase_add_test(tc, primer_one_job_at_a_time);
	tcase_add_test(tc, wide_job_reservation_and_backfill);
	tcase_add_test(tc, below_threshold_is_delayed_above_is_not);
	tcase_add_test(tc, age_threshold);
	tcase_add_test(tc, conservative_vs_easy);
	tcase_add_test(tc, depth_counts_per_partition);
	tcase_add_test(tc, resolution_rounds_ends_up);
	tcase_add_test(tc, window_edges);
	tcase_add_test(tc, end_of_window_state_persists);
	tcase_add_test(tc, licenses_over_time);
	tcase_add_test(tc, gpus_and_capacity_filter);
	tcase_add_test(tc, island_fits_in_one);
	tcase_add_test(tc, island_prefer_vs_strict);
	tcase_add_test(tc, island_too_small);
	tcase_add_test(tc, nodes_without_island);
	tcase_add_test(tc, bypass_counts);
	tcase_add_test(tc, per_cycle_limits);
	tcase_add_test(tc, main_pass_blocks_partition_and_nodes);
	tcase_add_test(tc, main_pass_threshold_does_not_block);
	tcase_add_test(tc, main_pass_primer_plain_fifo);
	tcase_add_test(tc, partition_tiers_and_limits);
	tcase_add_test(tc, alternative_partitions);
	tcase_add_test(tc, advanced_reservations);
	tcase_add_test(tc, core_reservation_shares_its_nodes);
	tcase_add_test(tc, required_excluded_down_nodes);
	tcase_add_test(tc, step_api_outcomes);
	tcase_add_test(tc, requeued_job_whole_nodes);
	tcase_add_test(tc, main_pass_limit_refusal_blocks_nothing);
	tcase_add_test(tc, input_errors);
	tcase_add_test(tc, sort_order_is_slurms);
	tcase_add_test(tc, oldest_job_gets_the_reservation);
	tcase_add_test(tc, oldest_started_next_oldest_reserved);
	tcase_add_test(tc, oldest_job_main_pass);
	tcase_add_test(tc, heads_cursor);
	tcase_add_test(tc, cluster_lookup);
	tcase_add_test(tc, cluster_hostlist);
	suite_add_tcase(s, tc);
	return s;
}

Suite *plan_sched_suite(void)
{
	return sched_suite_build();
}

int main(void)
{
	SRunner *sr = srunner_create(plan_sched_suite());

	srunner_add_suite(sr, plan_bitset_suite());
	srunner_add_suite(sr, plan_conf_suite());
	srunner_add_suite(sr, plan_prop_suite());
	srunner_add_suite(sr, plan_size_suite());
	srunner_add_suite(sr, plan_share_suite());
	srunner_add_suite(sr, plan_preempt_suite());
	return fw_test_run(sr);
}
