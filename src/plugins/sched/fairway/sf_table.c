/*
 * sf_table.c - sched/fairway: what the last passes decided for each job
 * (planned start, nodes, reason, blocker) and the jobs' bypass counts.
 *
 * Read by `fairway plan/explain` (through the plugin's request server) and
 * by priority/fairway (bypass counts, through the exported
 * fairway_sched_bypass_count()).  Protected by sf.tab_mu, a leaf lock.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_slurm.h"
#include "sf.h"

static uint32_t hash_id(uint32_t id)
{
	return id * 2654435761u;
}

static void entry_free(struct sf_jobinfo *e)
{
	free(e->nodes);
	free(e->partition);
	free(e->waits_for);
	free(e->victims);
	memset(e, 0, sizeof(*e));
}

static struct sf_jobinfo *find_slot(struct sf_jobinfo *tab, uint32_t cap,
				    uint32_t job_id)
{
	uint32_t mask = cap - 1;

	for (uint32_t i = hash_id(job_id) & mask;; i = (i + 1) & mask)
		if (tab[i].job_id == job_id || !tab[i].job_id)
			return &tab[i];
}

/* A job whose entry can go: gone from slurmctld or no longer pending
 * (a running job being preempted keeps it until it is gone: `fairway
 * explain` of its preemptor names it during its GraceTime). */
static bool job_done(const struct sf_jobinfo *e)
{
	job_record_t *job = find_job_record(e->job_id);

	if (job && e->preempted_for && IS_JOB_RUNNING(job) && job->preempt_time)
		return false;
	return !job || !IS_JOB_PENDING(job);
}

static void rehash(uint32_t cap, bool drop_done)
{
	struct sf_jobinfo *old = sf.tab;
	uint32_t oldcap = sf.tab_cap;

	sf.tab = xcalloc(cap, sizeof(*sf.tab));
	sf.tab_cap = cap;
	sf.tab_cnt = 0;
	for (uint32_t i = 0; i < oldcap; i++) {
		if (!old[i].job_id)
			continue;
		if (drop_done && job_done(&old[i])) {
			entry_free(&old[i]);
			continue;
		}
		*find_slot(sf.tab, sf.tab_cap, old[i].job_id) = old[i];
		sf.tab_cnt++;
	}
	xfree(old);
}

struct sf_jobinfo *sf_tab_get(uint32_t job_id, bool create)
{
	struct sf_jobinfo *e;

	if (!job_id)
		return NULL;
	if (!sf.tab_cap) {
		if (!create)
			return NULL;
		rehash(1024, false);
	}
	e = find_slot(sf.tab, sf.tab_cap, job_id);
	if (e->job_id)
		return e;
	if (!create)
		return NULL;
	if ((sf.tab_cnt + 1) * 2 > sf.tab_cap) {
		rehash(sf.tab_cap * 2, false);
		e = find_slot(sf.tab, sf.tab_cap, job_id);
	}
	e->job_id = job_id;
	sf.tab_cnt++;
	return e;
}

/*
 * Forget jobs that started or ended.  Pending jobs keep their entries
 * (and bypass counts) even when a pass skipped them - held, waiting on a
 * dependency or a limit - or did not reach them.  Caller holds the job
 * lock (read).
 */
void sf_tab_prune_done(void)
{
	if (sf.tab_cap)
		rehash(sf.tab_cap, true);
}

void sf_tab_free(void)
{
	for (uint32_t i = 0; i < sf.tab_cap; i++)
		if (sf.tab[i].job_id)
			entry_free(&sf.tab[i]);
	xfree(sf.tab);
	sf.tab_cap = sf.tab_cnt = 0;
}

/* --------------------------------------------------------------- state */

/* Bypass counts for the state file (format and parser: fw_plan_state.c). */
char *sf_tab_serialise(size_t *len)
{
	struct fw_bypass *v = malloc(((size_t)sf.tab_cnt + 1) * sizeof(*v));
	size_t n = 0;
	char *buf;

	for (uint32_t i = 0; i < sf.tab_cap; i++) {
		if (!sf.tab[i].job_id || !sf.tab[i].bypass)
			continue;
		v[n].job_id = sf.tab[i].job_id;
		v[n].count = sf.tab[i].bypass;
		n++;
	}
	buf = fw_bypass_save(v, n, len);
	free(v);
	return buf;
}

