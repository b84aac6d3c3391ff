/*
 * fw_common.c - errors, value parsers, Key=Value tokenizer, line reader and
 * hostlist expansion shared by every part of Fairway.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_common.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- errors */

void fw_err_clear(struct fw_err *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

static void copy_str(char *dst, size_t len, const char *src)
{
	if (!src) {
		dst[0] = '\0';
		return;
	}
	snprintf(dst, len, "%s", src);
}

/*
 * Callers often wrap an error in place (a hostlist error becomes "Nodes=...:
 * <its message>"), so the arguments may point into *err itself: everything
 * is built in a copy first.
 */
int fw_err_set(struct fw_err *err, const char *file, int line,
	       const char *key, const char *value, const char *fmt, ...)
{
	struct fw_err e;
	va_list ap;

	if (!err)
		return -1;
	copy_str(e.file, sizeof(e.file), file);
	e.line = line;
	copy_str(e.key, sizeof(e.key), key);
	copy_str(e.value, sizeof(e.value), value);
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	*err = e;
	return -1;
}

void fw_err_locate(struct fw_err *err, const char *file, int line)
{
	if (!err)
		return;
	if (!err->file[0] && file)
		copy_str(err->file, sizeof(err->file), file);
	if (!err->line)
		err->line = line;
}

const char *fw_err_str(const struct fw_err *err, char *buf, size_t len)
{
	size_t off = 0;

#define APPEND(...)                                                          \
	do {                                                                 \
		if (off < len) {                                             \
			int n_ = snprintf(buf + off, len - off, __VA_ARGS__); \
			if (n_ > 0)                                          \
				off += (size_t)n_;                           \
		}                                                            \
	} while (0)

	if (!len)
		return buf;
	buf[0] = '\0';
	if (err->file[0])
		APPEND("%s:", err->file);
	if (err->line)
		APPEND("%d:", err->line);
	if (off)
		APPEND(" ");
	if (err->key[0])
		APPEND("%s=%s: ", err->key, err->value);
	APPEND("%s", err->msg[0] ? err->msg : "error");
#undef APPEND
	return buf;
}

/* ----------------------------------------------------------- value parsers */

static const char *skip_ws(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

static bool only_ws(const char *s)
{
	return *skip_ws(s) == '\0';
}

static int bad(struct fw_err *err, const char *fmt, const char *what)
{
	if (err) {
		snprintf(err->msg, sizeof(err->msg), fmt, what);
	}
	return -1;
}

int fw_parse_int64(const char *s, int64_t *out, struct fw_err *err)
{
	char *end;
	long long v;

	if (!s || only_ws(s))
		return bad(err, "%s", "empty value, expected an integer");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || !only_ws(end))
		return bad(err, "%s", "not an integer");
	if (errno == ERANGE)
		return bad(err, "%s", "integer out of range");
	*out = (int64_t)v;
	return 0;
}

int fw_parse_uint32(const char *s, uint32_t *out, struct fw_err *err)
{
	int64_t v;

	if (fw_parse_int64(s, &v, err))
		return -1;
	if (v < 0 || v > (int64_t)UINT32_MAX)
		return bad(err, "%s", "out of range 0..4294967295");
	*out = (uint32_t)v;
	return 0;
}

int fw_parse_double(const char *s, double *out, struct fw_err *err)
{
	char *end;
	double v;

	if (!s || only_ws(s))
		return bad(err, "%s", "empty value, expected a number");
	errno = 0;
	v = strtod(s, &end);
	if (end == s || !only_ws(end))
		return bad(err, "%s", "not a number");
	if (errno == ERANGE || !isfinite(v))
		return bad(err, "%s", "number out of range");
	*out = v;
	return 0;
}

int fw_parse_weight(const char *s, double *out, struct fw_err *err)
{
	const char *slash;
	double num, den;
	char tmp[128];
	size_t n;

	if (!s)
		return bad(err, "%s", "empty value, expected a weight");
	slash = strchr(s, '/');
	if (!slash)
		return fw_parse_double(s, out, err);
	n = (size_t)(slash - s);
	if (n >= sizeof(tmp))
		return bad(err, "%s", "weight too long");
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (fw_parse_double(tmp, &num, err) || fw_parse_double(slash + 1, &den, err))
		return bad(err, "%s", "not a weight: expected a number or a fraction a/b");
	if (den == 0.0)
		return bad(err, "%s", "fraction with a zero denominator");
	*out = num / den;
	if (!isfinite(*out))
		return bad(err, "%s", "weight out of range");
	return 0;
}

int fw_parse_bool(const char *s, bool *out, struct fw_err *err)
{
	static const char *yes[] = { "yes", "true", "on", "1", NULL };
	static const char *no[] = { "no", "false", "off", "0", NULL };
	char tmp[16];
	size_t n;

	if (!s)
		return bad(err, "%s", "empty value, expected yes or no");
	s = skip_ws(s);
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n == 0 || n >= sizeof(tmp))
		return bad(err, "%s", "expected yes or no");
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	for (int i = 0; yes[i]; i++)
		if (!strcasecmp(tmp, yes[i])) {
			*out = true;
			return 0;
		}
	for (int i = 0; no[i]; i++)
		if (!strcasecmp(tmp, no[i])) {
			*out = false;
			return 0;
		}
	return bad(err, "%s", "expected yes or no");
}

