/*
 * fw_config.c - dispatch configuration to the core modules.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_config.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Slurm-native keys the core understands (they belong in slurm.conf). */
static const char *const slurm_keys[] = {
	"PriorityWeightAge", "PriorityWeightFairshare", "PriorityWeightJobSize",
	"PriorityWeightPartition", "PriorityWeightQOS", "PriorityWeightAssoc",
	"PriorityWeightTRES", "PriorityMaxAge", "PriorityFavorSmall",
	"PriorityFlags", "PriorityCalcPeriod", "PriorityDecayHalfLife",
	"PriorityUsageResetPeriod", "FairShareDampeningFactor",
	"SchedulerParameters", "PriorityType", "SchedulerType",
	"PriorityParameters", "PrioritySiteFactorPlugin", NULL
};

bool fw_config_is_slurm_key(const char *key)
{
	for (int i = 0; slurm_keys[i]; i++)
		if (!strcasecmp(key, slurm_keys[i]))
			return true;
	return false;
}

struct fw_config *fw_config_new(void)
{
	struct fw_config *c = fw_xcalloc(1, sizeof(*c));

	c->prio = fw_prio_conf_new();
	c->fs = fw_fs_conf_new();
	c->plan = fw_plan_conf_new();
	return c;
}

struct fw_config_origin {
	char *key, *value, *file;
	int line;
};

static void origin_add(struct fw_config *c, const char *key, const char *value,
		       const char *file, int line)
{
	struct fw_config_origin *o;

	if (c->norigin == c->origin_cap) {
		c->origin_cap = c->origin_cap ? 2 * c->origin_cap : 32;
		c->origin = fw_xrealloc(c->origin, c->origin_cap * sizeof(*o));
	}
	o = &c->origin[c->norigin++];
	o->key = fw_strdup(key);
	o->value = fw_strdup(value ? value : "");
	o->file = fw_strdup(file ? file : "");
	o->line = line;
}

/*
 * Remember where a pair was set.  SchedulerParameters items (bf_window=...)
 * are remembered one by one too: the planner's errors name the item.
 */
static void origin_note(struct fw_config *c, const char *key, const char *value,
			const char *file, int line)
{
	origin_add(c, key, value, file, line);
	if (!value || (strcasecmp(key, "SchedulerParameters") &&
		       strcasecmp(key, "PriorityParameters")))
		return;
	char *copy = fw_strdup(value), *save = NULL;

	for (char *it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(it, '=');

		if (eq)
			*eq = '\0';
		origin_add(c, it, eq ? eq + 1 : "", file, line);
	}
	free(copy);
}

