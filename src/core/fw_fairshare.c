/*
 * fw_fairshare.c - the fair-share tree: nodes and lookups, usage charging
 * with exact decay, usage resets, and the four formulas.
 *
 * Configuration parsing lives in fw_fs_conf.c, state save/load in
 * fw_fs_state.c.  Slurm semantics mirrored here were learned from Slurm
 * 22.05's assoc_mgr.c (shares normalisation, Shares=parent re-parenting),
 * priority_multifactor.c (classic effective usage, DEPTH_OBLIVIOUS, resets)
 * and fair_tree.c (level_fs and ranking).
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_fs_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ln 2 (M_LN2 is not C11) */
#define FW_FS_LN2 0.693147180559945309417

/* ------------------------------------------------------------ name index */

static uint64_t fnv(uint64_t h, unsigned char c)
{
	return (h ^ c) * 1099511628211ull;
}

/* Accounts are keyed by lower-cased name, users by (account, user). */
static uint64_t name_hash(const char *acct, const char *user)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *p = acct; *p; p++)
		h = fnv(h, (unsigned char)tolower((unsigned char)*p));
	if (user) {
		h = fnv(h, 0x1f);
		for (const char *p = user; *p; p++)
			h = fnv(h, (unsigned char)*p);
	}
	return h;
}

static uint64_t ext_hash(uint32_t id)
{
	uint64_t h = id * 0x9E3779B97F4A7C15ull;

	return h ^ (h >> 29);
}

static bool name_match(const struct fw_fs_node *n, const char *acct,
		       const char *user)
{
	if (n->is_user != (user != NULL))
		return false;
	if (strcasecmp(n->acct, acct))
		return false;
	return !user || !strcmp(n->name, user);
}

static uint64_t node_name_hash(const struct fw_fs_node *n)
{
	return name_hash(n->acct, n->is_user ? n->name : NULL);
}

static void index_init(struct fw_fs_index *ix, size_t size)
{
	ix->slot = fw_xmalloc(size * sizeof(int));
	for (size_t i = 0; i < size; i++)
		ix->slot[i] = -1;
	ix->mask = size - 1;
	ix->used = 0;
}

static void index_put(struct fw_fs_index *ix, uint64_t h, int idx)
{
	size_t i = (size_t)h & ix->mask;

	while (ix->slot[i] >= 0)
		i = (i + 1) & ix->mask;
	ix->slot[i] = idx;
	ix->used++;
}

static void name_index_rebuild(struct fw_fs_tree *t, size_t size)
{
	free(t->by_name.slot);
	index_init(&t->by_name, size);
	for (size_t i = 0; i < t->n; i++)
		index_put(&t->by_name, node_name_hash(&t->node[i]), (int)i);
}

static void ext_index_rebuild(struct fw_fs_tree *t, size_t size)
{
	free(t->by_ext.slot);
	index_init(&t->by_ext, size);
	for (size_t i = 0; i < t->n; i++)
		if (t->node[i].ext_id)
			index_put(&t->by_ext, ext_hash(t->node[i].ext_id), (int)i);
}

/* Keep the load factor at most 1/2 so probes stay short. */
static void index_reserve(struct fw_fs_tree *t, struct fw_fs_index *ix,
			  bool ext)
{
	size_t size = ix->mask + 1;

	if ((ix->used + 1) * 2 <= size)
		return;
	if (ext)
		ext_index_rebuild(t, size * 2);
	else
		name_index_rebuild(t, size * 2);
}

static int lookup_name(const struct fw_fs_tree *t, const char *acct,
		       const char *user)
{
	size_t i = (size_t)name_hash(acct, user) & t->by_name.mask;

	for (int s; (s = t->by_name.slot[i]) >= 0; i = (i + 1) & t->by_name.mask)
		if (name_match(&t->node[s], acct, user))
			return s;
	return -1;
}

int fw_fs_find_account(const struct fw_fs_tree *t, const char *account)
{
	if (!t || !account)
		return -1;
	return lookup_name(t, account, NULL);
}

int fw_fs_find_user(const struct fw_fs_tree *t, const char *account,
		    const char *user)
{
	if (!t || !account || !user)
		return -1;
	return lookup_name(t, account, user);
}

int fw_fs_find_ext(const struct fw_fs_tree *t, uint32_t ext_id)
{
	size_t i;

	if (!t || !ext_id)
		return -1;
	i = (size_t)ext_hash(ext_id) & t->by_ext.mask;
	for (int s; (s = t->by_ext.slot[i]) >= 0; i = (i + 1) & t->by_ext.mask)
		if (t->node[s].ext_id == ext_id)
			return s;
	return -1;
}

/* ------------------------------------------------------------ tree basics */

static fw_time_t next_reset_after(enum fw_fs_reset r, fw_time_t last);

