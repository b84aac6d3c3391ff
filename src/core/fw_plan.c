/*
 * fw_plan.c - the planner's decisions: main pass, backfill pass, and the
 * step API both are built on (see fw_plan.h for the model).
 *
 * One decision = one job in queue order:
 *   1. per-cycle limits (bf_max_job_*), counted like Slurm's backfill;
 *   2. per partition the job may use: static checks (partition limits,
 *      enough capable nodes, islands), then the earliest start with the
 *      island policy: in the whole-node timeline (fw_tl_search), or for a
 *      job that shares nodes in the per-node amounts (fw_plan_share.c);
 *      fw_plan_eval.c;
 *   3. the best partition wins (earliest start, then listed order);
 *   4. START_NOW waits for the adapter's outcome; a protected job's
 *      reservation is committed to the timeline at once; an unprotected
 *      job only gets an estimate; the reason/blocker of a job that cannot
 *      start now is worked out from the "run view" (nodes idle now).
 *
 * The other steps live beside this file (fw_plan_int.h lists them);
 * this one holds the step API and the per-cycle limits.
 *
 * Speed (doc/perf-plan.md): node sets of a (partition, node shape) class
 * are built once per plan; shapes (nodes, duration) that found no start in
 * the window are remembered per class so a larger-or-longer job of the
 * same class is rejected without a search; the search itself skips
 * segments by per-partition counts before touching bits.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_plan_int.h"

/* ------------------------------------------------------------------ */
/* Validation, thresholds, limits                                      */
/* ------------------------------------------------------------------ */

static int job_part_ok(const struct fw_plan *p, int32_t q)
{
	return q >= 0 && (uint32_t)q < p->cl->nparts;
}

static int validate_job(const struct fw_plan *p, const struct fw_plan_job *j,
			struct fw_err *err)
{
	char id[24];

	snprintf(id, sizeof(id), "%u", j->id);
	if (!job_part_ok(p, j->part))
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "partition index %d out of range", j->part);
	if (j->nalt_parts && !j->alt_parts)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "alternative partitions missing");
	for (uint32_t i = 0; i < j->nalt_parts; i++)
		if (!job_part_ok(p, j->alt_parts[i]))
			return fw_err_set(err, NULL, 0, "JobId", id,
					  "partition index %d out of range",
					  j->alt_parts[i]);
	if (j->nodes_min == 0)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "needs at least one node");
	if (j->ngres && !j->gres)
		return fw_err_set(err, NULL, 0, "JobId", id, "GRES missing");
	if (j->npreempts && !j->preempts)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "preemption classes missing");
	for (uint32_t g = 0; g < j->ngres; g++)
		if (j->gres[g].idx >= p->cl->ngres)
			return fw_err_set(err, NULL, 0, "JobId", id,
					  "GRES index %u out of range",
					  j->gres[g].idx);
	if (j->nodes_max && j->nodes_max < j->nodes_min)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "node count max %u < min %u", j->nodes_max,
				  j->nodes_min);
	if (j->req_nodes && check_set(p, j->req_nodes, "JobId", err))
		return -1;
	if (j->exc_nodes && check_set(p, j->exc_nodes, "JobId", err))
		return -1;
	if (j->resv >= 0 && (uint32_t)j->resv >= p->nresv)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "reservation index %d out of range", j->resv);
	if (j->resv < -1)
		return fw_err_set(err, NULL, 0, "JobId", id,
				  "reservation index %d invalid", j->resv);
	return check_lics(p, j->lics, j->nlics, err);
}

/* bf_min_prio_reserve (or the job's own threshold) and bf_min_age_reserve,
 * as Slurm's backfill and main scheduler apply them. */
bool meets_thresholds(const struct fw_plan *p,
		      const struct fw_plan_job *j)
{
	return fw_plan_conf_may_reserve(p->conf, p->now, j);
}

