/*
 * fw_fairshare.h - fair-share: account tree, usage with decay, formulas.
 *
 * One implementation of fair-share shared by priority/fairway (which mirrors
 * Slurm's association tree from assoc_mgr, or keeps its own ledger when there
 * is no slurmdbd) and by the simulator.
 *
 *   conf   struct fw_fs_conf: formula, decay, exclusions, tree definitions
 *          read from slurm.conf keys and fairway.conf lines.
 *   tree   struct fw_fs_tree: root, accounts (any depth) and users (leaves;
 *          the same user may sit under several accounts), each with raw
 *          shares, decayed usage and the values sshare shows.
 *
 * Typical cycle (every PriorityCalcPeriod, under the caller's lock):
 *
 *     fw_fs_advance(tree, now);                    decay all usage to now
 *     for each running job:
 *         fw_fs_charge(tree, node, units, last, now);
 *     fw_fs_compute(tree);                         all factors, O(nodes)
 *     ... fw_fs_factor(tree, node) per job          O(1)
 *
 * Usage is in billable units x seconds (the adapter decides the units:
 * allocated CPUs by default, Slurm's TRESBillingWeights in the plugin).
 * Node handles are small integers (0 is root); they stay valid for the
 * tree's lifetime because nodes are only ever added.  To drop nodes, build a
 * new tree and carry usage over with fw_fs_tree_carry_usage().
 *
 * Nothing here is thread-safe: the caller serialises access.
 */
#ifndef FW_FAIRSHARE_H
#define FW_FAIRSHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_common.h"

/* Slurm's SLURMDB_FS_USE_PARENT: "Shares=parent". */
#define FW_FS_USE_PARENT 0x7FFFFFFFu
/* Largest ordinary raw share value. */
#define FW_FS_SHARES_MAX (FW_FS_USE_PARENT - 1u)
/* Largest FairShareWindowCount (keeps the ring small: nodes x count). */
#define FW_FS_WINDOW_COUNT_MAX 1000

/* ------------------------------------------------------------ configuration */

enum fw_fs_formula {
	FW_FS_FORMULA_AUTO = 0,     /* from PriorityFlags (Slurm's default) */
	FW_FS_FORMULA_FAIR_TREE,    /* rank / users, 0..1 (users only) */
	FW_FS_FORMULA_CLASSIC,      /* 2^(-(Ue/S)/damp), 0..1 */
	FW_FS_FORMULA_DEPTH_OBLIVIOUS, /* classic with Slurm's DEPTH_OBLIVIOUS Ue */
	FW_FS_FORMULA_PROPORTIONAL, /* MAX*(1-U_project/U_total), 0..MAX */
	FW_FS_FORMULA_SHARE_MINUS_USAGE, /* S - U, clamped to -1..1 */
};

enum fw_fs_decay {
	FW_FS_DECAY_HALFLIFE = 0,   /* exponential, PriorityDecayHalfLife */
	FW_FS_DECAY_WINDOW,         /* sum_k D^k * usage(window now-k) */
};

/* PriorityUsageResetPeriod, with Slurm's names and boundaries. */
enum fw_fs_reset {
	FW_FS_RESET_NONE = 0,
	FW_FS_RESET_NOW,
	FW_FS_RESET_DAILY,
	FW_FS_RESET_WEEKLY,
	FW_FS_RESET_MONTHLY,
	FW_FS_RESET_QUARTERLY,
	FW_FS_RESET_YEARLY,
};

/* What a job of an account (or user) the tree does not know is charged to. */
enum fw_fs_unknown {
	FW_FS_UNKNOWN_CREATE = 0,   /* create account under root, user under it */
	FW_FS_UNKNOWN_ROOT,         /* create the user directly under root */
	FW_FS_UNKNOWN_IGNORE,       /* no node: not charged, factor 0 */
};

struct fw_fs_account_def {
	char *name;
	char *parent;               /* "root" when not given */
	uint32_t shares;            /* FW_FS_USE_PARENT for "parent" */
};

struct fw_fs_user_def {
	char *name;
	char *account;
	uint32_t shares;
};

/*
 * All fields are public for the dispatcher, adapters and tests; fill them
 * through the fw_fs_conf_* functions.  The *_set flags record keys that were
 * given explicitly, for the cross-checks in fw_fs_conf_finish().
 */