enum fw_fs_formula fw_fs_effective_formula(const struct fw_fs_conf *c)
{
	if (c->formula_conf != FW_FS_FORMULA_AUTO)
		return c->formula_conf;
	/* Slurm: DEPTH_OBLIVIOUS clears FAIR_TREE; NO_FAIR_TREE clears it. */
	if (c->flag_depth_oblivious)
		return FW_FS_FORMULA_DEPTH_OBLIVIOUS;
	if (c->flag_no_fair_tree)
		return FW_FS_FORMULA_CLASSIC;
	return FW_FS_FORMULA_FAIR_TREE;
}

struct fw_fs_tree *fw_fs_tree_new(const struct fw_fs_conf *conf)
{
	struct fw_fs_tree *t = fw_xcalloc(1, sizeof(*t));

	t->formula = fw_fs_effective_formula(conf);
	t->decay = conf->decay;
	t->halflife = conf->halflife_sec;
	t->tau = t->halflife > 0 ? (double)t->halflife / FW_FS_LN2 : 0.0;
	t->window_sec = conf->window_sec > 0 ? conf->window_sec : 86400;
	t->window_count = t->decay == FW_FS_DECAY_WINDOW ? conf->window_count : 1;
	if (t->window_count == 0)
		t->window_count = 1;
	t->window_factor = conf->window_factor;
	t->dpow = fw_xmalloc(t->window_count * sizeof(double));
	t->dpow[0] = 1.0;
	for (uint32_t k = 1; k < t->window_count; k++)
		t->dpow[k] = t->dpow[k - 1] * t->window_factor;
	t->damp = conf->damp ? (double)conf->damp : 1.0;
	t->max = conf->max;
	t->capacity = conf->capacity;
	t->reset = conf->reset;
	t->reset_now_pending = conf->reset == FW_FS_RESET_NOW;
	t->unknown = conf->unknown;
	t->unknown_shares = conf->unknown_shares;
	t->clock = FW_FS_NO_TIME;
	t->reset_anchor = FW_FS_NO_TIME;
	t->next_reset = FW_FS_NO_TIME;
	t->zeroed_at = FW_FS_NO_TIME;

	index_init(&t->by_name, 64);
	index_init(&t->by_ext, 64);
	t->cap = 16;
	t->node = fw_xcalloc(t->cap, sizeof(*t->node));
	if (t->decay == FW_FS_DECAY_WINDOW)
		t->bins = fw_xcalloc(t->cap * t->window_count, sizeof(double));
	t->node[0].name = fw_strdup("root");
	t->node[0].acct = t->node[0].name;
	t->node[0].parent = -1;
	t->node[0].shares = 1;
	t->n = 1;
	index_put(&t->by_name, node_name_hash(&t->node[0]), 0);
	t->dirty = true;
	return t;
}

static void free_derived(struct fw_fs_tree *t)
{
	free(t->fs_parent);
	free(t->kid_off);
	free(t->kids);
	free(t->kid_shares);
	free(t->chain);
	free(t->sib_norm);
	free(t->sort);
	t->fs_parent = t->kid_off = t->kids = NULL;
	t->kid_shares = NULL;
	t->chain = t->sib_norm = NULL;
	t->sort = NULL;
}

void fw_fs_tree_free(struct fw_fs_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->node[i].name);
	free(t->node);
	free(t->bins);
	free(t->dpow);
	free(t->by_name.slot);
	free(t->by_ext.slot);
	free_derived(t);
	free(t);
}

size_t fw_fs_node_count(const struct fw_fs_tree *t)
{
	return t->n;
}

size_t fw_fs_user_count(const struct fw_fs_tree *t)
{
	return t->n_users;
}

enum fw_fs_formula fw_fs_tree_formula(const struct fw_fs_tree *t)
{
	return t->formula;
}

fw_time_t fw_fs_clock(const struct fw_fs_tree *t)
{
	return t->started ? t->clock : 0;
}

fw_time_t fw_fs_last_reset(const struct fw_fs_tree *t)
{
	return t->zeroed_at == FW_FS_NO_TIME ? 0 : t->zeroed_at;
}

void fw_fs_rearm_reset_now(struct fw_fs_tree *t)
{
	if (t)
		t->reset_now_pending = t->reset == FW_FS_RESET_NOW;
}

static bool valid_node(const struct fw_fs_tree *t, int node)
{
	return t && node >= 0 && (size_t)node < t->n;
}

static bool valid_shares(uint32_t shares)
{
	return shares <= FW_FS_SHARES_MAX || shares == FW_FS_USE_PARENT;
}

static int append_node(struct fw_fs_tree *t, const char *name, int parent,
		       bool is_user, uint32_t shares, uint32_t ext_id)
{
	struct fw_fs_node *n;

	if (t->n == t->cap) {
		size_t old = t->cap;

		t->cap *= 2;
		t->node = fw_xrealloc(t->node, t->cap * sizeof(*t->node));
		if (t->bins) {
			t->bins = fw_xrealloc(t->bins, t->cap * t->window_count *
					      sizeof(double));
			memset(t->bins + old * t->window_count, 0,
			       (t->cap - old) * t->window_count * sizeof(double));
		}
	}
	index_reserve(t, &t->by_name, false);
	if (ext_id)
		index_reserve(t, &t->by_ext, true);
	n = &t->node[t->n];
	memset(n, 0, sizeof(*n));
	n->name = fw_strdup(name);
	n->acct = is_user ? t->node[parent].name : n->name;
	n->parent = parent;
	n->is_user = is_user;
	n->shares = shares;
	n->ext_id = ext_id;
	index_put(&t->by_name, node_name_hash(n), (int)t->n);
	if (ext_id)
		index_put(&t->by_ext, ext_hash(ext_id), (int)t->n);
	if (is_user)
		t->n_users++;
	t->dirty = true;
	return (int)t->n++;
}

