/*
 * fw_rtl.c - per-resource node timeline: lists, capacities, take/give and
 * interval queries (the earliest-start search is in fw_rtl_search.c).
 *
 * Every change is "check the interval, then apply": the check walks the
 * same points the change will touch, so a refused take or give costs no
 * more than a successful one and never leaves a half-applied change.
 */
#include <stdlib.h>
#include <string.h>

#include "fw_rtl_int.h"

/* ------------------------------------------------------------------ */
/* Change-point lists                                                  */
/* ------------------------------------------------------------------ */

static void list_init(struct rtl_list *l, uint32_t K)
{
	l->cap = 4;
	l->m = 1;
	l->t = fw_xmalloc(l->cap * sizeof(*l->t));
	l->v = fw_xcalloc((size_t)l->cap * K, sizeof(*l->v));
	l->t[0] = 0;
}

static void list_free(struct rtl_list *l)
{
	free(l->t);
	free(l->v);
}

uint32_t fw_rtl_list_at(const struct rtl_list *l, int32_t s)
{
	/* Branch-free halving (t[0] = 0 <= s): the searches call this for
	 * nearly every list they walk, and at a few dozen points a
	 * compare-and-branch search mispredicts about every other step. */
	const int32_t *base = l->t;
	uint32_t n = l->m;

	while (n > 1) {
		uint32_t half = n / 2;

		base = base[half] <= s ? base + half : base;
		n -= half;
	}
	return (uint32_t)(base - l->t);
}

/* Make slot s a point of l; returns its index. */
static uint32_t list_split(struct rtl_list *l, uint32_t K, int32_t s)
{
	uint32_t i = fw_rtl_list_at(l, s);

	if (l->t[i] == s)
		return i;
	if (l->m == l->cap) {
		l->cap *= 2;
		l->t = fw_xrealloc(l->t, l->cap * sizeof(*l->t));
		l->v = fw_xrealloc(l->v, (size_t)l->cap * K * sizeof(*l->v));
	}
	memmove(l->t + i + 2, l->t + i + 1, (l->m - i - 1) * sizeof(*l->t));
	memmove(l->v + (size_t)(i + 2) * K, l->v + (size_t)(i + 1) * K,
		(size_t)(l->m - i - 1) * K * sizeof(*l->v));
	l->t[i + 1] = s;
	memcpy(l->v + (size_t)(i + 1) * K, l->v + (size_t)i * K,
	       K * sizeof(*l->v));
	l->m++;
	return i + 1;
}

/* Drop point j (> 0) if it repeats the amounts of point j - 1. */
static void list_merge_at(struct rtl_list *l, uint32_t K, uint32_t j)
{
	if (j == 0 || j >= l->m ||
	    memcmp(l->v + (size_t)j * K, l->v + (size_t)(j - 1) * K,
		   K * sizeof(*l->v)))
		return;
	memmove(l->t + j, l->t + j + 1, (l->m - j - 1) * sizeof(*l->t));
	memmove(l->v + (size_t)j * K, l->v + (size_t)(j + 1) * K,
		(size_t)(l->m - j - 1) * K * sizeof(*l->v));
	l->m--;
}

/*
 * Add sign * amt to the points of [a, b) (already clamped, a < b).  Inside
 * the interval every point moves by the same amounts, so only its two
 * boundaries can come to equal their predecessors: the list stays
 * coalesced by looking at those two.
 */
static void list_add(struct rtl_list *l, uint32_t K, int32_t a, int32_t b,
		     const int64_t *amt, int sign)
{
	uint32_t ia = list_split(l, K, a);
	uint32_t ib = b == FW_RTL_INF ? l->m : list_split(l, K, b);

	for (uint32_t j = ia; j < ib; j++)
		for (uint32_t r = 0; r < K; r++)
			l->v[(size_t)j * K + r] += sign * amt[r];
	list_merge_at(l, K, ib);
	list_merge_at(l, K, ia);
}

/* Subtract min(amt, v) at every point of [a, b) (clamped, a < b); points
 * inside may now repeat their neighbours, so the whole range is
 * coalesced. */
