/*
 * fw_compat.h - the one place where Fairway's plugins meet Slurm's version
 * differences.
 *
 * The plugins are written against the names of the newest Slurm release
 * Fairway supports (list_t/list_itr_t, job_details_t, priority_factors_t
 * behind job->prio_factors, cluster_license_list, job_state_reason_string,
 * job_state_reason_check, select_nodes() with a job_node_select_t, the
 * interfaces/ headers).  This header maps those names onto older releases
 * and offers a few small accessors where a field moved rather than being
 * renamed.  No other plugin file tests SLURM_VERSION_NUMBER.
 *
 * Include it after config.h and instead of Slurm's slurmctld headers; it
 * pulls in every Slurm header the plugins use.  What changed in which
 * release, and how each change is handled, is listed in doc/slurm-versions.md.
 */
#ifndef FW_COMPAT_H
#define FW_COMPAT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm_version.h"

#define FW_SLURM_VER(a, b, c) (((a) << 16) | ((b) << 8) | (c))
#define FW_SLURM_AT_LEAST(a, b, c) (SLURM_VERSION_NUMBER >= FW_SLURM_VER(a, b, c))

_Static_assert(SLURM_VERSION_NUMBER >= FW_SLURM_VER(22, 5, 0) &&
	       SLURM_VERSION_NUMBER < FW_SLURM_VER(26, 6, 0),
	       "Fairway supports Slurm 22.05 through 26.05: see doc/slurm-versions.md");

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "slurm/slurmdb.h"

#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/acct_policy.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/licenses.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"

/* 23.02 moved the plugin interfaces from src/common to src/interfaces. */
#if FW_SLURM_AT_LEAST(23, 2, 0)
#include "src/interfaces/burst_buffer.h"
#include "src/interfaces/cred.h"
#include "src/interfaces/gres.h"
#include "src/interfaces/preempt.h"
#include "src/interfaces/priority.h"
#else
#include "src/common/gres.h"
#include "src/common/slurm_cred.h"
#include "src/common/slurm_priority.h"
#include "src/slurmctld/preempt.h"
#include "src/slurmctld/burst_buffer.h"
#endif

/* 24.05: srun_allocate() moved to proc_req.h (srun_comm.h went to
 * src/stepmgr). */
#if FW_SLURM_AT_LEAST(24, 5, 0)
#include "src/common/job_state_reason.h"
#include "src/slurmctld/proc_req.h"
#else
#include "src/slurmctld/srun_comm.h"
#endif

/* ------------------------------------------------------------ renames */

/* list_t/list_itr_t arrived in 23.02; List and ListIterator are gone by
 * 25.05. */
#if !FW_SLURM_AT_LEAST(23, 2, 0)
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

/* 23.02: struct job_details became job_details_t. */
#if !FW_SLURM_AT_LEAST(23, 2, 0)
typedef struct job_details job_details_t;
#endif

/*
 * 23.02 split the factors out of priority_factors_object_t into
 * priority_factors_t; job->prio_factors became a priority_factors_t and the
 * sprio list object points to one.  Before, job->prio_factors was the whole
 * object, whose factor fields have the same names: priority_factors_t is that
 * object there, and fw_factors_of() hides where the factors live.
 */
#if !FW_SLURM_AT_LEAST(23, 2, 0)
typedef priority_factors_object_t priority_factors_t;
#define slurm_copy_priority_factors slurm_copy_priority_factors_object
#endif

/* 23.02: the cluster's license list was renamed; 25.05 stopped declaring
 * it in licenses.h (slurmctld still exports it, cluster_license_copy()
 * drops the names). */
#if !FW_SLURM_AT_LEAST(23, 2, 0)
#define cluster_license_list license_list
#elif FW_SLURM_AT_LEAST(25, 5, 0)
extern list_t *cluster_license_list;
#endif

/* 24.05: job_reason_string became job_state_reason_string, and
 * acct_policy_job_runnable_state(job) became
 * job_state_reason_check(reason, JSR_QOS_ASSOC) (with the opposite sense). */
#if !FW_SLURM_AT_LEAST(24, 5, 0)
#define job_state_reason_string job_reason_string
#define JSR_QOS_ASSOC 0x2
static inline bool job_state_reason_check(enum job_state_reason r, uint32_t flags)
{
	/* Only the QOS/association check is used; the old function looks
	 * at nothing but the reason. */
	job_record_t probe;

	(void)flags;
	memset(&probe, 0, sizeof(probe));
	probe.state_reason = r;
	return !acct_policy_job_runnable_state(&probe);
}
#endif

