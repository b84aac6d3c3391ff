/*
 * sim_cluster.h - the machine and the organisation fairway-sim simulates:
 *
 *   slurm.conf     nodes, partitions, licenses, and every other key (kept
 *                  with its location, to be offered to the core modules'
 *                  fw_<module>_conf_slurm(): Priority*, SchedulerParameters,
 *                  FairShareDampeningFactor, ...); Include lines are followed
 *   topology.conf  leaf switches (SwitchName=... Nodes=...) become islands,
 *                  read by the core's fw_topo (the reader sched/fairway uses)
 *   sacctmgr dump  accounts, users, shares, association priorities, and QOS
 *                  (an extension: "QOS - 'name':Priority=N:UsageFactor=F")
 *
 * Each reader has a file and a buffer entry point; errors name file, line,
 * key, value and reason.
 */
#ifndef SIM_CLUSTER_H
#define SIM_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_common.h"
#include "fw_topo.h"
#include "sim_util.h"

/* Limits that keep a malformed file from exhausting memory. */
#define SIM_MAX_CLUSTER_NODES 200000
#define SIM_MAX_INCLUDE_DEPTH 8

struct sim_node {
	const char *name;     /* interned in the cluster's table */
	uint32_t cpus;
	uint64_t mem_mb;      /* RealMemory, 0 = not given */
	uint32_t gpus;        /* Gres=gpu[:type]:N summed */
	const char *features; /* Feature= as written, NULL = none */
	uint32_t weight;
	int island;           /* leaf switch of topology.conf, -1 = none */
};

/*
 * PreemptMode as slurm.conf (global and per partition) and sacctmgr (per
 * QOS) give it.  UNSET: not given here (the global mode applies).  SUSPEND
 * and GANG are not simulated: the readers refuse them.
 */
enum sim_preempt_mode {
	SIM_PMODE_UNSET,
	SIM_PMODE_OFF,
	SIM_PMODE_CANCEL,
	SIM_PMODE_REQUEUE,
};
/* "OFF", "CANCEL", "REQUEUE" (case-insensitive, with an optional ",WITHIN"
 * refused like SUSPEND and GANG).  0, or -1 with *why set. */
int sim_preempt_mode_parse(const char *v, enum sim_preempt_mode *m,
			   const char **why);
const char *sim_preempt_mode_name(enum sim_preempt_mode m);

struct sim_partition {
	const char *name;
	uint32_t *node;       /* indices into cluster->node, ascending */
	size_t nnodes;
	uint32_t prio_job_factor;
	uint32_t prio_tier;
	int64_t max_time;     /* seconds, -1 = UNLIMITED */
	int64_t default_time; /* seconds, -1 = none (MaxTime applies) */
	bool is_default;
	const char *qos;      /* partition QOS, NULL = none */
	bool up;              /* State=UP (DOWN/DRAIN/INACTIVE start nothing) */
	bool exclusive;       /* OverSubscribe=EXCLUSIVE */
	enum sim_preempt_mode preempt_mode; /* PreemptMode= (UNSET: global) */
	int64_t grace;        /* GraceTime= seconds (preempt/partition_prio) */
	char *nodes_expr;     /* Nodes= as written (resolved at the end) */
	char *file;           /* where it was defined, for late errors */
	int lineno;
};

struct sim_license {
	const char *name;
	uint32_t count;
};

/* A slurm.conf key the simulator does not interpret itself. */
struct sim_conf_key {
	char *key, *value;
	char *file;
	int lineno;
};

struct sim_cluster {
	struct sim_strtab str;
	struct sim_node *node;
	size_t nnodes, node_cap;
	struct sim_partition *part;
	size_t nparts, part_cap;
	struct sim_license *lic;
	size_t nlic;
	int default_part;     /* index; the first partition when none is Default */
	size_t nislands;
	const char **island_name;
	struct fw_topo_warn topo_warn; /* of the last topology.conf read */
	struct sim_conf_key *key;
	size_t nkeys, key_cap;
	char *conf_file;      /* the first slurm.conf read, for errors */
	/* node name (interned pointer) -> index */
	int *node_slot;
	size_t node_mask;
	/* totals */
	uint64_t total_cpus, total_mem_mb, total_gpus;
	/* SelectType: select/cons_tres and cons_res (Slurm's default since
	 * 23.02, also when SelectType is not given) share nodes between jobs;
	 * select/linear gives jobs whole nodes. */
	bool whole_nodes;
};

