/*
 * sim_engine.c - the discrete-event loop of fairway-sim (see sim_engine.h
 * for the order of events within one simulated second).
 */
#define _POSIX_C_SOURCE 200809L
#include "sim_engine.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sim_core.h"
#include "sim_preempt.h"

#define NEVER INT64_MAX

const char *sim_policy_name(enum sim_policy p)
{
	switch (p) {
	case SIM_POLICY_FAIRWAY: return "fairway";
	case SIM_POLICY_FIFO: return "fifo";
	case SIM_POLICY_EASY: return "easy";
	case SIM_POLICY_CONSERVATIVE: return "conservative";
	case SIM_POLICY_SERIAL: return "serial";
	}
	return "?";
}

int sim_policy_parse(const char *s, enum sim_policy *p)
{
	static const enum sim_policy all[] = {
		SIM_POLICY_FAIRWAY, SIM_POLICY_FIFO, SIM_POLICY_EASY,
		SIM_POLICY_CONSERVATIVE, SIM_POLICY_SERIAL,
	};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (s && !strcasecmp(s, sim_policy_name(all[i]))) {
			*p = all[i];
			return 0;
		}
	return -1;
}

/* ------------------------------------------------------------ the heap */

/* A min-heap of (time, job) events; ties in job order (trace order). */
struct ev {
	fw_time_t t;
	struct sim_rjob *j;
	uint32_t gen;   /* ends: the job's run (sim_rjob.gen) it ends */
};

struct heap {
	struct ev *e;
	size_t n, cap;
};

static bool ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->j < b->j);
}

static void heap_push_gen(struct heap *h, fw_time_t t, struct sim_rjob *j,
			  uint32_t gen)
{
	size_t i;

	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 256;
		h->e = fw_xrealloc(h->e, h->cap * sizeof(*h->e));
	}
	i = h->n++;
	h->e[i].t = t;
	h->e[i].j = j;
	h->e[i].gen = gen;
	while (i > 0 && ev_less(&h->e[i], &h->e[(i - 1) / 2])) {
		struct ev tmp = h->e[i];
		h->e[i] = h->e[(i - 1) / 2];
		h->e[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static void heap_push(struct heap *h, fw_time_t t, struct sim_rjob *j)
{
	heap_push_gen(h, t, j, 0);
}

static fw_time_t heap_top(const struct heap *h)
{
	return h->n ? h->e[0].t : NEVER;
}

static struct sim_rjob *heap_pop_gen(struct heap *h, uint32_t *gen)
{
	struct sim_rjob *j = h->e[0].j;
	size_t i = 0;

	if (gen)
		*gen = h->e[0].gen;
	h->e[0] = h->e[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && ev_less(&h->e[l], &h->e[m]))
			m = l;
		if (r < h->n && ev_less(&h->e[r], &h->e[m]))
			m = r;
		if (m == i)
			break;
		struct ev tmp = h->e[i];
		h->e[i] = h->e[m];
		h->e[m] = tmp;
		i = m;
	}
	return j;
}

static struct sim_rjob *heap_pop(struct heap *h)
{
	return heap_pop_gen(h, NULL);
}

/* --------------------------------------------------------------- lists */

struct list {
	struct sim_rjob **j;
	size_t n, cap;
};

static void list_add(struct list *l, struct sim_rjob *j)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->j = fw_xrealloc(l->j, l->cap * sizeof(*l->j));
	}
	j->pos = l->n;
	l->j[l->n++] = j;
}

static void list_del(struct list *l, struct sim_rjob *j)
{
	struct sim_rjob *last = l->j[--l->n];

	l->j[j->pos] = last;
	last->pos = j->pos;
}

/* ------------------------------------------------------------ the run */

struct engine {
	const struct sim_trace *t;
	const struct sim_cluster *c;
	struct sim_core *k;
	const struct sim_options *o;
	struct sim_result *res;
	struct sim_rjob *rj;
	size_t n;
	struct heap submits, ends, wakeups;
	struct list pend, run;
	fw_time_t begin, now;
	int64_t calc_period, bf_interval;
	fw_time_t prio_due, bf_due;
	bool dirty_main, dirty_bf;
	bool explained;
	size_t finished;
	/* Free nodes per partition (CPUs on a cluster that shares nodes): a
	   pass in which no eligible job fits in what is free in its partition
	   cannot start anything and has no other lasting effect (plans are
	   rebuilt every pass), so it is skipped. */
	bool *in_part;        /* nparts x nnodes membership */
	uint64_t *part_free;
	bool shared;
	uint64_t skipped;
};

