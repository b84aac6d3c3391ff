/*
 * sim_report.h - what a simulation run produced, and its outputs:
 *
 *   jobs.csv       one line per job (times, nodes, priority and its sprio
 *                  columns at start, backfilled, bypass count)
 *   summary.json   metrics of the run (see struct sim_metrics), also per
 *                  account, QOS and partition
 *   report.txt     the same as text tables
 *   *.svg          Gantt chart, utilisation over time, wait distribution
 *
 * Everything here works from the per-job outcomes alone, so the reports of
 * a run can be tested without running the engine.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_common.h"
#include "sim_cluster.h"
#include "sim_util.h"

/* Bounded slowdown threshold (seconds): max(1, (wait+run)/max(run, tau)). */
#define SIM_BSLD_TAU 10

/* sprio's columns of a job's priority when it started. */
struct sim_prio_cols {
	int64_t age, assoc, fairshare, jobsize, partition, qos, tres, site,
		nice;
};

enum sim_job_state {
	SIM_JOB_DONE,       /* ran to its end (or to its time limit) */
	SIM_JOB_UNFINISHED, /* still running or pending when the run ended */
	SIM_JOB_REJECTED,   /* can never run on this cluster (reason says why) */
	SIM_JOB_CANCELLED,  /* preempted with PreemptMode=CANCEL */
};

struct sim_outjob {
	uint32_t id;
	const char *user, *account, *partition, *qos;
	enum sim_job_state state;
	fw_time_t submit;   /* effective submit (after SWF dependencies) */
	fw_time_t eligible; /* begin time (= submit when none) */
	fw_time_t start;    /* -1 = never started */
	fw_time_t end;      /* -1 = did not end */
	uint32_t nodes, cpus;
	const uint32_t *node; /* allocated node indices (nodes of them) */
	double node_share;    /* nodes it holds on parts of nodes: the sum
				 of its CPU fractions (0: whole nodes) */
	uint32_t priority;    /* at start (or last computed) */
	struct sim_prio_cols cols;
	bool backfilled;
	bool killed;          /* ran into its time limit */
	uint32_t bypass;      /* times backfill started a later job first */
	uint32_t preempted;   /* times it was preempted (each run lost) */
	double work_lost;     /* CPU-seconds of its preempted runs */
	const char *reason;   /* REJECTED/UNFINISHED: why, else NULL */
};

/* A run that was preempted (requeued or cancelled): the job (index into
 * sim_result.job), when it ran, where (owned), its CPUs on each node. */
struct sim_prun {
	size_t job;
	fw_time_t start, end;
	uint32_t *node;
	uint32_t nodes;
	uint32_t cpus_per_node; /* 0: whole nodes */
};

/* An account's usage against its target share (top-level accounts). */
struct sim_share {
	const char *account;
	double target;      /* normalised shares, product down the tree */
	double usage;       /* CPU-seconds charged */
	double fraction;    /* usage / total usage */
};

struct sim_result {
	const struct sim_cluster *cluster;
	const char *policy;
	struct sim_outjob *job;
	size_t n;
	struct sim_share *share;
	size_t nshares;
	fw_time_t sim_begin, sim_end; /* simulated span */
	double wall_sec;              /* wall time of the run */
	/* Engine counters. */
	uint64_t events, main_passes, bf_passes, prio_passes;
	uint64_t skipped_passes; /* scheduling passes nothing could come of */
	size_t trace_bad_lines, trace_not_started;
	size_t defaulted_partition; /* SWF partition numbers the cluster lacks */
	/* How the trace was read (SWF; NULL otherwise), for the summary. */
	const char *swf_estimate, *swf_procs;
	size_t swf_limit_estimated, swf_procs_fallback;
	/* Preemption (preempt_type NULL: not configured, nothing reported). */
	const char *preempt_type;
	struct sim_prun *prun;
	size_t nprun, prun_cap;
	/* Jobs that waited longer than wait_threshold seconds are counted. */
	bool wait_threshold_set;
	int64_t wait_threshold;
};

