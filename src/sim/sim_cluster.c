/*
 * sim_cluster.c - slurm.conf, topology.conf and sacctmgr dump readers.
 *
 * Only the parts of slurm.conf that describe the machine are interpreted
 * here (NodeName, PartitionName, Licenses, Include).  Every other key is
 * kept with its location so that the core modules, which own their
 * meaning, parse it (see sim_core.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "sim_cluster.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------- the cluster */

void sim_cluster_init(struct sim_cluster *c)
{
	memset(c, 0, sizeof(*c));
	sim_strtab_init(&c->str);
	c->default_part = -1;
	c->node_mask = 63;
	c->node_slot = fw_xmalloc((c->node_mask + 1) * sizeof(int));
	for (size_t i = 0; i <= c->node_mask; i++)
		c->node_slot[i] = -1;
}

void sim_cluster_free(struct sim_cluster *c)
{
	for (size_t i = 0; i < c->nparts; i++) {
		free(c->part[i].node);
		free(c->part[i].nodes_expr);
		free(c->part[i].file);
	}
	for (size_t i = 0; i < c->nkeys; i++) {
		free(c->key[i].key);
		free(c->key[i].value);
		free(c->key[i].file);
	}
	free(c->key);
	free(c->conf_file);
	free(c->part);
	free(c->node);
	free(c->lic);
	free(c->island_name);
	free(c->node_slot);
	sim_strtab_free(&c->str);
	memset(c, 0, sizeof(*c));
}

static size_t ptr_hash(const void *p)
{
	uintptr_t v = (uintptr_t)p;

	v ^= v >> 17;
	v *= 0x9E3779B97F4A7C15ull;
	return (size_t)(v ^ (v >> 29));
}

static void node_index_grow(struct sim_cluster *c)
{
	size_t nsize = (c->node_mask + 1) * 2;
	int *ns = fw_xmalloc(nsize * sizeof(int));

	for (size_t i = 0; i < nsize; i++)
		ns[i] = -1;
	for (size_t i = 0; i < c->nnodes; i++) {
		size_t j = ptr_hash(c->node[i].name) & (nsize - 1);
		while (ns[j] >= 0)
			j = (j + 1) & (nsize - 1);
		ns[j] = (int)i;
	}
	free(c->node_slot);
	c->node_slot = ns;
	c->node_mask = nsize - 1;
}

/* Index of an interned name, or -1. */
static int node_lookup(const struct sim_cluster *c, const char *iname)
{
	size_t j = ptr_hash(iname) & c->node_mask;

	while (c->node_slot[j] >= 0) {
		if (c->node[c->node_slot[j]].name == iname)
			return c->node_slot[j];
		j = (j + 1) & c->node_mask;
	}
	return -1;
}

/* Does v contain w, case-insensitively? */
static bool has_word(const char *v, const char *w)
{
	size_t n = strlen(w);

	for (; *v; v++)
		if (!strncasecmp(v, w, n))
			return true;
	return false;
}

int sim_preempt_mode_parse(const char *v, enum sim_preempt_mode *m,
			   const char **why)
{
	static const char *const name[] = { "OFF", "CANCEL", "REQUEUE" };

	for (int i = 0; i < 3; i++)
		if (!strcasecmp(v, name[i])) {
			*m = (enum sim_preempt_mode)(SIM_PMODE_OFF + i);
			return 0;
		}
	/* Suspension and gang time slicing keep victims in memory and
	   share time slices: nothing the simulator models. */
	if (has_word(v, "SUSPEND") || has_word(v, "GANG"))
		*why = "SUSPEND and GANG are not simulated (use REQUEUE or CANCEL)";
	else if (has_word(v, "WITHIN") || has_word(v, "PRIORITY"))
		*why = "WITHIN and PRIORITY are not simulated (use REQUEUE or CANCEL)";
	else
		*why = "expected OFF, CANCEL or REQUEUE";
	return -1;
}

const char *sim_preempt_mode_name(enum sim_preempt_mode m)
{
	switch (m) {
	case SIM_PMODE_OFF: return "OFF";
	case SIM_PMODE_CANCEL: return "CANCEL";
	case SIM_PMODE_REQUEUE: return "REQUEUE";
	default: return "(unset)";
	}
}

int sim_cluster_find_node(const struct sim_cluster *c, const char *name)
{
	const char *iname = sim_strtab_find(&c->str, name);

	return iname ? node_lookup(c, iname) : -1;
}

int sim_cluster_find_part(const struct sim_cluster *c, const char *name)
{
	for (size_t i = 0; i < c->nparts; i++)
		if (name && !strcmp(c->part[i].name, name))
			return (int)i;
	return -1;
}

const struct sim_conf_key *sim_cluster_key(const struct sim_cluster *c,
					   const char *key)
{
	for (size_t i = c->nkeys; i-- > 0;)
		if (fw_streq(c->key[i].key, key))
			return &c->key[i];
	return NULL;
}

/* ------------------------------------------------------------ slurm.conf */

struct node_tmpl {
	bool cpus_set;
	uint32_t cpus, boards, sockets_per_board, sockets, cores, threads;
	uint64_t mem_mb;
	uint32_t gpus;
	const char *features;
	uint32_t weight;
};

