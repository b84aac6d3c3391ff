/*
 * fw_plan_share.c - the plan's shared-node layer: per-node CPUs, memory,
 * GPUs and GRES over time (see fw_plan_share.h for how it sits beside the
 * whole-node timeline).
 *
 * Everything here is a thin mapping from the planner's job and node terms
 * to fw_rtl's K amounts; the timeline and its search are fw_rtl's.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "fw_plan_share.h"

struct shr_book {
	int32_t a, b;
	struct fw_share_owner o;
	uint32_t node;
	bool whole;		/* everything free (amounts unused) */
	int32_t next;		/* older booking of the same node, -1 */
};

static int u32_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

struct shr_ent {
	uint64_t h;
	uint32_t cls, n;
	int64_t d;
	uint64_t gen;
	int32_t c;
	uint8_t fit, used;
};

void fw_share_node_capacity(const struct fw_cluster *cl, uint32_t i,
			    int64_t *cap)
{
	const struct fw_cnode *n = &cl->nodes[i];

	cap[FW_SHR_CPU] = n->cpus;
	cap[FW_SHR_MEM] = (int64_t)n->mem_mb;
	cap[FW_SHR_GPU] = n->gpus;
	for (uint32_t g = 0; g < cl->ngres; g++)
		cap[FW_SHR_GRES0 + g] = n->gres ? (int64_t)n->gres[g] : 0;
}

/*
 * A plan with more bookings after slot 0 than twice its nodes (a
 * couple of planned jobs ahead on every node, as conservative backfill of
 * a long queue makes) is deep: its timelines get finer buckets
 * (fw_rtl_refine), which cost more per booking but let far fewer nodes
 * through the search filters; past six times, finer again.  Measured
 * on bench_plan shared (doc/perf-plan.md, "Finer buckets for deep
 * plans"): at 10,000 nodes the 30,000-job queue, with 21,339 such
 * bookings, is about the break-even of the first step; shorter queues
 * and EASY never get there.
 */
static const uint32_t deep_per_node[] = { 2, 6 };

/* The count of later bookings at which the timelines are refined next. */
static uint32_t next_deep_at(const struct fw_share *s)
{
	uint64_t x;

	if (s->deep >= sizeof(deep_per_node) / sizeof(deep_per_node[0]))
		return UINT32_MAX;
	x = (uint64_t)deep_per_node[s->deep] * s->cl->nnodes;
	return x < UINT32_MAX ? (uint32_t)x : UINT32_MAX;
}

struct fw_share *fw_share_new(const struct fw_cluster *cl, int32_t wslots)
{
	struct fw_share *s = fw_xcalloc(1, sizeof(*s));

	s->cl = cl;
	s->K = FW_SHR_GRES0 + cl->ngres;
	s->wslots = wslots;
	s->deep_at = next_deep_at(s);
	s->req = fw_xcalloc(s->K, sizeof(int64_t));
	s->amt = fw_xcalloc(s->K, sizeof(int64_t));
	s->fmin = fw_xcalloc(s->K, sizeof(int64_t));
	s->cand = fw_bitset_new(cl->nnodes);
	s->inexact = fw_bitset_new(cl->nnodes);
	s->chk = fw_xcalloc(s->K, sizeof(int64_t));
	s->sel = fw_xmalloc((cl->nnodes ? cl->nnodes : 1) * sizeof(uint32_t));
	s->head = fw_xmalloc((cl->nnodes ? cl->nnodes : 1) * sizeof(int32_t));
	for (uint32_t i = 0; i < cl->nnodes; i++)
		s->head[i] = -1;
	return s;
}

void fw_share_free(struct fw_share *s)
{
	if (!s)
		return;
	fw_rtl_free(s->rtl);
	free(s->req);
	free(s->amt);
	free(s->fmin);
	fw_bitset_free(s->cand);
	fw_bitset_free(s->inexact);
	free(s->chk);
	free(s->nowcap);
	free(s->capped);
	free(s->cap_until);
	fw_bitset_free(s->cand_later);
	fw_bitset_free(s->nowok);
	fw_bitset_free(s->cand_now);
	free(s->sel);
	free(s->memo);
	free(s->memo_req);
	free(s->dom);
	free(s->dom_req);
	free(s->book);
	free(s->book_amt);
	free(s->head);
	for (uint32_t v = 0; v < s->nviews; v++) {
		fw_rtl_free(s->views[v].rtl);
		fw_bitset_free(s->views[v].nodes);
	}
	free(s->views);
	free(s);
}

