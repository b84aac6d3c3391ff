/*
 * fw_prio_conf.c - configuration of the factor model: slurm.conf keys with
 * Slurm's meaning, fairway.conf keys and entity lines, cross-checks.
 * Every rejection names the key, the value and the reason.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_prio_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ term table */

/* How a term's weight is configured. */
enum weight_src {
	W_FAIRWAY,  /* PriorityWeight<Name> in fairway.conf */
	W_SLURM,    /* PriorityWeight<Name> in slurm.conf */
	W_FIXED     /* not configurable (TRES: per-TRES weights; Site; Nice) */
};

struct term_info {
	const char *name;
	enum weight_src src;
	double def_weight;
};

/*
 * Credential, boost and base terms are priority points as written in
 * fairway.conf, so their weight defaults to 1; every other term is off
 * until given a weight (as Slurm's weights default to 0).
 */
static const struct term_info terms[FW_PRIO_NTERMS] = {
	[FW_PRIO_T_AGE] = { "Age", W_SLURM, 0 },
	[FW_PRIO_T_FAIRSHARE] = { "Fairshare", W_SLURM, 0 },
	[FW_PRIO_T_JOBSIZE] = { "JobSize", W_SLURM, 0 },
	[FW_PRIO_T_PARTITION] = { "Partition", W_SLURM, 0 },
	[FW_PRIO_T_QOS] = { "QOS", W_SLURM, 0 },
	[FW_PRIO_T_ASSOC] = { "Assoc", W_SLURM, 0 },
	[FW_PRIO_T_TRES] = { "TRES", W_FIXED, 1 },
	[FW_PRIO_T_SITE] = { "Site", W_FIXED, 1 },
	[FW_PRIO_T_NICE] = { "Nice", W_FIXED, -1 },
	[FW_PRIO_T_CRED_USER] = { "CredUser", W_FAIRWAY, 1 },
	[FW_PRIO_T_CRED_ACCOUNT] = { "CredAccount", W_FAIRWAY, 1 },
	[FW_PRIO_T_CRED_QOS] = { "CredQOS", W_FAIRWAY, 1 },
	[FW_PRIO_T_CRED_PARTITION] = { "CredPartition", W_FAIRWAY, 1 },
	[FW_PRIO_T_QUEUE_PRIORITY] = { "QueuePriority", W_FAIRWAY, 0 },
	[FW_PRIO_T_FS] = { "FS", W_FAIRWAY, 0 },
	[FW_PRIO_T_NODES] = { "Nodes", W_FAIRWAY, 0 },
	[FW_PRIO_T_CPUS] = { "CPUs", W_FAIRWAY, 0 },
	[FW_PRIO_T_MEMGB] = { "MemGB", W_FAIRWAY, 0 },
	[FW_PRIO_T_GPUS] = { "GPUs", W_FAIRWAY, 0 },
	[FW_PRIO_T_WALLTIME] = { "Walltime", W_FAIRWAY, 0 },
	[FW_PRIO_T_PROC_SECONDS] = { "ProcSeconds", W_FAIRWAY, 0 },
	[FW_PRIO_T_PE] = { "PE", W_FAIRWAY, 0 },
	[FW_PRIO_T_QUEUE_TIME] = { "QueueTime", W_FAIRWAY, 0 },
	[FW_PRIO_T_XFACTOR] = { "XFactor", W_FAIRWAY, 0 },
	[FW_PRIO_T_STARVATION] = { "Starvation", W_FAIRWAY, 0 },
	[FW_PRIO_T_ELIGIBLE_TIME] = { "EligibleTime", W_FAIRWAY, 0 },
	[FW_PRIO_T_BYPASS] = { "Bypass", W_FAIRWAY, 0 },
	[FW_PRIO_T_START_COUNT] = { "StartCount", W_FAIRWAY, 0 },
	[FW_PRIO_T_DEADLINE] = { "Deadline", W_FAIRWAY, 0 },
	[FW_PRIO_T_USER_PRIO] = { "UserPrio", W_FAIRWAY, 0 },
	[FW_PRIO_T_TARGET_QUEUE_TIME] = { "TargetQueueTime", W_FAIRWAY, 0 },
	[FW_PRIO_T_TARGET_XFACTOR] = { "TargetXFactor", W_FAIRWAY, 0 },
	[FW_PRIO_T_CONSUMED] = { "Consumed", W_FAIRWAY, 0 },
	[FW_PRIO_T_REMAINING] = { "Remaining", W_FAIRWAY, 0 },
	[FW_PRIO_T_PERCENT] = { "Percent", W_FAIRWAY, 0 },
	[FW_PRIO_T_EXECUTION_TIME] = { "ExecutionTime", W_FAIRWAY, 0 },
	[FW_PRIO_T_BOOST] = { "Boost", W_FAIRWAY, 1 },
	[FW_PRIO_T_BASE] = { "Base", W_FAIRWAY, 1 },
};

static const char *const group_names[FW_PRIO_NGROUPS] = {
	"Slurm", "Cred", "FS", "Res", "Service", "Target", "Usage", "Boost", "Base"
};

static const char *const kind_names[FW_PRIO_NKINDS] = {
	"User", "Account", "QOS", "Partition"
};

const char *fw_prio_term_name(enum fw_prio_term t)
{
	return (unsigned)t < FW_PRIO_NTERMS ? terms[t].name : "?";
}

enum fw_prio_group fw_prio_term_group(enum fw_prio_term t)
{
	int g = 0;

	while (g + 1 < FW_PRIO_NGROUPS && (int)t >= fw_prio_group_first[g + 1])
		g++;
	return (enum fw_prio_group)g;
}

double fw_prio_term_default_weight(enum fw_prio_term t)
{
	return (unsigned)t < FW_PRIO_NTERMS ? terms[t].def_weight : 0;
}

const char *fw_prio_group_name(enum fw_prio_group g)
{
	return (unsigned)g < FW_PRIO_NGROUPS ? group_names[g] : "?";
}

/* ---------------------------------------------------------------- errors */

static int conf_err(struct fw_err *err, const char *key, const char *value,
		    const char *fmt, ...) FW_PRINTF(4, 5);

