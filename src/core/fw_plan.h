/*
 * fw_plan.h - Fairway's planner: availability timeline, main pass and
 * backfill pass, shared by sched/fairway and the simulator.
 *
 * Model (see fairway.conf(5), section PLANNER, and doc/design.md):
 *
 *  - A cluster (struct fw_cluster, fw_cluster.h) is built once by the
 *    adapter: nodes with CPUs, memory, GPUs, GRES, island and a usable
 *    flag; partitions with node sets, PriorityTier and limits;
 *    cluster-wide licenses; whether jobs share nodes.
 *
 *  - A plan (struct fw_plan) is built per cycle at time `now`: running jobs
 *    (node set or per-node amounts, expected end, licenses), advanced
 *    reservations, nodes that are down.  Time is discretised in steps of
 *    bf_resolution from t0 = floor(now / res) * res over bf_window.  On a
 *    cluster that does not share nodes planning is by whole nodes, like
 *    Slurm's backfill node_space, and a job's per-node CPU, memory and GPU
 *    needs only filter which nodes can hold it.  On a shared cluster a
 *    job books its CPUs, memory, GPUs and GRES on each node
 *    (fw_plan_share.h); jobs that want whole nodes (--exclusive,
 *    OverSubscribe=EXCLUSIVE partitions, advanced reservations' jobs,
 *    required nodes) wait for nodes that are entirely free.
 *
 *  - Jobs are offered in priority order (fw_plan_job_cmp / fw_plan_sort)
 *    one at a time to fw_plan_decide(); the answer is START_NOW (with the
 *    set of nodes the job may use), RESERVED (protected reservation: start
 *    and nodes that later jobs must not delay), ESTIMATED (start estimate
 *    only; later jobs may delay it), NOT_IN_WINDOW, NOT_RUNNABLE or
 *    SKIPPED, with the reason and blocker when the job cannot start now.
 *    After START_NOW the caller reports the outcome (fw_plan_started /
 *    fw_plan_start_failed) so the timeline stays exact.  The batch passes
 *    fw_plan_main() and fw_plan_backfill() are loops over these steps.
 *
 * End of window: slots [0, W) with W = ceil(bf_window / bf_resolution) are
 * inside the window; a job may be planned to start in any of them.  The
 * state at the window end is extended forever: anything that is still
 * running or reserved at the window end is treated as never ending, and an
 * advanced reservation that starts after the window end is treated as if
 * it started at the window end.  A job that starts inside the window and
 * runs past its end is therefore only placed on nodes that are free at and
 * after the window end, which is exact for everything the plan knows.
 *
 * No global state; a plan is used by one thread at a time.
 */
#ifndef FW_PLAN_H
#define FW_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_bitset.h"
#include "fw_cluster.h"
#include "fw_common.h"

/* ------------------------------------------------------------------ */
/* Configuration                                                       */
/* ------------------------------------------------------------------ */

enum fw_topo_placement {
	FW_TOPO_NONE,	/* islands are ignored */
	FW_TOPO_PREFER,	/* one island unless impossible or only way to start now */
	FW_TOPO_STRICT,	/* always one island */
};

struct fw_plan_conf {
	/* slurm.conf SchedulerParameters (Slurm's names and units). */
	int64_t bf_window;		/* seconds (bf_window is in minutes) */
	int64_t bf_resolution;		/* seconds */
	int64_t bf_interval;		/* seconds; -1 = backfill disabled */
	int64_t bf_max_time;		/* seconds; 0 = same as bf_interval */
	uint32_t bf_max_job_test;	/* 0 = whole queue (Fairway default) */
	uint32_t bf_max_job_start;	/* 0 = no limit */
	uint32_t bf_max_job_user;	/* per cycle; 0 = no limit */
	uint32_t bf_max_job_part;
	uint32_t bf_max_job_user_part;
	uint32_t bf_max_job_assoc;
	uint32_t bf_job_part_count_reserve;	/* 0 = not set */
	int64_t bf_min_age_reserve;	/* seconds */
	uint32_t bf_min_prio_reserve;	/* 0 = not set */
	bool bf_continue;
	int64_t bf_yield_interval;	/* microseconds */
	int64_t bf_yield_sleep;		/* microseconds */
	/* Main scheduler hand-over (the plugin checks these). */
	int64_t sched_interval;		/* seconds; -1 = Slurm's main sched off */
	bool sched_interval_set;
	bool defer;

