/*
 * sched_fairway.c - sched/fairway: Fairway's scheduler plugin.
 *
 * One agent thread runs both passes with the core planner (sf_pass.c):
 *  - the main pass soon after every submission, completion or node change
 *    (Slurm's change stamps are polled twice a second): jobs in priority
 *    order, start what fits, a partition stops at its first protected job
 *    that cannot start;
 *  - the backfill pass every bf_interval over the whole queue: lower-
 *    priority jobs start only where no protected reservation moves later,
 *    and every job the plan covers gets StartTime and SchedNodeList.
 * Slurm's built-in main scheduler cannot be unloaded; sites switch it off
 * with SchedulerParameters=sched_interval=-1 (see sched_fairway(8); 'defer'
 * is optional: without it slurmctld may start an salloc/srun job at
 * submission when no pending job outranks it, as with Slurm's plugins).
 *
 * init() and sched_p_reconfig() run with slurmctld locks held by the caller:
 * they only parse and set flags; the agent takes the locks for each pass.
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_server.h"
#include "fw_slurm.h"
#include "sf.h"

FW_EXPORT const char plugin_name[] = "Fairway scheduler plugin";
FW_EXPORT const char plugin_type[] = PLUGIN;
FW_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

FW_EXPORT int init(void);
FW_EXPORT void fini(void);
FW_EXPORT int sched_p_reconfig(void);
/* For priority/fairway (BYPASS factor); see pf_bypass_count(). */
FW_EXPORT uint32_t fairway_sched_bypass_count(uint32_t job_id);

struct sf sf = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.tab_mu = PTHREAD_MUTEX_INITIALIZER,
	.bit_word_off = -1, /* bit by bit until sf_bitcopy_selftest() */
};

static struct fw_server *server;

uint32_t fairway_sched_bypass_count(uint32_t job_id)
{
	struct sf_jobinfo *e;
	uint32_t n = 0;

	pthread_mutex_lock(&sf.tab_mu);
	e = sf_tab_get(job_id, false);
	if (e)
		n = e->bypass;
	pthread_mutex_unlock(&sf.tab_mu);
	return n;
}

/* ---------------------------------------------------------- configuration */

static void check_main_scheduler_handover(const struct fw_plan_conf *pc)
{
	sf.main_sched_off = pc->sched_interval_set && pc->sched_interval == -1;
	if (!sf.main_sched_off)
		error("%s: SchedulerParameters lacks sched_interval=-1: Slurm's built-in main scheduler keeps running beside Fairway's and starts jobs without regard to Fairway's reservations (see sched_fairway(8))",
		      PLUGIN);
	sf_preempt_check_config();
}

/* Load and install; returns 0, or -1 (error logged) keeping the old one. */
static int load_config(bool at_init)
{
	struct fw_err err;
	bool kept;
	struct fw_config *c = fw_slurm_load_config("sched", &kept, &err);
	char buf[1024];

	/* At init, a reconfigure's re-executed slurmctld (Slurm 23.11+) gets
	 * the kept configuration back rather than stopping. */
	if (!c || kept) {
		/* One line: what is wrong, where, and what happens now.  A
		 * reconfigure after the re-executed init rejected the same
		 * slurm.conf again: said once already. */
		if (kept && !at_init)
			debug("%s: %s; the kept configuration stays", PLUGIN,
			      fw_err_str(&err, buf, sizeof(buf)));
		else
			error("%s: %s; %s", PLUGIN, fw_err_str(&err, buf, sizeof(buf)),
			      at_init && !kept ? "refusing to start"
				      : "reconfigure rejected, the previous configuration stays in effect");
		if (!c)
			return -1;
	}
	pthread_mutex_lock(&sf.mu);
	fw_config_free(sf.conf);
	sf.conf = c;
	pthread_mutex_unlock(&sf.mu);
	check_main_scheduler_handover(c->plan);
	return 0;
}

/* ------------------------------------------------------------------ state */

static void state_save(void)
{
	char *buf, msg[512];
	size_t len;

	pthread_mutex_lock(&sf.tab_mu);
	buf = sf_tab_serialise(&len);
	pthread_mutex_unlock(&sf.tab_mu);
	if (fw_state_write(SF_STATE_FILE, buf, len, msg, sizeof(msg)))
		error("%s: cannot save state: %s", PLUGIN, msg);
	free(buf);
}

