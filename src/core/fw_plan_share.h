/*
 * fw_plan_share.h - the plan's shared-node layer (internal to the planner).
 *
 * On a shared cluster (fw_cluster_set_shared) a plan keeps, beside its
 * whole-node timeline (fw_plan_tl.h: "is the node entirely free"), an
 * fw_rtl timeline of what is free on each node: resource 0 CPUs, 1 memory
 * (MB), 2 GPUs of every type, 3 + g the cluster's GRES g.  The two views
 * are kept consistent by the planner: anything that takes part of a node
 * also takes the node out of the whole-node view for that interval, and
 * anything that takes whole nodes takes all that is left of them here.
 * So whole-node jobs keep the fast bitset search, and jobs that may share
 * nodes are searched here (fw_rtl_earliest).
 *
 * Typed GPUs ("gpu:a100") count in resource 2 and in their own entry, so
 * an untyped GPU request takes from the total only.  On a node with GPUs
 * of two types, a planned untyped job does not say which type it will get;
 * the plan assumes the other jobs' types are left (documented in
 * sched_fairway(8)); running jobs are always booked exactly.
 */
#ifndef FW_PLAN_SHARE_H
#define FW_PLAN_SHARE_H

#include "fw_plan.h"
#include "fw_rtl.h"

enum { FW_SHR_CPU, FW_SHR_MEM, FW_SHR_GPU, FW_SHR_GRES0 };
/* Answers kept for dominance bounds (fw_share_known). */
#define FW_SHR_DOM 64

/* An advanced reservation's view for its own jobs (fw_share_use_view). */
struct shr_view {
	int32_t resv;
	struct fw_bitset *nodes;
	struct fw_rtl *rtl;
};

struct fw_share {
	const struct fw_cluster *cl;
	struct fw_rtl *rtl;	/* what every job outside reservations sees
				   (built on first use: fw_share_use_view) */
	int32_t wslots;
	struct fw_rtl *cur;	/* searched: rtl or a reservation's view */
	struct shr_view *views;
	uint32_t nviews;
	uint32_t K;
	int64_t *req;		/* the job being decided, per node */
	int64_t *amt, *fmin;	/* scratch, K each */
	struct fw_bitset *cand;	/* scratch candidate set */
	uint32_t *sel;		/* nodes the last search chose */
	uint32_t nsel;
	uint64_t searches, nodes_scanned;
	/* What was booked where (fw_share_holders): a list per node. */
	struct shr_book *book;
	int64_t *book_amt;	/* capbook * K: each booking's amounts */
	uint32_t nbook, capbook;
	uint32_t nlater;	/* bookings that begin after slot 0 */
	uint32_t deep;		/* times the timelines were refined */
	uint32_t deep_at;	/* nlater that refines them again
				   (next_deep_at) */
	int32_t *head;		/* nnodes: newest booking, -1 */
	struct fw_plan_holder hold[FW_PLAN_MAX_HOLDERS];
	/* Earlier answers of this plan (fw_share_known). */
	struct shr_ent *memo;
	uint32_t memo_cap, memo_n;
	int64_t *memo_req;	/* memo_cap * K */
	/* The latest answers later than now, whatever their shape: a
	 * ring of FW_SHR_DOM (fw_share_known's dominance bound). */
	struct shr_ent *dom;
	int64_t *dom_req;	/* FW_SHR_DOM * K */
	uint32_t dom_n, dom_next;
	/* Nodes where a booking took less than it asked for (a node taken
	 * whole while parts of it were booked, a clamped running job):
	 * what a booking there holds is not known exactly, so preemption
	 * does not count on giving it back (fw_plan_preempt.c). */
	struct fw_bitset *inexact;
	int64_t *chk;		/* scratch, K */
	/* What one job can get right now where Slurm's select plugin gives
	 * less than is free in total (fw_share_now_cap): nnodes * K amounts,
	 * -1 no limit; NULL while no node has one. */
	int64_t *nowcap;
	uint32_t *capped;	/* the nodes with a limit */
	uint32_t ncapped;
	struct fw_bitset *nowok;	/* nodes s->req may start on now, */
	bool nowok_on;		/* when some limit rules a node out */
	struct fw_bitset *cand_now;	/* scratch: cand and nowok */
	struct fw_bitset *cand_later;	/* scratch: earliest_capped */
	int32_t *cap_until;	/* scratch: per capped[] node, the slot
				   earliest_capped holds it until */
};

/* A share layer for cl (shared, finalised) over wslots slots, every node
 * at its configured capacity. */
struct fw_share *fw_share_new(const struct fw_cluster *cl, int32_t wslots);
void fw_share_free(struct fw_share *s);

/* May job j be planned on parts of nodes in partition q? (Not a job that
 * wants whole nodes; the planner also keeps the jobs of a CoreCnt
 * reservation on whole nodes.) */
bool fw_share_job(const struct fw_cluster *cl, const struct fw_plan_job *j,
		  int32_t q);
/* s->req = what j needs on each node. */
void fw_share_set_req(struct fw_share *s, const struct fw_plan_job *j);
/* cap = node i's K configured amounts (everything a whole-node job has). */
void fw_share_node_capacity(const struct fw_cluster *cl, uint32_t i,
			    int64_t *cap);
