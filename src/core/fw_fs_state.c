/*
 * fw_fs_state.c - save and load the fair-share usage as versioned,
 * checksummed text, and carry usage from an old tree onto a rebuilt one.
 *
 *   fairway-fs-state 1
 *   clock 1 1700000000                 started, clock
 *   reset 1699920000 -                 reset anchor, last zeroing ("-" none)
 *   decay halflife 604800              or: decay window W COUNT FACTOR CUR
 *   node A root 12345.5                account path, usage [bins]
 *   node A root/phys 10000
 *   node U root/phys alice 10000       account path, user, usage [bins]
 *   end 3                              number of node records
 *   checksum 89ab...                   FNV-1a 64 of everything above
 *
 * In window mode every node record ends with its COUNT window bins, newest
 * first.  Names are percent-escaped (anything but [A-Za-z0-9._@+:-]) so
 * that paths split on '/' and fields on ' '.  Numbers use %.17g so that
 * a round trip is exact.
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_fs_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATE_MAGIC "fairway-fs-state"
#define STATE_VERSION 1

/* ------------------------------------------------------------ out buffer */

static void ob_putc(struct fw_buf *b, char c)
{
	fw_buf_append(b, &c, 1);
}

static bool plain_char(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '@' || c == '+' ||
	       c == ':' || c == '-';
}

static void ob_escaped(struct fw_buf *b, const char *s)
{
	static const char hexd[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (plain_char(c)) {
			ob_putc(b, (char)c);
		} else {
			ob_putc(b, '%');
			ob_putc(b, hexd[c >> 4]);
			ob_putc(b, hexd[c & 15]);
		}
	}
}

/* Account path of an account node: root/a/b (escaped components). */
static void ob_path(struct fw_buf *b, const struct fw_fs_tree *t, int acct)
{
	if (t->node[acct].parent >= 0) {
		ob_path(b, t, t->node[acct].parent);
		ob_putc(b, '/');
	}
	ob_escaped(b, t->node[acct].name);
}

static void ob_time(struct fw_buf *b, fw_time_t t)
{
	if (t == FW_FS_NO_TIME)
		fw_buf_printf(b, " -");
	else
		fw_buf_printf(b, " %" PRId64, t);
}

char *fw_fs_state_save(const struct fw_fs_tree *t, size_t *len)
{
	struct fw_buf b = { 0 };
	bool window = t->decay == FW_FS_DECAY_WINDOW;

	fw_buf_printf(&b, "%s %d\n", STATE_MAGIC, STATE_VERSION);
	fw_buf_printf(&b, "clock %d %" PRId64 "\n", t->started ? 1 : 0,
		  t->started ? t->clock : 0);
	fw_buf_printf(&b, "reset");
	ob_time(&b, t->reset_anchor);
	ob_time(&b, t->zeroed_at);
	fw_buf_printf(&b, "\n");
	if (window)
		fw_buf_printf(&b, "decay window %" PRId64 " %u %.17g %" PRId64 "\n",
			  t->window_sec, t->window_count, t->window_factor,
			  t->cur_window);
	else
		fw_buf_printf(&b, "decay halflife %" PRId64 "\n", t->halflife);
	for (size_t i = 0; i < t->n; i++) {
		const struct fw_fs_node *x = &t->node[i];

		fw_buf_printf(&b, "node %c ", x->is_user ? 'U' : 'A');
		ob_path(&b, t, x->is_user ? x->parent : (int)i);
		if (x->is_user) {
			ob_putc(&b, ' ');
			ob_escaped(&b, x->name);
		}
		fw_buf_printf(&b, " %.17g", x->usage);
		if (window)
			for (uint32_t k = 0; k < t->window_count; k++)
				fw_buf_printf(&b, " %.17g",
					  t->bins[i * t->window_count +
						  fw_fs_slot(t, t->cur_window - (int64_t)k)]);
		ob_putc(&b, '\n');
	}
	fw_buf_printf(&b, "end %zu\n", t->n);
	fw_buf_printf(&b, "checksum %016" PRIx64 "\n", fw_state_hash(b.s, b.len));
	*len = b.len;
	return b.s;
}