	/* fairway.conf */
	uint32_t resv_depth;		/* 0 = conservative, N = top N/partition */
	bool resv_depth_set;
	/* ReservationOrder=submit: the protected reservations go to the
	 * oldest jobs (submit order), not the highest-priority ones; see
	 * fw_plan_heads_new. */
	bool resv_by_submit;
	bool resv_order_set;
	enum fw_topo_placement topo;
	bool topo_set;
	/* SchedulerParameters preemption tokens (Slurm's names; see
	 * "Preemption" below and doc/design.md). */
	bool preempt_youngest_first;	/* rank victims by start time only */
	bool preempt_strict_order;	/* nodes by their worst victim's rank
					   first, then by the fewest */
	uint32_t preempt_reorder_count;	/* Slurm's reorders of a node's
					   victims, minus one; default 1 */
	/* Which SchedulerParameters bf_* tokens were given (duplicates). */
	uint64_t seen;
};

struct fw_plan_conf *fw_plan_conf_new(void);
void fw_plan_conf_free(struct fw_plan_conf *c);
int fw_plan_conf_line(struct fw_plan_conf *c, const struct fw_kv *kv,
		      bool *used, struct fw_err *err);
int fw_plan_conf_slurm(struct fw_plan_conf *c, const char *key,
		       const char *value, struct fw_err *err);
int fw_plan_conf_finish(struct fw_plan_conf *c, struct fw_err *err);
/* Effective reservation depth: 0 = conservative, else top N per partition
 * (from ReservationDepth, or bf_job_part_count_reserve). */
uint32_t fw_plan_conf_depth(const struct fw_plan_conf *c);
/* bf_min_prio_reserve (or the job's own threshold) and bf_min_age_reserve
 * at time now: may the job get a protected reservation? */
struct fw_plan_job;
bool fw_plan_conf_may_reserve(const struct fw_plan_conf *c, fw_time_t now,
			      const struct fw_plan_job *j);

/* ------------------------------------------------------------------ */
/* Jobs                                                                */
/* ------------------------------------------------------------------ */

struct fw_plan_lic {
	uint32_t idx;		/* cluster license index */
	uint32_t count;
};

struct fw_plan_job {
	uint32_t id;
	uint32_t priority;	/* already computed by the priority plugin */
	fw_time_t submit;	/* tie-break in the queue order */
	fw_time_t eligible;	/* begin time (0: unknown), for
				   bf_min_age_reserve.  Still ahead (a
				   requeued job waits for its old credential
				   to expire): no start before it, planned
				   from it on in the backfill pass, skipped
				   by the main pass, never preempts */
	int32_t part;		/* partition index (its tier sorts the job) */
	const int32_t *alt_parts;	/* other partitions the job may use:
					   tried at the job's position, the
					   earliest start wins (ties: listed
					   order) */
	uint32_t nalt_parts;
	uint32_t nodes_min;	/* >= 1 */
	uint32_t nodes_max;	/* 0 = nodes_min; a start now takes up to this */
	uint32_t cpus_per_node;
	uint64_t mem_per_node_mb;
	uint32_t gpus_per_node;
	const struct fw_gres_count *gres;	/* per node, besides GPUs */
	uint32_t ngres;
	int64_t time_limit;	/* seconds; <= 0 = unlimited */
	const struct fw_plan_lic *lics;
	uint32_t nlics;
	uint32_t uid;
	uint32_t account;	/* adapter's account id, for bf_max_job_assoc */
	const struct fw_bitset *req_nodes;	/* NULL or nodes it must get */
	const struct fw_bitset *exc_nodes;	/* NULL or nodes it must avoid */
	int32_t resv;		/* advanced reservation index or -1 (0 is a
				   reservation: start from fw_plan_job_init) */
	uint32_t prio_reserve;	/* per-job threshold (QOS MinPrioThreshold);
				   0 = bf_min_prio_reserve */
	bool exclusive;		/* whole nodes even on a shared cluster
				   (--exclusive) */
	bool head;		/* ReservationOrder=submit: offered as
				   one of the oldest jobs (fw_plan_heads_next):
				   sorts first, by age, and only heads are
				   protected */
	bool late;		/* joined the pass after it began (a victim
				   of a preemption the pass made, requeued:
				   fw_plan_late): may be offered after jobs
				   that come after it in queue order, and is
				   decided with what they left */
	/* Preemption classes this job may preempt (fw_preempt_run.cls):
	 * the QOS ids of its QOS's Preempt= list (preempt/qos), or the
	 * partitions of lower PriorityTier (preempt/partition_prio).
	 * NULL/0: it preempts nobody. */
	const uint32_t *preempts;
	uint32_t npreempts;
};

