/*
 * fw_prio.h - Fairway's factor model: a job's attributes, the time and a
 * fair-share value in, a priority with a per-term breakdown out.
 *
 * One model expresses Slurm's priority/multifactor (same factors, same
 * normalisation, same flags), the raw linear formulas of PBS-style sites,
 * per-QOS/partition start values that grow with queue time, Moab's two-tier
 * factor/subfactor weights with caps, an accrual ledger against queue
 * stuffing and calendar-timed boosts.
 *
 *   priority = clamp(round(PriorityScale * total), 1, 2^32-1)
 *   (truncated, not rounded, in multifactor mode: fw_prio_multifactor())
 *   total    = sum over groups g of  capG_g( GW_g * sum_{t in g} capT_t(w_t * raw_t) )
 *
 * capT/capG bound the absolute value (both directions, Moab-style); the
 * caps are in priority points after the weight.  Every term's raw value,
 * weight and weighted value are in struct fw_prio_result.
 *
 * Usage: fw_prio_conf_new(), feed slurm.conf keys (fw_prio_conf_slurm) and
 * fairway.conf lines (fw_prio_conf_line), optionally fw_prio_bind_tres(),
 * then fw_prio_conf_finish().  Resolve entity names of each job once with
 * fw_prio_resolve(), fill struct fw_prio_job, and call fw_prio_compute()
 * (one job, full breakdown), fw_prio_compute_many() (full breakdown of a
 * queue, e.g. sprio) or fw_prio_compute_batch() (the hot path).  With
 * AccruePolicy=Eligible the adapter first runs fw_accrue_tick()
 * (fw_accrue.h) to fill each job's effective queue time.
 * The configuration is read-only after finish; it may be shared by threads.
 *
 * Multi-partition jobs: compute once per partition with that partition's
 * fields (partition, part_prio_*, part_tres_total), as Slurm's
 * priority_array.
 */
#ifndef FW_PRIO_H
#define FW_PRIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_common.h"

/* ------------------------------------------------------------- terms */

/*
 * Every term belongs to one group (Moab's two-tier model).  The order is
 * part of the ABI of struct fw_prio_result (arrays indexed by term).
 */
enum fw_prio_term {
	/* group SLURM: priority/multifactor's factors (weights in slurm.conf) */
	FW_PRIO_T_AGE,            /* min((now-accrue_time)/PriorityMaxAge, 1) */
	FW_PRIO_T_FAIRSHARE,      /* job->fairshare */
	FW_PRIO_T_JOBSIZE,        /* Slurm's job size factor, 0..1 */
	FW_PRIO_T_PARTITION,      /* partition PriorityJobFactor, normalised */
	FW_PRIO_T_QOS,            /* QOS priority, normalised */
	FW_PRIO_T_ASSOC,          /* association priority, normalised */
	FW_PRIO_T_TRES,           /* sum_t w_t * req_t / partition_total_t */
	FW_PRIO_T_SITE,           /* site factor, weight fixed 1 */
	FW_PRIO_T_NICE,           /* nice, weight fixed -1 */
	/* group CRED: credential priorities from fairway.conf */
	FW_PRIO_T_CRED_USER,      /* User=name Priority= */
	FW_PRIO_T_CRED_ACCOUNT,   /* Account=name Priority= */
	FW_PRIO_T_CRED_QOS,       /* QOS=name Priority= */
	FW_PRIO_T_CRED_PARTITION, /* Partition=name Priority= */
	FW_PRIO_T_QUEUE_PRIORITY, /* partition's raw PriorityJobFactor (PBS queue priority) */
	/* group FS */
	FW_PRIO_T_FS,             /* job->fairshare with a fractional weight */
	/* group RES: requested resources, site units */
	FW_PRIO_T_NODES,          /* nodes */
	FW_PRIO_T_CPUS,           /* CPUs */
	FW_PRIO_T_MEMGB,          /* memory in GB (MB/1024) */
	FW_PRIO_T_GPUS,           /* GPUs */
	FW_PRIO_T_WALLTIME,       /* time limit in minutes */
	FW_PRIO_T_PROC_SECONDS,   /* CPUs * time limit in seconds */
	FW_PRIO_T_PE,             /* processor equivalents */
	/* group SERVICE */
	FW_PRIO_T_QUEUE_TIME,     /* effective queue time in minutes */
	FW_PRIO_T_XFACTOR,        /* 1 + queue time / max(XFMinWCLimit, limit) */
	FW_PRIO_T_STARVATION,     /* minutes of queue time past StarvationThreshold */
	FW_PRIO_T_ELIGIBLE_TIME,  /* effective queue time in seconds */
	FW_PRIO_T_BYPASS,         /* times bypassed by backfill */
	FW_PRIO_T_START_COUNT,    /* times started (requeues) */
	FW_PRIO_T_DEADLINE,       /* deadline proximity 0..1 */
	FW_PRIO_T_USER_PRIO,      /* user-given priority -1024..1023 */
	/* group TARGET */
	FW_PRIO_T_TARGET_QUEUE_TIME, /* per-QOS queue-time target */
	FW_PRIO_T_TARGET_XFACTOR,    /* per-QOS expansion-factor target */
	/* group USAGE: running jobs only */
	FW_PRIO_T_CONSUMED,       /* processor-seconds consumed */
	FW_PRIO_T_REMAINING,      /* processor-seconds remaining */
	FW_PRIO_T_PERCENT,        /* percent of time limit consumed */
	FW_PRIO_T_EXECUTION_TIME, /* seconds since start */
	/* group BOOST */
	FW_PRIO_T_BOOST,          /* sum of active timed boosts */
	/* group BASE */
	FW_PRIO_T_BASE,           /* BasePriority + growth, QOS before partition */
	FW_PRIO_NTERMS
};