bool fw_share_job(const struct fw_cluster *cl, const struct fw_plan_job *j,
		  int32_t q)
{
	return fw_cluster_jobs_share(cl) && !j->exclusive &&
	       !cl->parts[q].whole_nodes;
}

/* Does s->req ask more of node than one job can get there now? */
static bool over_now_cap(const struct fw_share *s, uint32_t node)
{
	const int64_t *cap = s->nowcap + (size_t)node * s->K;

	for (uint32_t k = 0; k < s->K; k++)
		if (cap[k] >= 0 && s->req[k] > cap[k])
			return true;
	return false;
}

/* s->nowok for s->req: only built when a limit rules some node out. */
static void now_filter(struct fw_share *s)
{
	s->nowok_on = false;
	for (uint32_t m = 0; m < s->ncapped; m++) {
		if (!over_now_cap(s, s->capped[m]))
			continue;
		if (!s->nowok_on) {
			fw_bitset_set_all(s->nowok);
			s->nowok_on = true;
		}
		fw_bitset_clear(s->nowok, s->capped[m]);
	}
}

void fw_share_set_req(struct fw_share *s, const struct fw_plan_job *j)
{
	memset(s->req, 0, s->K * sizeof(int64_t));
	s->req[FW_SHR_CPU] = j->cpus_per_node;
	s->req[FW_SHR_MEM] = (int64_t)j->mem_per_node_mb;
	s->req[FW_SHR_GPU] = j->gpus_per_node;
	for (uint32_t g = 0; g < j->ngres; g++)
		if (j->gres[g].idx < s->cl->ngres)
			s->req[FW_SHR_GRES0 + j->gres[g].idx] +=
				(int64_t)j->gres[g].count;
	if (s->ncapped)
		now_filter(s);
}

static bool has_limit(const struct fw_share *s, const int64_t *row)
{
	for (uint32_t k = 0; k < s->K; k++)
		if (row[k] >= 0)
			return true;
	return false;
}

void fw_share_now_cap(struct fw_share *s, uint32_t node, const int64_t *cap)
{
	uint32_t n = s->cl->nnodes;
	int64_t *row;

	if (node >= n)
		return;
	if (!s->nowcap) {
		s->nowcap = fw_xmalloc((size_t)n * s->K * sizeof(int64_t));
		for (size_t k = 0; k < (size_t)n * s->K; k++)
			s->nowcap[k] = -1;
		s->capped = fw_xmalloc(n * sizeof(uint32_t));
		s->nowok = fw_bitset_new(n);
		s->cand_now = fw_bitset_new(n);
		s->cand_later = fw_bitset_new(n);
		s->cap_until = fw_xmalloc(n * sizeof(int32_t));
	}
	row = s->nowcap + (size_t)node * s->K;
	/* a node enters the list with its first limit, and stays */
	if (!has_limit(s, row) && has_limit(s, cap))
		s->capped[s->ncapped++] = node;
	memcpy(row, cap, s->K * sizeof(int64_t));
}

void fw_share_use_amounts(const struct fw_share *s,
			  const struct fw_node_use *u, int64_t *out)
{
	memset(out, 0, s->K * sizeof(int64_t));
	out[FW_SHR_CPU] = u->cpus;
	out[FW_SHR_MEM] = (int64_t)u->mem_mb;
	out[FW_SHR_GPU] = u->gpus;
	for (uint32_t g = 0; g < u->ngres; g++)
		if (u->gres[g].idx < s->cl->ngres)
			out[FW_SHR_GRES0 + u->gres[g].idx] +=
				(int64_t)u->gres[g].count;
}

/* Book on one timeline: up to amt (whole: everything free). */
/* Would a booking on the main timeline take less than it asks for (a
 * whole one: anything of the node already taken during [a, b))? */
static bool takes_less(struct fw_share *s, uint32_t node, int32_t a,
		       int32_t b, const int64_t *amt, bool whole)
{
	if (!whole)
		return !fw_rtl_fits(s->rtl, node, a, b, amt);
	fw_rtl_capacity(s->rtl, node, s->chk);
	return !fw_rtl_fits(s->rtl, node, a, b, s->chk);
}

