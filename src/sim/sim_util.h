/*
 * sim_util.h - small helpers of fairway-sim: string interning, reading a
 * whole file, splitting a buffer into lines and delimited fields, and time
 * stamps (epoch seconds or ISO 8601).
 *
 * Every reader of the simulator works on a buffer in memory (files are read
 * whole first), so that tests and fuzzers reach exactly the same code as
 * the command line.
 */
#ifndef SIM_UTIL_H
#define SIM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_common.h"

/* ------------------------------------------------------------ interning */

/*
 * A set of strings that live as long as the table: the trace keeps
 * thousands of jobs that name a few dozen users and accounts, and the
 * engine compares names by pointer.
 */
struct sim_strtab {
	char **slot;  /* open addressing, NULL = empty */
	size_t mask;  /* size - 1 */
	size_t used;
};

void sim_strtab_init(struct sim_strtab *t);
void sim_strtab_free(struct sim_strtab *t);
/* The table's copy of s (added if missing); NULL for NULL. */
const char *sim_intern(struct sim_strtab *t, const char *s);
/* Same for the n bytes at s (need not be NUL terminated). */
const char *sim_intern_n(struct sim_strtab *t, const char *s, size_t n);
/* The table's copy of s, or NULL if s was never interned. */
const char *sim_strtab_find(const struct sim_strtab *t, const char *s);

/*
 * Small dense ids for interned names (user and account ids the core keys
 * its per-user limits on): the same pointer always gets the same id,
 * starting at 1 (0 is "none", for NULL).
 */
struct sim_idmap {
	const void **key;
	uint32_t *id;
	size_t mask, used;
};

void sim_idmap_init(struct sim_idmap *m);
void sim_idmap_free(struct sim_idmap *m);
uint32_t sim_idmap_get(struct sim_idmap *m, const void *key);

/* ---------------------------------------------------------------- files */

/*
 * Read a whole file into a NUL-terminated buffer (*len excludes the NUL).
 * Returns NULL with err set (file, reason) on failure.
 */
char *sim_slurp(const char *path, size_t *len, struct fw_err *err);

/* -------------------------------------------------------------- lines */

/*
 * Iterate over the lines of a buffer.  A line ends at '\n' (a preceding
 * '\r' is dropped); a NUL byte ends the line's text.  The line is copied
 * into it->line (owned by the iterator), numbered from 1.
 */
struct sim_lines {
	const char *buf;
	size_t len, pos;
	int lineno;
	char *line;
	size_t cap;
};

void sim_lines_init(struct sim_lines *it, const char *buf, size_t len);
/* Returns false at the end of the buffer. */
bool sim_lines_next(struct sim_lines *it);
void sim_lines_free(struct sim_lines *it);

/* -------------------------------------------------------------- fields */

#define SIM_MAX_FIELDS 64

/*
 * Split a line in place at delim.  quotes: RFC 4180 double quotes (a quoted
 * field may contain delim, "" is a quote).  Leading and trailing blanks of
 * unquoted fields are removed.  Returns the number of fields, or -1 if the
 * line has more than max fields or an unterminated quote.
 */
int sim_split(char *line, char delim, bool quotes, char **field, int max);

/*
 * Split at runs of blanks (SWF).  Returns the number of fields or -1 if
 * more than max.
 */
int sim_split_ws(char *line, char **field, int max);

/* ---------------------------------------------------------------- time */

/*
 * A time stamp: epoch seconds ("1700000000"), or ISO 8601
 * "YYYY-MM-DD[(T| )hh:mm[:ss]][Z|(+|-)hh[:mm]]".  Without a zone the time is
 * local (as sacct prints it), converted with mktime().  Returns 0 or -1
 * with err->msg set.
 */
int sim_parse_time(const char *s, fw_time_t *out, struct fw_err *err);

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t sim_days_from_civil(int64_t y, unsigned m, unsigned d);

/* "2024-01-31T08:00:00" in UTC (buf of at least 32 bytes). */
const char *sim_fmt_time(fw_time_t t, char *buf, size_t len);
/* "3d 04:05:06" / "04:05:06" style duration (buf of at least 32 bytes). */
const char *sim_fmt_dur(int64_t sec, char *buf, size_t len);

/* ------------------------------------------------------------- numbers */

/* A non-negative integer of at most max, no sign, no blanks. */
int sim_parse_count(const char *s, uint64_t max, uint64_t *out);

/* -------------------------------------------------------------- buffers */

/* Write a buffer (the core's fw_buf) to path, replacing it, mode 0644.
 * Returns 0 or -1 with err set. */
int sim_buf_write(const struct fw_buf *b, const char *path,
		  struct fw_err *err);

#endif /* SIM_UTIL_H */
