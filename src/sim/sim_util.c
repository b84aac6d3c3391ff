/*
 * sim_util.c - string interning, file and line reading, field splitting,
 * time stamps and writing text buffers to files for fairway-sim.
 */
#define _POSIX_C_SOURCE 200809L
#include "sim_util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ interning */

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

void sim_strtab_init(struct sim_strtab *t)
{
	t->mask = 63;
	t->used = 0;
	t->slot = fw_xcalloc(t->mask + 1, sizeof(*t->slot));
}

void sim_strtab_free(struct sim_strtab *t)
{
	if (!t->slot)
		return;
	for (size_t i = 0; i <= t->mask; i++)
		free(t->slot[i]);
	free(t->slot);
	t->slot = NULL;
}

static void strtab_grow(struct sim_strtab *t)
{
	size_t nsize = (t->mask + 1) * 2;
	char **ns = fw_xcalloc(nsize, sizeof(*ns));

	for (size_t i = 0; i <= t->mask; i++) {
		char *s = t->slot[i];

		if (!s)
			continue;
		size_t j = hash_bytes(s, strlen(s)) & (nsize - 1);
		while (ns[j])
			j = (j + 1) & (nsize - 1);
		ns[j] = s;
	}
	free(t->slot);
	t->slot = ns;
	t->mask = nsize - 1;
}

const char *sim_intern_n(struct sim_strtab *t, const char *s, size_t n)
{
	size_t j;

	if (!s)
		return NULL;
	if ((t->used + 1) * 2 > t->mask + 1)
		strtab_grow(t);
	j = hash_bytes(s, n) & t->mask;
	while (t->slot[j]) {
		if (!strncmp(t->slot[j], s, n) && t->slot[j][n] == '\0')
			return t->slot[j];
		j = (j + 1) & t->mask;
	}
	t->slot[j] = fw_xmalloc(n + 1);
	memcpy(t->slot[j], s, n);
	t->slot[j][n] = '\0';
	t->used++;
	return t->slot[j];
}

const char *sim_strtab_find(const struct sim_strtab *t, const char *s)
{
	size_t n, j;

	if (!s)
		return NULL;
	n = strlen(s);
	j = hash_bytes(s, n) & t->mask;
	while (t->slot[j]) {
		if (!strcmp(t->slot[j], s))
			return t->slot[j];
		j = (j + 1) & t->mask;
	}
	return NULL;
}

const char *sim_intern(struct sim_strtab *t, const char *s)
{
	return s ? sim_intern_n(t, s, strlen(s)) : NULL;
}

/* ------------------------------------------------------------- id maps */

static size_t ptr_mix(const void *p)
{
	uint64_t v = (uint64_t)(uintptr_t)p;

	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return (size_t)v;
}

void sim_idmap_init(struct sim_idmap *m)
{
	m->mask = 63;
	m->used = 0;
	m->key = fw_xcalloc(m->mask + 1, sizeof(*m->key));
	m->id = fw_xcalloc(m->mask + 1, sizeof(*m->id));
}

void sim_idmap_free(struct sim_idmap *m)
{
	free(m->key);
	free(m->id);
	memset(m, 0, sizeof(*m));
}

static void idmap_grow(struct sim_idmap *m)
{
	size_t nsize = (m->mask + 1) * 2;
	const void **nk = fw_xcalloc(nsize, sizeof(*nk));
	uint32_t *ni = fw_xcalloc(nsize, sizeof(*ni));

	for (size_t i = 0; i <= m->mask; i++) {
		if (!m->key[i])
			continue;
		size_t j = ptr_mix(m->key[i]) & (nsize - 1);
		while (nk[j])
			j = (j + 1) & (nsize - 1);
		nk[j] = m->key[i];
		ni[j] = m->id[i];
	}
	free(m->key);
	free(m->id);
	m->key = nk;
	m->id = ni;
	m->mask = nsize - 1;
}