/* Slurm's _job_exceeds_max_bf_param: jobs *tested* per cycle. */
static enum fw_plan_reason check_limits(struct fw_plan *p,
					const struct fw_plan_job *j)
{
	const struct fw_plan_conf *c = p->conf;
	uint32_t *up = NULL, *pc = NULL, *as = NULL, *us = NULL;

	if (c->bf_max_job_user_part) {
		up = cmap_slot(&p->m_user_part,
			       ((uint64_t)j->uid << 32) | (uint32_t)j->part);
		if (*up >= c->bf_max_job_user_part)
			return FW_REASON_BF_MAX_USER_PART;
	}
	if (c->bf_max_job_part) {
		pc = &p->part_tested[j->part];
		if (*pc >= c->bf_max_job_part)
			return FW_REASON_BF_MAX_PART;
	}
	if (c->bf_max_job_assoc) {
		as = cmap_slot(&p->m_assoc,
			       ((uint64_t)j->uid << 32) | j->account);
		if (*as >= c->bf_max_job_assoc)
			return FW_REASON_BF_MAX_ASSOC;
	}
	if (c->bf_max_job_user) {
		us = cmap_slot(&p->m_user, j->uid);
		if (*us >= c->bf_max_job_user)
			return FW_REASON_BF_MAX_USER;
	}
	if (up)
		(*up)++;
	if (pc)
		(*pc)++;
	if (as)
		(*as)++;
	if (us)
		(*us)++;
	return FW_REASON_NONE;
}

/* ------------------------------------------------------------------ */
/* Decisions                                                           */
/* ------------------------------------------------------------------ */

static void seq_push(struct fw_plan *p)
{
	if (p->nseq == p->capseq) {
		p->capseq = p->capseq ? p->capseq * 2 : 1024;
		p->wait_mark = fw_xrealloc(p->wait_mark,
					   p->capseq * sizeof(uint32_t));
	}
	p->wait_mark[p->nseq++] = NOT_WAITING;
}

static void mark_waiting(struct fw_plan *p, uint32_t seq)
{
	p->wait_mark[seq] = p->nstarted;
	p->nwaiting++;
}

static void decision_init(struct fw_plan_decision *d, uint32_t seq,
			  int32_t part)
{
	memset(d, 0, sizeof(*d));
	d->kind = FW_PLAN_SKIPPED;
	d->seq = seq;
	d->part = part;
	d->blocker = -1;
	d->blocker_lic = -1;
}

static void add_rrec(struct fw_plan *p, const struct fw_plan_job *j,
		     uint32_t seq, int32_t a, int32_t b)
{
	struct rrec *r;

	if (p->nrr == p->caprr) {
		p->caprr = p->caprr ? p->caprr * 2 : 64;
		p->rr = fw_xrealloc(p->rr, p->caprr * sizeof(*p->rr));
	}
	r = &p->rr[p->nrr++];
	r->seq = seq;
	r->a = a;
	r->b = b;
	r->nidx = p->nsel;
	r->idx = fw_xmalloc((p->nsel ? p->nsel : 1) * sizeof(uint32_t));
	memcpy(r->idx, p->sel, p->nsel * sizeof(uint32_t));
	r->nlics = j->nlics;
	r->lics = NULL;
	if (j->nlics) {
		r->lics = fw_xmalloc(j->nlics * sizeof(*r->lics));
		memcpy(r->lics, j->lics, j->nlics * sizeof(*r->lics));
	}
}


/* What holds the waiting node-sharing job's planned nodes until its
 * start (before its own booking). */
static void set_holders(struct fw_plan *p, const struct cand *cd,
			struct fw_plan_decision *d)
{
	d->nholders = fw_share_holders(p->sh, p->sel, p->nsel, cd->c);
	d->holders = p->sh->hold;
}

/* Whole nodes the plan chose itself (a preemptor's: its victims' nodes,
 * which the whole-node view still shows busy): exactly those, and the
 * select plugin may use no others. */
static uint32_t chosen_whole(struct fw_plan *p)
{
	sel_to_nodes(p);
	fw_bitset_copy(p->allowed, p->nodes);
	return p->nsel;
}

/* START_NOW: the nodes, and the outcome the adapter must report. */
static void conclude_start(struct fw_plan *p, const struct fw_plan_job *j,
			   enum fw_plan_pass pass, const struct cand *cd,
			   struct fw_plan_decision *d)
{
	uint32_t want = j->nodes_max > j->nodes_min ? j->nodes_max :
			j->nodes_min;

	d->kind = FW_PLAN_START_NOW;
	d->reason = FW_REASON_NONE;
	d->start = p->now;
	d->end = j->time_limit > 0 ? p->now + j->time_limit : 0;
	if (cd->shared)
		d->nnodes = choose_shared(p, cd, j, want);
	else if (cd->sel_valid)
		d->nnodes = chosen_whole(p);
	else
		d->nnodes = choose_nodes(p, cd, j, want, true);
	d->shared = cd->shared;
	d->allowed = p->allowed;
	d->nodes = p->nodes;
	d->backfilled = pass == FW_PASS_BACKFILL && p->nwaiting > 0;
	d->across_islands = spans_islands(p);
	p->pend.active = true;
	p->pend.job = j;
	p->pend.pass = pass;
	p->pend.seq = d->seq;
	p->pend.part = cd->part;
	p->pend.L0 = cd->L0;
	p->pend.shared = cd->shared;
}

