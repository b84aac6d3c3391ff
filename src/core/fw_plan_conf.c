/*
 * fw_plan_conf.c - configuration of the planner.
 *
 * slurm.conf: SchedulerParameters, parsed token by token (Slurm itself
 * searches substrings, so "bf_max_job_user_part=" can never be mistaken for
 * "bf_max_job_user=" here).  Every bf_* token Slurm 22.05 knows is checked
 * against Slurm's range; an unknown bf_* token is an error, other tokens
 * belong to Slurm's main scheduler and are accepted (sched_interval and
 * defer are kept so sched/fairway can check the hand-over).
 *
 * fairway.conf: ReservationDepth, ReservationOrder and TopologyPlacement.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fw_plan.h"

static void set_sched_defaults(struct fw_plan_conf *c)
{
	/* Slurm 22.05 defaults (backfill.c, job_scheduler.c), except
	 * bf_max_job_test: Slurm tests 500 jobs, Fairway the whole queue. */
	c->bf_window = 24 * 60 * 60;
	c->bf_resolution = 60;
	c->bf_interval = 30;
	c->bf_max_time = 0;
	c->bf_max_job_test = 0;
	c->bf_max_job_start = 0;
	c->bf_max_job_user = 0;
	c->bf_max_job_part = 0;
	c->bf_max_job_user_part = 0;
	c->bf_max_job_assoc = 0;
	c->bf_job_part_count_reserve = 0;
	c->bf_min_age_reserve = 0;
	c->bf_min_prio_reserve = 0;
	c->bf_continue = false;
	c->bf_yield_interval = 2000000;
	c->bf_yield_sleep = 500000;
	c->sched_interval = 60;
	c->sched_interval_set = false;
	c->defer = false;
	c->preempt_youngest_first = false;
	c->preempt_strict_order = false;
	c->preempt_reorder_count = 1;
	c->seen = 0;
}

struct fw_plan_conf *fw_plan_conf_new(void)
{
	struct fw_plan_conf *c = fw_xcalloc(1, sizeof(*c));

	set_sched_defaults(c);
	c->resv_depth = 0;
	c->topo = FW_TOPO_PREFER;
	return c;
}

void fw_plan_conf_free(struct fw_plan_conf *c)
{
	free(c);
}

uint32_t fw_plan_conf_depth(const struct fw_plan_conf *c)
{
	if (c->resv_depth_set)
		return c->resv_depth;
	return c->bf_job_part_count_reserve;
}