static void list_take_upto(struct rtl_list *l, uint32_t K, int32_t a,
			   int32_t b, const int64_t *amt)
{
	uint32_t ia = list_split(l, K, a);
	uint32_t ib = b == FW_RTL_INF ? l->m : list_split(l, K, b);

	for (uint32_t j = ia; j < ib; j++)
		for (uint32_t r = 0; r < K; r++) {
			int64_t *v = &l->v[(size_t)j * K + r];

			*v -= amt[r] < *v ? amt[r] : *v;
		}
	for (uint32_t j = ib; j >= ia && j > 0; j--)
		list_merge_at(l, K, j);
}

/* out = per-resource minimum of l over [a, b) (clamped, a < b). */
static void list_min(const struct rtl_list *l, uint32_t K, int32_t a,
		     int32_t b, int64_t *out)
{
	uint32_t j = fw_rtl_list_at(l, a);

	memcpy(out, l->v + (size_t)j * K, K * sizeof(*out));
	for (j++; j < l->m && l->t[j] < b; j++)
		for (uint32_t r = 0; r < K; r++)
			if (l->v[(size_t)j * K + r] < out[r])
				out[r] = l->v[(size_t)j * K + r];
}

/* out = per-resource maximum of l over [a, b) (clamped, a < b). */
static void list_max(const struct rtl_list *l, uint32_t K, int32_t a,
		     int32_t b, int64_t *out)
{
	uint32_t j = fw_rtl_list_at(l, a);

	memcpy(out, l->v + (size_t)j * K, K * sizeof(*out));
	for (j++; j < l->m && l->t[j] < b; j++)
		for (uint32_t r = 0; r < K; r++)
			if (l->v[(size_t)j * K + r] > out[r])
				out[r] = l->v[(size_t)j * K + r];
}

/* ------------------------------------------------------------------ */
/* Buckets: per node and per block maxima for the search               */
/* ------------------------------------------------------------------ */

/*
 * Bucket boundaries 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 18, ...: each
 * bucket is at most a quarter of its start long (never under one slot),
 * so the envelope is exact for "now" (the planner's most common start)
 * and 25 % coarse later: about 8 + ln(W / 8) / ln(1.25) buckets, 33
 * (and forever) for a day of minutes instead of 1,441 slots per node.
 * A deep plan is refined to buckets an eighth, then a sixteenth, of their
 * start long (fw_rtl_refine: 56, then 99 a day): its long buckets far
 * out let most nodes through to a list walk, but every booking touches
 * twice the buckets, which would cost shorter queues 20-30 % if they
 * had them from the start (doc/perf-plan.md, "Finer buckets for deep
 * plans").
 */
static int32_t bucket_next(const struct fw_rtl *r, int32_t t)
{
	return t + (t / (int32_t)r->bdiv > 1 ? t / (int32_t)r->bdiv : 1);
}

static void buckets_init(struct fw_rtl *r)
{
	uint32_t n = 1;

	for (int32_t t = 0; (t = bucket_next(r, t)) < r->W;)
		n++;
	r->nbk = n + 1;		/* the window's buckets, then forever */
	r->jend = fw_xmalloc(r->nbk * sizeof(*r->jend));
	r->wfront = fw_xmalloc(r->nbk * sizeof(*r->wfront));
	r->nmax = fw_xcalloc((size_t)r->nnodes * r->nbk * r->K,
			     sizeof(*r->nmax));
	r->LK = r->K < RTL_LEVK ? r->K : RTL_LEVK;
	r->lev = fw_xcalloc((size_t)r->nbk * r->LK * RTL_NLEV * r->nblocks,
			    sizeof(*r->lev));
	r->benv = fw_xcalloc(r->nblocks, sizeof(*r->benv));
	/* Every node is at the (zero) envelope until capacities are set. */
	r->bcnt = fw_xmalloc((size_t)r->nblocks * r->nbk * r->K);
	for (uint32_t b = 0; b < r->nblocks; b++) {
		uint32_t in = b + 1 < r->nblocks || r->nnodes % 64 == 0 ? 64 :
			      r->nnodes % 64;

		memset(r->bcnt + (size_t)b * r->nbk * r->K, (int)in,
		       (size_t)r->nbk * r->K);
	}
	for (uint32_t b = 0; b < r->nblocks; b++) {
		struct rtl_list *e = &r->benv[b];
		int32_t t = 0;

		e->m = e->cap = r->nbk;
		e->t = fw_xmalloc(r->nbk * sizeof(*e->t));
		e->v = fw_xcalloc((size_t)r->nbk * r->K, sizeof(*e->v));
		for (uint32_t j = 0; j + 1 < r->nbk; j++, t = bucket_next(r, t))
			e->t[j] = t;
		e->t[r->nbk - 1] = r->W;
	}
}

