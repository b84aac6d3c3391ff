/*
 * fw_prio.c - the factor model's computation: raw factors of one job,
 * weights, term and group caps, scaling to Slurm's integer priority, and the
 * mapping onto sprio's columns.
 *
 * The Slurm terms follow priority/multifactor (set_priority_factors and
 * _get_priority_internal in Slurm 22.05) factor for factor.  With only
 * Slurm's terms configured (multifactor mode, fw_prio_multifactor()) the
 * total is summed in multifactor's order and truncated, as multifactor
 * does; otherwise Fairway rounds it (see fairway.conf(5)).
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_prio_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * State of one computation pass that does not depend on the job: which
 * boost windows contain `now`.  Reading the local time costs a system call
 * (tzset), so it is done at most once per pass, and only when some boost
 * applies to a job at all.
 */
struct pass {
	fw_time_t now;
	bool evaluated;
	uint64_t boost_active; /* bit i: boost i's window contains now */
};

static void pass_init(fw_time_t now, struct pass *p)
{
	p->now = now;
	p->evaluated = false;
	p->boost_active = 0;
}

static uint64_t active_boosts(const struct fw_prio_conf *c, struct pass *p)
{
	struct fw_local_time lt;

	if (p->evaluated)
		return p->boost_active;
	fw_local_time(p->now, &lt);
	for (int i = 0; i < c->nboost; i++)
		if (fw_when_active(&c->boost[i].when, &lt))
			p->boost_active |= (uint64_t)1 << i;
	p->evaluated = true;
	return p->boost_active;
}

void fw_prio_job_init(struct fw_prio_job *j)
{
	memset(j, 0, sizeof(*j));
	j->user = j->account = j->qos = j->partition = -1;
	j->queue_sec = FW_PRIO_QUEUE_AUTO;
}

/* ------------------------------------------------------------ Slurm terms */

/* Age: Slurm measures from accrue_time; 0 when the job does not accrue. */
static double age_factor(const struct fw_prio_conf *c, const struct fw_prio_job *j,
			 fw_time_t now)
{
	int64_t diff;

	if (!j->accrue_time)
		return 0;
	diff = now > j->accrue_time ? now - j->accrue_time : 0;
	/* PriorityMaxAge=0 gives 1 at once, as in Slurm */
	if (diff < c->max_age_sec)
		return (double)diff / (double)c->max_age_sec;
	return 1.0;
}

/*
 * Job size as Slurm computes it, including its quirk that without a CPU
 * count the node share is not halved.
 */
static double jobsize_factor(const struct fw_prio_conf *c,
			     const struct fw_prio_ctx *ctx,
			     const struct fw_prio_job *j)
{
	const double n = ctx->total_nodes, cpus = ctx->total_cpus;
	double js;

	if (!ctx->total_nodes || !ctx->total_cpus)
		return 0;
	if (c->flags & FW_PRIO_FLAG_SIZE_RELATIVE) {
		/* CPUs (at least the nodes' average CPUs) per minute of limit */
		double limit = j->time_limit_min ? j->time_limit_min : 1;

		js = (double)j->nodes * cpus / n;
		if (j->cpus > js)
			js = j->cpus;
		js = js / limit / cpus;
		if (c->favor_small)
			js = 1.0 - js;
	} else if (c->favor_small) {
		js = (n - j->nodes) / n;
		if (j->cpus) {
			js += (cpus - j->cpus) / cpus;
			js /= 2;
		}
	} else {
		js = j->nodes / n;
		if (j->cpus) {
			js += j->cpus / cpus;
			js /= 2;
		}
	}
	if (js < 0)
		return 0;
	return js > 1 ? 1 : js;
}

/* Sum of w_t * factor_t; per-TRES parts go to `part` and `factor`. */
static double tres_term(const struct fw_prio_conf *c, const struct fw_prio_job *j,
			double *factor, double *part)
{
	bool raw = c->flags & FW_PRIO_FLAG_NO_NORMAL_TRES;
	double sum = 0;

	for (int k = 0; k < c->ntw; k++) {
		int i = c->tw[k].idx;
		double v = j->tres ? (double)j->tres[i] : 0, f = 0;

		if (raw)
			f = v;
		else if (v != 0 && j->part_tres_total && j->part_tres_total[i])
			f = v / (double)j->part_tres_total[i];
		factor[k] = f;
		part[k] = c->tw[k].weight * f;
		sum += part[k];
	}
	return sum;
}

