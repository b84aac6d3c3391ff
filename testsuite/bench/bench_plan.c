/*
 * bench_plan - the planner's hot path (see doc/perf-plan.md).
 *
 * Headline: 100,000 pending jobs on 10,000 nodes, backfill over the whole
 * queue (bf_max_job_test unlimited, conservative: every job may get a
 * reservation), job sizes 1-128 nodes (log-uniform: many small jobs, some
 * wide), time limits 10-120 min, 8 islands, 10 % GPU nodes with a GPU
 * partition, a license, and running jobs occupying ~70 % of the nodes.
 * Then growth curves: queue 1k..100k on 10k nodes, nodes 100..10k with
 * 100k jobs; EASY and the main pass for comparison.
 *
 * Usage: bench_plan [quick|headline|narrow|shared [N [easy|conservative [caps|weights]]]]
 * ("quick" skips the growth curves; "headline" and "narrow" run one case once, for
 * profiling; "shared" is the shared-node planner: see shared_world();
 * "caps" gives every GPU node a per-device limit of 1 GPU for one job
 * (fw_plan_node_now) that no running job lifts: the worst case of the
 * limits' cost, every multi-GPU job searched around 1,000 limited nodes;
 * "weights" gives the GPU nodes Weight=10: node-sharing jobs are placed
 * by weight, fw_plan_choose.c and fw_plan_eval.c)
 * Each figure is the best of 3 runs (the machine is shared).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fw_plan.h"

#define NOW ((fw_time_t)1700000040)	/* a multiple of 60 */

struct rng {
	uint64_t s;
};

static uint64_t rnd64(struct rng *r)
{
	return fw_splitmix64(&r->s);
}

static uint32_t rnd(struct rng *r, uint32_t n)
{
	return (uint32_t)(rnd64(r) % n);
}

/* Log-uniform in [1, max]: as many 1-2 node jobs as 64-128 node jobs
 * per doubling, which is what real queues look like. */
