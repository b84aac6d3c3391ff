/*
 * fw_plan_eval.c - node-set classes and the evaluation of one job in one
 * partition: static checks, the node set, the island policy, then the
 * earliest start (fw_tl_search for whole nodes, fw_share for jobs that
 * share nodes), with the caches of earlier answers.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_plan_int.h"

/* ------------------------------------------------------------------ */
/* Node-set classes                                                    */
/* ------------------------------------------------------------------ */

/* Does a node of type t have every GRES the job needs on each node, and
 * one device with all of it where the job may use only one? */
static bool type_has_gres(const struct fw_ctype *t,
			  const struct fw_plan_job *j)
{
	for (uint32_t g = 0; g < j->ngres; g++) {
		uint32_t i = j->gres[g].idx;
		uint64_t unit = t->gres_unit ? t->gres_unit[i] : 0;

		if ((t->gres ? t->gres[i] : 0) < j->gres[g].count ||
		    (unit && unit < j->gres[g].count))
			return false;
	}
	return true;
}

static void job_type_vector(struct fw_plan *p, const struct fw_plan_job *j)
{
	const struct fw_cluster *cl = p->cl;

	memset(p->tv, 0, p->tvw * sizeof(uint64_t));
	for (uint32_t t = 0; t < cl->ntypes; t++)
		if (cl->types[t].cpus >= j->cpus_per_node &&
		    cl->types[t].mem_mb >= j->mem_per_node_mb &&
		    cl->types[t].gpus >= j->gpus_per_node &&
		    type_has_gres(&cl->types[t], j))
			p->tv[t >> 6] |= (uint64_t)1 << (t & 63);
}

static uint64_t class_hash(const struct fw_plan *p, uint32_t part)
{
	uint64_t h = fw_mix64(part + 0x9e3779b97f4a7c15ULL);

	for (uint32_t i = 0; i < p->tvw; i++)
		h = fw_mix64(h ^ p->tv[i]);
	return h;
}

static uint32_t max_island_share(const struct fw_cluster *cl,
				 const struct fw_bitset *set)
{
	uint32_t best = 0;

	for (uint32_t k = 0; k < cl->nislands; k++) {
		uint32_t c = fw_bitset_count_and(set, cl->islands[k].nodes);

		if (c > best)
			best = c;
	}
	return best;
}

static void class_rehash(struct fw_plan *p)
{
	uint32_t cap = p->ec_hcap ? p->ec_hcap * 2 : 64;

	free(p->ec_hash);
	p->ec_hash = fw_xmalloc(cap * sizeof(int32_t));
	for (uint32_t i = 0; i < cap; i++)
		p->ec_hash[i] = -1;
	p->ec_hcap = cap;
	for (uint32_t i = 0; i < p->nec; i++) {
		uint32_t h = (uint32_t)p->ec[i].hash & (cap - 1);

		while (p->ec_hash[h] >= 0)
			h = (h + 1) & (cap - 1);
		p->ec_hash[h] = (int32_t)i;
	}
}

