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

/* Nearest-rank percentile of sorted v: the ceil(q n)-th smallest. */
static int64_t percentile_of(const int64_t *v, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	if (n == 0)
		return 0;
	return v[rank ? rank - 1 : 0];
}

static const char *group_key(const struct sim_outjob *j, enum sim_group_by by)
{
	const char *s = by == SIM_BY_ACCOUNT ? j->account
			: by == SIM_BY_QOS ? j->qos : j->partition;

	return s && *s ? s : "(none)";
}

/* Sums over the done jobs (all of them, or one group's). */
struct acc {
	int64_t *waits;
	double node_sec, cpu_sec, wait_sum, bsld_sum;
	fw_time_t first, last;
};

static void add_done(const struct sim_result *r, const struct sim_outjob *j,
		     struct acc *a, struct sim_metrics *m)
{
	int64_t wait = j->start - j->submit, run = j->end - j->start;
	double b = sim_bsld(wait, run);

	a->waits[m->done++] = wait;
	a->wait_sum += (double)wait;
	if (wait > m->max_wait)
		m->max_wait = wait;
	if (r->wait_threshold_set && wait > r->wait_threshold)
		m->over_threshold++;
	a->bsld_sum += b;
	if (b > m->max_bsld)
		m->max_bsld = b;
	a->node_sec += (j->node_share > 0 ? j->node_share : j->nodes) *
		       (double)run;
	a->cpu_sec += (double)j->cpus * (double)run;
	if (j->submit < a->first)
		a->first = j->submit;
	if (j->end > a->last)
		a->last = j->end;
	m->backfilled += j->backfilled;
	m->killed += j->killed;
}

/* Everything but utilisation, over the jobs idx[0..cnt-1] (idx NULL: all). */
static void metrics_of(const struct sim_result *r, const size_t *idx,
		       size_t cnt, struct acc *a, struct sim_metrics *m)
{
	memset(m, 0, sizeof(*m));
	a->node_sec = a->cpu_sec = a->wait_sum = a->bsld_sum = 0;
	a->first = INT64_MAX;
	a->last = INT64_MIN;
	for (size_t k = 0; k < cnt; k++) {
		const struct sim_outjob *j = &r->job[idx ? idx[k] : k];

		m->jobs++;
		m->preemptions += j->preempted;
		m->work_lost += j->work_lost;
		if (j->state == SIM_JOB_REJECTED)
			m->rejected++;
		else if (j->state == SIM_JOB_CANCELLED)
			m->cancelled++;
		else if (j->state != SIM_JOB_DONE)
			m->unfinished++;
		else
			add_done(r, j, a, m);
	}
	if (m->done) {
		m->makespan = a->last - a->first;
		m->mean_wait = a->wait_sum / (double)m->done;
		m->mean_bsld = a->bsld_sum / (double)m->done;
		m->median_wait = median_of(a->waits, m->done);
		m->p95_wait = percentile_of(a->waits, m->done, 0.95);
	}
}

static void utilisation_of(const struct sim_result *r, const struct acc *a,
			   int64_t makespan, struct sim_metrics *m)
{
	if (makespan > 0 && r->cluster && r->cluster->nnodes)
		m->utilisation = a->node_sec /
				 ((double)r->cluster->nnodes * (double)makespan);
	if (makespan > 0 && r->cluster && r->cluster->total_cpus)
		m->cpu_utilisation = a->cpu_sec / ((double)r->cluster->total_cpus *
						   (double)makespan);
}

void sim_metrics_compute(const struct sim_result *r, struct sim_metrics *m)
{
	struct acc a;

	a.waits = fw_xmalloc((r->n ? r->n : 1) * sizeof(int64_t));
	metrics_of(r, NULL, r->n, &a, m);
	utilisation_of(r, &a, m->makespan, m);
	free(a.waits);
}

const char *sim_group_by_name(enum sim_group_by by)
{
	return by == SIM_BY_ACCOUNT ? "account"
	       : by == SIM_BY_QOS ? "qos" : "partition";
}

