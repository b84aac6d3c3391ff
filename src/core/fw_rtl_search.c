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
 *    or its envelope (fw_rtl_int.h) has no fit before the bound;
 *  - a first pass looks only for nodes fitting at c itself (the smallest
 *    possible answer), with c as the bound; n of them end the round at
 *    once: "start now" for small jobs looks at few nodes and skips busy
 *    blocks.
 */
#include <stdlib.h>
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
	r->rec[rd->nseen++] = (uint64_t)i << 32 | (uint32_t)f;
	heap_offer(&rd->hp, f);
	return f == rd->c && ++rd->at_c == rd->q->n;
}

/* Block b's envelope: the earliest any of its nodes can fit (a lower
 * bound), or FW_RTL_INF when none can before the current bound. */
static int32_t block_bound(struct round *rd, uint32_t b)
{
	struct fw_rtl *r = rd->r;
	const int64_t *req = rd->q->req;

	if (!caps_fit(r->bmax + (size_t)b * r->K, req, r->K))
		return FW_RTL_INF;
	return fw_rtl_list_next_fit(&r->benv[b], r->K, req, rd->c, rd->q->d,
				    bound_of(rd));
}

static uint64_t block_word(const struct fw_rtl *r,
			   const struct fw_bitset *cand, uint32_t b)
{
	uint32_t tail = r->nnodes - b * 64;

	if (cand)
		return cand->w[b];
	return tail >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << tail) - 1);
}

/* Scan the candidates of block b; true if n nodes fit at c. */
static bool scan_block(struct round *rd, uint32_t b)
{
	for (uint64_t x = block_word(rd->r, rd->q->cand, b); x; x &= x - 1)
		if (scan_node(rd, b * 64 + fw_ctz64(x)))
			return true;
	return false;
}

/* Probe pass: blocks in index order, so the first n fits at c found
 * are the lowest-indexed ones; true if there are n. */
static bool probe_all(struct round *rd)
{
	for (uint32_t b = 0; b < rd->r->nblocks; b++) {
		if (!block_word(rd->r, rd->q->cand, b))
			continue;
		if (block_bound(rd, b) == FW_RTL_INF) {
			rd->q->blocks_skipped++;
			continue;
		}
		if (scan_block(rd, b))
			return true;
	}
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Full pass, best first: blocks in the order of their envelopes' lower
 * bounds, so the heap holds good fits early and every block whose bound
 * is past the heap's top is never opened.  (The probe pass found fewer
 * than n fits at c, so none of this pass's fits at c can end it.)
 */
static void scan_best_first(struct round *rd)
{
	struct fw_rtl *r = rd->r;
	uint32_t nb = 0;

	for (uint32_t b = 0; b < r->nblocks; b++) {
		int32_t lb;

		if (!block_word(r, rd->q->cand, b))
			continue;
		lb = block_bound(rd, b);
		if (lb == FW_RTL_INF)
			rd->q->blocks_skipped++;
		else
			r->order[nb++] = (uint64_t)lb << 32 | b;
	}
	qsort(r->order, nb, sizeof(*r->order), cmp_u64);
	for (uint32_t k = 0; k < nb; k++) {
		if ((int32_t)(r->order[k] >> 32) > bound_of(rd)) {
			rd->q->blocks_skipped += nb - k;
			break;
		}
		scan_block(rd, (uint32_t)r->order[k]);
	}
	/* pick_at wants the recorded nodes in index order. */
	qsort(r->rec, rd->nseen, sizeof(*r->rec), cmp_u64);
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
		uint32_t i = (uint32_t)(r->rec[k] >> 32);
		int32_t f = (int32_t)(uint32_t)r->rec[k];

		if (f == L || (f < L && fw_rtl_fits(r, i, L, b, q->req)))
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
	 * envelope at once, where the full scan below could not reject it
	 * before its heap holds n fits.  "Start now" ends here.
	 */
	rd->probe = true;
	rd->hp.len = 0;
	rd->nseen = rd->at_c = 0;
	if (probe_all(rd)) {
		/* The recorded nodes at c are the lowest n that fit. */
		return pick_at(rd, rd->c) ? rd->c : -1;
	}
	rd->probe = false;
	rd->hp.len = 0;
	rd->nseen = rd->at_c = 0;
	scan_best_first(rd);
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
