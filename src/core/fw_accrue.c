/*
 * fw_accrue.c - accrual ledger: per-job effective queue time with holds and
 * per-user/per-account accrual limits; hash map keyed by job id; text
 * serialisation.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_accrue.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 16 bytes: the table of 100k jobs is walked on every tick. */
struct entry {
	uint32_t job_id;
	uint32_t gen;     /* tick that last saw the job (wraps harmlessly) */
	uint32_t accrued; /* seconds; 136 years fit */
	bool used;
	bool accruing;    /* qualified at the last tick */
};

/* A job that may accrue, with its place in submit order. */
struct cand {
	uint64_t key;     /* (submit - earliest submit) << 32 | job id */
	fw_time_t submit;
	uint32_t job_id;
	uint32_t idx;
};

/* Counting map uid/account -> jobs accruing so far in this tick. */
struct counter {
	size_t cap;       /* power of two */
	uint32_t *key;
	uint32_t *cnt;
	bool *used;
};

/*
 * Buffers of a tick, kept between ticks: fresh large allocations would be
 * page-faulted in on every tick.
 */
struct scratch {
	size_t cap;       /* jobs the buffers hold */
	struct cand *cand, *tmp;
	bool *ok;
	struct counter users, accounts;
};

struct fw_accrue {
	struct scratch sc;
	uint32_t max_user, max_account;
	uint32_t gen;
	fw_time_t last; /* time of the last tick, 0 = none */
	size_t n, cap;  /* cap: power of two, load <= 1/2 */
	struct entry *tab;
};

/* ------------------------------------------------------------- hash map */

