/*
 * fw_plan_setup.c - a plan's life cycle and set-up: the timeline at `now`,
 * down nodes, running jobs (whole nodes or per-node amounts), advanced and
 * partial reservations.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_plan_int.h"

fw_time_t fw_plan_t0(const struct fw_plan *p)
{
	return p->t0;
}

int32_t fw_plan_window_slots(const struct fw_plan *p)
{
	return p->wslots;
}

void fw_plan_get_stats(const struct fw_plan *p, struct fw_plan_stats *s)
{
	*s = p->stats;
	s->segments = p->tl.nseg;
}


/* ------------------------------------------------------------------ */
/* Plan life cycle and set-up                                          */
/* ------------------------------------------------------------------ */

struct fw_plan *fw_plan_new(const struct fw_cluster *cl,
			    const struct fw_plan_conf *conf, fw_time_t now,
			    struct fw_err *err)
{
	struct fw_plan *p;

	if (!cl || !cl->final) {
		fw_err_set(err, NULL, 0, NULL, NULL,
			   "cluster is not finalised");
		return NULL;
	}
	if (conf->bf_resolution < 1 || conf->bf_window < 1) {
		fw_err_set(err, NULL, 0, "SchedulerParameters", NULL,
			   "bf_window and bf_resolution must be positive");
		return NULL;
	}
	p = fw_xcalloc(1, sizeof(*p));
	p->cl = cl;
	p->conf = conf;
	p->now = now;
	p->res = conf->bf_resolution;
	p->t0 = div_floor(now, p->res) * p->res;
	p->wslots = clamp_slot(div_ceil(conf->bf_window, p->res));
	if (p->wslots < 1)
		p->wslots = 1;
	p->W = (uint32_t)FW_BITSET_WORDS(cl->nnodes);
	p->depth = fw_plan_conf_depth(conf);
	p->usable = fw_bitset_dup(cl->usable);
	p->idle = fw_bitset_dup(cl->usable);
	p->lic_idle = fw_xcalloc(cl->nlics ? cl->nlics : 1, sizeof(int64_t));
	for (uint32_t l = 0; l < cl->nlics; l++)
		p->lic_idle[l] = cl->lics[l].total;
	fw_tl_init(&p->tl, cl, p->wslots, p->usable);
	if (cl->shared)
		p->sh = fw_share_new(cl, p->wslots);
	fw_scratch_init(&p->sc, p->W);
	p->tvw = (cl->ntypes + 63) / 64;
	p->tv = fw_xcalloc(p->tvw ? p->tvw : 1, sizeof(uint64_t));
	p->part_tested = fw_xcalloc(cl->nparts ? cl->nparts : 1,
				    sizeof(uint32_t));
	p->part_resv = fw_xcalloc(cl->nparts ? cl->nparts : 1,
				  sizeof(uint32_t));
	p->part_blocked = fw_xcalloc(cl->nparts ? cl->nparts : 1, 1);
	p->blocked = fw_bitset_new(cl->nnodes);
	p->allowed = fw_bitset_new(cl->nnodes);
	p->nodes = fw_bitset_new(cl->nnodes);
	p->Ec = fw_bitset_new(cl->nnodes);
	p->Eb = fw_bitset_new(cl->nnodes);
	p->no_nodes = fw_bitset_new(cl->nnodes);
	p->tmp = fw_bitset_new(cl->nnodes);
	p->sel = fw_xmalloc(cl->nnodes * sizeof(uint32_t));
	if (cl->by_weight) {
		p->wsel = fw_xmalloc(cl->nnodes * sizeof(uint32_t));
		p->wcand = fw_bitset_new(cl->nnodes);
	}
	return p;
}

void fw_plan_free(struct fw_plan *p)
{
	if (!p)
		return;
	fw_tl_free(&p->tl);
	free(p->run_end);
	fw_scratch_free(&p->sc);
	fw_share_free(p->sh);
	preempt_free(p->pre);
	fw_bitset_free(p->usable);
	fw_bitset_free(p->idle);
	free(p->lic_idle);
	for (uint32_t i = 0; i < p->nresv; i++) {
		free(p->resv[i].name);
		fw_bitset_free(p->resv[i].nodes);
	}
	free(p->resv);
	free(p->tresv);
	for (uint32_t i = 0; i < p->nrr; i++) {
		free(p->rr[i].idx);
		free(p->rr[i].lics);
	}
	free(p->rr);
	for (uint32_t i = 0; i < p->nec; i++) {
		free(p->ec[i].tv);
		fw_bitset_free(p->ec[i].E);
		for (int k = 0; k < FIT_KEYS; k++)
			free(p->ec[i].fail[k].v);
	}
	free(p->ec);
	free(p->ec_hash);
	free(p->exact.v);
	free(p->tv);
	cmap_free(&p->m_user);
	cmap_free(&p->m_user_part);
	cmap_free(&p->m_assoc);
	free(p->part_tested);
	free(p->part_resv);
	free(p->part_blocked);
	free(p->resv_blocked);
	free(p->wait_mark);
	fw_bitset_free(p->blocked);
	fw_bitset_free(p->allowed);
	fw_bitset_free(p->nodes);
	fw_bitset_free(p->Ec);
	fw_bitset_free(p->Eb);
	fw_bitset_free(p->no_nodes);
	fw_bitset_free(p->tmp);
	free(p->sel);
	free(p->wsel);
	fw_bitset_free(p->wcand);
	free(p);
}

