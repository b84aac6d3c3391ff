/*
 * Unit tests of fw_rtl, the per-resource node timeline.
 *
 * Hand-worked cases (expected values worked out in the comments) and a
 * property test: random takes, gives, capacity changes and searches on
 * random small clusters, each checked against a brute-force oracle that
 * keeps every node's free amounts per slot in a dense array.  The oracle
 * knows nothing of change points, blocks or rounds; it tries every start
 * slot and every node.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fw_rtl.h"
#include "fw_rtl_int.h"
#include "test_run.h"

/* Resource indices of the hand-worked cases. */
enum { CPU, MEM, A100, V100, SHARD, TMPDISK, NRES };

static void amounts(int64_t *v, int64_t cpu, int64_t mem, int64_t a100,
		    int64_t v100)
{
	memset(v, 0, NRES * sizeof(*v));
	v[CPU] = cpu;
	v[MEM] = mem;
	v[A100] = a100;
	v[V100] = v100;
}

static struct fw_rtl *cluster(uint32_t nn, int32_t W, int64_t cpu,
			      int64_t mem)
{
	struct fw_rtl *r = fw_rtl_new(nn, NRES, W);
	int64_t cap[NRES];

	amounts(cap, cpu, mem, 0, 0);
	cap[TMPDISK] = 100;
	for (uint32_t i = 0; i < nn; i++)
		ck_assert_int_eq(fw_rtl_set_capacity(r, i, cap), 0);
	return r;
}

/* Earliest start of n nodes with req for d slots from smin (no limit). */
static int32_t earliest(struct fw_rtl *r, uint32_t n, const int64_t *req,
			int32_t d, int32_t smin, uint32_t *nodes)
{
	struct fw_rtl_query q = { .n = n, .req = req, .d = d, .smin = smin,
				  .smax = FW_RTL_INF, .nodes = nodes };

	return fw_rtl_earliest(r, &q);
}

START_TEST(eight_one_cpu_jobs_share_a_node)
{
	struct fw_rtl *r = cluster(1, 100, 8, 16000);
	int64_t job[NRES], out[NRES];
	uint32_t node;

	amounts(job, 1, 1000, 0, 0);
	/* Each of eight 1-CPU jobs finds a CPU at once, on the same node. */
	for (int k = 0; k < 8; k++) {
		ck_assert_int_eq(earliest(r, 1, job, 10, 0, &node), 0);
		ck_assert_uint_eq(node, 0);
		ck_assert_int_eq(fw_rtl_take(r, 0, 0, 10, job), 0);
	}
	/* The ninth waits until they end at slot 10 and cannot be forced. */
	ck_assert_int_eq(earliest(r, 1, job, 10, 0, &node), 10);
	ck_assert_int_eq(fw_rtl_take(r, 0, 0, 10, job), -1);
	fw_rtl_free_min(r, 0, 0, 10, out);
	ck_assert_int_eq(out[CPU], 0);
	ck_assert_int_eq(out[MEM], 16000 - 8 * 1000);
	ck_assert_int_eq(out[TMPDISK], 100);
	/* All eight end together: one change point at 0, one at 10. */
	ck_assert_uint_eq(fw_rtl_npoints(r, 0), 2);
	fw_rtl_free(r);
}
END_TEST

/* Amounts past the largest level (2^23) and resources past the first
 * eight, which the search's level sets do not cover: the answers are
 * still exact (a 2^30 request waits for the one node that has it; a
 * request on resource 9 only finds the node that has that resource). */
START_TEST(huge_amounts_and_many_resources)
{
	enum { K = 10 };
	struct fw_rtl *r = fw_rtl_new(70, K, 50);
	int64_t cap[K] = { 0 }, req[K] = { 0 };
	uint32_t node[2];

	for (uint32_t i = 0; i < 70; i++) {
		cap[0] = 4;
		cap[1] = i == 66 ? (int64_t)1 << 31 : (int64_t)1 << 25;
		cap[9] = i == 3 || i == 68 ? 2 : 0;
		ck_assert_int_eq(fw_rtl_set_capacity(r, i, cap), 0);
	}
	req[0] = 1;
	req[1] = (int64_t)1 << 30;
	ck_assert_int_eq(earliest(r, 1, req, 5, 0, node), 0);
	ck_assert_uint_eq(node[0], 66);
	ck_assert_int_eq(fw_rtl_take(r, 66, 0, 20, req), 0);
	/* 2^31 - 2^30 left there: a second such job fits beside it, a third
	 * waits for slot 20 */
	ck_assert_int_eq(earliest(r, 1, req, 5, 0, node), 0);
	ck_assert_int_eq(fw_rtl_take(r, 66, 0, 30, req), 0);
	ck_assert_int_eq(earliest(r, 1, req, 5, 0, node), 20);
	ck_assert_uint_eq(node[0], 66);
	/* two nodes with resource 9: nodes 3 and 68, in two blocks */
	memset(req, 0, sizeof(req));
	req[9] = 2;
	ck_assert_int_eq(earliest(r, 2, req, 5, 0, node), 0);
	ck_assert_uint_eq(node[0], 3);
	ck_assert_uint_eq(node[1], 68);
	ck_assert_int_eq(fw_rtl_take(r, 3, 0, 7, req), 0);
	ck_assert_int_eq(earliest(r, 1, req, 5, 0, node), 0);
	ck_assert_uint_eq(node[0], 68);
	ck_assert_int_eq(earliest(r, 2, req, 5, 0, node), 7);
	fw_rtl_free(r);
}
END_TEST

