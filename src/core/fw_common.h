/*
 * fw_common.h - small shared pieces of Fairway's policy core.
 *
 * The core is pure C11 with no Slurm headers.  Everything in it is shared by
 * the two Slurm plugins (priority/fairway, sched/fairway) and by the
 * simulator, so that one concept is implemented in exactly one place.
 *
 * This header holds: the time type, the error record that every parser fills
 * (file, line, key, value, reason), and the value parsers that give
 * configuration keys their units (durations in Slurm's formats, weights
 * that may be fractions, booleans), plus the Key=Value line tokenizer used
 * by fairway.conf, slurm.conf and the trace readers.
 */
#ifndef FW_COMMON_H
#define FW_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Seconds since the epoch (like time_t, but fixed width everywhere). */
typedef int64_t fw_time_t;

/* Symbols of the core are internal to whichever binary links it. */
#if defined(__GNUC__)
#define FW_HIDDEN __attribute__((visibility("hidden")))
#define FW_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FW_HIDDEN
#define FW_PRINTF(a, b)
#endif

/*
 * An error found while reading configuration or input.  Every rejection names
 * where (file, line), what (key, value) and why (msg).  Fields that do not
 * apply are empty (line 0).
 */
struct fw_err {
	char file[256];
	int line;
	char key[64];
	char value[160];
	char msg[256];
};

void fw_err_clear(struct fw_err *err);
/* Set all fields at once; any string may be NULL. Returns -1 for chaining. */
int fw_err_set(struct fw_err *err, const char *file, int line,
	       const char *key, const char *value, const char *fmt, ...)
	FW_PRINTF(6, 7);
/* Fill in file/line if the error does not carry them yet. */
void fw_err_locate(struct fw_err *err, const char *file, int line);
/* "file:line: key=value: msg" (parts that are empty are left out). */
const char *fw_err_str(const struct fw_err *err, char *buf, size_t len);

/* A growable NUL-terminated string (zero-initialise; free(b.s) or
 * fw_buf_free()). */
struct fw_buf {
	char *s;
	size_t len, cap;
};

/* Append n bytes (s may be "" with n 0 to get an empty string). */
void fw_buf_append(struct fw_buf *b, const char *s, size_t n);
/* Append printf-formatted text. */
void fw_buf_printf(struct fw_buf *b, const char *fmt, ...) FW_PRINTF(2, 3);
/* Free the text and make the buffer empty again (reusable). */
void fw_buf_free(struct fw_buf *b);

/*
 * splitmix64: a small deterministic pseudo-random generator, the same on
 * every platform, so that generated traces, benchmark queues and property
 * tests are reproducible from a seed.  Advances *state.
 */
uint64_t fw_splitmix64(uint64_t *state);
/* A 64-bit finaliser (murmur3's) for hash tables keyed by integers. */
uint64_t fw_mix64(uint64_t x);

/*
 * The checksum of the plugins' state files and the fair-share state: FNV-1a
 * 64 with offset basis 1469598103934665603 (not the standard basis; it is
 * the on-disk format and stays).
 */
uint64_t fw_state_hash(const char *s, size_t n);

/*
 * Value parsers.  They accept surrounding whitespace, reject trailing
 * garbage, and return 0 on success, -1 on error (with err->msg set; key,
 * value and location are left to the caller via fw_err_set/fw_err_locate).
 */
int fw_parse_int64(const char *s, int64_t *out, struct fw_err *err);
int fw_parse_uint32(const char *s, uint32_t *out, struct fw_err *err);
int fw_parse_double(const char *s, double *out, struct fw_err *err);
/*
 * A weight: a decimal number ("100", "-2.5", "1e-3") or an exact fraction
 * "a/b" ("1/864000"), either sign.  Infinite and NaN values are rejected.
 */