/* 23.11: assoc_mgr_is_user_acct_coord() gained "is_locked". */
#if !FW_SLURM_AT_LEAST(23, 11, 0)
#define assoc_mgr_is_user_acct_coord(db, uid, acct, locked) \
	assoc_mgr_is_user_acct_coord(db, uid, acct)
#endif

/*
 * 24.11: select_nodes() takes a job_node_select_t.  Older releases take the
 * job and an error-message pointer directly (and a node bitmap nobody here
 * wants).  A function-like macro may use its own name: the inner
 * select_nodes is not expanded again and calls Slurm's function.
 */
#if !FW_SLURM_AT_LEAST(24, 11, 0)
typedef struct {
	char **err_msg;
	job_record_t *job_ptr;
} job_node_select_t;
#define select_nodes(sel, test_only, submission, sched_type) \
	select_nodes((sel)->job_ptr, test_only, NULL, (sel)->err_msg, \
		     submission, sched_type)
#endif

/* 26.05: starting jobs needs the select_node lock as well. */
#if FW_SLURM_AT_LEAST(26, 5, 0)
#define FW_LOCK_SELECT_NODE(level) .select_node = (level),
#else
#define FW_LOCK_SELECT_NODE(level)
#endif

/* ---------------------------------------------------- priority plugin */

/*
 * priority_p_get_priority_factors_list(): until 24.05 it received sprio's
 * request (job, user and partition filters applied in slurmctld); from
 * 24.05 only the uid, and sprio filters itself.  Slurm has no prototype for
 * it, so a wrong signature would compile and read garbage: the plugin
 * declares it with FW_PRIO_FACTORS_PARAMS and gets the request (or NULL)
 * from FW_PRIO_FACTORS_REQ.
 */
#if FW_SLURM_AT_LEAST(24, 5, 0)
typedef struct fw_no_prio_request fw_prio_request_t;
#define FW_PRIO_FACTORS_PARAMS uid_t uid
#define FW_PRIO_FACTORS_REQ ((const fw_prio_request_t *)NULL)
#else
typedef priority_factors_request_msg_t fw_prio_request_t;
#define FW_PRIO_FACTORS_PARAMS priority_factors_request_msg_t *fw_prio_req, uid_t uid
#define FW_PRIO_FACTORS_REQ ((const fw_prio_request_t *)fw_prio_req)
#endif

/* The filters of a request: NULL lists mean "all". */
static inline list_t *fw_prio_req_jobs(const fw_prio_request_t *r)
{
#if FW_SLURM_AT_LEAST(24, 5, 0)
	(void)r;
	return NULL;
#else
	return r ? r->job_id_list : NULL;
#endif
}

static inline list_t *fw_prio_req_users(const fw_prio_request_t *r)
{
#if FW_SLURM_AT_LEAST(24, 5, 0)
	(void)r;
	return NULL;
#else
	return r ? r->uid_list : NULL;
#endif
}

static inline const char *fw_prio_req_partitions(const fw_prio_request_t *r)
{
#if FW_SLURM_AT_LEAST(24, 5, 0)
	(void)r;
	return NULL;
#else
	return r ? r->partitions : NULL;
#endif
}

/* The factors of an sprio list object (allocated on first use). */
static inline priority_factors_t *fw_factors_of(priority_factors_object_t *o)
{
#if FW_SLURM_AT_LEAST(23, 2, 0)
	if (!o->prio_factors)
		o->prio_factors = xmalloc(sizeof(*o->prio_factors));
	return o->prio_factors;
#else
	return o;
#endif
}

/* 26.05: the object's job_id became a step_id. */
static inline void fw_factors_set_job(priority_factors_object_t *o,
				      uint32_t job_id)
{
#if FW_SLURM_AT_LEAST(26, 5, 0)
	o->step_id.job_id = job_id;
	o->step_id.step_id = NO_VAL;
	o->step_id.step_het_comp = NO_VAL;
#else
	o->job_id = job_id;
#endif
}

/*
 * The names an sprio list object shows.  slurm_destroy_priority_factors_object()
 * frees partition, account and QOS from 23.02 on, so they are copies there;
 * 22.05's frees none of them (its objects have no account or QOS), so the
 * partition is borrowed.
 */
static inline void fw_factors_set_names(priority_factors_object_t *o,
					const char *partition,
					const char *account, const char *qos)
{
#if FW_SLURM_AT_LEAST(23, 2, 0)
	xfree(o->partition);
	o->partition = xstrdup(partition);
	xfree(o->account);
	o->account = xstrdup(account);
	xfree(o->qos);
	o->qos = xstrdup(qos);
#else
	(void)account;
	(void)qos;
	xfree(o->partition); /* slurm_copy_priority_factors() dup'ed it */
	o->partition = (char *)partition;
#endif
}