/* --------------------------------------------------------------- import */

/* What a state (or an old tree) says about time and decay. */
struct import_hdr {
	bool started;
	fw_time_t clock, anchor, zeroed;
	enum fw_fs_decay decay;
	int64_t window_sec;
	uint32_t window_count;
};

/* One saved node resolved to a handle of the destination tree. */
struct import_node {
	int idx;
	double usage;
	double *bins;  /* window_count of the source, newest first, or NULL */
};

static bool bins_compatible(const struct fw_fs_tree *t,
			    const struct import_hdr *h)
{
	return t->decay == FW_FS_DECAY_WINDOW && h->decay == FW_FS_DECAY_WINDOW &&
	       h->window_sec == t->window_sec;
}

static void import_header(struct fw_fs_tree *t, const struct import_hdr *h)
{
	for (size_t i = 0; i < t->n; i++)
		t->node[i].usage = 0.0;
	if (t->bins)
		memset(t->bins, 0, t->n * t->window_count * sizeof(double));
	t->started = h->started;
	t->clock = h->started ? h->clock : FW_FS_NO_TIME;
	t->cur_window = h->started ? fw_fs_window_at(t, h->clock) : 0;
	t->reset_anchor = h->anchor;
	t->zeroed_at = h->zeroed;
	t->next_reset = FW_FS_NO_TIME;
}

/*
 * Put one node's usage in place.  Window rings move over when the window
 * length matches (as many windows as both keep); otherwise the decayed
 * total becomes the current window's usage (a decay-mode change keeps the
 * amount, not its history).
 */
static void import_node(struct fw_fs_tree *t, const struct import_hdr *h,
			const struct import_node *n)
{
	size_t cnt = t->window_count;

	if (t->decay != FW_FS_DECAY_WINDOW) {
		t->node[n->idx].usage = n->usage;
		return;
	}
	if (bins_compatible(t, h) && n->bins) {
		size_t m = h->window_count < cnt ? h->window_count : cnt;

		for (size_t k = 0; k < m; k++)
			t->bins[(size_t)n->idx * cnt +
				fw_fs_slot(t, t->cur_window - (int64_t)k)] = n->bins[k];
	} else {
		t->bins[(size_t)n->idx * cnt + fw_fs_slot(t, t->cur_window)] =
			n->usage;
	}
}

static void import_done(struct fw_fs_tree *t)
{
	if (t->decay == FW_FS_DECAY_WINDOW)
		fw_fs_window_refresh(t);
}

size_t fw_fs_tree_carry_usage(struct fw_fs_tree *dst,
			      const struct fw_fs_tree *src)
{
	struct import_hdr h = {
		.started = src->started, .clock = src->clock,
		.anchor = src->reset_anchor, .zeroed = src->zeroed_at,
		.decay = src->decay, .window_sec = src->window_sec,
		.window_count = src->window_count,
	};
	double *bins = fw_xmalloc(src->window_count * sizeof(double));
	size_t dropped = 0;

	import_header(dst, &h);
	/* a NOW reset done by src is not done again on the rebuilt tree */
	dst->reset_now_pending = dst->reset_now_pending && src->reset_now_pending;
	for (size_t i = 0; i < src->n; i++) {
		const struct fw_fs_node *x = &src->node[i];
		int d = x->is_user ? fw_fs_find_user(dst, x->acct, x->name)
				   : fw_fs_find_account(dst, x->name);
		struct import_node n = { .idx = d, .usage = x->usage };

		if (d < 0 || !fw_fs_same_path(src, (int)i, dst, d)) {
			dropped++;
			continue;
		}
		if (src->decay == FW_FS_DECAY_WINDOW) {
			for (uint32_t k = 0; k < src->window_count; k++)
				bins[k] = src->bins[i * src->window_count +
						    fw_fs_slot(src, src->cur_window -
								    (int64_t)k)];
			n.bins = bins;
		}
		import_node(dst, &h, &n);
	}
	free(bins);
	import_done(dst);
	return dropped;
}

