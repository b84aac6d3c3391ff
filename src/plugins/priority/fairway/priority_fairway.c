/*
 * priority_fairway.c - priority/fairway: Fairway's priority plugin.
 *
 * A thin adapter: it copies what the policy core needs out of slurmctld's
 * job and partition records, lets the core compute the priority, and writes
 * the result back (job->priority, job->priority_array, job->prio_factors).
 *
 * Locking (see doc/design.md and Slurm's slurm_priority.h): priority_p_set()
 * and priority_p_job_end() run with the job write lock held by the caller;
 * the recalculation thread takes {job W, node R, part R} itself;
 * priority_p_get_priority_factors_list() takes {job R, node R, part R}.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/slurm_priority.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_slurm.h"

#define PLUGIN "priority/fairway"

FW_EXPORT const char plugin_name[] = "Fairway priority plugin";
FW_EXPORT const char plugin_type[] = PLUGIN;
FW_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

FW_EXPORT int init(void);
FW_EXPORT int fini(void);
FW_EXPORT uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr);
FW_EXPORT void priority_p_reconfig(bool assoc_clear);
FW_EXPORT void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc);
FW_EXPORT double priority_p_calc_fs_factor(long double usage_efctv,
					   long double shares_norm);
FW_EXPORT List priority_p_get_priority_factors_list(
	priority_factors_request_msg_t *req_msg, uid_t uid);
FW_EXPORT void priority_p_job_end(job_record_t *job_ptr);

/*
 * slurmctld-only data symbols we reference.  Defining them here (default
 * visibility, so slurmctld's own definitions interpose inside the daemon)
 * lets client commands such as sshare dlopen this plugin: data references
 * are bound at load time even with lazy binding.
 */
FW_EXPORT List job_list = NULL;
FW_EXPORT time_t last_job_update = 0;

/* ------------------------------------------------------------ plugin state */

static struct {
	pthread_mutex_t lock;      /* protects the fields below */
	pthread_cond_t cond;
	pthread_t thread;
	bool thread_running;
	bool stop;
	bool reconfig;
	/* weights (copied from slurm_conf on init/reconfigure) */
	double w_age, w_part;
	double max_age;
	uint32_t calc_period;
} g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void load_config(void)
{
	g.w_age = slurm_conf.priority_weight_age;
	g.w_part = slurm_conf.priority_weight_part;
	g.max_age = slurm_conf.priority_max_age ? slurm_conf.priority_max_age : 1;
	g.calc_period = slurm_conf.priority_calc_period ?
		slurm_conf.priority_calc_period : 300;
}

/* ------------------------------------------------------ factor computation */

/* Age: time since the job began accruing, as a fraction of PriorityMaxAge. */
static double age_factor(const job_record_t *job, time_t now)
{
	time_t since = job->details ? job->details->accrue_time : 0;

	if (!since || since > now)
		return 0.0;
	return fmin((double)(now - since) / g.max_age, 1.0);
}

static double part_factor(const part_record_t *part)
{
	return part ? part->norm_priority : 0.0;
}

static uint32_t to_slurm_priority(double total)
{
	if (!(total >= 1.0))
		return 1; /* 0 means held */
	if (total >= (double)0xfffffffe)
		return 0xfffffffe;
	return (uint32_t)llround(total);
}

/* Compute the priority of job in partition part; fill f if non-NULL. */
static uint32_t compute_one(job_record_t *job, part_record_t *part,
			    time_t now, priority_factors_object_t *f)
{
	double age = g.w_age * age_factor(job, now);
	double prt = g.w_part * part_factor(part);
	uint32_t prio = to_slurm_priority(age + prt);

	if (f) {
		memset(f, 0, sizeof(*f));
		f->priority_age = age;
		f->priority_part = prt;
		/* sprio's PRIORITY column is the sum of the columns: keep the
		 * rounding remainder in the site column (biased by NICE_OFFSET
		 * like Slurm's site factor) so that it adds up. */
		f->priority_site = (uint32_t)((int64_t)NICE_OFFSET +
					      llround((double)prio - age - prt));
		f->nice = NICE_OFFSET;
	}
	return prio;
}

/* Fill job->priority_array in part_ptr_list order for multi-partition jobs. */
static void compute_priority_array(job_record_t *job, time_t now)
{
	ListIterator it;
	part_record_t *part;
	int i = 0, n;

	if (!job->part_ptr_list) {
		xfree(job->priority_array);
		return;
	}
	n = list_count(job->part_ptr_list);
	if (!job->priority_array)
		job->priority_array = xcalloc(n + 1, sizeof(uint32_t));
	it = list_iterator_create(job->part_ptr_list);
	while ((part = list_next(it)) && i < n)
		job->priority_array[i++] = compute_one(job, part, now, NULL);
	list_iterator_destroy(it);
}

/* Caller holds the job write lock. Returns the new priority. */
static uint32_t compute_job(job_record_t *job, time_t now)
{
	if (!job->prio_factors)
		job->prio_factors = xmalloc(sizeof(priority_factors_object_t));
	compute_priority_array(job, now);
	return compute_one(job, job->part_ptr, now, job->prio_factors);
}

/* --------------------------------------------------------- recalculation */

static bool job_needs_priority(const job_record_t *job)
{
	return IS_JOB_PENDING(job) && job->priority != 0 &&
	       !job->direct_set_prio && job->details;
}