static int check_new_node(const struct fw_fs_tree *t, const char *key,
			  const char *name, uint32_t shares, uint32_t ext_id,
			  struct fw_err *err)
{
	if (!name || !name[0])
		return fw_err_set(err, NULL, 0, key, "", "empty name");
	if (!valid_shares(shares))
		return fw_err_set(err, NULL, 0, key, name,
				  "shares %u out of range 0..%u", shares,
				  FW_FS_SHARES_MAX);
	if (ext_id && fw_fs_find_ext(t, ext_id) >= 0)
		return fw_err_set(err, NULL, 0, key, name,
				  "external id %u already used by another node",
				  ext_id);
	return 0;
}

int fw_fs_add_account(struct fw_fs_tree *t, const char *name,
		      const char *parent, uint32_t shares, uint32_t ext_id,
		      struct fw_err *err)
{
	int p = 0;

	if (check_new_node(t, "Account", name, shares, ext_id, err))
		return -1;
	if (fw_fs_find_account(t, name) >= 0)
		return fw_err_set(err, NULL, 0, "Account", name,
				  "account already exists");
	if (parent && parent[0] && (p = fw_fs_find_account(t, parent)) < 0)
		return fw_err_set(err, NULL, 0, "Account", name,
				  "parent account '%s' does not exist", parent);
	return append_node(t, name, p, false, shares, ext_id);
}

int fw_fs_add_user(struct fw_fs_tree *t, const char *account, const char *user,
		   uint32_t shares, uint32_t ext_id, struct fw_err *err)
{
	int p;

	if (check_new_node(t, "User", user, shares, ext_id, err))
		return -1;
	if (!account || (p = fw_fs_find_account(t, account)) < 0)
		return fw_err_set(err, NULL, 0, "User", user,
				  "account '%s' does not exist",
				  account ? account : "");
	if (fw_fs_find_user(t, account, user) >= 0)
		return fw_err_set(err, NULL, 0, "User", user,
				  "user already exists in account '%s'", account);
	return append_node(t, user, p, true, shares, ext_id);
}

int fw_fs_set_shares(struct fw_fs_tree *t, int node, uint32_t shares)
{
	/* root has no siblings; Shares=parent on it has no meaning */
	if (!valid_node(t, node) || node == 0 || !valid_shares(shares))
		return -1;
	t->node[node].shares = shares;
	t->dirty = true;
	return 0;
}

int fw_fs_set_ext_id(struct fw_fs_tree *t, int node, uint32_t ext_id)
{
	int other;

	if (!valid_node(t, node))
		return -1;
	if (!ext_id && !t->node[node].ext_id)
		return 0;
	other = fw_fs_find_ext(t, ext_id);
	if (other >= 0)
		return other == node ? 0 : -1;
	if (t->node[node].ext_id) {
		/* linear probing cannot delete in place: rebuild (rare) */
		t->node[node].ext_id = ext_id;
		ext_index_rebuild(t, t->by_ext.mask + 1);
		return 0;
	}
	t->node[node].ext_id = ext_id;
	index_reserve(t, &t->by_ext, true);
	index_put(&t->by_ext, ext_hash(ext_id), node);
	return 0;
}

/* Add conf-defined account i after its parent (definitions come in any
 * order; fw_fs_conf_finish() has ruled out cycles and unknown parents). */
static int add_conf_account(struct fw_fs_tree *t, const struct fw_fs_conf *c,
			    size_t i, struct fw_err *err)
{
	const struct fw_fs_account_def *a = &c->acct[i];

	if (fw_fs_find_account(t, a->name) >= 0)
		return 0;
	if (fw_fs_find_account(t, a->parent) < 0) {
		for (size_t j = 0; j < c->n_acct; j++)
			if (fw_streq(c->acct[j].name, a->parent)) {
				if (add_conf_account(t, c, j, err))
					return -1;
				break;
			}
	}
	return fw_fs_add_account(t, a->name, a->parent, a->shares, 0, err) < 0
		? -1 : 0;
}

int fw_fs_tree_add_conf_defs(struct fw_fs_tree *t, const struct fw_fs_conf *c,
			     struct fw_err *err)
{
	for (size_t i = 0; i < c->n_acct; i++) {
		/* "Account=root" only names root (for other modules' keys) */
		if (fw_streq(c->acct[i].name, "root"))
			continue;
		if (add_conf_account(t, c, i, err))
			return -1;
	}
	for (size_t i = 0; i < c->n_user; i++)
		if (fw_fs_add_user(t, c->user[i].account, c->user[i].name,
				   c->user[i].shares, 0, err) < 0)
			return -1;
	return 0;
}

