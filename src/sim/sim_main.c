/*
 * fairway-sim - replay a workload through Fairway's policy core.
 *
 * "What would happen with these weights and thresholds?"  The simulator
 * reads a cluster (slurm.conf, topology.conf), an organisation (sacctmgr
 * dump or fairway.conf) and a workload (SWF, CSV or sacct), runs it through
 * the same priority, fair-share and planner code as the plugins, and writes
 * per-job results, a summary and charts.  See fairway-sim(1).
 *
 * Compare mode (--compare LABEL ...) runs several configurations on the
 * same trace: each run is a complete, independent replay (inputs read
 * again, since the cluster decides how SWF processors become nodes) into
 * its own subdirectory; only the metrics and sorted waits of each run are
 * kept for the side-by-side table and the wait-distribution chart.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fairway_config.h"
#include "sim_cluster.h"
#include "sim_core.h"
#include "sim_engine.h"
#include "sim_report.h"
#include "sim_trace.h"

/* One configuration: the cluster, policy files and policy of a run. */
struct run_conf {
	const char *label;      /* compare mode: its name and subdirectory */
	const char *slurm_conf, *fairway_conf, *topology, *dump;
	enum sim_policy policy;
	bool policy_set;
};

#define MAX_COMPARE 16

struct cli {
	struct run_conf base;   /* options before the first --compare */
	struct run_conf cmp[MAX_COMPARE];
	int ncmp;
	const char *trace;
	enum sim_trace_format format;
	int ntraces;
	const char *out_dir;
	const char *at;
	struct sim_options sim;
	struct sim_read_opts read;
	bool swf_opts;          /* an --swf-* reading option was given */
	bool wait_threshold_set;
	int64_t wait_threshold;
	bool quiet;
};

