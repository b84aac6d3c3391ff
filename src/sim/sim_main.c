/*
 * fairway-sim - replay a workload through Fairway's policy core.
 *
 * "What would happen with these weights and thresholds?"  The simulator
 * reads a cluster (slurm.conf, topology.conf), an organisation (sacctmgr
 * dump or fairway.conf) and a workload (SWF, CSV or sacct), runs it through
 * the same priority, fair-share and planner code as the plugins, and writes
 * per-job results, a summary and charts.  See fairway-sim(1).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fairway_config.h"
#include "sim_cluster.h"
#include "sim_core.h"
#include "sim_engine.h"
#include "sim_report.h"
#include "sim_trace.h"

struct cli {
	const char *slurm_conf, *fairway_conf, *topology, *dump;
	const char *trace;
	enum sim_trace_format format;
	int ntraces;
	const char *out_dir;
	const char *at;
	struct sim_options sim;
	struct sim_read_opts read;
	bool quiet;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fairway-sim --slurm-conf FILE [--fairway-conf FILE] [--topology FILE]\n"
		"                   [--sacctmgr-dump FILE] (--swf FILE | --csv FILE | --sacct FILE)\n"
		"                   [--policy fifo|easy|conservative|fairway|serial] [--out-dir DIR]\n"
		"                   [--explain JOBID --at TIME] [--skip-bad-lines] [--quiet]\n"
		"                   [--start-time TIME] [--swf-cpus-per-node N] [--swf-dependencies]\n"
		"                   [--bf-on-change]\n"
		"TIME is epoch seconds or YYYY-MM-DDThh:mm[:ss][Z]; --at also takes +DURATION\n"
		"after the first submit (+150m, +2h, +1-00:00:00).\n"
		"See fairway-sim(1).\n");
}

static int die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "fairway-sim: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	usage(stderr);
	return 2;
}

static void print_err(const struct fw_err *e)
{
	char buf[1024];

	fprintf(stderr, "fairway-sim: %s\n", fw_err_str(e, buf, sizeof(buf)));
}

/* ------------------------------------------------------------ progress */

struct progress {
	struct timespec last;
	bool drawn;
};

static void progress_cb(void *ctx, fw_time_t now, fw_time_t begin,
			fw_time_t end, size_t done, size_t total)
{
	struct progress *p = ctx;
	struct timespec t;
	char ts[32];

	clock_gettime(CLOCK_MONOTONIC, &t);
	double dt = (double)(t.tv_sec - p->last.tv_sec) +
		    (double)(t.tv_nsec - p->last.tv_nsec) / 1e9;
	if (p->drawn && dt < 0.1 && done < total)
		return;
	p->last = t;
	p->drawn = true;
	double f = total ? (double)done / (double)total : 1;
	(void)begin;
	(void)end;
	int w = (int)(f * 30);
	fprintf(stderr, "\r[%.*s%*s] %3d%% %.10s %zu/%zu jobs",
		w, "##############################", 30 - w, "", (int)(100 * f),
		sim_fmt_time(now, ts, sizeof(ts)), done, total);
	fflush(stderr);
}

/* ----------------------------------------------------------- arguments */

static int set_trace(struct cli *c, enum sim_trace_format f, const char *v)
{
	c->trace = v;
	c->format = f;
	c->ntraces++;
	return 0;
}