static void book_on(struct fw_share *s, struct fw_rtl *r, uint32_t node,
		    int32_t a, int32_t b, const int64_t *amt, bool whole)
{
	/* On the main timeline (also while it is replayed on first use):
	 * a node whose bookings were clamped is inexact for preemption. */
	if (r == s->rtl && !fw_bitset_test(s->inexact, node) &&
	    takes_less(s, node, a, b, amt, whole))
		fw_bitset_set(s->inexact, node);
	if (whole) {
		fw_rtl_capacity(r, node, s->fmin);
		amt = s->fmin;
	}
	fw_rtl_take_upto(r, node, a, b, amt);
}

static void log_booking(struct fw_share *s, uint32_t node, int32_t a,
			int32_t b, const int64_t *amt, bool whole,
			struct fw_share_owner o)
{
	struct shr_book *k;

	if (s->nbook == s->capbook) {
		s->capbook = s->capbook ? s->capbook * 2 : 256;
		s->book = fw_xrealloc(s->book, s->capbook * sizeof(*s->book));
		s->book_amt = fw_xrealloc(s->book_amt, (size_t)s->capbook *
					  s->K * sizeof(int64_t));
	}
	k = &s->book[s->nbook];
	k->a = a;
	k->b = b;
	k->o = o;
	k->whole = whole;
	k->node = node;
	memcpy(s->book_amt + (size_t)s->nbook * s->K, amt,
	       s->K * sizeof(int64_t));
	k->next = s->head[node];
	s->head[node] = (int32_t)s->nbook++;
}

static void deepen(struct fw_share *s)
{
	s->deep++;
	s->deep_at = next_deep_at(s);
	if (s->rtl)
		fw_rtl_refine(s->rtl);
	for (uint32_t v = 0; v < s->nviews; v++)
		fw_rtl_refine(s->views[v].rtl);
}

static struct fw_rtl *new_timeline(const struct fw_share *s)
{
	struct fw_rtl *r = fw_rtl_new(s->cl->nnodes, s->K, s->wslots);

	for (uint32_t k = 0; k < s->deep; k++)
		fw_rtl_refine(r);
	return r;
}

/* A booking on the main timeline and on every view that has the node. */
static void book(struct fw_share *s, uint32_t node, int32_t a, int32_t b,
		 const int64_t *amt, bool whole, struct fw_share_owner o)
{
	if (node >= s->cl->nnodes || b <= a)
		return;
	if (a > 0 && ++s->nlater >= s->deep_at)
		deepen(s);
	log_booking(s, node, a, b, amt, whole, o);
	if (s->rtl)
		book_on(s, s->rtl, node, a, b, amt, whole);
	for (uint32_t v = 0; v < s->nviews; v++)
		if (fw_bitset_test(s->views[v].nodes, node))
			book_on(s, s->views[v].rtl, node, a, b, amt, whole);
}

void fw_share_take(struct fw_share *s, uint32_t node, int32_t a, int32_t b,
		   const int64_t *amt, struct fw_share_owner o)
{
	for (uint32_t k = 0; k < s->K; k++)
		s->amt[k] = amt[k] > 0 ? amt[k] : 0;
	book(s, node, a, b, s->amt, false, o);
}

void fw_share_take_all(struct fw_share *s, uint32_t node, int32_t a,
		       int32_t b, struct fw_share_owner o)
{
	memset(s->amt, 0, s->K * sizeof(int64_t));
	book(s, node, a, b, s->amt, true, o);
}

/*
 * A timeline of `nodes` (NULL: every node) at their capacity with every
 * booking on them replayed in order, except the holds of advanced
 * reservation `skip` (-1: none).  The main timeline is built this way on
 * first use (a pass whose jobs all want whole nodes never needs it), and
 * the view of a reservation for its own jobs, which see what the other
 * jobs leave them and share its nodes.
 */
