/*
 * fw_rtl.h - per-resource node timeline (the planner's shared-node model).
 *
 * A struct fw_rtl holds, for a fixed set of nodes 0..nnodes-1, the free
 * amount of K consumable resources per node over time.  Resource indices
 * are the caller's: it maps "cpu", "mem" (MB), "gres/gpu:a100", "shard",
 * "tmpdisk", ... to 0..K-1 once and passes amounts as int64_t arrays of K.
 *
 * Time is integer slots [0, W) plus "forever": every slot >= W behaves as
 * slot W (the state at the window end persists), exactly like the whole-
 * node timeline of fw_plan_tl.h.  So an interval [a, b) with b > W lasts
 * forever, and one with a >= W is the interval [W, forever).
 *
 * The shape follows flux-sched's resource/planner: an opaque type, a small
 * set of operations with a contract each, and its own tests
 * (testsuite/unit/test_rtl.c, with a brute-force oracle).  Unlike flux's
 * planner (one aggregate count per planner) one fw_rtl holds every node,
 * because the planner's key question is about n nodes of a set at once:
 * fw_rtl_earliest().
 *
 * Design (details in fw_rtl_int.h and doc/perf-rtl.md): per node a sorted
 * list of change points with the free amounts after each; per block of 64
 * nodes (one fw_bitset word) and per time bucket (exact near slot 0,
 * 25 % of their start later, plus forever) the largest free amounts of its nodes, and the
 * block's largest capacity per resource.  A node can only fit where its
 * block's envelope fits, so the search skips whole blocks that are too
 * full in the interval it asks about.
 *
 * Node arguments must be < nnodes (fw_rtl_take/_give refuse others; the
 * queries do not check).  Not thread-safe: fw_rtl_earliest() uses scratch
 * memory inside the object.  Allocation failures abort (fw_xmalloc), as everywhere in the
 * core.
 */
#ifndef FW_RTL_H
#define FW_RTL_H

#include <stdbool.h>
#include <stdint.h>

#include "fw_bitset.h"
#include "fw_common.h"

/* "Forever": as a duration or interval end; as a start "no start". */
#define FW_RTL_INF INT32_MAX

struct fw_rtl;

/*
 * A timeline for nnodes nodes (>= 1) and nres resources (1..FW_RTL_MAXRES)
 * over slots [0, wslots) + forever (wslots >= 1).  Every capacity starts at
 * 0: nothing fits until fw_rtl_set_capacity().
 */
#define FW_RTL_MAXRES 64
struct fw_rtl *fw_rtl_new(uint32_t nnodes, uint32_t nres, int32_t wslots);
void fw_rtl_free(struct fw_rtl *r);
/*
 * Recut the search's time buckets to half their length (a quarter of
 * their start, then an eighth, at most a sixteenth), for a plan that has
 * become deep (many bookings after slot 0 on every node): the node
 * filters then pass far fewer nodes to list walks, at about twice the
 * upkeep per take or give.  The free amounts, every answer and every
 * later change are the same; only speed and memory differ.  O(nodes x
 * buckets).  Past the finest cut it does nothing.  fw_rtl_refined: how
 * often it was cut (0, 1, 2).
 */
void fw_rtl_refine(struct fw_rtl *r);
uint32_t fw_rtl_refined(const struct fw_rtl *r);

/*
 * Bulk loading.  Between fw_rtl_bulk_begin() and fw_rtl_bulk_end() the
 * changes (capacities, takes, gives, refine) update only the nodes' free
 * amounts; the search's per-bucket tables of the nodes that changed (all
 * after a refine) are rebuilt once, at the end, in O(changed nodes x
 * buckets x resources) instead of per change.  Meant for
 * loading a fresh timeline with every running job's booking (thousands
 * of nodes at once, where each change would otherwise refresh the tables
 * of its node).  In between, only the list queries may be asked
 * (fw_rtl_free_min, fw_rtl_fits, fw_rtl_capacity, fw_rtl_next_change,
 * fw_rtl_npoints): fw_rtl_earliest, fw_rtl_fit_at and
 * fw_rtl_node_earliest read the tables and must wait for the end.
 * Nesting is not counted: one end closes the bulk.  Every answer after
 * the end is the same as without bulk loading.
 */
void fw_rtl_bulk_begin(struct fw_rtl *r);
void fw_rtl_bulk_end(struct fw_rtl *r);

uint32_t fw_rtl_nnodes(const struct fw_rtl *r);
uint32_t fw_rtl_nres(const struct fw_rtl *r);
int32_t fw_rtl_wslots(const struct fw_rtl *r);

/*
 * Set node's capacity (cap[0..K-1], each >= 0) at all times.  What is
 * already taken stays taken: the free amounts move by (new - old).  Fails
 * with -1 and changes nothing if a capacity is negative or below what is
 * taken at some slot; returns 0 otherwise.
 */
int fw_rtl_set_capacity(struct fw_rtl *r, uint32_t node, const int64_t *cap);
/* The node's capacity (K values) into cap. */
void fw_rtl_capacity(const struct fw_rtl *r, uint32_t node, int64_t *cap);

/*
 * Take amt[0..K-1] (each >= 0) of node over the slots [a, b) (clamped as
 * described above; b may be FW_RTL_INF; b <= a is an empty interval and
 * succeeds).  All or nothing: returns -1 and changes nothing if some
 * resource would go below 0 at some slot of the interval (or an amount is
 * negative), 0 after taking.
 */
