/*
 * fw_rtl_search.c - the earliest start of n nodes with req free for d slots.
 *
 * A round starting at slot c computes, per candidate node i, f_i = the
 * earliest fit of node i at or after c.  Fewer than n nodes fit anywhere
 * in [c, L) when L is the n-th smallest f_i, so L is the only start to
 * try: the nodes fitting at L are those with f_i == L, plus those with
 * f_i < L that still fit at L (a node's fits are not monotone in time:
 * one that fits at f_i may be taken again later).  If they are fewer than
 * n, the next round starts at L + 1.  Almost always the first round
 * answers.
 *
 * The work of a round is bounded three ways:
 *  - a max-heap keeps the n smallest f_i seen; a node's walk stops as soon
 *    as its candidate passes the heap's top (it cannot change L);
 *  - a block of 64 nodes is skipped when its largest capacity is below req
 *    or its sum list (fw_rtl_int.h) has no fit before the bound;
 *  - a first pass looks only for nodes fitting at c itself (the smallest
 *    possible answer), with c as the bound; n of them end the round at
 *    once: "start now" for small jobs looks at few nodes and skips busy
 *    blocks.
 */
#include <string.h>

#include "fw_rtl_int.h"

static bool seg_fits(const int64_t *v, const int64_t *req, uint32_t K)
{
	for (uint32_t k = 0; k < K; k++)
		if (v[k] < req[k])
			return false;
	return true;
}

static int64_t end_of(int32_t c, int32_t d)
{
	return d == FW_RTL_INF ? (int64_t)FW_RTL_INF : (int64_t)c + d;
}

int32_t fw_rtl_list_next_fit(const struct rtl_list *l, uint32_t K,
			     const int64_t *req, int32_t c, int32_t d,
			     int32_t bound)
{
	uint32_t j = fw_rtl_list_at(l, c);

	for (;;) {
		int64_t seg_end = j + 1 < l->m ? l->t[j + 1] : FW_RTL_INF;

		if (!seg_fits(l->v + (size_t)j * K, req, K)) {
			/* No window holding this segment: try just after. */
			if (j + 1 >= l->m || l->t[j + 1] > bound)
				return FW_RTL_INF;
			c = l->t[++j];
			continue;
		}
		if (seg_end >= end_of(c, d))
			return c;
		j++;
	}
}

/* ------------------------------------------------------------------ */
/* Max-heap of the n smallest fits                                     */
/* ------------------------------------------------------------------ */

struct heap {
	int32_t *h;
	uint32_t len, n;
};