/* value equals v, or is one item of the comma-separated list v */
static bool value_matches(const char *value, const char *v)
{
	size_t n = strlen(value);

	if (!strcmp(value, v))
		return true;
	for (const char *p = v; n && (p = strstr(p, value)); p++)
		if ((p == v || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

/* The last place that set err's key (to that value if any did). */
static void origin_locate(const struct fw_config *c, struct fw_err *err)
{
	const struct fw_config_origin *by_key = NULL;

	if (!err || !err->key[0] || (err->file[0] && err->line))
		return;
	for (size_t i = c->norigin; i-- > 0;) {
		const struct fw_config_origin *o = &c->origin[i];

		if (strcasecmp(o->key, err->key))
			continue;
		if (value_matches(err->value, o->value)) {
			by_key = o;
			break;
		}
		if (!by_key)
			by_key = o;
	}
	if (by_key && by_key->file[0])
		fw_err_locate(err, by_key->file, by_key->line);
}

void fw_config_free(struct fw_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->norigin; i++) {
		free(c->origin[i].key);
		free(c->origin[i].value);
		free(c->origin[i].file);
	}
	free(c->origin);
	fw_prio_conf_free(c->prio);
	fw_fs_conf_free(c->fs);
	fw_plan_conf_free(c->plan);
	free(c);
}

/* Combine module answers: an error wins, then any OK, else UNKNOWN. */
static int merge_rc(int acc, int rc)
{
	if (acc == FW_CONF_ERR || rc == FW_CONF_ERR)
		return FW_CONF_ERR;
	if (acc == FW_CONF_OK || rc == FW_CONF_OK)
		return FW_CONF_OK;
	return FW_CONF_UNKNOWN;
}

int fw_config_slurm(struct fw_config *c, const char *key, const char *value,
		    struct fw_err *err)
{
	int rc = FW_CONF_UNKNOWN;

	rc = merge_rc(rc, fw_prio_conf_slurm(c->prio, key, value, err));
	if (rc == FW_CONF_ERR)
		return rc;
	rc = merge_rc(rc, fw_fs_conf_slurm(c->fs, key, value, err));
	if (rc == FW_CONF_ERR)
		return rc;
	return merge_rc(rc, fw_plan_conf_slurm(c->plan, key, value, err));
}

int fw_config_slurm_at(struct fw_config *c, const char *key,
		       const char *value, const char *file, int line,
		       struct fw_err *err)
{
	int rc;

	origin_note(c, key, value, file, line);
	rc = fw_config_slurm(c, key, value, err);
	if (rc == FW_CONF_ERR && file)
		fw_err_locate(err, file, line);
	return rc;
}

/* FairwayPort=N: the port and the next one are Fairway's (see fw_config.h). */
static int service_port_line(struct fw_config *c, const struct fw_kv *kv,
			     struct fw_err *err)
{
	uint32_t port;
	struct fw_err e;

	if (kv->n > 1)
		return fw_err_set(err, NULL, 0, kv->key[1], kv->val[1],
				  "FairwayPort takes no attributes");
	fw_err_clear(&e);
	if (fw_parse_uint32(kv->val[0], &port, &e))
		return fw_err_set(err, NULL, 0, kv->key[0], kv->val[0], "%s", e.msg);
	if (port > 65534)
		return fw_err_set(err, NULL, 0, kv->key[0], kv->val[0],
				  "expected a TCP port 1-65534 (the next port is used too), or 0 for none");
	c->service_port = (uint16_t)port;
	return FW_CONF_OK;
}

int fw_config_line(struct fw_config *c, const struct fw_kv *kv,
		   struct fw_err *err)
{
	bool used[FW_KV_MAX] = { false };

	if (kv->n == 0)
		return FW_CONF_OK;
	if (!strcasecmp(kv->key[0], "FairwayPort"))
		return service_port_line(c, kv, err);
	if (fw_config_is_slurm_key(kv->key[0]))
		return fw_err_set(err, NULL, 0, kv->key[0], kv->val[0],
				  "this is a slurm.conf parameter; set it in slurm.conf, not in fairway.conf");
	if (fw_prio_conf_line(c->prio, kv, used, err) == FW_CONF_ERR ||
	    fw_fs_conf_line(c->fs, kv, used, err) == FW_CONF_ERR ||
	    fw_plan_conf_line(c->plan, kv, used, err) == FW_CONF_ERR)
		return FW_CONF_ERR;
	for (int i = 0; i < kv->n; i++) {
		if (used[i])
			continue;
		if (i == 0)
			return fw_err_set(err, NULL, 0, kv->key[0], kv->val[0],
					  "unknown parameter (see fairway.conf(5))");
		return fw_err_set(err, NULL, 0, kv->key[i], kv->val[i],
				  "unknown attribute on a %s= line (see fairway.conf(5))",
				  kv->key[0]);
	}
	return FW_CONF_OK;
}

struct load_ctx {
	struct fw_config *c;
	const char *name;
	struct fw_err *err;
	bool slurm;           /* reading slurm.conf */
	int depth;            /* Include nesting */
};

static int load_slurm_path(struct load_ctx *lc, const char *path);

/* slurm.conf: "Include file" lines (relative to the including file). */
static int slurm_include(struct load_ctx *lc, const char *rest, int lineno)
{
	char *copy, *dir, *path;
	int rc;

	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (lc->depth >= 8)
		return fw_err_set(lc->err, lc->name, lineno, "Include", rest,
				  "Include nested too deeply");
	if (rest[0] == '/') {
		path = fw_strdup(rest);
	} else {
		copy = fw_strdup(lc->name);
		dir = dirname(copy);
		path = fw_xmalloc(strlen(dir) + strlen(rest) + 2);
		sprintf(path, "%s/%s", dir, rest);
		free(copy);
	}
	lc->depth++;
	rc = load_slurm_path(lc, path);
	lc->depth--;
	free(path);
	return rc;
}

static bool is_record_key(const char *key)
{
	static const char *const rec[] = { "NodeName", "PartitionName",
		"FrontendName", "NodeSet", "DownNodes", "SwitchName", NULL };

	for (int i = 0; rec[i]; i++)
		if (!strcasecmp(key, rec[i]))
			return true;
	return false;
}

static int on_line(void *ctx, const char *line, int lineno)
{
	struct load_ctx *lc = ctx;
	struct fw_kv kv;
	int rc;
	const char *p = line;

	while (*p == ' ' || *p == '\t')
		p++;
	if (lc->slurm && !strncasecmp(p, "Include", 7) &&
	    (p[7] == ' ' || p[7] == '\t'))
		return slurm_include(lc, p + 7, lineno);
	if (fw_kv_parse(line, &kv, lc->err)) {
		if (lc->slurm)
			return 0; /* Slurm parses its own file; not ours to judge */
		fw_err_locate(lc->err, lc->name, lineno);
		return -1;
	}
	if (lc->slurm) {
		/* Record lines (NodeName=, PartitionName=, ...) describe the
		 * cluster, not the policy; other lines may hold several keys. */
		rc = FW_CONF_OK;
		if (kv.n && !is_record_key(kv.key[0]))
			for (int i = 0; i < kv.n && rc != FW_CONF_ERR; i++)
				rc = fw_config_slurm_at(lc->c, kv.key[i], kv.val[i],
							lc->name, lineno, lc->err);
	} else {
		for (int i = 0; i < kv.n; i++)
			origin_note(lc->c, kv.key[i], kv.val[i], lc->name, lineno);
		rc = fw_config_line(lc->c, &kv, lc->err);
	}
	fw_kv_free(&kv);
	if (rc == FW_CONF_ERR) {
		fw_err_locate(lc->err, lc->name, lineno);
		return -1;
	}
	return 0;
}

static int load_slurm_path(struct load_ctx *lc, const char *path)
{
	const char *saved = lc->name;
	int rc;

	lc->name = path;
	rc = fw_read_lines(path, on_line, lc, lc->err);
	lc->name = saved;
	return rc ? -1 : 0;
}

int fw_config_load_slurm_conf(struct fw_config *c, const char *path,
			      struct fw_err *err)
{
	struct load_ctx lc = { .c = c, .name = path, .err = err, .slurm = true };

	return load_slurm_path(&lc, path);
}

int fw_config_load_file(struct fw_config *c, const char *path,
			struct fw_err *err)
{
	struct load_ctx lc = { .c = c, .name = path, .err = err };

	return fw_read_lines(path, on_line, &lc, err) ? -1 : 0;
}

int fw_config_load_buf(struct fw_config *c, const char *name, const char *buf,
		       size_t len, struct fw_err *err)
{
	struct load_ctx lc = { .c = c, .name = name, .err = err };

	return fw_read_lines_mem(buf, len, on_line, &lc) ? -1 : 0;
}

int fw_config_finish(struct fw_config *c, struct fw_err *err)
{
	if (fw_prio_conf_finish(c->prio, err) ||
	    fw_fs_conf_finish(c->fs, err) ||
	    fw_plan_conf_finish(c->plan, err)) {
		origin_locate(c, err);
		return -1;
	}
	c->finished = true;
	return 0;
}
