/*
 * fw_fs_conf.c - configuration of the fair-share module: slurm.conf keys
 * with Slurm's meaning, fairway.conf keys, Account=/User= entity lines, and
 * the cross-checks run once all input is read.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_fs_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct fw_fs_conf *fw_fs_conf_new(void)
{
	struct fw_fs_conf *c = fw_xcalloc(1, sizeof(*c));

	c->halflife_sec = 7 * 86400;      /* Slurm's default 7-0 */
	c->reset = FW_FS_RESET_NONE;
	c->damp = 1;
	c->formula_conf = FW_FS_FORMULA_AUTO;
	c->formula = FW_FS_FORMULA_FAIR_TREE;
	c->max = 1e6;                      /* seed 000's MAX_FAIRSHARE */
	c->decay = FW_FS_DECAY_HALFLIFE;
	c->window_sec = 86400;
	c->window_count = 7;
	c->window_factor = 0.7;
	c->unknown = FW_FS_UNKNOWN_CREATE;
	c->unknown_shares = 1;
	return c;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void fw_fs_conf_free(struct fw_fs_conf *c)
{
	if (!c)
		return;
	free_list(c->excl_part, c->n_excl_part);
	free_list(c->excl_qos, c->n_excl_qos);
	for (size_t i = 0; i < c->n_acct; i++) {
		free(c->acct[i].name);
		free(c->acct[i].parent);
	}
	free(c->acct);
	for (size_t i = 0; i < c->n_user; i++) {
		free(c->user[i].name);
		free(c->user[i].account);
	}
	free(c->user);
	free(c);
}

/* ------------------------------------------------------------ value helpers */

/* A value parser failed: name key and value, keep the parser's reason. */
static int bad_value(struct fw_err *err, const char *key, const char *val,
		     const struct fw_err *perr)
{
	return fw_err_set(err, NULL, 0, key, val, "%s", perr->msg);
}

/* Raw shares: 0..FW_FS_SHARES_MAX or "parent" (Slurm's USE_PARENT). */
static int parse_shares(const char *key, const char *val, uint32_t *out,
			struct fw_err *err)
{
	struct fw_err perr = { 0 };
	uint32_t v;

	if (val && !strcasecmp(val, "parent")) {
		*out = FW_FS_USE_PARENT;
		return 0;
	}
	if (fw_parse_uint32(val, &v, &perr))
		return fw_err_set(err, NULL, 0, key, val,
				  "expected a share count 0..%u or 'parent' (%s)",
				  FW_FS_SHARES_MAX, perr.msg);
	if (v > FW_FS_SHARES_MAX)
		return fw_err_set(err, NULL, 0, key, val,
				  "share count out of range 0..%u", FW_FS_SHARES_MAX);
	*out = v;
	return 0;
}

static int parse_positive(const char *key, const char *val, double *out,
			  struct fw_err *err)
{
	struct fw_err perr = { 0 };

	if (fw_parse_double(val, out, &perr))
		return bad_value(err, key, val, &perr);
	if (!(*out > 0))
		return fw_err_set(err, NULL, 0, key, val, "must be greater than 0");
	return 0;
}

/* Comma-separated names appended to a list; empty items are errors. */
static int parse_name_list(const char *key, const char *val, char ***list,
			   size_t *n, struct fw_err *err)
{
	const char *p = val;

	if (!val || !val[0])
		return fw_err_set(err, NULL, 0, key, val ? val : "",
				  "expected a comma-separated list of names");
	while (1) {
		const char *q = strchr(p, ',');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		char *item;

		if (len == 0)
			return fw_err_set(err, NULL, 0, key, val,
					  "empty name in list");
		item = fw_xmalloc(len + 1);
		memcpy(item, p, len);
		item[len] = '\0';
		*list = fw_xrealloc(*list, (*n + 1) * sizeof(char *));
		(*list)[(*n)++] = item;
		if (!q)
			return 0;
		p = q + 1;
	}
}

/* ----------------------------------------------------------- slurm.conf */

