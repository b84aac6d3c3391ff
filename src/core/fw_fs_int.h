/*
 * fw_fs_int.h - internals of the fair-share module shared by its source
 * files (tree/usage/formulas, configuration, state).  Not for adapters.
 */
#ifndef FW_FS_INT_H
#define FW_FS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fw_fairshare.h"

/* "No time": clock not started, no reset anchor, usage never zeroed. */
#define FW_FS_NO_TIME INT64_MIN
/* Slurm's NO_VAL as Fair Tree's sort key of Shares=parent accounts. */
#define FW_FS_NO_VAL_LEVEL 4294967294.0

struct fw_fs_node {
	char *name;          /* account name, or user name */
	const char *acct;    /* own name for accounts, parent's for users */
	int parent;          /* -1 for root */
	bool is_user;
	uint32_t shares;
	uint32_t ext_id;
	double usage;        /* decayed usage at the tree's clock */
	double shares_norm, usage_norm, usage_efctv, level_fs, fs_factor;
};

/* Open-addressing index of node handles (slot -1 = empty). */
struct fw_fs_index {
	int *slot;
	size_t mask;         /* size - 1, size a power of two */
	size_t used;
};

/* One sibling while sorting for Fair Tree. */
struct fw_fs_sort_ent {
	double key;
	int is_user;
	int idx;
	const char *name;
};

struct fw_fs_tree {
	/* parameters copied from the conf */
	enum fw_fs_formula formula;
	enum fw_fs_decay decay;
	int64_t halflife;        /* seconds, 0 = no decay */
	double tau;              /* halflife / ln 2 */
	int64_t window_sec;
	uint32_t window_count;
	double window_factor;
	double *dpow;            /* window_factor^k, k < window_count */
	double damp, max, capacity;
	enum fw_fs_reset reset;
	bool reset_now_pending;
	enum fw_fs_unknown unknown;
	uint32_t unknown_shares;

	/* decay clock */
	bool started;
	fw_time_t clock;
	int64_t cur_window;      /* fw_fs_window_at(clock) */
	fw_time_t reset_anchor;  /* Slurm's last_reset: next boundary from it */
	fw_time_t next_reset;    /* cached boundary after reset_anchor */
	fw_time_t zeroed_at;     /* usage before this instant is gone */

	/* nodes: handles are indexes; parents always precede children */
	struct fw_fs_node *node;
	size_t n, cap;
	double *bins;            /* window mode: n x window_count ring */
	size_t n_users;
	struct fw_fs_index by_name;
	struct fw_fs_index by_ext;

	/* derived from the structure, rebuilt when dirty */
	bool dirty;
	int *fs_parent;          /* first ancestor that is not Shares=parent */
	int *kid_off, *kids;     /* fs-children of every node (CSR) */
	uint64_t *kid_shares;    /* sum of their raw shares (Shares=parent: 0) */
	double *chain, *sib_norm; /* compute scratch */
	struct fw_fs_sort_ent *sort;
	bool computed;
};

/* Ring slot of an absolute window number. */
static inline size_t fw_fs_slot(const struct fw_fs_tree *t, int64_t w)
{
	int64_t m = w % (int64_t)t->window_count;

	return (size_t)(m < 0 ? m + (int64_t)t->window_count : m);
}

/* floor(a / b) for b > 0 */
static inline int64_t fw_fs_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

/*
 * The current window at time `clock`: the one holding the last elapsed
 * second, clock - 1.  Window k covers [k*W, (k+1)*W), so at midnight the
 * day that just ended is still "today" (the primer's daily accounting);
 * from the next second on it is "yesterday".
 */
static inline int64_t fw_fs_window_at(const struct fw_fs_tree *t,
				      fw_time_t clock)
{
	return fw_fs_floordiv(clock - 1, t->window_sec);
}

enum fw_fs_formula fw_fs_effective_formula(const struct fw_fs_conf *c);
/* Does node i (account or user) have the same account path (and user) as
 * node j of another tree? */
bool fw_fs_same_path(const struct fw_fs_tree *a, int i,
		     const struct fw_fs_tree *b, int j);
/* Recompute every node's decayed usage from its window ring. */
void fw_fs_window_refresh(struct fw_fs_tree *t);

#endif /* FW_FS_INT_H */
