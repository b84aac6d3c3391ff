/*
 * bench_prio - cost of a full priority recomputation: 100,000 pending jobs
 * with every factor of the model enabled (Slurm's multifactor terms with
 * three weighted TRES, credentials, fair-share, resources, service, targets,
 * usage, boosts, base+growth, term and group caps, PriorityScale), on one
 * core.  Also times the accrual ledger's tick over the same jobs and the
 * paths with full breakdown (sprio, explain).  Target: < 50 ms per
 * recomputation.
 *
 * Method: jobs are generated once (deterministic LCG); each measurement is
 * repeated REPS times and the minimum and median wall-clock times
 * (CLOCK_MONOTONIC) are reported.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fw_accrue.h"
#include "fw_prio.h"

#define NJOBS 100000
#define REPS 15
#define NUSERS 2000
#define NACCOUNTS 200

static const char *slurm_conf[] = {
	"PriorityWeightAge=10000", "PriorityWeightFairshare=20000",
	"PriorityWeightJobSize=3000", "PriorityWeightPartition=4000",
	"PriorityWeightQOS=5000", "PriorityWeightAssoc=600",
	"PriorityWeightTRES=CPU=700,Mem=0.5G,GRES/gpu=900", "PriorityMaxAge=14-0",
	"PriorityFlags=SMALL_RELATIVE_TO_TIME,INCR_ONLY", "PriorityFavorSmall=YES",
};

static const char *fairway_conf[] = {
	"PriorityWeightCredUser=1 PriorityWeightCredAccount=2 PriorityWeightCredQOS=3",
	"PriorityWeightCredPartition=4 PriorityWeightQueuePriority=1000",
	"PriorityWeightFS=1/1000 PriorityWeightNodes=1.5 PriorityWeightCPUs=-0.7",
	"PriorityWeightMemGB=0.3 PriorityWeightGPUs=11 PriorityWeightWalltime=0.01",
	"PriorityWeightProcSeconds=1e-6 PriorityWeightPE=2 PriorityWeightQueueTime=0.9",
	"PriorityWeightXFactor=13 PriorityWeightEligibleTime=1/864000",
	"PriorityWeightBypass=5 PriorityWeightStartCount=-7 PriorityWeightDeadline=300",
	"PriorityWeightUserPrio=0.5 PriorityWeightTargetQueueTime=50",
	"PriorityWeightTargetXFactor=40 PriorityWeightConsumed=1e-5",
	"PriorityWeightRemaining=-1e-5 PriorityWeightPercent=3",
	"PriorityWeightExecutionTime=0.001",
	"PriorityCapXFactor=2000 PriorityCapAge=7777 PriorityCapQueueTime=5000",
	"PriorityGroupCapRes=5000 PriorityGroupWeightService=1.3",
	"PriorityGroupCapTarget=10000 PriorityScale=10",
	"AccrueMaxJobsPerUser=20 AccrueMaxJobsPerAccount=200",
	"QOS=normal Priority=10 BasePriority=19760 GrowthPerMinute=1 TargetQueueTime=4:00:00",
	"QOS=short Priority=20 BasePriority=19880 GrowthPerMinute=1 TargetXFactor=3",
	"QOS=devel Priority=30 BasePriority=20000 GrowthPerMinute=1 QueueTimeWeight=5",
	"QOS=optimist BasePriority=1 GrowthPerMinute=1 BasePriorityMax=10080 XFactorWeight=2",
	"Partition=normal Priority=1 BasePriority=100 GrowthPerMinute=0.5",
	"Partition=bigmem Priority=2",
	"Partition=accel Priority=3",
	"Boost=payday Account=a7 Priority=50000 When=monthly:25-28",
	"Boost=weekend Account=a9 Priority=1000 When=weekly:Sat-Sun,daily:18:00-06:00",
	"Boost=always QOS=devel Priority=5 When=daily:00:00-24:00",
};

static void die(const char *what, const struct fw_err *e)
{
	char buf[600];

	fprintf(stderr, "bench_prio: %s: %s\n", what, fw_err_str(e, buf, sizeof(buf)));
	exit(1);
}

static void feed_line(struct fw_prio_conf *c, const char *line)
{
	struct fw_kv kv;
	struct fw_err e;
	bool used[FW_KV_MAX] = { false };

	if (fw_kv_parse(line, &kv, &e) || fw_prio_conf_line(c, &kv, used, &e) == FW_CONF_ERR)
		die(line, &e);
	for (int i = 0; i < kv.n; i++)
		if (!used[i]) {
			fprintf(stderr, "bench_prio: unused %s\n", kv.key[i]);
			exit(1);
		}
	fw_kv_free(&kv);
}

static struct fw_prio_conf *make_conf(void)
{
	struct fw_prio_conf *c = fw_prio_conf_new();
	const char *tres[] = { "cpu", "mem", "energy", "node", "billing", "gres/gpu" };
	struct fw_err e;
	char line[64];

	for (size_t i = 0; i < sizeof(slurm_conf) / sizeof(slurm_conf[0]); i++) {
		struct fw_kv kv;

		if (fw_kv_parse(slurm_conf[i], &kv, &e))
			die(slurm_conf[i], &e);
		/* the value of PriorityWeightTRES contains '=': take the rest */
		if (fw_prio_conf_slurm(c, kv.key[0], strchr(slurm_conf[i], '=') + 1, &e) !=
		    FW_CONF_OK)
			die(slurm_conf[i], &e);
		fw_kv_free(&kv);
	}
	for (size_t i = 0; i < sizeof(fairway_conf) / sizeof(fairway_conf[0]); i++)
		feed_line(c, fairway_conf[i]);
	for (int u = 0; u < NUSERS; u += 2) {
		snprintf(line, sizeof(line), "User=u%d Priority=%d", u, u % 17 - 8);
		feed_line(c, line);
	}
	for (int a = 0; a < NACCOUNTS; a++) {
		snprintf(line, sizeof(line), "Account=a%d Priority=%d", a, a % 5);
		feed_line(c, line);
	}
	if (fw_prio_bind_tres(c, tres, 6, &e) || fw_prio_conf_finish(c, &e))
		die("finish", &e);
	return c;
}

