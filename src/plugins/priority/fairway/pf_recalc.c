/*
 * pf_recalc.c - priority/fairway: the periodic recalculation of every
 * pending job's priority, done in phases so that slurmctld's locks are held
 * only briefly:
 *
 *   gather   {job R, node R, part R} + assoc R + pf.mu: the ids of the jobs
 *            that need a priority, then each job's inputs (struct
 *            fw_prio_job, its TRES counts and its partition's) copied into
 *            pf.work; no job is modified.
 *   compute  no slurmctld or assoc_mgr lock, no pf.mu: the factor model on
 *            the copies (priority and sprio columns).  Only the
 *            recalculation thread ever replaces pf.conf, so reading it here
 *            without pf.mu is safe; fw_prio_compute() only reads it.
 *   apply    {job W, part R} + pf.mu: store priority, priority_array and
 *            prio_factors.
 *
 * Gather and apply yield: a hold ends after PF_HOLD_MS and the locks are
 * released for a moment (writers waiting on slurmctld's writer-preferring
 * locks go first).  Jobs are always looked up again by id after a lock was
 * taken (pointers from an earlier hold are never used) and left alone if
 * they changed in between: gone, no longer pending, held, admin-set, their
 * partitions changed (last_part_update: then nothing more is stored this
 * time), or priority_p_set() gave them a fresh priority (pf.work_touched).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_slurm.h"
#include "pf.h"

/* Longest a gather or apply hold lasts before it yields. */
#define PF_HOLD_MS 10.0
/* Jobs between two looks at the clock. */
#define PF_CLOCK_EVERY 64
/* Pause between two holds, so that waiting writers get the locks. */
#define PF_YIELD_USEC 1000

/* ------------------------------------------------------------- holds */

static double ts_ms(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void pf_hold_begin(struct pf_hold *h)
{
	h->wall0 = ts_ms(CLOCK_MONOTONIC);
	h->cpu0 = ts_ms(CLOCK_THREAD_CPUTIME_ID);
}

double pf_hold_elapsed(const struct pf_hold *h)
{
	return ts_ms(CLOCK_MONOTONIC) - h->wall0;
}

void pf_hold_end(const struct pf_hold *h, struct pf_hold_stats *st)
{
	double ms = pf_hold_elapsed(h);

	st->ms += ms;
	st->cpu_ms += ts_ms(CLOCK_THREAD_CPUTIME_ID) - h->cpu0;
	if (ms > st->max_ms)
		st->max_ms = ms;
	st->holds++;
}

/* ------------------------------------------------------------- buffers */

static void work_reserve(uint32_t n)
{
	if (n <= pf.work_cap)
		return;
	pf.work_cap = n + n / 4 + 1024;
	pf.work = xrecalloc(pf.work, pf.work_cap, sizeof(*pf.work));
}

static size_t tres_reserve(size_t n)
{
	size_t off = pf.work_tres_len;

	if (pf.work_tres_len + n > pf.work_tres_cap) {
		pf.work_tres_cap = (pf.work_tres_len + n) * 2 + 4096;
		pf.work_tres = xrecalloc(pf.work_tres, pf.work_tres_cap,
					 sizeof(uint64_t));
	}
	pf.work_tres_len += n;
	return off;
}

void pf_recalc_free(void)
{
	xfree(pf.work);
	pf.work_cap = pf.work_len = 0;
	xfree(pf.work_tres);
	pf.work_tres_cap = pf.work_tres_len = 0;
	xfree(pf.work_touched);
	pf.work_touched_cap = pf.work_touched_len = 0;
	xfree(pf.work_ids);
	pf.work_ids_cap = pf.work_ids_len = 0;
}

/* ------------------------------------------------------------- gather */

static void gather_one(job_record_t *job, part_record_t *part,
		       slurmdb_qos_rec_t *qos, uint16_t idx, uint16_t qidx,
		       uint16_t nqos, uint32_t nent, fw_time_t now)
{
	int nt = slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 0;
	struct pf_work *w;
	size_t off = tres_reserve(2 * (size_t)nt);

	work_reserve(pf.work_len + 1);
	w = &pf.work[pf.work_len++];
	w->job_id = job->job_id;
	w->part = part;
	w->part_idx = idx;
	w->qos = qos;
	w->qos_idx = qidx;
	w->nqos = nqos;
	w->nent = nent;
	w->tres_off = off;
	/* TRES pointers are set in the compute phase: the pool may move */
	pf_fill_job(job, part, qos, now, &w->in, pf.work_tres + off,
		    pf.work_tres + off + nt);
	w->in.tres = NULL;
	w->in.part_tres_total = NULL;
	w->has_tres = pf.tres_bound && nt > 0;
}

/* Partition number idx: one entry, or one per QOS of a multi-QOS job. */
static void gather_part(job_record_t *job, part_record_t *part, uint16_t idx,
			list_t *qos_list, uint16_t nqos, uint32_t nent,
			fw_time_t now)
{
	slurmdb_qos_rec_t *qos;
	list_itr_t *it;
	uint16_t q = 0;

	if (!qos_list) {
		gather_one(job, part, NULL, idx, 0, 1, nent, now);
		return;
	}
	it = list_iterator_create(qos_list);
	while ((qos = list_next(it)) && q < nqos)
		gather_one(job, part, qos, idx, q++, nqos, nent, now);
	list_iterator_destroy(it);
}

/* Entries partitions x QOS, in Slurm's order (compute_priority_array()). */
static void gather_job(job_record_t *job, fw_time_t now)
{
	list_t *qos_list = fw_job_qos_list(job);
	int nqos = fw_job_qos_count(job);
	int n = job->part_ptr_list ? list_count(job->part_ptr_list) : 1;

	if (n > UINT16_MAX || nqos > UINT16_MAX)
		return; /* not a real job; it keeps its priority */
	if (job->part_ptr_list) {
		list_itr_t *pit = list_iterator_create(job->part_ptr_list);
		part_record_t *part;
		uint16_t i = 0;

		while ((part = list_next(pit)) && i < n)
			gather_part(job, part, i++, qos_list, (uint16_t)nqos,
				    (uint32_t)(n * nqos), now);
		list_iterator_destroy(pit);
	} else {
		gather_part(job, job->part_ptr, 0, qos_list, (uint16_t)nqos,
			    (uint32_t)nqos, now);
	}
}

/* The ids of the jobs that need a priority (job R held). */
static void collect_ids(bool running)
{
	list_itr_t *it;
	job_record_t *job;

	pf.work_ids_len = 0;
	if (!job_list)
		return;
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		if (!pf_needs_priority(job, running))
			continue;
		if (pf.work_ids_len == pf.work_ids_cap) {
			pf.work_ids_cap = pf.work_ids_cap ? pf.work_ids_cap * 2 : 4096;
			pf.work_ids = xrecalloc(pf.work_ids, pf.work_ids_cap,
						sizeof(uint32_t));
		}
		pf.work_ids[pf.work_ids_len++] = job->job_id;
	}
	list_iterator_destroy(it);
}

