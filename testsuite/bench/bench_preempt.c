/*
 * bench_preempt - the planner's backfill pass with preemption (issue 16;
 * doc/performance.md, "Preemption").
 *
 * State: 2,000 shared nodes of 64 CPUs / 256 GB in two partitions over
 * the same nodes, "owner" (PriorityTier 10) and "scav" (PriorityTier 1,
 * as preempt/partition_prio sees them).  Every node runs one preemptable
 * scavenger job (8-40 CPUs, 2 GB per CPU, started 0-4 h ago, ends within
 * 2 h) and one or two owner jobs (4-20 CPUs, not preemptable): 2,000
 * preemptable running jobs, about 75 % of the CPUs busy.  The queue:
 * 5,000 pending shared-node jobs, 40 % owner jobs that may preempt the
 * scavenger partition, 60 % scavenger jobs; 85 % one-node jobs of 1-64
 * CPUs (log-uniform), 15 % 2-8 node jobs of 8-32 CPUs per node; 1-4 GB
 * per CPU; time limits 10-120 min; conservative backfill over the whole
 * queue (fw_plan_backfill, bf_max_job_test unlimited).
 *
 * The same state without preemption (the scavenger jobs added as plain
 * running jobs, no job may preempt) is timed for comparison.  Each figure
 * is the median of REPS runs (default 7) of plan set-up plus the pass.
 *
 * With "fill", the live rig's state instead: every node entirely held by
 * one preemptable 64-CPU job (120 min), nothing else running.
 *
 * With "linear", the fill state on select/linear: every job on whole
 * nodes.  With preemption the plan is per node (fw_cluster_set_whole_jobs,
 * the fill jobs whole-node victims); without, it is the whole-node plan
 * that select/linear gets when nothing is preemptable.
 *
 * Usage: bench_preempt [REPS] [fill|linear]
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fw_plan.h"

#define NOW ((fw_time_t)1700000040)	/* a multiple of 60 */
#define NNODES 2000
#define NPEND 5000
#define OWNER 0				/* partition indices */
#define SCAV 1

struct rng {
	uint64_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
	return (uint32_t)(fw_splitmix64(&r->s) % n);
}

/* Log-uniform in [1, max]. */
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

/* One running job on one node. */
struct run {
	struct fw_node_use u;
	fw_time_t end;
	bool scav;
	struct fw_preempt_run pr;
};

enum model { SHARED, LINEAR_PER_NODE, LINEAR_WHOLE };

struct world {
	struct fw_cluster *cl;		/* with preemption */
	struct fw_cluster *cl_plain;	/* without (the same on shared) */
	bool linear;
	struct run *run;
	uint32_t nrun, npre;
	struct fw_plan_job *jobs;
	size_t njobs;
};

static const uint32_t scav_class = SCAV;

static struct fw_cluster *make_cluster(enum model m)
{
	struct fw_cluster *cl = fw_cluster_new();
	struct fw_bitset *all = fw_bitset_new(NNODES);
	struct fw_err e;

	for (uint32_t i = 0; i < NNODES; i++) {
		char name[32];
		struct fw_node_def d = {
			.name = name, .cpus = 64, .mem_mb = 256000,
			.island = -1, .usable = true,
		};

		snprintf(name, sizeof(name), "c%04u", i);
		if (fw_cluster_add_node(cl, &d, &e) < 0)
			abort();
		fw_bitset_set(all, i);
	}
	struct fw_partition_def po = { .name = "owner", .nodes = all,
				       .priority_tier = 10 };
	struct fw_partition_def ps = { .name = "scav", .nodes = all,
				       .priority_tier = 1 };
	if (fw_cluster_add_partition(cl, &po, &e) != OWNER ||
	    fw_cluster_add_partition(cl, &ps, &e) != SCAV ||
	    (m == LINEAR_PER_NODE ? fw_cluster_set_whole_jobs(cl, &e) :
	     fw_cluster_set_shared(cl, m == SHARED, &e)) ||
	    fw_cluster_finalize(cl, &e))
		abort();
	fw_bitset_free(all);
	return cl;
}

static void add_run(struct world *w, uint32_t node, uint32_t cpus,
		    fw_time_t start, fw_time_t end, bool scav)
{
	struct run *x = &w->run[w->nrun];

	x->u.node = node;
	x->u.job = 1000000 + w->nrun;
	x->u.cpus = cpus;
	x->u.mem_mb = 2000 * (uint64_t)cpus;
	x->end = end;
	x->scav = scav;
	x->pr = (struct fw_preempt_run){ .cls = SCAV, .prio = 1,
					 .start = start, .whole = w->linear };
	w->npre += scav;
	w->nrun++;
}

static void make_running(struct world *w, struct rng *r)
{
	w->run = calloc(NNODES * 3, sizeof(*w->run));
	for (uint32_t i = 0; i < NNODES; i++) {
		fw_time_t start = NOW - 60 * (fw_time_t)rnd(r, 240);

		add_run(w, i, 8 + rnd(r, 33), start,
			NOW + 60 * (fw_time_t)(1 + rnd(r, 120)), true);
		for (uint32_t k = 1 + rnd(r, 2); k > 0; k--)
			add_run(w, i, 4 + rnd(r, 17), NOW - 600,
				NOW + 60 * (fw_time_t)(1 + rnd(r, 120)), false);
	}
}

/* The live rig's state (contrib/perf/measure.sh --preempt): every node
 * entirely held by one preemptable 64-CPU fill job of 120 minutes. */
