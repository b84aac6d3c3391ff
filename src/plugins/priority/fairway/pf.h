/*
 * pf.h - internals of priority/fairway shared by its source files.
 *
 * Lock order (never reversed): slurmctld locks, then assoc_mgr locks, then
 * pf.mu.  pf.mu protects every field of struct pf below; it is held only
 * for computation, never across blocking I/O.
 */
#ifndef PF_H
#define PF_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "fw_compat.h"

#include "fw_accrue.h"
#include "fw_config.h"
#include "fw_fairshare.h"
#include "fw_prio.h"

#define PLUGIN "priority/fairway"
#define PF_STATE_FILE "fairway_priority_state"

/* Per job: how far its usage has been charged (exactly-once charging). */
struct pf_charge {
	uint32_t job_id;
	fw_time_t until;   /* usage charged up to this time */
	bool done;         /* final slice charged (job ended) */
	bool seen;         /* seen in the current tick (pruning) */
};

/* One job (in one partition) of a recalculation (pf_recalc.c). */
struct pf_work {
	uint32_t job_id;
	uint32_t nent;            /* entries of this job: partitions x QOS */
	uint16_t part_idx;        /* index in part_ptr_list */
	uint16_t qos_idx, nqos;   /* index in the job's QOS list, its length */
	bool has_tres;            /* tres_off holds TRES counts */
	part_record_t *part;      /* compared, never dereferenced, after unlock */
	const void *qos;          /* QOS of the entry (NULL: the job's only one);
				   * compared, never dereferenced */
	size_t tres_off;          /* job's TRES, then the partition's, in work_tres */
	struct fw_prio_job in;
	uint32_t priority;
	struct fw_prio_sprio sprio;
};

/* Time spent holding a lock, over several holds. */
struct pf_hold_stats {
	double ms;        /* wall-clock, all holds */
	double max_ms;    /* the longest single hold */
	double cpu_ms;    /* this thread's CPU time while holding */
	uint32_t holds;
};
struct pf_hold {
	double wall0, cpu0;
};
void pf_hold_begin(struct pf_hold *h);
double pf_hold_elapsed(const struct pf_hold *h);
void pf_hold_end(const struct pf_hold *h, struct pf_hold_stats *st);

/* One recalculation, for the log line and the benchmark. */
struct pf_recalc_stats {
	struct pf_hold_stats write;   /* job write lock (usage + store) */
	struct pf_hold_stats read;    /* job read lock (gather) */
	double compute_ms;            /* outside the locks */
	uint32_t jobs, stored, skipped;
};

struct pf {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	pthread_t thread;
	bool thread_running, stop, reconfig;

	struct fw_config *conf;      /* current configuration */
	struct fw_fs_tree *tree;     /* fair-share usage and factors */
	struct fw_accrue *accrue;    /* only with AccruePolicy=Eligible */
	bool with_dbd;               /* tree mirrors assoc_mgr */
	uint64_t assoc_sig;          /* signature of the mirrored assoc tree */
	int *assoc_node;             /* assoc id -> tree node (dbd mode) */
	uint32_t assoc_node_len;

	struct pf_charge *charge;    /* open-addressing table by job id */
	uint32_t charge_cap, charge_cnt;
	fw_time_t last_tick;         /* time usage was last brought up to */
	bool restored;               /* state file loaded at start */
	bool rearm_reset_now;        /* reconfigured: PriorityUsageResetPeriod=NOW
					resets again at the next tick */
	fw_time_t limit_reset_seen;  /* usage reset Slurm's limit usage last
					followed (fw_fs_last_reset) */

	int gpu_tres;                /* index of gres/gpu in Slurm's TRES, -1 */
	bool tres_bound;             /* conf->prio bound to Slurm's TRES list */
	uint64_t total_mem_mb;       /* cluster memory (PE factor), per tick */
	time_t last_save;

	/* the recalculation in progress (pf_recalc.c), buffers kept between
	 * recalculations so that they cost no page faults */
	struct pf_work *work;
	uint32_t work_cap, work_len;
	uint64_t *work_tres;
	size_t work_tres_cap, work_tres_len;
	uint32_t *work_ids;          /* jobs to gather */
	uint32_t work_ids_cap, work_ids_len;
	uint32_t *work_touched;      /* job ids priority_p_set() recomputed */
	uint32_t work_touched_cap, work_touched_len;
	bool work_active;            /* between gather and apply */
	time_t work_part_update;     /* last_part_update at gather */
	fw_time_t work_now;
	struct fw_prio_ctx work_ctx;

	/* statistics (milliseconds) */
	uint64_t ticks;
	struct pf_recalc_stats last; /* the last recalculation */
	double max_write_ms;         /* largest last.write.ms seen */
};

extern struct pf pf;

/* pf_usage.c: fair-share tree, usage charging, Slurm limit bookkeeping.
 * Callers hold {job W or R} and assoc_mgr {assoc W, qos W, tres R}, and
 * pf.mu. */
int pf_usage_sync_tree(struct fw_err *err);
void pf_usage_sync_for_job(job_record_t *job);
void pf_usage_tick(fw_time_t now);
void pf_usage_job_end(job_record_t *job, fw_time_t now);
void pf_usage_mirror_to_assoc_mgr(void);
void pf_usage_restart_run_secs(void);
void pf_usage_restored(void);
int pf_job_fs_node(job_record_t *job);
/* The job's user name (pending jobs have no job->user_name yet). */
const char *pf_job_user(const job_record_t *job);
void pf_usage_free(void);

/* pf_jobs.c: jobs to the core and back. Caller holds the job lock
 * (W to store results), assoc_mgr {assoc R, qos R} and pf.mu. */
uint32_t pf_compute_job(job_record_t *job, fw_time_t now, bool store);
void pf_fill_job(job_record_t *job, part_record_t *part,
		 const slurmdb_qos_rec_t *qos, fw_time_t now,
		 struct fw_prio_job *j, uint64_t *tres, uint64_t *part_tres);
void pf_fill_ctx(struct fw_prio_ctx *ctx, fw_time_t now);
void pf_store_sprio(priority_factors_t *f, const struct fw_prio_sprio *sp);
bool pf_needs_priority(const job_record_t *job, bool running_too);

/* pf_recalc.c: the periodic recalculation of pending jobs' priorities
 * (gather, compute, apply; see there).  Called with no lock held; adds to
 * *st. */
void pf_recalc_run(fw_time_t now, struct pf_recalc_stats *st);
void pf_recalc_touch(uint32_t job_id);
void pf_recalc_free(void);
void pf_accrue_tick(fw_time_t now);
priority_factors_object_t *pf_factors_object(job_record_t *job,
					      part_record_t *part, fw_time_t now);
/* Full breakdown of a job the caller may see (visibility is decided by the
 * caller without assoc_mgr locks); malloc'd text. */
char *pf_explain_job(uint32_t job_id);
/* The answer for absent jobs and jobs the caller may not see. */
char *pf_explain_absent(uint32_t job_id);

/* bypass counts kept by sched/fairway (0 if it is not loaded) */
uint32_t pf_bypass_count(uint32_t job_id);

#endif /* PF_H */
