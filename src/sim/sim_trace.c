/*
 * sim_trace.c - workload readers of fairway-sim: SWF, CSV and sacct.
 *
 * All three share one driver (read_lines): it walks the buffer line by
 * line, hands each line to the format's parser and applies the
 * skip-bad-lines policy.  A parser returns 0 (job added or line ignored) or
 * -1 with err->key/value/msg set; the driver adds file and line.
 */
#define _POSIX_C_SOURCE 200809L
#include "sim_trace.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------- the trace */

void sim_trace_init(struct sim_trace *t)
{
	memset(t, 0, sizeof(*t));
	sim_strtab_init(&t->str);
}

void sim_trace_free(struct sim_trace *t)
{
	free(t->job);
	sim_strtab_free(&t->str);
	memset(t, 0, sizeof(*t));
}

static struct sim_job *new_job(struct sim_trace *t, int lineno)
{
	struct sim_job *j;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->job = fw_xrealloc(t->job, t->cap * sizeof(*t->job));
	}
	j = &t->job[t->n++];
	memset(j, 0, sizeof(*j));
	j->time_limit = -1;
	j->trace_start = -1;
	j->lineno = lineno;
	return j;
}

/* Set key/value/msg of a line error (file and line are added later). */
static int line_err(struct fw_err *err, const char *key, const char *value,
		    const char *msg)
{
	return fw_err_set(err, NULL, 0, key, value, "%s", msg);
}

/* ------------------------------------------------------------- licenses */

static int bad_lic(struct fw_err *err, const char *msg)
{
	if (err)
		snprintf(err->msg, sizeof(err->msg), "%s", msg);
	return -1;
}

int sim_parse_licenses(struct sim_trace *t, const char *s,
		       struct sim_job *job, struct fw_err *err)
{
	const char *p = s;

	job->nlic = 0;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *sep = memchr(p, ':', n);
		uint64_t cnt = 1;
		size_t nlen;

		if (!sep)
			sep = memchr(p, '*', n);
		nlen = sep ? (size_t)(sep - p) : n;
		if (nlen == 0 || nlen > 63)
			return bad_lic(err, "a license needs a name (name[:count])");
		if (sep) {
			char num[24];
			size_t cl = n - nlen - 1;

			if (cl == 0 || cl >= sizeof(num))
				return bad_lic(err, "bad license count");
			memcpy(num, sep + 1, cl);
			num[cl] = '\0';
			if (sim_parse_count(num, 1000000, &cnt) || cnt == 0)
				return bad_lic(err, "license count must be 1..1000000");
		}
		const char *name = sim_intern_n(&t->str, p, nlen);
		uint32_t k;
		for (k = 0; k < job->nlic; k++)
			if (job->lic[k].name == name)
				break;
		if (k == job->nlic) {
			if (job->nlic == SIM_MAX_LICENSES)
				return bad_lic(err, "too many different licenses");
			job->lic[job->nlic].name = name;
			job->lic[job->nlic].count = 0;
			job->nlic++;
		}
		job->lic[k].count += (uint32_t)cnt;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* --------------------------------------------------------------- driver */

/*
 * One format's line parser; state is the format's own.  Returns 0, -1 for
 * a bad line, or FATAL for an error that makes the rest unreadable (a bad
 * header), which stops reading even with skip_bad_lines.
 */
#define FATAL (-2)
typedef int (*line_fn)(struct sim_trace *t, void *state, char *line,
		       int lineno, const struct sim_read_opts *o,
		       struct fw_err *err);

static int read_lines(struct sim_trace *t, const char *name, const char *buf,
		      size_t len, const struct sim_read_opts *o, line_fn fn,
		      void *state, struct fw_err *err)
{
	struct sim_lines it;
	int rc = 0;

	sim_lines_init(&it, buf, len);
	while (sim_lines_next(&it)) {
		size_t before = t->n;
		struct fw_err e;

		fw_err_clear(&e);
		int r = fn(t, state, it.line, it.lineno, o, &e);
		if (r == 0)
			continue;
		t->n = before; /* drop a half-built job */
		fw_err_locate(&e, name, it.lineno);
		if (r == FATAL || !o->skip_bad_lines) {
			if (err)
				*err = e;
			rc = -1;
			break;
		}
		if (t->bad_lines++ == 0)
			t->first_bad = e;
	}
	sim_lines_free(&it);
	if (rc == 0)
		rc = sim_trace_finish(t, name, err);
	return rc;
}

typedef int (*mem_fn)(struct sim_trace *t, const char *name, const char *buf,
		      size_t len, const struct sim_read_opts *o,
		      struct fw_err *err);

static int read_file(struct sim_trace *t, const char *path,
		     const struct sim_read_opts *o, mem_fn fn,
		     struct fw_err *err)
{
	size_t len;
	char *buf = sim_slurp(path, &len, err);
	int rc;

	if (!buf)
		return -1;
	rc = fn(t, path, buf, len, o, err);
	free(buf);
	return rc;
}

/* ---------------------------------------------------------- ordering */

static int cmp_submit(const void *a, const void *b)
{
	const struct sim_job *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->lineno > y->lineno) - (x->lineno < y->lineno);
}

static int cmp_id_line(const void *a, const void *b)
{
	const struct sim_job *const *x = a, *const *y = b;

	if ((*x)->id != (*y)->id)
		return (*x)->id < (*y)->id ? -1 : 1;
	return ((*x)->lineno > (*y)->lineno) - ((*x)->lineno < (*y)->lineno);
}