/* What the compare table and chart need of each run. */
struct cmp_row {
	const char *label, *policy;
	struct sim_metrics m;
	bool wait_threshold_set;
	int64_t *wait;          /* done jobs' waits, ascending */
	size_t n;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fairway-sim --slurm-conf FILE [--fairway-conf FILE] [--topology FILE]\n"
		"                   [--sacctmgr-dump FILE] (--swf FILE | --csv FILE | --sacct FILE)\n"
		"                   [--policy fifo|easy|conservative|fairway|serial] [--out-dir DIR]\n"
		"                   [--explain JOBID --at TIME] [--skip-bad-lines] [--quiet]\n"
		"                   [--start-time TIME] [--swf-cpus-per-node N] [--swf-dependencies]\n"
		"                   [--bf-on-change] [--swf-runtime-estimate exact|factor:K|partition-max]\n"
		"                   [--swf-procs requested|allocated] [--wait-threshold DURATION]\n"
		"                   [--swf-queue-qos N=QOS]... [--swf-partition-name N=PARTITION]...\n"
		"                   [--compare LABEL [--policy P] [--slurm-conf F] [--fairway-conf F]\n"
		"                    [--topology F] [--sacctmgr-dump F]]...\n"
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

static struct run_conf *cur_conf(struct cli *c)
{
	return c->ncmp ? &c->cmp[c->ncmp - 1] : &c->base;
}

/* A label names a subdirectory of --out-dir: keep it a plain name. */
static bool good_label(const char *s)
{
	if (!*s || strlen(s) > 64 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._+-", *s))
			return false;
	return true;
}

static int start_compare(struct cli *c, const char *v)
{
	if (c->ncmp == MAX_COMPARE)
		return die_usage("--compare %s: at most 16 configurations", v);
	if (!good_label(v))
		return die_usage("--compare %s: a label is letters, digits, '.', '_', '+', '-'", v);
	for (int i = 0; i < c->ncmp; i++)
		if (!strcmp(c->cmp[i].label, v))
			return die_usage("--compare %s: label given twice", v);
	memset(&c->cmp[c->ncmp], 0, sizeof(c->cmp[0]));
	c->cmp[c->ncmp++].label = v;
	return 0;
}

/* Options that belong to one configuration (the current one). */
static int conf_opt(struct cli *c, const char *a, const char *v, bool *done)
{
	struct run_conf *r = cur_conf(c);

	*done = true;
	if (!strcmp(a, "--slurm-conf"))
		r->slurm_conf = v;
	else if (!strcmp(a, "--fairway-conf"))
		r->fairway_conf = v;
	else if (!strcmp(a, "--topology"))
		r->topology = v;
	else if (!strcmp(a, "--sacctmgr-dump"))
		r->dump = v;
	else if (!strcmp(a, "--policy")) {
		if (sim_policy_parse(v, &r->policy))
			return die_usage("--policy %s: expected fifo, easy, conservative, fairway or serial", v);
		r->policy_set = true;
	} else if (!strcmp(a, "--compare"))
		return start_compare(c, v);
	else
		*done = false;
	return 0;
}

/* SWF reading options and the wait threshold. */
static int read_opt(struct cli *c, const char *a, const char *v, bool *done)
{
	struct fw_err e;

	*done = true;
	if (!strcmp(a, "--start-time")) {
		if (sim_parse_time(v, &c->read.start_time, &e))
			return die_usage("--start-time %s: expected epoch seconds or an ISO 8601 time", v);
		c->read.start_time_set = c->swf_opts = true;
	} else if (!strcmp(a, "--swf-cpus-per-node")) {
		uint64_t n;
		if (sim_parse_count(v, 100000000, &n) || n == 0)
			return die_usage("--swf-cpus-per-node %s: expected a positive number", v);
		c->read.cpus_per_node = (uint32_t)n;
		c->swf_opts = true;
	} else if (!strcmp(a, "--swf-runtime-estimate")) {
		if (sim_swf_estimate_parse(v, &c->read))
			return die_usage("--swf-runtime-estimate %s: expected exact, factor:K (K >= 1) or partition-max", v);
		c->swf_opts = true;
	} else if (!strcmp(a, "--swf-procs")) {
		if (sim_swf_procs_parse(v, &c->read))
			return die_usage("--swf-procs %s: expected requested or allocated", v);
		c->swf_opts = true;
	} else if (!strcmp(a, "--swf-queue-qos") ||
		   !strcmp(a, "--swf-partition-name")) {
		if (sim_swf_map_parse(v, a[6] == 'p', &c->read))
			return die_usage(a[6] == 'p'
				? "--swf-partition-name %s: expected N=NAME (each N once, at most 64)"
				: "--swf-queue-qos %s: expected N=NAME (each N once, at most 64)", v);
		c->swf_opts = true;
	} else if (!strcmp(a, "--wait-threshold")) {
		if (fw_parse_duration(v, false, &c->wait_threshold, &e) ||
		    c->wait_threshold < 0)
			return die_usage("--wait-threshold %s: expected a duration (90, 1:30:00, 2-0, 45s)", v);
		c->wait_threshold_set = true;
	} else {
		*done = false;
	}
	return 0;
}

static int other_opt(struct cli *c, const char *a, const char *v)
{
	if (!strcmp(a, "--swf")) {
		set_trace(c, SIM_TRACE_SWF, v);
	} else if (!strcmp(a, "--csv")) {
		set_trace(c, SIM_TRACE_CSV, v);
	} else if (!strcmp(a, "--sacct")) {
		set_trace(c, SIM_TRACE_SACCT, v);
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
	} else {
		return die_usage("unknown option %s", a);
	}
	return 0;
}

static bool flag_opt(struct cli *c, const char *a)
{
	if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
		usage(stdout);
		exit(0);
	} else if (!strcmp(a, "--version")) {
		printf("fairway-sim %s\n", PACKAGE_VERSION);
		exit(0);
	} else if (!strcmp(a, "--skip-bad-lines")) {
		c->read.skip_bad_lines = true;
	} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
		c->quiet = true;
	} else if (!strcmp(a, "--swf-dependencies")) {
		c->sim.swf_dependencies = true;
	} else if (!strcmp(a, "--bf-on-change")) {
		c->sim.bf_on_change = true;
	} else {
		return false;
	}
	return true;
}

/* Compare mode: each configuration takes what it does not set from the
   options before the first --compare. */