static int parse_args(int argc, char **argv, struct cli *c)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--version")) {
			printf("fairway-sim %s\n", PACKAGE_VERSION);
			exit(0);
		} else if (!strcmp(a, "--skip-bad-lines")) {
			c->read.skip_bad_lines = true;
			takes = false;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			c->quiet = true;
			takes = false;
		} else if (!strcmp(a, "--swf-dependencies")) {
			c->sim.swf_dependencies = true;
			takes = false;
		} else if (!strcmp(a, "--bf-on-change")) {
			c->sim.bf_on_change = true;
			takes = false;
		} else if (!v) {
			return die_usage("%s: missing value or unknown option", a);
		} else if (!strcmp(a, "--slurm-conf")) {
			c->slurm_conf = v;
		} else if (!strcmp(a, "--fairway-conf")) {
			c->fairway_conf = v;
		} else if (!strcmp(a, "--topology")) {
			c->topology = v;
		} else if (!strcmp(a, "--sacctmgr-dump")) {
			c->dump = v;
		} else if (!strcmp(a, "--swf")) {
			set_trace(c, SIM_TRACE_SWF, v);
		} else if (!strcmp(a, "--csv")) {
			set_trace(c, SIM_TRACE_CSV, v);
		} else if (!strcmp(a, "--sacct")) {
			set_trace(c, SIM_TRACE_SACCT, v);
		} else if (!strcmp(a, "--policy")) {
			if (sim_policy_parse(v, &c->sim.policy))
				return die_usage("--policy %s: expected fifo, easy, conservative, fairway or serial", v);
		} else if (!strcmp(a, "--out-dir")) {
			c->out_dir = v;
		} else if (!strcmp(a, "--explain")) {
			uint64_t id;
			if (sim_parse_count(v, UINT32_MAX, &id) || id == 0)
				return die_usage("--explain %s: expected a job id", v);
			c->sim.explain = true;
			c->sim.explain_job = (uint32_t)id;
		} else if (!strcmp(a, "--at")) {
			c->at = v;
		} else if (!strcmp(a, "--start-time")) {
			struct fw_err e;
			if (sim_parse_time(v, &c->read.start_time, &e))
				return die_usage("--start-time %s: expected epoch seconds or an ISO 8601 time", v);
			c->read.start_time_set = true;
		} else if (!strcmp(a, "--swf-cpus-per-node")) {
			uint64_t n;
			if (sim_parse_count(v, 100000000, &n) || n == 0)
				return die_usage("--swf-cpus-per-node %s: expected a positive number", v);
			c->read.cpus_per_node = (uint32_t)n;
		} else {
			return die_usage("unknown option %s", a);
		}
		if (takes)
			i++;
	}
	if (!c->slurm_conf)
		return die_usage("%s", "--slurm-conf is required");
	if (c->ntraces != 1)
		return die_usage("%s", "give exactly one of --swf, --csv, --sacct");
	if (c->sim.explain != (c->at != NULL))
		return die_usage("%s", "--explain and --at go together");
	if (c->format != SIM_TRACE_SWF &&
	    (c->read.start_time_set || c->read.cpus_per_node ||
	     c->sim.swf_dependencies))
		return die_usage("%s", "--start-time, --swf-cpus-per-node and --swf-dependencies are for --swf traces");
	return 0;
}

/* --at: absolute, or +DURATION after the first submit. */
static int resolve_at(struct cli *c, const struct sim_trace *t)
{
	struct fw_err e;
	int64_t d;

	if (!c->at)
		return 0;
	if (c->at[0] == '+') {
		if (fw_parse_duration(c->at + 1, false, &d, &e))
			return die_usage("--at %s: bad duration after '+'", c->at);
		c->sim.explain_at = (t->n ? t->job[0].submit : 0) + d;
		return 0;
	}
	if (sim_parse_time(c->at, &c->sim.explain_at, &e))
		return die_usage("--at %s: expected +DURATION, epoch seconds or an ISO 8601 time", c->at);
	return 0;
}

/* ---------------------------------------------------------------- run */

static int read_inputs(struct cli *c, struct sim_cluster *cl,
		       struct sim_assocs *as, struct sim_trace *t,
		       struct fw_err *e)
{
	if (sim_read_slurm_conf(cl, c->slurm_conf, e) || sim_cluster_finish(cl, e))
		return -1;
	if (c->topology && sim_read_topology(cl, c->topology, e))
		return -1;
	if (c->dump && sim_read_sacctmgr_dump(as, c->dump, e))
		return -1;
	/* SWF processors become whole nodes of the default partition. */
	if (c->format == SIM_TRACE_SWF && !c->read.cpus_per_node) {
		const struct sim_partition *p = &cl->part[cl->default_part];
		c->read.cpus_per_node = p->nnodes ? cl->node[p->node[0]].cpus : 1;
	}
	switch (c->format) {
	case SIM_TRACE_SWF:
		return sim_read_swf(t, c->trace, &c->read, e);
	case SIM_TRACE_CSV:
		return sim_read_csv(t, c->trace, &c->read, e);
	case SIM_TRACE_SACCT:
		return sim_read_sacct(t, c->trace, &c->read, e);
	}
	return -1;
}