bool fw_plan_conf_may_reserve(const struct fw_plan_conf *c, fw_time_t now,
			      const struct fw_plan_job *j)
{
	uint32_t thr = j->prio_reserve ? j->prio_reserve :
		       c->bf_min_prio_reserve;

	if (thr && j->priority < thr)
		return false;
	if (c->bf_min_age_reserve && j->eligible &&
	    now - j->eligible < c->bf_min_age_reserve)
		return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* SchedulerParameters                                                 */
/* ------------------------------------------------------------------ */

enum tok_kind { TOK_INT, TOK_FLAG, TOK_HETPRIO };

enum tok_field {
	F_NONE, F_WINDOW, F_RESOLUTION, F_INTERVAL, F_MAX_TIME, F_MAX_TEST,
	F_MAX_START, F_MAX_USER, F_MAX_PART, F_MAX_USER_PART, F_MAX_ASSOC,
	F_PART_COUNT, F_MIN_AGE, F_MIN_PRIO, F_CONTINUE, F_YIELD_INTERVAL,
	F_YIELD_SLEEP,
};

struct tok_def {
	const char *name;
	enum tok_kind kind;
	int64_t min, max;	/* TOK_INT range (Slurm's) */
	bool allow_minus_one;	/* -1 accepted besides [min, max] */
	const char *unit;
	enum tok_field field;
};

/* Every bf_* token of Slurm 22.05 (backfill.c _load_config and the
 * select plugins' bf_busy_nodes / bf_window_linear). */
static const struct tok_def bf_tokens[] = {
	{ "bf_window", TOK_INT, 1, 43200, false, "minutes", F_WINDOW },
	{ "bf_resolution", TOK_INT, 1, 3600, false, "seconds", F_RESOLUTION },
	{ "bf_interval", TOK_INT, 1, 10800, true, "seconds", F_INTERVAL },
	{ "bf_max_time", TOK_INT, 1, 3600, false, "seconds", F_MAX_TIME },
	{ "bf_max_job_test", TOK_INT, 1, 1000000, false, "jobs", F_MAX_TEST },
	{ "bf_max_job_start", TOK_INT, 0, 10000, false, "jobs", F_MAX_START },
	{ "bf_max_job_user", TOK_INT, 0, 1000000, false, "jobs", F_MAX_USER },
	{ "bf_max_job_part", TOK_INT, 0, 1000000, false, "jobs", F_MAX_PART },
	{ "bf_max_job_user_part", TOK_INT, 0, 1000000, false, "jobs",
	  F_MAX_USER_PART },
	{ "bf_max_job_assoc", TOK_INT, 0, 1000000, false, "jobs", F_MAX_ASSOC },
	{ "bf_job_part_count_reserve", TOK_INT, 0, 100000, false, "jobs",
	  F_PART_COUNT },
	{ "bf_min_age_reserve", TOK_INT, 0, 2592000, false, "seconds",
	  F_MIN_AGE },
	{ "bf_min_prio_reserve", TOK_INT, 1, UINT32_MAX, false, "",
	  F_MIN_PRIO },
	{ "bf_continue", TOK_FLAG, 0, 0, false, "", F_CONTINUE },
	{ "bf_yield_interval", TOK_INT, 1, 10000000, false, "microseconds",
	  F_YIELD_INTERVAL },
	{ "bf_yield_sleep", TOK_INT, 1, 10000000, false, "microseconds",
	  F_YIELD_SLEEP },
	/* Slurm's, accepted and checked, no effect on the planner: */
	{ "bf_node_space_size", TOK_INT, 2, 2000000, false, "records",
	  F_NONE },
	{ "bf_max_job_array_resv", TOK_INT, 0, 1000, false, "tasks", F_NONE },
	{ "bf_window_linear", TOK_INT, 1, INT32_MAX, false, "seconds",
	  F_NONE },
	{ "bf_hetjob_prio", TOK_HETPRIO, 0, 0, false, "", F_NONE },
	{ "bf_hetjob_immediate", TOK_FLAG, 0, 0, false, "", F_NONE },
	{ "bf_busy_nodes", TOK_FLAG, 0, 0, false, "", F_NONE },
	{ "bf_licenses", TOK_FLAG, 0, 0, false, "", F_NONE },
	{ "bf_one_resv_per_job", TOK_FLAG, 0, 0, false, "", F_NONE },
	{ "bf_running_job_reserve", TOK_FLAG, 0, 0, false, "", F_NONE },
};
#define N_BF_TOKENS (sizeof(bf_tokens) / sizeof(bf_tokens[0]))

static void store(struct fw_plan_conf *c, enum tok_field f, int64_t v)
{
	switch (f) {
	case F_NONE: break;
	case F_WINDOW: c->bf_window = v * 60; break;
	case F_RESOLUTION: c->bf_resolution = v; break;
	case F_INTERVAL: c->bf_interval = v; break;
	case F_MAX_TIME: c->bf_max_time = v; break;
	case F_MAX_TEST: c->bf_max_job_test = (uint32_t)v; break;
	case F_MAX_START: c->bf_max_job_start = (uint32_t)v; break;
	case F_MAX_USER: c->bf_max_job_user = (uint32_t)v; break;
	case F_MAX_PART: c->bf_max_job_part = (uint32_t)v; break;
	case F_MAX_USER_PART: c->bf_max_job_user_part = (uint32_t)v; break;
	case F_MAX_ASSOC: c->bf_max_job_assoc = (uint32_t)v; break;
	case F_PART_COUNT: c->bf_job_part_count_reserve = (uint32_t)v; break;
	case F_MIN_AGE: c->bf_min_age_reserve = v; break;
	case F_MIN_PRIO: c->bf_min_prio_reserve = (uint32_t)v; break;
	case F_CONTINUE: c->bf_continue = v != 0; break;
	case F_YIELD_INTERVAL: c->bf_yield_interval = v; break;
	case F_YIELD_SLEEP: c->bf_yield_sleep = v; break;
	}
}

/* Strict integer: optional sign and digits only (Slurm's atoi would take
 * "10min" as 10; a typo must not silently change the meaning). */
static int strict_int(const char *s, int64_t *out)
{
	struct fw_err tmp;

	if (!*s)
		return -1;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && !(p == s && *p == '-'))
			return -1;
	return fw_parse_int64(s, out, &tmp);
}

static int bad_token(struct fw_err *err, const char *name, const char *val,
		     const char *fmt, const char *detail)
{
	return fw_err_set(err, NULL, 0, name, val ? val : "",
			  "SchedulerParameters: %s%s", fmt, detail);
}

