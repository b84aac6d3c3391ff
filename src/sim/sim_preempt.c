/*
 * sim_preempt.c - Slurm's preemption configuration for fairway-sim (see
 * sim_preempt.h for the rules and where they come from).
 */
#define _POSIX_C_SOURCE 200809L
#include "sim_preempt.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *sim_preempt_type_name(enum sim_preempt_type t)
{
	switch (t) {
	case SIM_PREEMPT_QOS: return "preempt/qos";
	case SIM_PREEMPT_PARTITION: return "preempt/partition_prio";
	default: return "preempt/none";
	}
}

static int key_err(struct fw_err *err, const struct sim_conf_key *k,
		   const char *msg)
{
	return fw_err_set(err, k->file, k->lineno, k->key, k->value, "%s", msg);
}

/* PreemptType, PreemptMode and PreemptExemptTime of slurm.conf. */
static int read_keys(struct sim_preempt *p, const struct sim_cluster *c,
		     struct fw_err *err)
{
	const struct sim_conf_key *t = sim_cluster_key(c, "PreemptType");
	const struct sim_conf_key *m = sim_cluster_key(c, "PreemptMode");
	const struct sim_conf_key *x = sim_cluster_key(c, "PreemptExemptTime");
	const char *why = NULL;
	struct fw_err e;

	fw_err_clear(&e);
	p->mode = SIM_PMODE_OFF; /* Slurm's default */
	if (m && sim_preempt_mode_parse(m->value, &p->mode, &why))
		return key_err(err, m, why);
	if (x && fw_parse_duration(x->value, false, &p->exempt, &e))
		return key_err(err, x, e.msg);
	if (!t || !strcasecmp(t->value, "preempt/none"))
		p->type = SIM_PREEMPT_NONE;
	else if (!strcasecmp(t->value, "preempt/qos"))
		p->type = SIM_PREEMPT_QOS;
	else if (!strcasecmp(t->value, "preempt/partition_prio"))
		p->type = SIM_PREEMPT_PARTITION;
	else
		return key_err(err, t, "expected preempt/none, preempt/qos or "
				       "preempt/partition_prio");
	/* slurmctld refuses these combinations at start (read_config.c). */
	if (p->type != SIM_PREEMPT_NONE && p->mode == SIM_PMODE_OFF)
		return key_err(err, t, "needs PreemptMode=REQUEUE or CANCEL "
				       "(Slurm refuses PreemptMode=OFF with it)");
	if (p->type == SIM_PREEMPT_NONE && p->mode != SIM_PMODE_OFF && m)
		return key_err(err, m, "needs PreemptType=preempt/qos or "
				       "preempt/partition_prio (Slurm refuses "
				       "it with preempt/none)");
	return 0;
}

static int qos_index(const struct sim_assocs *a, const char *name)
{
	for (size_t i = 0; a && i < a->nqos; i++)
		if (!strcasecmp(a->qos[i].name, name))
			return (int)i;
	return -1;
}

/* QOS q's Preempt= list as QOS indices. */
static int resolve_qos_list(struct sim_preempt *p, const struct sim_assocs *a,
			    size_t q, struct fw_err *err)
{
	const char *s = a->qos[q].preempt;
	char name[256];

	while (s && *s) {
		size_t n = strcspn(s, ",");
		int idx;

		if (n == 0 || n >= sizeof(name))
			return fw_err_set(err, "sacctmgr dump", a->qos[q].lineno,
					  "Preempt", a->qos[q].preempt,
					  "empty or overlong QOS name");
		memcpy(name, s, n);
		name[n] = '\0';
		idx = qos_index(a, name);
		if (idx < 0)
			return fw_err_set(err, "sacctmgr dump", a->qos[q].lineno,
					  "Preempt", a->qos[q].preempt,
					  "no QOS named %s in the dump", name);
		s += n + (s[n] == ',');
		/* Jobs of one QOS never preempt each other (Slurm: only with
		   PreemptMode=WITHIN, which is not simulated). */
		if ((size_t)idx == q)
			continue;
		p->preempts[q] = fw_xrealloc(p->preempts[q],
					     (p->npreempts[q] + 1) * sizeof(uint32_t));
		p->preempts[q][p->npreempts[q]++] = (uint32_t)idx;
	}
	return 0;
}