static uint32_t size_of(struct rng *r, uint32_t max)
{
	double x = (double)rnd(r, 1000000) / 1000000.0;
	uint32_t s = (uint32_t)floor(exp(x * log((double)max + 1)));

	return s < 1 ? 1 : (s > max ? max : s);
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct world {
	struct fw_cluster *cl;
	struct fw_bitset **run_nodes;
	fw_time_t *run_end;
	uint32_t nrun;
	struct fw_node_use *run_use;	/* shared: one node each */
	struct fw_plan_job *jobs;
	size_t njobs;
	bool caps;			/* "caps": GPU nodes limited to 1 */
};

static const struct fw_plan_lic lic1 = { 0, 1 };

/* weighted: the GPU nodes get Weight=10, the others 1, so that jobs
 * without GPUs are placed on the CPU nodes first (the rig's --gpu-weight) */
static struct fw_cluster *make_cluster(uint32_t n, bool shared, bool weighted)
{
	struct fw_cluster *cl = fw_cluster_new();
	struct fw_err e;
	struct fw_bitset *all = fw_bitset_new(n), *gpu = fw_bitset_new(n);
	uint32_t islands = n >= 800 ? 8 : 2;

	for (uint32_t i = 0; i < n; i++) {
		char name[32];
		bool is_gpu = i % 10 == 9;
		struct fw_node_def d = {
			.name = name, .cpus = is_gpu ? 64 : 128,
			.mem_mb = is_gpu ? 512000 : 256000, .gpus = is_gpu ? 4 : 0,
			.island = (int32_t)(i * islands / n), .usable = i % 997 != 5,
			.weight = weighted && is_gpu ? 10 : 1,
		};

		snprintf(name, sizeof(name), "c%05u", i);
		if (fw_cluster_add_node(cl, &d, &e) < 0)
			abort();
		fw_bitset_set(all, i);
		if (is_gpu)
			fw_bitset_set(gpu, i);
	}
	struct fw_partition_def pa = { .name = "batch", .nodes = all,
				       .priority_tier = 1 };
	struct fw_partition_def pg = { .name = "gpu", .nodes = gpu,
				       .priority_tier = 1 };
	if (fw_cluster_add_partition(cl, &pa, &e) < 0 ||
	    fw_cluster_add_partition(cl, &pg, &e) < 0 ||
	    fw_cluster_add_license(cl, "fluent", 20, &e) < 0 ||
	    fw_cluster_set_shared(cl, shared, &e) ||
	    fw_cluster_finalize(cl, &e))
		abort();
	fw_bitset_free(all);
	fw_bitset_free(gpu);
	return cl;
}

static void make_world(struct world *w, uint32_t nnodes, size_t njobs,
		       uint64_t seed, uint32_t maxjob)
{
	struct rng r = { seed };
	uint32_t maxsize = nnodes / 4 < maxjob ? nnodes / 4 : maxjob;
	uint32_t i = 0;

	memset(w, 0, sizeof(*w));
	w->cl = make_cluster(nnodes, false, false);
	/* running jobs on ~70 % of the nodes, in runs of 1..maxsize */
	w->run_nodes = calloc(nnodes, sizeof(*w->run_nodes));
	w->run_end = calloc(nnodes, sizeof(*w->run_end));
	while (i < nnodes) {
		uint32_t sz = size_of(&r, maxsize);
		bool busy = rnd(&r, 10) < 7;

		if (busy) {
			struct fw_bitset *b = fw_bitset_new(nnodes);

			for (uint32_t k = i; k < i + sz && k < nnodes; k++)
				fw_bitset_set(b, k);
			w->run_nodes[w->nrun] = b;
			w->run_end[w->nrun] = NOW + 60 * (fw_time_t)(1 + rnd(&r, 120));
			w->nrun++;
		}
		i += sz;
	}
	w->jobs = calloc(njobs, sizeof(*w->jobs));
	w->njobs = njobs;
	for (size_t k = 0; k < njobs; k++) {
		struct fw_plan_job *j = &w->jobs[k];
		bool gpu = rnd(&r, 20) == 0;

		fw_plan_job_init(j);
		j->id = (uint32_t)k + 1;
		j->priority = 1000 + rnd(&r, 100000);
		j->submit = NOW - rnd(&r, 86400);
		j->eligible = j->submit;
		j->part = gpu ? 1 : 0;
		j->nodes_min = gpu ? size_of(&r, maxsize / 8 ? maxsize / 8 : 1) :
			       size_of(&r, maxsize);
		j->gpus_per_node = gpu ? 1 + rnd(&r, 4) : 0;
		j->cpus_per_node = 1 + rnd(&r, 64);
		j->time_limit = 60 * (int64_t)(10 + rnd(&r, 111));
		j->uid = rnd(&r, 500);
		if (rnd(&r, 50) == 0) {
			j->lics = &lic1;
			j->nlics = 1;
		}
	}
	fw_plan_sort(w->cl, w->jobs, njobs);
}

/*
 * The shared-node case: the same 10,000 nodes (128 CPUs / 256 GB, every
 * 10th 64 CPUs / 512 GB / 4 GPUs) shared between jobs.  Every node runs
 * 1-4 jobs holding 8-48 CPUs and 4 GB per CPU each, ending in 1-120 min
 * (about 80 % of the CPUs busy).  The queue: 85 % one-node jobs of 1-64
 * CPUs (log-uniform) and 1-8 GB per CPU, 10 % 2-16 node jobs of 8-128 CPUs
 * per node, 5 % GPU jobs (1-4 GPUs, 1-4 nodes); 2 % need the license;
 * 10-120 min.  Half the queue repeats an earlier job's shape, as job
 * arrays and repeated submissions do.
 */
static void shared_world(struct world *w, uint32_t nnodes, size_t njobs,
			 uint64_t seed, bool weighted)
{
	struct rng r = { seed };

	memset(w, 0, sizeof(*w));
	w->cl = make_cluster(nnodes, true, weighted);
	w->run_use = calloc((size_t)nnodes * 4, sizeof(*w->run_use));
	w->run_end = calloc((size_t)nnodes * 4, sizeof(*w->run_end));
	for (uint32_t i = 0; i < nnodes; i++) {
		uint32_t cap = w->cl->nodes[i].cpus, used = 0;

		for (uint32_t k = 1 + rnd(&r, 4); k > 0; k--) {
			struct fw_node_use *u = &w->run_use[w->nrun];
			uint32_t c = 8 + rnd(&r, 41);

			if (used + c > cap)
				break;
			used += c;
			u->node = i;
			u->job = w->nrun + 1;
			u->cpus = c;
			u->mem_mb = 4000 * (uint64_t)c;
			w->run_end[w->nrun++] = NOW + 60 * (fw_time_t)(1 + rnd(&r, 120));
		}
	}
	w->jobs = calloc(njobs, sizeof(*w->jobs));
	w->njobs = njobs;
	for (size_t k = 0; k < njobs; k++) {
		struct fw_plan_job *j = &w->jobs[k];
		uint32_t kind = rnd(&r, 100);

		fw_plan_job_init(j);
		j->id = (uint32_t)k + 1;
		j->priority = 1000 + rnd(&r, 100000);
		j->submit = NOW - rnd(&r, 86400);
		j->eligible = j->submit;
		j->uid = rnd(&r, 500);
		if (k > 0 && rnd(&r, 2)) {
			const struct fw_plan_job *o = &w->jobs[rnd(&r, (uint32_t)k)];

			j->part = o->part;
			j->nodes_min = o->nodes_min;
			j->cpus_per_node = o->cpus_per_node;
			j->mem_per_node_mb = o->mem_per_node_mb;
			j->gpus_per_node = o->gpus_per_node;
			j->time_limit = o->time_limit;
			continue;
		}
		j->time_limit = 60 * (int64_t)(10 + rnd(&r, 111));
		if (kind < 85) {
			j->nodes_min = 1;
			j->cpus_per_node = size_of(&r, 64);
		} else if (kind < 95) {
			j->nodes_min = 2 + rnd(&r, 15);
			j->cpus_per_node = 8 + rnd(&r, 121);
		} else {
			j->part = 1;
			j->nodes_min = 1 + rnd(&r, 4);
			j->cpus_per_node = 1 + rnd(&r, 16);
			j->gpus_per_node = 1 + rnd(&r, 4);
		}
		j->mem_per_node_mb = 1000 * (uint64_t)j->cpus_per_node *
				     (1 + rnd(&r, 8));
		if (rnd(&r, 50) == 0) {
			j->lics = &lic1;
			j->nlics = 1;
		}
	}
	fw_plan_sort(w->cl, w->jobs, njobs);
}

static void free_world(struct world *w)
{
	free(w->run_use);
	for (uint32_t k = 0; w->run_nodes && k < w->nrun; k++)
		fw_bitset_free(w->run_nodes[k]);
	free(w->run_nodes);
	free(w->run_end);
	free(w->jobs);
	fw_cluster_free(w->cl);
}

struct outcome {
	double sec;
	size_t started, reserved, estimated, notwin, other;
	uint64_t digest;	/* of every decision: same plan, same digest */
	struct fw_plan_stats st;
};

/* A digest of the decisions (kind, start, partition, nodes of each job),
 * to tell that a change to the planner left every decision alone. */
static uint64_t decisions_digest(const struct fw_plan_result *res, size_t n)
{
	uint64_t h = 0;

	for (size_t k = 0; k < n; k++) {
		h = fw_mix64(h ^ ((uint64_t)res[k].kind << 32 ^
				  (uint32_t)res[k].part));
		h = fw_mix64(h ^ (uint64_t)res[k].start);
		for (uint32_t i = 0; i < res[k].nnodes && res[k].node_idx; i++)
			h = fw_mix64(h ^ res[k].node_idx[i]);
	}
	return h;
}

static void run_once(const struct world *w, const struct fw_plan_conf *conf,
		     enum fw_plan_pass pass, size_t njobs, struct outcome *o)
{
	struct fw_err e;
	struct fw_plan_result *res = malloc(njobs * sizeof(*res));
	double t = now_sec();
	struct fw_plan *p = fw_plan_new(w->cl, conf, NOW, &e);
	int rc;

	for (uint32_t k = 0; k < w->nrun; k++)
		if (w->run_use ?
		    fw_plan_add_running_use(p, &w->run_use[k], 1, w->run_end[k],
					    NULL, 0, &e) :
		    fw_plan_add_running(p, w->run_nodes[k], w->run_end[k], NULL,
					0, &e))
			abort();
	for (uint32_t i = 0; w->caps && i < w->cl->nnodes; i++) {
		struct fw_node_now nn = { .node = i, .gpus = 1 };

		if (w->cl->nodes[i].gpus && fw_plan_node_now(p, &nn, &e))
			abort();
	}
	rc = pass == FW_PASS_BACKFILL ?
	     fw_plan_backfill(p, w->jobs, njobs, res, &e) :
	     fw_plan_main(p, w->jobs, njobs, res, &e);
	if (rc) {
		fprintf(stderr, "pass failed: %s\n", e.msg);
		exit(1);
	}
	fw_plan_get_stats(p, &o->st);
	fw_plan_free(p);
	o->sec = now_sec() - t;
	o->started = o->reserved = o->estimated = o->notwin = o->other = 0;
	o->digest = decisions_digest(res, njobs);
	for (size_t k = 0; k < njobs; k++) {
		switch (res[k].kind) {
		case FW_PLAN_START_NOW: o->started++; break;
		case FW_PLAN_RESERVED: o->reserved++; break;
		case FW_PLAN_ESTIMATED: o->estimated++; break;
		case FW_PLAN_NOT_IN_WINDOW: o->notwin++; break;
		default: o->other++; break;
		}
	}
	fw_plan_results_free(res, njobs);
	free(res);
}

static void best_of(const struct world *w, const struct fw_plan_conf *conf,
		    enum fw_plan_pass pass, size_t njobs, int reps,
		    struct outcome *best)
{
	for (int k = 0; k < reps; k++) {
		struct outcome o;

		run_once(w, conf, pass, njobs, &o);
		if (k == 0 || o.sec < best->sec)
			*best = o;
	}
}

static void report(const char *what, uint32_t nodes, size_t jobs,
		   const struct outcome *o)
{
	printf("%-26s nodes=%6u jobs=%7zu  %8.1f ms  %6.2f us/job  "
	       "start=%zu resv=%zu est=%zu notwin=%zu other=%zu  "
	       "segs=%llu searches=%llu cached=%llu pushed=%llu quick=%llu "
	       "digest=%016llx\n",
	       what, nodes, jobs, o->sec * 1e3, o->sec * 1e6 / (double)jobs,
	       o->started, o->reserved, o->estimated, o->notwin, o->other,
	       (unsigned long long)o->st.segments,
	       (unsigned long long)o->st.searches,
	       (unsigned long long)o->st.cache_hits,
	       (unsigned long long)o->st.segs_pushed,
	       (unsigned long long)o->st.quick,
	       (unsigned long long)o->digest);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;
	bool narrow_only = argc > 1 && strcmp(argv[1], "narrow") == 0;
	bool headline_only = argc > 1 && strcmp(argv[1], "headline") == 0;
	struct fw_plan_conf *conf = fw_plan_conf_new();
	struct fw_plan_conf *easy = fw_plan_conf_new();
	struct fw_plan_conf *thr = fw_plan_conf_new();
	struct world w;
	struct outcome o;
	int rc = 0;

	if (argc > 1 && strcmp(argv[1], "shared") == 0) {
		static const size_t qs[] = { 1000, 3000, 10000, 30000, 100000 };
		size_t maxq = argc > 2 ? strtoul(argv[2], NULL, 10) : 30000;
		/* optional third argument: only "easy" or "conservative",
		 * only at maxq (for profiles) */
		const char *only = argc > 3 ? argv[3] : NULL;

		easy->resv_depth = 1;
		easy->resv_depth_set = true;
		shared_world(&w, 10000, maxq, 44,
			     argc > 4 && strcmp(argv[4], "weights") == 0);
		w.caps = argc > 4 && strcmp(argv[4], "caps") == 0;
		printf("shared nodes: running jobs %u\n", w.nrun);
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]) + 1; k++) {
			/* the growth curve below maxq, then maxq itself */
			size_t q = k < sizeof(qs) / sizeof(qs[0]) ? qs[k] : maxq;

			if (k < sizeof(qs) / sizeof(qs[0]) &&
			    (only || q >= maxq))
				continue;
			if (!only || strcmp(only, "conservative") == 0) {
				best_of(&w, conf, FW_PASS_BACKFILL, q, 1, &o);
				report("shared conservative", 10000, q, &o);
			}
			if (!only || strcmp(only, "easy") == 0) {
				best_of(&w, easy, FW_PASS_BACKFILL, q, 1, &o);
				report("shared easy", 10000, q, &o);
			}
		}
		if (!only) {
			best_of(&w, conf, FW_PASS_MAIN, maxq, 1, &o);
			report("shared main pass", 10000, maxq, &o);
		}
		free_world(&w);
		fw_plan_conf_free(conf);
		fw_plan_conf_free(easy);
		fw_plan_conf_free(thr);
		return 0;
	}
	if (narrow_only || headline_only) {
		make_world(&w, 10000, 100000, narrow_only ? 43 : 42,
			   narrow_only ? 4 : 128);
		best_of(&w, conf, FW_PASS_BACKFILL, w.njobs, 1, &o);
		report(narrow_only ? "backfill narrow (1-4)" :
		       "backfill conservative", 10000, w.njobs, &o);
		free_world(&w);
		fw_plan_conf_free(conf);
		fw_plan_conf_free(easy);
		fw_plan_conf_free(thr);
		return 0;
	}
	easy->resv_depth = 1;
	easy->resv_depth_set = true;
	/* seed 002-like: about half the queue below the threshold */
	thr->bf_min_prio_reserve = 50000;

	make_world(&w, 10000, 100000, 42, 128);
	printf("running jobs: %u\n", w.nrun);
	best_of(&w, conf, FW_PASS_BACKFILL, w.njobs, 3, &o);
	report("backfill conservative", 10000, w.njobs, &o);
	if (o.sec >= 1.0) {
		printf("TARGET MISSED: 100k jobs on 10k nodes took %.3f s (< 1 s)\n",
		       o.sec);
		rc = 1;
	}
	best_of(&w, thr, FW_PASS_BACKFILL, w.njobs, 3, &o);
	report("backfill prio threshold", 10000, w.njobs, &o);
	best_of(&w, easy, FW_PASS_BACKFILL, w.njobs, 3, &o);
	report("backfill easy", 10000, w.njobs, &o);
	best_of(&w, conf, FW_PASS_MAIN, w.njobs, 3, &o);
	report("main pass", 10000, w.njobs, &o);
	free_world(&w);
	/* Narrow jobs: nearly the whole queue fits in the window, so every
	 * job is searched and reserved (the hardest case for the timeline). */
	make_world(&w, 10000, 100000, 43, 4);
	best_of(&w, conf, FW_PASS_BACKFILL, w.njobs, 3, &o);
	report("backfill narrow (1-4)", 10000, w.njobs, &o);
	free_world(&w);
	make_world(&w, 10000, 100000, 42, 128);

	if (!quick) {
		static const size_t qs[] = { 1000, 3000, 10000, 30000, 100000 };
		static const uint32_t ns[] = { 100, 300, 1000, 3000, 10000 };

		printf("-- growth in the queue (10k nodes, conservative)\n");
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
			best_of(&w, conf, FW_PASS_BACKFILL, qs[k], 3, &o);
			report("queue", 10000, qs[k], &o);
		}
		free_world(&w);
		printf("-- growth in the queue, narrow jobs (every job searched)\n");
		make_world(&w, 10000, 100000, 43, 4);
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
			best_of(&w, conf, FW_PASS_BACKFILL, qs[k], 3, &o);
			report("queue narrow", 10000, qs[k], &o);
		}
		free_world(&w);
		printf("-- growth in the cluster (100k jobs, conservative)\n");
		for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
			make_world(&w, ns[k], 100000, 42, 128);
			best_of(&w, conf, FW_PASS_BACKFILL, w.njobs, 3, &o);
			report("nodes", ns[k], w.njobs, &o);
			free_world(&w);
		}
	} else {
		free_world(&w);
	}
	fw_plan_conf_free(conf);
	fw_plan_conf_free(easy);
	fw_plan_conf_free(thr);
	return rc;
}
