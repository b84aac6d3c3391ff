/*
 * fairway-sim's cluster input: slurm.conf (nodes, partitions, licenses and
 * the scheduling keys, which go on to fw_config_slurm() when the core is
 * built), then topology.conf after a line "#%topology.conf".  Include lines
 * name files relative to a directory that does not exist.
 */
#include "fuzz_util.h"
#include "sim_cluster.h"
#include "sim_core.h"

#define NAME "/nonexistent-fuzz/slurm.conf"
#define TOPO "/nonexistent-fuzz/topology.conf"

static void build_core(const struct sim_cluster *cl)
{
	struct fw_err err = { 0 };
	struct sim_core *k = sim_core_new(cl, NULL, SIM_POLICY_FAIRWAY, &err);

	if (!k) {
		fuzz_check_rejection(&err, NULL);
		return;
	}
	if (sim_core_finish(k, &err))
		fuzz_check_rejection(&err, NULL);
	sim_core_free(k);
}

FUZZ_ENTRY(slurm_conf)
{
	const char *buf = (const char *)data, *topo;
	size_t conf_len, topo_len;
	struct sim_cluster cl;
	struct fw_err err = { 0 };

	fuzz_split(buf, size, "#%topology.conf", &conf_len, &topo, &topo_len);
	sim_cluster_init(&cl);
	if (sim_read_slurm_conf_mem(&cl, NAME, buf, conf_len, &err)) {
		fuzz_check_rejection(&err, "");
	} else if (sim_cluster_finish(&cl, &err)) {
		fuzz_check_rejection(&err, "");
	} else if (topo_len && sim_read_topology_mem(&cl, TOPO, topo, topo_len, &err)) {
		fuzz_check_rejection(&err, TOPO);
	} else {
		build_core(&cl);
	}
	sim_cluster_free(&cl);
	return 0;
}