static uint32_t bucket_of(const struct fw_rtl *r, int32_t t)
{
	return fw_rtl_bucket_of(r, t);
}

/* Resource k of bucket j of block b: the largest of its nodes' maxima,
 * and how many nodes have it. */
static void block_bucket(struct fw_rtl *r, uint32_t b, uint32_t j,
			 uint32_t k)
{
	uint32_t K = r->K, hi = (b + 1) * 64, cnt = 0;
	int64_t *out = r->benv[b].v + (size_t)j * K + k;

	if (hi > r->nnodes)
		hi = r->nnodes;
	*out = 0;
	for (uint32_t i = b * 64; i < hi; i++) {
		int64_t v = fw_rtl_nmax(r, i, j)[k];

		if (v > *out) {
			*out = v;
			cnt = 0;
		}
		cnt += v == *out;
	}
	r->bcnt[((size_t)b * r->nbk + j) * K + k] = (uint8_t)cnt;
}

/*
 * The node's maximum in bucket j moved from old to nm.  Per resource the
 * block keeps its largest value and how many of its nodes have it, so the
 * 64-node recount is only needed when the last node at the maximum went
 * down (nodes of one shape start equal: without the count every first
 * take on a node recounted its block).
 */
static void block_bucket_update(struct fw_rtl *r, uint32_t node, uint32_t j,
				const int64_t *old, const int64_t *nm)
{
	uint32_t b = node / 64;
	int64_t *env = r->benv[b].v + (size_t)j * r->K;
	uint8_t *cnt = r->bcnt + ((size_t)b * r->nbk + j) * r->K;

	for (uint32_t k = 0; k < r->K; k++) {
		if (nm[k] == old[k])
			continue;
		if (nm[k] > env[k]) {
			env[k] = nm[k];
			cnt[k] = 1;
		} else if (nm[k] == env[k]) {
			cnt[k]++;
		} else if (old[k] == env[k] && --cnt[k] == 0) {
			block_bucket(r, b, j, k);
		}
	}
}

/* Node's maxima in bucket j moved from old to nm: move it between the
 * level sets of the resources that changed. */
static void levels_update(struct fw_rtl *r, uint32_t node, uint32_t j,
			  const int64_t *old, const int64_t *nm)
{
	uint32_t w = node / 64;
	uint64_t bit = (uint64_t)1 << (node % 64);

	for (uint32_t k = 0; k < r->LK; k++) {
		uint32_t lo = fw_rtl_nlev(old[k]), hi = fw_rtl_nlev(nm[k]);

		for (uint32_t l = hi; l < lo; l++)
			fw_rtl_lev(r, j, k, l)[w] &= ~bit;
		for (uint32_t l = lo; l < hi; l++)
			fw_rtl_lev(r, j, k, l)[w] |= bit;
	}
}

void fw_rtl_lvq_init(const struct fw_rtl *r, const int64_t *req,
		     struct rtl_lvq *lq)
{
	lq->n = 0;
	for (uint32_t k = 0; k < r->LK; k++) {
		if (req[k] <= 0)
			continue;
		lq->off[lq->n++] = ((size_t)k * RTL_NLEV +
				    fw_rtl_nlev(req[k]) - 1) * r->nblocks;
	}
}

/*
 * Node changed over [a, b) (clamped): refresh the buckets it touches.
 * With amt (the node took, sign -1, or gave, +1, amt over [a, b)), a
 * bucket inside [a, b) saw every one of its points move by amt, so its
 * maxima move by amt too: only the (at most two) buckets cut by a or b
 * have their list walked again, where a booking of hours covers dozens
 * of buckets.  Without amt (capacity set, take_upto) every touched
 * bucket is walked.
 */
