/*
 * fw_plan.c - the planner's decisions: main pass, backfill pass, and the
 * step API both are built on (see fw_plan.h for the model).
 *
 * One decision = one job in queue order:
 *   1. per-cycle limits (bf_max_job_*), counted like Slurm's backfill;
 *   2. per partition the job may use: static checks (partition limits,
 *      enough capable nodes, islands), then the earliest start in the
 *      timeline (fw_tl_search), with the island policy;
 *   3. the best partition wins (earliest start, then listed order);
 *   4. START_NOW waits for the adapter's outcome; a protected job's
 *      reservation is committed to the timeline at once; an unprotected
 *      job only gets an estimate; the reason/blocker of a job that cannot
 *      start now is worked out from the "run view" (nodes idle now).
 *
 * Speed (doc/perf-plan.md): node sets of a (partition, node shape) class
 * are built once per plan; shapes (nodes, duration) that found no start in
 * the window are remembered per class so a larger-or-longer job of the
 * same class is rejected without a search; the search itself skips
 * segments by per-partition counts before touching bits.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_plan.h"
#include "fw_plan_share.h"
#include "fw_plan_tl.h"

#define NOT_WAITING UINT32_MAX
#define FRONTIER_MAX 256

/* ------------------------------------------------------------------ */
/* Small containers                                                    */
/* ------------------------------------------------------------------ */

/* uint64 -> uint32 counter map (open addressing). */
struct cmap {
	uint32_t cap, n;
	uint64_t *key;
	uint32_t *val;
	uint8_t *used;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void cmap_free(struct cmap *m)
{
	free(m->key);
	free(m->val);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static uint32_t *cmap_slot(struct cmap *m, uint64_t key);

static void cmap_grow(struct cmap *m)
{
	struct cmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->n = 0;
	m->key = fw_xcalloc(m->cap, sizeof(*m->key));
	m->val = fw_xcalloc(m->cap, sizeof(*m->val));
	m->used = fw_xcalloc(m->cap, 1);
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.used[i])
			*cmap_slot(m, old.key[i]) = old.val[i];
	cmap_free(&old);
}

/* Value for key, inserted as 0 if absent.  Valid until the next call. */
static uint32_t *cmap_slot(struct cmap *m, uint64_t key)
{
	uint32_t h;

	if (2 * (m->n + 1) > m->cap)
		cmap_grow(m);
	h = (uint32_t)mix64(key) & (m->cap - 1);
	while (m->used[h] && m->key[h] != key)
		h = (h + 1) & (m->cap - 1);
	if (!m->used[h]) {
		m->used[h] = 1;
		m->key[h] = key;
		m->val[h] = 0;
		m->n++;
	}
	return &m->val[h];
}

/*
 * What earlier searches of a node-set class found: (nodes, duration) ->
 * earliest start slot (FW_TL_INF: none in the window).  During a plan the
 * timeline only loses free space, and a job needing at least as many nodes
 * for at least as long can only start where the smaller one could, so
 * every entry (n', d', c') with n' <= n and d' <= d is a lower bound c' for
 * (n, d): the search starts there, and FW_TL_INF rejects it outright.
 * Entries that another entry makes useless are dropped.
 */
struct shape {
	uint32_t n;
	int64_t d;
	int32_t c;
};

struct frontier {
	struct shape *v;
	uint32_t n, cap;
};

static int32_t frontier_bound(const struct frontier *f, uint32_t n, int64_t d)
{
	int32_t lb = 0;

	for (uint32_t i = 0; i < f->n; i++)
		if (f->v[i].n <= n && f->v[i].d <= d && f->v[i].c > lb)
			lb = f->v[i].c;
	return lb;
}

static void frontier_add(struct frontier *f, uint32_t n, int64_t d, int32_t c)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < f->n; i++) {
		const struct shape *e = &f->v[i];

		if (e->n <= n && e->d <= d && e->c >= c)
			return;		/* already known, or more */
	}
	for (uint32_t i = 0; i < f->n; i++) {
		const struct shape *e = &f->v[i];

		if (!(n <= e->n && d <= e->d && c >= e->c))
			f->v[k++] = *e;
	}
	f->n = k;
	if (f->n == FRONTIER_MAX)
		return;		/* a cache: not recording is safe */
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 8;
		f->v = fw_xrealloc(f->v, f->cap * sizeof(*f->v));
	}
	f->v[f->n].n = n;
	f->v[f->n].d = d;
	f->v[f->n].c = c;
	f->n++;
}

/*
 * Exact answers: (class, fit, nodes, duration) -> earliest start, valid
 * while the timeline generation is unchanged.  Lets an unprotected job
 * (which changes nothing) reuse the estimate of an identical shape
 * without a search: in a long queue most jobs repeat a shape.
 */
struct exact_ent {
	uint32_t cls, n;
	int64_t d;
	uint64_t gen;
	int32_t c;
	uint8_t fit, used;
};

struct exact_map {
	uint32_t cap, n;
	struct exact_ent *v;
};

static uint64_t exact_hash(uint32_t cls, int fit, uint32_t n, int64_t d)
{
	return mix64(((uint64_t)cls << 40) ^ ((uint64_t)fit << 32) ^ n ^
		     mix64((uint64_t)d));
}

static struct exact_ent *exact_find(struct exact_map *m, uint32_t cls,
				    int fit, uint32_t n, int64_t d, bool add)
{
	uint32_t h;

	if (add && 2 * (m->n + 1) > m->cap) {
		struct exact_map old = *m;

		m->cap = old.cap ? old.cap * 2 : 1024;
		m->n = 0;
		m->v = fw_xcalloc(m->cap, sizeof(*m->v));
		for (uint32_t i = 0; i < old.cap; i++)
			if (old.v[i].used) {
				struct exact_ent *e = exact_find(
					m, old.v[i].cls, old.v[i].fit,
					old.v[i].n, old.v[i].d, true);

				*e = old.v[i];
			}
		free(old.v);
	}
	if (!m->cap)
		return NULL;
	h = (uint32_t)exact_hash(cls, fit, n, d) & (m->cap - 1);
	while (m->v[h].used) {
		struct exact_ent *e = &m->v[h];

		if (e->cls == cls && e->fit == fit && e->n == n && e->d == d)
			return e;
		h = (h + 1) & (m->cap - 1);
	}
	if (!add)
		return NULL;
	m->v[h].used = 1;
	m->v[h].cls = cls;
	m->v[h].fit = (uint8_t)fit;
	m->v[h].n = n;
	m->v[h].d = d;
	m->n++;
	return &m->v[h];
}

/* ------------------------------------------------------------------ */
/* Plan state                                                          */
/* ------------------------------------------------------------------ */

enum { FIT_KEY_ANY, FIT_KEY_ISLAND, FIT_KEY_PREFER, FIT_KEYS };

/* Nodes of one partition that can hold one per-node requirement. */
struct eclass {
	uint32_t part;
	uint64_t *tv;		/* node types that qualify (bit per type) */
	uint64_t hash;
	struct fw_bitset *E;	/* partition & qualifying & usable */
	uint32_t lo, hi;
	uint32_t n_static;	/* partition & qualifying (down or not) */
	uint32_t nE;
	uint32_t isl_static;	/* largest island share, down or not */
	uint32_t isl_usable;
	struct frontier fail[FIT_KEYS];
	uint64_t idle_gen;	/* |E & idle| as of plan->idle_gen */
	uint32_t idle_cnt;
};

struct advres {
	char *name;
	struct fw_bitset *nodes;
	int32_t a, b;		/* slots; b <= 0: over */
	bool partial;		/* part of each node: others may share them */
};

/* A protected reservation made in this plan (for blockers).  Nodes as a
 * sorted index list: a queue can hold 100,000 reservations. */
struct rrec {
	uint32_t seq;
	int32_t a, b;
	uint32_t *idx;
	uint32_t nidx;
	struct fw_plan_lic *lics;
	uint32_t nlics;
};

struct order_key {
	bool valid;
	bool has_resv;
	uint32_t tier, prio, id;
	fw_time_t submit;
};

/* Outcome of evaluating one job in one partition. */
struct cand {
	enum fw_plan_kind kind;	/* START_NOW, RESERVED (= later), NOT_* */
	enum fw_plan_reason reason;	/* static reason, NONE: classify */
	int32_t part;
	int32_t c;
	int32_t island;
	bool prot;
	enum fw_fit fit;
	int32_t L0, L;
	bool shared;		/* searched on parts of nodes (fw_share) */
	bool sel_valid;		/* p->sel holds its nodes (not a memo hit) */
	const uint64_t *E;	/* final node set searched */
	const uint64_t *Eb;	/* same before main-pass blocking */
	uint32_t lo, hi;
	uint32_t xlo, xhi;	/* non-zero words of the search's X */
	int32_t cls;		/* E is this class's node set, or -1 */
};

struct pending {
	bool active;
	const struct fw_plan_job *job;
	enum fw_plan_pass pass;
	uint32_t seq;
	int32_t part;
	int32_t L0;
	bool shared;
};

struct fw_plan {
	const struct fw_cluster *cl;
	const struct fw_plan_conf *conf;
	fw_time_t now, t0;
	int64_t res;
	int32_t wslots;
	uint32_t W;
	uint32_t depth;
	bool setup_done;

	struct fw_tl tl;
	struct fw_scratch sc;
	struct fw_share *sh;		/* shared cluster: per-node amounts */
	struct fw_bitset *usable;	/* cluster usable minus plan's down */
	struct fw_bitset *idle;		/* run view: usable, not running/started */
	uint64_t idle_gen;		/* bumped whenever idle changes */
	int64_t *lic_idle;		/* run view licenses */

	struct advres *resv;
	struct fw_tl_resv *tresv;
	uint32_t nresv;
	struct fw_bitset *no_nodes;	/* empty: what a partial reservation
					   holds for other reservations' jobs */
	struct rrec *rr;
	uint32_t nrr, caprr;

	/* Node-set classes. */
	struct eclass *ec;
	uint32_t nec, capec;
	int32_t *ec_hash;
	uint32_t ec_hcap;
	uint32_t tvw;			/* words of a type vector */
	uint64_t *tv;			/* scratch type vector */
	struct exact_map exact;

	/* Per-cycle counters (Slurm's bf_max_job_*). */
	struct cmap m_user, m_user_part, m_assoc;
	uint32_t *part_tested;
	uint32_t *part_resv;		/* protected reservations per partition */
	uint32_t tested, bf_started;
	bool stop_start;