/* All fields zero/NULL except resv = -1 (no reservation). */
void fw_plan_job_init(struct fw_plan_job *j);


/*
 * A job's request in Slurm's terms, for fw_plan_job_size().  Zero means
 * "not given" everywhere.
 */
struct fw_job_request {
	uint32_t ntasks;		/* -n; 0: from min_cpus / cpus_per_task */
	uint32_t cpus_per_task;		/* -c; 0 = 1 */
	uint32_t ntasks_per_node;	/* --ntasks-per-node */
	uint32_t min_cpus;		/* total CPUs asked for */
	uint32_t pn_min_cpus;		/* CPUs each node must give (--mincpus) */
	uint32_t nodes_min;		/* -N min (0 = 1) */
	uint32_t nodes_max;		/* -N max (0 = no limit) */
	uint64_t mem_per_node_mb;	/* --mem */
	uint64_t mem_per_cpu_mb;	/* --mem-per-cpu (wins over --mem) */
	uint32_t gpus_per_node;		/* --gpus-per-node / --gres=gpu:N */
	uint32_t gpus_per_task;		/* --gpus-per-task */
	uint32_t gpus_per_job;		/* --gpus */
};

/*
 * Turn `r` into the planner's whole-node shape in partition `part`:
 * j->nodes_min, nodes_max, cpus_per_node, mem_per_node_mb, gpus_per_node.
 * Tasks are packed onto nodes as select/cons_tres may place them: for each
 * node shape of the partition, as many tasks per node as its CPUs (and
 * GPUs, memory, --ntasks-per-node) allow; the shape needing the fewest
 * nodes that the partition has enough of wins (then the smaller per-node
 * request).  Every promise is one select_nodes() can keep: `nodes_min`
 * nodes that each meet the per-node request always hold the tasks.  When
 * no shape can hold the job, the request is kept as asked (the planner
 * then says it never fits).  Returns the number of tasks planned.
 */
uint32_t fw_plan_job_size(const struct fw_cluster *cl, int32_t part,
			  const struct fw_job_request *r,
			  struct fw_plan_job *j);

/*
 * Slurm's queue order (sort_job_queue2): jobs in an advanced reservation
 * first, then partition PriorityTier descending, priority descending,
 * submit time ascending, job id ascending.  Negative if a goes first.
 * Jobs with `head` set (ReservationOrder=submit, fw_plan_heads_next) go
 * before all others, oldest first.
 */
int fw_plan_job_cmp(const struct fw_cluster *cl, const struct fw_plan_job *a,
		    const struct fw_plan_job *b);
/* Sort in place, or produce the order as indices (order[k] = job index). */
void fw_plan_sort(const struct fw_cluster *cl, struct fw_plan_job *jobs,
		  size_t n);
void fw_plan_sort_index(const struct fw_cluster *cl,
			const struct fw_plan_job *jobs, size_t n,
			size_t *order);

/* ------------------------------------------------------------------ */
/* Decisions                                                           */
/* ------------------------------------------------------------------ */

enum fw_plan_pass {
	FW_PASS_MAIN,		/* start what fits now; block partitions */
	FW_PASS_BACKFILL,	/* start, reserve or estimate every job */
};

enum fw_plan_kind {
	FW_PLAN_START_NOW,	/* may start now on d->allowed */
	FW_PLAN_RESERVED,	/* protected: start + nodes later jobs keep free */
	FW_PLAN_ESTIMATED,	/* below thresholds/depth: start estimate only */
	FW_PLAN_NOT_IN_WINDOW,	/* no start inside bf_window */
	FW_PLAN_NOT_RUNNABLE,	/* can never run as the cluster is defined */
	FW_PLAN_WAITING,	/* main pass: cannot start now (no plan made) */
	FW_PLAN_SKIPPED,	/* not evaluated (per-cycle limit, main pass rule) */
};

