/*
 * sched_fairway.c - sched/fairway: Fairway's scheduler plugin.
 *
 * Runs its own agent thread that starts pending jobs in priority order
 * through slurmctld's allocation path (select_nodes()).  Slurm's built-in
 * main scheduler is expected to be switched off with
 * SchedulerParameters=sched_interval=-1,defer (see sched_fairway(8)).
 *
 * Locking: sched_p_reconfig() and init() run with slurmctld locks held by
 * the caller, so they only set flags / start the thread.  The agent takes
 * {conf R, job W, node W, part R, fed R} for a pass, like Slurm's schedulers.
 */
#include "config.h"

#include <pthread.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/srun_comm.h"
#include "src/slurmctld/state_save.h"

#include "fw_slurm.h"

#define PLUGIN "sched/fairway"

FW_EXPORT const char plugin_name[] = "Fairway scheduler plugin";
FW_EXPORT const char plugin_type[] = PLUGIN;
FW_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

FW_EXPORT int init(void);
FW_EXPORT void fini(void);
FW_EXPORT int sched_p_reconfig(void);

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool running, stop, reconfig;
	int interval;                 /* seconds between passes at most */
	time_t last_job, last_node, last_part;  /* change stamps seen */
} g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.interval = 2,
};

/* Something changed since the last pass (or the interval elapsed). */
static bool more_work(void)
{
	return last_job_update != g.last_job || last_node_update != g.last_node ||
	       last_part_update != g.last_part;
}

static int find_ptr(void *x, void *key)
{
	return x == key;
}

static void launch(job_record_t *job)
{
	if (job->batch_flag == 0)
		srun_allocate(job);
	else if (!IS_JOB_CONFIGURING(job))
		launch_job(job);
	rebuild_job_part_list(job);
}

/*
 * One main pass: jobs in Slurm's queue order (PriorityTier, priority);
 * start what fits; a partition whose top job cannot start is blocked for
 * the rest of the pass.
 */
static int main_pass(void)
{
	List queue = build_job_queue(false, false);
	List blocked = list_create(NULL);
	job_queue_rec_t *rec;
	int started = 0;

	sort_job_queue(queue);
	while ((rec = list_pop(queue))) {
		job_record_t *job = rec->job_ptr;
		part_record_t *part = rec->part_ptr;
		uint32_t prio = rec->priority;
		int rc;

		if (job->resv_list)
			job_queue_rec_resv_list(rec);
		else
			job_queue_rec_magnetic_resv(rec);
		xfree(rec);
		if (!IS_JOB_PENDING(job) || job->priority == 0)
			continue;
		if (list_find_first(blocked, find_ptr, part))
			continue;
		job->part_ptr = part;
		job->priority = prio;
		job->last_sched_eval = time(NULL);

		rc = select_nodes(job, false, NULL, NULL, false,
				  SLURMDB_JOB_FLAG_SCHED);
		if (rc == SLURM_SUCCESS) {
			info("%s: started %pJ on %s", PLUGIN, job, job->nodes);
			launch(job);
			started++;
			last_job_update = time(NULL);
		} else if (rc == ESLURM_NODES_BUSY) {
			list_append(blocked, part);
		}
	}
	FREE_NULL_LIST(queue);
	FREE_NULL_LIST(blocked);
	return started;
}

static void run_pass(void)
{
	slurmctld_lock_t locks = { .conf = READ_LOCK, .job = WRITE_LOCK,
				   .node = WRITE_LOCK, .part = READ_LOCK,
				   .fed = READ_LOCK };
	int started;

	lock_slurmctld(locks);
	g.last_job = last_job_update;
	g.last_node = last_node_update;
	g.last_part = last_part_update;
	started = main_pass();
	unlock_slurmctld(locks);
	if (started)
		schedule_job_save();
}

static void *agent(void *arg)
{
	time_t last_pass = 0;

	(void)arg;
	pthread_mutex_lock(&g.lock);
	while (!g.stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&g.cond, &g.lock, &ts);
		if (g.stop)
			break;
		g.reconfig = false;
		if (!more_work() && time(NULL) - last_pass < g.interval)
			continue;
		pthread_mutex_unlock(&g.lock);
		run_pass();
		last_pass = time(NULL);
		pthread_mutex_lock(&g.lock);
	}
	pthread_mutex_unlock(&g.lock);
	return NULL;
}

int init(void)
{
	if (slurmctld_config.scheduling_disabled) {
		verbose("%s: scheduling disabled on this controller", PLUGIN);
		return SLURM_SUCCESS;
	}
	g.stop = false;
	if (pthread_create(&g.thread, NULL, agent, NULL)) {
		error("%s: cannot start the scheduling agent", PLUGIN);
		return SLURM_ERROR;
	}
	g.running = true;
	info("%s loaded", PLUGIN);
	return SLURM_SUCCESS;
}

void fini(void)
{
	if (!g.running)
		return;
	pthread_mutex_lock(&g.lock);
	g.stop = true;
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
	pthread_join(g.thread, NULL);
	g.running = false;
}

int sched_p_reconfig(void)
{
	pthread_mutex_lock(&g.lock);
	g.reconfig = true;
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
	return SLURM_SUCCESS;
}
