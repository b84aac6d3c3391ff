/*
 * fw_rtl_search.c - the earliest start of n nodes with req free for d slots.
 *
 * For one node, the starts at which it fits form runs [f, g]: f is where
 * a run of segments with req free begins (or the search's first slot),
 * g = (end of that run) - d.  The answer is the first slot covered by n
 * runs.  The search finds it in two steps:
 *
 *  1. Probe: the nodes that fit at the first allowed start c, in index
 *     order, stopping at n.  "Start now" for small jobs ends here after a
 *     few nodes; blocks whose envelope (fw_rtl_int.h) shows no room at c
 *     are skipped in one step.
 *  2. Sweep: a min-heap of events in time order.  Each block enters as
 *     one event at its envelope's lower bound (no node of it can fit
 *     earlier) and is only opened when the sweep reaches that slot; an
 *     opened node adds an event where its next run begins and one just
 *     after it ends, then the next run's.  After all events of a slot,
 *     if n runs are open that slot is the answer, and the open nodes with
 *     the lowest indices are chosen.  Blocks and runs past the answer are
 *     never looked at, and each run is visited once, however often
 *     nodes' fits come and go (a node that fits at f may be taken again
 *     later, so "the n-th smallest f" alone is not the answer).
 *
 * One node (most jobs) needs no sweep after the probe: its answer is the
 * smallest of the nodes' own earliest fits (earliest_one).  In both steps
 * a node's largest free amounts per time bucket (fw_rtl_nmax) are checked
 * before its list is walked: a block's envelope mixes the CPUs of one
 * node with the memory of another, so most nodes of an opened block are
 * passed over there.
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

/* fw_rtl_list_next_fit, also leaving in *jp the last segment of the
 * window found (every segment from c's to it fits). */
static int32_t next_fit_at(const struct rtl_list *l, uint32_t K,
			   const int64_t *req, int32_t c, int32_t d,
			   int32_t bound, uint32_t *jp)
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
		if (seg_end >= end_of(c, d)) {
			*jp = j;
			return c;
		}
		j++;
	}
}

int32_t fw_rtl_list_next_fit(const struct rtl_list *l, uint32_t K,
			     const int64_t *req, int32_t c, int32_t d,
			     int32_t bound)
{
	uint32_t j;

	return next_fit_at(l, K, req, c, d, bound, &j);
}

/* The slot where the run of fitting segments through segment j ends. */
static int32_t run_end(const struct rtl_list *l, uint32_t K,
		       const int64_t *req, uint32_t j)
{
	while (j + 1 < l->m && seg_fits(l->v + (size_t)(j + 1) * K, req, K))
		j++;
	return j + 1 < l->m ? l->t[j + 1] : FW_RTL_INF;
}

/* ------------------------------------------------------------------ */
/* Events: a min-heap of time << 32 | kind << 30 | index                */
/* ------------------------------------------------------------------ */

enum { EV_END, EV_BEGIN, EV_BLOCK, EV_NODE };

struct sweep {
	struct fw_rtl *r;
	struct fw_rtl_query *q;
	int32_t hi;		/* last allowed start */
	uint32_t len;		/* events in r->ev */
	uint32_t nopen;		/* nodes in r->open */
	const struct rtl_lvq *lq;	/* the request's level filter */
};

static void ev_push(struct sweep *sw, int64_t t, uint32_t kind, uint32_t i)
{
	uint64_t *h = sw->r->ev;
	uint32_t k;

	if (t > sw->hi)
		return;		/* past the last allowed start: irrelevant */
	k = sw->len++;
	h[k] = (uint64_t)t << 32 | (uint64_t)kind << 30 | i;
	while (k > 0 && h[(k - 1) / 2] > h[k]) {
		uint64_t x = h[k];

		h[k] = h[(k - 1) / 2];
		h[(k - 1) / 2] = x;
		k = (k - 1) / 2;
	}
}

