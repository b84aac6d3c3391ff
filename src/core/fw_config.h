/*
 * fw_config.h - one configuration for the whole policy: the factor model
 * (fw_prio), fair-share (fw_fairshare) and the planner (fw_plan).
 *
 * Two sources feed it, and the plugins and the simulator feed it the same way:
 *  - slurm.conf keys, with Slurm's names and meanings (PriorityWeightAge,
 *    PriorityFlags, PriorityDecayHalfLife, SchedulerParameters, ...):
 *    fw_config_slurm() for one key, fw_config_load_slurm_conf() for a file;
 *  - fairway.conf for what Slurm has no concept of: fw_config_load_file().
 *    Every line is offered to every module; a pair no module consumes is an
 *    error, and a Slurm-native key is an error that says to set it in
 *    slurm.conf.
 * Errors name file, line, key and value; nothing falls back to a default.
 */
#ifndef FW_CONFIG_H
#define FW_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "fw_common.h"
#include "fw_fairshare.h"
#include "fw_plan.h"
#include "fw_prio.h"

struct fw_config {
	struct fw_prio_conf *prio;
	struct fw_fs_conf *fs;
	struct fw_plan_conf *plan;
	/*
	 * FairwayPort: TCP port on the controller where priority/fairway
	 * answers the fairway command from other hosts (sched/fairway uses
	 * the next port); 0 = only on the controller host (abstract socket).
	 */
	uint16_t service_port;
	bool finished;
	/* Where each key=value came from, to locate cross-check errors. */
	struct fw_config_origin *origin;
	size_t norigin, origin_cap;
};

struct fw_config *fw_config_new(void);
void fw_config_free(struct fw_config *c);

/*
 * One slurm.conf key.  FW_CONF_OK if some module uses it, FW_CONF_UNKNOWN
 * if none does (most slurm.conf keys), FW_CONF_ERR for a bad value.
 */
int fw_config_slurm(struct fw_config *c, const char *key, const char *value,
		    struct fw_err *err);
/*
 * fw_config_slurm() for a key read from `file` at `line` (line 0: unknown):
 * an error is located there, and so is a later cross-check error of
 * fw_config_finish() about this key.
 */
int fw_config_slurm_at(struct fw_config *c, const char *key,
		       const char *value, const char *file, int line,
		       struct fw_err *err);
/*
 * A slurm.conf file: every single-key line goes to fw_config_slurm()
 * (NodeName=, PartitionName= and other record lines are skipped: the
 * cluster is built by the caller); Include lines are followed.
 */
int fw_config_load_slurm_conf(struct fw_config *c, const char *path,
			      struct fw_err *err);

/* fairway.conf from a file, or from memory (name is used in errors). */
int fw_config_load_file(struct fw_config *c, const char *path,
			struct fw_err *err);
int fw_config_load_buf(struct fw_config *c, const char *name, const char *buf,
		       size_t len, struct fw_err *err);
/* One fairway.conf line (tokenized by the caller), as the loaders do. */
int fw_config_line(struct fw_config *c, const struct fw_kv *kv,
		   struct fw_err *err);

/*
 * After all input: every module's cross-checks.  An error about a key is
 * located at the file and line that set it (fairway.conf lines, slurm.conf
 * files and fw_config_slurm_at() keys are remembered).
 */
int fw_config_finish(struct fw_config *c, struct fw_err *err);

/* True for keys that belong in slurm.conf, not in fairway.conf. */
bool fw_config_is_slurm_key(const char *key);

#endif /* FW_CONFIG_H */
