/*
 * fw_rtl_int.h - internals of the per-resource node timeline (fw_rtl.h).
 *
 * A change-point list (struct rtl_list) is the whole data structure: points
 * t[0] = 0 < t[1] < ... < t[m-1] <= W, and after point j the K free amounts
 * v[j*K .. j*K+K-1], valid over [t[j], t[j+1]) (the last point: forever).
 * Lists are kept coalesced (no two neighbours with equal amounts), so a
 * node that is idle again after its jobs has one point, and the length of
 * a list is the number of times its free amounts really change.
 *
 * Every node has one list.  For the search, time is also cut into buckets
 * (exact near slot 0, then each at most 25 % of its start long, half
 * or a quarter of that once fw_rtl_refine cut them; see bucket_next)
 * plus the forever bucket [W, forever), and the
 * timeline keeps per node and bucket the largest free amounts during the
 * bucket (nmax), and per block of 64 nodes (the nodes of one fw_bitset
 * word) the largest of those over the block: the block envelope benv, an
 * rtl_list with one fixed point per bucket.  If a node has req free
 * during [c, c + d), every bucket that window touches has at least req in
 * the envelope (per resource), so the envelope's earliest fit is a lower
 * bound for every node of the block, and a block whose nodes are too full
 * in the interval the search asks about is skipped in one short walk
 * instead of 64.  A take or give on a node refreshes only the buckets it
 * touches: the node's nmax from its list, then the block's max of 64.
 */
#ifndef FW_RTL_INT_H
#define FW_RTL_INT_H

#include "fw_rtl.h"

struct rtl_list {
	uint32_t m, cap;	/* points used / allocated */
	int32_t *t;		/* m slots, ascending, t[0] == 0 */
	int64_t *v;		/* m * K free amounts */
};

struct fw_rtl {
	uint32_t nnodes, K, nblocks;
	int32_t W;
	struct rtl_list *node;	/* nnodes lists */
	uint32_t nbk;		/* buckets, the last one [W, forever) */
	uint32_t bdiv;		/* a bucket is at most 1/bdiv of its start
				   long: 4, doubled by each fw_rtl_refine
				   up to RTL_MAXDIV */
	int64_t *nmax;		/* nbk * nnodes * K: max free per bucket,
				   bucket-major (fw_rtl_nmax): a bucket's
				   nodes are contiguous for the block
				   recount and the search's node filter */
	uint64_t *lev;		/* level sets (fw_rtl_lev): nbk * LK *
				   RTL_NLEV bitsets of nblocks words */
	uint32_t LK;		/* resources with level sets: min(K,
				   RTL_LEVK) */
	bool bulk;		/* fw_rtl_bulk_begin: tables not kept */
	bool bulk_all;		/* ... and recut (refine): rebuild all */
	uint64_t *dirty;	/* nblocks words: nodes changed in bulk */
	struct rtl_list *benv;	/* nblocks envelopes, nbk points each */
	uint8_t *bcnt;		/* nblocks * nbk * K: nodes of the block at
				   the envelope's value (1..64) */
	int64_t *cap;		/* nnodes * K capacities */
	int64_t *bmax;		/* nblocks * K: largest capacity in block */
	/* search scratch (fw_rtl_earliest) */
	uint64_t *ev;		/* nnodes + nblocks: the sweep's event heap */
	uint64_t *open;		/* nblocks words: nodes whose run is open */
	int32_t *gend;		/* nnodes: last start of a node's run */
	uint32_t *jend;		/* nbk: the last bucket a window of the
				   query's length from bucket j's start
				   touches */
	uint64_t *wfront;	/* nbk: level words' suffix ANDs of one
				   block (fw_rtl_search.c, struct lwin) */
	/* what earlier start-now probes learned (fw_rtl_hint.c) */
	struct rtl_hint *hint;	/* RTL_NHINT */
	uint32_t hint_next;	/* the slot the next hint replaces */
};

/* Node bits of block b that a query may use (cand NULL: every node). */
static inline uint64_t fw_rtl_block_word(const struct fw_rtl *r,
					 const struct fw_bitset *cand,
					 uint32_t b)
{
	uint32_t tail = r->nnodes - b * 64;

	if (cand)
		return cand->w[b];
	return tail >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << tail) - 1);
}

