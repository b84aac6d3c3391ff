/*
 * pf_recalc.c - priority/fairway: the periodic recalculation of every
 * pending job's priority, done in three phases so that slurmctld's job write
 * lock is held only to store the results:
 *
 *   gather   {job R, node R, part R} + assoc R + pf.mu: copy each pending
 *            job's inputs (struct fw_prio_job, its TRES counts and its
 *            partition's) into pf.work; no job is modified.
 *   compute  no slurmctld or assoc_mgr lock, no pf.mu: run the factor model
 *            on the copies (priority and sprio columns).  Only the
 *            recalculation thread ever replaces pf.conf, so reading it here
 *            without pf.mu is safe; fw_prio_compute() only reads it.
 *   apply    {job W} + pf.mu: look each job up again by id (pointers from the
 *            gather are never used after the unlock) and store priority,
 *            priority_array and prio_factors, unless the job changed in
 *            between: gone, no longer pending, held, admin-set, its
 *            partitions changed (last_part_update), or priority_p_set()
 *            already gave it a fresh priority (pf.work_touched).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"

#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_slurm.h"
#include "pf.h"

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
}

/* ------------------------------------------------------------- gather */

static void gather_one(job_record_t *job, part_record_t *part, uint16_t idx,
		       uint16_t nparts, fw_time_t now)
{
	int nt = slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 0;
	struct pf_work *w;
	size_t off = tres_reserve(2 * (size_t)nt);

	work_reserve(pf.work_len + 1);
	w = &pf.work[pf.work_len++];
	w->job_id = job->job_id;
	w->part = part;
	w->part_idx = idx;
	w->nparts = nparts;
	w->main = part == job->part_ptr;
	w->tres_off = off;
	/* TRES pointers are set in the compute phase: the pool may move */
	pf_fill_job(job, part, now, &w->in, pf.work_tres + off,
		    pf.work_tres + off + nt);
	w->in.tres = NULL;
	w->in.part_tres_total = NULL;
	w->has_tres = pf.tres_bound && nt > 0;
}

uint32_t pf_recalc_gather(fw_time_t now)
{
	bool running = fw_prio_flags(pf.conf->prio) & FW_PRIO_FLAG_CALCULATE_RUNNING;
	ListIterator it;
	job_record_t *job;
	uint32_t jobs = 0;

	pf.work_len = 0;
	pf.work_tres_len = 0;
	pf.work_touched_len = 0;
	pf.work_part_update = last_part_update;
	pf.work_now = now;
	pf_fill_ctx(&pf.work_ctx, now);
	if (!job_list)
		return 0;
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		if (!pf_needs_priority(job, running))
			continue;
		jobs++;
		if (job->part_ptr_list) {
			ListIterator pit = list_iterator_create(job->part_ptr_list);
			int n = list_count(job->part_ptr_list);
			part_record_t *part;
			uint16_t i = 0;

			while ((part = list_next(pit)) && i < n)
				gather_one(job, part, i++, (uint16_t)n, now);
			list_iterator_destroy(pit);
		} else {
			gather_one(job, job->part_ptr, 0, 1, now);
		}
	}
	list_iterator_destroy(it);
	pf.work_active = true;
	return jobs;
}

/* ------------------------------------------------------------- compute */

void pf_recalc_compute(void)
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

/* Are the entries [w, w + w->nparts) still about this job's partitions? */
static bool same_partitions(const job_record_t *job, const struct pf_work *w)
{
	if (!job->part_ptr_list)
		return w->nparts == 1 && w->part == job->part_ptr;
	return list_count(job->part_ptr_list) == w->nparts;
}

static bool apply_job(job_record_t *job, const struct pf_work *w)
{
	const struct pf_work *mainw = NULL;
	uint32_t old = job->priority;

	if (job->part_ptr_list) {
		if (!job->priority_array)
			job->priority_array = xcalloc(w->nparts + 1, sizeof(uint32_t));
		for (uint16_t k = 0; k < w->nparts; k++) {
			job->priority_array[w[k].part_idx] = w[k].priority;
			if (w[k].part == job->part_ptr)
				mainw = &w[k];
		}
		if (!mainw)
			mainw = w; /* part_ptr not among them: first partition */
	} else {
		xfree(job->priority_array);
		mainw = w;
	}
	if (!job->prio_factors)
		job->prio_factors = xmalloc(sizeof(priority_factors_object_t));
	pf_store_sprio(job->prio_factors, &mainw->sprio);
	job->priority = mainw->priority;
	return job->priority != old;
}

uint32_t pf_recalc_apply(uint32_t *skipped)
{
	bool running = fw_prio_flags(pf.conf->prio) & FW_PRIO_FLAG_CALCULATE_RUNNING;
	bool changed = false;
	uint32_t applied = 0, skip = 0;

	pf.work_active = false;
	if (pf.work_touched_len)
		qsort(pf.work_touched, pf.work_touched_len, sizeof(uint32_t), cmp_u32);
	if (pf.work_part_update != last_part_update) {
		/* partitions were rebuilt: entries may name freed records;
		 * the next recalculation starts over */
		*skipped = pf.work_len;
		return 0;
	}
	for (uint32_t i = 0; i < pf.work_len; i += pf.work[i].nparts) {
		const struct pf_work *w = &pf.work[i];
		job_record_t *job = find_job_record(w->job_id);

		if (!job || !pf_needs_priority(job, running) ||
		    touched(w->job_id) || !same_partitions(job, w)) {
			skip++;
			continue;
		}
		changed |= apply_job(job, w);
		applied++;
	}
	if (changed)
		last_job_update = pf.work_now;
	*skipped = skip;
	return applied;
}