	/* Main pass blocking. */
	struct fw_bitset *blocked;
	uint8_t *part_blocked;
	uint8_t *resv_blocked;

	/* Order and bypass bookkeeping. */
	struct order_key last;
	uint32_t nseq, capseq;
	uint32_t *wait_mark;		/* starts so far when it waited */
	uint32_t nstarted, nwaiting;
	struct pending pend;

	/* Scratch node sets handed out in decisions. */
	struct fw_bitset *allowed, *nodes, *Ec, *Eb, *tmp;
	uint32_t *sel;			/* nodes chosen, sorted */
	uint32_t nsel;

	struct fw_plan_stats stats;
};

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

static void job_key(const struct fw_cluster *cl, const struct fw_plan_job *j,
		    struct order_key *k)
{
	k->valid = true;
	k->has_resv = j->resv >= 0;
	k->tier = (j->part >= 0 && (uint32_t)j->part < cl->nparts) ?
		  cl->parts[j->part].priority_tier : 0;
	k->prio = j->priority;
	k->submit = j->submit;
	k->id = j->id;
}

static int key_cmp(const struct order_key *a, const struct order_key *b)
{
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

/* ------------------------------------------------------------------ */
/* Time <-> slots                                                      */
/* ------------------------------------------------------------------ */

static int64_t div_floor(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t div_ceil(int64_t a, int64_t b)
{
	return -div_floor(-a, b);
}

static int32_t clamp_slot(int64_t s)
{
	if (s >= FW_TL_INF)
		return FW_TL_INF;
	if (s < 0)
		return 0;
	return (int32_t)s;
}

/* Slot in which something ending at absolute time `end` stops using its
 * nodes (exclusive): the end is rounded up, so a plan is never optimistic. */
static int32_t end_slot(const struct fw_plan *p, fw_time_t end)
{
	return clamp_slot(div_ceil(end - p->t0, p->res));
}

static fw_time_t slot_time(const struct fw_plan *p, int32_t c)
{
	return c == 0 ? p->now : p->t0 + (fw_time_t)c * p->res;
}

/* Lengths in slots of a job starting at slot 0 (at `now`) and later. */
static void job_slots(const struct fw_plan *p, int64_t limit, int32_t *L0,
		      int32_t *L)
{
	if (limit <= 0) {
		*L0 = *L = FW_TL_INF;
		return;
	}
	*L0 = clamp_slot(div_ceil(p->now - p->t0 + limit, p->res));
	*L = clamp_slot(div_ceil(limit, p->res));
	if (*L0 < 1)
		*L0 = 1;
	if (*L < 1)
		*L = 1;
}

fw_time_t fw_plan_t0(const struct fw_plan *p)
{
	return p->t0;
}

int32_t fw_plan_window_slots(const struct fw_plan *p)
{
	return p->wslots;
}

void fw_plan_get_stats(const struct fw_plan *p, struct fw_plan_stats *s)
{
	*s = p->stats;
	s->segments = p->tl.nseg;
}

/* ------------------------------------------------------------------ */
/* Plan life cycle and set-up                                          */
/* ------------------------------------------------------------------ */

struct fw_plan *fw_plan_new(const struct fw_cluster *cl,
			    const struct fw_plan_conf *conf, fw_time_t now,
			    struct fw_err *err)
{
	struct fw_plan *p;

	if (!cl || !cl->final) {
		fw_err_set(err, NULL, 0, NULL, NULL,
			   "cluster is not finalised");
		return NULL;
	}
	if (conf->bf_resolution < 1 || conf->bf_window < 1) {
		fw_err_set(err, NULL, 0, "SchedulerParameters", NULL,
			   "bf_window and bf_resolution must be positive");
		return NULL;
	}
	p = fw_xcalloc(1, sizeof(*p));
	p->cl = cl;
	p->conf = conf;
	p->now = now;
	p->res = conf->bf_resolution;
	p->t0 = div_floor(now, p->res) * p->res;
	p->wslots = clamp_slot(div_ceil(conf->bf_window, p->res));
	if (p->wslots < 1)
		p->wslots = 1;
	p->W = (uint32_t)FW_BITSET_WORDS(cl->nnodes);
	p->depth = fw_plan_conf_depth(conf);
	p->usable = fw_bitset_dup(cl->usable);
	p->idle = fw_bitset_dup(cl->usable);
	p->lic_idle = fw_xcalloc(cl->nlics ? cl->nlics : 1, sizeof(int64_t));
	for (uint32_t l = 0; l < cl->nlics; l++)
		p->lic_idle[l] = cl->lics[l].total;
	fw_tl_init(&p->tl, cl, p->wslots, p->usable);
	if (cl->shared)
		p->sh = fw_share_new(cl, p->wslots);
	fw_scratch_init(&p->sc, p->W);
	p->tvw = (cl->ntypes + 63) / 64;
	p->tv = fw_xcalloc(p->tvw ? p->tvw : 1, sizeof(uint64_t));
	p->part_tested = fw_xcalloc(cl->nparts ? cl->nparts : 1,
				    sizeof(uint32_t));
	p->part_resv = fw_xcalloc(cl->nparts ? cl->nparts : 1,
				  sizeof(uint32_t));
	p->part_blocked = fw_xcalloc(cl->nparts ? cl->nparts : 1, 1);
	p->blocked = fw_bitset_new(cl->nnodes);
	p->allowed = fw_bitset_new(cl->nnodes);
	p->nodes = fw_bitset_new(cl->nnodes);
	p->Ec = fw_bitset_new(cl->nnodes);
	p->Eb = fw_bitset_new(cl->nnodes);
	p->no_nodes = fw_bitset_new(cl->nnodes);
	p->tmp = fw_bitset_new(cl->nnodes);
	p->sel = fw_xmalloc(cl->nnodes * sizeof(uint32_t));
	return p;
}

void fw_plan_free(struct fw_plan *p)
{
	if (!p)
		return;
	fw_tl_free(&p->tl);
	fw_scratch_free(&p->sc);
	fw_share_free(p->sh);
	fw_bitset_free(p->usable);
	fw_bitset_free(p->idle);
	free(p->lic_idle);
	for (uint32_t i = 0; i < p->nresv; i++) {
		free(p->resv[i].name);
		fw_bitset_free(p->resv[i].nodes);
	}
	free(p->resv);
	free(p->tresv);
	for (uint32_t i = 0; i < p->nrr; i++) {
		free(p->rr[i].idx);
		free(p->rr[i].lics);
	}
	free(p->rr);
	for (uint32_t i = 0; i < p->nec; i++) {
		free(p->ec[i].tv);
		fw_bitset_free(p->ec[i].E);
		for (int k = 0; k < FIT_KEYS; k++)
			free(p->ec[i].fail[k].v);
	}
	free(p->ec);
	free(p->ec_hash);
	free(p->exact.v);
	free(p->tv);
	cmap_free(&p->m_user);
	cmap_free(&p->m_user_part);
	cmap_free(&p->m_assoc);
	free(p->part_tested);
	free(p->part_resv);
	free(p->part_blocked);
	free(p->resv_blocked);
	free(p->wait_mark);
	fw_bitset_free(p->blocked);
	fw_bitset_free(p->allowed);
	fw_bitset_free(p->nodes);
	fw_bitset_free(p->Ec);
	fw_bitset_free(p->Eb);
	fw_bitset_free(p->no_nodes);
	fw_bitset_free(p->tmp);
	free(p->sel);
	free(p);
}

static int setup_open(const struct fw_plan *p, const char *what,
		      struct fw_err *err)
{
	if (p->setup_done)
		return fw_err_set(err, NULL, 0, what, NULL,
				  "plan set-up is closed once jobs are decided");
	return 0;
}

static int check_set(const struct fw_plan *p, const struct fw_bitset *b,
		     const char *what, struct fw_err *err)
{
	if (!b || b->nbits != p->cl->nnodes)
		return fw_err_set(err, NULL, 0, what, NULL,
				  "node set does not match the cluster's %u "
				  "nodes", p->cl->nnodes);
	return 0;
}

static int check_lics(const struct fw_plan *p, const struct fw_plan_lic *l,
		      uint32_t n, struct fw_err *err)
{
	if (n && !l)
		return fw_err_set(err, NULL, 0, "Licenses", NULL,
				  "license list missing");
	for (uint32_t i = 0; i < n; i++)
		if (l[i].idx >= p->cl->nlics)
			return fw_err_set(err, NULL, 0, "Licenses", NULL,
					  "license index %u out of range",
					  l[i].idx);
	return 0;
}

int fw_plan_node_down(struct fw_plan *p, uint32_t node, struct fw_err *err)
{
	if (setup_open(p, "node", err))
		return -1;
	if (node >= p->cl->nnodes)
		return fw_err_set(err, NULL, 0, "node", NULL,
				  "node index %u out of range", node);
	fw_bitset_clear_all(p->tmp);
	fw_bitset_set(p->tmp, node);
	fw_tl_occupy(&p->tl, p->tmp, 0, FW_TL_INF, NULL, 0,
		     FW_TL_AVAIL | FW_TL_FREE);
	fw_bitset_clear(p->usable, node);
	fw_bitset_clear(p->idle, node);
	p->idle_gen++;
	return 0;
}

int fw_plan_add_running(struct fw_plan *p, const struct fw_bitset *nodes,
			fw_time_t end, const struct fw_plan_lic *lics,
			uint32_t nlics, struct fw_err *err)
{
	int32_t b;

	if (setup_open(p, "running job", err) ||
	    check_set(p, nodes, "running job", err) ||
	    check_lics(p, lics, nlics, err))
		return -1;
	if (end <= 0)
		b = FW_TL_INF;
	else {
		b = end_slot(p, end);
		if (b < 1)
			b = 1;	/* overdue: still busy in the current step */
	}
	fw_tl_occupy(&p->tl, nodes, 0, b, lics, nlics,
		     FW_TL_AVAIL | FW_TL_FREE);
	if (p->sh)
		fw_share_take_all_set(p->sh, nodes, 0, b,
				      (struct fw_share_owner){ FW_HOLD_RUNNING,
							       0 });
	fw_bitset_andnot(p->idle, nodes);
	p->idle_gen++;
	for (uint32_t k = 0; k < nlics; k++)
		p->lic_idle[lics[k].idx] -= lics[k].count;
	return 0;
}

static int check_uses(const struct fw_plan *p, const struct fw_node_use *u,
		      uint32_t n, const char *what, struct fw_err *err)
{
	if (n && !u)
		return fw_err_set(err, NULL, 0, what, NULL, "node list missing");
	for (uint32_t k = 0; k < n; k++) {
		if (u[k].node >= p->cl->nnodes)
			return fw_err_set(err, NULL, 0, what, NULL,
					  "node index %u out of range",
					  u[k].node);
		if (u[k].ngres && !u[k].gres)
			return fw_err_set(err, NULL, 0, what, NULL,
					  "GRES list missing");
	}
	return 0;
}

/* The nodes of a use list as p->tmp. */
static struct fw_bitset *uses_set(struct fw_plan *p,
				  const struct fw_node_use *u, uint32_t n)
{
	fw_bitset_clear_all(p->tmp);
	for (uint32_t k = 0; k < n; k++)
		fw_bitset_set(p->tmp, u[k].node);
	return p->tmp;
}

/* Book u[0..n-1] over [a, b) in both views: the amounts per node, and
 * the nodes out of the whole-node view (they are not entirely free).
 * Running jobs are named by their own ids (u[k].job). */
static void take_uses(struct fw_plan *p, const struct fw_node_use *u,
		      uint32_t n, int32_t a, int32_t b, int views,
		      struct fw_share_owner o)
{
	int64_t *amt = fw_xmalloc(p->sh->K * sizeof(int64_t));

	for (uint32_t k = 0; k < n; k++) {
		if (o.kind == FW_HOLD_RUNNING)
			o.id = u[k].job;
		fw_share_use_amounts(p->sh, &u[k], amt);
		fw_share_take(p->sh, u[k].node, a, b, amt, o);
	}
	free(amt);
	fw_tl_occupy(&p->tl, uses_set(p, u, n), a, b, NULL, 0, views);
}

int fw_plan_add_running_use(struct fw_plan *p, const struct fw_node_use *u,
			    uint32_t n, fw_time_t end,
			    const struct fw_plan_lic *lics, uint32_t nlics,
			    struct fw_err *err)
{
	int32_t b;

	if (setup_open(p, "running job", err) ||
	    check_uses(p, u, n, "running job", err) ||
	    check_lics(p, lics, nlics, err))
		return -1;
	if (!p->sh) {
		struct fw_bitset *set = fw_bitset_dup(uses_set(p, u, n));
		int rc = fw_plan_add_running(p, set, end, lics, nlics, err);

		fw_bitset_free(set);
		return rc;
	}
	b = end <= 0 ? FW_TL_INF : end_slot(p, end);
	if (b < 1)
		b = 1;	/* overdue: still busy in the current step */
	take_uses(p, u, n, 0, b, FW_TL_AVAIL | FW_TL_FREE,
		  (struct fw_share_owner){ FW_HOLD_RUNNING, 0 });
	fw_tl_occupy(&p->tl, p->no_nodes, 0, b, lics, nlics, FW_TL_AVAIL |
		     FW_TL_FREE);
	fw_bitset_andnot(p->idle, uses_set(p, u, n));
	p->idle_gen++;
	for (uint32_t k = 0; k < nlics; k++)
		p->lic_idle[lics[k].idx] -= lics[k].count;
	return 0;
}

static int32_t add_resv(struct fw_plan *p, const char *name,
			const struct fw_bitset *nodes, fw_time_t start,
			fw_time_t end, bool partial, struct fw_err *err)
{
	struct advres *r;
	int32_t a, b;

	if (setup_open(p, "Reservation", err) ||
	    check_set(p, nodes, "Reservation", err))
		return -1;
	if (end <= start)
		return fw_err_set(err, NULL, 0, "Reservation", name,
				  "ends before it starts");
	/* The slot it starts in is already the reservation's, and it holds
	 * its nodes until the end is rounded up. */
	a = clamp_slot(div_floor(start - p->t0, p->res));
	if (a > p->wslots)
		a = p->wslots;
	b = end <= p->now ? 0 : end_slot(p, end);
	if (b > p->wslots)
		b = FW_TL_INF;
	fw_tl_enable_free(&p->tl);
	if (b > a && !partial)
		fw_tl_occupy(&p->tl, nodes, a, b, NULL, 0, FW_TL_AVAIL);
	/* Jobs outside it that share nodes keep off its nodes as well. */
	if (b > a && !partial && p->sh)
		fw_share_take_all_set(p->sh, nodes, a, b,
				      (struct fw_share_owner){ FW_HOLD_RESV,
							       p->nresv });
	p->resv = fw_xrealloc(p->resv, (p->nresv + 1) * sizeof(*p->resv));
	p->tresv = fw_xrealloc(p->tresv, (p->nresv + 1) * sizeof(*p->tresv));
	r = &p->resv[p->nresv];
	r->name = fw_strdup(name ? name : "");
	r->nodes = fw_bitset_dup(nodes);
	r->a = a;
	r->b = b;
	r->partial = partial;
	/* Jobs of other reservations avoid a whole-node reservation only. */
	p->tresv[p->nresv].nodes = partial ? p->no_nodes : r->nodes;
	p->tresv[p->nresv].a = a;
	p->tresv[p->nresv].b = b;
	return (int32_t)p->nresv++;
}

int32_t fw_plan_add_resv(struct fw_plan *p, const char *name,
			 const struct fw_bitset *nodes, fw_time_t start,
			 fw_time_t end, struct fw_err *err)
{
	return add_resv(p, name, nodes, start, end, false, err);
}

int32_t fw_plan_add_partial_resv(struct fw_plan *p, const char *name,
				 const struct fw_bitset *nodes,
				 fw_time_t start, fw_time_t end,
				 struct fw_err *err)
{
	return add_resv(p, name, nodes, start, end, true, err);
}

int fw_plan_resv_hold(struct fw_plan *p, int32_t resv,
		      const struct fw_node_use *u, uint32_t n,
		      struct fw_err *err)
{
	const struct advres *r;

	if (setup_open(p, "Reservation", err) ||
	    check_uses(p, u, n, "Reservation", err))
		return -1;
	if (resv < 0 || (uint32_t)resv >= p->nresv || !p->resv[resv].partial)
		return fw_err_set(err, NULL, 0, "Reservation", NULL,
				  "%d is not a partial reservation", resv);
	r = &p->resv[resv];
	if (!p->sh || r->b <= r->a)
		return 0;
	/* The reservation's own jobs (free view) may still use the node. */
	take_uses(p, u, n, r->a, r->b, FW_TL_AVAIL,
		  (struct fw_share_owner){ FW_HOLD_RESV, (uint32_t)resv });
	return 0;
}

/* ------------------------------------------------------------------ */
/* Node-set classes                                                    */
/* ------------------------------------------------------------------ */

/* Does a node of type t have every GRES the job needs on each node? */
static bool type_has_gres(const struct fw_ctype *t,
			  const struct fw_plan_job *j)
{
	for (uint32_t g = 0; g < j->ngres; g++)
		if ((t->gres ? t->gres[j->gres[g].idx] : 0) < j->gres[g].count)
			return false;
	return true;
}

static void job_type_vector(struct fw_plan *p, const struct fw_plan_job *j)
{
	const struct fw_cluster *cl = p->cl;

	memset(p->tv, 0, p->tvw * sizeof(uint64_t));
	for (uint32_t t = 0; t < cl->ntypes; t++)
		if (cl->types[t].cpus >= j->cpus_per_node &&
		    cl->types[t].mem_mb >= j->mem_per_node_mb &&
		    cl->types[t].gpus >= j->gpus_per_node &&
		    type_has_gres(&cl->types[t], j))
			p->tv[t >> 6] |= (uint64_t)1 << (t & 63);
}

static uint64_t class_hash(const struct fw_plan *p, uint32_t part)
{
	uint64_t h = mix64(part + 0x9e3779b97f4a7c15ULL);

	for (uint32_t i = 0; i < p->tvw; i++)
		h = mix64(h ^ p->tv[i]);
	return h;
}

static uint32_t max_island_share(const struct fw_cluster *cl,
				 const struct fw_bitset *set)
{
	uint32_t best = 0;

	for (uint32_t k = 0; k < cl->nislands; k++) {
		uint32_t c = fw_bitset_count_and(set, cl->islands[k].nodes);

		if (c > best)
			best = c;
	}
	return best;
}

static void class_rehash(struct fw_plan *p)
{
	uint32_t cap = p->ec_hcap ? p->ec_hcap * 2 : 64;

	free(p->ec_hash);
	p->ec_hash = fw_xmalloc(cap * sizeof(int32_t));
	for (uint32_t i = 0; i < cap; i++)
		p->ec_hash[i] = -1;
	p->ec_hcap = cap;
	for (uint32_t i = 0; i < p->nec; i++) {
		uint32_t h = (uint32_t)p->ec[i].hash & (cap - 1);

		while (p->ec_hash[h] >= 0)
			h = (h + 1) & (cap - 1);
		p->ec_hash[h] = (int32_t)i;
	}
}

static struct eclass *class_new(struct fw_plan *p, uint32_t part,
				uint64_t hash)
{
	const struct fw_cluster *cl = p->cl;
	struct eclass *e;

	if (p->nec == p->capec) {
		p->capec = p->capec ? p->capec * 2 : 16;
		p->ec = fw_xrealloc(p->ec, p->capec * sizeof(*p->ec));
	}
	e = &p->ec[p->nec++];
	memset(e, 0, sizeof(*e));
	e->part = part;
	e->hash = hash;
	e->tv = fw_xmalloc((p->tvw ? p->tvw : 1) * sizeof(uint64_t));
	memcpy(e->tv, p->tv, p->tvw * sizeof(uint64_t));
	e->E = fw_bitset_new(cl->nnodes);
	for (uint32_t t = 0; t < cl->ntypes; t++)
		if (p->tv[t >> 6] >> (t & 63) & 1)
			fw_bitset_or(e->E, cl->types[t].nodes);
	fw_bitset_and(e->E, cl->parts[part].nodes);
	e->n_static = fw_bitset_count(e->E);
	e->isl_static = max_island_share(cl, e->E);
	fw_bitset_and(e->E, p->usable);
	e->nE = fw_bitset_count(e->E);
	e->isl_usable = max_island_share(cl, e->E);
	fw_bitset_word_range(e->E, &e->lo, &e->hi);
	e->idle_gen = UINT64_MAX;
	if (2 * p->nec > p->ec_hcap)
		class_rehash(p);
	else {
		uint32_t h = (uint32_t)hash & (p->ec_hcap - 1);

		while (p->ec_hash[h] >= 0)
			h = (h + 1) & (p->ec_hcap - 1);
		p->ec_hash[h] = (int32_t)(p->nec - 1);
	}
	return e;
}

static struct eclass *class_get(struct fw_plan *p, uint32_t part,
				const struct fw_plan_job *j)
{
	uint64_t h;

	job_type_vector(p, j);
	h = class_hash(p, part);
	if (p->ec_hcap) {
		uint32_t i = (uint32_t)h & (p->ec_hcap - 1);

		while (p->ec_hash[i] >= 0) {
			struct eclass *e = &p->ec[p->ec_hash[i]];

			if (e->hash == h && e->part == part &&
			    memcmp(e->tv, p->tv, p->tvw * sizeof(uint64_t)) == 0)
				return e;
			i = (i + 1) & (p->ec_hcap - 1);
		}
	}
	return class_new(p, part, h);
}

/* ------------------------------------------------------------------ */
/* Validation, thresholds, limits                                      */
/* ------------------------------------------------------------------ */

static int job_part_ok(const struct fw_plan *p, int32_t q)
{
	return q >= 0 && (uint32_t)q < p->cl->nparts;
}

static int validate_job(const struct fw_plan *p, const struct fw_plan_job *j,
			struct fw_err *err)
{
	char id[24];

	snprintf(id, sizeof(id), "%u", j->id);
	if (!job_part_ok(p, j->part))
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "partition index %d out of range", j->part);
	if (j->nalt_parts && !j->alt_parts)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "alternative partitions missing");
	for (uint32_t i = 0; i < j->nalt_parts; i++)
		if (!job_part_ok(p, j->alt_parts[i]))
			return fw_err_set(err, NULL, 0, "JobId", id,
					  "partition index %d out of range",
					  j->alt_parts[i]);
	if (j->nodes_min == 0)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "needs at least one node");
	if (j->ngres && !j->gres)
		return fw_err_set(err, NULL, 0, "JobId", id, "GRES missing");
	for (uint32_t g = 0; g < j->ngres; g++)
		if (j->gres[g].idx >= p->cl->ngres)
			return fw_err_set(err, NULL, 0, "JobId", id,
					  "GRES index %u out of range",
					  j->gres[g].idx);
	if (j->nodes_max && j->nodes_max < j->nodes_min)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "node count max %u < min %u", j->nodes_max,
				  j->nodes_min);
	if (j->req_nodes && check_set(p, j->req_nodes, "JobId", err))
		return -1;
	if (j->exc_nodes && check_set(p, j->exc_nodes, "JobId", err))
		return -1;
	if (j->resv >= 0 && (uint32_t)j->resv >= p->nresv)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "reservation index %d out of range", j->resv);
	if (j->resv < -1)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "reservation index %d invalid", j->resv);
	return check_lics(p, j->lics, j->nlics, err);
}