START_TEST(memory_not_cpus_limits)
{
	struct fw_rtl *r = cluster(1, 100, 8, 16000);
	int64_t big[NRES], b[NRES], c[NRES];
	uint32_t node;

	amounts(big, 2, 12000, 0, 0);
	ck_assert_int_eq(fw_rtl_take(r, 0, 0, 20, big), 0);
	/* 6 CPUs free but only 4000 MB: 8000 MB waits for slot 20 ... */
	amounts(b, 2, 8000, 0, 0);
	ck_assert_int_eq(earliest(r, 1, b, 5, 0, &node), 20);
	ck_assert_int_eq(fw_rtl_take(r, 0, 0, 5, b), -1);
	/* ... 4000 MB fits now, and then memory is exhausted at 6 CPUs. */
	amounts(c, 2, 4000, 0, 0);
	ck_assert_int_eq(earliest(r, 1, c, 5, 0, &node), 0);
	ck_assert_int_eq(fw_rtl_take(r, 0, 0, 5, c), 0);
	amounts(c, 1, 1, 0, 0);
	ck_assert_int_eq(earliest(r, 1, c, 1, 0, &node), 5);
	fw_rtl_free(r);
}
END_TEST

START_TEST(a100_is_not_v100)
{
	struct fw_rtl *r = fw_rtl_new(3, NRES, 100);
	int64_t cap[NRES], two[NRES], req[NRES];
	uint32_t nodes[2];

	amounts(cap, 8, 16000, 2, 0);
	fw_rtl_set_capacity(r, 0, cap);
	fw_rtl_set_capacity(r, 1, cap);
	amounts(cap, 8, 16000, 0, 2);
	fw_rtl_set_capacity(r, 2, cap);
	amounts(two, 1, 100, 2, 0);
	ck_assert_int_eq(fw_rtl_take(r, 0, 0, 30, two), 0);
	ck_assert_int_eq(fw_rtl_take(r, 1, 0, 50, two), 0);
	/* One a100 waits for node 0 at 30 while the v100s are free now. */
	amounts(req, 1, 100, 1, 0);
	ck_assert_int_eq(earliest(r, 1, req, 10, 0, nodes), 30);
	ck_assert_uint_eq(nodes[0], 0);
	amounts(req, 1, 100, 0, 1);
	ck_assert_int_eq(earliest(r, 1, req, 10, 0, nodes), 0);
	ck_assert_uint_eq(nodes[0], 2);
	/* One a100 on each of two nodes: node 1 frees its a100s at 50. */
	amounts(req, 1, 100, 1, 0);
	ck_assert_int_eq(earliest(r, 2, req, 10, 0, nodes), 50);
	ck_assert_uint_eq(nodes[0], 0);
	ck_assert_uint_eq(nodes[1], 1);
	/* Three a100 on one node: no node has them, ever. */
	amounts(req, 1, 100, 3, 0);
	ck_assert_int_eq(earliest(r, 1, req, 1, 0, nodes), -1);
	fw_rtl_free(r);
}
END_TEST

START_TEST(earliest_as_running_jobs_end)
{
	/*
	 * 4 nodes x 8 CPUs.  Node 0 is full until 10, node 1 until 20,
	 * node 2 holds 4 CPUs until 30 and 4 more until 40, node 3 is full
	 * until 40.
	 */
	struct fw_rtl *r = cluster(4, 100, 8, 16000);
	int64_t full[NRES], half[NRES];
	uint32_t nodes[3];

	amounts(full, 8, 0, 0, 0);
	amounts(half, 4, 0, 0, 0);
	fw_rtl_take(r, 0, 0, 10, full);
	fw_rtl_take(r, 1, 0, 20, full);
	fw_rtl_take(r, 2, 0, 30, half);
	fw_rtl_take(r, 2, 0, 40, half);
	fw_rtl_take(r, 3, 0, 40, full);
	ck_assert_int_eq(earliest(r, 1, full, 5, 0, nodes), 10);
	ck_assert_int_eq(earliest(r, 2, full, 5, 0, nodes), 20);
	ck_assert_uint_eq(nodes[1], 1);
	/* Half nodes: node 2's first half frees at 30. */
	ck_assert_int_eq(earliest(r, 3, half, 5, 0, nodes), 30);
	ck_assert_uint_eq(nodes[2], 2);
	/* Three full nodes: 40 (nodes 0, 1, 2, the lowest of four). */
	ck_assert_int_eq(earliest(r, 3, full, 5, 0, nodes), 40);
	ck_assert_uint_eq(nodes[0], 0);
	ck_assert_uint_eq(nodes[1], 1);
	ck_assert_uint_eq(nodes[2], 2);
	/* From slot 15 on, node 0 is free at once. */
	ck_assert_int_eq(earliest(r, 1, full, 5, 15, nodes), 15);
	ck_assert_uint_eq(nodes[0], 0);
	/* Giving back node 3's job at 25 makes two full nodes start at 25. */
	ck_assert_int_eq(fw_rtl_give(r, 3, 25, 40, full), 0);
	ck_assert_int_eq(earliest(r, 3, full, 5, 21, nodes), 25);
	ck_assert_uint_eq(nodes[2], 3);
	fw_rtl_free(r);
}
END_TEST

/*
 * Node 2 of earliest_as_running_jobs_end's world changes at 30 and 40
 * (its two halves end), node 0 at 10, an idle node never.  Taking and
 * giving back the same amounts over the same slots leaves no point.
 */
