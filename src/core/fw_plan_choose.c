/*
 * fw_plan_choose.c - which nodes a decided job gets (or is planned on),
 * bookings of protected reservations, and why a job cannot start now.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_plan_int.h"

/* ------------------------------------------------------------------ */
/* Node choice, reasons                                                */
/* ------------------------------------------------------------------ */

int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* choose_nodes' free nodes on a cluster with node weights: in (weight,
 * index) order, as Slurm allocates them. */
static uint32_t choose_by_weight(struct fw_plan *p, const struct cand *cd,
				 const uint64_t *im, const uint64_t *req,
				 uint32_t want)
{
	const uint64_t *X = p->sc.X;

	for (uint32_t k = 0; k < p->cl->nnodes && p->nsel < want; k++) {
		uint32_t b = p->cl->by_weight[k], w = b >> 6;
		uint64_t bit = UINT64_C(1) << (b & 63);

		if (w < cd->xlo || w >= cd->xhi || !(X[w] & bit) ||
		    (im && !(im[w] & bit)) || (req && (req[w] & bit)))
			continue;
		p->nodes->w[w] |= bit;
		p->sel[p->nsel++] = b;
	}
	qsort(p->sel, p->nsel, sizeof(*p->sel), u32_cmp);
	return p->nsel;
}

/*
 * nodes (and the sorted list sel) = the job's required nodes plus the
 * lowest free indices (inside the chosen island; with node weights the
 * lowest (weight, index)) up to `want`; with
 * `with_allowed` also allowed = every free node there (START_NOW).  Only
 * the words [xlo, xhi) of the search's X are looked at.  Returns the
 * number of nodes chosen.
 */
uint32_t choose_nodes(struct fw_plan *p, const struct cand *cd,
		      const struct fw_plan_job *j, uint32_t want,
		      bool with_allowed)
{
	const uint64_t *X = p->sc.X;
	const uint64_t *im = cd->island >= 0 ?
			     p->cl->islands[cd->island].nodes->w : NULL;
	const uint64_t *req = j->req_nodes ? j->req_nodes->w : NULL;
	int64_t i;

	fw_bitset_clear_all(p->nodes);
	p->nsel = 0;
	if (with_allowed) {
		fw_bitset_clear_all(p->allowed);
		for (uint32_t w = cd->xlo; w < cd->xhi; w++)
			p->allowed->w[w] = im ? X[w] & im[w] : X[w];
	}
	if (req) {
		FW_BITSET_FOREACH(j->req_nodes, i) {
			fw_bitset_set(p->nodes, (uint32_t)i);
			p->sel[p->nsel++] = (uint32_t)i;
		}
	}
	if (p->cl->by_weight)
		return choose_by_weight(p, cd, im, req, want);
	for (uint32_t w = cd->xlo; w < cd->xhi && p->nsel < want; w++) {
		uint64_t x = X[w];

		if (im)
			x &= im[w];
		if (req)
			x &= ~req[w];
		while (x && p->nsel < want) {
			uint32_t b = w * 64 + fw_ctz64(x);

			p->nodes->w[w] |= x & (~x + 1);
			p->sel[p->nsel++] = b;
			x &= x - 1;
		}
	}
	if (req)
		qsort(p->sel, p->nsel, sizeof(*p->sel), u32_cmp);
	return p->nsel;
}

/* p->nodes = the selection p->sel[0..nsel-1]. */
void sel_to_nodes(struct fw_plan *p)
{
	fw_bitset_clear_all(p->nodes);
	for (uint32_t k = 0; k < p->nsel; k++)
		fw_bitset_set(p->nodes, p->sel[k]);
}

/* Fitting candidates gathered beyond the nodes needed, inside the lowest
 * weight, so that select/cons_tres still chooses its own way among them. */
#define WEIGHT_ROOM 64

/*
 * The nodes of the share layer's candidates (p->sh->cand) but not of skip
 * (NULL: none) that have the job's amounts free over [a, b), into p->wsel
 * in (weight, index) order, as Slurm takes nodes: the first n, then up to
 * `room` more of the weight of the n-th.  Returns how many (fewer than n
 * when fewer fit).  One query of the timeline per weight asked
 * (fw_share_fit_at, with the search's filters), not a fit test per node:
 * on a cluster whose low-weight nodes are full, testing them one by one
 * for every job made a 10,000-node plan ten times slower.
 */
