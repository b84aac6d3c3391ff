/*
 * The planner on shared nodes (fw_cluster_set_shared): hand-worked cases
 * and a property test.
 *
 * Hand-worked: every expected start and node below is worked out from the
 * amounts in the test (8-CPU / 16,000 MB nodes, one-minute slots), not
 * read back from the planner.
 *
 * Property (fixed seeds): random shared clusters (CPUs, memory, GPUs of two
 * types), running jobs holding random parts of nodes, a queue of random
 * per-node requests (some exclusive), one backfill pass with every start
 * taken on the suggested nodes.  Then, on a dense [node][slot] array built
 * from the running jobs, the started jobs and the protected reservations:
 *   1. no node's CPUs, memory, GPUs or typed GPUs are ever oversubscribed;
 *   2. every START_NOW / RESERVED start is the earliest one a brute-force
 *      search finds over the bookings of the jobs decided before it, and
 *      NOT_IN_WINDOW means no slot works;
 *   3. protection: starting what was started and planning again at the
 *      same time moves no protected job later.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_plan_util.h"

/* ------------------------------------------------------------ helpers */

struct sh_node {
	uint32_t cpus;
	uint64_t mem;
	uint32_t a100, v100;	/* typed GPUs (gres "gpu:a100", "gpu:v100") */
	uint32_t weight;	/* node Weight (0: Slurm's default 1) */
};

/* A shared cluster of the given nodes, one partition "all"; GRES 0 is
 * gpu:a100 and GRES 1 gpu:v100. */
static struct fw_cluster *sh_cluster(const struct sh_node *nd, uint32_t n,
				     bool whole_part)
{
	struct fw_cluster *cl = fw_cluster_new();
	struct fw_partition_def pd = { 0 };
	struct fw_bitset *all;
	struct fw_err e;

	ck_assert_int_eq(fw_cluster_add_gres(cl, "gpu:a100", &e), 0);
	ck_assert_int_eq(fw_cluster_add_gres(cl, "gpu:v100", &e), 1);
	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		struct fw_gres_count g[2] = { { 0, nd[i].a100 },
					      { 1, nd[i].v100 } };
		struct fw_node_def d = {
			.name = name, .cpus = nd[i].cpus, .mem_mb = nd[i].mem,
			.gpus = nd[i].a100 + nd[i].v100, .gres = g,
			.ngres = 2, .island = -1, .usable = true,
			.weight = nd[i].weight,
		};

		snprintf(name, sizeof(name), "n%u", i + 1);
		ck_assert_int_eq(fw_cluster_add_node(cl, &d, &e), (int)i);
	}
	all = fw_bitset_new(n);
	for (uint32_t i = 0; i < n; i++)
		fw_bitset_set(all, i);
	pd.name = "all";
	pd.nodes = all;
	pd.priority_tier = 1;
	pd.whole_nodes = whole_part;
	ck_assert_int_eq(fw_cluster_add_partition(cl, &pd, &e), 0);
	fw_bitset_free(all);
	ck_assert_int_eq(fw_cluster_set_shared(cl, true, &e), 0);
	ck_assert_int_eq(fw_cluster_finalize(cl, &e), 0);
	return cl;
}

static struct fw_plan_conf *sh_conf(void)
{
	struct fw_plan_conf *c = fw_plan_conf_new();

	c->bf_window = 24 * H;
	c->bf_resolution = MIN;
	return c;
}

/* A job of n nodes with cpus / mem per node for secs. */
static struct fw_plan_job sh_job(uint32_t id, uint32_t prio, uint32_t n,
				 uint32_t cpus, uint64_t mem, int64_t secs)
{
	struct fw_plan_job j = tp_job(id, prio, 0, n, secs);

	j.cpus_per_node = cpus;
	j.mem_per_node_mb = mem;
	return j;
}

struct world {
	struct fw_cluster *cl;
	struct fw_plan_conf *conf;
	struct fw_plan *p;
};

static void world_new(struct world *w, const struct sh_node *nd, uint32_t n,
		      bool whole_part)
{
	struct fw_err e;

	w->cl = sh_cluster(nd, n, whole_part);
	w->conf = sh_conf();
	w->p = fw_plan_new(w->cl, w->conf, NOW, &e);
	ck_assert_ptr_nonnull(w->p);
}

static void world_free(struct world *w)
{
	fw_plan_free(w->p);
	fw_plan_conf_free(w->conf);
	fw_cluster_free(w->cl);
}

static void run_use(struct world *w, uint32_t node, uint32_t cpus,
		    uint64_t mem, fw_time_t end)
{
	/* Running jobs are named 1000 + node for the holder checks. */
	struct fw_node_use u = { .node = node, .job = 1000 + node,
				 .cpus = cpus, .mem_mb = mem };
	struct fw_err e;

	ck_assert_int_eq(fw_plan_add_running_use(w->p, &u, 1, end, NULL, 0,
						 &e), 0);
}

/* Decide j in the backfill pass; a START_NOW is started on the suggested
 * nodes.  Returns the decision's kind, *start its start. */
static enum fw_plan_kind decide(struct world *w, const struct fw_plan_job *j,
				struct fw_plan_decision *d)
{
	struct fw_err e;

	ck_assert_int_eq(fw_plan_decide(w->p, j, FW_PASS_BACKFILL, d, &e), 0);
	if (d->kind == FW_PLAN_START_NOW)
		ck_assert_int_eq(fw_plan_started(w->p, NULL, &e), 0);
	return d->kind;
}

static const struct sh_node node8 = { 8, 16000, 0, 0, 0 };

/* ------------------------------------------------------- hand-worked */

/* A plan only takes, so a shape's answer bounds every larger shape's of
 * the same node set (fw_share_known).  One 8-CPU node is busy past the
 * 24-hour window: a 2-CPU job has no start in it; a 3-CPU job (larger in
 * every way) is answered by that bound without a search (a cache hit); a
 * 1-CPU job is smaller and is searched (no hit), with the same answer. */
static void no_start_in_window(struct world *w, uint32_t id, uint32_t cpus,
			       uint64_t hits)
{
	struct fw_plan_job j = sh_job(id, 100, 1, cpus, 1000, 20 * MIN);
	struct fw_plan_decision d;
	struct fw_plan_stats st;

	ck_assert_int_eq(decide(w, &j, &d), FW_PLAN_NOT_IN_WINDOW);
	fw_plan_get_stats(w->p, &st);
	ck_assert_uint_eq(st.cache_hits, hits);
}

START_TEST(larger_shapes_bounded_by_earlier_answers)
{
	struct world w;

	world_new(&w, &node8, 1, false);
	run_use(&w, 0, 8, 8000, NOW + 30 * H);
	no_start_in_window(&w, 1, 2, 0);
	no_start_in_window(&w, 2, 3, 1);
	no_start_in_window(&w, 3, 1, 1);
	world_free(&w);
}
END_TEST

/* While nothing is booked, a larger shape's answer is also an upper
 * bound: with EASY (one reservation), a 1-CPU job is protected at +60 min
 * (the node's 8 CPUs are busy until then); the unprotected 2-CPU and
 * 4-CPU jobs are estimated at +60 min by searches; a 3-CPU job lies
 * between them, so its start is known without a search (one cache hit). */
