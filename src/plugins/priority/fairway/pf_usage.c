/*
 * pf_usage.c - priority/fairway: fair-share usage and Slurm's usage-based
 * limit bookkeeping.
 *
 * Fair-share usage lives in the core's tree (fw_fairshare): with slurmdbd the
 * tree mirrors assoc_mgr's association tree (nodes keyed by assoc id) and the
 * values sshare shows are written back into each association; without
 * slurmdbd the tree is Fairway's own ledger keyed by account and user names.
 *
 * Each running job's usage is charged exactly once per second of its run:
 * a table remembers up to when each job was charged, the periodic tick
 * charges [charged_until, now) and the job's end charges the last slice.
 *
 * Besides fair-share, a priority plugin owns the usage numbers Slurm's
 * limits test (GrpTRESMins, GrpWall, GrpTRESRunMins): usage_tres_raw and
 * grp_used_wall (decayed with PriorityDecayHalfLife, as priority/multifactor
 * does) and the draining of grp_used_tres_run_secs.  That bookkeeping keeps
 * Slurm's semantics exactly, including their approximate decay.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurmdb.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_slurm.h"
#include "pf.h"

/* ---------------------------------------------------- charge table */

static uint32_t hash_id(uint32_t id)
{
	return id * 2654435761u;
}

static struct pf_charge *charge_find(uint32_t job_id, bool create);

static void charge_grow(void)
{
	struct pf_charge *old = pf.charge;
	uint32_t oldcap = pf.charge_cap;

	pf.charge_cap = oldcap ? oldcap * 2 : 1024;
	pf.charge = xcalloc(pf.charge_cap, sizeof(*pf.charge));
	pf.charge_cnt = 0;
	for (uint32_t i = 0; i < oldcap; i++)
		if (old[i].job_id)
			*charge_find(old[i].job_id, true) = old[i];
	xfree(old);
}

static struct pf_charge *charge_find(uint32_t job_id, bool create)
{
	uint32_t mask, i;

	if (!job_id)
		return NULL;
	if (create && (pf.charge_cnt + 1) * 2 > pf.charge_cap)
		charge_grow();
	if (!pf.charge_cap)
		return NULL;
	mask = pf.charge_cap - 1;
	for (i = hash_id(job_id) & mask;; i = (i + 1) & mask) {
		if (pf.charge[i].job_id == job_id)
			return &pf.charge[i];
		if (!pf.charge[i].job_id) {
			if (!create)
				return NULL;
			memset(&pf.charge[i], 0, sizeof(pf.charge[i]));
			pf.charge[i].job_id = job_id;
			pf.charge_cnt++;
			return &pf.charge[i];
		}
	}
}

/* Drop entries of jobs that left job_list (rebuild without them). */
static void charge_prune(void)
{
	struct pf_charge *old = pf.charge;
	uint32_t oldcap = pf.charge_cap;

	pf.charge = oldcap ? xcalloc(oldcap, sizeof(*pf.charge)) : NULL;
	pf.charge_cnt = 0;
	for (uint32_t i = 0; i < oldcap; i++)
		if (old[i].job_id && old[i].seen) {
			struct pf_charge *c = charge_find(old[i].job_id, true);

			*c = old[i];
			c->seen = false;
		}
	xfree(old);
}

/* ------------------------------------------------------ the tree */

static bool use_dbd_tree(void)
{
	return assoc_mgr_root_assoc && assoc_mgr_assoc_list;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = mix(h, (unsigned char)*s);
	return mix(h, 0xff);
}

/* Signature of everything the mirrored tree depends on. */
static uint64_t assoc_signature(void)
{
	list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);
	slurmdb_assoc_rec_t *a;
	uint64_t h = 1469598103934665603ull;

	while ((a = list_next(it))) {
		h = mix(h, a->id);
		h = mix(h, a->parent_id);
		h = mix(h, a->shares_raw);
		h = mix_str(h, a->acct);
		h = mix_str(h, a->user);
		h = mix_str(h, a->partition);
	}
	list_iterator_destroy(it);
	return h;
}