static const char *const reset_names[] = {
	[FW_FS_RESET_NONE] = "NONE",
	[FW_FS_RESET_NOW] = "NOW",
	[FW_FS_RESET_DAILY] = "DAILY",
	[FW_FS_RESET_WEEKLY] = "WEEKLY",
	[FW_FS_RESET_MONTHLY] = "MONTHLY",
	[FW_FS_RESET_QUARTERLY] = "QUARTERLY",
	[FW_FS_RESET_YEARLY] = "YEARLY",
};

/* Every PriorityFlags name Slurm 22.05 knows. */
static const char *const priority_flags[] = {
	"ACCRUE_ALWAYS", "SMALL_RELATIVE_TO_TIME", "CALCULATE_RUNNING",
	"DEPTH_OBLIVIOUS", "NO_FAIR_TREE", "FAIR_TREE", "INCR_ONLY",
	"MAX_TRES", "NO_NORMAL_ALL", "NO_NORMAL_ASSOC", "NO_NORMAL_PART",
	"NO_NORMAL_QOS", "NO_NORMAL_TRES", NULL
};

static int parse_priority_flags(struct fw_fs_conf *c, const char *key,
				const char *val, struct fw_err *err)
{
	bool no_ft = false, depth = false, named = false;
	const char *p = val ? val : "";

	/* an empty value keeps Slurm's default; empty items are errors */
	while (*p) {
		const char *q = strchr(p, ',');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		bool known = false;

		for (int i = 0; priority_flags[i]; i++)
			if (strlen(priority_flags[i]) == len &&
			    !strncasecmp(p, priority_flags[i], len)) {
				known = true;
				break;
			}
		if (!known)
			return fw_err_set(err, NULL, 0, key, val,
					  "unknown flag '%.*s'", (int)len, p);
		if (len == 12 && !strncasecmp(p, "NO_FAIR_TREE", len))
			no_ft = named = true;
		else if (len == 15 && !strncasecmp(p, "DEPTH_OBLIVIOUS", len))
			depth = named = true;
		else if (len == 9 && !strncasecmp(p, "FAIR_TREE", len))
			named = true;
		if (!q)
			break;
		p = q + 1;
		if (!*p)
			return fw_err_set(err, NULL, 0, key, val,
					  "unknown flag '' (empty item)");
	}
	c->flag_no_fair_tree = no_ft;
	c->flag_depth_oblivious = depth;
	c->tree_flag_named = named;
	return 0;
}

int fw_fs_conf_slurm(struct fw_fs_conf *c, const char *key, const char *value,
		     struct fw_err *err)
{
	struct fw_err perr = { 0 };

	if (fw_streq(key, "PriorityDecayHalfLife")) {
		int64_t s;

		/* Slurm's time format: a bare number is minutes */
		if (fw_parse_duration(value, false, &s, &perr))
			return bad_value(err, key, value, &perr);
		c->halflife_sec = s;
		return FW_CONF_OK;
	}
	if (fw_streq(key, "PriorityUsageResetPeriod")) {
		for (size_t i = 0; i < sizeof(reset_names) / sizeof(*reset_names); i++)
			if (value && !strcasecmp(value, reset_names[i])) {
				c->reset = (enum fw_fs_reset)i;
				c->reset_set = true;
				return FW_CONF_OK;
			}
		fw_err_set(err, NULL, 0, key, value ? value : "",
			   "expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY");
		return FW_CONF_ERR;
	}
	if (fw_streq(key, "FairShareDampeningFactor")) {
		uint32_t v;

		if (fw_parse_uint32(value, &v, &perr))
			return bad_value(err, key, value, &perr);
		/* Slurm stores a uint16; 0 would divide by zero */
		if (v < 1 || v > 65535) {
			fw_err_set(err, NULL, 0, key, value, "must be 1..65535");
			return FW_CONF_ERR;
		}
		c->damp = v;
		return FW_CONF_OK;
	}
	if (fw_streq(key, "PriorityFlags"))
		return parse_priority_flags(c, key, value, err) ? FW_CONF_ERR
								: FW_CONF_OK;
	return FW_CONF_UNKNOWN;
}