/* bf_min_prio_reserve (or the job's own threshold) and bf_min_age_reserve,
 * as Slurm's backfill and main scheduler apply them. */
static bool meets_thresholds(const struct fw_plan *p,
			     const struct fw_plan_job *j)
{
	uint32_t thr = j->prio_reserve ? j->prio_reserve :
		       p->conf->bf_min_prio_reserve;

	if (thr && j->priority < thr)
		return false;
	if (p->conf->bf_min_age_reserve && j->eligible &&
	    p->now - j->eligible < p->conf->bf_min_age_reserve)
		return false;
	return true;
}

/* Slurm's _job_exceeds_max_bf_param: jobs *tested* per cycle. */
static enum fw_plan_reason check_limits(struct fw_plan *p,
					const struct fw_plan_job *j)
{
	const struct fw_plan_conf *c = p->conf;
	uint32_t *up = NULL, *pc = NULL, *as = NULL, *us = NULL;

	if (c->bf_max_job_user_part) {
		up = cmap_slot(&p->m_user_part,
			       ((uint64_t)j->uid << 32) | (uint32_t)j->part);
		if (*up >= c->bf_max_job_user_part)
			return FW_REASON_BF_MAX_USER_PART;
	}
	if (c->bf_max_job_part) {
		pc = &p->part_tested[j->part];
		if (*pc >= c->bf_max_job_part)
			return FW_REASON_BF_MAX_PART;
	}
	if (c->bf_max_job_assoc) {
		as = cmap_slot(&p->m_assoc,
			       ((uint64_t)j->uid << 32) | j->account);
		if (*as >= c->bf_max_job_assoc)
			return FW_REASON_BF_MAX_ASSOC;
	}
	if (c->bf_max_job_user) {
		us = cmap_slot(&p->m_user, j->uid);
		if (*us >= c->bf_max_job_user)
			return FW_REASON_BF_MAX_USER;
	}
	if (up)
		(*up)++;
	if (pc)
		(*pc)++;
	if (as)
		(*as)++;
	if (us)
		(*us)++;
	return FW_REASON_NONE;
}

