/*
 * fw_plan_batch.c - the batch passes (loops over the step API) and the
 * one-line explanation of a result.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_plan_int.h"

/* ------------------------------------------------------------------ */
/* Batch passes                                                        */
/* ------------------------------------------------------------------ */

static void result_from(struct fw_plan_result *r,
			const struct fw_plan_decision *d)
{
	r->kind = d->kind;
	r->start = d->start;
	r->end = d->end;
	r->part = d->part;
	r->nnodes = d->nnodes;
	r->is_protected = d->is_protected;
	r->backfilled = d->backfilled;
	r->across_islands = d->across_islands;
	r->shared = d->shared;
	r->reason = d->reason;
	r->blocker = d->blocker;
	r->blocker_lic = d->blocker_lic;
	r->node_idx = NULL;
	r->victims = NULL;
	r->nvictims = d->nvictims;
	r->victims_later = d->victims_later;
	if (d->nvictims) {
		r->victims = fw_xmalloc(d->nvictims * sizeof(uint32_t));
		memcpy(r->victims, d->victims,
		       d->nvictims * sizeof(uint32_t));
	}
	if (d->nodes) {
		uint32_t k = 0;
		int64_t i;

		r->node_idx = fw_xmalloc((d->nnodes ? d->nnodes : 1) *
					 sizeof(uint32_t));
		FW_BITSET_FOREACH(d->nodes, i)
			r->node_idx[k++] = (uint32_t)i;
		r->nnodes = k;
	}
}

/* The next job to offer: a head (ReservationOrder=submit), then the rest
 * in the caller's order. */
static size_t next_index(struct fw_plan_heads *h, size_t *k, size_t n,
			 bool *head)
{
	size_t x = fw_plan_heads_next(h);

	*head = x != FW_PLAN_NO_HEAD;
	if (*head)
		return x;
	while (*k < n && fw_plan_heads_taken(h, *k))
		(*k)++;
	return *k < n ? (*k)++ : FW_PLAN_NO_HEAD;
}

static int run_pass(struct fw_plan *p, const struct fw_plan_job *jobs,
		    size_t n, struct fw_plan_result *res,
		    enum fw_plan_pass pass, struct fw_err *err)
{
	struct fw_plan_heads *h;
	struct fw_plan_decision d;
	size_t *idx_of_seq, k = 0, x;
	uint32_t *inc;
	bool head;
	int rc = 0;

	memset(res, 0, n * sizeof(*res));
	if (p->nseq || p->pend.active)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "a batch pass needs a fresh plan");
	h = fw_plan_heads_new(p->cl, p->conf, p->now, jobs, n);
	idx_of_seq = fw_xmalloc((n ? n : 1) * sizeof(*idx_of_seq));
	while ((x = next_index(h, &k, n, &head)) != FW_PLAN_NO_HEAD) {
		struct fw_plan_job tmp = jobs[x];

		tmp.head = head;
		if (fw_plan_decide(p, &tmp, pass, &d, err) ||
		    (d.kind == FW_PLAN_START_NOW &&
		     fw_plan_started(p, NULL, err))) {
			fw_plan_results_free(res, n);
			memset(res, 0, n * sizeof(*res));
			rc = -1;
			goto out;
		}
		fw_plan_heads_outcome(h, d.kind);
		idx_of_seq[d.seq] = x;
		result_from(&res[x], &d);
	}
	/* Blockers and bypass counts are per decision: back to indices. */
	for (size_t i = 0; i < n; i++)
		if (res[i].blocker >= 0)
			res[i].blocker = (int32_t)idx_of_seq[res[i].blocker];
	inc = fw_xmalloc((n ? n : 1) * sizeof(*inc));
	fw_plan_bypass(p, inc, n);
	for (size_t s = 0; s < n; s++)
		res[idx_of_seq[s]].bypass_inc = inc[s];
	free(inc);
out:
	free(idx_of_seq);
	fw_plan_heads_free(h);
	return rc;
}

int fw_plan_main(struct fw_plan *p, const struct fw_plan_job *jobs, size_t n,
		 struct fw_plan_result *res, struct fw_err *err)
{
	return run_pass(p, jobs, n, res, FW_PASS_MAIN, err);
}

int fw_plan_backfill(struct fw_plan *p, const struct fw_plan_job *jobs,
		     size_t n, struct fw_plan_result *res, struct fw_err *err)
{
	return run_pass(p, jobs, n, res, FW_PASS_BACKFILL, err);
}

struct fw_bitset *fw_plan_result_nodes(const struct fw_plan_result *r,
				       uint32_t nnodes)
{
	struct fw_bitset *b;

	if (!r->node_idx)
		return NULL;
	b = fw_bitset_new(nnodes);
	for (uint32_t k = 0; k < r->nnodes; k++)
		fw_bitset_set(b, r->node_idx[k]);
	return b;
}

