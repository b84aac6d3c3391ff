/*
 * fw_plan_job_size(): Slurm requests sized by tasks, CPUs per task, tasks
 * per node, memory and GPUs, turned into whole-node shapes.  Every expected
 * value is worked out by hand in the comment beside it.
 */
#include <check.h>
#include <stdio.h>

#include "test_plan_util.h"

struct shape {
	uint32_t nodes_min, nodes_max, cpus, gpus;
	uint64_t mem;
};

static struct shape size_of(const struct fw_cluster *cl, int32_t part,
			    struct fw_job_request r)
{
	struct fw_plan_job j;
	struct shape s;

	fw_plan_job_init(&j);
	fw_plan_job_size(cl, part, &r, &j);
	s.nodes_min = j.nodes_min;
	s.nodes_max = j.nodes_max;
	s.cpus = j.cpus_per_node;
	s.gpus = j.gpus_per_node;
	s.mem = j.mem_per_node_mb;
	return s;
}

/* The cluster: 4 nodes x 2 CPUs, one partition. */
static struct fw_cluster *four_by_two(void)
{
	struct fw_cluster *cl = tp_begin();

	tp_nodes(cl, 4, 2, 0, -1);
	tp_part(cl, "batch", "0-3", 1);
	tp_end(cl);
	return cl;
}