/* Parse up to n colon-separated non-negative integers; returns count or -1. */
static int parse_colon_fields(const char *s, int64_t *f, int n)
{
	int cnt = 0;

	while (1) {
		char *end;
		long long v;

		if (!isdigit((unsigned char)*s))
			return -1;
		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno == ERANGE || v > INT32_MAX)
			return -1;
		if (cnt == n)
			return -1;
		f[cnt++] = v;
		s = end;
		if (*s == '\0')
			return cnt;
		if (*s != ':')
			return -1;
		s++;
	}
}

static int parse_unit_duration(const char *s, int64_t *out)
{
	char *end;
	double v;
	int64_t mult;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE || v < 0)
		return -1;
	if (end[0] == '\0' || end[1] != '\0')
		return -1;
	switch (tolower((unsigned char)end[0])) {
	case 's': mult = 1; break;
	case 'm': mult = 60; break;
	case 'h': mult = 3600; break;
	case 'd': mult = 86400; break;
	case 'w': mult = 7 * 86400; break;
	default: return -1;
	}
	if (v * (double)mult > 1e15)
		return -1;
	*out = (int64_t)llround(v * (double)mult);
	return 0;
}

int fw_parse_duration(const char *s, bool allow_infinite, int64_t *out_sec,
		      struct fw_err *err)
{
	char buf[64];
	const char *p;
	size_t n;
	int64_t days = 0, f[3];
	int cnt;
	char *dash;

	if (!s)
		return bad(err, "%s", "empty value, expected a duration");
	p = skip_ws(s);
	n = strlen(p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (n == 0 || n >= sizeof(buf))
		return bad(err, "%s", "expected a duration such as 30, 1:00:00, 7-0 or 12h");
	memcpy(buf, p, n);
	buf[n] = '\0';

	if (!strcasecmp(buf, "UNLIMITED") || !strcasecmp(buf, "INFINITE")) {
		if (!allow_infinite)
			return bad(err, "%s", "an unlimited duration is not allowed here");
		*out_sec = -1;
		return 0;
	}
	if (isalpha((unsigned char)buf[n - 1])) {
		if (parse_unit_duration(buf, out_sec))
			return bad(err, "%s", "bad duration: expected e.g. 30s, 15m, 12h, 7d or 2w");
		return 0;
	}
	dash = strchr(buf, '-');
	if (dash) {
		int64_t d[1];

		*dash = '\0';
		if (parse_colon_fields(buf, d, 1) != 1)
			return bad(err, "%s", "bad duration: days must be a number (days-hours[:min[:sec]])");
		days = d[0];
		cnt = parse_colon_fields(dash + 1, f, 3);
		if (cnt < 1)
			return bad(err, "%s", "bad duration after days- (expected hours[:min[:sec]])");
		/* days-hours, days-hours:minutes, days-hours:minutes:seconds */
		int64_t h = f[0], m = cnt > 1 ? f[1] : 0, sec = cnt > 2 ? f[2] : 0;
		*out_sec = days * 86400 + h * 3600 + m * 60 + sec;
		return 0;
	}
	cnt = parse_colon_fields(buf, f, 3);
	switch (cnt) {
	case 1: *out_sec = f[0] * 60; return 0;             /* minutes */
	case 2: *out_sec = f[0] * 60 + f[1]; return 0;      /* min:sec */
	case 3: *out_sec = f[0] * 3600 + f[1] * 60 + f[2]; return 0;
	default:
		return bad(err, "%s", "bad duration: expected minutes, min:sec, h:m:s, days-h[:m[:s]] or a unit suffix");
	}
}

int fw_parse_mem_mb(const char *s, uint64_t *out_mb, struct fw_err *err)
{
	char *end;
	double v;
	double mult = 1;

	if (!s || only_ws(s))
		return bad(err, "%s", "empty value, expected a memory size");
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE || v < 0 || !isfinite(v))
		return bad(err, "%s", "not a memory size");
	if (*end && !isspace((unsigned char)*end)) {
		switch (toupper((unsigned char)*end)) {
		case 'K': mult = 1.0 / 1024; break;
		case 'M': mult = 1; break;
		case 'G': mult = 1024; break;
		case 'T': mult = 1024.0 * 1024; break;
		default: return bad(err, "%s", "bad memory unit (K, M, G or T)");
		}
		end++;
		if (toupper((unsigned char)*end) == 'B')
			end++;
	}
	if (!only_ws(end))
		return bad(err, "%s", "trailing characters after memory size");
	if (v * mult > 9e15)
		return bad(err, "%s", "memory size out of range");
	*out_mb = (uint64_t)llround(v * mult);
	return 0;
}