/*
 * Group of each job (dense ids in order of first appearance; names are
 * compared by content: the same account may come from the trace or from
 * the default account).  Returns the number of groups; names[id].
 */
static size_t group_ids(const struct sim_result *r, enum sim_group_by by,
			uint32_t *gid, const char ***names)
{
	struct sim_strtab st;
	struct sim_idmap ids;
	size_t ng = 0;

	sim_strtab_init(&st);
	sim_idmap_init(&ids);
	*names = fw_xmalloc((r->n ? r->n : 1) * sizeof(**names));
	for (size_t i = 0; i < r->n; i++) {
		const char *name = group_key(&r->job[i], by);

		gid[i] = sim_idmap_get(&ids, sim_intern(&st, name)) - 1;
		if (gid[i] == ng)
			(*names)[ng++] = name;
	}
	sim_idmap_free(&ids);
	sim_strtab_free(&st);
	return ng;
}

/* Counting sort: group k's jobs are idx[start[k] .. start[k+1]-1], in
   trace order (start has ng + 1 zeroed entries). */
static void bucket_by_group(const uint32_t *gid, size_t n, size_t ng,
			    size_t *start, size_t *idx)
{
	size_t *fill = fw_xmalloc((ng ? ng : 1) * sizeof(*fill));

	for (size_t i = 0; i < n; i++)
		start[gid[i] + 1]++;
	for (size_t k = 0; k < ng; k++)
		start[k + 1] += start[k];
	memcpy(fill, start, ng * sizeof(*fill));
	for (size_t i = 0; i < n; i++)
		idx[fill[gid[i]]++] = i;
	free(fill);
}

size_t sim_groups_compute(const struct sim_result *r, enum sim_group_by by,
			  struct sim_group **out)
{
	size_t n1 = r->n ? r->n : 1;
	uint32_t *gid = fw_xmalloc(n1 * sizeof(*gid));
	size_t *idx = fw_xmalloc(n1 * sizeof(*idx));
	const char **names;
	size_t ng = group_ids(r, by, gid, &names);
	size_t *start = fw_xcalloc(ng + 1, sizeof(*start));
	struct sim_group *g = fw_xmalloc((ng ? ng : 1) * sizeof(*g));
	struct sim_metrics all;
	struct acc a;

