/*
 * sf_preempt.c - sched/fairway: PreemptType=preempt/qos and
 * preempt/partition_prio in the planner's terms (sched_fairway(8),
 * PREEMPTION; doc/design.md, "Preemption").
 *
 * The planner only chooses victims and start times.  The preemption itself
 * is Slurm's: the pass starts the job through select_nodes() on the planned
 * nodes, the select plugin picks the preemptees there and slurmctld
 * requeues or cancels them (GraceTime, accounting, the victims' Reason).
 * So the rules below follow slurmctld's preempt.c and the preempt plugins:
 *  - a running job is a candidate when its preempt mode (QOS's or
 *    partition's, else PreemptMode) is REQUEUE or CANCEL, it is not a
 *    hetjob, not yet signalled, and some class may preempt its class;
 *  - preempt/qos: class = QOS id, prio = QOS Priority (capped at 0xffff as
 *    Slurm does), grace = the victim QOS's GraceTime; a pending job may
 *    preempt the QOS of its QOS's Preempt= list;
 *  - preempt/partition_prio: class = partition, prio = PriorityTier, grace
 *    = the victim partition's GraceTime; a pending job may preempt every
 *    partition of lower PriorityTier;
 *  - exempt until start + PreemptExemptTime (QOS's, else slurm.conf's:
 *    acct_policy_get_preemptable_time()).
 * Victims in SUSPEND (or GANG) mode are planned as not preemptable, and
 * PreemptMode=WITHIN is not planned: said once in the log.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_compat.h"

#include "sf.h"

/* Preempt/qos: the QOS ids some QOS may preempt (bit per id), rebuilt per
 * pass; NULL: none.  Used by the pass thread only. */
static bitstr_t *qos_victim_class;
/* Preempt/partition_prio: the highest PriorityTier (jobs there are never
 * preempted), per pass. */
static uint32_t top_tier;
/* Names already warned about (QOS or partition with SUSPEND mode). */
#define SF_WARN_MAX 64
static char *warned[SF_WARN_MAX];
static int nwarned;

/* -------------------------------------------------------- configuration */

void sf_preempt_check_config(void)
{
	const char *t = slurm_conf.preempt_type;
	uint16_t mode = slurm_conf.preempt_mode;

	if (!t || !xstrcmp(t, "preempt/none")) {
		sf.preempt = SF_PREEMPT_NONE;
		return;
	}
	if (!xstrcmp(t, "preempt/qos")) {
		sf.preempt = SF_PREEMPT_QOS;
	} else if (!xstrcmp(t, "preempt/partition_prio")) {
		sf.preempt = SF_PREEMPT_PART;
	} else {
		sf.preempt = SF_PREEMPT_NONE;
		error("%s: slurm.conf PreemptType=%s is not supported: Fairway plans no preemption (supported: preempt/qos, preempt/partition_prio; see sched_fairway(8))",
		      PLUGIN, t);
		return;
	}
	if (mode & (PREEMPT_MODE_SUSPEND | PREEMPT_MODE_GANG))
		error("%s: slurm.conf PreemptMode=%s: SUSPEND and GANG are not supported: Fairway plans jobs whose preempt mode is SUSPEND as not preemptable (supported: REQUEUE, CANCEL; see sched_fairway(8))",
		      PLUGIN, preempt_mode_string(mode));
	if (mode & PREEMPT_MODE_WITHIN)
		error("%s: slurm.conf PreemptMode=%s: WITHIN is not supported: Fairway never plans a job to preempt jobs of its own QOS (see sched_fairway(8))",
		      PLUGIN, preempt_mode_string(mode));
	info("%s: %s planned: PreemptMode REQUEUE and CANCEL, victims lower preempt priority first, then the youngest",
	     PLUGIN, t);
}

/* Once per QOS/partition name: a SUSPEND/GANG mode Fairway cannot plan. */
static void warn_mode_once(const char *what, const char *name, uint16_t mode)
{
	for (int i = 0; i < nwarned; i++)
		if (!xstrcmp(warned[i], name))
			return;
	if (nwarned < SF_WARN_MAX)
		warned[nwarned++] = xstrdup(name);
	error("%s: %s %s has PreemptMode=%s: SUSPEND and GANG are not supported: Fairway plans its jobs as not preemptable (see sched_fairway(8))",
	      PLUGIN, what, name, preempt_mode_string(mode));
}

/* ---------------------------------------------------------- per pass */

/* Which QOS may be preempted by anybody (QOS read lock held). */
static void build_qos_victims(void)
{
	list_itr_t *it;
	slurmdb_qos_rec_t *q;

	FREE_NULL_BITMAP(qos_victim_class);
	if (!assoc_mgr_qos_list || !g_qos_count)
		return;
	qos_victim_class = bit_alloc(g_qos_count);
	it = list_iterator_create(assoc_mgr_qos_list);
	while ((q = list_next(it)))
		if (q->preempt_bitstr &&
		    bit_size(q->preempt_bitstr) == g_qos_count)
			bit_or(qos_victim_class, q->preempt_bitstr);
	list_iterator_destroy(it);
}

