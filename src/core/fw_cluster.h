/*
 * fw_cluster.h - the machine the planner plans on: nodes (CPUs, memory,
 * GPUs, every GRES by name and type, island, usable), partitions (node
 * sets, PriorityTier, limits, whole-node partitions), cluster licenses, and
 * whether jobs share nodes.  Built once by the adapter (sched/fairway from
 * slurmctld's tables, fairway-sim from slurm.conf), then finalised: node
 * types and islands are derived.  Implemented in fw_plan_cluster.c.
 */
#ifndef FW_CLUSTER_H
#define FW_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_bitset.h"
#include "fw_common.h"

/* ------------------------------------------------------------------ */
/* Cluster                                                             */
/* ------------------------------------------------------------------ */

/* A generic resource (fw_cluster_add_gres index) and a count: what a node
 * has, or what a job needs on each of its nodes. */
struct fw_gres_count {
	uint32_t idx;
	uint64_t count;
};

struct fw_node_def {
	const char *name;
	uint32_t cpus;
	uint64_t mem_mb;
	uint32_t gpus;		/* all GPUs, whatever their type */
	const struct fw_gres_count *gres;	/* other GRES, typed GPUs */
	uint32_t ngres;
	/* GRES a job must take from one device of the node (Slurm's shard
	 * and mps, which select/cons_tres takes from one GPU per job and
	 * node): the most one device offers.  A job asking more per node
	 * never fits the node.  Absent or 0: no such limit. */
	const struct fw_gres_count *gres_unit;
	uint32_t ngres_unit;
	int32_t island;		/* switch/island id >= 0, or -1 for none */
	bool usable;		/* false: down/drained for the life of the cluster */
	/* Slurm's node Weight: nodes of lower weight are allocated first
	 * (fw_cluster.by_weight).  0 counts as 1, Slurm's default. */
	uint32_t weight;
};

struct fw_partition_def {
	const char *name;
	const struct fw_bitset *nodes;	/* nbits = number of nodes added */
	uint32_t priority_tier;
	int64_t max_time;		/* seconds; <= 0: unlimited */
	uint32_t min_nodes;		/* 0: no limit */
	uint32_t max_nodes;		/* 0: no limit */
	bool whole_nodes;		/* jobs get whole nodes even on a
					   shared cluster (Slurm's
					   OverSubscribe=EXCLUSIVE) */
};

struct fw_cnode {
	char *name;
	uint32_t cpus;
	uint64_t mem_mb;
	uint32_t gpus;
	uint64_t *gres;		/* count per cluster GRES index (NULL: none) */
	uint64_t *gres_unit;	/* one device's most, per GRES index (NULL:
				   no limit; 0: none for that GRES) */
	int32_t island;
	bool usable;
	uint32_t weight;	/* >= 1 */
	uint32_t type;		/* index into fw_cluster.types */
	int32_t island_idx;	/* index into fw_cluster.islands, -1 none */
};

struct fw_cpart {
	char *name;
	struct fw_bitset *nodes;
	uint32_t priority_tier;
	int64_t max_time;
	uint32_t min_nodes, max_nodes;
	bool whole_nodes;
	uint32_t lo, hi;	/* word range of nodes */
};

struct fw_clicense {
	char *name;
	uint32_t total;
};

/* Distinct (cpus, memory, gpus) node shapes: the capacity filter works on
 * them instead of on every node. */
struct fw_ctype {
	uint32_t cpus;
	uint64_t mem_mb;
	uint32_t gpus;
	const uint64_t *gres;	/* a member node's counts (NULL: none) */
	const uint64_t *gres_unit;	/* and its per-device limits */
	struct fw_bitset *nodes;
};

struct fw_cisland {
	int32_t id;
	struct fw_bitset *nodes;
	uint32_t lo, hi;
};