/* A start inside the window: a protected job's reservation is booked at
 * once, an unprotected job only gets the estimate. */
static void conclude_later(struct fw_plan *p, const struct fw_plan_job *j,
			   const struct cand *cd, struct fw_plan_decision *d)
{
	int32_t b = end_of(cd->c, cd->L0, cd->L);

	d->start = slot_time(p, cd->c);
	d->end = j->time_limit > 0 ? d->start + j->time_limit : 0;
	d->shared = cd->shared;
	if (!cd->prot) {
		d->kind = FW_PLAN_ESTIMATED;
		d->nnodes = j->nodes_min;
		if (cd->shared && cd->sel_valid)
			set_holders(p, cd, d);
		p->stats.estimated++;
		return;
	}
	d->kind = FW_PLAN_RESERVED;
	if (cd->shared || cd->sel_valid)
		sel_to_nodes(p);
	else
		choose_nodes(p, cd, j, j->nodes_min, false);
	d->nnodes = p->nsel;
	d->nodes = p->nodes;
	d->across_islands = spans_islands(p);
	/* Whole nodes on a shared cluster: the booking log knows too. */
	if (p->sh && (!cd->shared || cd->sel_valid))
		set_holders(p, cd, d);
	book_sel(p, j, d->seq, cd->shared, cd->c, b);
	add_rrec(p, j, d->seq, cd->c, b);
	p->part_resv[cd->part]++;
	p->stats.reserved++;
}

/* The first slot a job whose begin time is still ahead may start in
 * (slot 0 starts at now, slot c >= 1 at t0 + c * res); 0 for every other
 * job. */
static int32_t begin_slot(const struct fw_plan *p, const struct fw_plan_job *j)
{
	if (j->eligible <= p->now)
		return 0;
	return clamp_slot(div_ceil(j->eligible - p->t0, p->res));
}

/* Turn the best candidate into the decision; a job that does not start
 * now gets its reason. */
static void conclude(struct fw_plan *p, const struct fw_plan_job *j,
		     enum fw_plan_pass pass, const struct cand *cd,
		     struct fw_plan_decision *d)
{
	d->part = cd->part;
	d->is_protected = cd->prot;
	if (cd->kind == FW_PLAN_NOT_RUNNABLE) {
		d->kind = FW_PLAN_NOT_RUNNABLE;
		d->reason = cd->reason;
		return;
	}
	if (cd->kind == FW_PLAN_START_NOW)
		return conclude_start(p, j, pass, cd, d);
	if (cd->kind == FW_PLAN_RESERVED) {
		conclude_later(p, j, cd, d);
	} else {
		d->kind = pass == FW_PASS_MAIN ? FW_PLAN_WAITING :
			  FW_PLAN_NOT_IN_WINDOW;
		if (pass == FW_PASS_BACKFILL)
			p->stats.not_in_window++;
	}
	if (cd->reason != FW_REASON_NONE)
		d->reason = cd->reason;
	else if (begin_slot(p, j) > 0)
		/* Not in Slurm's queue yet: its begin time is the reason, and
		 * jobs started past it did not bypass it. */
		return (void)(d->reason = FW_REASON_BEGIN_TIME);
	else
		classify(p, j, cd, pass, d);
	mark_waiting(p, d->seq);
}

static int decide_backfill(struct fw_plan *p, const struct fw_plan_job *j,
			   struct fw_plan_decision *d)
{
	const struct fw_plan_conf *c = p->conf;
	enum fw_plan_reason r;
	struct cand best;
	bool preempted;
	int32_t cmin;

	if (p->stop_start) {
		d->reason = FW_REASON_BF_MAX_START;
		return 0;
	}
	if (c->bf_max_job_test && p->tested >= c->bf_max_job_test) {
		d->reason = FW_REASON_BF_MAX_TEST;
		return 0;
	}
	if ((r = check_limits(p, j)) != FW_REASON_NONE) {
		d->reason = r;
		return 0;
	}
	p->tested++;
	p->stats.tested++;
	cmin = begin_slot(p, j);
	if (cmin >= p->wslots) {
		d->kind = FW_PLAN_NOT_IN_WINDOW;
		d->reason = FW_REASON_BEGIN_TIME;
		p->stats.not_in_window++;
		return 0;
	}
	evaluate_best(p, j, FW_PASS_BACKFILL, cmin, &best);
	/* The preemption search plans starts from now (its victims' release
	 * slots): a job that may not start yet waits without victims. */
	preempted = cmin == 0 && preempt_try(p, j, FW_PASS_BACKFILL, &best);
	conclude(p, j, FW_PASS_BACKFILL, &best, d);
	if (preempted)
		preempt_report(p, d);
	return 0;
}