static void make_running_fill(struct world *w, struct rng *r)
{
	w->run = calloc(NNODES, sizeof(*w->run));
	for (uint32_t i = 0; i < NNODES; i++)
		add_run(w, i, 64, NOW - 60 * (fw_time_t)rnd(r, 5),
			NOW + 120 * 60, true);
}

static void make_queue(struct world *w, struct rng *r)
{
	w->jobs = calloc(NPEND, sizeof(*w->jobs));
	w->njobs = NPEND;
	for (size_t k = 0; k < NPEND; k++) {
		struct fw_plan_job *j = &w->jobs[k];

		fw_plan_job_init(j);
		j->id = (uint32_t)k + 1;
		j->priority = 1000 + rnd(r, 100000);
		j->submit = NOW - rnd(r, 86400);
		j->eligible = j->submit;
		j->uid = rnd(r, 500);
		j->part = rnd(r, 100) < 40 ? OWNER : SCAV;
		if (j->part == OWNER) {
			j->preempts = &scav_class;
			j->npreempts = 1;
		}
		if (rnd(r, 100) < 85) {
			j->nodes_min = 1;
			j->cpus_per_node = size_of(r, 64);
		} else {
			j->nodes_min = 2 + rnd(r, 7);
			j->cpus_per_node = 8 + rnd(r, 25);
		}
		j->mem_per_node_mb = 1000 * (uint64_t)j->cpus_per_node *
				     (1 + rnd(r, 4));
		j->time_limit = 60 * (int64_t)(10 + rnd(r, 111));
	}
}

struct outcome {
	double sec;
	size_t started, reserved, victims, with_victims;
};

/* Plan set-up and one backfill pass over the whole queue. */
static void run_once(const struct world *w, const struct fw_plan_conf *conf,
		     bool preempt, struct outcome *o)
{
	struct fw_err e;
	struct fw_plan_result *res = malloc(w->njobs * sizeof(*res));
	struct fw_bitset *one = fw_bitset_new(NNODES);
	double t = now_sec();
	struct fw_plan *p = fw_plan_new(preempt ? w->cl : w->cl_plain, conf,
					NOW, &e);

	for (uint32_t k = 0; k < w->nrun; k++) {
		const struct run *x = &w->run[k];
		int rc;

		if (preempt && x->scav) {
			rc = fw_plan_add_running_preemptable(p, &x->u, 1, x->end,
							     NULL, 0, &x->pr, &e);
		} else if (w->linear) {
			fw_bitset_clear_all(one);
			fw_bitset_set(one, x->u.node);
			rc = fw_plan_add_running(p, one, x->end, NULL, 0, &e);
		} else {
			rc = fw_plan_add_running_use(p, &x->u, 1, x->end, NULL,
						     0, &e);
		}
		if (rc)
			abort();
	}
	if (fw_plan_backfill(p, w->jobs, w->njobs, res, &e)) {
		fprintf(stderr, "pass failed: %s\n", e.msg);
		exit(1);
	}
	fw_plan_free(p);
	fw_bitset_free(one);
	memset(o, 0, sizeof(*o));
	o->sec = now_sec() - t;
	for (size_t k = 0; k < w->njobs; k++) {
		o->started += res[k].kind == FW_PLAN_START_NOW;
		o->reserved += res[k].kind == FW_PLAN_RESERVED;
		o->victims += res[k].nvictims;
		o->with_victims += res[k].nvictims > 0;
	}
	fw_plan_results_free(res, w->njobs);
	free(res);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void median_of(const struct world *w, const struct fw_plan_conf *conf,
		      bool preempt, int reps, const char *what)
{
	double *t = calloc((size_t)reps, sizeof(double));
	struct outcome o;

	for (int k = 0; k < reps; k++) {
		run_once(w, conf, preempt, &o);
		t[k] = o.sec;
	}
	qsort(t, (size_t)reps, sizeof(double), cmp_d);
	printf("%-22s nodes=%u pending=%zu running=%u preemptable=%u  "
	       "median %7.1f ms (min %7.1f, max %7.1f, %d runs)  "
	       "start=%zu resv=%zu preempting=%zu victims=%zu\n",
	       what, NNODES, w->njobs, w->nrun, preempt ? w->npre : 0,
	       t[reps / 2] * 1e3, t[0] * 1e3, t[reps - 1] * 1e3, reps,
	       o.started, o.reserved, o.with_victims, o.victims);
	fflush(stdout);
	free(t);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 7;
	bool linear = argc > 2 && !strcmp(argv[2], "linear");
	bool fill = linear || (argc > 2 && !strcmp(argv[2], "fill"));
	struct fw_plan_conf *conf = fw_plan_conf_new();
	struct rng r = { 16 };
	struct world w;

	if (reps < 1)
		reps = 1;
	memset(&w, 0, sizeof(w));
	w.linear = linear;
	w.cl = make_cluster(linear ? LINEAR_PER_NODE : SHARED);
	w.cl_plain = linear ? make_cluster(LINEAR_WHOLE) : w.cl;
	if (fill)
		make_running_fill(&w, &r);
	else
		make_running(&w, &r);
	make_queue(&w, &r);
	fw_plan_sort(w.cl, w.jobs, w.njobs);	/* the same order for both */
	median_of(&w, conf, true, reps, "backfill preemption");
	median_of(&w, conf, false, reps, "backfill no preemption");
	free(w.run);
	free(w.jobs);
	if (w.cl_plain != w.cl)
		fw_cluster_free(w.cl_plain);
	fw_cluster_free(w.cl);
	fw_plan_conf_free(conf);
	return 0;
}
