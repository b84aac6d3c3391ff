/*
 * fw_plan_preempt.c - preemption in the plan (PreemptType=preempt/qos and
 * preempt/partition_prio): which running jobs may be preempted and by
 * whom, the choice of victims for one job, and their release.
 *
 * The rule (doc/design.md, "Preemption"):
 *
 *  - Rank order of preemptable running jobs, as Slurm's preempt.c sorts
 *    its candidates: the preempt priority (QOS Priority or PriorityTier)
 *    ascending, then the node count ascending (Slurm's preempt priority
 *    is prio << 16 + node count), then the youngest (latest start) first,
 *    then the higher job id (Slurm leaves these ties to its job list).
 *    With preempt_youngest_first: the youngest first, then the higher id.
 *  - A job that may preempt is first planned without preemption (start
 *    c0).  Only a start earlier than c0 is worth a preemption.  For each
 *    possible start c (now, or the slot at which victims whose GraceTime
 *    ends by then are gone), ascending, every candidate node is priced:
 *    0 victims if the job fits there as it is; else the victims Slurm's
 *    select plugin takes there when select_nodes() is given that node
 *    (slurm_victims: the shortest prefix of the rank order that makes
 *    room, then reordered preempt_reorder_count + 1 times with the job
 *    that completed the fit first), since it is select_nodes() that
 *    preempts.  The n nodes with the fewest victims (then the
 *    lowest-ranked worst victim, then the lowest index) are chosen; with
 *    preempt_strict_order the lowest-ranked worst victim first, then the
 *    fewest, as Slurm then preempts "only the lowest priority jobs".  The
 *    first start with n such nodes wins.
 *  - Eligible victim: its class is in the job's preempts list, it is not
 *    exempt (PreemptExemptTime) now, not already preempted in this plan,
 *    gone (after its grace time) by c and still running at c, and its
 *    node's bookings are exact (fw_share.inexact).
 *  - The victims are released at once: each is gone from its release slot
 *    on all its nodes, on every timeline the share layer keeps, so later
 *    jobs of the pass see the space they free.  The whole-node view keeps
 *    their nodes busy until their planned end (never optimistic).
 *
 * On a shared cluster, a job outside advanced reservations and without
 * required nodes preempts; a later start than now only for a protected
 * job (its booking keeps the freed space for it).  A job that wants whole
 * nodes (--exclusive, OverSubscribe=EXCLUSIVE) is priced the same way
 * with the node's whole capacity as its need, so every job still on a
 * node it takes must be among its victims.  A preemptable job that holds
 * whole nodes is booked, and given back, as every resource of them.
 * No global state: everything lives in struct fw_preempt of a plan.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_plan_int.h"

/* A fitting node of one start: how many victims it needs, its worst. */
struct pnode {
	uint32_t node, cost, worst, first;
};

/* ------------------------------------------------------------------ */
/* Set-up: preemptable running jobs                                    */
/* ------------------------------------------------------------------ */

/* The plan's preemption state, created on first use. */
static struct fw_preempt *pre_get(struct fw_plan *p)
{
	if (!p->pre)
		p->pre = fw_xcalloc(1, sizeof(*p->pre));
	return p->pre;
}

void preempt_free(struct fw_preempt *pr)
{
	if (!pr)
		return;
	free(pr->v);
	free(pr->h);
	free(pr->hamt);
	free(pr->node_first);
	free(pr->by_node);
	free(pr->pick);
	free(pr->pn);
	free(pr->out);
	free(pr->outv);
	free(pr->bnd);
	free(pr->slots);
	free(pr->low);
	free(pr->add);
	free(pr->fr);
	free(pr);
}

/* The same id on every use, not 0: one running job. */
static int check_victim(const struct fw_node_use *u, uint32_t n,
			const struct fw_preempt_run *pr, struct fw_err *err)
{
	if (!pr)
		return fw_err_set(err, NULL, 0, "running job", NULL,
				  "preemption data missing");
	if (n == 0 || u[0].job == 0)
		return fw_err_set(err, NULL, 0, "running job", NULL,
				  "a preemptable job needs nodes and its id");
	for (uint32_t k = 1; k < n; k++)
		if (u[k].job != u[0].job)
			return fw_err_set(err, NULL, 0, "running job", NULL,
					  "node uses of jobs %u and %u given "
					  "as one job", u[0].job, u[k].job);
	if (pr->grace < 0)
		return fw_err_set(err, NULL, 0, "GraceTime", NULL,
				  "negative grace time");
	return 0;
}

/* Slot at which a job preempted now is gone: now itself (slot 0) without
 * grace time, else now + grace rounded up; never after its end b. */