/* ----------------------------------------------------------------- load */

struct parser {
	struct fw_fs_tree *t;
	struct fw_err *err;
	int line;
	struct import_hdr h;
	bool have_clock, have_reset, have_decay, have_end;
	struct import_node *nodes;
	size_t n_nodes, cap_nodes;
	char *seen;           /* per tree node: already loaded */
	size_t dropped;
};

static int perr(struct parser *p, const char *fmt, ...) FW_PRINTF(2, 3);
static int perr(struct parser *p, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fw_err_set(p->err, NULL, p->line, NULL, NULL,
			  "fair-share state: %s", msg);
}

/* Split a line (modified in place) into at most max fields. */
static int split_fields(char *s, char **f, int max)
{
	int n = 0;

	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (n == max)
			return max + 1;
		f[n++] = s;
		while (*s && *s != ' ')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static bool parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || errno)
		return false;
	*out = v;
	return true;
}

static bool parse_time(const char *s, fw_time_t *out)
{
	if (s && !strcmp(s, "-")) {
		*out = FW_FS_NO_TIME;
		return true;
	}
	return parse_i64(s, out) && *out != FW_FS_NO_TIME;
}

/* Usage values are finite and non-negative. */
static bool parse_usage(const char *s, double *out)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !*end && !errno && isfinite(*out) && *out >= 0;
}

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* Undo the percent-escaping in place; false on a bad escape. */
static bool unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (*r != '%') {
			if (!plain_char((unsigned char)*r))
				return false;
			*w++ = *r;
			continue;
		}
		int hi = hex((unsigned char)r[1]);
		int lo = hi < 0 ? -1 : hex((unsigned char)r[2]);

		if (lo < 0 || (hi == 0 && lo == 0))
			return false;
		*w++ = (char)(hi * 16 + lo);
		r += 2;
	}
	*w = '\0';
	return w != s;
}

/* Resolve an account path "root/a/b" to a node of the tree, or -1. */
static int resolve_path(struct parser *p, char *path, int *out)
{
	size_t depth = 1, k = 0;
	char **comp;
	int idx;

	for (const char *s = path; *s; s++)
		depth += *s == '/';
	comp = fw_xmalloc(depth * sizeof(char *));
	for (char *s = path;;) {
		char *slash = strchr(s, '/');

		if (slash)
			*slash = '\0';
		if (!unescape(s)) {
			free(comp);
			return perr(p, "bad name in account path");
		}
		comp[k++] = s;
		if (!slash)
			break;
		s = slash + 1;
	}
	if (strcmp(comp[0], "root")) {
		free(comp);
		return perr(p, "account path does not start at root");
	}
	/* the account must sit at the same place in today's tree */
	idx = fw_fs_find_account(p->t, comp[depth - 1]);
	k = depth;
	for (int i = idx; i >= 0; i = p->t->node[i].parent) {
		if (k == 0 || !fw_streq(p->t->node[i].name, comp[--k])) {
			idx = -1;
			break;
		}
	}
	if (k != 0)
		idx = -1;
	free(comp);
	*out = idx;
	return 0;
}