static int parse_bf_token(struct fw_plan_conf *c, const char *name,
			  const char *val, struct fw_err *err)
{
	const struct tok_def *t = NULL;
	size_t k;
	int64_t v;
	char range[96];

	for (k = 0; k < N_BF_TOKENS; k++)
		if (strcasecmp(bf_tokens[k].name, name) == 0) {
			t = &bf_tokens[k];
			break;
		}
	if (!t)
		return bad_token(err, name, val,
				 "unknown backfill parameter", "");
	if (c->seen & ((uint64_t)1 << k))
		return bad_token(err, name, val, "given twice", "");
	c->seen |= (uint64_t)1 << k;

	switch (t->kind) {
	case TOK_FLAG:
		if (val)
			return bad_token(err, name, val,
					 "takes no value", "");
		store(c, t->field, 1);
		return 0;
	case TOK_HETPRIO:
		if (!val || (strcasecmp(val, "min") && strcasecmp(val, "max") &&
			     strcasecmp(val, "avg")))
			return bad_token(err, name, val,
					 "must be min, max or avg", "");
		return 0;
	case TOK_INT:
		break;
	}
	if (t->allow_minus_one)
		snprintf(range, sizeof(range), "-1 or %" PRId64 "..%" PRId64
			 "%s%s", t->min, t->max, t->unit[0] ? " " : "",
			 t->unit);
	else
		snprintf(range, sizeof(range), "%" PRId64 "..%" PRId64 "%s%s",
			 t->min, t->max, t->unit[0] ? " " : "", t->unit);
	if (!val || !*val)
		return bad_token(err, name, val, "needs a value ", range);
	if (strict_int(val, &v))
		return bad_token(err, name, val, "not an integer, expected ",
				 range);
	if (!(t->allow_minus_one && v == -1) && (v < t->min || v > t->max))
		return bad_token(err, name, val, "out of range, expected ",
				 range);
	store(c, t->field, v);
	return 0;
}

static int parse_other_token(struct fw_plan_conf *c, const char *name,
			     const char *val, struct fw_err *err)
{
	int64_t v;

	if (strcasecmp(name, "max_job_bf") == 0)
		return bad_token(err, name, val,
				 "replaced by bf_max_job_test", "");
	if (strcasecmp(name, "sched_interval") == 0) {
		if (!val || strict_int(val, &v) || v < -1 || v > INT32_MAX)
			return bad_token(err, name, val,
					 "expected -1 or a number of seconds",
					 "");
		c->sched_interval = v;
		c->sched_interval_set = true;
		return 0;
	}
	if (strcasecmp(name, "defer") == 0) {
		if (val)
			return bad_token(err, name, val, "takes no value", "");
		c->defer = true;
		return 0;
	}
	if (strcasecmp(name, "preempt_youngest_first") == 0 ||
	    strcasecmp(name, "preempt_strict_order") == 0) {
		if (val)
			return bad_token(err, name, val, "takes no value", "");
		if (strcasecmp(name, "preempt_strict_order") == 0)
			c->preempt_strict_order = true;
		else
			c->preempt_youngest_first = true;
		return 0;
	}
	if (strcasecmp(name, "preempt_reorder_count") == 0) {
		if (!val || strict_int(val, &v) || v < 0 || v > INT32_MAX)
			return bad_token(err, name, val,
					 "expected a count >= 0", "");
		c->preempt_reorder_count = (uint32_t)v;
		return 0;
	}
	/* Slurm's own (default_queue_depth=, max_rpc_cnt=, ...). */
	return 0;
}