struct part_tmpl {
	uint32_t prio_job_factor, prio_tier;
	int64_t max_time, default_time;
	const char *qos;
	bool up, exclusive;
	enum sim_preempt_mode preempt_mode;
	int64_t grace;
	char *nodes_expr;
};

struct conf_ctx {
	struct sim_cluster *c;
	const char *name;
	int depth;
	struct fw_err *err;
	struct node_tmpl ndef;
	struct part_tmpl pdef;
};

static int kv_err(struct fw_err *err, const char *key, const char *value,
		  const char *msg)
{
	return fw_err_set(err, NULL, 0, key, value, "%s", msg);
}

static int get_u32(const char *key, const char *v, uint32_t *out,
		   struct fw_err *err)
{
	struct fw_err e;

	fw_err_clear(&e);
	if (fw_parse_uint32(v, out, &e))
		return kv_err(err, key, v, e.msg);
	return 0;
}

/* Gres=gpu:4,gpu:a100:2(S:0),mps:100 -> GPUs 6. */
static int parse_gres_gpus(const char *v, uint32_t *gpus, struct fw_err *err)
{
	char buf[512];
	char *save = NULL;
	uint64_t total = 0;

	if (strlen(v) >= sizeof(buf))
		return kv_err(err, "Gres", v, "value too long");
	strcpy(buf, v);
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *paren = strchr(tok, '(');
		uint64_t n = 1;

		if (paren)
			*paren = '\0';
		if (strncasecmp(tok, "gpu", 3) || (tok[3] && tok[3] != ':'))
			continue;
		/* gpu, gpu:N, gpu:type, gpu:type:N */
		char *first = strchr(tok, ':');
		char *last = strrchr(tok, ':');
		bool typed_count = first && last != first;
		if (last && (typed_count || isdigit((unsigned char)last[1]))) {
			if (sim_parse_count(last + 1, 1000000, &n))
				return kv_err(err, "Gres", v, "bad GPU count (gpu[:type][:count])");
		}
		total += n;
	}
	if (total > 1000000)
		return kv_err(err, "Gres", v, "too many GPUs");
	*gpus = (uint32_t)total;
	return 0;
}

static int node_attr(struct conf_ctx *x, struct node_tmpl *t, const char *k,
		     const char *v)
{
	struct fw_err *err = x->err;
	struct fw_err e;

	fw_err_clear(&e);
	if (!strcasecmp(k, "CPUs") || !strcasecmp(k, "Procs")) {
		t->cpus_set = true;
		return get_u32(k, v, &t->cpus, err);
	}
	if (!strcasecmp(k, "Boards"))
		return get_u32(k, v, &t->boards, err);
	if (!strcasecmp(k, "SocketsPerBoard"))
		return get_u32(k, v, &t->sockets_per_board, err);
	if (!strcasecmp(k, "Sockets"))
		return get_u32(k, v, &t->sockets, err);
	if (!strcasecmp(k, "CoresPerSocket"))
		return get_u32(k, v, &t->cores, err);
	if (!strcasecmp(k, "ThreadsPerCore"))
		return get_u32(k, v, &t->threads, err);
	if (!strcasecmp(k, "Weight"))
		return get_u32(k, v, &t->weight, err);
	if (!strcasecmp(k, "RealMemory")) {
		if (fw_parse_mem_mb(v, &t->mem_mb, &e))
			return kv_err(err, k, v, e.msg);
		return 0;
	}
	if (!strcasecmp(k, "Gres"))
		return parse_gres_gpus(v, &t->gpus, err);
	if (!strcasecmp(k, "Feature") || !strcasecmp(k, "Features")) {
		t->features = v[0] ? sim_intern(&x->c->str, v) : NULL;
		return 0;
	}
	return 0; /* NodeAddr, Port, TmpDisk, State, ...: not simulated */
}

static uint32_t tmpl_cpus(const struct node_tmpl *t)
{
	uint64_t sockets, cpus;

	if (t->cpus_set)
		return t->cpus;
	sockets = t->sockets ? t->sockets
		  : (uint64_t)(t->boards ? t->boards : 1) *
			  (t->sockets_per_board ? t->sockets_per_board : 1);
	cpus = sockets * (t->cores ? t->cores : 1) *
	       (t->threads ? t->threads : 1);
	return cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
}

static int add_node(struct sim_cluster *c, const char *name,
		    const struct node_tmpl *t, struct fw_err *err)
{
	const char *iname = sim_intern(&c->str, name);

	if (node_lookup(c, iname) >= 0)
		return kv_err(err, "NodeName", name, "node defined twice");
	if (c->nnodes >= SIM_MAX_CLUSTER_NODES)
		return kv_err(err, "NodeName", name, "too many nodes");
	if (c->nnodes == c->node_cap) {
		c->node_cap = c->node_cap ? c->node_cap * 2 : 64;
		c->node = fw_xrealloc(c->node, c->node_cap * sizeof(*c->node));
	}
	struct sim_node *n = &c->node[c->nnodes++];
	n->name = iname;
	n->cpus = tmpl_cpus(t);
	n->mem_mb = t->mem_mb;
	n->gpus = t->gpus;
	n->features = t->features;
	n->weight = t->weight ? t->weight : 1;
	n->island = -1;
	if ((c->nnodes + 1) * 2 > c->node_mask + 1)
		node_index_grow(c);
	else {
		size_t j = ptr_hash(iname) & c->node_mask;
		while (c->node_slot[j] >= 0)
			j = (j + 1) & c->node_mask;
		c->node_slot[j] = (int)(c->nnodes - 1);
	}
	if (n->cpus == 0)
		return kv_err(err, "CPUs", "0", "a node needs at least one CPU");
	return 0;
}