enum fw_plan_reason {
	FW_REASON_NONE,		/* started */
	FW_REASON_NODES,	/* nodes busy with running/started jobs */
	FW_REASON_GPUS,		/* same, job needs GPUs: GPU nodes busy */
	FW_REASON_NODES_DOWN,	/* too few usable nodes at all */
	FW_REASON_LICENSE,	/* license in use; blocker_lic */
	FW_REASON_RESERVED,	/* needed by a higher-priority job's reservation;
				   blocker */
	FW_REASON_ADV_RESV,	/* nodes held by an advanced reservation */
	FW_REASON_RESV_TIME,	/* the job's reservation is not active now */
	FW_REASON_PRIORITY,	/* main pass: partition/nodes blocked by a
				   higher-priority job (Slurm's "Priority") */
	FW_REASON_TOPOLOGY,	/* no single island can hold it (strict) */
	FW_REASON_PART_LIMIT,	/* exceeds partition MaxTime/MaxNodes/MinNodes */
	FW_REASON_NEVER_FITS,	/* partition has too few nodes that can hold it */
	FW_REASON_BF_MAX_USER,	/* bf_max_job_user reached this cycle */
	FW_REASON_BF_MAX_PART,
	FW_REASON_BF_MAX_USER_PART,
	FW_REASON_BF_MAX_ASSOC,
	FW_REASON_BF_MAX_START,	/* bf_max_job_start reached: cycle over */
	FW_REASON_BF_MAX_TEST,	/* bf_max_job_test reached: cycle over */
	FW_REASON_START_FAILED,	/* the adapter could not start it */
	FW_REASON_JOB_LIMIT,	/* over a usage limit of its own (QOS or
				 * association): skipped, blocks nothing */
	FW_REASON_BEGIN_TIME,	/* eligible is ahead: planned from it on */
};
const char *fw_plan_reason_str(enum fw_plan_reason r);
const char *fw_plan_kind_str(enum fw_plan_kind k);

struct fw_plan_decision {
	enum fw_plan_kind kind;
	uint32_t seq;		/* position of this job in the plan's order */
	fw_time_t start;	/* START_NOW: now; RESERVED/ESTIMATED: planned */
	fw_time_t end;		/* start + time limit (0 if unlimited/unknown) */
	int32_t part;		/* partition chosen */
	uint32_t nnodes;	/* nodes to allocate (START_NOW), planned nodes */
	bool is_protected;	/* meets thresholds and depth */
	bool backfilled;	/* START_NOW while a higher-priority job waits */
	bool across_islands;	/* placed over several islands */
	bool shared;		/* planned on parts of nodes (CPUs, memory,
				   GRES per node), not whole nodes */
	enum fw_plan_reason reason;	/* why not now (NONE for START_NOW) */
	int32_t blocker;	/* RESERVED reason: seq of the job whose
				   protected reservation takes the last nodes
				   or licenses; worked out for jobs with a
				   start in the window, else -1 */
	int32_t blocker_lic;	/* license index or -1 */
	/*
	 * Owned by the plan, valid until the next call on it:
	 *  allowed: START_NOW: nodes the job may use (free now, not needed by
	 *           protected reservations during its interval, inside the
	 *           chosen island);
	 *  nodes:   START_NOW: suggested allocation (lowest indices);
	 *           RESERVED: the planned nodes.  NULL otherwise.
	 */
	const struct fw_bitset *allowed;
	const struct fw_bitset *nodes;
	/* On a shared cluster, a job that waits (RESERVED, or ESTIMATED
	 * when it may share nodes): what still holds part of its planned
	 * nodes just before its start, i.e. whose end lets it start then (at
	 * most FW_PLAN_MAX_HOLDERS; owned by the plan like nodes). */
	const struct fw_plan_holder *holders;
	uint32_t nholders;
	/* Preemption (START_NOW or RESERVED): the running jobs (their ids)
	 * the adapter must preempt now for this start, in rank order;
	 * start is when the last of them is gone (after its GraceTime).
	 * Owned by the plan like nodes; 0 / NULL otherwise.
	 * victims_later (RESERVED only): the start waits for other jobs to
	 * end first (it is later than every victim's GraceTime from now):
	 * the victims are named but must not be preempted now; a later
	 * pass preempts them when the start is their GraceTime away. */
	const uint32_t *victims;
	uint32_t nvictims;
	bool victims_later;
};