static void trim(char **b, char **e)
{
	while (*b < *e && isspace((unsigned char)**b))
		(*b)++;
	while (*e > *b && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

static int parse_sched_params(struct fw_plan_conf *c, const char *value,
			      struct fw_err *err)
{
	char *copy = fw_strdup(value ? value : "");
	char *p = copy;
	int rc = 0;

	set_sched_defaults(c);
	while (rc == 0 && *p) {
		char *end = strchr(p, ',');
		char *next = end ? end + 1 : p + strlen(p);
		char *b = p, *e = end ? end : p + strlen(p);
		char *eq, *val = NULL;

		trim(&b, &e);
		*e = '\0';
		p = next;
		if (!*b)
			continue;	/* ",," as Slurm tolerates it */
		eq = strchr(b, '=');
		if (eq) {
			*eq = '\0';
			val = eq + 1;
		}
		if (strncasecmp(b, "bf_", 3) == 0)
			rc = parse_bf_token(c, b, val, err);
		else
			rc = parse_other_token(c, b, val, err);
	}
	free(copy);
	return rc ? FW_CONF_ERR : FW_CONF_OK;
}

int fw_plan_conf_slurm(struct fw_plan_conf *c, const char *key,
		       const char *value, struct fw_err *err)
{
	if (!key || strcasecmp(key, "SchedulerParameters") != 0)
		return FW_CONF_UNKNOWN;
	return parse_sched_params(c, value, err);
}

/* ------------------------------------------------------------------ */
/* fairway.conf                                                        */
/* ------------------------------------------------------------------ */

static int parse_depth(struct fw_plan_conf *c, const char *v,
		       struct fw_err *err)
{
	int64_t n;

	if (c->resv_depth_set)
		return fw_err_set(err, NULL, 0, "ReservationDepth", v,
				  "set twice");
	if (strcasecmp(v, "conservative") == 0)
		n = 0;
	else if (strcasecmp(v, "easy") == 0)
		n = 1;
	else if (strict_int(v, &n) || n < 1 || n > 100000)
		return fw_err_set(err, NULL, 0, "ReservationDepth", v,
				  "expected easy, conservative or a number of "
				  "jobs per partition 1..100000");
	c->resv_depth = (uint32_t)n;
	c->resv_depth_set = true;
	return 0;
}

static int parse_order(struct fw_plan_conf *c, const char *v,
		       struct fw_err *err)
{
	if (c->resv_order_set)
		return fw_err_set(err, NULL, 0, "ReservationOrder", v,
				  "set twice");
	if (strcasecmp(v, "priority") == 0)
		c->resv_by_submit = false;
	else if (strcasecmp(v, "submit") == 0)
		c->resv_by_submit = true;
	else
		return fw_err_set(err, NULL, 0, "ReservationOrder", v,
				  "expected priority or submit");
	c->resv_order_set = true;
	return 0;
}

static int parse_topo(struct fw_plan_conf *c, const char *v,
		      struct fw_err *err)
{
	if (c->topo_set)
		return fw_err_set(err, NULL, 0, "TopologyPlacement", v,
				  "set twice");
	if (strcasecmp(v, "none") == 0)
		c->topo = FW_TOPO_NONE;
	else if (strcasecmp(v, "prefer") == 0)
		c->topo = FW_TOPO_PREFER;
	else if (strcasecmp(v, "strict") == 0)
		c->topo = FW_TOPO_STRICT;
	else
		return fw_err_set(err, NULL, 0, "TopologyPlacement", v,
				  "expected none, prefer or strict");
	c->topo_set = true;
	return 0;
}

static bool is_plan_key(const char *k)
{
	return strcasecmp(k, "ReservationDepth") == 0 ||
	       strcasecmp(k, "ReservationOrder") == 0 ||
	       strcasecmp(k, "TopologyPlacement") == 0;
}

int fw_plan_conf_line(struct fw_plan_conf *c, const struct fw_kv *kv,
		      bool *used, struct fw_err *err)
{
	bool any = false;

	/* Only global lines: our keys inside an entity line (Account=...)
	 * would be ambiguous, so such a line is not ours and the dispatcher
	 * reports the key as unknown there. */
	if (kv->n == 0 || !is_plan_key(kv->key[0]))
		return FW_CONF_UNKNOWN;
	for (int i = 0; i < kv->n; i++) {
		int rc;

		if (strcasecmp(kv->key[i], "ReservationDepth") == 0)
			rc = parse_depth(c, kv->val[i], err);
		else if (strcasecmp(kv->key[i], "ReservationOrder") == 0)
			rc = parse_order(c, kv->val[i], err);
		else if (strcasecmp(kv->key[i], "TopologyPlacement") == 0)
			rc = parse_topo(c, kv->val[i], err);
		else
			continue;
		if (rc)
			return FW_CONF_ERR;
		used[i] = true;
		any = true;
	}
	return any ? FW_CONF_OK : FW_CONF_UNKNOWN;
}

int fw_plan_conf_finish(struct fw_plan_conf *c, struct fw_err *err)
{
	char buf[32];

	/* Slurm logs an error and drops bf_max_job_user here; Fairway does
	 * not fall back silently. */
	if (c->bf_max_job_user && c->bf_max_job_assoc) {
		snprintf(buf, sizeof(buf), "%u", c->bf_max_job_user);
		return fw_err_set(err, NULL, 0, "bf_max_job_user", buf,
				  "SchedulerParameters: cannot be combined "
				  "with bf_max_job_assoc");
	}
	if (c->resv_depth_set && c->bf_job_part_count_reserve &&
	    c->resv_depth != c->bf_job_part_count_reserve) {
		if (c->resv_depth)
			snprintf(buf, sizeof(buf), "%u", c->resv_depth);
		else
			snprintf(buf, sizeof(buf), "conservative");
		return fw_err_set(err, NULL, 0, "ReservationDepth", buf,
				  "contradicts SchedulerParameters "
				  "bf_job_part_count_reserve=%u",
				  c->bf_job_part_count_reserve);
	}
	/* Oldest-first reservations need a number of them: with every job
	 * protected (conservative) the order would be plain FCFS. */
	if (c->resv_by_submit && fw_plan_conf_depth(c) == 0)
		return fw_err_set(err, NULL, 0, "ReservationOrder", "submit",
				  "needs ReservationDepth=easy or a number "
				  "of jobs (or bf_job_part_count_reserve); "
				  "with conservative depth every job is "
				  "protected");
	return FW_CONF_OK;
}