static void slurm_terms(const struct fw_prio_conf *c, const struct fw_prio_ctx *ctx,
			const struct fw_prio_job *j, double *raw,
			double *tres_factor, double *tres_part)
{
	raw[FW_PRIO_T_AGE] = age_factor(c, j, ctx->now);
	raw[FW_PRIO_T_FAIRSHARE] = j->fairshare;
	raw[FW_PRIO_T_JOBSIZE] = jobsize_factor(c, ctx, j);
	/* Slurm leaves the partition and QOS factors at 0 for a 0 priority */
	raw[FW_PRIO_T_PARTITION] = !j->part_prio_raw ? 0 :
		(c->flags & FW_PRIO_FLAG_NO_NORMAL_PART) ? j->part_prio_raw :
		j->part_prio_norm;
	raw[FW_PRIO_T_QOS] = !j->qos_prio_raw ? 0 :
		(c->flags & FW_PRIO_FLAG_NO_NORMAL_QOS) ? j->qos_prio_raw :
		j->qos_prio_norm;
	raw[FW_PRIO_T_ASSOC] = (c->flags & FW_PRIO_FLAG_NO_NORMAL_ASSOC) ?
		j->assoc_prio_raw : j->assoc_prio_norm;
	raw[FW_PRIO_T_TRES] = c->ntw ? tres_term(c, j, tres_factor, tres_part) : 0;
	raw[FW_PRIO_T_SITE] = (double)j->site_factor;
	raw[FW_PRIO_T_NICE] = j->nice;
}

/* ------------------------------------------------------- Fairway's terms */

static const struct fw_prio_entity *entity(const struct fw_prio_conf *c, int kind,
					   int idx)
{
	return idx >= 0 && idx < c->ent[kind].n ? &c->ent[kind].e[idx] : NULL;
}

static double cred(const struct fw_prio_conf *c, int kind, int idx)
{
	const struct fw_prio_entity *e = entity(c, kind, idx);

	return e ? e->priority : 0;
}

/* Effective queue time in seconds (see FW_PRIO_QUEUE_AUTO). */
static double queue_seconds(const struct fw_prio_job *j, fw_time_t now)
{
	fw_time_t end;

	if (j->queue_sec >= 0)
		return (double)j->queue_sec;
	if (!j->accrue_time)
		return 0;
	/* a running job's queue time stopped when it started */
	end = j->running && j->start_time ? j->start_time : now;
	return end > j->accrue_time ? (double)(end - j->accrue_time) : 0;
}

static void res_terms(const struct fw_prio_ctx *ctx, const struct fw_prio_job *j,
		      double *raw)
{
	double pe = 0;

	raw[FW_PRIO_T_NODES] = j->nodes;
	raw[FW_PRIO_T_CPUS] = j->cpus;
	raw[FW_PRIO_T_MEMGB] = (double)j->mem_mb / 1024.0;
	raw[FW_PRIO_T_GPUS] = j->gpus;
	raw[FW_PRIO_T_WALLTIME] = j->time_limit_min;
	raw[FW_PRIO_T_PROC_SECONDS] = (double)j->cpus * j->time_limit_min * 60.0;
	/* Moab PE: the larger share of CPUs or memory, in CPUs */
	if (ctx->total_cpus) {
		double share = (double)j->cpus / ctx->total_cpus;

		if (ctx->total_mem_mb && (double)j->mem_mb / (double)ctx->total_mem_mb > share)
			share = (double)j->mem_mb / (double)ctx->total_mem_mb;
		pe = share * ctx->total_cpus;
	}
	raw[FW_PRIO_T_PE] = pe;
}

/*
 * Deadline proximity: the share of the time between submission and the
 * latest start that still meets the deadline (deadline - time limit) that
 * has passed, 0..1; 1 once the latest start is reached.
 */
static double deadline_factor(const struct fw_prio_job *j, fw_time_t now)
{
	double latest, span;

	if (!j->deadline)
		return 0;
	latest = (double)j->deadline - (double)j->time_limit_min * 60.0;
	span = latest - (double)j->submit_time;
	if (span <= 0 || now >= latest)
		return 1;
	if (now <= j->submit_time)
		return 0;
	return ((double)now - (double)j->submit_time) / span;
}

