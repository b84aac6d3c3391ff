/*
 * pf_jobs.c - priority/fairway: jobs to the factor model and results back
 * (job->priority, job->priority_array, job->prio_factors for sprio).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_slurm.h"
#include "pf.h"

/* The job's time limit in minutes as Slurm's JobSize/priority code sees it:
 * its own limit, else the partition's MaxTime, else one year. */
static uint32_t time_limit_min(const job_record_t *job, const part_record_t *part)
{
	uint32_t t = job->time_limit;

	if (t == NO_VAL || t == INFINITE)
		t = part ? part->max_time : INFINITE;
	if (t == NO_VAL || t == INFINITE)
		t = 365 * 24 * 60;
	return t;
}

/* CPU count as Slurm's job size factor takes it. */
static uint32_t job_cpus(const job_record_t *job)
{
	if (job->total_cpus)
		return job->total_cpus;
	if (job->details && job->details->max_cpus != NO_VAL)
		return job->details->max_cpus;
	return job->details ? job->details->min_cpus : 0;
}

static uint64_t tres_value(const job_record_t *job, int i)
{
	const uint64_t *a = job->tres_alloc_cnt ? job->tres_alloc_cnt
						: job->tres_req_cnt;

	if (!a || i < 0 || i >= slurmctld_tres_cnt || a[i] == NO_CONSUME_VAL64)
		return 0;
	return a[i];
}

static int32_t clamp_i32(int64_t v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* Fill the core's view of job in partition part under QOS qos (NULL: the
 * job's own, job->qos_ptr; another one for the entries of a multi-QOS
 * job).  tres buffers are caller-owned arrays of slurmctld_tres_cnt
 * entries. */
void pf_fill_job(job_record_t *job, part_record_t *part,
		 const slurmdb_qos_rec_t *qos, fw_time_t now,
		 struct fw_prio_job *j, uint64_t *tres, uint64_t *part_tres)
{
	const struct fw_prio_conf *c = pf.conf->prio;
	job_details_t *d = job->details;
	uint32_t flags = fw_prio_flags(c);
	int node;

	fw_prio_job_init(j);
	j->job_id = job->job_id;
	j->uid = job->user_id;
	j->account_id = job->assoc_id;
	j->user = fw_prio_resolve(c, FW_PRIO_USER, pf_job_user(job));
	j->account = job->account ? fw_prio_resolve(c, FW_PRIO_ACCOUNT, job->account) : -1;
	if (!qos)
		qos = job->qos_ptr;
	j->qos = qos && qos->name ?
		fw_prio_resolve(c, FW_PRIO_QOS, qos->name) : -1;
	j->partition = part ? fw_prio_resolve(c, FW_PRIO_PARTITION, part->name) : -1;

	if (d) {
		j->submit_time = d->submit_time;
		j->eligible_time = d->begin_time;
		j->accrue_time = (flags & FW_PRIO_FLAG_ACCRUE_ALWAYS) ?
			d->submit_time : d->accrue_time;
		j->nodes = d->min_nodes;
		j->nice = (int32_t)((int64_t)d->nice - NICE_OFFSET);
	}
	if (pf.accrue) {
		int64_t sec;
		bool accruing;

		if (fw_accrue_get(pf.accrue, job->job_id, &sec, &accruing))
			j->queue_sec = sec;
		else
			j->queue_sec = 0;
	}
	j->running = IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job);
	j->start_time = j->running ? job->start_time : 0;
	j->held = job->priority == 0;
	j->deadline = job->deadline;
	j->cpus = job_cpus(job);
	j->mem_mb = tres_value(job, TRES_ARRAY_MEM);
	j->gpus = (uint32_t)tres_value(job, pf.gpu_tres);
	j->time_limit_min = time_limit_min(job, part);
	if (pf.tres_bound && tres && part_tres) {
		for (int i = 0; i < slurmctld_tres_cnt; i++) {
			tres[i] = tres_value(job, i);
			part_tres[i] = part && part->tres_cnt ? part->tres_cnt[i] : 0;
		}
		j->tres = tres;
		j->part_tres_total = part_tres;
	}
	j->site_factor = (int64_t)job->site_factor - NICE_OFFSET;
	/* Slurm has no user-set priority but nice, which users may only
	 * raise: UserPrio is the negated nice, Moab's range. */
	j->user_prio = clamp_i32(-(int64_t)j->nice, -1024, 1023);
	j->bypass_count = pf_bypass_count(job->job_id);
	j->start_count = job->restart_cnt;
	node = pf_job_fs_node(job);
	j->fairshare = node >= 0 ? fw_fs_factor(pf.tree, node) : 0.0;
	if (part) {
		j->part_prio_raw = part->priority_job_factor;
		j->part_prio_norm = part->norm_priority;
		j->part_tier = part->priority_tier;
	}
	if (qos) {
		j->qos_prio_raw = qos->priority;
		j->qos_prio_norm = qos->usage ? qos->usage->norm_priority : 0.0;
	}
	if (job->assoc_ptr) {
		j->assoc_prio_raw = job->assoc_ptr->priority;
		j->assoc_prio_norm = job->assoc_ptr->usage ?
			job->assoc_ptr->usage->priority_norm : 0.0;
	}
	if (j->running) {
		j->run_sec = now > job->start_time ? now - job->start_time : 0;
		j->alloc_cpus = job->total_cpus;
	}
	j->prev_priority = (flags & FW_PRIO_FLAG_INCR_ONLY) ? job->priority : 0;
}

