/*
 * fw_slurm.h - helpers shared by Fairway's two Slurm plugins.
 *
 * Include after Slurm's headers.  Everything here is compiled into each
 * plugin separately (hidden visibility), so the two .so files share code but
 * no state.
 */
#ifndef FW_SLURM_H
#define FW_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fw_common.h"

struct fw_config;
struct fw_server;
struct job_record;

/* Symbols Slurm's plugin loader looks up must be visible. */
#define FW_EXPORT __attribute__((visibility("default")))

/*
 * True inside slurmctld (the executable exports build_job_queue), false in
 * client commands such as sshare that also load the priority plugin.
 * Unlike Slurm's running_in_slurmctld() this does not depend on argv[0]
 * being literally "slurmctld".
 */
bool fw_in_slurmctld(void);

/* Log a core error as one line naming file, line, key and value. */
void fw_log_err(const char *plugin, const struct fw_err *err);

/*
 * The whole policy configuration: Slurm's own parameters as slurmctld
 * parsed them (slurm_conf), then fairway.conf from the directory of
 * slurm.conf (a missing file means "no extensions").  Returns NULL with err
 * set (file, line, key, value) on any error.  Caller holds at least the
 * conf read lock, or runs where slurm_conf cannot change.
 *
 * An accepted configuration is kept in the state file
 * fairway_<service>_config.  When slurmctld re-executed itself for a
 * reconfigure (Slurm 23.11+) and the new configuration is rejected, the
 * kept one is returned instead with *kept set and err describing the
 * rejection: the previous configuration stays in effect, as on 22.05.
 */
struct fw_config *fw_slurm_load_config(const char *service, bool *kept,
				       struct fw_err *err);
/* True in a slurmctld that re-executed itself for a reconfigure. */
bool fw_slurm_reconfig_reexec(void);
/* Line of slurm.conf that sets key (the last one, Slurm's rule); 0 if it
 * is not set there (an Include'd file, or a default). */
int fw_slurm_conf_line(const char *key);
/* Path of fairway.conf beside slurm.conf (malloc'd). */
char *fw_slurm_fairway_conf_path(void);

/*
 * Serve the fairway command for one plugin: on the abstract socket of this
 * cluster's "service" ("prio" or "sched") and, when FairwayPort is set, on
 * TCP port FairwayPort + port_offset with MUNGE authentication (MUNGE's
 * socket from AuthInfo).  Failures are logged (the plugin keeps scheduling);
 * returns NULL then.  The handler is an fw_server_handler.
 */
struct fw_server *fw_slurm_serve(const char *plugin, const char *service,
				 const struct fw_config *c, unsigned port_offset,
				 char *(*handler)(uid_t, const char *));

/*
 * True if uid may see job the way squeue would under PrivateData=jobs: the
 * job's owner, operators and administrators, and coordinators of the job's
 * account.  Call it with NO assoc_mgr lock held: Slurm's operator check
 * (validate_operator) takes assoc_mgr's user write lock when it has no user
 * list yet (no slurmdbd), and the coordinator check its read lock.
 */
bool fw_job_visible_to(const struct job_record *job, uid_t uid);

/*
 * Plugin state files under StateSaveLocation.  Writes are atomic: the data
 * goes to NAME.new, is fsync'ed, the previous file is kept as NAME.old, the
 * new one renamed over NAME and the directory fsync'ed, so a crash leaves
 * either the old or the new version, never a torn one.  Files are 0600.
 * Returns 0, or -1 with a reason in errbuf.
 */
int fw_state_write(const char *name, const char *buf, size_t len,
		   char *errbuf, size_t errlen);
/*
 * Read NAME (malloc'd, NUL-terminated).  Returns 1 if read, 0 if there is
 * no such file, -1 on a read error (errbuf).
 */
int fw_state_read(const char *name, char **buf, size_t *len, char *errbuf,
		  size_t errlen);
/* FNV-1a 64 checksum of a state file's contents. */
uint64_t fw_state_checksum(const char *buf, size_t len);
/* Keep a bad state file aside as NAME.corrupt-<epoch>; path in keptbuf. */
int fw_state_quarantine(const char *name, char *keptbuf, size_t keptlen);

#endif /* FW_SLURM_H */
