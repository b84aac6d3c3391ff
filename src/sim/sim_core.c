/*
 * sim_core.c - fairway-sim's adapter to the policy core (see sim_core.h).
 *
 * The simulator copies what the core needs from its own structures into
 * the core's (struct fw_prio_job, fw_plan_job, the fair-share tree, the
 * core cluster) exactly as the plugins copy it from slurmctld, runs the
 * core, and applies the results.
 */
#define _POSIX_C_SOURCE 200809L
#include "sim_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fw_accrue.h"
#include "fw_bitset.h"
#include "fw_config.h"
#include "fw_fairshare.h"
#include "fw_plan.h"
#include "fw_prio.h"
#include "sim_preempt.h"

/* TRES the simulator knows, in the order of fw_prio_job.tres[]. */
enum { TRES_CPU, TRES_MEM, TRES_NODE, TRES_BILLING, TRES_GPU, NTRES };
static const char *const tres_names[NTRES] = {
	"cpu", "mem", "node", "billing", "gres/gpu",
};

/* Per-job data of the core (sim_rjob.core). */
struct core_job {
	struct fw_prio_job pj;
	uint64_t tres[NTRES];
	int fs_node;             /* -1: not charged (unknown account ignored) */
	double usage_factor;     /* QOS UsageFactor, -1 = none */
	bool usage_counts;       /* not excluded by partition/QOS */
	bool part_down;          /* its partition starts nothing */
	struct fw_bitset *alloc; /* running: its nodes */
	bool shared;             /* running on parts of its nodes */
	struct fw_plan_lic lic[SIM_MAX_LICENSES];
	uint32_t nlic;
	fw_time_t prio_at;       /* when its priority was last computed */
	struct sim_preempt_job pre; /* its preemption terms */
};

struct sim_core {
	const struct sim_cluster *c;
	const struct sim_assocs *a;
	enum sim_policy policy;
	struct fw_config *cfg;    /* the plugins' configuration dispatcher */
	struct fw_prio_conf *prio; /* = cfg->prio, ... */
	struct fw_fs_conf *fs;
	struct fw_plan_conf *plan;
	struct fw_cluster *cl;
	struct fw_fs_tree *tree;
	struct fw_accrue *accrue;
	bool finished;
	bool prio_static;         /* no weighted term changes while jobs wait */
	uint64_t (*part_tres)[NTRES];
	uint32_t *part_max_cpus;  /* largest node of each partition */
	uint32_t *part_min_cpus;
	double max_part_prio, max_qos_prio, max_assoc_prio;
	struct sim_idmap users, accounts;
	struct sim_strtab str;
	/* A user's first association in the fair-share tree: the account of
	   jobs that name none (Slurm's default account). */
	struct sim_idmap user_ids;
	const char **user_acct;
	size_t nuser_acct;
	/* scratch arrays reused by every pass */
	struct fw_prio_job *pj;
	uint32_t *prio_out;
	double *total_out;
	struct fw_plan_job *planj;
	struct sim_rjob **plan_rj;
	size_t *order;
	struct sim_rjob **by_seq;
	uint32_t *bypass_inc;
	uint32_t *nodes_tmp;
	size_t cap;
	struct sim_rjob **never;
	const char **never_why;
	size_t nnever, never_cap;
	/* Preemption: the configuration, the engine's callback, and the
	   preemptable running jobs of the current plan (victim ids are
	   looked up there). */
	struct sim_preempt pre;
	sim_preempt_fn preempt_cb;
	void *preempt_ctx;
	struct sim_rjob **pre_rj;
	size_t npre_rj, pre_cap;
	/* Victims a backfill pass requeues, planned again in it
	   (fw_plan_late): at most one entry per preemptable job. */
	struct fw_plan_job *late_pj;
	struct sim_rjob **late_rj;
	size_t nlate, late_cap;
};

static struct core_job *cj_of(const struct sim_rjob *j)
{
	return j->core;
}

/* ------------------------------------------------------- configuration */

struct sim_core *sim_core_new(const struct sim_cluster *c,
			      const struct sim_assocs *assocs,
			      enum sim_policy policy, struct fw_err *err)
{
	struct sim_core *k = fw_xcalloc(1, sizeof(*k));

	k->c = c;
	k->a = assocs;
	k->policy = policy;
	k->cfg = fw_config_new();
	k->prio = k->cfg->prio;
	k->fs = k->cfg->fs;
	k->plan = k->cfg->plan;
	sim_idmap_init(&k->users);
	sim_idmap_init(&k->accounts);
	sim_idmap_init(&k->user_ids);
	sim_strtab_init(&k->str);
	/* Every slurm.conf key goes to the dispatcher; most are nobody's. */
	for (size_t i = 0; i < c->nkeys; i++) {
		const struct sim_conf_key *ck = &c->key[i];
		struct fw_err e;

		fw_err_clear(&e);
		if (fw_config_slurm_at(k->cfg, ck->key, ck->value, ck->file,
				       ck->lineno, &e) != FW_CONF_ERR)
			continue;
		if (!e.key[0])
			fw_err_set(&e, ck->file, ck->lineno, ck->key, ck->value,
				   "%s", e.msg[0] ? e.msg : "bad value");
		if (err)
			*err = e;
		sim_core_free(k);
		return NULL;
	}
	return k;
}

int sim_core_read_fairway_conf_mem(struct sim_core *k, const char *name,
				   const char *buf, size_t len,
				   struct fw_err *err)
{
	return fw_config_load_buf(k->cfg, name, buf, len, err);
}

int sim_core_read_fairway_conf(struct sim_core *k, const char *path,
			       struct fw_err *err)
{
	return fw_config_load_file(k->cfg, path, err);
}

/* The policy's planner settings replace the configuration's. */
static void apply_policy(struct sim_core *k)
{
	switch (k->policy) {
	case SIM_POLICY_EASY:
		k->plan->resv_depth = 1;
		k->plan->resv_depth_set = true;
		k->plan->bf_job_part_count_reserve = 0;
		break;
	case SIM_POLICY_CONSERVATIVE:
		k->plan->resv_depth = 0;
		k->plan->resv_depth_set = true;
		k->plan->bf_job_part_count_reserve = 0;
		break;
	default:
		break;
	}
}