int fw_parse_weight(const char *s, double *out, struct fw_err *err);
/* yes/no, true/false, on/off, 1/0 (case-insensitive). */
int fw_parse_bool(const char *s, bool *out, struct fw_err *err);
/*
 * A duration in Slurm's time formats, returned in seconds:
 *   "minutes", "minutes:seconds", "hours:minutes:seconds",
 *   "days-hours", "days-hours:minutes", "days-hours:minutes:seconds".
 * Also accepted: a number with a unit suffix "30s", "30m", "12h", "7d", "2w".
 * "UNLIMITED"/"INFINITE" give -1 only if allow_infinite.
 */
int fw_parse_duration(const char *s, bool allow_infinite, int64_t *out_sec,
		      struct fw_err *err);
/* A memory size with optional K/M/G/T suffix (default unit MB), in MB. */
int fw_parse_mem_mb(const char *s, uint64_t *out_mb, struct fw_err *err);

/*
 * Key=Value tokenizer for one logical line.  Handles '#' comments (outside
 * quotes), double-quoted values, and whitespace between pairs.  Keys are
 * compared case-insensitively by fw_kv_get.  A token without '=' is an
 * error.  The struct owns copies of the strings.
 */
#define FW_KV_MAX 64
struct fw_kv {
	int n;
	char *key[FW_KV_MAX];
	char *val[FW_KV_MAX];
};
/* Returns 0 (possibly with n == 0 for a blank/comment line) or -1. */
int fw_kv_parse(const char *line, struct fw_kv *kv, struct fw_err *err);
void fw_kv_free(struct fw_kv *kv);
/* Index of the first pair with this key (case-insensitive), or -1. */
int fw_kv_find(const struct fw_kv *kv, const char *key);
const char *fw_kv_get(const struct fw_kv *kv, const char *key);

/*
 * Read a text file line by line, joining lines that end in a backslash.
 * The callback gets the logical line and the number of its first physical
 * line; a non-zero return stops reading and is returned.  Returns -1 with
 * err set if the file cannot be read.
 */
typedef int (*fw_line_cb)(void *ctx, const char *line, int lineno);
int fw_read_lines(const char *path, fw_line_cb cb, void *ctx,
		  struct fw_err *err);
/* Same for a buffer in memory (used by tests and fuzzers). */
int fw_read_lines_mem(const char *buf, size_t len, fw_line_cb cb, void *ctx);

/*
 * Configuration dispatch.  fairway.conf is read once; each logical line is
 * tokenized into a struct fw_kv and offered to every core module's
 * fw_<module>_conf_line().  A module marks the pairs it consumed in used[]
 * (an entity line such as "Account=phys Shares=60 Priority=10" may be shared
 * by several modules) and returns one of these.  A line with an attribute
 * no module consumed is rejected by the dispatcher.
 */
#define FW_CONF_OK 0       /* consumed (some) pairs, no error */
#define FW_CONF_UNKNOWN 1  /* nothing on this line belongs to the module */
#define FW_CONF_ERR (-1)   /* error; err has key, value and reason */

/* Case-insensitive string equality (NULL-safe: NULL equals only NULL). */
bool fw_streq(const char *a, const char *b);
/* strdup that aborts on allocation failure (the core never returns NULL). */
char *fw_strdup(const char *s);
void *fw_xmalloc(size_t n);
void *fw_xcalloc(size_t n, size_t sz);
void *fw_xrealloc(void *p, size_t n);

/*
 * The MUNGE socket named in Slurm's AuthInfo ("socket=/run/munge/x,ttl=60"):
 * copies the path into buf and returns 1; returns 0 if AuthInfo names no
 * socket (MUNGE's default is meant) or the path does not fit.
 */
int fw_authinfo_munge_socket(const char *authinfo, char *buf, size_t len);

/*
 * Hostlist expression handling ("c[1-4,7],gpu[01-02],login1"), as in
 * Slurm's NodeName=/Nodes= values.  Expands into a newly allocated array of
 * newly allocated names; returns the count or -1 on a malformed expression.
 * At most max_names names are produced (guards against "n[1-999999999]").
 */
int fw_hostlist_expand(const char *expr, char ***names, size_t max_names,
		       struct fw_err *err);
void fw_hostlist_free(char **names, int n);

#endif /* FW_COMMON_H */
