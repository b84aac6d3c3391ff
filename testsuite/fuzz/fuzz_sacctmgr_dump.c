/* sacctmgr dump files (Cluster/Parent/Account/User/QOS lines) for fairway-sim. */
#include "fuzz_util.h"
#include "sim_cluster.h"

#define NAME "fuzz.cfg"

FUZZ_ENTRY(sacctmgr_dump)
{
	struct sim_assocs a;
	struct fw_err err = { 0 };

	sim_assocs_init(&a);
	if (sim_read_sacctmgr_dump_mem(&a, NAME, (const char *)data, size, &err))
		fuzz_check_rejection(&err, NAME);
	sim_assocs_free(&a);
	return 0;
}
