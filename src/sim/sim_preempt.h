/*
 * sim_preempt.h - Slurm's preemption configuration as fairway-sim reads
 * it, turned into the planner's terms (fw_plan.h, "Preemption"):
 *
 *   slurm.conf   PreemptType=preempt/none|preempt/qos|preempt/partition_prio,
 *                PreemptMode (global), PreemptExemptTime (global);
 *                per partition PriorityTier, PreemptMode, GraceTime
 *   sacctmgr     per QOS Priority, Preempt=, PreemptMode, GraceTime,
 *                PreemptExemptTime (the dump's QOS lines)
 *
 * Slurm's rules (src/plugins/preempt/{qos,partition_prio}, preempt.c,
 * acct_policy.c of Slurm 22.05):
 *   preempt/qos: a job may preempt a job whose QOS is in its own QOS's
 *     Preempt= list; the victim's QOS gives the preempt priority (its
 *     Priority), GraceTime and PreemptMode (else the global mode).
 *   preempt/partition_prio: a job may preempt a job of a partition with a
 *     lower PriorityTier; the victim's partition gives the preempt
 *     priority (PriorityTier), GraceTime and PreemptMode (else global).
 *   PreemptExemptTime: the victim's QOS's, else the global one.
 *   A victim whose mode is OFF is never preempted.  PreemptType other than
 *   none needs a global PreemptMode other than OFF, and none needs OFF
 *   (Slurm refuses to start otherwise).
 * No global state.
 */
#ifndef SIM_PREEMPT_H
#define SIM_PREEMPT_H

#include <stdbool.h>
#include <stdint.h>

#include "fw_common.h"
#include "sim_cluster.h"

enum sim_preempt_type {
	SIM_PREEMPT_NONE,
	SIM_PREEMPT_QOS,
	SIM_PREEMPT_PARTITION,
};

struct sim_preempt {
	enum sim_preempt_type type;
	enum sim_preempt_mode mode;	/* global PreemptMode */
	int64_t exempt;			/* global PreemptExemptTime, -1: none */
	/* Per class (QOS index in the dump, or partition index): the
	   classes its jobs may preempt. */
	uint32_t **preempts;
	uint32_t *npreempts;
	size_t ncls;
};

/* A job's preemption terms. */
struct sim_preempt_job {
	int32_t cls;			/* -1: never preempted */
	uint32_t prio;			/* preempt priority of its class */
	enum sim_preempt_mode mode;	/* CANCEL or REQUEUE when cls >= 0 */
	int64_t grace;			/* seconds */
	int64_t exempt;			/* seconds after its start; -1: none */
	const uint32_t *preempts;	/* classes it may preempt */
	uint32_t npreempts;
};

/*
 * Read the slurm.conf keys and resolve QOS Preempt= lists (a must for
 * preempt/qos: a dump with QOS lines, a may otherwise).  Errors name the
 * file, line, key and value.  Returns 0 or -1.
 */
int sim_preempt_init(struct sim_preempt *p, const struct sim_cluster *c,
		     const struct sim_assocs *a, struct fw_err *err);
void sim_preempt_free(struct sim_preempt *p);
static inline bool sim_preempt_on(const struct sim_preempt *p)
{
	return p->type != SIM_PREEMPT_NONE;
}
/* The terms of a job of partition `part` and QOS `qos` (NULL: "normal"). */
void sim_preempt_bind(const struct sim_preempt *p, const struct sim_cluster *c,
		      const struct sim_assocs *a, int32_t part,
		      const char *qos, struct sim_preempt_job *out);
const char *sim_preempt_type_name(enum sim_preempt_type t);

#endif /* SIM_PREEMPT_H */