/* Jobs without a usable id (sacct array/het ids) get max id + 1, ... */
static void assign_missing_ids(struct sim_trace *t)
{
	uint32_t max = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->job[i].id > max)
			max = t->job[i].id;
	for (size_t i = 0; i < t->n; i++)
		if (t->job[i].id == 0)
			t->job[i].id = max < UINT32_MAX ? ++max : 0;
}

int sim_trace_finish(struct sim_trace *t, const char *name,
		     struct fw_err *err)
{
	struct sim_job **by_id;
	int rc = 0;

	assign_missing_ids(t);
	by_id = fw_xmalloc((t->n ? t->n : 1) * sizeof(*by_id));
	for (size_t i = 0; i < t->n; i++)
		by_id[i] = &t->job[i];
	if (t->n)
		qsort(by_id, t->n, sizeof(*by_id), cmp_id_line);
	for (size_t i = 1; i < t->n; i++) {
		if (by_id[i]->id != by_id[i - 1]->id && by_id[i]->id)
			continue;
		char v[16];
		snprintf(v, sizeof(v), "%u", by_id[i]->id);
		if (by_id[i]->id)
			rc = fw_err_set(err, name, by_id[i]->lineno, "id", v,
					"duplicate job id (first on line %d)",
					by_id[i - 1]->lineno);
		else
			rc = fw_err_set(err, name, by_id[i]->lineno, "id", v,
					"%s", "too many jobs for 32-bit ids");
		break;
	}
	free(by_id);
	if (rc == 0 && t->n)
		qsort(t->job, t->n, sizeof(*t->job), cmp_submit);
	return rc;
}

/* ------------------------------------------------------------------ SWF */

/*
 * The 18 fields of a SWF line (1-based in the format's documentation):
 *  1 job number           2 submit time        3 wait time
 *  4 run time             5 allocated procs    6 average CPU time
 *  7 used memory          8 requested procs    9 requested time
 * 10 requested memory    11 status            12 user id
 * 13 group id            14 executable        15 queue number
 * 16 partition number    17 preceding job     18 think time
 */
#define SWF_FIELDS 18

struct swf_state {
	bool saw_job;
};

static void swf_header(struct sim_trace *t, const char *line)
{
	const char *p = line + 1;
	int64_t v;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncasecmp(p, "MaxNodes:", 9) &&
	    fw_parse_int64(p + 9, &v, NULL) == 0 && v > 0)
		t->swf_max_nodes = v;
	else if (!strncasecmp(p, "MaxProcs:", 9) &&
		 fw_parse_int64(p + 9, &v, NULL) == 0 && v > 0)
		t->swf_max_procs = v;
	else if (!strncasecmp(p, "UnixStartTime:", 14) &&
		 fw_parse_int64(p + 14, &v, NULL) == 0 && v >= 0 &&
		 v < SIM_MAX_SECONDS * 100) {
		t->swf_unix_start = v;
		t->swf_has_unix_start = true;
	}
}

static const char *const swf_name[SWF_FIELDS] = {
	"job_number", "submit_time", "wait_time", "run_time",
	"allocated_procs", "avg_cpu_time", "used_memory", "requested_procs",
	"requested_time", "requested_memory", "status", "user_id",
	"group_id", "executable", "queue", "partition", "preceding_job",
	"think_time",
};

/* A field as a whole number; SWF uses -1 for "unknown". */
static int swf_int(char **f, int i, int64_t *out, struct fw_err *err)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(f[i], &end);
	if (end == f[i] || *end || errno == ERANGE || !isfinite(d))
		return line_err(err, swf_name[i], f[i], "not a number");
	if (d < -1 || d > (double)SIM_MAX_SECONDS * 100)
		return line_err(err, swf_name[i], f[i], "out of range");
	*out = (int64_t)floor(d);
	return 0;
}

static uint32_t swf_cpus_per_node(const struct sim_trace *t,
				  const struct sim_read_opts *o)
{
	if (o->cpus_per_node)
		return o->cpus_per_node;
	if (t->swf_max_nodes > 0 && t->swf_max_procs >= t->swf_max_nodes) {
		int64_t c = t->swf_max_procs / t->swf_max_nodes;
		return c > 0 && c < (int64_t)SIM_MAX_CPUS ? (uint32_t)c : 1;
	}
	return 1;
}

static const char *swf_name_of(struct sim_trace *t, char prefix, int64_t v)
{
	char buf[32];

	if (v < 0)
		return NULL;
	snprintf(buf, sizeof(buf), "%c%lld", prefix, (long long)v);
	return sim_intern(&t->str, buf);
}

/* The name a queue/partition number maps to, else "q<N>" / "p<N>". */
static const char *swf_mapped(struct sim_trace *t, const struct sim_swf_map *m,
			      uint32_t n, char prefix, int64_t v)
{
	for (uint32_t i = 0; i < n; i++)
		if (m[i].num == v)
			return sim_intern(&t->str, m[i].name);
	return swf_name_of(t, prefix, v);
}

int sim_swf_map_parse(const char *s, bool partition, struct sim_read_opts *o)
{
	struct sim_swf_map *m = partition ? o->part_map : o->qos_map;
	uint32_t *n = partition ? &o->npart_map : &o->nqos_map;
	const char *eq = strchr(s, '=');
	uint64_t num;
	char buf[32];

	if (!eq || eq == s || !eq[1] || (size_t)(eq - s) >= sizeof(buf) ||
	    *n == SIM_SWF_MAX_MAP)
		return -1;
	memcpy(buf, s, (size_t)(eq - s));
	buf[eq - s] = '\0';
	if (sim_parse_count(buf, INT32_MAX, &num))
		return -1;
	for (uint32_t i = 0; i < *n; i++)
		if (m[i].num == (int64_t)num)
			return -1;
	m[*n].num = (int64_t)num;
	m[*n].name = eq + 1;
	(*n)++;
	return 0;
}

