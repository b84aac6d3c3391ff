/*
 * sf_cluster.c - sched/fairway: the planner's cluster from slurmctld's
 * node, partition, topology and license tables.
 *
 * Planner node index == Slurm node index (node_record_table_ptr position),
 * so node sets convert word by word.  Absent slots of the node table (it is
 * padded up to MaxNodeCount) become unusable placeholder nodes.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "slurm/slurm.h"

#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/licenses.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_slurm.h"
#include "sf.h"

/*
 * Copying node sets word by word.  Slurm's bitstr_t is an array of 64-bit
 * words: a few header words (how many is private to Slurm and changed over
 * releases), then the bits, bit i being (1 << (i % 64)) of data word i / 64
 * on little-endian hosts - the layout of struct fw_bitset.  Rather than
 * assume the header size, sf_bitcopy_selftest() finds the first data word
 * by setting a known pattern through Slurm's API, then checks a full copy
 * against bit_test(); if either fails the copy goes bit by bit through the
 * public API.  sf.bit_word_off is the data offset in words, -1 for "slow".
 */
#define SF_PROBE_WORDS 8

void sf_bits_from_slurm(struct fw_bitset *dst, bitstr_t *src)
{
	uint32_t n;

	fw_bitset_clear_all(dst);
	if (!src)
		return;
	n = (uint32_t)bit_size(src);
	if (n > dst->nbits)
		n = dst->nbits;
	if (sf.bit_word_off >= 0) {
		memcpy(dst->w, (const uint64_t *)src + sf.bit_word_off,
		       FW_BITSET_WORDS(n) * 8);
		if (n % 64 && FW_BITSET_WORDS(n))
			dst->w[FW_BITSET_WORDS(n) - 1] &= (1ull << (n % 64)) - 1;
		return;
	}
	for (int64_t i = bit_ffs(src); i >= 0 && i < n; i++)
		if (bit_test(src, i))
			fw_bitset_set(dst, (uint32_t)i);
}

void sf_bits_to_slurm(bitstr_t *dst, const struct fw_bitset *src)
{
	int64_t n = bit_size(dst);
	int64_t i;

	bit_clear_all(dst);
	FW_BITSET_FOREACH(src, i) {
		if (i >= n)
			break;
		bit_set(dst, i);
	}
}

/* The data word of the probe pattern: bits w, w + 9 and 63 - w. */
static uint64_t probe_word(int w)
{
	return (1ull << w) | (1ull << (w + 9)) | (1ull << (63 - w));
}

/*
 * Offset (in 64-bit words) of the first data word of a Slurm bitmap, or -1.
 * The bitmap holds SF_PROBE_WORDS data words, so reading words 0 .. 5 stays
 * inside its allocation whatever the header size; a header of more than 3
 * words is simply not found (slow path).
 */
static int find_word_offset(void)
{
	bitstr_t *b = bit_alloc(SF_PROBE_WORDS * 64);
	const uint64_t *raw = (const uint64_t *)b;
	int off = -1;

	for (int w = 0; w < 3; w++)
		for (int k = 0; k < 64; k++)
			if (probe_word(w) & (1ull << k))
				bit_set(b, w * 64 + k);
	for (int k = 0; k <= 3 && off < 0; k++)
		if (raw[k] == probe_word(0) && raw[k + 1] == probe_word(1) &&
		    raw[k + 2] == probe_word(2))
			off = k;
	bit_free(b);
	return off;
}

bool sf_bitcopy_selftest(void)
{
	static const int bits[] = { 0, 1, 63, 64, 65, 127, 129 };
	bitstr_t *b = bit_alloc(130);
	struct fw_bitset *f = fw_bitset_new(130);
	bool ok = true;

	for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++)
		bit_set(b, bits[k]);
	sf.bit_word_off = find_word_offset();
	if (sf.bit_word_off < 0)
		ok = false;
	else
		sf_bits_from_slurm(f, b);
	for (int i = 0; ok && i < 130; i++)
		if (fw_bitset_test(f, i) != (bool)bit_test(b, i))
			ok = false;
	if (!ok)
		sf.bit_word_off = -1;
	bit_free(b);
	fw_bitset_free(f);
	return ok;
}