static void state_load(void)
{
	char *buf = NULL, msg[512], kept[1024] = "";
	size_t len;
	struct fw_err err;
	int rc = fw_state_read(SF_STATE_FILE, &buf, &len, msg, sizeof(msg));

	if (rc == 0)
		return;
	fw_err_clear(&err);
	pthread_mutex_lock(&sf.tab_mu);
	if (rc > 0 && sf_tab_load(buf, len, &err) == 0) {
		pthread_mutex_unlock(&sf.tab_mu);
		info("%s: restored bypass counts", PLUGIN);
		free(buf);
		return;
	}
	pthread_mutex_unlock(&sf.tab_mu);
	fw_state_quarantine(SF_STATE_FILE, kept, sizeof(kept));
	error("%s: state file %s/%s is unusable (%s); kept aside as %s; bypass counts start at zero",
	      PLUGIN, slurm_conf.state_save_location, SF_STATE_FILE,
	      rc < 0 ? msg : fw_err_str(&err, msg, sizeof(msg)), kept);
	free(buf);
}

/* ------------------------------------------------------------- the agent */

/*
 * Slurm's change stamps have one-second resolution: a change later in the
 * same second as our previous look leaves them as we saw them (a job
 * submitted right after another waited for the next backfill pass).  So a
 * stamp as new as our previous look counts as a change once more.
 */
static bool changed_since(time_t *job, time_t *node, time_t *part,
			  time_t *resv, time_t *conf)
{
	static time_t last_look;
	time_t now = time(NULL), newest = last_job_update;
	bool c = last_job_update != *job || last_node_update != *node ||
		 last_part_update != *part || last_resv_update != *resv ||
		 slurm_conf.last_update != *conf;

	if (last_node_update > newest)
		newest = last_node_update;
	if (last_part_update > newest)
		newest = last_part_update;
	if (last_resv_update > newest)
		newest = last_resv_update;
	if (slurm_conf.last_update > newest)
		newest = slurm_conf.last_update;
	if (newest >= last_look)
		c = true;
	last_look = now;
	*job = last_job_update;
	*node = last_node_update;
	*part = last_part_update;
	*resv = last_resv_update;
	*conf = slurm_conf.last_update;
	return c;
}

static int64_t bf_interval(void)
{
	int64_t v;

	pthread_mutex_lock(&sf.mu);
	v = sf.conf ? sf.conf->plan->bf_interval : 30;
	pthread_mutex_unlock(&sf.mu);
	return v;
}

/*
 * Main passes follow every change (submissions, job ends, updates), at
 * most every half second.  A main pass looks at the whole queue (its Slurm
 * checks cost a few microseconds per job: ~40 ms at 5,000 jobs, ~0.4 s at
 * 50,000), so with a steady stream of changes back-to-back passes would
 * keep a core busy.  A change noticed sooner than SF_MAIN_GAP times the
 * previous main pass's duration after its end waits for that gap (kept
 * pending, never lost): main passes use at most about a fifth of a core.
 * On small queues the gap is a few milliseconds and changes nothing.
 */
#define SF_MAIN_GAP 4

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *agent(void *arg)
{
	bool main_pending = false;
	int64_t main_end_us = 0, main_took_us = 0;

	(void)arg;
	state_load();
	while (1) {
		struct timespec ts;
		time_t now;
		bool reconf, changed;
		int64_t interval;

		pthread_mutex_lock(&sf.mu);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 500 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (!sf.stop && !sf.reconfig)
			pthread_cond_timedwait(&sf.cond, &sf.mu, &ts);
		reconf = sf.reconfig;
		sf.reconfig = false;
		if (sf.stop) {
			pthread_mutex_unlock(&sf.mu);
			break;
		}
		pthread_mutex_unlock(&sf.mu);
		if (reconf) {
			slurmctld_lock_t conf_read = { .conf = READ_LOCK };

			lock_slurmctld(conf_read);
			load_config(false);
			unlock_slurmctld(conf_read);
		}
		now = time(NULL);
		changed = changed_since(&sf.seen_job, &sf.seen_node, &sf.seen_part,
					&sf.seen_resv, &sf.seen_conf) || reconf;
		main_pending = main_pending || changed;
		interval = bf_interval();
		if (interval >= 0 && now - sf.last_bf >= interval) {
			sf.last_bf = now;
			sf.last_main = now;
			sf_run_pass(SF_PASS_BACKFILL);
			main_pending = false; /* it starts what fits, too */
		} else if ((main_pending && (reconf ||
			    mono_us() - main_end_us >= SF_MAIN_GAP * main_took_us)) ||
			   now - sf.last_main >= 60) {
			int64_t t0 = mono_us();

			sf.last_main = now;
			main_pending = false;
			sf_run_pass(SF_PASS_MAIN);
			main_end_us = mono_us();
			main_took_us = main_end_us - t0;
		}
		if (now - sf.last_state_save >= 60) {
			sf.last_state_save = now;
			state_save();
		}
	}
	return NULL;
}