int sim_swf_estimate_parse(const char *s, struct sim_read_opts *o)
{
	char *end;
	double k;

	if (!strcmp(s, "exact")) {
		o->swf_estimate = SIM_SWF_EST_EXACT;
		return 0;
	}
	if (!strcmp(s, "partition-max")) {
		o->swf_estimate = SIM_SWF_EST_PARTITION;
		return 0;
	}
	if (strncmp(s, "factor:", 7))
		return -1;
	errno = 0;
	k = strtod(s + 7, &end);
	if (end == s + 7 || *end || errno || !(k >= 1) || k > 1000)
		return -1;
	o->swf_estimate = SIM_SWF_EST_FACTOR;
	o->swf_est_factor = k;
	return 0;
}

const char *sim_swf_estimate_str(const struct sim_read_opts *o, char *buf,
				 size_t len)
{
	switch (o->swf_estimate) {
	case SIM_SWF_EST_FACTOR:
		snprintf(buf, len, "factor:%g", o->swf_est_factor);
		return buf;
	case SIM_SWF_EST_PARTITION:
		return "partition-max";
	default:
		return "exact";
	}
}

int sim_swf_procs_parse(const char *s, struct sim_read_opts *o)
{
	if (!strcmp(s, "requested"))
		o->swf_procs = SIM_SWF_PROCS_REQUESTED;
	else if (!strcmp(s, "allocated"))
		o->swf_procs = SIM_SWF_PROCS_ALLOCATED;
	else
		return -1;
	return 0;
}

const char *sim_swf_procs_str(const struct sim_read_opts *o)
{
	return o->swf_procs == SIM_SWF_PROCS_ALLOCATED ? "allocated"
						       : "requested";
}

/* Processors: the preferred field when known, else the other one. */
static int64_t swf_procs(struct sim_trace *t, const int64_t *v,
			 const struct sim_read_opts *o)
{
	int64_t want = o->swf_procs == SIM_SWF_PROCS_ALLOCATED ? v[4] : v[7];
	int64_t other = o->swf_procs == SIM_SWF_PROCS_ALLOCATED ? v[7] : v[4];

	if (want > 0)
		return want;
	if (other > 0)
		t->swf_procs_fallback++;
	return other;
}

/* Time limit: requested time when known, else the chosen estimate. */
static void swf_limit(struct sim_trace *t, struct sim_job *j, int64_t req,
		      const struct sim_read_opts *o)
{
	double lim;

	if (req > 0) {
		j->time_limit = req;
		return;
	}
	if (o->swf_estimate == SIM_SWF_EST_PARTITION)
		return;
	lim = (double)j->run_time;
	if (o->swf_estimate == SIM_SWF_EST_FACTOR)
		lim = ceil(lim * o->swf_est_factor);
	/* a limit of 0 means "none": a 0 s job gets 1 s */
	j->time_limit = lim < 1 ? 1 : lim > SIM_MAX_SECONDS ? SIM_MAX_SECONDS
							    : (int64_t)lim;
	j->limit_estimated = true;
	t->swf_limit_estimated++;
}

static int swf_line(struct sim_trace *t, void *state, char *line, int lineno,
		    const struct sim_read_opts *o, struct fw_err *err)
{
	struct swf_state *st = state;
	char *f[SIM_MAX_FIELDS];
	int64_t v[SWF_FIELDS];
	int n;

	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == ';') {
		if (!st->saw_job)
			swf_header(t, line);
		return 0;
	}
	n = sim_split_ws(line, f, SIM_MAX_FIELDS);
	if (n == 0)
		return 0;
	if (n != SWF_FIELDS) {
		char got[16];
		snprintf(got, sizeof(got), n < 0 ? ">%d" : "%d",
			 n < 0 ? SIM_MAX_FIELDS : n);
		return line_err(err, "fields", got, "SWF lines have 18 fields");
	}
	for (int i = 0; i < SWF_FIELDS; i++)
		if (swf_int(f, i, &v[i], err))
			return -1;
	st->saw_job = true;
	if (v[0] < 1 || v[0] > UINT32_MAX)
		return line_err(err, swf_name[0], f[0], "job number must be 1..4294967295");
	if (v[1] < 0 || v[1] > SIM_MAX_SECONDS)
		return line_err(err, swf_name[1], f[1], "submit time must be >= 0 seconds");
	if (v[3] < 0) { /* never ran (e.g. cancelled while queued) */
		t->not_started++;
		return 0;
	}
	if (v[3] > SIM_MAX_SECONDS)
		return line_err(err, swf_name[3], f[3], "run time out of range");
	int64_t procs = swf_procs(t, v, o);
	if (procs <= 0)
		return line_err(err, swf_name[7], f[7],
				"no processor count (requested and allocated are unknown)");
	if (procs > SIM_MAX_CPUS)
		return line_err(err, swf_name[7], f[7], "too many processors");

	struct sim_job *j = new_job(t, lineno);
	fw_time_t base = o->start_time_set ? o->start_time
			 : t->swf_has_unix_start ? t->swf_unix_start : 0;
	uint32_t cpn = swf_cpus_per_node(t, o);

	j->id = (uint32_t)v[0];
	j->submit = base + v[1];
	j->run_time = v[3];
	j->cpus = (uint32_t)procs;
	j->nodes = (uint32_t)((procs + cpn - 1) / cpn);
	swf_limit(t, j, v[8], o);
	if (v[9] > 0) { /* KB per processor */
		double mb = ceil((double)v[9] * (double)procs / 1024.0);
		j->mem_mb = mb < 9e15 ? (uint64_t)mb : 0;
	}
	j->user = swf_name_of(t, 'u', v[11]);
	j->account = swf_name_of(t, 'g', v[12]);
	j->qos = swf_mapped(t, o->qos_map, o->nqos_map, 'q', v[14]);
	j->partition = swf_mapped(t, o->part_map, o->npart_map, 'p', v[15]);
	if (v[16] > 0 && v[16] <= UINT32_MAX && v[16] != v[0]) {
		j->dep_job = (uint32_t)v[16];
		j->think_time = v[17] > 0 ? v[17] : 0;
	}
	if (v[2] >= 0)
		j->trace_start = j->submit + v[2];
	return 0;
}

