/*
 * sim_report.c - metrics of a run, per-job CSV, summary JSON, output files.
 */
#define _POSIX_C_SOURCE 200809L
#include "sim_report.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --------------------------------------------------------------- metrics */

double sim_bsld(int64_t wait, int64_t run)
{
	double v = (double)(wait + run) / (double)(run > SIM_BSLD_TAU ? run : SIM_BSLD_TAU);

	return v > 1 ? v : 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double median_of(int64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	if (n % 2)
		return (double)v[n / 2];
	return ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

void sim_metrics_compute(const struct sim_result *r, struct sim_metrics *m)
{
	int64_t *waits = fw_xmalloc((r->n ? r->n : 1) * sizeof(int64_t));
	double node_sec = 0, cpu_sec = 0, wait_sum = 0, bsld_sum = 0;
	fw_time_t first = INT64_MAX, last = INT64_MIN;

	memset(m, 0, sizeof(*m));
	m->jobs = r->n;
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_outjob *j = &r->job[i];

		if (j->state == SIM_JOB_REJECTED) {
			m->rejected++;
			continue;
		}
		if (j->state != SIM_JOB_DONE) {
			m->unfinished++;
			continue;
		}
		int64_t wait = j->start - j->submit, run = j->end - j->start;
		waits[m->done++] = wait;
		wait_sum += (double)wait;
		if (wait > m->max_wait)
			m->max_wait = wait;
		double b = sim_bsld(wait, run);
		bsld_sum += b;
		if (b > m->max_bsld)
			m->max_bsld = b;
		node_sec += (double)j->nodes * (double)run;
		cpu_sec += (double)j->cpus * (double)run;
		if (j->submit < first)
			first = j->submit;
		if (j->end > last)
			last = j->end;
		m->backfilled += j->backfilled;
		m->killed += j->killed;
	}
	if (m->done) {
		m->makespan = last - first;
		m->mean_wait = wait_sum / (double)m->done;
		m->mean_bsld = bsld_sum / (double)m->done;
		m->median_wait = median_of(waits, m->done);
	}
	if (m->makespan > 0 && r->cluster && r->cluster->nnodes)
		m->utilisation = node_sec /
				 ((double)r->cluster->nnodes * (double)m->makespan);
	if (m->makespan > 0 && r->cluster && r->cluster->total_cpus)
		m->cpu_utilisation = cpu_sec / ((double)r->cluster->total_cpus *
						(double)m->makespan);
	free(waits);
}

/* ------------------------------------------------------------- hostlists */

struct hname {
	const char *s;
	size_t plen;   /* prefix length */
	uint64_t num;  /* numeric suffix */
	int width;     /* digits in the suffix, 0 = none */
};

static void split_name(const char *s, struct hname *h)
{
	size_t n = strlen(s), k = n;

	while (k > 0 && isdigit((unsigned char)s[k - 1]))
		k--;
	h->s = s;
	h->plen = k;
	h->width = (int)(n - k);
	h->num = 0;
	if (h->width > 18) { /* too long to be a number: keep as a name */
		h->plen = n;
		h->width = 0;
	}
	for (size_t i = k; i < n && h->width; i++)
		h->num = h->num * 10 + (uint64_t)(s[i] - '0');
}

static bool same_prefix(const struct hname *a, const struct hname *b)
{
	return a->width && b->width && a->width == b->width &&
	       a->plen == b->plen && !strncmp(a->s, b->s, a->plen);
}

void sim_hostlist_compress(const struct sim_cluster *c, const uint32_t *idx,
			   size_t n, struct fw_buf *b)
{
	struct hname one[16];
	struct hname *h = n <= 16 ? one : fw_xmalloc(n * sizeof(*h));
	size_t i = 0;

	for (size_t k = 0; k < n; k++)
		split_name(c->node[idx[k]].name, &h[k]);
	while (i < n) {
		size_t j = i + 1;

		if (i)
			fw_buf_append(b, ",", 1);
		while (j < n && same_prefix(&h[i], &h[j]))
			j++;
		if (j == i + 1) { /* a lone name */
			fw_buf_printf(b, "%s", h[i].s);
			i = j;
			continue;
		}
		fw_buf_printf(b, "%.*s[", (int)h[i].plen, h[i].s);
		for (size_t a = i; a < j;) {
			size_t e = a;

			while (e + 1 < j && h[e + 1].num == h[e].num + 1)
				e++;
			if (a > i)
				fw_buf_append(b, ",", 1);
			fw_buf_printf(b, "%0*llu", h[a].width,
				       (unsigned long long)h[a].num);
			if (e > a)
				fw_buf_printf(b, "-%0*llu", h[e].width,
					       (unsigned long long)h[e].num);
			a = e + 1;
		}
		fw_buf_append(b, "]", 1);
		i = j;
	}
	if (h != one)
		free(h);
}

/* ---------------------------------------------------------------- CSV */

/* A CSV field: quoted when it contains a delimiter, quote or newline. */
static void csv_str(struct fw_buf *b, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		fw_buf_printf(b, "%s", s);
		return;
	}
	fw_buf_append(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"')
			fw_buf_append(b, "\"", 1);
		fw_buf_append(b, s, 1);
	}
	fw_buf_append(b, "\"", 1);
}