static void map_assoc(uint32_t id, int node)
{
	if (id >= pf.assoc_node_len) {
		uint32_t n = id + 1024;

		pf.assoc_node = xrecalloc(pf.assoc_node, n, sizeof(int));
		for (uint32_t i = pf.assoc_node_len; i < n; i++)
			pf.assoc_node[i] = -1;
		pf.assoc_node_len = n;
	}
	pf.assoc_node[id] = node;
}

/*
 * Add one association to the tree; returns 1 if added (or mapped to an
 * existing node), 0 if its parent is not there yet, -1 on error.
 */
static int add_assoc(struct fw_fs_tree *t, slurmdb_assoc_rec_t *a,
		     struct fw_err *err)
{
	int node;

	if (a == assoc_mgr_root_assoc) {
		fw_fs_set_ext_id(t, 0, a->id);
		map_assoc(a->id, 0);
		return 1;
	}
	if (!a->user) {
		const char *parent = a->parent_acct ? a->parent_acct : "root";

		if (fw_fs_find_account(t, parent) < 0)
			return 0;
		node = fw_fs_find_account(t, a->acct);
		if (node < 0)
			node = fw_fs_add_account(t, a->acct, parent, a->shares_raw,
						 a->id, err);
	} else {
		if (fw_fs_find_account(t, a->acct) < 0)
			return 0;
		/* A user's partition-specific associations share one node. */
		node = fw_fs_find_user(t, a->acct, a->user);
		if (node < 0)
			node = fw_fs_add_user(t, a->acct, a->user, a->shares_raw,
					      a->id, err);
	}
	if (node < 0)
		return -1;
	map_assoc(a->id, node);
	return 1;
}

/* Build the tree from assoc_mgr (parents may appear after children). */
static struct fw_fs_tree *build_dbd_tree(struct fw_err *err)
{
	struct fw_fs_tree *t = fw_fs_tree_new(pf.conf->fs);
	int n = list_count(assoc_mgr_assoc_list);
	bool *done = xcalloc(n ? n : 1, sizeof(bool));
	int added, left;

	for (uint32_t i = 0; i < pf.assoc_node_len; i++)
		pf.assoc_node[i] = -1;
	do {
		list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);
		slurmdb_assoc_rec_t *a;
		int i = 0, rc;

		added = 0;
		left = 0;
		while ((a = list_next(it))) {
			if (done[i]) {
				i++;
				continue;
			}
			rc = add_assoc(t, a, err);
			if (rc < 0) {
				list_iterator_destroy(it);
				xfree(done);
				fw_fs_tree_free(t);
				return NULL;
			}
			done[i] = rc == 1;
			added += rc == 1;
			left += rc == 0;
			i++;
		}
		list_iterator_destroy(it);
	} while (left && added);
	if (left)
		error("%s: %d associations have no parent in the association tree; they are not part of fair-share",
		      PLUGIN, left);
	xfree(done);
	return t;
}

static struct fw_fs_tree *build_ledger_tree(struct fw_err *err)
{
	struct fw_fs_tree *t = fw_fs_tree_new(pf.conf->fs);

	if (fw_fs_tree_add_conf_defs(t, pf.conf->fs, err)) {
		fw_fs_tree_free(t);
		return NULL;
	}
	return t;
}

/* Replace the tree, carrying usage over by account path and user. */
static void install_tree(struct fw_fs_tree *t)
{
	if (pf.tree) {
		size_t lost = fw_fs_tree_carry_usage(t, pf.tree);

		if (lost)
			info("%s: %zu fair-share nodes with usage no longer exist",
			     PLUGIN, lost);
		fw_fs_tree_free(pf.tree);
	}
	pf.tree = t;
	fw_fs_set_capacity(t, cluster_cpus ? (double)cluster_cpus : 1.0);
	fw_fs_compute(t);
}

int pf_usage_sync_tree(struct fw_err *err)
{
	struct fw_fs_tree *t;
	bool dbd = use_dbd_tree();

	if (dbd) {
		uint64_t sig = assoc_signature();

		if (pf.tree && pf.with_dbd && sig == pf.assoc_sig)
			return 0;
		t = build_dbd_tree(err);
		if (!t)
			return -1;
		pf.assoc_sig = sig;
	} else {
		if (pf.tree && !pf.with_dbd)
			return 0;
		t = build_ledger_tree(err);
		if (!t)
			return -1;
	}
	pf.with_dbd = dbd;
	install_tree(t);
	return 0;
}