static uint32_t hash_u32(uint32_t x)
{
	/* job ids are sequential: mix them so they spread over the table */
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static struct entry *slot_of(struct entry *tab, size_t cap, uint32_t id)
{
	size_t i = hash_u32(id) & (cap - 1);

	while (tab[i].used && tab[i].job_id != id)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static void rehash(struct fw_accrue *l, size_t cap, bool keep_unseen)
{
	struct entry *tab = fw_xcalloc(cap, sizeof(*tab));
	size_t n = 0;

	for (size_t i = 0; i < l->cap; i++) {
		if (!l->tab[i].used || (!keep_unseen && l->tab[i].gen != l->gen))
			continue;
		*slot_of(tab, cap, l->tab[i].job_id) = l->tab[i];
		n++;
	}
	free(l->tab);
	l->tab = tab;
	l->cap = cap;
	l->n = n;
}

static struct entry *find(const struct fw_accrue *l, uint32_t id)
{
	struct entry *e;

	if (!l->cap)
		return NULL;
	e = slot_of(l->tab, l->cap, id);
	return e->used ? e : NULL;
}

static struct entry *insert(struct fw_accrue *l, uint32_t id, bool *is_new)
{
	struct entry *e;

	if (2 * (l->n + 1) > l->cap)
		rehash(l, l->cap ? l->cap * 2 : 64, true);
	e = slot_of(l->tab, l->cap, id);
	*is_new = !e->used;
	if (!e->used) {
		memset(e, 0, sizeof(*e));
		e->used = true;
		e->job_id = id;
		l->n++;
	}
	return e;
}

/* --------------------------------------------------------------- lifecycle */

static void scratch_free(struct scratch *sc);

struct fw_accrue *fw_accrue_new(const struct fw_prio_conf *c)
{
	struct fw_accrue *l = fw_xcalloc(1, sizeof(*l));

	fw_accrue_configure(l, c);
	return l;
}

void fw_accrue_configure(struct fw_accrue *l, const struct fw_prio_conf *c)
{
	l->max_user = c ? fw_prio_accrue_max_user(c) : 0;
	l->max_account = c ? fw_prio_accrue_max_account(c) : 0;
}

void fw_accrue_free(struct fw_accrue *l)
{
	if (!l)
		return;
	scratch_free(&l->sc);
	free(l->tab);
	free(l);
}

size_t fw_accrue_count(const struct fw_accrue *l)
{
	return l->n;
}

bool fw_accrue_get(const struct fw_accrue *l, uint32_t job_id, int64_t *sec,
		   bool *accruing)
{
	const struct entry *e = find(l, job_id);

	if (!e)
		return false;
	if (sec)
		*sec = e->accrued;
	if (accruing)
		*accruing = e->accruing;
	return true;
}

size_t fw_accrue_prune(struct fw_accrue *l)
{
	size_t before = l->n;

	if (l->cap)
		rehash(l, l->cap, false);
	return before - l->n;
}

/* -------------------------------------------------------------------- tick */

static fw_time_t eligible_from(const struct fw_prio_job *j)
{
	return j->eligible_time ? j->eligible_time : j->submit_time;
}

static bool may_accrue(const struct fw_prio_job *j, fw_time_t now)
{
	return !j->held && !j->running && eligible_from(j) <= now;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	return 0;
}

/*
 * Sort by submit time, then job id.  An LSD radix sort on the packed key
 * (a pass per byte, skipping bytes all keys share) is several times faster
 * than qsort for 100k jobs; qsort remains for submit times spread over more
 * than 2^32 s, which the packed key cannot hold.
 */
static void sort_cands(struct cand *c, struct cand *tmp, size_t n)
{
	fw_time_t lo, hi;
	struct cand *src = c, *dst;

	if (n < 2)
		return;
	lo = hi = c[0].submit;
	for (size_t i = 1; i < n; i++) {
		if (c[i].submit < lo)
			lo = c[i].submit;
		if (c[i].submit > hi)
			hi = c[i].submit;
	}
	if ((uint64_t)(hi - lo) > UINT32_MAX) {
		qsort(c, n, sizeof(*c), cand_cmp);
		return;
	}
	for (size_t i = 0; i < n; i++)
		c[i].key = (uint64_t)(c[i].submit - lo) << 32 | c[i].job_id;
	dst = tmp;
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };

		for (size_t i = 0; i < n; i++)
			count[((src[i].key >> shift) & 0xff) + 1]++;
		if (count[((src[0].key >> shift) & 0xff) + 1] == n)
			continue; /* every key has the same byte here */
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
		src = dst;
		dst = src == c ? tmp : c;
	}
	if (src != c)
		memcpy(c, src, n * sizeof(*c));
}

static void counter_free(struct counter *m)
{
	free(m->key);
	free(m->cnt);
	free(m->used);
}

static void counter_alloc(struct counter *m, size_t n)
{
	counter_free(m);
	m->cap = 16;
	while (m->cap < 2 * n)
		m->cap *= 2;
	m->key = fw_xmalloc(m->cap * sizeof(uint32_t));
	m->cnt = fw_xmalloc(m->cap * sizeof(uint32_t));
	m->used = fw_xmalloc(m->cap * sizeof(bool));
}

static void counter_clear(struct counter *m)
{
	memset(m->used, 0, m->cap * sizeof(bool));
}

