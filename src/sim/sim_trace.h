/*
 * sim_trace.h - the workload fairway-sim replays, and its three readers:
 *
 *   SWF    Standard Workload Format of the Parallel Workloads Archive
 *   CSV    a header line naming the columns (see fairway-sim(1))
 *   sacct  `sacct --parsable2` exports of a real Slurm cluster
 *
 * Each reader has a file and a buffer entry point (the file one reads the
 * file whole and calls the buffer one).  A malformed line is reported with
 * file, line number and reason; with skip_bad_lines the line is counted
 * (and the first error kept) and reading goes on.  No input can crash a
 * reader: every number is range checked.
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_common.h"
#include "sim_util.h"

/* Bounds that keep arithmetic on trace values far from overflow. */
#define SIM_MAX_NODES 1000000u
#define SIM_MAX_CPUS 100000000u
#define SIM_MAX_GPUS 1000000u
#define SIM_MAX_SECONDS (100LL * 366 * 86400) /* a century */
#define SIM_MAX_LICENSES 8

struct sim_lic_req {
	const char *name; /* interned */
	uint32_t count;
};

/* One job of the workload, as the trace describes it. */
struct sim_job {
	uint32_t id;
	fw_time_t submit;
	fw_time_t eligible;      /* begin time; 0 = eligible at submit */
	fw_time_t deadline;      /* 0 = none */
	const char *user;        /* interned names; NULL = not given */
	const char *account;
	const char *partition;
	const char *qos;
	uint32_t nodes;          /* 0 = derive from cpus */
	uint32_t cpus;           /* whole job; 0 = all CPUs of its nodes */
	uint64_t mem_mb;         /* whole job; 0 = not given */
	uint32_t gpus;           /* whole job */
	int64_t time_limit;      /* seconds; -1 = not given (partition MaxTime) */
	int64_t run_time;        /* seconds the job actually runs */
	int32_t nice;
	uint32_t dep_job;        /* SWF preceding job number, 0 = none */
	int64_t think_time;      /* SWF think time after dep_job ends */
	uint32_t nlic;
	struct sim_lic_req lic[SIM_MAX_LICENSES];
	bool limit_estimated;    /* SWF: time_limit made from the run time
				    (requested time unknown): capped at the
				    partition's MaxTime, never rejected */
	fw_time_t trace_start;   /* start recorded in the trace, -1 unknown */
	int lineno;              /* line of the trace it came from */
};

enum sim_trace_format { SIM_TRACE_SWF, SIM_TRACE_CSV, SIM_TRACE_SACCT };

struct sim_trace {
	struct sim_job *job;
	size_t n, cap;
	struct sim_strtab str;   /* names of users, accounts, ... */
	/* Lines that were skipped, and why. */
	size_t bad_lines;        /* malformed (only with skip_bad_lines) */
	struct fw_err first_bad; /* the first of them */
	size_t not_started;      /* sacct: never started; SWF: no run time */
	size_t still_running;    /* sacct: End=Unknown (Elapsed used) */
	/* SWF header comments (0 when absent). */
	int64_t swf_max_nodes, swf_max_procs;
	fw_time_t swf_unix_start;
	bool swf_has_unix_start;
	size_t swf_limit_estimated; /* requested time unknown: estimated */
	size_t swf_procs_fallback;  /* preferred processor field unknown */
};

/*
 * SWF jobs whose requested time (field 9) is unknown.  Without a time
 * limit a job can only be backfilled onto nodes no reservation needs, and
 * every time-based priority term is the same for all jobs, so the default
 * is the run time itself (a perfect estimate, as in most studies).
 */
enum sim_swf_estimate {
	SIM_SWF_EST_EXACT,     /* limit = run time */
	SIM_SWF_EST_FACTOR,    /* limit = ceil(run time x factor) */
	SIM_SWF_EST_PARTITION, /* no limit: partition DefaultTime/MaxTime */
};