static void recalc_all_jobs(void)
{
	slurmctld_lock_t locks = { .job = WRITE_LOCK, .node = READ_LOCK,
				   .part = READ_LOCK };
	time_t now = time(NULL);
	ListIterator it;
	job_record_t *job;
	bool changed = false;

	lock_slurmctld(locks);
	if (job_list) {
		it = list_iterator_create(job_list);
		while ((job = list_next(it))) {
			if (!job_needs_priority(job))
				continue;
			uint32_t p = compute_job(job, now);
			if (p != job->priority) {
				job->priority = p;
				changed = true;
			}
		}
		list_iterator_destroy(it);
	}
	if (changed)
		last_job_update = now;
	unlock_slurmctld(locks);
}

static void *recalc_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&g.lock);
	while (!g.stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += g.calc_period;
		pthread_cond_timedwait(&g.cond, &g.lock, &ts);
		if (g.stop)
			break;
		if (g.reconfig) {
			g.reconfig = false;
			load_config();
		}
		pthread_mutex_unlock(&g.lock);
		recalc_all_jobs();
		pthread_mutex_lock(&g.lock);
	}
	pthread_mutex_unlock(&g.lock);
	return NULL;
}

/* ---------------------------------------------------------- entry points */

int init(void)
{
	load_config();
	if (!fw_in_slurmctld())
		return SLURM_SUCCESS; /* loaded by a client command (sshare) */
	g.stop = false;
	if (pthread_create(&g.thread, NULL, recalc_thread, NULL)) {
		error("%s: cannot start the recalculation thread", PLUGIN);
		return SLURM_ERROR;
	}
	g.thread_running = true;
	info("%s loaded (PriorityWeightAge=%.0f PriorityWeightPartition=%.0f)",
		PLUGIN, g.w_age, g.w_part);
	return SLURM_SUCCESS;
}

int fini(void)
{
	if (g.thread_running) {
		pthread_mutex_lock(&g.lock);
		g.stop = true;
		pthread_cond_broadcast(&g.cond);
		pthread_mutex_unlock(&g.lock);
		pthread_join(g.thread, NULL);
		g.thread_running = false;
	}
	return SLURM_SUCCESS;
}

uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	(void)last_prio;
	if (job_ptr->direct_set_prio)
		return job_ptr->priority;
	return compute_job(job_ptr, time(NULL));
}

void priority_p_reconfig(bool assoc_clear)
{
	(void)assoc_clear;
	pthread_mutex_lock(&g.lock);
	g.reconfig = true;
	pthread_cond_broadcast(&g.cond); /* recompute now with the new weights */
	pthread_mutex_unlock(&g.lock);
}

void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	(void)assoc;
}

double priority_p_calc_fs_factor(long double usage_efctv,
				 long double shares_norm)
{
	if (shares_norm <= 0)
		return 0.0;
	return pow(2.0, -(double)(usage_efctv / shares_norm));
}

/* True if uid may see job under PrivateData=jobs. */
static bool job_visible_to(const job_record_t *job, uid_t uid)
{
	if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS))
		return true;
	return job->user_id == uid || validate_operator(uid);
}

static bool list_has_u32(List l, uint32_t v)
{
	ListIterator it;
	uint32_t *p;
	bool found = false;

	if (!l)
		return true;
	it = list_iterator_create(l);
	while ((p = list_next(it)))
		if (*p == v) {
			found = true;
			break;
		}
	list_iterator_destroy(it);
	return found;
}

static bool partition_requested(const char *parts, const char *name)
{
	char *copy, *tok, *save = NULL;
	bool found = false;

	if (!parts)
		return true;
	copy = xstrdup(parts);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (name && !xstrcmp(tok, name)) {
			found = true;
			break;
		}
	xfree(copy);
	return found;
}

static priority_factors_object_t *factors_for(job_record_t *job,
					      part_record_t *part, time_t now)
{
	priority_factors_object_t *f = xmalloc(sizeof(*f));

	compute_one(job, part, now, f);
	f->job_id = job->job_id;
	f->user_id = job->user_id;
	f->partition = part ? part->name : NULL; /* borrowed */
	return f;
}

List priority_p_get_priority_factors_list(
	priority_factors_request_msg_t *req_msg, uid_t uid)
{
	slurmctld_lock_t locks = { .job = READ_LOCK, .node = READ_LOCK,
				   .part = READ_LOCK };
	List ret = list_create(slurm_destroy_priority_factors_object);
	time_t now = time(NULL);
	ListIterator it;
	job_record_t *job;

	lock_slurmctld(locks);
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		if (!IS_JOB_PENDING(job) || IS_JOB_REVOKED(job) ||
		    job->priority == 0 || !job->details ||
		    !job->details->begin_time || job->details->begin_time > now)
			continue;
		if (!job_visible_to(job, uid) ||
		    !list_has_u32(req_msg->job_id_list, job->job_id) ||
		    !list_has_u32(req_msg->uid_list, job->user_id))
			continue;
		if (job->part_ptr_list) {
			ListIterator pit = list_iterator_create(job->part_ptr_list);
			part_record_t *part;

			while ((part = list_next(pit)))
				if (partition_requested(req_msg->partitions, part->name))
					list_append(ret, factors_for(job, part, now));
			list_iterator_destroy(pit);
		} else if (partition_requested(req_msg->partitions,
					       job->part_ptr ? job->part_ptr->name : NULL)) {
			list_append(ret, factors_for(job, job->part_ptr, now));
		}
	}
	list_iterator_destroy(it);
	unlock_slurmctld(locks);
	if (!list_count(ret))
		FREE_NULL_LIST(ret);
	return ret;
}

void priority_p_job_end(job_record_t *job_ptr)
{
	(void)job_ptr;
}