static void inherit_base(struct cli *c)
{
	for (int i = 0; i < c->ncmp; i++) {
		struct run_conf *r = &c->cmp[i];

		if (!r->slurm_conf)
			r->slurm_conf = c->base.slurm_conf;
		if (!r->fairway_conf)
			r->fairway_conf = c->base.fairway_conf;
		if (!r->topology)
			r->topology = c->base.topology;
		if (!r->dump)
			r->dump = c->base.dump;
		if (!r->policy_set)
			r->policy = c->base.policy;
	}
}

static int check_args(struct cli *c)
{
	inherit_base(c);
	if (c->ncmp == 1)
		return die_usage("%s", "--compare needs two or more configurations");
	for (int i = 0; i < (c->ncmp ? c->ncmp : 1); i++)
		if (!(c->ncmp ? &c->cmp[i] : &c->base)->slurm_conf)
			return die_usage("%s", "--slurm-conf is required");
	if (c->ntraces != 1)
		return die_usage("%s", "give exactly one of --swf, --csv, --sacct");
	if (c->sim.explain != (c->at != NULL))
		return die_usage("%s", "--explain and --at go together");
	if (c->sim.explain && c->ncmp)
		return die_usage("%s", "--explain is for one configuration, not --compare");
	if (c->format != SIM_TRACE_SWF && (c->swf_opts || c->sim.swf_dependencies))
		return die_usage("%s", "--start-time, --swf-* options and --swf-dependencies are for --swf traces");
	return 0;
}

static int parse_args(int argc, char **argv, struct cli *c)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool done;
		int rc;

		if (flag_opt(c, a))
			continue;
		if (!v)
			return die_usage("%s: missing value or unknown option", a);
		i++;
		if ((rc = conf_opt(c, a, v, &done)))
			return rc;
		if (done)
			continue;
		if ((rc = read_opt(c, a, v, &done)))
			return rc;
		if (!done && (rc = other_opt(c, a, v)))
			return rc;
	}
	return check_args(c);
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

static int read_inputs(struct cli *c, const struct run_conf *rc,
		       struct sim_cluster *cl, struct sim_assocs *as,
		       struct sim_trace *t, struct fw_err *e)
{
	struct sim_read_opts ro = c->read;

	if (sim_read_slurm_conf(cl, rc->slurm_conf, e) || sim_cluster_finish(cl, e))
		return -1;
	if (rc->topology) {
		char buf[1024];

		if (sim_read_topology(cl, rc->topology, e))
			return -1;
		/* Slurm's warnings, as sched/fairway logs them. */
		if (cl->topo_warn.unknown)
			fprintf(stderr, "fairway-sim: warning: %s\n",
				fw_err_str(&cl->topo_warn.first_unknown, buf,
					   sizeof(buf)));
		if (cl->topo_warn.multi)
			fprintf(stderr, "fairway-sim: warning: %s\n",
				fw_err_str(&cl->topo_warn.first_multi, buf,
					   sizeof(buf)));
	}
	if (rc->dump && sim_read_sacctmgr_dump(as, rc->dump, e))
		return -1;
	/* SWF processors become whole nodes of the default partition. */
	if (c->format == SIM_TRACE_SWF && !ro.cpus_per_node) {
		const struct sim_partition *p = &cl->part[cl->default_part];
		ro.cpus_per_node = p->nnodes ? cl->node[p->node[0]].cpus : 1;
	}
	switch (c->format) {
	case SIM_TRACE_SWF:
		return sim_read_swf(t, c->trace, &ro, e);
	case SIM_TRACE_CSV:
		return sim_read_csv(t, c->trace, &ro, e);
	case SIM_TRACE_SACCT:
		return sim_read_sacct(t, c->trace, &ro, e);
	}
	return -1;
}

static void print_summary(const char *out_dir, const struct sim_result *r)
{
	struct sim_metrics m;
	struct fw_buf b = { 0 };
	char d1[32];

	sim_metrics_compute(r, &m);
	sim_write_summary_txt(r, &m, &b);
	fputs(b.s ? b.s : "", stdout);
	printf("simulated %s in %.2f s; results in %s/\n",
	       sim_fmt_dur(r->sim_end - r->sim_begin, d1, sizeof(d1)),
	       r->wall_sec, out_dir);
	fw_buf_free(&b);
}