static void sift_down(struct heap *hp, uint32_t i)
{
	int32_t *h = hp->h;

	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		int32_t x;

		if (l < hp->len && h[l] > h[m])
			m = l;
		if (r < hp->len && h[r] > h[m])
			m = r;
		if (m == i)
			return;
		x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

static void heap_offer(struct heap *hp, int32_t f)
{
	int32_t *h = hp->h;
	uint32_t i;

	if (hp->len == hp->n) {
		if (f >= h[0])
			return;
		h[0] = f;
		sift_down(hp, 0);
		return;
	}
	i = hp->len++;
	h[i] = f;
	while (i > 0 && h[(i - 1) / 2] < h[i]) {
		int32_t x = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

/* ------------------------------------------------------------------ */
/* Rounds                                                              */
/* ------------------------------------------------------------------ */

struct round {
	struct fw_rtl *r;
	struct fw_rtl_query *q;
	int32_t c, hi;		/* this round's first start, last start */
	bool probe;		/* only look for fits at c itself */
	struct heap hp;
	uint32_t nseen, at_c;	/* nodes recorded / fitting at c */
};

static int32_t bound_of(const struct round *rd)
{
	if (rd->probe)
		return rd->c;
	return rd->hp.len == rd->hp.n ? rd->hp.h[0] : rd->hi;
}

static bool caps_fit(const int64_t *cap, const int64_t *req, uint32_t K)
{
	return seg_fits(cap, req, K);
}

/* Scan node i; returns true when n nodes fit at c (round over). */
static bool scan_node(struct round *rd, uint32_t i)
{
	struct fw_rtl *r = rd->r;
	const int64_t *req = rd->q->req;
	int32_t f;

	if (!caps_fit(r->cap + (size_t)i * r->K, req, r->K))
		return false;
	rd->q->nodes_scanned++;
	f = fw_rtl_list_next_fit(&r->node[i], r->K, req, rd->c, rd->q->d,
				 bound_of(rd));
	if (f == FW_RTL_INF)
		return false;
	r->seen[rd->nseen] = i;
	r->fit[rd->nseen++] = f;
	heap_offer(&rd->hp, f);
	return f == rd->c && ++rd->at_c == rd->q->n;
}

/* Can block b hold a fit at or before the current bound? */
static bool block_may_fit(struct round *rd, uint32_t b)
{
	struct fw_rtl *r = rd->r;
	const int64_t *req = rd->q->req;

	if (!caps_fit(r->bmax + (size_t)b * r->K, req, r->K))
		return false;
	return fw_rtl_list_next_fit(&r->blk[b], r->K, req, rd->c, rd->q->d,
				    bound_of(rd)) != FW_RTL_INF;
}

static uint64_t block_word(const struct fw_rtl *r,
			   const struct fw_bitset *cand, uint32_t b)
{
	uint32_t tail = r->nnodes - b * 64;

	if (cand)
		return cand->w[b];
	return tail >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << tail) - 1);
}

/* Fill seen/fit and the heap; true if n nodes fit at c itself. */
static bool scan_all(struct round *rd)
{
	struct fw_rtl *r = rd->r;

	for (uint32_t b = 0; b < r->nblocks; b++) {
		uint64_t x = block_word(r, rd->q->cand, b);

		if (!x)
			continue;
		if (!block_may_fit(rd, b)) {
			rd->q->blocks_skipped++;
			continue;
		}
		for (; x; x &= x - 1)
			if (scan_node(rd, b * 64 + fw_ctz64(x)))
				return true;
	}
	return false;
}

/*
 * The nodes that fit at L, lowest first, into q->nodes; true if n.
 * Nodes not recorded cannot fit at L: their walk passed a bound >= L.
 */
static bool pick_at(struct round *rd, int32_t L)
{
	struct fw_rtl *r = rd->r;
	struct fw_rtl_query *q = rd->q;
	int64_t e = end_of(L, q->d);
	int32_t b = e >= FW_RTL_INF ? FW_RTL_INF : (int32_t)e;
	uint32_t got = 0;

	for (uint32_t k = 0; k < rd->nseen && got < q->n; k++) {
		uint32_t i = r->seen[k];

		if (r->fit[k] == L ||
		    (r->fit[k] < L && fw_rtl_fits(r, i, L, b, q->req)))
			q->nodes[got++] = i;
	}
	return got == q->n;
}

/* One round from c; returns the start found, or -1 to go on from *next. */
static int32_t one_round(struct round *rd, int32_t *next)
{
	int32_t L;

	*next = FW_RTL_INF;
	/*
	 * First only fits at c: a block busy at c is then rejected by its
	 * sum list at once, where the full scan below could not reject it
	 * before its heap holds n fits.  "Start now" ends here.
	 */
	for (int pass = 0; pass < 2; pass++) {
		rd->probe = pass == 0;
		rd->hp.len = 0;
		rd->nseen = rd->at_c = 0;
		if (scan_all(rd)) {
			/* The recorded nodes at c are the lowest n that fit. */
			return pick_at(rd, rd->c) ? rd->c : -1;
		}
	}
	if (rd->hp.len < rd->hp.n)
		return -1;
	L = rd->hp.h[0];
	if (pick_at(rd, L))
		return L;
	*next = L + 1;
	return -1;
}

static uint32_t count_cand(const struct fw_rtl *r, const struct fw_bitset *c)
{
	return c ? fw_bitset_count(c) : r->nnodes;
}

int32_t fw_rtl_earliest(struct fw_rtl *r, struct fw_rtl_query *q)
{
	struct round rd = { .r = r, .q = q };
	int32_t smin = q->smin < 0 ? 0 : q->smin, next, c;

	q->start = -1;
	if (q->n == 0 || q->d < 1 || smin > q->smax ||
	    (q->cand && q->cand->nbits != r->nnodes) ||
	    count_cand(r, q->cand) < q->n)
		return -1;
	/* Past W nothing changes: a start there may as well be at W. */
	rd.hi = q->smax < r->W ? q->smax : r->W;
	c = smin < r->W ? smin : r->W;
	rd.hp.h = r->heap;
	rd.hp.n = q->n;
	while (c <= rd.hi) {
		int32_t s;

		rd.c = c;
		s = one_round(&rd, &next);
		if (s >= 0) {
			q->start = s > smin ? s : smin;
			return q->start;
		}
		if (next == FW_RTL_INF)
			break;
		c = next;
	}
	return -1;
}