enum fw_prio_group {
	FW_PRIO_G_SLURM,
	FW_PRIO_G_CRED,
	FW_PRIO_G_FS,
	FW_PRIO_G_RES,
	FW_PRIO_G_SERVICE,
	FW_PRIO_G_TARGET,
	FW_PRIO_G_USAGE,
	FW_PRIO_G_BOOST,
	FW_PRIO_G_BASE,
	FW_PRIO_NGROUPS
};

/* Name used in keys (PriorityWeight<Name>, PriorityCap<Name>), e.g. "QueueTime". */
const char *fw_prio_term_name(enum fw_prio_term t);
enum fw_prio_group fw_prio_term_group(enum fw_prio_term t);
/* "Slurm", "Cred", ... as in PriorityGroupWeight<Name>. */
const char *fw_prio_group_name(enum fw_prio_group g);

/* ------------------------------------------------------------- flags */

/* PriorityFlags bits; same bit positions as Slurm's PRIORITY_FLAGS_*. */
#define FW_PRIO_FLAG_ACCRUE_ALWAYS     (1u << 0)
#define FW_PRIO_FLAG_MAX_TRES          (1u << 1)
#define FW_PRIO_FLAG_SIZE_RELATIVE     (1u << 2) /* SMALL_RELATIVE_TO_TIME */
#define FW_PRIO_FLAG_DEPTH_OBLIVIOUS   (1u << 3)
#define FW_PRIO_FLAG_CALCULATE_RUNNING (1u << 4)
#define FW_PRIO_FLAG_FAIR_TREE         (1u << 5)
#define FW_PRIO_FLAG_INCR_ONLY         (1u << 6)
#define FW_PRIO_FLAG_NO_NORMAL_ASSOC   (1u << 7)
#define FW_PRIO_FLAG_NO_NORMAL_PART    (1u << 8)
#define FW_PRIO_FLAG_NO_NORMAL_QOS     (1u << 9)
#define FW_PRIO_FLAG_NO_NORMAL_TRES    (1u << 10)

/*
 * Parse a PriorityFlags value the way Slurm applies it: FAIR_TREE is on by
 * default, NO_FAIR_TREE and DEPTH_OBLIVIOUS clear it, NO_NORMAL_ALL sets
 * all four NO_NORMAL_* bits.  Comma separated, case-insensitive; an empty
 * value gives the default; an unknown flag is an error naming it.  Shared
 * with the fair-share module, which needs the same bits.
 */
int fw_prio_parse_flags(const char *value, uint32_t *flags, struct fw_err *err);

/* ------------------------------------------------------ configuration */

enum fw_prio_kind {
	FW_PRIO_USER,
	FW_PRIO_ACCOUNT,
	FW_PRIO_QOS,
	FW_PRIO_PARTITION,
	FW_PRIO_NKINDS
};

