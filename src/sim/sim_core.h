/*
 * sim_core.h - the simulator's adapter to Fairway's policy core.
 *
 * This is the only part of fairway-sim that calls the core modules:
 * fw_prio (factor model and accrual ledger), fw_fairshare (account tree,
 * usage and decay) and fw_plan (cluster, main and backfill passes).  It
 * builds the same core structures the plugins build from slurmctld, from
 * the simulator's cluster, associations and jobs, so the simulator's
 * decisions are the plugins' decisions.
 *
 * Configuration goes through the plugins' dispatcher (fw_config.h): every
 * slurm.conf key the simulator does not interpret itself is offered to
 * fw_config_slurm(), fairway.conf is read by fw_config_load_file(), so a
 * configuration the simulator accepts is one the plugins accept.
 */
#ifndef SIM_CORE_H
#define SIM_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fw_common.h"
#include "sim_cluster.h"
#include "sim_engine.h"
#include "sim_report.h"

struct sim_core;

/*
 * Create the core's configuration from the cluster's slurm.conf keys
 * (errors name the slurm.conf file and line).  assocs may be NULL.  The
 * cluster and assocs must outlive the core.
 */
struct sim_core *sim_core_new(const struct sim_cluster *c,
			      const struct sim_assocs *assocs,
			      enum sim_policy policy, struct fw_err *err);
void sim_core_free(struct sim_core *k);
/* fairway.conf (optional), then sim_core_finish(). */
int sim_core_read_fairway_conf(struct sim_core *k, const char *path,
			       struct fw_err *err);
int sim_core_read_fairway_conf_mem(struct sim_core *k, const char *name,
				   const char *buf, size_t len,
				   struct fw_err *err);
/* Cross-checks, core cluster, fair-share tree.  Returns 0 or -1. */
int sim_core_finish(struct sim_core *k, struct fw_err *err);

/* Seconds between priority passes (PriorityCalcPeriod). */
int64_t sim_core_calc_period(const struct sim_core *k);
/* Seconds between backfill passes; -1 when the policy has no backfill. */
int64_t sim_core_bf_interval(const struct sim_core *k);

/*
 * Resolve a job against cluster and configuration: partition, account,
 * sizes, time limit, the core's indices.  Returns 0, or 1 when the job can
 * never run here (*reason says why: the job is rejected).  *defaulted is set
 * when an SWF partition number unknown to the cluster fell back to the
 * default partition.
 */
int sim_core_bind(struct sim_core *k, struct sim_rjob *j,
		  const char **reason, bool *defaulted);
/* Free the per-job data (after the job is done or rejected). */
void sim_core_unbind(struct sim_core *k, struct sim_rjob *j);

/* Priority of one job now (at submit). */
void sim_core_prio_one(struct sim_core *k, fw_time_t now, struct sim_rjob *j);
/*
 * A priority pass: charge running jobs' usage up to now, decay, recompute
 * fair-share factors, tick the accrual ledger, recompute every pending
 * job's priority.
 */
void sim_core_prio_pass(struct sim_core *k, fw_time_t now,
			struct sim_rjob **pending, size_t np,
			struct sim_rjob **running, size_t nr);
/* sprio's columns of a job's priority now (the breakdown at start). */
void sim_core_prio_cols(struct sim_core *k, fw_time_t now,
			const struct sim_rjob *j, struct sim_prio_cols *cols);

/* A job starts (engine callback from sim_core_schedule). */
typedef void (*sim_start_fn)(void *ctx, struct sim_rjob *j,
			     const uint32_t *nodes, uint32_t n,
			     bool backfilled);

/*
 * The planner chose `victim` (running) to be preempted now for a job it
 * starts or reserves: it is gone after `grace` seconds, then requeued or
 * cancelled (mode, an enum sim_preempt_mode).  The engine must stop
 * offering it as a victim (sim_rjob.preempt_end) and may end it at once
 * (grace 0) before the start callback of the job that preempts it.
 */
typedef void (*sim_preempt_fn)(void *ctx, struct sim_rjob *victim,
			       int64_t grace, uint32_t mode);
void sim_core_on_preempt(struct sim_core *k, sim_preempt_fn fn, void *ctx);
/* PreemptType as configured ("preempt/qos", ...), NULL when none. */
const char *sim_core_preempt_type(const struct sim_core *k);
/*
 * A preempted job goes back to the queue (PreemptMode=REQUEUE) at now:
 * Slurm's requeue (job_mgr.c batch_requeue_fini) gives it a new submit
 * time (now), clears its accrual and holds it until now + the credential
 * lifetime + 1 (SIM_REQUEUE_HOLD: the lifetime's default is 120 s,
 * DEFAULT_EXPIRATION_WINDOW in slurm_cred.c (22.05) and cred.h (24.11);
 * job_mgr.c's comment there still says 1200); the engine sets j->submit
 * and j->eligible so, then calls this to refresh the priority inputs.
 */
#define SIM_REQUEUE_HOLD 121
void sim_core_requeue(struct sim_core *k, fw_time_t now, struct sim_rjob *j);

enum sim_pass { SIM_PASS_MAIN, SIM_PASS_BACKFILL, SIM_PASS_SERIAL };

/*
 * One scheduling pass at now over the pending jobs (any order; jobs not
 * yet eligible are skipped).  Started jobs are reported through start
 * (which must move them to running); bypass counts are added to the jobs.
 * Jobs the planner finds can never run are returned in *never (count
 * *nnever, array owned by the core until the next call) with a reason.
 */
int sim_core_schedule(struct sim_core *k, fw_time_t now, enum sim_pass pass,
		      struct sim_rjob **pending, size_t np,
		      struct sim_rjob **running, size_t nr,
		      sim_start_fn start, void *ctx, struct fw_err *err);
/* Jobs the last pass found can never run, with the planner's reason. */
size_t sim_core_never(const struct sim_core *k, struct sim_rjob ***jobs,
		      const char ***reasons);

/* A job ends at now: charge its last usage, free its allocation. */
void sim_core_job_end(struct sim_core *k, fw_time_t now, struct sim_rjob *j);

/*
 * --explain: the job's priority breakdown now, its planned start and
 * nodes, and why it is not running (the planner's decision record of a
 * backfill pass at now, which starts nothing).
 */
int sim_core_explain(struct sim_core *k, fw_time_t now, struct sim_rjob *j,
		     struct sim_rjob **pending, size_t np,
		     struct sim_rjob **running, size_t nr, FILE *out,
		     struct fw_err *err);

/*
 * Each top-level account's usage (CPU-seconds charged, over the run) and
 * target share (normalised shares); fills res->share.
 */
void sim_core_shares(struct sim_core *k, struct sim_rjob *jobs, size_t n,
		     struct sim_result *res);

#endif /* SIM_CORE_H */