static uint32_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static void make_jobs(const struct fw_prio_conf *c, fw_time_t now,
		      struct fw_prio_job *jobs, uint64_t (*tres)[6],
		      const uint64_t (*part_tot)[6])
{
	static const char *qos[] = { "normal", "short", "devel", "optimist" };
	static const char *part[] = { "normal", "bigmem", "accel" };
	int qidx[4], pidx[3];
	uint64_t s = 12345;
	char name[32];

	for (int i = 0; i < 4; i++)
		qidx[i] = fw_prio_resolve(c, FW_PRIO_QOS, qos[i]);
	for (int i = 0; i < 3; i++)
		pidx[i] = fw_prio_resolve(c, FW_PRIO_PARTITION, part[i]);
	for (int i = 0; i < NJOBS; i++) {
		struct fw_prio_job *j = &jobs[i];
		uint32_t u = lcg(&s) % NUSERS, a = lcg(&s) % NACCOUNTS, p = lcg(&s) % 3;

		fw_prio_job_init(j);
		j->job_id = (uint32_t)(1000 + i);
		j->uid = u;
		j->account_id = a;
		/* names are resolved once per job, as an adapter does */
		snprintf(name, sizeof(name), "u%u", u);
		j->user = fw_prio_resolve(c, FW_PRIO_USER, name);
		snprintf(name, sizeof(name), "a%u", a);
		j->account = fw_prio_resolve(c, FW_PRIO_ACCOUNT, name);
		j->qos = qidx[lcg(&s) % 4];
		j->partition = pidx[p];
		j->submit_time = now - lcg(&s) % (10 * 86400);
		j->eligible_time = j->submit_time + (lcg(&s) % 4 ? 0 : lcg(&s) % 600);
		j->accrue_time = j->eligible_time;
		j->held = lcg(&s) % 50 == 0;
		j->deadline = lcg(&s) % 10 ? 0 : now + lcg(&s) % 86400;
		j->nodes = 1 + lcg(&s) % 16;
		j->cpus = j->nodes * (1 + lcg(&s) % 64);
		j->mem_mb = (uint64_t)j->cpus * (1000 + lcg(&s) % 4000);
		j->gpus = p == 2 ? lcg(&s) % 8 : 0;
		j->time_limit_min = 10 + lcg(&s) % 4310;
		tres[i][0] = j->cpus;
		tres[i][1] = j->mem_mb;
		tres[i][3] = j->nodes;
		tres[i][5] = j->gpus;
		j->tres = tres[i];
		j->part_tres_total = part_tot[p];
		j->nice = (int32_t)(lcg(&s) % 100) - 50;
		j->site_factor = lcg(&s) % 10;
		j->user_prio = (int32_t)(lcg(&s) % 2048) - 1024;
		j->bypass_count = lcg(&s) % 5;
		j->start_count = lcg(&s) % 2;
		j->fairshare = (lcg(&s) % 1000001) / 1e6;
		j->part_prio_raw = p + 1;
		j->part_prio_norm = (p + 1) / 3.0;
		j->qos_prio_raw = lcg(&s) % 11;
		j->qos_prio_norm = j->qos_prio_raw / 10.0;
		j->assoc_prio_raw = a % 7;
		j->assoc_prio_norm = (a % 7) / 6.0;
		j->prev_priority = lcg(&s) % 4 ? 0 : lcg(&s) % 100000;
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *ms, int n, size_t per)
{
	qsort(ms, (size_t)n, sizeof(double), cmp_double);
	printf("%-44s min %8.2f ms  median %8.2f ms  (%.0f ns/job)\n", what, ms[0],
	       ms[n / 2], ms[n / 2] * 1e6 / (double)per);
}

int main(void)
{
	static struct fw_prio_job jobs[NJOBS];
	static uint64_t tres[NJOBS][6];
	static const uint64_t part_tot[3][6] = {
		{ 64000, 256000000, 0, 1000, 0, 0 },
		{ 8000, 128000000, 0, 100, 0, 0 },
		{ 4000, 32000000, 0, 50, 0, 400 },
	};
	static uint32_t prio[NJOBS];
	struct fw_prio_conf *c = make_conf();
	fw_time_t now = 1769428800; /* Mon 2026-01-26 12:00 UTC: payday boost on */
	struct fw_prio_ctx ctx = { .now = now, .total_nodes = 1150, .total_cpus = 76000,
				   .total_mem_mb = 416000000 };
	struct fw_accrue *ledger = fw_accrue_new(c);
	double ms[REPS], t0, sum = 0;
	struct fw_prio_result r;

	make_jobs(c, now, jobs, tres, part_tot);

	/* ledger: first tick creates the entries, later ticks are steady state */
	fw_accrue_tick(ledger, jobs, NJOBS, now - 300);
	for (int k = 0; k < REPS; k++) {
		t0 = now_ms();
		fw_accrue_tick(ledger, jobs, NJOBS, now + k);
		ms[k] = now_ms() - t0;
	}
	report("accrual ledger tick (100k jobs)", ms, REPS, NJOBS);

	for (int k = 0; k < REPS; k++) {
		t0 = now_ms();
		fw_prio_compute_batch(c, &ctx, jobs, NJOBS, prio, NULL);
		ms[k] = now_ms() - t0;
	}
	report("fw_prio_compute_batch (100k jobs, all on)", ms, REPS, NJOBS);

	for (int k = 0; k < 3; k++) {
		t0 = now_ms();
		for (int i = 0; i < NJOBS; i++)
			sum += fw_prio_compute(c, &ctx, &jobs[i], &r);
		ms[k] = now_ms() - t0;
	}
	report("fw_prio_compute one by one (100k)", ms, 3, NJOBS);

	{
		struct fw_prio_result *all = malloc(NJOBS * sizeof(*all));

		for (int k = 0; k < 3; k++) {
			t0 = now_ms();
			fw_prio_compute_many(c, &ctx, jobs, NJOBS, all);
			ms[k] = now_ms() - t0;
		}
		report("fw_prio_compute_many, full breakdown (100k)", ms, 3, NJOBS);
		free(all);
	}

	{
		uint64_t check = 0;

		for (int i = 0; i < NJOBS; i++)
			check += prio[i];
		printf("checksum %llu (sum %.0f)\n", (unsigned long long)check, sum);
	}
	fw_accrue_free(ledger);
	fw_prio_conf_free(c);
	return 0;
}
