/*
 * fw_plan_tl.c - availability timeline and the earliest-start search.
 *
 * The search slides a window [c, c + len) over the segments.  The AND of
 * the segments inside the window is maintained with two stacks (a back
 * accumulator and a front stack of suffix ANDs), so each segment is ANDed
 * about three times over a whole scan instead of once per candidate start
 * and covered segment.  Segments whose per-partition free count (or a
 * license count) is already too small are never ANDed: every window
 * containing one is skipped in one step.
 */
#include <stdlib.h>
#include <string.h>

#include "fw_plan_tl.h"

static void tl_grow(struct fw_tl *tl)
{
	uint32_t cap = tl->cap ? tl->cap * 2 : 64;

	tl->start = fw_xrealloc(tl->start, cap * sizeof(*tl->start));
	tl->pool = fw_xrealloc(tl->pool, cap * sizeof(*tl->pool));
	tl->avail = fw_xrealloc(tl->avail, (size_t)cap * tl->W *
				sizeof(uint64_t));
	if (tl->free)
		tl->free = fw_xrealloc(tl->free, (size_t)cap * tl->W *
				       sizeof(uint64_t));
	tl->pcnt = fw_xrealloc(tl->pcnt, (size_t)cap * (tl->P ? tl->P : 1) *
			       sizeof(int32_t));
	tl->lic = fw_xrealloc(tl->lic, (size_t)cap * (tl->L ? tl->L : 1) *
			      sizeof(int64_t));
	tl->cap = cap;
}

void fw_tl_init(struct fw_tl *tl, const struct fw_cluster *cl,
		int32_t wslots, const struct fw_bitset *usable)
{
	memset(tl, 0, sizeof(*tl));
	tl->cl = cl;
	tl->W = (uint32_t)FW_BITSET_WORDS(cl->nnodes);
	tl->P = cl->nparts;
	tl->L = cl->nlics;
	tl->wslots = wslots;
	tl_grow(tl);
	tl->nseg = 1;
	tl->start[0] = 0;
	tl->pool[0] = 0;
	memcpy(tl->avail, usable->w, tl->W * sizeof(uint64_t));
	for (uint32_t q = 0; q < tl->P; q++)
		tl->pcnt[q] = (int32_t)fw_bitset_count_and(usable,
							   cl->parts[q].nodes);
	for (uint32_t l = 0; l < tl->L; l++)
		tl->lic[l] = cl->lics[l].total;
}

void fw_tl_free(struct fw_tl *tl)
{
	free(tl->start);
	free(tl->pool);
	free(tl->avail);
	free(tl->free);
	free(tl->pcnt);
	free(tl->lic);
	memset(tl, 0, sizeof(*tl));
}

void fw_tl_enable_free(struct fw_tl *tl)
{
	if (tl->free)
		return;
	tl->free = fw_xmalloc((size_t)tl->cap * tl->W * sizeof(uint64_t));
	memcpy(tl->free, tl->avail, (size_t)tl->nseg * tl->W *
	       sizeof(uint64_t));
}