/* --------------------------------------------------------- fairway.conf */

static const char *const slurm_keys[] = {
	"PriorityDecayHalfLife", "PriorityUsageResetPeriod",
	"FairShareDampeningFactor", "PriorityFlags", NULL
};

static int parse_formula(struct fw_fs_conf *c, const char *key, const char *val,
			 struct fw_err *err)
{
	static const enum fw_fs_formula all[] = {
		FW_FS_FORMULA_AUTO, FW_FS_FORMULA_FAIR_TREE,
		FW_FS_FORMULA_CLASSIC, FW_FS_FORMULA_DEPTH_OBLIVIOUS,
		FW_FS_FORMULA_PROPORTIONAL, FW_FS_FORMULA_SHARE_MINUS_USAGE,
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		if (val && !strcasecmp(val, fw_fs_formula_name(all[i]))) {
			c->formula_conf = all[i];
			return 0;
		}
	return fw_err_set(err, NULL, 0, key, val ? val : "",
			  "expected priorityflags, fair_tree, classic, depth_oblivious, proportional or share_minus_usage");
}

static int parse_decay(struct fw_fs_conf *c, const char *key, const char *val,
		       struct fw_err *err)
{
	if (val && !strcasecmp(val, "halflife"))
		c->decay = FW_FS_DECAY_HALFLIFE;
	else if (val && !strcasecmp(val, "window"))
		c->decay = FW_FS_DECAY_WINDOW;
	else
		return fw_err_set(err, NULL, 0, key, val ? val : "",
				  "expected halflife or window");
	return 0;
}

static int parse_unknown(struct fw_fs_conf *c, const char *key, const char *val,
			 struct fw_err *err)
{
	if (val && !strcasecmp(val, "create"))
		c->unknown = FW_FS_UNKNOWN_CREATE;
	else if (val && !strcasecmp(val, "root"))
		c->unknown = FW_FS_UNKNOWN_ROOT;
	else if (val && !strcasecmp(val, "ignore"))
		c->unknown = FW_FS_UNKNOWN_IGNORE;
	else
		return fw_err_set(err, NULL, 0, key, val ? val : "",
				  "expected create, root or ignore");
	return 0;
}

/* One global fairway.conf key: 1 consumed, 0 not ours, -1 error. */
static int global_key(struct fw_fs_conf *c, const char *key, const char *val,
		      struct fw_err *err)
{
	struct fw_err perr = { 0 };