static uint32_t *counter_at(struct counter *m, uint32_t key)
{
	size_t i = hash_u32(key) & (m->cap - 1);

	while (m->used[i] && m->key[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->used[i]) {
		m->used[i] = true;
		m->key[i] = key;
		m->cnt[i] = 0;
	}
	return &m->cnt[i];
}

static void scratch_reserve(struct scratch *sc, size_t n)
{
	if (n <= sc->cap)
		return;
	sc->cap = n > 2 * sc->cap ? n : 2 * sc->cap;
	sc->cand = fw_xrealloc(sc->cand, sc->cap * sizeof(*sc->cand));
	sc->tmp = fw_xrealloc(sc->tmp, sc->cap * sizeof(*sc->tmp));
	sc->ok = fw_xrealloc(sc->ok, sc->cap * sizeof(*sc->ok));
	counter_alloc(&sc->users, sc->cap);
	counter_alloc(&sc->accounts, sc->cap);
}

static void scratch_free(struct scratch *sc)
{
	free(sc->cand);
	free(sc->tmp);
	free(sc->ok);
	counter_free(&sc->users);
	counter_free(&sc->accounts);
	memset(sc, 0, sizeof(*sc));
}

/* Decide, for every job, whether it accrues from now on. */
static void qualify(struct fw_accrue *l, const struct fw_prio_job *jobs,
		    size_t n, fw_time_t now)
{
	struct scratch *sc = &l->sc;
	struct cand *c = sc->cand;
	bool *ok = sc->ok;
	size_t nc = 0;

	for (size_t i = 0; i < n; i++) {
		ok[i] = false;
		if (may_accrue(&jobs[i], now))
			c[nc++] = (struct cand){ 0, jobs[i].submit_time,
						 jobs[i].job_id, (uint32_t)i };
	}
	if (!l->max_user && !l->max_account) {
		for (size_t k = 0; k < nc; k++)
			ok[c[k].idx] = true;
		return;
	}
	sort_cands(c, sc->tmp, nc);
	counter_clear(&sc->users);
	counter_clear(&sc->accounts);
	for (size_t k = 0; k < nc; k++) {
		const struct fw_prio_job *j = &jobs[c[k].idx];
		uint32_t *u = counter_at(&sc->users, j->uid);
		uint32_t *a = counter_at(&sc->accounts, j->account_id);

		/* only jobs that accrue use up a slot of their user/account */
		if ((l->max_user && *u >= l->max_user) ||
		    (l->max_account && *a >= l->max_account))
			continue;
		(*u)++;
		(*a)++;
		ok[c[k].idx] = true;
	}
}

static uint32_t add_sat(uint32_t a, fw_time_t b)
{
	return b >= (fw_time_t)(UINT32_MAX - a) ? UINT32_MAX : a + (uint32_t)b;
}

void fw_accrue_tick(struct fw_accrue *l, struct fw_prio_job *jobs, size_t n,
		    fw_time_t now)
{
	bool *ok;

	scratch_reserve(&l->sc, n ? n : 1);
	qualify(l, jobs, n, now);
	ok = l->sc.ok;
	l->gen++;
	for (size_t i = 0; i < n; i++) {
		bool is_new;
		struct entry *e = insert(l, jobs[i].job_id, &is_new);

		if (is_new) {
			/* first sight: credit the time since it became eligible */
			fw_time_t from = eligible_from(&jobs[i]);

			if (ok[i] && now > from)
				e->accrued = add_sat(0, now - from);
		} else if (e->accruing && l->last && now > l->last) {
			/* it qualified at the last tick: the interval counts */
			e->accrued = add_sat(e->accrued, now - l->last);
		}
		e->accruing = ok[i];
		e->gen = l->gen;
		jobs[i].queue_sec = e->accrued;
	}
	if (now > l->last)
		l->last = now;
}

/* ----------------------------------------------------------- serialisation */

#define MAGIC "fairway-accrue 1"

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

char *fw_accrue_save(const struct fw_accrue *l, size_t *len)
{
	struct fw_buf b = { 0 };

	fw_buf_printf(&b, "%s\nlast %" PRId64 " jobs %zu\n", MAGIC, (int64_t)l->last, l->n);
	for (size_t i = 0; i < l->cap; i++) {
		const struct entry *e = &l->tab[i];

		if (e->used)
			fw_buf_printf(&b, "%" PRIu32 " %" PRId64 " %d\n", e->job_id,
				  (int64_t)e->accrued, e->accruing ? 1 : 0);
	}
	fw_buf_printf(&b, "end %016" PRIx64 "\n", fnv1a(b.s, b.len));
	if (len)
		*len = b.len;
	return b.s;
}

/* Strict unsigned/signed decimal fields separated by single spaces. */
static int take_i64(const char **p, int64_t *out)
{
	char *end;
	long long v;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	v = strtoll(*p, &end, 10);
	if (errno)
		return -1;
	*out = v;
	*p = end;
	return 0;
}

static int load_err(struct fw_err *err, int line, const char *text, size_t n,
		    const char *msg)
{
	char v[64];

	snprintf(v, sizeof(v), "%.*s", (int)(n < 60 ? n : 60), text);
	return fw_err_set(err, NULL, line, "accrue", v, "corrupt accrual ledger: %s", msg);
}

static int take_word(const char **p, const char *e, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(e - *p) < n || memcmp(*p, w, n))
		return -1;
	*p += n;
	return 0;
}