struct fw_cluster {
	uint32_t nnodes, nparts, nlics, ntypes, nislands, ngres;
	bool shared;		/* nodes are shared between jobs (select/
				   cons_tres): see fw_cluster_set_shared() */
	bool whole_jobs;	/* planned per node, every job on whole
				   nodes: fw_cluster_set_whole_jobs() */
	char **gres_names;	/* "gpu:a100", "shard", "tmpdisk", ... */
	struct fw_cnode *nodes;
	struct fw_cpart *parts;
	struct fw_clicense *lics;
	/* Derived by fw_cluster_finalize(). */
	struct fw_ctype *types;
	struct fw_cisland *islands;	/* sorted by id; if any node has an
					   island, the nodes without one form
					   a last island with id -1 */
	struct fw_bitset *usable;
	uint32_t *part_type_cnt;	/* [part * ntypes + type]: usable nodes
					   of that type in that partition */
	/* Every node index by (weight, index), as select/cons_tres takes
	 * nodes; NULL when all nodes have the same weight (index order). */
	uint32_t *by_weight;
	/* The same nodes as one set per weight, lowest weight first
	 * (nwclass sets; 0 when by_weight is NULL): a search for the
	 * lowest-weight nodes that fit asks one set after another. */
	struct fw_bitset **wclass;
	uint32_t nwclass;
	bool final;
	/* Name lookup (open addressing over node indices). */
	uint32_t hash_cap;
	int32_t *hash;
	uint32_t cap_nodes, cap_parts, cap_lics;
};

struct fw_cluster *fw_cluster_new(void);
void fw_cluster_free(struct fw_cluster *c);
/* Returns the new node's index, or -1 (duplicate name, cluster already has
 * partitions or is finalised). */
int32_t fw_cluster_add_node(struct fw_cluster *c, const struct fw_node_def *d,
			    struct fw_err *err);
int32_t fw_cluster_add_partition(struct fw_cluster *c,
				 const struct fw_partition_def *d,
				 struct fw_err *err);
int32_t fw_cluster_add_license(struct fw_cluster *c, const char *name,
			       uint32_t total, struct fw_err *err);
/* A generic resource by name ("gpu:a100", "shard", "tmpdisk"); all GRES
 * come before the first node.  Returns its index (the same index for a
 * name given twice), or -1. */
int32_t fw_cluster_add_gres(struct fw_cluster *c, const char *name,
			    struct fw_err *err);
int32_t fw_cluster_gres_index(const struct fw_cluster *c, const char *name);
/*
 * Nodes may be shared between jobs (Slurm's select/cons_tres and
 * cons_res): the plan then books CPUs, memory, GPUs and every GRES per node
 * (fw_plan_share.c) instead of whole nodes, except for jobs that want
 * whole nodes (fw_plan_job.exclusive, partitions with whole_nodes).
 * Default: whole nodes (select/linear).  Before fw_cluster_finalize().
 */
int fw_cluster_set_shared(struct fw_cluster *c, bool shared,
			  struct fw_err *err);
/*
 * Every job gets whole nodes (select/linear), but plan per node anyway:
 * the per-node layer is what lets a preempted job's nodes go to the job
 * that preempts it, so select/linear clusters with preemption use it.
 * Sets shared planning; every pending job is then planned as exclusive
 * (fw_share_job() is false), and the caller adds running jobs on whole
 * nodes (fw_plan_add_running, or fw_preempt_run.whole for victims).
 * Before fw_cluster_finalize().
 */
int fw_cluster_set_whole_jobs(struct fw_cluster *c, struct fw_err *err);
/* Do jobs get parts of nodes (cons_tres/cons_res planned per node)?
 * False by whole nodes and with fw_cluster_set_whole_jobs(). */
static inline bool fw_cluster_jobs_share(const struct fw_cluster *c)
{
	return c->shared && !c->whole_jobs;
}
/* Derive islands and node types; no more additions afterwards. */
int fw_cluster_finalize(struct fw_cluster *c, struct fw_err *err);
int32_t fw_cluster_node_index(const struct fw_cluster *c, const char *name);
int32_t fw_cluster_partition_index(const struct fw_cluster *c,
				   const char *name);
int32_t fw_cluster_license_index(const struct fw_cluster *c, const char *name);
/* Node set from a hostlist expression ("c[1-4],gpu01"); every name must
 * exist.  Returns a new bitset or NULL with err set. */
struct fw_bitset *fw_cluster_nodes(const struct fw_cluster *c,
				   const char *hostlist, struct fw_err *err);
/* The inverse: a set as a hostlist expression in node index order
 * ("n[1-3,7],gpu[08-10],login"); malloc'd, "" for an empty set. */
char *fw_cluster_hostlist(const struct fw_cluster *c,
			  const struct fw_bitset *nodes);

#endif /* FW_CLUSTER_H */