/* ------------------------------------------------------------ islands */

/*
 * Islands (seed 002, Fram): the leaf switches of topology/tree's
 * topology.conf, read by the core's fw_topo - the reader fairway-sim uses -
 * on every Slurm release (Slurm's switch table is private to topology/tree
 * from 24.05).  The file is the one Slurm reads (get_extra_conf_path():
 * beside slurm.conf), read again only when slurm.conf was (a reconfigure),
 * as Slurm does, not on partition changes.  Problems are logged once per
 * reading, one line each, naming file, line, key and value; a file
 * topology/tree would refuse gives no islands, never a failure.
 */
void sf_topo_free(void)
{
	fw_topo_free(sf.topo);
	sf.topo = NULL;
	sf.topo_read = false;
}

static void topo_load(void)
{
	char yaml_name[] = "topology.yaml", conf_name[] = "topology.conf";
	char *path, buf[1024];
	struct fw_err err;
	struct stat st;

	sf_topo_free();
	sf.topo_read = true;
	sf.topo_warned = false;
	sf.topo_stamp = slurm_conf.last_update;
	if (FW_SLURM_READS_TOPOLOGY_YAML) {
		path = get_extra_conf_path(yaml_name);
		if (!stat(path, &st)) {
			info("%s: %s exists: Slurm uses it instead of topology.conf, and Fairway does not read topology.yaml: no islands (TopologyPlacement has no effect)",
			     PLUGIN, path);
			xfree(path);
			return;
		}
		xfree(path);
	}
	if (xstrcmp(slurm_conf.topology_plugin, "topology/tree")) {
		debug("%s: TopologyPlugin is %s, not topology/tree: no islands",
		      PLUGIN, slurm_conf.topology_plugin ?
		      slurm_conf.topology_plugin : "(none)");
		return;
	}
	path = get_extra_conf_path(conf_name);
	sf.topo = fw_topo_read(path, &err);
	if (!sf.topo)
		error("%s: %s: no islands (TopologyPlacement has no effect)",
		      PLUGIN, fw_err_str(&err, buf, sizeof(buf)));
	xfree(path);
}

/* Node index -> island number (leaf switch), -1 when under none. */
static void island_of_nodes(int32_t *island, int nnodes)
{
	const char **names;
	struct fw_topo_warn w;
	uint32_t used;
	char buf[1024];

	if (!sf.topo_read || sf.topo_stamp != slurm_conf.last_update)
		topo_load();
	names = xcalloc(nnodes ? nnodes : 1, sizeof(*names));
	for (int i = 0; i < nnodes; i++)
		names[i] = node_record_table_ptr[i] ?
			   node_record_table_ptr[i]->name : NULL;
	used = fw_topo_islands(sf.topo, names, (uint32_t)nnodes, island, &w);
	xfree(names);
	if (!sf.topo || sf.topo_warned)
		return;
	sf.topo_warned = true;
	info("%s: islands from %s: %u leaf switches (%u with nodes), %u nodes under none",
	     PLUGIN, sf.topo->file, sf.topo->nislands, used, w.outside);
	if (w.unknown)
		info("%s: warning: %s", PLUGIN,
		     fw_err_str(&w.first_unknown, buf, sizeof(buf)));
	if (w.multi)
		info("%s: warning: %s", PLUGIN,
		     fw_err_str(&w.first_multi, buf, sizeof(buf)));
}

/* GPUs as configured (gres.conf / Gres=), whatever AccountingStorageTRES
 * tracks: the planner must know which nodes can hold a GPU job. */