/*
 * A job of an association created since the last recalculation (sacctmgr
 * add user/account) has no node in the mirrored tree yet: rebuild the tree
 * now rather than give the job a fair-share factor of 0 for up to a
 * PriorityCalcPeriod.  Reads assoc_mgr only (caller holds assoc R);
 * returns at once when the association tree has not changed.
 */
void pf_usage_sync_for_job(job_record_t *job)
{
	struct fw_err err;

	if (!job->assoc_ptr || !use_dbd_tree() || pf_job_fs_node(job) >= 0)
		return;
	if (pf_usage_sync_tree(&err))
		fw_log_err(PLUGIN, &err);
}

/*
 * slurmctld fills job->user_name only when the job starts (prolog launch),
 * so a pending job has none.  Slurm's uid cache answers after the first
 * lookup of a uid; slurmctld itself resolves names under the job lock.
 */
const char *pf_job_user(const job_record_t *job)
{
	if (job->user_name && job->user_name[0])
		return job->user_name;
	return uid_to_string_cached(job->user_id);
}

int pf_job_fs_node(job_record_t *job)
{
	if (!pf.tree)
		return -1;
	if (pf.with_dbd) {
		if (job->assoc_id < pf.assoc_node_len)
			return pf.assoc_node[job->assoc_id];
		return -1;
	}
	return fw_fs_resolve(pf.tree, job->account ? job->account : "",
			     pf_job_user(job));
}

/* ---------------------------------------------- Slurm's limit usage */

/* Slurm's per-second decay factor (priority/multifactor's definition). */
static double slurm_decay_factor(void)
{
	uint32_t hl = slurm_conf.priority_decay_hl;

	return hl ? 1.0 - (0.693 / (double)hl) : 1.0;
}

static bool enforce_limits(void)
{
	return accounting_enforce & ACCOUNTING_ENFORCE_LIMITS;
}

static void drain_run_secs(uint64_t *run_secs, const uint64_t *delta,
			   uint32_t job_id, const char *what)
{
	for (int i = 0; i < slurmctld_tres_cnt; i++) {
		if (i == TRES_ARRAY_ENERGY)
			continue;
		if (delta[i] > run_secs[i]) {
			debug2("%s: job %u: %s TRES %d grp_used_tres_run_secs underflow",
			       PLUGIN, job_id, what, i);
			run_secs[i] = 0;
		} else {
			run_secs[i] -= delta[i];
		}
	}
}

static void add_tres_usage(long double *usage, const long double *add)
{
	for (int i = 0; i < slurmctld_tres_cnt; i++)
		if (i != TRES_ARRAY_ENERGY)
			usage[i] += add[i];
}

struct slice {
	double run;             /* seconds in the slice */
	double run_decay;       /* Slurm's decayed seconds */
	double billable;        /* billable TRES of the job */
	uint64_t *tres_delta;   /* run seconds to drain per TRES */
	long double *tres_decay;/* decayed TRES-seconds */
	long double *tres_nodecay;
};

static void account_qos(slurmdb_qos_rec_t *qos, const struct slice *s,
			uint32_t job_id)
{
	bool nodecay = qos->flags & QOS_FLAG_NO_DECAY;

	if (!qos->usage)
		return;
	qos->usage->grp_used_wall += nodecay ? s->run : s->run_decay;
	qos->usage->usage_raw += (long double)s->billable *
		(nodecay ? s->run : s->run_decay);
	if (!enforce_limits())
		return;
	add_tres_usage(qos->usage->usage_tres_raw,
		       nodecay ? s->tres_nodecay : s->tres_decay);
	drain_run_secs(qos->usage->grp_used_tres_run_secs, s->tres_delta,
		       job_id, "QOS");
}

static void account_assocs(slurmdb_assoc_rec_t *a, const struct slice *s,
			   uint32_t job_id)
{
	for (; a && a->usage; a = a->usage->parent_assoc_ptr) {
		a->usage->grp_used_wall += s->run_decay;
		if (!enforce_limits())
			continue;
		add_tres_usage(a->usage->usage_tres_raw, s->tres_decay);
		drain_run_secs(a->usage->grp_used_tres_run_secs, s->tres_delta,
			       job_id, "assoc");
	}
}

