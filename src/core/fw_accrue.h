/*
 * fw_accrue.h - the accrual ledger: effective queue time against queue
 * stuffing (AccruePolicy=Eligible, AccrueMaxJobsPerUser/PerAccount).
 *
 * A job's effective queue time grows only while it is eligible (its begin
 * time has passed), not held, not running, and among the first N such jobs
 * of its user and of its account (by submit time, then job id).  Because
 * that depends on the job's history, the ledger keeps per job id the
 * seconds accrued so far, and is saved with the controller's state.
 *
 * fw_accrue_tick() is called once per priority pass with every job the
 * adapter knows (pending and running): it adds the seconds since the last
 * tick to the jobs that qualified at the last tick (left-point sampling:
 * the state seen at a tick holds until the next one), decides who qualifies
 * from now on, and writes each job's queue_sec.  A job seen for the first
 * time is credited from its eligible time if it qualifies now.
 */
#ifndef FW_ACCRUE_H
#define FW_ACCRUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_common.h"
#include "fw_prio.h"

struct fw_accrue;

/* Limits are taken from the configuration (0 = no limit). */
struct fw_accrue *fw_accrue_new(const struct fw_prio_conf *c);
/* After a reconfigure: new limits, accrued time kept. */
void fw_accrue_configure(struct fw_accrue *l, const struct fw_prio_conf *c);
void fw_accrue_free(struct fw_accrue *l);

/* Advance to `now`; sets jobs[i].queue_sec.  Allocates only per call. */
void fw_accrue_tick(struct fw_accrue *l, struct fw_prio_job *jobs, size_t n,
		    fw_time_t now);
/* Drop jobs that were not in the last tick (finished); returns how many. */
size_t fw_accrue_prune(struct fw_accrue *l);

size_t fw_accrue_count(const struct fw_accrue *l);
/* Accrued seconds of a job; false if the ledger does not know it. */
bool fw_accrue_get(const struct fw_accrue *l, uint32_t job_id, int64_t *sec,
		   bool *accruing);

/*
 * Text serialisation (versioned, checksummed).  save returns a malloc'd
 * NUL-terminated buffer.  load replaces the ledger's content only if the
 * whole input is valid; otherwise it returns -1 with err (line, reason) and
 * leaves the ledger unchanged.
 */
char *fw_accrue_save(const struct fw_accrue *l, size_t *len);
int fw_accrue_load(struct fw_accrue *l, const char *buf, size_t len,
		   struct fw_err *err);

#endif /* FW_ACCRUE_H */
