/*
 * fw_plan_cluster.c - the cluster description the planner works on.
 *
 * Built once by the adapter (nodes first, then partitions and licenses),
 * then finalised: islands and distinct node shapes are derived so that the
 * per-job capacity filter and island placement work on a handful of sets
 * instead of on every node.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_plan.h"
#include "fw_rtl.h"

struct fw_cluster *fw_cluster_new(void)
{
	return fw_xcalloc(1, sizeof(struct fw_cluster));
}

void fw_cluster_free(struct fw_cluster *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nnodes; i++) {
		free(c->nodes[i].name);
		free(c->nodes[i].gres);
		free(c->nodes[i].gres_unit);
	}
	for (uint32_t i = 0; i < c->ngres; i++)
		free(c->gres_names[i]);
	free(c->gres_names);
	for (uint32_t i = 0; i < c->nparts; i++) {
		free(c->parts[i].name);
		fw_bitset_free(c->parts[i].nodes);
	}
	for (uint32_t i = 0; i < c->nlics; i++)
		free(c->lics[i].name);
	for (uint32_t i = 0; i < c->ntypes; i++)
		fw_bitset_free(c->types[i].nodes);
	free(c->part_type_cnt);
	free(c->by_weight);
	for (uint32_t i = 0; i < c->nwclass; i++)
		fw_bitset_free(c->wclass[i]);
	free(c->wclass);
	for (uint32_t i = 0; i < c->nislands; i++)
		fw_bitset_free(c->islands[i].nodes);
	fw_bitset_free(c->usable);
	free(c->nodes);
	free(c->parts);
	free(c->lics);
	free(c->types);
	free(c->islands);
	free(c->hash);
	free(c);
}

/* FNV-1a: node names are short, any decent spread will do. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static void hash_insert(int32_t *tab, uint32_t cap, const char *name,
			int32_t idx)
{
	uint32_t h = name_hash(name) & (cap - 1);

	while (tab[h] >= 0)
		h = (h + 1) & (cap - 1);
	tab[h] = idx;
}

/* Keep the table at most half full; rebuilt on growth. */
static void hash_grow(struct fw_cluster *c)
{
	uint32_t cap = c->hash_cap ? c->hash_cap * 2 : 64;

	free(c->hash);
	c->hash = fw_xmalloc(cap * sizeof(int32_t));
	for (uint32_t i = 0; i < cap; i++)
		c->hash[i] = -1;
	c->hash_cap = cap;
	for (uint32_t i = 0; i < c->nnodes; i++)
		hash_insert(c->hash, cap, c->nodes[i].name, (int32_t)i);
}

int32_t fw_cluster_node_index(const struct fw_cluster *c, const char *name)
{
	if (!c->hash_cap || !name)
		return -1;
	uint32_t h = name_hash(name) & (c->hash_cap - 1);

	while (c->hash[h] >= 0) {
		if (strcmp(c->nodes[c->hash[h]].name, name) == 0)
			return c->hash[h];
		h = (h + 1) & (c->hash_cap - 1);
	}
	return -1;
}

static int frozen(const struct fw_cluster *c, const char *what,
		  const char *name, struct fw_err *err)
{
	if (c->final)
		return fw_err_set(err, NULL, 0, what, name,
				  "cluster is already finalised");
	return 0;
}

