/*
 * bench_rtl - benchmark of fw_rtl, the per-resource node timeline
 * (doc/perf-rtl.md).
 *
 * World: 10,000 nodes of 64 CPUs / 256 GB (every 10th also 4 GPUs) and a
 * count-only tmpdisk, a window of 1,440 slots (1 day at 60 s).  Running
 * jobs fill about 70 % of the CPUs, ending one by one.  Then 100,000
 * pending jobs of mixed shapes are planned the way a conservative
 * backfill pass would: each one's earliest start is searched and its
 * resources are taken there (a reservation or a start).  The time covers
 * the searches and takes only; building the world is timed apart (CPU
 * time of the process).
 *
 * Usage: bench_rtl [mixed|narrow|wide] [jobs] (default: all three cases,
 * 10,000 jobs each, so that 'make bench' stays short; the 100,000-job
 * numbers of doc/perf-rtl.md come from 'bench_rtl narrow 100000' etc.).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "fw_rtl.h"

enum { CPU, MEM, GPU, TMPDISK, NRES };

#define NNODES 10000
#define WSLOTS 1440

struct stats {
	uint64_t now, later, none, scanned, skipped, nodes_booked;
};

/* CPU time of the process: the VM is shared, and wall-clock time
 * measures the other engineers' builds as much as this code. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t rnd(uint64_t *s, uint32_t n)
{
	return (uint32_t)(fw_splitmix64(s) % n);
}

/* Log-uniform in [1, max]: as many 1-2 as 32-64 per doubling. */
static uint32_t log_uniform(uint64_t *s, uint32_t max)
{
	uint32_t bits = 0, v;

	while ((1u << (bits + 1)) <= max)
		bits++;
	v = 1u << rnd(s, bits + 1);
	v += rnd(s, v);
	return v > max ? max : v;
}

static struct fw_rtl *world(struct fw_bitset *gpu_nodes, uint64_t *seed)
{
	struct fw_rtl *r = fw_rtl_new(NNODES, NRES, WSLOTS);
	int64_t cap[NRES] = { 64, 262144, 0, 1000 };

	for (uint32_t i = 0; i < NNODES; i++) {
		cap[GPU] = i % 10 == 9 ? 4 : 0;
		if (cap[GPU])
			fw_bitset_set(gpu_nodes, i);
		fw_rtl_set_capacity(r, i, cap);
	}
	/* Running jobs: 1-4 per node, 70 % of the CPUs in all. */
	for (uint32_t i = 0; i < NNODES; i++) {
		int64_t left = 45, amt[NRES] = { 0 };

		while (left > 0) {
			amt[CPU] = 1 + rnd(seed, 32);
			if (amt[CPU] > left)
				amt[CPU] = left;
			amt[MEM] = amt[CPU] * 2048;
			amt[GPU] = cap[GPU] && i % 10 == 9 ? rnd(seed, 2) : 0;
			left -= amt[CPU];
			fw_rtl_take(r, i, 0, 1 + (int32_t)rnd(seed, 120), amt);
		}
	}
	return r;
}

struct shape {
	uint32_t n;
	int32_t d;
	int64_t req[NRES];
	bool gpu;
};

static void job_shape(const char *mode, uint64_t *s, struct shape *j)
{
	memset(j, 0, sizeof(*j));
	j->d = 10 + (int32_t)rnd(s, 111);	/* 10-120 slots */
	if (!strcmp(mode, "narrow")) {
		j->n = 1;
		j->req[CPU] = log_uniform(s, 8);
	} else if (!strcmp(mode, "wide")) {
		j->n = log_uniform(s, 128);
		j->req[CPU] = 64;
	} else {
		j->n = rnd(s, 10) < 8 ? 1 : log_uniform(s, 64);
		j->req[CPU] = log_uniform(s, 64);
	}
	j->req[MEM] = j->req[CPU] * (1024 << rnd(s, 4));	/* 1-8 GB/CPU */
	if (j->req[MEM] > 262144)
		j->req[MEM] = 262144;
	j->gpu = rnd(s, 20) == 0;
	if (j->gpu) {
		j->req[GPU] = 1 + rnd(s, 4);
		if (j->n > 16)
			j->n = 16;
	}
	j->req[TMPDISK] = rnd(s, 4) == 0 ? 100 : 0;
}

static void plan_one(struct fw_rtl *r, const struct shape *j,
		     const struct fw_bitset *gpu_nodes, uint32_t *nodes,
		     struct stats *st)
{
	struct fw_rtl_query q = { .n = j->n, .req = j->req, .d = j->d,
				  .smin = 0, .smax = WSLOTS - 1,
				  .nodes = nodes };

	q.cand = j->gpu ? gpu_nodes : NULL;
	fw_rtl_earliest(r, &q);
	st->scanned += q.nodes_scanned;
	st->skipped += q.blocks_skipped;
	if (q.start < 0) {
		st->none++;
		return;
	}
	if (fw_rtl_take_nodes(r, nodes, j->n, q.start, q.start + j->d,
			      j->req)) {
		fprintf(stderr, "bench_rtl: take after search failed\n");
		exit(1);
	}
	st->nodes_booked += j->n;
	if (q.start == 0)
		st->now++;
	else
		st->later++;
}

static uint64_t total_points(const struct fw_rtl *r)
{
	uint64_t p = 0;

	for (uint32_t i = 0; i < NNODES; i++)
		p += fw_rtl_npoints(r, i);
	return p;
}

static void run(const char *mode, uint32_t njobs)
{
	uint64_t seed = 42;
	struct fw_bitset *gpu_nodes = fw_bitset_new(NNODES);
	uint32_t *nodes = malloc(NNODES * sizeof(*nodes));
	struct stats st = { 0 };
	double t0 = now_s(), t1, t2;
	struct fw_rtl *r = world(gpu_nodes, &seed);
	struct shape j;

	t1 = now_s();
	for (uint32_t k = 0; k < njobs; k++) {
		job_shape(mode, &seed, &j);
		plan_one(r, &j, gpu_nodes, nodes, &st);
	}
	t2 = now_s();
	printf("%-6s %u jobs: CPU time: world %.0f ms, plan %.0f ms "
	       "(%.2f us/job); "
	       "start now %llu, later %llu, none %llu; node lists scanned "
	       "%.1f/job, blocks skipped %.1f/job; points %.1f/node; "
	       "timeline %.1f MB\n", mode, njobs, (t1 - t0) * 1e3,
	       (t2 - t1) * 1e3, (t2 - t1) * 1e6 / njobs,
	       (unsigned long long)st.now, (unsigned long long)st.later,
	       (unsigned long long)st.none, (double)st.scanned / njobs,
	       (double)st.skipped / njobs,
	       (double)total_points(r) / NNODES,
	       fw_rtl_mem_bytes(r) / 1048576.0);
	fw_rtl_free(r);
	fw_bitset_free(gpu_nodes);
	free(nodes);
}

int main(int argc, char **argv)
{
	uint32_t njobs = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) :
			 10000;
	struct rusage ru;

	if (argc > 1) {
		run(argv[1], njobs);
	} else {
		run("mixed", njobs);
		run("narrow", njobs);
		run("wide", njobs);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("max RSS %.1f MB\n", ru.ru_maxrss / 1024.0);
	return 0;
}