static uint64_t ev_pop(struct sweep *sw)
{
	uint64_t *h = sw->r->ev, top = h[0];
	uint32_t i = 0;

	h[0] = h[--sw->len];
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		uint64_t x;

		if (l < sw->len && h[l] < h[m])
			m = l;
		if (l + 1 < sw->len && h[l + 1] < h[m])
			m = l + 1;
		if (m == i)
			return top;
		x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

/* ------------------------------------------------------------------ */
/* Blocks and nodes                                                    */
/* ------------------------------------------------------------------ */

/* The earliest slot in [c, bound] at which a node of block b may fit
 * (its largest capacity, then its envelope), or FW_RTL_INF. */
static int32_t block_bound(const struct fw_rtl *r, const struct fw_rtl_query *q,
			   uint32_t b, int32_t c, int32_t bound)
{
	if (!seg_fits(r->bmax + (size_t)b * r->K, q->req, r->K))
		return FW_RTL_INF;
	return fw_rtl_list_next_fit(&r->benv[b], r->K, q->req, c, q->d, bound);
}

/* The last bucket that [c, c + d) touches. */
static uint32_t last_bucket(const struct fw_rtl *r, int32_t c, int32_t d)
{
	if (d == FW_RTL_INF || (int64_t)c + d - 1 >= r->W)
		return r->nbk - 1;
	return fw_rtl_bucket_of(r, c + d - 1);
}

/* r->jend for windows of d slots: the last bucket [t_j, t_j + d)
 * touches, for each bucket start t_j.  Both grow with j, so one walk
 * over the bucket starts (not a binary search per bucket). */
static void window_ends(struct fw_rtl *r, int32_t d)
{
	const int32_t *t = r->benv[0].t;
	uint32_t e = 0;

	for (uint32_t j = 0; j < r->nbk; j++) {
		int64_t last = d == FW_RTL_INF ? INT64_MAX : (int64_t)t[j] + d - 1;

		if (last >= r->W) {
			r->jend[j] = r->nbk - 1;
			continue;
		}
		while (e + 1 < r->nbk && t[e + 1] <= last)
			e++;
		r->jend[j] = e;
	}
}

/* Nodes of x (block b) in the request's level sets of every bucket
 * j0..j1: a node with req free during a window is, in each bucket the
 * window touches. */
static uint64_t in_levels(const struct fw_rtl *r, const struct rtl_lvq *lq,
			  uint64_t x, uint32_t b, uint32_t j0, uint32_t j1)
{
	for (uint32_t j = j0; j <= j1 && x; j++)
		x &= fw_rtl_lev_word(r, lq, j, b);
	return x;
}

/*
 * The level-set words of one block over the sliding windows [j, jend[j]]
 * of a walk through its buckets (j and jend[j] only grow): the AND of a
 * window is kept as two parts, suffix ANDs of a "front" stretch
 * [j, mid] computed at once (r->wfront) and a running AND of (mid, hi],
 * so each bucket's words are ANDed about twice per walk instead of once
 * per window that holds it (with fine buckets a window of hours holds
 * dozens).
 */
struct lwin {
	const struct rtl_lvq *lq;
	uint32_t b, mid, hi;
	bool fresh;		/* nothing computed yet */
	uint64_t back;		/* AND over (mid, hi] */
};

static void lwin_init(struct lwin *w, const struct rtl_lvq *lq, uint32_t b)
{
	w->lq = lq;
	w->b = b;
	w->fresh = true;
}

/* AND of the request's level words of block w->b over buckets [j, e]
 * (j >= every earlier j, e >= every earlier e, e >= j). */
static uint64_t lwin_get(const struct fw_rtl *r, struct lwin *w, uint32_t j,
			 uint32_t e)
{
	if (w->fresh || j > w->mid) {
		uint64_t acc = ~(uint64_t)0;

		for (uint32_t i = e + 1; i-- > j;) {
			acc &= fw_rtl_lev_word(r, w->lq, i, w->b);
			r->wfront[i] = acc;
		}
		w->mid = w->hi = e;
		w->back = ~(uint64_t)0;
		w->fresh = false;
	}
	while (w->hi < e)
		w->back &= fw_rtl_lev_word(r, w->lq, ++w->hi, w->b);
	return r->wfront[j] & w->back;
}

/*
 * The nodes of *rest (block w->b) to look at from bucket j on: those that
 * may start a window in bucket j (in the level sets of every bucket up to
 * r->jend[j], which a window starting anywhere in j touches: a short hole
 * in a busy node passes the bucket's own maxima but not this) and whose
 * largest free amounts in j hold req.  They leave *rest, and so do nodes
 * whose capacity never holds req; the others wait for a later bucket.
 */
static uint64_t fit_from(const struct fw_rtl *r, struct lwin *w,
			 const int64_t *req, uint64_t *rest, uint32_t j)
{
	uint64_t got = 0;
	uint32_t b = w->b;

	if (!*rest)
		return 0;
	for (uint64_t m = *rest & lwin_get(r, w, j, r->jend[j]); m;
	     m &= m - 1) {
		uint32_t i = b * 64 + fw_ctz64(m);

		if (seg_fits(fw_rtl_nmax(r, i, j), req, r->K))
			got |= m & -m;
		else if (!seg_fits(r->cap + (size_t)i * r->K, req, r->K))
			*rest &= ~(m & -m);	/* never */
	}
	*rest &= ~got;
	return got;
}

/* Step 1: the lowest n nodes fitting at c into q->nodes; how many
 * were found (n: the answer is c).
 * A node whose largest free amounts in c's bucket (exact for the first
 * slots, where start-now questions are) fall short is passed over
 * without a walk of its list: most nodes of a busy block do.  Blocks that
 * an earlier probe showed to hold no fitting node are not looked at
 * (fw_rtl_hint.c), and what this probe shows is kept for later ones. */
static uint32_t probe(struct fw_rtl *r, struct fw_rtl_query *q,
		      const struct rtl_lvq *lq, int32_t c)
{
	uint32_t got = 0, jc = fw_rtl_bucket_of(r, c), je = last_bucket(r, c, q->d);
	uint32_t b0 = fw_rtl_hint_skip(r, q, c), b = b0;

	q->blocks_skipped += b0;
	for (; b < r->nblocks && got < q->n; b++) {
		uint64_t x = in_levels(r, lq, fw_rtl_block_word(r, q->cand, b),
				       b, jc, je);

		if (!x) {
			q->blocks_skipped++;
			continue;
		}
		if (block_bound(r, q, b, c, c) == FW_RTL_INF) {
			q->blocks_skipped++;
			continue;
		}
		for (; x && got < q->n; x &= x - 1) {
			uint32_t i = b * 64 + fw_ctz64(x);

			if (!seg_fits(fw_rtl_nmax(r, i, jc), q->req, r->K))
				continue;
			q->nodes_scanned++;
			if (fw_rtl_list_next_fit(&r->node[i], r->K, q->req, c,
						 q->d, c) == c)
				q->nodes[got++] = i;
		}
	}
	/* Blocks before the first node found hold none that fits. */
	b = got ? q->nodes[0] / 64 : r->nblocks;
	if (b > b0)
		fw_rtl_hint_learn(r, q, c, b);
	return got;
}

static void open_node(struct sweep *sw, uint32_t i)
{
	sw->r->open[i / 64] |= (uint64_t)1 << (i % 64);
	sw->nopen++;
}

static void close_node(struct sweep *sw, uint32_t i)
{
	sw->r->open[i / 64] &= ~((uint64_t)1 << (i % 64));
	sw->nopen--;
}

/*
 * Node i's next run of fitting starts at or after t: open it now if it
 * begins at t, else schedule its beginning; schedule its end either way.
 */
static void next_run(struct sweep *sw, uint32_t i, int32_t t)
{
	struct fw_rtl *r = sw->r;
	const struct rtl_list *l = &r->node[i];
	int32_t f, e;
	uint32_t j;

	sw->q->nodes_scanned++;
	f = next_fit_at(l, r->K, sw->q->req, t, sw->q->d, sw->hi, &j);
	if (f == FW_RTL_INF)
		return;
	e = run_end(l, r->K, sw->q->req, j);
	r->gend[i] = e == FW_RTL_INF ? FW_RTL_INF : e - sw->q->d;
	if (f == t) {
		open_node(sw, i);
		if (r->gend[i] != FW_RTL_INF)
			ev_push(sw, (int64_t)r->gend[i] + 1, EV_END, i);
	} else {
		ev_push(sw, f, EV_BEGIN, i);
	}
}

/* From bucket j on, the first bucket in which node i's largest free
 * amounts hold req (j itself, or one starting no later than bound);
 * r->nbk if there is none. */
static uint32_t fit_bucket(const struct fw_rtl *r, uint32_t i,
			   const int64_t *req, uint32_t j, int32_t bound)
{
	while (!seg_fits(fw_rtl_nmax(r, i, j), req, r->K))
		if (++j >= r->nbk || r->benv[0].t[j] > bound)
			return r->nbk;
	return j;
}

/*
 * Node i is free from slot t (in bucket j) on: walk its list only if its largest free
 * amounts in t's bucket can hold req (a node fitting at s has them in
 * s's bucket), else look again at the next bucket's start.  Most nodes of
 * an opened block are too full for the bucket the sweep is in; their
 * lists are never walked if the answer comes first.
 */
static void check_node(struct sweep *sw, uint32_t i, int32_t t, uint32_t j)
{
	struct fw_rtl *r = sw->r;
	uint32_t f = fit_bucket(r, i, sw->q->req, j, sw->hi);

	if (f == j)
		next_run(sw, i, t);
	else if (f < r->nbk)
		ev_push(sw, r->benv[0].t[f], EV_NODE, i);
}

/*
 * Block b reached at slot t (bucket j): check_node for each of its nodes,
 * with the buckets walked once for the whole block (fit_from): a node
 * that may fit in bucket j is looked at now, one that first may in a
 * later bucket gets an event at its start.
 */
static void open_block(struct sweep *sw, uint32_t b, int32_t t, uint32_t j)
{
	struct fw_rtl *r = sw->r;
	uint64_t rest = fw_rtl_block_word(r, sw->q->cand, b);
	struct lwin w;

	lwin_init(&w, sw->lq, b);
	for (uint32_t jj = j; rest && jj < r->nbk; jj++) {
		if (jj > j && r->benv[0].t[jj] > sw->hi)
			return;
		for (uint64_t m = fit_from(r, &w, sw->q->req, &rest, jj);
		     m; m &= m - 1) {
			uint32_t i = b * 64 + fw_ctz64(m);

			if (jj == j)
				next_run(sw, i, t);
			else
				ev_push(sw, r->benv[0].t[jj], EV_NODE, i);
		}
	}
}

static void handle(struct sweep *sw, uint64_t ev)
{
	struct fw_rtl *r = sw->r;
	int32_t t = (int32_t)(ev >> 32);
	uint32_t kind = (uint32_t)(ev >> 30) & 3, i = (uint32_t)ev & 0x3fffffff;

	uint32_t j = fw_rtl_bucket_of(r, t);

	if (kind == EV_BLOCK) {
		open_block(sw, i, t, j);
	} else if (kind == EV_NODE) {
		check_node(sw, i, t, j);
	} else if (kind == EV_BEGIN) {
		open_node(sw, i);
		if (r->gend[i] != FW_RTL_INF)
			ev_push(sw, (int64_t)r->gend[i] + 1, EV_END, i);
	} else {
		close_node(sw, i);
		check_node(sw, i, t, j);
	}
}

/* The n lowest open nodes into q->nodes. */
static void pick_open(struct sweep *sw)
{
	const uint64_t *open = sw->r->open;
	uint32_t got = 0;

	for (uint32_t w = 0; got < sw->q->n; w++)
		for (uint64_t x = open[w]; x && got < sw->q->n; x &= x - 1)
			sw->q->nodes[got++] = w * 64 + fw_ctz64(x);
}

/* Every candidate block enters the heap at its envelope's bound from c
 * (blocks that cannot fit by the last start are only counted). */
static void push_blocks(struct sweep *sw, int32_t c)
{
	struct fw_rtl *r = sw->r;
	uint32_t jc = fw_rtl_bucket_of(r, c);

	for (uint32_t b = 0; b < r->nblocks; b++) {
		uint64_t x = fw_rtl_block_word(r, sw->q->cand, b);
		uint32_t j = jc;
		int32_t lb;

		if (!x)
			continue;
		/* No node of the block can start before the first bucket in
		 * which one is in the request's level sets: the envelope is
		 * walked from there. */
		while (!(x & fw_rtl_lev_word(r, sw->lq, j, b)))
			if (++j >= r->nbk || r->benv[0].t[j] > sw->hi)
				break;
		lb = j >= r->nbk || (j > jc && r->benv[0].t[j] > sw->hi) ?
		     FW_RTL_INF :
		     block_bound(r, sw->q, b, j > jc ? r->benv[0].t[j] : c,
				 sw->hi);
		if (lb == FW_RTL_INF)
			sw->q->blocks_skipped++;
		else
			ev_push(sw, lb, EV_BLOCK, b);
	}
}

/* Step 2: the sweep from c; returns the start or -1. */
static int32_t sweep_from(struct fw_rtl *r, struct fw_rtl_query *q,
			  const struct rtl_lvq *lq, int32_t c, int32_t hi)
{
	struct sweep sw = { .r = r, .q = q, .hi = hi, .lq = lq };
	int32_t found = -1;

	window_ends(r, q->d);
	push_blocks(&sw, c);
	while (sw.len) {
		int32_t t = (int32_t)(r->ev[0] >> 32);

		while (sw.len && (int32_t)(r->ev[0] >> 32) == t)
			handle(&sw, ev_pop(&sw));
		if (sw.nopen >= q->n) {
			pick_open(&sw);
			found = t;
			break;
		}
	}
	for (uint32_t k = 0; k < sw.len; k++)	/* blocks never opened */
		q->blocks_skipped += (r->ev[k] >> 30 & 3) == EV_BLOCK;
	memset(r->open, 0, r->nblocks * sizeof(*r->open));
	return found;
}

/*
 * Block b, reached at slot t: the earliest fit of each of its nodes,
 * lowered into *best / *bnode (ties to the lower node).  The buckets are
 * walked once for the whole block (fit_from): a node that may fit in a
 * bucket has its list walked from there (up to the best start so far)
 * and is done; the others wait for a later bucket.
 */
static void block_earliest(struct fw_rtl *r, struct fw_rtl_query *q,
			   const struct rtl_lvq *lq, uint32_t b, int32_t t,
			   int32_t hi, int32_t *best, uint32_t *bnode)
{
	uint64_t rest = fw_rtl_block_word(r, q->cand, b);
	uint32_t j0 = fw_rtl_bucket_of(r, t);
	struct lwin w;

	lwin_init(&w, lq, b);

	for (uint32_t j = j0; rest && j < r->nbk; j++) {
		int32_t s = j == j0 ? t : r->benv[0].t[j];
		uint64_t m;

		if (s > (*best < hi ? *best : hi))
			return;
		for (m = fit_from(r, &w, q->req, &rest, j); m; m &= m - 1) {
			uint32_t i = b * 64 + fw_ctz64(m);
			int32_t f;

			q->nodes_scanned++;
			f = fw_rtl_list_next_fit(&r->node[i], r->K, q->req, s,
						 q->d, *best < hi ? *best : hi);
			if (f < *best || (f == *best && f != FW_RTL_INF &&
					  i < *bnode)) {
				*best = f;
				*bnode = i;
			}
		}
	}
}

/*
 * One node (most jobs): the earliest start is the smallest of the nodes'
 * own earliest fits, so no sweep of runs is needed.  Blocks are taken in
 * the order of their envelopes' bounds and only while a bound can still
 * beat the best start found.  Ties go to the lowest node index, as in the
 * sweep.
 */
static int32_t earliest_one(struct fw_rtl *r, struct fw_rtl_query *q,
			    const struct rtl_lvq *lq, int32_t c, int32_t hi)
{
	struct sweep sw = { .r = r, .q = q, .hi = hi, .lq = lq };
	int32_t best = FW_RTL_INF;
	uint32_t bnode = 0;

	window_ends(r, q->d);
	push_blocks(&sw, c);
	/* Events are ordered by (slot, block): a block at best's slot but
	 * after best's block cannot give a lower node. */
	while (sw.len && ((int32_t)(r->ev[0] >> 32) < best ||
			  ((int32_t)(r->ev[0] >> 32) == best &&
			   ((uint32_t)r->ev[0] & 0x3fffffff) < bnode / 64))) {
		uint64_t ev = ev_pop(&sw);

		block_earliest(r, q, lq, (uint32_t)ev & 0x3fffffff,
			       (int32_t)(ev >> 32), hi, &best, &bnode);
	}
	q->blocks_skipped += sw.len;
	if (best == FW_RTL_INF)
		return -1;
	q->nodes[0] = bnode;
	return best;
}

int32_t fw_rtl_node_earliest(const struct fw_rtl *r, uint32_t node,
			     const int64_t *req, int32_t d, int32_t smin,
			     int32_t smax)
{
	int32_t lo = smin < 0 ? 0 : smin, c, hi, f;

	if (node >= r->nnodes || d < 1 || lo > smax)
		return -1;
	/* Past W nothing changes: a start there may as well be at W. */
	hi = smax < r->W ? smax : r->W;
	c = lo < r->W ? lo : r->W;
	f = fw_rtl_list_next_fit(&r->node[node], r->K, req, c, d, hi);
	if (f == FW_RTL_INF || f > hi)
		return -1;
	return f > lo ? f : lo;
}

/* Has cand (NULL: every node) at least n >= 1 nodes?  The n-th node's
 * index stops the count at n: one word for most jobs. */
static bool enough_cand(const struct fw_rtl *r, const struct fw_bitset *c,
			uint32_t n)
{
	return c ? fw_bitset_nth_set(c, n - 1) >= 0 : r->nnodes >= n;
}

int32_t fw_rtl_earliest(struct fw_rtl *r, struct fw_rtl_query *q)
{
	int32_t smin = q->smin < 0 ? 0 : q->smin, c, hi, s;
	struct rtl_lvq lq;

	q->start = -1;
	if (q->n == 0 || q->d < 1 || smin > q->smax ||
	    (q->cand && q->cand->nbits != r->nnodes) ||
	    !enough_cand(r, q->cand, q->n))
		return -1;
	/* Past W nothing changes: a start there may as well be at W. */
	hi = q->smax < r->W ? q->smax : r->W;
	c = smin < r->W ? smin : r->W;
	fw_rtl_lvq_init(r, q->req, &lq);
	if (probe(r, q, &lq, c) == q->n)
		s = c;
	else
		s = c >= hi ? -1 :
		    q->n == 1 ? earliest_one(r, q, &lq, c + 1, hi) :
		    sweep_from(r, q, &lq, c + 1, hi);
	if (s < 0)
		return -1;
	q->start = s > smin ? s : smin;
	return q->start;
}

uint32_t fw_rtl_fit_at(struct fw_rtl *r, struct fw_rtl_query *q, int32_t c)
{
	struct rtl_lvq lq;

	if (q->n == 0 || q->d < 1 || c < 0 ||
	    (q->cand && q->cand->nbits != r->nnodes))
		return 0;
	/* Past W nothing changes: [c, c + d) holds what [W, W + d) does. */
	if (c > r->W)
		c = r->W;
	fw_rtl_lvq_init(r, q->req, &lq);
	return probe(r, q, &lq, c);
}