int32_t fw_cluster_add_node(struct fw_cluster *c, const struct fw_node_def *d,
			    struct fw_err *err)
{
	if (frozen(c, "NodeName", d->name, err))
		return -1;
	if (!d->name || !d->name[0])
		return fw_err_set(err, NULL, 0, "NodeName", "",
				  "node without a name");
	if (c->nparts)
		return fw_err_set(err, NULL, 0, "NodeName", d->name,
				  "nodes must be added before partitions");
	if (fw_cluster_node_index(c, d->name) >= 0)
		return fw_err_set(err, NULL, 0, "NodeName", d->name,
				  "node defined twice");
	if (d->island < -1)
		return fw_err_set(err, NULL, 0, "NodeName", d->name,
				  "island id %d is negative", d->island);
	for (uint32_t g = 0; g < d->ngres; g++)
		if (d->gres[g].idx >= c->ngres)
			return fw_err_set(err, NULL, 0, "NodeName", d->name,
					  "GRES index %u not defined",
					  d->gres[g].idx);
	for (uint32_t g = 0; g < d->ngres_unit; g++)
		if (d->gres_unit[g].idx >= c->ngres)
			return fw_err_set(err, NULL, 0, "NodeName", d->name,
					  "GRES index %u not defined",
					  d->gres_unit[g].idx);
	if (c->nnodes == c->cap_nodes) {
		c->cap_nodes = c->cap_nodes ? c->cap_nodes * 2 : 64;
		c->nodes = fw_xrealloc(c->nodes,
				       c->cap_nodes * sizeof(*c->nodes));
	}
	struct fw_cnode *n = &c->nodes[c->nnodes];
	memset(n, 0, sizeof(*n));
	n->name = fw_strdup(d->name);
	n->cpus = d->cpus;
	n->mem_mb = d->mem_mb;
	n->gpus = d->gpus;
	if (d->ngres && c->ngres) {
		n->gres = fw_xcalloc(c->ngres, sizeof(*n->gres));
		for (uint32_t g = 0; g < d->ngres; g++)
			n->gres[d->gres[g].idx] += d->gres[g].count;
	}
	if (d->ngres_unit && c->ngres) {
		n->gres_unit = fw_xcalloc(c->ngres, sizeof(*n->gres_unit));
		for (uint32_t g = 0; g < d->ngres_unit; g++)
			n->gres_unit[d->gres_unit[g].idx] = d->gres_unit[g].count;
	}
	n->island = d->island;
	n->usable = d->usable;
	n->weight = d->weight ? d->weight : 1;
	n->island_idx = -1;
	c->nnodes++;
	if (2 * c->nnodes > c->hash_cap)
		hash_grow(c);
	else
		hash_insert(c->hash, c->hash_cap, n->name,
			    (int32_t)(c->nnodes - 1));
	return (int32_t)(c->nnodes - 1);
}

int32_t fw_cluster_partition_index(const struct fw_cluster *c,
				   const char *name)
{
	for (uint32_t i = 0; i < c->nparts; i++)
		if (strcmp(c->parts[i].name, name) == 0)
			return (int32_t)i;
	return -1;
}

int32_t fw_cluster_license_index(const struct fw_cluster *c, const char *name)
{
	for (uint32_t i = 0; i < c->nlics; i++)
		if (strcmp(c->lics[i].name, name) == 0)
			return (int32_t)i;
	return -1;
}

int32_t fw_cluster_add_partition(struct fw_cluster *c,
				 const struct fw_partition_def *d,
				 struct fw_err *err)
{
	if (frozen(c, "PartitionName", d->name, err))
		return -1;
	if (!d->name || !d->name[0])
		return fw_err_set(err, NULL, 0, "PartitionName", "",
				  "partition without a name");
	if (fw_cluster_partition_index(c, d->name) >= 0)
		return fw_err_set(err, NULL, 0, "PartitionName", d->name,
				  "partition defined twice");
	if (!d->nodes || d->nodes->nbits != c->nnodes)
		return fw_err_set(err, NULL, 0, "PartitionName", d->name,
				  "node set does not match the %u nodes",
				  c->nnodes);
	if (d->max_nodes && d->min_nodes > d->max_nodes)
		return fw_err_set(err, NULL, 0, "PartitionName", d->name,
				  "MinNodes %u > MaxNodes %u", d->min_nodes,
				  d->max_nodes);
	if (c->nparts == c->cap_parts) {
		c->cap_parts = c->cap_parts ? c->cap_parts * 2 : 8;
		c->parts = fw_xrealloc(c->parts,
				       c->cap_parts * sizeof(*c->parts));
	}
	struct fw_cpart *p = &c->parts[c->nparts];
	p->name = fw_strdup(d->name);
	p->nodes = fw_bitset_dup(d->nodes);
	p->priority_tier = d->priority_tier;
	p->max_time = d->max_time > 0 ? d->max_time : 0;
	p->min_nodes = d->min_nodes;
	p->max_nodes = d->max_nodes;
	p->whole_nodes = d->whole_nodes;
	fw_bitset_word_range(p->nodes, &p->lo, &p->hi);
	return (int32_t)c->nparts++;
}

int32_t fw_cluster_add_license(struct fw_cluster *c, const char *name,
			       uint32_t total, struct fw_err *err)
{
	if (frozen(c, "Licenses", name, err))
		return -1;
	if (!name || !name[0])
		return fw_err_set(err, NULL, 0, "Licenses", "",
				  "license without a name");
	if (fw_cluster_license_index(c, name) >= 0)
		return fw_err_set(err, NULL, 0, "Licenses", name,
				  "license defined twice");
	if (c->nlics == c->cap_lics) {
		c->cap_lics = c->cap_lics ? c->cap_lics * 2 : 8;
		c->lics = fw_xrealloc(c->lics, c->cap_lics * sizeof(*c->lics));
	}
	c->lics[c->nlics].name = fw_strdup(name);
	c->lics[c->nlics].total = total;
	return (int32_t)c->nlics++;
}