static struct eclass *class_new(struct fw_plan *p, uint32_t part,
				uint64_t hash)
{
	const struct fw_cluster *cl = p->cl;
	struct eclass *e;

	if (p->nec == p->capec) {
		p->capec = p->capec ? p->capec * 2 : 16;
		p->ec = fw_xrealloc(p->ec, p->capec * sizeof(*p->ec));
	}
	e = &p->ec[p->nec++];
	memset(e, 0, sizeof(*e));
	e->part = part;
	e->hash = hash;
	e->tv = fw_xmalloc((p->tvw ? p->tvw : 1) * sizeof(uint64_t));
	memcpy(e->tv, p->tv, p->tvw * sizeof(uint64_t));
	e->E = fw_bitset_new(cl->nnodes);
	for (uint32_t t = 0; t < cl->ntypes; t++)
		if (p->tv[t >> 6] >> (t & 63) & 1) {
			fw_bitset_or(e->E, cl->types[t].nodes);
			if (cl->types[t].cpus > e->max_cpus)
				e->max_cpus = cl->types[t].cpus;
		}
	fw_bitset_and(e->E, cl->parts[part].nodes);
	e->n_static = fw_bitset_count(e->E);
	e->isl_static = max_island_share(cl, e->E);
	fw_bitset_and(e->E, p->usable);
	e->nE = fw_bitset_count(e->E);
	e->isl_usable = max_island_share(cl, e->E);
	fw_bitset_word_range(e->E, &e->lo, &e->hi);
	e->idle_gen = UINT64_MAX;
	if (2 * p->nec > p->ec_hcap)
		class_rehash(p);
	else {
		uint32_t h = (uint32_t)hash & (p->ec_hcap - 1);

		while (p->ec_hash[h] >= 0)
			h = (h + 1) & (p->ec_hcap - 1);
		p->ec_hash[h] = (int32_t)(p->nec - 1);
	}
	return e;
}

static struct eclass *class_get(struct fw_plan *p, uint32_t part,
				const struct fw_plan_job *j)
{
	uint64_t h;

	job_type_vector(p, j);
	h = class_hash(p, part);
	if (p->ec_hcap) {
		uint32_t i = (uint32_t)h & (p->ec_hcap - 1);

		while (p->ec_hash[i] >= 0) {
			struct eclass *e = &p->ec[p->ec_hash[i]];

			if (e->hash == h && e->part == part &&
			    memcmp(e->tv, p->tv, p->tvw * sizeof(uint64_t)) == 0)
				return e;
			i = (i + 1) & (p->ec_hcap - 1);
		}
	}
	return class_new(p, part, h);
}

/* ------------------------------------------------------------------ */
/* Evaluation of one job in one partition                              */
/* ------------------------------------------------------------------ */

static int fit_key(enum fw_fit fit, bool any0)
{
	if (fit == FW_FIT_ANY)
		return FIT_KEY_ANY;
	return any0 ? FIT_KEY_PREFER : FIT_KEY_ISLAND;
}

static void cand_static(struct cand *cd, enum fw_plan_kind k,
			enum fw_plan_reason r)
{
	cd->kind = k;
	cd->reason = r;
}

/* The share layer looks at what job j may use: its advanced
 * reservation's view, or everything outside reservations. */
void shared_view(struct fw_plan *p, const struct fw_plan_job *j)
{
	fw_share_use_view(p->sh, j->resv, j->resv >= 0 ?
			  p->resv[j->resv].nodes : NULL);
}

/* s->cand = the candidate words of cd, inside island k (-1: any). */
void shared_cand(struct fw_plan *p, const struct cand *cd, int32_t k)
{
	struct fw_bitset *c = p->sh->cand;
	const uint64_t *im = k >= 0 ? p->cl->islands[k].nodes->w : NULL;

	fw_bitset_clear_all(c);
	for (uint32_t w = cd->lo; w < cd->hi; w++)
		c->w[w] = im ? cd->E[w] & im[w] : cd->E[w];
}

/*
 * With node weights: the selection re-picked as the first nodes of the
 * candidates (s->cand, as the search had them) that fit from slot c on,
 * in (weight, index) order, as Slurm allocates them (pick_weighted).  The
 * search's lowest indices stay when they all have the cluster's lowest
 * weight (no node can come before them), and if fewer nodes fit than the
 * search found (it found them fitting: a safety net).
 */
static void weigh_sel(struct fw_plan *p, const struct cand *cd, int32_t c)
{
	const struct fw_cluster *cl = p->cl;
	uint32_t wmin = cl->nodes[cl->by_weight[0]].weight, m, k;

	for (k = 0; k < p->nsel; k++)
		if (cl->nodes[p->sel[k]].weight != wmin)
			break;
	if (k == p->nsel)
		return;
	m = pick_weighted(p, NULL, p->nsel, 0, c, end_of(c, cd->L0, cd->L));
	if (m < p->nsel)
		return;
	qsort(p->wsel, m, sizeof(*p->wsel), u32_cmp);
	memcpy(p->sel, p->wsel, m * sizeof(*p->sel));
}