/* Slurm's main-scheduler rule: a job that cannot start blocks its
 * partition (its nodes are used by nobody after it in this pass), unless
 * it is below the reservation thresholds; a job in a reservation blocks
 * the reservation, a job with required nodes only those nodes. */
static void main_block(struct fw_plan *p, const struct fw_plan_job *j,
		       const struct fw_plan_decision *d)
{
	uint32_t nparts = 1 + j->nalt_parts;

	if (!meets_thresholds(p, j) || d->reason == FW_REASON_LICENSE)
		return;
	if (j->resv >= 0) {
		if (!p->resv_blocked)
			p->resv_blocked = fw_xcalloc(p->nresv ? p->nresv : 1,
						     1);
		p->resv_blocked[j->resv] = 1;
		return;
	}
	if (j->req_nodes && fw_bitset_count(j->req_nodes) >= j->nodes_min) {
		fw_bitset_or(p->blocked, j->req_nodes);
		return;
	}
	for (uint32_t k = 0; k < nparts; k++) {
		int32_t q = k == 0 ? j->part : j->alt_parts[k - 1];

		p->part_blocked[q] = 1;
		fw_bitset_or(p->blocked, p->cl->parts[q].nodes);
	}
}

static bool all_parts_blocked(const struct fw_plan *p,
			      const struct fw_plan_job *j)
{
	if (!p->part_blocked[j->part])
		return false;
	for (uint32_t k = 0; k < j->nalt_parts; k++)
		if (!p->part_blocked[j->alt_parts[k]])
			return false;
	return true;
}

bool fw_plan_main_all_blocked(const struct fw_plan *p)
{
	for (uint32_t q = 0; q < p->cl->nparts; q++)
		if (!p->part_blocked[q])
			return false;
	return p->cl->nparts > 0;
}

static int decide_main(struct fw_plan *p, const struct fw_plan_job *j,
		       struct fw_plan_decision *d)
{
	struct cand best;

	if ((j->resv >= 0 && p->resv_blocked && p->resv_blocked[j->resv]) ||
	    (j->resv < 0 && all_parts_blocked(p, j))) {
		d->kind = FW_PLAN_WAITING;
		d->reason = FW_REASON_PRIORITY;
		mark_waiting(p, d->seq);
		return 0;
	}
	if (begin_slot(p, j) > 0) {
		/* Slurm's main scheduler does not see it: it blocks nothing. */
		d->kind = FW_PLAN_WAITING;
		d->reason = FW_REASON_BEGIN_TIME;
		return 0;
	}
	p->stats.tested++;
	evaluate_best(p, j, FW_PASS_MAIN, 0, &best);
	if (preempt_try(p, j, FW_PASS_MAIN, &best)) {
		conclude(p, j, FW_PASS_MAIN, &best, d);
		preempt_report(p, d);
		return 0;
	}
	conclude(p, j, FW_PASS_MAIN, &best, d);
	if (d->kind == FW_PLAN_WAITING)
		main_block(p, j, d);
	return 0;
}

int fw_plan_decide(struct fw_plan *p, const struct fw_plan_job *j,
		   enum fw_plan_pass pass, struct fw_plan_decision *d,
		   struct fw_err *err)
{
	struct order_key k;

	if (p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "outcome of the previous START_NOW decision "
				  "not reported");
	if (validate_job(p, j, err))
		return -1;
	job_key(p->cl, j, &k);
	if (p->last.valid && key_cmp(&p->last, &k) > 0) {
		char id[24];

		/* joins late: decided now, with what the jobs after it in
		   queue order left; the order goes on from theirs */
		if (j->late) {
			k = p->last;
		} else {
			snprintf(id, sizeof(id), "%u", j->id);
			return fw_err_set(err, NULL, 0, "JobId", id,
					  "job offered out of queue order "
					  "(sort with fw_plan_sort)");
		}
	}
	p->last = k;
	if (!p->setup_done)
		run_flush(p);
	p->setup_done = true;
	decision_init(d, p->nseq, j->part);
	seq_push(p);
	p->stats.decided++;
	if (pass == FW_PASS_MAIN)
		return decide_main(p, j, d);
	return decide_backfill(p, j, d);
}

static int started_done(struct fw_plan *p, const struct fw_bitset *nodes);