START_TEST(next_change_walks_the_changes)
{
	struct fw_rtl *r = cluster(4, 100, 8, 16000);
	int64_t full[NRES], half[NRES];

	amounts(full, 8, 0, 0, 0);
	amounts(half, 4, 0, 0, 0);
	fw_rtl_take(r, 0, 0, 10, full);
	fw_rtl_take(r, 2, 0, 30, half);
	fw_rtl_take(r, 2, 0, 40, half);
	ck_assert_int_eq(fw_rtl_next_change(r, 0, 0), 10);
	ck_assert_int_eq(fw_rtl_next_change(r, 0, 9), 10);
	ck_assert_int_eq(fw_rtl_next_change(r, 0, 10), FW_RTL_INF);
	ck_assert_int_eq(fw_rtl_next_change(r, 2, 0), 30);
	ck_assert_int_eq(fw_rtl_next_change(r, 2, 30), 40);
	ck_assert_int_eq(fw_rtl_next_change(r, 2, 40), FW_RTL_INF);
	ck_assert_int_eq(fw_rtl_next_change(r, 1, 0), FW_RTL_INF);
	/* a booking 50-60 on node 1, then given back */
	ck_assert_int_eq(fw_rtl_take(r, 1, 50, 60, half), 0);
	ck_assert_int_eq(fw_rtl_next_change(r, 1, 0), 50);
	ck_assert_int_eq(fw_rtl_next_change(r, 1, 50), 60);
	ck_assert_int_eq(fw_rtl_give(r, 1, 50, 60, half), 0);
	ck_assert_int_eq(fw_rtl_next_change(r, 1, 0), FW_RTL_INF);
	fw_rtl_free(r);
}
END_TEST

START_TEST(fit_that_does_not_last)
{
	/*
	 * Node 0 is free in [0, 5), full in [5, 15), free after; node 1 is
	 * full in [0, 10).  Two nodes for 3 slots: node 0's first fit is 0
	 * and node 1's is 10, but node 0 is busy at 10: the answer is 15.
	 */
	struct fw_rtl *r = cluster(2, 100, 8, 16000);
	int64_t full[NRES];
	uint32_t nodes[2];

	amounts(full, 8, 0, 0, 0);
	fw_rtl_take(r, 0, 5, 15, full);
	fw_rtl_take(r, 1, 0, 10, full);
	ck_assert_int_eq(earliest(r, 2, full, 3, 0, nodes), 15);
	ck_assert_uint_eq(nodes[0], 0);
	ck_assert_uint_eq(nodes[1], 1);
	/* One node from 3: [3, 6) hits node 0's job; node 1 at 10. */
	ck_assert_int_eq(earliest(r, 1, full, 3, 3, nodes), 10);
	ck_assert_uint_eq(nodes[0], 1);
	/* Exactly fitting the gap: [0, 5) on node 0. */
	ck_assert_int_eq(earliest(r, 1, full, 5, 0, nodes), 0);
	ck_assert_int_eq(earliest(r, 1, full, 6, 0, nodes), 10);
	fw_rtl_free(r);
}
END_TEST

START_TEST(give_back_and_capacity)
{
	struct fw_rtl *r = cluster(1, 100, 8, 16000);
	int64_t job[NRES], cap[NRES];

	amounts(job, 3, 1000, 0, 0);
	ck_assert_int_eq(fw_rtl_take(r, 0, 10, 20, job), 0);
	ck_assert_uint_eq(fw_rtl_npoints(r, 0), 3);
	/* Giving back more than was taken would exceed the capacity. */
	ck_assert_int_eq(fw_rtl_give(r, 0, 5, 20, job), -1);
	ck_assert_uint_eq(fw_rtl_npoints(r, 0), 3);
	/* The capacity cannot drop below what is taken (3 CPUs). */
	amounts(cap, 2, 16000, 0, 0);
	ck_assert_int_eq(fw_rtl_set_capacity(r, 0, cap), -1);
	amounts(cap, 4, 16000, 0, 0);
	ck_assert_int_eq(fw_rtl_set_capacity(r, 0, cap), 0);
	ck_assert(fw_rtl_fits(r, 0, 10, 20, (int64_t[NRES]){ 1, 0 }));
	ck_assert(!fw_rtl_fits(r, 0, 10, 20, (int64_t[NRES]){ 2, 0 }));
	/* Given back in two pieces, the node is one point again. */
	ck_assert_int_eq(fw_rtl_give(r, 0, 15, 20, job), 0);
	ck_assert_int_eq(fw_rtl_give(r, 0, 10, 15, job), 0);
	ck_assert_uint_eq(fw_rtl_npoints(r, 0), 1);
	/* Negative amounts are refused. */
	amounts(job, -1, 0, 0, 0);
	ck_assert_int_eq(fw_rtl_take(r, 0, 0, 5, job), -1);
	fw_rtl_free(r);
}
END_TEST

START_TEST(window_end_is_forever)
{
	/* W = 100: a job running past 100 holds its node forever. */
	struct fw_rtl *r = cluster(2, 100, 8, 16000);
	int64_t full[NRES], out[NRES];
	uint32_t nodes[2];

	amounts(full, 8, 0, 0, 0);
	ck_assert_int_eq(fw_rtl_take(r, 0, 50, 150, full), 0);
	ck_assert_int_eq(earliest(r, 1, full, 60, 0, nodes), 0);
	ck_assert_uint_eq(nodes[0], 1);
	ck_assert_int_eq(earliest(r, 2, full, 10, 0, nodes), 0);
	ck_assert_int_eq(earliest(r, 2, full, 51, 0, nodes), -1);
	fw_rtl_free_min(r, 0, 1000, 1001, out);
	ck_assert_int_eq(out[CPU], 0);
	/* A start after the window is the state at its end. */
	ck_assert_int_eq(earliest(r, 1, full, 5, 500, nodes), 500);
	ck_assert_uint_eq(nodes[0], 1);
	/* Taking [150, 160) is taking [100, forever). */
	ck_assert_int_eq(fw_rtl_take(r, 1, 150, 160, full), 0);
	ck_assert_int_eq(earliest(r, 1, full, 5, 0, nodes), 0);
	ck_assert_int_eq(earliest(r, 1, full, 5, 96, nodes), -1);
	ck_assert_int_eq(earliest(r, 1, full, FW_RTL_INF, 0, nodes), -1);
	fw_rtl_free(r);
}
END_TEST