uint32_t pick_weighted(struct fw_plan *p, const struct fw_bitset *skip,
		       uint32_t n, uint32_t room, int32_t a, int32_t b)
{
	const struct fw_cluster *cl = p->cl;
	uint32_t got = 0;

	for (uint32_t k = 0; k < cl->nwclass && got < n; k++) {
		uint32_t ask = n - got + room;

		fw_bitset_copy(p->wcand, p->sh->cand);
		fw_bitset_and(p->wcand, cl->wclass[k]);
		if (skip)
			fw_bitset_andnot(p->wcand, skip);
		if (ask > cl->nnodes - got)
			ask = cl->nnodes - got;
		got += fw_share_fit_at(p->sh, p->wcand, ask, a, b,
				       p->wsel + got);
	}
	return got;
}

/*
 * choose_shared on a cluster whose nodes have different weights: Slurm
 * takes the lowest weights first, and the search's lowest indices (and
 * their 64-node blocks) would override the site's weights.  The nodes
 * are the job's required ones, then the candidates that fit for the
 * whole run in (weight, index) order; allowed = those plus up to
 * WEIGHT_ROOM further fitting candidates of the same weight as the last
 * one chosen.  The search found the job's nodes_min nodes among the
 * fitting candidates, so there are enough.
 */
static uint32_t choose_weighted(struct fw_plan *p, const struct fw_plan_job *j,
				const struct cand *cd, uint32_t want)
{
	uint32_t m, need;
	int64_t i;

	fw_bitset_clear_all(p->allowed);
	fw_bitset_clear_all(p->nodes);
	p->nsel = 0;
	if (j->req_nodes) {
		FW_BITSET_FOREACH(j->req_nodes, i) {
			fw_bitset_set(p->allowed, (uint32_t)i);
			fw_bitset_set(p->nodes, (uint32_t)i);
			p->sel[p->nsel++] = (uint32_t)i;
		}
	}
	need = p->nsel < want ? want - p->nsel : 0;
	m = need ? pick_weighted(p, j->req_nodes, need, WEIGHT_ROOM, 0,
				 cd->L0) : 0;
	for (uint32_t k = 0; k < m; k++) {
		uint32_t b = p->wsel[k];

		fw_bitset_set(p->allowed, b);
		if (k < need) {
			fw_bitset_set(p->nodes, b);
			p->sel[p->nsel++] = b;
		}
	}
	qsort(p->sel, p->nsel, sizeof(*p->sel), u32_cmp);
	return p->nsel;
}

/*
 * A node-sharing job starting now: nodes = the search's choice, widened up
 * to `want`; allowed = the candidate nodes (inside the chosen island) that
 * have the job's amounts free for its whole run, looked for only in the
 * 64-node blocks of the chosen nodes: enough room for the select plugin to
 * place the job its own way, at a cost that does not grow with the
 * cluster (a scan of every node per start made a 10,000-node pass of
 * 1,000 small jobs cost 200 ms).  With node weights: choose_weighted.
 */
uint32_t choose_shared(struct fw_plan *p, const struct cand *cd,
		       const struct fw_plan_job *j, uint32_t want)
{
	const uint64_t *cw = p->sh->cand->w;
	uint32_t last = UINT32_MAX;
	int64_t i;

	shared_cand(p, cd, cd->island);
	shared_view(p, j);
	if (p->cl->by_weight)
		return choose_weighted(p, j, cd, want);
	fw_bitset_clear_all(p->allowed);
	for (uint32_t k = 0; k < p->nsel; k++) {
		uint32_t w = p->sel[k] >> 6;
		uint64_t x = cw[w];

		if (w == last)
			continue;
		last = w;
		for (; x; x &= x - 1) {
			uint32_t b = w * 64 + fw_ctz64(x);

			if (fw_share_fits(p->sh, b, 0, cd->L0))
				fw_bitset_set(p->allowed, b);
		}
	}
	sel_to_nodes(p);
	FW_BITSET_FOREACH(p->allowed, i) {
		if (p->nsel >= want)
			break;
		if (!fw_bitset_test(p->nodes, (uint32_t)i)) {
			fw_bitset_set(p->nodes, (uint32_t)i);
			p->sel[p->nsel++] = (uint32_t)i;
		}
	}
	qsort(p->sel, p->nsel, sizeof(*p->sel), u32_cmp);
	return p->nsel;
}

/* A protected reservation (or start) of the selection over [a, b): the
 * job's amounts per node for a sharing job, whole nodes otherwise. */