static bool same_gres(const struct fw_cluster *c, const uint64_t *a,
		      const uint64_t *b)
{
	for (uint32_t g = 0; g < c->ngres; g++)
		if ((a ? a[g] : 0) != (b ? b[g] : 0))
			return false;
	return true;
}

int32_t fw_cluster_gres_index(const struct fw_cluster *c, const char *name)
{
	for (uint32_t g = 0; name && g < c->ngres; g++)
		if (strcmp(c->gres_names[g], name) == 0)
			return (int32_t)g;
	return -1;
}

int32_t fw_cluster_add_gres(struct fw_cluster *c, const char *name,
			    struct fw_err *err)
{
	int32_t g;

	if (frozen(c, "Gres", name, err))
		return -1;
	if (!name || !name[0])
		return fw_err_set(err, NULL, 0, "Gres", "", "GRES without a name");
	if ((g = fw_cluster_gres_index(c, name)) >= 0)
		return g;
	if (c->nnodes)
		return fw_err_set(err, NULL, 0, "Gres", name,
				  "GRES must be defined before nodes");
	c->gres_names = fw_xrealloc(c->gres_names,
				    (c->ngres + 1) * sizeof(*c->gres_names));
	c->gres_names[c->ngres] = fw_strdup(name);
	return (int32_t)c->ngres++;
}

static uint32_t find_or_add_type(struct fw_cluster *c, const struct fw_cnode *n)
{
	for (uint32_t t = 0; t < c->ntypes; t++)
		if (c->types[t].cpus == n->cpus &&
		    c->types[t].mem_mb == n->mem_mb &&
		    c->types[t].gpus == n->gpus &&
		    same_gres(c, c->types[t].gres, n->gres) &&
		    same_gres(c, c->types[t].gres_unit, n->gres_unit))
			return t;
	c->types = fw_xrealloc(c->types, (c->ntypes + 1) * sizeof(*c->types));
	c->types[c->ntypes].cpus = n->cpus;
	c->types[c->ntypes].mem_mb = n->mem_mb;
	c->types[c->ntypes].gpus = n->gpus;
	c->types[c->ntypes].gres = n->gres;
	c->types[c->ntypes].gres_unit = n->gres_unit;
	c->types[c->ntypes].nodes = fw_bitset_new(c->nnodes);
	return c->ntypes++;
}

int fw_cluster_set_shared(struct fw_cluster *c, bool shared,
			  struct fw_err *err)
{
	if (frozen(c, "cluster", NULL, err))
		return -1;
	c->shared = shared;
	c->whole_jobs = false;
	return 0;
}

int fw_cluster_set_whole_jobs(struct fw_cluster *c, struct fw_err *err)
{
	if (frozen(c, "cluster", NULL, err))
		return -1;
	c->shared = true;
	c->whole_jobs = true;
	return 0;
}

/* Islands by id; the nodes without an island (id -1) last. */
static int island_cmp(const void *a, const void *b)
{
	const struct fw_cisland *x = a, *y = b;
	uint32_t kx = (uint32_t)x->id, ky = (uint32_t)y->id;	/* -1 -> max */

	return (kx > ky) - (kx < ky);
}

static void derive_islands(struct fw_cluster *c)
{
	bool any = false;

	for (uint32_t i = 0; i < c->nnodes; i++)
		any = any || c->nodes[i].island >= 0;
	if (!any)
		return;		/* no topology: islands play no role */
	for (uint32_t i = 0; i < c->nnodes; i++) {
		/* Nodes without an island form one more island, so that
		 * island placement can still use them. */
		int32_t id = c->nodes[i].island;
		uint32_t k;

		for (k = 0; k < c->nislands; k++)
			if (c->islands[k].id == id)
				break;
		if (k == c->nislands) {
			c->islands = fw_xrealloc(c->islands, (k + 1) *
						 sizeof(*c->islands));
			c->islands[k].id = id;
			c->islands[k].nodes = fw_bitset_new(c->nnodes);
			c->nislands++;
		}
		fw_bitset_set(c->islands[k].nodes, i);
	}
	/* Island order is the placement order: sort by id so that first-fit
	 * is stable no matter in which order nodes were added. */
	if (c->nislands > 1)
		qsort(c->islands, c->nislands, sizeof(*c->islands), island_cmp);
	for (uint32_t k = 0; k < c->nislands; k++) {
		struct fw_cisland *is = &c->islands[k];
		int64_t i;

		fw_bitset_word_range(is->nodes, &is->lo, &is->hi);
		FW_BITSET_FOREACH(is->nodes, i)
			c->nodes[i].island_idx = (int32_t)k;
	}
}