int sim_read_swf_mem(struct sim_trace *t, const char *name, const char *buf,
		     size_t len, const struct sim_read_opts *o,
		     struct fw_err *err)
{
	struct swf_state st = { 0 };

	return read_lines(t, name, buf, len, o, swf_line, &st, err);
}

int sim_read_swf(struct sim_trace *t, const char *path,
		 const struct sim_read_opts *o, struct fw_err *err)
{
	return read_file(t, path, o, sim_read_swf_mem, err);
}

/* ---------------------------------------------------- shared column code */

/* Columns the CSV and sacct readers understand. */
enum col {
	C_NONE = -1,
	C_ID, C_SUBMIT, C_ELIGIBLE, C_DEADLINE, C_USER, C_ACCOUNT,
	C_PARTITION, C_QOS, C_NODES, C_CPUS, C_MEM, C_GPUS, C_TIME_LIMIT,
	C_TIME_LIMIT_S, C_RUN_TIME, C_RUN_TIME_S, C_LICENSES, C_NICE,
	/* sacct only */
	C_JOBIDRAW, C_START, C_END, C_ELAPSED, C_REQTRES, C_STATE,
	C_REQNODES, C_REQCPUS,
	C_NCOLS
};

struct colmap {
	int ncols;
	enum col col[SIM_MAX_FIELDS];
	int where[C_NCOLS]; /* field index, -1 absent */
	int expect;         /* fields per line */
};

static void colmap_init(struct colmap *m)
{
	m->ncols = 0;
	for (int i = 0; i < C_NCOLS; i++)
		m->where[i] = -1;
}

static const char *field_of(char **f, const struct colmap *m, enum col c)
{
	int i = m->where[c];

	return i >= 0 && f[i][0] ? f[i] : NULL;
}

static int parse_count_field(const char *key, const char *s, uint64_t max,
			     uint64_t *out, struct fw_err *err)
{
	if (sim_parse_count(s, max, out)) {
		char msg[80];
		snprintf(msg, sizeof(msg), "expected a whole number 0..%llu",
			 (unsigned long long)max);
		return line_err(err, key, s, msg);
	}
	return 0;
}

static int parse_time_field(const char *key, const char *s, fw_time_t *out,
			    struct fw_err *err)
{
	struct fw_err e;

	if (sim_parse_time(s, out, &e))
		return line_err(err, key, s, e.msg);
	if (*out < 0 || *out > SIM_MAX_SECONDS * 100)
		return line_err(err, key, s, "time stamp out of range");
	return 0;
}

/* Slurm duration (bare number = minutes); UNLIMITED gives -1. */
static int parse_dur_field(const char *key, const char *s, bool infinite_ok,
			   int64_t *out, struct fw_err *err)
{
	struct fw_err e;

	fw_err_clear(&e);
	if (fw_parse_duration(s, infinite_ok, out, &e))
		return line_err(err, key, s, e.msg);
	if (*out > SIM_MAX_SECONDS)
		return line_err(err, key, s, "duration out of range");
	return 0;
}

static int parse_secs_field(const char *key, const char *s, int64_t *out,
			    struct fw_err *err)
{
	uint64_t v;

	if (parse_count_field(key, s, SIM_MAX_SECONDS, &v, err))
		return -1;
	*out = (int64_t)v;
	return 0;
}

static int parse_mem_field(const char *key, const char *s, uint64_t *out,
			   struct fw_err *err)
{
	struct fw_err e;

	fw_err_clear(&e);
	if (fw_parse_mem_mb(s, out, &e))
		return line_err(err, key, s, e.msg);
	return 0;
}

/* -------------------------------------------------------------------- CSV */

static const struct {
	const char *name;
	enum col col;
} csv_cols[] = {
	{ "id", C_ID },           { "submit", C_SUBMIT },
	{ "eligible", C_ELIGIBLE }, { "begin", C_ELIGIBLE },
	{ "deadline", C_DEADLINE }, { "user", C_USER },
	{ "account", C_ACCOUNT }, { "partition", C_PARTITION },
	{ "qos", C_QOS },         { "nodes", C_NODES },
	{ "cpus", C_CPUS },       { "mem", C_MEM },
	{ "gpus", C_GPUS },       { "time_limit", C_TIME_LIMIT },
	{ "time_limit_s", C_TIME_LIMIT_S }, { "run_time", C_RUN_TIME },
	{ "run_time_s", C_RUN_TIME_S }, { "licenses", C_LICENSES },
	{ "nice", C_NICE },
};

struct csv_state {
	bool have_header;
	struct colmap m;
	uint32_t seq; /* id of the next row when there is no id column */
};

