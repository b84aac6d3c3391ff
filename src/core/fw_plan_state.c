/*
 * fw_plan_state.c - the bypass counts sched/fairway keeps across restarts
 * (format in fw_plan.h).  Moved out of the plugin so that the parser is
 * unit-tested and fuzzed (testsuite/fuzz, target state) like the other
 * state files; the format is unchanged.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_plan.h"

#define MAGIC "fairway-sched-state 1"

char *fw_bypass_save(const struct fw_bypass *v, size_t n, size_t *len)
{
	/* "bypass " + 2 x 10 digits + ' ' + '\n' per entry */
	size_t cap = sizeof(MAGIC) + 64 + n * 32, off;
	char *buf = fw_xmalloc(cap);

	off = (size_t)snprintf(buf, cap, "%s\n", MAGIC);
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(buf + off, cap - off, "bypass %" PRIu32 " %" PRIu32 "\n",
					v[i].job_id, v[i].count);
	off += (size_t)snprintf(buf + off, cap - off, "end %zu %016" PRIx64 "\n", n,
				fw_state_hash(buf, off));
	*len = off;
	return buf;
}

/* Decimal digits only (no sign, no spaces), within uint32/size_t. */
static int parse_dec(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (max - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Split "WORD A B" into A and B (exactly one space between fields). */
static int two_fields(const char *line, size_t n, const char *word,
		      const char **a, size_t *alen, const char **b, size_t *blen)
{
	size_t w = strlen(word);
	const char *sp;

	if (n <= w + 1 || memcmp(line, word, w) || line[w] != ' ')
		return -1;
	*a = line + w + 1;
	sp = memchr(*a, ' ', n - w - 1);
	if (!sp)
		return -1;
	*alen = (size_t)(sp - *a);
	*b = sp + 1;
	*blen = n - (size_t)(*b - line);
	return 0;
}

static int load_err(struct fw_err *err, int line, const char *what)
{
	return fw_err_set(err, NULL, line, NULL, NULL, "sched state: %s", what);
}

int fw_bypass_load(const char *buf, size_t len, struct fw_bypass **out,
		   size_t *n, struct fw_err *err)
{
	struct fw_bypass *v = NULL;
	size_t cnt = 0, cap = 0, pos = 0;
	int line = 0;

	*out = NULL;
	*n = 0;
	while (pos < len) {
		const char *p = buf + pos, *nl = memchr(p, '\n', len - pos), *a, *b;
		size_t ll, alen, blen;
		uint64_t x, y;

		line++;
		if (!nl) {
			free(v);
			return load_err(err, line, "truncated (no end line)");
		}
		ll = (size_t)(nl - p);
		pos += ll + 1;
		if (line == 1) {
			if (ll != strlen(MAGIC) || memcmp(p, MAGIC, ll)) {
				free(v);
				return load_err(err, line, "not a version-1 sched state");
			}
			continue;
		}
		if (!two_fields(p, ll, "end", &a, &alen, &b, &blen)) {
			char want[17];

			snprintf(want, sizeof(want), "%016" PRIx64,
				 fw_state_hash(buf, (size_t)(p - buf)));
			if (parse_dec(a, alen, SIZE_MAX, &x) || x != cnt) {
				free(v);
				return load_err(err, line, "end line does not match the bypass lines");
			}
			if (blen != 16 || memcmp(b, want, 16)) {
				free(v);
				return load_err(err, line, "checksum mismatch (corrupt)");
			}
			if (pos != len) {
				free(v);
				return load_err(err, line + 1, "data after the end line");
			}
			*out = v;
			*n = cnt;
			return 0;
		}
		if (two_fields(p, ll, "bypass", &a, &alen, &b, &blen) ||
		    parse_dec(a, alen, UINT32_MAX, &x) || x == 0 ||
		    parse_dec(b, blen, UINT32_MAX, &y)) {
			free(v);
			return load_err(err, line, "expected 'bypass JOBID COUNT'");
		}
		if (cnt == cap) {
			cap = cap ? 2 * cap : 64;
			v = fw_xrealloc(v, cap * sizeof(*v));
		}
		v[cnt].job_id = (uint32_t)x;
		v[cnt].count = (uint32_t)y;
		cnt++;
	}
	free(v);
	return load_err(err, line + 1, line ? "truncated (no end line)" : "empty");
}