int fw_fs_resolve(struct fw_fs_tree *t, const char *account, const char *user)
{
	int a, u;

	if (!t || !user || !user[0])
		return -1;
	if (!account || !account[0])
		account = "root";
	u = fw_fs_find_user(t, account, user);
	if (u >= 0)
		return u;
	a = fw_fs_find_account(t, account);
	if (a < 0) {
		switch (t->unknown) {
		case FW_FS_UNKNOWN_IGNORE:
			return -1;
		case FW_FS_UNKNOWN_ROOT:
			account = "root";
			a = 0;
			u = fw_fs_find_user(t, account, user);
			if (u >= 0)
				return u;
			break;
		case FW_FS_UNKNOWN_CREATE:
			a = append_node(t, account, 0, false, t->unknown_shares, 0);
			break;
		}
	}
	u = append_node(t, user, a, true, t->unknown_shares, 0);
	/* the new node changes every sibling's share: keep factors current */
	if (t->computed)
		fw_fs_compute(t);
	return u;
}

/* Same name path from node to root in two trees. */
bool fw_fs_same_path(const struct fw_fs_tree *a, int i,
		     const struct fw_fs_tree *b, int j)
{
	if (a->node[i].is_user != b->node[j].is_user)
		return false;
	while (i >= 0 && j >= 0) {
		const struct fw_fs_node *x = &a->node[i], *y = &b->node[j];

		if (x->is_user ? strcmp(x->name, y->name)
			       : strcasecmp(x->name, y->name))
			return false;
		i = x->parent;
		j = y->parent;
	}
	return i < 0 && j < 0;
}

/* ------------------------------------------------------------------ usage */

static void zero_usage(struct fw_fs_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->node[i].usage = 0.0;
	if (t->bins)
		memset(t->bins, 0, t->n * t->window_count * sizeof(double));
}

/* Decayed usage of node i from its ring: sum_k D^k * bin(cur - k).
 * Always recomputed this one way, so equal rings give equal usage. */
static double window_usage(const struct fw_fs_tree *t, const size_t *slot,
			   size_t i)
{
	const double *b = t->bins + i * t->window_count;
	double u = 0.0;

	for (size_t k = 0; k < t->window_count; k++)
		u += t->dpow[k] * b[slot[k]];
	return u;
}

/* Ring slot of window cur-k for every k (hoisted out of node loops). */
static void window_slots(const struct fw_fs_tree *t, size_t *slot)
{
	for (size_t k = 0; k < t->window_count; k++)
		slot[k] = fw_fs_slot(t, t->cur_window - (int64_t)k);
}

void fw_fs_window_refresh(struct fw_fs_tree *t)
{
	size_t slot[FW_FS_WINDOW_COUNT_MAX];

	window_slots(t, slot);
	for (size_t i = 0; i < t->n; i++)
		t->node[i].usage = window_usage(t, slot, i);
}

/* Move the ring to window new_w, clearing the windows that fall out. */
static void window_shift(struct fw_fs_tree *t, int64_t new_w)
{
	int64_t shift = new_w - t->cur_window;
	size_t cnt = t->window_count;

	if (shift <= 0)
		return;
	if (shift >= (int64_t)cnt) {
		memset(t->bins, 0, t->n * cnt * sizeof(double));
	} else {
		for (int64_t w = t->cur_window + 1; w <= new_w; w++) {
			size_t s = fw_fs_slot(t, w);

			for (size_t i = 0; i < t->n; i++)
				t->bins[i * cnt + s] = 0.0;
		}
	}
	t->cur_window = new_w;
	fw_fs_window_refresh(t);
}

/* Apply PriorityUsageResetPeriod boundaries up to now. */
static void apply_resets(struct fw_fs_tree *t, fw_time_t now)
{
	fw_time_t b;

	if (t->reset_now_pending) {
		/* NOW: once, at the first advance after (re)configuration */
		t->reset_now_pending = false;
		zero_usage(t);
		t->zeroed_at = t->reset_anchor = now;
		return;
	}
	if (t->reset < FW_FS_RESET_DAILY)
		return;
	if (t->reset_anchor == FW_FS_NO_TIME)
		t->reset_anchor = now;  /* as Slurm: count from startup */
	if (t->next_reset == FW_FS_NO_TIME)
		t->next_reset = next_reset_after(t->reset, t->reset_anchor);
	if (now < t->next_reset)
		return;
	/* Only the last boundary passed matters: usage is zero after it. */
	b = t->next_reset;
	for (fw_time_t nb; (nb = next_reset_after(t->reset, b)) <= now; )
		b = nb;
	zero_usage(t);
	t->zeroed_at = t->reset_anchor = b;
	t->next_reset = next_reset_after(t->reset, b);
}