static void print_summary(const struct cli *c, const struct sim_result *r)
{
	struct sim_metrics m;
	char d1[32], d2[32], d3[32];

	sim_metrics_compute(r, &m);
	printf("policy %s: %zu jobs (%zu done, %zu unfinished, %zu rejected), %zu backfilled\n",
	       r->policy, m.jobs, m.done, m.unfinished, m.rejected, m.backfilled);
	printf("makespan %s, utilisation %.1f%% of nodes (%.1f%% of CPUs)\n",
	       sim_fmt_dur(m.makespan, d1, sizeof(d1)), 100 * m.utilisation,
	       100 * m.cpu_utilisation);
	printf("wait mean %s, median %s, max %s; bounded slowdown mean %.2f\n",
	       sim_fmt_dur((int64_t)m.mean_wait, d1, sizeof(d1)),
	       sim_fmt_dur((int64_t)m.median_wait, d2, sizeof(d2)),
	       sim_fmt_dur(m.max_wait, d3, sizeof(d3)), m.mean_bsld);
	printf("simulated %s in %.2f s; results in %s/\n",
	       sim_fmt_dur(r->sim_end - r->sim_begin, d1, sizeof(d1)),
	       r->wall_sec, c->out_dir);
}

int main(int argc, char **argv)
{
	struct cli c;
	struct sim_cluster cl;
	struct sim_assocs as;
	struct sim_trace t;
	struct sim_result res;
	struct sim_core *core = NULL;
	struct progress prog = { { 0, 0 }, false };
	struct fw_err e;
	int rc;

	memset(&c, 0, sizeof(c));
	c.out_dir = "fairway-sim-out";
	c.sim.policy = SIM_POLICY_FAIRWAY;
	if ((rc = parse_args(argc, argv, &c)))
		return rc;
	fw_err_clear(&e);
	sim_cluster_init(&cl);
	sim_assocs_init(&as);
	sim_trace_init(&t);
	memset(&res, 0, sizeof(res));
	rc = read_inputs(&c, &cl, &as, &t, &e);
	if (!rc && (rc = resolve_at(&c, &t))) {
		rc = -2;
	} else if (!rc) {
		if (t.bad_lines) {
			char buf[1024];
			fprintf(stderr, "fairway-sim: skipped %zu malformed line(s); first: %s\n",
				t.bad_lines, fw_err_str(&t.first_bad, buf, sizeof(buf)));
		}
		core = sim_core_new(&cl, c.dump ? &as : NULL, c.sim.policy, &e);
		rc = core ? 0 : -1;
		if (!rc && c.fairway_conf)
			rc = sim_core_read_fairway_conf(core, c.fairway_conf, &e);
		if (!rc)
			rc = sim_core_finish(core, &e);
	}
	if (!rc) {
		if (!c.quiet && isatty(STDERR_FILENO)) {
			c.sim.progress = progress_cb;
			c.sim.progress_ctx = &prog;
		}
		rc = sim_run(&t, &cl, core, &c.sim, &res, &e);
		if (prog.drawn)
			fprintf(stderr, "\n");
	}
	if (!rc)
		rc = sim_write_outputs(&res, c.out_dir, &e);
	if (!rc && !c.quiet)
		print_summary(&c, &res);
	if (rc == -1)
		print_err(&e);
	sim_result_free(&res);
	sim_core_free(core);
	sim_trace_free(&t);
	sim_assocs_free(&as);
	sim_cluster_free(&cl);
	return rc == 0 ? 0 : rc == -2 ? 2 : 1;
}