/*
 * Run seconds to drain for [t0, t1): what acct_policy_job_begin() added is
 * tres x time limit; it is drained as the job runs and whatever is left at
 * the job's end.
 */
static uint64_t run_secs_delta(job_record_t *job, fw_time_t t0, fw_time_t t1,
			       bool at_end)
{
	uint64_t limit_end = (uint64_t)job->start_time +
		(uint64_t)job->time_limit * 60;

	if ((uint64_t)t0 >= limit_end)
		return 0;
	if (at_end)
		return limit_end - (uint64_t)t0;
	if (job->end_time_exp && (uint64_t)t1 > (uint64_t)job->end_time_exp) {
		int64_t d = (int64_t)job->end_time_exp - t0;
		return d > 0 ? (uint64_t)d : 0;
	}
	return (uint64_t)(t1 - t0);
}

/* Charge [t0, t1) of job: fair-share and Slurm's limit usage. */
static void charge_slice(job_record_t *job, fw_time_t t0, fw_time_t t1,
			 bool at_end)
{
	int n = slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1;
	uint64_t tres_delta[n];
	long double tres_decay[n], tres_nodecay[n];
	double ufactor = 1.0, d = slurm_decay_factor();
	uint64_t rs_delta;
	struct slice s = { .tres_delta = tres_delta, .tres_decay = tres_decay,
			   .tres_nodecay = tres_nodecay };
	int node;

	if (t1 < t0)
		t1 = t0;
	s.run = (double)(t1 - t0);
	s.run_decay = s.run * pow(d, s.run);
	s.billable = calc_job_billable_tres(job, t0, true);
	if (job->qos_ptr && job->qos_ptr->usage_factor >= 0)
		ufactor = job->qos_ptr->usage_factor;
	rs_delta = (uint64_t)((double)run_secs_delta(job, t0, t1, at_end) * ufactor);
	memset(tres_delta, 0, sizeof(tres_delta));
	memset(tres_decay, 0, sizeof(tres_decay));
	memset(tres_nodecay, 0, sizeof(tres_nodecay));
	for (int i = 0; job->tres_alloc_cnt && i < slurmctld_tres_cnt; i++) {
		uint64_t c = job->tres_alloc_cnt[i];

		if (!c || c == NO_CONSUME_VAL64)
			continue;
		tres_delta[i] = rs_delta * c;
		tres_decay[i] = (long double)(s.run_decay * ufactor) * c;
		tres_nodecay[i] = (long double)(s.run * ufactor) * c;
	}
	s.run *= ufactor;
	s.run_decay *= ufactor;

	/* Fair-share: the core integrates its own decay exactly. */
	node = pf_job_fs_node(job);
	if (node >= 0 && t1 > t0 &&
	    fw_fs_usage_counts(pf.conf->fs, job->partition,
			       job->qos_ptr ? job->qos_ptr->name : NULL))
		fw_fs_charge(pf.tree, node,
			     fw_fs_apply_usage_factor(s.billable,
						      job->qos_ptr ? job->qos_ptr->usage_factor : -1),
			     t0, t1);

	/* Slurm's limit bookkeeping (job QOS, partition QOS, assoc chain). */
	if (job->qos_ptr)
		account_qos(job->qos_ptr, &s, job->job_id);
	if (job->part_ptr && job->part_ptr->qos_ptr &&
	    job->part_ptr->qos_ptr != job->qos_ptr)
		account_qos(job->part_ptr->qos_ptr, &s, job->job_id);
	account_assocs(job->assoc_ptr, &s, job->job_id);
}

static bool job_ran(const job_record_t *job)
{
	return job->start_time && (IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job) ||
				   IS_JOB_COMPLETING(job) || IS_JOB_FINISHED(job));
}

