/*
 * sf.h - internals of sched/fairway shared by its source files.
 *
 * Lock order: slurmctld locks, then assoc_mgr locks, then sf.mu (the
 * plugin's own state), then sf.tab_mu (the per-job table that the
 * priority plugin and the fairway command read; a leaf lock).
 */
#ifndef SF_H
#define SF_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "fw_compat.h"

#include "fw_bitset.h"
#include "fw_config.h"
#include "fw_plan.h"
#include "fw_topo.h"

#define PLUGIN "sched/fairway"
#define SF_STATE_FILE "fairway_sched_state"

/* PreemptType as Fairway plans it (sched_fairway(8), PREEMPTION). */
enum sf_preempt {
	SF_PREEMPT_NONE,	/* preempt/none, or a type Fairway refuses */
	SF_PREEMPT_QOS,		/* preempt/qos: classes are QOS ids */
	SF_PREEMPT_PART,	/* preempt/partition_prio: partition indices */
};

/* What the last pass decided for one job (for `fairway plan JOBID`). */
struct sf_jobinfo {
	uint32_t job_id;
	uint32_t bypass;          /* times a lower-priority job started first */
	time_t decided;           /* when this record was written (0 = none) */
	uint8_t kind;             /* enum fw_plan_kind */
	uint8_t reason;           /* enum fw_plan_reason */
	bool is_protected, backfilled, across_islands;
	bool from_backfill;       /* written by a backfill pass */
	uint32_t priority;
	time_t start, end;
	uint32_t blocker_job;     /* job whose reservation blocks it, 0 */
	int32_t blocker_lic;
	char *nodes;              /* planned nodes (malloc'd) or NULL */
	char *waits_for;          /* shared nodes: what holds its planned
				     nodes until its start (malloc'd), NULL */
	char *partition;          /* malloc'd */
	char *victims;            /* jobs it preempts for its start
				     ("12 13", malloc'd) or NULL */
	bool victims_later;       /* ... once other jobs have ended (not
				     signalled yet: fw_plan_decision) */
	uint32_t preempted_for;   /* running job: the pending job whose
				     start preempts it (last pass), 0 */
	time_t preempted_at;      /* when that was decided */
};

/* Where one pass's time went, in nanoseconds (`fairway stats`, and the
 * pass's log line with DebugFlags=Backfill). */
struct sf_pass_times {
	int64_t first_wait; /* for the locks before the pass (not its time) */
	int64_t setup;      /* cluster view: nodes, running jobs, reservations */
	int64_t queue;      /* build_job_queue() and the planner's copies */
	int64_t checks;     /* Slurm's per-job checks (limits, arrays, QOS) */
	int64_t plan;       /* the core planner's decisions */
	int64_t starts;     /* select_nodes() and launching */
	int64_t apply;      /* reasons, StartTime/SchedNodeList, plan table */
	int64_t finish;     /* bypass counts, stale estimates */
	int64_t slept;      /* locks released (yields) */
	int64_t lock_wait;  /* waiting to get the locks back after a yield */
	uint32_t yields, jobs;
};

struct sf {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	pthread_t thread;
	bool running, stop, reconfig;

	struct fw_config *conf;
	struct fw_cluster *cluster;       /* rebuilt when nodes/partitions change */
	time_t cluster_node_stamp, cluster_part_stamp;
	uint64_t cluster_unit_stamp;	/* shared_units_stamp() at that build */
	uint64_t cluster_weight_stamp;	/* weights_stamp() at that build */
	char **lic_names;                 /* cluster license index -> name */
	struct fw_topo *topo;             /* topology.conf, NULL: no islands */
	time_t topo_stamp;                /* slurm_conf.last_update it was read at */
	bool topo_read, topo_warned;
	int bit_word_off;                 /* first data word of a Slurm bitmap, -1: copy bit by bit */
	/* Shared nodes (select/cons_tres, cons_res): per planner partition,
	 * the CPUs of one allocation unit (a core's or a socket's threads)
	 * and whether memory is a consumable resource there. */
	uint32_t *part_cpu_unit;
	bool *part_mem;
	bool main_sched_off;              /* sched_interval=-1 given */
	enum sf_preempt preempt;          /* PreemptType as Fairway plans it */