/* ------------------------------------------------------------------ */
/* Evaluation of one job in one partition                              */
/* ------------------------------------------------------------------ */

static int fit_key(enum fw_fit fit, bool any0)
{
	if (fit == FW_FIT_ANY)
		return FIT_KEY_ANY;
	return any0 ? FIT_KEY_PREFER : FIT_KEY_ISLAND;
}

static void cand_static(struct cand *cd, enum fw_plan_kind k,
			enum fw_plan_reason r)
{
	cd->kind = k;
	cd->reason = r;
}

/* s->cand = the candidate words of cd, inside island k (-1: any). */
static void shared_cand(struct fw_plan *p, const struct cand *cd, int32_t k)
{
	struct fw_bitset *c = p->sh->cand;
	const uint64_t *im = k >= 0 ? p->cl->islands[k].nodes->w : NULL;

	fw_bitset_clear_all(c);
	for (uint32_t w = cd->lo; w < cd->hi; w++)
		c->w[w] = im ? cd->E[w] & im[w] : cd->E[w];
}

/* Keep the share layer's chosen nodes as the plan's selection. */
static void keep_shared_sel(struct fw_plan *p, struct cand *cd)
{
	cd->sel_valid = true;
	memcpy(p->sel, p->sh->sel, p->sh->nsel * sizeof(uint32_t));
	p->nsel = p->sh->nsel;
}

/*
 * Earliest start of a node-sharing job from slot c on: any nodes, or one
 * island (fit ISLAND: the earliest island wins, ties the lowest; with
 * any0, a start now across islands beats a later one inside one).
 */
static int32_t place_shared(struct fw_plan *p, const struct fw_plan_job *j,
			    struct cand *cd, int32_t c, int32_t cmax,
			    bool any0)
{
	uint32_t n = j->nodes_min;
	int32_t best = -1, k;

	cd->island = -1;
	if (cd->fit == FW_FIT_ANY) {
		shared_cand(p, cd, -1);
		best = fw_share_earliest(p->sh, p->sh->cand, n, c, cmax,
					 cd->L0, cd->L);
		if (best >= 0)
			keep_shared_sel(p, cd);
		return best;
	}
	for (k = 0; k < (int32_t)p->cl->nislands; k++) {
		int32_t ck;

		shared_cand(p, cd, k);
		ck = fw_share_earliest(p->sh, p->sh->cand, n, c,
				       best >= 0 ? best - 1 : cmax, cd->L0,
				       cd->L);
		if (ck >= 0 && (best < 0 || ck < best)) {
			best = ck;
			cd->island = k;
			keep_shared_sel(p, cd);
		}
	}
	if (any0 && best != 0 && c == 0) {
		shared_cand(p, cd, -1);
		if (fw_share_earliest(p->sh, p->sh->cand, n, 0, 0, cd->L0,
				      cd->L) == 0) {
			cd->island = -1;
			keep_shared_sel(p, cd);
			return 0;
		}
	}
	return best;
}

/* evaluate() for a job that may share nodes: per-node amounts in the
 * share layer, licenses in the whole-node timeline, alternately until
 * both agree on a start. */
static void evaluate_shared(struct fw_plan *p, const struct fw_plan_job *j,
			    struct cand *cd, int32_t cmin, int32_t cmax,
			    bool any0, bool memo)
{
	int32_t c = cmin, c2;
	int fk = fit_key(cd->fit, any0);
	int64_t dkey = j->time_limit > 0 ? j->time_limit : INT64_MAX;

	cd->shared = true;
	fw_share_set_req(p->sh, j);
	if (memo) {
		bool valid;
		int32_t lb = fw_share_known(p->sh, (uint32_t)cd->cls, fk,
					    j->nodes_min, dkey, p->tl.gen,
					    &valid);

		/* An unprotected job changes nothing: an identical shape's
		 * answer stands while nothing changed since. */
		if (lb == FW_TL_INF || (valid && !cd->prot && lb > 0)) {
			p->stats.cache_hits++;
			if (lb == FW_TL_INF)
				return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
						   FW_REASON_NONE);
			cd->c = lb;
			cd->kind = FW_PLAN_RESERVED;
			return;
		}
		if (lb > c)
			c = lb;
	}
	p->stats.searches++;
	for (;;) {
		if (j->nlics)
			c = fw_tl_lics_earliest(&p->tl, j->lics, j->nlics, c,
						cmax, cd->L0, cd->L);
		if (c < 0)
			break;
		c2 = place_shared(p, j, cd, c, cmax, any0);
		if (c2 == c || c2 < 0 || !j->nlics) {
			c = c2;
			break;
		}
		c = c2;
	}
	if (memo)
		fw_share_remember(p->sh, (uint32_t)cd->cls, fk, j->nodes_min,
				  dkey, p->tl.gen, c < 0 ? FW_TL_INF : c);
	if (c < 0)
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW, FW_REASON_NONE);
	cd->c = c;
	cd->kind = c == 0 ? FW_PLAN_START_NOW : FW_PLAN_RESERVED;
}

static void evaluate(struct fw_plan *p, const struct fw_plan_job *j,
		     int32_t q, enum fw_plan_pass pass, int32_t cmin,
		     struct cand *cd)
{
	const struct fw_cluster *cl = p->cl;
	const struct fw_cpart *P = &cl->parts[q];
	const struct advres *R = j->resv >= 0 ? &p->resv[j->resv] : NULL;
	uint32_t n = j->nodes_min, nE, isl;
	int32_t cmax = p->wslots - 1;
	bool custom, any0 = false;
	struct eclass *ec;
	struct fw_search s;
	int64_t dkey = j->time_limit > 0 ? j->time_limit : INT64_MAX;
	bool from_next_step = cmin > 0, plain;
	int fk;

