/*
 * fw_plan_cache.c - the planner's small containers: a counter map for the
 * per-cycle limits, the lower-bound frontier of a node-set class and the
 * exact-answer map (see fw_plan_int.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_plan_int.h"

/* ------------------------------------------------------------------ */
/* Small containers                                                    */
/* ------------------------------------------------------------------ */



void cmap_free(struct cmap *m)
{
	free(m->key);
	free(m->val);
	free(m->used);
	memset(m, 0, sizeof(*m));
}


static void cmap_grow(struct cmap *m)
{
	struct cmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->n = 0;
	m->key = fw_xcalloc(m->cap, sizeof(*m->key));
	m->val = fw_xcalloc(m->cap, sizeof(*m->val));
	m->used = fw_xcalloc(m->cap, 1);
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.used[i])
			*cmap_slot(m, old.key[i]) = old.val[i];
	cmap_free(&old);
}

/* Value for key, inserted as 0 if absent.  Valid until the next call. */
uint32_t *cmap_slot(struct cmap *m, uint64_t key)
{
	uint32_t h;

	if (2 * (m->n + 1) > m->cap)
		cmap_grow(m);
	h = (uint32_t)fw_mix64(key) & (m->cap - 1);
	while (m->used[h] && m->key[h] != key)
		h = (h + 1) & (m->cap - 1);
	if (!m->used[h]) {
		m->used[h] = 1;
		m->key[h] = key;
		m->val[h] = 0;
		m->n++;
	}
	return &m->val[h];
}


int32_t frontier_bound(const struct frontier *f, uint32_t n, int64_t d)
{
	int32_t lb = 0;

	for (uint32_t i = 0; i < f->n; i++)
		if (f->v[i].n <= n && f->v[i].d <= d && f->v[i].c > lb)
			lb = f->v[i].c;
	return lb;
}

void frontier_add(struct frontier *f, uint32_t n, int64_t d, int32_t c)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < f->n; i++) {
		const struct shape *e = &f->v[i];

		if (e->n <= n && e->d <= d && e->c >= c)
			return;		/* already known, or more */
	}
	for (uint32_t i = 0; i < f->n; i++) {
		const struct shape *e = &f->v[i];

		if (!(n <= e->n && d <= e->d && c >= e->c))
			f->v[k++] = *e;
	}
	f->n = k;
	if (f->n == FRONTIER_MAX)
		return;		/* a cache: not recording is safe */
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 8;
		f->v = fw_xrealloc(f->v, f->cap * sizeof(*f->v));
	}
	f->v[f->n].n = n;
	f->v[f->n].d = d;
	f->v[f->n].c = c;
	f->n++;
}


static uint64_t exact_hash(uint32_t cls, int fit, uint32_t n, int64_t d)
{
	return fw_mix64(((uint64_t)cls << 40) ^ ((uint64_t)fit << 32) ^ n ^
		     fw_mix64((uint64_t)d));
}

struct exact_ent *exact_find(struct exact_map *m, uint32_t cls,
			     int fit, uint32_t n, int64_t d, bool add)
{
	uint32_t h;

	if (add && 2 * (m->n + 1) > m->cap) {
		struct exact_map old = *m;

		m->cap = old.cap ? old.cap * 2 : 1024;
		m->n = 0;
		m->v = fw_xcalloc(m->cap, sizeof(*m->v));
		for (uint32_t i = 0; i < old.cap; i++)
			if (old.v[i].used) {
				struct exact_ent *e = exact_find(
					m, old.v[i].cls, old.v[i].fit,
					old.v[i].n, old.v[i].d, true);

				*e = old.v[i];
			}
		free(old.v);
	}
	if (!m->cap)
		return NULL;
	h = (uint32_t)exact_hash(cls, fit, n, d) & (m->cap - 1);
	while (m->v[h].used) {
		struct exact_ent *e = &m->v[h];

		if (e->cls == cls && e->fit == fit && e->n == n && e->d == d)
			return e;
		h = (h + 1) & (m->cap - 1);
	}
	if (!add)
		return NULL;
	m->v[h].used = 1;
	m->v[h].cls = cls;
	m->v[h].fit = (uint8_t)fit;
	m->v[h].n = n;
	m->v[h].d = d;
	m->n++;
	return &m->v[h];
}