/* Keep the share layer's chosen nodes (start c) as the plan's selection. */
static void keep_shared_sel(struct fw_plan *p, struct cand *cd, int32_t c)
{
	cd->sel_valid = true;
	memcpy(p->sel, p->sh->sel, p->sh->nsel * sizeof(uint32_t));
	p->nsel = p->sh->nsel;
	if (p->cl->by_weight)
		weigh_sel(p, cd, c);
}

/*
 * Earliest start of a node-sharing job from slot c on: any nodes, or one
 * island (fit ISLAND: the earliest island wins, ties the lowest; with
 * any0, a start now across islands beats a later one inside one).
 */
/*
 * A job with required nodes (--nodelist): all of them, plus n - r more of
 * its other candidates, each with the job's amounts free.  The two
 * searches are alternated from c until they agree (each only moves on).
 */
static int32_t place_required(struct fw_plan *p, const struct fw_plan_job *j,
			      struct cand *cd, int32_t c, int32_t cmax)
{
	struct fw_share *s = p->sh;
	uint32_t r = fw_bitset_count(j->req_nodes), n = j->nodes_min, m = 0;
	int64_t i;

	/* Main pass: a required node that a higher-priority job blocked. */
	for (uint32_t w = 0; w < p->W; w++)
		if (j->req_nodes->w[w] & ~cd->E[w])
			return -1;
	while (c >= 0) {
		int32_t c2 = c;

		c = fw_share_earliest(s, j->req_nodes, r, c, cmax, cd->L0,
				      cd->L);
		if (c < 0 || n <= r)
			break;
		shared_cand(p, cd, -1);
		fw_bitset_andnot(s->cand, j->req_nodes);
		c2 = fw_share_earliest(s, s->cand, n - r, c, cmax, cd->L0,
				       cd->L);
		if (c2 == c)
			break;
		c = c2;
	}
	if (c < 0)
		return -1;
	/* The selection: the others chosen last, then the required ones. */
	if (n > r)
		memmove(p->sel, s->sel, (n - r) * sizeof(uint32_t));
	m = n > r ? n - r : 0;
	FW_BITSET_FOREACH(j->req_nodes, i)
		p->sel[m++] = (uint32_t)i;
	p->nsel = m;
	qsort(p->sel, p->nsel, sizeof(*p->sel), u32_cmp);
	cd->sel_valid = true;
	return c;
}

static int32_t place_shared(struct fw_plan *p, const struct fw_plan_job *j,
			    struct cand *cd, int32_t c, int32_t cmax,
			    bool any0)
{
	uint32_t n = j->nodes_min;
	int32_t best = -1, k;

	cd->island = -1;
	if (j->req_nodes)
		return place_required(p, j, cd, c, cmax);
	if (cd->fit == FW_FIT_ANY) {
		shared_cand(p, cd, -1);
		best = fw_share_earliest(p->sh, p->sh->cand, n, c, cmax,
					 cd->L0, cd->L);
		if (best >= 0)
			keep_shared_sel(p, cd, best);
		return best;
	}
	for (k = 0; k < (int32_t)p->cl->nislands; k++) {
		int32_t ck;

		shared_cand(p, cd, k);
		ck = fw_share_earliest(p->sh, p->sh->cand, n, c,
				       best >= 0 ? best - 1 : cmax, cd->L0,
				       cd->L);
		if (ck >= 0 && (best < 0 || ck < best)) {
			best = ck;
			cd->island = k;
			keep_shared_sel(p, cd, ck);
		}
	}
	if (any0 && best != 0 && c == 0) {
		shared_cand(p, cd, -1);
		if (fw_share_earliest(p->sh, p->sh->cand, n, 0, 0, cd->L0,
				      cd->L) == 0) {
			cd->island = -1;
			keep_shared_sel(p, cd, 0);
			return 0;
		}
	}
	return best;
}