	memset(cd, 0, sizeof(*cd));
	cd->part = q;
	cd->c = -1;
	cd->island = -1;
	cd->cls = -1;
	job_slots(p, j->time_limit, &cd->L0, &cd->L);

	if (P->max_time && (j->time_limit <= 0 || j->time_limit > P->max_time))
		return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
				   FW_REASON_PART_LIMIT);
	if ((P->max_nodes && n > P->max_nodes) ||
	    (P->min_nodes && n < P->min_nodes))
		return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
				   FW_REASON_PART_LIMIT);
	ec = class_get(p, (uint32_t)q, j);
	if (ec->n_static < n)
		return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
				   FW_REASON_NEVER_FITS);
	if (R && R->b <= 0)
		return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
				   FW_REASON_RESV_TIME);

	/* The node set: the class, narrowed by the job's own constraints. */
	custom = j->exc_nodes || R || pass == FW_PASS_MAIN;
	if (custom) {
		fw_bitset_copy(p->Eb, ec->E);
		if (j->exc_nodes)
			fw_bitset_andnot(p->Eb, j->exc_nodes);
		if (R)
			fw_bitset_and(p->Eb, R->nodes);
		fw_bitset_copy(p->Ec, p->Eb);
		if (pass == FW_PASS_MAIN && !R)
			fw_bitset_andnot(p->Ec, p->blocked);
		fw_bitset_word_range(p->Ec, &cd->lo, &cd->hi);
		cd->E = p->Ec->w;
		cd->Eb = p->Eb->w;
		nE = fw_bitset_count(p->Eb);
	} else {
		cd->E = cd->Eb = ec->E->w;
		cd->lo = ec->lo;
		cd->hi = ec->hi;
		cd->cls = (int32_t)(ec - p->ec);
		nE = ec->nE;
	}
	if (j->req_nodes && !fw_bitset_is_subset(j->req_nodes, p->usable))
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
				   FW_REASON_NODES_DOWN);
	if (j->req_nodes) {
		fw_bitset_copy(p->tmp, ec->E);
		if (j->exc_nodes)
			fw_bitset_andnot(p->tmp, j->exc_nodes);
		if (R)
			fw_bitset_and(p->tmp, R->nodes);
		if (!fw_bitset_is_subset(j->req_nodes, p->tmp) ||
		    fw_bitset_count(j->req_nodes) > (j->nodes_max ?
						     j->nodes_max : n))
			return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
					   FW_REASON_NEVER_FITS);
	}
	if (nE < n)
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
				   FW_REASON_NODES_DOWN);

	/* Start slots: a reservation's jobs start while it is active. */
	if (R) {
		if (cmin < R->a)
			cmin = R->a;
		if (R->b != FW_TL_INF && cmax > R->b - 1)
			cmax = R->b - 1;
	}
	if (pass == FW_PASS_MAIN && cmax > 0)
		cmax = 0;
	if (cmin > cmax)
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
				   R ? FW_REASON_RESV_TIME : FW_REASON_NONE);

	/* Island policy. */
	cd->fit = FW_FIT_ANY;
	if (p->conf->topo != FW_TOPO_NONE && cl->nislands && !j->req_nodes) {
		if (p->conf->topo == FW_TOPO_STRICT) {
			if (ec->isl_static < n)
				return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
						   FW_REASON_TOPOLOGY);
			cd->fit = FW_FIT_ISLAND;
		} else {
			isl = custom ? max_island_share(cl, p->Eb) :
			      ec->isl_usable;
			if (isl >= n) {
				cd->fit = FW_FIT_ISLAND;
				any0 = true;
			}
		}
	}

	cd->prot = pass == FW_PASS_BACKFILL && meets_thresholds(p, j) &&
		   (p->depth == 0 || p->part_resv[q] < p->depth);

	if (p->sh && fw_share_job(cl, j, q))
		return evaluate_shared(p, j, cd, cmin, cmax, any0,
				       pass == FW_PASS_BACKFILL && !custom &&
				       !j->nlics && !from_next_step);

	plain = pass == FW_PASS_BACKFILL && !custom && !j->req_nodes &&
		!j->nlics && !from_next_step;
	fk = fit_key(cd->fit, any0);
	/* The same shape was answered and nothing changed since: an
	 * unprotected job needs no nodes, so no search. */
	if (plain && !cd->prot) {
		struct exact_ent *x = exact_find(&p->exact, (uint32_t)(ec - p->ec),
						 fk, n, dkey, false);

		if (x && x->gen == p->tl.gen && x->c != FW_TL_INF &&
		    x->c > 0) {
			p->stats.cache_hits++;
			cd->c = x->c;
			cd->kind = FW_PLAN_RESERVED;
			return;
		}
	}
	/* What smaller-or-shorter shapes of this class found bounds this
	 * job's start from below. */
	if (pass == FW_PASS_BACKFILL && !R) {
		int32_t lb = frontier_bound(&ec->fail[fit_key(cd->fit, any0)],
					    n, dkey);

		if (lb > cmin)
			cmin = lb;
		if (cmin > cmax) {
			p->stats.cache_hits++;
			return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
					   FW_REASON_NONE);
		}
	}
	if (j->req_nodes && !fw_bitset_is_subset(j->req_nodes, p->Ec) &&
	    custom)
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW, FW_REASON_NONE);

	memset(&s, 0, sizeof(s));
	s.free_view = R != NULL;
	s.resv = p->tresv;
	s.nresv = p->nresv;
	s.own_resv = j->resv;
	s.E = cd->E;
	s.lo = cd->lo;
	s.hi = cd->hi;
	s.n = n;
	s.pidx = R ? -1 : q;
	s.lics = j->lics;
	s.nlics = j->nlics;
	s.cmin = cmin;
	s.cmax = cmax;
	s.L0 = cd->L0;
	s.L = cd->L;
	s.fit = cd->fit;
	s.any_at_zero = any0;
	s.req = j->req_nodes;
	p->stats.searches++;
	fw_tl_search(&p->tl, &p->sc, &s);
	p->stats.segs_pushed += s.segs_pushed;
	p->stats.quick += s.quick;
	/* Record what a plain job found (a lower bound for its class); not
	 * after a failed start, whose search skipped step 0. */
	if (plain) {
		struct exact_ent *x = exact_find(&p->exact, (uint32_t)(ec - p->ec),
						 fk, n, dkey, true);

		x->gen = p->tl.gen;
		x->c = s.c < 0 ? FW_TL_INF : s.c;
		frontier_add(&ec->fail[fk], n, dkey, x->c);
	}
	if (s.c < 0)
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW, FW_REASON_NONE);
	cd->c = s.c;
	cd->island = s.island;
	cd->xlo = s.xlo;
	cd->xhi = s.xhi;
	cd->kind = s.c == 0 ? FW_PLAN_START_NOW : FW_PLAN_RESERVED;
}

/* Rank for choosing among partitions: lower is better. */
static int64_t cand_rank(const struct cand *cd)
{
	switch (cd->kind) {
	case FW_PLAN_START_NOW:
	case FW_PLAN_RESERVED:
		return cd->c;
	case FW_PLAN_NOT_IN_WINDOW:
		return (int64_t)FW_TL_INF + 1;
	default:
		return (int64_t)FW_TL_INF + 2;
	}
}

/* Evaluate every partition of the job (blocked ones are skipped in the
 * main pass) and keep the best; the scratch state (intersection, node
 * sets) must be the best one's, so it is evaluated again if another
 * partition was tried after it. */
static void evaluate_best(struct fw_plan *p, const struct fw_plan_job *j,
			  enum fw_plan_pass pass, int32_t cmin,
			  struct cand *best)
{
	struct cand cd;
	uint32_t nparts = 1 + j->nalt_parts;
	int32_t last = -1;
	bool have = false;

	for (uint32_t k = 0; k < nparts; k++) {
		int32_t q = k == 0 ? j->part : j->alt_parts[k - 1];

		if (pass == FW_PASS_MAIN && j->resv < 0 && p->part_blocked[q])
			continue;
		evaluate(p, j, q, pass, cmin, &cd);
		last = q;
		if (!have || cand_rank(&cd) < cand_rank(best)) {
			*best = cd;
			have = true;
		}
		if (cd.kind == FW_PLAN_START_NOW)
			break;
	}
	if (have && best->part != last)
		evaluate(p, j, best->part, pass, cmin, best);
}

/* ------------------------------------------------------------------ */
/* Node choice, reasons                                                */
/* ------------------------------------------------------------------ */

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * nodes (and the sorted list sel) = the job's required nodes plus the
 * lowest free indices (inside the chosen island) up to `want`; with
 * `with_allowed` also allowed = every free node there (START_NOW).  Only
 * the words [xlo, xhi) of the search's X are looked at.  Returns the
 * number of nodes chosen.
 */
static uint32_t choose_nodes(struct fw_plan *p, const struct cand *cd,
			     const struct fw_plan_job *j, uint32_t want,
			     bool with_allowed)
{
	const uint64_t *X = p->sc.X;
	const uint64_t *im = cd->island >= 0 ?
			     p->cl->islands[cd->island].nodes->w : NULL;
	const uint64_t *req = j->req_nodes ? j->req_nodes->w : NULL;
	int64_t i;

	fw_bitset_clear_all(p->nodes);
	p->nsel = 0;
	if (with_allowed) {
		fw_bitset_clear_all(p->allowed);
		for (uint32_t w = cd->xlo; w < cd->xhi; w++)
			p->allowed->w[w] = im ? X[w] & im[w] : X[w];
	}
	if (req) {
		FW_BITSET_FOREACH(j->req_nodes, i) {
			fw_bitset_set(p->nodes, (uint32_t)i);
			p->sel[p->nsel++] = (uint32_t)i;
		}
	}
	for (uint32_t w = cd->xlo; w < cd->xhi && p->nsel < want; w++) {
		uint64_t x = X[w];

		if (im)
			x &= im[w];
		if (req)
			x &= ~req[w];
		while (x && p->nsel < want) {
			uint32_t b = w * 64 + fw_ctz64(x);

			p->nodes->w[w] |= x & (~x + 1);
			p->sel[p->nsel++] = b;
			x &= x - 1;
		}
	}
	if (req)
		qsort(p->sel, p->nsel, sizeof(*p->sel), u32_cmp);
	return p->nsel;
}

