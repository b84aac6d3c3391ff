/*
 * fw_topo.c - topology.conf (topology/tree) reader and islands; see
 * fw_topo.h for the rules.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_topo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------ name -> index */

/* Open addressing; keys are borrowed (they live as long as the map). */
struct smap {
	const char **k;
	uint32_t *v;
	uint32_t mask, n;
};

static uint64_t shash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void smap_free(struct smap *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static void smap_resize(struct smap *m, uint32_t size)
{
	struct smap o = *m;

	m->k = fw_xcalloc(size, sizeof(*m->k));
	m->v = fw_xcalloc(size, sizeof(*m->v));
	m->mask = size - 1;
	for (uint32_t i = 0; o.k && i <= o.mask; i++) {
		if (!o.k[i])
			continue;
		uint32_t j = (uint32_t)shash(o.k[i]) & m->mask;
		while (m->k[j])
			j = (j + 1) & m->mask;
		m->k[j] = o.k[i];
		m->v[j] = o.v[i];
	}
	free(o.k);
	free(o.v);
}

/* Value of key k, or -1. */
static int64_t smap_get(const struct smap *m, const char *k)
{
	if (!m->k)
		return -1;
	for (uint32_t j = (uint32_t)shash(k) & m->mask; m->k[j];
	     j = (j + 1) & m->mask)
		if (!strcmp(m->k[j], k))
			return m->v[j];
	return -1;
}

/* Add k (not present yet). */
static void smap_put(struct smap *m, const char *k, uint32_t v)
{
	uint32_t j;

	if (!m->k || 2 * (m->n + 1) > m->mask + 1)
		smap_resize(m, m->k ? 2 * (m->mask + 1) : 64);
	j = (uint32_t)shash(k) & m->mask;
	while (m->k[j])
		j = (j + 1) & m->mask;
	m->k[j] = k;
	m->v[j] = v;
	m->n++;
}

/* ------------------------------------------------------------ parsing */

struct pctx {
	struct fw_topo *t;
	uint32_t cap;
	char ***child_names;     /* per switch: Switches= expanded */
	uint64_t names;          /* names expanded so far (whole file) */
	struct smap byname;      /* switch name -> index */
	struct fw_err *err;
};

void fw_topo_free(struct fw_topo *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nsw; i++) {
		struct fw_topo_switch *s = &t->sw[i];

		free(s->name);
		fw_hostlist_free(s->nodes, (int)s->nnodes);
		free(s->nodes_expr);
		free(s->child);
		free(s->switches_expr);
	}
	free(t->sw);
	free(t->island_sw);
	free(t->file);
	free(t);
}

static int line_err(struct pctx *x, int line, const char *key,
		    const char *value, const char *msg)
{
	return fw_err_set(x->err, x->t->file, line, key, value, "%s", msg);
}

/* An "Include FILE" line (Slurm's parser follows it; Fairway does not). */
static int is_include(const char *line, const char **arg)
{
	while (isspace((unsigned char)*line))
		line++;
	if (strncasecmp(line, "include", 7) ||
	    !isspace((unsigned char)line[7]))
		return 0;
	line += 7;
	while (isspace((unsigned char)*line))
		line++;
	*arg = line;
	return 1;
}

/* Expand a Nodes=/Switches= hostlist within what is left of the budget. */
static int expand(struct pctx *x, int line, const char *key, const char *expr,
		  char ***names)
{
	struct fw_err e;
	uint64_t left = FW_TOPO_MAX_NAMES - x->names;
	int n;

	fw_err_clear(&e);
	n = fw_hostlist_expand(expr, names, (size_t)left, &e);
	if (n < 0)
		return fw_err_set(x->err, x->t->file, line, key, expr, "%s",
				  e.msg[0] ? e.msg : "bad hostlist");
	if (n == 0) {
		free(*names);
		*names = NULL;
		return fw_err_set(x->err, x->t->file, line, key, expr,
				  "names no %s", strcasecmp(key, "Nodes") ?
				  "switch" : "node");
	}
	x->names += (uint64_t)n;
	return n;
}