static int setup_open(const struct fw_plan *p, const char *what,
		      struct fw_err *err)
{
	if (p->setup_done)
		return fw_err_set(err, NULL, 0, what, NULL,
				  "plan set-up is closed once jobs are decided");
	return 0;
}

int check_set(const struct fw_plan *p, const struct fw_bitset *b,
	      const char *what, struct fw_err *err)
{
	if (!b || b->nbits != p->cl->nnodes)
		return fw_err_set(err, NULL, 0, what, NULL,
				  "node set does not match the cluster's %u "
				  "nodes", p->cl->nnodes);
	return 0;
}

int check_lics(const struct fw_plan *p, const struct fw_plan_lic *l,
	       uint32_t n, struct fw_err *err)
{
	if (n && !l)
		return fw_err_set(err, NULL, 0, "Licenses", NULL,
				  "license list missing");
	for (uint32_t i = 0; i < n; i++)
		if (l[i].idx >= p->cl->nlics)
			return fw_err_set(err, NULL, 0, "Licenses", NULL,
					  "license index %u out of range",
					  l[i].idx);
	return 0;
}

int fw_plan_node_down(struct fw_plan *p, uint32_t node, struct fw_err *err)
{
	if (setup_open(p, "node", err))
		return -1;
	if (node >= p->cl->nnodes)
		return fw_err_set(err, NULL, 0, "node", NULL,
				  "node index %u out of range", node);
	fw_bitset_clear_all(p->tmp);
	fw_bitset_set(p->tmp, node);
	fw_tl_occupy(&p->tl, p->tmp, 0, FW_TL_INF, NULL, 0,
		     FW_TL_AVAIL | FW_TL_FREE);
	fw_bitset_clear(p->usable, node);
	fw_bitset_clear(p->idle, node);
	p->idle_gen++;
	return 0;
}

int fw_plan_add_running(struct fw_plan *p, const struct fw_bitset *nodes,
			fw_time_t end, const struct fw_plan_lic *lics,
			uint32_t nlics, struct fw_err *err)
{
	int32_t b;

	if (setup_open(p, "running job", err) ||
	    check_set(p, nodes, "running job", err) ||
	    check_lics(p, lics, nlics, err))
		return -1;
	if (end <= 0)
		b = FW_TL_INF;
	else {
		b = end_slot(p, end);
		if (b < 1)
			b = 1;	/* overdue: still busy in the current step */
	}
	fw_tl_occupy(&p->tl, nodes, 0, b, lics, nlics,
		     FW_TL_AVAIL | FW_TL_FREE);
	if (p->sh)
		fw_share_take_all_set(p->sh, nodes, 0, b,
				      (struct fw_share_owner){ FW_HOLD_RUNNING,
							       0 });
	fw_bitset_andnot(p->idle, nodes);
	p->idle_gen++;
	for (uint32_t k = 0; k < nlics; k++)
		p->lic_idle[lics[k].idx] -= lics[k].count;
	return 0;
}

int check_uses(const struct fw_plan *p, const struct fw_node_use *u,
	       uint32_t n, const char *what, struct fw_err *err)
{
	if (n && !u)
		return fw_err_set(err, NULL, 0, what, NULL, "node list missing");
	for (uint32_t k = 0; k < n; k++) {
		if (u[k].node >= p->cl->nnodes)
			return fw_err_set(err, NULL, 0, what, NULL,
					  "node index %u out of range",
					  u[k].node);
		if (u[k].ngres && !u[k].gres)
			return fw_err_set(err, NULL, 0, what, NULL,
					  "GRES list missing");
	}
	return 0;
}