/* What holds part of a node (shared cluster), for explanations. */
enum fw_hold_kind {
	FW_HOLD_RUNNING,	/* a running job: id = fw_node_use.job */
	FW_HOLD_PLANNED,	/* a job started or protected in this plan:
				   id = its decision seq */
	FW_HOLD_RESV,		/* an advanced reservation: id = its index */
};
struct fw_plan_holder {
	enum fw_hold_kind kind;
	uint32_t id;
	uint32_t node;
};
#define FW_PLAN_MAX_HOLDERS 16

struct fw_plan;

/* A fresh plan at `now`.  The cluster must be finalised, and it and conf
 * must outlive the plan. */
struct fw_plan *fw_plan_new(const struct fw_cluster *cl,
			    const struct fw_plan_conf *conf, fw_time_t now,
			    struct fw_err *err);
void fw_plan_free(struct fw_plan *p);

/* Set-up (before the first decision). */
int fw_plan_node_down(struct fw_plan *p, uint32_t node, struct fw_err *err);
/* A running job: its nodes until `end` (start + time limit; <= now means
 * "ends any moment": busy in the current step only; <= 0 unlimited). */
int fw_plan_add_running(struct fw_plan *p, const struct fw_bitset *nodes,
			fw_time_t end, const struct fw_plan_lic *lics,
			uint32_t nlics, struct fw_err *err);
/*
 * What a job holds (or will hold) on one node of a shared cluster: CPUs as
 * the select plugin counts them, memory, GPUs of every type together, and
 * each other GRES (typed GPUs such as "gpu:a100" count in both gpus and
 * their own entry).
 */
struct fw_node_use {
	uint32_t node;
	uint32_t job;		/* the job's id, for explanations (0: none) */
	uint32_t cpus;
	uint64_t mem_mb;
	uint32_t gpus;
	const struct fw_gres_count *gres;
	uint32_t ngres;
};
/*
 * A running job that holds exactly u[0..n-1] (distinct nodes) until `end`
 * (as fw_plan_add_running).  On a cluster that is not shared, or for a
 * job that holds whole nodes, fw_plan_add_running is the same.  Amounts
 * above what is left on a node (Slurm oversubscribed it) are clamped: the
 * node is then full, and the plan never fails.
 */
int fw_plan_add_running_use(struct fw_plan *p, const struct fw_node_use *u,
			    uint32_t n, fw_time_t end,
			    const struct fw_plan_lic *lics, uint32_t nlics,
			    struct fw_err *err);
/*
 * What one job can get right now of a node's GPUs and shared GRES where
 * Slurm's select/cons_tres gives less than is free in total: a job's
 * shards (mps) on a node come from one GPU and never from a GPU allocated
 * whole, and no GPU is allocated whole while a shard of it is in use.
 * gpus: GPUs of every type one job can get whole now; gres: per GRES
 * index, the most one job can get now (typed GPUs, shard, mps); a GRES
 * not listed has no such limit.  A start now on the node is held to these
 * limits (never offered to the select plugin where it would refuse);
 * later starts are still counted by the node's totals (sched_fairway(8),
 * SHARED NODES).  Replaces the node's earlier limits: during set-up, and
 * again after a start on the node changed them (the adapter reads them
 * back from the select plugin).  Shared clusters only (ignored otherwise).
 */
struct fw_node_now {
	uint32_t node;
	uint32_t gpus;
	const struct fw_gres_count *gres;
	uint32_t ngres;
};
int fw_plan_node_now(struct fw_plan *p, const struct fw_node_now *n,
		     struct fw_err *err);