static void gather(fw_time_t now, struct pf_recalc_stats *st)
{
	slurmctld_lock_t locks = { .job = READ_LOCK, .node = READ_LOCK,
				   .part = READ_LOCK };
	assoc_mgr_lock_t alocks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				    .tres = READ_LOCK, .user = READ_LOCK };
	bool running = fw_prio_flags(pf.conf->prio) & FW_PRIO_FLAG_CALCULATE_RUNNING;
	uint32_t i = 0;
	bool first = true;

	pf.work_len = 0;
	pf.work_tres_len = 0;
	while (1) {
		struct pf_hold h;

		lock_slurmctld(locks);
		pf_hold_begin(&h);
		assoc_mgr_lock(&alocks);
		pthread_mutex_lock(&pf.mu);
		if (first) {
			first = false;
			if (pf.accrue) /* reads jobs, writes only the ledger */
				pf_accrue_tick(now);
			collect_ids(running);
			st->jobs = pf.work_ids_len;
			pf.work_touched_len = 0;
			pf.work_active = true;
			pf.work_part_update = last_part_update;
			pf.work_now = now;
			pf_fill_ctx(&pf.work_ctx, now);
		}
		if (pf.work_part_update != last_part_update)
			i = pf.work_ids_len; /* partitions rebuilt: stop here */
		while (i < pf.work_ids_len) {
			job_record_t *job = find_job_record(pf.work_ids[i++]);

			if (job && pf_needs_priority(job, running))
				gather_job(job, now);
			if (!(i % PF_CLOCK_EVERY) && pf_hold_elapsed(&h) > PF_HOLD_MS)
				break;
		}
		pthread_mutex_unlock(&pf.mu);
		assoc_mgr_unlock(&alocks);
		pf_hold_end(&h, &st->read);
		unlock_slurmctld(locks);
		if (i >= pf.work_ids_len)
			break;
		usleep(PF_YIELD_USEC);
	}
}

/* ------------------------------------------------------------- compute */

static void pf_recalc_compute(void)
{
	const struct fw_prio_conf *c = pf.conf->prio;
	int nt = slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 0;
	struct fw_prio_result *res = xmalloc(sizeof(*res));

	for (uint32_t i = 0; i < pf.work_len; i++) {
		struct pf_work *w = &pf.work[i];

		if (w->has_tres) {
			w->in.tres = pf.work_tres + w->tres_off;
			w->in.part_tres_total = pf.work_tres + w->tres_off + nt;
		}
		w->priority = fw_prio_compute(c, &pf.work_ctx, &w->in, res);
		w->sprio = res->sprio;
	}
	xfree(res);
}

