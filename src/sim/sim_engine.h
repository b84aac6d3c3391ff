/*
 * sim_engine.h - fairway-sim's discrete-event engine.
 *
 * Events are job submits (from the trace), job ends (the actual run time,
 * or the time limit when the job would run longer), priority passes every
 * PriorityCalcPeriod, and backfill passes every bf_interval.  All events of
 * one second are processed together, in this order:
 *
 *   1. jobs that end free their nodes (their last usage is charged);
 *   2. submitted jobs join the queue (their priority is computed);
 *   3. a priority pass, if PriorityCalcPeriod has elapsed: fair-share usage
 *      of running jobs is charged, usage decays, the accrual ledger ticks,
 *      every pending job's priority is recomputed (all but the charge are
 *      skipped when no weighted term changes with time: the priorities
 *      are then those of submission, see fw_prio_time_invariant);
 *   4. the main pass (when anything changed), or, when bf_interval has
 *      elapsed and anything changed since the last one, the backfill pass
 *      (which starts what the main pass would, and more);
 *   5. --explain output, if its time has come.
 *
 * Policy decisions (priorities, fair-share, which job starts where) are the
 * core's: see sim_core.h, the only place that calls it.
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fw_common.h"
#include "sim_cluster.h"
#include "sim_report.h"
#include "sim_trace.h"

enum sim_policy {
	SIM_POLICY_FAIRWAY,      /* what the configuration says */
	SIM_POLICY_FIFO,         /* main pass only */
	SIM_POLICY_EASY,         /* main + backfill, reservation depth 1 */
	SIM_POLICY_CONSERVATIVE, /* main + backfill, every job reserved */
	SIM_POLICY_SERIAL,       /* one job at a time, in priority order */
};

const char *sim_policy_name(enum sim_policy p);
int sim_policy_parse(const char *s, enum sim_policy *p);

/* Progress of a run, for the progress bar. */
typedef void (*sim_progress_fn)(void *ctx, fw_time_t now, fw_time_t begin,
				fw_time_t end_estimate, size_t done,
				size_t total);

struct sim_options {
	enum sim_policy policy;
	bool swf_dependencies;  /* submit SWF jobs after their preceding job */
	bool bf_on_change;      /* also run backfill on events that changed the
				   queue, not only every bf_interval */
	bool explain;           /* --explain JOBID --at TIME */
	uint32_t explain_job;
	fw_time_t explain_at;
	FILE *explain_out;
	sim_progress_fn progress;
	void *progress_ctx;
};

/* A job of the run (engine state; the core adapter fills its bindings). */
enum sim_rstate { SIM_R_FUTURE, SIM_R_PENDING, SIM_R_RUNNING, SIM_R_DONE,
		  SIM_R_REJECTED };

struct sim_rjob {
	const struct sim_job *tj;
	struct sim_outjob *out;
	enum sim_rstate state;
	fw_time_t submit, eligible;  /* effective (eligible >= submit) */
	int32_t part;                /* cluster partition index */
	const char *account;         /* resolved (default account if none) */
	uint32_t nodes;              /* whole nodes it gets */
	uint32_t cpus;               /* requested CPUs, whole job */
	uint32_t cpus_per_node, gpus_per_node;
	uint64_t mem_per_node_mb;
	int64_t limit;               /* seconds, -1 = unlimited */
	int64_t run;                 /* seconds it will run (<= limit) */
	uint32_t priority;
	double prio_total;
	uint32_t bypass;
	uint32_t alloc_cpus;         /* CPUs allocated to it */
	bool shared;                 /* runs on parts of its nodes */
	fw_time_t last_charge;       /* fair-share charged up to here */
	double usage;                /* billable unit-seconds charged (undecayed) */
	void *core;                  /* the adapter's per-job data */
	size_t pos;                  /* index in the engine's pending/running list */
	struct sim_rjob *dep_next;   /* SWF: next job waiting for the same one */
	struct sim_rjob *dep_first;  /* SWF: first job waiting for this one */
	bool waits_for_dep;          /* SWF: submitted when its predecessor ends */
	bool sched_never;            /* the planner found it can never run */
	/* Preemption: */
	bool may_preempt;            /* its QOS/partition may preempt others */
	fw_time_t preempt_end;       /* being preempted: gone then (0: not) */
	uint32_t preempt_mode;       /* enum sim_preempt_mode of that preemption */
	uint32_t gen;                /* runs started: tells stale end events */
};

/*
 * Run the trace through the core.  res gets one sim_outjob per trace job
 * (in trace order) and the counters; free it with sim_result_free().
 * Returns 0, or -1 with err set (configuration or core error).
 */
struct sim_core;
int sim_run(const struct sim_trace *t, const struct sim_cluster *c,
	    struct sim_core *core, const struct sim_options *o,
	    struct sim_result *res, struct fw_err *err);
void sim_result_free(struct sim_result *r);

#endif /* SIM_ENGINE_H */