double fw_prio_target_shape(double x)
{
	const double k = FW_PRIO_TARGET_K;
	const double ek = exp(k), slope = k * ek / (ek - 1);

	if (!(x > 0))
		return 0;
	if (x <= 1)
		return expm1(k * x) / (ek - 1);
	return 1 + slope * (x - 1);
}

/* XFWidthExponent: the expansion factor's growth scaled by CPUs^e, so that
 * its order is WFP's ((queue time / limit)^(1/e) x CPUs) for e > 0. */
static double xf_width(const struct fw_prio_conf *c, const struct fw_prio_job *j)
{
	if (c->xf_width_exp == 0)
		return 1;
	return pow(j->cpus > 1 ? (double)j->cpus : 1.0, c->xf_width_exp);
}

static void service_terms(const struct fw_prio_conf *c, const struct fw_prio_ctx *ctx,
			  const struct fw_prio_job *j, double qs, double *raw)
{
	const struct fw_prio_entity *q = entity(c, FW_PRIO_QOS, j->qos);
	double denom = (double)j->time_limit_min * 60.0, grow;

	/* XFactor with both times in seconds; the denominator is at least
	   XFMinWCLimit and at least one minute */
	if (denom < (double)c->xf_min_sec)
		denom = (double)c->xf_min_sec;
	if (denom < 60)
		denom = 60;
	grow = qs / denom;	/* the plain expansion factor's growth */
	raw[FW_PRIO_T_QUEUE_TIME] = qs / 60.0;
	raw[FW_PRIO_T_XFACTOR] = 1.0 + grow * xf_width(c, j);
	/* a hinge: nothing before the threshold, so it leaves the order of
	   young jobs to the other terms, then minutes past it, so that with a
	   steep weight jobs past it go first and oldest first */
	raw[FW_PRIO_T_STARVATION] = qs > (double)c->starve_sec ?
		(qs - (double)c->starve_sec) / 60.0 : 0;
	raw[FW_PRIO_T_ELIGIBLE_TIME] = qs;
	raw[FW_PRIO_T_BYPASS] = j->bypass_count;
	raw[FW_PRIO_T_START_COUNT] = j->start_count;
	raw[FW_PRIO_T_DEADLINE] = deadline_factor(j, ctx->now);
	raw[FW_PRIO_T_USER_PRIO] = j->user_prio;
	raw[FW_PRIO_T_TARGET_QUEUE_TIME] = q && q->target_qt_sec > 0 ?
		fw_prio_target_shape(qs / q->target_qt_sec) : 0;
	raw[FW_PRIO_T_TARGET_XFACTOR] = q && q->target_xf > 1 ?
		fw_prio_target_shape(grow / (q->target_xf - 1)) : 0;
}

static void usage_terms(const struct fw_prio_job *j, double *raw)
{
	double limit = (double)j->time_limit_min * 60.0, run = (double)j->run_sec;

	if (!j->running) {
		raw[FW_PRIO_T_CONSUMED] = raw[FW_PRIO_T_REMAINING] = 0;
		raw[FW_PRIO_T_PERCENT] = raw[FW_PRIO_T_EXECUTION_TIME] = 0;
		return;
	}
	raw[FW_PRIO_T_CONSUMED] = run * j->alloc_cpus;
	raw[FW_PRIO_T_REMAINING] = (limit > run ? limit - run : 0) * j->alloc_cpus;
	raw[FW_PRIO_T_PERCENT] = limit > 0 ? 100.0 * run / limit : 0;
	raw[FW_PRIO_T_EXECUTION_TIME] = run;
}

static bool boost_matches(const struct fw_prio_boost *b, const struct fw_prio_job *j)
{
	const int idx[FW_PRIO_NKINDS] = { j->user, j->account, j->qos, j->partition };

	for (int k = 0; k < FW_PRIO_NKINDS; k++)
		if (b->sel[k] >= 0 && b->sel[k] != idx[k])
			return false;
	return true;
}

static double boost_sum(const struct fw_prio_conf *c, struct pass *p,
			const struct fw_prio_job *j)
{
	uint64_t match = 0, active;
	double sum = 0;

	for (int i = 0; i < c->nboost; i++)
		if (boost_matches(&c->boost[i], j))
			match |= (uint64_t)1 << i;
	if (!match)
		return 0;
	active = active_boosts(c, p);
	for (int i = 0; i < c->nboost; i++)
		if (match & active & ((uint64_t)1 << i))
			sum += c->boost[i].priority;
	return sum;
}