/* ----------------------------------------------------------- touched */

/* priority_p_set() gave job_id a fresh priority while a recalculation was
 * between its gather and apply phases (pf.mu held). */
void pf_recalc_touch(uint32_t job_id)
{
	if (!pf.work_active)
		return;
	if (pf.work_touched_len == pf.work_touched_cap) {
		pf.work_touched_cap = pf.work_touched_cap ? pf.work_touched_cap * 2 : 256;
		pf.work_touched = xrecalloc(pf.work_touched, pf.work_touched_cap,
					    sizeof(uint32_t));
	}
	pf.work_touched[pf.work_touched_len++] = job_id;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool touched(uint32_t job_id)
{
	return pf.work_touched_len &&
	       bsearch(&job_id, pf.work_touched, pf.work_touched_len,
		       sizeof(uint32_t), cmp_u32);
}

/* ------------------------------------------------------------- apply */

/* Are the entries [w, w + w->nent) still about this job's partitions
 * and QOS? */
static bool same_partitions(const job_record_t *job, const struct pf_work *w)
{
	int nqos = fw_job_qos_count(job);

	if (w->nqos != nqos)
		return false;
	if (!job->part_ptr_list)
		return w->nent == (uint32_t)nqos && w->part == job->part_ptr;
	return (uint32_t)(list_count(job->part_ptr_list) * nqos) == w->nent;
}

static bool apply_job(job_record_t *job, const struct pf_work *w)
{
	const struct pf_work *mainw = NULL;
	uint32_t old = job->priority;

	if (job->part_ptr_list || fw_job_qos_list(job)) {
		/* Partition x QOS entries (see compute_priority_array());
		 * the job's own priority is that of its partition and QOS. */
		uint32_t *arr = fw_job_prio_array(job, w->nent);

		for (uint32_t k = 0; k < w->nent; k++) {
			arr[w[k].part_idx * w[k].nqos + w[k].qos_idx] =
				w[k].priority;
			if (!mainw && w[k].part == job->part_ptr &&
			    (!w[k].qos || w[k].qos == job->qos_ptr))
				mainw = &w[k];
		}
		if (!mainw)
			mainw = w; /* not among them: the first entry */
	} else {
		fw_job_prio_array_free(job);
		mainw = w;
	}
	if (!job->prio_factors)
		job->prio_factors = xmalloc(sizeof(*job->prio_factors));
	pf_store_sprio(job->prio_factors, &mainw->sprio);
	job->priority = mainw->priority;
	return job->priority != old;
}

static void apply(struct pf_recalc_stats *st)
{
	slurmctld_lock_t locks = { .job = WRITE_LOCK, .part = READ_LOCK };
	bool running = fw_prio_flags(pf.conf->prio) & FW_PRIO_FLAG_CALCULATE_RUNNING;
	uint32_t i = 0;

	while (1) {
		struct pf_hold h;
		bool changed = false;
		uint32_t n = 0;

		lock_slurmctld(locks);
		pf_hold_begin(&h);
		pthread_mutex_lock(&pf.mu);
		if (pf.work_touched_len)
			qsort(pf.work_touched, pf.work_touched_len,
			      sizeof(uint32_t), cmp_u32);
		if (pf.work_part_update != last_part_update) {
			/* partitions were rebuilt: entries may name freed
			 * records; the next recalculation starts over */
			for (; i < pf.work_len; i += pf.work[i].nent)
				st->skipped++;
		}
		while (i < pf.work_len) {
			const struct pf_work *w = &pf.work[i];
			job_record_t *job = find_job_record(w->job_id);

			i += w->nent;
			if (!job || !pf_needs_priority(job, running) ||
			    touched(w->job_id) || !same_partitions(job, w)) {
				st->skipped++;
			} else {
				changed |= apply_job(job, w);
				st->stored++;
			}
			if (!(++n % PF_CLOCK_EVERY) && pf_hold_elapsed(&h) > PF_HOLD_MS)
				break;
		}
		if (changed)
			last_job_update = time(NULL);
		if (i >= pf.work_len)
			pf.work_active = false;
		pthread_mutex_unlock(&pf.mu);
		pf_hold_end(&h, &st->write);
		unlock_slurmctld(locks);
		if (i >= pf.work_len)
			break;
		usleep(PF_YIELD_USEC);
	}
}

void pf_recalc_run(fw_time_t now, struct pf_recalc_stats *st)
{
	double t0;

	gather(now, st);
	t0 = ts_ms(CLOCK_MONOTONIC);
	pf_recalc_compute();
	st->compute_ms = ts_ms(CLOCK_MONOTONIC) - t0;
	apply(st);
}