	for (int i = 0; slurm_keys[i]; i++)
		if (fw_streq(key, slurm_keys[i]))
			return fw_err_set(err, NULL, 0, key, val,
					  "this is a slurm.conf parameter: set it in slurm.conf, not fairway.conf");
	if (fw_streq(key, "FairShareFormula"))
		return parse_formula(c, key, val, err) ? -1 : 1;
	if (fw_streq(key, "FairShareMax")) {
		if (parse_positive(key, val, &c->max, err))
			return -1;
		c->max_set = true;
		return 1;
	}
	if (fw_streq(key, "FairShareDecay"))
		return parse_decay(c, key, val, err) ? -1 : 1;
	if (fw_streq(key, "FairShareWindow")) {
		int64_t s;

		if (fw_parse_duration(val, false, &s, &perr))
			return bad_value(err, key, val, &perr);
		if (s <= 0)
			return fw_err_set(err, NULL, 0, key, val,
					  "window length must be greater than 0");
		c->window_sec = s;
		c->window_set = true;
		return 1;
	}
	if (fw_streq(key, "FairShareWindowCount")) {
		uint32_t v;

		if (fw_parse_uint32(val, &v, &perr))
			return bad_value(err, key, val, &perr);
		if (v < 1 || v > FW_FS_WINDOW_COUNT_MAX)
			return fw_err_set(err, NULL, 0, key, val,
					  "must be 1..%d", FW_FS_WINDOW_COUNT_MAX);
		c->window_count = v;
		c->window_count_set = true;
		return 1;
	}
	if (fw_streq(key, "FairShareWindowFactor")) {
		double d;

		if (fw_parse_double(val, &d, &perr))
			return bad_value(err, key, val, &perr);
		if (d < 0 || d > 1)
			return fw_err_set(err, NULL, 0, key, val,
					  "decay factor per window must be 0..1");
		c->window_factor = d;
		c->window_factor_set = true;
		return 1;
	}
	if (fw_streq(key, "FairShareCapacity")) {
		if (parse_positive(key, val, &c->capacity, err))
			return -1;
		c->capacity_set = true;
		return 1;
	}
	if (fw_streq(key, "FairShareExcludePartitions"))
		return parse_name_list(key, val, &c->excl_part, &c->n_excl_part,
				       err) ? -1 : 1;
	if (fw_streq(key, "FairShareExcludeQOS"))
		return parse_name_list(key, val, &c->excl_qos, &c->n_excl_qos,
				       err) ? -1 : 1;
	if (fw_streq(key, "FairShareUnknownAccount"))
		return parse_unknown(c, key, val, err) ? -1 : 1;
	if (fw_streq(key, "FairShareUnknownShares"))
		return parse_shares(key, val, &c->unknown_shares, err) ? -1 : 1;
	return 0;
}

static bool account_defined(const struct fw_fs_conf *c, const char *name)
{
	for (size_t i = 0; i < c->n_acct; i++)
		if (fw_streq(c->acct[i].name, name))
			return true;
	return false;
}

/* Account=name [Parent=p] [Shares=n|parent]: other keys are not ours. */
static int account_line(struct fw_fs_conf *c, const struct fw_kv *kv,
			bool *used, struct fw_err *err)
{
	const char *name = kv->val[0], *parent = "root";
	uint32_t shares = 1;
	bool has_attr = false;
	struct fw_fs_account_def *a;

	if (!name[0])
		return fw_err_set(err, NULL, 0, kv->key[0], name,
				  "empty account name");
	for (int i = 1; i < kv->n; i++) {
		if (fw_streq(kv->key[i], "Parent")) {
			if (!kv->val[i][0])
				return fw_err_set(err, NULL, 0, kv->key[i], "",
						  "empty parent account name");
			if (fw_streq(kv->val[i], name))
				return fw_err_set(err, NULL, 0, kv->key[i],
						  kv->val[i],
						  "account '%s' cannot be its own parent",
						  name);
			parent = kv->val[i];
		} else if (fw_streq(kv->key[i], "Shares")) {
			if (parse_shares(kv->key[i], kv->val[i], &shares, err))
				return -1;
		} else {
			continue;
		}
		used[i] = true;
		has_attr = true;
	}
	used[0] = true;
	if (fw_streq(name, "root")) {
		/* root is implicit; the line may carry other modules' keys */
		if (has_attr)
			return fw_err_set(err, NULL, 0, kv->key[0], name,
					  "root is the top of the tree: it takes no Parent or Shares");
		return 0;
	}
	if (account_defined(c, name))
		return fw_err_set(err, NULL, 0, kv->key[0], name,
				  "account '%s' is defined twice", name);
	if (c->n_acct == c->cap_acct) {
		c->cap_acct = c->cap_acct ? c->cap_acct * 2 : 16;
		c->acct = fw_xrealloc(c->acct, c->cap_acct * sizeof(*c->acct));
	}
	a = &c->acct[c->n_acct++];
	a->name = fw_strdup(name);
	a->parent = fw_strdup(parent);
	a->shares = shares;
	return 0;
}

static int add_user_def(struct fw_fs_conf *c, const char *key, const char *user,
			const char *acct, size_t len, uint32_t shares,
			struct fw_err *err)
{
	struct fw_fs_user_def *u;
	char *account = fw_xmalloc(len + 1);