START_TEST(estimate_between_two_answers)
{
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_stats st;
	struct fw_plan_job p = sh_job(1, 900, 1, 1, 1000, 10 * MIN);
	struct fw_plan_job a = sh_job(2, 800, 1, 2, 1000, 20 * MIN);
	struct fw_plan_job b = sh_job(3, 700, 1, 4, 1000, 30 * MIN);
	struct fw_plan_job c = sh_job(4, 600, 1, 3, 1000, 25 * MIN);
	struct fw_err e;

	w.cl = sh_cluster(&node8, 1, false);
	w.conf = sh_conf();
	w.conf->resv_depth = 1;
	w.conf->resv_depth_set = true;
	w.p = fw_plan_new(w.cl, w.conf, NOW, &e);
	run_use(&w, 0, 8, 8000, NOW + 60 * MIN);
	ck_assert_int_eq(decide(&w, &p, &d), FW_PLAN_RESERVED);
	ck_assert_int_eq(decide(&w, &a, &d), FW_PLAN_ESTIMATED);
	ck_assert_int_eq(d.start, NOW + 60 * MIN);
	ck_assert_int_eq(decide(&w, &b, &d), FW_PLAN_ESTIMATED);
	ck_assert_int_eq(d.start, NOW + 60 * MIN);
	fw_plan_get_stats(w.p, &st);
	ck_assert_uint_eq(st.cache_hits, 0);
	ck_assert_int_eq(decide(&w, &c, &d), FW_PLAN_ESTIMATED);
	ck_assert_int_eq(d.start, NOW + 60 * MIN);
	fw_plan_get_stats(w.p, &st);
	ck_assert_uint_eq(st.cache_hits, 1);
	world_free(&w);
}
END_TEST

/* Eight 1-CPU jobs share one 8-CPU node; a ninth must wait for the first
 * to end (all run 10 min: the ninth starts at slot 10 on node 1). */
START_TEST(eight_one_cpu_jobs_share_a_node)
{
	struct world w;
	struct fw_plan_decision d;

	world_new(&w, &node8, 1, false);
	for (uint32_t i = 0; i < 8; i++) {
		struct fw_plan_job j = sh_job(i + 1, 100 - i, 1, 1, 1000,
					      10 * MIN);

		ck_assert_int_eq(decide(&w, &j, &d), FW_PLAN_START_NOW);
		ck_assert(d.shared);
		ck_assert_int_eq(d.nnodes, 1);
	}
	{
		struct fw_plan_job j = sh_job(9, 50, 1, 1, 1000, 10 * MIN);

		ck_assert_int_eq(decide(&w, &j, &d), FW_PLAN_RESERVED);
		ck_assert_int_eq(d.start, NOW + 10 * MIN);
	}
	world_free(&w);
}
END_TEST

/* Memory, not CPUs, limits: 6,000 MB jobs of 1 CPU on a 16,000 MB node:
 * two fit (12,000), the third waits for the first to end although 6 CPUs
 * are idle. */
START_TEST(memory_limits_a_node)
{
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_job a = sh_job(1, 300, 1, 1, 6000, 20 * MIN);
	struct fw_plan_job b = sh_job(2, 200, 1, 1, 6000, 30 * MIN);
	struct fw_plan_job c = sh_job(3, 100, 1, 1, 6000, 10 * MIN);

	world_new(&w, &node8, 1, false);
	ck_assert_int_eq(decide(&w, &a, &d), FW_PLAN_START_NOW);
	ck_assert_int_eq(decide(&w, &b, &d), FW_PLAN_START_NOW);
	ck_assert_int_eq(decide(&w, &c, &d), FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + 20 * MIN);
	ck_assert_int_eq(d.reason, FW_REASON_NODES);
	world_free(&w);
}
END_TEST

/* Running jobs hold parts of two nodes: n1 6 CPUs until +30 min, n2 4
 * CPUs until +60 min.  A protected 2-node job of 8 CPUs per node (16
 * CPUs) starts when both are empty, at +60 min, on n1 and n2.  A 2-CPU
 * job of 2 hours backfills now on n1 (2 CPUs left) -- no: it would still
 * run at +60 min and take n1's CPUs from the protected job, so it goes on
 * n2 only if n2 has room without touching the reservation: n2 has 4 free
 * now but the reservation needs all 8 from +60 min.  So it waits until
 * the reservation ends (+60 + 60 = +120 min).  A 2-CPU job of 20 min
 * fits now on n1 (ends before +60 min). */
START_TEST(protected_job_not_delayed_by_backfill)
{
	struct sh_node nd[2] = { node8, node8 };
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_job big = sh_job(1, 900, 2, 8, 1000, 60 * MIN);
	struct fw_plan_job longj = sh_job(2, 500, 1, 2, 1000, 2 * H);
	struct fw_plan_job shortj = sh_job(3, 400, 1, 2, 1000, 20 * MIN);

	world_new(&w, nd, 2, false);
	w.conf->bf_min_prio_reserve = 800;	/* only big is protected */
	run_use(&w, 0, 6, 1000, NOW + 30 * MIN);
	run_use(&w, 1, 4, 1000, NOW + 60 * MIN);
	ck_assert_int_eq(decide(&w, &big, &d), FW_PLAN_RESERVED);
	ck_assert(d.is_protected);
	ck_assert_int_eq(d.start, NOW + 60 * MIN);
	ck_assert_int_eq(d.nnodes, 2);
	/* What it waits for: n2's running job (n1's ends at +30 min). */
	ck_assert_int_eq(d.nholders, 1);
	ck_assert_int_eq(d.holders[0].kind, FW_HOLD_RUNNING);
	ck_assert_int_eq(d.holders[0].id, 1001);
	ck_assert_int_eq(d.holders[0].node, 1);
	ck_assert_int_eq(decide(&w, &longj, &d), FW_PLAN_ESTIMATED);
	ck_assert_int_eq(d.start, NOW + 120 * MIN);
	/* ... and the 2-hour job waits for big's reservation (seq 0). */
	ck_assert_int_eq(d.nholders, 1);
	ck_assert_int_eq(d.holders[0].kind, FW_HOLD_PLANNED);
	ck_assert_int_eq(d.holders[0].id, 0);
	ck_assert_int_eq(decide(&w, &shortj, &d), FW_PLAN_START_NOW);
	ck_assert(fw_bitset_test(d.nodes, 0) || fw_bitset_test(d.nodes, 1));
	world_free(&w);
}
END_TEST

/*
 * A requeued job whose begin time is still ahead (slurmctld's credential
 * delay, fw_plan_job.eligible ahead) is planned from it on.  n1 is full until
 * +60 min, n2 holds 4 of its 8 CPUs until +30 min.  r (4 CPUs, 2 h,
 * highest priority) may not start before +150 s: 4 CPUs of n2 are free
 * now, so without the begin time it starts now; with it, it is reserved
 * at the first step from +150 s, +180 s, on n2, reason BeginTime.  a (4
 * CPUs, 10 min) cannot start now (n2's free CPUs are r's from +3 min):
 * +30 min on n2.  b (4 CPUs, 3 min) ends at +3 min: it starts now.  b
 * bypassed a, not r, which is not in Slurm's queue yet.  In the main pass
 * r waits for its begin time and blocks nothing: a starts now.  A begin
 * time past the 24-hour window: no start in it, reason BeginTime.
 */
static void requeued_world(struct world *w)
{
	struct sh_node nd[2] = { node8, node8 };

	world_new(w, nd, 2, false);
	run_use(w, 0, 8, 1000, NOW + 60 * MIN);
	run_use(w, 1, 4, 1000, NOW + 30 * MIN);
}