/* -------------------------------------------------------- explain server */

static char *handle_request(uid_t uid, const char *req)
{
	slurmctld_lock_t locks = { .conf = READ_LOCK, .job = READ_LOCK, .node = READ_LOCK,
				   .part = READ_LOCK };
	unsigned long id;
	char *reply, *pre;

	if (!strcmp(req, "stats")) {
		char buf[1024], *times;

		pthread_mutex_lock(&sf.mu);
		times = sf_times_text(&sf.last_bf_times);
		snprintf(buf, sizeof(buf),
			 "main passes %" PRIu64 " (last %.2f ms, %" PRIu64 " jobs started)\n"
			 "backfill passes %" PRIu64 " (last %.2f ms, max %.2f ms, %" PRIu64 " jobs started)\n"
			 "last backfill pass: %s\n",
			 sf.passes_main, sf.last_main_ms, sf.started_main,
			 sf.passes_bf, sf.last_bf_ms, sf.max_bf_ms, sf.started_bf,
			 times);
		pthread_mutex_unlock(&sf.mu);
		free(times);
		return strdup(buf);
	}
	if (sscanf(req, "plan %lu", &id) != 1)
		return strdup("error: unknown request (expected: plan JOBID)\n");
	lock_slurmctld(locks);
	/* assoc_mgr locks come before sf.mu (sf.h) */
	pre = sf_preempt_running_text((uint32_t)id);
	pthread_mutex_lock(&sf.mu);
	reply = sf_explain((uint32_t)id, uid, pre);
	pthread_mutex_unlock(&sf.mu);
	unlock_slurmctld(locks);
	free(pre);
	return reply;
}

/* ----------------------------------------------------------- entry points */

int init(void)
{

	if (slurmctld_config.scheduling_disabled) {
		info("%s: scheduling disabled on this controller", PLUGIN);
		return SLURM_SUCCESS;
	}
	if (load_config(true))
		return SLURM_ERROR;
	if (!sf_bitcopy_selftest())
		info("%s: node bitmaps are converted bit by bit", PLUGIN);
	sf.stop = false;
	if (pthread_create(&sf.thread, NULL, agent, NULL)) {
		error("%s: cannot start the scheduling agent", PLUGIN);
		return SLURM_ERROR;
	}
	sf.running = true;
	server = fw_slurm_serve(PLUGIN, "sched", sf.conf, 1, handle_request);
	info("%s: heterogeneous jobs are refused: slurmctld accepts them only with SchedulerType=sched/backfill (sbatch/salloc/srun say 'Requested operation not supported on this system')",
	     PLUGIN);
	info("%s loaded (bf_interval=%" PRId64 "s bf_window=%" PRId64 "min, reservation depth %s)",
	     PLUGIN, sf.conf->plan->bf_interval, sf.conf->plan->bf_window / 60,
	     fw_plan_conf_depth(sf.conf->plan) ? "top-N per partition" : "conservative");
	return SLURM_SUCCESS;
}

void fini(void)
{
	fw_server_stop(server);
	server = NULL;
	if (sf.running) {
		pthread_mutex_lock(&sf.mu);
		sf.stop = true;
		pthread_cond_broadcast(&sf.cond);
		pthread_mutex_unlock(&sf.mu);
		pthread_join(sf.thread, NULL);
		sf.running = false;
		state_save();
	}
	pthread_mutex_lock(&sf.mu);
	fw_cluster_free(sf.cluster);
	sf.cluster = NULL;
	xfree(sf.part_cpu_unit);
	xfree(sf.part_mem);
	sf_topo_free();
	sf_preempt_fini();
	for (int i = 0; sf.lic_names && sf.lic_names[i]; i++)
		xfree(sf.lic_names[i]);
	xfree(sf.lic_names);
	fw_config_free(sf.conf);
	sf.conf = NULL;
	pthread_mutex_unlock(&sf.mu);
	pthread_mutex_lock(&sf.tab_mu);
	sf_tab_free();
	pthread_mutex_unlock(&sf.tab_mu);
}

int sched_p_reconfig(void)
{
	/* slurmctld locks are held by our caller: only flag the agent. */
	pthread_mutex_lock(&sf.mu);
	sf.reconfig = true;
	pthread_cond_broadcast(&sf.cond);
	pthread_mutex_unlock(&sf.mu);
	return SLURM_SUCCESS;
}
