/*
 * bench_fs - cost of the fair-share module on 10,000 associations.
 *
 * Tree: root, 20 accounts, 10 sub-accounts each (200), and 9,779 users
 * spread over the sub-accounts (10,000 nodes).  Every user has usage.
 * For each formula it times one full recomputation (fw_fs_advance by one
 * PriorityCalcPeriod of 300 s, then fw_fs_compute) and reports the median
 * and the maximum over the runs; window decay is timed with a one-day
 * advance (ring shift and refresh of every node).  It also times building
 * the tree, charging every user once, rebuilding with usage carried over,
 * and a state save/load.  Budget: a recomputation under 10 ms; exits 1 if
 * a median is over budget.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fw_fairshare.h"

#define N_TOP 20
#define N_SUB 10
#define N_NODES 10000
#define RUNS 41
#define BUDGET_MS 10.0

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static struct fw_fs_conf *make_conf(const char *const *slurm,
				    const char *const *lines)
{
	struct fw_fs_conf *c = fw_fs_conf_new();
	struct fw_err err = { 0 };
	char key[64];

	for (int i = 0; slurm && slurm[i]; i++) {
		const char *eq = strchr(slurm[i], '=');

		snprintf(key, sizeof(key), "%.*s", (int)(eq - slurm[i]), slurm[i]);
		if (fw_fs_conf_slurm(c, key, eq + 1, &err) != FW_CONF_OK)
			goto fail;
	}
	for (int i = 0; lines && lines[i]; i++) {
		struct fw_kv kv;
		bool used[FW_KV_MAX] = { false };

		if (fw_kv_parse(lines[i], &kv, &err) ||
		    fw_fs_conf_line(c, &kv, used, &err) != FW_CONF_OK)
			goto fail;
		fw_kv_free(&kv);
	}
	if (fw_fs_conf_finish(c, &err) == FW_CONF_OK)
		return c;
fail:
	fprintf(stderr, "bench_fs: configuration: %s\n", err.msg);
	exit(2);
}

/* 10,000 nodes as the plugin would add them from assoc_mgr (with ids). */
static struct fw_fs_tree *build(const struct fw_fs_conf *c)
{
	struct fw_fs_tree *t = fw_fs_tree_new(c);
	struct fw_err err = { 0 };
	char a[32], s[32], u[32];
	uint32_t id = 2;
	int n_users = N_NODES - 1 - N_TOP - N_TOP * N_SUB;

	fw_fs_set_ext_id(t, 0, 1);
	for (int i = 0; i < N_TOP; i++) {
		snprintf(a, sizeof(a), "dept%d", i);
		fw_fs_add_account(t, a, NULL, (uint32_t)(10 + i), id++, &err);
		for (int j = 0; j < N_SUB; j++) {
			snprintf(s, sizeof(s), "proj%d_%d", i, j);
			fw_fs_add_account(t, s, a, (uint32_t)(1 + j),
					  id++, &err);
		}
	}
	for (int k = 0; k < n_users; k++) {
		int i = k % N_TOP, j = (k / N_TOP) % N_SUB;

		snprintf(s, sizeof(s), "proj%d_%d", i, j);
		snprintf(u, sizeof(u), "user%d", k);
		if (fw_fs_add_user(t, s, u, (uint32_t)(1 + k % 3), id++, &err) < 0) {
			fprintf(stderr, "bench_fs: %s\n", err.msg);
			exit(2);
		}
	}
	if (fw_fs_node_count(t) != N_NODES) {
		fprintf(stderr, "bench_fs: built %zu nodes\n", fw_fs_node_count(t));
		exit(2);
	}
	return t;
}