/* Effective-queue-time policy (AccruePolicy=). */
enum fw_prio_accrue_policy {
	FW_ACCRUE_ACCRUE_TIME, /* AccrueTime: queue time = now - accrue_time (Slurm) */
	FW_ACCRUE_ELIGIBLE     /* Eligible: accrues only while eligible, not held and
				  within AccrueMaxJobsPer*; kept by struct fw_accrue */
};

struct fw_prio_conf; /* opaque; see fw_prio_conf.c */

struct fw_prio_conf *fw_prio_conf_new(void);
void fw_prio_conf_free(struct fw_prio_conf *c);
int fw_prio_conf_line(struct fw_prio_conf *c, const struct fw_kv *kv,
		      bool *used, struct fw_err *err);
int fw_prio_conf_slurm(struct fw_prio_conf *c, const char *key,
		       const char *value, struct fw_err *err);
int fw_prio_conf_finish(struct fw_prio_conf *c, struct fw_err *err);

/*
 * Bind the TRES list the adapter will use for fw_prio_job.tres[] and
 * part_tres_total[] (Slurm's assoc_mgr_tres_name_array order: "cpu", "mem",
 * "node", "billing", "gres/gpu", ...).  Every TRES named in
 * PriorityWeightTRES must be in the list (else FW_CONF_ERR naming it).
 * Without a call, fw_prio_conf_finish() binds the TRES of
 * PriorityWeightTRES in the order written.  May be called again (e.g. after
 * a reconfigure changed the TRES list).
 */
int fw_prio_bind_tres(struct fw_prio_conf *c, const char *const *names,
		      int n, struct fw_err *err);
/* Bound TRES list: count and names (index = position in job->tres[]). */
int fw_prio_tres_count(const struct fw_prio_conf *c);
const char *fw_prio_tres_name(const struct fw_prio_conf *c, int i);

/*
 * Entity index of a name that has a fairway.conf entry (an entity line, or a
 * Boost selector), or -1.  Resolve once per job, not per computation.
 * Names are case-sensitive, as Slurm user names are.
 */
int fw_prio_resolve(const struct fw_prio_conf *c, enum fw_prio_kind kind,
		    const char *name);
int fw_prio_entity_count(const struct fw_prio_conf *c, enum fw_prio_kind kind);
const char *fw_prio_entity_name(const struct fw_prio_conf *c,
				enum fw_prio_kind kind, int idx);

/* Read-only views of the parsed configuration, for adapters. */
uint32_t fw_prio_flags(const struct fw_prio_conf *c);
bool fw_prio_favor_small(const struct fw_prio_conf *c);
/*
 * True when no term whose value changes while a job waits has a weight
 * (age, fair-share, queue time, expansion factor, eligible time, bypass,
 * deadline, targets, usage terms, per-QOS weight additions, timed boosts,
 * growing base priorities): every pending job's priority is then what it
 * was at submission, and periodic recalculation cannot change it.  The
 * simulator skips its priority passes then.
 */
bool fw_prio_time_invariant(const struct fw_prio_conf *c);
int64_t fw_prio_max_age(const struct fw_prio_conf *c);     /* seconds */
/* Recalculation period in seconds: RecalcPeriod if set (fairway.conf),
 * else PriorityCalcPeriod (whole minutes). */
int64_t fw_prio_calc_period(const struct fw_prio_conf *c);
double fw_prio_scale(const struct fw_prio_conf *c);
/*
 * Multifactor mode: the configuration uses nothing but Slurm's terms
 * (PriorityWeightAge/Fairshare/JobSize/Partition/QOS/Assoc/TRES, site
 * factor, nice): no PriorityScale, caps, group weights, credential
 * priorities, boosts, base priorities or other Fairway terms.  Then the
 * priority is computed exactly as priority/multifactor computes it
 * (same summation order, truncated to an integer) and sprio gets
 * multifactor's columns (struct fw_prio_sprio).
 */
bool fw_prio_multifactor(const struct fw_prio_conf *c);
double fw_prio_weight(const struct fw_prio_conf *c, enum fw_prio_term t);
/* INFINITY when uncapped. */
double fw_prio_cap(const struct fw_prio_conf *c, enum fw_prio_term t);
double fw_prio_group_weight(const struct fw_prio_conf *c, enum fw_prio_group g);
double fw_prio_group_cap(const struct fw_prio_conf *c, enum fw_prio_group g);
enum fw_prio_accrue_policy fw_prio_accrue_policy(const struct fw_prio_conf *c);
/* 0 = no limit. */
uint32_t fw_prio_accrue_max_user(const struct fw_prio_conf *c);
uint32_t fw_prio_accrue_max_account(const struct fw_prio_conf *c);

