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
 * Every node has one list.  Every block of 64 nodes (the nodes of one
 * fw_bitset word) has a list of the SUM of its nodes' free amounts,
 * changed by the same amounts on every take/give, so it is exact at all
 * times without ever being rebuilt.  If a node has req free during
 * [c, c + d), so has its block's sum: the block's earliest fit is a lower
 * bound for every node in it, and a busy block is skipped in one list
 * walk instead of 64.
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
	struct rtl_list *blk;	/* nblocks lists: sums over the block */
	int64_t *cap;		/* nnodes * K capacities */
	int64_t *bmax;		/* nblocks * K: largest capacity in block */
	/* search scratch (fw_rtl_earliest), nnodes entries each */
	uint32_t *seen;		/* nodes with a fit <= bound, ascending */
	int32_t *fit;		/* their earliest fit */
	int32_t *heap;		/* max-heap of the n smallest fits */
};

/* Index of the point whose interval holds slot s (0 <= s). */
uint32_t fw_rtl_list_at(const struct rtl_list *l, int32_t s);

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