/* The nodes of a use list as p->tmp. */
struct fw_bitset *uses_set(struct fw_plan *p,
			   const struct fw_node_use *u, uint32_t n)
{
	fw_bitset_clear_all(p->tmp);
	for (uint32_t k = 0; k < n; k++)
		fw_bitset_set(p->tmp, u[k].node);
	return p->tmp;
}

/* Book the per-node amounts of u[0..n-1] over [a, b) (the share layer
 * only).  Running jobs are named by their own ids (u[k].job). */
static void share_uses(struct fw_plan *p, const struct fw_node_use *u,
		       uint32_t n, int32_t a, int32_t b,
		       struct fw_share_owner o)
{
	int64_t *amt = fw_xmalloc(p->sh->K * sizeof(int64_t));

	for (uint32_t k = 0; k < n; k++) {
		if (o.kind == FW_HOLD_RUNNING)
			o.id = u[k].job;
		fw_share_use_amounts(p->sh, &u[k], amt);
		fw_share_take(p->sh, u[k].node, a, b, amt, o);
	}
	free(amt);
}

/* Book u[0..n-1] over [a, b) in both views: the amounts per node, and
 * the nodes out of the whole-node view (they are not entirely free). */
void take_uses(struct fw_plan *p, const struct fw_node_use *u,
	       uint32_t n, int32_t a, int32_t b, int views,
	       struct fw_share_owner o)
{
	share_uses(p, u, n, a, b, o);
	fw_tl_occupy(&p->tl, uses_set(p, u, n), a, b, NULL, 0, views);
}

struct run_node {
	int32_t end;
	uint32_t node;
};

static int run_node_cmp(const void *x, const void *y)
{
	const struct run_node *a = x, *b = y;

	return (a->end < b->end) - (a->end > b->end);	/* latest first */
}

/*
 * Apply the deferred running jobs to the whole-node view: taking nodes out
 * of it commutes, so it is the same view as one take per job.  Latest end
 * first, the set of nodes busy until at least that end grows, and each
 * stretch of time between two ends is taken once with that set.
 */
void run_flush(struct fw_plan *p)
{
	struct run_node *rn;
	uint32_t n = 0;

	if (!p->run_pending)
		return;
	p->run_pending = false;
	rn = fw_xmalloc(p->cl->nnodes * sizeof(*rn));
	for (uint32_t i = 0; i < p->cl->nnodes; i++)
		if (p->run_end[i] > 0) {
			rn[n].end = p->run_end[i];
			rn[n++].node = i;
			p->run_end[i] = 0;
		}
	qsort(rn, n, sizeof(*rn), run_node_cmp);
	fw_bitset_clear_all(p->tmp);
	for (uint32_t k = 0; k < n;) {
		int32_t end = rn[k].end;

		for (; k < n && rn[k].end == end; k++)
			fw_bitset_set(p->tmp, rn[k].node);
		fw_tl_occupy(&p->tl, p->tmp, k < n ? rn[k].end : 0, end, NULL,
			     0, FW_TL_AVAIL | FW_TL_FREE);
	}
	fw_bitset_andnot(p->idle, p->tmp);
	p->idle_gen++;
	free(rn);
}

int fw_plan_add_running_use(struct fw_plan *p, const struct fw_node_use *u,
			    uint32_t n, fw_time_t end,
			    const struct fw_plan_lic *lics, uint32_t nlics,
			    struct fw_err *err)
{
	int32_t b;

	if (setup_open(p, "running job", err) ||
	    check_uses(p, u, n, "running job", err) ||
	    check_lics(p, lics, nlics, err))
		return -1;
	if (!p->sh) {
		struct fw_bitset *set = fw_bitset_dup(uses_set(p, u, n));
		int rc = fw_plan_add_running(p, set, end, lics, nlics, err);

		fw_bitset_free(set);
		return rc;
	}
	b = end <= 0 ? FW_TL_INF : end_slot(p, end);
	if (b < 1)
		b = 1;	/* overdue: still busy in the current step */
	share_uses(p, u, n, 0, b,
		   (struct fw_share_owner){ FW_HOLD_RUNNING, 0 });
	if (!p->run_end)
		p->run_end = fw_xcalloc(p->cl->nnodes, sizeof(*p->run_end));
	for (uint32_t k = 0; k < n; k++)	/* FW_TL_INF is the latest */
		if (b > p->run_end[u[k].node])
			p->run_end[u[k].node] = b;
	p->run_pending = true;
	if (nlics)
		fw_tl_occupy(&p->tl, p->no_nodes, 0, b, lics, nlics,
			     FW_TL_AVAIL | FW_TL_FREE);
	for (uint32_t k = 0; k < nlics; k++)
		p->lic_idle[lics[k].idx] -= lics[k].count;
	return 0;
}