static int node_line(struct conf_ctx *x, const struct fw_kv *kv)
{
	struct node_tmpl t = x->ndef;
	bool is_default = !strcasecmp(kv->val[0], "DEFAULT");
	char **names = NULL;
	int n;

	for (int i = 1; i < kv->n; i++)
		if (node_attr(x, &t, kv->key[i], kv->val[i]))
			return -1;
	if (is_default) {
		x->ndef = t;
		return 0;
	}
	n = fw_hostlist_expand(kv->val[0], &names, SIM_MAX_CLUSTER_NODES,
			       x->err);
	if (n < 0) {
		fw_err_set(x->err, NULL, 0, "NodeName", kv->val[0], "%s",
			   x->err && x->err->msg[0] ? x->err->msg
						     : "bad hostlist");
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = add_node(x->c, names[i], &t, x->err);
	fw_hostlist_free(names, n);
	return rc;
}

static int part_attr(struct conf_ctx *x, struct part_tmpl *t, const char *k,
		     const char *v)
{
	struct fw_err *err = x->err;
	struct fw_err e;
	int64_t sec;

	fw_err_clear(&e);
	if (!strcasecmp(k, "Nodes")) {
		free(t->nodes_expr);
		t->nodes_expr = fw_strdup(v);
		return 0;
	}
	if (!strcasecmp(k, "PriorityJobFactor"))
		return get_u32(k, v, &t->prio_job_factor, err);
	if (!strcasecmp(k, "PriorityTier"))
		return get_u32(k, v, &t->prio_tier, err);
	if (!strcasecmp(k, "Priority")) { /* old name: sets both */
		if (get_u32(k, v, &t->prio_job_factor, err))
			return -1;
		t->prio_tier = t->prio_job_factor;
		return 0;
	}
	if (!strcasecmp(k, "MaxTime") || !strcasecmp(k, "DefaultTime")) {
		if (fw_parse_duration(v, true, &sec, &e))
			return kv_err(err, k, v, e.msg);
		if (sec == 0)
			return kv_err(err, k, v, "a time limit must be positive");
		if (!strcasecmp(k, "MaxTime"))
			t->max_time = sec;
		else
			t->default_time = sec;
		return 0;
	}
	if (!strcasecmp(k, "QOS")) {
		t->qos = v[0] ? sim_intern(&x->c->str, v) : NULL;
		return 0;
	}
	if (!strcasecmp(k, "State")) {
		if (!strcasecmp(v, "UP"))
			t->up = true;
		else if (!strcasecmp(v, "DOWN") || !strcasecmp(v, "DRAIN") ||
			 !strcasecmp(v, "INACTIVE"))
			t->up = false;
		else
			return kv_err(err, k, v, "expected UP, DOWN, DRAIN or INACTIVE");
		return 0;
	}
	if (!strcasecmp(k, "OverSubscribe") || !strcasecmp(k, "Shared")) {
		t->exclusive = !strncasecmp(v, "EXCLUSIVE", 9);
		return 0;
	}
	if (!strcasecmp(k, "PreemptMode")) {
		const char *why = NULL;
		if (sim_preempt_mode_parse(v, &t->preempt_mode, &why))
			return kv_err(err, k, v, why);
		return 0;
	}
	if (!strcasecmp(k, "GraceTime")) { /* seconds, as slurm.conf says */
		uint32_t g;
		if (get_u32(k, v, &g, err))
			return -1;
		t->grace = g;
		return 0;
	}
	return 0; /* MaxNodes, AllowAccounts, ...: not simulated */
}

static int part_line(struct conf_ctx *x, const struct fw_kv *kv, int lineno)
{
	struct sim_cluster *c = x->c;
	struct part_tmpl t = x->pdef;
	bool is_default_line = !strcasecmp(kv->val[0], "DEFAULT");
	bool dflt = false;
	int rc = 0;

	t.nodes_expr = x->pdef.nodes_expr ? fw_strdup(x->pdef.nodes_expr) : NULL;
	for (int i = 1; i < kv->n && !rc; i++) {
		if (!strcasecmp(kv->key[i], "Default")) {
			struct fw_err e;
			if (fw_parse_bool(kv->val[i], &dflt, &e))
				rc = kv_err(x->err, kv->key[i], kv->val[i], e.msg);
			continue;
		}
		rc = part_attr(x, &t, kv->key[i], kv->val[i]);
	}
	if (rc || is_default_line) {
		if (!rc) {
			free(x->pdef.nodes_expr);
			x->pdef = t;
		} else {
			free(t.nodes_expr);
		}
		return rc;
	}
	if (!kv->val[0][0] || sim_cluster_find_part(c, kv->val[0]) >= 0) {
		free(t.nodes_expr);
		return kv_err(x->err, "PartitionName", kv->val[0],
			      kv->val[0][0] ? "partition defined twice"
					    : "empty partition name");
	}
	if (c->nparts == c->part_cap) {
		c->part_cap = c->part_cap ? c->part_cap * 2 : 8;
		c->part = fw_xrealloc(c->part, c->part_cap * sizeof(*c->part));
	}
	struct sim_partition *p = &c->part[c->nparts++];
	memset(p, 0, sizeof(*p));
	p->name = sim_intern(&c->str, kv->val[0]);
	p->prio_job_factor = t.prio_job_factor;
	p->prio_tier = t.prio_tier;
	p->max_time = t.max_time;
	p->default_time = t.default_time;
	p->qos = t.qos;
	p->up = t.up;
	p->exclusive = t.exclusive;
	p->preempt_mode = t.preempt_mode;
	p->grace = t.grace;
	p->is_default = dflt;
	p->nodes_expr = t.nodes_expr;
	p->file = fw_strdup(x->name);
	p->lineno = lineno;
	if (dflt)
		c->default_part = (int)(c->nparts - 1);
	return 0;
}

/* Licenses=matlab:10,ansys*2 */
static int licenses_key(struct sim_cluster *c, const char *v,
			struct fw_err *err)
{
	char buf[1024];
	char *save = NULL;

	if (strlen(v) >= sizeof(buf))
		return kv_err(err, "Licenses", v, "value too long");
	strcpy(buf, v);
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *sep = strpbrk(tok, ":*");
		uint64_t n = 1;

		if (sep) {
			*sep = '\0';
			if (sim_parse_count(sep + 1, 10000000, &n))
				return kv_err(err, "Licenses", v, "bad license count");
		}
		if (!tok[0])
			return kv_err(err, "Licenses", v, "a license needs a name");
		const char *name = sim_intern(&c->str, tok);
		for (size_t i = 0; i < c->nlic; i++)
			if (c->lic[i].name == name)
				return kv_err(err, "Licenses", v, "license listed twice");
		c->lic = fw_xrealloc(c->lic, (c->nlic + 1) * sizeof(*c->lic));
		c->lic[c->nlic].name = name;
		c->lic[c->nlic].count = (uint32_t)n;
		c->nlic++;
	}
	return 0;
}