static int csv_header(struct csv_state *st, char **f, int n,
		      struct fw_err *err)
{
	colmap_init(&st->m);
	for (int i = 0; i < n; i++) {
		enum col c = C_NONE;

		for (size_t k = 0; k < sizeof(csv_cols) / sizeof(csv_cols[0]); k++)
			if (!strcasecmp(f[i], csv_cols[k].name))
				c = csv_cols[k].col;
		if (c == C_NONE)
			return line_err(err, "column", f[i],
					"unknown column (known: id, submit, eligible, deadline, user, account, partition, qos, nodes, cpus, mem, gpus, time_limit, time_limit_s, run_time, run_time_s, licenses, nice)");
		if (st->m.where[c] >= 0)
			return line_err(err, "column", f[i], "column given twice");
		st->m.where[c] = i;
		st->m.col[i] = c;
	}
	st->m.ncols = n;
	if (st->m.where[C_SUBMIT] < 0)
		return line_err(err, "column", "submit", "the header has no submit column");
	if (st->m.where[C_RUN_TIME] < 0 && st->m.where[C_RUN_TIME_S] < 0)
		return line_err(err, "column", "run_time", "the header has no run_time (or run_time_s) column");
	if (st->m.where[C_RUN_TIME] >= 0 && st->m.where[C_RUN_TIME_S] >= 0)
		return line_err(err, "column", "run_time_s", "give run_time or run_time_s, not both");
	if (st->m.where[C_TIME_LIMIT] >= 0 && st->m.where[C_TIME_LIMIT_S] >= 0)
		return line_err(err, "column", "time_limit_s", "give time_limit or time_limit_s, not both");
	if (st->m.where[C_NODES] < 0 && st->m.where[C_CPUS] < 0)
		return line_err(err, "column", "nodes", "the header needs a nodes or a cpus column");
	st->have_header = true;
	return 0;
}

static const char *name_field(struct sim_trace *t, char **f,
			      const struct colmap *m, enum col c)
{
	const char *s = field_of(f, m, c);

	return s ? sim_intern(&t->str, s) : NULL;
}

static int csv_times(struct sim_job *j, char **f, const struct colmap *m,
		     struct fw_err *err)
{
	const char *s;

	if (!(s = field_of(f, m, C_SUBMIT)))
		return line_err(err, "submit", "", "a job needs a submit time");
	if (parse_time_field("submit", s, &j->submit, err))
		return -1;
	if ((s = field_of(f, m, C_ELIGIBLE)) &&
	    parse_time_field("eligible", s, &j->eligible, err))
		return -1;
	if (j->eligible <= j->submit)
		j->eligible = 0;
	if ((s = field_of(f, m, C_DEADLINE)) &&
	    parse_time_field("deadline", s, &j->deadline, err))
		return -1;
	if ((s = field_of(f, m, C_RUN_TIME)) &&
	    parse_dur_field("run_time", s, false, &j->run_time, err))
		return -1;
	if ((s = field_of(f, m, C_RUN_TIME_S)) &&
	    parse_secs_field("run_time_s", s, &j->run_time, err))
		return -1;
	if (!field_of(f, m, C_RUN_TIME) && !field_of(f, m, C_RUN_TIME_S))
		return line_err(err, m->where[C_RUN_TIME] >= 0 ? "run_time" : "run_time_s",
				"", "a job needs a run time");
	if ((s = field_of(f, m, C_TIME_LIMIT)) &&
	    parse_dur_field("time_limit", s, true, &j->time_limit, err))
		return -1;
	if ((s = field_of(f, m, C_TIME_LIMIT_S)) &&
	    parse_secs_field("time_limit_s", s, &j->time_limit, err))
		return -1;
	if (j->time_limit == 0)
		return line_err(err, "time_limit", "0", "a time limit must be positive");
	return 0;
}

static int csv_sizes(struct sim_job *j, char **f, const struct colmap *m,
		     struct fw_err *err)
{
	const char *s;
	uint64_t v;

	if ((s = field_of(f, m, C_NODES))) {
		if (parse_count_field("nodes", s, SIM_MAX_NODES, &v, err))
			return -1;
		j->nodes = (uint32_t)v;
	}
	if ((s = field_of(f, m, C_CPUS))) {
		if (parse_count_field("cpus", s, SIM_MAX_CPUS, &v, err))
			return -1;
		j->cpus = (uint32_t)v;
	}
	if (!j->nodes && !j->cpus)
		return line_err(err, "nodes", field_of(f, m, C_NODES) ? "0" : "",
				"a job needs at least one node or CPU");
	if ((s = field_of(f, m, C_GPUS))) {
		if (parse_count_field("gpus", s, SIM_MAX_GPUS, &v, err))
			return -1;
		j->gpus = (uint32_t)v;
	}
	if ((s = field_of(f, m, C_MEM)) &&
	    parse_mem_field("mem", s, &j->mem_mb, err))
		return -1;
	return 0;
}