/* p->nodes = the selection p->sel[0..nsel-1]. */
static void sel_to_nodes(struct fw_plan *p)
{
	fw_bitset_clear_all(p->nodes);
	for (uint32_t k = 0; k < p->nsel; k++)
		fw_bitset_set(p->nodes, p->sel[k]);
}

/*
 * A node-sharing job starting now: nodes = the search's choice, widened up
 * to `want`; allowed = the candidate nodes (inside the chosen island) that
 * have the job's amounts free for its whole run, looked for only in the
 * 64-node blocks of the chosen nodes: enough room for the select plugin to
 * place the job its own way, at a cost that does not grow with the
 * cluster (a scan of every node per start made a 10,000-node pass of
 * 1,000 small jobs cost 200 ms).
 */
static uint32_t choose_shared(struct fw_plan *p, const struct cand *cd,
			      uint32_t want)
{
	const uint64_t *cw = p->sh->cand->w;
	uint32_t last = UINT32_MAX;
	int64_t i;

	shared_cand(p, cd, cd->island);
	fw_bitset_clear_all(p->allowed);
	for (uint32_t k = 0; k < p->nsel; k++) {
		uint32_t w = p->sel[k] >> 6;
		uint64_t x = cw[w];

		if (w == last)
			continue;
		last = w;
		for (; x; x &= x - 1) {
			uint32_t b = w * 64 + fw_ctz64(x);

			if (fw_share_fits(p->sh, b, 0, cd->L0))
				fw_bitset_set(p->allowed, b);
		}
	}
	sel_to_nodes(p);
	FW_BITSET_FOREACH(p->allowed, i) {
		if (p->nsel >= want)
			break;
		if (!fw_bitset_test(p->nodes, (uint32_t)i)) {
			fw_bitset_set(p->nodes, (uint32_t)i);
			p->sel[p->nsel++] = (uint32_t)i;
		}
	}
	qsort(p->sel, p->nsel, sizeof(*p->sel), u32_cmp);
	return p->nsel;
}

/* A protected reservation (or start) of the selection over [a, b): the
 * job's amounts per node for a sharing job, whole nodes otherwise. */
static void book_sel(struct fw_plan *p, const struct fw_plan_job *j,
		     uint32_t seq, bool shared, int32_t a, int32_t b)
{
	struct fw_share_owner o = { FW_HOLD_PLANNED, seq };

	if (p->sh && shared) {
		fw_share_set_req(p->sh, j);
		for (uint32_t k = 0; k < p->nsel; k++)
			fw_share_take(p->sh, p->sel[k], a, b, p->sh->req, o);
	} else if (p->sh) {
		fw_share_take_all_set(p->sh, p->nodes, a, b, o);
	}
	fw_tl_occupy_words(&p->tl, p->nodes->w,
			   p->nsel ? p->sel[0] >> 6 : 0,
			   p->nsel ? (p->sel[p->nsel - 1] >> 6) + 1 : 0,
			   a, b, j->lics, j->nlics, FW_TL_AVAIL | FW_TL_FREE);
}

static bool spans_islands(const struct fw_plan *p)
{
	const struct fw_cluster *cl = p->cl;

	for (uint32_t k = 1; k < p->nsel; k++)
		if (cl->nodes[p->sel[k]].island_idx !=
		    cl->nodes[p->sel[0]].island_idx)
			return true;
	return false;
}

static uint32_t count_words(const uint64_t *x, uint32_t lo, uint32_t hi)
{
	uint32_t c = 0;

	for (uint32_t w = lo; w < hi; w++)
		c += fw_popcount64(x[w]);
	return c;
}

/*
 * Why can a node-sharing job not start now?  Its nodes lack the amounts it
 * needs (Resources; GPUs for a GRES job), or in the main pass it would fit
 * on nodes that a higher-priority job blocked (Priority).
 */
static void classify_shared(struct fw_plan *p, const struct fw_plan_job *j,
			    const struct cand *cd, enum fw_plan_pass pass,
			    struct fw_plan_decision *d)
{
	uint32_t fit = 0, lo, hi;

	d->reason = j->gpus_per_node || j->ngres ? FW_REASON_GPUS :
		    FW_REASON_NODES;
	if (pass != FW_PASS_MAIN || cd->Eb == cd->E)
		return;
	fw_share_set_req(p->sh, j);
	fw_bitset_word_range(p->Eb, &lo, &hi);
	for (uint32_t w = lo; w < hi; w++) {
		uint64_t x = cd->Eb[w];

		for (; x; x &= x - 1) {
			uint32_t i = w * 64 + fw_ctz64(x);

			if (fw_share_fits(p->sh, i, 0, cd->L0) &&
			    ++fit >= j->nodes_min) {
				d->reason = FW_REASON_PRIORITY;
				return;
			}
		}
	}
}

/*
 * Why can the job not start now?  Looked at in the "run view": what is
 * idle now (running and started jobs, down nodes), then what advanced
 * reservations take, then (backfill) which protected reservation -- in
 * priority order -- takes the last nodes or licenses the job would need.
 */
static void classify(struct fw_plan *p, const struct fw_plan_job *j,
		     const struct cand *cd, enum fw_plan_pass pass,
		     struct fw_plan_decision *d)
{
	const struct advres *R = j->resv >= 0 ? &p->resv[j->resv] : NULL;
	uint32_t n = j->nodes_min, lo = cd->lo, hi = cd->hi, cnt;
	uint64_t *Y = p->tmp->w;
	int64_t need_left[16];
	uint32_t nl = j->nlics < 16 ? j->nlics : 16;

	for (uint32_t k = 0; k < j->nlics; k++)
		if (p->lic_idle[j->lics[k].idx] < (int64_t)j->lics[k].count) {
			d->reason = FW_REASON_LICENSE;
			d->blocker_lic = (int32_t)j->lics[k].idx;
			return;
		}
	if (R && R->a > 0) {
		d->reason = FW_REASON_RESV_TIME;
		return;
	}
	if (cd->shared)
		return classify_shared(p, j, cd, pass, d);
	/* Idle nodes the job could use: per class, counted once for every
	 * change of the idle set (a long queue repeats a few classes). */
	if (cd->cls >= 0) {
		struct eclass *ec = &p->ec[cd->cls];

		if (ec->idle_gen != p->idle_gen) {
			ec->idle_cnt = 0;
			for (uint32_t w = lo; w < hi; w++)
				ec->idle_cnt += fw_popcount64(p->idle->w[w] &
							      cd->Eb[w]);
			ec->idle_gen = p->idle_gen;
		}
		if (ec->idle_cnt < n) {
			d->reason = j->gpus_per_node || j->ngres ? FW_REASON_GPUS :
				    FW_REASON_NODES;
			return;
		}
		/* Outside the window only the kind of reason is kept: the
		 * blocker walk below is for jobs with a start. */
		if (pass == FW_PASS_BACKFILL && !p->nresv &&
		    d->kind == FW_PLAN_NOT_IN_WINDOW) {
			d->reason = FW_REASON_RESERVED;
			return;
		}
	}
	/* Eb: the job's nodes before main-pass blocking; its word range
	 * may be wider than [lo, hi) of the blocked set. */
	if (cd->Eb != cd->E) {
		fw_bitset_word_range(p->Eb, &lo, &hi);
	}
	for (uint32_t w = lo; w < hi; w++)
		Y[w] = p->idle->w[w] & cd->Eb[w];
	if ((cnt = count_words(Y, lo, hi)) < n) {
		d->reason = j->gpus_per_node || j->ngres ? FW_REASON_GPUS :
			    FW_REASON_NODES;
		return;
	}
	for (uint32_t r = 0; r < p->nresv; r++) {
		const struct advres *rv = &p->resv[r];

		if ((int32_t)r == j->resv || rv->partial || rv->b <= 0 ||
		    rv->a >= cd->L0)
			continue;
		for (uint32_t w = lo; w < hi; w++)
			Y[w] &= ~rv->nodes->w[w];
	}
	if ((cnt = count_words(Y, lo, hi)) < n) {
		d->reason = FW_REASON_ADV_RESV;
		return;
	}
	if (pass == FW_PASS_MAIN) {
		uint32_t c2 = 0;

		for (uint32_t w = lo; w < hi; w++)
			c2 += fw_popcount64(Y[w] & ~p->blocked->w[w]);
		d->reason = c2 < n ? FW_REASON_PRIORITY :
			    cd->fit == FW_FIT_ISLAND ? FW_REASON_TOPOLOGY :
			    FW_REASON_NODES;
		return;
	}
	if (d->kind == FW_PLAN_NOT_IN_WINDOW) {
		d->reason = FW_REASON_RESERVED;
		return;
	}
	/* Walk the protected reservations overlapping [now, end) in
	 * priority order; the one after which too little is left is the
	 * blocker. */
	for (uint32_t k = 0; k < nl; k++)
		need_left[k] = p->lic_idle[j->lics[k].idx];
	for (uint32_t r = 0; r < p->nrr; r++) {
		const struct rrec *rv = &p->rr[r];
		bool short_lic = false;

		if (rv->a >= cd->L0)
			continue;
		for (uint32_t k = 0; k < rv->nidx; k++) {
			uint32_t w = rv->idx[k] >> 6;
			uint64_t bit = (uint64_t)1 << (rv->idx[k] & 63);

			if (w >= lo && w < hi && (Y[w] & bit)) {
				cnt--;
				Y[w] &= ~bit;
			}
		}
		for (uint32_t k = 0; k < nl; k++)
			for (uint32_t m = 0; m < rv->nlics; m++)
				if (rv->lics[m].idx == j->lics[k].idx &&
				    (need_left[k] -= rv->lics[m].count) <
				    (int64_t)j->lics[k].count)
					short_lic = true;
		if (cnt < n || short_lic) {
			d->reason = FW_REASON_RESERVED;
			d->blocker = (int32_t)rv->seq;
			return;
		}
	}
	d->reason = cd->fit == FW_FIT_ISLAND ? FW_REASON_TOPOLOGY :
		    FW_REASON_NODES;
}

/* ------------------------------------------------------------------ */
/* Decisions                                                           */
/* ------------------------------------------------------------------ */

