/*
 * fw_plan_tl.h - the planner's availability timeline (internal).
 *
 * Time is counted in slots of bf_resolution seconds from t0.  The timeline
 * is a sorted array of segments; segment i covers the slots
 * [start[i], start[i+1]) and the last one extends forever (the state at the
 * window end, see fw_plan.h).  Inside a segment nothing changes, so every
 * question about an interval is a question about the few segments it
 * overlaps.  Per segment (pool entry) the timeline keeps:
 *
 *   avail  nodes free for an ordinary job: not down, not used by a running,
 *          started or protected job, not in an active advanced reservation;
 *   free   the same but ignoring advanced reservations (only allocated when
 *          the plan has some; jobs inside a reservation look at it);
 *   pcnt   |avail & partition| per partition: a cheap necessary condition
 *          that lets most jobs skip a segment without touching its bits;
 *   lic    licenses not held during the segment.
 *
 * Segments are only ever split (never merged) and all boundaries are slots
 * in [0, W], so there are at most W + 1 of them.
 */
#ifndef FW_PLAN_TL_H
#define FW_PLAN_TL_H

#include "fw_plan.h"

#define FW_TL_INF INT32_MAX

struct fw_tl {
	const struct fw_cluster *cl;
	uint32_t W;		/* words per node set */
	uint32_t P, L;		/* partitions, licenses */
	int32_t wslots;		/* slots inside the window */
	uint32_t nseg, cap;
	int32_t *start;		/* per segment: first slot */
	uint32_t *pool;		/* per segment: pool entry */
	uint64_t *avail;	/* cap * W */
	uint64_t *free;		/* cap * W, or NULL */
	int32_t *pcnt;		/* cap * P */
	int64_t *lic;		/* cap * L */
	uint64_t gen;		/* bumped by every change */
};

void fw_tl_init(struct fw_tl *tl, const struct fw_cluster *cl,
		int32_t wslots, const struct fw_bitset *usable);
void fw_tl_free(struct fw_tl *tl);
/* Allocate the `free` view (a copy of avail); before any reservation. */
void fw_tl_enable_free(struct fw_tl *tl);
/* Segment containing slot s (s >= 0). */
uint32_t fw_tl_seg_at(const struct fw_tl *tl, int32_t s);
static inline int32_t fw_tl_seg_end(const struct fw_tl *tl, uint32_t i)
{
	return i + 1 < tl->nseg ? tl->start[i + 1] : FW_TL_INF;
}
static inline const uint64_t *fw_tl_avail(const struct fw_tl *tl, uint32_t i)
{
	return tl->avail + (size_t)tl->pool[i] * tl->W;
}
static inline const uint64_t *fw_tl_freeview(const struct fw_tl *tl, uint32_t i)
{
	return tl->free + (size_t)tl->pool[i] * tl->W;
}

#define FW_TL_AVAIL 1	/* remove from avail (and pcnt) */
#define FW_TL_FREE 2	/* remove from free */
/*
 * Take `nodes` in the slots [a, b) (b may be FW_TL_INF) from the views in
 * `views`, and `lics` from the license counts.
 */
void fw_tl_occupy(struct fw_tl *tl, const struct fw_bitset *nodes, int32_t a,
		  int32_t b, const struct fw_plan_lic *lics, uint32_t nlics,
		  int views);
/* Same with the node set's words and their known range [xlo, xhi). */
void fw_tl_occupy_words(struct fw_tl *tl, const uint64_t *x, uint32_t xlo,
			uint32_t xhi, int32_t a, int32_t b,
			const struct fw_plan_lic *lics, uint32_t nlics,
			int views);

/* An advanced reservation as the search sees it. */
struct fw_tl_resv {
	const struct fw_bitset *nodes;
	int32_t a, b;		/* slots [a, b) */
};

enum fw_fit { FW_FIT_ANY, FW_FIT_ISLAND };

/* One earliest-start question. */
struct fw_search {
	/* in */
	bool free_view;		/* job in a reservation: use `free` */
	const struct fw_tl_resv *resv;	/* free view: reservations to avoid */
	uint32_t nresv;
	int32_t own_resv;
	const uint64_t *E;	/* nodes the job may use */
	uint32_t lo, hi;	/* word range of E */
	uint32_t n;		/* nodes needed */
	int32_t pidx;		/* partition for the count filter, -1: none */
	const struct fw_plan_lic *lics;
	uint32_t nlics;
	int32_t cmin, cmax;	/* allowed start slots */
	int32_t L0, L;		/* length in slots when starting at 0 / later */
	enum fw_fit fit;
	bool any_at_zero;	/* island fit, but any placement is fine now */
	const struct fw_bitset *req;	/* nodes the job must get (ANY only) */
	/* out */
	int32_t c;		/* start slot, -1: none in [cmin, cmax] */
	int32_t island;		/* island index used, -1: any */
	uint32_t xlo, xhi;	/* words of X that may be non-zero */
	uint64_t segs_pushed;	/* work counters for statistics */
	uint64_t quick;
};

/* Scratch memory of the search, owned by the plan. */
struct fw_scratch {
	uint32_t W;
	uint32_t rows;
	uint64_t *fst;		/* front stack rows, rows * W */
	uint32_t *rlo, *rhi;	/* non-zero word range of each row */
	const uint64_t **segp;	/* segments of one window */
	uint32_t nsegp;
	uint64_t *bacc;		/* back accumulator */
	uint64_t *tmp;		/* free view: one segment with resv removed */
	uint64_t *X;		/* result: E & all segments of the window */
};

void fw_scratch_init(struct fw_scratch *s, uint32_t W);
void fw_scratch_free(struct fw_scratch *s);
/*
 * Earliest slot c in [cmin, cmax] such that the window [c, c + len) (len =
 * L0 at c == 0, else L) has n nodes of E free in every segment (within
 * one island for FW_FIT_ISLAND) and the licenses free.  Leaves the
 * intersection in sc->X (words [s->xlo, s->xhi) only).  Returns s->c.
 */
int32_t fw_tl_search(const struct fw_tl *tl, struct fw_scratch *sc,
		     struct fw_search *s);

/*
 * Earliest slot c in [cmin, cmax] such that `lics` are free during the
 * window [c, c + len) (len = L0 at c == 0, else L), or -1.  The license
 * half of fw_tl_search, for searches whose nodes are looked at elsewhere
 * (shared nodes, fw_plan_share.c).
 */
int32_t fw_tl_lics_earliest(const struct fw_tl *tl,
			    const struct fw_plan_lic *lics, uint32_t nlics,
			    int32_t cmin, int32_t cmax, int32_t L0, int32_t L);

#endif /* FW_PLAN_TL_H */