static int32_t release_slot(const struct fw_plan *p, int64_t grace, int32_t b)
{
	int32_t r = grace > 0 ? end_slot(p, p->now + grace) : 0;

	return r < b ? r : b;
}

/* Record victim v's holds u[0..n-1] with their amounts. */
static void record_holds(struct fw_plan *p, struct fw_preempt *pr,
			 uint32_t v, const struct fw_node_use *u, uint32_t n)
{
	uint32_t K = p->sh->K;

	if (pr->nh + n > pr->caph) {
		while (pr->nh + n > pr->caph)
			pr->caph = pr->caph ? pr->caph * 2 : 64;
		pr->h = fw_xrealloc(pr->h, pr->caph * sizeof(*pr->h));
		pr->hamt = fw_xrealloc(pr->hamt, (size_t)pr->caph * K *
				       sizeof(int64_t));
	}
	for (uint32_t k = 0; k < n; k++) {
		pr->h[pr->nh].node = u[k].node;
		pr->h[pr->nh].v = v;
		fw_share_use_amounts(p->sh, &u[k],
				     pr->hamt + (size_t)pr->nh * K);
		pr->nh++;
	}
}

/*
 * A job that holds its nodes whole: the same nodes with every configured
 * amount of each (fw_share_node_capacity as a use list, which
 * fw_share_use_amounts turns back into it), so that it is booked, and
 * released, exactly.  The GRES counts live in one array after the uses;
 * free the result (p->sh must exist).
 */
static struct fw_node_use *whole_uses(const struct fw_plan *p,
				      const struct fw_node_use *u,
				      uint32_t n)
{
	uint32_t G = p->cl->ngres;
	struct fw_node_use *w = fw_xcalloc(n ? n : 1, sizeof(*w));
	struct fw_gres_count *g = fw_xcalloc((size_t)n * G + 1, sizeof(*g));
	int64_t *cap = fw_xmalloc(p->sh->K * sizeof(int64_t));

	for (uint32_t k = 0; k < n; k++) {
		fw_share_node_capacity(p->cl, u[k].node, cap);
		w[k].node = u[k].node;
		w[k].job = u[k].job;
		w[k].cpus = (uint32_t)cap[FW_SHR_CPU];
		w[k].mem_mb = (uint64_t)cap[FW_SHR_MEM];
		w[k].gpus = (uint32_t)cap[FW_SHR_GPU];
		w[k].gres = g + (size_t)k * G;
		w[k].ngres = G;
		for (uint32_t x = 0; x < G; x++) {
			g[(size_t)k * G + x].idx = x;
			g[(size_t)k * G + x].count =
				(uint64_t)cap[FW_SHR_GRES0 + x];
		}
	}
	free(cap);
	return w;
}

static void whole_uses_free(struct fw_node_use *w)
{
	if (w)
		free((void *)w[0].gres);
	free(w);
}

int fw_plan_add_running_preemptable(struct fw_plan *p,
				    const struct fw_node_use *u, uint32_t n,
				    fw_time_t end,
				    const struct fw_plan_lic *lics,
				    uint32_t nlics,
				    const struct fw_preempt_run *prun,
				    struct fw_err *err)
{
	struct fw_node_use *wu = NULL;
	struct fw_preempt *pr;
	struct pvict *v;
	int32_t b;
	int rc;