/* Smallest begin + k * period that is >= t. */
static fw_time_t grid_next(fw_time_t begin, int64_t period, fw_time_t t)
{
	if (period <= 0 || t <= begin)
		return t > begin ? t : begin;
	return begin + ((t - begin + period - 1) / period) * period;
}

static void set_reason(struct sim_rjob *j, const char *why)
{
	j->out->reason = why;
}

static void reject(struct engine *e, struct sim_rjob *j, const char *why)
{
	if (j->state == SIM_R_PENDING)
		list_del(&e->pend, j);
	j->state = SIM_R_REJECTED;
	j->out->state = SIM_JOB_REJECTED;
	set_reason(j, why);
	sim_core_unbind(e->k, j);
	e->finished++;
}

/* What a free-space count counts of one node: the node, or on a shared
 * cluster the CPUs the job holds there (all of them for whole nodes). */
static uint64_t node_units(const struct engine *e, const struct sim_rjob *j,
			   uint32_t node)
{
	if (!e->shared)
		return 1;
	return j->shared ? j->cpus_per_node : e->c->node[node].cpus;
}

/* Job j starts (+1) or ends (-1) on these nodes. */
static void account_nodes(struct engine *e, const struct sim_rjob *j,
			  const uint32_t *nodes, uint32_t n, int sign)
{
	for (size_t p = 0; p < e->c->nparts; p++) {
		const bool *in = e->in_part + p * e->c->nnodes;
		uint64_t k = 0;

		for (uint32_t i = 0; i < n; i++)
			if (in[nodes[i]])
				k += node_units(e, j, nodes[i]);
		e->part_free[p] = sign > 0 ? e->part_free[p] - k
					   : e->part_free[p] + k;
	}
}

/* Could any eligible pending job start in what is free in its partition,
 * or by preempting?  (A necessary condition only.) */
static bool something_fits(const struct engine *e)
{
	for (size_t i = 0; i < e->pend.n; i++) {
		const struct sim_rjob *j = e->pend.j[i];
		uint64_t need = e->shared ? (uint64_t)j->nodes *
					    j->cpus_per_node : j->nodes;

		if (j->eligible <= e->now &&
		    (need <= e->part_free[j->part] || j->may_preempt))
			return true;
	}
	return false;
}

/* The trace job enters the queue. */
static void submit(struct engine *e, struct sim_rjob *j)
{
	const char *why = NULL;
	bool defaulted = false;

	j->out->submit = j->submit;
	if (sim_core_bind(e->k, j, &why, &defaulted)) {
		reject(e, j, why);
		return;
	}
	e->res->defaulted_partition += defaulted;
	j->out->account = j->account;
	j->out->partition = e->c->part[j->part].name;
	j->out->nodes = j->nodes;
	j->out->cpus = j->cpus;
	j->out->eligible = j->eligible;
	j->state = SIM_R_PENDING;
	list_add(&e->pend, j);
	sim_core_prio_one(e->k, e->now, j);
	j->out->priority = j->priority;
	if (j->eligible > e->now)
		heap_push(&e->wakeups, j->eligible, j);
	e->dirty_main = e->dirty_bf = true;
}

/* Jobs waiting for this one (SWF preceding job) may now be submitted. */
static void release_dependents(struct engine *e, struct sim_rjob *j)
{
	for (struct sim_rjob *d = j->dep_first; d; d = d->dep_next) {
		fw_time_t at = e->now + d->tj->think_time;

		d->submit = at > d->submit ? at : d->submit;
		if (d->eligible < d->submit)
			d->eligible = d->submit;
		heap_push(&e->submits, d->submit, d);
	}
	j->dep_first = NULL;
}

static void job_end(struct engine *e, struct sim_rjob *j)
{
	sim_core_job_end(e->k, e->now, j);
	account_nodes(e, j, j->out->node, j->out->nodes, -1);
	list_del(&e->run, j);
	j->state = SIM_R_DONE;
	j->out->state = SIM_JOB_DONE;
	j->out->end = e->now;
	sim_core_unbind(e->k, j);
	e->finished++;
	e->dirty_main = e->dirty_bf = true;
	release_dependents(e, j);
}

