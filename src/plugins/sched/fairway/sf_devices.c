/*
 * sf_devices.c - sched/fairway: what select/cons_tres gives one job now of
 * a node's GPUs and shared GRES (shard, mps), for fw_plan_node_now().
 *
 * The planner counts a node's GPUs and shards as totals.  select/cons_tres
 * allocates them per device (gres_sched.c in 22.05, gres_sock_list.c in
 * 24.11): a job's shards on a node come from one GPU (unless
 * SelectTypeParameters has MULTIPLE_SHARING_GRES_PJ) and never from a GPU
 * allocated whole, and from 23.11 on (FW_WHOLE_GPU_EXCLUDES_SHARED) a GPU
 * is not allocated whole while any shard of it is in use; a shared GRES
 * with Flags=one_sharing (mps by default) is taken only from the one GPU
 * already serving it while any of it is in use.  So a node with
 * free shards spread over two GPUs, or with free GPUs that carry shards,
 * refused the planner's starts every pass.
 * Before each pass, and after each start on a node with GPUs, this file
 * reads the node's devices as the select plugin does and gives the planner
 * the most one job can get there now.  Only the start now is held to it;
 * later starts are still planned from the totals (sched_fairway(8)).
 *
 * Nothing here runs on clusters without a shared GRES in GresTypes, and
 * only nodes with a GPU or shared GRES allocated get a limit (on an idle
 * node the totals are right, apart from the per-device limit the cluster
 * already knows: fw_node_def.gres_unit).
 */
#include "config.h"

#include <string.h>

#include "slurm/slurm.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_slurm.h"
#include "sf.h"

/* A node's GPU states: the whole-GPU GRES and its shared one. */
struct devs {
	const gres_node_state_t *gpu, *shared;
	const char *shared_name;
	bool one_sharing;	/* the shared GRES's Flags=one_sharing */
};

static bool find_devs(const node_record_t *n, struct devs *d)
{
	list_itr_t *it;
	gres_state_t *gs;

	memset(d, 0, sizeof(*d));
	if (!n->gres_list)
		return false;
	it = list_iterator_create(n->gres_list);
	while ((gs = list_next(it))) {
		if (!gs->gres_data || !gs->gres_name)
			continue;
		if (gs->config_flags & GRES_CONF_SHARED) {
			d->shared = gs->gres_data;
			d->shared_name = gs->gres_name;
			d->one_sharing = gs->config_flags & GRES_CONF_ONE_SHARING;
		} else if (!xstrcmp(gs->gres_name, "gpu")) {
			d->gpu = gs->gres_data;
		}
	}
	list_iterator_destroy(it);
	/* Devices are known only where gres.conf names their files. */
	return d->gpu && d->shared && d->gpu->gres_bit_alloc &&
	       d->shared->topo_gres_cnt_avail && d->shared->topo_gres_cnt_alloc;
}

/* Do two device bitmaps share a set bit?  Slurm's bit_overlap_any()
 * requires equal sizes (an xassert); these come from two GRES states. */
static bool overlaps(bitstr_t *a, bitstr_t *b)
{
	int64_t n = bit_size(a) < bit_size(b) ? bit_size(a) : bit_size(b);

	if (bit_size(a) == bit_size(b))
		return bit_overlap_any(a, b);
	for (int64_t i = 0; i < n; i++)
		if (bit_test(a, i) && bit_test(b, i))
			return true;
	return false;
}

/* Is anything of the node's GPUs or shared GRES allocated? */
static bool devs_in_use(const struct devs *d)
{
	return d->gpu->gres_cnt_alloc || d->shared->gres_cnt_alloc;
}

/* The most of the shared GRES one job can get now: per device what is
 * left, none on a GPU allocated whole; one device's, or all of them with
 * MULTIPLE_SHARING_GRES_PJ.  With Flags=one_sharing (mps's default) and
 * some of it in use, only the device already in use counts (Slurm's
 * gres_use_busy_dev()). */