/* One job per user, 1..64 CPUs for up to 2 days. */
static void charge_all(struct fw_fs_tree *t, fw_time_t now)
{
	uint64_t seed = 42;

	for (size_t i = 0; i < fw_fs_node_count(t); i++) {
		struct fw_fs_values v;

		fw_fs_node_values(t, (int)i, &v);
		if (!v.is_user)
			continue;
		fw_fs_charge(t, (int)i, (double)(1 + lcg(&seed) % 64),
			     now - (fw_time_t)(lcg(&seed) % (2 * 86400)), now);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct row {
	const char *name;
	const char *const *slurm, *const *lines;
	int step;  /* advance per recomputation, seconds */
};

static int bench_formula(const struct row *r)
{
	struct fw_fs_conf *c = make_conf(r->slurm, r->lines);
	struct fw_fs_tree *t = build(c);
	fw_time_t now = 1700000000;
	double ms[RUNS], sink = 0;

	fw_fs_set_capacity(t, 20000);
	fw_fs_advance(t, now);
	charge_all(t, now);
	fw_fs_compute(t);
	for (int k = 0; k < RUNS; k++) {
		double t0;

		now += r->step;
		t0 = now_ms();
		fw_fs_advance(t, now);
		fw_fs_compute(t);
		ms[k] = now_ms() - t0;
		sink += fw_fs_factor(t, N_NODES - 1);
	}
	qsort(ms, RUNS, sizeof(double), cmp_double);
	printf("  %-34s median %6.3f ms   max %6.3f ms   %s\n", r->name,
	       ms[RUNS / 2], ms[RUNS - 1], ms[RUNS / 2] < BUDGET_MS ? "ok" : "OVER");
	fw_fs_tree_free(t);
	fw_fs_conf_free(c);
	return (ms[RUNS / 2] < BUDGET_MS && sink == sink) ? 0 : 1;
}

/* Building, charging, rebuild with carry-over, state save and load. */
static void bench_maintenance(void)
{
	static const char *const hl[] = { "PriorityDecayHalfLife=7-0", NULL };
	struct fw_fs_conf *c = make_conf(hl, NULL);
	struct fw_fs_tree *t, *t2;
	struct fw_err err = { 0 };
	double t0, t_build, t_charge, t_first, t_carry, t_save, t_load;
	size_t len, dropped;
	char *buf;

	t0 = now_ms();
	t = build(c);
	t_build = now_ms() - t0;
	fw_fs_advance(t, 1700000000);
	t0 = now_ms();
	charge_all(t, 1700000000);
	t_charge = now_ms() - t0;
	t0 = now_ms();
	fw_fs_compute(t);   /* first one also derives the fair-share levels */
	t_first = now_ms() - t0;
	t0 = now_ms();
	t2 = build(c);
	dropped = fw_fs_tree_carry_usage(t2, t);
	t_carry = now_ms() - t0;
	t0 = now_ms();
	buf = fw_fs_state_save(t, &len);
	t_save = now_ms() - t0;
	t0 = now_ms();
	if (fw_fs_state_load(t2, buf, len, &dropped, &err))
		fprintf(stderr, "bench_fs: load: %s\n", err.msg);
	t_load = now_ms() - t0;
	printf("  build 10,000 nodes (with ids)      %6.3f ms\n", t_build);
	printf("  charge 9,779 jobs                  %6.3f ms (%.0f ns/charge)\n",
	       t_charge, t_charge * 1e6 / 9779);
	printf("  first compute after a (re)build    %6.3f ms\n", t_first);
	printf("  rebuild + carry usage              %6.3f ms (%zu unmatched)\n",
	       t_carry, dropped);
	printf("  state save                         %6.3f ms (%zu bytes)\n",
	       t_save, len);
	printf("  state load                         %6.3f ms\n", t_load);
	free(buf);
	fw_fs_tree_free(t);
	fw_fs_tree_free(t2);
	fw_fs_conf_free(c);
}

int main(void)
{
	static const char *const hl[] = { "PriorityDecayHalfLife=7-0", NULL };
	static const char *const classic[] = { "PriorityDecayHalfLife=7-0",
					       "PriorityFlags=NO_FAIR_TREE", NULL };
	static const char *const oblivious[] = { "PriorityDecayHalfLife=7-0",
						 "PriorityFlags=DEPTH_OBLIVIOUS", NULL };
	static const char *const prop[] = { "FairShareFormula=proportional", NULL };
	static const char *const smu[] = { "FairShareFormula=share_minus_usage", NULL };
	static const char *const smu_win[] = { "FairShareFormula=share_minus_usage",
		"FairShareDecay=window FairShareWindow=1d FairShareWindowCount=7",
		"FairShareWindowFactor=0.7", NULL };
	static const char *const ft_win[] = {
		"FairShareDecay=window FairShareWindow=1d FairShareWindowCount=7",
		NULL };
	const struct row rows[] = {
		{ "fair_tree (half-life)", hl, NULL, 300 },
		{ "classic (half-life)", classic, NULL, 300 },
		{ "depth_oblivious (half-life)", oblivious, NULL, 300 },
		{ "proportional (half-life)", hl, prop, 300 },
		{ "share_minus_usage (half-life)", hl, smu, 300 },
		{ "share_minus_usage (window, +1 day)", NULL, smu_win, 86400 },
		{ "fair_tree (window, +1 day)", NULL, ft_win, 86400 },
	};
	int bad = 0;

	printf("fair-share, %d nodes: advance + compute, %d runs\n", N_NODES, RUNS);
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++)
		bad |= bench_formula(&rows[i]);
	bench_maintenance();
	return bad;
}