/*
 * Preemption (doc/design.md, "Preemption").  A running job that may be
 * preempted is added with fw_plan_add_running_preemptable(): what it holds
 * as for fw_plan_add_running_use (every u[k].job its id, non-zero) and
 * how it may be preempted.  A job whose fw_plan_job.preempts lists its
 * class may then count on what it holds: the planner chooses victims in
 * rank order (Slurm's: lower prio first, then fewer nodes, then the
 * youngest, then the higher job id; preempt_youngest_first: the youngest
 * first, then the higher job id), on each node those Slurm's select plugin
 * takes there, on the nodes with the fewest (strict order: the lowest
 * worst rank first), and starts the job when the victims are gone:
 * now, or after the longest GraceTime among them.  On a shared cluster
 * both jobs that share nodes and jobs that want whole nodes (--exclusive,
 * OverSubscribe=EXCLUSIVE) preempt; a whole-node job needs every job
 * still on a chosen node to be one of its victims.  Not a job in an
 * advanced reservation or with required nodes (they plan as before), and
 * a start later than now only for a protected job.  On a cluster that
 * does not share nodes the job is added as a plain running job.
 */
struct fw_preempt_run {
	uint32_t cls;		/* class: QOS id, or partition index */
	uint32_t prio;		/* Slurm's preempt priority: the QOS's
				   Priority, or the partition's PriorityTier */
	fw_time_t start;	/* its start time */
	fw_time_t exempt_until;	/* start + PreemptExemptTime: exempt while
				   now is before it (0: never exempt) */
	int64_t grace;		/* GraceTime of its QOS or partition, s */
	bool whole;		/* it holds its nodes whole (--exclusive,
				   OverSubscribe=EXCLUSIVE): the uses' amounts
				   are ignored, it has every resource of its
				   nodes, and preempting it frees them */
};
int fw_plan_add_running_preemptable(struct fw_plan *p,
				    const struct fw_node_use *u, uint32_t n,
				    fw_time_t end,
				    const struct fw_plan_lic *lics,
				    uint32_t nlics,
				    const struct fw_preempt_run *pr,
				    struct fw_err *err);
/* An advanced reservation; returns its index for fw_plan_job.resv. */
int32_t fw_plan_add_resv(struct fw_plan *p, const char *name,
			 const struct fw_bitset *nodes, fw_time_t start,
			 fw_time_t end, struct fw_err *err);
/* A reservation of part of each of its nodes (Slurm's CoreCnt): its jobs
 * still run only on its nodes, but jobs outside it may use them too; the
 * caller keeps off them the jobs that need more than the unreserved part
 * (fw_plan_job.exc_nodes). */
int32_t fw_plan_add_partial_resv(struct fw_plan *p, const char *name,
				 const struct fw_bitset *nodes,
				 fw_time_t start, fw_time_t end,
				 struct fw_err *err);
/* On a shared cluster: what partial reservation `resv` holds on its nodes
 * (u[0..n-1]) while it is active; jobs outside it plan around that part
 * instead of needing fw_plan_job.exc_nodes. */
int fw_plan_resv_hold(struct fw_plan *p, int32_t resv,
		      const struct fw_node_use *u, uint32_t n,
		      struct fw_err *err);

/*
 * ReservationOrder=submit (fairway.conf(5)): the protected reservations go
 * to the oldest jobs.  A pass is then offered in two phases:
 *
 *   1. heads: fw_plan_heads_next() gives the pending jobs that meet
 *      bf_min_prio_reserve / bf_min_age_reserve and are not in an advanced
 *      reservation, oldest first (submit time, then job id, as FCFS
 *      orders them), skipping the jobs of a partition (their own) that
 *      already has ReservationDepth heads that did not start.  The caller
 *      offers each one with `head` set and reports the final kind of the
 *      decision with fw_plan_heads_outcome() before asking for the next:
 *      a head that starts now leaves its place to the next oldest job, as
 *      in FCFS EASY; one that waits (main pass) or is reserved (backfill
 *      pass) takes one of the partition's ReservationDepth places.
 *   2. the rest: every job fw_plan_heads_taken() does not name, in queue
 *      order (fw_plan_sort, `head` clear).  Only heads are protected.
 *
 * fw_plan_heads_new() returns NULL (no phase 1) with ReservationOrder=
 * priority or conservative depth; the other functions accept NULL.
 * `jobs` must stay in place while the cursor is used.
 */
#define FW_PLAN_NO_HEAD ((size_t)-1)
struct fw_plan_heads;
struct fw_plan_heads *fw_plan_heads_new(const struct fw_cluster *cl,
					const struct fw_plan_conf *c,
					fw_time_t now,
					const struct fw_plan_job *jobs,
					size_t n);