static struct fw_rtl *replay(struct fw_share *s, struct fw_rtl *r,
			     int32_t skip, const struct fw_bitset *nodes)
{
	uint32_t *idx = NULL, n = 0, cap = 0;

	fw_rtl_bulk_begin(r);	/* one table rebuild instead of one per booking */
	for (uint32_t i = 0; i < s->cl->nnodes; i++) {
		if (nodes && !fw_bitset_test(nodes, i))
			continue;
		fw_share_node_capacity(s->cl, i, s->fmin);
		fw_rtl_set_capacity(r, i, s->fmin);
		/* The bookings of a reservation's nodes, to put in order. */
		for (int32_t k = nodes ? s->head[i] : -1; k >= 0;
		     k = s->book[k].next) {
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				idx = fw_xrealloc(idx, cap * sizeof(*idx));
			}
			idx[n++] = (uint32_t)k;
		}
	}
	if (nodes)
		qsort(idx, n, sizeof(*idx), u32_order);
	else
		n = s->nbook;
	for (uint32_t m = 0; m < n; m++) {
		uint32_t b = nodes ? idx[m] : m;
		const struct shr_book *k = &s->book[b];

		if (k->o.kind == FW_HOLD_RESV && k->o.id == (uint32_t)skip)
			continue;
		book_on(s, r, k->node, k->a, k->b,
			s->book_amt + (size_t)b * s->K, k->whole);
	}
	free(idx);
	fw_rtl_bulk_end(r);
	return r;
}

void fw_share_use_view(struct fw_share *s, int32_t resv,
		       const struct fw_bitset *nodes)
{
	if (!s->rtl) {
		s->rtl = new_timeline(s);
		replay(s, s->rtl, -1, NULL);
	}
	s->cur = s->rtl;
	if (resv < 0)
		return;
	for (uint32_t v = 0; v < s->nviews; v++)
		if (s->views[v].resv == resv) {
			s->cur = s->views[v].rtl;
			return;
		}
	s->views = fw_xrealloc(s->views, (s->nviews + 1) * sizeof(*s->views));
	s->views[s->nviews].resv = resv;
	s->views[s->nviews].nodes = fw_bitset_dup(nodes);
	s->views[s->nviews].rtl = replay(s, new_timeline(s), resv, nodes);
	s->cur = s->views[s->nviews++].rtl;
}

void fw_share_take_all_set(struct fw_share *s, const struct fw_bitset *nodes,
			   int32_t a, int32_t b, struct fw_share_owner o)
{
	int64_t i;

	FW_BITSET_FOREACH(nodes, i) {
		if ((uint32_t)i >= s->cl->nnodes)
			break;
		fw_share_take_all(s, (uint32_t)i, a, b, o);
	}
}

static void forget(struct fw_share *s)
{
	if (s->memo_cap)
		memset(s->memo, 0, s->memo_cap * sizeof(*s->memo));
	s->memo_n = 0;
	s->dom_n = s->dom_next = 0;
}

void fw_share_release(struct fw_share *s, uint32_t node, int32_t a,
		      int32_t b, const int64_t *amt, struct fw_share_owner o)
{
	if (node >= s->cl->nnodes || b <= a)
		return;
	if (s->rtl)
		(void)fw_rtl_give(s->rtl, node, a, b, amt);
	for (uint32_t v = 0; v < s->nviews; v++)
		if (fw_bitset_test(s->views[v].nodes, node))
			(void)fw_rtl_give(s->views[v].rtl, node, a, b, amt);
	for (int32_t k = s->head[node]; k >= 0; k = s->book[k].next) {
		struct shr_book *bk = &s->book[k];

		if (bk->o.kind == o.kind && bk->o.id == o.id && bk->a <= a &&
		    bk->b > a)
			bk->b = a;
	}
	forget(s);
}

static bool have_holder(const struct fw_share *s, uint32_t n,
			struct fw_share_owner o)
{
	for (uint32_t k = 0; k < n; k++)
		if (s->hold[k].kind == o.kind && s->hold[k].id == o.id)
			return true;
	return false;
}

uint32_t fw_share_holders(struct fw_share *s, const uint32_t *sel,
			  uint32_t n, int32_t c)
{
	uint32_t nh = 0;

	for (uint32_t m = 0; m < n && c > 0; m++)
		for (int32_t k = s->head[sel[m]]; k >= 0; k = s->book[k].next) {
			const struct shr_book *b = &s->book[k];

			/* Clamped like the timeline: b past W is forever. */
			if (b->a > c - 1 || b->b <= c - 1 ||
			    have_holder(s, nh, b->o))
				continue;
			if (nh == FW_PLAN_MAX_HOLDERS)
				return nh;
			s->hold[nh].kind = b->o.kind;
			s->hold[nh].id = b->o.id;
			s->hold[nh].node = sel[m];
			nh++;
		}
	return nh;
}