/* Start value plus growth per whole minute of queue time; QOS wins. */
static double base_value(const struct fw_prio_conf *c, const struct fw_prio_job *j,
			 double qs)
{
	const struct fw_prio_entity *e = entity(c, FW_PRIO_QOS, j->qos);
	double v;

	if (!e || !(e->set & FW_ENT_BASE))
		e = entity(c, FW_PRIO_PARTITION, j->partition);
	if (!e || !(e->set & FW_ENT_BASE))
		return 0;
	v = e->base + e->growth * floor(qs / 60.0);
	return v > e->base_max ? e->base_max : v;
}

/* ------------------------------------------------------------ evaluation */

static void eval_raw(const struct fw_prio_conf *c, struct pass *p,
		     const struct fw_prio_ctx *ctx, const struct fw_prio_job *j,
		     double *raw, double *tres_factor, double *tres_part)
{
	double qs = queue_seconds(j, ctx->now);

	slurm_terms(c, ctx, j, raw, tres_factor, tres_part);
	raw[FW_PRIO_T_CRED_USER] = cred(c, FW_PRIO_USER, j->user);
	raw[FW_PRIO_T_CRED_ACCOUNT] = cred(c, FW_PRIO_ACCOUNT, j->account);
	raw[FW_PRIO_T_CRED_QOS] = cred(c, FW_PRIO_QOS, j->qos);
	raw[FW_PRIO_T_CRED_PARTITION] = cred(c, FW_PRIO_PARTITION, j->partition);
	raw[FW_PRIO_T_QUEUE_PRIORITY] = j->part_prio_raw;
	raw[FW_PRIO_T_FS] = j->fairshare;
	res_terms(ctx, j, raw);
	service_terms(c, ctx, j, qs, raw);
	usage_terms(j, raw);
	raw[FW_PRIO_T_BOOST] = c->nboost ? boost_sum(c, p, j) : 0;
	raw[FW_PRIO_T_BASE] = c->any_base ? base_value(c, j, qs) : 0;
}

/* Weights with the per-QOS adjustments (Moab's QTWEIGHT, XFWEIGHT). */
static void eval_weights(const struct fw_prio_conf *c, const struct fw_prio_job *j,
			 double *w)
{
	const struct fw_prio_entity *q = entity(c, FW_PRIO_QOS, j->qos);

	memcpy(w, c->weight, sizeof(c->weight));
	if (q) {
		w[FW_PRIO_T_QUEUE_TIME] += q->qt_weight;
		w[FW_PRIO_T_XFACTOR] += q->xf_weight;
	}
}

static double clamp_abs(double v, double cap)
{
	if (v > cap)
		return cap;
	if (v < -cap)
		return -cap;
	return v;
}

/* Terms to groups to total; value/gsum/gval may be scratch arrays. */
static double combine(const struct fw_prio_conf *c, const double *raw,
		      const double *w, double *value, double *gsum, double *gval)
{
	double total = 0;

	for (int g = 0; g < FW_PRIO_NGROUPS; g++) {
		double s = 0;

		for (int t = fw_prio_group_first[g]; t < fw_prio_group_first[g + 1]; t++) {
			/* a zero weight switches a term off whatever its raw value */
			value[t] = w[t] == 0 ? 0 : clamp_abs(w[t] * raw[t], c->cap[t]);
			s += value[t];
		}
		gsum[g] = c->gweight[g] * s;
		gval[g] = clamp_abs(gsum[g], c->gcap[g]);
		total += gval[g];
	}
	return total;
}

/*
 * priority/multifactor's total: the weighted factors added one by one in
 * the order its _get_priority_internal() adds them (age, assoc,
 * fair-share, job size, partition, QOS, the TRES parts in Slurm's TRES
 * order, site, minus nice).  Floating-point addition is not associative;
 * the same doubles in the same order give the same sum, so truncating it
 * gives multifactor's integer even when the sum lies a hair from one.
 */
static double multifactor_sum(const struct fw_prio_conf *c, const double *value,
			      const double *tres_part)
{
	double tres = 0;

	for (int n = 0; n < c->ntw; n++)
		tres += tres_part[c->tw_order[n]];
	return value[FW_PRIO_T_AGE] + value[FW_PRIO_T_ASSOC] +
	       value[FW_PRIO_T_FAIRSHARE] + value[FW_PRIO_T_JOBSIZE] +
	       value[FW_PRIO_T_PARTITION] + value[FW_PRIO_T_QOS] + tres +
	       value[FW_PRIO_T_SITE] + value[FW_PRIO_T_NICE];
}