/* The keys after SwitchName= on one line: Nodes, Switches, LinkSpeed. */
static int switch_keys(struct pctx *x, int line, const struct fw_kv *kv,
		       const char **nodes, const char **switches,
		       uint32_t *speed)
{
	for (int i = 1; i < kv->n; i++) {
		const char *k = kv->key[i], *v = kv->val[i];

		if (!strcasecmp(k, "Nodes")) {
			*nodes = v;
		} else if (!strcasecmp(k, "Switches")) {
			*switches = v;
		} else if (!strcasecmp(k, "LinkSpeed")) {
			struct fw_err e;

			fw_err_clear(&e);
			if (fw_parse_uint32(v, speed, &e))
				return line_err(x, line, k, v, e.msg);
		} else if (!strcasecmp(k, "SwitchName")) {
			return line_err(x, line, k, v,
					"a second SwitchName= on one line");
		} else {
			return line_err(x, line, k, v,
					"unknown key on a SwitchName line "
					"(Nodes, Switches, LinkSpeed)");
		}
	}
	return 0;
}

/* A switch line's name and children are acceptable (before expanding). */
static int switch_valid(struct pctx *x, int line, const struct fw_kv *kv,
			const char *nodes, const char *switches)
{
	const char *name = kv->val[0];
	int64_t prior;

	if (nodes && switches)
		return fw_err_set(x->err, x->t->file, line, "Switches",
				  switches, "switch %s has both Nodes= and "
				  "Switches=", name);
	if (!nodes && !switches)
		return line_err(x, line, kv->key[0], name,
				"switch has neither Nodes= nor Switches=");
	prior = smap_get(&x->byname, name);
	if (prior >= 0)
		return fw_err_set(x->err, x->t->file, line, kv->key[0], name,
				  "switch already defined on line %d",
				  x->t->sw[prior].line);
	if (x->t->nsw >= FW_TOPO_MAX_SWITCHES)
		return fw_err_set(x->err, x->t->file, line, kv->key[0], name,
				  "more than %u switches", FW_TOPO_MAX_SWITCHES);
	return 0;
}

/* A new switch record at the end of the table (grown as needed). */
static struct fw_topo_switch *switch_append(struct pctx *x, const char *name,
					    int line, uint32_t speed)
{
	struct fw_topo_switch *s;

	if (x->t->nsw == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 16;
		x->t->sw = fw_xrealloc(x->t->sw, x->cap * sizeof(*x->t->sw));
		x->child_names = fw_xrealloc(x->child_names,
					     x->cap * sizeof(char **));
	}
	s = &x->t->sw[x->t->nsw];
	memset(s, 0, sizeof(*s));
	s->name = fw_strdup(name);
	s->line = line;
	s->link_speed = speed;
	s->island = -1;
	x->child_names[x->t->nsw] = NULL;
	return s;
}

static int add_switch(struct pctx *x, int line, const struct fw_kv *kv)
{
	const char *name = kv->val[0], *nodes = NULL, *switches = NULL;
	uint32_t speed = 1;
	struct fw_topo_switch *s;
	char **names = NULL;
	int n;

	if (!name[0])
		return line_err(x, line, kv->key[0], name, "switch has no name");
	if (strlen(name) > FW_TOPO_NAME_MAX)
		return fw_err_set(x->err, x->t->file, line, kv->key[0], name,
				  "switch name longer than %d characters "
				  "(Slurm refuses it)", FW_TOPO_NAME_MAX);
	if (switch_keys(x, line, kv, &nodes, &switches, &speed) ||
	    switch_valid(x, line, kv, nodes, switches))
		return -1;
	n = expand(x, line, nodes ? "Nodes" : "Switches",
		   nodes ? nodes : switches, &names);
	if (n < 0)
		return -1;
	s = switch_append(x, name, line, speed);
	if (nodes) {
		s->nodes = names;
		s->nnodes = (uint32_t)n;
		s->nodes_expr = fw_strdup(nodes);
	} else {
		x->child_names[x->t->nsw] = names;
		s->nchild = (uint32_t)n;   /* resolved at the end */
		s->switches_expr = fw_strdup(switches);
		s->level = -1;
	}
	smap_put(&x->byname, s->name, x->t->nsw);
	x->t->nsw++;
	return 0;
}