START_TEST(take_nodes_all_or_nothing)
{
	struct fw_rtl *r = cluster(3, 100, 8, 16000);
	int64_t job[NRES], out[NRES];
	uint32_t set[3] = { 0, 1, 2 };

	amounts(job, 6, 0, 0, 0);
	fw_rtl_take(r, 2, 0, 10, job);
	ck_assert_int_eq(fw_rtl_take_nodes(r, set, 3, 5, 15, job), -1);
	fw_rtl_free_min(r, 0, 0, 100, out);
	ck_assert_int_eq(out[CPU], 8);
	ck_assert_int_eq(fw_rtl_take_nodes(r, set, 2, 5, 15, job), 0);
	fw_rtl_free_min(r, 1, 5, 15, out);
	ck_assert_int_eq(out[CPU], 2);
	fw_rtl_free(r);
}
END_TEST

START_TEST(candidates_limits_and_blocks)
{
	/* 130 nodes: blocks 0 and 1 full until 50, node 128 and 129 idle. */
	struct fw_rtl *r = cluster(130, 100, 8, 16000);
	struct fw_bitset *cand = fw_bitset_new(130);
	int64_t full[NRES];
	uint32_t nodes[2];
	struct fw_rtl_query q = { .n = 1, .req = full, .d = 10,
				  .smax = FW_RTL_INF, .nodes = nodes };

	amounts(full, 8, 0, 0, 0);
	for (uint32_t i = 0; i < 128; i++)
		fw_rtl_take(r, i, 0, 50, full);
	ck_assert_int_eq(fw_rtl_earliest(r, &q), 0);
	ck_assert_uint_eq(nodes[0], 128);
	ck_assert_uint_eq(q.blocks_skipped, 2);
	ck_assert_uint_eq(q.nodes_scanned, 1);
	/* Only node 5 and 70 allowed: 50, node 5. */
	fw_bitset_set(cand, 5);
	fw_bitset_set(cand, 70);
	q.cand = cand;
	ck_assert_int_eq(fw_rtl_earliest(r, &q), 50);
	ck_assert_uint_eq(nodes[0], 5);
	/* ... but not if the start must be by 49, nor for 3 nodes. */
	q.smax = 49;
	ck_assert_int_eq(fw_rtl_earliest(r, &q), -1);
	q.smax = FW_RTL_INF;
	q.n = 3;
	ck_assert_int_eq(fw_rtl_earliest(r, &q), -1);
	fw_bitset_free(cand);
	fw_rtl_free(r);
}
END_TEST

/*
 * take_upto: 4 of 8 CPUs taken over [0, 10); then "up to 6" over [5, 20)
 * takes 4 in [5, 10) (all that is left) and 6 in [10, 20): free 4 in
 * [0, 5), 0 in [5, 10), 2 in [10, 20), 8 after.  A second "up to 8" over
 * [5, 10) changes nothing (the point count shows it stays coalesced).
 */
/*
 * fit_at: 130 nodes of 8 CPUs; nodes 0-127 hold 8 CPUs over [0, 50) and
 * node 3 also 4 over [50, 60).  At slot 0 only nodes 128 and 129 have
 * 2 CPUs for 10 slots: asked for 3, it answers 2 (those); among nodes
 * 0-9 none.  At 50, 6 CPUs for 10 slots: nodes 0-9 except 3, so the
 * first 3 are 0, 1, 2 and the first 5 are 0, 1, 2, 4, 5.  Node 3 alone
 * has 4 CPUs there, not 6.
 */
START_TEST(fit_at_counts_the_nodes_that_fit)
{
	struct fw_rtl *r = cluster(130, 100, 8, 16000);
	struct fw_bitset *ten = fw_bitset_new(130);
	int64_t full[NRES], half[NRES], two[NRES], six[NRES];
	uint32_t nodes[5];
	struct fw_rtl_query q = { .n = 3, .req = two, .d = 10,
				  .nodes = nodes };

	amounts(full, 8, 0, 0, 0);
	amounts(half, 4, 0, 0, 0);
	amounts(two, 2, 0, 0, 0);
	amounts(six, 6, 0, 0, 0);
	for (uint32_t i = 0; i < 128; i++)
		fw_rtl_take(r, i, 0, 50, full);
	fw_rtl_take(r, 3, 50, 60, half);
	ck_assert_uint_eq(fw_rtl_fit_at(r, &q, 0), 2);
	ck_assert_uint_eq(nodes[0], 128);
	ck_assert_uint_eq(nodes[1], 129);
	for (uint32_t i = 0; i < 10; i++)
		fw_bitset_set(ten, i);
	q.cand = ten;
	ck_assert_uint_eq(fw_rtl_fit_at(r, &q, 0), 0);
	q.req = six;
	ck_assert_uint_eq(fw_rtl_fit_at(r, &q, 50), 3);
	ck_assert_uint_eq(nodes[2], 2);
	q.n = 5;
	ck_assert_uint_eq(fw_rtl_fit_at(r, &q, 50), 5);
	ck_assert_uint_eq(nodes[3], 4);
	ck_assert_uint_eq(nodes[4], 5);
	fw_bitset_clear_all(ten);
	fw_bitset_set(ten, 3);
	q.req = half;
	ck_assert_uint_eq(fw_rtl_fit_at(r, &q, 50), 1);
	ck_assert_uint_eq(nodes[0], 3);
	q.req = six;
	ck_assert_uint_eq(fw_rtl_fit_at(r, &q, 50), 0);
	q.d = 0;
	ck_assert_uint_eq(fw_rtl_fit_at(r, &q, 50), 0);	/* bad query */
	fw_bitset_free(ten);
	fw_rtl_free(r);
}
END_TEST