void sf_preempt_pass_begin(void)
{
	assoc_mgr_lock_t locks = { .qos = READ_LOCK };

	FREE_NULL_BITMAP(qos_victim_class);
	top_tier = 0;
	for (uint32_t q = 0; sf.cluster && q < sf.cluster->nparts; q++)
		if (sf.cluster->parts[q].priority_tier > top_tier)
			top_tier = sf.cluster->parts[q].priority_tier;
	if (sf.preempt != SF_PREEMPT_QOS || !slurm_preemption_enabled())
		return;
	assoc_mgr_lock(&locks);
	build_qos_victims();
	assoc_mgr_unlock(&locks);
}

void sf_preempt_fini(void)
{
	FREE_NULL_BITMAP(qos_victim_class);
	for (int i = 0; i < nwarned; i++)
		xfree(warned[i]);
	nwarned = 0;
}

/* Can some pending job ever preempt this running job's class? */
static bool class_preemptable(job_record_t *job, uint32_t *cls,
			      uint32_t *prio, int64_t *grace)
{
	if (sf.preempt == SF_PREEMPT_QOS) {
		slurmdb_qos_rec_t *q = job->qos_ptr;

		if (!q || !qos_victim_class || q->id >= g_qos_count ||
		    !bit_test(qos_victim_class, q->id))
			return false;
		*cls = q->id;
		*prio = q->priority >= 0xffff ? 0xffff : q->priority;
		*grace = q->grace_time;
		return true;
	}
	if (sf.preempt == SF_PREEMPT_PART && job->part_ptr) {
		int32_t k = fw_cluster_partition_index(sf.cluster,
						       job->part_ptr->name);

		if (k < 0 || job->part_ptr->priority_tier >= top_tier)
			return false;
		*cls = (uint32_t)k;
		*prio = job->part_ptr->priority_tier;
		*grace = job->part_ptr->grace_time;
		return true;
	}
	return false;
}

/* The job's preempt mode is one Fairway plans (REQUEUE, CANCEL)? */
static bool mode_planned(job_record_t *job)
{
	uint16_t mode = slurm_job_preempt_mode(job);

	if (mode == PREEMPT_MODE_OFF)
		return false;
	if (mode & (PREEMPT_MODE_SUSPEND | PREEMPT_MODE_GANG)) {
		if (sf.preempt == SF_PREEMPT_QOS && job->qos_ptr)
			warn_mode_once("QOS", job->qos_ptr->name, mode);
		else if (job->part_ptr)
			warn_mode_once("partition", job->part_ptr->name, mode);
		return false;
	}
	return (mode & (PREEMPT_MODE_REQUEUE | PREEMPT_MODE_CANCEL)) != 0;
}

bool sf_preempt_run(job_record_t *job, struct fw_preempt_run *pr)
{
	assoc_mgr_lock_t locks = { .qos = READ_LOCK };
	uint32_t cls, prio;
	int64_t grace;
	bool ok;

	/* A job already signalled is in its GraceTime until end_time: a
	 * plain running job until then.  After it slurmctld requeues or
	 * cancels it when the preemptor's select_nodes() runs again (or at
	 * its next time-limit check), so it is a candidate again, free now.
	 * Hetjobs: every component would have to be preemptable; not
	 * planned. */
	if (sf.preempt == SF_PREEMPT_NONE || !IS_JOB_RUNNING(job) ||
	    job->het_job_id ||
	    (job->preempt_time && job->end_time > time(NULL)))
		return false;
	if (sf.preempt == SF_PREEMPT_PART && !slurm_preemption_enabled())
		return false;
	assoc_mgr_lock(&locks);
	ok = class_preemptable(job, &cls, &prio, &grace) && mode_planned(job);
	if (ok) {
		memset(pr, 0, sizeof(*pr));
		pr->cls = cls;
		pr->prio = prio;
		pr->start = job->start_time;
		pr->exempt_until = acct_policy_get_preemptable_time(job);
		if (pr->exempt_until <= pr->start)
			pr->exempt_until = 0;	/* no PreemptExemptTime */
		pr->grace = grace;
		if (job->preempt_time)	/* grace over, exemption moot */
			pr->exempt_until = pr->grace = 0;
	}
	assoc_mgr_unlock(&locks);
	return ok;
}