static int build_cluster(struct sim_core *k, struct fw_err *err)
{
	const struct sim_cluster *c = k->c;

	k->cl = fw_cluster_new();
	for (size_t i = 0; i < c->nnodes; i++) {
		struct fw_node_def d = {
			.name = c->node[i].name, .cpus = c->node[i].cpus,
			.mem_mb = c->node[i].mem_mb, .gpus = c->node[i].gpus,
			.island = c->node[i].island, .usable = true,
			.weight = c->node[i].weight,
		};
		if (fw_cluster_add_node(k->cl, &d, err) < 0)
			return -1;
	}
	k->part_tres = fw_xcalloc(c->nparts, sizeof(*k->part_tres));
	k->part_max_cpus = fw_xcalloc(c->nparts, sizeof(uint32_t));
	k->part_min_cpus = fw_xcalloc(c->nparts, sizeof(uint32_t));
	for (size_t p = 0; p < c->nparts; p++) {
		const struct sim_partition *sp = &c->part[p];
		struct fw_bitset *b = fw_bitset_new((uint32_t)c->nnodes);

		k->part_min_cpus[p] = UINT32_MAX;
		for (size_t i = 0; i < sp->nnodes; i++) {
			const struct sim_node *n = &c->node[sp->node[i]];
			fw_bitset_set(b, sp->node[i]);
			k->part_tres[p][TRES_CPU] += n->cpus;
			k->part_tres[p][TRES_BILLING] += n->cpus;
			k->part_tres[p][TRES_MEM] += n->mem_mb;
			k->part_tres[p][TRES_NODE] += 1;
			k->part_tres[p][TRES_GPU] += n->gpus;
			if (n->cpus > k->part_max_cpus[p])
				k->part_max_cpus[p] = n->cpus;
			if (n->cpus < k->part_min_cpus[p])
				k->part_min_cpus[p] = n->cpus;
		}
		struct fw_partition_def d = {
			.name = sp->name, .nodes = b,
			.priority_tier = sp->prio_tier,
			.max_time = sp->max_time > 0 ? sp->max_time : 0,
			.whole_nodes = sp->exclusive,
		};
		int32_t r = fw_cluster_add_partition(k->cl, &d, err);
		fw_bitset_free(b);
		if (r < 0)
			return -1;
		if (sp->prio_job_factor > k->max_part_prio)
			k->max_part_prio = sp->prio_job_factor;
	}
	for (size_t i = 0; i < c->nlic; i++)
		if (fw_cluster_add_license(k->cl, c->lic[i].name, c->lic[i].count,
					   err) < 0)
			return -1;
	/* select/linear with preemption is planned per node, every job on
	   whole nodes (fw_cluster_set_whole_jobs), as sched/fairway does */
	if (c->whole_nodes && sim_preempt_on(&k->pre) ?
	    fw_cluster_set_whole_jobs(k->cl, err) :
	    fw_cluster_set_shared(k->cl, !c->whole_nodes, err))
		return -1;
	return fw_cluster_finalize(k->cl, err);
}

/* Accounts and users of the sacctmgr dump, in its (parent first) order. */
static int build_tree_from_dump(struct sim_core *k, struct fw_err *err)
{
	const struct sim_assocs *a = k->a;

	for (size_t i = 0; i < a->nacct; i++) {
		const struct sim_acct *ac = &a->acct[i];
		if (fw_fs_add_account(k->tree, ac->name, ac->parent, ac->shares,
				      0, err) < 0) {
			fw_err_locate(err, "sacctmgr dump", ac->lineno);
			return -1;
		}
		if (ac->has_priority && ac->priority > k->max_assoc_prio)
			k->max_assoc_prio = ac->priority;
	}
	for (size_t i = 0; i < a->nuser; i++) {
		const struct sim_user *u = &a->user[i];
		if (fw_fs_add_user(k->tree, u->account, u->name, u->shares, 0,
				   err) < 0) {
			fw_err_locate(err, "sacctmgr dump", u->lineno);
			return -1;
		}
		if (u->has_priority && u->priority > k->max_assoc_prio)
			k->max_assoc_prio = u->priority;
	}
	for (size_t i = 0; i < a->nqos; i++)
		if (a->qos[i].priority > k->max_qos_prio)
			k->max_qos_prio = a->qos[i].priority;
	return 0;
}

/* Users' first associations in the tree (dump order, then fairway.conf). */
static void index_default_accounts(struct sim_core *k)
{
	size_t nn = fw_fs_node_count(k->tree);

	for (size_t i = 0; i < nn; i++) {
		struct fw_fs_values v;

		if (fw_fs_node_values(k->tree, (int)i, &v) || !v.is_user)
			continue;
		const char *u = sim_intern(&k->str, v.name);
		uint32_t id = sim_idmap_get(&k->user_ids, u);
		if (id < k->nuser_acct)
			continue; /* not the user's first association */
		k->user_acct = fw_xrealloc(k->user_acct, (id + 1) * sizeof(char *));
		while (k->nuser_acct <= id)
			k->user_acct[k->nuser_acct++] = NULL;
		k->user_acct[id] = sim_intern(&k->str, v.account);
	}
}

static const char *tree_default_account(struct sim_core *k, const char *user)
{
	const char *u = sim_strtab_find(&k->str, user);
	uint32_t id;

	if (!u)
		return NULL;
	id = sim_idmap_get(&k->user_ids, u);
	return id < k->nuser_acct ? k->user_acct[id] : NULL;
}

int sim_core_finish(struct sim_core *k, struct fw_err *err)
{
	fw_err_clear(err);
	if (fw_prio_bind_tres(k->prio, tres_names, NTRES, err) != 0 ||
	    fw_config_finish(k->cfg, err) != 0)
		return -1;
	apply_policy(k);
	/* before the cluster: preemption decides how select/linear is planned */
	if (sim_preempt_init(&k->pre, k->c, k->a, err))
		return -1;
	if (build_cluster(k, err))
		return -1;
	k->tree = fw_fs_tree_new(k->fs);
	if (k->a && build_tree_from_dump(k, err))
		return -1;
	if (fw_fs_tree_add_conf_defs(k->tree, k->fs, err))
		return -1;
	/* share_minus_usage: the cluster provides its CPUs (the unit charged). */
	if (!k->fs->capacity_set)
		fw_fs_set_capacity(k->tree, (double)k->c->total_cpus);
	fw_fs_compute(k->tree);
	index_default_accounts(k);
	k->accrue = fw_accrue_new(k->prio);
	k->prio_static = fw_prio_time_invariant(k->prio);
	k->finished = true;
	return 0;
}

void sim_core_free(struct sim_core *k)
{
	if (!k)
		return;
	fw_config_free(k->cfg);
	if (k->cl)
		fw_cluster_free(k->cl);
	if (k->tree)
		fw_fs_tree_free(k->tree);
	if (k->accrue)
		fw_accrue_free(k->accrue);
	free(k->part_tres);
	free(k->part_max_cpus);
	free(k->part_min_cpus);
	sim_idmap_free(&k->users);
	sim_idmap_free(&k->accounts);
	sim_idmap_free(&k->user_ids);
	free(k->user_acct);
	sim_strtab_free(&k->str);
	free(k->pj);
	free(k->prio_out);
	free(k->total_out);
	free(k->planj);
	free(k->plan_rj);
	free(k->order);
	free(k->by_seq);
	free(k->bypass_inc);
	free(k->nodes_tmp);
	free(k->never);
	free(k->never_why);
	sim_preempt_free(&k->pre);
	free(k->pre_rj);
	free(k->late_pj);
	free(k->late_rj);
	free(k);
}

void sim_core_on_preempt(struct sim_core *k, sim_preempt_fn fn, void *ctx)
{
	k->preempt_cb = fn;
	k->preempt_ctx = ctx;
}

const char *sim_core_preempt_type(const struct sim_core *k)
{
	return sim_preempt_on(&k->pre) ? sim_preempt_type_name(k->pre.type)
				       : NULL;
}

int64_t sim_core_calc_period(const struct sim_core *k)
{
	int64_t p = fw_prio_calc_period(k->prio);

	return p > 0 ? p : 300;
}