void pf_fill_ctx(struct fw_prio_ctx *ctx, fw_time_t now)
{
	ctx->now = now;
	ctx->total_nodes = node_record_count;
	ctx->total_cpus = cluster_cpus;
	ctx->total_mem_mb = pf.total_mem_mb;
}

/* sprio's columns (weighted; exact doubles in multifactor mode, integers
 * otherwise: struct fw_prio_sprio) into a factors object.  The TRES
 * arrays are kept when their size still fits (no allocation per tick). */
void pf_store_sprio(priority_factors_t *f, const struct fw_prio_sprio *sp)
{
	const struct fw_prio_conf *c = pf.conf->prio;
	int nw = fw_prio_weighted_tres(c);

	f->priority_age = sp->age;
	f->priority_assoc = sp->assoc;
	f->priority_fs = sp->fairshare;
	f->priority_js = sp->jobsize;
	f->priority_part = sp->partition;
	f->priority_qos = sp->qos;
	/* site factor and nice are integers in Slurm, offset by NICE_OFFSET */
	f->priority_site = (uint32_t)((int64_t)NICE_OFFSET + llround(sp->site));
	f->nice = (uint32_t)((int64_t)NICE_OFFSET + llround(sp->nice));
	if (nw <= 0 || !pf.tres_bound || slurmctld_tres_cnt <= 0) {
		xfree(f->priority_tres);
		xfree(f->tres_weights);
		f->tres_cnt = 0;
		return;
	}
	if (f->tres_cnt != (uint32_t)slurmctld_tres_cnt || !f->priority_tres ||
	    !f->tres_weights) {
		xfree(f->priority_tres);
		xfree(f->tres_weights);
		f->tres_cnt = slurmctld_tres_cnt;
		f->priority_tres = xcalloc(slurmctld_tres_cnt, sizeof(double));
		f->tres_weights = xcalloc(slurmctld_tres_cnt, sizeof(double));
	} else {
		memset(f->priority_tres, 0, slurmctld_tres_cnt * sizeof(double));
		memset(f->tres_weights, 0, slurmctld_tres_cnt * sizeof(double));
	}
	for (int k = 0; k < nw && k < sp->ntres; k++) {
		int i = fw_prio_weighted_tres_index(c, k);

		if (i < 0 || i >= slurmctld_tres_cnt)
			continue;
		f->priority_tres[i] += sp->tres[k];
		f->tres_weights[i] = fw_prio_weighted_tres_weight(c, k);
	}
}

/* One partition (and QOS, NULL: the job's own): the full breakdown. */
static uint32_t compute_in(job_record_t *job, part_record_t *part,
			   const slurmdb_qos_rec_t *qos, fw_time_t now,
			   struct fw_prio_result *res)
{
	struct fw_prio_job j;
	struct fw_prio_ctx ctx;
	uint64_t tres[slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1];
	uint64_t part_tres[slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1];