static uint32_t scaled_priority(const struct fw_prio_conf *c, double total)
{
	double x = total * c->scale;

	/* 0 is reserved for held jobs; NaN also lands on 1 */
	if (!(x >= 1.0))
		return 1;
	if (x >= (double)UINT32_MAX)
		return UINT32_MAX;
	/* multifactor converts with a cast (truncation); a site switching
	 * from it must see the same integers */
	return c->multifactor ? (uint32_t)x : (uint32_t)llround(x);
}

static uint32_t to_priority(const struct fw_prio_conf *c, const struct fw_prio_job *j,
			    double total)
{
	uint32_t p = scaled_priority(c, total);

	if ((c->flags & FW_PRIO_FLAG_INCR_ONLY) && j->prev_priority > p)
		p = j->prev_priority;
	return p;
}

/* ------------------------------------------------------------ sprio columns */

enum column { COL_AGE, COL_ASSOC, COL_FS, COL_JS, COL_PART, COL_QOS, COL_SITE,
	      COL_NICE, COL_TRES };

/* The sprio column that shares each term's meaning (fairway.conf(5)). */
static const enum column term_column[FW_PRIO_NTERMS] = {
	[FW_PRIO_T_AGE] = COL_AGE,
	[FW_PRIO_T_FAIRSHARE] = COL_FS,
	[FW_PRIO_T_JOBSIZE] = COL_JS,
	[FW_PRIO_T_PARTITION] = COL_PART,
	[FW_PRIO_T_QOS] = COL_QOS,
	[FW_PRIO_T_ASSOC] = COL_ASSOC,
	[FW_PRIO_T_TRES] = COL_TRES,
	[FW_PRIO_T_SITE] = COL_SITE,
	[FW_PRIO_T_NICE] = COL_NICE,
	[FW_PRIO_T_CRED_USER] = COL_ASSOC,
	[FW_PRIO_T_CRED_ACCOUNT] = COL_ASSOC,
	[FW_PRIO_T_CRED_QOS] = COL_QOS,
	[FW_PRIO_T_CRED_PARTITION] = COL_PART,
	[FW_PRIO_T_QUEUE_PRIORITY] = COL_PART,
	[FW_PRIO_T_FS] = COL_FS,
	[FW_PRIO_T_NODES] = COL_JS,
	[FW_PRIO_T_CPUS] = COL_JS,
	[FW_PRIO_T_MEMGB] = COL_JS,
	[FW_PRIO_T_GPUS] = COL_JS,
	[FW_PRIO_T_WALLTIME] = COL_JS,
	[FW_PRIO_T_PROC_SECONDS] = COL_JS,
	[FW_PRIO_T_PE] = COL_JS,
	[FW_PRIO_T_QUEUE_TIME] = COL_AGE,
	[FW_PRIO_T_XFACTOR] = COL_SITE,
	[FW_PRIO_T_STARVATION] = COL_AGE,
	[FW_PRIO_T_ELIGIBLE_TIME] = COL_AGE,
	[FW_PRIO_T_BYPASS] = COL_SITE,
	[FW_PRIO_T_START_COUNT] = COL_SITE,
	[FW_PRIO_T_DEADLINE] = COL_SITE,
	[FW_PRIO_T_USER_PRIO] = COL_SITE,
	[FW_PRIO_T_TARGET_QUEUE_TIME] = COL_SITE,
	[FW_PRIO_T_TARGET_XFACTOR] = COL_SITE,
	[FW_PRIO_T_CONSUMED] = COL_SITE,
	[FW_PRIO_T_REMAINING] = COL_SITE,
	[FW_PRIO_T_PERCENT] = COL_SITE,
	[FW_PRIO_T_EXECUTION_TIME] = COL_SITE,
	[FW_PRIO_T_BOOST] = COL_SITE,
	[FW_PRIO_T_BASE] = COL_SITE,
};

/*
 * Does plain sprio show the column?  It shows SITE always, a factor column
 * only when its Slurm weight (PriorityWeightAge, ...) is not 0, TRES only
 * with PriorityWeightTRES, and NICE only with -l (sprio.c's default
 * formats).  The per-TRES parts are kept: they exist only when
 * PriorityWeightTRES is set.
 */