/* -------------------------------------------------------------- tokenizer */

void fw_kv_free(struct fw_kv *kv)
{
	for (int i = 0; i < kv->n; i++) {
		free(kv->key[i]);
		free(kv->val[i]);
	}
	kv->n = 0;
}

static char *dup_range(const char *b, const char *e)
{
	size_t n = (size_t)(e - b);
	char *s = fw_xmalloc(n + 1);

	memcpy(s, b, n);
	s[n] = '\0';
	return s;
}

int fw_kv_parse(const char *line, struct fw_kv *kv, struct fw_err *err)
{
	const char *p = line;

	kv->n = 0;
	while (1) {
		const char *kb, *ke, *vb, *ve;
		char *val;

		p = skip_ws(p);
		if (*p == '\0' || *p == '#')
			return 0;
		kb = p;
		while (*p && *p != '=' && !isspace((unsigned char)*p) && *p != '#')
			p++;
		ke = p;
		if (*p != '=') {
			char *tok = dup_range(kb, ke);

			fw_err_set(err, NULL, 0, tok, "",
				   "expected Key=Value, found '%s' without '='", tok);
			free(tok);
			fw_kv_free(kv);
			return -1;
		}
		if (ke == kb) {
			fw_err_set(err, NULL, 0, "", "", "'=' without a key");
			fw_kv_free(kv);
			return -1;
		}
		p++; /* '=' */
		if (*p == '"') {
			vb = ++p;
			while (*p && *p != '"')
				p++;
			if (*p != '"') {
				char *k = dup_range(kb, ke);

				fw_err_set(err, NULL, 0, k, "", "unterminated quoted value");
				free(k);
				fw_kv_free(kv);
				return -1;
			}
			ve = p++;
		} else {
			vb = p;
			while (*p && !isspace((unsigned char)*p) && *p != '#')
				p++;
			ve = p;
		}
		if (kv->n == FW_KV_MAX) {
			fw_err_set(err, NULL, 0, "", "", "too many Key=Value pairs on one line (max %d)",
				   FW_KV_MAX);
			fw_kv_free(kv);
			return -1;
		}
		val = dup_range(vb, ve);
		kv->key[kv->n] = dup_range(kb, ke);
		kv->val[kv->n] = val;
		kv->n++;
	}
}

int fw_kv_find(const struct fw_kv *kv, const char *key)
{
	for (int i = 0; i < kv->n; i++)
		if (!strcasecmp(kv->key[i], key))
			return i;
	return -1;
}

const char *fw_kv_get(const struct fw_kv *kv, const char *key)
{
	int i = fw_kv_find(kv, key);

	return i < 0 ? NULL : kv->val[i];
}

/* ------------------------------------------------------------ line reader */


/*
 * Feed one physical line (without its newline) into the logical-line
 * buffer; deliver the logical line unless it continues with a backslash.
 */
static int feed_line(struct fw_buf *lb, const char *s, size_t n, int lineno,
		     int *first, fw_line_cb cb, void *ctx)
{
	if (n && s[n - 1] == '\r')
		n--;
	if (lb->len == 0)
		*first = lineno;
	if (n && s[n - 1] == '\\') {
		fw_buf_append(lb, s, n - 1);
		fw_buf_append(lb, " ", 1);
		return 0;
	}
	fw_buf_append(lb, s, n);
	int rc = cb(ctx, lb->s, *first);
	lb->len = 0;
	lb->s[0] = '\0';
	return rc;
}