uint32_t sim_idmap_get(struct sim_idmap *m, const void *key)
{
	size_t j;

	if (!key)
		return 0;
	if ((m->used + 1) * 2 > m->mask + 1)
		idmap_grow(m);
	j = ptr_mix(key) & m->mask;
	while (m->key[j]) {
		if (m->key[j] == key)
			return m->id[j];
		j = (j + 1) & m->mask;
	}
	m->key[j] = key;
	m->id[j] = (uint32_t)++m->used;
	return m->id[j];
}

/* ---------------------------------------------------------------- files */

char *sim_slurp(const char *path, size_t *len, struct fw_err *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fw_err_set(err, path, 0, NULL, NULL, "cannot open: %s",
			   strerror(errno));
		return NULL;
	}
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536 * 2;
			buf = fw_xrealloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fw_err_set(err, path, 0, NULL, NULL, "read error: %s",
			   strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* ---------------------------------------------------------------- lines */

void sim_lines_init(struct sim_lines *it, const char *buf, size_t len)
{
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	it->len = len;
}

bool sim_lines_next(struct sim_lines *it)
{
	size_t i = it->pos, j, n;

	if (i >= it->len)
		return false;
	j = i;
	while (j < it->len && it->buf[j] != '\n')
		j++;
	n = strnlen(it->buf + i, j - i);
	if (n && it->buf[i + n - 1] == '\r')
		n--;
	if (n + 1 > it->cap) {
		it->cap = n + 64;
		it->line = fw_xrealloc(it->line, it->cap);
	}
	memcpy(it->line, it->buf + i, n);
	it->line[n] = '\0';
	it->pos = j + 1;
	it->lineno++;
	return true;
}

void sim_lines_free(struct sim_lines *it)
{
	free(it->line);
	it->line = NULL;
	it->cap = 0;
}

/* --------------------------------------------------------------- fields */

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Copy a quoted field starting after the opening quote; *pp ends after it. */
static int unquote_field(char **pp, char delim, char **start)
{
	char *r = *pp, *w = *pp;

	*start = w;
	for (;;) {
		if (*r == '\0')
			return -1; /* unterminated */
		if (*r == '"') {
			if (r[1] == '"') {
				*w++ = '"';
				r += 2;
				continue;
			}
			r++;
			break;
		}
		*w++ = *r++;
	}
	/* Only blanks may follow the closing quote before the delimiter. */
	while (*r == ' ' || *r == '\t')
		r++;
	if (*r != '\0' && *r != delim)
		return -1;
	*w = '\0';
	*pp = *r ? r + 1 : r;
	return *r ? 1 : 0; /* 1: another field follows */
}

int sim_split(char *line, char delim, bool quotes, char **field, int max)
{
	char *p = line;
	int n = 0;

	for (;;) {
		char *q = p;

		while (*q == ' ' || *q == '\t')
			q++;
		if (n == max)
			return -1;
		if (quotes && *q == '"') {
			int more;

			q++;
			more = unquote_field(&q, delim, &field[n]);
			if (more < 0)
				return -1;
			n++;
			if (!more)
				return n;
			p = q;
			continue;
		}
		char *d = strchr(p, delim);
		if (d)
			*d = '\0';
		field[n++] = trim(p);
		if (!d)
			return n;
		p = d + 1;
	}
}

int sim_split_ws(char *line, char **field, int max)
{
	char *p = line;
	int n = 0;

	for (;;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			return n;
		if (n == max)
			return -1;
		field[n++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* ----------------------------------------------------------------- time */

int64_t sim_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Howard Hinnant's days_from_civil: exact for any proleptic date. */
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + (int64_t)doe - 719468;
}

/* Read exactly n digits. */
static int digits(const char **pp, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*pp)[i]))
			return -1;
		v = v * 10 + ((*pp)[i] - '0');
	}
	*pp += n;
	*out = v;
	return 0;
}