/* A timeline query for s->req on n nodes of cand for d slots, answers
 * into out. */
static void query_init(const struct fw_share *s, struct fw_rtl_query *q,
		       const struct fw_bitset *cand, uint32_t n, int32_t d,
		       uint32_t *out)
{
	memset(q, 0, sizeof(*q));
	q->cand = cand;
	q->n = n;
	q->req = s->req;
	q->d = d;
	q->nodes = out;
}

static int32_t search(struct fw_share *s, const struct fw_bitset *cand,
		      uint32_t n, int32_t d, int32_t smin, int32_t smax)
{
	struct fw_rtl_query q;

	query_init(s, &q, cand, n, d, s->sel);
	q.smin = smin;
	q.smax = smax;
	s->searches++;
	fw_rtl_earliest(s->cur, &q);
	s->nodes_scanned += q.nodes_scanned;
	s->nsel = q.start >= 0 ? n : 0;
	return q.start;
}

/*
 * Until which slot s->req cannot start on node because of its limits
 * (fw_share_now_cap): 0 when it is within them.  They come from the use
 * of the node's devices by the jobs running there (and those started in
 * this pass: booked from slot 0), which does not change before the first
 * of them ends: the first end among the bookings from slot 0 with an
 * amount of a limited resource (later bookings only take more).  After
 * it, the node is planned from its totals again.
 */
static int32_t blocked_until(const struct fw_share *s, uint32_t node)
{
	const int64_t *cap = s->nowcap + (size_t)node * s->K;
	int32_t until = FW_RTL_INF;

	if (!over_now_cap(s, node))
		return 0;
	for (int32_t k = s->head[node]; k >= 0; k = s->book[k].next) {
		const struct shr_book *b = &s->book[k];
		const int64_t *amt = s->book_amt + (size_t)k * s->K;

		if (b->o.kind == FW_HOLD_RESV || b->a > 0 || b->b >= until)
			continue;
		for (uint32_t r = 0; r < s->K; r++)
			if (cap[r] >= 0 && (b->whole || amt[r] > 0)) {
				until = b->b;
				break;
			}
	}
	return until < 1 ? 1 : until;
}

bool fw_share_fits(const struct fw_share *s, uint32_t node, int32_t a,
		   int32_t b)
{
	if (s->nowcap && over_now_cap(s, node) &&
	    (a == 0 || a < blocked_until(s, node)))
		return false;
	return fw_rtl_fits(s->cur, node, a, b, s->req);
}

static uint32_t fit_query(struct fw_share *s, const struct fw_bitset *cand,
			  uint32_t n, int32_t a, int32_t b, uint32_t *out)
{
	struct fw_rtl_query q;
	uint32_t got;

	query_init(s, &q, cand, n,
		   b == FW_RTL_INF ? FW_RTL_INF : b > a ? b - a : 1, out);
	got = fw_rtl_fit_at(s->cur, &q, a);
	s->nodes_scanned += q.nodes_scanned;
	return got;
}

uint32_t fw_share_fit_at(struct fw_share *s, const struct fw_bitset *cand,
			 uint32_t n, int32_t a, int32_t b, uint32_t *out)
{
	struct fw_bitset *c = s->cand_later;
	uint32_t got;
	bool dropped;

	if (!s->nowok_on)
		return fit_query(s, cand, n, a, b, out);
	/* Nodes held back by their limits (fw_share_now_cap): at slot 0
	 * every node over its limit is; later, those whose devices are not
	 * free yet (blocked_until), found among the answers and left out. */
	if (cand)
		fw_bitset_copy(c, cand);
	else
		fw_bitset_set_all(c);
	if (a == 0)
		fw_bitset_and(c, s->nowok);
	do {
		got = fit_query(s, c, n, a, b, out);
		dropped = false;
		for (uint32_t k = 0; a > 0 && k < got; k++)
			if (!fw_share_fits(s, out[k], a, b)) {
				fw_bitset_clear(c, out[k]);
				dropped = true;
			}
	} while (dropped);
	return got;
}

/* cand (NULL: every node) without the nodes whose limits s->req exceeds:
 * s->nowok itself, or s->cand_now. */
static const struct fw_bitset *within_limits(struct fw_share *s,
					     const struct fw_bitset *cand)
{
	if (!cand)
		return s->nowok;
	fw_bitset_copy(s->cand_now, cand);
	fw_bitset_and(s->cand_now, s->nowok);
	return s->cand_now;
}