static void keep_key(struct sim_cluster *c, const char *k, const char *v,
		     const char *file, int lineno)
{
	if (c->nkeys == c->key_cap) {
		c->key_cap = c->key_cap ? c->key_cap * 2 : 32;
		c->key = fw_xrealloc(c->key, c->key_cap * sizeof(*c->key));
	}
	c->key[c->nkeys].key = fw_strdup(k);
	c->key[c->nkeys].value = fw_strdup(v);
	c->key[c->nkeys].file = fw_strdup(file);
	c->key[c->nkeys].lineno = lineno;
	c->nkeys++;
}

static int read_conf_buf(struct conf_ctx *x, const char *buf, size_t len);

/* Include a file relative to the directory of the including one. */
static int include_file(struct conf_ctx *x, const char *arg)
{
	char path[4096];
	const char *slash = strrchr(x->name, '/');
	struct fw_err *err = x->err;

	while (*arg == ' ' || *arg == '\t')
		arg++;
	if (!*arg)
		return kv_err(err, "Include", "", "no file name");
	if (x->depth >= SIM_MAX_INCLUDE_DEPTH)
		return kv_err(err, "Include", arg, "includes nested too deeply (a loop?)");
	if (arg[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", arg);
	else
		snprintf(path, sizeof(path), "%.*s/%s",
			 (int)(slash - x->name), x->name, arg);

	size_t len;
	struct fw_err e;
	fw_err_clear(&e);
	char *buf = sim_slurp(path, &len, &e);
	if (!buf)
		return kv_err(err, "Include", arg, e.msg);
	struct conf_ctx sub = *x;
	sub.name = path;
	sub.depth = x->depth + 1;
	int rc = read_conf_buf(&sub, buf, len);
	x->ndef = sub.ndef;
	x->pdef = sub.pdef;
	free(buf);
	return rc ? -2 : 0; /* -2: already located in the included file */
}

/* SelectType=select/linear | select/cons_tres | select/cons_res */
static int select_type_key(struct sim_cluster *c, const char *v,
			   struct fw_err *err)
{
	if (!strcasecmp(v, "select/linear"))
		c->whole_nodes = true;
	else if (!strcasecmp(v, "select/cons_tres") ||
		 !strcasecmp(v, "select/cons_res"))
		c->whole_nodes = false;
	else
		return kv_err(err, "SelectType", v,
			      "expected select/cons_tres, select/cons_res or "
			      "select/linear");
	return 0;
}

static int conf_line_cb(void *ctx, const char *line, int lineno)
{
	struct conf_ctx *x = ctx;
	struct fw_kv kv;
	int rc = 0;
	const char *p = line;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncasecmp(p, "include", 7) &&
	    (p[7] == ' ' || p[7] == '\t' || p[7] == '\0')) {
		rc = include_file(x, p + 7);
		if (rc == -1)
			fw_err_locate(x->err, x->name, lineno);
		return rc ? -1 : 0;
	}
	if (fw_kv_parse(line, &kv, x->err)) {
		fw_err_locate(x->err, x->name, lineno);
		return -1;
	}
	if (kv.n == 0) {
		fw_kv_free(&kv);
		return 0;
	}
	if (!strcasecmp(kv.key[0], "NodeName"))
		rc = node_line(x, &kv);
	else if (!strcasecmp(kv.key[0], "PartitionName"))
		rc = part_line(x, &kv, lineno);
	else if (!strcasecmp(kv.key[0], "NodeSet") ||
		 !strcasecmp(kv.key[0], "DownNodes") ||
		 !strcasecmp(kv.key[0], "FrontendName"))
		rc = 0;
	else
		for (int i = 0; i < kv.n && !rc; i++) {
			if (!strcasecmp(kv.key[i], "Licenses"))
				rc = licenses_key(x->c, kv.val[i], x->err);
			else if (!strcasecmp(kv.key[i], "SelectType"))
				rc = select_type_key(x->c, kv.val[i], x->err);
			else
				keep_key(x->c, kv.key[i], kv.val[i], x->name,
					 lineno);
		}
	fw_kv_free(&kv);
	if (rc)
		fw_err_locate(x->err, x->name, lineno);
	return rc ? -1 : 0;
}

static int read_conf_buf(struct conf_ctx *x, const char *buf, size_t len)
{
	return fw_read_lines_mem(buf, len, conf_line_cb, x) ? -1 : 0;
}

static void conf_ctx_init(struct conf_ctx *x, struct sim_cluster *c,
			  const char *name, struct fw_err *err)
{
	memset(x, 0, sizeof(*x));
	x->c = c;
	x->name = name;
	x->err = err;
	x->pdef.max_time = -1;
	x->pdef.default_time = -1;
	x->pdef.up = true;
}

int sim_read_slurm_conf_mem(struct sim_cluster *c, const char *name,
			    const char *buf, size_t len, struct fw_err *err)
{
	struct conf_ctx x;
	struct fw_err e;
	int rc;

	fw_err_clear(&e);
	if (!c->conf_file)
		c->conf_file = fw_strdup(name);
	conf_ctx_init(&x, c, name, &e);
	rc = read_conf_buf(&x, buf, len);
	free(x.pdef.nodes_expr);
	if (rc && err)
		*err = e;
	return rc;
}

int sim_read_slurm_conf(struct sim_cluster *c, const char *path,
			struct fw_err *err)
{
	size_t len;
	char *buf = sim_slurp(path, &len, err);
	int rc;

	if (!buf)
		return -1;
	rc = sim_read_slurm_conf_mem(c, path, buf, len, err);
	free(buf);
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Nodes=ALL or a hostlist of defined nodes. */
static int resolve_part_nodes(struct sim_cluster *c, struct sim_partition *p,
			      struct fw_err *err)
{
	char **names = NULL;
	int n;

	if (!p->nodes_expr || !p->nodes_expr[0])
		return fw_err_set(err, p->file, p->lineno, "PartitionName",
				  p->name, "partition has no Nodes=");
	if (!strcasecmp(p->nodes_expr, "ALL")) {
		p->node = fw_xmalloc((c->nnodes ? c->nnodes : 1) * sizeof(uint32_t));
		for (size_t i = 0; i < c->nnodes; i++)
			p->node[i] = (uint32_t)i;
		p->nnodes = c->nnodes;
		return 0;
	}
	n = fw_hostlist_expand(p->nodes_expr, &names, SIM_MAX_CLUSTER_NODES, err);
	if (n < 0)
		return fw_err_set(err, p->file, p->lineno, "Nodes",
				  p->nodes_expr, "%s",
				  err && err->msg[0] ? err->msg : "bad hostlist");
	p->node = fw_xmalloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	p->nnodes = 0;
	for (int i = 0; i < n; i++) {
		int idx = sim_cluster_find_node(c, names[i]);
		if (idx < 0) {
			fw_err_set(err, p->file, p->lineno, "Nodes", names[i],
				   "partition %s names a node no NodeName line defines",
				   p->name);
			fw_hostlist_free(names, n);
			return -1;
		}
		p->node[p->nnodes++] = (uint32_t)idx;
	}
	fw_hostlist_free(names, n);
	qsort(p->node, p->nnodes, sizeof(uint32_t), cmp_u32);
	size_t w = 0; /* drop duplicates */
	for (size_t i = 0; i < p->nnodes; i++)
		if (!w || p->node[w - 1] != p->node[i])
			p->node[w++] = p->node[i];
	p->nnodes = w;
	return 0;
}

int sim_cluster_finish(struct sim_cluster *c, struct fw_err *err)
{
	if (c->nnodes == 0)
		return fw_err_set(err, c->conf_file, 0, NULL, NULL,
				  "slurm.conf defines no nodes (NodeName=)");
	if (c->nparts == 0)
		return fw_err_set(err, c->conf_file, 0, NULL, NULL,
				  "slurm.conf defines no partition (PartitionName=)");
	for (size_t i = 0; i < c->nparts; i++)
		if (!c->part[i].node && resolve_part_nodes(c, &c->part[i], err))
			return -1;
	if (c->default_part < 0)
		c->default_part = 0;
	c->total_cpus = c->total_mem_mb = c->total_gpus = 0;
	for (size_t i = 0; i < c->nnodes; i++) {
		c->total_cpus += c->node[i].cpus;
		c->total_mem_mb += c->node[i].mem_mb;
		c->total_gpus += c->node[i].gpus;
	}
	return 0;
}

/* --------------------------------------------------------- topology.conf */

/*
 * The core's reader (fw_topo, shared with sched/fairway): leaf switches
 * become islands, numbered in the order of their lines.  Reading a file
 * replaces the islands of an earlier one.  What Slurm only warns about
 * (Nodes= names that are not nodes, nodes under several leaf switches)
 * is kept in c->topo_warn for the caller to print.
 */
static int use_topology(struct sim_cluster *c, struct fw_topo *t)
{
	const char **names;
	int32_t *island;

	if (!t)
		return -1;
	names = fw_xmalloc((c->nnodes ? c->nnodes : 1) * sizeof(*names));
	island = fw_xmalloc((c->nnodes ? c->nnodes : 1) * sizeof(*island));
	for (size_t i = 0; i < c->nnodes; i++)
		names[i] = c->node[i].name;
	fw_topo_islands(t, names, (uint32_t)c->nnodes, island, &c->topo_warn);
	for (size_t i = 0; i < c->nnodes; i++)
		c->node[i].island = island[i];
	free(c->island_name);
	c->nislands = t->nislands;
	c->island_name = fw_xmalloc((t->nislands ? t->nislands : 1) *
				    sizeof(char *));
	for (uint32_t k = 0; k < t->nislands; k++)
		c->island_name[k] = sim_intern(&c->str,
					       fw_topo_island_name(t, k));
	free(names);
	free(island);
	fw_topo_free(t);
	return 0;
}

int sim_read_topology_mem(struct sim_cluster *c, const char *name,
			  const char *buf, size_t len, struct fw_err *err)
{
	return use_topology(c, fw_topo_parse(name, buf, len, err));
}

int sim_read_topology(struct sim_cluster *c, const char *path,
		      struct fw_err *err)
{
	return use_topology(c, fw_topo_read(path, err));
}

/* ---------------------------------------------------------- sacctmgr dump */

void sim_assocs_init(struct sim_assocs *a)
{
	memset(a, 0, sizeof(*a));
	sim_strtab_init(&a->str);
	a->root_shares = 1;
}

void sim_assocs_free(struct sim_assocs *a)
{
	free(a->acct);
	free(a->user);
	free(a->qos);
	sim_strtab_free(&a->str);
	memset(a, 0, sizeof(*a));
}

int sim_assocs_find_acct(const struct sim_assocs *a, const char *name)
{
	for (size_t i = 0; i < a->nacct; i++)
		if (name && !strcasecmp(a->acct[i].name, name))
			return (int)i;
	return -1;
}

int sim_assocs_find_user(const struct sim_assocs *a, const char *account,
			 const char *user)
{
	for (size_t i = 0; i < a->nuser; i++)
		if (user && account && !strcmp(a->user[i].name, user) &&
		    !strcasecmp(a->user[i].account, account))
			return (int)i;
	return -1;
}

const struct sim_qos *sim_assocs_find_qos(const struct sim_assocs *a,
					  const char *name)
{
	for (size_t i = 0; i < a->nqos; i++)
		if (name && !strcasecmp(a->qos[i].name, name))
			return &a->qos[i];
	return NULL;
}

const char *sim_assocs_default_account(const struct sim_assocs *a,
				       const char *user)
{
	for (size_t i = 0; i < a->nuser; i++)
		if (user && !strcmp(a->user[i].name, user) &&
		    a->user[i].default_account)
			return a->user[i].default_account;
	return NULL;
}

uint32_t sim_assocs_priority(const struct sim_assocs *a, const char *account,
			     const char *user)
{
	int u = sim_assocs_find_user(a, account, user);
	int ac = sim_assocs_find_acct(a, account);

	if (u >= 0 && a->user[u].has_priority)
		return a->user[u].priority;
	/* Walk up; the depth bound guards against a parent cycle. */
	for (size_t depth = 0; ac >= 0 && depth <= a->nacct; depth++) {
		if (a->acct[ac].has_priority)
			return a->acct[ac].priority;
		ac = sim_assocs_find_acct(a, a->acct[ac].parent);
	}
	return 0;
}

/* One "Key=Value" or "Key='Value'" of a dump line. */
struct dump_field {
	char key[64];
	char val[512];
};

/* Read 'quoted' or bare text up to ':' into out; *pp moves past it. */
static int dump_value(const char **pp, char *out, size_t len)
{
	const char *p = *pp;
	size_t n = 0;

	if (*p == '\'') {
		p++;
		while (*p && *p != '\'') {
			if (n + 1 >= len)
				return -1;
			out[n++] = *p++;
		}
		if (*p != '\'')
			return -1;
		p++;
	} else {
		while (*p && *p != ':') {
			if (n + 1 >= len)
				return -1;
			out[n++] = *p++;
		}
		while (n && isspace((unsigned char)out[n - 1]))
			n--;
	}
	out[n] = '\0';
	*pp = p;
	return 0;
}

static int dump_fields(const char *p, char *name, size_t nlen,
		       struct dump_field *f, int max, int *nf)
{
	*nf = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (dump_value(&p, name, nlen) || !name[0])
		return -1;
	while (*p) {
		if (*p != ':' || *nf == max)
			return -1;
		p++;
		const char *eq = strchr(p, '=');
		if (!eq || (size_t)(eq - p) >= sizeof(f->key) || eq == p)
			return -1;
		memcpy(f[*nf].key, p, (size_t)(eq - p));
		f[*nf].key[eq - p] = '\0';
		p = eq + 1;
		if (dump_value(&p, f[*nf].val, sizeof(f->val)))
			return -1;
		(*nf)++;
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
	}
	return 0;
}

struct dump_ctx {
	struct sim_assocs *a;
	const char *name;
	struct fw_err *err;
	const char *parent;
};

static int dump_shares(const char *v, uint32_t *out, struct fw_err *err)
{
	uint64_t n;

	if (!strcasecmp(v, "parent")) {
		*out = SIM_SHARES_PARENT;
		return 0;
	}
	if (sim_parse_count(v, SIM_SHARES_PARENT - 1, &n))
		return kv_err(err, "Fairshare", v, "expected a share count or parent");
	*out = (uint32_t)n;
	return 0;
}

/* Fairshare= and Priority= mean the same on Account and User lines.
 * Returns 1 when the field was one of them, 0 when not, -1 on error. */
static int dump_share_field(struct dump_ctx *x, const struct dump_field *f,
			    uint32_t *shares, uint32_t *priority,
			    bool *has_priority)
{
	if (!strcasecmp(f->key, "Fairshare"))
		return dump_shares(f->val, shares, x->err) ? -1 : 1;
	if (!strcasecmp(f->key, "Priority")) {
		if (get_u32("Priority", f->val, priority, x->err))
			return -1;
		*has_priority = true;
		return 1;
	}
	return 0;
}

static int dump_account(struct dump_ctx *x, const char *name,
			const struct dump_field *f, int nf, int lineno)
{
	struct sim_assocs *a = x->a;

	if (sim_assocs_find_acct(a, name) >= 0 || !strcasecmp(name, "root"))
		return kv_err(x->err, "Account", name, "account defined twice");
	if (a->nacct == a->acct_cap) {
		a->acct_cap = a->acct_cap ? a->acct_cap * 2 : 16;
		a->acct = fw_xrealloc(a->acct, a->acct_cap * sizeof(*a->acct));
	}
	struct sim_acct *ac = &a->acct[a->nacct];
	memset(ac, 0, sizeof(*ac));
	ac->name = sim_intern(&a->str, name);
	ac->parent = x->parent;
	ac->shares = 1;
	ac->lineno = lineno;
	for (int i = 0; i < nf; i++)
		if (dump_share_field(x, &f[i], &ac->shares, &ac->priority,
				     &ac->has_priority) < 0)
			return -1;
	a->nacct++;
	return 0;
}

static int dump_user(struct dump_ctx *x, const char *name,
		     const struct dump_field *f, int nf, int lineno)
{
	struct sim_assocs *a = x->a;

	if (sim_assocs_find_user(a, x->parent, name) >= 0)
		return kv_err(x->err, "User", name, "user defined twice under this account");
	if (a->nuser == a->user_cap) {
		a->user_cap = a->user_cap ? a->user_cap * 2 : 16;
		a->user = fw_xrealloc(a->user, a->user_cap * sizeof(*a->user));
	}
	struct sim_user *u = &a->user[a->nuser];
	memset(u, 0, sizeof(*u));
	u->name = sim_intern(&a->str, name);
	u->account = x->parent;
	u->shares = 1;
	u->lineno = lineno;
	for (int i = 0; i < nf; i++) {
		int r = dump_share_field(x, &f[i], &u->shares, &u->priority,
					 &u->has_priority);
		if (r < 0)
			return -1;
		if (!r && !strcasecmp(f[i].key, "DefaultAccount"))
			u->default_account = sim_intern(&a->str, f[i].val);
	}
	a->nuser++;
	return 0;
}

/* The QOS's preemption fields (sacctmgr's names and units: GraceTime in
 * seconds, PreemptExemptTime a duration).  1: was one, 0: not, -1: bad. */
static int dump_qos_preempt(struct dump_ctx *x, struct sim_qos *q,
			    const struct dump_field *f)
{
	struct fw_err e;
	const char *why = NULL;

	fw_err_clear(&e);
	if (!strcasecmp(f->key, "Preempt")) {
		q->preempt = f->val[0] ? sim_intern(&x->a->str, f->val) : NULL;
		return 1;
	}
	if (!strcasecmp(f->key, "PreemptMode")) {
		if (sim_preempt_mode_parse(f->val, &q->preempt_mode, &why))
			return kv_err(x->err, "PreemptMode", f->val, why);
		return 1;
	}
	if (!strcasecmp(f->key, "GraceTime")) {
		uint32_t g;
		if (get_u32("GraceTime", f->val, &g, x->err))
			return -1;
		q->grace = g;
		return 1;
	}
	if (!strcasecmp(f->key, "PreemptExemptTime")) {
		if (fw_parse_duration(f->val, false, &q->exempt, &e))
			return kv_err(x->err, "PreemptExemptTime", f->val, e.msg);
		return 1;
	}
	return 0;
}

static int dump_qos(struct dump_ctx *x, const char *name,
		    const struct dump_field *f, int nf, int lineno)
{
	struct sim_assocs *a = x->a;

	if (sim_assocs_find_qos(a, name))
		return kv_err(x->err, "QOS", name, "QOS defined twice");
	if (a->nqos == a->qos_cap) {
		a->qos_cap = a->qos_cap ? a->qos_cap * 2 : 8;
		a->qos = fw_xrealloc(a->qos, a->qos_cap * sizeof(*a->qos));
	}
	struct sim_qos *q = &a->qos[a->nqos];
	memset(q, 0, sizeof(*q));
	q->name = sim_intern(&a->str, name);
	q->usage_factor = -1;
	q->exempt = -1;
	q->lineno = lineno;
	for (int i = 0; i < nf; i++) {
		int r = dump_qos_preempt(x, q, &f[i]);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		if (!strcasecmp(f[i].key, "Priority")) {
			if (get_u32("Priority", f[i].val, &q->priority, x->err))
				return -1;
		} else if (!strcasecmp(f[i].key, "UsageFactor")) {
			struct fw_err e;
			if (fw_parse_double(f[i].val, &q->usage_factor, &e) ||
			    q->usage_factor < 0)
				return kv_err(x->err, "UsageFactor", f[i].val,
					      "expected a number >= 0");
		}
	}
	a->nqos++;
	return 0;
}

static int dump_line(struct dump_ctx *x, const char *line, int lineno)
{
	const char *p = line, *dash;
	char type[16], name[256];
	struct dump_field f[32];
	int nf;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '#')
		return 0;
	dash = strstr(p, " - ");
	if (!dash || (size_t)(dash - p) >= sizeof(type))
		return kv_err(x->err, "line", p, "expected \"Type - 'name':Key=Value...\"");
	memcpy(type, p, (size_t)(dash - p));
	type[dash - p] = '\0';
	if (dump_fields(dash + 3, name, sizeof(name), f, 32, &nf))
		return kv_err(x->err, type, dash + 3, "malformed name or Key=Value list");
	if (!strcasecmp(type, "Cluster")) {
		x->a->cluster = sim_intern(&x->a->str, name);
		for (int i = 0; i < nf; i++)
			if (!strcasecmp(f[i].key, "Fairshare") &&
			    dump_shares(f[i].val, &x->a->root_shares, x->err))
				return -1;
		return 0;
	}
	if (!strcasecmp(type, "Parent")) {
		if (strcasecmp(name, "root") && sim_assocs_find_acct(x->a, name) < 0)
			return kv_err(x->err, "Parent", name, "parent account not defined above");
		x->parent = sim_intern(&x->a->str, strcasecmp(name, "root") ? name : "root");
		return 0;
	}
	if (!strcasecmp(type, "QOS"))
		return dump_qos(x, name, f, nf, lineno);
	if (!strcasecmp(type, "Account") || !strcasecmp(type, "User")) {
		if (!x->parent)
			return kv_err(x->err, type, name, "no Parent line before it");
		return !strcasecmp(type, "User") ? dump_user(x, name, f, nf, lineno)
						 : dump_account(x, name, f, nf, lineno);
	}
	return kv_err(x->err, "type", type, "unknown line type (Cluster, Parent, Account, User or QOS)");
}

int sim_read_sacctmgr_dump_mem(struct sim_assocs *a, const char *name,
			       const char *buf, size_t len,
			       struct fw_err *err)
{
	struct sim_lines it;
	struct fw_err e;
	struct dump_ctx x = { a, name, &e, NULL };
	int rc = 0;

	fw_err_clear(&e);
	sim_lines_init(&it, buf, len);
	while (!rc && sim_lines_next(&it)) {
		rc = dump_line(&x, it.line, it.lineno);
		if (rc)
			fw_err_locate(&e, name, it.lineno);
	}
	sim_lines_free(&it);
	if (rc && err)
		*err = e;
	return rc;
}

int sim_read_sacctmgr_dump(struct sim_assocs *a, const char *path,
			   struct fw_err *err)
{
	size_t len;
	char *buf = sim_slurp(path, &len, err);
	int rc;

	if (!buf)
		return -1;
	rc = sim_read_sacctmgr_dump_mem(a, path, buf, len, err);
	free(buf);
	return rc;
}