static int conf_err(struct fw_err *err, const char *key, const char *value,
		    const char *fmt, ...)
{
	char msg[sizeof(err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fw_err_set(err, NULL, 0, key, value, "%s", msg);
	return FW_CONF_ERR;
}

/* ---------------------------------------------------------- value parsing */

static int parse_weight(const char *key, const char *v, double *out,
		       struct fw_err *err)
{
	struct fw_err e;

	fw_err_clear(&e);
	if (fw_parse_weight(v, out, &e))
		return conf_err(err, key, v, "%s", e.msg);
	return FW_CONF_OK;
}

static bool is_unlimited(const char *v)
{
	return fw_streq(v, "UNLIMITED") || fw_streq(v, "INFINITE") ||
	       fw_streq(v, "NONE");
}

/* A cap bounds |value|; its sign is irrelevant, UNLIMITED removes it. */
static int parse_cap(const char *key, const char *v, double *out,
		     struct fw_err *err)
{
	if (is_unlimited(v)) {
		*out = INFINITY;
		return FW_CONF_OK;
	}
	if (parse_weight(key, v, out, err))
		return FW_CONF_ERR;
	*out = fabs(*out);
	return FW_CONF_OK;
}

static int parse_duration(const char *key, const char *v, bool inf,
			  int64_t *out, struct fw_err *err)
{
	struct fw_err e;

	fw_err_clear(&e);
	if (fw_parse_duration(v, inf, out, &e))
		return conf_err(err, key, v, "%s", e.msg);
	return FW_CONF_OK;
}

/* Slurm's time_str2mins rounds a duration up to whole minutes. */
static int64_t round_up_minutes(int64_t sec)
{
	return (sec + 59) / 60 * 60;
}

/* ------------------------------------------------------------- entities */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int names_find(const struct fw_prio_names *t, const char *name)
{
	if (!t->nslot || !name)
		return -1;
	for (uint32_t i = hash_str(name) & (uint32_t)(t->nslot - 1);;
	     i = (i + 1) & (uint32_t)(t->nslot - 1)) {
		int s = t->slot[i];

		if (!s)
			return -1;
		if (!strcmp(t->e[s - 1].name, name))
			return s - 1;
	}
}

static void names_place(struct fw_prio_names *t, int idx)
{
	uint32_t i = hash_str(t->e[idx].name) & (uint32_t)(t->nslot - 1);

	while (t->slot[i])
		i = (i + 1) & (uint32_t)(t->nslot - 1);
	t->slot[i] = idx + 1;
}

static void names_grow_slots(struct fw_prio_names *t)
{
	free(t->slot);
	t->nslot = t->nslot ? t->nslot * 2 : 16;
	t->slot = fw_xcalloc((size_t)t->nslot, sizeof(int));
	for (int i = 0; i < t->n; i++)
		names_place(t, i);
}

static void entity_defaults(struct fw_prio_entity *e, const char *name)
{
	memset(e, 0, sizeof(*e));
	e->name = fw_strdup(name);
	e->base_max = INFINITY;
}

/* Index of the entity, registering it if new. */
static int names_intern(struct fw_prio_names *t, const char *name)
{
	int idx = names_find(t, name);

	if (idx >= 0)
		return idx;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 8;
		t->e = fw_xrealloc(t->e, (size_t)t->cap * sizeof(*t->e));
	}
	entity_defaults(&t->e[t->n], name);
	t->n++;
	/* keep the table at most half full */
	if (2 * t->n > t->nslot)
		names_grow_slots(t);
	else
		names_place(t, t->n - 1);
	return t->n - 1;
}

static void names_free(struct fw_prio_names *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->e[i].name);
	free(t->e);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

int fw_prio_resolve(const struct fw_prio_conf *c, enum fw_prio_kind kind,
		    const char *name)
{
	if ((unsigned)kind >= FW_PRIO_NKINDS)
		return -1;
	return names_find(&c->ent[kind], name);
}

int fw_prio_entity_count(const struct fw_prio_conf *c, enum fw_prio_kind kind)
{
	return (unsigned)kind < FW_PRIO_NKINDS ? c->ent[kind].n : 0;
}

const char *fw_prio_entity_name(const struct fw_prio_conf *c,
				enum fw_prio_kind kind, int idx)
{
	if ((unsigned)kind >= FW_PRIO_NKINDS || idx < 0 || idx >= c->ent[kind].n)
		return NULL;
	return c->ent[kind].e[idx].name;
}

/* ------------------------------------------------------------ new / free */

struct fw_prio_conf *fw_prio_conf_new(void)
{
	struct fw_prio_conf *c = fw_xcalloc(1, sizeof(*c));

	c->flags = FW_PRIO_FLAG_FAIR_TREE;       /* Slurm's default */
	c->max_age_sec = 7 * 86400;              /* PriorityMaxAge=7-0 */
	c->calc_period_sec = 300;                /* PriorityCalcPeriod=5 */
	for (int t = 0; t < FW_PRIO_NTERMS; t++) {
		c->weight[t] = terms[t].def_weight;
		c->cap[t] = INFINITY;
	}
	for (int g = 0; g < FW_PRIO_NGROUPS; g++) {
		c->gweight[g] = 1;
		c->gcap[g] = INFINITY;
	}
	c->scale = 1;
	c->accrue = FW_ACCRUE_ACCRUE_TIME;
	return c;
}

static void free_tres_weights(struct fw_prio_conf *c)
{
	for (int i = 0; i < c->ntw; i++)
		free(c->tw[i].name);
	free(c->tw);
	c->tw = NULL;
	c->ntw = 0;
}

static void free_tres_names(struct fw_prio_conf *c)
{
	for (int i = 0; i < c->ntres; i++)
		free(c->tres_names[i]);
	free(c->tres_names);
	c->tres_names = NULL;
	c->ntres = 0;
}

void fw_prio_conf_free(struct fw_prio_conf *c)
{
	if (!c)
		return;
	for (int k = 0; k < FW_PRIO_NKINDS; k++)
		names_free(&c->ent[k]);
	for (int i = 0; i < c->nboost; i++) {
		free(c->boost[i].name);
		free(c->boost[i].when_spec);
		fw_when_free(&c->boost[i].when);
	}
	free(c->boost);
	free_tres_weights(c);
	free_tres_names(c);
	free(c->tres_weights_str);
	free(c);
}

/* ---------------------------------------------------------- PriorityFlags */

int fw_prio_parse_flags(const char *value, uint32_t *flags, struct fw_err *err)
{
	static const struct {
		const char *name;
		uint32_t set;
	} names[] = {
		{ "ACCRUE_ALWAYS", FW_PRIO_FLAG_ACCRUE_ALWAYS },
		{ "MAX_TRES", FW_PRIO_FLAG_MAX_TRES },
		{ "SMALL_RELATIVE_TO_TIME", FW_PRIO_FLAG_SIZE_RELATIVE },
		{ "DEPTH_OBLIVIOUS", FW_PRIO_FLAG_DEPTH_OBLIVIOUS },
		{ "CALCULATE_RUNNING", FW_PRIO_FLAG_CALCULATE_RUNNING },
		{ "FAIR_TREE", FW_PRIO_FLAG_FAIR_TREE },
		{ "NO_FAIR_TREE", 0 },
		{ "INCR_ONLY", FW_PRIO_FLAG_INCR_ONLY },
		{ "NO_NORMAL_ASSOC", FW_PRIO_FLAG_NO_NORMAL_ASSOC },
		{ "NO_NORMAL_PART", FW_PRIO_FLAG_NO_NORMAL_PART },
		{ "NO_NORMAL_QOS", FW_PRIO_FLAG_NO_NORMAL_QOS },
		{ "NO_NORMAL_TRES", FW_PRIO_FLAG_NO_NORMAL_TRES },
		{ "NO_NORMAL_ALL", FW_PRIO_FLAG_NO_NORMAL_ASSOC |
			FW_PRIO_FLAG_NO_NORMAL_PART | FW_PRIO_FLAG_NO_NORMAL_QOS |
			FW_PRIO_FLAG_NO_NORMAL_TRES },
	};
	uint32_t f = FW_PRIO_FLAG_FAIR_TREE;
	bool clear_fair_tree = false;
	const char *p = value ? value : "";

	while (*p) {
		const char *q = p;
		char tok[64];
		size_t n, b = 0, e;
		bool found = false;

		while (*q && *q != ',')
			q++;
		n = (size_t)(q - p);
		e = n;
		while (b < e && isspace((unsigned char)p[b]))
			b++;
		while (e > b && isspace((unsigned char)p[e - 1]))
			e--;
		if (e - b >= sizeof(tok)) {
			fw_err_set(err, NULL, 0, "PriorityFlags", value,
				   "unknown flag '%.*s'", (int)(e - b), p + b);
			return -1;
		}
		memcpy(tok, p + b, e - b);
		tok[e - b] = '\0';
		for (size_t i = 0; tok[0] && i < sizeof(names) / sizeof(names[0]); i++) {
			if (strcasecmp(tok, names[i].name))
				continue;
			found = true;
			f |= names[i].set;
			if (!strcasecmp(tok, "NO_FAIR_TREE") ||
			    !strcasecmp(tok, "DEPTH_OBLIVIOUS"))
				clear_fair_tree = true;
		}
		if (tok[0] && !found) {
			fw_err_set(err, NULL, 0, "PriorityFlags", value,
				   "unknown flag '%s' (known: ACCRUE_ALWAYS, MAX_TRES, "
				   "SMALL_RELATIVE_TO_TIME, DEPTH_OBLIVIOUS, CALCULATE_RUNNING, "
				   "FAIR_TREE, NO_FAIR_TREE, INCR_ONLY, NO_NORMAL_ASSOC, "
				   "NO_NORMAL_PART, NO_NORMAL_QOS, NO_NORMAL_TRES, NO_NORMAL_ALL)",
				   tok);
			return -1;
		}
		p = *q ? q + 1 : q;
	}
	/* As Slurm: these win over FAIR_TREE whatever the order. */
	if (clear_fair_tree)
		f &= ~FW_PRIO_FLAG_FAIR_TREE;
	*flags = f;
	return 0;
}

/* ------------------------------------------------------ PriorityWeightTRES */

/* Slurm's unit ladder for TRES weights: "", K, M, G, T, P. */
static int unit_rank(char u)
{
	static const char units[] = "KMGTP";
	const char *p = strchr(units, toupper((unsigned char)u));

	return u && p ? (int)(p - units) + 1 : -1;
}

static int parse_tres_item(struct fw_prio_conf *c, const char *whole,
			   char *item, struct fw_err *err)
{
	char *eq = strchr(item, '='), *end;
	double w;
	int base = 0, u;

	if (!eq || eq == item || !eq[1])
		return conf_err(err, "PriorityWeightTRES", whole,
				"'%s' is not TYPE[/NAME]=WEIGHT", item);
	*eq = '\0';
	errno = 0;
	w = strtod(eq + 1, &end);
	if (end == eq + 1 || errno || !isfinite(w))
		return conf_err(err, "PriorityWeightTRES", whole,
				"weight of %s is not a number", item);
	if (*end) {
		/* A unit divides the weight so it applies per base unit (MB for
		   mem and bb, one for the others), as Slurm does. */
		bool b_suffix = (end[1] == 'B' || end[1] == 'b') && !end[2];

		if ((end[1] && !b_suffix) || (u = unit_rank(*end)) < 0)
			return conf_err(err, "PriorityWeightTRES", whole,
					"weight of %s has a bad unit '%s' (K, M, G, T or P)",
					item, end);
		if (!strncasecmp(item, "mem", 3) && (!item[3] || item[3] == '/'))
			base = 2;
		if (!strncasecmp(item, "bb", 2) && (!item[2] || item[2] == '/'))
			base = 2;
		for (; u > base; u--)
			w /= 1024;
	}
	for (int i = 0; i < c->ntw; i++) {
		if (!strcasecmp(c->tw[i].name, item)) {
			c->tw[i].weight = w; /* the last one wins, as in Slurm */
			return FW_CONF_OK;
		}
	}
	if (c->ntw == FW_PRIO_MAX_TRES)
		return conf_err(err, "PriorityWeightTRES", whole,
				"more than %d weighted TRES", FW_PRIO_MAX_TRES);
	c->tw = fw_xrealloc(c->tw, (size_t)(c->ntw + 1) * sizeof(*c->tw));
	c->tw[c->ntw].name = fw_strdup(item);
	c->tw[c->ntw].weight = w;
	c->tw[c->ntw].idx = c->ntw;
	c->ntw++;
	return FW_CONF_OK;
}

static int parse_tres_weights(struct fw_prio_conf *c, const char *value,
			      struct fw_err *err)
{
	char *copy = fw_strdup(value), *save = NULL, *tok;
	int rc = FW_CONF_OK;

	free_tres_weights(c);
	for (tok = strtok_r(copy, ",", &save); tok && rc == FW_CONF_OK;
	     tok = strtok_r(NULL, ",", &save))
		rc = parse_tres_item(c, value, tok, err);
	free(copy);
	if (rc != FW_CONF_OK) {
		free_tres_weights(c);
		return rc;
	}
	free(c->tres_weights_str);
	c->tres_weights_str = fw_strdup(value);
	return FW_CONF_OK;
}

/* Point every weighted TRES at its position in the bound list. */
/* Weighted TRES in Slurm's TRES order: multifactor adds them that way. */
static void order_tres(struct fw_prio_conf *c)
{
	for (int k = 0; k < c->ntw; k++) {
		int n = k;

		while (n > 0 && c->tw[c->tw_order[n - 1]].idx > c->tw[k].idx) {
			c->tw_order[n] = c->tw_order[n - 1];
			n--;
		}
		c->tw_order[n] = k;
	}
}

static int resolve_tres(struct fw_prio_conf *c, struct fw_err *err)
{
	for (int i = 0; i < c->ntw; i++) {
		c->tw[i].idx = -1;
		for (int j = 0; j < c->ntres && c->tw[i].idx < 0; j++)
			if (!strcasecmp(c->tres_names[j], c->tw[i].name))
				c->tw[i].idx = j;
		if (c->tw[i].idx < 0)
			return conf_err(err, "PriorityWeightTRES",
					c->tres_weights_str ? c->tres_weights_str : "",
					"'%s' is not a configured TRES", c->tw[i].name);
	}
	order_tres(c);
	return FW_CONF_OK;
}

static void set_tres_names(struct fw_prio_conf *c, const char *const *names, int n)
{
	free_tres_names(c);
	c->tres_names = fw_xcalloc((size_t)(n > 0 ? n : 1), sizeof(char *));
	for (int j = 0; j < n; j++)
		c->tres_names[j] = fw_strdup(names[j] ? names[j] : "");
	c->ntres = n;
}

int fw_prio_bind_tres(struct fw_prio_conf *c, const char *const *names,
		      int n, struct fw_err *err)
{
	set_tres_names(c, names, n < 0 ? 0 : n);
	c->tres_bound = true;
	return resolve_tres(c, err);
}

int fw_prio_tres_count(const struct fw_prio_conf *c)
{
	return c->ntres;
}

const char *fw_prio_tres_name(const struct fw_prio_conf *c, int i)
{
	return i >= 0 && i < c->ntres ? c->tres_names[i] : NULL;
}

int fw_prio_weighted_tres(const struct fw_prio_conf *c)
{
	return c->ntw;
}

int fw_prio_weighted_tres_index(const struct fw_prio_conf *c, int k)
{
	return k >= 0 && k < c->ntw ? c->tw[k].idx : -1;
}

double fw_prio_weighted_tres_weight(const struct fw_prio_conf *c, int k)
{
	return k >= 0 && k < c->ntw ? c->tw[k].weight : 0;
}

/* ------------------------------------------------------ slurm.conf keys */

static const char *const slurm_weight_keys[] = {
	[FW_PRIO_T_AGE] = "PriorityWeightAge",
	[FW_PRIO_T_FAIRSHARE] = "PriorityWeightFairshare",
	[FW_PRIO_T_JOBSIZE] = "PriorityWeightJobSize",
	[FW_PRIO_T_PARTITION] = "PriorityWeightPartition",
	[FW_PRIO_T_QOS] = "PriorityWeightQOS",
	[FW_PRIO_T_ASSOC] = "PriorityWeightAssoc",
};

/* slurm.conf parameters this module reads; in fairway.conf they are errors. */
static const char *const slurm_keys[] = {
	"PriorityWeightAge", "PriorityWeightFairshare", "PriorityWeightJobSize",
	"PriorityWeightPartition", "PriorityWeightQOS", "PriorityWeightAssoc",
	"PriorityWeightTRES", "PriorityMaxAge", "PriorityFavorSmall",
	"PriorityCalcPeriod", "PriorityFlags",
};

static bool is_slurm_key(const char *key)
{
	for (size_t i = 0; i < sizeof(slurm_keys) / sizeof(slurm_keys[0]); i++)
		if (fw_streq(key, slurm_keys[i]))
			return true;
	return false;
}

int fw_prio_conf_slurm(struct fw_prio_conf *c, const char *key,
		       const char *value, struct fw_err *err)
{
	struct fw_err e;
	const char *v = value ? value : "";

	fw_err_clear(&e);
	for (int t = 0; t <= FW_PRIO_T_ASSOC; t++) {
		uint32_t w;

		if (!fw_streq(key, slurm_weight_keys[t]))
			continue;
		if (fw_parse_uint32(v, &w, &e))
			return conf_err(err, key, v, "%s (Slurm weights are unsigned integers)",
					e.msg);
		c->weight[t] = w;
		return FW_CONF_OK;
	}
	if (fw_streq(key, "PriorityWeightTRES"))
		return parse_tres_weights(c, v, err);
	if (fw_streq(key, "PriorityMaxAge")) {
		int64_t s;

		if (parse_duration(key, v, true, &s, err))
			return FW_CONF_ERR;
		/* Slurm stores INFINITE*60 in a uint32: 2^32-60 seconds */
		c->max_age_sec = s < 0 ? (int64_t)UINT32_MAX - 59 : round_up_minutes(s);
		return FW_CONF_OK;
	}
	if (fw_streq(key, "PriorityCalcPeriod")) {
		int64_t s;

		if (parse_duration(key, v, false, &s, err))
			return FW_CONF_ERR;
		if (s < 1)
			return conf_err(err, key, v, "must be at least one minute");
		c->calc_period_sec = round_up_minutes(s);
		return FW_CONF_OK;
	}
	if (fw_streq(key, "PriorityFavorSmall")) {
		if (fw_parse_bool(v, &c->favor_small, &e))
			return conf_err(err, key, v, "%s", e.msg);
		return FW_CONF_OK;
	}
	if (fw_streq(key, "PriorityFlags")) {
		if (fw_prio_parse_flags(v, &c->flags, err))
			return FW_CONF_ERR;
		return FW_CONF_OK;
	}
	return FW_CONF_UNKNOWN;
}

/* ---------------------------------------------------- fairway.conf: global */

static int find_term(const char *suffix)
{
	for (int t = 0; t < FW_PRIO_NTERMS; t++)
		if (fw_streq(suffix, terms[t].name))
			return t;
	return -1;
}

static int find_group(const char *suffix)
{
	for (int g = 0; g < FW_PRIO_NGROUPS; g++)
		if (fw_streq(suffix, group_names[g]))
			return g;
	return -1;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncasecmp(s, prefix, strlen(prefix));
}

static int set_once(bool *flag, const char *key, const char *value,
		    struct fw_err *err)
{
	if (*flag)
		return conf_err(err, key, value, "%s is given twice", key);
	*flag = true;
	return FW_CONF_OK;
}

/* Slurm's weight keys never get here: fw_prio_conf_line rejects them first. */
static int term_weight_key(struct fw_prio_conf *c, int t, const char *key,
			   const char *v, struct fw_err *err)
{
	if (terms[t].src != W_FAIRWAY)
		return conf_err(err, key, v,
				"the %s term has a fixed weight (%g), as in Slurm; bound it "
				"with PriorityCap%s", terms[t].name, terms[t].def_weight,
				terms[t].name);
	if (set_once(&c->weight_set[t], key, v, err) ||
	    parse_weight(key, v, &c->weight[t], err))
		return FW_CONF_ERR;
	return FW_CONF_OK;
}

static int accrue_policy_key(struct fw_prio_conf *c, const char *key,
			     const char *v, struct fw_err *err)
{
	if (set_once(&c->accrue_set, key, v, err))
		return FW_CONF_ERR;
	if (fw_streq(v, "AccrueTime"))
		c->accrue = FW_ACCRUE_ACCRUE_TIME;
	else if (fw_streq(v, "Eligible"))
		c->accrue = FW_ACCRUE_ELIGIBLE;
	else
		return conf_err(err, key, v, "expected AccrueTime or Eligible");
	return FW_CONF_OK;
}

/* A duration given once and at least one second long. */
static int second_or_more_key(bool *set, int64_t *out, const char *key,
			      const char *v, struct fw_err *err)
{
	if (set_once(set, key, v, err) ||
	    parse_duration(key, v, false, out, err))
		return FW_CONF_ERR;
	if (*out < 1)
		return conf_err(err, key, v, "must be at least one second");
	return FW_CONF_OK;
}

static int accrue_max_key(bool *set, uint32_t *out, const char *key,
			  const char *v, struct fw_err *err)
{
	struct fw_err e;

	fw_err_clear(&e);
	if (set_once(set, key, v, err))
		return FW_CONF_ERR;
	if (is_unlimited(v)) {
		*out = 0;
		return FW_CONF_OK;
	}
	if (fw_parse_uint32(v, out, &e))
		return conf_err(err, key, v, "%s", e.msg);
	if (*out == 0)
		return conf_err(err, key, v,
				"must be at least 1 (UNLIMITED or no key for no limit)");
	return FW_CONF_OK;
}

/* The keys that shape the service terms: XFactor's denominator and
 * width exponent, the Starvation hinge.  FW_CONF_UNKNOWN: not one. */
static int service_key(struct fw_prio_conf *c, const char *key, const char *v,
		       struct fw_err *err)
{
	if (fw_streq(key, "XFMinWCLimit")) {
		if (set_once(&c->xf_min_set, key, v, err) ||
		    parse_duration(key, v, false, &c->xf_min_sec, err))
			return FW_CONF_ERR;
		return FW_CONF_OK;
	}
	if (fw_streq(key, "XFWidthExponent")) {
		/* 1/3 gives the WFP3 order, (queue time / limit)^3 x CPUs,
		 * as a term that grows linearly like the others */
		if (set_once(&c->xf_width_set, key, v, err) ||
		    parse_weight(key, v, &c->xf_width_exp, err))
			return FW_CONF_ERR;
		if (!(c->xf_width_exp >= -1 && c->xf_width_exp <= 1))
			return conf_err(err, key, v, "must be between -1 and 1");
		return FW_CONF_OK;
	}
	if (fw_streq(key, "StarvationThreshold"))
		/* the hinge of the Starvation term: a job's queue time counts
		 * only past it, so 0 would make the term a second QueueTime */
		return second_or_more_key(&c->starve_set, &c->starve_sec, key,
					  v, err);
	return FW_CONF_UNKNOWN;
}

/* One Key=Value of a non-entity line: FW_CONF_OK if consumed. */
static int global_pair(struct fw_prio_conf *c, const char *key, const char *v,
		       struct fw_err *err)
{
	int t, g, rc;

	if (has_prefix(key, "PriorityGroupWeight") &&
	    (g = find_group(key + strlen("PriorityGroupWeight"))) >= 0) {
		if (set_once(&c->gweight_set[g], key, v, err) ||
		    parse_weight(key, v, &c->gweight[g], err))
			return FW_CONF_ERR;
		return FW_CONF_OK;
	}
	if (has_prefix(key, "PriorityGroupCap") &&
	    (g = find_group(key + strlen("PriorityGroupCap"))) >= 0) {
		if (set_once(&c->gcap_set[g], key, v, err) ||
		    parse_cap(key, v, &c->gcap[g], err))
			return FW_CONF_ERR;
		return FW_CONF_OK;
	}
	if (has_prefix(key, "PriorityWeight") &&
	    (t = find_term(key + strlen("PriorityWeight"))) >= 0)
		return term_weight_key(c, t, key, v, err);
	if (has_prefix(key, "PriorityCap") &&
	    (t = find_term(key + strlen("PriorityCap"))) >= 0) {
		if (set_once(&c->cap_set[t], key, v, err) ||
		    parse_cap(key, v, &c->cap[t], err))
			return FW_CONF_ERR;
		return FW_CONF_OK;
	}
	if (fw_streq(key, "PriorityScale")) {
		if (set_once(&c->scale_set, key, v, err) ||
		    parse_weight(key, v, &c->scale, err))
			return FW_CONF_ERR;
		if (!(c->scale > 0))
			return conf_err(err, key, v, "must be greater than 0");
		return FW_CONF_OK;
	}
	if ((rc = service_key(c, key, v, err)) != FW_CONF_UNKNOWN)
		return rc;
	if (fw_streq(key, "RecalcPeriod"))
		/* PriorityCalcPeriod counts whole minutes (Slurm rounds up);
		 * this one keeps seconds, for tests and small clusters. */
		return second_or_more_key(&c->recalc_set, &c->recalc_sec, key,
					  v, err);
	if (fw_streq(key, "AccruePolicy"))
		return accrue_policy_key(c, key, v, err);
	if (fw_streq(key, "AccrueMaxJobsPerUser"))
		return accrue_max_key(&c->accrue_max_user_set, &c->accrue_max_user,
				      key, v, err);
	if (fw_streq(key, "AccrueMaxJobsPerAccount"))
		return accrue_max_key(&c->accrue_max_account_set,
				      &c->accrue_max_account, key, v, err);
	return FW_CONF_UNKNOWN;
}

/* ---------------------------------------------------- fairway.conf: entities */

static int entity_kind(const char *key)
{
	for (int k = 0; k < FW_PRIO_NKINDS; k++)
		if (fw_streq(key, kind_names[k]))
			return k;
	return -1;
}

static int check_name(const char *key, const char *name, struct fw_err *err)
{
	if (!name[0])
		return conf_err(err, key, name, "empty name");
	if (strchr(name, ','))
		return conf_err(err, key, name, "one name per line (no ',')");
	return FW_CONF_OK;
}

static int entity_set_once(struct fw_prio_entity *e, unsigned bit, int kind,
			   const char *key, const char *v, struct fw_err *err)
{
	if (e->set & bit)
		return conf_err(err, key, v, "%s is given twice for %s %s", key,
				kind_names[kind], e->name);
	e->set |= bit;
	return FW_CONF_OK;
}

/* Weight-like number attribute of an entity. */
static int entity_number(struct fw_prio_entity *e, unsigned bit, int kind,
			 const char *key, const char *v, double *out,
			 struct fw_err *err)
{
	if (entity_set_once(e, bit, kind, key, v, err) ||
	    parse_weight(key, v, out, err))
		return FW_CONF_ERR;
	return FW_CONF_OK;
}

/* QOS-only attributes: per-QOS weight adjustments and service targets. */
static int qos_attr(struct fw_prio_entity *e, const char *key, const char *v,
		    struct fw_err *err)
{
	const int k = FW_PRIO_QOS;

	if (fw_streq(key, "QueueTimeWeight"))
		return entity_number(e, FW_ENT_QT_WEIGHT, k, key, v, &e->qt_weight, err);
	if (fw_streq(key, "XFactorWeight"))
		return entity_number(e, FW_ENT_XF_WEIGHT, k, key, v, &e->xf_weight, err);
	if (fw_streq(key, "TargetQueueTime")) {
		int64_t s;

		if (entity_set_once(e, FW_ENT_TARGET_QT, k, key, v, err) ||
		    parse_duration(key, v, false, &s, err))
			return FW_CONF_ERR;
		if (s <= 0)
			return conf_err(err, key, v, "a queue-time target must be positive");
		e->target_qt_sec = (double)s;
		return FW_CONF_OK;
	}
	if (fw_streq(key, "TargetXFactor")) {
		if (entity_number(e, FW_ENT_TARGET_XF, k, key, v, &e->target_xf, err))
			return FW_CONF_ERR;
		if (!(e->target_xf > 1))
			return conf_err(err, key, v,
					"an expansion-factor target must be greater than 1 "
					"(a job's XFactor starts at 1)");
		return FW_CONF_OK;
	}
	return FW_CONF_UNKNOWN;
}

/* Start value with growth: QOS and Partition. */
static int base_attr(struct fw_prio_entity *e, int kind, const char *key,
		     const char *v, struct fw_err *err)
{
	if (fw_streq(key, "BasePriority"))
		return entity_number(e, FW_ENT_BASE, kind, key, v, &e->base, err);
	if (fw_streq(key, "GrowthPerMinute"))
		return entity_number(e, FW_ENT_GROWTH, kind, key, v, &e->growth, err);
	if (fw_streq(key, "BasePriorityMax")) {
		if (entity_set_once(e, FW_ENT_BASE_MAX, kind, key, v, err))
			return FW_CONF_ERR;
		if (is_unlimited(v)) {
			e->base_max = INFINITY;
			return FW_CONF_OK;
		}
		return parse_weight(key, v, &e->base_max, err);
	}
	return FW_CONF_UNKNOWN;
}

static int entity_attr(struct fw_prio_entity *e, int kind, const char *key,
		       const char *v, struct fw_err *err)
{
	int rc;

	if (fw_streq(key, "Priority"))
		return entity_number(e, FW_ENT_PRIORITY, kind, key, v, &e->priority, err);
	if (kind == FW_PRIO_QOS || kind == FW_PRIO_PARTITION) {
		rc = base_attr(e, kind, key, v, err);
		if (rc != FW_CONF_UNKNOWN)
			return rc;
	}
	if (kind == FW_PRIO_QOS)
		return qos_attr(e, key, v, err);
	return FW_CONF_UNKNOWN;
}

static int entity_line(struct fw_prio_conf *c, int kind, const struct fw_kv *kv,
		       bool *used, struct fw_err *err)
{
	struct fw_prio_names *t = &c->ent[kind];
	int idx;

	if (check_name(kv->key[0], kv->val[0], err))
		return FW_CONF_ERR;
	idx = names_intern(t, kv->val[0]);
	used[0] = true;
	for (int i = 1; i < kv->n; i++) {
		int rc = entity_attr(&t->e[idx], kind, kv->key[i], kv->val[i], err);

		if (rc == FW_CONF_ERR)
			return rc;
		if (rc == FW_CONF_OK)
			used[i] = true;
	}
	return FW_CONF_OK;
}

/* ----------------------------------------------------- fairway.conf: boosts */

static int boost_attr(struct fw_prio_conf *c, struct fw_prio_boost *b,
		      unsigned *seen, const char *key, const char *v,
		      struct fw_err *err)
{
	int k = entity_kind(key);
	unsigned bit;

	if (k >= 0) {
		bit = 1u << k;
	} else if (fw_streq(key, "Priority")) {
		bit = 1u << FW_PRIO_NKINDS;
	} else if (fw_streq(key, "When")) {
		bit = 1u << (FW_PRIO_NKINDS + 1);
	} else {
		return FW_CONF_UNKNOWN;
	}
	if (*seen & bit)
		return conf_err(err, key, v, "%s is given twice for Boost %s", key, b->name);
	*seen |= bit;
	if (k >= 0) {
		if (check_name(key, v, err))
			return FW_CONF_ERR;
		b->sel[k] = names_intern(&c->ent[k], v);
		return FW_CONF_OK;
	}
	if (fw_streq(key, "Priority"))
		return parse_weight(key, v, &b->priority, err);
	{
		struct fw_err e;

		fw_err_clear(&e);
		if (fw_when_parse(v, &b->when, &e))
			return conf_err(err, key, v, "%s", e.msg);
		b->when_spec = fw_strdup(v);
	}
	return FW_CONF_OK;
}

static void boost_clear(struct fw_prio_boost *b)
{
	free(b->name);
	free(b->when_spec);
	fw_when_free(&b->when);
}

static int boost_line(struct fw_prio_conf *c, const struct fw_kv *kv,
		      bool *used, struct fw_err *err)
{
	struct fw_prio_boost b;
	unsigned seen = 0;
	const unsigned sel_mask = (1u << FW_PRIO_NKINDS) - 1;

	if (check_name(kv->key[0], kv->val[0], err))
		return FW_CONF_ERR;
	for (int i = 0; i < c->nboost; i++)
		if (!strcmp(c->boost[i].name, kv->val[0]))
			return conf_err(err, kv->key[0], kv->val[0],
					"Boost %s is defined twice", kv->val[0]);
	if (c->nboost == FW_PRIO_MAX_BOOSTS)
		return conf_err(err, kv->key[0], kv->val[0], "more than %d boosts",
				FW_PRIO_MAX_BOOSTS);
	memset(&b, 0, sizeof(b));
	b.name = fw_strdup(kv->val[0]);
	for (int k = 0; k < FW_PRIO_NKINDS; k++)
		b.sel[k] = -1;
	used[0] = true;
	for (int i = 1; i < kv->n; i++) {
		int rc = boost_attr(c, &b, &seen, kv->key[i], kv->val[i], err);

		if (rc == FW_CONF_ERR) {
			boost_clear(&b);
			return rc;
		}
		if (rc == FW_CONF_OK)
			used[i] = true;
	}
	if (!(seen & (1u << FW_PRIO_NKINDS)) || !(seen & (1u << (FW_PRIO_NKINDS + 1))) ||
	    !(seen & sel_mask)) {
		const char *missing = !(seen & sel_mask) ? "a User=, Account=, QOS= or Partition= selector"
				      : !(seen & (1u << FW_PRIO_NKINDS)) ? "Priority=" : "When=";

		boost_clear(&b);
		return conf_err(err, kv->key[0], kv->val[0], "Boost %s needs %s",
				kv->val[0], missing);
	}
	c->boost = fw_xrealloc(c->boost, (size_t)(c->nboost + 1) * sizeof(b));
	c->boost[c->nboost++] = b;
	return FW_CONF_OK;
}

/* ------------------------------------------------------- fairway.conf: line */

int fw_prio_conf_line(struct fw_prio_conf *c, const struct fw_kv *kv,
		      bool *used, struct fw_err *err)
{
	int kind, consumed = 0;

	if (kv->n == 0)
		return FW_CONF_UNKNOWN;
	for (int i = 0; i < kv->n; i++)
		if (is_slurm_key(kv->key[i]))
			return conf_err(err, kv->key[i], kv->val[i],
					"%s is a slurm.conf parameter: set it in slurm.conf "
					"(fairway.conf's PriorityCap<Term> and "
					"PriorityGroupWeightSlurm apply to Slurm's terms)",
					kv->key[i]);
	kind = entity_kind(kv->key[0]);
	if (kind >= 0)
		return entity_line(c, kind, kv, used, err);
	if (fw_streq(kv->key[0], "Boost"))
		return boost_line(c, kv, used, err);
	for (int i = 0; i < kv->n; i++) {
		int rc = global_pair(c, kv->key[i], kv->val[i], err);

		if (rc == FW_CONF_ERR)
			return rc;
		if (rc == FW_CONF_OK) {
			used[i] = true;
			consumed++;
		}
	}
	return consumed ? FW_CONF_OK : FW_CONF_UNKNOWN;
}

/* ------------------------------------------------------------------ finish */

static int fmt_num(char *buf, size_t len, double v)
{
	return snprintf(buf, len, "%g", v);
}

static int check_base(const struct fw_prio_entity *e, int kind, struct fw_err *err)
{
	char v[64];

	if ((e->set & (FW_ENT_GROWTH | FW_ENT_BASE_MAX)) && !(e->set & FW_ENT_BASE)) {
		bool g = e->set & FW_ENT_GROWTH;

		fmt_num(v, sizeof(v), g ? e->growth : e->base_max);
		return conf_err(err, g ? "GrowthPerMinute" : "BasePriorityMax", v,
				"%s %s: needs BasePriority (the value that grows)",
				kind_names[kind], e->name);
	}
	if ((e->set & FW_ENT_BASE_MAX) && e->base_max < e->base) {
		fmt_num(v, sizeof(v), e->base_max);
		return conf_err(err, "BasePriorityMax", v,
				"%s %s: below BasePriority %g", kind_names[kind],
				e->name, e->base);
	}
	return FW_CONF_OK;
}

static int check_accrue(struct fw_prio_conf *c, struct fw_err *err)
{
	bool limits = c->accrue_max_user || c->accrue_max_account;

	if (limits && c->accrue_set && c->accrue == FW_ACCRUE_ACCRUE_TIME)
		return conf_err(err, "AccruePolicy", "AccrueTime",
				"AccrueMaxJobsPerUser/AccrueMaxJobsPerAccount need "
				"AccruePolicy=Eligible (Fairway counts queue time itself)");
	if (limits)
		c->accrue = FW_ACCRUE_ELIGIBLE;
	return FW_CONF_OK;
}

/* A Starvation weight without its threshold would count all queue time,
 * which QueueTime already does: most likely the threshold was forgotten. */
static int check_starvation(const struct fw_prio_conf *c, struct fw_err *err)
{
	char v[64];

	if (c->weight[FW_PRIO_T_STARVATION] == 0 || c->starve_set)
		return FW_CONF_OK;
	fmt_num(v, sizeof(v), c->weight[FW_PRIO_T_STARVATION]);
	return conf_err(err, "PriorityWeightStarvation", v,
			"needs StarvationThreshold (the queue time after which "
			"the term counts)");
}

/* Does term t add nothing whatever the job (weight 0, or a default-weighted
 * term whose values fairway.conf never sets)? */
static bool term_idle(const struct fw_prio_conf *c, int t)
{
	if (c->weight[t] == 0)
		return true;
	if (c->weight_set[t])
		return false;
	switch (t) {
	case FW_PRIO_T_CRED_USER: case FW_PRIO_T_CRED_ACCOUNT:
	case FW_PRIO_T_CRED_QOS: case FW_PRIO_T_CRED_PARTITION: {
		int kind = t - FW_PRIO_T_CRED_USER; /* same order as the kinds */

		for (int i = 0; i < c->ent[kind].n; i++)
			if ((c->ent[kind].e[i].set & FW_ENT_PRIORITY) &&
			    c->ent[kind].e[i].priority != 0)
				return false;
		return true;
	}
	case FW_PRIO_T_BOOST: return c->nboost == 0;
	case FW_PRIO_T_BASE: return !c->any_base;
	default: return false;
	}
}

/* Per-QOS weight adjustments switch QueueTime/XFactor on for that QOS. */
static bool qos_adjusts_weights(const struct fw_prio_conf *c)
{
	for (int i = 0; i < c->ent[FW_PRIO_QOS].n; i++) {
		const struct fw_prio_entity *e = &c->ent[FW_PRIO_QOS].e[i];

		if (e->qt_weight != 0 || e->xf_weight != 0)
			return true;
	}
	return false;
}

/*
 * Only Slurm's terms, unscaled and uncapped: a site that switched from
 * priority/multifactor with its slurm.conf (and perhaps a fairway.conf
 * for fair-share or planning only) gets multifactor's exact numbers.
 */
static bool only_slurm_terms(const struct fw_prio_conf *c)
{
	if (c->scale != 1 || qos_adjusts_weights(c))
		return false;
	for (int g = 0; g < FW_PRIO_NGROUPS; g++)
		if (c->gweight[g] != 1 || !isinf(c->gcap[g]))
			return false;
	for (int t = 0; t < FW_PRIO_NTERMS; t++) {
		if (!isinf(c->cap[t]))
			return false;
		if (t >= fw_prio_group_first[FW_PRIO_G_SLURM + 1] && !term_idle(c, t))
			return false;
	}
	return true;
}

int fw_prio_conf_finish(struct fw_prio_conf *c, struct fw_err *err)
{
	if (check_accrue(c, err) || check_starvation(c, err))
		return FW_CONF_ERR;
	c->any_base = c->any_target = false;
	for (int k = FW_PRIO_QOS; k <= FW_PRIO_PARTITION; k++) {
		for (int i = 0; i < c->ent[k].n; i++) {
			const struct fw_prio_entity *e = &c->ent[k].e[i];

			if (check_base(e, k, err))
				return FW_CONF_ERR;
			if (e->set & FW_ENT_BASE)
				c->any_base = true;
			if (e->set & (FW_ENT_TARGET_QT | FW_ENT_TARGET_XF))
				c->any_target = true;
		}
	}
	c->any_boost = c->nboost > 0;
	if (!c->tres_bound) {
		/* No adapter list: the TRES of PriorityWeightTRES, as written. */
		const char *names[FW_PRIO_MAX_TRES];

		for (int i = 0; i < c->ntw; i++)
			names[i] = c->tw[i].name;
		set_tres_names(c, names, c->ntw);
	}
	if (resolve_tres(c, err))
		return FW_CONF_ERR;
	c->multifactor = only_slurm_terms(c);
	c->finished = true;
	return FW_CONF_OK;
}

/* ---------------------------------------------------------------- views */

uint32_t fw_prio_flags(const struct fw_prio_conf *c) { return c->flags; }
/* Terms whose value for a pending job can change while it waits. */
static const enum fw_prio_term time_terms[] = {
	FW_PRIO_T_AGE, FW_PRIO_T_FAIRSHARE, FW_PRIO_T_FS,
	FW_PRIO_T_QUEUE_TIME, FW_PRIO_T_XFACTOR, FW_PRIO_T_STARVATION,
	FW_PRIO_T_ELIGIBLE_TIME,
	FW_PRIO_T_BYPASS, FW_PRIO_T_DEADLINE, FW_PRIO_T_TARGET_QUEUE_TIME,
	FW_PRIO_T_TARGET_XFACTOR, FW_PRIO_T_CONSUMED, FW_PRIO_T_REMAINING,
	FW_PRIO_T_PERCENT, FW_PRIO_T_EXECUTION_TIME,
};

static bool base_grows(const struct fw_prio_conf *c)
{
	for (int k = FW_PRIO_QOS; k <= FW_PRIO_PARTITION; k++)
		for (int i = 0; i < c->ent[k].n; i++)
			if ((c->ent[k].e[i].set & FW_ENT_BASE) &&
			    c->ent[k].e[i].growth != 0)
				return true;
	return false;
}

bool fw_prio_time_invariant(const struct fw_prio_conf *c)
{
	for (size_t i = 0; i < sizeof(time_terms) / sizeof(time_terms[0]); i++)
		if (c->weight[time_terms[i]] != 0)
			return false;
	/* per-QOS additions to the QueueTime and XFactor weights */
	for (int i = 0; i < c->ent[FW_PRIO_QOS].n; i++)
		if (c->ent[FW_PRIO_QOS].e[i].qt_weight != 0 ||
		    c->ent[FW_PRIO_QOS].e[i].xf_weight != 0)
			return false;
	if (c->nboost && c->weight[FW_PRIO_T_BOOST] != 0)
		return false; /* boosts have time windows */
	return c->weight[FW_PRIO_T_BASE] == 0 || !base_grows(c);
}

bool fw_prio_favor_small(const struct fw_prio_conf *c) { return c->favor_small; }
int64_t fw_prio_max_age(const struct fw_prio_conf *c) { return c->max_age_sec; }
int64_t fw_prio_calc_period(const struct fw_prio_conf *c)
{
	return c->recalc_set ? c->recalc_sec : c->calc_period_sec;
}
double fw_prio_scale(const struct fw_prio_conf *c) { return c->scale; }
bool fw_prio_multifactor(const struct fw_prio_conf *c) { return c->multifactor; }

double fw_prio_weight(const struct fw_prio_conf *c, enum fw_prio_term t)
{
	return (unsigned)t < FW_PRIO_NTERMS ? c->weight[t] : 0;
}

double fw_prio_cap(const struct fw_prio_conf *c, enum fw_prio_term t)
{
	return (unsigned)t < FW_PRIO_NTERMS ? c->cap[t] : INFINITY;
}

double fw_prio_group_weight(const struct fw_prio_conf *c, enum fw_prio_group g)
{
	return (unsigned)g < FW_PRIO_NGROUPS ? c->gweight[g] : 0;
}

double fw_prio_group_cap(const struct fw_prio_conf *c, enum fw_prio_group g)
{
	return (unsigned)g < FW_PRIO_NGROUPS ? c->gcap[g] : INFINITY;
}

enum fw_prio_accrue_policy fw_prio_accrue_policy(const struct fw_prio_conf *c)
{
	return c->accrue;
}

uint32_t fw_prio_accrue_max_user(const struct fw_prio_conf *c)
{
	return c->accrue_max_user;
}

uint32_t fw_prio_accrue_max_account(const struct fw_prio_conf *c)
{
	return c->accrue_max_account;
}