int fw_rtl_take(struct fw_rtl *r, uint32_t node, int32_t a, int32_t b,
		const int64_t *amt);
/*
 * The same for every node of nodes[0..n-1] (distinct indices), all or
 * nothing over the whole set: the planner books a job on n nodes at once.
 */
int fw_rtl_take_nodes(struct fw_rtl *r, const uint32_t *nodes, uint32_t n,
		      int32_t a, int32_t b, const int64_t *amt);
/*
 * Take what there is, up to amt: at every slot of [a, b) each resource
 * loses min(amt, free).  Never fails; for bookings the plan cannot refuse
 * (running jobs Slurm oversubscribed, a node taken whole while parts of it
 * are already booked).  Returns -1 only for a bad node or negative amount.
 */
int fw_rtl_take_upto(struct fw_rtl *r, uint32_t node, int32_t a, int32_t b,
		     const int64_t *amt);
/*
 * Give back amt over [a, b): the inverse of a successful fw_rtl_take with
 * the same arguments (a job ends early, a reservation is dropped).  All or
 * nothing: -1 and no change if some resource would exceed the node's
 * capacity at some slot.  Giving back in other pieces than were taken
 * (e.g. the tail [t, b) of a job that ends at t) is allowed.
 */
int fw_rtl_give(struct fw_rtl *r, uint32_t node, int32_t a, int32_t b,
		const int64_t *amt);

/*
 * The free amounts of node over [a, b): per resource the minimum over the
 * slots of the interval (b <= a: the single slot a), into out[0..K-1].
 */
void fw_rtl_free_min(const struct fw_rtl *r, uint32_t node, int32_t a,
		     int32_t b, int64_t *out);
/* Does node have req free during all of [a, b)? */
bool fw_rtl_fits(const struct fw_rtl *r, uint32_t node, int32_t a, int32_t b,
		 const int64_t *req);

/* One earliest-start question: n nodes, each with req free for d slots. */
struct fw_rtl_query {
	/* in */
	const struct fw_bitset *cand;	/* nodes that may be used (NULL: all;
					 * nbits must be nnodes) */
	uint32_t n;			/* nodes needed (>= 1) */
	const int64_t *req;		/* per node, K amounts (>= 0) */
	int32_t d;			/* duration in slots (>= 1), or
					 * FW_RTL_INF: forever */
	int32_t smin, smax;		/* allowed starts [smin, smax];
					 * smax FW_RTL_INF: no limit */
	/* out */
	int32_t start;			/* earliest start, -1: none */
	uint32_t *nodes;		/* caller's array of n: the chosen
					 * nodes, ascending */
	/* work counters (accumulated, for benchmarks and statistics) */
	uint64_t nodes_scanned;		/* node lists looked at */
	uint64_t blocks_skipped;	/* blocks rejected by their summary */
};

/*
 * The earliest slot c in [smin, smax] such that at least n nodes of cand
 * each have req free during all of [c, c + d); the chosen nodes are the n
 * lowest-indexed such nodes (a monotone choice: a job's placement does not
 * change because other jobs took nodes it does not use, as in fw_plan_tl).
 * Returns q->start (-1 if there is none: then q->nodes[] is unspecified).
 * Does not change the timeline (the caller takes what it decides to).
 * Starts are never later than max(smin, W) unless none exists: past W the
 * state does not change.
 */
int32_t fw_rtl_earliest(struct fw_rtl *r, struct fw_rtl_query *q);

/*
 * The nodes of q->cand that have q->req free during [c, c + q->d), at most
 * q->n of them, lowest indices first, into q->nodes; returns how many
 * (fewer than q->n when fewer fit, 0 for a bad query).  fw_rtl_earliest's
 * first step at a given slot, with its filters (level sets, block
 * envelopes, probe hints), for a caller that takes nodes set by set (node
 * weights) and so must know how many of a set fit.  q->smin, q->smax and
 * q->start are not used.  Does not change the timeline.
 */
uint32_t fw_rtl_fit_at(struct fw_rtl *r, struct fw_rtl_query *q, int32_t c);

/*
 * The same question for one node: the earliest slot c in [smin, smax] at
 * which node has req free during [c, c + d), or -1.  As fw_rtl_earliest
 * with n = 1 and cand = {node}, without its scratch memory or summaries:
 * one walk of the node's list (a caller asking about a few nodes, each
 * from its own first slot).
 */
int32_t fw_rtl_node_earliest(const struct fw_rtl *r, uint32_t node,
			     const int64_t *req, int32_t d, int32_t smin,
			     int32_t smax);

/*
 * The first slot after t (t >= 0) at which node's free amounts change, or
 * FW_RTL_INF if they never do again.  Walking a node's changes this way
 * visits every slot where a start can become possible that was not one
 * slot earlier (a window's fit only changes where a segment begins).
 */
int32_t fw_rtl_next_change(const struct fw_rtl *r, uint32_t node, int32_t t);

/* Change points stored for node (>= 1), and bytes held by the timeline
 * (for tests and benchmarks). */
uint32_t fw_rtl_npoints(const struct fw_rtl *r, uint32_t node);
size_t fw_rtl_mem_bytes(const struct fw_rtl *r);

#endif /* FW_RTL_H */