static void buckets_refresh(struct fw_rtl *r, uint32_t node, int32_t a,
			    int32_t b, const int64_t *amt, int sign)
{
	const struct rtl_list *e = &r->benv[node / 64];
	uint32_t j0 = bucket_of(r, a);
	uint32_t j1 = b == FW_RTL_INF ? r->nbk - 1 : bucket_of(r, b - 1);
	int64_t old[FW_RTL_MAXRES];

	for (uint32_t j = j0; j <= j1; j++) {
		int32_t end = j + 1 < r->nbk ? e->t[j + 1] : FW_RTL_INF;
		int64_t *nm = fw_rtl_nmax(r, node, j);

		for (uint32_t k = 0; k < r->K; k++)
			old[k] = nm[k];
		if (amt && e->t[j] >= a && (b == FW_RTL_INF || end <= b))
			for (uint32_t k = 0; k < r->K; k++)
				nm[k] += sign * amt[k];
		else
			list_max(&r->node[node], r->K, e->t[j], end, nm);
		block_bucket_update(r, node, j, old, nm);
		levels_update(r, node, j, old, nm);
	}
}

/* The block's largest capacity per resource. */
static void block_max_update(struct fw_rtl *r, uint32_t b)
{
	uint32_t K = r->K, hi = (b + 1) * 64;
	int64_t *bm = r->bmax + (size_t)b * K;

	if (hi > r->nnodes)
		hi = r->nnodes;
	memset(bm, 0, K * sizeof(*bm));
	for (uint32_t i = b * 64; i < hi; i++)
		for (uint32_t k = 0; k < K; k++)
			if (r->cap[(size_t)i * K + k] > bm[k])
				bm[k] = r->cap[(size_t)i * K + k];
}

/* Node's maxima in every bucket from one sweep of its list (the tables
 * of a fresh bucket cut, or after a bulk load). */
static void node_maxima(struct fw_rtl *r, uint32_t node)
{
	const struct rtl_list *l = &r->node[node], *e = &r->benv[0];
	uint32_t K = r->K, p = 0;

	for (uint32_t j = 0; j < r->nbk; j++) {
		int32_t end = j + 1 < r->nbk ? e->t[j + 1] : FW_RTL_INF;
		int64_t *nm = fw_rtl_nmax(r, node, j);
		uint32_t q;

		while (p + 1 < l->m && l->t[p + 1] <= e->t[j])
			p++;
		for (uint32_t k = 0; k < K; k++)
			nm[k] = l->v[(size_t)p * K + k];
		for (q = p + 1; q < l->m && l->t[q] < end; q++)
			for (uint32_t k = 0; k < K; k++)
				if (l->v[(size_t)q * K + k] > nm[k])
					nm[k] = l->v[(size_t)q * K + k];
	}
}

/* The level words of block b, bucket j, resource k from its nodes'
 * maxima: each node is put at its own level, then the sets are the
 * suffix unions (a node at level n is in the sets of levels 0..n-1). */
static void block_levels(struct fw_rtl *r, uint32_t b, uint32_t j,
			 uint32_t k)
{
	uint64_t at[RTL_NLEV + 1] = { 0 }, run = 0;
	uint32_t hi = (b + 1) * 64 < r->nnodes ? (b + 1) * 64 : r->nnodes;

	for (uint32_t i = b * 64; i < hi; i++)
		at[fw_rtl_nlev(fw_rtl_nmax(r, i, j)[k])] |=
			(uint64_t)1 << (i % 64);
	for (uint32_t l = RTL_NLEV; l-- > 0;) {
		run |= at[l + 1];
		fw_rtl_lev(r, j, k, l)[b] = run;
	}
}

/*
 * Every per-bucket table (node maxima, block envelopes and counts, level
 * sets) from the lists: a sweep per node and a pass per block, instead of
 * a refresh per change and node (fw_rtl_refine, fw_rtl_bulk_end).
 */