/* "last <time> jobs <count>" */
static int parse_header(const char *s, const char *e, int64_t *last, int64_t *njobs)
{
	const char *p = s;

	if (take_word(&p, e, "last ") || take_i64(&p, last) ||
	    take_word(&p, e, " jobs ") || take_i64(&p, njobs) || p != e)
		return -1;
	return 0;
}

/* One "job_id accrued accruing" line. */
static int parse_job_line(const char *s, const char *e, struct entry *out)
{
	const char *p = s;
	int64_t id, acc, q;

	if (take_i64(&p, &id) || *p++ != ' ' || take_i64(&p, &acc) || *p++ != ' ' ||
	    take_i64(&p, &q) || p != e)
		return -1;
	if (id > UINT32_MAX || acc > UINT32_MAX || q > 1)
		return -1;
	memset(out, 0, sizeof(*out));
	out->job_id = (uint32_t)id;
	out->accrued = (uint32_t)acc;
	out->accruing = q == 1;
	return 0;
}

int fw_accrue_load(struct fw_accrue *l, const char *buf, size_t len,
		   struct fw_err *err)
{
	struct fw_accrue tmp = { .max_user = l->max_user,
				 .max_account = l->max_account, .gen = l->gen };
	const char *p = buf, *end = buf + len;
	int64_t last = 0, njobs = 0;
	int line = 0;
	bool done = false;

	while (p < end && !done) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t n;

		if (!e) {
			free(tmp.tab);
			return load_err(err, line + 1, p, (size_t)(end - p),
					"truncated (no end line)");
		}
		n = (size_t)(e - p);
		line++;
		if (line == 1) {
			if (n != strlen(MAGIC) || memcmp(p, MAGIC, n)) {
				free(tmp.tab);
				return load_err(err, line, p, n, "not a version-1 ledger");
			}
		} else if (line == 2) {
			if (parse_header(p, e, &last, &njobs)) {
				free(tmp.tab);
				return load_err(err, line, p, n, "bad header line");
			}
		} else if (n >= 4 && !memcmp(p, "end ", 4)) {
			char want[32];

			snprintf(want, sizeof(want), "end %016" PRIx64,
				 fnv1a(buf, (size_t)(p - buf)));
			if (n != strlen(want) || memcmp(p, want, n)) {
				free(tmp.tab);
				return load_err(err, line, p, n, "checksum mismatch");
			}
			done = true;
		} else {
			struct entry in, *slot;
			bool is_new;

			if (parse_job_line(p, e, &in)) {
				free(tmp.tab);
				return load_err(err, line, p, n, "bad job line");
			}
			slot = insert(&tmp, in.job_id, &is_new);
			if (!is_new) {
				free(tmp.tab);
				return load_err(err, line, p, n, "job listed twice");
			}
			*slot = in;
			slot->used = true;
			slot->gen = tmp.gen;
		}
		p = e + 1;
	}
	if (!done) {
		free(tmp.tab);
		return load_err(err, line + 1, "", 0, "truncated (no end line)");
	}
	if (p != end || (int64_t)tmp.n != njobs) {
		free(tmp.tab);
		return load_err(err, line, "", 0,
				p != end ? "data after the end line" : "job count mismatch");
	}
	free(l->tab);
	tmp.last = last;
	tmp.sc = l->sc;
	*l = tmp;
	return 0;
}