	if (check_uses(p, u, n, "running job", err) ||
	    check_victim(u, n, prun, err))
		return -1;
	if (prun->whole && p->sh)
		u = wu = whole_uses(p, u, n);
	rc = fw_plan_add_running_use(p, u, n, end, lics, nlics, err);
	if (rc || !p->sh) {
		/* whole-node clusters: not preempted (yet) */
		whole_uses_free(wu);
		return rc;
	}
	pr = pre_get(p);
	b = end <= 0 ? FW_TL_INF : end_slot(p, end);
	if (b < 1)
		b = 1;
	if (b > p->wslots)
		b = FW_TL_INF;	/* booked past the window end: forever */
	if (pr->nv == pr->capv) {
		pr->capv = pr->capv ? pr->capv * 2 : 64;
		pr->v = fw_xrealloc(pr->v, pr->capv * sizeof(*pr->v));
	}
	v = &pr->v[pr->nv];
	memset(v, 0, sizeof(*v));
	v->job = u[0].job;
	v->cls = prun->cls;
	v->prio = prun->prio;
	v->nnodes = n;
	v->start = prun->start;
	v->exempt_until = prun->exempt_until;
	v->b = b;
	v->r = release_slot(p, prun->grace, b);
	v->first = pr->nh;
	record_holds(p, pr, pr->nv, u, n);
	pr->nv++;
	whole_uses_free(wu);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Rank order and the per-node index                                   */
/* ------------------------------------------------------------------ */

struct rkey {
	uint32_t prio, nnodes, job, v;
	fw_time_t start;
};

/* Negative if a is preempted before b (see the file comment). */
static int rkey_cmp(const void *x, const void *y)
{
	const struct rkey *a = x, *b = y;

	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	if (a->nnodes != b->nnodes)
		return a->nnodes < b->nnodes ? -1 : 1;
	if (a->start != b->start)
		return a->start > b->start ? -1 : 1;
	return (a->job < b->job) - (a->job > b->job);
}

/* Every victim's rank (youngest first: prio and node count ignored). */
static void rank_victims(const struct fw_plan *p, struct fw_preempt *pr)
{
	struct rkey *k = fw_xmalloc((pr->nv ? pr->nv : 1) * sizeof(*k));
	bool young = p->conf->preempt_youngest_first;

	for (uint32_t i = 0; i < pr->nv; i++) {
		k[i].prio = young ? 0 : pr->v[i].prio;
		k[i].nnodes = young ? 0 : pr->v[i].nnodes;
		k[i].start = pr->v[i].start;
		k[i].job = pr->v[i].job;
		k[i].v = i;
	}
	qsort(k, pr->nv, sizeof(*k), rkey_cmp);
	for (uint32_t i = 0; i < pr->nv; i++)
		pr->v[k[i].v].rank = i;
	free(k);
}

/* by_node: each node's holds in rank order (a counting sort by node of
 * the holds taken victim by victim in rank order). */
static void build_index(const struct fw_plan *p, struct fw_preempt *pr)
{
	uint32_t N = p->cl->nnodes, *pos, *byrank;

	rank_victims(p, pr);
	pr->node_first = fw_xcalloc(N + 1, sizeof(uint32_t));
	pr->by_node = fw_xmalloc((pr->nh ? pr->nh : 1) * sizeof(uint32_t));
	byrank = fw_xmalloc((pr->nv ? pr->nv : 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < pr->nv; i++)
		byrank[pr->v[i].rank] = i;
	for (uint32_t h = 0; h < pr->nh; h++)
		pr->node_first[pr->h[h].node + 1]++;
	for (uint32_t i = 0; i < N; i++)
		pr->node_first[i + 1] += pr->node_first[i];
	pos = fw_xmalloc((N ? N : 1) * sizeof(uint32_t));
	memcpy(pos, pr->node_first, N * sizeof(uint32_t));
	for (uint32_t r = 0; r < pr->nv; r++) {
		const struct pvict *v = &pr->v[byrank[r]];

		for (uint32_t h = v->first; h < v->first + v->nnodes; h++)
			pr->by_node[pos[pr->h[h].node]++] = h;
	}
	free(pos);
	free(byrank);
	pr->pn = fw_xmalloc((N ? N : 1) * sizeof(*pr->pn));
	pr->out = fw_xmalloc((pr->nv ? pr->nv : 1) * sizeof(uint32_t));
	pr->outv = fw_xmalloc((pr->nv ? pr->nv : 1) * sizeof(uint32_t));
	pr->bnd = fw_xmalloc((pr->nh + 2) * sizeof(int32_t));
	pr->slots = fw_xmalloc((pr->nv ? pr->nv : 1) * sizeof(int32_t));
	pr->low = fw_xmalloc((N ? N : 1) * sizeof(int32_t));
	pr->add = fw_xmalloc(p->sh->K * sizeof(int64_t));
	pr->fr = fw_xmalloc(p->sh->K * sizeof(int64_t));
	pr->indexed = true;
}

/* ------------------------------------------------------------------ */
/* Fits with victims gone                                              */
/* ------------------------------------------------------------------ */

static bool may_preempt_class(const struct fw_plan_job *j, uint32_t cls)
{
	for (uint32_t k = 0; k < j->npreempts; k++)
		if (j->preempts[k] == cls)
			return true;
	return false;
}

/* May j count on victim v for a start at slot c? */
static bool eligible(const struct fw_plan *p, const struct fw_plan_job *j,
		     const struct pvict *v, int32_t c)
{
	return !v->gone && v->exempt_until <= p->now && v->r <= c &&
	       v->b > c && may_preempt_class(j, v->cls);
}

static int i32_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* Ascending; an insertion sort while a node holds few victims (almost
 * always one or two: qsort's set-up was a tenth of a preemption pass). */
static void sort_small(int32_t *a, uint32_t n)
{
	if (n > 16) {
		qsort(a, n, sizeof(int32_t), i32_cmp);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		int32_t x = a[i];
		uint32_t m = i;

		for (; m > 0 && a[m - 1] > x; m--)
			a[m] = a[m - 1];
		a[m] = x;
	}
}

/*
 * Does node have s->req free during [c, e) once the holds S[0..ns-1]
 * (all on node, released by c) are gone?  Per piece of [c, e) between
 * their ends: the free minimum there plus what the holds still running
 * in it give back.
 */
static bool fits_with(struct fw_plan *p, uint32_t node, int32_t c, int32_t e,
		      const uint32_t *S, uint32_t ns)
{
	struct fw_preempt *pr = p->pre;
	uint32_t K = p->sh->K, nb = 0;

	pr->bnd[nb++] = c;
	for (uint32_t m = 0; m < ns; m++) {
		int32_t b = pr->v[pr->h[S[m]].v].b;

		if (b > c && b < e)
			pr->bnd[nb++] = b;
	}
	sort_small(pr->bnd, nb);
	pr->bnd[nb] = e;
	for (uint32_t s = 0; s < nb; s++) {
		int32_t a = pr->bnd[s], b = pr->bnd[s + 1];

		if (b <= a)
			continue;
		fw_rtl_free_min(p->sh->cur, node, a, b, pr->fr);
		memset(pr->add, 0, K * sizeof(int64_t));
		for (uint32_t m = 0; m < ns; m++)
			if (pr->v[pr->h[S[m]].v].b > a)
				for (uint32_t k = 0; k < K; k++)
					pr->add[k] += pr->hamt[(size_t)S[m] *
							       K + k];
		for (uint32_t k = 0; k < K; k++)
			if (pr->fr[k] + pr->add[k] < p->sh->req[k])
				return false;
	}
	return true;
}

static void pick_push(struct fw_preempt *pr, uint32_t h)
{
	if (pr->npick == pr->cappick) {
		pr->cappick = pr->cappick ? pr->cappick * 2 : 64;
		pr->pick = fw_xrealloc(pr->pick,
				       pr->cappick * sizeof(uint32_t));
	}
	pr->pick[pr->npick++] = h;
}

static int rank_cmp_v(const struct fw_preempt *pr, uint32_t a, uint32_t b)
{
	return (pr->v[a].rank > pr->v[b].rank) - (pr->v[a].rank < pr->v[b].rank);
}

/* S[0..n-1] (holds) in rank order: an insertion sort, a node holds few. */
static void sort_by_rank(const struct fw_preempt *pr, uint32_t *S, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = S[i], m = i;

		for (; m > 0 && rank_cmp_v(pr, pr->h[S[m - 1]].v, pr->h[x].v) > 0;
		     m--)
			S[m] = S[m - 1];
		S[m] = x;
	}
}

/* The shortest prefix of S[0..m-1] that makes node fit (the whole list
 * does: checked by the caller, so it is not checked again). */
static uint32_t shortest_prefix(struct fw_plan *p, uint32_t node, int32_t c,
				int32_t e, const uint32_t *S, uint32_t m)
{
	uint32_t ns = 1;

	while (ns < m && !fits_with(p, node, c, e, S, ns))
		ns++;
	return ns;
}

/* Reorders at most (preempt_reorder_count + 1 each time a node is priced;
 * a large count only repeats the same few orders). */
#define REORDER_MAX 16

/*
 * Slurm's victims on one node: what select/cons_tres preempts when
 * select_nodes() is given this node (its _run_now with preemptee
 * candidates, src/plugins/select/cons_tres/job_test.c).  It removes the
 * candidates in rank order until the job fits; then, preempt_reorder_count
 * + 1 times, the job that completed the fit moves to the front and the
 * shortest prefix of the new order is taken again, which drops the
 * lower-ranked jobs the fit no longer needs.  (preempt_strict_order moves
 * it so; the default re-sorts by the nodes each candidate has among the
 * chosen ones, the same order on one node.  Slurm also stops once it has
 * done as many fits as it has candidates in all; not modelled.)  The
 * plan must name these, not a smaller set: select_nodes() preempts them,
 * whatever the plan says.  S[0..m-1]: the node's eligible holds in rank
 * order, all of them enough; reordered in place, the victims first (in
 * rank order); returns how many.
 */
static uint32_t slurm_victims(struct fw_plan *p, uint32_t node, int32_t c,
			      int32_t e, uint32_t *S, uint32_t m)
{
	uint32_t rounds = p->conf->preempt_reorder_count, ns;

	rounds = rounds < REORDER_MAX ? rounds + 1 : REORDER_MAX;
	ns = shortest_prefix(p, node, c, e, S, m);
	for (uint32_t r = 0; r < rounds && ns > 1; r++) {
		uint32_t last = S[ns - 1];

		/* The first ns still fit, in any order: no need to look
		 * further than them. */
		memmove(S + 1, S, (ns - 1) * sizeof(*S));
		S[0] = last;
		ns = shortest_prefix(p, node, c, e, S, ns);
	}
	sort_by_rank(p->pre, S, ns);
	return ns;
}

/* A whole-node job needs all of a node: s->req is that node's capacity
 * (set before each node is looked at; a job wanting part of nodes has
 * its own amounts there from fw_share_set_req). */
static void node_req(struct fw_plan *p, uint32_t node)
{
	if (p->pre->whole)
		fw_share_node_capacity(p->cl, node, p->sh->req);
}

/*
 * The victims node needs for j over [c, e), appended to pr->pick (rank
 * order): Slurm's (slurm_victims).  False if even all eligible ones are
 * not enough, or the node's bookings are inexact and it does not fit as
 * it is.
 */
static bool node_victims(struct fw_plan *p, const struct fw_plan_job *j,
			 uint32_t node, int32_t c, int32_t e,
			 struct pnode *pn)
{
	struct fw_preempt *pr = p->pre;
	uint32_t m = 0, ns, *E;

	pn->node = node;
	pn->cost = pn->worst = 0;
	pn->first = pr->npick;
	node_req(p, node);
	if (fw_share_fits(p->sh, node, c, e))
		return true;
	if (fw_bitset_test(p->sh->inexact, node))
		return false;
	for (uint32_t k = pr->node_first[node]; k < pr->node_first[node + 1];
	     k++)
		if (eligible(p, j, &pr->v[pr->h[pr->by_node[k]].v], c)) {
			pick_push(pr, pr->by_node[k]);
			m++;
		}
	/* E: the eligible holds, reordered into the victims */
	E = pr->pick + pn->first;
	if (!m || !fits_with(p, node, c, e, E, m)) {
		pr->npick = pn->first;
		return false;
	}
	ns = slurm_victims(p, node, c, e, E, m);
	pr->npick = pn->first + ns;
	pn->cost = ns;
	pn->worst = pr->v[pr->h[E[ns - 1]].v].rank;
	return true;
}

/* ------------------------------------------------------------------ */
/* The search                                                          */
/* ------------------------------------------------------------------ */

/* Default: the nodes with the fewest victims, then the lowest-ranked
 * worst victim, then the lowest index. */
static int pnode_cmp(const void *x, const void *y)
{
	const struct pnode *a = x, *b = y;

	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	if (a->worst != b->worst)
		return a->worst < b->worst ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* preempt_strict_order: "preempt only the lowest priority jobs" (Slurm
 * takes its candidates in rank order until the job fits anywhere): the
 * lowest-ranked worst victim first, then the fewest, then the index. */
static int pnode_cmp_strict(const void *x, const void *y)
{
	const struct pnode *a = x, *b = y;

	if (a->worst != b->worst)
		return a->worst < b->worst ? -1 : 1;
	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* pn[0..n-1] = the n best of pn[0..nf-1] in cmp order (n <= nf): a few
 * nodes out of thousands, so an insertion into the n best found so far
 * instead of sorting them all (the sort was a fifth of a pass whose
 * owner jobs each priced 2,000 nodes). */
static void best_pnodes(struct pnode *pn, uint32_t nf, uint32_t n,
			int (*cmp)(const void *, const void *))
{
	if (n > 32) {
		qsort(pn, nf, sizeof(*pn), cmp);
		return;
	}
	qsort(pn, n, sizeof(*pn), cmp);
	for (uint32_t k = n; k < nf; k++) {
		struct pnode x = pn[k];
		uint32_t m = n - 1;

		if (cmp(&x, &pn[m]) >= 0)
			continue;
		for (; m > 0 && cmp(&x, &pn[m - 1]) < 0; m--)
			pn[m] = pn[m - 1];
		pn[m] = x;
	}
}

/* outv = the victims of the chosen nodes pn[0..n-1], once each, in rank
 * order (an insertion sort: victim lists are short). */
static void collect_victims(struct fw_preempt *pr, const struct pnode *pn,
			    uint32_t n)
{
	pr->nout = 0;
	pr->stamp++;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < pn[i].cost; k++) {
			uint32_t v = pr->h[pr->pick[pn[i].first + k]].v, m;

			if (pr->v[v].stamp == pr->stamp)
				continue;
			pr->v[v].stamp = pr->stamp;
			for (m = pr->nout; m > 0 &&
			     rank_cmp_v(pr, pr->outv[m - 1], v) > 0; m--)
				pr->outv[m] = pr->outv[m - 1];
			pr->outv[m] = v;
			pr->nout++;
		}
	for (uint32_t m = 0; m < pr->nout; m++)
		pr->out[m] = pr->v[pr->outv[m]].job;
}

/* Does chosen node fit over [c, e) with the marked victims (stamp) gone? */
static bool fits_marked(struct fw_plan *p, uint32_t node, int32_t c,
			int32_t e)
{
	struct fw_preempt *pr = p->pre;
	uint32_t base = pr->npick, ns;
	bool ok;

	node_req(p, node);
	for (uint32_t k = pr->node_first[node]; k < pr->node_first[node + 1];
	     k++)
		if (pr->v[pr->h[pr->by_node[k]].v].stamp == pr->stamp)
			pick_push(pr, pr->by_node[k]);
	ns = pr->npick - base;
	ok = fits_with(p, node, c, e, pr->pick + base, ns);
	pr->npick = base;
	return ok;
}

/* A victim of one node may free another chosen node (a job on several
 * nodes): spare every victim of the union that no chosen node needs,
 * the highest-ranked tried first. */
static void prune_union(struct fw_plan *p, const struct pnode *pn,
			uint32_t n, int32_t c, int32_t e)
{
	struct fw_preempt *pr = p->pre;

	for (uint32_t m = pr->nout; m-- > 0;) {
		uint32_t v = pr->outv[m], k;

		pr->v[v].stamp = 0;
		for (k = 0; k < n && fits_marked(p, pn[k].node, c, e); k++)
			;
		if (k < n) {
			pr->v[v].stamp = pr->stamp;
			continue;
		}
		memmove(pr->outv + m, pr->outv + m + 1,
			(pr->nout - m - 1) * sizeof(uint32_t));
		pr->nout--;
	}
	for (uint32_t m = 0; m < pr->nout; m++)
		pr->out[m] = pr->v[pr->outv[m]].job;
}

/*
 * Can j start at slot c (lasting until e) on cd's nodes with victims
 * gone?  On success p->sel holds the n chosen nodes (ascending) and
 * pr->outv / out the victims (at least one).
 */
static bool start_at(struct fw_plan *p, const struct fw_plan_job *j,
		     const struct cand *cd, int32_t c, int32_t e)
{
	struct fw_preempt *pr = p->pre;
	uint32_t nf = 0, n = j->nodes_min;
	const uint64_t *cw = p->sh->cand->w;

	if (j->nlics && fw_tl_lics_earliest(&p->tl, j->lics, j->nlics, c, c,
					    cd->L0, cd->L) != c)
		return false;
	pr->npick = 0;
	for (uint32_t w = cd->lo; w < cd->hi; w++)
		for (uint64_t x = cw[w]; x; x &= x - 1) {
			uint32_t i = w * 64 + fw_ctz64(x);

			if (node_victims(p, j, i, c, e, &pr->pn[nf]))
				nf++;
		}
	if (nf < n)
		return false;
	best_pnodes(pr->pn, nf, n, p->conf->preempt_strict_order ?
				   pnode_cmp_strict : pnode_cmp);
	collect_victims(pr, pr->pn, n);
	if (n > 1)	/* Slurm's reorders drop them too */
		prune_union(p, pr->pn, n, c, e);
	if (!pr->nout)
		return false;	/* fits as it is: no preemption */
	for (uint32_t k = 0; k < n; k++)
		p->sel[k] = pr->pn[k].node;
	p->nsel = n;
	qsort(p->sel, p->nsel, sizeof(*p->sel), u32_cmp);
	return true;
}

/* Release every victim of outv: gone from its release slot on, or from
 * slot c when it is to be preempted later (it runs until then). */
static void release_victims(struct fw_plan *p, int32_t c)
{
	struct fw_preempt *pr = p->pre;
	uint32_t K = p->sh->K;

	for (uint32_t m = 0; m < pr->nout; m++) {
		struct pvict *v = &pr->v[pr->outv[m]];
		struct fw_share_owner o = { FW_HOLD_RUNNING, v->job };
		int32_t from = pr->later ? c : v->r;

		for (uint32_t h = v->first; h < v->first + v->nnodes; h++)
			fw_share_release(p->sh, pr->h[h].node, from, v->b,
					 pr->hamt + (size_t)h * K, o);
		v->gone = true;
	}
}

/* Does the start c come after every victim's release slot?  Then the
 * start waits for something else and nobody is preempted now. */
static bool victims_later(const struct fw_preempt *pr, int32_t c)
{
	for (uint32_t m = 0; m < pr->nout; m++)
		if (pr->v[pr->outv[m]].r >= c)
			return false;
	return true;
}

/* Insert r into the ascending, duplicate-free slots[0 .. *n - 1]. */
static void slot_insert(int32_t *slots, uint32_t *n, int32_t r)
{
	uint32_t lo = 0, hi = *n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (slots[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < *n && slots[lo] == r)
		return;
	memmove(slots + lo + 1, slots + lo, (*n - lo) * sizeof(int32_t));
	slots[lo] = r;
	(*n)++;
}

/* Starts worth trying, ascending, before c0 and not after cmax: the
 * release slots of j's eligible victims (into slots; returns how many).
 * Victims share few release slots (now, or now plus one of the GraceTimes),
 * so an ordered insertion, not a sort of one entry per victim: that sort
 * was a sixth of a pass in which 2,000 victims all go now. */
static uint32_t start_slots(struct fw_plan *p, const struct fw_plan_job *j,
			    int32_t c0, int32_t cmax)
{
	struct fw_preempt *pr = p->pre;
	uint32_t n = 0;

	for (uint32_t i = 0; i < pr->nv; i++) {
		const struct pvict *v = &pr->v[i];

		if (v->r < c0 && v->r <= cmax && eligible(p, j, v, v->r))
			slot_insert(pr->slots, &n, v->r);
	}
	return n;
}

/* End slot (exclusive) of cd's job started at slot c. */
static int32_t run_end(const struct cand *cd, int32_t c)
{
	if (c == 0)
		return cd->L0;
	if (cd->L == FW_TL_INF || (int64_t)c + cd->L >= FW_TL_INF)
		return FW_TL_INF;
	return c + cd->L;
}

/* ------------------------------------------------------------------ */
/* Later starts: once a plain job ends                                 */
/* ------------------------------------------------------------------ */

/* Slots of one node's walk for a later start (a busy node changes often;
 * the start found is checked on every node by start_at anyway). */
#define LATER_POINTS 16

/* May j preempt anything on node at all (before hi)? */
static bool node_has_victims(const struct fw_plan *p,
			     const struct fw_plan_job *j, uint32_t node,
			     int32_t hi)
{
	const struct fw_preempt *pr = p->pre;

	for (uint32_t k = pr->node_first[node]; k < pr->node_first[node + 1];
	     k++) {
		const struct pvict *v = &pr->v[pr->h[pr->by_node[k]].v];

		if (v->r < hi && eligible(p, j, v, v->r))
			return true;
	}
	return false;
}

/*
 * The earliest slot in [0, hi) at which node fits j over its run with its
 * victims then eligible gone (at least one), or FW_TL_INF.  A fit can only
 * begin where the node's free amounts change (a plain job or reservation
 * ends) or a victim is released, so only those slots are tried, at most
 * LATER_POINTS of them.
 */
static int32_t node_later(struct fw_plan *p, const struct fw_plan_job *j,
			  const struct cand *cd, uint32_t node, int32_t hi)
{
	struct fw_preempt *pr = p->pre;
	uint32_t base = pr->npick;
	int32_t c = 0;

	node_req(p, node);
	for (uint32_t step = 0; step < LATER_POINTS && c < hi; step++) {
		int32_t next = fw_rtl_next_change(p->sh->cur, node, c);
		uint32_t m;

		pr->npick = base;
		for (uint32_t k = pr->node_first[node];
		     k < pr->node_first[node + 1]; k++) {
			const struct pvict *v = &pr->v[pr->h[pr->by_node[k]].v];

			if (eligible(p, j, v, c))
				pick_push(pr, pr->by_node[k]);
			else if (v->r > c && v->r < next &&
				 eligible(p, j, v, v->r))
				next = v->r;
		}
		m = pr->npick - base;
		if (m && fits_with(p, node, c, run_end(cd, c), pr->pick + base,
				   m)) {
			pr->npick = base;
			return c;
		}
		c = next;
	}
	pr->npick = base;
	return FW_TL_INF;
}

/* Insert x into the ascending low[0 .. *n - 1], keeping the n lowest. */
static void keep_lowest(int32_t *low, uint32_t *nlow, uint32_t n, int32_t x)
{
	uint32_t m = *nlow;

	if (m == n && x >= low[m - 1])
		return;
	if (m < n)
		(*nlow)++;
	else
		m--;
	for (; m > 0 && low[m - 1] > x; m--)
		low[m] = low[m - 1];
	low[m] = x;
}

/*
 * A start before c0 (and not after cmax) that the release slots of the
 * victims did not give: where a node's own plain jobs end first (Slurm's
 * backfill finds it by testing the job with every candidate gone).  The
 * lowest slot at which n nodes each fit with their victims gone, or -1.
 */
static int32_t later_slot(struct fw_plan *p, const struct fw_plan_job *j,
			  const struct cand *cd, int32_t c0, int32_t cmax)
{
	struct fw_preempt *pr = p->pre;
	const uint64_t *cw = p->sh->cand->w;
	uint32_t n = j->nodes_min, nlow = 0;
	int32_t hi = c0 < cmax + 1 ? c0 : cmax + 1;

	if (n < 1)
		return -1;
	for (uint32_t w = cd->lo; w < cd->hi; w++)
		for (uint64_t x = cw[w]; x; x &= x - 1) {
			uint32_t i = w * 64 + fw_ctz64(x);
			int32_t bound = nlow == n ? pr->low[n - 1] : hi;
			int32_t f;

			if (!node_has_victims(p, j, i, bound))
				continue;
			f = node_later(p, j, cd, i, bound);
			if (f < bound)
				keep_lowest(pr->low, &nlow, n, f);
		}
	return nlow == n ? pr->low[n - 1] : -1;
}

/* Is preemption worth a look for j's best candidate cd? */
static bool preempt_applies(const struct fw_plan *p,
			    const struct fw_plan_job *j, const struct cand *cd)
{
	/* Not cd->shared: a job that wants whole nodes (every job that may
	 * share nodes is searched on the share layer while the plan has
	 * preemptable jobs, fw_plan_eval.c). */
	if (!p->pre || !p->pre->nv || !p->sh || !j->npreempts ||
	    cd->reason != FW_REASON_NONE || j->resv >= 0 || j->req_nodes)
		return false;
	if (cd->kind != FW_PLAN_RESERVED && cd->kind != FW_PLAN_NOT_IN_WINDOW)
		return false;
	return !(cd->fit == FW_FIT_ISLAND && p->conf->topo == FW_TOPO_STRICT);
}

/* Start j at slot c by preempting: victims released, cd updated. */
static bool preempt_at(struct fw_plan *p, const struct fw_plan_job *j,
		       struct cand *cd, int32_t c)
{
	if (!start_at(p, j, cd, c, run_end(cd, c)))
		return false;
	p->pre->later = victims_later(p->pre, c);
	release_victims(p, c);
	cd->c = c;
	cd->kind = c == 0 ? FW_PLAN_START_NOW : FW_PLAN_RESERVED;
	cd->island = -1;
	cd->sel_valid = true;
	return true;
}

static bool slot_tried(const int32_t *slots, uint32_t n, int32_t c)
{
	for (uint32_t k = 0; k < n; k++)
		if (slots[k] == c)
			return true;
	return false;
}

/*
 * After evaluate_best(): can j start earlier than cd says by preempting?
 * If so the victims are released, cd becomes the start (START_NOW or
 * RESERVED at the new slot, nodes in p->sel) and true is returned;
 * preempt_report() then names the victims in the decision.
 */
bool preempt_try(struct fw_plan *p, const struct fw_plan_job *j,
		 enum fw_plan_pass pass, struct cand *cd)
{
	int32_t c0, cmax;
	uint32_t ns;

	if (p->pre) {
		p->pre->nout = 0;
		p->pre->later = false;
	}
	if (!preempt_applies(p, j, cd))
		return false;
	if (!p->pre->indexed)
		build_index(p, p->pre);
	c0 = cd->kind == FW_PLAN_RESERVED ? cd->c : FW_TL_INF;
	cmax = pass == FW_PASS_MAIN || !cd->prot ? 0 : p->wslots - 1;
	ns = start_slots(p, j, c0, cmax);
	shared_view(p, j);
	p->pre->whole = !cd->shared;
	if (!p->pre->whole)
		fw_share_set_req(p->sh, j);
	shared_cand(p, cd, -1);
	for (uint32_t k = 0; k < ns; k++)
		if (preempt_at(p, j, cd, p->pre->slots[k]))
			return true;
	/* A protected job's later start: where the node's plain jobs end. */
	if (ns && cmax > 0) {
		int32_t c = later_slot(p, j, cd, c0, cmax);

		if (c > 0 && !slot_tried(p->pre->slots, ns, c) &&
		    preempt_at(p, j, cd, c))
			return true;
	}
	p->pre->nout = 0;
	return false;
}

/* The victims of the last preempt_try() into d. */
void preempt_report(const struct fw_plan *p, struct fw_plan_decision *d)
{
	if (!p->pre || !p->pre->nout)
		return;
	d->victims = p->pre->out;
	d->nvictims = p->pre->nout;
	d->victims_later = p->pre->later;
}

int fw_plan_preempting(struct fw_plan *p, const struct fw_bitset *nodes,
		       struct fw_err *err)
{
	struct fw_share_owner o = { FW_HOLD_RUNNING, 0 };

	if (!nodes)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "a preempting start needs its nodes");
	if (fw_plan_started(p, nodes, err))
		return -1;
	fw_tl_occupy(&p->tl, nodes, 0, 1, NULL, 0, FW_TL_AVAIL | FW_TL_FREE);
	if (p->sh)
		fw_share_take_all_set(p->sh, nodes, 0, 1, o);
	return 0;
}
