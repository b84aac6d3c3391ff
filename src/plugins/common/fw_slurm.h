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

#include "fw_common.h"

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

#endif /* FW_SLURM_H */