void sim_cluster_init(struct sim_cluster *c);
void sim_cluster_free(struct sim_cluster *c);

/*
 * slurm.conf.  The buffer form takes the name used in errors and as the
 * base directory of relative Include paths.  After the last file call
 * sim_cluster_finish() (resolves partition node lists, totals, default).
 */
int sim_read_slurm_conf(struct sim_cluster *c, const char *path,
			struct fw_err *err);
int sim_read_slurm_conf_mem(struct sim_cluster *c, const char *name,
			    const char *buf, size_t len, struct fw_err *err);
int sim_cluster_finish(struct sim_cluster *c, struct fw_err *err);

/* topology.conf (after sim_cluster_finish); warnings in c->topo_warn. */
int sim_read_topology(struct sim_cluster *c, const char *path,
		      struct fw_err *err);
int sim_read_topology_mem(struct sim_cluster *c, const char *name,
			  const char *buf, size_t len, struct fw_err *err);

int sim_cluster_find_node(const struct sim_cluster *c, const char *name);
int sim_cluster_find_part(const struct sim_cluster *c, const char *name);
/* Value of the last slurm.conf key of this name (case-insensitive), or NULL. */
const struct sim_conf_key *sim_cluster_key(const struct sim_cluster *c,
					   const char *key);

/* ------------------------------------------------------- associations */

#define SIM_SHARES_PARENT 0x7FFFFFFFu /* Fairshare=parent */

struct sim_acct {
	const char *name;
	const char *parent;   /* "root" for top level accounts */
	uint32_t shares;
	bool has_priority;
	uint32_t priority;
	int lineno;
};

struct sim_user {
	const char *name;
	const char *account;
	uint32_t shares;
	bool has_priority;
	uint32_t priority;
	const char *default_account;
	int lineno;
};

struct sim_qos {
	const char *name;
	uint32_t priority;
	double usage_factor;  /* -1 = not given */
	/* Preemption (preempt/qos): Preempt= as written (names of QOS its
	 * jobs may preempt, comma separated; resolved by the simulator once
	 * the whole dump is read), PreemptMode=, GraceTime= (seconds, as
	 * sacctmgr), PreemptExemptTime= (-1: not given, the slurm.conf one
	 * applies). */
	const char *preempt;
	enum sim_preempt_mode preempt_mode;
	int64_t grace;
	int64_t exempt;
	int lineno;
};

struct sim_assocs {
	struct sim_strtab str;
	const char *cluster;
	struct sim_acct *acct;
	size_t nacct, acct_cap;
	struct sim_user *user;
	size_t nuser, user_cap;
	struct sim_qos *qos;
	size_t nqos, qos_cap;
	uint32_t root_shares;
};

void sim_assocs_init(struct sim_assocs *a);
void sim_assocs_free(struct sim_assocs *a);
int sim_read_sacctmgr_dump(struct sim_assocs *a, const char *path,
			   struct fw_err *err);
int sim_read_sacctmgr_dump_mem(struct sim_assocs *a, const char *name,
			       const char *buf, size_t len,
			       struct fw_err *err);

int sim_assocs_find_acct(const struct sim_assocs *a, const char *name);
int sim_assocs_find_user(const struct sim_assocs *a, const char *account,
			 const char *user);
const struct sim_qos *sim_assocs_find_qos(const struct sim_assocs *a,
					  const char *name);
/* The first DefaultAccount= given for the user, or NULL. */
const char *sim_assocs_default_account(const struct sim_assocs *a,
				       const char *user);
/*
 * Association priority as Slurm applies it: the user association's
 * Priority=, else the nearest account's up the tree, else 0.
 */
uint32_t sim_assocs_priority(const struct sim_assocs *a, const char *account,
			     const char *user);

#endif /* SIM_CLUSTER_H */