/* All or nothing; returns 0, or -1 with err if the input is not valid. */
int sf_tab_load(const char *buf, size_t len, struct fw_err *err)
{
	struct fw_bypass *v;
	size_t n;

	if (fw_bypass_load(buf, len, &v, &n, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		sf_tab_get(v[i].job_id, true)->bypass = v[i].count;
	free(v);
	return 0;
}

/* ------------------------------------------------------------ explain */

static void fmt_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static void fmt_delta(time_t d, char *buf, size_t len)
{
	if (d < 0)
		d = 0;
	if (d >= 86400)
		snprintf(buf, len, "%ldd%02ldh%02ldm", (long)(d / 86400),
			 (long)(d % 86400 / 3600), (long)(d % 3600 / 60));
	else
		snprintf(buf, len, "%ldh%02ldm%02lds", (long)(d / 3600),
			 (long)(d % 3600 / 60), (long)(d % 60));
}

static void add(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(char **out, const char *fmt, ...)
{
	va_list ap;
	char line[1024];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	xstrcat(*out, line);
}

/*
 * Jobs preempted for job_id that still run (their GraceTime): later passes
 * plan them as running until the grace ends, so the decision names no
 * victims any more; their own records say for whom.  A scan of the table,
 * for one explain request (caller holds tab_mu).
 */
static void explain_in_grace(char **out, uint32_t job_id)
{
	char *list = NULL;

	for (uint32_t i = 0; i < sf.tab_cap; i++) {
		const struct sf_jobinfo *v = &sf.tab[i];
		job_record_t *j;

		if (!v->job_id || v->preempted_for != job_id)
			continue;
		j = find_job_record(v->job_id);
		if (j && IS_JOB_RUNNING(j) && j->preempt_time)
			xstrfmtcat(list, "%s%u", list ? " " : "", v->job_id);
	}
	if (list)
		add(out, "  Preempts: job%s %s (signalled; gone when their GraceTime ends)\n",
		    strchr(list, ' ') ? "s" : "", list);
	xfree(list);
}

static void explain_reason(char **out, const struct sf_jobinfo *e)
{
	const char *why = fw_plan_reason_str((enum fw_plan_reason)e->reason);

	if (e->reason == FW_REASON_RESERVED && e->blocker_job)
		add(out, "  Why not now: the nodes it needs are reserved for higher-priority job %u\n",
		    e->blocker_job);
	else if (e->reason == FW_REASON_LICENSE && e->blocker_lic >= 0 &&
		 sf.lic_names)
		add(out, "  Why not now: license %s is in use\n",
		    sf.lic_names[e->blocker_lic]);
	else if (e->reason == FW_REASON_BEGIN_TIME)
		add(out, "  Why not now: requeued, it may not start before its EligibleTime (slurmctld waits for its old launch credential to expire); planned from then on\n");
	else if (e->reason != FW_REASON_NONE)
		add(out, "  Why not now: %s\n", why);
	if (e->waits_for)
		add(out, "  Waits for: %s\n", e->waits_for);
	if (e->victims && e->victims_later)
		add(out, "  Will preempt: job%s %s at its start, once the jobs it waits for have ended (PreemptType=%s; not signalled yet)\n",
		    strchr(e->victims, ' ') ? "s" : "", e->victims,
		    slurm_conf.preempt_type);
	else if (e->victims)
		add(out, "  Preempts: job%s %s (PreemptType=%s; Slurm requeues or cancels them, after their GraceTime)\n",
		    strchr(e->victims, ' ') ? "s" : "", e->victims,
		    slurm_conf.preempt_type);
	else
		explain_in_grace(out, e->job_id);
}

/* The record is a plan made since the job was preempted (sf_pass.c,
 * decide_late: from the pass that preempts it on, while slurmctld
 * requeues it). */
static bool planned_since_preemption(const struct sf_jobinfo *e)
{
	return e->preempted_for && e->decided >= e->preempted_at &&
	       (e->kind == FW_PLAN_RESERVED || e->kind == FW_PLAN_ESTIMATED);
}

/* A victim in its GraceTime that slurmctld will requeue: its plan. */
static void explain_requeue_plan(char **out, const struct sf_jobinfo *e)
{
	char t[64];

	if (!planned_since_preemption(e))
		return;
	fmt_time(e->start, t, sizeof(t));
	add(out, "  Once requeued: expected start %s%s%s%s\n",
	    t, e->nodes ? " on " : "", e->nodes ? e->nodes : "",
	    e->kind == FW_PLAN_ESTIMATED ? " [estimate]" : "");
}

static void explain_protection(char **out, const job_record_t *job,
			       const struct sf_jobinfo *e)
{
	const struct fw_plan_conf *pc = sf.conf ? sf.conf->plan : NULL;
	time_t now = time(NULL);
	time_t elig = job->details ? job->details->begin_time : 0;

	if (e->is_protected) {
		add(out, "  Protection: holds a reservation; no lower-priority job may delay it\n");
		return;
	}
	if (!pc)
		return;
	if (pc->bf_min_prio_reserve && e->priority < pc->bf_min_prio_reserve)
		add(out, "  Protection: none yet - priority %u is below bf_min_prio_reserve=%u, so backfill may delay it\n",
		    e->priority, pc->bf_min_prio_reserve);
	if (pc->bf_min_age_reserve && elig && now - elig < pc->bf_min_age_reserve)
		add(out, "  Protection: none yet - eligible for %lds, less than bf_min_age_reserve=%lds\n",
		    (long)(now - elig), (long)pc->bf_min_age_reserve);
	if (e->kind == FW_PLAN_ESTIMATED &&
	    !(pc->bf_min_prio_reserve && e->priority < pc->bf_min_prio_reserve) &&
	    !(pc->bf_min_age_reserve && elig && now - elig < pc->bf_min_age_reserve))
		add(out, "  Protection: none - beyond the reservation depth (ReservationDepth)\n");
}

/* A job that is not pending: its state, and what preempted it. */
static void explain_not_pending(char **out, job_record_t *job,
				const struct sf_jobinfo *e, const char *pre)
{
	char t1[64];

	add(out, "Job %u is %s", job->job_id, job_state_string(job->job_state));
	if (job->start_time && job->nodes) {
		fmt_time(job->start_time, t1, sizeof(t1));
		add(out, " since %s on %s", t1, job->nodes);
	}
	add(out, "\n");
	if (pre)
		add(out, "%s", pre);
	if (e && e->preempted_for && IS_JOB_RUNNING(job) && job->preempt_time) {
		fmt_time(e->preempted_at, t1, sizeof(t1));
		add(out, "  Preempted for: job %u (planned %s)\n",
		    e->preempted_for, t1);
		explain_requeue_plan(out, e);
	}
}

/* The planned start (or why there is none) of a decided pending job. */
static void explain_start(char **out, const struct sf_jobinfo *e, time_t now)
{
	char t1[64], t2[64], dt[64];

	if (e->kind == FW_PLAN_RESERVED || e->kind == FW_PLAN_ESTIMATED) {
		fmt_time(e->start, t1, sizeof(t1));
		fmt_delta(e->start - now, dt, sizeof(dt));
		add(out, "  Expected start: %s (in %s)%s%s%s\n", t1, dt,
		    e->nodes ? " on " : "", e->nodes ? e->nodes : "",
		    e->kind == FW_PLAN_ESTIMATED ? " [estimate]" : "");
		if (e->end) {
			fmt_time(e->end, t2, sizeof(t2));
			add(out, "  Expected end:   %s (time limit)\n", t2);
		}
	} else if (e->kind == FW_PLAN_NOT_IN_WINDOW) {
		add(out, "  Expected start: not within the planning window (bf_window)\n");
	} else if (e->kind == FW_PLAN_NOT_RUNNABLE) {
		add(out, "  Expected start: never as the cluster is defined\n");
	} else {
		add(out, "  Plan: %s\n", fw_plan_kind_str((enum fw_plan_kind)e->kind));
	}
}

/* A pending job the planner has decided: start, reason, protection. */
static void explain_pending(char **out, job_record_t *job,
			    const struct sf_jobinfo *e, time_t now)
{
	char t1[64];

	add(out, "Job %u: pending in partition %s with priority %u (plan of %lds ago)\n",
	    job->job_id, e->partition ? e->partition : "?", e->priority,
	    (long)(now - e->decided));
	explain_start(out, e, now);
	if (planned_since_preemption(e) && job->details &&
	    (IS_JOB_COMPLETING(job) || job->details->begin_time > now)) {
		fmt_time(e->preempted_at, t1, sizeof(t1));
		add(out, "  Requeued: preempted for job %u (planned %s)\n",
		    e->preempted_for, t1);
	}
	explain_reason(out, e);
	explain_protection(out, job, e);
	if (e->across_islands)
		add(out, "  Placement: spans several islands (no single island can take it)\n");
}

/* The request server frees with free(), not xfree(). */
static char *explain_result(char *out)
{
	char *r = strdup(out);

	xfree(out);
	return r;
}

char *sf_explain(uint32_t job_id, uid_t uid, const char *pre)
{
	job_record_t *job = find_job_record(job_id);
	struct sf_jobinfo *e;
	char *out = NULL;

	if (!job || !fw_job_visible_to(job, uid)) {
		add(&out, "job %u: no such job (or not visible to you)\n", job_id);
		return explain_result(out);
	}
	pthread_mutex_lock(&sf.tab_mu);
	e = sf_tab_get(job_id, false);
	if (!IS_JOB_PENDING(job))
		explain_not_pending(&out, job, e, pre);
	else if (!e || !e->decided)
		add(&out, "Job %u is pending; Fairway has not planned it yet (reason: %s)\n",
		    job_id, job_state_reason_string(job->state_reason));
	else
		explain_pending(&out, job, e, time(NULL));
	if (e && e->bypass)
		add(&out, "  Bypassed by lower-priority jobs: %u time%s\n", e->bypass,
		    e->bypass == 1 ? "" : "s");
	pthread_mutex_unlock(&sf.tab_mu);
	return explain_result(out);
}