	pf_fill_job(job, part, qos, now, &j, tres, part_tres);
	pf_fill_ctx(&ctx, now);
	return fw_prio_compute(pf.conf->prio, &ctx, &j, res);
}

/* The entries of partition number p: one, or one per QOS of the list. */
static void part_entries(job_record_t *job, part_record_t *part, int p,
			 list_t *qos_list, int nqos, uint32_t *arr,
			 fw_time_t now)
{
	struct fw_prio_result res;
	slurmdb_qos_rec_t *qos;
	list_itr_t *it;
	int q = 0;

	if (!qos_list) {
		arr[p] = compute_in(job, part, NULL, now, &res);
		return;
	}
	it = list_iterator_create(qos_list);
	while ((qos = list_next(it)) && q < nqos) {
		arr[p * nqos + q] = compute_in(job, part, qos, now, &res);
		q++;
	}
	list_iterator_destroy(it);
}

/*
 * The priority array of a job in several partitions or (24.11+) with
 * several QOS, as Slurm indexes it: entry p * nqos + q for partition p of
 * part_ptr_list (the job's partition alone when it has no list) and QOS q
 * of its QOS list, each computed with that partition and that QOS, as
 * priority/multifactor does.  Other jobs have none.
 */
static void compute_priority_array(job_record_t *job, fw_time_t now)
{
	list_t *qos_list = fw_job_qos_list(job);
	int p = 0, n, nqos = fw_job_qos_count(job);
	part_record_t *part;
	list_itr_t *it;
	uint32_t *arr;

	if (!job->part_ptr_list && !qos_list) {
		fw_job_prio_array_free(job);
		return;
	}
	if (!job->part_ptr_list) {
		arr = fw_job_prio_array(job, nqos);
		part_entries(job, job->part_ptr, 0, qos_list, nqos, arr, now);
		return;
	}
	n = list_count(job->part_ptr_list);
	arr = fw_job_prio_array(job, n * nqos);
	it = list_iterator_create(job->part_ptr_list);
	while ((part = list_next(it)) && p < n)
		part_entries(job, part, p++, qos_list, nqos, arr, now);
	list_iterator_destroy(it);
}

uint32_t pf_compute_job(job_record_t *job, fw_time_t now, bool store)
{
	struct fw_prio_result res;
	uint32_t prio = compute_in(job, job->part_ptr, NULL, now, &res);

	if (!store)
		return prio;
	if (!job->prio_factors)
		job->prio_factors = xmalloc(sizeof(*job->prio_factors));
	pf_store_sprio(job->prio_factors, &res.sprio);
	compute_priority_array(job, now);
	return prio;
}

bool pf_needs_priority(const job_record_t *job, bool running_too)
{
	if (!job->details || job->direct_set_prio || job->priority == 0)
		return false;
	if (IS_JOB_PENDING(job))
		return true;
	return running_too && IS_JOB_RUNNING(job);
}

priority_factors_object_t *pf_factors_object(job_record_t *job,
					     part_record_t *part, fw_time_t now)
{
	priority_factors_object_t *o = xmalloc(sizeof(*o));
	struct fw_prio_result res;

	if (job->direct_set_prio) {
		/* Slurm's own objects carry no factors then (23.02+). */
		o->direct_prio = job->priority;
	} else if (part == job->part_ptr && job->prio_factors &&
		   !job->part_ptr_list) {
		/* The values behind job->priority, as computed.  Not for a
		 * multi-partition job: the schedulers move part_ptr from
		 * partition to partition, so prio_factors may belong to
		 * another one. */
		slurm_copy_priority_factors(fw_factors_of(o), job->prio_factors);
	} else {
		compute_in(job, part, NULL, now, &res);
		pf_store_sprio(fw_factors_of(o), &res.sprio);
	}
	fw_factors_set_job(o, job->job_id);
	o->user_id = job->user_id;
	fw_factors_set_names(o, part ? part->name : NULL, job->account,
			     job->qos_ptr ? job->qos_ptr->name : NULL);
	return o;
}

/* ------------------------------------------------------------ explain */

static void append(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);

	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = realloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