/* Per-node amounts in the share layer, licenses in the whole-node
 * timeline, alternately until both agree on a start in [c, cmax]. */
static int32_t search_shared(struct fw_plan *p, const struct fw_plan_job *j,
			     struct cand *cd, int32_t c, int32_t cmax,
			     bool any0)
{
	for (;;) {
		int32_t c2;

		if (j->nlics)
			c = fw_tl_lics_earliest(&p->tl, j->lics, j->nlics, c,
						cmax, cd->L0, cd->L);
		if (c < 0)
			return -1;
		c2 = place_shared(p, j, cd, c, cmax, any0);
		if (c2 == c || c2 < 0 || !j->nlics)
			return c2;
		c = c2;
	}
}

/* evaluate() for a job that may share nodes, with what earlier answers
 * of this plan tell about its shape (fw_share_known). */
static void evaluate_shared(struct fw_plan *p, const struct fw_plan_job *j,
			    struct cand *cd, int32_t cmin, int32_t cmax,
			    bool any0, bool memo)
{
	int32_t c = cmin, c2, cmax0 = cmax;
	int fk = fit_key(cd->fit, any0);
	int64_t dkey = j->time_limit > 0 ? j->time_limit : INT64_MAX;

	cd->shared = true;
	shared_view(p, j);
	fw_share_set_req(p->sh, j);
	if (memo) {
		struct fw_share_bounds kb;

		fw_share_known(p->sh, (uint32_t)cd->cls, fk, j->nodes_min,
			       dkey, p->tl.gen, &kb);
		/* An unprotected job changes nothing: its start is known
		 * when the bounds meet (the nodes are not, and an estimate
		 * needs none). */
		if (kb.lb == FW_TL_INF ||
		    (!cd->prot && kb.lb > 0 && kb.lb == kb.ub)) {
			p->stats.cache_hits++;
			if (kb.lb == FW_TL_INF)
				return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
						   FW_REASON_NONE);
			cd->c = kb.lb;
			cd->kind = FW_PLAN_RESERVED;
			return;
		}
		if (kb.lb > c)
			c = kb.lb;
		if (kb.ub < cmax)
			cmax = kb.ub;
	}
	p->stats.searches++;
	c2 = search_shared(p, j, cd, c, cmax, any0);
	/* The upper bound holds by construction; should it ever not, the
	 * whole window is searched rather than "no start" remembered. */
	if (c2 < 0 && cmax < cmax0)
		c2 = search_shared(p, j, cd, c, cmax0, any0);
	c = c2;
	if (memo)
		fw_share_remember(p->sh, (uint32_t)cd->cls, fk, j->nodes_min,
				  dkey, p->tl.gen, c < 0 ? FW_TL_INF : c);
	if (c < 0)
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW, FW_REASON_NONE);
	cd->c = c;
	cd->kind = c == 0 ? FW_PLAN_START_NOW : FW_PLAN_RESERVED;
}

/* What evaluate()'s steps share about one job in one partition. */
struct ectx {
	const struct fw_plan_job *j;
	int32_t q;
	enum fw_plan_pass pass;
	const struct advres *R;	/* the job's advanced reservation */
	struct eclass *ec;
	bool custom;		/* node set narrowed from the class's */
	bool any0;		/* island fit, any placement now */
	bool from_next_step;	/* after a failed start */
	int32_t cmin, cmax;
	uint32_t nE;		/* usable nodes of the set */
};

/* Partition limits and what the cluster can ever give: true when they
 * decide the job (cd says how). */
static bool static_checks(struct fw_plan *p, struct ectx *x,
			  struct cand *cd)
{
	const struct fw_cpart *P = &p->cl->parts[x->q];
	const struct fw_plan_job *j = x->j;
	uint32_t n = j->nodes_min;