void fw_fs_advance(struct fw_fs_tree *t, fw_time_t now)
{
	if (!t)
		return;
	if (!t->started) {
		t->started = true;
		t->clock = now;
		t->cur_window = fw_fs_window_at(t, now);
		apply_resets(t, now);
		return;
	}
	if (t->reset_now_pending || now > t->clock)
		apply_resets(t, now);
	if (now <= t->clock)
		return;
	if (t->decay == FW_FS_DECAY_WINDOW) {
		window_shift(t, fw_fs_window_at(t, now));
	} else if (t->tau > 0) {
		/* exact: 2^(-dt/halflife) */
		double f = exp(-(double)(now - t->clock) / t->tau);

		for (size_t i = 0; i < t->n; i++)
			t->node[i].usage *= f;
	}
	t->clock = now;
}

static void add_up(struct fw_fs_tree *t, int node, double amount)
{
	for (int i = node; i >= 0; i = t->node[i].parent)
		t->node[i].usage += amount;
}

static void charge_windows(struct fw_fs_tree *t, int node, double units,
			   fw_time_t t0, fw_time_t t1)
{
	int64_t W = t->window_sec, cnt = (int64_t)t->window_count;
	int64_t oldest = t->cur_window - cnt + 1;
	size_t slot[FW_FS_WINDOW_COUNT_MAX];

	if (t0 < oldest * W)
		t0 = oldest * W;
	if (t1 <= t0)
		return;
	for (int64_t w = fw_fs_floordiv(t0, W); w * W < t1; w++) {
		fw_time_t lo = t0 > w * W ? t0 : w * W;
		fw_time_t hi = t1 < (w + 1) * W ? t1 : (w + 1) * W;
		double amount = units * (double)(hi - lo);
		size_t s = fw_fs_slot(t, w);

		for (int i = node; i >= 0; i = t->node[i].parent)
			t->bins[(size_t)i * t->window_count + s] += amount;
	}
	window_slots(t, slot);
	for (int i = node; i >= 0; i = t->node[i].parent)
		t->node[i].usage = window_usage(t, slot, (size_t)i);
}

int fw_fs_charge(struct fw_fs_tree *t, int node, double units, fw_time_t t0,
		 fw_time_t t1)
{
	if (!valid_node(t, node) || !isfinite(units) || units < 0 || t1 < t0)
		return -1;
	if (!t->started || t1 > t->clock)
		fw_fs_advance(t, t1);
	if (t->zeroed_at != FW_FS_NO_TIME && t0 < t->zeroed_at)
		t0 = t->zeroed_at;
	if (t1 <= t0 || units == 0)
		return 0;
	if (t->decay == FW_FS_DECAY_WINDOW) {
		charge_windows(t, node, units, t0, t1);
	} else if (t->tau > 0) {
		/*
		 * Value at the clock T of usage at rate `units` over [t0,t1):
		 * units * integral 2^(-(T-s)/h) ds
		 *   = units * tau * e^(-(T-t1)/tau) * (1 - e^(-(t1-t0)/tau)),
		 * tau = h/ln 2; expm1 keeps short slices exact.
		 */
		double tau = t->tau;
		double amount = units * tau * exp(-(double)(t->clock - t1) / tau) *
				-expm1(-(double)(t1 - t0) / tau);

		add_up(t, node, amount);
	} else {
		add_up(t, node, units * (double)(t1 - t0));
	}
	return 0;
}

/* Slurm's reset boundaries (process local time, as slurmctld). */
static fw_time_t next_reset_after(enum fw_fs_reset r, fw_time_t last)
{
	time_t lt = (time_t)last;
	struct tm tm;

	if (!localtime_r(&lt, &tm))
		return INT64_MAX;
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_isdst = -1;
	switch (r) {
	case FW_FS_RESET_DAILY:
		tm.tm_mday += 1;
		break;
	case FW_FS_RESET_WEEKLY:            /* next Sunday 00:00 */
		tm.tm_mday += 7 - tm.tm_wday;
		break;
	case FW_FS_RESET_MONTHLY:
		tm.tm_mday = 1;
		tm.tm_mon += 1;
		break;
	case FW_FS_RESET_QUARTERLY:         /* Jan, Apr, Jul, Oct 1st */
		tm.tm_mday = 1;
		tm.tm_mon = (tm.tm_mon / 3 + 1) * 3;
		break;
	case FW_FS_RESET_YEARLY:
		tm.tm_mday = 1;
		tm.tm_mon = 0;
		tm.tm_year += 1;
		break;
	default:
		return INT64_MAX;
	}
	return (fw_time_t)mktime(&tm);
}

/* -------------------------------------------------------- derived structure */

/*
 * Slurm's fs_assoc_ptr: the first ancestor that is not Shares=parent (or
 * root).  A Shares=parent account's children are thereby re-parented to it
 * for fair-share, and the Shares=parent account itself has no fs-children.
 */