static void explain_partition(job_record_t *job, part_record_t *part,
			      fw_time_t now, char **out, size_t *len, size_t *cap)
{
	struct fw_prio_job j;
	struct fw_prio_ctx ctx;
	struct fw_prio_result res;
	uint64_t tres[slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1];
	uint64_t part_tres[slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1];
	char line[256];
	size_t need;
	char *text;

	pf_fill_job(job, part, NULL, now, &j, tres, part_tres);
	pf_fill_ctx(&ctx, now);
	fw_prio_compute(pf.conf->prio, &ctx, &j, &res);
	snprintf(line, sizeof(line), "Partition %s:\n", part ? part->name : "(none)");
	append(out, len, cap, line);
	need = fw_prio_explain(pf.conf->prio, &j, &res, NULL, 0);
	text = malloc(need + 1);
	fw_prio_explain(pf.conf->prio, &j, &res, text, need + 1);
	append(out, len, cap, text);
	free(text);
}

static void explain_fairshare(job_record_t *job, char **out, size_t *len,
			      size_t *cap)
{
	struct fw_fs_values v;
	char line[512];
	int node = pf_job_fs_node(job);

	if (node < 0 || fw_fs_node_values(pf.tree, node, &v))
		return;
	snprintf(line, sizeof(line),
		 "Fair-share (%s): account %s user %s  shares %u (norm %.6f)"
		 "  usage %.0f (norm %.6f, effective %.6f)  level_fs %.6g"
		 "  factor %.6f\n",
		 fw_fs_formula_name(fw_fs_tree_formula(pf.tree)),
		 v.account ? v.account : "-", v.is_user ? v.name : "-",
		 v.shares_raw, v.shares_norm, v.usage_raw, v.usage_norm,
		 v.usage_efctv, v.level_fs, v.fs_factor);
	append(out, len, cap, line);
}

char *pf_explain_absent(uint32_t job_id)
{
	char *out = NULL, line[96];
	size_t len = 0, cap = 0;

	/* Same answer for "absent" and "not yours": no information about
	 * other users' jobs leaks under PrivateData=jobs. */
	snprintf(line, sizeof(line), "job %u: no such job (or not visible to you)\n", job_id);
	append(&out, &len, &cap, line);
	return out;
}

char *pf_explain_job(uint32_t job_id)
{
	job_record_t *job = find_job_record(job_id);
	fw_time_t now = time(NULL);
	char *out = NULL, line[256];
	size_t len = 0, cap = 0;

	if (!job) /* ended and purged since the caller looked */
		return pf_explain_absent(job_id);
	snprintf(line, sizeof(line), "Job %u  user %s  account %s  state %s  priority %u%s\n",
		 job->job_id, pf_job_user(job),
		 job->account ? job->account : "-",
		 job_state_string(job->job_state), job->priority,
		 job->direct_set_prio ? " (set by an administrator)" :
		 job->priority == 0 ? " (held)" : "");
	append(&out, &len, &cap, line);
	if (job->part_ptr_list) {
		list_itr_t *it = list_iterator_create(job->part_ptr_list);
		part_record_t *part;

		while ((part = list_next(it)))
			explain_partition(job, part, now, &out, &len, &cap);
		list_iterator_destroy(it);
	} else {
		explain_partition(job, job->part_ptr, now, &out, &len, &cap);
	}
	explain_fairshare(job, &out, &len, &cap);
	return out;
}

/* --------------------------------------------------------- accrual */

/*
 * Advance the accrual ledger (AccruePolicy=Eligible): every pending and
 * running job is offered so the ledger can rank each user's and account's
 * eligible jobs and credit only the first N.
 */
void pf_accrue_tick(fw_time_t now)
{
	static struct fw_prio_job *jobs;
	static size_t cap;
	size_t n = 0;
	list_itr_t *it;
	job_record_t *job;

	if (!pf.accrue || !job_list)
		return;
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		if (!job->details ||
		    !(IS_JOB_PENDING(job) || IS_JOB_RUNNING(job)))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			jobs = xrecalloc(jobs, cap, sizeof(*jobs));
		}
		pf_fill_job(job, job->part_ptr, NULL, now, &jobs[n++], NULL,
			    NULL);
	}
	list_iterator_destroy(it);
	fw_accrue_tick(pf.accrue, jobs, n, now);
	fw_accrue_prune(pf.accrue);
}