int fw_plan_node_now(struct fw_plan *p, const struct fw_node_now *n,
		     struct fw_err *err)
{
	int64_t *cap;

	if (n->node >= p->cl->nnodes || (n->ngres && !n->gres))
		return fw_err_set(err, NULL, 0, "node limit", NULL,
				  "bad node or GRES list");
	if (!p->sh)
		return 0;
	cap = fw_xmalloc(p->sh->K * sizeof(int64_t));
	for (uint32_t k = 0; k < p->sh->K; k++)
		cap[k] = -1;
	cap[FW_SHR_GPU] = n->gpus;
	for (uint32_t g = 0; g < n->ngres; g++)
		if (n->gres[g].idx < p->cl->ngres)
			cap[FW_SHR_GRES0 + n->gres[g].idx] =
				n->gres[g].count > INT64_MAX ?
				INT64_MAX : (int64_t)n->gres[g].count;
	fw_share_now_cap(p->sh, n->node, cap);
	free(cap);
	return 0;
}

static int32_t add_resv(struct fw_plan *p, const char *name,
			const struct fw_bitset *nodes, fw_time_t start,
			fw_time_t end, bool partial, struct fw_err *err)
{
	struct advres *r;
	int32_t a, b;

	if (setup_open(p, "Reservation", err) ||
	    check_set(p, nodes, "Reservation", err))
		return -1;
	if (end <= start)
		return fw_err_set(err, NULL, 0, "Reservation", name,
				  "ends before it starts");
	/* The slot it starts in is already the reservation's, and it holds
	 * its nodes until the end is rounded up. */
	a = clamp_slot(div_floor(start - p->t0, p->res));
	if (a > p->wslots)
		a = p->wslots;
	b = end <= p->now ? 0 : end_slot(p, end);
	if (b > p->wslots)
		b = FW_TL_INF;
	fw_tl_enable_free(&p->tl);
	if (b > a && !partial)
		fw_tl_occupy(&p->tl, nodes, a, b, NULL, 0, FW_TL_AVAIL);
	/* Jobs outside it that share nodes keep off its nodes as well. */
	if (b > a && !partial && p->sh)
		fw_share_take_all_set(p->sh, nodes, a, b,
				      (struct fw_share_owner){ FW_HOLD_RESV,
							       p->nresv });
	p->resv = fw_xrealloc(p->resv, (p->nresv + 1) * sizeof(*p->resv));
	p->tresv = fw_xrealloc(p->tresv, (p->nresv + 1) * sizeof(*p->tresv));
	r = &p->resv[p->nresv];
	r->name = fw_strdup(name ? name : "");
	r->nodes = fw_bitset_dup(nodes);
	r->a = a;
	r->b = b;
	r->partial = partial;
	/* Jobs of other reservations avoid a whole-node reservation only. */
	p->tresv[p->nresv].nodes = partial ? p->no_nodes : r->nodes;
	p->tresv[p->nresv].a = a;
	p->tresv[p->nresv].b = b;
	return (int32_t)p->nresv++;
}

int32_t fw_plan_add_resv(struct fw_plan *p, const char *name,
			 const struct fw_bitset *nodes, fw_time_t start,
			 fw_time_t end, struct fw_err *err)
{
	return add_resv(p, name, nodes, start, end, false, err);
}

int32_t fw_plan_add_partial_resv(struct fw_plan *p, const char *name,
				 const struct fw_bitset *nodes,
				 fw_time_t start, fw_time_t end,
				 struct fw_err *err)
{
	return add_resv(p, name, nodes, start, end, true, err);
}

int fw_plan_resv_hold(struct fw_plan *p, int32_t resv,
		      const struct fw_node_use *u, uint32_t n,
		      struct fw_err *err)
{
	const struct advres *r;

	if (setup_open(p, "Reservation", err) ||
	    check_uses(p, u, n, "Reservation", err))
		return -1;
	if (resv < 0 || (uint32_t)resv >= p->nresv || !p->resv[resv].partial)
		return fw_err_set(err, NULL, 0, "Reservation", NULL,
				  "%d is not a partial reservation", resv);
	r = &p->resv[resv];
	if (!p->sh || r->b <= r->a)
		return 0;
	/* The reservation's own jobs (free view) may still use the node. */
	take_uses(p, u, n, r->a, r->b, FW_TL_AVAIL,
		  (struct fw_share_owner){ FW_HOLD_RESV, (uint32_t)resv });
	return 0;
}