int fw_read_lines_mem(const char *buf, size_t len, fw_line_cb cb, void *ctx)
{
	struct fw_buf lb = { 0 };
	size_t i = 0;
	int lineno = 0, first = 1, rc = 0;

	fw_buf_append(&lb, "", 0);
	while (i < len && !rc) {
		size_t j = i;

		while (j < len && buf[j] != '\n')
			j++;
		lineno++;
		/* NUL bytes inside a line end it: the rest is not text. */
		size_t n = strnlen(buf + i, j - i);
		rc = feed_line(&lb, buf + i, n, lineno, &first, cb, ctx);
		i = j + 1;
	}
	if (!rc && lb.len)
		rc = cb(ctx, lb.s, first);
	free(lb.s);
	return rc;
}

int fw_read_lines(const char *path, fw_line_cb cb, void *ctx,
		  struct fw_err *err)
{
	FILE *f = fopen(path, "r");
	struct fw_buf lb = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, first = 1, rc = 0;

	if (!f)
		return fw_err_set(err, path, 0, NULL, NULL, "cannot open: %s",
				  strerror(errno));
	fw_buf_append(&lb, "", 0);
	while (!rc && (n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			n--;
		rc = feed_line(&lb, line, strnlen(line, (size_t)n), lineno,
			       &first, cb, ctx);
	}
	if (!rc && ferror(f))
		rc = fw_err_set(err, path, lineno, NULL, NULL, "read error: %s",
				strerror(errno));
	if (!rc && lb.len)
		rc = cb(ctx, lb.s, first);
	free(line);
	free(lb.s);
	fclose(f);
	return rc;
}

/* ------------------------------------------------------------- utilities */

int fw_authinfo_munge_socket(const char *authinfo, char *buf, size_t len)
{
	const char *p = authinfo;

	/* Comma-separated options; Slurm matches "socket=" case-insensitively. */
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > 7 && !strncasecmp(p, "socket=", 7)) {
			if (n - 7 >= len)
				return 0;
			memcpy(buf, p + 7, n - 7);
			buf[n - 7] = '\0';
			return 1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

bool fw_streq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcasecmp(a, b) == 0;
}

void *fw_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("fairway: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *fw_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p) {
		fputs("fairway: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *fw_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fputs("fairway: out of memory\n", stderr);
		abort();
	}
	return q;
}

char *fw_strdup(const char *s)
{
	size_t n = strlen(s);
	char *d = fw_xmalloc(n + 1);

	memcpy(d, s, n + 1);
	return d;
}

/* -------------------------------------------------------------- hostlists */

struct name_vec {
	char **v;
	size_t n, cap, max;
};

static int nv_push(struct name_vec *nv, char *s)
{
	if (nv->n >= nv->max) {
		free(s);
		return -1;
	}
	if (nv->n == nv->cap) {
		nv->cap = nv->cap ? nv->cap * 2 : 16;
		nv->v = fw_xrealloc(nv->v, nv->cap * sizeof(char *));
	}
	nv->v[nv->n++] = s;
	return 0;
}

/* Expand "prefix[ranges]suffix" where suffix may itself contain brackets. */
static int expand_one(const char *tok, struct name_vec *nv, struct fw_err *err);

static int expand_range_list(const char *prefix, size_t plen, const char *ranges,
			     size_t rlen, const char *suffix, struct name_vec *nv,
			     struct fw_err *err)
{
	const char *p = ranges, *end = ranges + rlen;