	memcpy(account, acct, len);
	account[len] = '\0';
	for (size_t i = 0; i < c->n_user; i++)
		if (!strcmp(c->user[i].name, user) &&
		    fw_streq(c->user[i].account, account)) {
			fw_err_set(err, NULL, 0, key, user,
				   "user '%s' is defined twice in account '%s'",
				   user, account);
			free(account);
			return -1;
		}
	if (c->n_user == c->cap_user) {
		c->cap_user = c->cap_user ? c->cap_user * 2 : 16;
		c->user = fw_xrealloc(c->user, c->cap_user * sizeof(*c->user));
	}
	u = &c->user[c->n_user++];
	u->name = fw_strdup(user);
	u->account = account;
	u->shares = shares;
	return 0;
}

/* User=name Account=a[,b...] [Shares=n|parent]: one association per account. */
static int user_line(struct fw_fs_conf *c, const struct fw_kv *kv, bool *used,
		     struct fw_err *err)
{
	const char *name = kv->val[0], *accts = NULL;
	uint32_t shares = 1;
	int ia = -1, is = -1;

	for (int i = 1; i < kv->n; i++) {
		if (fw_streq(kv->key[i], "Account"))
			ia = i;
		else if (fw_streq(kv->key[i], "Shares"))
			is = i;
	}
	if (ia < 0) {
		if (is >= 0)
			return fw_err_set(err, NULL, 0, kv->key[is], kv->val[is],
					  "Shares= on a User= line needs Account=");
		return 1;  /* a user line of another module (e.g. Priority=) */
	}
	if (!name[0])
		return fw_err_set(err, NULL, 0, kv->key[0], name, "empty user name");
	if (is >= 0 && parse_shares(kv->key[is], kv->val[is], &shares, err))
		return -1;
	accts = kv->val[ia];
	if (!accts[0])
		return fw_err_set(err, NULL, 0, kv->key[ia], "",
				  "empty account name");
	for (const char *p = accts;;) {
		const char *q = strchr(p, ',');
		size_t len = q ? (size_t)(q - p) : strlen(p);

		if (!len)
			return fw_err_set(err, NULL, 0, kv->key[ia], accts,
					  "empty name in account list");
		if (add_user_def(c, kv->key[0], name, p, len, shares, err))
			return -1;
		if (!q)
			break;
		p = q + 1;
	}
	used[0] = used[ia] = true;
	if (is >= 0)
		used[is] = true;
	return 0;
}

int fw_fs_conf_line(struct fw_fs_conf *c, const struct fw_kv *kv, bool *used,
		    struct fw_err *err)
{
	bool any = false;