/* Usable nodes per (partition, node type): job sizing asks "does the
 * partition have N nodes of at least this shape" without touching bits. */
static void count_part_types(struct fw_cluster *c)
{
	c->part_type_cnt = fw_xcalloc((size_t)c->nparts * c->ntypes + 1,
				      sizeof(*c->part_type_cnt));
	for (uint32_t p = 0; p < c->nparts; p++) {
		uint32_t *cnt = c->part_type_cnt + (size_t)p * c->ntypes;
		int64_t i;

		FW_BITSET_FOREACH(c->parts[p].nodes, i)
			if (c->nodes[i].usable)
				cnt[c->nodes[i].type]++;
	}
}

/* Sort keys (weight << 32 | index): qsort without a context pointer. */
static int weight_key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* wclass from by_weight: a new set wherever the weight changes. */
static void weight_classes(struct fw_cluster *c)
{
	uint32_t last = 0;

	c->wclass = fw_xcalloc(c->nnodes, sizeof(*c->wclass));
	for (uint32_t k = 0; k < c->nnodes; k++) {
		uint32_t i = c->by_weight[k], w = c->nodes[i].weight;

		if (c->nwclass == 0 || w != last)
			c->wclass[c->nwclass++] = fw_bitset_new(c->nnodes);
		fw_bitset_set(c->wclass[c->nwclass - 1], i);
		last = w;
	}
}

/* by_weight, when the nodes do not all have the same weight. */
static void order_by_weight(struct fw_cluster *c)
{
	uint64_t *key;
	uint32_t i;

	for (i = 1; i < c->nnodes; i++)
		if (c->nodes[i].weight != c->nodes[0].weight)
			break;
	if (i == c->nnodes)
		return;
	key = fw_xcalloc(c->nnodes, sizeof(*key));
	for (i = 0; i < c->nnodes; i++)
		key[i] = (uint64_t)c->nodes[i].weight << 32 | i;
	qsort(key, c->nnodes, sizeof(*key), weight_key_cmp);
	c->by_weight = fw_xcalloc(c->nnodes, sizeof(*c->by_weight));
	for (i = 0; i < c->nnodes; i++)
		c->by_weight[i] = (uint32_t)key[i];
	free(key);
	weight_classes(c);
}

int fw_cluster_finalize(struct fw_cluster *c, struct fw_err *err)
{
	if (frozen(c, "cluster", NULL, err))
		return -1;
	if (c->nnodes == 0)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "cluster has no nodes");
	/* A shared plan books CPUs, memory, GPUs and each GRES per node. */
	if (c->shared && c->ngres + 3 > FW_RTL_MAXRES)
		return fw_err_set(err, NULL, 0, "Gres", NULL,
				  "%u generic resources: at most %u can be "
				  "planned per node", c->ngres,
				  FW_RTL_MAXRES - 3);
	c->usable = fw_bitset_new(c->nnodes);
	for (uint32_t i = 0; i < c->nnodes; i++) {
		struct fw_cnode *n = &c->nodes[i];

		n->type = find_or_add_type(c, n);
		fw_bitset_set(c->types[n->type].nodes, i);
		if (n->usable)
			fw_bitset_set(c->usable, i);
	}
	derive_islands(c);
	count_part_types(c);
	order_by_weight(c);
	c->final = true;
	return 0;
}

struct fw_bitset *fw_cluster_nodes(const struct fw_cluster *c,
				   const char *hostlist, struct fw_err *err)
{
	char **names;
	int n = fw_hostlist_expand(hostlist, &names, c->nnodes + 1024u, err);
	struct fw_bitset *b;

	if (n < 0) {
		char why[sizeof(err->msg)];

		if (err) {
			memcpy(why, err->msg, sizeof(why));
			fw_err_set(err, NULL, 0, "Nodes", hostlist, "%s", why);
		}
		return NULL;
	}
	b = fw_bitset_new(c->nnodes);
	for (int i = 0; i < n; i++) {
		int32_t idx = fw_cluster_node_index(c, names[i]);

		if (idx < 0) {
			fw_err_set(err, NULL, 0, "Nodes", hostlist,
				   "unknown node '%s'", names[i]);
			fw_hostlist_free(names, n);
			fw_bitset_free(b);
			return NULL;
		}
		fw_bitset_set(b, (uint32_t)idx);
	}
	fw_hostlist_free(names, n);
	return b;
}

/* ------------------------------------------------ node sets as names */