static int csv_line(struct sim_trace *t, void *state, char *line, int lineno,
		    const struct sim_read_opts *o, struct fw_err *err)
{
	struct csv_state *st = state;
	char *f[SIM_MAX_FIELDS];
	const char *s;
	int n;

	(void)o;
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == '\0' || *line == '#')
		return 0;
	n = sim_split(line, ',', true, f, SIM_MAX_FIELDS);
	if (n < 0) {
		line_err(err, "line", "", "unterminated quote or more than 64 fields");
		return st->have_header ? -1 : FATAL;
	}
	if (!st->have_header)
		return csv_header(st, f, n, err) ? FATAL : 0;
	if (n != st->m.ncols) {
		char got[16], msg[64];
		snprintf(got, sizeof(got), "%d", n);
		snprintf(msg, sizeof(msg), "expected %d fields as in the header",
			 st->m.ncols);
		return line_err(err, "fields", got, msg);
	}

	struct sim_job *j = new_job(t, lineno);
	uint64_t v;

	if ((s = field_of(f, &st->m, C_ID))) {
		if (parse_count_field("id", s, UINT32_MAX, &v, err))
			return -1;
		if (v == 0)
			return line_err(err, "id", s, "job ids start at 1");
		j->id = (uint32_t)v;
	} else if (st->m.where[C_ID] >= 0) {
		return line_err(err, "id", "", "empty job id");
	} else {
		j->id = ++st->seq;
	}
	if (csv_times(j, f, &st->m, err) || csv_sizes(j, f, &st->m, err))
		return -1;
	j->user = name_field(t, f, &st->m, C_USER);
	j->account = name_field(t, f, &st->m, C_ACCOUNT);
	j->partition = name_field(t, f, &st->m, C_PARTITION);
	j->qos = name_field(t, f, &st->m, C_QOS);
	if ((s = field_of(f, &st->m, C_LICENSES))) {
		struct fw_err e;
		if (sim_parse_licenses(t, s, j, &e))
			return line_err(err, "licenses", s, e.msg);
	}
	if ((s = field_of(f, &st->m, C_NICE))) {
		int64_t nice;
		struct fw_err e;
		if (fw_parse_int64(s, &nice, &e) || nice < -2147483645LL ||
		    nice > 2147483645LL)
			return line_err(err, "nice", s, "nice must be an integer within +-2147483645");
		j->nice = (int32_t)nice;
	}
	return 0;
}

int sim_read_csv_mem(struct sim_trace *t, const char *name, const char *buf,
		     size_t len, const struct sim_read_opts *o,
		     struct fw_err *err)
{
	struct csv_state st = { 0 };
	int rc = read_lines(t, name, buf, len, o, csv_line, &st, err);

	if (rc == 0 && !st.have_header)
		return fw_err_set(err, name, 0, NULL, NULL,
				  "no header line naming the columns");
	return rc;
}

int sim_read_csv(struct sim_trace *t, const char *path,
		 const struct sim_read_opts *o, struct fw_err *err)
{
	return read_file(t, path, o, sim_read_csv_mem, err);
}

/* ------------------------------------------------------------------ sacct */

static const struct {
	const char *name;
	enum col col;
} sacct_cols[] = {
	{ "JobID", C_ID },         { "JobIDRaw", C_JOBIDRAW },
	{ "User", C_USER },        { "Account", C_ACCOUNT },
	{ "Partition", C_PARTITION }, { "QOS", C_QOS },
	{ "Submit", C_SUBMIT },    { "Eligible", C_ELIGIBLE },
	{ "Start", C_START },      { "End", C_END },
	{ "Elapsed", C_ELAPSED },  { "Timelimit", C_TIME_LIMIT },
	{ "NNodes", C_NODES },     { "NCPUS", C_CPUS },
	{ "ReqMem", C_MEM },       { "ReqTRES", C_REQTRES },
	{ "State", C_STATE },      { "ReqNodes", C_REQNODES },
	{ "ReqCPUS", C_REQCPUS },  { "Licenses", C_LICENSES },
};

struct sacct_state {
	bool have_header;
	struct colmap m;
};

static int sacct_header(struct sacct_state *st, char **f, int n,
			struct fw_err *err)
{
	colmap_init(&st->m);
	for (int i = 0; i < n; i++) {
		enum col c = C_NONE;

		for (size_t k = 0; k < sizeof(sacct_cols) / sizeof(sacct_cols[0]); k++)
			if (!strcasecmp(f[i], sacct_cols[k].name))
				c = sacct_cols[k].col;
		st->m.col[i] = c; /* other sacct fields are ignored */
		if (c == C_NONE)
			continue;
		if (st->m.where[c] >= 0)
			return line_err(err, "field", f[i], "field given twice");
		st->m.where[c] = i;
	}
	st->m.ncols = n;
	if (st->m.where[C_ID] < 0 && st->m.where[C_JOBIDRAW] < 0)
		return line_err(err, "field", "JobID", "the header has no JobID or JobIDRaw field (is this sacct --parsable2 output with its header?)");
	if (st->m.where[C_SUBMIT] < 0)
		return line_err(err, "field", "Submit", "the header has no Submit field");
	if (st->m.where[C_START] < 0)
		return line_err(err, "field", "Start", "the header has no Start field");
	if (st->m.where[C_END] < 0 && st->m.where[C_ELAPSED] < 0)
		return line_err(err, "field", "End", "the header needs End or Elapsed");
	if (st->m.where[C_NODES] < 0 && st->m.where[C_CPUS] < 0 &&
	    st->m.where[C_REQTRES] < 0 && st->m.where[C_REQNODES] < 0 &&
	    st->m.where[C_REQCPUS] < 0)
		return line_err(err, "field", "NNodes", "the header needs NNodes, NCPUS or ReqTRES");
	st->have_header = true;
	return 0;
}

/* "Unknown", "None" and empty mean "no time" in sacct's output. */
static bool sacct_no_time(const char *s)
{
	return !s || !strcasecmp(s, "Unknown") || !strcasecmp(s, "None");
}