static void tables_rebuild(struct fw_rtl *r, const uint64_t *only)
{
	for (uint32_t b = 0; b < r->nblocks; b++) {
		uint64_t w = only ? only[b] : fw_rtl_block_word(r, NULL, b);

		for (; w; w &= w - 1)
			node_maxima(r, b * 64 + fw_ctz64(w));
	}
	for (uint32_t j = 0; j < r->nbk; j++)
		for (uint32_t b = 0; b < r->nblocks; b++) {
			if (only && !only[b])
				continue;
			for (uint32_t k = 0; k < r->K; k++)
				block_bucket(r, b, j, k);
			for (uint32_t k = 0; k < r->LK; k++)
				block_levels(r, b, j, k);
		}
}

/* In bulk, note that node changed and tell the caller to skip the
 * tables; otherwise false. */
static bool deferred(struct fw_rtl *r, uint32_t node)
{
	if (!r->bulk)
		return false;
	r->dirty[node / 64] |= (uint64_t)1 << (node % 64);
	return true;
}

/* ------------------------------------------------------------------ */
/* Object                                                              */
/* ------------------------------------------------------------------ */

/* The per-bucket tables (not the lists, capacities or search scratch
 * that does not depend on the buckets). */
static void buckets_free(struct fw_rtl *r)
{
	for (uint32_t b = 0; b < r->nblocks; b++)
		list_free(&r->benv[b]);
	free(r->benv);
	free(r->bcnt);
	free(r->nmax);
	free(r->lev);
	free(r->jend);
	free(r->wfront);
}

struct fw_rtl *fw_rtl_new(uint32_t nnodes, uint32_t nres, int32_t wslots)
{
	struct fw_rtl *r;

	/* Node indices must fit the search's 30-bit event field. */
	if (nnodes == 0 || nnodes >= (1u << 30) || nres == 0 || nres > FW_RTL_MAXRES || wslots < 1 ||
	    wslots == FW_RTL_INF)
		return NULL;
	r = fw_xcalloc(1, sizeof(*r));
	r->nnodes = nnodes;
	r->K = nres;
	r->W = wslots;
	r->bdiv = 4;
	r->nblocks = (uint32_t)FW_BITSET_WORDS(nnodes);
	r->node = fw_xcalloc(nnodes, sizeof(*r->node));
	for (uint32_t i = 0; i < nnodes; i++)
		list_init(&r->node[i], nres);
	buckets_init(r);
	r->cap = fw_xcalloc((size_t)nnodes * nres, sizeof(*r->cap));
	r->bmax = fw_xcalloc((size_t)r->nblocks * nres, sizeof(*r->bmax));
	r->ev = fw_xmalloc(((size_t)nnodes + r->nblocks) * sizeof(*r->ev));
	r->open = fw_xcalloc(r->nblocks, sizeof(*r->open));
	r->gend = fw_xmalloc(nnodes * sizeof(*r->gend));
	fw_rtl_hints_init(r);
	return r;
}

void fw_rtl_free(struct fw_rtl *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->nnodes; i++)
		list_free(&r->node[i]);
	buckets_free(r);
	free(r->node);
	free(r->cap);
	free(r->bmax);
	free(r->ev);
	free(r->open);
	free(r->gend);
	fw_rtl_hints_free(r);
	free(r->dirty);
	free(r);
}

void fw_rtl_refine(struct fw_rtl *r)
{
	if (r->bdiv >= RTL_MAXDIV)
		return;
	buckets_free(r);
	r->bdiv *= 2;
	buckets_init(r);
	if (r->bulk)
		r->bulk_all = true;	/* the new tables are empty */
	else
		tables_rebuild(r, NULL);
}

void fw_rtl_bulk_begin(struct fw_rtl *r)
{
	if (r->bulk)
		return;
	r->bulk = true;
	r->bulk_all = false;
	r->dirty = fw_xcalloc(r->nblocks, sizeof(*r->dirty));
}

/* Only the nodes changed in bulk (and their blocks) are rebuilt: a
 * reservation's view loads a few nodes of a large timeline. */
void fw_rtl_bulk_end(struct fw_rtl *r)
{
	if (!r->bulk)
		return;
	r->bulk = false;
	for (uint32_t b = 0; b < r->nblocks; b++)
		if (r->bulk_all || r->dirty[b])
			block_max_update(r, b);
	tables_rebuild(r, r->bulk_all ? NULL : r->dirty);
	free(r->dirty);
	r->dirty = NULL;
}

