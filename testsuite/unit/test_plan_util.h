/* Shared helpers of the planner's unit tests: small clusters and jobs. */
#ifndef TEST_PLAN_UTIL_H
#define TEST_PLAN_UTIL_H

#include <check.h>

#include "fw_plan.h"

#define H ((fw_time_t)3600)
#define MIN ((fw_time_t)60)
/* "now" in the tests: a multiple of 60 s and of 300 s. */
#define NOW ((fw_time_t)360000000)

/* Cluster building: tp_begin, tp_nodes..., tp_part..., tp_lic..., tp_end. */
struct fw_cluster *tp_begin(void);
/* Adds `count` nodes named nNN with these properties. */
void tp_nodes(struct fw_cluster *cl, uint32_t count, uint32_t cpus,
	      uint32_t gpus, int32_t island);
int32_t tp_part(struct fw_cluster *cl, const char *name, const char *ranges,
		uint32_t tier);
int32_t tp_lic(struct fw_cluster *cl, const char *name, uint32_t total);
void tp_end(struct fw_cluster *cl);
/* n identical nodes (32 CPUs, no GPU, no island), partition "all". */
struct fw_cluster *tp_simple(uint32_t n);

/* Node set from a range list "0-3,7" (caller frees). */
struct fw_bitset *tp_set(const struct fw_cluster *cl, const char *ranges);
/* A plain job: submit time = id, eligible long ago, no reservation. */
struct fw_plan_job tp_job(uint32_t id, uint32_t prio, int32_t part,
			  uint32_t nodes, int64_t secs);
/* A running job on `ranges` until `end`. */
void tp_running(struct fw_plan *p, const struct fw_cluster *cl,
		const char *ranges, fw_time_t end);
/* Range list of a result's node set ("" for NULL). */
const char *tp_fmt(const struct fw_bitset *b, char *buf, size_t len);

Suite *plan_bitset_suite(void);
Suite *plan_conf_suite(void);
Suite *plan_sched_suite(void);
Suite *plan_prop_suite(void);
Suite *plan_size_suite(void);
Suite *plan_share_suite(void);
Suite *plan_preempt_suite(void);

#endif