/* ----------------------------------------------------- inputs, outputs */

/* fw_prio_job.queue_sec: derive from accrue_time (AccruePolicy=AccrueTime). */
#define FW_PRIO_QUEUE_AUTO (-1)

/*
 * One job, filled by an adapter.  Times are seconds since the epoch; 0 means
 * "not set".  fw_prio_job_init() sets every field to its neutral value.
 */
struct fw_prio_job {
	uint32_t job_id;
	uint32_t uid;        /* for AccrueMaxJobsPerUser */
	uint32_t account_id; /* for AccrueMaxJobsPerAccount: any stable number per account */
	int user, account, qos, partition; /* fw_prio_resolve() indices, -1 none */

	fw_time_t submit_time;
	fw_time_t eligible_time; /* begin time; 0 = eligible at submit */
	fw_time_t accrue_time;   /* Slurm's accrue_time; 0 = not accruing.  With
				    ACCRUE_ALWAYS the adapter passes submit_time. */
	int64_t queue_sec;       /* effective queue seconds (from fw_accrue_tick),
				    or FW_PRIO_QUEUE_AUTO */
	fw_time_t start_time;    /* running jobs */
	bool running;
	bool held;               /* the adapter gives held jobs priority 0 */
	fw_time_t deadline;      /* 0 = none */

	uint32_t nodes;          /* requested (min) nodes */
	uint32_t cpus;           /* Slurm: total_cpus, else max_cpus, else min_cpus */
	uint64_t mem_mb;         /* requested memory, MB (whole job) */
	uint32_t gpus;
	uint32_t time_limit_min; /* minutes; the adapter substitutes the partition's
				    MaxTime when the job has none */
	const uint64_t *tres;            /* per bound TRES (alloc, else req); NULL = none */
	const uint64_t *part_tres_total; /* per bound TRES, the job's partition; NULL = none */

	int32_t nice;            /* unbiased; subtracted */
	int64_t site_factor;     /* unbiased; added */
	int32_t user_prio;       /* Moab USERPRIO, -1024..1023 */
	uint32_t bypass_count;
	uint32_t start_count;
	double fairshare;        /* fs module's factor (scale depends on formula) */

	uint32_t part_prio_raw;  /* partition PriorityJobFactor */
	double part_prio_norm;   /* raw / max over partitions (Slurm's norm_priority) */
	uint32_t part_tier;      /* partition PriorityTier (for the planner's sort) */
	uint32_t qos_prio_raw;
	double qos_prio_norm;    /* raw / max QOS priority */
	uint32_t assoc_prio_raw;
	double assoc_prio_norm;  /* raw / max association priority */

	int64_t run_sec;         /* running jobs: elapsed seconds */
	uint32_t alloc_cpus;     /* running jobs: allocated CPUs */

	uint32_t prev_priority;  /* INCR_ONLY: last priority given, 0 = none */
};

void fw_prio_job_init(struct fw_prio_job *j);

struct fw_prio_ctx {
	fw_time_t now;
	uint32_t total_nodes;   /* Slurm node_record_count (JobSize) */
	uint32_t total_cpus;    /* Slurm cluster_cpus (JobSize, PE) */
	uint64_t total_mem_mb;  /* PE */
};

#define FW_PRIO_MAX_TRES 32   /* entries of PriorityWeightTRES */
#define FW_PRIO_MAX_BOOSTS 64

/*
 * sprio's columns, in priority points (after PriorityScale and group
 * weights and caps).  Two layouts, chosen by the configuration
 * (fw_prio_multifactor()):
 *
 * Fairway's own (fairway.conf policies): integers such that
 *   age + assoc + fairshare + jobsize + partition + qos + site
 *     + sum(tres[0..ntres)) - nice == priority      exactly.
 * Terms are mapped onto the column whose meaning they share (see
 * fairway.conf(5)); site holds the site factor, every term sprio has no
 * column for, the rounding remainder and the effects of the clamp to
 * 1..2^32-1 and of INCR_ONLY.
 *
 * priority/multifactor's (only Slurm's terms configured): the exact
 * weighted factors as multifactor hands them to sprio (sprio prints each
 * rounded and truncates their sum for PRIORITY, so the printed columns
 * need not add up); site is the site factor, nice the job's nice value.
 */