/* Job id: JobIDRaw, else JobID; array/het ids ("12_3", "12+1") get 0. */
static int sacct_id(char **f, const struct colmap *m, uint32_t *id,
		    bool *is_step, struct fw_err *err)
{
	const char *raw = field_of(f, m, C_JOBIDRAW);
	const char *s = raw ? raw : field_of(f, m, C_ID);
	const char *key = raw ? "JobIDRaw" : "JobID";
	uint64_t v;

	*is_step = false;
	*id = 0;
	if (!s)
		return line_err(err, key, "", "empty job id");
	if (strchr(s, '.')) { /* a step ("12.batch"): not a job */
		*is_step = true;
		return 0;
	}
	if (sim_parse_count(s, UINT32_MAX, &v) == 0 && v > 0) {
		*id = (uint32_t)v;
		return 0;
	}
	if (!raw && isdigit((unsigned char)s[0]) && strpbrk(s, "_+"))
		return 0;
	return line_err(err, key, s, "not a job id");
}

/* One "k=v" of ReqTRES: cpu, mem, node, gres/gpu[:type], license/name. */
static int tres_item(struct sim_trace *t, struct sim_job *j, const char *k,
		     const char *v, uint64_t *cpu, uint64_t *node,
		     struct fw_err *err)
{
	uint64_t n;

	if (!strcmp(k, "mem"))
		return parse_mem_field("ReqTRES", v, &j->mem_mb, err) ? -1 : 0;
	if (!strcmp(k, "cpu") || !strcmp(k, "node") ||
	    !strncmp(k, "gres/gpu", 8) || !strncmp(k, "license/", 8)) {
		if (sim_parse_count(v, SIM_MAX_CPUS, &n))
			return line_err(err, "ReqTRES", v, "TRES count is not a whole number");
	} else {
		return 0; /* billing, energy, fs/disk, ... */
	}
	if (!strcmp(k, "cpu"))
		*cpu = n;
	else if (!strcmp(k, "node"))
		*node = n;
	else if (!strncmp(k, "gres/gpu", 8) && (k[8] == '\0' || k[8] == ':')) {
		/* "gres/gpu" is the total; typed entries repeat it. */
		if (k[8] == '\0')
			j->gpus = (uint32_t)(n > SIM_MAX_GPUS ? SIM_MAX_GPUS : n);
		else if (!j->gpus)
			j->gpus = (uint32_t)(n > SIM_MAX_GPUS ? SIM_MAX_GPUS : n);
	} else if (!strncmp(k, "license/", 8) && k[8] && n > 0) {
		char spec[96];
		struct fw_err e;
		snprintf(spec, sizeof(spec), "%s:%llu", k + 8,
			 (unsigned long long)(n > 1000000 ? 1000000 : n));
		struct sim_job tmp = *j;
		if (sim_parse_licenses(t, spec, &tmp, &e))
			return line_err(err, "ReqTRES", v, e.msg);
		/* merge into the job's list */
		for (uint32_t a = 0; a < tmp.nlic; a++) {
			uint32_t b;
			for (b = 0; b < j->nlic; b++)
				if (j->lic[b].name == tmp.lic[a].name)
					break;
			if (b == j->nlic) {
				if (j->nlic == SIM_MAX_LICENSES)
					return line_err(err, "ReqTRES", v, "too many different licenses");
				j->lic[j->nlic++] = tmp.lic[a];
			} else {
				j->lic[b].count = tmp.lic[a].count;
			}
		}
	}
	return 0;
}

static int sacct_tres(struct sim_trace *t, struct sim_job *j, const char *s,
		      uint64_t *cpu, uint64_t *node, struct fw_err *err)
{
	char buf[1024];
	char *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return line_err(err, "ReqTRES", s, "too long");
	strcpy(buf, s);
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			return line_err(err, "ReqTRES", s, "expected name=count pairs");
		*eq = '\0';
		if (tres_item(t, j, tok, eq + 1, cpu, node, err))
			return -1;
	}
	return 0;
}

/* ReqMem: "4000M" (whole job in 22.05); older "4000Mn"/"4000Mc". */
static int sacct_mem(struct sim_job *j, const char *s, struct fw_err *err)
{
	char buf[64];
	size_t n = strlen(s);
	char per = 0;

	if (n == 0 || n >= sizeof(buf))
		return line_err(err, "ReqMem", s, "not a memory size");
	memcpy(buf, s, n + 1);
	if (n > 1 && (buf[n - 1] == 'n' || buf[n - 1] == 'c') &&
	    isalpha((unsigned char)buf[n - 2])) {
		per = buf[n - 1];
		buf[n - 1] = '\0';
	}
	if (parse_mem_field("ReqMem", buf, &j->mem_mb, err))
		return -1;
	if (per == 'n')
		j->mem_mb *= j->nodes ? j->nodes : 1;
	else if (per == 'c')
		j->mem_mb *= j->cpus ? j->cpus : 1;
	return 0;
}

static int sacct_times(struct sim_trace *t, struct sim_job *j, char **f,
		       const struct colmap *m, bool *skip, struct fw_err *err)
{
	const char *s, *st = field_of(f, m, C_STATE);
	fw_time_t start, end;

	*skip = false;
	if (!(s = field_of(f, m, C_SUBMIT)) || sacct_no_time(s))
		return line_err(err, "Submit", s ? s : "", "a job needs a submit time");
	if (parse_time_field("Submit", s, &j->submit, err))
		return -1;
	s = field_of(f, m, C_START);
	if (sacct_no_time(s) || (st && !strncasecmp(st, "PENDING", 7))) {
		t->not_started++;
		*skip = true;
		return 0;
	}
	if (parse_time_field("Start", s, &start, err))
		return -1;
	if (start < j->submit)
		return line_err(err, "Start", s, "start before submit");
	j->trace_start = start;
	s = field_of(f, m, C_END);
	if (!sacct_no_time(s) && m->where[C_END] >= 0) {
		if (parse_time_field("End", s, &end, err))
			return -1;
		if (end < start)
			return line_err(err, "End", s, "end before start");
		j->run_time = end - start;
	} else {
		s = field_of(f, m, C_ELAPSED);
		if (!s)
			return line_err(err, "End", "Unknown", "no end time and no Elapsed");
		if (parse_dur_field("Elapsed", s, false, &j->run_time, err))
			return -1;
		t->still_running++;
	}
	if ((s = field_of(f, m, C_ELIGIBLE)) && !sacct_no_time(s)) {
		if (parse_time_field("Eligible", s, &j->eligible, err))
			return -1;
		if (j->eligible <= j->submit)
			j->eligible = 0;
	}
	s = field_of(f, m, C_TIME_LIMIT);
	if (s && strcasecmp(s, "Partition_Limit") && strcasecmp(s, "UNLIMITED")) {
		if (parse_dur_field("Timelimit", s, false, &j->time_limit, err))
			return -1;
		if (j->time_limit == 0)
			j->time_limit = -1;
	}
	return 0;
}

