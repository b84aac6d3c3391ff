/*
 * fw_plan_int.h - the planner's internals, shared by its source files:
 *
 *   fw_plan.c         the step API (decide, started, failed), per-cycle
 *                     limits, thresholds
 *   fw_plan_setup.c   a plan's life cycle: running jobs, reservations,
 *                     down nodes
 *   fw_plan_eval.c    node-set classes and the earliest start of one job
 *                     in one partition (whole-node and shared searches)
 *   fw_plan_choose.c  node choice, bookings and reasons
 *   fw_plan_order.c   queue order and names
 *   fw_plan_batch.c   the batch passes and the one-line explanation
 *   fw_plan_preempt.c preemptable running jobs, victims and their release
 *   fw_plan_cache.c   small containers (counter map, lower-bound frontier,
 *                     exact answers)
 *   fw_plan_tl.c      the whole-node timeline; fw_plan_share.c the
 *                     shared-node layer; fw_rtl*.c its timeline
 *
 * Nothing here is part of the core's interface (fw_plan.h).
 */
#ifndef FW_PLAN_INT_H
#define FW_PLAN_INT_H

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
/* Small containers (fw_plan_cache.c)                                  */
/* ------------------------------------------------------------------ */

/* uint64 -> uint32 counter map (open addressing). */
struct cmap {
	uint32_t cap, n;
	uint64_t *key;
	uint32_t *val;
	uint8_t *used;
};

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
	uint32_t max_cpus;	/* largest CPU count of a qualifying type */
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
	bool head;
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

/* ------------------------------------------------------------------ */
/* Preemption (fw_plan_preempt.c)                                      */
/* ------------------------------------------------------------------ */

/* A preemptable running job. */
struct pvict {
	uint32_t job, cls, prio, nnodes;
	fw_time_t start, exempt_until;
	int32_t b;		/* end slot (FW_TL_INF: forever) */
	int32_t r;		/* slot from which it is gone if preempted now
				   (after its grace time; <= b) */
	uint32_t rank;		/* position in the rank order */
	uint32_t first;		/* its holds: hold[first .. first + nnodes) */
	uint32_t stamp;		/* scratch mark */
	bool gone;		/* preempted in this plan */
};

/* A running job's preemptable part of one node (amounts: K values at
 * hamt[h * K]). */
struct phold {
	uint32_t node, v;
};

struct fw_preempt {
	struct pvict *v;
	uint32_t nv, capv;
	struct phold *h;
	int64_t *hamt;
	uint32_t nh, caph;
	/* Per node, its holds in rank order (built at the first search):
	 * by_node[node_first[i] .. node_first[i + 1]). */
	bool indexed;
	uint32_t *node_first, *by_node;
	/* Scratch of one search. */
	uint32_t *pick, npick, cappick;	/* hold indices chosen per node */
	struct pnode *pn;		/* fitting nodes of one start */
	uint32_t *out;			/* victims' job ids, rank order */
	uint32_t nout;
	uint32_t *outv;			/* the same as victim indices */
	uint32_t stamp;
	int32_t *bnd;			/* segment boundaries, scratch */
	int32_t *slots;			/* starts worth trying, scratch */
	int32_t *low;			/* the n lowest later fits, scratch
					   (one per node at most) */
	bool later;			/* outv's start waits for other
					   holders: preempt them later */
	int64_t *add, *fr;		/* K each */
	bool whole;			/* the job being decided wants whole
					   nodes: s->req is set per node */
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
	struct fw_preempt *pre;		/* preemptable running jobs, or NULL */
	struct fw_bitset *usable;	/* cluster usable minus plan's down */
	struct fw_bitset *idle;		/* run view: usable, not running/started */
	uint64_t idle_gen;		/* bumped whenever idle changes */
	int64_t *lic_idle;		/* run view licenses */
	/* Node-sharing running jobs hold their nodes out of the whole-node
	 * view until their end: per node the latest such end, applied to
	 * the view at once when set-up closes (run_flush) rather than one
	 * walk over the view per job.  0 = nothing deferred. */
	int32_t *run_end;
	bool run_pending;

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
	uint32_t *wsel;			/* pick_weighted's answer (nnodes;
					   only with node weights) */
	struct fw_bitset *wcand;	/* pick_weighted's scratch */
	uint32_t nsel;

	struct fw_plan_stats stats;
};


/* ------------------------------------------------------------------ */
/* Time <-> slots                                                      */
/* ------------------------------------------------------------------ */

/* End slot of a job starting at slot c: L0 slots long at c == 0 (now is
 * inside slot 0), else L; FW_TL_INF past the timeline. */