/* What the summary says about the inputs and the threshold. */
static void describe_run(const struct cli *c, const struct sim_trace *t,
			 struct sim_result *res, char *est, size_t len)
{
	res->wait_threshold_set = c->wait_threshold_set;
	res->wait_threshold = c->wait_threshold;
	if (c->format != SIM_TRACE_SWF)
		return;
	res->swf_estimate = sim_swf_estimate_str(&c->read, est, len);
	res->swf_procs = sim_swf_procs_str(&c->read);
	res->swf_limit_estimated = t->swf_limit_estimated;
	res->swf_procs_fallback = t->swf_procs_fallback;
}

static int cmp_wait(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Keep the metrics and the sorted waits of a run for the compare table. */
static void keep_row(const struct run_conf *rc, const struct sim_result *r,
		     struct cmp_row *row)
{
	row->label = rc->label;
	row->policy = r->policy;
	sim_metrics_compute(r, &row->m);
	row->wait_threshold_set = r->wait_threshold_set;
	row->wait = fw_xmalloc((r->n ? r->n : 1) * sizeof(int64_t));
	row->n = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->job[i].state == SIM_JOB_DONE)
			row->wait[row->n++] = r->job[i].start - r->job[i].submit;
	qsort(row->wait, row->n, sizeof(int64_t), cmp_wait);
}

static int simulate(struct cli *c, const struct run_conf *rc,
		    struct sim_cluster *cl, struct sim_assocs *as,
		    struct sim_trace *t, struct sim_result *res,
		    struct sim_core **core, struct fw_err *e)
{
	struct progress prog = { { 0, 0 }, false };
	struct sim_options o;
	int r = read_inputs(c, rc, cl, as, t, e);

	if (!r && (r = resolve_at(c, t)))
		return -2;
	if (r)
		return -1;
	if (t->bad_lines) {
		char buf[1024];
		fprintf(stderr, "fairway-sim: skipped %zu malformed line(s); first: %s\n",
			t->bad_lines, fw_err_str(&t->first_bad, buf, sizeof(buf)));
	}
	*core = sim_core_new(cl, rc->dump ? as : NULL, rc->policy, e);
	if (!*core || (rc->fairway_conf &&
		       sim_core_read_fairway_conf(*core, rc->fairway_conf, e)) ||
	    sim_core_finish(*core, e))
		return -1;
	o = c->sim; /* after resolve_at set explain_at */
	o.policy = rc->policy;
	if (!c->quiet && isatty(STDERR_FILENO)) {
		o.progress = progress_cb;
		o.progress_ctx = &prog;
	}
	r = sim_run(t, cl, *core, &o, res, e);
	if (prog.drawn)
		fprintf(stderr, "\n");
	return r;
}

/* One run of one configuration into out_dir; row: keep it for --compare. */
static int run_one(struct cli *c, const struct run_conf *rc,
		   const char *out_dir, struct cmp_row *row)
{
	struct sim_cluster cl;
	struct sim_assocs as;
	struct sim_trace t;
	struct sim_result res;
	struct sim_core *core = NULL;
	struct fw_err e;
	char est[32];
	int rcode;

	fw_err_clear(&e);
	sim_cluster_init(&cl);
	sim_assocs_init(&as);
	sim_trace_init(&t);
	memset(&res, 0, sizeof(res));
	rcode = simulate(c, rc, &cl, &as, &t, &res, &core, &e);
	if (!rcode) {
		describe_run(c, &t, &res, est, sizeof(est));
		rcode = sim_write_outputs(&res, out_dir, &e);
	}
	if (!rcode && !c->quiet && !row)
		print_summary(out_dir, &res);
	if (!rcode && row)
		keep_row(rc, &res, row);
	if (rcode == -1)
		print_err(&e);
	sim_result_free(&res);
	sim_core_free(core);
	sim_trace_free(&t);
	sim_assocs_free(&as);
	sim_cluster_free(&cl);
	return rcode;
}

/* ------------------------------------------------------------ compare */