/*
 * One node (most jobs) above some nodes' limits: the earliest start among
 * the nodes within their limits (one search), then each limited node of
 * cand from its blocked_until() on, by a walk of its own timeline, while
 * that can still beat the start found (ties to the lower node, as the
 * search).  The timeline is not changed: taking what limited nodes had
 * free and giving it back around each search cost 5 times the plan on a
 * busy GPU cluster (doc/perf-plan.md).
 */
static int32_t earliest_one_capped(struct fw_share *s,
				   const struct fw_bitset *cand, int32_t d,
				   int32_t cmin, int32_t cmax)
{
	int32_t best = search(s, within_limits(s, cand), 1, d, cmin, cmax);
	uint32_t bnode = UINT32_MAX;

	if (best >= 0)
		bnode = s->sel[0];
	for (uint32_t m = 0; m < s->ncapped; m++) {
		uint32_t node = s->capped[m];
		int32_t until, from, to, f;

		if ((cand && !fw_bitset_test(cand, node)) ||
		    !(until = blocked_until(s, node)) || until == FW_RTL_INF)
			continue;
		from = until > cmin ? until : cmin;
		to = best >= 0 && best < cmax ? best : cmax;
		if (from > to)
			continue;
		f = fw_rtl_node_earliest(s->cur, node, s->req, d, from, to);
		if (f >= 0 && (best < 0 || f < best ||
			       (f == best && node < bnode))) {
			best = f;
			bnode = node;
		}
	}
	s->nsel = best >= 0 ? 1 : 0;
	if (best >= 0)
		s->sel[0] = bnode;
	return best;
}

#define SHR_UNTIL_GROUPS 16