	if (P->max_time && (j->time_limit <= 0 || j->time_limit > P->max_time))
		return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
				   FW_REASON_PART_LIMIT), true;
	if ((P->max_nodes && n > P->max_nodes) ||
	    (P->min_nodes && n < P->min_nodes))
		return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
				   FW_REASON_PART_LIMIT), true;
	x->ec = class_get(p, (uint32_t)x->q, j);
	if (x->ec->n_static < n)
		return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
				   FW_REASON_NEVER_FITS), true;
	if (x->R && x->R->b <= 0)
		return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
				   FW_REASON_RESV_TIME), true;
	return false;
}

/* The node set: the class, narrowed by the job's own constraints (and in
 * the main pass by the blocked nodes). */
static void node_set(struct fw_plan *p, struct ectx *x, struct cand *cd)
{
	const struct fw_plan_job *j = x->j;
	struct eclass *ec = x->ec;

	x->custom = j->exc_nodes || x->R || x->pass == FW_PASS_MAIN;
	if (!x->custom) {
		cd->E = cd->Eb = ec->E->w;
		cd->lo = ec->lo;
		cd->hi = ec->hi;
		cd->cls = (int32_t)(ec - p->ec);
		x->nE = ec->nE;
		return;
	}
	fw_bitset_copy(p->Eb, ec->E);
	if (j->exc_nodes)
		fw_bitset_andnot(p->Eb, j->exc_nodes);
	if (x->R)
		fw_bitset_and(p->Eb, x->R->nodes);
	fw_bitset_copy(p->Ec, p->Eb);
	if (x->pass == FW_PASS_MAIN && !x->R)
		fw_bitset_andnot(p->Ec, p->blocked);
	fw_bitset_word_range(p->Ec, &cd->lo, &cd->hi);
	cd->E = p->Ec->w;
	cd->Eb = p->Eb->w;
	x->nE = fw_bitset_count(p->Eb);
}

/* Required nodes, enough usable nodes, the start slots a reservation's
 * job may use: true when they decide the job. */
static bool set_checks(struct fw_plan *p, struct ectx *x, struct cand *cd)
{
	const struct fw_plan_job *j = x->j;
	const struct advres *R = x->R;
	uint32_t n = j->nodes_min;

	if (j->req_nodes && !fw_bitset_is_subset(j->req_nodes, p->usable))
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
				   FW_REASON_NODES_DOWN), true;
	if (j->req_nodes) {
		fw_bitset_copy(p->tmp, x->ec->E);
		if (j->exc_nodes)
			fw_bitset_andnot(p->tmp, j->exc_nodes);
		if (R)
			fw_bitset_and(p->tmp, R->nodes);
		if (!fw_bitset_is_subset(j->req_nodes, p->tmp) ||
		    fw_bitset_count(j->req_nodes) > (j->nodes_max ?
						     j->nodes_max : n))
			return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
					   FW_REASON_NEVER_FITS), true;
	}
	if (x->nE < n)
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
				   FW_REASON_NODES_DOWN), true;
	if (R) {
		if (x->cmin < R->a)
			x->cmin = R->a;
		if (R->b != FW_TL_INF && x->cmax > R->b - 1)
			x->cmax = R->b - 1;
	}
	if (x->pass == FW_PASS_MAIN && x->cmax > 0)
		x->cmax = 0;
	if (x->cmin > x->cmax)
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
				   R ? FW_REASON_RESV_TIME : FW_REASON_NONE),
		       true;
	return false;
}