static int sacct_sizes(struct sim_trace *t, struct sim_job *j, char **f,
		       const struct colmap *m, struct fw_err *err)
{
	const char *s;
	uint64_t v, tcpu = 0, tnode = 0;

	if ((s = field_of(f, m, C_REQTRES)) &&
	    sacct_tres(t, j, s, &tcpu, &tnode, err))
		return -1;
	/* Allocated counts first (what the job really used), then requested. */
	const enum col nodecols[] = { C_NODES, C_REQNODES };
	const char *nodekeys[] = { "NNodes", "ReqNodes" };
	for (int k = 0; k < 2 && !j->nodes; k++)
		if ((s = field_of(f, m, nodecols[k]))) {
			if (parse_count_field(nodekeys[k], s, SIM_MAX_NODES, &v, err))
				return -1;
			j->nodes = (uint32_t)v;
		}
	const enum col cpucols[] = { C_CPUS, C_REQCPUS };
	const char *cpukeys[] = { "NCPUS", "ReqCPUS" };
	for (int k = 0; k < 2 && !j->cpus; k++)
		if ((s = field_of(f, m, cpucols[k]))) {
			if (parse_count_field(cpukeys[k], s, SIM_MAX_CPUS, &v, err))
				return -1;
			j->cpus = (uint32_t)v;
		}
	if (!j->nodes && tnode)
		j->nodes = (uint32_t)(tnode > SIM_MAX_NODES ? SIM_MAX_NODES : tnode);
	if (!j->cpus && tcpu)
		j->cpus = (uint32_t)tcpu;
	if (!j->nodes && !j->cpus)
		return line_err(err, "NNodes", field_of(f, m, C_NODES) ? "0" : "",
				"no node or CPU count");
	if ((s = field_of(f, m, C_MEM)) && sacct_mem(j, s, err))
		return -1;
	if ((s = field_of(f, m, C_LICENSES))) {
		struct fw_err e;
		if (sim_parse_licenses(t, s, j, &e))
			return line_err(err, "Licenses", s, e.msg);
	}
	return 0;
}

static int sacct_line(struct sim_trace *t, void *state, char *line,
		      int lineno, const struct sim_read_opts *o,
		      struct fw_err *err)
{
	struct sacct_state *st = state;
	char *f[SIM_MAX_FIELDS];
	bool skip, is_step;
	uint32_t id;
	int n;

	(void)o;
	if (line[strspn(line, " \t")] == '\0')
		return 0;
	n = sim_split(line, '|', false, f, SIM_MAX_FIELDS);
	if (n < 0) {
		line_err(err, "line", "", "more than 64 fields");
		return st->have_header ? -1 : FATAL;
	}
	if (!st->have_header)
		return sacct_header(st, f, n, err) ? FATAL : 0;
	if (n != st->m.ncols) {
		char got[16], msg[64];
		snprintf(got, sizeof(got), "%d", n);
		snprintf(msg, sizeof(msg), "expected %d '|'-separated fields as in the header",
			 st->m.ncols);
		return line_err(err, "fields", got, msg);
	}
	if (sacct_id(f, &st->m, &id, &is_step, err))
		return -1;
	if (is_step)
		return 0;

	struct sim_job *j = new_job(t, lineno);
	j->id = id;
	if (sacct_times(t, j, f, &st->m, &skip, err))
		return -1;
	if (skip) {
		t->n--;
		return 0;
	}
	if (sacct_sizes(t, j, f, &st->m, err))
		return -1;
	j->user = name_field(t, f, &st->m, C_USER);
	j->account = name_field(t, f, &st->m, C_ACCOUNT);
	j->qos = name_field(t, f, &st->m, C_QOS);
	const char *p = field_of(f, &st->m, C_PARTITION);
	if (p) /* a pending job may list several partitions: use the first */
		j->partition = sim_intern_n(&t->str, p, strcspn(p, ","));
	return 0;
}

int sim_read_sacct_mem(struct sim_trace *t, const char *name,
		       const char *buf, size_t len,
		       const struct sim_read_opts *o, struct fw_err *err)
{
	struct sacct_state st = { 0 };
	int rc = read_lines(t, name, buf, len, o, sacct_line, &st, err);

	if (rc == 0 && !st.have_header)
		return fw_err_set(err, name, 0, NULL, NULL,
				  "no header line (run sacct --parsable2 without --noheader)");
	return rc;
}

int sim_read_sacct(struct sim_trace *t, const char *path,
		   const struct sim_read_opts *o, struct fw_err *err)
{
	return read_file(t, path, o, sim_read_sacct_mem, err);
}