static int i32_order(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The distinct (finite) blocked_until() slots of the limited nodes of
 * cand, ascending, into g[]; at most SHR_UNTIL_GROUPS of them: with more,
 * every SHR_UNTIL_GROUPS-th quantile and the last, so that a node is held
 * until the first of them at or after its own (a little longer: an
 * over-estimate).  s->cap_until[m] gets the slot capped[m] is held until
 * (0: within its limits); nodes limited for ever leave s->cand_later.
 */
static uint32_t until_groups(struct fw_share *s, int32_t *g)
{
	int32_t *u = fw_xmalloc((s->ncapped + 1) * sizeof(*u));
	uint32_t nu = 0, nd = 0, ng;

	for (uint32_t m = 0; m < s->ncapped; m++) {
		uint32_t node = s->capped[m];

		s->cap_until[m] = fw_bitset_test(s->cand_later, node) ?
				  blocked_until(s, node) : 0;
		if (s->cap_until[m] == FW_RTL_INF) {
			fw_bitset_clear(s->cand_later, node);
			s->cap_until[m] = 0;
		} else if (s->cap_until[m]) {
			u[nu++] = s->cap_until[m];
		}
	}
	qsort(u, nu, sizeof(*u), i32_order);
	for (uint32_t k = 0; k < nu; k++)
		if (k == 0 || u[k] != u[k - 1])
			u[nd++] = u[k];
	ng = nd < SHR_UNTIL_GROUPS ? nd : SHR_UNTIL_GROUPS;
	for (uint32_t k = 0; k < ng; k++)
		g[k] = nd <= SHR_UNTIL_GROUPS ? u[k] :
		       u[(uint64_t)(k + 1) * nd / SHR_UNTIL_GROUPS - 1];
	free(u);
	for (uint32_t m = 0; m < s->ncapped; m++) {
		uint32_t k = 0;

		while (s->cap_until[m] && k < ng && g[k] < s->cap_until[m])
			k++;	/* its group's slot */
		if (s->cap_until[m])
			s->cap_until[m] = g[k];
	}
	return ng;
}

/* Adds to s->cand_now the limited nodes of s->cand_later free by slot t. */
static void allow_until(struct fw_share *s, int32_t t)
{
	for (uint32_t m = 0; m < s->ncapped; m++)
		if (s->cap_until[m] && s->cap_until[m] <= t &&
		    fw_bitset_test(s->cand_later, s->capped[m]))
			fw_bitset_set(s->cand_now, s->capped[m]);
}

/*
 * Several nodes above some nodes' limits: the time from cmin on is cut at
 * the limited nodes' blocked_until() slots (until_groups), and each piece
 * is searched, in order, among the nodes within their limits and those
 * already free of theirs.  Exact up to SHR_UNTIL_GROUPS distinct slots,
 * an over-estimate beyond; at most SHR_UNTIL_GROUPS + 1 searches, the
 * timeline unchanged.
 */
static int32_t earliest_capped(struct fw_share *s,
			       const struct fw_bitset *cand, uint32_t n,
			       int32_t d, int32_t cmin, int32_t cmax)
{
	int32_t g[SHR_UNTIL_GROUPS], from = cmin, to, c;
	uint32_t ng, k = 0;

	if (cand)
		fw_bitset_copy(s->cand_later, cand);
	else
		fw_bitset_set_all(s->cand_later);
	fw_bitset_copy(s->cand_now, s->cand_later);
	fw_bitset_and(s->cand_now, s->nowok);
	ng = until_groups(s, g);
	while (k < ng && g[k] <= cmin)
		k++;
	allow_until(s, cmin);
	for (;;) {
		to = k < ng && g[k] - 1 < cmax ? g[k] - 1 : cmax;
		c = search(s, s->cand_now, n, d, from, to);
		if (c >= 0 || k >= ng || g[k] > cmax)
			return c;
		from = g[k];
		allow_until(s, from);
		k++;
	}
}

int32_t fw_share_earliest(struct fw_share *s, const struct fw_bitset *cand,
			  uint32_t n, int32_t cmin, int32_t cmax, int32_t L0,
			  int32_t L)
{
	if (n == 0 || n > s->cl->nnodes || cmin > cmax)
		return -1;
	/* A start now runs L0 slots (now is inside slot 0), later ones L;
	 * only nodes within their limits for now (fw_share_now_cap). */
	if (cmin == 0) {
		if (search(s, s->nowok_on ? within_limits(s, cand) : cand, n,
			   L0, 0, 0) == 0)
			return 0;
		cmin = 1;
		if (cmin > cmax)
			return -1;
	}
	/* limited nodes wait for their devices */
	if (s->nowok_on)
		return n == 1 ? earliest_one_capped(s, cand, L, cmin, cmax) :
				earliest_capped(s, cand, n, L, cmin, cmax);
	return search(s, cand, n, L, cmin, cmax);
}


static uint64_t shape_hash(const struct fw_share *s, uint32_t cls, int fit,
			   uint32_t n, int64_t d)
{
	uint64_t h = fw_mix64(((uint64_t)cls << 40) ^
			      ((uint64_t)fit << 32) ^ n);

	h = fw_mix64(h ^ (uint64_t)d);
	for (uint32_t k = 0; k < s->K; k++)
		h = fw_mix64(h ^ (uint64_t)s->req[k]);
	return h;
}

/* The slot of a shape: its entry, or the empty slot where it goes. */
static uint32_t memo_slot(const struct fw_share *s, uint64_t h, uint32_t cls,
			  int fit, uint32_t n, int64_t d)
{
	uint32_t i = (uint32_t)h & (s->memo_cap - 1);

	while (s->memo[i].used) {
		const struct shr_ent *e = &s->memo[i];

		if (e->h == h && e->cls == cls && e->fit == fit && e->n == n &&
		    e->d == d && !memcmp(s->memo_req + (size_t)i * s->K,
					 s->req, s->K * sizeof(int64_t)))
			return i;
		i = (i + 1) & (s->memo_cap - 1);
	}
	return i;
}

/* Does shape (an, ad, ar) fit inside shape (bn, bd, br): no more nodes,
 * no longer, no more of any of the K resources? */
static bool shape_within(uint32_t K, uint32_t an, int64_t ad,
			 const int64_t *ar, uint32_t bn, int64_t bd,
			 const int64_t *br)
{
	if (an > bn || ad > bd)
		return false;
	for (uint32_t k = 0; k < K; k++)
		if (ar[k] > br[k])
			return false;
	return true;
}

/* From the ring: the largest answer of a shape the job's contains (a
 * lower bound), and while nothing was booked since (gen), the smallest
 * of a shape the job's fits in (an upper bound: its nodes hold the job
 * at its start). */
static void ring_bounds(const struct fw_share *s, uint32_t cls, int fit,
			uint32_t n, int64_t d, uint64_t gen,
			struct fw_share_bounds *kb)
{
	for (uint32_t i = 0; i < s->dom_n; i++) {
		const struct shr_ent *e = &s->dom[i];
		const int64_t *er = s->dom_req + (size_t)i * s->K;

		if (e->cls != cls || e->fit != fit)
			continue;
		if (e->c > kb->lb &&
		    shape_within(s->K, e->n, e->d, er, n, d, s->req))
			kb->lb = e->c;
		if (e->gen == gen && e->c < kb->ub &&
		    shape_within(s->K, n, d, s->req, e->n, e->d, er))
			kb->ub = e->c;
	}
}

void fw_share_known(struct fw_share *s, uint32_t cls, int fit, uint32_t n,
		    int64_t d, uint64_t gen, struct fw_share_bounds *kb)
{
	uint32_t i;

	kb->lb = 0;
	kb->ub = FW_RTL_INF;
	ring_bounds(s, cls, fit, n, d, gen, kb);
	if (!s->memo_cap || kb->lb == FW_RTL_INF)
		return;
	i = memo_slot(s, shape_hash(s, cls, fit, n, d), cls, fit, n, d);
	if (!s->memo[i].used)
		return;
	if (s->memo[i].c > kb->lb)
		kb->lb = s->memo[i].c;
	if (s->memo[i].gen == gen && s->memo[i].c >= kb->lb)
		kb->ub = kb->lb;	/* the answer itself */
}

/* Keep an answer later than now in the ring (the oldest goes). */
static void dom_add(struct fw_share *s, uint32_t cls, int fit, uint32_t n,
		    int64_t d, uint64_t gen, int32_t c)
{
	uint32_t i = s->dom_next;

	if (c <= 0)
		return;
	if (!s->dom) {
		s->dom = fw_xcalloc(FW_SHR_DOM, sizeof(*s->dom));
		s->dom_req = fw_xmalloc((size_t)FW_SHR_DOM * s->K *
					sizeof(int64_t));
	}
	s->dom[i] = (struct shr_ent){ .cls = cls, .fit = (uint8_t)fit, .n = n,
				      .d = d, .gen = gen, .c = c, .used = 1 };
	memcpy(s->dom_req + (size_t)i * s->K, s->req, s->K * sizeof(int64_t));
	s->dom_next = (i + 1) % FW_SHR_DOM;
	if (s->dom_n < FW_SHR_DOM)
		s->dom_n++;
}

static void memo_grow(struct fw_share *s)
{
	struct shr_ent *old = s->memo;
	int64_t *oreq = s->memo_req, *req = s->req;
	uint32_t ocap = s->memo_cap;

	s->memo_cap = ocap ? ocap * 2 : 256;
	s->memo = fw_xcalloc(s->memo_cap, sizeof(*s->memo));
	s->memo_req = fw_xmalloc((size_t)s->memo_cap * s->K * sizeof(int64_t));
	for (uint32_t i = 0; i < ocap; i++) {
		uint32_t j;

		if (!old[i].used)
			continue;
		s->req = oreq + (size_t)i * s->K;
		j = memo_slot(s, old[i].h, old[i].cls, old[i].fit, old[i].n,
			      old[i].d);
		s->memo[j] = old[i];
		memcpy(s->memo_req + (size_t)j * s->K, s->req,
		       s->K * sizeof(int64_t));
	}
	s->req = req;
	free(old);
	free(oreq);
}

void fw_share_remember(struct fw_share *s, uint32_t cls, int fit,
		       uint32_t n, int64_t d, uint64_t gen, int32_t c)
{
	uint64_t h;
	uint32_t i;

	if (2 * (s->memo_n + 1) > s->memo_cap)
		memo_grow(s);
	h = shape_hash(s, cls, fit, n, d);
	i = memo_slot(s, h, cls, fit, n, d);
	if (!s->memo[i].used) {
		s->memo_n++;
		s->memo[i].used = 1;
		s->memo[i].h = h;
		s->memo[i].cls = cls;
		s->memo[i].fit = (uint8_t)fit;
		s->memo[i].n = n;
		s->memo[i].d = d;
		memcpy(s->memo_req + (size_t)i * s->K, s->req,
		       s->K * sizeof(int64_t));
	}
	s->memo[i].gen = gen;
	s->memo[i].c = c;
	dom_add(s, cls, fit, n, d, gen, c);
}