/* The island policy (cd->fit, x->any0): true when it rules the job out. */
static bool island_policy(struct fw_plan *p, struct ectx *x, struct cand *cd)
{
	const struct fw_cluster *cl = p->cl;
	uint32_t n = x->j->nodes_min, isl;

	cd->fit = FW_FIT_ANY;
	if (p->conf->topo == FW_TOPO_NONE || !cl->nislands || x->j->req_nodes)
		return false;
	if (p->conf->topo == FW_TOPO_STRICT) {
		if (x->ec->isl_static < n)
			return cand_static(cd, FW_PLAN_NOT_RUNNABLE,
					   FW_REASON_TOPOLOGY), true;
		cd->fit = FW_FIT_ISLAND;
		return false;
	}
	/* One node is always inside one island: searching island by island
	 * would find the same start (the earliest fitting node) n-islands
	 * times over. */
	if (n == 1)
		return false;
	isl = x->custom ? max_island_share(cl, p->Eb) : x->ec->isl_usable;
	if (isl >= n) {
		cd->fit = FW_FIT_ISLAND;
		x->any0 = true;
	}
	return false;
}

/* The whole-node search (fw_tl_search) from the window's cmin on. */
static void search_whole(struct fw_plan *p, const struct ectx *x,
			 int32_t cmin, struct cand *cd)
{
	const struct fw_plan_job *j = x->j;
	struct fw_search s;

	memset(&s, 0, sizeof(s));
	s.free_view = x->R != NULL;
	s.resv = p->tresv;
	s.nresv = p->nresv;
	s.own_resv = j->resv;
	s.E = cd->E;
	s.lo = cd->lo;
	s.hi = cd->hi;
	s.n = j->nodes_min;
	s.pidx = x->R ? -1 : x->q;
	s.lics = j->lics;
	s.nlics = j->nlics;
	s.cmin = cmin;
	s.cmax = x->cmax;
	s.L0 = cd->L0;
	s.L = cd->L;
	s.fit = cd->fit;
	s.any_at_zero = x->any0;
	s.req = j->req_nodes;
	p->stats.searches++;
	fw_tl_search(&p->tl, &p->sc, &s);
	p->stats.segs_pushed += s.segs_pushed;
	p->stats.quick += s.quick;
	cd->c = s.c;
	cd->island = s.island;
	cd->xlo = s.xlo;
	cd->xhi = s.xhi;
}

/*
 * A whole-node job: the earlier answers of its class first (an identical
 * shape's answer while nothing changed, for an unprotected job; the
 * frontier's lower bound otherwise), then the search, whose answer a
 * plain job records for the next ones.
 */
static void evaluate_whole(struct fw_plan *p, const struct ectx *x,
			   struct cand *cd)
{
	const struct fw_plan_job *j = x->j;
	uint32_t n = j->nodes_min, cls = (uint32_t)(x->ec - p->ec);
	int64_t dkey = j->time_limit > 0 ? j->time_limit : INT64_MAX;
	bool plain = x->pass == FW_PASS_BACKFILL && !x->custom &&
		     !j->req_nodes && !j->nlics && !x->from_next_step;
	int fk = fit_key(cd->fit, x->any0);
	int32_t cmin = x->cmin;

	if (plain && !cd->prot) {
		struct exact_ent *e = exact_find(&p->exact, cls, fk, n, dkey,
						 false);

		if (e && e->gen == p->tl.gen && e->c != FW_TL_INF && e->c > 0) {
			p->stats.cache_hits++;
			cd->c = e->c;
			cd->kind = FW_PLAN_RESERVED;
			return;
		}
	}
	if (x->pass == FW_PASS_BACKFILL && !x->R) {
		int32_t lb = frontier_bound(&x->ec->fail[fk], n, dkey);

		if (lb > cmin)
			cmin = lb;
		if (cmin > x->cmax) {
			p->stats.cache_hits++;
			return cand_static(cd, FW_PLAN_NOT_IN_WINDOW,
					   FW_REASON_NONE);
		}
	}
	if (j->req_nodes && x->custom &&
	    !fw_bitset_is_subset(j->req_nodes, p->Ec))
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW, FW_REASON_NONE);
	search_whole(p, x, cmin, cd);
	/* Not after a failed start, whose search skipped step 0. */
	if (plain) {
		struct exact_ent *e = exact_find(&p->exact, cls, fk, n, dkey,
						 true);

		e->gen = p->tl.gen;
		e->c = cd->c < 0 ? FW_TL_INF : cd->c;
		frontier_add(&x->ec->fail[fk], n, dkey, e->c);
	}
	if (cd->c < 0)
		return cand_static(cd, FW_PLAN_NOT_IN_WINDOW, FW_REASON_NONE);
	cd->kind = cd->c == 0 ? FW_PLAN_START_NOW : FW_PLAN_RESERVED;
}

