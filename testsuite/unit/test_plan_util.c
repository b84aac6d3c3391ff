/* Shared helpers of the planner's unit tests. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_plan_util.h"

struct fw_cluster *tp_begin(void)
{
	return fw_cluster_new();
}

void tp_nodes(struct fw_cluster *cl, uint32_t count, uint32_t cpus,
	      uint32_t gpus, int32_t island)
{
	struct fw_err e;

	for (uint32_t i = 0; i < count; i++) {
		char name[32];
		struct fw_node_def d = {
			.name = name, .cpus = cpus, .mem_mb = 64000,
			.gpus = gpus, .island = island, .usable = true,
		};

		snprintf(name, sizeof(name), "n%02u", cl->nnodes);
		ck_assert_int_ge(fw_cluster_add_node(cl, &d, &e), 0);
	}
}

int32_t tp_part(struct fw_cluster *cl, const char *name, const char *ranges,
		uint32_t tier)
{
	struct fw_err e;
	struct fw_bitset *b = tp_set(cl, ranges);
	struct fw_partition_def d = {
		.name = name, .nodes = b, .priority_tier = tier,
	};
	int32_t idx = fw_cluster_add_partition(cl, &d, &e);

	ck_assert_int_ge(idx, 0);
	fw_bitset_free(b);
	return idx;
}

int32_t tp_lic(struct fw_cluster *cl, const char *name, uint32_t total)
{
	struct fw_err e;
	int32_t idx = fw_cluster_add_license(cl, name, total, &e);

	ck_assert_int_ge(idx, 0);
	return idx;
}

void tp_end(struct fw_cluster *cl)
{
	struct fw_err e;

	ck_assert_int_eq(fw_cluster_finalize(cl, &e), 0);
}

struct fw_cluster *tp_simple(uint32_t n)
{
	struct fw_cluster *cl = tp_begin();
	char r[32];

	tp_nodes(cl, n, 32, 0, -1);
	snprintf(r, sizeof(r), "0-%u", n - 1);
	tp_part(cl, "all", r, 1);
	tp_end(cl);
	return cl;
}

struct fw_bitset *tp_set(const struct fw_cluster *cl, const char *ranges)
{
	struct fw_bitset *b = fw_bitset_new(cl->nnodes);

	ck_assert_msg(fw_bitset_parse(b, ranges) == 0, "bad ranges %s", ranges);
	return b;
}

struct fw_plan_job tp_job(uint32_t id, uint32_t prio, int32_t part,
			  uint32_t nodes, int64_t secs)
{
	struct fw_plan_job j;

	fw_plan_job_init(&j);
	j.id = id;
	j.priority = prio;
	j.submit = id;
	j.eligible = 1;
	j.part = part;
	j.nodes_min = nodes;
	j.time_limit = secs;
	j.uid = 1000;
	return j;
}

void tp_running(struct fw_plan *p, const struct fw_cluster *cl,
		const char *ranges, fw_time_t end)
{
	struct fw_err e;
	struct fw_bitset *b = tp_set(cl, ranges);

	ck_assert_int_eq(fw_plan_add_running(p, b, end, NULL, 0, &e), 0);
	fw_bitset_free(b);
}

const char *tp_fmt(const struct fw_bitset *b, char *buf, size_t len)
{
	if (!b) {
		buf[0] = '\0';
		return buf;
	}
	return fw_bitset_fmt(b, buf, len);
}