void sim_write_jobs_csv(const struct sim_result *r, struct fw_buf *b)
{
	struct fw_buf nl = { 0 };

	fw_buf_printf(b, "id,user,account,partition,qos,state,submit,eligible,start,end,"
			  "wait,run,nodes,node_list,cpus,priority,age,assoc,fairshare,"
			  "jobsize,partition_prio,qos_prio,tres,site,nice,backfilled,"
			  "bypass,killed,reason\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_outjob *j = &r->job[i];
		static const char *const st[] = { "done", "unfinished", "rejected" };

		fw_buf_printf(b, "%u,", j->id);
		csv_str(b, j->user);
		fw_buf_append(b, ",", 1);
		csv_str(b, j->account);
		fw_buf_append(b, ",", 1);
		csv_str(b, j->partition);
		fw_buf_append(b, ",", 1);
		csv_str(b, j->qos);
		fw_buf_printf(b, ",%s,%lld,%lld,", st[j->state],
			       (long long)j->submit, (long long)j->eligible);
		if (j->start >= 0)
			fw_buf_printf(b, "%lld", (long long)j->start);
		fw_buf_append(b, ",", 1);
		if (j->end >= 0)
			fw_buf_printf(b, "%lld", (long long)j->end);
		fw_buf_append(b, ",", 1);
		if (j->start >= 0)
			fw_buf_printf(b, "%lld", (long long)(j->start - j->submit));
		fw_buf_append(b, ",", 1);
		if (j->end >= 0)
			fw_buf_printf(b, "%lld", (long long)(j->end - j->start));
		fw_buf_printf(b, ",%u,", j->nodes);
		nl.len = 0;
		if (j->node && r->cluster) {
			sim_hostlist_compress(r->cluster, j->node, j->nodes, &nl);
			csv_str(b, nl.s);
		}
		fw_buf_printf(b, ",%u,%u,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%d,%u,%d,",
			       j->cpus, j->priority, (long long)j->cols.age,
			       (long long)j->cols.assoc, (long long)j->cols.fairshare,
			       (long long)j->cols.jobsize, (long long)j->cols.partition,
			       (long long)j->cols.qos, (long long)j->cols.tres,
			       (long long)j->cols.site, (long long)j->cols.nice,
			       j->backfilled, j->bypass, j->killed);
		csv_str(b, j->reason);
		fw_buf_append(b, "\n", 1);
	}
	fw_buf_free(&nl);
}

/* --------------------------------------------------------------- JSON */

static void json_str(struct fw_buf *b, const char *s)
{
	fw_buf_append(b, "\"", 1);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fw_buf_printf(b, "\\%c", ch);
		else if (ch < 0x20)
			fw_buf_printf(b, "\\u%04x", ch);
		else
			fw_buf_append(b, s, 1);
	}
	fw_buf_append(b, "\"", 1);
}

/* A finite number (JSON has no NaN/inf). */
static void json_num(struct fw_buf *b, double v)
{
	fw_buf_printf(b, "%.10g", isfinite(v) ? v : 0.0);
}