START_TEST(requeued_job_planned_from_its_begin_time)
{
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_job r = sh_job(1, 900, 1, 4, 1000, 2 * H);
	struct fw_plan_job a = sh_job(2, 500, 1, 4, 1000, 10 * MIN);
	struct fw_plan_job b = sh_job(3, 400, 1, 4, 1000, 3 * MIN);
	struct fw_err e;
	uint32_t inc[3];

	requeued_world(&w);
	ck_assert_int_eq(decide(&w, &r, &d), FW_PLAN_START_NOW);
	world_free(&w);

	r.eligible = NOW + 150;
	requeued_world(&w);
	ck_assert_int_eq(decide(&w, &r, &d), FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + 3 * MIN);
	ck_assert_int_eq(d.reason, FW_REASON_BEGIN_TIME);
	ck_assert(d.is_protected);
	ck_assert(fw_bitset_test(d.nodes, 1) && !fw_bitset_test(d.nodes, 0));
	ck_assert_int_eq(decide(&w, &a, &d), FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + 30 * MIN);
	ck_assert_int_eq(decide(&w, &b, &d), FW_PLAN_START_NOW);
	ck_assert(d.backfilled);
	fw_plan_bypass(w.p, inc, 3);
	ck_assert_uint_eq(inc[0], 0);
	ck_assert_uint_eq(inc[1], 1);
	world_free(&w);

	requeued_world(&w);
	ck_assert_int_eq(fw_plan_decide(w.p, &r, FW_PASS_MAIN, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_WAITING);
	ck_assert_int_eq(d.reason, FW_REASON_BEGIN_TIME);
	ck_assert_int_eq(fw_plan_decide(w.p, &a, FW_PASS_MAIN, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_START_NOW);
	ck_assert_int_eq(fw_plan_started(w.p, NULL, &e), 0);
	world_free(&w);

	r.eligible = NOW + 25 * H;
	requeued_world(&w);
	ck_assert_int_eq(decide(&w, &r, &d), FW_PLAN_NOT_IN_WINDOW);
	ck_assert_int_eq(d.reason, FW_REASON_BEGIN_TIME);
	world_free(&w);
}
END_TEST

/*
 * Shards: select/cons_tres takes a job's shards on a node from one GPU.
 * n1 has 8 shards on 2 GPUs (4 per GPU: gres_unit 4), n2 8 shards that a
 * job may take from several GPUs (no unit, as with
 * MULTIPLE_SHARING_GRES_PJ).  shard:5 can only ever run on n2; shard:4
 * on either (n1 first, lowest index); with n1 alone, shard:5 never fits
 * (NOT_RUNNABLE, PartitionTooSmall) while shard:4 starts now.
 */
static struct fw_cluster *shard_cluster(uint32_t n)
{
	struct fw_cluster *cl = fw_cluster_new();
	struct fw_partition_def pd = { 0 };
	struct fw_gres_count g = { 0, 8 }, u = { 0, 4 };
	struct fw_bitset *all = fw_bitset_new(n);
	struct fw_err e;

	ck_assert_int_eq(fw_cluster_add_gres(cl, "shard", &e), 0);
	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		struct fw_node_def d = {
			.name = name, .cpus = 8, .mem_mb = 16000, .gpus = 2,
			.gres = &g, .ngres = 1, .island = -1, .usable = true,
			.gres_unit = i == 0 ? &u : NULL,
			.ngres_unit = i == 0 ? 1 : 0,
		};

		snprintf(name, sizeof(name), "n%u", i + 1);
		ck_assert_int_eq(fw_cluster_add_node(cl, &d, &e), (int)i);
		fw_bitset_set(all, i);
	}
	pd.name = "all";
	pd.nodes = all;
	ck_assert_int_eq(fw_cluster_add_partition(cl, &pd, &e), 0);
	fw_bitset_free(all);
	ck_assert_int_eq(fw_cluster_set_shared(cl, true, &e), 0);
	ck_assert_int_eq(fw_cluster_finalize(cl, &e), 0);
	return cl;
}

static enum fw_plan_kind shard_decide(uint32_t nnodes, uint32_t shards,
				      const char **node,
				      enum fw_plan_reason *reason)
{
	struct fw_cluster *cl = shard_cluster(nnodes);
	struct fw_plan_conf *conf = sh_conf();
	struct fw_err e;
	struct fw_plan *p = fw_plan_new(cl, conf, NOW, &e);
	struct fw_gres_count g = { 0, shards };
	struct fw_plan_job j = sh_job(1, 100, 1, 1, 1000, 10 * MIN);
	struct fw_plan_decision d;
	enum fw_plan_kind k;

	j.gres = &g;
	j.ngres = 1;
	ck_assert_int_eq(fw_plan_decide(p, &j, FW_PASS_BACKFILL, &d, &e), 0);
	k = d.kind;
	*reason = d.reason;
	*node = d.nodes && fw_bitset_test(d.nodes, 0) ? "n1" :
		d.nodes && fw_bitset_test(d.nodes, 1) ? "n2" : "-";
	fw_plan_free(p);
	fw_plan_conf_free(conf);
	fw_cluster_free(cl);
	return k;
}

START_TEST(shards_from_one_gpu)
{
	const char *node;
	enum fw_plan_reason r;

	ck_assert_int_eq(shard_decide(2, 5, &node, &r), FW_PLAN_START_NOW);
	ck_assert_str_eq(node, "n2");
	ck_assert_int_eq(shard_decide(2, 4, &node, &r), FW_PLAN_START_NOW);
	ck_assert_str_eq(node, "n1");
	ck_assert_int_eq(shard_decide(1, 5, &node, &r), FW_PLAN_NOT_RUNNABLE);
	ck_assert_int_eq(r, FW_REASON_NEVER_FITS);
	ck_assert_int_eq(shard_decide(1, 4, &node, &r), FW_PLAN_START_NOW);
	ck_assert_str_eq(node, "n1");
}
END_TEST

/*
 * What select/cons_tres gives one job now (fw_plan_node_now).  Both nodes
 * of shard_cluster have 2 GPUs with 4 shards each (8 per node).  A running
 * job holds 3 shards of each GPU of n1 until +30 min: n1 has 2 shards free
 * in total but 1 per GPU, and no GPU without shards in use, so its limits
 * are 1 shard and 0 whole GPUs.  n2 is idle.
 *  1. shard:2 does not start on n1 (1 per GPU) but on n2 (without the
 *     limits: on n1, the lowest node with 2 free).  The adapter then reads
 *     n2's limits back: its shards came from one GPU, so 1 GPU whole and 4
 *     shards (the other GPU).
 *  2. gpus:2 starts on neither: n1 has no GPU free of shards, n2 one.
 *     Neither changes before a job holding its devices ends: n1 at +30
 *     min (the running job), n2 at +10 min (job 1, started above); from
 *     then on the totals count again, so it is reserved on n2 at +10 min.
 *  3. shard:1 starts now on n1 (1 shard on one GPU).
 *  4. gpus:1 starts now on n2 (its GPU without shards).
 */
START_TEST(now_limits_of_gpus_and_shards)
{
	struct fw_cluster *cl = shard_cluster(2);
	struct fw_plan_conf *conf = sh_conf();
	struct fw_err e;
	struct fw_plan *p = fw_plan_new(cl, conf, NOW, &e);
	struct fw_gres_count held = { 0, 6 }, one = { 0, 1 }, two = { 0, 2 },
			     four = { 0, 4 };
	struct fw_node_use u = { .node = 0, .job = 1000, .cpus = 2,
				 .mem_mb = 1000, .gres = &held, .ngres = 1 };
	struct fw_node_now n1 = { .node = 0, .gpus = 0, .gres = &one,
				  .ngres = 1 };
	struct fw_node_now n2 = { .node = 1, .gpus = 1, .gres = &four,
				  .ngres = 1 };
	struct fw_plan_job ja = sh_job(1, 400, 1, 1, 1000, 10 * MIN);
	struct fw_plan_job jb = sh_job(2, 300, 1, 1, 1000, 10 * MIN);
	struct fw_plan_job jc = sh_job(3, 200, 1, 1, 1000, 10 * MIN);
	struct fw_plan_job jd = sh_job(4, 100, 1, 1, 1000, 10 * MIN);
	struct fw_plan_decision d;

	ck_assert_int_eq(fw_plan_add_running_use(p, &u, 1, NOW + 30 * MIN,
						 NULL, 0, &e), 0);
	ck_assert_int_eq(fw_plan_node_now(p, &n1, &e), 0);
	ja.gres = &two;
	ja.ngres = 1;
	jb.gpus_per_node = 2;
	jc.gres = &one;
	jc.ngres = 1;
	jd.gpus_per_node = 1;
	ck_assert_int_eq(fw_plan_decide(p, &ja, FW_PASS_BACKFILL, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_START_NOW);
	ck_assert(fw_bitset_test(d.nodes, 1) && !fw_bitset_test(d.nodes, 0));
	/* nor may select_nodes() choose n1 among the allowed nodes */
	ck_assert(fw_bitset_test(d.allowed, 1) && !fw_bitset_test(d.allowed, 0));
	ck_assert_int_eq(fw_plan_started(p, NULL, &e), 0);
	ck_assert_int_eq(fw_plan_node_now(p, &n2, &e), 0);
	ck_assert_int_eq(fw_plan_decide(p, &jb, FW_PASS_BACKFILL, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + 10 * MIN);
	ck_assert(fw_bitset_test(d.nodes, 1) && !fw_bitset_test(d.nodes, 0));
	ck_assert_int_eq(fw_plan_decide(p, &jc, FW_PASS_BACKFILL, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_START_NOW);
	ck_assert(fw_bitset_test(d.nodes, 0));
	ck_assert_int_eq(fw_plan_started(p, NULL, &e), 0);
	ck_assert_int_eq(fw_plan_decide(p, &jd, FW_PASS_BACKFILL, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_START_NOW);
	ck_assert(fw_bitset_test(d.nodes, 1) && !fw_bitset_test(d.nodes, 0));
	fw_plan_free(p);
	fw_plan_conf_free(conf);
	fw_cluster_free(cl);
}
END_TEST

/* Typed GPUs: n1 has 2 a100, n2 2 v100.  Both a100 are held until +45
 * min: a gpu:a100:1 job waits until then on n1 while n2's v100s are free;
 * a gpu:v100:1 job starts now on n2; an untyped 1-GPU job starts now on
 * n2 (the second v100). */
START_TEST(typed_gpus)
{
	struct sh_node nd[2] = { { 8, 16000, 2, 0, 0 }, { 8, 16000, 0, 2, 0 } };
	struct fw_gres_count a100 = { 0, 1 }, v100 = { 1, 1 }, held = { 0, 2 };
	struct fw_node_use u = { .node = 0, .cpus = 2, .mem_mb = 1000,
				 .gpus = 2, .gres = &held, .ngres = 1 };
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_job ja = sh_job(1, 300, 1, 1, 1000, 10 * MIN);
	struct fw_plan_job jv = sh_job(2, 200, 1, 1, 1000, 10 * MIN);
	struct fw_plan_job jg = sh_job(3, 100, 1, 1, 1000, 10 * MIN);
	struct fw_err e;

	world_new(&w, nd, 2, false);
	ck_assert_int_eq(fw_plan_add_running_use(w.p, &u, 1, NOW + 45 * MIN,
						 NULL, 0, &e), 0);
	ja.gpus_per_node = 1;
	ja.gres = &a100;
	ja.ngres = 1;
	jv.gpus_per_node = 1;
	jv.gres = &v100;
	jv.ngres = 1;
	jg.gpus_per_node = 1;
	ck_assert_int_eq(decide(&w, &ja, &d), FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + 45 * MIN);
	ck_assert(fw_bitset_test(d.nodes, 0));
	ck_assert_int_eq(d.reason, FW_REASON_GPUS);
	ck_assert_int_eq(decide(&w, &jv, &d), FW_PLAN_START_NOW);
	ck_assert(fw_bitset_test(d.nodes, 1) && !fw_bitset_test(d.nodes, 0));
	ck_assert_int_eq(decide(&w, &jg, &d), FW_PLAN_START_NOW);
	ck_assert(fw_bitset_test(d.nodes, 1));
	world_free(&w);
}
END_TEST

/* Whole nodes where asked for: with n1 half used until +30 min, an
 * exclusive 1-CPU job and any job of an OverSubscribe=EXCLUSIVE partition
 * wait until n1 is empty; a sharing job starts now. */
START_TEST(exclusive_and_whole_node_partition)
{
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_job x = sh_job(1, 300, 1, 1, 1000, 10 * MIN);
	struct fw_plan_job s = sh_job(2, 200, 1, 1, 1000, 10 * MIN);

	world_new(&w, &node8, 1, false);
	run_use(&w, 0, 4, 8000, NOW + 30 * MIN);
	x.exclusive = true;
	ck_assert_int_eq(decide(&w, &x, &d), FW_PLAN_RESERVED);
	ck_assert(!d.shared);
	ck_assert_int_eq(d.start, NOW + 30 * MIN);
	ck_assert_int_eq(decide(&w, &s, &d), FW_PLAN_START_NOW);
	world_free(&w);

	world_new(&w, &node8, 1, true);
	run_use(&w, 0, 4, 8000, NOW + 30 * MIN);
	ck_assert_int_eq(decide(&w, &s, &d), FW_PLAN_RESERVED);
	ck_assert(!d.shared);
	ck_assert_int_eq(d.start, NOW + 30 * MIN);
	world_free(&w);
}
END_TEST

/* Required nodes (--nodelist=n2) share n2: eight 1-CPU jobs all start
 * now there although n1 is idle; a 2-node job that requires n2 takes n2
 * and n1; a job that requires n2 and needs 8 CPUs waits for the eight
 * (10 min). */
START_TEST(required_nodes_share)
{
	struct sh_node nd[2] = { node8, node8 };
	struct world w;
	struct fw_plan_decision d;
	struct fw_bitset *n2;

	world_new(&w, nd, 2, false);
	n2 = tp_set(w.cl, "1");
	for (uint32_t i = 0; i < 8; i++) {
		struct fw_plan_job j = sh_job(i + 1, 100 - i, 1, 1, 1000,
					      10 * MIN);

		j.req_nodes = n2;
		ck_assert_int_eq(decide(&w, &j, &d), FW_PLAN_START_NOW);
		ck_assert(d.shared);
		ck_assert(fw_bitset_test(d.nodes, 1) &&
			  !fw_bitset_test(d.nodes, 0));
	}
	{
		struct fw_plan_job two = sh_job(9, 50, 2, 0, 0, 10 * MIN);
		struct fw_plan_job big = sh_job(10, 40, 1, 8, 1000, 10 * MIN);

		two.req_nodes = n2;
		ck_assert_int_eq(decide(&w, &two, &d), FW_PLAN_START_NOW);
		ck_assert(fw_bitset_test(d.nodes, 0) &&
			  fw_bitset_test(d.nodes, 1));
		big.req_nodes = n2;
		ck_assert_int_eq(decide(&w, &big, &d), FW_PLAN_RESERVED);
		ck_assert_int_eq(d.start, NOW + 10 * MIN);
		ck_assert(fw_bitset_test(d.nodes, 1));
	}
	fw_bitset_free(n2);
	world_free(&w);
}
END_TEST

/*
 * An advanced reservation of n1 for the next hour, a running job of 4 CPUs
 * on n1 until +20 min.  The reservation's jobs share n1: four 1-CPU jobs
 * start now beside the running job; a 6-CPU job of the reservation waits
 * for it (+20 min).  A job outside the reservation never gets n1 while the
 * reservation lasts: a 1-CPU job goes to n2, a 2-node job waits for the
 * reservation's end (+60 min).
 */
START_TEST(reservation_jobs_share_its_nodes)
{
	struct sh_node nd[2] = { node8, node8 };
	struct world w;
	struct fw_plan_decision d;
	struct fw_bitset *n1;
	struct fw_err e;
	int32_t r;

	world_new(&w, nd, 2, false);
	n1 = tp_set(w.cl, "0");
	run_use(&w, 0, 4, 1000, NOW + 20 * MIN);
	r = fw_plan_add_resv(w.p, "course", n1, NOW - MIN, NOW + H, &e);
	ck_assert_int_ge(r, 0);
	for (uint32_t i = 0; i < 4; i++) {
		struct fw_plan_job j = sh_job(i + 1, 100 - i, 1, 1, 1000,
					      10 * MIN);

		j.resv = r;
		ck_assert_int_eq(decide(&w, &j, &d), FW_PLAN_START_NOW);
		ck_assert(d.shared);
		ck_assert(fw_bitset_test(d.nodes, 0));
	}
	{
		struct fw_plan_job six = sh_job(5, 90, 1, 6, 1000, 10 * MIN);
		struct fw_plan_job out = sh_job(6, 80, 1, 1, 1000, 10 * MIN);
		struct fw_plan_job two = sh_job(7, 70, 2, 1, 1000, 10 * MIN);

		six.resv = r;
		ck_assert_int_eq(decide(&w, &six, &d), FW_PLAN_RESERVED);
		ck_assert_int_eq(d.start, NOW + 20 * MIN);
		ck_assert_int_eq(decide(&w, &out, &d), FW_PLAN_START_NOW);
		ck_assert(fw_bitset_test(d.nodes, 1) &&
			  !fw_bitset_test(d.nodes, 0));
		ck_assert_int_eq(decide(&w, &two, &d), FW_PLAN_RESERVED);
		ck_assert_int_eq(d.start, NOW + H);
	}
	fw_bitset_free(n1);
	world_free(&w);
}
END_TEST

/* Slurm oversubscribed a node (more than its CPUs in use): the plan
 * clamps, the node is full until the jobs end, nothing fails. */
START_TEST(oversubscribed_running_jobs_clamp)
{
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_job j = sh_job(1, 100, 1, 1, 100, 10 * MIN);

	world_new(&w, &node8, 1, false);
	run_use(&w, 0, 6, 1000, NOW + 10 * MIN);
	run_use(&w, 0, 6, 1000, NOW + 20 * MIN);
	ck_assert_int_eq(decide(&w, &j, &d), FW_PLAN_RESERVED);
	/* Until +10 the node is full; from +10 the second job's 6 CPUs
	 * (booked where there is room) leave 2: the job starts at +10. */
	ck_assert_int_eq(d.start, NOW + 10 * MIN);
	world_free(&w);
}
END_TEST

/* fw_plan_started_use books what the job really got: a 1-CPU job given 2
 * CPUs (a whole core of two threads) leaves 6 of 8, so a 7-CPU job waits. */
START_TEST(started_use_books_the_real_allocation)
{
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_job a = sh_job(1, 200, 1, 1, 1000, 10 * MIN);
	struct fw_plan_job b = sh_job(2, 100, 1, 7, 1000, 10 * MIN);
	struct fw_node_use u = { .node = 0, .cpus = 2, .mem_mb = 1000 };
	struct fw_err e;

	world_new(&w, &node8, 1, false);
	ck_assert_int_eq(fw_plan_decide(w.p, &a, FW_PASS_BACKFILL, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_START_NOW);
	ck_assert_int_eq(fw_plan_started_use(w.p, &u, 1, &e), 0);
	ck_assert_int_eq(decide(&w, &b, &d), FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + 10 * MIN);
	world_free(&w);
}
END_TEST

/* A CoreCnt reservation holding 3 of n1's 8 CPUs for the next hour: a
 * 6-CPU job outside it waits for the hour, a 5-CPU job starts now. */
START_TEST(partial_reservation_hold)
{
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_job six = sh_job(1, 200, 1, 6, 1000, 10 * MIN);
	struct fw_plan_job five = sh_job(2, 100, 1, 5, 1000, 10 * MIN);
	struct fw_node_use u = { .node = 0, .cpus = 3 };
	struct fw_bitset *n1;
	struct fw_err e;
	int32_t r;

	world_new(&w, &node8, 1, false);
	n1 = tp_set(w.cl, "0");
	r = fw_plan_add_partial_resv(w.p, "cores", n1, NOW - MIN, NOW + H,
				     &e);
	ck_assert_int_ge(r, 0);
	ck_assert_int_eq(fw_plan_resv_hold(w.p, r, &u, 1, &e), 0);
	ck_assert_int_eq(decide(&w, &six, &d), FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + H);
	ck_assert_int_eq(decide(&w, &five, &d), FW_PLAN_START_NOW);
	fw_bitset_free(n1);
	world_free(&w);
}
END_TEST

/* Main pass: a blocked partition gives Priority to a sharing job that
 * would fit, Resources to one that would not. */
START_TEST(main_pass_reasons)
{
	struct world w;
	struct fw_plan_decision d;
	struct fw_plan_job big = sh_job(1, 300, 1, 8, 1000, 10 * MIN);
	struct fw_plan_job small = sh_job(2, 200, 1, 2, 1000, 10 * MIN);
	struct fw_err e;

	world_new(&w, &node8, 1, false);
	run_use(&w, 0, 4, 1000, NOW + 30 * MIN);
	ck_assert_int_eq(fw_plan_decide(w.p, &big, FW_PASS_MAIN, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_WAITING);
	ck_assert_int_eq(d.reason, FW_REASON_NODES);
	ck_assert_int_eq(fw_plan_decide(w.p, &small, FW_PASS_MAIN, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_WAITING);
	ck_assert_int_eq(d.reason, FW_REASON_PRIORITY);
	world_free(&w);
}
END_TEST

/* ----------------------------------------------------------- property */

#define PMAXN 10
#define PMAXJ 40
#define PSLOTS 40	/* window of 40 one-minute slots */

struct rng {
	uint64_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
	return (uint32_t)(fw_splitmix64(&r->s) % n);
}

/* Dense bookings: used[node][slot][k] with slot PSLOTS = forever. */
enum { RK = 5 };	/* cpu, mem, gpu, a100, v100 */
struct dense {
	uint32_t n;
	int64_t cap[PMAXN][RK];
	int64_t used[PMAXN][PSLOTS + 1][RK];
};

static void dense_cap(struct dense *D, const struct sh_node *nd, uint32_t n)
{
	memset(D, 0, sizeof(*D));
	D->n = n;
	for (uint32_t i = 0; i < n; i++) {
		D->cap[i][0] = nd[i].cpus;
		D->cap[i][1] = (int64_t)nd[i].mem;
		D->cap[i][2] = nd[i].a100 + nd[i].v100;
		D->cap[i][3] = nd[i].a100;
		D->cap[i][4] = nd[i].v100;
	}
}

static void job_amounts(const struct fw_plan_job *j, int64_t *a)
{
	memset(a, 0, RK * sizeof(int64_t));
	a[0] = j->cpus_per_node;
	a[1] = (int64_t)j->mem_per_node_mb;
	a[2] = j->gpus_per_node;
	for (uint32_t g = 0; g < j->ngres; g++)
		a[3 + j->gres[g].idx] += (int64_t)j->gres[g].count;
}

static int32_t sl(int32_t s)
{
	return s > PSLOTS ? PSLOTS : s;
}

/* Book amounts a on node over slots [a0, b) (b > PSLOTS: forever). */
static void dense_book(struct dense *D, uint32_t node, int32_t a0, int32_t b,
		       const int64_t *a, bool whole)
{
	for (int32_t t = sl(a0); t <= PSLOTS && (t < b || b > PSLOTS); t++)
		for (int k = 0; k < RK; k++)
			D->used[node][t][k] += whole ? D->cap[node][k] -
						       D->used[node][t][k] :
						       a[k];
}

static bool dense_fits(const struct dense *D, uint32_t node, int32_t a0,
		       int32_t b, const int64_t *a, bool whole)
{
	for (int32_t t = sl(a0); t <= PSLOTS && (t < b || b > PSLOTS); t++)
		for (int k = 0; k < RK; k++) {
			int64_t need = whole ? D->cap[node][k] : a[k];

			if (D->used[node][t][k] + need > D->cap[node][k])
				return false;
		}
	return true;
}

static void dense_check(const struct dense *D, uint64_t seed)
{
	for (uint32_t i = 0; i < D->n; i++)
		for (int32_t t = 0; t <= PSLOTS; t++)
			for (int k = 0; k < RK; k++)
				if (D->used[i][t][k] > D->cap[i][k])
					ck_abort_msg("seed %llu: node %u slot "
						     "%d resource %d: %lld of "
						     "%lld",
						     (unsigned long long)seed,
						     i, t, k,
						     (long long)D->used[i][t][k],
						     (long long)D->cap[i][k]);
}

/* Node i's limit of GPUs one job can get now (gcap, -1 none) and the
 * slot until which it holds (guntil: the first end of a running job there
 * with GPUs; PSLOTS + 1: none ends). */
struct gcaps {
	int32_t gcap[PMAXN];
	int32_t guntil[PMAXN];
};

/* May a job sharing nodes that asks a start on node i at slot c? */
static bool dense_now_ok(const struct gcaps *g, uint32_t i, int32_t c,
			 const int64_t *a, bool whole)
{
	return whole || g->gcap[i] < 0 || a[2] <= g->gcap[i] ||
	       c >= g->guntil[i];
}

/* Earliest slot (or -1) with n nodes that fit, the required one (req,
 * -1: none) among them; brute force. */
static int32_t dense_earliest(const struct dense *D, const struct gcaps *gcap,
			      uint32_t n, int32_t len0, int32_t len,
			      const int64_t *a, bool whole, int32_t req,
			      int32_t cmin)
{
	for (int32_t c = cmin; c < PSLOTS; c++) {
		int32_t L = c == 0 ? len0 : len;
		int32_t b = L >= PSLOTS + 1 ? PSLOTS + 1 : c + L;
		uint32_t cnt = 0;

		if (b > PSLOTS)
			b = PSLOTS + 1;
		if (req >= 0 && (!dense_fits(D, (uint32_t)req, c, b, a, whole) ||
				 !dense_now_ok(gcap, (uint32_t)req, c, a, whole)))
			continue;
		for (uint32_t i = 0; i < D->n; i++)
			cnt += dense_fits(D, i, c, b, a, whole) &&
			       dense_now_ok(gcap, i, c, a, whole);
		if (cnt >= n)
			return c;
	}
	return -1;
}

struct pscen {
	struct sh_node nd[PMAXN];
	uint32_t n;
	struct fw_bitset *req[PMAXJ];	/* required node of job k, or NULL */
	struct fw_node_use run[PMAXN * 2];
	struct fw_gres_count rg[PMAXN * 2];
	int32_t run_end[PMAXN * 2];	/* slots */
	uint32_t nrun;
	struct fw_plan_job jobs[PMAXJ];
	struct fw_gres_count jg[PMAXJ];
	uint32_t njobs;
	struct gcaps g;		/* GPUs one job can get now */
};

static void pscen_build(struct pscen *S, uint64_t seed)
{
	struct rng r = { seed };

	memset(S, 0, sizeof(*S));
	S->n = 2 + rnd(&r, PMAXN - 1);
	for (uint32_t i = 0; i < S->n; i++) {
		S->nd[i].cpus = 4 + 4 * rnd(&r, 3);
		S->nd[i].mem = 4000 + 4000 * rnd(&r, 3);
		if (rnd(&r, 3) == 0)
			S->nd[i].a100 = 1 + rnd(&r, 2);
		else if (rnd(&r, 3) == 0)
			S->nd[i].v100 = 2;
		/* a third of the worlds weight their nodes (node choice in
		 * weight order); outside the random stream, so the worlds
		 * are otherwise those of the unweighted test */
		if (seed % 3 == 0)
			S->nd[i].weight = 1 + (uint32_t)((i * 7 + seed) % 3);
	}
	for (uint32_t i = 0; i < S->n; i++) {
		uint32_t k = rnd(&r, 3);

		for (uint32_t m = 0; m < k && S->nrun < PMAXN * 2; m++) {
			struct fw_node_use *u = &S->run[S->nrun];

			u->node = i;
			u->cpus = 1 + rnd(&r, S->nd[i].cpus / 2);
			u->mem_mb = 500 * (1 + rnd(&r, 4));
			if (S->nd[i].a100 && rnd(&r, 2)) {
				S->rg[S->nrun].idx = 0;
				S->rg[S->nrun].count = 1;
				u->gpus = 1;
				u->gres = &S->rg[S->nrun];
				u->ngres = 1;
			}
			S->run_end[S->nrun] = 1 + (int32_t)rnd(&r, 30);
			S->nrun++;
		}
	}
	S->njobs = 10 + rnd(&r, PMAXJ - 10);
	for (uint32_t k = 0; k < S->njobs; k++) {
		struct fw_plan_job *j = &S->jobs[k];

		*j = sh_job(k + 1, 1000 - k, 1 + rnd(&r, 3),
			    1 + rnd(&r, 8), 500 * (1 + rnd(&r, 8)),
			    (int64_t)(1 + rnd(&r, 25)) * MIN);
		/* Half the queue repeats an earlier shape (arrays, users
		 * submitting the same job): the plan's shape memo is used. */
		if (k > 0 && rnd(&r, 2)) {
			const struct fw_plan_job *o = &S->jobs[rnd(&r, k)];

			j->nodes_min = o->nodes_min;
			j->cpus_per_node = o->cpus_per_node;
			j->mem_per_node_mb = o->mem_per_node_mb;
			j->time_limit = o->time_limit;
			j->gpus_per_node = o->gpus_per_node;
			S->jg[k] = S->jg[o - S->jobs];
			j->gres = o->gres ? &S->jg[k] : NULL;
			j->ngres = o->ngres;
			j->exclusive = o->exclusive;
			continue;
		}
		j->exclusive = rnd(&r, 8) == 0;
		if (rnd(&r, 6) == 0) {
			S->req[k] = fw_bitset_new(S->n);
			fw_bitset_set(S->req[k], rnd(&r, S->n));
			j->req_nodes = S->req[k];
		}
		if (rnd(&r, 5) == 0) {
			j->gpus_per_node = 1;
			if (rnd(&r, 2)) {
				S->jg[k].idx = rnd(&r, 2);
				S->jg[k].count = 1;
				j->gres = &S->jg[k];
				j->ngres = 1;
			}
		}
	}
	/* A sixth of the jobs were requeued: a begin time ahead, on a step
	 * or between two (their own stream, so that the rest of the
	 * scenario is the same as without them). */
	r.s = seed ^ 0xbe91u;
	for (uint32_t k = 0; k < S->njobs; k++)
		if (rnd(&r, 6) == 0)
			S->jobs[k].eligible = NOW + (fw_time_t)rnd(&r, 40) *
						      30 + 1;
	/* A third of the GPU nodes have fewer GPUs for one job now than
	 * free in total (fw_plan_node_now: GPUs carrying shards). */
	r.s = seed ^ 0xca95u;
	for (uint32_t i = 0; i < S->n; i++) {
		uint32_t g = S->nd[i].a100 + S->nd[i].v100;

		S->g.gcap[i] = g && rnd(&r, 3) == 0 ? (int32_t)rnd(&r, g) : -1;
		S->g.guntil[i] = PSLOTS + 1;
		for (uint32_t k = 0; k < S->nrun; k++)
			if (S->run[k].node == i && S->run[k].gpus &&
			    S->run_end[k] < S->g.guntil[i])
				S->g.guntil[i] = S->run_end[k];
	}
}

/* One backfill pass over S; results into res (njobs). */
static struct fw_plan *pscen_plan(const struct pscen *S,
				  struct fw_cluster *cl,
				  struct fw_plan_conf *conf,
				  struct fw_plan_result *res,
				  const struct fw_plan_result *started,
				  const struct fw_plan_job *queue, uint32_t nq)
{
	struct fw_err e;
	struct fw_plan *p = fw_plan_new(cl, conf, NOW, &e);

	ck_assert_ptr_nonnull(p);
	for (uint32_t k = 0; k < S->nrun; k++)
		ck_assert_int_eq(fw_plan_add_running_use(
			p, &S->run[k], 1, NOW + S->run_end[k] * MIN, NULL, 0,
			&e), 0);
	/* Jobs started by an earlier pass run now. */
	for (uint32_t k = 0; started && k < S->njobs; k++) {
		const struct fw_plan_job *j = &S->jobs[k];

		if (started[k].kind != FW_PLAN_START_NOW)
			continue;
		for (uint32_t m = 0; m < started[k].nnodes; m++) {
			struct fw_node_use u = {
				.node = started[k].node_idx[m],
				.cpus = j->cpus_per_node,
				.mem_mb = j->mem_per_node_mb,
				.gpus = j->gpus_per_node,
				.gres = j->gres, .ngres = j->ngres,
			};
			struct fw_bitset *one;

			if (started[k].shared) {
				ck_assert_int_eq(fw_plan_add_running_use(
					p, &u, 1, NOW + j->time_limit, NULL,
					0, &e), 0);
				continue;
			}
			one = fw_bitset_new(cl->nnodes);
			fw_bitset_set(one, u.node);
			ck_assert_int_eq(fw_plan_add_running(
				p, one, NOW + j->time_limit, NULL, 0, &e), 0);
			fw_bitset_free(one);
		}
	}
	for (uint32_t i = 0; i < S->n; i++) {
		struct fw_node_now now = { .node = i,
					   .gpus = (uint32_t)S->g.gcap[i] };

		if (S->g.gcap[i] >= 0)
			ck_assert_int_eq(fw_plan_node_now(p, &now, &e), 0);
	}
	ck_assert_int_eq(fw_plan_backfill(p, queue, nq, res, &e), 0);
	return p;
}

static void check_pass(const struct pscen *S, const struct fw_plan_result *res,
		       uint64_t seed)
{
	/* The limits hold until the first end of a job with GPUs (or whole
	 * nodes) there: the running ones, then those started in the pass. */
	struct gcaps g = S->g;
	struct dense *D = calloc(1, sizeof(*D));
	int64_t a[RK];

	dense_cap(D, S->nd, S->n);
	for (uint32_t k = 0; k < S->nrun; k++) {
		const struct fw_node_use *u = &S->run[k];
		int64_t ua[RK] = { u->cpus, (int64_t)u->mem_mb, u->gpus,
				   u->ngres ? 1 : 0, 0 };

		/* Clamped as the plan books it: at every slot at most what
		 * is free there. */
		for (int32_t t = 0; t < S->run_end[k]; t++)
			for (int m = 0; m < RK; m++) {
				int64_t fr = D->cap[u->node][m] -
					     D->used[u->node][t][m];

				D->used[u->node][t][m] += ua[m] < fr ? ua[m] : fr;
			}
	}
	for (uint32_t k = 0; k < S->njobs; k++) {
		const struct fw_plan_job *j = &S->jobs[k];
		const struct fw_plan_result *r = &res[k];
		bool whole = !r->shared;
		int32_t L = (int32_t)(j->time_limit / MIN), c, want;
		bool books = r->kind == FW_PLAN_START_NOW ||
			     (r->kind == FW_PLAN_RESERVED && r->is_protected);

		/* A begin time ahead: no step before it (rounded up). */
		int32_t cmin = j->eligible > NOW ?
			(int32_t)((j->eligible - NOW + MIN - 1) / MIN) : 0;

		job_amounts(j, a);
		want = dense_earliest(D, &g, j->nodes_min, L, L, a,
				      whole && j->exclusive,
				      j->req_nodes ? (int32_t)fw_bitset_first_set(
					      j->req_nodes) : -1, cmin);
		if (cmin > 0)
			ck_assert_msg(r->kind != FW_PLAN_START_NOW &&
				      ((r->kind != FW_PLAN_RESERVED &&
					r->kind != FW_PLAN_ESTIMATED) ||
				       r->start >= j->eligible),
				      "seed %llu job %u: %s at %lld, begin "
				      "time %lld", (unsigned long long)seed,
				      j->id, fw_plan_kind_str(r->kind),
				      (long long)(r->start - NOW),
				      (long long)(j->eligible - NOW));
		if (r->kind == FW_PLAN_START_NOW || r->kind == FW_PLAN_RESERVED ||
		    r->kind == FW_PLAN_ESTIMATED) {
			c = (int32_t)((r->start - NOW) / MIN);
			if (r->shared)
				ck_assert_msg(c == want, "seed %llu job %u: "
					      "start %d, brute force %d",
					      (unsigned long long)seed, j->id,
					      c, want);
		} else if (r->kind == FW_PLAN_NOT_IN_WINDOW && !j->exclusive) {
			ck_assert_msg(want < 0, "seed %llu job %u: none, brute "
				      "force %d", (unsigned long long)seed,
				      j->id, want);
		}
		if (!books)
			continue;
		c = (int32_t)((r->start - NOW) / MIN);
		for (uint32_t m = 0; m < r->nnodes; m++) {
			ck_assert_msg(dense_fits(D, r->node_idx[m], c, c + L, a,
						 whole) &&
				      dense_now_ok(&g, r->node_idx[m], c,
						   a, whole),
				      "seed %llu job %u node %u does not fit",
				      (unsigned long long)seed, j->id,
				      r->node_idx[m]);
			dense_book(D, r->node_idx[m], c, c + L, a, whole);
			if (c == 0 && (whole || a[2]) &&
			    L < g.guntil[r->node_idx[m]])
				g.guntil[r->node_idx[m]] = L;
		}
	}
	dense_check(D, seed);
	free(D);
}

START_TEST(property_no_oversubscription)
{
	uint64_t seed = 0x5eed0000u + (uint64_t)_i;
	struct pscen *S = calloc(1, sizeof(*S));
	struct fw_plan_result res[PMAXJ], res2[PMAXJ];
	struct fw_plan_job queue[PMAXJ];
	uint32_t idx[PMAXJ], nq = 0;
	struct fw_cluster *cl;
	struct fw_plan_conf *conf = sh_conf();
	struct fw_plan *p;

	pscen_build(S, seed);
	cl = sh_cluster(S->nd, S->n, false);
	conf->bf_window = PSLOTS * MIN;
	conf->bf_min_prio_reserve = 990;	/* the first ten are protected */
	p = pscen_plan(S, cl, conf, res, NULL, S->jobs, S->njobs);
	check_pass(S, res, seed);
	fw_plan_free(p);
	/* Start what started; plan the rest again: protected jobs do not
	 * move later. */
	for (uint32_t k = 0; k < S->njobs; k++)
		if (res[k].kind != FW_PLAN_START_NOW) {
			idx[nq] = k;
			queue[nq++] = S->jobs[k];
		}
	p = pscen_plan(S, cl, conf, res2, res, queue, nq);
	for (uint32_t m = 0; m < nq; m++) {
		const struct fw_plan_result *a = &res[idx[m]], *b = &res2[m];

		if (a->kind == FW_PLAN_RESERVED && a->is_protected)
			ck_assert_msg(b->kind == FW_PLAN_START_NOW ||
				      (b->kind == FW_PLAN_RESERVED &&
				       b->start <= a->start),
				      "seed %llu job %u moved from %lld",
				      (unsigned long long)seed, idx[m] + 1,
				      (long long)(a->start - NOW));
	}
	fw_plan_free(p);
	fw_plan_results_free(res, S->njobs);
	fw_plan_results_free(res2, nq);
	fw_plan_conf_free(conf);
	fw_cluster_free(cl);
	for (uint32_t k = 0; k < S->njobs; k++)
		fw_bitset_free(S->req[k]);
	free(S);
}
END_TEST

/* The node indices of a bitset, as a string ("0,2"). */
static const char *idx_list(const struct fw_bitset *b, char *buf, size_t n)
{
	size_t o = 0;
	int64_t i;

	buf[0] = '\0';
	FW_BITSET_FOREACH(b, i)
		o += (size_t)snprintf(buf + o, n - o, "%s%lld", o ? "," : "",
				      (long long)i);
	return buf;
}

/* Node Weight: Slurm allocates the lowest weights first.  Four idle
 * 8-CPU nodes, n1 and n2 of weight 10 (a site's GPU nodes, kept for
 * last), n3 and n4 of weight 1.  A 1-CPU job starting now gets n3
 * (index 2), and select_nodes() is offered the fitting nodes of that
 * weight only (n3, n4), not the lowest-numbered block; a job of two
 * whole 8-CPU nodes (planned by whole nodes) then gets n4 (the only
 * weight-1 node with 8 CPUs free) and n1, and may use every free node
 * (n1, n2, n4: cons_tres applies the weights itself).  With all weights
 * equal the 1-CPU job gets n1 and may use every node.  Waiting jobs:
 * below. */
START_TEST(node_weight_lowest_first)
{
	struct sh_node nd[4] = { { 8, 16000, 0, 0, 10 }, { 8, 16000, 0, 0, 10 },
				 { 8, 16000, 0, 0, 1 }, { 8, 16000, 0, 0, 1 } };
	struct fw_plan_job a = sh_job(1, 200, 1, 1, 1000, 30 * MIN);
	struct fw_plan_job b = sh_job(2, 100, 2, 8, 1000, 30 * MIN);
	struct fw_plan_decision d;
	struct world w;
	char buf[64];

	world_new(&w, nd, 4, false);
	ck_assert_ptr_nonnull(w.cl->by_weight);
	ck_assert_int_eq(decide(&w, &a, &d), FW_PLAN_START_NOW);
	ck_assert_str_eq(idx_list(d.nodes, buf, sizeof(buf)), "2");
	ck_assert_str_eq(idx_list(d.allowed, buf, sizeof(buf)), "2,3");
	ck_assert_int_eq(decide(&w, &b, &d), FW_PLAN_START_NOW);
	ck_assert_str_eq(idx_list(d.nodes, buf, sizeof(buf)), "0,3");
	ck_assert_str_eq(idx_list(d.allowed, buf, sizeof(buf)), "0,1,3");
	world_free(&w);

	/* Waiting jobs are planned on nodes in weight order too: every
	 * node busy until +1 h; a 1-CPU job is reserved on n3 at +1 h, an
	 * 8-CPU job on n4 (n3 then has 7 CPUs), a job of two 8-CPU nodes on
	 * n1 and n2. */
	world_new(&w, nd, 4, false);
	for (uint32_t k = 0; k < 4; k++)
		run_use(&w, k, 8, 1000, NOW + H);
	a.id = 3;
	ck_assert_int_eq(decide(&w, &a, &d), FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + H);
	ck_assert_str_eq(idx_list(d.nodes, buf, sizeof(buf)), "2");
	b = sh_job(4, 90, 1, 8, 1000, 30 * MIN);
	ck_assert_int_eq(decide(&w, &b, &d), FW_PLAN_RESERVED);
	ck_assert_str_eq(idx_list(d.nodes, buf, sizeof(buf)), "3");
	b = sh_job(5, 80, 2, 8, 1000, 30 * MIN);
	ck_assert_int_eq(decide(&w, &b, &d), FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + H);
	ck_assert_str_eq(idx_list(d.nodes, buf, sizeof(buf)), "0,1");
	world_free(&w);

	for (int k = 0; k < 4; k++)
		nd[k].weight = 0;
	world_new(&w, nd, 4, false);
	ck_assert_ptr_null(w.cl->by_weight);
	ck_assert_int_eq(decide(&w, &a, &d), FW_PLAN_START_NOW);
	ck_assert_str_eq(idx_list(d.nodes, buf, sizeof(buf)), "0");
	ck_assert_str_eq(idx_list(d.allowed, buf, sizeof(buf)), "0,1,2,3");
	world_free(&w);
}
END_TEST

Suite *plan_share_suite(void)
{
	Suite *s = suite_create("plan_share");
	TCase *t = tcase_create("hand");
	TCase *q = tcase_create("property");

	tcase_add_test(t, eight_one_cpu_jobs_share_a_node);
	tcase_add_test(t, memory_limits_a_node);
	tcase_add_test(t, larger_shapes_bounded_by_earlier_answers);
	tcase_add_test(t, estimate_between_two_answers);
	tcase_add_test(t, protected_job_not_delayed_by_backfill);
	tcase_add_test(t, requeued_job_planned_from_its_begin_time);
	tcase_add_test(t, shards_from_one_gpu);
	tcase_add_test(t, now_limits_of_gpus_and_shards);
	tcase_add_test(t, typed_gpus);
	tcase_add_test(t, exclusive_and_whole_node_partition);
	tcase_add_test(t, oversubscribed_running_jobs_clamp);
	tcase_add_test(t, required_nodes_share);
	tcase_add_test(t, reservation_jobs_share_its_nodes);
	tcase_add_test(t, started_use_books_the_real_allocation);
	tcase_add_test(t, partial_reservation_hold);
	tcase_add_test(t, main_pass_reasons);
	tcase_add_test(t, node_weight_lowest_first);
	suite_add_tcase(s, t);
	tcase_add_loop_test(q, property_no_oversubscription, 0, 300);
	tcase_set_timeout(q, 120);
	suite_add_tcase(s, q);
	return s;
}