static bool column_shown(const struct fw_prio_conf *c, enum column k)
{
	switch (k) {
	case COL_AGE: return c->weight[FW_PRIO_T_AGE] != 0;
	case COL_ASSOC: return c->weight[FW_PRIO_T_ASSOC] != 0;
	case COL_FS: return c->weight[FW_PRIO_T_FAIRSHARE] != 0;
	case COL_JS: return c->weight[FW_PRIO_T_JOBSIZE] != 0;
	case COL_PART: return c->weight[FW_PRIO_T_PARTITION] != 0;
	case COL_QOS: return c->weight[FW_PRIO_T_QOS] != 0;
	case COL_SITE: return true;
	case COL_NICE: return false;
	default: return true;
	}
}

/* A term's share of the final priority, in scaled priority points. */
static double contribution(const struct fw_prio_conf *c,
			   const struct fw_prio_result *r, int t, double v)
{
	int g = fw_prio_term_group((enum fw_prio_term)t);
	/* a capped group scales its terms in proportion */
	double ratio = r->group_sum[g] != 0 ? r->group_value[g] / r->group_sum[g] : 1;

	return v * c->gweight[g] * ratio * c->scale;
}

/* Multifactor mode: the weighted factors as multifactor gives them to sprio. */
static void multifactor_columns(const struct fw_prio_conf *c, struct fw_prio_result *r)
{
	struct fw_prio_sprio *s = &r->sprio;

	s->age = r->value[FW_PRIO_T_AGE];
	s->assoc = r->value[FW_PRIO_T_ASSOC];
	s->fairshare = r->value[FW_PRIO_T_FAIRSHARE];
	s->jobsize = r->value[FW_PRIO_T_JOBSIZE];
	s->partition = r->value[FW_PRIO_T_PARTITION];
	s->qos = r->value[FW_PRIO_T_QOS];
	s->site = r->value[FW_PRIO_T_SITE];
	s->nice = r->raw[FW_PRIO_T_NICE];
	s->ntres = c->ntw;
	for (int k = 0; k < c->ntw; k++)
		s->tres[k] = r->tres[k];
}

static void sprio_columns(const struct fw_prio_conf *c, struct fw_prio_result *r)
{
	double col[COL_TRES] = { 0 };
	struct fw_prio_sprio *s = &r->sprio;
	/* a capped TRES term scales its parts in proportion */
	double tres_ratio = r->raw[FW_PRIO_T_TRES] != 0 ?
		r->value[FW_PRIO_T_TRES] / r->raw[FW_PRIO_T_TRES] : 0;
	int64_t sum_tres = 0;

	for (int t = 0; t < FW_PRIO_NTERMS; t++) {
		if (term_column[t] == COL_TRES || term_column[t] == COL_SITE)
			continue;
		col[term_column[t]] += (double)llround(contribution(c, r, t, r->value[t]));
	}
	s->ntres = c->ntw;
	for (int k = 0; k < c->ntw; k++) {
		int64_t v = llround(contribution(c, r, FW_PRIO_T_TRES,
						 r->tres[k] * tres_ratio));

		s->tres[k] = (double)v;
		sum_tres += v;
	}
	/* A column plain sprio does not show keeps nothing: its terms go to
	 * SITE (below), so that the columns add up in every sprio view. */
	for (int k = 0; k < COL_TRES; k++)
		if (!column_shown(c, (enum column)k))
			col[k] = 0;
	s->age = col[COL_AGE];
	s->assoc = col[COL_ASSOC];
	s->fairshare = col[COL_FS];
	s->jobsize = col[COL_JS];
	s->partition = col[COL_PART];
	s->qos = col[COL_QOS];
	s->nice = 0;
	/* site takes everything else, so that the columns add up exactly */
	s->site = (double)((int64_t)r->priority -
			   (int64_t)(s->age + s->assoc + s->fairshare + s->jobsize +
				     s->partition + s->qos + (double)sum_tres));
}

/* ------------------------------------------------------------- public API */