static int days_in_month(int y, int m)
{
	static const int dm[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : dm[m - 1];
}

static int parse_zone(const char *p, bool *has_zone, int *offset)
{
	int hh, mm = 0, sign;

	*has_zone = false;
	*offset = 0;
	if (*p == '\0')
		return 0;
	if ((*p == 'Z' || *p == 'z') && p[1] == '\0') {
		*has_zone = true;
		return 0;
	}
	if (*p != '+' && *p != '-')
		return -1;
	sign = *p == '-' ? -1 : 1;
	p++;
	if (digits(&p, 2, &hh))
		return -1;
	if (*p == ':')
		p++;
	if (*p && digits(&p, 2, &mm))
		return -1;
	if (*p || hh > 23 || mm > 59)
		return -1;
	*has_zone = true;
	*offset = sign * (hh * 3600 + mm * 60);
	return 0;
}

static int iso_time(const char *s, fw_time_t *out)
{
	const char *p = s;
	int y, mo, d, h = 0, mi = 0, sec = 0, offset;
	bool has_zone;

	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) ||
	    *p++ != '-' || digits(&p, 2, &d))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
		return -1;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
			return -1;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &sec))
				return -1;
		}
		if (h > 23 || mi > 59 || sec > 60)
			return -1;
	}
	if (parse_zone(p, &has_zone, &offset))
		return -1;
	if (has_zone) {
		int64_t days = sim_days_from_civil(y, (unsigned)mo, (unsigned)d);

		*out = days * 86400 + h * 3600 + mi * 60 + sec - offset;
		return 0;
	}
	struct tm tm = { 0 };
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (t == (time_t)-1 && !(y == 1969 && mo == 12 && d == 31))
		return -1;
	*out = (fw_time_t)t;
	return 0;
}

int sim_parse_time(const char *s, fw_time_t *out, struct fw_err *err)
{
	uint64_t v;

	if (s && sim_parse_count(s, (uint64_t)1 << 40, &v) == 0) {
		*out = (fw_time_t)v;
		return 0;
	}
	if (s && iso_time(s, out) == 0)
		return 0;
	if (err)
		snprintf(err->msg, sizeof(err->msg), "%s",
			 "expected epoch seconds or YYYY-MM-DD[Thh:mm[:ss]][Z|+hh:mm]");
	return -1;
}

const char *sim_fmt_time(fw_time_t t, char *buf, size_t len)
{
	int64_t days = t / 86400, rem = t % 86400;

	if (rem < 0) {
		rem += 86400;
		days--;
	}
	/* civil_from_days (Hinnant). */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	unsigned d = doy - (153 * mp + 2) / 5 + 1;
	unsigned m = mp < 10 ? mp + 3 : mp - 9;

	y += m <= 2;
	snprintf(buf, len, "%04lld-%02u-%02uT%02d:%02d:%02d", (long long)y, m,
		 d, (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60));
	return buf;
}

const char *sim_fmt_dur(int64_t sec, char *buf, size_t len)
{
	const char *sign = "";

	if (sec < 0) {
		sign = "-";
		sec = -sec;
	}
	if (sec >= 86400)
		snprintf(buf, len, "%s%lldd %02d:%02d:%02d", sign,
			 (long long)(sec / 86400), (int)(sec / 3600 % 24),
			 (int)(sec / 60 % 60), (int)(sec % 60));
	else
		snprintf(buf, len, "%s%02d:%02d:%02d", sign, (int)(sec / 3600),
			 (int)(sec / 60 % 60), (int)(sec % 60));
	return buf;
}

/* -------------------------------------------------------------- numbers */

int sim_parse_count(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		unsigned dgt = (unsigned)(*s - '0');
		if (v > (max - dgt) / 10)
			return -1;
		v = v * 10 + dgt;
	}
	*out = v;
	return 0;
}

/* -------------------------------------------------------------- buffers */

int sim_buf_write(const struct fw_buf *b, const char *path,
		  struct fw_err *err)
{
	/* 0644, not fopen()'s 0666: never group/world-writable, whatever the umask */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return fw_err_set(err, path, 0, NULL, NULL,
				  "cannot create: %s", strerror(errno));
	}
	if ((b->len && fwrite(b->s, 1, b->len, f) != b->len) | (fclose(f) != 0))
		return fw_err_set(err, path, 0, NULL, NULL,
				  "write error: %s", strerror(errno));
	return 0;
}