	while (p < end) {
		const char *q = p;
		char lo_s[32], hi_s[32];
		size_t lo_len, hi_len = 0;
		unsigned long long lo, hi;

		while (q < end && *q != ',')
			q++;
		const char *dash = memchr(p, '-', (size_t)(q - p));
		lo_len = (size_t)((dash ? dash : q) - p);
		if (lo_len == 0 || lo_len >= sizeof(lo_s))
			return fw_err_set(err, NULL, 0, NULL, NULL, "bad range in hostlist");
		memcpy(lo_s, p, lo_len);
		lo_s[lo_len] = '\0';
		if (dash) {
			hi_len = (size_t)(q - dash - 1);
			if (hi_len == 0 || hi_len >= sizeof(hi_s))
				return fw_err_set(err, NULL, 0, NULL, NULL, "bad range in hostlist");
			memcpy(hi_s, dash + 1, hi_len);
			hi_s[hi_len] = '\0';
		} else {
			strcpy(hi_s, lo_s);
		}
		for (size_t i = 0; lo_s[i]; i++)
			if (!isdigit((unsigned char)lo_s[i]))
				return fw_err_set(err, NULL, 0, NULL, NULL, "non-numeric range in hostlist");
		for (size_t i = 0; hi_s[i]; i++)
			if (!isdigit((unsigned char)hi_s[i]))
				return fw_err_set(err, NULL, 0, NULL, NULL, "non-numeric range in hostlist");
		lo = strtoull(lo_s, NULL, 10);
		hi = strtoull(hi_s, NULL, 10);
		if (hi < lo || hi - lo >= nv->max)
			return fw_err_set(err, NULL, 0, NULL, NULL, "hostlist range too large or reversed");
		for (unsigned long long v = lo; v <= hi; v++) {
			char num[32], *name;
			size_t slen = strlen(suffix);
			int w = snprintf(num, sizeof(num), "%0*llu", (int)lo_len, v);
			size_t total = plen + (size_t)w + slen + 1;

			name = fw_xmalloc(total);
			memcpy(name, prefix, plen);
			memcpy(name + plen, num, (size_t)w);
			memcpy(name + plen + (size_t)w, suffix, slen + 1);
			if (strchr(suffix, '[')) {
				int rc = expand_one(name, nv, err);
				free(name);
				if (rc)
					return -1;
			} else if (nv_push(nv, name)) {
				return fw_err_set(err, NULL, 0, NULL, NULL, "hostlist expands to too many names");
			}
		}
		p = q + 1;
	}
	return 0;
}

static int expand_one(const char *tok, struct name_vec *nv, struct fw_err *err)
{
	const char *lb = strchr(tok, '['), *rb;

	if (!lb) {
		if (strchr(tok, ']'))
			return fw_err_set(err, NULL, 0, NULL, NULL, "unbalanced ']' in hostlist");
		if (nv_push(nv, fw_strdup(tok)))
			return fw_err_set(err, NULL, 0, NULL, NULL, "hostlist expands to too many names");
		return 0;
	}
	rb = strchr(lb, ']');
	if (!rb)
		return fw_err_set(err, NULL, 0, NULL, NULL, "unbalanced '[' in hostlist");
	return expand_range_list(tok, (size_t)(lb - tok), lb + 1,
				 (size_t)(rb - lb - 1), rb + 1, nv, err);
}

int fw_hostlist_expand(const char *expr, char ***names, size_t max_names,
		       struct fw_err *err)
{
	struct name_vec nv = { .max = max_names };
	const char *p = expr;

	*names = NULL;
	if (!expr)
		return fw_err_set(err, NULL, 0, NULL, NULL, "empty hostlist");
	while (*p) {
		const char *q = p;
		int depth = 0;
		char *tok;

		/* split on commas that are outside brackets */
		while (*q && (depth || *q != ',')) {
			if (*q == '[')
				depth++;
			else if (*q == ']')
				depth--;
			if (depth < 0)
				break;
			q++;
		}
		if (depth) {
			fw_hostlist_free(nv.v, (int)nv.n);
			return fw_err_set(err, NULL, 0, NULL, NULL, "unbalanced brackets in hostlist");
		}
		tok = dup_range(p, q);
		if (tok[0] && expand_one(tok, &nv, err)) {
			free(tok);
			fw_hostlist_free(nv.v, (int)nv.n);
			return -1;
		}
		free(tok);
		p = *q ? q + 1 : q;
	}
	*names = nv.v;
	return (int)nv.n;
}

void fw_hostlist_free(char **names, int n)
{
	if (!names)
		return;
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

uint64_t fw_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t fw_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t fw_state_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* Room for need more bytes and the NUL; doubles, so appends are amortised O(1). */
static void fw_buf_reserve(struct fw_buf *b, size_t need)
{
	if (b->len + need + 1 <= b->cap)
		return;
	while (b->len + need + 1 > b->cap)
		b->cap = b->cap ? b->cap * 2 : 256;
	b->s = fw_xrealloc(b->s, b->cap);
}

void fw_buf_append(struct fw_buf *b, const char *s, size_t n)
{
	fw_buf_reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void fw_buf_printf(struct fw_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* try in the free space first; grow and retry only if it is short */
	fw_buf_reserve(b, 64);
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->s[b->len] = '\0';
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		fw_buf_reserve(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void fw_buf_free(struct fw_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}