static void compute_full(const struct fw_prio_conf *c, struct pass *p,
			 const struct fw_prio_ctx *ctx, const struct fw_prio_job *job,
			 struct fw_prio_result *res)
{
	memset(res, 0, sizeof(*res));
	eval_raw(c, p, ctx, job, res->raw, res->tres_factor, res->tres);
	eval_weights(c, job, res->weight);
	res->total = combine(c, res->raw, res->weight, res->value, res->group_sum,
			     res->group_value);
	if (c->multifactor) {
		res->total = multifactor_sum(c, res->value, res->tres);
		res->priority = to_priority(c, job, res->total);
		multifactor_columns(c, res);
		return;
	}
	res->priority = to_priority(c, job, res->total);
	sprio_columns(c, res);
}

uint32_t fw_prio_compute(const struct fw_prio_conf *c,
			 const struct fw_prio_ctx *ctx,
			 const struct fw_prio_job *job,
			 struct fw_prio_result *res)
{
	struct pass p;

	pass_init(ctx->now, &p);
	compute_full(c, &p, ctx, job, res);
	return res->priority;
}

void fw_prio_compute_many(const struct fw_prio_conf *c,
			  const struct fw_prio_ctx *ctx,
			  const struct fw_prio_job *jobs, size_t n,
			  struct fw_prio_result *res)
{
	struct pass p;

	pass_init(ctx->now, &p);
	for (size_t i = 0; i < n; i++)
		compute_full(c, &p, ctx, &jobs[i], &res[i]);
}

void fw_prio_compute_batch(const struct fw_prio_conf *c,
			   const struct fw_prio_ctx *ctx,
			   const struct fw_prio_job *jobs, size_t n,
			   uint32_t *priority, double *total)
{
	struct pass p;

	pass_init(ctx->now, &p);
	for (size_t i = 0; i < n; i++) {
		double raw[FW_PRIO_NTERMS], w[FW_PRIO_NTERMS], value[FW_PRIO_NTERMS];
		double tf[FW_PRIO_MAX_TRES], tp[FW_PRIO_MAX_TRES];
		double gsum[FW_PRIO_NGROUPS], gval[FW_PRIO_NGROUPS], t;

		eval_raw(c, &p, ctx, &jobs[i], raw, tf, tp);
		eval_weights(c, &jobs[i], w);
		t = combine(c, raw, w, value, gsum, gval);
		if (c->multifactor)
			t = multifactor_sum(c, value, tp);
		priority[i] = to_priority(c, &jobs[i], t);
		if (total)
			total[i] = t;
	}
}

/* ---------------------------------------------------------------- explain */

struct out {
	char *buf;
	size_t len, off;
};

static void put(struct out *o, const char *fmt, ...) FW_PRINTF(2, 3);

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->off < o->len ? o->buf + o->off : NULL,
		      o->off < o->len ? o->len - o->off : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->off += (size_t)n;
}

static const char *cap_str(double cap, char *buf, size_t len)
{
	if (isinf(cap))
		return "-";
	snprintf(buf, len, "%g", cap);
	return buf;
}

/*
 * A term is listed when it adds something, or when it is configured (its
 * weight is not the default) even if it adds nothing now, e.g. Age of a job
 * that does not accrue yet.  Default-weighted terms with raw value 0 (a
 * credential without Priority=, no boost) are noise.
 */
static bool term_shown(const struct fw_prio_result *r, int t)
{
	if (r->weight[t] == 0)
		return false;
	return r->raw[t] != 0 ||
	       r->weight[t] != fw_prio_term_default_weight((enum fw_prio_term)t);
}

static void explain_tres(const struct fw_prio_conf *c, const struct fw_prio_result *r,
			 struct out *o)
{
	for (int k = 0; k < c->ntw; k++)
		put(o, "      TRES %-12s factor %-12.6g weight %-10g = %.4f\n",
		    c->tw[k].name, r->tres_factor[k], c->tw[k].weight, r->tres[k]);
}

static void explain_group(const struct fw_prio_conf *c, const struct fw_prio_result *r,
			  int g, struct out *o)
{
	char cb[32];

	put(o, "  %-8s group weight %g, cap %s: sum %.4f -> %.4f\n",
	    fw_prio_group_name((enum fw_prio_group)g), c->gweight[g],
	    cap_str(c->gcap[g], cb, sizeof(cb)), r->group_sum[g], r->group_value[g]);
	for (int t = fw_prio_group_first[g]; t < fw_prio_group_first[g + 1]; t++) {
		if (!term_shown(r, t))
			continue;
		put(o, "    %-16s raw %-14.6g weight %-10g cap %-8s value %.4f\n",
		    fw_prio_term_name((enum fw_prio_term)t), r->raw[t], r->weight[t],
		    cap_str(c->cap[t], cb, sizeof(cb)), r->value[t]);
		if (t == FW_PRIO_T_TRES)
			explain_tres(c, r, o);
	}
}