void fw_plan_results_free(struct fw_plan_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(res[i].node_idx);
		res[i].node_idx = NULL;
		free(res[i].victims);
		res[i].victims = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Explanations                                                        */
/* ------------------------------------------------------------------ */

struct sbuf {
	char *b;
	size_t len, pos;
};

static void sb_add(struct sbuf *sb, const char *fmt, ...) FW_PRINTF(2, 3);

static void sb_add(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->pos >= sb->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->b + sb->pos, sb->len - sb->pos, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb->pos += (size_t)n;
	if (sb->pos >= sb->len && sb->len >= 4) {
		memcpy(sb->b + sb->len - 4, "...", 4);
		sb->pos = sb->len;
	}
}

static void sb_duration(struct sbuf *sb, fw_time_t s)
{
	if (s < 0)
		s = 0;
	if (s >= 86400)
		sb_add(sb, "%lld-", (long long)(s / 86400));
	sb_add(sb, "%02lld:%02lld:%02lld", (long long)(s % 86400 / 3600),
	       (long long)(s % 3600 / 60), (long long)(s % 60));
}

static void sb_nodes(struct sbuf *sb, const struct fw_cluster *cl,
		     const struct fw_plan_result *r)
{
	for (uint32_t k = 0; k < r->nnodes && r->node_idx; k++)
		sb_add(sb, "%s%s", k ? "," : "", cl->nodes[r->node_idx[k]].name);
}

/* "; preempts jobs 102, 101" (at most 8 named). */
static void sb_victims(struct sbuf *sb, const struct fw_plan_result *r)
{
	if (!r->nvictims)
		return;
	sb_add(sb, "; preempts job%s", r->nvictims > 1 ? "s" : "");
	for (uint32_t k = 0; k < r->nvictims && k < 8; k++)
		sb_add(sb, "%s %u", k ? "," : "", r->victims[k]);
	if (r->nvictims > 8)
		sb_add(sb, " and %u more", r->nvictims - 8);
}

const char *fw_plan_explain(const struct fw_cluster *cl,
			    const struct fw_plan_job *jobs,
			    const struct fw_plan_result *res, size_t i,
			    fw_time_t now, char *buf, size_t len)
{
	const struct fw_plan_result *r = &res[i];
	struct sbuf sb = { buf, len, 0 };

	if (len == 0)
		return buf;
	buf[0] = '\0';
	sb_add(&sb, "job %u: ", jobs[i].id);
	switch (r->kind) {
	case FW_PLAN_START_NOW:
		sb_add(&sb, "starts now in partition %s on ",
		       cl->parts[r->part].name);
		sb_nodes(&sb, cl, r);
		if (r->backfilled)
			sb_add(&sb, " (backfilled)");
		sb_victims(&sb, r);
		return buf;
	case FW_PLAN_RESERVED:
		sb_add(&sb, "reserved: starts in ");
		sb_duration(&sb, r->start - now);
		sb_add(&sb, " in partition %s on ", cl->parts[r->part].name);
		sb_nodes(&sb, cl, r);
		sb_victims(&sb, r);
		if (r->nvictims)
			sb_add(&sb, " (start after their grace time)");
		sb_add(&sb, "; later jobs cannot delay it");
		break;
	case FW_PLAN_ESTIMATED:
		sb_add(&sb, "estimated start in ");
		sb_duration(&sb, r->start - now);
		sb_add(&sb, " (not protected: below bf_min_prio_reserve/"
		       "bf_min_age_reserve or past the reservation depth; "
		       "backfill may delay it)");
		break;
	case FW_PLAN_NOT_IN_WINDOW:
		sb_add(&sb, "no start within the backfill window (bf_window)");
		break;
	case FW_PLAN_NOT_RUNNABLE:
		sb_add(&sb, "cannot run in partition %s as requested",
		       cl->parts[r->part].name);
		break;
	case FW_PLAN_WAITING:
		sb_add(&sb, "cannot start now");
		break;
	case FW_PLAN_SKIPPED:
		sb_add(&sb, "not evaluated in this cycle");
		break;
	}
	sb_add(&sb, "; reason: %s", fw_plan_reason_str(r->reason));
	if (r->reason == FW_REASON_RESERVED && r->blocker >= 0)
		sb_add(&sb, " (nodes/licenses kept for job %u)",
		       jobs[r->blocker].id);
	if (r->reason == FW_REASON_LICENSE && r->blocker_lic >= 0)
		sb_add(&sb, " (%s)", cl->lics[r->blocker_lic].name);
	return buf;
}