/* out = the K amounts of one node use. */
void fw_share_use_amounts(const struct fw_share *s,
			  const struct fw_node_use *u, int64_t *out);

/* Who books: kind and id as in struct fw_plan_holder. */
struct fw_share_owner {
	enum fw_hold_kind kind;
	uint32_t id;
};
/* Take amt from node over [a, b), at every slot at most what is free
 * there (Slurm may have oversubscribed it, a reservation's job books past
 * the reservation's hold: the plan never fails). */
void fw_share_take(struct fw_share *s, uint32_t node, int32_t a, int32_t b,
		   const int64_t *amt, struct fw_share_owner o);
/* Take everything still free on node over [a, b) (a whole-node use). */
void fw_share_take_all(struct fw_share *s, uint32_t node, int32_t a,
		       int32_t b, struct fw_share_owner o);
/* The same for every node of a set. */
void fw_share_take_all_set(struct fw_share *s, const struct fw_bitset *nodes,
			   int32_t a, int32_t b, struct fw_share_owner o);
/*
 * Give back amt on node over [a, b) for the running job of owner o (a
 * preempted job that is gone from a on): on the main timeline and every
 * view that has the node, and its booking in the log ends at a.  amt and
 * [a, b) must lie inside one exact booking of o (node not inexact); a
 * timeline that cannot take it back is left as it is (never optimistic).
 * The memo of earlier answers is dropped: the plan gained free space.
 */
void fw_share_release(struct fw_share *s, uint32_t node, int32_t a,
		      int32_t b, const int64_t *amt, struct fw_share_owner o);
/*
 * What holds part of nodes sel[0..n-1] during slot c - 1 (c > 0): the
 * bookings whose end lets a job start at c there.  Into s->hold, each
 * owner once; returns how many.
 */
uint32_t fw_share_holders(struct fw_share *s, const uint32_t *sel,
			  uint32_t n, int32_t c);

/*
 * Before any search or fit.  Searches and fits look at the jobs of
 * advanced reservation `resv`
 * (nodes: its nodes) from now on, or at everything outside reservations
 * (resv -1).  A reservation's view holds everything booked on its nodes
 * except the reservation itself, and every later booking: its jobs share
 * its nodes with each other and with what runs there.
 */
void fw_share_use_view(struct fw_share *s, int32_t resv,
		       const struct fw_bitset *nodes);
/*
 * From now on, one job can get at most cap[k] (-1: no limit) of resource k
 * on node at slot 0, whatever is free there in total (fw_plan_node_now);
 * replaces the node's earlier limits.  For a request above a limit (from
 * the next fw_share_set_req on) searches and fits leave the node out until
 * the first running job there that holds a limited resource ends: the
 * limits come from the running jobs' devices, which do not change before.
 * After that the node is planned from its totals.
 */
void fw_share_now_cap(struct fw_share *s, uint32_t node, const int64_t *cap);
/* Does node have s->req free during [a, b)?  (And is it not held back by
 * its fw_share_now_cap limits at a?) */
bool fw_share_fits(const struct fw_share *s, uint32_t node, int32_t a,
		   int32_t b);
/*
 * The nodes of cand (NULL: every node) on which fw_share_fits(s, node, a,
 * b) holds, at most n, lowest indices first, into out; returns how many.
 * One query of the timeline with its filters instead of a fit test per
 * node (a cluster with node weights asks it set by set, lowest weight
 * first).
 */
uint32_t fw_share_fit_at(struct fw_share *s, const struct fw_bitset *cand,
			 uint32_t n, int32_t a, int32_t b, uint32_t *out);
/*
 * Earliest c in [cmin, cmax] at which n nodes of cand each have s->req
 * free during [c, c + len) (len L0 at c == 0, else L); the chosen nodes in
 * s->sel (lowest indices).  Returns c or -1.
 */
int32_t fw_share_earliest(struct fw_share *s, const struct fw_bitset *cand,
			  uint32_t n, int32_t cmin, int32_t cmax, int32_t L0,
			  int32_t L);

/*
 * Answers of earlier searches in this plan, by shape: (node-set class,
 * island fit key, nodes, duration, s->req).  A plan only ever takes, so an
 * earlier answer c for the same shape is a lower bound for a later search
 * (FW_RTL_INF: none in the window), and the answer itself while the
 * timeline generation `gen` is unchanged (ub = lb).  So is an answer for a
 * smaller shape of the same class and fit key (no more nodes, no longer,
 * no more of any resource): lb is the largest of those among the latest
 * FW_SHR_DOM answers later than now.  While gen is unchanged, a larger
 * shape's answer is an upper bound (ub; FW_RTL_INF: none known): the
 * nodes it found hold the smaller shape at that start.
 */
struct fw_share_bounds {
	int32_t lb, ub;		/* lb == ub: the answer */
};
void fw_share_known(struct fw_share *s, uint32_t cls, int fit, uint32_t n,
		    int64_t d, uint64_t gen, struct fw_share_bounds *kb);
void fw_share_remember(struct fw_share *s, uint32_t cls, int fit,
		       uint32_t n, int64_t d, uint64_t gen, int32_t c);

#endif /* FW_PLAN_SHARE_H */
