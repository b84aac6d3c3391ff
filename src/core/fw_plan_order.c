/*
 * fw_plan_order.c - names of kinds and reasons, and Slurm's queue order:
 * the sort, the oldest-first heads of ReservationOrder=submit, and the
 * jobs that join a pass late (requeued victims of its preemptions).
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_plan_int.h"

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

const char *fw_plan_reason_str(enum fw_plan_reason r)
{
	switch (r) {
	case FW_REASON_NONE: return "None";
	case FW_REASON_NODES: return "Resources";
	case FW_REASON_GPUS: return "Resources:GPU";
	case FW_REASON_NODES_DOWN: return "NodesDown";
	case FW_REASON_LICENSE: return "Licenses";
	case FW_REASON_RESERVED: return "ReservedForHigherPriority";
	case FW_REASON_ADV_RESV: return "Reservation";
	case FW_REASON_RESV_TIME: return "ReservationNotActive";
	case FW_REASON_PRIORITY: return "Priority";
	case FW_REASON_TOPOLOGY: return "Topology";
	case FW_REASON_PART_LIMIT: return "PartitionLimit";
	case FW_REASON_NEVER_FITS: return "PartitionTooSmall";
	case FW_REASON_BF_MAX_USER: return "BackfillMaxJobUser";
	case FW_REASON_BF_MAX_PART: return "BackfillMaxJobPart";
	case FW_REASON_BF_MAX_USER_PART: return "BackfillMaxJobUserPart";
	case FW_REASON_BF_MAX_ASSOC: return "BackfillMaxJobAssoc";
	case FW_REASON_BF_MAX_START: return "BackfillMaxJobStart";
	case FW_REASON_BF_MAX_TEST: return "BackfillMaxJobTest";
	case FW_REASON_START_FAILED: return "StartFailed";
	case FW_REASON_JOB_LIMIT: return "JobLimit";
	case FW_REASON_BEGIN_TIME: return "BeginTime";
	}
	return "?";
}

const char *fw_plan_kind_str(enum fw_plan_kind k)
{
	switch (k) {
	case FW_PLAN_START_NOW: return "start-now";
	case FW_PLAN_RESERVED: return "reserved";
	case FW_PLAN_ESTIMATED: return "estimated";
	case FW_PLAN_NOT_IN_WINDOW: return "not-in-window";
	case FW_PLAN_NOT_RUNNABLE: return "not-runnable";
	case FW_PLAN_WAITING: return "waiting";
	case FW_PLAN_SKIPPED: return "skipped";
	}
	return "?";
}

/* ------------------------------------------------------------------ */
/* Queue order                                                         */
/* ------------------------------------------------------------------ */

void fw_plan_job_init(struct fw_plan_job *j)
{
	memset(j, 0, sizeof(*j));
	j->resv = -1;
}

void job_key(const struct fw_cluster *cl, const struct fw_plan_job *j,
	     struct order_key *k)
{
	k->valid = true;
	k->has_resv = j->resv >= 0;
	k->head = j->head;
	k->tier = (j->part >= 0 && (uint32_t)j->part < cl->nparts) ?
		  cl->parts[j->part].priority_tier : 0;
	k->prio = j->priority;
	k->submit = j->submit;
	k->id = j->id;
}