/*
 * The launch credential's lifetime, which slurmctld waits out after a
 * requeue before the job may start again (batch_requeue_fini: begin time
 * = then + lifetime + 1).  23.11 replaced the credential context's
 * option with cred_expiration().
 */
static inline int fw_cred_lifetime(void)
{
#if FW_SLURM_AT_LEAST(23, 11, 0)
	return cred_expiration();
#else
	int life = 120;	/* DEFAULT_EXPIRATION_WINDOW */

	(void)slurm_cred_ctx_get(slurmctld_config.cred_ctx,
				 SLURM_CRED_OPT_EXPIRY_WINDOW, &life);
	return life;
#endif
}

/* From 23.02 slurmctld calls priority_p_get_priority_factors_list() with
 * the job, node and partition read locks and assoc_mgr's QOS read lock
 * held; 22.05 holds none. */
#define FW_PRIO_FACTORS_CALLER_LOCKED FW_SLURM_AT_LEAST(23, 2, 0)

/*
 * Per-partition priorities.  Up to 23.11 job->priority_array; 24.05 put it
 * in job->part_prio (with the partition names); 24.11 sized it partitions x
 * QOS for multi-QOS jobs (entry p * nqos + q); 24.11.7 and 25.05.1 renamed
 * part_prio to prio_mult.
 */
#if FW_SLURM_AT_LEAST(25, 5, 1) || \
	(FW_SLURM_AT_LEAST(24, 11, 7) && !FW_SLURM_AT_LEAST(25, 5, 0))
#define FW_PRIO_MULT(job) ((job)->prio_mult)
#elif FW_SLURM_AT_LEAST(24, 5, 0)
#define FW_PRIO_MULT(job) ((job)->part_prio)
#endif

/* The QOS list of a multi-QOS job (24.11+; sorted by priority, highest
 * first), NULL for a job with one QOS and before 24.11. */
static inline list_t *fw_job_qos_list(const job_record_t *job)
{
#if FW_SLURM_AT_LEAST(24, 11, 0)
	return job->qos_list;
#else
	(void)job;
	return NULL;
#endif
}

/* Number of QOS a job's priority array is multiplied by (1 before 24.11). */
static inline int fw_job_qos_count(const job_record_t *job)
{
	list_t *l = fw_job_qos_list(job);

	return l ? list_count(l) : 1;
}

/* Drop the job's per-partition priorities. */
static inline void fw_job_prio_array_free(job_record_t *job)
{
#ifdef FW_PRIO_MULT
	if (FW_PRIO_MULT(job)) {
		xfree(FW_PRIO_MULT(job)->priority_array);
#if FW_SLURM_AT_LEAST(24, 11, 0)
		xfree(FW_PRIO_MULT(job)->priority_array_names);
#else
		xfree(FW_PRIO_MULT(job)->priority_array_parts);
#endif
		xfree(FW_PRIO_MULT(job));
	}
#else
	xfree(job->priority_array);
#endif
}

/*
 * The job's per-partition priority array, allocated (zeroed) with n + 1
 * entries when it has none or a smaller one; n is partitions x
 * fw_job_qos_count().  From 24.05 the partition names that go with it are
 * set too.  The size is checked (xsize()) because slurmctld does not always
 * drop the array when n grows: from 24.11 it keeps it when a pending job's
 * QOS list changes (_update_job frees it for a partition change only), and
 * its copy for a split job array holds partitions, not partitions x QOS.
 */
static inline size_t fw_prio_array_bytes(int n)
{
	return (size_t)(n + 1) * sizeof(uint32_t);
}