uint32_t fw_rtl_refined(const struct fw_rtl *r)
{
	return r->bdiv / 8;
}

uint32_t fw_rtl_nnodes(const struct fw_rtl *r)
{
	return r->nnodes;
}

uint32_t fw_rtl_nres(const struct fw_rtl *r)
{
	return r->K;
}

int32_t fw_rtl_wslots(const struct fw_rtl *r)
{
	return r->W;
}

/*
 * Clamp [a, b) to the timeline: slots past W are slot W.  Returns false
 * for an empty interval (checked before clamping, so [W+5, W+3) stays
 * empty rather than becoming [W, forever)).
 */
static bool clamp(const struct fw_rtl *r, int32_t *a, int32_t *b)
{
	if (*b <= *a)
		return false;
	if (*a < 0)
		*a = 0;
	if (*a > r->W)
		*a = r->W;
	if (*b > r->W)
		*b = FW_RTL_INF;
	return *b > *a;
}

int fw_rtl_set_capacity(struct fw_rtl *r, uint32_t node, const int64_t *cap)
{
	uint32_t K = r->K;
	int64_t delta[FW_RTL_MAXRES], low[FW_RTL_MAXRES];
	int64_t *old = r->cap + (size_t)node * K;
	struct rtl_list *l = &r->node[node];

	/* The lowest free amount at any time must stay >= 0. */
	list_min(l, K, 0, FW_RTL_INF, low);
	for (uint32_t k = 0; k < K; k++) {
		delta[k] = cap[k] - old[k];
		if (cap[k] < 0 || low[k] + delta[k] < 0)
			return -1;
	}
	list_add(l, K, 0, FW_RTL_INF, delta, 1);
	memcpy(old, cap, K * sizeof(*old));
	fw_rtl_hints_drop(r);
	if (deferred(r, node))
		return 0;
	block_max_update(r, node / 64);
	buckets_refresh(r, node, 0, FW_RTL_INF, NULL, 0);
	return 0;
}

void fw_rtl_capacity(const struct fw_rtl *r, uint32_t node, int64_t *cap)
{
	memcpy(cap, r->cap + (size_t)node * r->K, r->K * sizeof(*cap));
}

static bool amounts_ok(const struct fw_rtl *r, const int64_t *amt)
{
	for (uint32_t k = 0; k < r->K; k++)
		if (amt[k] < 0)
			return false;
	return true;
}

/* Would taking amt over [a, b) (clamped, non-empty) stay >= 0? */
static bool can_take(const struct fw_rtl *r, uint32_t node, int32_t a,
		     int32_t b, const int64_t *amt)
{
	int64_t low[FW_RTL_MAXRES];

	list_min(&r->node[node], r->K, a, b, low);
	for (uint32_t k = 0; k < r->K; k++)
		if (low[k] < amt[k])
			return false;
	return true;
}

/* Would giving amt over [a, b) stay <= the node's capacity? */
static bool can_give(const struct fw_rtl *r, uint32_t node, int32_t a,
		     int32_t b, const int64_t *amt)
{
	int64_t high[FW_RTL_MAXRES];
	const int64_t *cap = r->cap + (size_t)node * r->K;

	list_max(&r->node[node], r->K, a, b, high);
	for (uint32_t k = 0; k < r->K; k++)
		if (high[k] + amt[k] > cap[k])
			return false;
	return true;
}

static void apply(struct fw_rtl *r, uint32_t node, int32_t a, int32_t b,
		  const int64_t *amt, int sign)
{
	list_add(&r->node[node], r->K, a, b, amt, sign);
	if (!deferred(r, node))
		buckets_refresh(r, node, a, b, amt, sign);
}

int fw_rtl_take(struct fw_rtl *r, uint32_t node, int32_t a, int32_t b,
		const int64_t *amt)
{
	return fw_rtl_take_nodes(r, &node, 1, a, b, amt);
}