START_TEST(task_counts_on_two_cpu_nodes)
{
	struct fw_cluster *cl = four_by_two();
	struct shape s;

	/* -n 3: 2 tasks per node -> ceil(3/2) = 2 nodes, 2 CPUs on the
	 * busier one. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 3, .min_cpus = 3,
						    .nodes_min = 1 });
	ck_assert_uint_eq(s.nodes_min, 2);
	ck_assert_uint_eq(s.cpus, 2);
	/* -n 8: 4 nodes of 2. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 8, .min_cpus = 8,
						    .nodes_min = 1 });
	ck_assert_uint_eq(s.nodes_min, 4);
	ck_assert_uint_eq(s.cpus, 2);
	/* -n 3 -N 1-2: 2 nodes, within the range; no wider range left. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 3, .min_cpus = 3,
						    .nodes_min = 1,
						    .nodes_max = 2 });
	ck_assert_uint_eq(s.nodes_min, 2);
	ck_assert_uint_eq(s.nodes_max, 0);
	/* -c 2 -n 2: one 2-CPU task per node -> 2 nodes. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 2,
						    .cpus_per_task = 2,
						    .min_cpus = 4,
						    .nodes_min = 1 });
	ck_assert_uint_eq(s.nodes_min, 2);
	ck_assert_uint_eq(s.cpus, 2);
	/* --ntasks-per-node=2 -n 6: 3 nodes. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 6,
						    .ntasks_per_node = 2,
						    .min_cpus = 6,
						    .nodes_min = 1 });
	ck_assert_uint_eq(s.nodes_min, 3);
	ck_assert_uint_eq(s.cpus, 2);
	/* No -n: 5 CPUs in all -> 5 one-CPU tasks -> 3 nodes. */
	s = size_of(cl, 0, (struct fw_job_request){ .min_cpus = 5,
						    .nodes_min = 1 });
	ck_assert_uint_eq(s.nodes_min, 3);
	/* --mincpus=2 -n 1: one node, but with 2 CPUs. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 1, .min_cpus = 1,
						    .pn_min_cpus = 2 });
	ck_assert_uint_eq(s.nodes_min, 1);
	ck_assert_uint_eq(s.cpus, 2);
	/* -O -n 30 (overcommit): Slurm asks for max(-N, 1) = 1 CPU and the
	 * adapter passes no task count: one node, one CPU. */
	s = size_of(cl, 0, (struct fw_job_request){ .min_cpus = 1,
						    .nodes_min = 1 });
	ck_assert_uint_eq(s.nodes_min, 1);
	ck_assert_uint_eq(s.cpus, 1);
	/* -N 3 -n 3: the node count asked for wins over packing. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 3, .min_cpus = 3,
						    .nodes_min = 3 });
	ck_assert_uint_eq(s.nodes_min, 3);
	ck_assert_uint_eq(s.cpus, 1);
	fw_cluster_free(cl);
}
END_TEST

START_TEST(requests_that_never_fit_stay_too_big)
{
	struct fw_cluster *cl = four_by_two();
	struct shape s;

	/* -n 9: 5 nodes of 2 CPUs; the partition has 4: the planner must
	 * see 5 (and say it never fits), not a smaller shape. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 9, .min_cpus = 9,
						    .nodes_min = 1 });
	ck_assert_uint_eq(s.nodes_min, 5);
	/* -n 3 -N 1: one node cannot hold 3 tasks: kept as asked, one
	 * 3-CPU node, which no node has. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 3, .min_cpus = 3,
						    .nodes_min = 1,
						    .nodes_max = 1 });
	ck_assert_uint_eq(s.nodes_min, 1);
	ck_assert_uint_eq(s.cpus, 3);
	/* -c 4: no node has 4 CPUs: as asked. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 1,
						    .cpus_per_task = 4,
						    .min_cpus = 4 });
	ck_assert_uint_eq(s.nodes_min, 1);
	ck_assert_uint_eq(s.cpus, 4);
	fw_cluster_free(cl);
}
END_TEST

START_TEST(mixed_node_shapes_take_the_fewest_nodes)
{
	struct fw_cluster *cl = tp_begin();
	struct shape s;

	tp_nodes(cl, 2, 2, 0, -1);	/* n00-n01: 2 CPUs */
	tp_nodes(cl, 2, 8, 2, -1);	/* n02-n03: 8 CPUs, 2 GPUs */
	tp_part(cl, "all", "0-3", 1);
	tp_part(cl, "small", "0-1", 1);
	tp_end(cl);
	/* -n 6: one 8-CPU node (1 node) beats three 2-CPU nodes. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 6, .min_cpus = 6,
						    .nodes_min = 1 });
	ck_assert_uint_eq(s.nodes_min, 1);
	ck_assert_uint_eq(s.cpus, 6);
	/* -n 3 in "small": 2 nodes of 2 CPUs. */
	s = size_of(cl, 1, (struct fw_job_request){ .ntasks = 3, .min_cpus = 3,
						    .nodes_min = 1 });
	ck_assert_uint_eq(s.nodes_min, 2);
	ck_assert_uint_eq(s.cpus, 2);
	/* -n 3 in "small" -N 1: cannot; "all" can (one 8-CPU node). */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 3, .min_cpus = 3,
						    .nodes_min = 1,
						    .nodes_max = 1 });
	ck_assert_uint_eq(s.nodes_min, 1);
	ck_assert_uint_eq(s.cpus, 3);
	/* -n 4 --gpus-per-task=1: 2 tasks per 2-GPU node -> 2 nodes, 2
	 * CPUs and 2 GPUs each (2-CPU nodes have no GPU). */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 4, .min_cpus = 4,
						    .nodes_min = 1,
						    .gpus_per_task = 1 });
	ck_assert_uint_eq(s.nodes_min, 2);
	ck_assert_uint_eq(s.cpus, 2);
	ck_assert_uint_eq(s.gpus, 2);
	/* -n 1 --gpus=4: 2 GPUs per node -> 2 nodes, 2 GPUs each. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 1, .min_cpus = 1,
						    .nodes_min = 1,
						    .gpus_per_job = 4 });
	ck_assert_uint_eq(s.nodes_min, 2);
	ck_assert_uint_eq(s.gpus, 2);
	/* -n 8 --mem-per-cpu=16000 (nodes: 64000 MB): 4 tasks per node by
	 * memory -> 2 nodes of 4 CPUs and 64000 MB. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 8, .min_cpus = 8,
						    .nodes_min = 1,
						    .mem_per_cpu_mb = 16000 });
	ck_assert_uint_eq(s.nodes_min, 2);
	ck_assert_uint_eq(s.cpus, 4);
	ck_assert_uint_eq(s.mem, 64000);
	/* --mem=70000: no node has it: as asked, 1 node. */
	s = size_of(cl, 0, (struct fw_job_request){ .ntasks = 1, .min_cpus = 1,
						    .mem_per_node_mb = 70000 });
	ck_assert_uint_eq(s.nodes_min, 1);
	ck_assert_uint_eq(s.mem, 70000);
	fw_cluster_free(cl);
}
END_TEST

/* A task-count job on 2-CPU nodes starts now in a pass (it never started
 * when "-n 3" meant "one node with 3 CPUs"). */
START_TEST(sized_job_starts_in_a_pass)
{
	struct fw_cluster *cl = four_by_two();
	struct fw_plan_conf *conf = fw_plan_conf_new();
	struct fw_plan_job j = tp_job(1, 100, 0, 1, 600);
	struct fw_plan_result r;
	struct fw_plan *p;
	struct fw_err e;

	ck_assert_int_eq(fw_plan_conf_finish(conf, &e), 0);
	fw_plan_job_size(cl, 0, &(struct fw_job_request){ .ntasks = 3,
				  .min_cpus = 3, .nodes_min = 1 }, &j);
	p = fw_plan_new(cl, conf, NOW, &e);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fw_plan_backfill(p, &j, 1, &r, &e), 0);
	ck_assert_int_eq(r.kind, FW_PLAN_START_NOW);
	ck_assert_uint_eq(r.nnodes, 2);
	fw_plan_results_free(&r, 1);
	fw_plan_free(p);
	fw_plan_conf_free(conf);
	fw_cluster_free(cl);
}
END_TEST