static inline uint32_t *fw_job_prio_array(job_record_t *job, int n)
{
#ifdef FW_PRIO_MULT
	if (!FW_PRIO_MULT(job))
		FW_PRIO_MULT(job) = xmalloc(sizeof(*FW_PRIO_MULT(job)));
	if (FW_PRIO_MULT(job)->priority_array &&
	    xsize(FW_PRIO_MULT(job)->priority_array) < fw_prio_array_bytes(n))
		xfree(FW_PRIO_MULT(job)->priority_array);
	if (!FW_PRIO_MULT(job)->priority_array) {
		FW_PRIO_MULT(job)->priority_array = xcalloc(n + 1, sizeof(uint32_t));
		FW_PRIO_MULT(job)->last_update = time(NULL);
	}
#if FW_SLURM_AT_LEAST(24, 11, 0)
	if (!FW_PRIO_MULT(job)->priority_array_names && job->part_ptr_list)
		FW_PRIO_MULT(job)->priority_array_names =
			part_list_to_xstr(job->part_ptr_list);
#else
	if (!FW_PRIO_MULT(job)->priority_array_parts && job->part_ptr_list)
		FW_PRIO_MULT(job)->priority_array_parts =
			part_list_to_xstr(job->part_ptr_list);
#endif
	return FW_PRIO_MULT(job)->priority_array;
#else
	if (job->priority_array &&
	    xsize(job->priority_array) < fw_prio_array_bytes(n))
		xfree(job->priority_array);
	if (!job->priority_array)
		job->priority_array = xcalloc(n + 1, sizeof(uint32_t));
	return job->priority_array;
#endif
}

/* ----------------------------------------------------- sched plugin */

/* 24.11: a queue record of a multi-QOS job names the QOS it is for, and the
 * job must carry that QOS while it is tested and started. */
static inline void fw_queue_rec_apply_qos(job_record_t *job,
					  const job_queue_rec_t *rec)
{
#if FW_SLURM_AT_LEAST(24, 11, 0)
	job->qos_ptr = rec->qos_ptr;
#else
	(void)job;
	(void)rec;
#endif
}

/*
 * Islands come from topology.conf on every release (sched/fairway reads it
 * with the core's fw_topo, from where Slurm reads it: get_extra_conf_path(),
 * beside slurm.conf).  Slurm's own switch table is not used: it is private
 * to topology/tree from 24.05.  From 25.05 Slurm reads topology.yaml
 * instead of topology.conf when that file exists; Fairway does not read
 * topology.yaml and then has no islands (sched_fairway(8)).
 */
#define FW_SLURM_READS_TOPOLOGY_YAML FW_SLURM_AT_LEAST(25, 5, 0)


/* ------------------------------------------------------- shared nodes */

/* 25.11 renamed SelectTypeParameters' CR_* flags SELECT_* (same bits). */
#if FW_SLURM_AT_LEAST(25, 11, 0)
#define FW_CR_CPU SELECT_CPU
#define FW_CR_SOCKET SELECT_SOCKET
#define FW_CR_CORE SELECT_CORE
#define FW_CR_MEMORY SELECT_MEMORY
#else
#define FW_CR_CPU CR_CPU
#define FW_CR_SOCKET CR_SOCKET
#define FW_CR_CORE CR_CORE
#define FW_CR_MEMORY CR_MEMORY
#endif

/* SelectTypeParameters=MULTIPLE_SHARING_GRES_PJ (23.11 on, SELECT_* from
 * 25.11): a job may take its shards (mps) on a node from several GPUs;
 * without it, from one.  0 before 23.11, where it is always one. */
#if FW_SLURM_AT_LEAST(25, 11, 0)
#define FW_MULTIPLE_SHARING SELECT_MULTIPLE_SHARING_GRES_PJ
#elif FW_SLURM_AT_LEAST(23, 11, 0)
#define FW_MULTIPLE_SHARING MULTIPLE_SHARING_GRES_PJ
#else
#define FW_MULTIPLE_SHARING 0
#endif

/* Does select/cons_tres refuse a GPU whole while a shard (mps) of it is in
 * use?  Measured (testsuite/live/test_sched_shard.sh, part 4): 24.11.5
 * does; 22.05.8 gives the GPU whole beside the shard.  23.11 reworked the
 * link between the two GRES (gres_node_state_t.alt_gres_ns became
 * alt_gres): 23.11 on are taken as 24.11, 23.02 as 22.05 (not run live). */
#define FW_WHOLE_GPU_EXCLUDES_SHARED FW_SLURM_AT_LEAST(23, 11, 0)

/*
 * Does the job want its nodes to itself (--exclusive, --exclusive=user or
 * =mcs, a topology block)?  Up to 23.11 details->whole_node is a value
 * (1 --exclusive, 2 =user, 3 =mcs); from 24.05 it is a set of bits
 * (WHOLE_NODE_REQUIRED 0x1, _USER 0x2, _MCS 0x4, WHOLE_TOPO 0x8).  Either
 * way zero means "shares nodes"; the planner gives every other kind whole
 * nodes (for =user and =mcs an over-estimate: Slurm lets jobs of the same
 * user or MCS label share them).
 */
static inline bool fw_job_whole_node(const job_record_t *job)
{
	return job->details && job->details->whole_node != 0;
}

#endif /* FW_COMPAT_H */