struct fw_fs_conf {
	/* slurm.conf */
	int64_t halflife_sec;       /* PriorityDecayHalfLife, default 7 days; 0 = none */
	enum fw_fs_reset reset;     /* PriorityUsageResetPeriod, default NONE */
	uint32_t damp;              /* FairShareDampeningFactor, default 1 */
	bool flag_no_fair_tree;     /* PriorityFlags NO_FAIR_TREE */
	bool flag_depth_oblivious;  /* PriorityFlags DEPTH_OBLIVIOUS */
	bool reset_set;             /* PriorityUsageResetPeriod given */
	bool tree_flag_named;       /* PriorityFlags names FAIR_TREE,
				       NO_FAIR_TREE or DEPTH_OBLIVIOUS */
	/* fairway.conf */
	enum fw_fs_formula formula_conf; /* as written (AUTO = follow flags) */
	enum fw_fs_formula formula; /* effective, set by fw_fs_conf_finish() */
	double max;                 /* FairShareMax, default 1e6 */
	enum fw_fs_decay decay;     /* FairShareDecay, default halflife */
	int64_t window_sec;         /* FairShareWindow, default 1 day */
	uint32_t window_count;      /* FairShareWindowCount, default 7 */
	double window_factor;       /* FairShareWindowFactor, default 0.7 */
	double capacity;            /* FairShareCapacity units; 0 = adapter sets */
	enum fw_fs_unknown unknown; /* FairShareUnknownAccount, default create */
	uint32_t unknown_shares;    /* FairShareUnknownShares, default 1 */
	bool max_set, window_set, window_count_set, window_factor_set,
		capacity_set;
	char **excl_part;           /* FairShareExcludePartitions */
	size_t n_excl_part;
	char **excl_qos;            /* FairShareExcludeQOS */
	size_t n_excl_qos;
	/* Account= and User= entity lines */
	struct fw_fs_account_def *acct;
	size_t n_acct, cap_acct;
	struct fw_fs_user_def *user;
	size_t n_user, cap_user;
};

struct fw_fs_conf *fw_fs_conf_new(void);
void fw_fs_conf_free(struct fw_fs_conf *c);
/* One tokenized fairway.conf line (see FW_CONF_* in fw_common.h). */
int fw_fs_conf_line(struct fw_fs_conf *c, const struct fw_kv *kv, bool *used,
		    struct fw_err *err);
/* One slurm.conf key (PriorityDecayHalfLife, PriorityUsageResetPeriod,
 * FairShareDampeningFactor, PriorityFlags). */
int fw_fs_conf_slurm(struct fw_fs_conf *c, const char *key, const char *value,
		     struct fw_err *err);
/* Cross-field checks; resolves the effective formula. */
int fw_fs_conf_finish(struct fw_fs_conf *c, struct fw_err *err);

/*
 * Whether a job's usage counts (FairShareExcludePartitions /
 * FairShareExcludeQOS; seed 000: jobs in qexp do not count).  Partition
 * names compare case-sensitively, QOS names case-insensitively (as Slurm
 * stores them).  NULL or "" never matches an exclusion.
 */
bool fw_fs_usage_counts(const struct fw_fs_conf *c, const char *partition,
			const char *qos);
/* Slurm's QOS UsageFactor: units * factor when factor >= 0, else units. */
double fw_fs_apply_usage_factor(double units, double qos_usage_factor);

const char *fw_fs_formula_name(enum fw_fs_formula f);

/* ---------------------------------------------------------------------- tree */

struct fw_fs_tree;

/* A tree holding only root, with the parameters of a finished conf. */
struct fw_fs_tree *fw_fs_tree_new(const struct fw_fs_conf *conf);
void fw_fs_tree_free(struct fw_fs_tree *t);
/* Add the Account=/User= definitions of fairway.conf (no slurmdbd). */
int fw_fs_tree_add_conf_defs(struct fw_fs_tree *t, const struct fw_fs_conf *conf,
			     struct fw_err *err);

/*
 * Add an account under parent (NULL or "root" = under root), or a user
 * under an account ("root" allowed).  Parents must exist (Slurm's
 * assoc_mgr list is hierarchically sorted, so adding in list order works).
 * ext_id is the adapter's id (Slurm assoc id), 0 = none.  Returns the node
 * handle, or -1 with err set (duplicate, unknown parent, bad shares,
 * duplicate ext id).  Account names compare case-insensitively (Slurm
 * lower-cases them), user names exactly.
 */
int fw_fs_add_account(struct fw_fs_tree *t, const char *name,
		      const char *parent, uint32_t shares, uint32_t ext_id,
		      struct fw_err *err);
int fw_fs_add_user(struct fw_fs_tree *t, const char *account, const char *user,
		   uint32_t shares, uint32_t ext_id, struct fw_err *err);
/* Change raw shares (assoc_mgr update); takes effect at the next compute. */
int fw_fs_set_shares(struct fw_fs_tree *t, int node, uint32_t shares);
/* Attach an external id to a node (e.g. root's assoc id); 0 clears. */
int fw_fs_set_ext_id(struct fw_fs_tree *t, int node, uint32_t ext_id);

/* Lookups, O(1) expected.  -1 when absent. */
int fw_fs_find_account(const struct fw_fs_tree *t, const char *account);
int fw_fs_find_user(const struct fw_fs_tree *t, const char *account,
		    const char *user);
