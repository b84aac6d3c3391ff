/* Shared helpers of the prio module's unit tests. */
#ifndef TEST_PRIO_H
#define TEST_PRIO_H

#include <check.h>

#include "fw_accrue.h"
#include "fw_prio.h"

/*
 * Build a configuration: `slurm` holds slurm.conf lines ("Key=Value", one
 * or more per line), `fairway` fairway.conf lines; either may be NULL.
 * Like the dispatcher, a fairway.conf pair nobody consumed is an error
 * ("unknown key").  Returns the conf, or NULL with err set.
 */
struct fw_prio_conf *conf_try(const char *slurm, const char *fairway,
			      struct fw_err *err);
/* Same, failing the test (with the error text) if the input is rejected. */
struct fw_prio_conf *conf_ok(const char *slurm, const char *fairway);
/* Assert that the input is rejected with this key and value, and a reason. */
void conf_rejects(const char *slurm, const char *fairway, const char *key,
		  const char *value);

/* A pending job that touches no factor: all indices -1, no times. */
struct fw_prio_job job_plain(uint32_t id);

Suite *prio_compute_suite(void);
Suite *prio_conf_suite(void);
Suite *prio_accrue_suite(void);

#endif