int key_cmp(const struct order_key *a, const struct order_key *b)
{
	/* ReservationOrder=submit: the heads first, oldest first. */
	if (a->head != b->head)
		return a->head ? -1 : 1;
	if (a->head) {
		if (a->submit != b->submit)
			return a->submit < b->submit ? -1 : 1;
		if (a->id != b->id)
			return a->id < b->id ? -1 : 1;
		return 0;
	}
	if (a->has_resv != b->has_resv)
		return a->has_resv ? -1 : 1;
	if (a->tier != b->tier)
		return a->tier > b->tier ? -1 : 1;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

int fw_plan_job_cmp(const struct fw_cluster *cl, const struct fw_plan_job *a,
		    const struct fw_plan_job *b)
{
	struct order_key ka, kb;

	job_key(cl, a, &ka);
	job_key(cl, b, &kb);
	return key_cmp(&ka, &kb);
}

/* Oldest first: submit time, then job id (FCFS). */
static int age_cmp(const void *a, const void *b)
{
	const struct fw_plan_job *x = *(const struct fw_plan_job *const *)a;
	const struct fw_plan_job *y = *(const struct fw_plan_job *const *)b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

struct fw_plan_heads {
	const struct fw_plan_job *jobs;
	size_t *age;		/* candidates, oldest first */
	size_t nage, pos;
	uint32_t *waiting;	/* per partition: heads that did not start */
	uint8_t *taken;		/* per job: offered as a head */
	uint32_t depth;
	size_t last;		/* offered, outcome not yet reported */
};

struct fw_plan_heads *fw_plan_heads_new(const struct fw_cluster *cl,
					const struct fw_plan_conf *c,
					fw_time_t now,
					const struct fw_plan_job *jobs,
					size_t n)
{
	uint32_t depth = fw_plan_conf_depth(c);
	const struct fw_plan_job **cand;
	struct fw_plan_heads *h;

	if (!c->resv_by_submit || depth == 0)
		return NULL;
	h = fw_xcalloc(1, sizeof(*h));
	h->jobs = jobs;
	h->depth = depth;
	h->last = FW_PLAN_NO_HEAD;
	h->age = fw_xmalloc((n ? n : 1) * sizeof(*h->age));
	h->taken = fw_xcalloc(n ? n : 1, 1);
	h->waiting = fw_xcalloc(cl->nparts ? cl->nparts : 1,
				sizeof(*h->waiting));
	cand = fw_xmalloc((n ? n : 1) * sizeof(*cand));
	for (size_t i = 0; i < n; i++)
		if (jobs[i].resv < 0 && jobs[i].part >= 0 &&
		    (uint32_t)jobs[i].part < cl->nparts &&
		    fw_plan_conf_may_reserve(c, now, &jobs[i]))
			cand[h->nage++] = &jobs[i];
	qsort(cand, h->nage, sizeof(*cand), age_cmp);
	for (size_t i = 0; i < h->nage; i++)
		h->age[i] = (size_t)(cand[i] - jobs);
	free(cand);
	return h;
}

size_t fw_plan_heads_next(struct fw_plan_heads *h)
{
	if (!h)
		return FW_PLAN_NO_HEAD;
	while (h->pos < h->nage) {
		size_t x = h->age[h->pos++];

		if (h->waiting[h->jobs[x].part] < h->depth) {
			h->taken[x] = 1;
			h->last = x;
			return x;
		}
	}
	h->last = FW_PLAN_NO_HEAD;
	return FW_PLAN_NO_HEAD;
}

void fw_plan_heads_outcome(struct fw_plan_heads *h, enum fw_plan_kind kind)
{
	if (!h || h->last == FW_PLAN_NO_HEAD)
		return;
	/* Started, never runnable or not tried (per-cycle limits): the next
	 * oldest job takes its place. */
	if (kind != FW_PLAN_START_NOW && kind != FW_PLAN_NOT_RUNNABLE &&
	    kind != FW_PLAN_SKIPPED)
		h->waiting[h->jobs[h->last].part]++;
	h->last = FW_PLAN_NO_HEAD;
}

bool fw_plan_heads_taken(const struct fw_plan_heads *h, size_t i)
{
	return h && h->taken[i];
}

void fw_plan_heads_free(struct fw_plan_heads *h)
{
	if (!h)
		return;
	free(h->age);
	free(h->taken);
	free(h->waiting);
	free(h);
}

/* ------------------------------------------------------------------ */
/* Jobs that join a pass late (requeued victims)                       */
/* ------------------------------------------------------------------ */

/* A pass preempts few jobs: a short array kept in queue order. */
struct fw_plan_late {
	const struct fw_cluster *cl;
	const struct fw_plan_job **job;
	size_t *tag;
	size_t n, cap;
};

struct fw_plan_late *fw_plan_late_new(const struct fw_cluster *cl)
{
	struct fw_plan_late *l = fw_xcalloc(1, sizeof(*l));

	l->cl = cl;
	return l;
}

void fw_plan_late_add(struct fw_plan_late *l, const struct fw_plan_job *j,
		      size_t tag)
{
	size_t at;

	if (!l)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->job = fw_xrealloc(l->job, l->cap * sizeof(*l->job));
		l->tag = fw_xrealloc(l->tag, l->cap * sizeof(*l->tag));
	}
	/* after every job that goes before it or ties with it (ties keep
	   the order they were added in) */
	for (at = l->n; at > 0 && fw_plan_job_cmp(l->cl, l->job[at - 1], j) > 0;
	     at--) {
		l->job[at] = l->job[at - 1];
		l->tag[at] = l->tag[at - 1];
	}
	l->job[at] = j;
	l->tag[at] = tag;
	l->n++;
}

bool fw_plan_late_next(struct fw_plan_late *l, const struct fw_plan_job *next,
		       size_t *tag)
{
	if (!l || !l->n ||
	    (next && fw_plan_job_cmp(l->cl, l->job[0], next) > 0))
		return false;
	*tag = l->tag[0];
	l->n--;
	memmove(l->job, l->job + 1, l->n * sizeof(*l->job));
	memmove(l->tag, l->tag + 1, l->n * sizeof(*l->tag));
	return true;
}

size_t fw_plan_late_count(const struct fw_plan_late *l)
{
	return l ? l->n : 0;
}

void fw_plan_late_free(struct fw_plan_late *l)
{
	if (!l)
		return;
	free(l->job);
	free(l->tag);
	free(l);
}

/* ------------------------------------------------------------------ */
/* Sorting                                                             */
/* ------------------------------------------------------------------ */

struct sort_item {
	struct order_key k;
	size_t idx;
};

static int sort_item_cmp(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;
	int c = key_cmp(&x->k, &y->k);

	if (c)
		return c;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

void fw_plan_sort_index(const struct fw_cluster *cl,
			const struct fw_plan_job *jobs, size_t n,
			size_t *order)
{
	struct sort_item *it = fw_xmalloc((n ? n : 1) * sizeof(*it));

	for (size_t i = 0; i < n; i++) {
		job_key(cl, &jobs[i], &it[i].k);
		it[i].idx = i;
	}
	qsort(it, n, sizeof(*it), sort_item_cmp);
	for (size_t i = 0; i < n; i++)
		order[i] = it[i].idx;
	free(it);
}

void fw_plan_sort(const struct fw_cluster *cl, struct fw_plan_job *jobs,
		  size_t n)
{
	size_t *order = fw_xmalloc((n ? n : 1) * sizeof(*order));
	struct fw_plan_job *copy = fw_xmalloc((n ? n : 1) * sizeof(*copy));

	fw_plan_sort_index(cl, jobs, n, order);
	for (size_t i = 0; i < n; i++)
		copy[i] = jobs[order[i]];
	memcpy(jobs, copy, n * sizeof(*jobs));
	free(copy);
	free(order);
}