size_t fw_plan_heads_next(struct fw_plan_heads *h);
void fw_plan_heads_outcome(struct fw_plan_heads *h, enum fw_plan_kind kind);
bool fw_plan_heads_taken(const struct fw_plan_heads *h, size_t i);
void fw_plan_heads_free(struct fw_plan_heads *h);

/*
 * Jobs that join a pass after it began.  A backfill pass that preempts
 * running jobs with PreemptMode=REQUEUE makes them pending again: gone at
 * their release (now, or the end of their GraceTime), eligible a
 * credential lifetime plus one second later (Slurm's requeue hold).  The
 * adapter describes each such victim as a pending job (`late` set,
 * eligible and submit as the requeue will set them, its priority as
 * slurmctld holds it now) and adds it here; before each job of the pass's
 * own order it asks fw_plan_late_next() whether a late job comes first in
 * queue order (fw_plan_job_cmp), and offers that one instead.  A late job
 * that sorts before jobs already decided comes at once: it takes what
 * they left, as if it had been submitted then.  So the victim is planned
 * in the pass that preempted it, and the rest of the pass respects its
 * reservation if it is protected.
 *
 * fw_plan_late_add() keeps the pointer: `j` must stay valid until it is
 * taken.  fw_plan_late_next(l, next, &tag): `next` is the pass's next job
 * (NULL at the end of its order); true, with the tag given to _add, if
 * the first late job goes before it (it is then removed).  All functions
 * accept NULL for l (no late job).
 */
struct fw_plan_late;
struct fw_plan_late *fw_plan_late_new(const struct fw_cluster *cl);
void fw_plan_late_add(struct fw_plan_late *l, const struct fw_plan_job *j,
		      size_t tag);
bool fw_plan_late_next(struct fw_plan_late *l, const struct fw_plan_job *next,
		       size_t *tag);
size_t fw_plan_late_count(const struct fw_plan_late *l);
void fw_plan_late_free(struct fw_plan_late *l);

/*
 * Decide one job.  Jobs must come in fw_plan_job_cmp order (checked), so a
 * plan serves one pass: build a new plan (cheap) for each pass.
 * After START_NOW the next call must be fw_plan_started() or
 * fw_plan_start_failed(), and `job` must stay valid until then.
 * A job with `late` set (fw_plan_late) may come out of that order.
 * Returns 0, or -1 with err set for invalid input (bad index, wrong
 * bitset size, out of order, outcome missing).
 */
int fw_plan_decide(struct fw_plan *p, const struct fw_plan_job *job,
		   enum fw_plan_pass pass, struct fw_plan_decision *d,
		   struct fw_err *err);
/* The job started on `nodes` (NULL: the suggested d->nodes). */
int fw_plan_started(struct fw_plan *p, const struct fw_bitset *nodes,
		    struct fw_err *err);
/* The same with what the job really got on each node (shared cluster:
 * select_nodes() may give more than it asked for, e.g. whole cores). */
int fw_plan_started_use(struct fw_plan *p, const struct fw_node_use *u,
			uint32_t n, struct fw_err *err);
/* The job could not be started: d is rewritten with the job's plan from
 * the next step on (backfill) or its blocked state (main pass). */
int fw_plan_start_failed(struct fw_plan *p, struct fw_plan_decision *d,
			 struct fw_err *err);
/*
 * Main pass: true when every partition is blocked, so that no later job
 * outside an advanced reservation can start in this pass (such jobs sort
 * first, see fw_plan_job_cmp).  A caller may then stop offering jobs: the
 * rest would all be WAITING/PRIORITY, and bypass counts do not change.
 */
bool fw_plan_main_all_blocked(const struct fw_plan *p);
/* The job could not be started because of a limit that concerns it alone
 * (Slurm: ESLURM_ACCOUNTING_POLICY): d becomes SKIPPED/JOB_LIMIT; the job
 * neither blocks its partition in the main pass nor holds a reservation,
 * as Slurm's schedulers skip such a job. */
int fw_plan_start_refused(struct fw_plan *p, struct fw_plan_decision *d,
			  struct fw_err *err);