/* Engine side of a start decided by the core. */
static void start_cb(void *ctx, struct sim_rjob *j, const uint32_t *nodes,
		     uint32_t n, bool backfilled)
{
	struct engine *e = ctx;
	uint32_t *copy = fw_xmalloc((n ? n : 1) * sizeof(uint32_t));

	memcpy(copy, nodes, n * sizeof(uint32_t));
	list_del(&e->pend, j);
	list_add(&e->run, j);
	j->state = SIM_R_RUNNING;
	j->out->start = e->now;
	j->out->node = copy;
	j->out->nodes = n;
	j->out->node_share = 0;
	for (uint32_t i = 0; j->shared && i < n; i++)
		j->out->node_share += e->c->node[nodes[i]].cpus ?
			(double)j->cpus_per_node / e->c->node[nodes[i]].cpus : 1.0;
	j->out->backfilled = backfilled;
	j->out->killed = j->tj->run_time > j->run;
	j->out->priority = j->priority;
	sim_core_prio_cols(e->k, e->now, j, &j->out->cols);
	j->last_charge = e->now;
	account_nodes(e, j, nodes, n, +1);
	j->preempt_end = 0;
	j->gen++;
	heap_push_gen(&e->ends, e->now + j->run, j, j->gen);
}

/* ---------------------------------------------------------- preemption */

/* Keep the preempted run (for reports and checks) and count its loss. */
static void record_prun(struct engine *e, struct sim_rjob *j)
{
	struct sim_result *r = e->res;
	struct sim_prun *pr;
	double lost = (double)j->alloc_cpus * (double)(e->now - j->out->start);

	if (r->nprun == r->prun_cap) {
		r->prun_cap = r->prun_cap ? r->prun_cap * 2 : 16;
		r->prun = fw_xrealloc(r->prun, r->prun_cap * sizeof(*r->prun));
	}
	pr = &r->prun[r->nprun++];
	pr->job = (size_t)(j - e->rj);
	pr->start = j->out->start;
	pr->end = e->now;
	pr->node = (uint32_t *)j->out->node;
	pr->nodes = j->out->nodes;
	pr->cpus_per_node = j->shared ? j->cpus_per_node : 0;
	j->out->node = NULL;
	j->out->preempted++;
	j->out->work_lost += lost;
}

/* A requeued job is pending again as Slurm makes it: new submit time,
 * held until the requeue hold is over (sim_core_requeue). */
static void requeue(struct engine *e, struct sim_rjob *j)
{
	j->submit = e->now;
	j->eligible = e->now + SIM_REQUEUE_HOLD;
	j->state = SIM_R_PENDING;
	j->preempt_end = 0;
	j->out->start = -1;
	j->out->nodes = j->nodes;
	list_add(&e->pend, j);
	sim_core_requeue(e->k, e->now, j);
	j->out->priority = j->priority;
	heap_push(&e->wakeups, j->eligible, j);
}

/* The preemption of j takes effect now: its run is lost, its nodes are
 * free, it is requeued or cancelled. */
static void preempt_stop(struct engine *e, struct sim_rjob *j)
{
	sim_core_job_end(e->k, e->now, j);
	account_nodes(e, j, j->out->node, j->out->nodes, -1);
	list_del(&e->run, j);
	record_prun(e, j);
	e->dirty_main = e->dirty_bf = true;
	if (j->preempt_mode == SIM_PMODE_REQUEUE) {
		requeue(e, j);
		return;
	}
	j->state = SIM_R_DONE;
	j->out->state = SIM_JOB_CANCELLED;
	j->out->end = e->now;
	set_reason(j, "preempted (PreemptMode=CANCEL)");
	sim_core_unbind(e->k, j);
	e->finished++;
	release_dependents(e, j);
}

/* The core preempts j now (sim_preempt_fn).  A job that ends by itself
 * within its grace time just ends (Slurm only shortens its end time to
 * now + grace, and plans see that). */