	/* timing */
	time_t last_main, last_bf;
	time_t seen_job, seen_node, seen_part, seen_resv, seen_conf;

	/* per-job table (open addressing by job id), protected by tab_mu */
	pthread_mutex_t tab_mu;
	struct sf_jobinfo *tab;
	uint32_t tab_cap, tab_cnt;

	/* statistics (also pushed into sdiag's backfill block) */
	uint64_t passes_main, passes_bf, started_main, started_bf;
	double last_bf_ms, max_bf_ms, last_main_ms;
	struct sf_pass_times last_bf_times;
	time_t last_state_save;
};

extern struct sf sf;

/* sf_cluster.c */
int sf_cluster_refresh(struct fw_err *err);
void sf_topo_free(void);
void sf_bits_from_slurm(struct fw_bitset *dst, bitstr_t *src);
/* The planner's name of a GRES: "NAME", or "NAME:TYPE" for a typed one;
 * nodes (sf_cluster.c) and jobs (sf_pass.c) must name them alike. */
const char *sf_gres_key(char *buf, size_t len, const char *name,
			const char *type);
void sf_bits_to_slurm(bitstr_t *dst, const struct fw_bitset *src);
/* SelectTypeParameters in effect for jobs of a partition (its own
 * CR_Core/CR_Socket if any, as select/cons_tres applies them). */
uint16_t sf_part_cr_type(const part_record_t *part);
/* CPUs per core of a node as select/cons_tres allocates them. */
uint32_t sf_node_tpc(const node_record_t *n);
/* Does GresTypes name a shared GRES (shard, mps)? */
bool sf_shared_gres_configured(void);

/* sf_devices.c: what select/cons_tres gives one job now of the GPUs and
 * shared GRES of the nodes with some allocated (fw_plan_node_now): for
 * every such node at the start of a pass, and for a started job's nodes. */
void sf_devices_now(struct fw_plan *plan);
void sf_devices_started(struct fw_plan *plan, job_record_t *job);
bool sf_bitcopy_selftest(void);

/* sf_pass.c */
enum sf_pass_kind { SF_PASS_MAIN, SF_PASS_BACKFILL };
int sf_run_pass(enum sf_pass_kind kind);
char *sf_times_text(const struct sf_pass_times *t);

/* sf_table.c */
struct sf_jobinfo *sf_tab_get(uint32_t job_id, bool create);
void sf_tab_prune_done(void);
char *sf_tab_serialise(size_t *len);
int sf_tab_load(const char *buf, size_t len, struct fw_err *err);
void sf_tab_free(void);
/* pre: what preemption may do to the job if it runs (malloc'd, or NULL;
 * from sf_preempt_running_text()), appended to the answer. */
char *sf_explain(uint32_t job_id, uid_t uid, const char *pre);

/* sf_preempt.c */
/* Log what Fairway does with the PreemptType/PreemptMode in slurm.conf
 * (one line for anything it does not do); sets sf.preempt. */
void sf_preempt_check_config(void);
/* "may be preempted by jobs of QOS owner (REQUEUE, GraceTime 0 s)" for
 * a running job, or NULL (malloc'd).  Caller holds the job read lock and
 * no assoc_mgr lock. */
char *sf_preempt_running_text(uint32_t job_id);
/* At the start of a pass (no assoc_mgr lock held): which classes anybody
 * may preempt. */
void sf_preempt_pass_begin(void);
void sf_preempt_fini(void);
/* Is this running job a preemption candidate?  Then *pr says how. */
bool sf_preempt_run(job_record_t *job, struct fw_preempt_run *pr);
/* The classes a pending job in planner partition part may preempt
 * (xmalloc'd, *n of them), or NULL. */
uint32_t *sf_preempt_classes(job_record_t *job, int32_t part, uint32_t *n);

#endif /* SF_H */