static int parse_header_line(struct parser *p, char **f, int n)
{
	int64_t v;

	if ((!strcmp(f[0], "clock") && p->have_clock) ||
	    (!strcmp(f[0], "reset") && p->have_reset) ||
	    (!strcmp(f[0], "decay") && p->have_decay))
		return perr(p, "duplicate %s record", f[0]);
	if (!strcmp(f[0], "clock")) {
		if (n != 3 || !parse_i64(f[1], &v) || (v != 0 && v != 1) ||
		    !parse_i64(f[2], &p->h.clock))
			return perr(p, "bad clock record");
		p->h.started = v == 1;
		p->have_clock = true;
		return 0;
	}
	if (!strcmp(f[0], "reset")) {
		if (n != 3 || !parse_time(f[1], &p->h.anchor) ||
		    !parse_time(f[2], &p->h.zeroed))
			return perr(p, "bad reset record");
		p->have_reset = true;
		return 0;
	}
	if (n == 3 && !strcmp(f[1], "halflife")) {
		if (!parse_i64(f[2], &v) || v < 0)
			return perr(p, "bad half-life");
		p->h.decay = FW_FS_DECAY_HALFLIFE;
		p->have_decay = true;
		return 0;
	}
	if (n == 6 && !strcmp(f[1], "window")) {
		double d;
		int64_t cnt, cur;

		if (!parse_i64(f[2], &p->h.window_sec) || p->h.window_sec <= 0 ||
		    !parse_i64(f[3], &cnt) || cnt < 1 ||
		    cnt > FW_FS_WINDOW_COUNT_MAX || !parse_usage(f[4], &d) ||
		    d > 1 || !parse_i64(f[5], &cur))
			return perr(p, "bad window decay record");
		p->h.window_count = (uint32_t)cnt;
		p->h.decay = FW_FS_DECAY_WINDOW;
		p->have_decay = true;
		return 0;
	}
	return perr(p, "bad decay record");
}

static int parse_node_line(struct parser *p, char **f, int n)
{
	bool user, window;
	int base, idx = -1;
	struct import_node rec = { 0 };

	if (!p->have_clock || !p->have_reset || !p->have_decay)
		return perr(p, "node record before the clock, reset and decay records");
	if (n < 4 || (strcmp(f[1], "A") && strcmp(f[1], "U")))
		return perr(p, "bad node record");
	user = f[1][0] == 'U';
	window = p->h.decay == FW_FS_DECAY_WINDOW;
	base = user ? 4 : 3;  /* index of the usage field */
	if (n != base + 1 + (window ? (int)p->h.window_count : 0))
		return perr(p, "node record has %d fields, expected %d", n,
			    base + 1 + (window ? (int)p->h.window_count : 0));
	if (resolve_path(p, f[2], &idx))
		return -1;
	if (user) {
		if (!unescape(f[3]))
			return perr(p, "bad user name");
		idx = idx < 0 ? -1 : fw_fs_find_user(p->t, p->t->node[idx].name, f[3]);
	}
	if (!parse_usage(f[base], &rec.usage))
		return perr(p, "bad usage value '%s'", f[base]);
	if (window) {
		rec.bins = fw_xmalloc(p->h.window_count * sizeof(double));
		for (uint32_t k = 0; k < p->h.window_count; k++)
			if (!parse_usage(f[base + 1 + (int)k], &rec.bins[k])) {
				free(rec.bins);
				return perr(p, "bad window usage value");
			}
	}
	if (idx < 0) {
		p->dropped++;
		free(rec.bins);
		return 0;
	}
	if (p->seen[idx]) {
		free(rec.bins);
		return perr(p, "node '%s' appears twice", p->t->node[idx].name);
	}
	p->seen[idx] = 1;
	rec.idx = idx;
	if (p->n_nodes == p->cap_nodes) {
		p->cap_nodes = p->cap_nodes ? p->cap_nodes * 2 : 64;
		p->nodes = fw_xrealloc(p->nodes, p->cap_nodes * sizeof(*p->nodes));
	}
	p->nodes[p->n_nodes++] = rec;
	return 0;
}