/* preempt/qos: the QOS ids of the job's QOS's Preempt= list. */
static uint32_t *qos_classes(job_record_t *job, uint32_t *n)
{
	assoc_mgr_lock_t locks = { .qos = READ_LOCK };
	slurmdb_qos_rec_t *q = job->qos_ptr;
	uint32_t *v = NULL;
	int64_t cnt;

	*n = 0;
	assoc_mgr_lock(&locks);
	if (q && q->preempt_bitstr && (cnt = bit_set_count(q->preempt_bitstr))) {
		v = xcalloc(cnt, sizeof(*v));
		for (int64_t i = bit_ffs(q->preempt_bitstr);
		     i >= 0 && i < bit_size(q->preempt_bitstr) && *n < cnt;
		     i++)
			if (bit_test(q->preempt_bitstr, i) && i != q->id)
				v[(*n)++] = (uint32_t)i;
	}
	assoc_mgr_unlock(&locks);
	return v;
}

/* preempt/partition_prio: every partition of lower PriorityTier (where
 * they share nodes is the planner's business). */
static uint32_t *part_classes(int32_t part, uint32_t *n)
{
	const struct fw_cluster *cl = sf.cluster;
	uint32_t *v = NULL, tier;

	*n = 0;
	if (part < 0 || (uint32_t)part >= cl->nparts)
		return NULL;
	tier = cl->parts[part].priority_tier;
	for (uint32_t q = 0; q < cl->nparts; q++) {
		if (cl->parts[q].priority_tier >= tier)
			continue;
		if (!v)
			v = xcalloc(cl->nparts, sizeof(*v));
		v[(*n)++] = q;
	}
	return v;
}

uint32_t *sf_preempt_classes(job_record_t *job, int32_t part, uint32_t *n)
{
	*n = 0;
	if (sf.preempt == SF_PREEMPT_QOS && qos_victim_class)
		return qos_classes(job, n);
	if (sf.preempt == SF_PREEMPT_PART && slurm_preemption_enabled())
		return part_classes(part, n);
	return NULL;
}

/* --------------------------------------------------------- explanations */

/* QOS names whose Preempt= list holds id, comma-separated (xmalloc'd). */
static char *qos_preemptors(uint32_t id)
{
	list_itr_t *it;
	slurmdb_qos_rec_t *q;
	char *s = NULL;

	if (!assoc_mgr_qos_list)
		return NULL;
	it = list_iterator_create(assoc_mgr_qos_list);
	while ((q = list_next(it)))
		if (q->preempt_bitstr && id < bit_size(q->preempt_bitstr) &&
		    bit_test(q->preempt_bitstr, id))
			xstrfmtcat(s, "%s%s", s ? "," : "", q->name);
	list_iterator_destroy(it);
	return s;
}

/* Partitions of higher PriorityTier sharing nodes with part. */
static char *part_preemptors(part_record_t *part)
{
	list_itr_t *it;
	part_record_t *q;
	char *s = NULL;

	it = list_iterator_create(part_list);
	while ((q = list_next(it)))
		if (q->priority_tier > part->priority_tier && q->node_bitmap &&
		    part->node_bitmap &&
		    bit_overlap_any(q->node_bitmap, part->node_bitmap))
			xstrfmtcat(s, "%s%s", s ? "," : "", q->name);
	list_iterator_destroy(it);
	return s;
}

char *sf_preempt_running_text(uint32_t job_id)
{
	assoc_mgr_lock_t locks = { .qos = READ_LOCK };
	job_record_t *job = find_job_record(job_id);
	char *by = NULL, *out = NULL, *r;
	uint16_t mode;
	time_t exempt;

	if (sf.preempt == SF_PREEMPT_NONE || !job || !IS_JOB_RUNNING(job))
		return NULL;
	mode = slurm_job_preempt_mode(job);
	if (mode == PREEMPT_MODE_OFF)
		return NULL;
	assoc_mgr_lock(&locks);
	if (sf.preempt == SF_PREEMPT_QOS && job->qos_ptr)
		by = qos_preemptors(job->qos_ptr->id);
	else if (sf.preempt == SF_PREEMPT_PART && job->part_ptr)
		by = part_preemptors(job->part_ptr);
	exempt = acct_policy_get_preemptable_time(job);
	assoc_mgr_unlock(&locks);
	if (!by)
		return NULL;
	if (mode & (PREEMPT_MODE_SUSPEND | PREEMPT_MODE_GANG))
		xstrfmtcat(out, "  Preemption: its mode %s is not planned by Fairway (preemptable by %s %s in Slurm's terms)\n",
			   preempt_mode_string(mode),
			   sf.preempt == SF_PREEMPT_QOS ? "QOS" : "partition", by);
	else
		xstrfmtcat(out, "  Preemption: may be preempted (%s) by jobs of %s %s%s%s\n",
			   preempt_mode_string(mode),
			   sf.preempt == SF_PREEMPT_QOS ? "QOS" : "partition", by,
			   exempt > time(NULL) ? ", not before " : "",
			   exempt > time(NULL) ? "the end of PreemptExemptTime" : "");
	xfree(by);
	r = strdup(out);
	xfree(out);
	return r;
}