int64_t sim_core_bf_interval(const struct sim_core *k)
{
	if (k->policy == SIM_POLICY_FIFO || k->policy == SIM_POLICY_SERIAL)
		return -1;
	return k->plan->bf_interval > 0 ? k->plan->bf_interval : -1;
}

/* ----------------------------------------------------------- job binding */

static uint32_t ceil_div(uint64_t a, uint64_t b)
{
	uint64_t v = b ? (a + b - 1) / b : a;

	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Partition of a job; SWF partition numbers fall back to the default. */
static int bind_partition(struct sim_core *k, struct sim_rjob *j,
			  const char **reason, bool *defaulted)
{
	const struct sim_job *tj = j->tj;
	int p;

	if (!tj->partition) {
		j->part = k->c->default_part;
		return 0;
	}
	p = sim_cluster_find_part(k->c, tj->partition);
	if (p >= 0) {
		j->part = p;
		return 0;
	}
	/* "p<N>" names are the SWF reader's; the cluster need not have them. */
	if (tj->partition[0] == 'p' && tj->partition[1] >= '0' &&
	    tj->partition[1] <= '9' &&
	    strspn(tj->partition + 1, "0123456789") == strlen(tj->partition + 1)) {
		j->part = k->c->default_part;
		*defaulted = true;
		return 0;
	}
	*reason = "unknown partition";
	return 1;
}

/* Effective time limit: the job's, else DefaultTime, else MaxTime. */
static int bind_limit(const struct sim_partition *p, struct sim_rjob *j,
		      const char **reason)
{
	int64_t lim = j->tj->time_limit;

	if (lim <= 0)
		lim = p->default_time > 0 ? p->default_time : p->max_time;
	/* An estimate is not the user's request: it cannot be refused. */
	if (j->tj->limit_estimated && p->max_time > 0 && lim > p->max_time)
		lim = p->max_time;
	if (p->max_time > 0 && lim > p->max_time) {
		*reason = "time limit exceeds the partition's MaxTime";
		return 1;
	}
	j->limit = lim > 0 ? lim : -1;
	j->run = j->tj->run_time;
	if (j->limit > 0 && j->run > j->limit)
		j->run = j->limit; /* killed at its time limit */
	return 0;
}

static int bind_sizes(struct sim_core *k, struct sim_rjob *j,
		      const char **reason)
{
	const struct sim_job *tj = j->tj;
	const struct sim_partition *p = &k->c->part[j->part];
	uint32_t maxc = k->part_max_cpus[j->part];

	if (p->nnodes == 0) {
		*reason = "partition has no nodes";
		return 1;
	}
	j->nodes = tj->nodes ? tj->nodes : ceil_div(tj->cpus, maxc);
	if (j->nodes > p->nnodes) {
		*reason = "more nodes than the partition has";
		return 1;
	}
	j->cpus = tj->cpus ? tj->cpus : j->nodes * k->part_min_cpus[j->part];
	j->cpus_per_node = ceil_div(j->cpus, j->nodes);
	j->gpus_per_node = ceil_div(tj->gpus, j->nodes);
	j->mem_per_node_mb = tj->mem_mb ? (tj->mem_mb + j->nodes - 1) / j->nodes : 0;
	return 0;
}

static int bind_licenses(struct sim_core *k, struct sim_rjob *j,
			 struct core_job *cj, const char **reason)
{
	for (uint32_t i = 0; i < j->tj->nlic; i++) {
		int32_t li = fw_cluster_license_index(k->cl, j->tj->lic[i].name);
		if (li < 0) {
			*reason = "requests a license the cluster does not have";
			return 1;
		}
		cj->lic[cj->nlic].idx = (uint32_t)li;
		cj->lic[cj->nlic].count = j->tj->lic[i].count;
		cj->nlic++;
	}
	return 0;
}

static void bind_prio(struct sim_core *k, struct sim_rjob *j,
		      struct core_job *cj)
{
	const struct sim_job *tj = j->tj;
	const struct sim_partition *p = &k->c->part[j->part];
	struct fw_prio_job *pj = &cj->pj;
	const char *qos = tj->qos ? tj->qos : "normal";

	fw_prio_job_init(pj);
	pj->job_id = tj->id;
	pj->uid = sim_idmap_get(&k->users, tj->user);
	pj->account_id = sim_idmap_get(&k->accounts, j->account);
	pj->user = tj->user ? fw_prio_resolve(k->prio, FW_PRIO_USER, tj->user) : -1;
	pj->account = j->account ? fw_prio_resolve(k->prio, FW_PRIO_ACCOUNT, j->account) : -1;
	pj->qos = fw_prio_resolve(k->prio, FW_PRIO_QOS, qos);
	pj->partition = fw_prio_resolve(k->prio, FW_PRIO_PARTITION, p->name);
	pj->submit_time = j->submit;
	pj->eligible_time = j->eligible > j->submit ? j->eligible : 0;
	pj->queue_sec = fw_prio_accrue_policy(k->prio) != FW_ACCRUE_ACCRUE_TIME
				? 0 : FW_PRIO_QUEUE_AUTO;
	pj->deadline = tj->deadline;
	pj->nodes = j->nodes;
	pj->cpus = j->cpus;
	pj->mem_mb = tj->mem_mb;
	pj->gpus = tj->gpus;
	pj->time_limit_min = j->limit > 0 ? (uint32_t)((j->limit + 59) / 60) : 0;
	cj->tres[TRES_CPU] = j->cpus;
	cj->tres[TRES_MEM] = tj->mem_mb;
	cj->tres[TRES_NODE] = j->nodes;
	cj->tres[TRES_BILLING] = j->cpus;
	cj->tres[TRES_GPU] = tj->gpus;
	pj->tres = cj->tres;
	pj->part_tres_total = k->part_tres[j->part];
	pj->nice = tj->nice;
	pj->part_prio_raw = p->prio_job_factor;
	pj->part_prio_norm = k->max_part_prio > 0
				     ? p->prio_job_factor / k->max_part_prio : 0;
	pj->part_tier = p->prio_tier;
	if (k->a) {
		const struct sim_qos *q = sim_assocs_find_qos(k->a, qos);
		uint32_t ap = sim_assocs_priority(k->a, j->account, tj->user);
		pj->qos_prio_raw = q ? q->priority : 0;
		pj->qos_prio_norm = q && k->max_qos_prio > 0
					    ? q->priority / k->max_qos_prio : 0;
		pj->assoc_prio_raw = ap;
		pj->assoc_prio_norm = k->max_assoc_prio > 0 ? ap / k->max_assoc_prio : 0;
		cj->usage_factor = q ? q->usage_factor : -1;
	} else {
		cj->usage_factor = -1;
	}
	cj->usage_counts = fw_fs_usage_counts(k->fs, p->name, qos);
	cj->fs_node = fw_fs_resolve(k->tree, j->account ? j->account : "",
				    tj->user ? tj->user : "");
}

int sim_core_bind(struct sim_core *k, struct sim_rjob *j,
		  const char **reason, bool *defaulted)
{
	struct core_job *cj;

	*defaulted = false;
	if (bind_partition(k, j, reason, defaulted))
		return 1;
	/* No account: the user's DefaultAccount, else first association. */
	j->account = j->tj->account;
	if (!j->account && k->a)
		j->account = sim_assocs_default_account(k->a, j->tj->user);
	if (!j->account && j->tj->user)
		j->account = tree_default_account(k, j->tj->user);
	if (bind_sizes(k, j, reason) ||
	    bind_limit(&k->c->part[j->part], j, reason))
		return 1;
	cj = fw_xcalloc(1, sizeof(*cj));
	j->core = cj;
	if (bind_licenses(k, j, cj, reason)) {
		sim_core_unbind(k, j);
		return 1;
	}
	cj->part_down = !k->c->part[j->part].up;
	bind_prio(k, j, cj);
	sim_preempt_bind(&k->pre, k->c, k->a, j->part, j->tj->qos, &cj->pre);
	j->may_preempt = cj->pre.npreempts > 0;
	return 0;
}

void sim_core_requeue(struct sim_core *k, fw_time_t now, struct sim_rjob *j)
{
	struct core_job *cj = cj_of(j);

	if (cj->alloc) {
		fw_bitset_free(cj->alloc);
		cj->alloc = NULL;
	}
	cj->shared = false;
	cj->pj.submit_time = j->submit;
	cj->pj.eligible_time = j->eligible > j->submit ? j->eligible : 0;
	cj->pj.queue_sec = fw_prio_accrue_policy(k->prio) != FW_ACCRUE_ACCRUE_TIME
				   ? 0 : FW_PRIO_QUEUE_AUTO;
	sim_core_prio_one(k, now, j);
}

void sim_core_unbind(struct sim_core *k, struct sim_rjob *j)
{
	struct core_job *cj = j->core;

	(void)k;
	if (!cj)
		return;
	if (cj->alloc)
		fw_bitset_free(cj->alloc);
	free(cj);
	j->core = NULL;
}

/* ------------------------------------------------------------ priorities */

static void grow_scratch(struct sim_core *k, size_t n)
{
	if (n <= k->cap)
		return;
	k->cap = n * 2;
	k->pj = fw_xrealloc(k->pj, k->cap * sizeof(*k->pj));
	k->prio_out = fw_xrealloc(k->prio_out, k->cap * sizeof(*k->prio_out));
	k->total_out = fw_xrealloc(k->total_out, k->cap * sizeof(*k->total_out));
	k->planj = fw_xrealloc(k->planj, k->cap * sizeof(*k->planj));
	k->plan_rj = fw_xrealloc(k->plan_rj, k->cap * sizeof(*k->plan_rj));
	k->order = fw_xrealloc(k->order, k->cap * sizeof(*k->order));
	k->by_seq = fw_xrealloc(k->by_seq, k->cap * sizeof(*k->by_seq));
	k->bypass_inc = fw_xrealloc(k->bypass_inc, k->cap * sizeof(*k->bypass_inc));
}

static void prio_ctx(const struct sim_core *k, fw_time_t now,
		     struct fw_prio_ctx *ctx)
{
	ctx->now = now;
	ctx->total_nodes = (uint32_t)k->c->nnodes;
	ctx->total_cpus = (uint32_t)k->c->total_cpus;
	ctx->total_mem_mb = k->c->total_mem_mb;
}

/* The time-dependent fields of a pending job's fw_prio_job. */
static void refresh_pj(struct sim_core *k, struct sim_rjob *j, fw_time_t now)
{
	struct core_job *cj = cj_of(j);
	struct fw_prio_job *pj = &cj->pj;

	if (fw_prio_flags(k->prio) & FW_PRIO_FLAG_ACCRUE_ALWAYS)
		pj->accrue_time = j->submit;
	else
		pj->accrue_time = now >= j->eligible ? j->eligible : 0;
	pj->bypass_count = j->bypass;
	pj->fairshare = fw_fs_factor(k->tree, cj->fs_node);
}

void sim_core_prio_one(struct sim_core *k, fw_time_t now, struct sim_rjob *j)
{
	struct core_job *cj = cj_of(j);
	struct fw_prio_ctx ctx;
	double total;

	prio_ctx(k, now, &ctx);
	refresh_pj(k, j, now);
	fw_prio_compute_batch(k->prio, &ctx, &cj->pj, 1, &j->priority, &total);
	j->prio_total = total;
	cj->pj.prev_priority = j->priority;
	cj->prio_at = now;
}

/* Charge a running job's usage up to t. */
static void charge(struct sim_core *k, struct sim_rjob *j, fw_time_t t)
{
	struct core_job *cj = cj_of(j);

	if (t <= j->last_charge)
		return;
	if (cj->usage_counts && cj->fs_node >= 0) {
		double units = fw_fs_apply_usage_factor((double)j->alloc_cpus,
							cj->usage_factor);
		fw_fs_charge(k->tree, cj->fs_node, units, j->last_charge, t);
		j->usage += units * (double)(t - j->last_charge);
	}
	j->last_charge = t;
}

static void accrue_tick(struct sim_core *k, fw_time_t now,
			struct sim_rjob **pending, size_t np,
			struct sim_rjob **running, size_t nr)
{
	size_t n = 0;

	grow_scratch(k, np + nr);
	for (size_t i = 0; i < np; i++) {
		refresh_pj(k, pending[i], now);
		k->pj[n++] = cj_of(pending[i])->pj;
	}
	for (size_t i = 0; i < nr; i++) {
		struct fw_prio_job *pj = &k->pj[n++];
		*pj = cj_of(running[i])->pj;
		pj->running = true;
		pj->start_time = running[i]->out->start;
	}
	fw_accrue_tick(k->accrue, k->pj, n, now);
	for (size_t i = 0; i < np; i++)
		cj_of(pending[i])->pj.queue_sec = k->pj[i].queue_sec;
	fw_accrue_prune(k->accrue);
}

void sim_core_prio_pass(struct sim_core *k, fw_time_t now,
			struct sim_rjob **pending, size_t np,
			struct sim_rjob **running, size_t nr)
{
	struct fw_prio_ctx ctx;

	for (size_t i = 0; i < nr; i++)
		charge(k, running[i], now);
	/* Priorities cannot have changed since submission (no weight on a
	   term that moves with time): recomputing them, the fair-share
	   factors and the accrual ledger, which only feed priorities, would
	   give the same numbers.  Without weights (the textbook fifo, easy
	   and conservative runs) this was most of a long queue's replay. */
	if (k->prio_static)
		return;
	fw_fs_advance(k->tree, now);
	fw_fs_compute(k->tree);
	if (fw_prio_accrue_policy(k->prio) != FW_ACCRUE_ACCRUE_TIME)
		accrue_tick(k, now, pending, np, running, nr);
	grow_scratch(k, np);
	for (size_t i = 0; i < np; i++) {
		refresh_pj(k, pending[i], now);
		k->pj[i] = cj_of(pending[i])->pj;
	}
	prio_ctx(k, now, &ctx);
	fw_prio_compute_batch(k->prio, &ctx, k->pj, np, k->prio_out,
			      k->total_out);
	for (size_t i = 0; i < np; i++) {
		struct core_job *cj = cj_of(pending[i]);
		pending[i]->priority = k->prio_out[i];
		pending[i]->prio_total = k->total_out[i];
		cj->pj.prev_priority = k->prio_out[i];
		cj->prio_at = now;
	}
}

void sim_core_prio_cols(struct sim_core *k, fw_time_t now,
			const struct sim_rjob *j, struct sim_prio_cols *cols)
{
	const struct core_job *cj = cj_of(j);
	struct fw_prio_result res;
	struct fw_prio_ctx ctx;
	struct fw_prio_job pj = cj->pj;

	(void)now;
	/* The breakdown of the priority the scheduler used: as computed then. */
	prio_ctx(k, cj->prio_at, &ctx);
	pj.prev_priority = 0;
	fw_prio_compute(k->prio, &ctx, &pj, &res);
	/* as sprio prints them: each column rounded (printf's %.0f) */
	cols->age = llrint(res.sprio.age);
	cols->assoc = llrint(res.sprio.assoc);
	cols->fairshare = llrint(res.sprio.fairshare);
	cols->jobsize = llrint(res.sprio.jobsize);
	cols->partition = llrint(res.sprio.partition);
	cols->qos = llrint(res.sprio.qos);
	cols->site = llrint(res.sprio.site);
	cols->nice = llrint(res.sprio.nice);
	cols->tres = 0;
	for (int i = 0; i < res.sprio.ntres; i++)
		cols->tres += llrint(res.sprio.tres[i]);
}

/* ------------------------------------------------------------ scheduling */

static void never_add(struct sim_core *k, struct sim_rjob *j, const char *why)
{
	if (k->nnever == k->never_cap) {
		k->never_cap = k->never_cap ? k->never_cap * 2 : 16;
		k->never = fw_xrealloc(k->never, k->never_cap * sizeof(*k->never));
		k->never_why = fw_xrealloc(k->never_why,
					   k->never_cap * sizeof(*k->never_why));
	}
	k->never[k->nnever] = j;
	k->never_why[k->nnever] = why;
	k->nnever++;
}

size_t sim_core_never(const struct sim_core *k, struct sim_rjob ***jobs,
		      const char ***reasons)
{
	*jobs = k->never;
	*reasons = k->never_why;
	return k->nnever;
}

/* May the plan offer this running job as a victim?  Not when it is
 * already being preempted (it is gone at preempt_end whatever happens). */
static bool preemptable(const struct sim_core *k, const struct sim_rjob *j)
{
	return sim_preempt_on(&k->pre) && cj_of(j)->pre.cls >= 0 &&
	       !j->preempt_end;
}

/* Remember a preemptable job of this plan (victim ids map back here). */
static void pre_remember(struct sim_core *k, struct sim_rjob *j)
{
	if (k->npre_rj == k->pre_cap) {
		k->pre_cap = k->pre_cap ? k->pre_cap * 2 : 64;
		k->pre_rj = fw_xrealloc(k->pre_rj, k->pre_cap * sizeof(*k->pre_rj));
	}
	k->pre_rj[k->npre_rj++] = j;
}

/* What a preemptable job is to the planner (fw_preempt_run). */
static void pre_run(const struct sim_rjob *j, struct fw_preempt_run *pr)
{
	const struct sim_preempt_job *x = &cj_of(j)->pre;

	memset(pr, 0, sizeof(*pr));
	pr->whole = !cj_of(j)->shared;	/* all of its nodes, GRES too */
	pr->cls = (uint32_t)x->cls;
	pr->prio = x->prio;
	pr->start = j->out->start;
	pr->exempt_until = x->exempt > 0 ? j->out->start + x->exempt : 0;
	pr->grace = x->grace;
}

/* A running job as the plan sees it: whole nodes, or its amounts on
 * each node when it shares them (a preemptable job always so: a victim
 * frees what it holds, and a whole-node one holds each node whole). */
static int add_running(struct sim_core *k, struct fw_plan *p,
		       struct sim_rjob *j, fw_time_t end, struct fw_err *err)
{
	const struct core_job *cj = cj_of(j);
	bool pre = preemptable(k, j);
	struct fw_preempt_run pr;
	struct fw_node_use *u;
	uint32_t n = 0;
	int64_t i;
	int rc;

	if (!cj->shared && !pre)
		return fw_plan_add_running(p, cj->alloc, end, cj->lic,
					   cj->nlic, err);
	u = fw_xcalloc(k->c->nnodes ? k->c->nnodes : 1, sizeof(*u));
	FW_BITSET_FOREACH(cj->alloc, i) {
		const struct sim_node *nd = &k->c->node[i];

		u[n].node = (uint32_t)i;
		u[n].job = j->tj->id;
		u[n].cpus = cj->shared ? j->cpus_per_node : nd->cpus;
		u[n].mem_mb = cj->shared ? j->mem_per_node_mb : nd->mem_mb;
		u[n].gpus = cj->shared ? j->gpus_per_node : nd->gpus;
		n++;
	}
	if (pre) {
		pre_run(j, &pr);
		pre_remember(k, j);
		rc = fw_plan_add_running_preemptable(p, u, n, end, cj->lic,
						     cj->nlic, &pr, err);
	} else {
		rc = fw_plan_add_running_use(p, u, n, end, cj->lic, cj->nlic,
					     err);
	}
	free(u);
	return rc;
}

/* A fresh plan at now holding the running jobs. */
static struct fw_plan *plan_with_running(struct sim_core *k, fw_time_t now,
					 struct sim_rjob **running, size_t nr,
					 struct fw_err *err)
{
	struct fw_plan *p = fw_plan_new(k->cl, k->plan, now, err);

	if (!p)
		return NULL;
	k->npre_rj = 0;
	for (size_t i = 0; i < nr; i++) {
		struct sim_rjob *j = running[i];
		fw_time_t end = j->limit > 0 ? j->out->start + j->limit : 0;

		/* Being preempted: Slurm set its end to the grace time's. */
		if (j->preempt_end && (end <= 0 || j->preempt_end < end))
			end = j->preempt_end;

		if (add_running(k, p, j, end, err)) {
			fw_plan_free(p);
			return NULL;
		}
	}
	return p;
}

/*
 * Queue order as a binary heap of indices into k->planj.  A main pass
 * usually stops at the first job of a blocked partition, so it takes jobs
 * from a heap (O(n + k log n)) instead of sorting the whole queue: under
 * fifo the queue is long and the full sort was a third of the run.
 */
static bool q_before(const struct sim_core *k, size_t a, size_t b)
{
	return fw_plan_job_cmp(k->cl, &k->planj[a], &k->planj[b]) < 0;
}

static void q_sift(const struct sim_core *k, size_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && q_before(k, h[l], h[m]))
			m = l;
		if (l + 1 < n && q_before(k, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		size_t t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static size_t q_take(const struct sim_core *k, size_t *h, size_t *n)
{
	size_t top = h[0];

	h[0] = h[--*n];
	q_sift(k, h, *n, 0);
	return top;
}

/* What fw_plan_job_cmp orders by (the heap needs no more). */
static void plan_key(struct fw_plan_job *q, const struct sim_rjob *j)
{
	q->resv = -1;
	q->id = j->tj->id;
	q->priority = j->priority;
	q->submit = j->submit;
	q->eligible = j->eligible;	/* for fw_plan_heads_new */
	q->part = j->part;
	q->head = false;
}

/* The planner's whole view of one job. */
static void plan_fill(struct fw_plan_job *q, const struct sim_rjob *j)
{
	const struct core_job *cj = cj_of(j);

	fw_plan_job_init(q);
	plan_key(q, j);
	q->eligible = j->eligible;
	q->nodes_min = j->nodes;
	q->cpus_per_node = j->cpus_per_node;
	q->mem_per_node_mb = j->mem_per_node_mb;
	q->gpus_per_node = j->gpus_per_node;
	q->time_limit = j->limit > 0 ? j->limit : 0;
	q->lics = cj->lic;
	q->nlics = cj->nlic;
	q->uid = cj->pj.uid;
	q->account = cj->pj.account_id;
	q->preempts = cj->pre.preempts;
	q->npreempts = cj->pre.npreempts;
}

/*
 * A job requeued by a preemption waits for its hold (sim_core_requeue);
 * backfill passes plan it from its eligible time on, as sched/fairway
 * does (a main pass could not start it).
 */
static bool requeued_waiting(const struct sim_rjob *j)
{
	return j->out->preempted > 0 && j->state == SIM_R_PENDING;
}

/*
 * The plan's view of the pending jobs that may start now (and, in
 * backfill passes, the requeued ones waiting for their hold): k->order is
 * sorted in queue order, or (heap) a heap to take them from with q_take;
 * then only the ordering fields are set, and the caller completes a job
 * with plan_fill when it takes it (a main pass takes few of them).
 */
static size_t plan_queue(struct sim_core *k, fw_time_t now,
			 struct sim_rjob **pending, size_t np, bool heap)
{
	size_t n = 0;

	grow_scratch(k, np);
	for (size_t i = 0; i < np; i++) {
		struct sim_rjob *j = pending[i];

		if ((j->eligible > now && (heap || !requeued_waiting(j))) ||
		    cj_of(j)->part_down)
			continue;
		if (heap)
			plan_key(&k->planj[n], j);
		else
			plan_fill(&k->planj[n], j);
		k->plan_rj[n] = j;
		n++;
	}
	if (!heap) {
		fw_plan_sort_index(k->cl, k->planj, n, k->order);
		return n;
	}
	for (size_t i = 0; i < n; i++)
		k->order[i] = i;
	for (size_t i = n / 2; i-- > 0;)
		q_sift(k, k->order, n, i);
	return n;
}

/* Node indices of a bitset into k->nodes_tmp; returns the count. */
static uint32_t bitset_nodes(struct sim_core *k, const struct fw_bitset *b)
{
	uint32_t n = 0;

	if (!k->nodes_tmp)
		k->nodes_tmp = fw_xmalloc((k->c->nnodes + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; b && i < b->nbits; i++)
		if (fw_bitset_test(b, i))
			k->nodes_tmp[n++] = i;
	return n;
}

static uint32_t alloc_cpus(const struct sim_core *k, const struct sim_rjob *j,
			   bool shared, const uint32_t *nodes, uint32_t n)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += shared ? j->cpus_per_node : k->c->node[nodes[i]].cpus;
	return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

/* The running job of this plan with id `id` (a victim), or NULL. */
static struct sim_rjob *pre_find(const struct sim_core *k, uint32_t id)
{
	for (size_t i = 0; i < k->npre_rj; i++)
		if (k->pre_rj[i]->tj->id == id)
			return k->pre_rj[i];
	return NULL;
}

/*
 * The planner counts on the victims of d being preempted now (for a start
 * now or a reservation): hand them to the engine, which must preempt
 * them whatever happens to the start, as slurmctld does.
 */
static void preempt_victims(struct sim_core *k,
			    const struct fw_plan_decision *d)
{
	for (uint32_t v = 0; v < d->nvictims; v++) {
		struct sim_rjob *x = pre_find(k, d->victims[v]);

		if (!x || x->preempt_end || !k->preempt_cb)
			continue;
		k->preempt_cb(k->preempt_ctx, x, cj_of(x)->pre.grace,
			      (uint32_t)cj_of(x)->pre.mode);
	}
}

/*
 * Backfill passes: the victims of d that are requeued (PreemptMode=
 * REQUEUE) are pending again from their release plus the requeue hold;
 * they join the pass (fw_plan_late) with the priority they have then
 * (recomputed at the requeue when it is at once, else the one they ran
 * with).  Call after preempt_victims().
 */
static void late_victims(struct sim_core *k, struct fw_plan_late *late,
			 const struct fw_plan_decision *d)
{
	for (uint32_t v = 0; late && v < d->nvictims; v++) {
		struct sim_rjob *x = pre_find(k, d->victims[v]);
		struct fw_plan_job *q;

		/* a victim cancelled at once is unbound already */
		if (!x || !x->core ||
		    cj_of(x)->pre.mode != SIM_PMODE_REQUEUE ||
		    k->nlate == k->late_cap)
			continue;
		q = &k->late_pj[k->nlate];
		plan_fill(q, x);
		if (x->state == SIM_R_RUNNING) {	/* in its GraceTime */
			q->submit = x->preempt_end;
			q->eligible = x->preempt_end + SIM_REQUEUE_HOLD;
		}
		q->late = true;
		k->late_rj[k->nlate] = x;
		fw_plan_late_add(late, q, k->nlate++);
	}
}

/* Room for every preemptable job of the plan among the late jobs, and
 * for their decisions in the per-decision arrays. */
static struct fw_plan_late *late_new(struct sim_core *k, size_t n)
{
	if (!k->npre_rj)
		return NULL;
	grow_scratch(k, n + k->npre_rj);
	if (k->npre_rj > k->late_cap) {
		k->late_cap = k->npre_rj;
		k->late_pj = fw_xrealloc(k->late_pj,
					 k->late_cap * sizeof(*k->late_pj));
		k->late_rj = fw_xrealloc(k->late_rj,
					 k->late_cap * sizeof(*k->late_rj));
	}
	k->nlate = 0;
	return fw_plan_late_new(k->cl);
}

/* The core decided START_NOW: allocate, tell the plan, then the engine. */
static int start_job(struct sim_core *k, struct fw_plan *p, struct sim_rjob *j,
		     const struct fw_plan_decision *d, sim_start_fn start,
		     void *ctx, struct fw_err *err)
{
	struct core_job *cj = cj_of(j);
	uint32_t nn = bitset_nodes(k, d->nodes);

	preempt_victims(k, d);
	cj->alloc = fw_bitset_dup(d->nodes);
	cj->shared = d->shared;
	j->shared = d->shared;
	j->alloc_cpus = alloc_cpus(k, j, d->shared, k->nodes_tmp, nn);
	if (fw_plan_started(p, NULL, err))
		return -1;
	start(ctx, j, k->nodes_tmp, nn, d->backfilled);
	return 0;
}

/* The next job in queue order (main passes take it from the heap). */
static size_t next_job(struct sim_core *k, bool main, size_t qi, size_t *left)
{
	size_t x;

	if (!main)
		return k->order[qi];
	x = q_take(k, k->order, left);
	plan_fill(&k->planj[x], k->plan_rj[x]);
	return x;
}

/* One decision of a pass, and what follows from it. */
static int decide_one(struct sim_core *k, struct fw_plan *p,
		      struct fw_plan_job *q, struct sim_rjob *j,
		      enum sim_pass pass, struct fw_plan_late *late,
		      struct fw_plan_decision *d, size_t *decided,
		      sim_start_fn start, void *ctx, struct fw_err *err)
{
	enum fw_plan_pass fp = pass != SIM_PASS_BACKFILL ? FW_PASS_MAIN
							 : FW_PASS_BACKFILL;
	int rc = fw_plan_decide(p, q, fp, d, err);

	if (rc)
		return rc;
	if (d->seq < k->cap)
		k->by_seq[d->seq] = j;
	*decided = d->seq + 1 > *decided ? d->seq + 1 : *decided;
	if (d->kind == FW_PLAN_NOT_RUNNABLE) {
		never_add(k, j, fw_plan_reason_str(d->reason));
	} else if (d->kind == FW_PLAN_START_NOW && q->late) {
		/* not before its hold: never expected; keep the plan sane */
		rc = fw_plan_start_failed(p, d, err);
	} else if (d->kind == FW_PLAN_START_NOW) {
		rc = start_job(k, p, j, d, start, ctx, err);
		late_victims(k, late, d);
	} else if (d->nvictims && !d->victims_later) {
		preempt_victims(k, d);
		late_victims(k, late, d);
	}
	return rc;
}

int sim_core_schedule(struct sim_core *k, fw_time_t now, enum sim_pass pass,
		      struct sim_rjob **pending, size_t np,
		      struct sim_rjob **running, size_t nr,
		      sim_start_fn start, void *ctx, struct fw_err *err)
{
	bool main = pass != SIM_PASS_BACKFILL;
	struct fw_plan_late *late = NULL;
	struct fw_plan_heads *h;
	struct fw_plan *p;
	size_t n, left, decided = 0;
	int rc = 0;

	k->nnever = 0;
	n = left = plan_queue(k, now, pending, np, main);
	if (n == 0)
		return 0;
	p = plan_with_running(k, now, running, nr, err);
	if (!p)
		return -1;
	/* Victims this pass requeues are planned again in it. */
	if (!main)
		late = late_new(k, n);
	/* ReservationOrder=submit: the oldest jobs first (fw_plan.h). */
	h = fw_plan_heads_new(k->cl, k->plan, now, k->planj, n);
	for (size_t qi = 0; !rc;) {
		size_t x = fw_plan_heads_next(h), t;
		bool head = x != FW_PLAN_NO_HEAD;
		struct fw_plan_job *q;
		struct sim_rjob *j;
		struct fw_plan_decision d;

		if (head) {
			if (main)
				plan_fill(&k->planj[x], k->plan_rj[x]);
		} else if (fw_plan_late_next(late, qi < n ? &k->planj[k->order[qi]]
							   : NULL, &t)) {
			rc = decide_one(k, p, &k->late_pj[t], k->late_rj[t],
					pass, late, &d, &decided, start, ctx,
					err);
			continue;
		} else {
			if (qi >= n)
				break;
			x = next_job(k, main, qi++, &left);
			if (fw_plan_heads_taken(h, x))
				continue;
		}
		q = &k->planj[x];
		j = k->plan_rj[x];
		q->head = head;
		rc = decide_one(k, p, q, j, pass, late, &d, &decided, start,
				ctx, err);
		if (rc)
			break;
		/* Back to its key in the heap (main passes). */
		q->head = false;
		fw_plan_heads_outcome(h, d.kind);
		/* Main pass with every partition blocked: the rest of the
		   queue would only be told "Priority" (under fifo a long
		   queue made this most of the run). */
		if (d.kind != FW_PLAN_START_NOW &&
		    d.kind != FW_PLAN_NOT_RUNNABLE && main &&
		    fw_plan_main_all_blocked(p))
			break;
		if (d.kind == FW_PLAN_START_NOW && pass == SIM_PASS_SERIAL)
			break;
	}
	if (!rc) {
		fw_plan_bypass(p, k->bypass_inc, decided);
		for (size_t s = 0; s < decided; s++)
			k->by_seq[s]->bypass += k->bypass_inc[s];
	}
	fw_plan_late_free(late);
	fw_plan_heads_free(h);
	fw_plan_free(p);
	return rc;
}

void sim_core_job_end(struct sim_core *k, fw_time_t now, struct sim_rjob *j)
{
	struct core_job *cj = cj_of(j);

	charge(k, j, now);
	if (cj && cj->alloc) {
		fw_bitset_free(cj->alloc);
		cj->alloc = NULL;
	}
}

/* --------------------------------------------------------------- explain */

/* fifo and serial have no backfill pass: explain with the main pass. */
static bool main_only(const struct sim_core *k)
{
	return k->policy == SIM_POLICY_FIFO || k->policy == SIM_POLICY_SERIAL ||
	       k->plan->bf_interval <= 0;
}

/* Running jobs holding nodes the job is planned on (or could use). */
static void explain_holders(struct sim_core *k, const struct fw_plan_decision *d,
			    struct sim_rjob *j, struct sim_rjob **running,
			    size_t nr, FILE *out)
{
	const struct fw_bitset *want = d->nodes;
	char ts[32];
	int shown = 0;

	for (size_t i = 0; i < nr && shown < 10; i++) {
		const struct core_job *rc = cj_of(running[i]);
		bool hit = false;

		for (uint32_t b = 0; rc->alloc && b < rc->alloc->nbits && !hit; b++)
			hit = fw_bitset_test(rc->alloc, b) &&
			      (want ? fw_bitset_test(want, b)
				    : k->c->part[j->part].nnodes > 0);
		if (!hit)
			continue;
		struct fw_buf nb = { 0 };
		uint32_t nn = bitset_nodes(k, rc->alloc);
		sim_hostlist_compress(k->c, k->nodes_tmp, nn, &nb);
		if (running[i]->limit > 0)
			fprintf(out, "  job %u runs on %s until at most %s\n",
				running[i]->tj->id, nb.s ? nb.s : "",
				sim_fmt_time(running[i]->out->start + running[i]->limit,
					     ts, sizeof(ts)));
		else
			fprintf(out, "  job %u runs on %s without a time limit\n",
				running[i]->tj->id, nb.s ? nb.s : "");
		fw_buf_free(&nb);
		shown++;
	}
}

static void explain_plan(struct sim_core *k, const struct fw_plan_decision *d,
			 struct sim_rjob *j, struct sim_rjob **running,
			 size_t nr, FILE *out)
{
	char ts[32];
	struct fw_buf b = { 0 };
	uint32_t nn = bitset_nodes(k, d->nodes);

	sim_hostlist_compress(k->c, k->nodes_tmp, nn, &b);
	fprintf(out, "plan (%s pass at this time): %s\n",
		main_only(k) ? "main" : "backfill", fw_plan_kind_str(d->kind));
	if (d->kind == FW_PLAN_START_NOW)
		fprintf(out, "  it would start now on %s (at the next scheduling pass)\n",
			b.s ? b.s : "");
	else if (d->kind == FW_PLAN_RESERVED || d->kind == FW_PLAN_ESTIMATED)
		fprintf(out, "  planned start %s on %s%s\n",
			sim_fmt_time(d->start, ts, sizeof(ts)), nn ? b.s : "(nodes not fixed)",
			d->is_protected ? " (protected: later jobs may not delay it)"
					: " (estimate: lower jobs may still delay it)");
	fprintf(out, "  partition %s, %u node(s), priority %u\n",
		k->c->part[j->part].name, j->nodes, j->priority);
	for (uint32_t v = 0; v < d->nvictims; v++)
		fprintf(out, "%s%u%s", v ? ", " :
			d->victims_later ? "  at its start (once the jobs it waits for have ended) it preempts job(s) " :
					   "  it preempts job(s) ",
			d->victims[v], v + 1 == d->nvictims ? "\n" : "");
	if (d->kind != FW_PLAN_START_NOW) {
		fprintf(out, "why not running: %s", fw_plan_reason_str(d->reason));
		if (d->blocker >= 0 && (size_t)d->blocker < k->cap &&
		    k->by_seq[d->blocker])
			fprintf(out, " (job %u)", k->by_seq[d->blocker]->tj->id);
		if (d->blocker_lic >= 0 && (size_t)d->blocker_lic < k->c->nlic)
			fprintf(out, " (license %s)", k->c->lic[d->blocker_lic].name);
		fprintf(out, "\n");
		explain_holders(k, d, j, running, nr, out);
	}
	fw_buf_free(&b);
}

int sim_core_explain(struct sim_core *k, fw_time_t now, struct sim_rjob *j,
		     struct sim_rjob **pending, size_t np,
		     struct sim_rjob **running, size_t nr, FILE *out,
		     struct fw_err *err)
{
	struct core_job *cj = cj_of(j);
	struct fw_prio_result res;
	struct fw_prio_ctx ctx;
	struct fw_prio_job pj;
	char ts[32];

	fprintf(out, "pending since %s, priority %u (computed %s)\n",
		sim_fmt_time(j->submit, ts, sizeof(ts)), j->priority,
		sim_fmt_time(cj->prio_at, ts + 0, sizeof(ts)));
	refresh_pj(k, j, now);
	pj = cj->pj;
	pj.prev_priority = 0;
	prio_ctx(k, now, &ctx);
	fw_prio_compute(k->prio, &ctx, &pj, &res);
	size_t len = fw_prio_explain(k->prio, &pj, &res, NULL, 0);
	char *text = fw_xmalloc(len + 1);
	fw_prio_explain(k->prio, &pj, &res, text, len + 1);
	fprintf(out, "priority breakdown now:\n%s%s", text,
		len && text[len - 1] == '\n' ? "" : "\n");
	free(text);
	if (j->eligible > now) {
		fprintf(out, "why not running: not eligible before %s\n",
			sim_fmt_time(j->eligible, ts, sizeof(ts)));
		return 0;
	}
	if (cj->part_down) {
		fprintf(out, "why not running: partition %s is not UP\n",
			k->c->part[j->part].name);
		return 0;
	}

	/* A pass that starts nothing: the planner's record. */
	enum fw_plan_pass fp = main_only(k) ? FW_PASS_MAIN : FW_PASS_BACKFILL;
	size_t n = plan_queue(k, now, pending, np, false);
	struct fw_plan *p = plan_with_running(k, now, running, nr, err);
	int rc = p ? 0 : -1;
	struct fw_plan_heads *h = p ? fw_plan_heads_new(k->cl, k->plan, now,
						       k->planj, n) : NULL;
	for (size_t qi = 0; !rc;) {
		struct fw_plan_decision d;
		size_t xi = fw_plan_heads_next(h);
		bool head = xi != FW_PLAN_NO_HEAD;

		if (!head) {
			if (qi >= n)
				break;
			xi = k->order[qi++];
			if (fw_plan_heads_taken(h, xi))
				continue;
		}
		struct sim_rjob *x = k->plan_rj[xi];

		k->planj[xi].head = head;
		rc = fw_plan_decide(p, &k->planj[xi], fp, &d, err);
		if (rc)
			break;
		fw_plan_heads_outcome(h, d.kind);
		if (d.seq < k->cap)
			k->by_seq[d.seq] = x;
		if (x == j) {
			explain_plan(k, &d, j, running, nr, out);
			if (d.kind == FW_PLAN_START_NOW)
				fw_plan_start_failed(p, &d, err);
			break;
		}
		if (d.kind == FW_PLAN_START_NOW)
			rc = fw_plan_started(p, NULL, err);
		k->planj[xi].head = false;
	}
	fw_plan_heads_free(h);
	if (p)
		fw_plan_free(p);
	return rc;
}

/* --------------------------------------------------------------- shares */

void sim_core_shares(struct sim_core *k, struct sim_rjob *jobs, size_t n,
		     struct sim_result *res)
{
	size_t nn = fw_fs_node_count(k->tree);
	struct fw_fs_values *v = fw_xcalloc(nn, sizeof(*v));
	double *sum = fw_xcalloc(nn, sizeof(double));   /* children's shares */
	double *target = fw_xcalloc(nn, sizeof(double));
	double *usage = fw_xcalloc(nn, sizeof(double));
	double total = 0;

	for (size_t i = 0; i < nn; i++)
		fw_fs_node_values(k->tree, (int)i, &v[i]);
	for (size_t i = 1; i < nn; i++)
		if (v[i].parent >= 0 && v[i].shares_raw != FW_FS_USE_PARENT)
			sum[v[i].parent] += v[i].shares_raw;
	/* Parents come before children (handles only grow). */
	target[0] = 1;
	for (size_t i = 1; i < nn; i++) {
		int p = v[i].parent;
		if (p < 0)
			continue;
		target[i] = v[i].shares_raw == FW_FS_USE_PARENT || sum[p] <= 0
				    ? target[p]
				    : target[p] * v[i].shares_raw / sum[p];
	}
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].usage <= 0)
			continue;
		/* Charged jobs were resolved at submit: this finds, never adds. */
		int node = fw_fs_resolve(k->tree, jobs[i].account ? jobs[i].account : "",
					 jobs[i].tj->user ? jobs[i].tj->user : "");
		if (node < 0 || (size_t)node >= nn)
			continue;
		total += jobs[i].usage;
		for (int x = node; x >= 0; x = v[x].parent)
			usage[x] += jobs[i].usage;
	}
	res->share = fw_xcalloc(nn ? nn : 1, sizeof(*res->share));
	res->nshares = 0;
	for (size_t i = 1; i < nn; i++) {
		if (v[i].is_user)
			continue;
		struct sim_share *s = &res->share[res->nshares++];
		s->account = sim_intern(&k->str, v[i].name);
		s->target = target[i];
		s->usage = usage[i];
		s->fraction = total > 0 ? usage[i] / total : 0;
	}
	free(v);
	free(sum);
	free(target);
	free(usage);
}