static void rebuild_derived(struct fw_fs_tree *t)
{
	size_t n = t->n;
	int *fill;

	free_derived(t);
	t->fs_parent = fw_xmalloc(n * sizeof(int));
	t->kid_off = fw_xcalloc(n + 1, sizeof(int));
	t->kids = fw_xmalloc(n * sizeof(int));
	t->kid_shares = fw_xcalloc(n, sizeof(uint64_t));
	t->chain = fw_xmalloc(n * sizeof(double));
	t->sib_norm = fw_xmalloc(n * sizeof(double));
	t->sort = fw_xmalloc(n * sizeof(*t->sort));

	t->fs_parent[0] = -1;
	for (size_t i = 1; i < n; i++) {
		int p = t->node[i].parent;

		while (p != 0 && t->node[p].shares == FW_FS_USE_PARENT)
			p = t->node[p].parent;
		t->fs_parent[i] = p;
		t->kid_off[p + 1]++;
		if (t->node[i].shares != FW_FS_USE_PARENT)
			t->kid_shares[p] += t->node[i].shares;
	}
	for (size_t i = 0; i < n; i++)
		t->kid_off[i + 1] += t->kid_off[i];
	fill = fw_xmalloc(n * sizeof(int));
	memcpy(fill, t->kid_off, n * sizeof(int));
	for (size_t i = 1; i < n; i++)
		t->kids[fill[t->fs_parent[i]]++] = (int)i;
	free(fill);
	t->dirty = false;
}

/* Raw shares of node i over the raw shares of its fs-siblings (Slurm's
 * shares_raw / level_shares); 0 when the level has no shares. */
static double level_ratio(const struct fw_fs_tree *t, int i)
{
	uint64_t ls;

	if (i == 0)
		return 0.0;
	ls = t->kid_shares[t->fs_parent[i]];
	return ls ? (double)t->node[i].shares / (double)ls : 0.0;
}

/* ------------------------------------------------------------- formulas */

static bool use_parent(const struct fw_fs_tree *t, int i)
{
	return i != 0 && t->node[i].shares == FW_FS_USE_PARENT;
}

/* usage_norm = usage_raw / root usage_raw, at most 1 (Slurm caps it). */
static void compute_usage_norm(struct fw_fs_tree *t)
{
	double root = t->node[0].usage;

	for (size_t i = 0; i < t->n; i++) {
		double un = root > 0 ? t->node[i].usage / root : 0.0;

		t->node[i].usage_norm = un > 1.0 ? 1.0 : un;
		t->node[i].level_fs = 0.0;
		t->node[i].fs_factor = 0.0;
	}
}

/*
 * Classic shares_norm: product over the path of shares / level shares,
 * where Shares=parent nodes on the path contribute nothing and a
 * Shares=parent node takes its fs-parent's value (root: 1).
 */
static void compute_classic_shares(struct fw_fs_tree *t)
{
	t->chain[0] = 1.0;
	t->node[0].shares_norm = 1.0;
	for (size_t i = 1; i < t->n; i++) {
		int p = t->node[i].parent;

		if (use_parent(t, (int)i)) {
			t->chain[i] = t->chain[p];
			t->node[i].shares_norm =
				t->node[t->fs_parent[i]].shares_norm;
		} else {
			t->chain[i] = t->chain[p] * level_ratio(t, (int)i);
			t->node[i].shares_norm = t->chain[i];
		}
	}
}

static double classic_factor(const struct fw_fs_tree *t, double ue, double sn)
{
	if (sn <= 0)
		return 0.0;
	return exp2(-(ue / sn) / t->damp);
}

/* Slurm's DEPTH_OBLIVIOUS effective usage for node i (not under root). */
static double depth_oblivious_ue(const struct fw_fs_tree *t, int i)
{
	const struct fw_fs_node *x = &t->node[i];
	const struct fw_fs_node *p = &t->node[t->fs_parent[i]];
	double ratio_p, ratio_s, ratio_l, k;

	if (!(x->shares_norm && p->shares_norm && p->usage_efctv &&
	      x->usage_norm))
		return x->usage_norm;
	/* R = ratio_p * ratio_l^k; usage_efctv = R * shares_norm */
	ratio_p = p->usage_efctv / p->shares_norm;
	ratio_s = t->sib_norm[t->fs_parent[i]] / p->shares_norm;
	ratio_l = (x->usage_norm / x->shares_norm) / ratio_s;
	if (!ratio_p || !ratio_l || log(ratio_p) * log(ratio_l) >= 0)
		k = 1.0;
	else
		k = 1.0 / (1.0 + pow(5.0 * log(ratio_p), 2));
	return ratio_p * pow(ratio_l, k) * x->shares_norm;
}