static uint64_t shared_now(const struct devs *d)
{
	const gres_node_state_t *s = d->shared;
	bool busy_only = d->one_sharing && s->gres_cnt_alloc;
	uint64_t most = 0, sum = 0;

	for (int i = 0; i < s->topo_cnt; i++) {
		uint64_t left;

		if (s->topo_gres_cnt_alloc[i] >= s->topo_gres_cnt_avail[i] ||
		    (busy_only && !s->topo_gres_cnt_alloc[i]))
			continue;
		if (s->topo_gres_bitmap && s->topo_gres_bitmap[i] &&
		    overlaps(s->topo_gres_bitmap[i], d->gpu->gres_bit_alloc))
			continue;
		left = s->topo_gres_cnt_avail[i] - s->topo_gres_cnt_alloc[i];
		sum += left;
		if (left > most)
			most = left;
	}
	return (slurm_conf.select_type_param & FW_MULTIPLE_SHARING) ? sum
								     : most;
}

/* The type of GPU b (its topology entry's), or NULL. */
static const char *gpu_type(const gres_node_state_t *g, int64_t b)
{
	for (int i = 0; i < g->topo_cnt; i++)
		if (g->topo_gres_bitmap && g->topo_gres_bitmap[i] &&
		    b < bit_size(g->topo_gres_bitmap[i]) &&
		    bit_test(g->topo_gres_bitmap[i], b))
			return g->topo_type_name ? g->topo_type_name[i] : NULL;
	return NULL;
}

struct limits {
	struct fw_node_now now;
	struct fw_gres_count *v;
	uint32_t cap;
};

/* Adds count to GRES key's limit (creating it at 0). */
static void limit_add(struct limits *l, const char *key, uint64_t count)
{
	int32_t idx = fw_cluster_gres_index(sf.cluster, key);

	if (idx < 0)
		return;
	for (uint32_t k = 0; k < l->now.ngres; k++)
		if (l->v[k].idx == (uint32_t)idx) {
			l->v[k].count += count;
			return;
		}
	if (l->now.ngres == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4;
		xrecalloc(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->now.ngres].idx = (uint32_t)idx;
	l->v[l->now.ngres].count = count;
	l->now.ngres++;
}

/* Is GPU b carrying an allocated share, so that it cannot go whole? */
static bool carries_share(const struct devs *d, int64_t b)
{
	const bitstr_t *s = d->shared->gres_bit_alloc;

	return FW_WHOLE_GPU_EXCLUDES_SHARED && s && b < bit_size((bitstr_t *)s) &&
	       bit_test((bitstr_t *)s, b);
}

/* GPUs one job can get whole now, in total and per type: not allocated,
 * and (FW_WHOLE_GPU_EXCLUDES_SHARED) carrying no allocated share. */
static void whole_now(const struct devs *d, struct limits *l)
{
	const gres_node_state_t *g = d->gpu;
	int64_t n = bit_size(g->gres_bit_alloc);
	char key[256];

	for (int64_t b = 0; b < n; b++) {
		const char *type = gpu_type(g, b);

		if (type)	/* every type present gets a limit, maybe 0 */
			limit_add(l, sf_gres_key(key, sizeof(key), "gpu", type),
				  0);
		if (bit_test(g->gres_bit_alloc, b) || carries_share(d, b))
			continue;
		l->now.gpus++;
		if (type)
			limit_add(l, key, 1);
	}
}

static void node_now(struct fw_plan *plan, uint32_t i, struct limits *l)
{
	node_record_t *n = node_record_table_ptr[i];
	struct devs d;
	struct fw_err err;

	if (!n || !find_devs(n, &d) || !devs_in_use(&d))
		return;
	l->now.node = i;
	l->now.gpus = 0;
	l->now.ngres = 0;
	whole_now(&d, l);
	limit_add(l, d.shared_name, shared_now(&d));
	l->now.gres = l->v;
	if (fw_plan_node_now(plan, &l->now, &err))
		fw_log_err("sched/fairway", &err);
}

void sf_devices_now(struct fw_plan *plan)
{
	struct limits l = { 0 };

	if (!sf.cluster->shared || !sf_shared_gres_configured())
		return;
	for (int i = 0; i < node_record_count; i++)
		node_now(plan, (uint32_t)i, &l);
	xfree(l.v);
}

void sf_devices_started(struct fw_plan *plan, job_record_t *job)
{
	struct limits l = { 0 };

	if (!sf.cluster->shared || !job->node_bitmap ||
	    !job->gres_list_alloc || !sf_shared_gres_configured())
		return;
	for (int64_t i = bit_ffs(job->node_bitmap);
	     i >= 0 && i < node_record_count; i++)
		if (bit_test(job->node_bitmap, i))
			node_now(plan, (uint32_t)i, &l);
	xfree(l.v);
}