static void compare_table(const struct cmp_row *row, int n, struct fw_buf *b)
{
	char d[4][32];

	fw_buf_printf(b, "%-16s %-12s %7s %10s %10s %10s %10s %8s %7s%s\n",
		       "configuration", "policy", "done", "wait mean", "median",
		       "p95", "max", "bsld", "util",
		       row[0].wait_threshold_set ? "    over" : "");
	for (int i = 0; i < n; i++) {
		const struct sim_metrics *m = &row[i].m;

		fw_buf_printf(b, "%-16s %-12s %7zu %10s %10s %10s %10s %8.2f %6.1f%%",
			       row[i].label, row[i].policy, m->done,
			       sim_fmt_dur((int64_t)m->mean_wait, d[0], sizeof(d[0])),
			       sim_fmt_dur((int64_t)m->median_wait, d[1], sizeof(d[1])),
			       sim_fmt_dur(m->p95_wait, d[2], sizeof(d[2])),
			       sim_fmt_dur(m->max_wait, d[3], sizeof(d[3])),
			       m->mean_bsld, 100 * m->utilisation);
		if (row[i].wait_threshold_set)
			fw_buf_printf(b, " %7zu", m->over_threshold);
		fw_buf_append(b, "\n", 1);
	}
}

/* compare.tsv: the same numbers in seconds, for scripts. */
static void compare_tsv(const struct cmp_row *row, int n, struct fw_buf *b)
{
	fw_buf_printf(b, "configuration\tpolicy\tjobs_done\twait_mean_s\twait_median_s\t"
			  "wait_p95_s\twait_max_s\tbsld_mean\tutilisation\tover_threshold\n");
	for (int i = 0; i < n; i++) {
		const struct sim_metrics *m = &row[i].m;

		fw_buf_printf(b, "%s\t%s\t%zu\t%.1f\t%.1f\t%lld\t%lld\t%.4f\t%.4f\t",
			       row[i].label, row[i].policy, m->done, m->mean_wait,
			       m->median_wait, (long long)m->p95_wait,
			       (long long)m->max_wait, m->mean_bsld, m->utilisation);
		if (row[i].wait_threshold_set)
			fw_buf_printf(b, "%zu", m->over_threshold);
		fw_buf_append(b, "\n", 1);
	}
}

static int write_file(const char *dir, const char *name, const struct fw_buf *b)
{
	char path[4096];
	struct fw_err e;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!sim_buf_write(b, path, &e))
		return 0;
	print_err(&e);
	return -1;
}

static int compare_outputs(const struct cli *c, const struct cmp_row *row, int n)
{
	struct sim_wait_box bx[MAX_COMPARE];
	struct fw_buf b = { 0 };
	int rc;

	compare_table(row, n, &b);
	if (!c->quiet)
		fputs(b.s, stdout);
	rc = write_file(c->out_dir, "compare.txt", &b);
	b.len = 0;
	compare_tsv(row, n, &b);
	rc = rc ? rc : write_file(c->out_dir, "compare.tsv", &b);
	b.len = 0;
	for (int i = 0; i < n; i++) {
		bx[i].label = row[i].label;
		bx[i].tip = NULL;
		bx[i].wait = row[i].wait;
		bx[i].n = row[i].n;
	}
	sim_svg_wait_boxes(bx, (size_t)n, "Wait time by configuration",
			   "configuration", &b);
	rc = rc ? rc : write_file(c->out_dir, "compare-waits.svg", &b);
	fw_buf_free(&b);
	return rc;
}

static int run_compare(struct cli *c)
{
	struct cmp_row row[MAX_COMPARE];
	char dir[4096];
	int rc = 0, done = 0;

	/* never group/world-writable, whatever the umask */
	if (mkdir(c->out_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "fairway-sim: %s: cannot create directory: %s\n",
			c->out_dir, strerror(errno));
		return 1;
	}
	for (int i = 0; i < c->ncmp && !rc; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", c->out_dir, c->cmp[i].label);
		rc = run_one(c, &c->cmp[i], dir, &row[i]);
		done += !rc;
	}
	if (!rc && compare_outputs(c, row, c->ncmp))
		rc = -1;
	for (int i = 0; i < done; i++)
		free(row[i].wait);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.out_dir = "fairway-sim-out";
	c.base.policy = SIM_POLICY_FAIRWAY;
	if ((rc = parse_args(argc, argv, &c)))
		return rc;
	rc = c.ncmp ? run_compare(&c) : run_one(&c, &c.base, c.out_dir, NULL);
	return rc == 0 ? 0 : rc == -2 ? 2 : 1;
}