	if (!kv->n)
		return FW_CONF_UNKNOWN;
	if (fw_streq(kv->key[0], "Account"))
		return account_line(c, kv, used, err) ? FW_CONF_ERR : FW_CONF_OK;
	if (fw_streq(kv->key[0], "User")) {
		int rc = user_line(c, kv, used, err);

		return rc < 0 ? FW_CONF_ERR : rc > 0 ? FW_CONF_UNKNOWN : FW_CONF_OK;
	}
	for (int i = 0; i < kv->n; i++) {
		int rc = global_key(c, kv->key[i], kv->val[i], err);

		if (rc < 0)
			return FW_CONF_ERR;
		if (rc > 0)
			used[i] = any = true;
	}
	return any ? FW_CONF_OK : FW_CONF_UNKNOWN;
}

/* ------------------------------------------------------------- finish */

static const struct fw_fs_account_def *find_def(const struct fw_fs_conf *c,
						const char *name)
{
	for (size_t i = 0; i < c->n_acct; i++)
		if (fw_streq(c->acct[i].name, name))
			return &c->acct[i];
	return NULL;
}

/* Every parent chain must reach root through defined accounts. */
static int check_account_tree(const struct fw_fs_conf *c, struct fw_err *err)
{
	for (size_t i = 0; i < c->n_acct; i++) {
		const struct fw_fs_account_def *a = &c->acct[i];
		size_t steps = 0;

		while (!fw_streq(a->parent, "root")) {
			const struct fw_fs_account_def *p = find_def(c, a->parent);

			if (!p)
				return fw_err_set(err, NULL, 0, "Parent", a->parent,
						  "account '%s': parent account '%s' is not defined",
						  a->name, a->parent);
			if (++steps > c->n_acct)
				return fw_err_set(err, NULL, 0, "Parent",
						  c->acct[i].parent,
						  "account '%s' is its own ancestor (cycle in Parent=)",
						  c->acct[i].name);
			a = p;
		}
	}
	for (size_t i = 0; i < c->n_user; i++)
		if (!fw_streq(c->user[i].account, "root") &&
		    !find_def(c, c->user[i].account))
			return fw_err_set(err, NULL, 0, "Account",
					  c->user[i].account,
					  "user '%s': account '%s' is not defined",
					  c->user[i].name, c->user[i].account);
	return 0;
}

/* An explicit Slurm formula must agree with PriorityFlags that choose one. */
static int check_formula(struct fw_fs_conf *c, struct fw_err *err)
{
	enum fw_fs_formula f = c->formula_conf, from_flags;
	struct fw_fs_conf tmp = *c;

	tmp.formula_conf = FW_FS_FORMULA_AUTO;
	from_flags = fw_fs_effective_formula(&tmp);
	if (c->tree_flag_named &&
	    (f == FW_FS_FORMULA_FAIR_TREE || f == FW_FS_FORMULA_CLASSIC ||
	     f == FW_FS_FORMULA_DEPTH_OBLIVIOUS) && f != from_flags)
		return fw_err_set(err, NULL, 0, "FairShareFormula",
				  fw_fs_formula_name(f),
				  "contradicts slurm.conf PriorityFlags, which selects %s",
				  fw_fs_formula_name(from_flags));
	c->formula = fw_fs_effective_formula(c);
	return 0;
}

/* Keys that would silently do nothing with the chosen formula/decay. */
static int check_unused_keys(const struct fw_fs_conf *c, struct fw_err *err)
{
	bool window = c->decay == FW_FS_DECAY_WINDOW;
	bool smu = c->formula == FW_FS_FORMULA_SHARE_MINUS_USAGE;
	char v[64];

	if (c->max_set && c->formula != FW_FS_FORMULA_PROPORTIONAL) {
		snprintf(v, sizeof(v), "%g", c->max);
		return fw_err_set(err, NULL, 0, "FairShareMax", v,
				  "only used by FairShareFormula=proportional");
	}
	if (c->window_count_set && !window) {
		snprintf(v, sizeof(v), "%u", c->window_count);
		return fw_err_set(err, NULL, 0, "FairShareWindowCount", v,
				  "only used with FairShareDecay=window");
	}
	if (c->window_factor_set && !window) {
		snprintf(v, sizeof(v), "%g", c->window_factor);
		return fw_err_set(err, NULL, 0, "FairShareWindowFactor", v,
				  "only used with FairShareDecay=window");
	}
	if (c->window_set && !window && !smu) {
		snprintf(v, sizeof(v), "%lld", (long long)c->window_sec);
		return fw_err_set(err, NULL, 0, "FairShareWindow", v,
				  "only used with FairShareDecay=window or FairShareFormula=share_minus_usage");
	}
	if (c->capacity_set && !smu) {
		snprintf(v, sizeof(v), "%g", c->capacity);
		return fw_err_set(err, NULL, 0, "FairShareCapacity", v,
				  "only used by FairShareFormula=share_minus_usage");
	}
	return 0;
}

int fw_fs_conf_finish(struct fw_fs_conf *c, struct fw_err *err)
{
	if (c->decay == FW_FS_DECAY_HALFLIFE && c->halflife_sec == 0 &&
	    !c->reset_set)
		return fw_err_set(err, NULL, 0, "PriorityDecayHalfLife", "0",
				  "without decay, PriorityUsageResetPeriod must be set (as Slurm requires)");
	if (check_formula(c, err) || check_unused_keys(c, err) ||
	    check_account_tree(c, err))
		return FW_CONF_ERR;
	return FW_CONF_OK;
}