void book_sel(struct fw_plan *p, const struct fw_plan_job *j,
	      uint32_t seq, bool shared, int32_t a, int32_t b)
{
	struct fw_share_owner o = { FW_HOLD_PLANNED, seq };

	if (p->sh && shared) {
		fw_share_set_req(p->sh, j);
		for (uint32_t k = 0; k < p->nsel; k++)
			fw_share_take(p->sh, p->sel[k], a, b, p->sh->req, o);
	} else if (p->sh) {
		fw_share_take_all_set(p->sh, p->nodes, a, b, o);
	}
	fw_tl_occupy_words(&p->tl, p->nodes->w,
			   p->nsel ? p->sel[0] >> 6 : 0,
			   p->nsel ? (p->sel[p->nsel - 1] >> 6) + 1 : 0,
			   a, b, j->lics, j->nlics, FW_TL_AVAIL | FW_TL_FREE);
}

bool spans_islands(const struct fw_plan *p)
{
	const struct fw_cluster *cl = p->cl;

	for (uint32_t k = 1; k < p->nsel; k++)
		if (cl->nodes[p->sel[k]].island_idx !=
		    cl->nodes[p->sel[0]].island_idx)
			return true;
	return false;
}

static uint32_t count_words(const uint64_t *x, uint32_t lo, uint32_t hi)
{
	uint32_t c = 0;

	for (uint32_t w = lo; w < hi; w++)
		c += fw_popcount64(x[w]);
	return c;
}

/* Resources, or GPUs for a job that needs GPUs or other GRES. */
static enum fw_plan_reason busy_reason(const struct fw_plan_job *j)
{
	return j->gpus_per_node || j->ngres ? FW_REASON_GPUS : FW_REASON_NODES;
}

/*
 * Why can a node-sharing job not start now?  Its nodes lack the amounts it
 * needs (Resources; GPUs for a GRES job), or in the main pass it would fit
 * on nodes that a higher-priority job blocked (Priority).
 */
static void classify_shared(struct fw_plan *p, const struct fw_plan_job *j,
			    const struct cand *cd, enum fw_plan_pass pass,
			    struct fw_plan_decision *d)
{
	uint32_t fit = 0, lo, hi;

	d->reason = busy_reason(j);
	if (pass != FW_PASS_MAIN || cd->Eb == cd->E)
		return;
	shared_view(p, j);
	fw_share_set_req(p->sh, j);
	fw_bitset_word_range(p->Eb, &lo, &hi);
	for (uint32_t w = lo; w < hi; w++) {
		uint64_t x = cd->Eb[w];

		for (; x; x &= x - 1) {
			uint32_t i = w * 64 + fw_ctz64(x);

			if (fw_share_fits(p->sh, i, 0, cd->L0) &&
			    ++fit >= j->nodes_min) {
				d->reason = FW_REASON_PRIORITY;
				return;
			}
		}
	}
}

/* Idle nodes the job could use, per class: counted once for every change
 * of the idle set (a long queue repeats a few classes).  True when that
 * alone explains the wait (d->reason set). */
static bool class_reason(struct fw_plan *p, const struct fw_plan_job *j,
			 const struct cand *cd, enum fw_plan_pass pass,
			 struct fw_plan_decision *d)
{
	struct eclass *ec = &p->ec[cd->cls];

	if (ec->idle_gen != p->idle_gen) {
		ec->idle_cnt = 0;
		for (uint32_t w = cd->lo; w < cd->hi; w++)
			ec->idle_cnt += fw_popcount64(p->idle->w[w] &
						      cd->Eb[w]);
		ec->idle_gen = p->idle_gen;
	}
	if (ec->idle_cnt < j->nodes_min) {
		d->reason = busy_reason(j);
		return true;
	}
	/* Outside the window only the kind of reason is kept: the blocker
	 * walk is for jobs with a start. */
	if (pass == FW_PASS_BACKFILL && !p->nresv &&
	    d->kind == FW_PLAN_NOT_IN_WINDOW) {
		d->reason = FW_REASON_RESERVED;
		return true;
	}
	return false;
}

/*
 * Walk the protected reservations overlapping [now, end) in priority
 * order over Y (cnt idle usable nodes of the job); the one after which
 * too few nodes or licenses are left is the blocker.
 */