static void preempt_cb(void *ctx, struct sim_rjob *j, int64_t grace,
		       uint32_t mode)
{
	struct engine *e = ctx;
	fw_time_t natural = j->out->start + j->run;

	if (j->state != SIM_R_RUNNING || j->preempt_end)
		return;
	if (e->now + grace >= natural) {
		/* Plans see Slurm's new end time, not the run time. */
		j->preempt_end = e->now + grace;
		j->preempt_mode = SIM_PMODE_UNSET;
		return;
	}
	j->preempt_end = e->now + grace;
	j->preempt_mode = mode;
	if (grace == 0)
		preempt_stop(e, j);
	else
		heap_push_gen(&e->ends, j->preempt_end, j, j->gen);
}

/* The end event of a run: its natural end, or its preemption. */
static void end_event(struct engine *e)
{
	uint32_t gen;
	struct sim_rjob *j = heap_pop_gen(&e->ends, &gen);

	if (j->state != SIM_R_RUNNING || gen != j->gen)
		return; /* a run that was preempted before */
	if (j->preempt_end == e->now && j->preempt_mode != SIM_PMODE_UNSET)
		preempt_stop(e, j);
	else if (!j->preempt_end || j->preempt_mode == SIM_PMODE_UNSET)
		job_end(e, j);
}

static int schedule(struct engine *e, enum sim_pass pass, struct fw_err *err)
{
	if (e->pend.n == 0)
		return 0;
	if (!something_fits(e)) {
		e->skipped++;
		return 0;
	}
	if (pass == SIM_PASS_BACKFILL)
		e->res->bf_passes++;
	else
		e->res->main_passes++;
	if (sim_core_schedule(e->k, e->now, pass, e->pend.j, e->pend.n,
			      e->run.j, e->run.n, start_cb, e, err))
		return -1;
	struct sim_rjob **never;
	const char **why;
	size_t nn = sim_core_never(e->k, &never, &why);
	for (size_t i = 0; i < nn; i++)
		if (never[i]->state == SIM_R_PENDING)
			reject(e, never[i], why[i]);
	/* bypass counts live in the jobs; copy for the report */
	return 0;
}

static void explain(struct engine *e, struct fw_err *err)
{
	FILE *out = e->o->explain_out ? e->o->explain_out : stdout;
	struct sim_rjob *j = NULL;
	char ts[32];

	e->explained = true;
	for (size_t i = 0; i < e->n; i++)
		if (e->rj[i].tj->id == e->o->explain_job)
			j = &e->rj[i];
	fprintf(out, "== job %u at %s (simulation time %+lld s)\n",
		e->o->explain_job, sim_fmt_time(e->now, ts, sizeof(ts)),
		(long long)(e->now - e->begin));
	if (!j) {
		fprintf(out, "no such job in the trace\n");
		return;
	}
	switch (j->state) {
	case SIM_R_FUTURE:
		fprintf(out, "not submitted yet (submit %s)\n",
			sim_fmt_time(j->submit, ts, sizeof(ts)));
		return;
	case SIM_R_REJECTED:
		fprintf(out, "rejected: %s\n", j->out->reason ? j->out->reason : "");
		return;
	case SIM_R_RUNNING:
	case SIM_R_DONE:
		fprintf(out, "%s since %s on ", j->state == SIM_R_RUNNING ? "running" : "done, started",
			sim_fmt_time(j->out->start, ts, sizeof(ts)));
		{
			struct fw_buf b = { 0 };
			sim_hostlist_compress(e->c, j->out->node, j->out->nodes, &b);
			fprintf(out, "%s (priority at start %u%s)\n", b.s ? b.s : "",
				j->out->priority,
				j->out->backfilled ? ", backfilled" : "");
			fw_buf_free(&b);
		}
		return;
	case SIM_R_PENDING:
		break;
	}
	if (sim_core_explain(e->k, e->now, j, e->pend.j, e->pend.n, e->run.j,
			     e->run.n, out, err))
		fprintf(out, "explain failed\n");
}

/* The time of the next batch, NEVER when the run is over. */
static fw_time_t next_time(const struct engine *e)
{
	fw_time_t t = heap_top(&e->submits);
	fw_time_t x;

	if ((x = heap_top(&e->ends)) < t)
		t = x;
	if ((x = heap_top(&e->wakeups)) < t)
		t = x;
	/* Priority passes only matter while something else will happen. */
	if (t != NEVER && e->pend.n && e->prio_due < t)
		t = e->prio_due > e->now ? e->prio_due : e->now + 1;
	if (e->bf_interval > 0 && e->dirty_bf && e->pend.n && e->bf_due < t)
		t = e->bf_due > e->now ? e->bf_due : e->now + 1;
	if (e->o->explain && !e->explained && e->o->explain_at < t &&
	    e->o->explain_at > e->now)
		t = e->o->explain_at;
	return t;
}