static int parse_line(struct parser *p, char *line, size_t *records)
{
	char *f[FW_FS_WINDOW_COUNT_MAX + 8];
	int n = split_fields(line, f, FW_FS_WINDOW_COUNT_MAX + 8);
	int64_t v;

	if (p->have_end)
		return perr(p, "data after the end record");
	if (n == 0 || n > FW_FS_WINDOW_COUNT_MAX + 7)
		return perr(p, "malformed line");
	if (!strcmp(f[0], "node")) {
		(*records)++;
		return parse_node_line(p, f, n);
	}
	if (!strcmp(f[0], "end")) {
		if (n != 2 || !parse_i64(f[1], &v) || v < 0 || (size_t)v != *records)
			return perr(p, "end record does not match %zu node records",
				    *records);
		p->have_end = true;
		return 0;
	}
	if (!strcmp(f[0], "clock") || !strcmp(f[0], "reset") ||
	    !strcmp(f[0], "decay"))
		return parse_header_line(p, f, n);
	return perr(p, "unknown record '%s'", f[0]);
}

/* The last line must be "checksum <hex>" over everything before it. */
static int verify_checksum(struct parser *p, const char *buf, size_t len,
			   size_t *body_len)
{
	size_t start;
	char want[17];
	uint64_t got;

	if (len == 0)
		return perr(p, "empty");
	if (memchr(buf, '\0', len))
		return perr(p, "contains NUL bytes (corrupt)");
	if (buf[len - 1] != '\n')
		return perr(p, "truncated (no final newline)");
	start = len - 1;
	while (start > 0 && buf[start - 1] != '\n')
		start--;
	if (len - start != 9 + 16 + 1 || memcmp(buf + start, "checksum ", 9))
		return perr(p, "truncated (no checksum record at the end)");
	memcpy(want, buf + start + 9, 16);
	want[16] = '\0';
	got = fw_state_hash(buf, start);
	for (int i = 0; i < 16; i++)
		if (hex((unsigned char)want[i]) < 0)
			return perr(p, "bad checksum record");
	if (strtoull(want, NULL, 16) != got)
		return perr(p, "checksum mismatch (corrupt)");
	*body_len = start;
	return 0;
}

static void parser_free(struct parser *p)
{
	for (size_t i = 0; i < p->n_nodes; i++)
		free(p->nodes[i].bins);
	free(p->nodes);
	free(p->seen);
}

static int parse_body(struct parser *p, const char *buf, size_t len)
{
	size_t pos = 0, records = 0;
	char *line = NULL;
	int rc = 0;

	while (pos < len && !rc) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = (size_t)(nl - (buf + pos));   /* body ends in '\n' */

		p->line++;
		line = fw_xrealloc(line, n + 1);
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		pos += n + 1;
		if (p->line == 1) {
			char magic[32];
			int ver;

			if (sscanf(line, "%31s %d", magic, &ver) != 2 ||
			    strcmp(magic, STATE_MAGIC))
				rc = perr(p, "not a fair-share state");
			else if (ver != STATE_VERSION)
				rc = perr(p, "unsupported version %d (expected %d)",
					  ver, STATE_VERSION);
			continue;
		}
		rc = parse_line(p, line, &records);
	}
	free(line);
	if (!rc && !p->have_end)
		rc = perr(p, "truncated (no end record)");
	return rc;
}

int fw_fs_state_load(struct fw_fs_tree *t, const char *buf, size_t len,
		     size_t *dropped, struct fw_err *err)
{
	struct parser p = { .t = t, .err = err };
	size_t body = 0;
	int rc;

	if (!t || !buf)
		return fw_err_set(err, NULL, 0, NULL, NULL,
				  "fair-share state: no input");
	if (verify_checksum(&p, buf, len, &body))
		return -1;
	p.seen = fw_xcalloc(t->n, 1);
	rc = parse_body(&p, buf, body);
	if (!rc) {
		import_header(t, &p.h);
		for (size_t i = 0; i < p.n_nodes; i++)
			import_node(t, &p.h, &p.nodes[i]);
		import_done(t);
		if (dropped)
			*dropped = p.dropped;
	}
	parser_free(&p);
	return rc ? -1 : 0;
}