static int line_cb(void *ctx, const char *line, int lineno)
{
	struct pctx *x = ctx;
	struct fw_kv kv;
	const char *arg;
	int rc;

	if (is_include(line, &arg))
		return line_err(x, lineno, "Include", arg,
				"Fairway does not follow Include lines in "
				"topology.conf");
	if (fw_kv_parse(line, &kv, x->err)) {
		fw_err_locate(x->err, x->t->file, lineno);
		return -1;
	}
	if (kv.n == 0)
		rc = 0;
	else if (strcasecmp(kv.key[0], "SwitchName"))
		rc = line_err(x, lineno, kv.key[0], kv.val[0],
			      "not a topology/tree line: each line is "
			      "SwitchName=NAME with Nodes= or Switches=");
	else
		rc = add_switch(x, lineno, &kv);
	fw_kv_free(&kv);
	return rc;
}

/* Child names -> indices. */
static int resolve_children(struct pctx *x)
{
	struct fw_topo *t = x->t;

	for (uint32_t i = 0; i < t->nsw; i++) {
		struct fw_topo_switch *s = &t->sw[i];
		char **cn = x->child_names[i];

		if (!cn)
			continue;
		s->child = fw_xmalloc(s->nchild * sizeof(uint32_t));
		for (uint32_t k = 0; k < s->nchild; k++) {
			int64_t j = smap_get(&x->byname, cn[k]);

			if (j < 0)
				return fw_err_set(x->err, t->file, s->line,
						  "Switches", cn[k],
						  "switch %s: no SwitchName "
						  "line defines child %s",
						  s->name, cn[k]);
			if ((uint32_t)j == i)
				return fw_err_set(x->err, t->file, s->line,
						  "Switches", cn[k],
						  "switch %s lists itself",
						  s->name);
			s->child[k] = (uint32_t)j;
		}
	}
	return 0;
}

/*
 * Levels from the leaves up (each switch once, in the order its children
 * are all known); whatever stays unknown sits on or above a cycle.
 */
static int compute_levels(struct pctx *x)
{
	struct fw_topo *t = x->t;
	uint32_t n = t->nsw, *pending = fw_xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *pstart = fw_xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *fill, *parent, *queue = fw_xmalloc((n + 1) * sizeof(uint32_t));
	uint32_t qh = 0, qt = 0, edges = 0;
	int rc = 0;

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < t->sw[i].nchild; k++) {
			pstart[t->sw[i].child[k] + 1]++;
			edges++;
		}
	for (uint32_t i = 0; i < n; i++)
		pstart[i + 1] += pstart[i];
	parent = fw_xmalloc((edges + 1) * sizeof(uint32_t));
	fill = fw_xmalloc((n + 1) * sizeof(uint32_t));
	memcpy(fill, pstart, n * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++) {
		pending[i] = t->sw[i].nchild;
		for (uint32_t k = 0; k < t->sw[i].nchild; k++)
			parent[fill[t->sw[i].child[k]]++] = i;
		if (!t->sw[i].child)
			queue[qt++] = i;
	}
	while (qh < qt) {
		uint32_t j = queue[qh++];

		for (uint32_t e = pstart[j]; e < pstart[j + 1]; e++) {
			struct fw_topo_switch *p = &t->sw[parent[e]];

			if (p->level < t->sw[j].level + 1)
				p->level = t->sw[j].level + 1;
			if (--pending[parent[e]] == 0)
				queue[qt++] = parent[e];
		}
	}
	for (uint32_t i = 0; i < n && !rc; i++) {
		if (pending[i])
			rc = fw_err_set(x->err, t->file, t->sw[i].line,
					"Switches", t->sw[i].switches_expr,
					"switch %s is on or above a cycle of "
					"Switches= (topology.conf must be a "
					"tree)", t->sw[i].name);
		else if (t->sw[i].level > t->levels)
			t->levels = t->sw[i].level;
	}
	free(pending);
	free(pstart);
	free(fill);
	free(parent);
	free(queue);
	return rc;
}

static struct fw_topo *finish(struct pctx *x, int rc)
{
	struct fw_topo *t = x->t;