static int batch(struct engine *e, struct fw_err *err)
{
	bool passed = false;

	while (heap_top(&e->ends) == e->now)
		end_event(e);
	while (heap_top(&e->submits) == e->now)
		submit(e, heap_pop(&e->submits));
	while (heap_top(&e->wakeups) == e->now) {
		heap_pop(&e->wakeups);
		e->dirty_main = e->dirty_bf = true;
	}
	if (e->pend.n && e->now >= e->prio_due) {
		sim_core_prio_pass(e->k, e->now, e->pend.j, e->pend.n,
				   e->run.j, e->run.n);
		e->res->prio_passes++;
		e->prio_due = grid_next(e->begin, e->calc_period, e->now + 1);
		e->dirty_main = e->dirty_bf = true;
	}
	if (e->o->policy == SIM_POLICY_SERIAL) {
		if (e->dirty_main && e->run.n == 0 &&
		    schedule(e, SIM_PASS_SERIAL, err))
			return -1;
		e->dirty_main = false;
	} else if (e->bf_interval > 0 && e->dirty_bf && e->pend.n &&
		   (e->now >= e->bf_due || e->o->bf_on_change)) {
		if (schedule(e, SIM_PASS_BACKFILL, err))
			return -1;
		if (e->now >= e->bf_due)
			e->bf_due = grid_next(e->begin, e->bf_interval, e->now + 1);
		e->dirty_bf = e->dirty_main = false;
		passed = true;
	}
	if (!passed && e->dirty_main && e->o->policy != SIM_POLICY_SERIAL) {
		if (schedule(e, SIM_PASS_MAIN, err))
			return -1;
		e->dirty_main = false;
	}
	if (e->o->explain && !e->explained && e->now >= e->o->explain_at)
		explain(e, err);
	return 0;
}

/* Build the run's jobs from the trace; SWF dependencies chain jobs. */
static void init_jobs(struct engine *e)
{
	e->n = e->t->n;
	e->rj = fw_xcalloc(e->n ? e->n : 1, sizeof(*e->rj));
	e->res->job = fw_xcalloc(e->n ? e->n : 1, sizeof(*e->res->job));
	e->res->n = e->n;
	for (size_t i = 0; i < e->n; i++) {
		struct sim_rjob *j = &e->rj[i];
		const struct sim_job *tj = &e->t->job[i];
		struct sim_outjob *o = &e->res->job[i];

		j->tj = tj;
		j->out = o;
		j->state = SIM_R_FUTURE;
		j->submit = tj->submit;
		j->eligible = tj->eligible > tj->submit ? tj->eligible : tj->submit;
		o->id = tj->id;
		o->user = tj->user;
		o->account = tj->account;
		o->partition = tj->partition;
		o->qos = tj->qos;
		o->submit = j->submit;
		o->eligible = j->eligible;
		o->start = o->end = -1;
		o->nodes = tj->nodes;
		o->cpus = tj->cpus;
		o->state = SIM_JOB_UNFINISHED;
	}
	if (!e->o->swf_dependencies)
		return;
	/* Trace jobs by id (sorted copy of indices) to find predecessors. */
	size_t *idx = fw_xmalloc((e->n ? e->n : 1) * sizeof(size_t));
	size_t m = 0;
	for (size_t i = 0; i < e->n; i++)
		idx[m++] = i;
	for (size_t i = 0; i < e->n; i++) {
		struct sim_rjob *j = &e->rj[i];
		uint32_t dep = j->tj->dep_job;
		if (!dep)
			continue;
		for (size_t k = 0; k < m; k++) /* linear: dependencies are rare */
			if (e->t->job[idx[k]].id == dep && idx[k] != i) {
				struct sim_rjob *p = &e->rj[idx[k]];
				j->waits_for_dep = true;
				j->dep_next = p->dep_first;
				p->dep_first = j;
				break;
			}
	}
	free(idx);
}