START_TEST(take_upto_takes_what_is_free)
{
	struct fw_rtl *r = cluster(1, 100, 8, 16000);
	int64_t four[NRES], six[NRES], eight[NRES], out[NRES];

	amounts(four, 4, 0, 0, 0);
	amounts(six, 6, 0, 0, 0);
	amounts(eight, 8, 0, 0, 0);
	ck_assert_int_eq(fw_rtl_take(r, 0, 0, 10, four), 0);
	ck_assert_int_eq(fw_rtl_take_upto(r, 0, 5, 20, six), 0);
	fw_rtl_free_min(r, 0, 0, 5, out);
	ck_assert_int_eq(out[CPU], 4);
	fw_rtl_free_min(r, 0, 5, 10, out);
	ck_assert_int_eq(out[CPU], 0);
	fw_rtl_free_min(r, 0, 10, 20, out);
	ck_assert_int_eq(out[CPU], 2);
	fw_rtl_free_min(r, 0, 20, 30, out);
	ck_assert_int_eq(out[CPU], 8);
	ck_assert_uint_eq(fw_rtl_npoints(r, 0), 4);
	ck_assert_int_eq(fw_rtl_take_upto(r, 0, 5, 10, eight), 0);
	ck_assert_uint_eq(fw_rtl_npoints(r, 0), 4);
	/* Up to 8 over [0, 30): the node is empty until 30, points 0, 30. */
	ck_assert_int_eq(fw_rtl_take_upto(r, 0, 0, 30, eight), 0);
	fw_rtl_free_min(r, 0, 0, 30, out);
	ck_assert_int_eq(out[CPU], 0);
	ck_assert_uint_eq(fw_rtl_npoints(r, 0), 2);
	ck_assert_int_eq(fw_rtl_take_upto(r, 1, 0, 30, eight), -1);
	fw_rtl_free(r);
}
END_TEST