static void seq_push(struct fw_plan *p)
{
	if (p->nseq == p->capseq) {
		p->capseq = p->capseq ? p->capseq * 2 : 1024;
		p->wait_mark = fw_xrealloc(p->wait_mark,
					   p->capseq * sizeof(uint32_t));
	}
	p->wait_mark[p->nseq++] = NOT_WAITING;
}

static void mark_waiting(struct fw_plan *p, uint32_t seq)
{
	p->wait_mark[seq] = p->nstarted;
	p->nwaiting++;
}

static void decision_init(struct fw_plan_decision *d, uint32_t seq,
			  int32_t part)
{
	memset(d, 0, sizeof(*d));
	d->kind = FW_PLAN_SKIPPED;
	d->seq = seq;
	d->part = part;
	d->blocker = -1;
	d->blocker_lic = -1;
}

static void add_rrec(struct fw_plan *p, const struct fw_plan_job *j,
		     uint32_t seq, int32_t a, int32_t b)
{
	struct rrec *r;

	if (p->nrr == p->caprr) {
		p->caprr = p->caprr ? p->caprr * 2 : 64;
		p->rr = fw_xrealloc(p->rr, p->caprr * sizeof(*p->rr));
	}
	r = &p->rr[p->nrr++];
	r->seq = seq;
	r->a = a;
	r->b = b;
	r->nidx = p->nsel;
	r->idx = fw_xmalloc((p->nsel ? p->nsel : 1) * sizeof(uint32_t));
	memcpy(r->idx, p->sel, p->nsel * sizeof(uint32_t));
	r->nlics = j->nlics;
	r->lics = NULL;
	if (j->nlics) {
		r->lics = fw_xmalloc(j->nlics * sizeof(*r->lics));
		memcpy(r->lics, j->lics, j->nlics * sizeof(*r->lics));
	}
}

static int32_t end_of(int32_t c, int32_t L0, int32_t L)
{
	if (c == 0)
		return L0;
	if (L == FW_TL_INF || (int64_t)c + L >= FW_TL_INF)
		return FW_TL_INF;
	return c + L;
}

/* What holds the waiting node-sharing job's planned nodes until its
 * start (before its own booking). */
static void set_holders(struct fw_plan *p, const struct cand *cd,
			struct fw_plan_decision *d)
{
	d->nholders = fw_share_holders(p->sh, p->sel, p->nsel, cd->c);
	d->holders = p->sh->hold;
}

/* Turn the best candidate into the decision (and commit a reservation). */
static void conclude(struct fw_plan *p, const struct fw_plan_job *j,
		     enum fw_plan_pass pass, const struct cand *cd,
		     struct fw_plan_decision *d)
{
	uint32_t seq = d->seq;

	d->part = cd->part;
	d->is_protected = cd->prot;
	if (cd->kind == FW_PLAN_NOT_RUNNABLE) {
		d->kind = FW_PLAN_NOT_RUNNABLE;
		d->reason = cd->reason;
		return;
	}
	if (cd->kind == FW_PLAN_START_NOW) {
		uint32_t want = j->nodes_max > j->nodes_min ? j->nodes_max :
				j->nodes_min;

		d->kind = FW_PLAN_START_NOW;
		d->reason = FW_REASON_NONE;
		d->start = p->now;
		d->end = j->time_limit > 0 ? p->now + j->time_limit : 0;
		d->nnodes = cd->shared ? choose_shared(p, cd, want) :
			    choose_nodes(p, cd, j, want, true);
		d->shared = cd->shared;
		d->allowed = p->allowed;
		d->nodes = p->nodes;
		d->backfilled = pass == FW_PASS_BACKFILL && p->nwaiting > 0;
		d->across_islands = spans_islands(p);
		p->pend.active = true;
		p->pend.job = j;
		p->pend.pass = pass;
		p->pend.seq = seq;
		p->pend.part = cd->part;
		p->pend.L0 = cd->L0;
		p->pend.shared = cd->shared;
		return;
	}
	if (cd->kind == FW_PLAN_RESERVED) {
		d->start = slot_time(p, cd->c);
		d->end = j->time_limit > 0 ? d->start + j->time_limit : 0;
		if (cd->prot) {
			int32_t b = end_of(cd->c, cd->L0, cd->L);

			d->kind = FW_PLAN_RESERVED;
			if (cd->shared)
				sel_to_nodes(p);
			else
				choose_nodes(p, cd, j, j->nodes_min, false);
			d->nnodes = p->nsel;
			d->nodes = p->nodes;
			d->shared = cd->shared;
			d->across_islands = spans_islands(p);
			if (cd->shared && cd->sel_valid)
				set_holders(p, cd, d);
			book_sel(p, j, seq, cd->shared, cd->c, b);
			add_rrec(p, j, seq, cd->c, b);
			p->part_resv[cd->part]++;
			p->stats.reserved++;
		} else {
			d->kind = FW_PLAN_ESTIMATED;
			d->nnodes = j->nodes_min;
			d->shared = cd->shared;
			if (cd->shared && cd->sel_valid)
				set_holders(p, cd, d);
			p->stats.estimated++;
		}
	} else {
		d->kind = pass == FW_PASS_MAIN ? FW_PLAN_WAITING :
			  FW_PLAN_NOT_IN_WINDOW;
		if (pass == FW_PASS_BACKFILL)
			p->stats.not_in_window++;
	}
	if (cd->reason != FW_REASON_NONE)
		d->reason = cd->reason;
	else
		classify(p, j, cd, pass, d);
	mark_waiting(p, seq);
}

static int decide_backfill(struct fw_plan *p, const struct fw_plan_job *j,
			   struct fw_plan_decision *d)
{
	const struct fw_plan_conf *c = p->conf;
	enum fw_plan_reason r;
	struct cand best;

	if (p->stop_start) {
		d->reason = FW_REASON_BF_MAX_START;
		return 0;
	}
	if (c->bf_max_job_test && p->tested >= c->bf_max_job_test) {
		d->reason = FW_REASON_BF_MAX_TEST;
		return 0;
	}
	if ((r = check_limits(p, j)) != FW_REASON_NONE) {
		d->reason = r;
		return 0;
	}
	p->tested++;
	p->stats.tested++;
	evaluate_best(p, j, FW_PASS_BACKFILL, 0, &best);
	conclude(p, j, FW_PASS_BACKFILL, &best, d);
	return 0;
}

/* Slurm's main-scheduler rule: a job that cannot start blocks its
 * partition (its nodes are used by nobody after it in this pass), unless
 * it is below the reservation thresholds; a job in a reservation blocks
 * the reservation, a job with required nodes only those nodes. */
static void main_block(struct fw_plan *p, const struct fw_plan_job *j,
		       const struct fw_plan_decision *d)
{
	uint32_t nparts = 1 + j->nalt_parts;

	if (!meets_thresholds(p, j) || d->reason == FW_REASON_LICENSE)
		return;
	if (j->resv >= 0) {
		if (!p->resv_blocked)
			p->resv_blocked = fw_xcalloc(p->nresv ? p->nresv : 1,
						     1);
		p->resv_blocked[j->resv] = 1;
		return;
	}
	if (j->req_nodes && fw_bitset_count(j->req_nodes) >= j->nodes_min) {
		fw_bitset_or(p->blocked, j->req_nodes);
		return;
	}
	for (uint32_t k = 0; k < nparts; k++) {
		int32_t q = k == 0 ? j->part : j->alt_parts[k - 1];

		p->part_blocked[q] = 1;
		fw_bitset_or(p->blocked, p->cl->parts[q].nodes);
	}
}

static bool all_parts_blocked(const struct fw_plan *p,
			      const struct fw_plan_job *j)
{
	if (!p->part_blocked[j->part])
		return false;
	for (uint32_t k = 0; k < j->nalt_parts; k++)
		if (!p->part_blocked[j->alt_parts[k]])
			return false;
	return true;
}

bool fw_plan_main_all_blocked(const struct fw_plan *p)
{
	for (uint32_t q = 0; q < p->cl->nparts; q++)
		if (!p->part_blocked[q])
			return false;
	return p->cl->nparts > 0;
}

static int decide_main(struct fw_plan *p, const struct fw_plan_job *j,
		       struct fw_plan_decision *d)
{
	struct cand best;

	if ((j->resv >= 0 && p->resv_blocked && p->resv_blocked[j->resv]) ||
	    (j->resv < 0 && all_parts_blocked(p, j))) {
		d->kind = FW_PLAN_WAITING;
		d->reason = FW_REASON_PRIORITY;
		mark_waiting(p, d->seq);
		return 0;
	}
	p->stats.tested++;
	evaluate_best(p, j, FW_PASS_MAIN, 0, &best);
	conclude(p, j, FW_PASS_MAIN, &best, d);
	if (d->kind == FW_PLAN_WAITING)
		main_block(p, j, d);
	return 0;
}

int fw_plan_decide(struct fw_plan *p, const struct fw_plan_job *j,
		   enum fw_plan_pass pass, struct fw_plan_decision *d,
		   struct fw_err *err)
{
	struct order_key k;

	if (p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "outcome of the previous START_NOW decision "
				  "not reported");
	if (validate_job(p, j, err))
		return -1;
	job_key(p->cl, j, &k);
	if (p->last.valid && key_cmp(&p->last, &k) > 0) {
		char id[24];

		snprintf(id, sizeof(id), "%u", j->id);
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "job offered out of queue order "
				  "(sort with fw_plan_sort)");
	}
	p->last = k;
	p->setup_done = true;
	decision_init(d, p->nseq, j->part);
	seq_push(p);
	p->stats.decided++;
	if (pass == FW_PASS_MAIN)
		return decide_main(p, j, d);
	return decide_backfill(p, j, d);
}

static int started_done(struct fw_plan *p, const struct fw_bitset *nodes);

int fw_plan_started(struct fw_plan *p, const struct fw_bitset *nodes,
		    struct fw_err *err)
{
	const struct fw_plan_job *j = p->pend.job;
	struct fw_share_owner o = { FW_HOLD_PLANNED, p->pend.seq };

	if (!p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "no START_NOW decision to report on");
	if (!nodes)
		nodes = p->nodes;
	if (check_set(p, nodes, "started job", err))
		return -1;
	if (p->sh && p->pend.shared) {
		int64_t i;

		fw_share_set_req(p->sh, j);
		FW_BITSET_FOREACH(nodes, i) {
			if ((uint32_t)i >= p->cl->nnodes)
				break;
			fw_share_take(p->sh, (uint32_t)i, 0, p->pend.L0,
				      p->sh->req, o);
		}
	} else if (p->sh) {
		fw_share_take_all_set(p->sh, nodes, 0, p->pend.L0, o);
	}
	fw_tl_occupy(&p->tl, nodes, 0, p->pend.L0, j->lics, j->nlics,
		     FW_TL_AVAIL | FW_TL_FREE);
	return started_done(p, nodes);
}