int fw_fs_find_ext(const struct fw_fs_tree *t, uint32_t ext_id);
/*
 * The node a job of (account, user) is charged to and takes its factor
 * from, applying FairShareUnknownAccount: a missing user of a known account
 * is created under it (Shares=FairShareUnknownShares); a missing account is
 * created under root (create), or the user is placed under root (root), or
 * -1 is returned (ignore).  An empty account means root.  When nodes are
 * created the factors are recomputed (O(nodes), rare).
 */
int fw_fs_resolve(struct fw_fs_tree *t, const char *account, const char *user);

size_t fw_fs_node_count(const struct fw_fs_tree *t);
size_t fw_fs_user_count(const struct fw_fs_tree *t);

/* ------------------------------------------------------------------ usage */

/*
 * Charge units (billable units, >= 0) used during [t0, t1) to node and every
 * ancestor up to root.  Decay is integrated exactly over the interval, so one
 * call for a long interval equals many calls for its slices.  If t1 is later
 * than the tree's clock the tree is first advanced to t1; the part of the
 * interval before the last usage reset (or older than the window ring) is
 * dropped.  Returns 0, or -1 for a bad node, negative/non-finite units or
 * t1 < t0.
 */
int fw_fs_charge(struct fw_fs_tree *t, int node, double units, fw_time_t t0,
		 fw_time_t t1);
/*
 * Bring all usage to time now: decay (half-life or window shift) and usage
 * resets at PriorityUsageResetPeriod boundaries.  O(nodes).  A time not
 * later than the clock changes nothing.  The first call only starts the
 * clock (and performs PriorityUsageResetPeriod=NOW).
 */
void fw_fs_advance(struct fw_fs_tree *t, fw_time_t now);
fw_time_t fw_fs_clock(const struct fw_fs_tree *t);
fw_time_t fw_fs_last_reset(const struct fw_fs_tree *t);
/*
 * A (re)configuration happened: with PriorityUsageResetPeriod=NOW the next
 * advance resets usage again (slurmctld resets at start and at every
 * reconfigure).  A new tree is armed already; a carried-over tree is not.
 */
void fw_fs_rearm_reset_now(struct fw_fs_tree *t);

/* ------------------------------------------------------------- formulas */

/*
 * share_minus_usage: billable units the cluster provides (e.g. its CPUs, or
 * nodes when the adapter charges nodes).  U = usage / (capacity x window).
 * Overrides FairShareCapacity.  Returns -1 if capacity is not > 0.
 */
int fw_fs_set_capacity(struct fw_fs_tree *t, double capacity);
/*
 * Recompute every node's shares_norm, usage_norm, usage_efctv, level_fs and
 * fs_factor from the current usage.  O(nodes) (Fair Tree adds sorting of
 * sibling lists).  Returns 0, or -1 when share_minus_usage has no capacity
 * (all factors are then 0).
 */
int fw_fs_compute(struct fw_fs_tree *t);
/* The hot path: node's factor from the last compute (0 for node -1). */
double fw_fs_factor(const struct fw_fs_tree *t, int node);
enum fw_fs_formula fw_fs_tree_formula(const struct fw_fs_tree *t);

/* What sshare -l shows for one node. */
struct fw_fs_values {
	const char *name;        /* account name, or user name */
	const char *account;     /* a user's account; an account's own name */
	int parent;              /* parent handle, -1 for root */
	bool is_user;
	uint32_t shares_raw;     /* FW_FS_USE_PARENT for "parent" */
	uint32_t ext_id;
	double shares_norm;
	double usage_raw;        /* decayed, billable unit-seconds */
	double usage_norm;       /* usage_raw / root usage_raw, <= 1 */
	double usage_efctv;
	double level_fs;         /* Fair Tree only, else 0 */
	double fs_factor;
};
int fw_fs_node_values(const struct fw_fs_tree *t, int node,
		      struct fw_fs_values *out);

/* ------------------------------------------------------------------ state */

/*
 * Text state: version, clock, last reset, decay parameters, then every
 * node's usage (and window ring) by account path and user, then a checksum.
 * Save returns a malloc'd buffer (caller frees; the plugin writes it
 * atomically).  Load carries usage onto the tree's current nodes, matched by
 * account path (+ user); nodes not in the tree are dropped and counted in
 * *dropped (may be NULL).  Load is all-or-nothing: on corrupt, truncated or
 * unsupported input it returns -1 with err naming the line and reason, and
 * the tree is unchanged.
 */
char *fw_fs_state_save(const struct fw_fs_tree *t, size_t *len);
int fw_fs_state_load(struct fw_fs_tree *t, const char *buf, size_t len,
		     size_t *dropped, struct fw_err *err);
/*
 * Carry usage from an old tree onto a freshly built one (same matching as
 * state load): clock, last reset and window position come along, and so
 * does a PriorityUsageResetPeriod=NOW that src performed already (dst does
 * not reset again: rebuilding the tree is no reconfiguration).  Returns the
 * number of src nodes that had no match.
 */
size_t fw_fs_tree_carry_usage(struct fw_fs_tree *dst,
			      const struct fw_fs_tree *src);

#endif /* FW_FAIRSHARE_H */