/*
 * Probe hints (fw_rtl_hint.c).  A hint says: no node of a node set in
 * blocks [0, nb) has req free during [c, c + d).  While the timeline only
 * takes, that stays true, and it holds for any query at the same c that
 * asks no less (every amount and d at least the hint's) among a subset of
 * that node set.
 */
#define RTL_NHINT 16

void fw_rtl_hints_init(struct fw_rtl *r);
void fw_rtl_hints_free(struct fw_rtl *r);
/* Forget every hint: called by every change that frees (give, capacity). */
void fw_rtl_hints_drop(struct fw_rtl *r);
/* The first block q's probe at c must look at (0 if no hint covers it). */
uint32_t fw_rtl_hint_skip(const struct fw_rtl *r,
			  const struct fw_rtl_query *q, int32_t c);
/* Record that q's nodes in blocks [0, nb) do not fit at c (nb > skip). */
void fw_rtl_hint_learn(struct fw_rtl *r, const struct fw_rtl_query *q,
		       int32_t c, uint32_t nb);

/* Index of the point whose interval holds slot s (0 <= s). */
uint32_t fw_rtl_list_at(const struct rtl_list *l, int32_t s);

/* Node's K largest free amounts during bucket j. */
static inline int64_t *fw_rtl_nmax(const struct fw_rtl *r, uint32_t node,
				   uint32_t j)
{
	return r->nmax + ((size_t)j * r->nnodes + node) * r->K;
}

/*
 * Level sets: per bucket j, resource k < RTL_LEVK and level l, the nodes
 * whose largest free amount of k during the bucket (nmax) is at least
 * 2^l (the last level: at least 2^(RTL_NLEV-1)).  A node that has req
 * free in bucket j is in the set of level floor(log2(req[k])) of every
 * resource asked for, so ANDing those sets (64 nodes a word) leaves a
 * superset of the nodes that may fit, per node, not per block: the block
 * envelope mixes one node's CPUs with another's memory, the level sets
 * do not.  Kept up to date with nmax (buckets_refresh).
 */
#define RTL_MAXDIV 16
#define RTL_NLEV 24
#define RTL_LEVK 8

/* Levels a node with free amount v is in: 0 for v <= 0. */
static inline uint32_t fw_rtl_nlev(int64_t v)
{
	uint32_t n = v > 0 ? fw_bitlen64((uint64_t)v) : 0;

	return n < RTL_NLEV ? n : RTL_NLEV;
}

static inline uint64_t *fw_rtl_lev(const struct fw_rtl *r, uint32_t j,
				   uint32_t k, uint32_t l)
{
	return r->lev + (((size_t)j * r->LK + k) * RTL_NLEV + l) * r->nblocks;
}

/* A query's level filter: for each resource asked for, where its level
 * set starts within a bucket's sets (in words). */
struct rtl_lvq {
	uint32_t n;
	size_t off[RTL_LEVK];
};

void fw_rtl_lvq_init(const struct fw_rtl *r, const int64_t *req,
		     struct rtl_lvq *lq);

/* Nodes of block b that the level sets let fit lq's request in bucket j. */
static inline uint64_t fw_rtl_lev_word(const struct fw_rtl *r,
				       const struct rtl_lvq *lq, uint32_t j,
				       uint32_t b)
{
	const uint64_t *w = fw_rtl_lev(r, j, 0, 0) + b;
	uint64_t x = ~(uint64_t)0;

	for (uint32_t a = 0; a < lq->n && x; a++)
		x &= w[lq->off[a]];
	return x;
}

/* The bucket holding slot t (0 <= t). */
static inline uint32_t fw_rtl_bucket_of(const struct fw_rtl *r, int32_t t)
{
	return fw_rtl_list_at(&r->benv[0], t);
}


/*
 * The earliest c' in [c, bound] such that l has req free during all of
 * [c', c' + d) (d FW_RTL_INF: forever), or FW_RTL_INF if there is none.
 * Only segment starts can be such c' besides c itself, so the walk visits
 * each point after c at most once.
 */
int32_t fw_rtl_list_next_fit(const struct rtl_list *l, uint32_t K,
			     const int64_t *req, int32_t c, int32_t d,
			     int32_t bound);

#endif /* FW_RTL_INT_H */
