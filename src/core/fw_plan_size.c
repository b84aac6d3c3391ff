/*
 * fw_plan_size.c - a job's request in Slurm's terms (tasks, CPUs per task,
 * tasks per node, a node range, memory, GPUs) as the planner's whole-node
 * shape: how many nodes, and what each of them must have.
 *
 * Why it is needed: most jobs are sized by task count (`-n 3`, `-c 2 -n 2`,
 * `--ntasks-per-node=2 -n 6`), not by node count.  Slurm's job record then
 * says "1 node minimum, 3 CPUs", and select/cons_tres spreads the tasks
 * over as many nodes as it takes.  Taken literally ("one node with 3
 * CPUs") such a job never fits a cluster of 2-CPU nodes.
 *
 * How: every node shape (fw_ctype) of the partition is tried as the node
 * the job would run on.  Its task capacity is what its CPUs, GPUs and
 * memory allow (and --ntasks-per-node); the node count follows, and the
 * per-node request is what the busiest of those nodes carries when the
 * tasks are spread evenly.  The shape whose count the partition can meet
 * with the fewest nodes wins, since the planner gives each planned node to
 * the job whole.  Any `n` nodes that each meet the per-node request hold
 * all tasks, so select_nodes() can always honour what the planner offers.
 * The cost of this over-estimate: a job is never planned on a mix of big
 * and small nodes (doc/sched-live.md).
 */
#include <stdint.h>

#include "fw_plan.h"

/* One way to run the job: n nodes, each with at least this much. */
struct shape_try {
	uint32_t nodes;
	uint32_t cpus;
	uint64_t mem_mb;
	uint32_t gpus;
	bool feasible;		/* the partition has `nodes` such nodes */
};

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : a;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint32_t req_cpt(const struct fw_job_request *r)
{
	return r->cpus_per_task ? r->cpus_per_task : 1;
}

static uint32_t req_tasks(const struct fw_job_request *r)
{
	uint64_t t = r->ntasks;

	if (!t)
		t = div_up(r->min_cpus, req_cpt(r));
	return t ? clamp32(t) : 1;
}

/* Tasks one node of type `t` can hold (0: none). */
static uint64_t type_capacity(const struct fw_ctype *t,
			      const struct fw_job_request *r)
{
	uint64_t cpt = req_cpt(r), k = t->cpus / cpt;

	if (r->pn_min_cpus > t->cpus || r->gpus_per_node > t->gpus ||
	    (r->gpus_per_job && !t->gpus))
		return 0;
	if (r->ntasks_per_node && k > r->ntasks_per_node)
		k = r->ntasks_per_node;
	if (r->gpus_per_task && k > t->gpus / r->gpus_per_task)
		k = t->gpus / r->gpus_per_task;
	if (r->mem_per_cpu_mb && k > t->mem_mb / (r->mem_per_cpu_mb * cpt))
		k = t->mem_mb / (r->mem_per_cpu_mb * cpt);
	else if (!r->mem_per_cpu_mb && r->mem_per_node_mb > t->mem_mb)
		k = 0;
	return k;
}

/* Per-node request when `tasks` are spread over `n` nodes. */
static void spread(struct shape_try *s, uint32_t n, uint32_t tasks,
		   const struct fw_job_request *r)
{
	uint64_t q = div_up(tasks, n), cpus = q * req_cpt(r);

	if (cpus < r->pn_min_cpus)
		cpus = r->pn_min_cpus;
	if (cpus < div_up(r->min_cpus, n))
		cpus = div_up(r->min_cpus, n);
	s->nodes = n;
	s->cpus = clamp32(cpus);
	s->mem_mb = r->mem_per_cpu_mb ? r->mem_per_cpu_mb * s->cpus
				      : r->mem_per_node_mb;
	if (r->gpus_per_node)
		s->gpus = r->gpus_per_node;
	else if (r->gpus_per_task)
		s->gpus = clamp32(q * r->gpus_per_task);
	else
		s->gpus = clamp32(div_up(r->gpus_per_job, n));
}

/* Usable nodes of partition `part` that meet s's per-node request. */
static uint64_t nodes_meeting(const struct fw_cluster *cl, int32_t part,
			      const struct shape_try *s)
{
	const uint32_t *cnt = cl->part_type_cnt + (size_t)part * cl->ntypes;
	uint64_t n = 0;

	for (uint32_t u = 0; u < cl->ntypes; u++)
		if (cnt[u] && cl->types[u].cpus >= s->cpus &&
		    cl->types[u].mem_mb >= s->mem_mb &&
		    cl->types[u].gpus >= s->gpus)
			n += cnt[u];
	return n;
}

/* The job on nodes of type t, or false if such a node holds no task or
 * the node range forbids the count it would take. */
static bool try_type(const struct fw_cluster *cl, int32_t part, uint32_t t,
		     const struct fw_job_request *r, uint32_t tasks,
		     struct shape_try *s)
{
	const struct fw_ctype *ty = &cl->types[t];
	uint64_t k = type_capacity(ty, r), n;

	if (!k)
		return false;
	n = div_up(tasks, k);
	if (n < r->nodes_min)
		n = r->nodes_min;
	if (r->gpus_per_job && n < div_up(r->gpus_per_job, ty->gpus))
		n = div_up(r->gpus_per_job, ty->gpus);
	if (!n)
		n = 1;
	if (n > UINT32_MAX || (r->nodes_max && n > r->nodes_max))
		return false;
	spread(s, (uint32_t)n, tasks, r);
	s->feasible = nodes_meeting(cl, part, s) >= n;
	return true;
}

static bool better(const struct shape_try *a, const struct shape_try *b)
{
	if (a->feasible != b->feasible)
		return a->feasible;
	if (a->nodes != b->nodes)
		return a->nodes < b->nodes;
	return a->cpus < b->cpus;
}

uint32_t fw_plan_job_size(const struct fw_cluster *cl, int32_t part,
			  const struct fw_job_request *r,
			  struct fw_plan_job *j)
{
	uint32_t tasks = req_tasks(r);
	struct shape_try best = { 0 }, s;
	bool found = false;

	if (cl->final && part >= 0 && (uint32_t)part < cl->nparts)
		for (uint32_t t = 0; t < cl->ntypes; t++) {
			const uint32_t *cnt = cl->part_type_cnt +
					      (size_t)part * cl->ntypes;

			if (!cnt[t] || !try_type(cl, part, t, r, tasks, &s))
				continue;
			if (!found || better(&s, &best))
				best = s;
			found = true;
		}
	if (!found)	/* as asked: the planner reports why it never fits */
		spread(&best, r->nodes_min ? r->nodes_min : 1, tasks, r);
	j->nodes_min = best.nodes;
	j->nodes_max = r->nodes_max > best.nodes ? r->nodes_max : 0;
	j->cpus_per_node = best.cpus;
	j->mem_per_node_mb = best.mem_mb;
	j->gpus_per_node = best.gpus;
	return tasks;
}