int fw_rtl_take_nodes(struct fw_rtl *r, const uint32_t *nodes, uint32_t n,
		      int32_t a, int32_t b, const int64_t *amt)
{
	if (!amounts_ok(r, amt))
		return -1;
	if (!clamp(r, &a, &b))
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (nodes[i] >= r->nnodes || !can_take(r, nodes[i], a, b, amt))
			return -1;
	for (uint32_t i = 0; i < n; i++)
		apply(r, nodes[i], a, b, amt, -1);
	return 0;
}

int fw_rtl_take_upto(struct fw_rtl *r, uint32_t node, int32_t a, int32_t b,
		     const int64_t *amt)
{
	if (!amounts_ok(r, amt) || node >= r->nnodes)
		return -1;
	if (!clamp(r, &a, &b))
		return 0;
	/* Most takes fit whole (the bookings of running jobs, the plan's
	 * reservations): then the buckets inside [a, b) just shift. */
	if (can_take(r, node, a, b, amt)) {
		apply(r, node, a, b, amt, -1);
		return 0;
	}
	list_take_upto(&r->node[node], r->K, a, b, amt);
	if (!deferred(r, node))
		buckets_refresh(r, node, a, b, NULL, 0);
	return 0;
}

int fw_rtl_give(struct fw_rtl *r, uint32_t node, int32_t a, int32_t b,
		const int64_t *amt)
{
	if (!amounts_ok(r, amt) || node >= r->nnodes)
		return -1;
	if (!clamp(r, &a, &b))
		return 0;
	if (!can_give(r, node, a, b, amt))
		return -1;
	apply(r, node, a, b, amt, 1);
	fw_rtl_hints_drop(r);
	return 0;
}

void fw_rtl_free_min(const struct fw_rtl *r, uint32_t node, int32_t a,
		     int32_t b, int64_t *out)
{
	if (b <= a)
		b = a < FW_RTL_INF ? a + 1 : a;
	if (!clamp(r, &a, &b))	/* only a == b == FW_RTL_INF: forever */
		a = r->W, b = FW_RTL_INF;
	list_min(&r->node[node], r->K, a, b, out);
}

bool fw_rtl_fits(const struct fw_rtl *r, uint32_t node, int32_t a, int32_t b,
		 const int64_t *req)
{
	int64_t low[FW_RTL_MAXRES];

	fw_rtl_free_min(r, node, a, b, low);
	for (uint32_t k = 0; k < r->K; k++)
		if (low[k] < req[k])
			return false;
	return true;
}

int32_t fw_rtl_next_change(const struct fw_rtl *r, uint32_t node, int32_t t)
{
	const struct rtl_list *l = &r->node[node];
	uint32_t j = fw_rtl_list_at(l, t < 0 ? 0 : t);

	return j + 1 < l->m ? l->t[j + 1] : FW_RTL_INF;
}

uint32_t fw_rtl_npoints(const struct fw_rtl *r, uint32_t node)
{
	return r->node[node].m;
}

size_t fw_rtl_mem_bytes(const struct fw_rtl *r)
{
	size_t per_pt = sizeof(int32_t) + r->K * sizeof(int64_t);
	size_t sz = sizeof(*r);

	for (uint32_t i = 0; i < r->nnodes; i++)
		sz += sizeof(struct rtl_list) + r->node[i].cap * per_pt;
	for (uint32_t b = 0; b < r->nblocks; b++)
		sz += sizeof(struct rtl_list) + r->benv[b].cap * per_pt;
	sz += (size_t)r->nnodes * r->nbk * r->K * sizeof(int64_t);
	sz += (size_t)r->nblocks * r->nbk * r->K;
	sz += (size_t)(r->nnodes + r->nblocks) * r->K * sizeof(int64_t);
	sz += ((size_t)r->nnodes + 2 * r->nblocks) * sizeof(uint64_t);
	sz += (size_t)r->nnodes * sizeof(int32_t) + r->nbk * sizeof(uint32_t);
	/* level sets, probe hints */
	sz += (size_t)r->nbk * r->LK * RTL_NLEV * r->nblocks * sizeof(uint64_t);
	sz += (size_t)RTL_NHINT * r->nblocks * sizeof(uint64_t);
	return sz;
}