uint32_t fw_tl_seg_at(const struct fw_tl *tl, int32_t s)
{
	uint32_t lo = 0, hi = tl->nseg;	/* start[lo] <= s < start[hi] */

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (tl->start[mid] <= s)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Make slot s a segment boundary; returns the segment starting at s. */
static uint32_t tl_split(struct fw_tl *tl, int32_t s)
{
	uint32_t i = fw_tl_seg_at(tl, s);
	uint32_t e, from;

	if (tl->start[i] == s)
		return i;
	if (tl->nseg == tl->cap)
		tl_grow(tl);
	/* Pool entries are never freed, so the new one is the next index. */
	e = tl->nseg;
	from = tl->pool[i];
	memcpy(tl->avail + (size_t)e * tl->W, tl->avail + (size_t)from * tl->W,
	       tl->W * sizeof(uint64_t));
	if (tl->free)
		memcpy(tl->free + (size_t)e * tl->W,
		       tl->free + (size_t)from * tl->W,
		       tl->W * sizeof(uint64_t));
	memcpy(tl->pcnt + (size_t)e * tl->P, tl->pcnt + (size_t)from * tl->P,
	       tl->P * sizeof(int32_t));
	memcpy(tl->lic + (size_t)e * tl->L, tl->lic + (size_t)from * tl->L,
	       tl->L * sizeof(int64_t));
	memmove(tl->start + i + 2, tl->start + i + 1,
		(tl->nseg - i - 1) * sizeof(*tl->start));
	memmove(tl->pool + i + 2, tl->pool + i + 1,
		(tl->nseg - i - 1) * sizeof(*tl->pool));
	tl->start[i + 1] = s;
	tl->pool[i + 1] = e;
	tl->nseg++;
	return i + 1;
}

static void take_nodes(struct fw_tl *tl, uint32_t e, const uint64_t *x,
		       uint32_t xlo, uint32_t xhi, int views)
{
	const struct fw_cluster *cl = tl->cl;

	if (views & FW_TL_AVAIL) {
		uint64_t *av = tl->avail + (size_t)e * tl->W;
		int32_t *pc = tl->pcnt + (size_t)e * tl->P;

		for (uint32_t w = xlo; w < xhi; w++) {
			uint64_t rem = av[w] & x[w];

			if (!rem)
				continue;
			av[w] &= ~rem;
			for (uint32_t q = 0; q < tl->P; q++)
				pc[q] -= (int32_t)fw_popcount64(
					rem & cl->parts[q].nodes->w[w]);
		}
	}
	if ((views & FW_TL_FREE) && tl->free) {
		uint64_t *fr = tl->free + (size_t)e * tl->W;

		for (uint32_t w = xlo; w < xhi; w++)
			fr[w] &= ~x[w];
	}
}

void fw_tl_occupy(struct fw_tl *tl, const struct fw_bitset *nodes, int32_t a,
		  int32_t b, const struct fw_plan_lic *lics, uint32_t nlics,
		  int views)
{
	uint32_t xlo, xhi;

	fw_bitset_word_range(nodes, &xlo, &xhi);
	fw_tl_occupy_words(tl, nodes->w, xlo, xhi, a, b, lics, nlics, views);
}

void fw_tl_occupy_words(struct fw_tl *tl, const uint64_t *x, uint32_t xlo,
			uint32_t xhi, int32_t a, int32_t b,
			const struct fw_plan_lic *lics, uint32_t nlics,
			int views)
{
	uint32_t ia, ib;

	/* Everything past the window end is "the state at the window end". */
	if (a > tl->wslots)
		a = tl->wslots;
	if (a < 0)
		a = 0;
	if (b > tl->wslots)
		b = FW_TL_INF;
	if (b <= a)
		return;
	tl->gen++;
	ia = tl_split(tl, a);
	ib = b == FW_TL_INF ? tl->nseg : tl_split(tl, b);
	for (uint32_t i = ia; i < ib; i++) {
		uint32_t e = tl->pool[i];

		if (xlo < xhi)
			take_nodes(tl, e, x, xlo, xhi, views);
		for (uint32_t k = 0; k < nlics; k++)
			tl->lic[(size_t)e * tl->L + lics[k].idx] -=
				lics[k].count;
	}
}

/* ------------------------------------------------------------------ */
/* Search                                                              */
/* ------------------------------------------------------------------ */

void fw_scratch_init(struct fw_scratch *s, uint32_t W)
{
	memset(s, 0, sizeof(*s));
	s->W = W ? W : 1;
	s->bacc = fw_xcalloc(s->W, sizeof(uint64_t));
	s->tmp = fw_xcalloc(s->W, sizeof(uint64_t));
	s->X = fw_xcalloc(s->W, sizeof(uint64_t));
}

void fw_scratch_free(struct fw_scratch *s)
{
	free(s->fst);
	free(s->rlo);
	free(s->rhi);
	free(s->segp);
	free(s->bacc);
	free(s->tmp);
	free(s->X);
	memset(s, 0, sizeof(*s));
}

/* Front-stack rows for a window of `rows` segments: sized by the longest
 * window actually met, not by the whole timeline. */
static void scratch_rows(struct fw_scratch *s, uint32_t rows)
{
	if (rows <= s->rows)
		return;
	rows = rows < 64 ? 64 : rows + rows / 2;
	free(s->fst);
	free(s->rlo);
	free(s->rhi);
	s->fst = fw_xmalloc((size_t)rows * s->W * sizeof(uint64_t));
	s->rlo = fw_xmalloc(rows * sizeof(uint32_t));
	s->rhi = fw_xmalloc(rows * sizeof(uint32_t));
	s->rows = rows;
}

static void scratch_segp(struct fw_scratch *s, uint32_t n)
{
	if (n <= s->nsegp)
		return;
	s->nsegp = n + n / 2;
	free(s->segp);
	s->segp = fw_xmalloc(s->nsegp * sizeof(*s->segp));
}

/* Per-call state of the sliding window.  The back accumulator and every
 * front row keep the range of their non-zero words: windows over a busy
 * timeline are sparse, and the work per step shrinks with them. */
struct win {
	const struct fw_tl *tl;
	struct fw_scratch *sc;
	const struct fw_search *s;
	uint32_t qh, fsplit, bi, base;	/* queue = segments [qh, bi) */
	uint32_t blo, bhi;		/* non-zero words of bacc */
};

static void trim(const uint64_t *x, uint32_t *lo, uint32_t *hi)
{
	while (*lo < *hi && !x[*lo])
		(*lo)++;
	while (*hi > *lo && !x[*hi - 1])
		(*hi)--;
}

/* The bits of segment j the job could use (before E). */
static const uint64_t *seg_words(struct win *wn, uint32_t j)
{
	const struct fw_tl *tl = wn->tl;
	const struct fw_search *s = wn->s;

	if (!s->free_view)
		return fw_tl_avail(tl, j);
	/* Inside a reservation: its own nodes are free unless jobs use them,
	 * but other reservations active in this segment still apply. */
	const uint64_t *fr = fw_tl_freeview(tl, j);
	uint64_t *t = wn->sc->tmp;
	int32_t a = tl->start[j];

	memcpy(t + s->lo, fr + s->lo, (s->hi - s->lo) * sizeof(uint64_t));
	for (uint32_t r = 0; r < s->nresv; r++) {
		const struct fw_tl_resv *rv = &s->resv[r];

		if ((int32_t)r == s->own_resv || rv->a > a || rv->b <= a)
			continue;
		for (uint32_t w = s->lo; w < s->hi; w++)
			t[w] &= ~rv->nodes->w[w];
	}
	return t;
}

static void reset_back(struct win *wn)
{
	memcpy(wn->sc->bacc + wn->s->lo, wn->s->E + wn->s->lo,
	       (wn->s->hi - wn->s->lo) * sizeof(uint64_t));
	wn->blo = wn->s->lo;
	wn->bhi = wn->s->hi;
}

static void push_back(struct win *wn, uint32_t j)
{
	const uint64_t *restrict sw;
	uint64_t *restrict b = wn->sc->bacc;

	if (wn->blo == wn->bhi)
		return;		/* already empty: stays empty */
	sw = seg_words(wn, j);
	for (uint32_t w = wn->blo; w < wn->bhi; w++)
		b[w] &= sw[w];
	trim(b, &wn->blo, &wn->bhi);
}

static uint64_t *row(struct win *wn, uint32_t j)
{
	return wn->sc->fst + (size_t)(j - wn->base) * wn->sc->W;
}

/* Move the back stack to the front: suffix ANDs, newest first. */
static void rebuild_front(struct win *wn)
{
	const uint64_t *E = wn->s->E;
	uint32_t *rlo, *rhi;

	wn->base = wn->qh;
	scratch_rows(wn->sc, wn->bi - wn->qh);
	rlo = wn->sc->rlo;
	rhi = wn->sc->rhi;
	for (uint32_t j = wn->bi; j-- > wn->qh;) {
		uint64_t *restrict r = row(wn, j);
		const uint64_t *restrict src;
		const uint64_t *restrict sw;
		uint32_t lo, hi;

		if (j + 1 == wn->bi) {
			src = E;
			lo = wn->s->lo;
			hi = wn->s->hi;
		} else {
			src = row(wn, j + 1);
			lo = rlo[j + 1 - wn->base];
			hi = rhi[j + 1 - wn->base];
		}
		if (lo < hi) {
			sw = seg_words(wn, j);
			for (uint32_t w = lo; w < hi; w++)
				r[w] = sw[w] & src[w];
			trim(r, &lo, &hi);
		}
		rlo[j - wn->base] = lo;
		rhi[j - wn->base] = hi;
	}
	wn->fsplit = wn->bi;
	reset_back(wn);
}

static bool seg_bad(const struct win *wn, uint32_t j)
{
	const struct fw_tl *tl = wn->tl;
	const struct fw_search *s = wn->s;
	uint32_t e = tl->pool[j];

	if (s->pidx >= 0 &&
	    tl->pcnt[(size_t)e * tl->P + (uint32_t)s->pidx] < (int32_t)s->n)
		return true;
	for (uint32_t k = 0; k < s->nlics; k++)
		if (tl->lic[(size_t)e * tl->L + s->lics[k].idx] <
		    (int64_t)s->lics[k].count)
			return true;
	return false;
}

static bool count_at_least(const uint64_t *x, const uint64_t *mask,
			   uint32_t lo, uint32_t hi, uint32_t n)
{
	uint32_t c = 0;

	if (mask) {
		for (uint32_t w = lo; w < hi; w++)
			if ((c += fw_popcount64(x[w] & mask[w])) >= n)
				return true;
	} else {
		for (uint32_t w = lo; w < hi; w++)
			if ((c += fw_popcount64(x[w])) >= n)
				return true;
	}
	return c >= n;
}

/* X is only valid (and non-zero) in [xlo, xhi). */
static bool fits_any(const struct fw_search *s, const uint64_t *X)
{
	/* The caller checked req is inside E, so inside [lo, hi). */
	if (s->req) {
		for (uint32_t w = s->lo; w < s->hi; w++) {
			uint64_t x = (w >= s->xlo && w < s->xhi) ? X[w] : 0;

			if (s->req->w[w] & ~x)
				return false;
		}
	}
	return count_at_least(X, NULL, s->xlo, s->xhi, s->n);
}

static bool placement(const struct fw_tl *tl, struct fw_search *s,
		      const uint64_t *X, int32_t c)
{
	const struct fw_cluster *cl = tl->cl;

	if (s->fit == FW_FIT_ANY) {
		s->island = -1;
		return fits_any(s, X);
	}
	/* First island (by id) that holds the job: a monotone choice, so a
	 * job's placement never changes because others took nodes it does
	 * not use. */
	for (uint32_t k = 0; k < cl->nislands; k++) {
		const struct fw_cisland *is = &cl->islands[k];
		uint32_t lo = is->lo > s->xlo ? is->lo : s->xlo;
		uint32_t hi = is->hi < s->xhi ? is->hi : s->xhi;

		if (lo < hi && count_at_least(X, is->nodes->w, lo, hi, s->n)) {
			s->island = (int32_t)k;
			return true;
		}
	}
	if (s->any_at_zero && c == 0 && fits_any(s, X)) {
		s->island = -1;
		return true;
	}
	return false;
}

static int32_t add_sat(int32_t a, int32_t b)
{
	return (int64_t)a + b >= FW_TL_INF ? FW_TL_INF : a + b;
}

/* X = AND of the queue's segments (and E); sets s->xlo/xhi. */
static void aggregate(struct win *wn, uint64_t *X)
{
	struct fw_search *s = (struct fw_search *)wn->s;
	uint32_t lo = wn->blo, hi = wn->bhi;

	if (wn->qh < wn->fsplit) {
		const uint64_t *restrict r = row(wn, wn->qh);
		const uint64_t *restrict b = wn->sc->bacc;
		uint32_t k = wn->qh - wn->base;

		if (wn->sc->rlo[k] > lo)
			lo = wn->sc->rlo[k];
		if (wn->sc->rhi[k] < hi)
			hi = wn->sc->rhi[k];
		for (uint32_t w = lo; w < hi; w++)
			X[w] = r[w] & b[w];
	} else if (lo < hi) {
		memcpy(X + lo, wn->sc->bacc + lo, (hi - lo) * sizeof(uint64_t));
	}
	if (lo >= hi)
		lo = hi = 0;
	s->xlo = lo;
	s->xhi = hi;
}

/*
 * Try one candidate column by column: AND word w of every segment of the
 * window (stopping at the first zero) and stop as soon as n nodes are
 * found.  For small jobs on a large cluster this touches a few words
 * instead of the whole window; it is used for the first candidate of a
 * search that starts later than now (then the earliest start is often
 * exactly the lower bound the caller knows, and only the chosen nodes are
 * needed, not every free node).
 */
static bool quick_fit(const struct fw_tl *tl, struct fw_scratch *sc,
		      struct fw_search *s, int32_t c)
{
	const struct fw_cluster *cl = tl->cl;
	const uint64_t **sp;
	uint64_t *X = sc->X;
	uint32_t i = fw_tl_seg_at(tl, c), m = 0;
	int32_t need = s->L == FW_TL_INF ? FW_TL_INF : add_sat(c, s->L);
	struct win wn = { .tl = tl, .sc = sc, .s = s };
	uint32_t nisl = s->fit == FW_FIT_ANY ? 1 : cl->nislands;

	scratch_segp(sc, tl->nseg - i);
	sp = sc->segp;
	for (uint32_t k = i; k < tl->nseg && (k == i || tl->start[k] < need);
	     k++) {
		if (seg_bad(&wn, k))
			return false;
		sp[m++] = fw_tl_avail(tl, k);
	}
	for (uint32_t isl = 0; isl < nisl; isl++) {
		const uint64_t *mask = NULL;
		uint32_t lo = s->lo, hi = s->hi, cnt = 0;

		if (s->fit == FW_FIT_ISLAND) {
			const struct fw_cisland *is = &cl->islands[isl];

			mask = is->nodes->w;
			if (is->lo > lo)
				lo = is->lo;
			if (is->hi < hi)
				hi = is->hi;
		}
		for (uint32_t w = lo; w < hi; w++) {
			uint64_t x = s->E[w];

			if (mask)
				x &= mask[w];
			for (uint32_t t = 0; x && t < m; t++)
				x &= sp[t][w];
			X[w] = x;
			if ((cnt += fw_popcount64(x)) >= s->n) {
				s->xlo = lo;
				s->xhi = w + 1;
				s->island = mask ? (int32_t)isl : -1;
				return true;
			}
		}
	}
	return false;
}

int32_t fw_tl_search(const struct fw_tl *tl, struct fw_scratch *sc,
		     struct fw_search *s)
{
	struct win wn = { .tl = tl, .sc = sc, .s = s };
	uint64_t *X = sc->X;
	uint32_t i;
	int32_t c;

	s->c = -1;
	s->island = -1;
	s->xlo = s->xhi = 0;
	if (s->cmin > s->cmax || s->lo >= s->hi || s->n == 0)
		return -1;
	if (s->cmin > 0 && !s->req && !s->free_view &&
	    quick_fit(tl, sc, s, s->cmin)) {
		s->quick++;
		s->c = s->cmin;
		return s->c;
	}
	i = fw_tl_seg_at(tl, s->cmin);
	c = s->cmin;
	wn.qh = wn.fsplit = wn.bi = wn.base = i;
	reset_back(&wn);
	for (;;) {
		int32_t need;
		bool jumped = false;

		if (c > s->cmax)
			return -1;
		need = c == 0 ? s->L0 : (s->L == FW_TL_INF ? FW_TL_INF :
					 add_sat(c, s->L));
		if (i >= wn.bi) {
			/* Empty queue: start over at segment i. */
			wn.qh = wn.fsplit = wn.bi = wn.base = i;
			reset_back(&wn);
		} else {
			while (wn.qh < i) {
				if (wn.qh == wn.fsplit)
					rebuild_front(&wn);
				wn.qh++;
			}
		}
		while (wn.bi < tl->nseg && tl->start[wn.bi] < need) {
			if (seg_bad(&wn, wn.bi)) {
				/* No window containing this segment can
				 * work: next candidate is just after it. */
				if (wn.bi + 1 >= tl->nseg)
					return -1;
				i = wn.bi + 1;
				c = tl->start[i];
				jumped = true;
				break;
			}
			push_back(&wn, wn.bi);
			wn.bi++;
			s->segs_pushed++;
		}
		if (jumped)
			continue;
		aggregate(&wn, X);
		if (placement(tl, s, X, c)) {
			s->c = c;
			return c;
		}
		if (++i >= tl->nseg)
			return -1;
		c = tl->start[i];
	}
}

static bool lics_short(const struct fw_tl *tl, uint32_t i,
		       const struct fw_plan_lic *lics, uint32_t nlics)
{
	uint32_t e = tl->pool[i];

	for (uint32_t k = 0; k < nlics; k++)
		if (tl->lic[(size_t)e * tl->L + lics[k].idx] <
		    (int64_t)lics[k].count)
			return true;
	return false;
}

int32_t fw_tl_lics_earliest(const struct fw_tl *tl,
			    const struct fw_plan_lic *lics, uint32_t nlics,
			    int32_t cmin, int32_t cmax, int32_t L0, int32_t L)
{
	int32_t c = cmin;

	while (c <= cmax) {
		int32_t len = c == 0 ? L0 : L;
		int32_t end = len == FW_TL_INF ||
			      (int64_t)c + len >= FW_TL_INF ? FW_TL_INF :
			      c + len;
		uint32_t i = fw_tl_seg_at(tl, c);

		while (i < tl->nseg && tl->start[i] < end &&
		       !lics_short(tl, i, lics, nlics))
			i++;
		if (i >= tl->nseg || tl->start[i] >= end)
			return c;
		/* Every window starting before segment i ends covers it. */
		if (fw_tl_seg_end(tl, i) == FW_TL_INF)
			return -1;
		c = fw_tl_seg_end(tl, i);
	}
	return -1;
}