struct sim_metrics {
	size_t jobs;            /* all jobs of the run */
	size_t done, unfinished, rejected;
	size_t backfilled, killed;
	size_t cancelled;       /* preempted with PreemptMode=CANCEL */
	uint64_t preemptions;   /* preempted runs (requeued or cancelled) */
	double work_lost;       /* CPU-seconds of preempted runs */
	double utilisation;     /* allocated node-seconds / (nodes x makespan) */
	double cpu_utilisation; /* requested CPU-seconds / (CPUs x makespan) */
	int64_t makespan;       /* last end - first submit (done jobs) */
	double mean_wait, median_wait;
	int64_t p95_wait;       /* nearest rank: the ceil(0.95 n)-th smallest */
	int64_t max_wait;
	double mean_bsld;       /* bounded slowdown, tau = SIM_BSLD_TAU */
	double max_bsld;
	size_t over_threshold;  /* done jobs with wait > r->wait_threshold */
};

void sim_metrics_compute(const struct sim_result *r, struct sim_metrics *m);

/* Metrics of the jobs of one account, QOS or partition. */
enum sim_group_by { SIM_BY_ACCOUNT, SIM_BY_QOS, SIM_BY_PARTITION };
#define SIM_NGROUP_BY 3
const char *sim_group_by_name(enum sim_group_by by);

struct sim_group {
	const char *name;        /* "(none)" when the jobs name none */
	struct sim_metrics m;    /* utilisation: of the whole cluster over
				    the run's makespan, by this group's jobs */
};

/*
 * The groups of r (in order of first appearance), each with its metrics.
 * Returns the count; *out is malloc'ed (free it).
 */
size_t sim_groups_compute(const struct sim_result *r, enum sim_group_by by,
			  struct sim_group **out);

/* Bounded slowdown of one job (wait and run in seconds). */
double sim_bsld(int64_t wait, int64_t run);

/*
 * "n[1-4,7],gpu01" from node indices (ascending), the inverse of a Slurm
 * hostlist expression.  Appends to b.
 */
void sim_hostlist_compress(const struct sim_cluster *c, const uint32_t *idx,
			   size_t n, struct fw_buf *b);

void sim_write_jobs_csv(const struct sim_result *r, struct fw_buf *b);
void sim_write_summary_json(const struct sim_result *r,
			    const struct sim_metrics *m, struct fw_buf *b);
/* The run's summary lines (fairway-sim prints them unless --quiet). */
void sim_write_summary_txt(const struct sim_result *r,
			   const struct sim_metrics *m, struct fw_buf *b);
/* The text report (report.txt; its first lines are the stdout summary). */
void sim_write_report_txt(const struct sim_result *r,
			  const struct sim_metrics *m, struct fw_buf *b);

/* SVG charts (sim_svg.c). */
void sim_svg_gantt(const struct sim_result *r, struct fw_buf *b);
void sim_svg_utilisation(const struct sim_result *r, struct fw_buf *b);
void sim_svg_waits(const struct sim_result *r, struct fw_buf *b);
/* Box plots of waits on a logarithmic axis, one per box (waits sorted
   ascending; empty boxes are left out).  sim_svg_waits and the compare
   mode's chart are both drawn with it. */
struct sim_wait_box {
	const char *label;   /* under the box */
	const char *tip;     /* its tooltip's name (NULL: the label) */
	int64_t *wait;
	size_t n;
};
void sim_svg_wait_boxes(const struct sim_wait_box *bx, size_t nb,
			const char *title, const char *xlabel,
			struct fw_buf *b);

/*
 * Write jobs.csv, summary.json, gantt.svg, utilisation.svg and waits.svg
 * into dir (created if missing).  Returns 0 or -1 with err set.
 */
int sim_write_outputs(const struct sim_result *r, const char *dir,
		      struct fw_err *err);

#endif /* SIM_REPORT_H */