/* Charge everything of job up to now (or its end); returns nothing. */
static void charge_job(job_record_t *job, fw_time_t now, bool at_end)
{
	struct pf_charge *c;
	fw_time_t from, to;
	bool ended = at_end || IS_JOB_FINISHED(job) || IS_JOB_COMPLETING(job);

	if (!job_ran(job) || job->end_time_exp == (time_t)NO_VAL)
		return;
	c = charge_find(job->job_id, true);
	c->seen = true;
	if (c->done)
		return;
	if (!c->until)
		c->until = pf.last_tick && pf.last_tick > job->start_time ?
			pf.last_tick : job->start_time;
	from = c->until > job->start_time ? c->until : job->start_time;
	to = now;
	if (ended && job->end_time && job->end_time < to)
		to = job->end_time;
	if (to < from)
		to = from;
	if (IS_JOB_SUSPENDED(job) && !ended) {
		c->until = now; /* no usage while suspended */
		return;
	}
	charge_slice(job, from, to, ended);
	c->until = to;
	if (ended) {
		c->done = true;
		/* Slurm's "job end already accounted" sentinel, checked by
		 * acct_policy_job_fini(). */
		job->end_time_exp = (time_t)NO_VAL;
	}
}

/*
 * Multiply Slurm's limit usage by f: the decay since the last tick (NoDecay
 * QOS are left alone) or 0 for a usage reset (every QOS, as
 * priority/multifactor's _reset_usage()).
 */
static void scale_limit_usage(double f, bool nodecay_qos_too)
{
	list_itr_t *it;
	slurmdb_assoc_rec_t *a;
	slurmdb_qos_rec_t *q;

	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it))) {
			if (!a->usage)
				continue;
			a->usage->grp_used_wall *= f;
			for (int i = 0; a->usage->usage_tres_raw &&
			     i < slurmctld_tres_cnt; i++)
				a->usage->usage_tres_raw[i] *= f;
		}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((q = list_next(it))) {
			if (!q->usage || ((q->flags & QOS_FLAG_NO_DECAY) &&
					  !nodecay_qos_too))
				continue;
			q->usage->grp_used_wall *= f;
			q->usage->usage_raw *= f;
			for (int i = 0; q->usage->usage_tres_raw &&
			     i < slurmctld_tres_cnt; i++)
				q->usage->usage_tres_raw[i] *= f;
		}
		list_iterator_destroy(it);
	}
}

static void decay_limit_usage(double real_decay)
{
	if (real_decay < 1.0)
		scale_limit_usage(real_decay, false);
}

/*
 * PriorityUsageResetPeriod also clears the usage Slurm's limits read, each
 * time the tree's usage was reset, whichever call reset it (a job-end charge
 * may advance the tree across a boundary before the tick does).
 */
static void follow_usage_reset(void)
{
	fw_time_t r = fw_fs_last_reset(pf.tree);

	if (r == pf.limit_reset_seen)
		return;
	pf.limit_reset_seen = r;
	scale_limit_usage(0.0, true);
	info("%s: PriorityUsageResetPeriod: usage reset (fair-share and limit usage of every association and QOS)",
	     PLUGIN);
}

/*
 * The state file brought the tree's last reset along; Slurm's limit usage
 * (assoc_mgr's own state) is already past it.
 */
void pf_usage_restored(void)
{
	if (pf.tree)
		pf.limit_reset_seen = fw_fs_last_reset(pf.tree);
}

void pf_usage_tick(fw_time_t now)
{
	list_itr_t *it;
	job_record_t *job;

	if (!pf.tree)
		return;
	if (pf.rearm_reset_now) {
		pf.rearm_reset_now = false;
		fw_fs_rearm_reset_now(pf.tree);
	}
	fw_fs_advance(pf.tree, now);
	if (pf.last_tick && now > pf.last_tick)
		decay_limit_usage(pow(slurm_decay_factor(),
				      (double)(now - pf.last_tick)));
	follow_usage_reset();
	if (job_list) {
		it = list_iterator_create(job_list);
		while ((job = list_next(it)))
			charge_job(job, now, false);
		list_iterator_destroy(it);
	}
	charge_prune();
	pf.last_tick = now;
	if (fw_fs_compute(pf.tree))
		error("%s: fair-share could not be computed (share-minus-usage needs the cluster's capacity)",
		      PLUGIN);
}

void pf_usage_job_end(job_record_t *job, fw_time_t now)
{
	charge_job(job, now, true);
}