static void finish_unfinished(struct engine *e)
{
	for (size_t i = 0; i < e->pend.n; i++)
		if (!e->pend.j[i]->out->reason)
			e->pend.j[i]->out->reason = "still pending when the run ended";
	for (size_t i = 0; i < e->n; i++) {
		struct sim_rjob *j = &e->rj[i];
		if (j->state == SIM_R_FUTURE) {
			j->out->reason = "its preceding job never ended";
			j->out->state = SIM_JOB_UNFINISHED;
		}
		j->out->bypass = j->bypass;
	}
}

int sim_run(const struct sim_trace *t, const struct sim_cluster *c,
	    struct sim_core *core, const struct sim_options *o,
	    struct sim_result *res, struct fw_err *err)
{
	struct engine e;
	struct timespec w0, w1;
	int rc = 0;
	size_t batches = 0;

	clock_gettime(CLOCK_MONOTONIC, &w0);
	memset(&e, 0, sizeof(e));
	memset(res, 0, sizeof(*res));
	e.t = t;
	e.c = c;
	e.k = core;
	e.o = o;
	e.res = res;
	res->cluster = c;
	res->policy = sim_policy_name(o->policy);
	res->preempt_type = sim_core_preempt_type(core);
	sim_core_on_preempt(core, preempt_cb, &e);
	res->trace_bad_lines = t->bad_lines;
	res->trace_not_started = t->not_started;
	init_jobs(&e);
	e.in_part = fw_xcalloc(c->nparts * c->nnodes + 1, sizeof(bool));
	e.part_free = fw_xcalloc(c->nparts + 1, sizeof(uint64_t));
	e.shared = !c->whole_nodes;
	for (size_t p = 0; p < c->nparts; p++) {
		for (size_t i = 0; i < c->part[p].nnodes; i++) {
			uint32_t nd = c->part[p].node[i];

			e.in_part[p * c->nnodes + nd] = true;
			e.part_free[p] += e.shared ? c->node[nd].cpus : 1;
		}
	}
	e.calc_period = sim_core_calc_period(core);
	e.bf_interval = sim_core_bf_interval(core);
	if (o->policy == SIM_POLICY_FIFO || o->policy == SIM_POLICY_SERIAL)
		e.bf_interval = -1;
	for (size_t i = 0; i < e.n; i++)
		if (!e.rj[i].waits_for_dep)
			heap_push(&e.submits, e.rj[i].submit, &e.rj[i]);
	e.begin = e.now = heap_top(&e.submits) == NEVER ? 0 : heap_top(&e.submits);
	e.prio_due = e.bf_due = e.begin;
	res->sim_begin = e.begin;

	fw_time_t last_estimate = t->n ? t->job[t->n - 1].submit : e.begin;
	for (fw_time_t next; (next = next_time(&e)) != NEVER;) {
		e.now = next;
		res->events++;
		if (batch(&e, err)) {
			rc = -1;
			break;
		}
		if (o->progress && (++batches & 1023) == 0)
			o->progress(o->progress_ctx, e.now, e.begin,
				    last_estimate > e.now ? last_estimate : e.now,
				    e.finished, e.n);
	}
	res->sim_end = e.now;
	if (rc == 0 && o->explain && !e.explained)
		explain(&e, err);
	finish_unfinished(&e);
	if (rc == 0)
		sim_core_shares(core, e.rj, e.n, res);
	for (size_t i = 0; i < e.n; i++)
		sim_core_unbind(core, &e.rj[i]);
	if (o->progress)
		o->progress(o->progress_ctx, e.now, e.begin, e.now, e.finished, e.n);
	res->skipped_passes = e.skipped;
	free(e.in_part);
	free(e.part_free);
	free(e.rj);
	free(e.submits.e);
	free(e.ends.e);
	free(e.wakeups.e);
	free(e.pend.j);
	free(e.run.j);
	clock_gettime(CLOCK_MONOTONIC, &w1);
	res->wall_sec = (double)(w1.tv_sec - w0.tv_sec) +
			(double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
	return rc;
}

void sim_result_free(struct sim_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		free((void *)r->job[i].node);
	for (size_t i = 0; i < r->nprun; i++)
		free(r->prun[i].node);
	free(r->prun);
	free(r->job);
	free(r->share);
	memset(r, 0, sizeof(*r));
}
