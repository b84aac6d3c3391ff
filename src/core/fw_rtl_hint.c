/*
 * fw_rtl_hint.c - what earlier start-now probes learned, for later ones.
 *
 * The probe (fw_rtl_search.c) walks the nodes in index order for the
 * lowest ones that fit at the first allowed slot c.  A plan books jobs on
 * the lowest nodes that fit, so on a busy shared cluster the first blocks
 * fill up, and every later probe walked them again, node by node (a
 * block's envelope mixes one node's CPUs with another's memory and rarely
 * rules a block out on its own): on 10,000 nodes that walk was a quarter
 * of a conservative plan's time.
 *
 * A probe that finds its first fitting node in block nb (or none: nb =
 * nblocks) has shown that no node of its set in blocks [0, nb) has req
 * free during [c, c + d).  A timeline that only takes keeps that true,
 * and it answers every later query at the same c that asks no less (each
 * amount and the duration at least the hint's) among a subset of that
 * node set: such a query's probe may begin at block nb.  Its answer is the
 * same, since the probe chooses the lowest fitting nodes and none are
 * skipped.  Any give or capacity change forgets every hint.
 *
 * The last RTL_NHINT hints are kept, replaced in turn; a hint is stored
 * only when it says more than the hints the probe started from.
 */
#include <stdlib.h>
#include <string.h>

#include "fw_rtl_int.h"

struct rtl_hint {
	int32_t c, d;
	uint32_t nb;		/* 0: unused */
	int64_t req[FW_RTL_MAXRES];
	uint64_t *cand;		/* nblocks words: the node set */
};

void fw_rtl_hints_init(struct fw_rtl *r)
{
	r->hint = fw_xcalloc(RTL_NHINT, sizeof(*r->hint));
	for (uint32_t h = 0; h < RTL_NHINT; h++)
		r->hint[h].cand = fw_xcalloc(r->nblocks, sizeof(uint64_t));
}

void fw_rtl_hints_free(struct fw_rtl *r)
{
	if (!r->hint)
		return;
	for (uint32_t h = 0; h < RTL_NHINT; h++)
		free(r->hint[h].cand);
	free(r->hint);
	r->hint = NULL;
}

void fw_rtl_hints_drop(struct fw_rtl *r)
{
	for (uint32_t h = 0; h < RTL_NHINT; h++)
		r->hint[h].nb = 0;
}

/* Does hint h cover q at c: same c, asks no more, q's nodes among h's? */
static bool covers(const struct fw_rtl *r, const struct rtl_hint *h,
		   const struct fw_rtl_query *q, int32_t c)
{
	if (!h->nb || h->c != c || h->d > q->d)
		return false;
	for (uint32_t k = 0; k < r->K; k++)
		if (h->req[k] > q->req[k])
			return false;
	for (uint32_t b = 0; b < h->nb; b++)
		if (fw_rtl_block_word(r, q->cand, b) & ~h->cand[b])
			return false;
	return true;
}

uint32_t fw_rtl_hint_skip(const struct fw_rtl *r,
			  const struct fw_rtl_query *q, int32_t c)
{
	uint32_t nb = 0;

	for (uint32_t h = 0; h < RTL_NHINT; h++)
		if (r->hint[h].nb > nb && covers(r, &r->hint[h], q, c))
			nb = r->hint[h].nb;
	return nb;
}

void fw_rtl_hint_learn(struct fw_rtl *r, const struct fw_rtl_query *q,
		       int32_t c, uint32_t nb)
{
	struct rtl_hint *h = &r->hint[r->hint_next];

	r->hint_next = (r->hint_next + 1) % RTL_NHINT;
	h->c = c;
	h->d = q->d;
	h->nb = nb;
	memcpy(h->req, q->req, r->K * sizeof(*h->req));
	for (uint32_t b = 0; b < nb; b++)
		h->cand[b] = fw_rtl_block_word(r, q->cand, b);
}