	sim_metrics_compute(r, &all);
	bucket_by_group(gid, r->n, ng, start, idx);
	a.waits = fw_xmalloc(n1 * sizeof(int64_t));
	for (size_t k = 0; k < ng; k++) {
		g[k].name = names[k];
		metrics_of(r, idx + start[k], start[k + 1] - start[k], &a, &g[k].m);
		utilisation_of(r, &a, all.makespan, &g[k].m);
	}
	free(a.waits);
	free(start);
	free(names);
	free(idx);
	free(gid);
	*out = g;
	return ng;
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
			  "bypass,killed,reason%s\n",
		       r->preempt_type ? ",preempted,work_lost_cpu_s" : "");
	for (size_t i = 0; i < r->n; i++) {
		const struct sim_outjob *j = &r->job[i];
		static const char *const st[] = { "done", "unfinished", "rejected",
						  "cancelled" };

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
		if (r->preempt_type)
			fw_buf_printf(b, ",%u,%.0f", j->preempted, j->work_lost);
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

static void json_threshold(struct fw_buf *b, const struct sim_result *r,
			   const struct sim_metrics *m)
{
	if (!r->wait_threshold_set)
		return;
	fw_buf_printf(b, ",\n  \"wait_threshold_s\": %lld,\n"
			  "  \"jobs_over_wait_threshold\": %zu",
		       (long long)r->wait_threshold, m->over_threshold);
}

static void json_preempt(struct fw_buf *b, const struct sim_result *r,
			 const struct sim_metrics *m)
{
	if (!r->preempt_type)
		return;
	fw_buf_printf(b, ",\n  \"preempt_type\": ");
	json_str(b, r->preempt_type);
	fw_buf_printf(b, ",\n  \"preemptions\": %llu,\n  \"jobs_cancelled\": %zu,\n"
			  "  \"work_lost_cpu_s\": ",
		       (unsigned long long)m->preemptions, m->cancelled);
	json_num(b, m->work_lost);
}

static void json_swf(struct fw_buf *b, const struct sim_result *r)
{
	if (!r->swf_estimate)
		return;
	fw_buf_printf(b, ",\n  \"swf_runtime_estimate\": ");
	json_str(b, r->swf_estimate);
	fw_buf_printf(b, ",\n  \"swf_time_limit_estimated\": %zu,\n"
			  "  \"swf_procs\": ", r->swf_limit_estimated);
	json_str(b, r->swf_procs);
	fw_buf_printf(b, ",\n  \"swf_procs_other_field\": %zu",
		       r->swf_procs_fallback);
}

/* "by_account": [{"name": ..., metrics}, ...] */
static void json_groups(struct fw_buf *b, const struct sim_result *r,
			enum sim_group_by by)
{
	struct sim_group *g;
	size_t n = sim_groups_compute(r, by, &g);

	fw_buf_printf(b, ",\n  \"by_%s\": [", sim_group_by_name(by));
	for (size_t i = 0; i < n; i++) {
		const struct sim_metrics *m = &g[i].m;

		fw_buf_printf(b, "%s\n    {\"name\": ", i ? "," : "");
		json_str(b, g[i].name);
		fw_buf_printf(b, ", \"jobs\": %zu, \"jobs_done\": %zu, \"wait_mean_s\": ",
			       m->jobs, m->done);
		json_num(b, m->mean_wait);
		fw_buf_printf(b, ", \"wait_median_s\": ");
		json_num(b, m->median_wait);
		fw_buf_printf(b, ", \"wait_p95_s\": %lld, \"wait_max_s\": %lld, "
				  "\"bounded_slowdown_mean\": ",
			       (long long)m->p95_wait, (long long)m->max_wait);
		json_num(b, m->mean_bsld);
		fw_buf_printf(b, ", \"utilisation\": ");
		json_num(b, m->utilisation);
		if (r->wait_threshold_set)
			fw_buf_printf(b, ", \"jobs_over_wait_threshold\": %zu",
				       m->over_threshold);
		if (r->preempt_type) {
			fw_buf_printf(b, ", \"preemptions\": %llu, \"jobs_cancelled\": %zu, \"work_lost_cpu_s\": ",
				       (unsigned long long)m->preemptions, m->cancelled);
			json_num(b, m->work_lost);
		}
		fw_buf_printf(b, "}");
	}
	fw_buf_printf(b, "%s]", n ? "\n  " : "");
	free(g);
}

/* "accounts": usage against target shares. */
static void json_shares(struct fw_buf *b, const struct sim_result *r)
{
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
	fw_buf_printf(b, ",\n  \"wait_p95_s\": %lld,\n  \"wait_max_s\": %lld,\n"
			  "  \"bounded_slowdown_tau_s\": %d,\n"
			  "  \"bounded_slowdown_mean\": ",
		       (long long)m->p95_wait, (long long)m->max_wait, SIM_BSLD_TAU);
	json_num(b, m->mean_bsld);
	fw_buf_printf(b, ",\n  \"bounded_slowdown_max\": ");
	json_num(b, m->max_bsld);
	json_threshold(b, r, m);
	json_preempt(b, r, m);
	json_swf(b, r);
	for (int by = 0; by < SIM_NGROUP_BY; by++)
		json_groups(b, r, (enum sim_group_by)by);
	json_shares(b, r);
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

/* --------------------------------------------------------------- text */

/* One table row: name, jobs, waits, bsld, utilisation[, over threshold]. */
static void txt_row(struct fw_buf *b, const struct sim_result *r,
		    const char *name, const struct sim_metrics *m)
{
	char d[4][32];

	fw_buf_printf(b, "%-16s %7zu %10s %10s %10s %10s %8.2f %6.1f%%",
		       name, m->done,
		       sim_fmt_dur((int64_t)m->mean_wait, d[0], sizeof(d[0])),
		       sim_fmt_dur((int64_t)m->median_wait, d[1], sizeof(d[1])),
		       sim_fmt_dur(m->p95_wait, d[2], sizeof(d[2])),
		       sim_fmt_dur(m->max_wait, d[3], sizeof(d[3])),
		       m->mean_bsld, 100 * m->utilisation);
	if (r->wait_threshold_set)
		fw_buf_printf(b, " %7zu", m->over_threshold);
	if (r->preempt_type)
		fw_buf_printf(b, " %8llu %9zu %14.0f",
			       (unsigned long long)m->preemptions, m->cancelled,
			       m->work_lost);
	fw_buf_append(b, "\n", 1);
}

static void txt_header(struct fw_buf *b, const struct sim_result *r,
		       const char *first)
{
	fw_buf_printf(b, "%-16s %7s %10s %10s %10s %10s %8s %7s%s%s\n", first,
		       "done", "wait mean", "median", "p95", "max", "bsld",
		       "util", r->wait_threshold_set ? "    over" : "",
		       r->preempt_type ? " preempts cancelled lost (CPU s)" : "");
}

/* The summary lines (also printed by fairway-sim unless --quiet). */
void sim_write_summary_txt(const struct sim_result *r,
			   const struct sim_metrics *m, struct fw_buf *b)
{
	char d1[32], d2[32], d3[32], d4[32];

	fw_buf_printf(b, "policy %s: %zu jobs (%zu done, %zu unfinished, %zu rejected",
		       r->policy, m->jobs, m->done, m->unfinished, m->rejected);
	if (r->preempt_type)
		fw_buf_printf(b, ", %zu cancelled", m->cancelled);
	fw_buf_printf(b, "), %zu backfilled\n", m->backfilled);
	fw_buf_printf(b, "makespan %s, utilisation %.1f%% of nodes (%.1f%% of CPUs)\n",
		       sim_fmt_dur(m->makespan, d1, sizeof(d1)), 100 * m->utilisation,
		       100 * m->cpu_utilisation);
	fw_buf_printf(b, "wait mean %s, median %s, p95 %s, max %s; bounded slowdown mean %.2f\n",
		       sim_fmt_dur((int64_t)m->mean_wait, d1, sizeof(d1)),
		       sim_fmt_dur((int64_t)m->median_wait, d2, sizeof(d2)),
		       sim_fmt_dur(m->p95_wait, d3, sizeof(d3)),
		       sim_fmt_dur(m->max_wait, d4, sizeof(d4)), m->mean_bsld);
	if (r->wait_threshold_set)
		fw_buf_printf(b, "%zu job(s) waited longer than %s\n",
			       m->over_threshold,
			       sim_fmt_dur(r->wait_threshold, d1, sizeof(d1)));
	if (r->preempt_type)
		fw_buf_printf(b, "%s: %llu preemption(s), %zu job(s) cancelled, %.0f CPU-seconds of work lost\n",
			       r->preempt_type, (unsigned long long)m->preemptions,
			       m->cancelled, m->work_lost);
	if (r->swf_estimate)
		fw_buf_printf(b, "SWF: time limits %s (%zu estimated), processors %s first (%zu from the other field)\n",
			       r->swf_estimate, r->swf_limit_estimated,
			       r->swf_procs, r->swf_procs_fallback);
}

void sim_write_report_txt(const struct sim_result *r,
			  const struct sim_metrics *m, struct fw_buf *b)
{
	sim_write_summary_txt(r, m, b);
	for (int by = 0; by < SIM_NGROUP_BY; by++) {
		struct sim_group *g;
		size_t n = sim_groups_compute(r, (enum sim_group_by)by, &g);

		fw_buf_append(b, "\n", 1);
		txt_header(b, r, sim_group_by_name((enum sim_group_by)by));
		for (size_t i = 0; i < n; i++)
			txt_row(b, r, g[i].name, &g[i].m);
		free(g);
	}
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
		sim_write_report_txt(r, &m, &b);
		rc = write_one(dir, "report.txt", &b, err);
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