/* A name split as prefix + decimal suffix ("gpu08": "gpu", 8, width 2). */
struct name_parts {
	size_t plen;		/* prefix length */
	uint64_t num;
	int width;		/* digits written; 0: no numeric suffix */
	bool padded;		/* suffix has a leading zero */
};

static struct name_parts split_name(const char *s)
{
	struct name_parts p = { 0 };
	size_t len = strlen(s), i = len;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9' && len - i < 18)
		i--;
	p.plen = i;
	p.width = (int)(len - i);
	for (size_t k = i; k < len; k++)
		p.num = p.num * 10 + (uint64_t)(s[k] - '0');
	p.padded = p.width > 1 && s[i] == '0';
	return p;
}

/* Can b join the bracket family that a began (same prefix, same zero
 * padding)? */
static bool same_family(const char *a, const struct name_parts *pa,
			const char *b, const struct name_parts *pb)
{
	if (!pa->width || !pb->width || pa->plen != pb->plen ||
	    memcmp(a, b, pa->plen))
		return false;
	/* a zero-padded family keeps its width (gpu[08-10]) */
	return pa->padded ? pb->width == pa->width : !pb->padded;
}


static void sb_num(struct fw_buf *b, uint64_t v, int width, bool padded)
{
	char tmp[32];
	int n = padded ? snprintf(tmp, sizeof(tmp), "%0*" PRIu64, width, v)
		       : snprintf(tmp, sizeof(tmp), "%" PRIu64, v);

	fw_buf_append(b, tmp, (size_t)n);
}

/*
 * End a family of names: its last run [run_lo, pp->num] (if longer than
 * one name; the first name of a bracket-less family was written in full,
 * so its number is replaced by "[run_lo") and the closing bracket.
 */
static void finish_family(struct fw_buf *b, const struct name_parts *pf,
			  const struct name_parts *pp, uint64_t run_lo,
			  bool open)
{
	if (pp->width && pp->num != run_lo) {
		if (!open) {
			b->len -= (size_t)pf->width;
			fw_buf_append(b, "[", 1);
			sb_num(b, run_lo, pf->width, pf->padded);
			open = true;
		}
		fw_buf_append(b, "-", 1);
		sb_num(b, pp->num, pp->width, pf->padded);
	}
	if (open)
		fw_buf_append(b, "]", 1);
}

/*
 * The nodes of a set as a hostlist expression in node index order
 * ("n[1-3,7],gpu[08-09],login"), the form Slurm prints in SchedNodeList.
 * Slurm's bitmap2node_name() builds a hostlist object name by name and
 * then formats it, which costs tens of microseconds per node; this walks
 * the set once.  Returns a malloc'd string ("" for an empty set).
 */
char *fw_cluster_hostlist(const struct fw_cluster *c,
			  const struct fw_bitset *nodes)
{
	struct fw_buf b = { 0 };
	const char *first = NULL, *prev = NULL;
	struct name_parts pf = { 0 }, pp = { 0 };
	uint64_t run_lo = 0;
	bool open = false;	/* a bracket is open for first's family */
	int64_t i;

	fw_buf_append(&b, "", 0);
	FW_BITSET_FOREACH(nodes, i) {
		const char *name;
		struct name_parts pn;

		if ((uint32_t)i >= c->nnodes)
			break;
		name = c->nodes[i].name;
		pn = split_name(name);
		if (prev && same_family(first, &pf, name, &pn)) {
			if (pn.num == pp.num + 1) {
				prev = name;
				pp = pn;
				continue;	/* the run goes on */
			}
			/* close the run [run_lo, pp.num], start a new one */
			if (!open) {
				/* turn "n1" into "n[1" */
				b.len -= (size_t)pf.width;
				fw_buf_append(&b, "[", 1);
				sb_num(&b, run_lo, pf.width, pf.padded);
				open = true;
			}
			if (pp.num != run_lo) {
				fw_buf_append(&b, "-", 1);
				sb_num(&b, pp.num, pp.width, pf.padded);
			}
			fw_buf_append(&b, ",", 1);
			sb_num(&b, pn.num, pn.width, pf.padded);
			run_lo = pn.num;
			prev = name;
			pp = pn;
			continue;
		}
		/* a new family: finish the previous one */
		if (prev) {
			finish_family(&b, &pf, &pp, run_lo, open);
			fw_buf_append(&b, ",", 1);
		}
		fw_buf_append(&b, name, strlen(name));
		first = prev = name;
		pf = pp = pn;
		run_lo = pn.num;
		open = false;
	}
	if (prev)
		finish_family(&b, &pf, &pp, run_lo, open);
	return b.s;
}