int fw_plan_started(struct fw_plan *p, const struct fw_bitset *nodes,
		    struct fw_err *err)
{
	const struct fw_plan_job *j = p->pend.job;
	struct fw_share_owner o = { FW_HOLD_PLANNED, p->pend.seq };

	if (!p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "no START_NOW decision to report on");
	if (!nodes)
		nodes = p->nodes;
	if (check_set(p, nodes, "started job", err))
		return -1;
	if (p->sh && p->pend.shared) {
		int64_t i;

		fw_share_set_req(p->sh, j);
		FW_BITSET_FOREACH(nodes, i) {
			if ((uint32_t)i >= p->cl->nnodes)
				break;
			fw_share_take(p->sh, (uint32_t)i, 0, p->pend.L0,
				      p->sh->req, o);
		}
	} else if (p->sh) {
		fw_share_take_all_set(p->sh, nodes, 0, p->pend.L0, o);
	}
	fw_tl_occupy(&p->tl, nodes, 0, p->pend.L0, j->lics, j->nlics,
		     FW_TL_AVAIL | FW_TL_FREE);
	return started_done(p, nodes);
}

int fw_plan_started_use(struct fw_plan *p, const struct fw_node_use *u,
			uint32_t n, struct fw_err *err)
{
	const struct fw_plan_job *j = p->pend.job;
	struct fw_bitset *set;
	int rc;

	if (!p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "no START_NOW decision to report on");
	if (check_uses(p, u, n, "started job", err))
		return -1;
	if (p->sh && p->pend.shared) {
		take_uses(p, u, n, 0, p->pend.L0, FW_TL_AVAIL | FW_TL_FREE,
			  (struct fw_share_owner){ FW_HOLD_PLANNED,
						   p->pend.seq });
		fw_tl_occupy(&p->tl, p->no_nodes, 0, p->pend.L0, j->lics,
			     j->nlics, FW_TL_AVAIL | FW_TL_FREE);
		return started_done(p, uses_set(p, u, n));
	}
	/* Whole nodes: the same as fw_plan_started. */
	set = fw_bitset_dup(uses_set(p, u, n));
	rc = fw_plan_started(p, set, err);
	fw_bitset_free(set);
	return rc;
}

/* Bookkeeping after a start, common to both ways of reporting it. */
static int started_done(struct fw_plan *p, const struct fw_bitset *nodes)
{
	const struct fw_plan_job *j = p->pend.job;

	fw_bitset_andnot(p->idle, nodes);
	p->idle_gen++;
	for (uint32_t k = 0; k < j->nlics; k++)
		p->lic_idle[j->lics[k].idx] -= j->lics[k].count;
	p->nstarted++;
	p->stats.started++;
	if (p->pend.pass == FW_PASS_BACKFILL) {
		p->bf_started++;
		if (p->conf->bf_max_job_start &&
		    p->bf_started >= p->conf->bf_max_job_start)
			p->stop_start = true;
	}
	p->pend.active = false;
	return 0;
}

int fw_plan_start_failed(struct fw_plan *p, struct fw_plan_decision *d,
			 struct fw_err *err)
{
	const struct fw_plan_job *j = p->pend.job;
	struct cand best;
	uint32_t seq = p->pend.seq;

	if (!p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "no START_NOW decision to report on");
	p->pend.active = false;
	decision_init(d, seq, p->pend.part);
	if (p->pend.pass == FW_PASS_MAIN) {
		d->kind = FW_PLAN_WAITING;
		d->reason = FW_REASON_START_FAILED;
		mark_waiting(p, seq);
		main_block(p, j, d);
		return 0;
	}
	/* Plan it from the next step on, as if now were taken. */
	evaluate_best(p, j, FW_PASS_BACKFILL, 1, &best);
	conclude(p, j, FW_PASS_BACKFILL, &best, d);
	if (d->kind != FW_PLAN_NOT_RUNNABLE)
		d->reason = FW_REASON_START_FAILED;
	return 0;
}

int fw_plan_start_refused(struct fw_plan *p, struct fw_plan_decision *d,
			  struct fw_err *err)
{
	if (!p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "no START_NOW decision to report on");
	p->pend.active = false;
	decision_init(d, p->pend.seq, p->pend.part);
	d->reason = FW_REASON_JOB_LIMIT;
	return 0;
}

void fw_plan_bypass(const struct fw_plan *p, uint32_t *inc, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i < p->nseq && p->wait_mark[i] != NOT_WAITING)
			inc[i] = p->nstarted - p->wait_mark[i];
		else
			inc[i] = 0;
	}
}