static uint32_t node_gpus(const node_record_t *n)
{
	uint64_t c = gres_node_config_cnt(n->gres_list, "gpu");

	return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/*
 * Every generic resource a node is configured with, as the planner names
 * them: "NAME" for the total of each GRES but GPUs (their total is
 * fw_node_def.gpus), and "NAME:TYPE" for each typed one ("gpu:a100",
 * "gpu:v100").  A count-only GRES with no device file ("tmpdisk") is one
 * like any other.
 */
typedef void (*gres_visit_fn)(const char *name, uint64_t count, void *arg);

const char *sf_gres_key(char *buf, size_t len, const char *name,
			const char *type)
{
	if (type)
		snprintf(buf, len, "%s:%s", name, type);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/* Calls visit for each GRES of the node's list (its counts, or its
 * per-device limits), which reports them through fn. */
typedef void (*gres_state_fn)(const gres_state_t *gs, gres_visit_fn fn,
			      void *arg);

static void each_gres_state(const node_record_t *n, gres_state_fn visit,
			    gres_visit_fn fn, void *arg)
{
	list_itr_t *it;
	gres_state_t *gs;

	if (!n->gres_list)
		return;
	it = list_iterator_create(n->gres_list);
	while ((gs = list_next(it)))
		if (gs->gres_data && gs->gres_name)
			visit(gs, fn, arg);
	list_iterator_destroy(it);
}

static void visit_counts(const gres_state_t *gs, gres_visit_fn fn, void *arg)
{
	const gres_node_state_t *ns = gs->gres_data;
	char typed[256];

	if (xstrcmp(gs->gres_name, "gpu"))
		fn(gs->gres_name, ns->gres_cnt_config, arg);
	for (int t = 0; t < ns->type_cnt; t++) {
		if (!ns->type_name || !ns->type_name[t])
			continue;
		fn(sf_gres_key(typed, sizeof(typed), gs->gres_name,
			       ns->type_name[t]),
		   ns->type_cnt_avail ? ns->type_cnt_avail[t] : 0, arg);
	}
}

static void each_node_gres(const node_record_t *n, gres_visit_fn fn,
			   void *arg)
{
	each_gres_state(n, visit_counts, fn, arg);
}

/*
 * A shared GRES (shard, mps) that select/cons_tres gives a job from one
 * device per node (without SelectTypeParameters=MULTIPLE_SHARING_GRES_PJ):
 * the most one device of the node offers (its topology, per GPU, as
 * slurmd reported it).  0 when that does not apply or is not known yet.
 */
static uint64_t shared_gres_unit(const gres_state_t *gs)
{
	const gres_node_state_t *ns = gs->gres_data;
	uint64_t most = 0;

	if (!(gs->config_flags & GRES_CONF_SHARED) ||
	    (slurm_conf.select_type_param & FW_MULTIPLE_SHARING) ||
	    !ns->topo_gres_cnt_avail)
		return 0;
	for (int i = 0; i < ns->topo_cnt; i++)
		if (ns->topo_gres_cnt_avail[i] > most)
			most = ns->topo_gres_cnt_avail[i];
	return most;
}

static void visit_units(const gres_state_t *gs, gres_visit_fn fn, void *arg)
{
	uint64_t unit = shared_gres_unit(gs);

	if (unit)
		fn(gs->gres_name, unit, arg);
}

static void each_node_gres_unit(const node_record_t *n, gres_visit_fn fn,
				void *arg)
{
	each_gres_state(n, visit_units, fn, arg);
}

static void add_unit(const char *name, uint64_t count, void *arg)
{
	(void)name;
	*(uint64_t *)arg += count;
}

bool sf_shared_gres_configured(void)
{
	return xstrstr(slurm_conf.gres_plugins, "shard") ||
	       xstrstr(slurm_conf.gres_plugins, "mps");
}

/* What the per-device limits were built from: they appear when slurmd
 * registers, after the cluster may have been built. */
static uint64_t shared_units_stamp(void)
{
	uint64_t sum = 0;

	/* Every pass asks: no walk of the nodes without a shared GRES. */
	if (!sf_shared_gres_configured())
		return 0;
	for (int i = 0; i < node_record_count; i++)
		if (node_record_table_ptr[i])
			each_node_gres_unit(node_record_table_ptr[i],
					    add_unit, &sum);
	return sum;
}

/* A node's Weight (slurm.conf, or scontrol update): its configuration
 * record's; node_record_t.weight only keeps the state-save value. */
static uint32_t node_weight(const node_record_t *n)
{
	return n->config_ptr ? n->config_ptr->weight : 1;
}

/* The node weights (scontrol update NodeName=... Weight=... changes them
 * without a reconfigure): a hash of them all, one multiply per node. */
static uint64_t weights_stamp(void)
{
	uint64_t h = 1469598103934665603ULL;

	for (int i = 0; i < node_record_count; i++)
		if (node_record_table_ptr[i])
			h = (h ^ node_weight(node_record_table_ptr[i])) *
			    1099511628211ULL;
	return h;
}

struct gres_acc {
	struct fw_cluster *c;
	struct fw_gres_count *v;
	uint32_t n, cap;
	int rc;
	struct fw_err *err;
};

static void gres_register(const char *name, uint64_t count, void *arg)
{
	struct gres_acc *a = arg;

	(void)count;
	if (a->rc == 0 && fw_cluster_add_gres(a->c, name, a->err) < 0)
		a->rc = -1;
}

static void gres_collect(const char *name, uint64_t count, void *arg)
{
	struct gres_acc *a = arg;
	int32_t idx = fw_cluster_gres_index(a->c, name);

	if (idx < 0 || !count)
		return;
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		xrecalloc(a->v, a->cap, sizeof(*a->v));
	}
	a->v[a->n].idx = (uint32_t)idx;
	a->v[a->n].count = count;
	a->n++;
}

static int register_gres(struct fw_cluster *c, struct fw_err *err)
{
	struct gres_acc a = { .c = c, .err = err };

	for (int i = 0; i < node_record_count && a.rc == 0; i++)
		if (node_record_table_ptr[i])
			each_node_gres(node_record_table_ptr[i], gres_register,
				       &a);
	return a.rc;
}

static int add_nodes(struct fw_cluster *c, struct fw_err *err)
{
	int32_t *island = xcalloc(node_record_count ? node_record_count : 1,
				  sizeof(int32_t));
	struct gres_acc g = { .c = c }, u = { .c = c };
	char absent[64];
	int rc = 0;

	island_of_nodes(island, node_record_count);
	for (int i = 0; i < node_record_count && rc == 0; i++) {
		node_record_t *n = node_record_table_ptr[i];
		struct fw_node_def d = { .island = island[i] };

		g.n = u.n = 0;
		if (n) {
			d.name = n->name;
			d.weight = node_weight(n);
			d.cpus = n->cpus;
			d.mem_mb = n->real_memory;
			if (fw_cluster_jobs_share(c)) {
				/* what cons_tres hands out: no specialised
				 * cores, no MemSpecLimit */
				if (n->cpus_efctv && n->cpus_efctv < n->cpus)
					d.cpus = n->cpus_efctv;
				d.mem_mb = n->real_memory > n->mem_spec_limit ?
					   n->real_memory - n->mem_spec_limit : 0;
			}
			d.gpus = node_gpus(n);
			each_node_gres(n, gres_collect, &g);
			d.gres = g.v;
			d.ngres = g.n;
			each_node_gres_unit(n, gres_collect, &u);
			d.gres_unit = u.v;
			d.ngres_unit = u.n;
			d.usable = true;
		} else {
			snprintf(absent, sizeof(absent), "(absent-%d)", i);
			d.name = absent;
			d.usable = false;
		}
		if (fw_cluster_add_node(c, &d, err) != i)
			rc = -1;
	}
	xfree(g.v);
	xfree(u.v);
	xfree(island);
	return rc;
}

static int add_partitions(struct fw_cluster *c, struct fw_err *err)
{
	list_itr_t *it = list_iterator_create(part_list);
	part_record_t *p;
	struct fw_bitset *nodes = fw_bitset_new(node_record_count);
	int rc = 0;

	while ((p = list_next(it))) {
		struct fw_partition_def d = {
			.name = p->name,
			.nodes = nodes,
			.priority_tier = p->priority_tier,
			.max_time = (p->max_time == INFINITE || p->max_time == NO_VAL) ?
				0 : (int64_t)p->max_time * 60,
			.min_nodes = p->min_nodes == NO_VAL ? 0 : p->min_nodes,
			.max_nodes = (p->max_nodes == INFINITE || p->max_nodes == NO_VAL) ?
				0 : p->max_nodes,
			/* OverSubscribe=EXCLUSIVE */
			.whole_nodes = p->max_share == 0,
		};

		sf_bits_from_slurm(nodes, p->node_bitmap);
		if (fw_cluster_add_partition(c, &d, err) < 0) {
			rc = -1;
			break;
		}
	}
	list_iterator_destroy(it);
	fw_bitset_free(nodes);
	return rc;
}

static int add_licenses(struct fw_cluster *c, struct fw_err *err)
{
	list_itr_t *it;
	licenses_t *l;
	int n = 0;

	for (int i = 0; sf.lic_names && sf.lic_names[i]; i++)
		xfree(sf.lic_names[i]);
	xfree(sf.lic_names);
	if (!cluster_license_list)
		return 0;
	sf.lic_names = xcalloc(list_count(cluster_license_list) + 1, sizeof(char *));
	it = list_iterator_create(cluster_license_list);
	while ((l = list_next(it))) {
		if (fw_cluster_add_license(c, l->name, l->total, err) < 0) {
			list_iterator_destroy(it);
			return -1;
		}
		sf.lic_names[n++] = xstrdup(l->name);
	}
	list_iterator_destroy(it);
	return 0;
}

/* ------------------------------------------------------- shared nodes */

/* select/cons_tres and select/cons_res give jobs parts of nodes;
 * select/linear (and anything else) whole nodes. */
static bool select_shares_nodes(void)
{
	const char *t = slurm_conf.select_type;

	return t && (xstrcasestr(t, "cons_tres") || xstrcasestr(t, "cons_res"));
}

/*
 * How the planner sees nodes: per node on cons_tres/cons_res; on
 * select/linear by whole nodes, unless preemption is planned, which
 * needs the per-node layer to give a victim's nodes to the job that
 * preempts it (fw_cluster_set_whole_jobs: every job still whole).
 */
static int set_node_model(struct fw_cluster *c, struct fw_err *err)
{
	if (select_shares_nodes())
		return fw_cluster_set_shared(c, true, err);
	if (sf.preempt != SF_PREEMPT_NONE)
		return fw_cluster_set_whole_jobs(c, err);
	return fw_cluster_set_shared(c, false, err);
}

uint16_t sf_part_cr_type(const part_record_t *part)
{
	uint16_t cr = slurm_conf.select_type_param;

	/* A partition's SelectTypeParameters replace the global CR_Core or
	 * CR_Socket (and its _Memory) only when the global one is one of
	 * those (select/cons_tres's rule). */
	if (part && part->cr_type && (cr & (FW_CR_CORE | FW_CR_SOCKET))) {
		cr &= ~(FW_CR_CORE | FW_CR_SOCKET | FW_CR_MEMORY);
		cr |= part->cr_type;
	}
	return cr;
}

uint32_t sf_node_tpc(const node_record_t *n)
{
	return n->tpc ? n->tpc : 1;
}

/*
 * CPUs of one allocation unit on node n: cons_tres never gives two jobs
 * threads of one core (CR_Core, and CR_CPU when threads are configured:
 * slurm.conf(5)), and with CR_Socket whole sockets.
 */
static uint32_t node_cpu_unit(const node_record_t *n, uint16_t cr)
{
	uint32_t u = sf_node_tpc(n);

	if ((cr & FW_CR_SOCKET) && n->cores)
		u *= n->cores;
	return u;
}

/* Per planner partition: the largest allocation unit among its nodes
 * (a job's CPUs per node are rounded up to it) and whether memory is
 * consumable. */
static void shared_part_info(struct fw_cluster *c)
{
	list_itr_t *it;
	part_record_t *p;

	xfree(sf.part_cpu_unit);
	xfree(sf.part_mem);
	sf.part_cpu_unit = xcalloc(c->nparts + 1, sizeof(uint32_t));
	sf.part_mem = xcalloc(c->nparts + 1, sizeof(bool));
	it = list_iterator_create(part_list);
	while ((p = list_next(it))) {
		int32_t k = fw_cluster_partition_index(c, p->name);
		uint16_t cr = sf_part_cr_type(p);
		uint32_t unit = 1;

		if (k < 0)
			continue;
		for (int64_t i = p->node_bitmap ? bit_ffs(p->node_bitmap) : -1;
		     i >= 0 && i < node_record_count; i++) {
			node_record_t *n = node_record_table_ptr[i];

			if (n && bit_test(p->node_bitmap, i) &&
			    node_cpu_unit(n, cr) > unit)
				unit = node_cpu_unit(n, cr);
		}
		sf.part_cpu_unit[k] = unit;
		sf.part_mem[k] = (cr & FW_CR_MEMORY) != 0;
	}
	list_iterator_destroy(it);
}

/*
 * Rebuild the planner's cluster when its structure may have changed: a
 * reconfigure (nodes, licenses, topology), a partition change, or nodes
 * added at run time.  Node *state* (down, drained, allocated) is not part
 * of the cluster; each pass marks unavailable nodes itself.  Caller holds
 * the conf, node and part locks (read).
 */
int sf_cluster_refresh(struct fw_err *err)
{
	struct fw_cluster *c;

	uint64_t units = shared_units_stamp(), weights = weights_stamp();

	if (sf.cluster && sf.cluster_node_stamp == slurm_conf.last_update &&
	    sf.cluster_part_stamp == last_part_update &&
	    sf.cluster_unit_stamp == units &&
	    sf.cluster_weight_stamp == weights &&
	    sf.cluster->nnodes == (uint32_t)node_record_count)
		return 0;
	c = fw_cluster_new();
	if (register_gres(c, err) || set_node_model(c, err) ||
	    add_nodes(c, err) || add_partitions(c, err) ||
	    add_licenses(c, err)) {
		fw_cluster_free(c);
		return -1;
	}
	if (fw_cluster_finalize(c, err) && c->shared) {
		/* Too many GRES to plan per node: plan whole nodes, as
		 * before shared planning existed, and say why. */
		fw_log_err(PLUGIN, err);
		if (c->whole_jobs)
			error("%s: %s: sched/fairway plans no preemption",
			      PLUGIN, slurm_conf.select_type);
		else
			error("%s: %s shares nodes, but sched/fairway plans whole nodes",
			      PLUGIN, slurm_conf.select_type);
		if (!fw_cluster_set_shared(c, false, err))
			fw_cluster_finalize(c, err);
	}
	if (!c->final) {
		fw_cluster_free(c);
		return -1;
	}
	if (fw_cluster_jobs_share(c))
		shared_part_info(c);
	fw_cluster_free(sf.cluster);
	sf.cluster = c;
	sf.cluster_node_stamp = slurm_conf.last_update;
	sf.cluster_part_stamp = last_part_update;
	sf.cluster_unit_stamp = units;
	sf.cluster_weight_stamp = weights;
	return 0;
}