int fw_plan_started_use(struct fw_plan *p, const struct fw_node_use *u,
			uint32_t n, struct fw_err *err)
{
	const struct fw_plan_job *j = p->pend.job;
	struct fw_bitset *set;
	int rc;

	if (!p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "no START_NOW decision to report on");
	if (check_uses(p, u, n, "started job", err))
		return -1;
	if (p->sh && p->pend.shared) {
		take_uses(p, u, n, 0, p->pend.L0, FW_TL_AVAIL | FW_TL_FREE,
			  (struct fw_share_owner){ FW_HOLD_PLANNED,
						   p->pend.seq });
		fw_tl_occupy(&p->tl, p->no_nodes, 0, p->pend.L0, j->lics,
			     j->nlics, FW_TL_AVAIL | FW_TL_FREE);
		return started_done(p, uses_set(p, u, n));
	}
	/* Whole nodes: the same as fw_plan_started. */
	set = fw_bitset_dup(uses_set(p, u, n));
	rc = fw_plan_started(p, set, err);
	fw_bitset_free(set);
	return rc;
}

/* Bookkeeping after a start, common to both ways of reporting it. */
static int started_done(struct fw_plan *p, const struct fw_bitset *nodes)
{
	const struct fw_plan_job *j = p->pend.job;

	fw_bitset_andnot(p->idle, nodes);
	p->idle_gen++;
	for (uint32_t k = 0; k < j->nlics; k++)
		p->lic_idle[j->lics[k].idx] -= j->lics[k].count;
	p->nstarted++;
	p->stats.started++;
	if (p->pend.pass == FW_PASS_BACKFILL) {
		p->bf_started++;
		if (p->conf->bf_max_job_start &&
		    p->bf_started >= p->conf->bf_max_job_start)
			p->stop_start = true;
	}
	p->pend.active = false;
	return 0;
}

int fw_plan_start_failed(struct fw_plan *p, struct fw_plan_decision *d,
			 struct fw_err *err)
{
	const struct fw_plan_job *j = p->pend.job;
	struct cand best;
	uint32_t seq = p->pend.seq;

	if (!p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "no START_NOW decision to report on");
	p->pend.active = false;
	decision_init(d, seq, p->pend.part);
	if (p->pend.pass == FW_PASS_MAIN) {
		d->kind = FW_PLAN_WAITING;
		d->reason = FW_REASON_START_FAILED;
		mark_waiting(p, seq);
		main_block(p, j, d);
		return 0;
	}
	/* Plan it from the next step on, as if now were taken. */
	evaluate_best(p, j, FW_PASS_BACKFILL, 1, &best);
	conclude(p, j, FW_PASS_BACKFILL, &best, d);
	if (d->kind != FW_PLAN_NOT_RUNNABLE)
		d->reason = FW_REASON_START_FAILED;
	return 0;
}

int fw_plan_start_refused(struct fw_plan *p, struct fw_plan_decision *d,
			  struct fw_err *err)
{
	if (!p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "no START_NOW decision to report on");
	p->pend.active = false;
	decision_init(d, p->pend.seq, p->pend.part);
	d->reason = FW_REASON_JOB_LIMIT;
	return 0;
}

void fw_plan_bypass(const struct fw_plan *p, uint32_t *inc, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i < p->nseq && p->wait_mark[i] != NOT_WAITING)
			inc[i] = p->nstarted - p->wait_mark[i];
		else
			inc[i] = 0;
	}
}

/* ------------------------------------------------------------------ */
/* Batch passes                                                        */
/* ------------------------------------------------------------------ */

static void result_from(struct fw_plan_result *r,
			const struct fw_plan_decision *d)
{
	r->kind = d->kind;
	r->start = d->start;
	r->end = d->end;
	r->part = d->part;
	r->nnodes = d->nnodes;
	r->is_protected = d->is_protected;
	r->backfilled = d->backfilled;
	r->across_islands = d->across_islands;
	r->shared = d->shared;
	r->reason = d->reason;
	r->blocker = d->blocker;
	r->blocker_lic = d->blocker_lic;
	r->node_idx = NULL;
	if (d->nodes) {
		uint32_t k = 0;
		int64_t i;

		r->node_idx = fw_xmalloc((d->nnodes ? d->nnodes : 1) *
					 sizeof(uint32_t));
		FW_BITSET_FOREACH(d->nodes, i)
			r->node_idx[k++] = (uint32_t)i;
		r->nnodes = k;
	}
}

static int run_pass(struct fw_plan *p, const struct fw_plan_job *jobs,
		    size_t n, struct fw_plan_result *res,
		    enum fw_plan_pass pass, struct fw_err *err)
{
	struct fw_plan_decision d;
	uint32_t *inc;

	memset(res, 0, n * sizeof(*res));
	if (p->nseq || p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "a batch pass needs a fresh plan");
	for (size_t i = 0; i < n; i++) {
		if (fw_plan_decide(p, &jobs[i], pass, &d, err) ||
		    (d.kind == FW_PLAN_START_NOW &&
		     fw_plan_started(p, NULL, err))) {
			fw_plan_results_free(res, i);
			memset(res, 0, n * sizeof(*res));
			return -1;
		}
		result_from(&res[i], &d);
	}
	inc = fw_xmalloc((n ? n : 1) * sizeof(*inc));
	fw_plan_bypass(p, inc, n);
	for (size_t i = 0; i < n; i++)
		res[i].bypass_inc = inc[i];
	free(inc);
	return 0;
}

int fw_plan_main(struct fw_plan *p, const struct fw_plan_job *jobs, size_t n,
		 struct fw_plan_result *res, struct fw_err *err)
{
	return run_pass(p, jobs, n, res, FW_PASS_MAIN, err);
}

int fw_plan_backfill(struct fw_plan *p, const struct fw_plan_job *jobs,
		     size_t n, struct fw_plan_result *res, struct fw_err *err)
{
	return run_pass(p, jobs, n, res, FW_PASS_BACKFILL, err);
}

struct fw_bitset *fw_plan_result_nodes(const struct fw_plan_result *r,
				       uint32_t nnodes)
{
	struct fw_bitset *b;

	if (!r->node_idx)
		return NULL;
	b = fw_bitset_new(nnodes);
	for (uint32_t k = 0; k < r->nnodes; k++)
		fw_bitset_set(b, r->node_idx[k]);
	return b;
}

void fw_plan_results_free(struct fw_plan_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(res[i].node_idx);
		res[i].node_idx = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Explanations                                                        */
/* ------------------------------------------------------------------ */

struct sbuf {
	char *b;
	size_t len, pos;
};

static void sb_add(struct sbuf *sb, const char *fmt, ...) FW_PRINTF(2, 3);

static void sb_add(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->pos >= sb->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->b + sb->pos, sb->len - sb->pos, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb->pos += (size_t)n;
	if (sb->pos >= sb->len && sb->len >= 4) {
		memcpy(sb->b + sb->len - 4, "...", 4);
		sb->pos = sb->len;
	}
}

static void sb_duration(struct sbuf *sb, fw_time_t s)
{
	if (s < 0)
		s = 0;
	if (s >= 86400)
		sb_add(sb, "%lld-", (long long)(s / 86400));
	sb_add(sb, "%02lld:%02lld:%02lld", (long long)(s % 86400 / 3600),
	       (long long)(s % 3600 / 60), (long long)(s % 60));
}

static void sb_nodes(struct sbuf *sb, const struct fw_cluster *cl,
		     const struct fw_plan_result *r)
{
	for (uint32_t k = 0; k < r->nnodes && r->node_idx; k++)
		sb_add(sb, "%s%s", k ? "," : "", cl->nodes[r->node_idx[k]].name);
}

const char *fw_plan_explain(const struct fw_cluster *cl,
			    const struct fw_plan_job *jobs,
			    const struct fw_plan_result *res, size_t i,
			    fw_time_t now, char *buf, size_t len)
{
	const struct fw_plan_result *r = &res[i];
	struct sbuf sb = { buf, len, 0 };

	if (len == 0)
		return buf;
	buf[0] = '\0';
	sb_add(&sb, "job %u: ", jobs[i].id);
	switch (r->kind) {
	case FW_PLAN_START_NOW:
		sb_add(&sb, "starts now in partition %s on ",
		       cl->parts[r->part].name);
		sb_nodes(&sb, cl, r);
		if (r->backfilled)
			sb_add(&sb, " (backfilled)");
		return buf;
	case FW_PLAN_RESERVED:
		sb_add(&sb, "reserved: starts in ");
		sb_duration(&sb, r->start - now);
		sb_add(&sb, " in partition %s on ", cl->parts[r->part].name);
		sb_nodes(&sb, cl, r);
		sb_add(&sb, "; later jobs cannot delay it");
		break;
	case FW_PLAN_ESTIMATED:
		sb_add(&sb, "estimated start in ");
		sb_duration(&sb, r->start - now);
		sb_add(&sb, " (not protected: below bf_min_prio_reserve/"
		       "bf_min_age_reserve or past the reservation depth; "
		       "backfill may delay it)");
		break;
	case FW_PLAN_NOT_IN_WINDOW:
		sb_add(&sb, "no start within the backfill window (bf_window)");
		break;
	case FW_PLAN_NOT_RUNNABLE:
		sb_add(&sb, "cannot run in partition %s as requested",
		       cl->parts[r->part].name);
		break;
	case FW_PLAN_WAITING:
		sb_add(&sb, "cannot start now");
		break;
	case FW_PLAN_SKIPPED:
		sb_add(&sb, "not evaluated in this cycle");
		break;
	}
	sb_add(&sb, "; reason: %s", fw_plan_reason_str(r->reason));
	if (r->reason == FW_REASON_RESERVED && r->blocker >= 0)
		sb_add(&sb, " (nodes/licenses kept for job %u)",
		       jobs[r->blocker].id);
	if (r->reason == FW_REASON_LICENSE && r->blocker_lic >= 0)
		sb_add(&sb, " (%s)", cl->lics[r->blocker_lic].name);
	return buf;
}