static inline int32_t end_of(int32_t c, int32_t L0, int32_t L)
{
	if (c == 0)
		return L0;
	if (L == FW_TL_INF || (int64_t)c + L >= FW_TL_INF)
		return FW_TL_INF;
	return c + L;
}

static inline int64_t div_floor(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static inline int64_t div_ceil(int64_t a, int64_t b)
{
	return -div_floor(-a, b);
}

static inline int32_t clamp_slot(int64_t s)
{
	if (s >= FW_TL_INF)
		return FW_TL_INF;
	if (s < 0)
		return 0;
	return (int32_t)s;
}

/* Slot in which something ending at absolute time `end` stops using its
 * nodes (exclusive): the end is rounded up, so a plan is never optimistic. */
static inline int32_t end_slot(const struct fw_plan *p, fw_time_t end)
{
	return clamp_slot(div_ceil(end - p->t0, p->res));
}

static inline fw_time_t slot_time(const struct fw_plan *p, int32_t c)
{
	return c == 0 ? p->now : p->t0 + (fw_time_t)c * p->res;
}

/* Lengths in slots of a job starting at slot 0 (at `now`) and later. */
static inline void job_slots(const struct fw_plan *p, int64_t limit, int32_t *L0,
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


/* ------------------------------------------------------------------ */
/* Functions shared between the planner's files                        */
/* ------------------------------------------------------------------ */

/* fw_plan.c */
bool meets_thresholds(const struct fw_plan *p,
		      const struct fw_plan_job *j);

/* fw_plan_cache.c */
int32_t frontier_bound(const struct frontier *f, uint32_t n, int64_t d);
struct exact_ent *exact_find(struct exact_map *m, uint32_t cls,
			     int fit, uint32_t n, int64_t d, bool add);
uint32_t *cmap_slot(struct cmap *m, uint64_t key);
void cmap_free(struct cmap *m);
void frontier_add(struct frontier *f, uint32_t n, int64_t d, int32_t c);

/* fw_plan_choose.c */
int u32_cmp(const void *a, const void *b);
bool spans_islands(const struct fw_plan *p);
uint32_t choose_nodes(struct fw_plan *p, const struct cand *cd,
		      const struct fw_plan_job *j, uint32_t want,
		      bool with_allowed);
uint32_t choose_shared(struct fw_plan *p, const struct cand *cd,
		       const struct fw_plan_job *j, uint32_t want);
void book_sel(struct fw_plan *p, const struct fw_plan_job *j,
	      uint32_t seq, bool shared, int32_t a, int32_t b);
void classify(struct fw_plan *p, const struct fw_plan_job *j,
	      const struct cand *cd, enum fw_plan_pass pass,
	      struct fw_plan_decision *d);
void sel_to_nodes(struct fw_plan *p);
uint32_t pick_weighted(struct fw_plan *p, const struct fw_bitset *skip,
		       uint32_t n, uint32_t room, int32_t a, int32_t b);

/* fw_plan_eval.c */
void shared_view(struct fw_plan *p, const struct fw_plan_job *j);
void evaluate_best(struct fw_plan *p, const struct fw_plan_job *j,
		   enum fw_plan_pass pass, int32_t cmin,
		   struct cand *best);
void shared_cand(struct fw_plan *p, const struct cand *cd, int32_t k);

/* fw_plan_order.c */
int key_cmp(const struct order_key *a, const struct order_key *b);
void job_key(const struct fw_cluster *cl, const struct fw_plan_job *j,
	     struct order_key *k);

/* fw_plan_preempt.c */
void preempt_free(struct fw_preempt *pr);
bool preempt_try(struct fw_plan *p, const struct fw_plan_job *j,
		 enum fw_plan_pass pass, struct cand *cd);
void preempt_report(const struct fw_plan *p, struct fw_plan_decision *d);

/* fw_plan_setup.c */
int check_lics(const struct fw_plan *p, const struct fw_plan_lic *l,
	       uint32_t n, struct fw_err *err);
int check_set(const struct fw_plan *p, const struct fw_bitset *b,
	      const char *what, struct fw_err *err);
int check_uses(const struct fw_plan *p, const struct fw_node_use *u,
	       uint32_t n, const char *what, struct fw_err *err);
void run_flush(struct fw_plan *p);
struct fw_bitset *uses_set(struct fw_plan *p,
			   const struct fw_node_use *u, uint32_t n);
void take_uses(struct fw_plan *p, const struct fw_node_use *u,
	       uint32_t n, int32_t a, int32_t b, int views,
	       struct fw_share_owner o);

#endif /* FW_PLAN_INT_H */