START_TEST(bad_arguments)
{
	int64_t req[NRES] = { 1 };
	uint32_t nodes[1];
	struct fw_rtl *r = cluster(2, 10, 8, 16000);
	struct fw_rtl_query q = { .n = 1, .req = req, .d = 0,
				  .smax = FW_RTL_INF, .nodes = nodes };

	ck_assert_ptr_null(fw_rtl_new(0, 1, 10));
	ck_assert_ptr_null(fw_rtl_new(1, 0, 10));
	ck_assert_ptr_null(fw_rtl_new(1, FW_RTL_MAXRES + 1, 10));
	ck_assert_ptr_null(fw_rtl_new(1, 1, 0));
	ck_assert_int_eq(fw_rtl_earliest(r, &q), -1);	/* d == 0 */
	q.d = 1;
	q.smin = 5;
	q.smax = 4;
	ck_assert_int_eq(fw_rtl_earliest(r, &q), -1);	/* empty range */
	/* An empty interval is taken without a change. */
	ck_assert_int_eq(fw_rtl_take(r, 0, 7, 7, req), 0);
	ck_assert_uint_eq(fw_rtl_npoints(r, 0), 1);
	fw_rtl_free(r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Property test against a brute-force oracle                          */
/* ------------------------------------------------------------------ */

#define PK 3		/* resources in the random worlds */
#define PMAXN 140	/* nodes: up to three blocks */
#define PMAXW 200	/* long windows: the coarse buckets */

struct oracle {
	uint32_t nn;
	int32_t W;
	int64_t cap[PMAXN][PK];
	int64_t f[PMAXN][PMAXW + 1][PK];	/* free at slot 0..W */
};

struct span {
	uint32_t node;
	int32_t a, b;
	int64_t amt[PK];
};

static uint64_t rnd_state;
/* Searches mostly at slots 0 and 1, over nested node sets, so that probes
 * meet the hints of earlier ones (fw_rtl_hint.c). */
static bool repeat_probes;

static int32_t rnd(int32_t n)
{
	return (int32_t)(fw_splitmix64(&rnd_state) % (uint64_t)n);
}

static int32_t slot_of(const struct oracle *o, int64_t t)
{
	return t > o->W ? o->W : (int32_t)t;
}

/* Slots of the oracle that [a, b) touches: [lo, hi] after clamping. */
static bool o_range(const struct oracle *o, int32_t a, int32_t b,
		    int32_t *lo, int32_t *hi)
{
	if (b <= a)
		return false;
	*lo = slot_of(o, a < 0 ? 0 : a);
	*hi = b > o->W ? o->W : slot_of(o, (int64_t)b - 1);
	return true;
}

/* Add sign * amt over [a, b) if every slot stays in [0, cap]. */
static bool o_add(struct oracle *o, uint32_t i, int32_t a, int32_t b,
		  const int64_t *amt, int sign)
{
	int32_t lo, hi;

	for (int k = 0; k < PK; k++)
		if (amt[k] < 0)
			return false;
	if (!o_range(o, a, b, &lo, &hi))
		return true;
	for (int32_t t = lo; t <= hi; t++)
		for (int k = 0; k < PK; k++) {
			int64_t v = o->f[i][t][k] + sign * amt[k];

			if (v < 0 || v > o->cap[i][k])
				return false;
		}
	for (int32_t t = lo; t <= hi; t++)
		for (int k = 0; k < PK; k++)
			o->f[i][t][k] += sign * amt[k];
	return true;
}

/* Does node i have req during [c, c + d) (slots past W are slot W)? */
static bool o_fits(const struct oracle *o, uint32_t i, int64_t c, int32_t d,
		   const int64_t *req)
{
	int64_t last = d == FW_RTL_INF ? c + o->W + 1 : c + d - 1;

	for (int64_t t = c; t <= last; t++) {
		int32_t s = slot_of(o, t);

		for (int k = 0; k < PK; k++)
			if (o->f[i][s][k] < req[k])
				return false;
		if (s == o->W)
			break;	/* every later slot is the same */
	}
	return true;
}

/* Every start from smin to far past W, every node: the first c with n. */
static int32_t o_earliest(const struct oracle *o,
			  const struct fw_bitset *cand, uint32_t n,
			  const int64_t *req, int32_t d, int32_t smin,
			  int32_t smax, uint32_t *nodes)
{
	int64_t top = smax < smin + 2 * PMAXW ? smax : smin + 2 * PMAXW;

	for (int64_t c = smin; c <= top; c++) {
		uint32_t got = 0;

		for (uint32_t i = 0; i < o->nn && got < n; i++)
			if ((!cand || fw_bitset_test(cand, i)) &&
			    o_fits(o, i, c, d, req))
				nodes[got++] = i;
		if (got == n)
			return (int32_t)c;
	}
	return -1;
}

/* The timeline agrees with the oracle at every slot of every node. */
static void check_all_slots(const struct fw_rtl *r, const struct oracle *o)
{
	int64_t out[PK];

	for (uint32_t i = 0; i < o->nn; i++)
		for (int32_t t = 0; t <= o->W + 2; t++) {
			fw_rtl_free_min(r, i, t, t + 1, out);
			for (int k = 0; k < PK; k++) {
				int64_t want = o->f[i][slot_of(o, t)][k];

				/* Not ck_assert in the loop: Check writes
				 * every passing assertion to its pipe. */
				if (out[k] < 0 || out[k] != want)
					ck_abort_msg("node %u slot %d res %d: "
						     "%lld, oracle %lld", i, t,
						     k, (long long)out[k],
						     (long long)want);
			}
		}
}

static int32_t rnd_end(const struct oracle *o, int32_t a)
{
	if (rnd(8) == 0)
		return FW_RTL_INF;
	return a + rnd(o->W / 2 + 3) - 1;	/* sometimes empty */
}

static void rnd_amt(int64_t *amt, int64_t max)
{
	for (int k = 0; k < PK; k++)
		amt[k] = rnd(4) ? rnd((int32_t)max + 1) : 0;
}

static void prop_take(struct fw_rtl *r, struct oracle *o, struct span *sp,
		      uint32_t *nsp)
{
	struct span s;
	bool ok;

	s.node = (uint32_t)rnd((int32_t)o->nn);
	s.a = rnd(o->W + 5) - 2;
	s.b = rnd_end(o, s.a);
	rnd_amt(s.amt, 3);
	ok = o_add(o, s.node, s.a, s.b, s.amt, -1);
	ck_assert_int_eq(fw_rtl_take(r, s.node, s.a, s.b, s.amt), ok ? 0 : -1);
	if (ok && *nsp < 256)
		sp[(*nsp)++] = s;
}

/* Take up to amt over [a, b): at every slot what is free of it.  Such a
 * take cannot be given back exactly, so the recorded spans are dropped. */
static void prop_take_upto(struct fw_rtl *r, struct oracle *o,
			   uint32_t *nsp)
{
	int32_t a = rnd(o->W + 5) - 2, b = rnd_end(o, a), lo, hi;
	uint32_t i = (uint32_t)rnd((int32_t)o->nn);
	int64_t amt[PK];

	rnd_amt(amt, 4);
	ck_assert_int_eq(fw_rtl_take_upto(r, i, a, b, amt), 0);
	if (!o_range(o, a, b, &lo, &hi))
		return;
	for (int32_t t = lo; t <= hi; t++)
		for (int k = 0; k < PK; k++)
			o->f[i][t][k] -= amt[k] < o->f[i][t][k] ?
					 amt[k] : o->f[i][t][k];
	*nsp = 0;
}

/*
 * The search's filters are exact: per node and bucket the largest free
 * amounts during the bucket (a value too high is never seen by a search,
 * only makes it slower; too low would lose starts), the level sets that
 * follow them, and per block the largest of its nodes' and how many have
 * it.
 */
static void check_buckets(const struct fw_rtl *r, const struct oracle *o)
{
	bool lev_ok = true;

	for (uint32_t j = 0; j < r->nbk; j++) {
		int32_t t0 = r->benv[0].t[j];
		int32_t t1 = j + 1 < r->nbk ? r->benv[0].t[j + 1] - 1 : o->W;

		for (uint32_t i = 0; i < o->nn; i++)
			for (int k = 0; k < PK; k++) {
				int64_t m = 0, v = fw_rtl_nmax(r, i, j)[k];

				for (int32_t t = t0; t <= t1 && t <= o->W; t++)
					if (o->f[i][t][k] > m)
						m = o->f[i][t][k];
				if (v != m)
					ck_abort_msg("node %u bucket %u res %d: max %lld, want %lld",
						     i, j, k, (long long)v, (long long)m);
				for (uint32_t l = 0; l < RTL_NLEV; l++)
					lev_ok &= !!(fw_rtl_lev(r, j, (uint32_t)k, l)[i / 64] >>
						     (i % 64) & 1) == (l < fw_rtl_nlev(m));
			}
		for (uint32_t b = 0; b < r->nblocks; b++)
			for (int k = 0; k < PK; k++) {
				int64_t m = 0;
				uint32_t cnt = 0;

				for (uint32_t i = b * 64; i < o->nn && i < b * 64 + 64; i++) {
					int64_t v = fw_rtl_nmax(r, i, j)[k];

					cnt = v > m ? 1 : cnt + (v == m);
					m = v > m ? v : m;
				}
				if (r->benv[b].v[(size_t)j * PK + (size_t)k] != m ||
				    r->bcnt[((size_t)b * r->nbk + j) * PK + (size_t)k] != cnt)
					ck_abort_msg("block %u bucket %u res %d: envelope or count",
						     b, j, k);
			}
	}
	ck_assert_msg(lev_ok, "level sets differ from the bucket maxima");
}

static void prop_give(struct fw_rtl *r, struct oracle *o, struct span *sp,
		      uint32_t *nsp)
{
	struct span s;
	bool ok;

	if (*nsp && rnd(2)) {	/* a real give-back: must succeed */
		uint32_t k = (uint32_t)rnd((int32_t)*nsp);

		s = sp[k];
		sp[k] = sp[--(*nsp)];
		ck_assert(o_add(o, s.node, s.a, s.b, s.amt, 1));
		ck_assert_int_eq(fw_rtl_give(r, s.node, s.a, s.b, s.amt), 0);
		return;
	}
	s.node = (uint32_t)rnd((int32_t)o->nn);
	s.a = rnd(o->W + 5) - 2;
	s.b = rnd_end(o, s.a);
	rnd_amt(s.amt, 2);
	ok = o_add(o, s.node, s.a, s.b, s.amt, 1);
	ck_assert_int_eq(fw_rtl_give(r, s.node, s.a, s.b, s.amt), ok ? 0 : -1);
	*nsp = 0;	/* the recorded spans may no longer be given back */
}

static void prop_capacity(struct fw_rtl *r, struct oracle *o)
{
	uint32_t i = (uint32_t)rnd((int32_t)o->nn);
	int64_t cap[PK];
	bool ok = true;

	for (int k = 0; k < PK; k++)
		cap[k] = rnd(8) ? rnd(4) + 3 : rnd(3);
	for (int32_t t = 0; t <= o->W; t++)
		for (int k = 0; k < PK; k++)
			if (o->f[i][t][k] + cap[k] - o->cap[i][k] < 0)
				ok = false;
	ck_assert_int_eq(fw_rtl_set_capacity(r, i, cap), ok ? 0 : -1);
	if (!ok)
		return;
	for (int32_t t = 0; t <= o->W; t++)
		for (int k = 0; k < PK; k++)
			o->f[i][t][k] += cap[k] - o->cap[i][k];
	memcpy(o->cap[i], cap, sizeof(cap));
}

static void prop_search(struct fw_rtl *r, const struct oracle *o,
			struct fw_bitset *cand)
{
	uint32_t got[8], want[8];
	int64_t req[PK];
	struct fw_rtl_query q = { .nodes = got };
	int32_t w;

	q.n = (uint32_t)rnd(3) + 1;
	rnd_amt(req, 3);
	q.req = req;
	q.d = rnd(6) ? rnd(o->W / 2 + 2) + 1 : FW_RTL_INF;
	q.smin = rnd(o->W + 4);
	q.smax = rnd(3) ? FW_RTL_INF : q.smin + rnd(o->W);
	q.cand = NULL;
	if (repeat_probes) {
		q.smin = rnd(4) ? 0 : 1;
		q.d = rnd(3) ? rnd(3) + 1 : FW_RTL_INF;
		/* nodes with index % 3 != 0, or those of them also % 2 */
		if (rnd(3)) {
			int sub = rnd(2);

			fw_bitset_clear_all(cand);
			for (uint32_t i = 0; i < o->nn; i++)
				if (i % 3 && (!sub || i % 2))
					fw_bitset_set(cand, i);
			q.cand = cand;
		}
	} else if (rnd(2)) {
		fw_bitset_clear_all(cand);
		for (uint32_t i = 0; i < o->nn; i++)
			if (rnd(3))
				fw_bitset_set(cand, i);
		q.cand = cand;
	}
	w = o_earliest(o, q.cand, q.n, req, q.d, q.smin, q.smax, want);
	ck_assert_int_eq(fw_rtl_earliest(r, &q), w);
	ck_assert_int_eq(q.start, w);
	for (uint32_t k = 0; w >= 0 && k < q.n; k++)
		ck_assert_uint_eq(got[k], want[k]);
	/* the nodes that fit at one slot, up to n of them (fit_at) */
	{
		struct fw_rtl_query f = q;
		int32_t c = repeat_probes ? q.smin : rnd(o->W + 4);
		uint32_t m = 0;

		f.n = (uint32_t)rnd(8) + 1;
		for (uint32_t i = 0; i < o->nn && m < f.n; i++)
			if ((!f.cand || fw_bitset_test(f.cand, i)) &&
			    o_fits(o, i, c, f.d, req))
				want[m++] = i;
		ck_assert_uint_eq(fw_rtl_fit_at(r, &f, c), m);
		for (uint32_t k = 0; k < m; k++)
			ck_assert_uint_eq(got[k], want[k]);
	}
	/* the same question about one node */
	{
		uint32_t i = (uint32_t)rnd(o->nn);

		fw_bitset_clear_all(cand);
		fw_bitset_set(cand, i);
		w = o_earliest(o, cand, 1, req, q.d, q.smin, q.smax, want);
		ck_assert_int_eq(fw_rtl_node_earliest(r, i, req, q.d, q.smin,
						      q.smax), w);
	}
}

static void prop_world(uint64_t seed, bool big)
{
	static struct oracle o;
	bool bulk = seed % 3 == 2;
	struct span sp[256];
	uint32_t nsp = 0;
	struct fw_rtl *r;
	struct fw_bitset *cand;

	rnd_state = seed;
	memset(&o, 0, sizeof(o));
	if (big) {	/* more than one block, buckets up to 40 slots */
		o.nn = (uint32_t)rnd(PMAXN - 64) + 65;
		o.W = rnd(PMAXW - 99) + 100;
	} else {
		o.nn = (uint32_t)(seed % 3 == 0 ? rnd(PMAXN) + 1 : rnd(6) + 1);
		o.W = rnd(36) + 4;
	}
	r = fw_rtl_new(o.nn, PK, o.W);
	cand = fw_bitset_new(o.nn);
	/* A third of the worlds are loaded in bulk (capacities and the first
	 * 60 changes, with a refine in some), as a plan loads its running
	 * jobs: the tables rebuilt at the end must be the incremental ones. */
	if (bulk)
		fw_rtl_bulk_begin(r);
	for (uint32_t i = 0; i < o.nn; i++)
		prop_capacity(r, &o);
	for (int step = 0; step < 300; step++) {
		int op = rnd(20);

		/* and again over steps 150-179, where a few nodes change:
		 * only theirs are rebuilt */
		if (bulk && step == 150)
			fw_rtl_bulk_begin(r);
		if (bulk && (step == 60 || step == 180)) {
			fw_rtl_bulk_end(r);
			check_buckets(r, &o);
		}
		if (bulk && (step < 60 || (step >= 150 && step < 180))) {
			if (op >= 13)	/* no table query in bulk */
				op = op % 12;
			/* a recut in bulk rebuilds every node, changed or
			 * not (the odd seeds refine later) */
			if ((step == 30 && seed % 12 == 2) ||
			    (step == 160 && seed % 12 == 8))
				fw_rtl_refine(r);
		}

		if (op < 8)
			prop_take(r, &o, sp, &nsp);
		else if (op < 9)
			prop_take_upto(r, &o, &nsp);
		else if (op < 12)
			prop_give(r, &o, sp, &nsp);
		else if (op < 13)
			prop_capacity(r, &o);
		else
			prop_search(r, &o, cand);
		if (step % 25 == 0)
			check_all_slots(r, &o);
		if (step % 100 == 0 && !(bulk && step < 60))	/* 100: not in bulk */
			check_buckets(r, &o);
		/* A deep plan's finer buckets (fw_rtl_refine), once or twice
		 * in half of the worlds: the same answers from then on. */
		if ((step == 120 || step == 220) && seed % 2) {
			uint32_t was = fw_rtl_refined(r);

			fw_rtl_refine(r);
			ck_assert_uint_eq(fw_rtl_refined(r), was + 1);
			check_buckets(r, &o);
		}
	}
	check_all_slots(r, &o);
	check_buckets(r, &o);
	fw_bitset_free(cand);
	fw_rtl_free(r);
}

START_TEST(property_random_worlds)
{
	for (uint64_t seed = 1; seed <= 300; seed++)
		prop_world(seed, false);
}
END_TEST

START_TEST(property_long_windows)
{
	for (uint64_t seed = 1001; seed <= 1008; seed++)
		prop_world(seed, true);
}
END_TEST

/* Start-now probes that follow each other at the same slots, with takes
 * in between and the odd give or capacity change (which must forget what
 * earlier probes learned): every answer is still the oracle's. */
START_TEST(property_repeated_probes)
{
	repeat_probes = true;
	for (uint64_t seed = 2001; seed <= 2150; seed++)
		prop_world(seed, seed % 2 == 0);
	repeat_probes = false;
}
END_TEST

static Suite *rtl_suite(void)
{
	Suite *s = suite_create("rtl");
	TCase *tc = tcase_create("hand");
	TCase *tp = tcase_create("property");

	tcase_add_test(tc, eight_one_cpu_jobs_share_a_node);
	tcase_add_test(tc, next_change_walks_the_changes);
	tcase_add_test(tc, memory_not_cpus_limits);
	tcase_add_test(tc, huge_amounts_and_many_resources);
	tcase_add_test(tc, a100_is_not_v100);
	tcase_add_test(tc, earliest_as_running_jobs_end);
	tcase_add_test(tc, fit_that_does_not_last);
	tcase_add_test(tc, give_back_and_capacity);
	tcase_add_test(tc, window_end_is_forever);
	tcase_add_test(tc, take_nodes_all_or_nothing);
	tcase_add_test(tc, take_upto_takes_what_is_free);
	tcase_add_test(tc, fit_at_counts_the_nodes_that_fit);
	tcase_add_test(tc, candidates_limits_and_blocks);
	tcase_add_test(tc, bad_arguments);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tp, 120);
	tcase_add_test(tp, property_random_worlds);
	tcase_add_test(tp, property_long_windows);
	tcase_add_test(tp, property_repeated_probes);
	suite_add_tcase(s, tp);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rtl_suite());

	return fw_test_run(sr);
}