static void compute_classic(struct fw_fs_tree *t, bool oblivious)
{
	compute_classic_shares(t);
	if (oblivious) {
		/* usage_norm sum over each level's ordinary fs-children */
		memset(t->sib_norm, 0, t->n * sizeof(double));
		for (size_t i = 1; i < t->n; i++)
			if (!use_parent(t, (int)i))
				t->sib_norm[t->fs_parent[i]] +=
					t->node[i].usage_norm;
	}
	t->node[0].usage_efctv = 1.0;  /* as Slurm sets root's at init */
	for (size_t i = 1; i < t->n; i++) {
		struct fw_fs_node *x = &t->node[i];
		int fp = t->fs_parent[i];
		uint64_t ls = t->kid_shares[fp];

		if (fp == 0)
			x->usage_efctv = x->usage_norm;
		else if (use_parent(t, (int)i))
			x->usage_efctv = t->node[fp].usage_efctv;
		else if (oblivious)
			x->usage_efctv = depth_oblivious_ue(t, (int)i);
		else if (!ls)
			x->usage_efctv = t->node[fp].usage_efctv;
		else
			/* ua + (ue_parent - ua) * s_child / s_siblings */
			x->usage_efctv = x->usage_norm +
				(t->node[fp].usage_efctv - x->usage_norm) *
				((double)x->shares / (double)ls);
	}
	for (size_t i = 1; i < t->n; i++) {
		/* Shares=parent takes the factor of its fs-parent's values */
		int s = use_parent(t, (int)i) ? t->fs_parent[i] : (int)i;

		t->node[i].fs_factor = classic_factor(t, t->node[s].usage_efctv,
						      t->node[s].shares_norm);
	}
}

static int cmp_level_fs(const void *pa, const void *pb)
{
	const struct fw_fs_sort_ent *a = pa, *b = pb;
	int c;

	if (a->key != b->key)
		return a->key < b->key ? 1 : -1;
	/* users before accounts on ties (Slurm's rule) */
	if (a->is_user != b->is_user)
		return a->is_user ? -1 : 1;
	/* Slurm leaves this to qsort; we make it deterministic */
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	return a->idx - b->idx;
}

/* level_fs = S/U within the sibling level (fair_tree.c's _calc_assoc_fs). */
static void ft_level_fs(struct fw_fs_tree *t)
{
	for (size_t i = 1; i < t->n; i++) {
		struct fw_fs_node *x = &t->node[i];
		int fp = t->fs_parent[i];
		double pu = t->node[fp].usage;
		int s = use_parent(t, (int)i) ? fp : (int)i;

		x->shares_norm = level_ratio(t, s);
		x->usage_efctv = pu ? x->usage / pu : 0.0;
		if (use_parent(t, (int)i))
			x->level_fs = x->is_user ? INFINITY : FW_FS_NO_VAL_LEVEL;
		else if (x->shares_norm == 0.0)
			x->level_fs = 0.0;
		else    /* U == 0 gives +inf: a valid, highest value */
			x->level_fs = x->shares_norm / x->usage_efctv;
	}
	t->node[0].shares_norm = 1.0;
	t->node[0].usage_efctv = t->node[0].usage > 0 ? 1.0 : 0.0;
}

struct ft_rank {
	uint32_t rank;  /* current rank (shared by ties) */
	uint32_t rnt;   /* rank if there were no ties */
	double users;
};

/*
 * Depth-first over siblings sorted by level_fs, as fair_tree.c's
 * _calc_tree_fs: a user takes the current rank unless tied with the
 * previous sibling; an account recurses, its first child inheriting the
 * tie.  Slurm 22.05's _count_tied_accounts() never finds a tied account
 * (it stops at the first account), so tied accounts are not merged: they
 * are visited one after the other and the second one's first user shares
 * the rank of the first one's last user.  We reproduce that.
 */
static void ft_rank_level(struct fw_fs_tree *t, int parent, struct ft_rank *r,
			  bool account_tied)
{
	int off = t->kid_off[parent], cnt = t->kid_off[parent + 1] - off;
	int *kids = t->kids + off;
	struct fw_fs_sort_ent *e = t->sort + off;
	double prev = FW_FS_NO_VAL_LEVEL;

	for (int i = 0; i < cnt; i++) {
		const struct fw_fs_node *x = &t->node[kids[i]];

		e[i].key = x->level_fs;
		e[i].is_user = x->is_user;
		e[i].idx = kids[i];
		e[i].name = x->name;
	}
	qsort(e, (size_t)cnt, sizeof(*e), cmp_level_fs);
	for (int i = 0; i < cnt; i++)
		kids[i] = e[i].idx;

	for (int i = 0; i < cnt; i++) {
		struct fw_fs_node *x = &t->node[kids[i]];
		bool tied = (i == 0 && account_tied) ? true : prev == x->level_fs;

		if (x->is_user) {
			if (!tied)
				r->rank = r->rnt;
			x->fs_factor = (double)r->rank / r->users;
			r->rnt--;
		} else {
			ft_rank_level(t, kids[i], r, tied);
		}
		prev = x->level_fs;
	}
}

static void compute_fair_tree(struct fw_fs_tree *t)
{
	struct ft_rank r = {
		.rank = (uint32_t)t->n_users,
		.rnt = (uint32_t)t->n_users,
		.users = (double)t->n_users,
	};

	ft_level_fs(t);
	if (t->n_users)
		ft_rank_level(t, 0, &r, false);
}

/*
 * Seed 000: MAX * (1 - U_project / U_total).  A user's project is its
 * account (a user directly under root is its own project); every member of
 * a project gets the project's value.
 */