/* One job in partition q: static checks, the node set, the island policy,
 * then the shared or the whole-node search. */
static void evaluate(struct fw_plan *p, const struct fw_plan_job *j,
		     int32_t q, enum fw_plan_pass pass, int32_t cmin,
		     struct cand *cd)
{
	struct ectx x = {
		.j = j, .q = q, .pass = pass, .cmin = cmin,
		.cmax = p->wslots - 1, .from_next_step = cmin > 0,
		.R = j->resv >= 0 ? &p->resv[j->resv] : NULL,
	};

	memset(cd, 0, sizeof(*cd));
	cd->part = q;
	cd->c = -1;
	cd->island = -1;
	cd->cls = -1;
	job_slots(p, j->time_limit, &cd->L0, &cd->L);
	if (static_checks(p, &x, cd))
		return;
	node_set(p, &x, cd);
	if (set_checks(p, &x, cd) || island_policy(p, &x, cd))
		return;
	cd->prot = pass == FW_PASS_BACKFILL && meets_thresholds(p, j) &&
		   (p->depth == 0 || p->part_resv[q] < p->depth) &&
		   (!p->conf->resv_by_submit || p->depth == 0 || j->head);
	/* A job that needs every CPU of any node it can use holds whole
	 * nodes anyway (every job holds a CPU): the whole-node search gives
	 * the same answer, much faster -- unless the plan has preemptable
	 * jobs, whose release only the shared search sees. */
	if (p->sh && fw_share_job(p->cl, j, q) && !(x.R && x.R->partial) &&
	    (j->cpus_per_node < x.ec->max_cpus || p->pre))
		return evaluate_shared(p, j, cd, x.cmin, x.cmax, x.any0,
				       pass == FW_PASS_BACKFILL && !x.custom &&
				       !j->nlics && !j->req_nodes &&
				       !x.from_next_step);
	evaluate_whole(p, &x, cd);
}

/* Rank for choosing among partitions: lower is better. */
static int64_t cand_rank(const struct cand *cd)
{
	switch (cd->kind) {
	case FW_PLAN_START_NOW:
	case FW_PLAN_RESERVED:
		return cd->c;
	case FW_PLAN_NOT_IN_WINDOW:
		return (int64_t)FW_TL_INF + 1;
	default:
		return (int64_t)FW_TL_INF + 2;
	}
}

/* Evaluate every partition of the job (blocked ones are skipped in the
 * main pass) and keep the best; the scratch state (intersection, node
 * sets) must be the best one's, so it is evaluated again if another
 * partition was tried after it. */
void evaluate_best(struct fw_plan *p, const struct fw_plan_job *j,
		   enum fw_plan_pass pass, int32_t cmin,
		   struct cand *best)
{
	struct cand cd;
	uint32_t nparts = 1 + j->nalt_parts;
	int32_t last = -1;
	bool have = false;

	for (uint32_t k = 0; k < nparts; k++) {
		int32_t q = k == 0 ? j->part : j->alt_parts[k - 1];

		if (pass == FW_PASS_MAIN && j->resv < 0 && p->part_blocked[q])
			continue;
		evaluate(p, j, q, pass, cmin, &cd);
		last = q;
		if (!have || cand_rank(&cd) < cand_rank(best)) {
			*best = cd;
			have = true;
		}
		if (cd.kind == FW_PLAN_START_NOW)
			break;
	}
	if (have && best->part != last)
		evaluate(p, j, best->part, pass, cmin, best);
}