/*
 * After a restart, acct_policy_job_begin() added each running job's whole
 * tres x time limit to grp_used_tres_run_secs again: drain what the job had
 * already used up to the last tick before the restart.
 */
void pf_usage_restart_run_secs(void)
{
	list_itr_t *it;
	job_record_t *job;
	int n = slurmctld_tres_cnt > 0 ? slurmctld_tres_cnt : 1;
	uint64_t delta[n];

	if (!enforce_limits() || !job_list || !pf.last_tick)
		return;
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		double uf = 1.0;

		if (!IS_JOB_RUNNING(job) || job->start_time > pf.last_tick ||
		    job->end_time_exp == (time_t)NO_VAL || !job->tres_alloc_cnt)
			continue;
		if (job->qos_ptr && job->qos_ptr->usage_factor >= 0)
			uf = job->qos_ptr->usage_factor;
		for (int i = 0; i < slurmctld_tres_cnt; i++)
			delta[i] = job->tres_alloc_cnt[i] == NO_CONSUME_VAL64 ? 0 :
				(uint64_t)((double)job->tres_alloc_cnt[i] * uf *
					   (double)(pf.last_tick - job->start_time));
		if (job->qos_ptr && job->qos_ptr->usage)
			drain_run_secs(job->qos_ptr->usage->grp_used_tres_run_secs,
				       delta, job->job_id, "QOS");
		if (job->part_ptr && job->part_ptr->qos_ptr &&
		    job->part_ptr->qos_ptr != job->qos_ptr &&
		    job->part_ptr->qos_ptr->usage)
			drain_run_secs(job->part_ptr->qos_ptr->usage->grp_used_tres_run_secs,
				       delta, job->job_id, "QOS");
		for (slurmdb_assoc_rec_t *a = job->assoc_ptr; a && a->usage;
		     a = a->usage->parent_assoc_ptr)
			drain_run_secs(a->usage->grp_used_tres_run_secs, delta,
				       job->job_id, "assoc");
		/* and do not charge fair-share twice for that time */
		charge_find(job->job_id, true)->until = pf.last_tick;
	}
	list_iterator_destroy(it);
}

/*
 * Root's row in sshare as priority/multifactor leaves it: multifactor never
 * computes root's normalised shares or usage (sshare shows the shares
 * assoc_mgr normalised itself, 0 with Fair Tree and 1 otherwise, and an
 * empty NormUsage), and Fair Tree marks root's LevelFS unset (empty).  Only
 * the usage, the effective usage (1) and the factor are Fairway's.
 */
static void mirror_root(slurmdb_assoc_rec_t *a, const struct fw_fs_values *v)
{
	a->usage->usage_raw = (long double)v->usage_raw;
	a->usage->usage_efctv = (long double)v->usage_efctv;
	a->usage->fs_factor = v->fs_factor;
	if (pf.conf->fs->formula == FW_FS_FORMULA_FAIR_TREE)
		a->usage->level_fs = (long double)NO_VAL;
}

/* Write the values sshare shows into every association. */
void pf_usage_mirror_to_assoc_mgr(void)
{
	list_itr_t *it;
	slurmdb_assoc_rec_t *a;
	struct fw_fs_values v;

	if (!pf.with_dbd || !pf.tree || !assoc_mgr_assoc_list)
		return;
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		int node = a->id < pf.assoc_node_len ? pf.assoc_node[a->id] : -1;

		if (node < 0 || !a->usage || fw_fs_node_values(pf.tree, node, &v))
			continue;
		if (a == assoc_mgr_root_assoc) {
			mirror_root(a, &v);
			continue;
		}
		a->usage->shares_norm = v.shares_norm;
		a->usage->usage_raw = (long double)v.usage_raw;
		a->usage->usage_norm = (long double)v.usage_norm;
		a->usage->usage_efctv = (long double)v.usage_efctv;
		a->usage->level_fs = (long double)v.level_fs;
		a->usage->fs_factor = v.fs_factor;
	}
	list_iterator_destroy(it);
}

void pf_usage_free(void)
{
	fw_fs_tree_free(pf.tree);
	pf.tree = NULL;
	xfree(pf.assoc_node);
	pf.assoc_node_len = 0;
	xfree(pf.charge);
	pf.charge_cap = pf.charge_cnt = 0;
}