struct fw_prio_sprio {
	double age, assoc, fairshare, jobsize, partition, qos, site, nice;
	int ntres;
	double tres[FW_PRIO_MAX_TRES]; /* parallel to fw_prio_weighted_tres() */
};

struct fw_prio_result {
	double raw[FW_PRIO_NTERMS];    /* factor before weighting */
	double weight[FW_PRIO_NTERMS]; /* effective weight (incl. per-QOS adjustments) */
	double value[FW_PRIO_NTERMS];  /* weight*raw, capped by the term cap */
	double tres_factor[FW_PRIO_MAX_TRES]; /* per weighted TRES: req/partition total (or req) */
	double tres[FW_PRIO_MAX_TRES];        /* w_t * factor_t; their sum is raw[TRES] */
	double group_sum[FW_PRIO_NGROUPS];   /* GW * sum of values, before the group cap */
	double group_value[FW_PRIO_NGROUPS]; /* after the group cap */
	double total;        /* sum of group_value (before PriorityScale) */
	uint32_t priority;   /* clamp(round(total * PriorityScale), 1, 2^32-1), INCR_ONLY;
				truncated instead of rounded in multifactor mode */
	struct fw_prio_sprio sprio;
};

/* Weighted TRES: the entries of PriorityWeightTRES, in the order written. */
int fw_prio_weighted_tres(const struct fw_prio_conf *c);
/* Weighted TRES k: its index in the bound TRES list (fw_prio_tres_name) and weight. */
int fw_prio_weighted_tres_index(const struct fw_prio_conf *c, int k);
double fw_prio_weighted_tres_weight(const struct fw_prio_conf *c, int k);

/* One job with the full breakdown.  Returns res->priority. */
uint32_t fw_prio_compute(const struct fw_prio_conf *c,
			 const struct fw_prio_ctx *ctx,
			 const struct fw_prio_job *job,
			 struct fw_prio_result *res);

/*
 * The hot path: n jobs, priority[i] for jobs[i]; total (may be NULL) gets
 * the unscaled exact total.  No allocation; time-window state (boosts) is
 * evaluated once per call.
 */
void fw_prio_compute_batch(const struct fw_prio_conf *c,
			   const struct fw_prio_ctx *ctx,
			   const struct fw_prio_job *jobs, size_t n,
			   uint32_t *priority, double *total);

/*
 * Full breakdown of n jobs (sprio, `fairway explain` of a queue): as
 * fw_prio_compute for each, sharing the pass state (local time for boosts).
 */
void fw_prio_compute_many(const struct fw_prio_conf *c,
			  const struct fw_prio_ctx *ctx,
			  const struct fw_prio_job *jobs, size_t n,
			  struct fw_prio_result *res);

/*
 * Human-readable breakdown of a result (every enabled term with raw value,
 * weight, cap and weighted value; groups; total; sprio columns), for
 * `fairway explain` and `fairway-sim --explain`.  snprintf semantics:
 * returns the length the full text needs.
 */
size_t fw_prio_explain(const struct fw_prio_conf *c,
		       const struct fw_prio_job *job,
		       const struct fw_prio_result *res, char *buf, size_t len);

/*
 * Target factor shape used by TargetQueueTime and TargetXFactor, exposed for
 * tests and documentation: x = progress towards the target (1 = reached).
 *   x <= 0:     0
 *   0 < x <= 1: (e^(k x) - 1) / (e^k - 1)         with k = FW_PRIO_TARGET_K
 *   x > 1:      1 + s (x - 1),  s = k e^k / (e^k - 1)  (slope at x = 1)
 */
#define FW_PRIO_TARGET_K 5.0
double fw_prio_target_shape(double x);

/* --------------------------------------------------------- boosts */

/*
 * Is a When= window list active at `now` (local time)?  Exposed for tests
 * and `fairway explain`.  Returns 1/0, or -1 with err set for a bad spec.
 */
int fw_prio_window_active(const char *spec, fw_time_t now, struct fw_err *err);

#endif /* FW_PRIO_H */