/*
 * After a START_NOW with victims that slurmctld took as a preemption (it
 * signals the victims; the job starts once they are gone): books the job
 * on nodes as fw_plan_started() does, and keeps the whole of those nodes
 * held for the current step.  The plan released the victims, but they
 * leave only when slurmctld has requeued or cancelled them: a later job of
 * the same pass counting on their leftovers would be refused by
 * select_nodes(), which with preemption on then picks victims of its own.
 */
int fw_plan_preempting(struct fw_plan *p, const struct fw_bitset *nodes,
		       struct fw_err *err);

/*
 * Bypass increments: inc[seq] = number of jobs started after job `seq`
 * while it waited (0 for jobs that started or were not waiting).  n may
 * exceed the number of decided jobs (the rest get 0).  O(n).
 */
void fw_plan_bypass(const struct fw_plan *p, uint32_t *inc, size_t n);

/* Slot arithmetic as the plan sees it (tests, explanations). */
fw_time_t fw_plan_t0(const struct fw_plan *p);
int32_t fw_plan_window_slots(const struct fw_plan *p);
/* Statistics of the last pass (cheap counters). */
struct fw_plan_stats {
	uint64_t decided, tested, started, reserved, estimated, not_in_window;
	uint64_t searches, cache_hits, segments, segs_pushed, quick;
};
void fw_plan_get_stats(const struct fw_plan *p, struct fw_plan_stats *s);

/* ------------------------------------------------------------------ */
/* Batch passes (loops over the steps; the started jobs take the        */
/* suggested nodes)                                                    */
/* ------------------------------------------------------------------ */

struct fw_plan_result {
	enum fw_plan_kind kind;
	fw_time_t start, end;
	int32_t part;
	uint32_t nnodes;
	bool is_protected, backfilled, across_islands;
	bool shared;		/* planned on parts of nodes */
	enum fw_plan_reason reason;
	int32_t blocker;	/* index into the jobs array, -1 */
	int32_t blocker_lic;
	uint32_t bypass_inc;
	uint32_t *node_idx;	/* started or reserved: the nnodes node
				   indices, ascending; else NULL */
	uint32_t *victims;	/* jobs to preempt (decision's victims);
				   NULL if none */
	uint32_t nvictims;
	bool victims_later;	/* the decision's victims_later */
};

/* jobs must be sorted (fw_plan_sort); p must be fresh (no decision yet). */
int fw_plan_main(struct fw_plan *p, const struct fw_plan_job *jobs, size_t n,
		 struct fw_plan_result *res, struct fw_err *err);
int fw_plan_backfill(struct fw_plan *p, const struct fw_plan_job *jobs,
		     size_t n, struct fw_plan_result *res, struct fw_err *err);
void fw_plan_results_free(struct fw_plan_result *res, size_t n);
/*
 * One line answering "why is my job not running and when will it start?"
 * for res[i] (jobs/res of a batch pass at `now`), e.g.
 *   "job 125: reserved: starts in 02:00:00 in partition all on n00; later
 *    jobs cannot delay it; reason: Resources".
 */
const char *fw_plan_explain(const struct fw_cluster *cl,
			    const struct fw_plan_job *jobs,
			    const struct fw_plan_result *res, size_t i,
			    fw_time_t now, char *buf, size_t len);
/* A result's nodes as a new bitset of nnodes bits (NULL if it has none). */
struct fw_bitset *fw_plan_result_nodes(const struct fw_plan_result *r,
				       uint32_t nnodes);

/*
 * Bypass counts, saved by sched/fairway across restarts (state file
 * fairway_sched_state):
 *   fairway-sched-state 1
 *   bypass JOBID COUNT            one line per job with COUNT > 0
 *   end NLINES CHECKSUM           fw_state_hash of everything above, %016x
 * save returns a malloc'd NUL-terminated buffer.  load is all or nothing:
 * on success *out (malloc'd, caller frees) holds the entries; otherwise it
 * returns -1 with err naming the line and what is wrong.
 */
struct fw_bypass {
	uint32_t job_id;
	uint32_t count;
};

char *fw_bypass_save(const struct fw_bypass *v, size_t n, size_t *len);
int fw_bypass_load(const char *buf, size_t len, struct fw_bypass **out,
		   size_t *n, struct fw_err *err);

#endif /* FW_PLAN_H */