/* Partition q may preempt every partition of a lower PriorityTier that
 * shares nodes with it (preempt_partition_prio.c). */
static bool parts_overlap(const struct sim_partition *x,
			  const struct sim_partition *y)
{
	for (size_t i = 0, k = 0; i < x->nnodes && k < y->nnodes;) {
		if (x->node[i] == y->node[k])
			return true;
		if (x->node[i] < y->node[k])
			i++;
		else
			k++;
	}
	return false;
}

static void part_lists(struct sim_preempt *p, const struct sim_cluster *c)
{
	for (size_t q = 0; q < c->nparts; q++)
		for (size_t v = 0; v < c->nparts; v++) {
			if (c->part[v].prio_tier >= c->part[q].prio_tier ||
			    !parts_overlap(&c->part[q], &c->part[v]))
				continue;
			p->preempts[q] = fw_xrealloc(p->preempts[q],
						     (p->npreempts[q] + 1) * sizeof(uint32_t));
			p->preempts[q][p->npreempts[q]++] = (uint32_t)v;
		}
}

int sim_preempt_init(struct sim_preempt *p, const struct sim_cluster *c,
		     const struct sim_assocs *a, struct fw_err *err)
{
	memset(p, 0, sizeof(*p));
	p->exempt = -1;
	if (read_keys(p, c, err))
		return -1;
	if (p->type == SIM_PREEMPT_NONE)
		return 0;
	if (p->type == SIM_PREEMPT_QOS && (!a || a->nqos == 0)) {
		const struct sim_conf_key *t = sim_cluster_key(c, "PreemptType");
		return key_err(err, t, "needs QOS lines in the sacctmgr dump "
				       "(--sacctmgr-dump)");
	}
	p->ncls = p->type == SIM_PREEMPT_QOS ? a->nqos : c->nparts;
	p->preempts = fw_xcalloc(p->ncls + 1, sizeof(*p->preempts));
	p->npreempts = fw_xcalloc(p->ncls + 1, sizeof(*p->npreempts));
	if (p->type == SIM_PREEMPT_PARTITION) {
		part_lists(p, c);
		return 0;
	}
	for (size_t q = 0; q < a->nqos; q++)
		if (resolve_qos_list(p, a, q, err)) {
			sim_preempt_free(p);
			return -1;
		}
	return 0;
}

void sim_preempt_free(struct sim_preempt *p)
{
	for (size_t i = 0; i < p->ncls; i++)
		free(p->preempts[i]);
	free(p->preempts);
	free(p->npreempts);
	memset(p, 0, sizeof(*p));
}

/* The victim's own mode, else the global one. */
static enum sim_preempt_mode mode_of(const struct sim_preempt *p,
				     enum sim_preempt_mode own)
{
	return own != SIM_PMODE_UNSET ? own : p->mode;
}

void sim_preempt_bind(const struct sim_preempt *p, const struct sim_cluster *c,
		      const struct sim_assocs *a, int32_t part,
		      const char *qos, struct sim_preempt_job *out)
{
	int q = qos_index(a, qos ? qos : "normal");
	const struct sim_qos *qr = q >= 0 ? &a->qos[q] : NULL;
	int32_t cls = p->type == SIM_PREEMPT_QOS ? q : part;
	enum sim_preempt_mode own = SIM_PMODE_UNSET;

	memset(out, 0, sizeof(*out));
	out->cls = -1;
	out->exempt = qr && qr->exempt >= 0 ? qr->exempt : p->exempt;
	if (p->type == SIM_PREEMPT_NONE || cls < 0)
		return;
	out->preempts = p->preempts[cls];
	out->npreempts = p->npreempts[cls];
	if (p->type == SIM_PREEMPT_QOS) {
		out->prio = qr->priority;
		out->grace = qr->grace;
		own = qr->preempt_mode;
	} else {
		out->prio = c->part[part].prio_tier;
		out->grace = c->part[part].grace;
		own = c->part[part].preempt_mode;
	}
	out->mode = mode_of(p, own);
	if (out->mode != SIM_PMODE_OFF)
		out->cls = cls;
}