static void compute_proportional(struct fw_fs_tree *t)
{
	double total = t->node[0].usage;

	compute_classic_shares(t);
	for (size_t i = 1; i < t->n; i++) {
		struct fw_fs_node *x = &t->node[i];
		int proj = (x->is_user && x->parent != 0) ? x->parent : (int)i;
		double frac = total > 0 ? t->node[proj].usage / total : 0.0;

		if (frac > 1.0)
			frac = 1.0;
		x->usage_efctv = frac;
		x->fs_factor = t->max * (1.0 - frac);
	}
	t->node[0].usage_efctv = total > 0 ? 1.0 : 0.0;
}

/*
 * The primer (seed 004): P = S - U, S the normalised share, U the decayed
 * usage as a fraction of one window's capacity (capacity x window).
 */
static int compute_share_minus_usage(struct fw_fs_tree *t)
{
	double cap = t->capacity * (double)t->window_sec;

	compute_classic_shares(t);
	if (!(cap > 0)) {
		for (size_t i = 0; i < t->n; i++)
			t->node[i].usage_efctv = 0.0;
		return -1;
	}
	for (size_t i = 0; i < t->n; i++)
		t->node[i].usage_efctv = t->node[i].usage / cap;
	for (size_t i = 1; i < t->n; i++) {
		int s = use_parent(t, (int)i) ? t->fs_parent[i] : (int)i;
		double p = t->node[s].shares_norm - t->node[s].usage_efctv;

		t->node[i].fs_factor = p < -1.0 ? -1.0 : (p > 1.0 ? 1.0 : p);
	}
	return 0;
}

int fw_fs_set_capacity(struct fw_fs_tree *t, double capacity)
{
	if (!t || !isfinite(capacity) || !(capacity > 0))
		return -1;
	t->capacity = capacity;
	return 0;
}

int fw_fs_compute(struct fw_fs_tree *t)
{
	int rc = 0;

	if (!t)
		return -1;
	if (t->dirty)
		rebuild_derived(t);
	compute_usage_norm(t);
	switch (t->formula) {
	case FW_FS_FORMULA_AUTO:
	case FW_FS_FORMULA_FAIR_TREE:
		compute_fair_tree(t);
		break;
	case FW_FS_FORMULA_CLASSIC:
		compute_classic(t, false);
		break;
	case FW_FS_FORMULA_DEPTH_OBLIVIOUS:
		compute_classic(t, true);
		break;
	case FW_FS_FORMULA_PROPORTIONAL:
		compute_proportional(t);
		break;
	case FW_FS_FORMULA_SHARE_MINUS_USAGE:
		rc = compute_share_minus_usage(t);
		break;
	}
	t->computed = true;
	return rc;
}

double fw_fs_factor(const struct fw_fs_tree *t, int node)
{
	return valid_node(t, node) ? t->node[node].fs_factor : 0.0;
}

int fw_fs_node_values(const struct fw_fs_tree *t, int node,
		      struct fw_fs_values *out)
{
	const struct fw_fs_node *x;

	if (!valid_node(t, node) || !out)
		return -1;
	x = &t->node[node];
	out->name = x->name;
	out->account = x->acct;
	out->parent = x->parent;
	out->is_user = x->is_user;
	out->shares_raw = x->shares;
	out->ext_id = x->ext_id;
	out->shares_norm = x->shares_norm;
	out->usage_raw = x->usage;
	out->usage_norm = x->usage_norm;
	out->usage_efctv = x->usage_efctv;
	out->level_fs = x->level_fs;
	out->fs_factor = x->fs_factor;
	return 0;
}

/* --------------------------------------------------------------- helpers */

static bool in_list(char *const *list, size_t n, const char *name, bool ci)
{
	for (size_t i = 0; i < n; i++)
		if (ci ? !strcasecmp(list[i], name) : !strcmp(list[i], name))
			return true;
	return false;
}

bool fw_fs_usage_counts(const struct fw_fs_conf *c, const char *partition,
			const char *qos)
{
	if (!c)
		return true;
	if (partition && partition[0] &&
	    in_list(c->excl_part, c->n_excl_part, partition, false))
		return false;
	if (qos && qos[0] && in_list(c->excl_qos, c->n_excl_qos, qos, true))
		return false;
	return true;
}

double fw_fs_apply_usage_factor(double units, double qos_usage_factor)
{
	/* Slurm applies the QOS UsageFactor only when it is >= 0 */
	return qos_usage_factor >= 0 ? units * qos_usage_factor : units;
}

const char *fw_fs_formula_name(enum fw_fs_formula f)
{
	switch (f) {
	case FW_FS_FORMULA_AUTO: return "priorityflags";
	case FW_FS_FORMULA_FAIR_TREE: return "fair_tree";
	case FW_FS_FORMULA_CLASSIC: return "classic";
	case FW_FS_FORMULA_DEPTH_OBLIVIOUS: return "depth_oblivious";
	case FW_FS_FORMULA_PROPORTIONAL: return "proportional";
	case FW_FS_FORMULA_SHARE_MINUS_USAGE: return "share_minus_usage";
	}
	return "?";
}
