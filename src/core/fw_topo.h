/*
 * fw_topo.h - topology.conf of Slurm's topology/tree, and the islands it
 * gives: the one reader shared by sched/fairway (every Slurm release) and
 * fairway-sim.
 *
 * The file (topology.conf(5)): one switch per line,
 *
 *     SwitchName=NAME Nodes=HOSTLIST   [LinkSpeed=N]   a leaf switch
 *     SwitchName=NAME Switches=NAMES   [LinkSpeed=N]   an upper switch
 *
 * keys case-insensitive, '#' comments, '\' continues a line.  What
 * Slurm's topology/tree refuses to start with is an error here, located
 * (file, line, key, value): a line that is not a SwitchName line, an
 * unknown key, both or neither of Nodes=/Switches=, a switch defined
 * twice, a child switch no line defines (or the switch itself), switches
 * that form a cycle, a bad hostlist or LinkSpeed, an Include line (not
 * read by Fairway).  What Slurm accepts with a warning is a warning here:
 * Nodes= names that are not nodes of the cluster (ignored), nodes under
 * several leaf switches (Fairway keeps the first), nodes under none.
 *
 * Islands are the leaf switches (those with Nodes=), numbered 0, 1, ... in
 * the order of their lines; a node's island is the leaf switch that names
 * it, -1 if none does.  Upper switches are read and checked (the file must
 * be one Slurm accepts) but make no islands.
 */
#ifndef FW_TOPO_H
#define FW_TOPO_H

#include <stdint.h>

#include "fw_common.h"

/* Guards against a malformed file exhausting memory ("n[1-999999999]"). */
#define FW_TOPO_MAX_NAMES 1000000u   /* node + child names, whole file */
#define FW_TOPO_MAX_SWITCHES 65535u  /* Slurm indexes switches in 16 bits */
#define FW_TOPO_NAME_MAX 64          /* Slurm: SwitchName <= HOST_NAME_MAX */

struct fw_topo_switch {
	char *name;
	int line;             /* line of its SwitchName= */
	int level;            /* 0 leaf, else 1 + the highest child's level */
	uint32_t link_speed;  /* LinkSpeed=, 1 if not given (as Slurm) */
	char **nodes;         /* leaf: Nodes= expanded, in file order */
	uint32_t nnodes;
	char *nodes_expr;     /* leaf: Nodes= as written */
	uint32_t *child;      /* upper: switch indices of Switches= */
	uint32_t nchild;
	char *switches_expr;  /* upper: Switches= as written */
	int32_t island;       /* leaf: its island number; upper: -1 */
};

struct fw_topo {
	char *file;                 /* name used in errors and warnings */
	struct fw_topo_switch *sw;  /* in file order */
	uint32_t nsw;
	uint32_t nislands;          /* leaf switches */
	uint32_t *island_sw;        /* island number -> index in sw[] */
	int levels;                 /* highest level (0: leaf switches only) */
};

/*
 * Parse a whole topology.conf held in memory; `file` names it in errors.
 * Returns the topology (an empty file gives one with no switches) or NULL
 * with err set.
 */
struct fw_topo *fw_topo_parse(const char *file, const char *buf, size_t len,
			      struct fw_err *err);
/* Same from a file (err names the file if it cannot be read). */
struct fw_topo *fw_topo_read(const char *path, struct fw_err *err);
void fw_topo_free(struct fw_topo *t);

/* What fw_topo_islands() found that Slurm only warns about.  The first
 * case of each kind is located; its msg ends with the total count. */
struct fw_topo_warn {
	uint32_t unknown;          /* Nodes= names that are not nodes */
	struct fw_err first_unknown;
	uint32_t multi;            /* nodes under more than one leaf switch */
	struct fw_err first_multi;
	uint32_t outside;          /* nodes under no leaf switch */
};

/*
 * The island of each node of the cluster: names[i] is node i's name (NULL
 * for an empty slot), island[i] receives its island number or -1.  Node
 * names compare case-sensitively, as Slurm's do.  w (may be NULL) gets the
 * warnings.  Returns the number of islands that hold at least one node.
 */
uint32_t fw_topo_islands(const struct fw_topo *t, const char *const *names,
			 uint32_t nnodes, int32_t *island,
			 struct fw_topo_warn *w);

/* Name of island k (its leaf switch). */
const char *fw_topo_island_name(const struct fw_topo *t, uint32_t k);

#endif /* FW_TOPO_H */