static bool group_shown(const struct fw_prio_result *r, int g)
{
	for (int t = fw_prio_group_first[g]; t < fw_prio_group_first[g + 1]; t++)
		if (term_shown(r, t))
			return true;
	return false;
}

static void explain_sprio(const struct fw_prio_conf *c, const struct fw_prio_result *r,
			  struct out *o)
{
	const struct fw_prio_sprio *s = &r->sprio;

	put(o, "  sprio: AGE %.0f ASSOC %.0f FAIRSHARE %.0f JOBSIZE %.0f PARTITION %.0f "
	    "QOS %.0f SITE %.0f NICE %.0f",
	    s->age, s->assoc, s->fairshare, s->jobsize, s->partition, s->qos,
	    s->site, s->nice);
	for (int k = 0; k < s->ntres; k++)
		put(o, " TRES:%s %.0f", c->tw[k].name, s->tres[k]);
	put(o, "\n");
}

/*
 * Multifactor mode: sprio prints each column rounded (printf's %.0f, ties
 * to even: rint) while the priority is the truncated exact sum, so the
 * shown columns may miss the priority by a point or two.  Say by how much
 * here instead of hiding it in a SITE value nobody configured.
 */
static void explain_residue(const struct fw_prio_conf *c, const struct fw_prio_result *r,
			    struct out *o)
{
	const struct fw_prio_sprio *s = &r->sprio;
	double shown = rint(s->age) + rint(s->assoc) + rint(s->fairshare) +
		       rint(s->jobsize) + rint(s->partition) + rint(s->qos) +
		       rint(s->site) - rint(s->nice);

	for (int k = 0; k < s->ntres; k++)
		shown += rint(s->tres[k]);
	put(o, "  exact: AGE %.4f ASSOC %.4f FAIRSHARE %.4f JOBSIZE %.4f PARTITION %.4f "
	    "QOS %.4f SITE %.4f NICE %.4f", s->age, s->assoc, s->fairshare, s->jobsize,
	    s->partition, s->qos, s->site, s->nice);
	for (int k = 0; k < s->ntres; k++)
		put(o, " TRES:%s %.4f", c->tw[k].name, s->tres[k]);
	put(o, "\n  rounding residue (priority - sum of the rounded columns): %lld\n",
	    (long long)r->priority - (long long)shown);
}

size_t fw_prio_explain(const struct fw_prio_conf *c,
		       const struct fw_prio_job *job,
		       const struct fw_prio_result *res, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	bool any_off = false;

	if (len)
		buf[0] = '\0';
	if (c->multifactor)
		put(&o, "Job %u: priority %u = clamp(trunc(total %.6f), 1, 2^32-1) "
		    "(only Slurm's factors: priority/multifactor's rule)",
		    job->job_id, res->priority, res->total);
	else
		put(&o, "Job %u: priority %u = clamp(round(total %.6f x PriorityScale %g), "
		    "1, 2^32-1)", job->job_id, res->priority, res->total, c->scale);
	if (scaled_priority(c, res->total) != res->priority)
		put(&o, "; INCR_ONLY keeps the previous %u", job->prev_priority);
	put(&o, "\n");
	for (int g = 0; g < FW_PRIO_NGROUPS; g++)
		if (group_shown(res, g))
			explain_group(c, res, g, &o);
	put(&o, "  zero (no weight or nothing to add):");
	for (int t = 0; t < FW_PRIO_NTERMS; t++) {
		if (term_shown(res, t))
			continue;
		put(&o, " %s", fw_prio_term_name((enum fw_prio_term)t));
		any_off = true;
	}
	put(&o, "%s\n", any_off ? "" : " none");
	explain_sprio(c, res, &o);
	if (c->multifactor)
		explain_residue(c, res, &o);
	return o.off;
}

/* ------------------------------------------------------------ windows API */

int fw_prio_window_active(const char *spec, fw_time_t now, struct fw_err *err)
{
	struct fw_when w;
	struct fw_local_time lt;
	bool on;

	if (fw_when_parse(spec, &w, err))
		return -1;
	fw_local_time(now, &lt);
	on = fw_when_active(&w, &lt);
	fw_when_free(&w);
	return on ? 1 : 0;
}