/* SWF processors: requested (field 8) or allocated (field 5) first. */
enum sim_swf_procs { SIM_SWF_PROCS_REQUESTED, SIM_SWF_PROCS_ALLOCATED };

/* SWF queue (field 15) or partition (field 16) number -> a name. */
#define SIM_SWF_MAX_MAP 64
struct sim_swf_map {
	int64_t num;
	const char *name;        /* not owned: must outlive the reading */
};

struct sim_read_opts {
	bool skip_bad_lines;     /* count malformed lines instead of stopping */
	uint32_t cpus_per_node;  /* SWF: nodes = ceil(procs / this); 0 = from
				    the MaxProcs/MaxNodes header, else 1 */
	bool start_time_set;     /* SWF: absolute time of the trace's t = 0 */
	fw_time_t start_time;    /* (default: UnixStartTime header, else 0) */
	enum sim_swf_estimate swf_estimate;
	double swf_est_factor;   /* SIM_SWF_EST_FACTOR: >= 1 */
	enum sim_swf_procs swf_procs;
	/* SWF: queue numbers named as QOS, partition numbers as partitions
	   (others stay "q<N>" / "p<N>"). */
	struct sim_swf_map qos_map[SIM_SWF_MAX_MAP];
	uint32_t nqos_map;
	struct sim_swf_map part_map[SIM_SWF_MAX_MAP];
	uint32_t npart_map;
};

/*
 * "N=NAME" (N >= 0, NAME non-empty; points into s) added to the queue
 * (qos) or partition map of o.  0, or -1 when malformed, N given twice or
 * the map is full.
 */
int sim_swf_map_parse(const char *s, bool partition, struct sim_read_opts *o);

/*
 * "exact", "factor:K" (K >= 1) or "partition-max" into o; 0 or -1.
 * sim_swf_estimate_str writes the same form back (for the summary).
 */
int sim_swf_estimate_parse(const char *s, struct sim_read_opts *o);
const char *sim_swf_estimate_str(const struct sim_read_opts *o, char *buf,
				 size_t len);
/* "requested" or "allocated"; 0 or -1. */
int sim_swf_procs_parse(const char *s, struct sim_read_opts *o);
const char *sim_swf_procs_str(const struct sim_read_opts *o);

void sim_trace_init(struct sim_trace *t);
void sim_trace_free(struct sim_trace *t);

/* Each returns 0, or -1 with err naming file, line and reason. */
int sim_read_swf(struct sim_trace *t, const char *path,
		 const struct sim_read_opts *o, struct fw_err *err);
int sim_read_swf_mem(struct sim_trace *t, const char *name, const char *buf,
		     size_t len, const struct sim_read_opts *o,
		     struct fw_err *err);
int sim_read_csv(struct sim_trace *t, const char *path,
		 const struct sim_read_opts *o, struct fw_err *err);
int sim_read_csv_mem(struct sim_trace *t, const char *name, const char *buf,
		     size_t len, const struct sim_read_opts *o,
		     struct fw_err *err);
int sim_read_sacct(struct sim_trace *t, const char *path,
		   const struct sim_read_opts *o, struct fw_err *err);
int sim_read_sacct_mem(struct sim_trace *t, const char *name,
		       const char *buf, size_t len,
		       const struct sim_read_opts *o, struct fw_err *err);

/*
 * Order the jobs by submit time (then id) and check that ids are unique
 * (-1 with err naming the second line otherwise).  The readers call it.
 */
int sim_trace_finish(struct sim_trace *t, const char *name,
		     struct fw_err *err);

/*
 * Parse a license request list "matlab:2,ansys" (count 1 when omitted) into
 * job->lic.  Returns 0 or -1 with err->msg set.
 */
int sim_parse_licenses(struct sim_trace *t, const char *s,
		       struct sim_job *job, struct fw_err *err);

#endif /* SIM_TRACE_H */
