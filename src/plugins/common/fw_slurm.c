/*
 * fw_slurm.c - helpers shared by Fairway's Slurm plugins.
 */
#include "config.h"

#include <dlfcn.h>

#include "src/common/log.h"

#include "fw_slurm.h"

bool fw_in_slurmctld(void)
{
	return dlsym(RTLD_DEFAULT, "build_job_queue") != NULL;
}

void fw_log_err(const char *plugin, const struct fw_err *err)
{
	char buf[1024];

	error("%s: %s", plugin, fw_err_str(err, buf, sizeof(buf)));
}