static void find_blocker(struct fw_plan *p, const struct fw_plan_job *j,
			 const struct cand *cd, uint64_t *Y, uint32_t lo,
			 uint32_t hi, uint32_t cnt, struct fw_plan_decision *d)
{
	int64_t need_left[16];
	uint32_t nl = j->nlics < 16 ? j->nlics : 16;

	for (uint32_t k = 0; k < nl; k++)
		need_left[k] = p->lic_idle[j->lics[k].idx];
	for (uint32_t r = 0; r < p->nrr; r++) {
		const struct rrec *rv = &p->rr[r];
		bool short_lic = false;

		if (rv->a >= cd->L0)
			continue;
		for (uint32_t k = 0; k < rv->nidx; k++) {
			uint32_t w = rv->idx[k] >> 6;
			uint64_t bit = (uint64_t)1 << (rv->idx[k] & 63);

			if (w >= lo && w < hi && (Y[w] & bit)) {
				cnt--;
				Y[w] &= ~bit;
			}
		}
		for (uint32_t k = 0; k < nl; k++)
			for (uint32_t m = 0; m < rv->nlics; m++)
				if (rv->lics[m].idx == j->lics[k].idx &&
				    (need_left[k] -= rv->lics[m].count) <
				    (int64_t)j->lics[k].count)
					short_lic = true;
		if (cnt < j->nodes_min || short_lic) {
			d->reason = FW_REASON_RESERVED;
			d->blocker = (int32_t)rv->seq;
			return;
		}
	}
	d->reason = cd->fit == FW_FIT_ISLAND ? FW_REASON_TOPOLOGY :
		    FW_REASON_NODES;
}

/*
 * Why can the job not start now?  Looked at in the "run view": what is
 * idle now (running and started jobs, down nodes), then what advanced
 * reservations take, then (backfill) which protected reservation -- in
 * priority order -- takes the last nodes or licenses the job would need.
 */
void classify(struct fw_plan *p, const struct fw_plan_job *j,
	      const struct cand *cd, enum fw_plan_pass pass,
	      struct fw_plan_decision *d)
{
	const struct advres *R = j->resv >= 0 ? &p->resv[j->resv] : NULL;
	uint32_t n = j->nodes_min, lo = cd->lo, hi = cd->hi, cnt;
	uint64_t *Y = p->tmp->w;

	for (uint32_t k = 0; k < j->nlics; k++)
		if (p->lic_idle[j->lics[k].idx] < (int64_t)j->lics[k].count) {
			d->reason = FW_REASON_LICENSE;
			d->blocker_lic = (int32_t)j->lics[k].idx;
			return;
		}
	if (R && R->a > 0) {
		d->reason = FW_REASON_RESV_TIME;
		return;
	}
	if (cd->shared)
		return classify_shared(p, j, cd, pass, d);
	if (cd->cls >= 0 && class_reason(p, j, cd, pass, d))
		return;
	/* Eb: the job's nodes before main-pass blocking; its word range
	 * may be wider than [lo, hi) of the blocked set. */
	if (cd->Eb != cd->E)
		fw_bitset_word_range(p->Eb, &lo, &hi);
	for (uint32_t w = lo; w < hi; w++)
		Y[w] = p->idle->w[w] & cd->Eb[w];
	if (count_words(Y, lo, hi) < n) {
		d->reason = busy_reason(j);
		return;
	}
	for (uint32_t r = 0; r < p->nresv; r++) {
		const struct advres *rv = &p->resv[r];

		if ((int32_t)r == j->resv || rv->partial || rv->b <= 0 ||
		    rv->a >= cd->L0)
			continue;
		for (uint32_t w = lo; w < hi; w++)
			Y[w] &= ~rv->nodes->w[w];
	}
	if ((cnt = count_words(Y, lo, hi)) < n) {
		d->reason = FW_REASON_ADV_RESV;
		return;
	}
	if (pass == FW_PASS_MAIN) {
		uint32_t c2 = 0;

		for (uint32_t w = lo; w < hi; w++)
			c2 += fw_popcount64(Y[w] & ~p->blocked->w[w]);
		d->reason = c2 < n ? FW_REASON_PRIORITY :
			    cd->fit == FW_FIT_ISLAND ? FW_REASON_TOPOLOGY :
			    FW_REASON_NODES;
		return;
	}
	if (d->kind == FW_PLAN_NOT_IN_WINDOW) {
		d->reason = FW_REASON_RESERVED;
		return;
	}
	find_blocker(p, j, cd, Y, lo, hi, cnt, d);
}

