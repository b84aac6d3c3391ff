/*
 * fairway-sim-gentrace - a synthetic, deterministic workload in SWF.
 *
 * Used for the simulator's performance measurement (doc/perf-sim.md) and
 * for trying policies on a busy cluster.  The same seed always gives the
 * same trace.  The shape follows what parallel workload archives show:
 *   - arrivals: Poisson, three times busier on weekday working hours than
 *     at night, half as busy at weekends;
 *   - sizes: mostly small, powers of two favoured (1 node 30%, up to an
 *     eighth of the machine 50%, up to a half rarely);
 *   - time limits from a short list (30 min .. 2 days); run time a random
 *     fraction of the limit, with early failures (15%) and jobs that run
 *     into their limit (8%);
 *   - users: Zipf-like activity over 120 users in 24 accounts (groups).
 *
 * usage: fairway-sim-gentrace [--jobs N] [--nodes N] [--cpus-per-node N]
 *                             [--days N] [--load F] [--seed N]
 * Output: SWF on stdout (job number, submit, -1 wait, run time, procs,
 * requested procs and time, user, group, queue 1 or 2).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_common.h"

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	return fw_splitmix64(&r->s);
}

static double unif(struct rng *r)
{
	return (double)(rnd(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Arrival rate multiplier at time t (seconds since a Monday 00:00). */
static double busy_factor(int64_t t)
{
	int64_t day = (t / 86400) % 7, hour = (t % 86400) / 3600;
	double f = hour >= 8 && hour < 18 ? 3.0 : 1.0;

	return day >= 5 ? f * 0.5 : f;
}

static uint32_t job_nodes(struct rng *r, uint32_t max)
{
	double u = unif(r);
	uint32_t n;

	if (u < 0.30)
		n = 1;
	else if (u < 0.80) { /* a power of two up to max/8 */
		uint32_t top = max / 8 > 2 ? max / 8 : 2;
		int k = 1 + (int)(unif(r) * log2((double)top));
		n = 1u << k;
	} else if (u < 0.96) /* anything up to max/4 */
		n = 2 + (uint32_t)(unif(r) * (max / 4 > 2 ? max / 4 - 2 : 1));
	else /* big jobs: up to half of the machine */
		n = max / 4 + (uint32_t)(unif(r) * (max / 4 > 1 ? max / 4 : 1));
	return n < 1 ? 1 : n > max ? max : n;
}

static int64_t job_limit(struct rng *r)
{
	static const int64_t lim[] = { 1800, 3600, 7200, 4 * 3600, 8 * 3600,
				       12 * 3600, 24 * 3600, 48 * 3600 };
	static const double cum[] = { 0.15, 0.32, 0.50, 0.65, 0.78, 0.86, 0.96, 1.0 };
	double u = unif(r);

	for (int i = 0; i < 8; i++)
		if (u < cum[i])
			return lim[i];
	return lim[7];
}

static int64_t job_run(struct rng *r, int64_t limit)
{
	double u = unif(r);

	if (u < 0.15) /* fails early */
		return 1 + (int64_t)(unif(r) * 0.05 * (double)limit);
	if (u < 0.23) /* runs into its limit (SWF shows the limit) */
		return limit;
	return (int64_t)((0.1 + 0.9 * unif(r)) * (double)limit);
}

/* Zipf-like user choice: user k with weight 1/(k+1). */
static int pick_user(struct rng *r, int users, const double *cum)
{
	double u = unif(r) * cum[users - 1];
	int lo = 0, hi = users - 1;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (cum[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static long arg_long(int argc, char **argv, const char *name, long dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtol(argv[i + 1], NULL, 10);
	return dflt;
}

static double arg_double(int argc, char **argv, const char *name, double dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtod(argv[i + 1], NULL);
	return dflt;
}

int main(int argc, char **argv)
{
	long jobs = arg_long(argc, argv, "--jobs", 30000);
	long nodes = arg_long(argc, argv, "--nodes", 320);
	long cpn = arg_long(argc, argv, "--cpus-per-node", 32);
	long days = arg_long(argc, argv, "--days", 365);
	double load = arg_double(argc, argv, "--load", 1.0);
	struct rng r = { (uint64_t)arg_long(argc, argv, "--seed", 20240101) };
	enum { USERS = 120, GROUPS = 24 };
	double cum[USERS];
	/* 2024-01-01 was a Monday. */
	const int64_t unix_start = 1704067200;

	if (jobs < 1 || nodes < 1 || cpn < 1 || days < 1 || load <= 0) {
		fprintf(stderr, "usage: fairway-sim-gentrace [--jobs N] [--nodes N] "
				"[--cpus-per-node N] [--days N] [--load F] [--seed N]\n");
		return 2;
	}
	for (int k = 0; k < USERS; k++)
		cum[k] = (k ? cum[k - 1] : 0) + 1.0 / (k + 1);
	printf("; Version: 2.2\n; Computer: fairway-sim-gentrace synthetic cluster\n");
	printf("; UnixStartTime: %lld\n; TimeZoneString: UTC\n", (long long)unix_start);
	printf("; MaxNodes: %ld\n; MaxProcs: %ld\n", nodes, nodes * cpn);
	printf("; Note: seed %llu, %ld jobs over %ld days, load factor %.2f\n",
	       (unsigned long long)r.s, jobs, days, load);
	/* Mean gap so that `jobs` arrivals fill `days`, shaped by busy_factor
	   (whose week average is (5*(10*3+14)+2*(10*1.5+14*0.5))/(7*24)). */
	double mean_factor = (5.0 * (10 * 3 + 14) + 2.0 * (10 * 1.5 + 14 * 0.5)) / (7 * 24);
	double base_rate = (double)jobs / ((double)days * 86400) / mean_factor * load;
	double t = 0;
	for (long id = 1; id <= jobs; id++) {
		/* thinning-free approximation: exponential gap at the current rate */
		double rate = base_rate * busy_factor((int64_t)t);
		t += -log(1 - unif(&r)) / rate;
		uint32_t n = job_nodes(&r, (uint32_t)nodes);
		int64_t limit = job_limit(&r);
		int64_t run = job_run(&r, limit);
		int user = pick_user(&r, USERS, cum);
		int group = user % GROUPS;
		int queue = limit <= 7200 ? 2 : 1; /* short / normal QOS */
		printf("%ld %lld -1 %lld %ld -1 -1 %ld %lld -1 1 %d %d -1 %d -1 -1 -1\n",
		       id, (long long)t, (long long)run, (long)n * cpn, (long)n * cpn,
		       (long long)limit, user + 1, group + 1, queue);
	}
	return 0;
}