/* Typed GPUs and a count-only GRES: n00-n01 have gpu:a100:2, n02-n03
 * gpu:v100:2 and 100 "tmpdisk" each.  A job asking for gpu:a100:1 is
 * planned on an a100 node only: with both a100 nodes busy for an hour it
 * waits that hour although the v100 nodes are free; a job asking for
 * tmpdisk:50 runs on n02-n03 only; tmpdisk:150 never fits. */
static struct fw_cluster *gres_cluster(int32_t *a100, int32_t *tmpdisk)
{
	struct fw_cluster *cl = fw_cluster_new();
	struct fw_err e;
	int32_t v100;

	*a100 = fw_cluster_add_gres(cl, "gpu:a100", &e);
	v100 = fw_cluster_add_gres(cl, "gpu:v100", &e);
	*tmpdisk = fw_cluster_add_gres(cl, "tmpdisk", &e);
	ck_assert_int_eq(fw_cluster_add_gres(cl, "gpu:a100", &e), *a100);
	for (int i = 0; i < 4; i++) {
		char name[8];
		struct fw_gres_count g[2] = {
			{ (uint32_t)(i < 2 ? *a100 : v100), 2 },
			{ (uint32_t)*tmpdisk, 100 },
		};
		struct fw_node_def d = {
			.name = name, .cpus = 8, .mem_mb = 64000, .gpus = 2,
			.gres = g, .ngres = i < 2 ? 1 : 2, .island = -1,
			.usable = true,
		};

		snprintf(name, sizeof(name), "n%02d", i);
		ck_assert_int_eq(fw_cluster_add_node(cl, &d, &e), i);
	}
	ck_assert_int_lt(fw_cluster_add_gres(cl, "shard", &e), 0);
	tp_part(cl, "all", "0-3", 1);
	tp_end(cl);
	return cl;
}

START_TEST(typed_gres_are_planned_by_type)
{
	int32_t a100, tmpdisk;
	struct fw_cluster *cl = gres_cluster(&a100, &tmpdisk);
	struct fw_plan_conf *conf = fw_plan_conf_new();
	struct fw_gres_count want_a100 = { (uint32_t)a100, 1 };
	struct fw_gres_count want_disk = { (uint32_t)tmpdisk, 50 };
	struct fw_gres_count too_much = { (uint32_t)tmpdisk, 150 };
	struct fw_plan_job j[3];
	struct fw_plan_result r[3];
	struct fw_bitset *busy = tp_set(cl, "0-1");
	struct fw_plan *p;
	struct fw_err e;

	ck_assert_int_eq(fw_plan_conf_finish(conf, &e), 0);
	j[0] = tp_job(1, 300, 0, 1, H);
	j[0].gpus_per_node = 1;
	j[0].gres = &want_a100;
	j[0].ngres = 1;
	j[1] = tp_job(2, 200, 0, 1, H);
	j[1].gres = &want_disk;
	j[1].ngres = 1;
	j[2] = tp_job(3, 100, 0, 1, H);
	j[2].gres = &too_much;
	j[2].ngres = 1;
	p = fw_plan_new(cl, conf, NOW, &e);
	ck_assert_int_eq(fw_plan_add_running(p, busy, NOW + H, NULL, 0, &e), 0);
	ck_assert_int_eq(fw_plan_backfill(p, j, 3, r, &e), 0);
	ck_assert_int_eq(r[0].kind, FW_PLAN_RESERVED);
	ck_assert_int_eq(r[0].start, NOW + H);
	ck_assert_uint_lt(r[0].node_idx[0], 2);
	ck_assert_int_eq(r[1].kind, FW_PLAN_START_NOW);
	ck_assert_uint_ge(r[1].node_idx[0], 2);
	ck_assert_int_eq(r[2].kind, FW_PLAN_NOT_RUNNABLE);
	ck_assert_int_eq(r[2].reason, FW_REASON_NEVER_FITS);
	fw_plan_results_free(r, 3);
	fw_plan_free(p);
	fw_bitset_free(busy);
	fw_plan_conf_free(conf);
	fw_cluster_free(cl);
}
END_TEST

Suite *plan_size_suite(void)
{
	Suite *s = suite_create("plan_size");
	TCase *tc = tcase_create("size");

	tcase_add_test(tc, task_counts_on_two_cpu_nodes);
	tcase_add_test(tc, requests_that_never_fit_stay_too_big);
	tcase_add_test(tc, mixed_node_shapes_take_the_fewest_nodes);
	tcase_add_test(tc, sized_job_starts_in_a_pass);
	tcase_add_test(tc, typed_gres_are_planned_by_type);
	suite_add_tcase(s, tc);
	return s;
}