void sim_write_summary_json(const struct sim_result *r,
			    const struct sim_metrics *m, struct fw_buf *b)
{
	char t0[32], t1[32];

	fw_buf_printf(b, "{\n  \"policy\": ");
	json_str(b, r->policy);
	fw_buf_printf(b, ",\n  \"jobs\": %zu,\n  \"jobs_done\": %zu,\n"
			  "  \"jobs_unfinished\": %zu,\n  \"jobs_rejected\": %zu,\n",
		       m->jobs, m->done, m->unfinished, m->rejected);
	fw_buf_printf(b, "  \"jobs_backfilled\": %zu,\n  \"jobs_killed_at_limit\": %zu,\n",
		       m->backfilled, m->killed);
	fw_buf_printf(b, "  \"nodes\": %zu,\n  \"cpus\": %llu,\n",
		       r->cluster ? r->cluster->nnodes : 0,
		       (unsigned long long)(r->cluster ? r->cluster->total_cpus : 0));
	fw_buf_printf(b, "  \"utilisation\": ");
	json_num(b, m->utilisation);
	fw_buf_printf(b, ",\n  \"cpu_utilisation\": ");
	json_num(b, m->cpu_utilisation);
	fw_buf_printf(b, ",\n  \"makespan_s\": %lld,\n  \"wait_mean_s\": ",
		       (long long)m->makespan);
	json_num(b, m->mean_wait);
	fw_buf_printf(b, ",\n  \"wait_median_s\": ");
	json_num(b, m->median_wait);
	fw_buf_printf(b, ",\n  \"wait_max_s\": %lld,\n  \"bounded_slowdown_tau_s\": %d,\n"
			  "  \"bounded_slowdown_mean\": ",
		       (long long)m->max_wait, SIM_BSLD_TAU);
	json_num(b, m->mean_bsld);
	fw_buf_printf(b, ",\n  \"bounded_slowdown_max\": ");
	json_num(b, m->max_bsld);
	fw_buf_printf(b, ",\n  \"accounts\": [");
	for (size_t i = 0; i < r->nshares; i++) {
		fw_buf_printf(b, "%s\n    {\"account\": ", i ? "," : "");
		json_str(b, r->share[i].account);
		fw_buf_printf(b, ", \"target_share\": ");
		json_num(b, r->share[i].target);
		fw_buf_printf(b, ", \"usage_share\": ");
		json_num(b, r->share[i].fraction);
		fw_buf_printf(b, ", \"usage_cpu_s\": ");
		json_num(b, r->share[i].usage);
		fw_buf_printf(b, "}");
	}
	fw_buf_printf(b, "%s],\n", r->nshares ? "\n  " : "");
	fw_buf_printf(b, "  \"simulated_begin\": %lld,\n  \"simulated_end\": %lld,\n",
		       (long long)r->sim_begin, (long long)r->sim_end);
	fw_buf_printf(b, "  \"simulated_begin_utc\": \"%s\",\n  \"simulated_end_utc\": \"%s\",\n",
		       sim_fmt_time(r->sim_begin, t0, sizeof(t0)),
		       sim_fmt_time(r->sim_end, t1, sizeof(t1)));
	fw_buf_printf(b, "  \"simulated_span_s\": %lld,\n  \"wall_time_s\": ",
		       (long long)(r->sim_end - r->sim_begin));
	json_num(b, r->wall_sec);
	fw_buf_printf(b, ",\n  \"events\": %llu,\n  \"main_passes\": %llu,\n"
			  "  \"backfill_passes\": %llu,\n  \"priority_passes\": %llu,\n"
			  "  \"passes_skipped_nothing_fits\": %llu,\n",
		       (unsigned long long)r->events,
		       (unsigned long long)r->main_passes,
		       (unsigned long long)r->bf_passes,
		       (unsigned long long)r->prio_passes,
		       (unsigned long long)r->skipped_passes);
	fw_buf_printf(b, "  \"trace_bad_lines_skipped\": %zu,\n"
			  "  \"trace_jobs_never_started\": %zu,\n"
			  "  \"swf_partition_defaulted\": %zu\n}\n",
		       r->trace_bad_lines, r->trace_not_started,
		       r->defaulted_partition);
}

/* ------------------------------------------------------------- files */

static int write_one(const char *dir, const char *name,
		     const struct fw_buf *b, struct fw_err *err)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return sim_buf_write(b, path, err);
}

int sim_write_outputs(const struct sim_result *r, const char *dir,
		      struct fw_err *err)
{
	struct sim_metrics m;
	struct fw_buf b = { 0 };
	int rc = 0;

	/* never group/world-writable, whatever the umask */
	if (mkdir(dir, 0755) && errno != EEXIST)
		return fw_err_set(err, dir, 0, NULL, NULL,
				  "cannot create directory: %s", strerror(errno));
	sim_metrics_compute(r, &m);
	sim_write_jobs_csv(r, &b);
	rc = write_one(dir, "jobs.csv", &b, err);
	b.len = 0;
	if (!rc) {
		sim_write_summary_json(r, &m, &b);
		rc = write_one(dir, "summary.json", &b, err);
		b.len = 0;
	}
	if (!rc) {
		sim_svg_gantt(r, &b);
		rc = write_one(dir, "gantt.svg", &b, err);
		b.len = 0;
	}
	if (!rc) {
		sim_svg_utilisation(r, &b);
		rc = write_one(dir, "utilisation.svg", &b, err);
		b.len = 0;
	}
	if (!rc) {
		sim_svg_waits(r, &b);
		rc = write_one(dir, "waits.svg", &b, err);
	}
	fw_buf_free(&b);
	return rc;
}
