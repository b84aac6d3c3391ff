/*
 * fw_prio_int.h - the prio module's configuration layout, shared by its
 * parser (fw_prio_conf.c), the computation (fw_prio.c) and the explain
 * formatter.  Not for adapters: they use the accessors in fw_prio.h.
 */
#ifndef FW_PRIO_INT_H
#define FW_PRIO_INT_H

#include "fw_boost.h"
#include "fw_prio.h"

/*
 * Terms are ordered by group: group g holds terms
 * [fw_prio_group_first[g], fw_prio_group_first[g + 1]).
 */
static const int fw_prio_group_first[FW_PRIO_NGROUPS + 1] = {
	[FW_PRIO_G_SLURM] = FW_PRIO_T_AGE,
	[FW_PRIO_G_CRED] = FW_PRIO_T_CRED_USER,
	[FW_PRIO_G_FS] = FW_PRIO_T_FS,
	[FW_PRIO_G_RES] = FW_PRIO_T_NODES,
	[FW_PRIO_G_SERVICE] = FW_PRIO_T_QUEUE_TIME,
	[FW_PRIO_G_TARGET] = FW_PRIO_T_TARGET_QUEUE_TIME,
	[FW_PRIO_G_USAGE] = FW_PRIO_T_CONSUMED,
	[FW_PRIO_G_BOOST] = FW_PRIO_T_BOOST,
	[FW_PRIO_G_BASE] = FW_PRIO_T_BASE,
	[FW_PRIO_NGROUPS] = FW_PRIO_NTERMS,
};

/* Entity attributes set (duplicate detection and cross-checks). */
enum {
	FW_ENT_PRIORITY = 1u << 0,
	FW_ENT_BASE = 1u << 1,
	FW_ENT_GROWTH = 1u << 2,
	FW_ENT_BASE_MAX = 1u << 3,
	FW_ENT_QT_WEIGHT = 1u << 4,
	FW_ENT_XF_WEIGHT = 1u << 5,
	FW_ENT_TARGET_QT = 1u << 6,
	FW_ENT_TARGET_XF = 1u << 7,
};

struct fw_prio_entity {
	char *name;
	unsigned set;          /* FW_ENT_* given in fairway.conf */
	double priority;       /* credential priority (CRED group) */
	double base;           /* BasePriority */
	double growth;         /* GrowthPerMinute */
	double base_max;       /* BasePriorityMax, INFINITY if none */
	double qt_weight;      /* QueueTimeWeight (QOS) */
	double xf_weight;      /* XFactorWeight (QOS) */
	double target_qt_sec;  /* TargetQueueTime (QOS), 0 = none */
	double target_xf;      /* TargetXFactor (QOS), 0 = none */
};

/* Name -> index, open addressing (power-of-two table of index+1, 0 empty). */
struct fw_prio_names {
	int n, cap;
	struct fw_prio_entity *e;
	int *slot;
	int nslot;
};

struct fw_prio_boost {
	char *name;
	int sel[FW_PRIO_NKINDS];  /* entity index per selector kind, -1 = any */
	double priority;
	char *when_spec;
	struct fw_when when;
};

struct fw_prio_tres_weight {
	char *name;     /* as written: "cpu", "gres/gpu" */
	double weight;  /* per base unit */
	int idx;        /* index in the bound TRES list */
};

struct fw_prio_conf {
	/* slurm.conf */
	uint32_t flags;
	bool favor_small;
	int64_t max_age_sec;
	int64_t calc_period_sec;
	char *tres_weights_str;

	/* fairway.conf */
	double weight[FW_PRIO_NTERMS];
	double cap[FW_PRIO_NTERMS];        /* INFINITY = none */
	bool weight_set[FW_PRIO_NTERMS];
	bool cap_set[FW_PRIO_NTERMS];
	double gweight[FW_PRIO_NGROUPS];
	double gcap[FW_PRIO_NGROUPS];
	bool gweight_set[FW_PRIO_NGROUPS];
	bool gcap_set[FW_PRIO_NGROUPS];
	double scale;
	bool scale_set;
	int64_t xf_min_sec;
	bool xf_min_set;
	double xf_width_exp;               /* XFWidthExponent (0: none) */
	bool xf_width_set;
	int64_t starve_sec;                /* StarvationThreshold */
	bool starve_set;
	int64_t recalc_sec;                /* RecalcPeriod (seconds allowed) */
	bool recalc_set;
	enum fw_prio_accrue_policy accrue;
	bool accrue_set;
	uint32_t accrue_max_user, accrue_max_account;
	bool accrue_max_user_set, accrue_max_account_set;

	struct fw_prio_names ent[FW_PRIO_NKINDS];
	int nboost;
	struct fw_prio_boost *boost;

	/* PriorityWeightTRES, and its binding to the adapter's TRES list */
	int ntw;
	struct fw_prio_tres_weight *tw;
	int ntres;
	char **tres_names;
	bool tres_bound;

	/* derived by finish */
	bool finished;
	bool any_base, any_target, any_boost;
	bool multifactor;                  /* fw_prio_multifactor() */
	int tw_order[FW_PRIO_MAX_TRES];    /* weighted TRES by bound index */
};

/* A term's weight when nothing configures it (1 for points, -1 for Nice). */
double fw_prio_term_default_weight(enum fw_prio_term t);

#endif /* FW_PRIO_INT_H */