	if (!rc)
		rc = resolve_children(x);
	if (!rc)
		rc = compute_levels(x);
	if (!rc) {
		t->island_sw = fw_xmalloc((t->nsw + 1) * sizeof(uint32_t));
		for (uint32_t i = 0; i < t->nsw; i++)
			if (t->sw[i].nodes) {
				t->sw[i].island = (int32_t)t->nislands;
				t->island_sw[t->nislands++] = i;
			}
	}
	for (uint32_t i = 0; i < t->nsw; i++)
		fw_hostlist_free(x->child_names[i], (int)t->sw[i].nchild);
	free(x->child_names);
	smap_free(&x->byname);
	if (rc) {
		fw_topo_free(t);
		return NULL;
	}
	return t;
}

static void start(struct pctx *x, const char *file, struct fw_err *err)
{
	memset(x, 0, sizeof(*x));
	x->t = fw_xcalloc(1, sizeof(*x->t));
	x->t->file = fw_strdup(file ? file : "topology.conf");
	x->err = err;
	fw_err_clear(err);
}

struct fw_topo *fw_topo_parse(const char *file, const char *buf, size_t len,
			      struct fw_err *err)
{
	struct fw_err local;
	struct pctx x;

	if (!err)
		err = &local;
	start(&x, file, err);
	return finish(&x, fw_read_lines_mem(buf, len, line_cb, &x));
}

struct fw_topo *fw_topo_read(const char *path, struct fw_err *err)
{
	struct fw_err local;
	struct pctx x;

	if (!err)
		err = &local;
	start(&x, path, err);
	return finish(&x, fw_read_lines(path, line_cb, &x, err));
}

/* ------------------------------------------------------------ islands */

const char *fw_topo_island_name(const struct fw_topo *t, uint32_t k)
{
	return t && k < t->nislands ? t->sw[t->island_sw[k]].name : NULL;
}

uint32_t fw_topo_islands(const struct fw_topo *t, const char *const *names,
			 uint32_t nnodes, int32_t *island,
			 struct fw_topo_warn *w)
{
	struct fw_topo_warn local;
	struct smap m = { 0 };
	const struct fw_topo_switch *unk_sw = NULL, *multi_sw = NULL;
	const char *unk_name = NULL, *multi_name = NULL;
	int32_t multi_first = -1;
	uint8_t *used;
	uint32_t nused = 0;

	if (!w)
		w = &local;
	memset(w, 0, sizeof(*w));
	for (uint32_t i = 0; i < nnodes; i++) {
		island[i] = -1;
		if (names[i] && smap_get(&m, names[i]) < 0)
			smap_put(&m, names[i], i);
	}
	if (!t || !t->nislands) {
		for (uint32_t i = 0; i < nnodes; i++)
			w->outside += names[i] != NULL;
		smap_free(&m);
		return 0;
	}
	used = fw_xcalloc(t->nislands, 1);
	for (uint32_t k = 0; k < t->nislands; k++) {
		const struct fw_topo_switch *s = &t->sw[t->island_sw[k]];

		for (uint32_t j = 0; j < s->nnodes; j++) {
			int64_t idx = smap_get(&m, s->nodes[j]);

			if (idx < 0) {
				if (!w->unknown++) {
					unk_sw = s;
					unk_name = s->nodes[j];
				}
			} else if (island[idx] < 0) {
				island[idx] = (int32_t)k;
				used[k] = 1;
			} else if (island[idx] != (int32_t)k) {
				if (!w->multi++) {
					multi_sw = s;
					multi_name = s->nodes[j];
					multi_first = island[idx];
				}
			}
		}
	}
	for (uint32_t k = 0; k < t->nislands; k++)
		nused += used[k];
	for (uint32_t i = 0; i < nnodes; i++)
		w->outside += names[i] && island[i] < 0;
	if (w->unknown)
		fw_err_set(&w->first_unknown, t->file, unk_sw->line, "Nodes",
			   unk_name, "switch %s names a node the cluster does "
			   "not have; ignored, as Slurm does (%u such names "
			   "in all)", unk_sw->name, w->unknown);
	if (w->multi)
		fw_err_set(&w->first_multi, t->file, multi_sw->line, "Nodes",
			   multi_name, "node is also under leaf switch %s, "
			   "whose island keeps it (%u such nodes in all)",
			   fw_topo_island_name(t, (uint32_t)multi_first),
			   w->multi);
	free(used);
	smap_free(&m);
	return nused;
}
