/*
 * fuzz_util.h - shared by the libFuzzer harnesses in this directory.
 *
 * Every harness feeds the fuzzer's bytes to one real Fairway parser through
 * its in-memory entry point, frees everything (LeakSanitizer is on), and on
 * a rejection checks what the project promises of every rejection: a
 * message, and for input files the file's name.  A rejection without them
 * aborts, so the fuzzer reports it like a crash.
 */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_common.h"

/*
 * A harness defines its entry point with FUZZ_ENTRY(target).  For libFuzzer
 * (run.sh) that is LLVMFuzzerTestOneInput; for the replay program of
 * `make check` (-DFUZZ_REPLAY, all harnesses in one binary) it is
 * fuzz_<target>, called on every file of corpus/<target>/ and
 * regress/<target>/.
 */
#ifdef FUZZ_REPLAY
#define FUZZ_FN(t) fuzz_##t
#else
#define FUZZ_FN(t) LLVMFuzzerTestOneInput
#endif
#define FUZZ_ENTRY(t)                                              \
	int FUZZ_FN(t)(const uint8_t *data, size_t size);          \
	int FUZZ_FN(t)(const uint8_t *data, size_t size)

/* FUZZ_SHOW_REJECTIONS=1: print every rejection (to audit the messages). */
static inline bool fuzz_show_rejections(void)
{
	static int show = -1;

	if (show < 0)
		show = getenv("FUZZ_SHOW_REJECTIONS") != NULL;
	return show;
}

/*
 * Abort (a "crash" for the fuzzer) when a rejection does not say why, or
 * does not name `file` (NULL: not checked; "": any file name).
 */
static inline void fuzz_check_rejection(const struct fw_err *err,
					const char *file)
{
	char buf[1024];

	fw_err_str(err, buf, sizeof(buf));
	if (fuzz_show_rejections())
		printf("rejection\tfile=%s\tline=%d\tkey=%s\tvalue=%s\t%s\n",
		       err->file, err->line, err->key, err->value, err->msg);
	if (!err->msg[0] || (file && *file && strcmp(err->file, file) != 0) ||
	    (file && !*file && !err->file[0])) {
		fprintf(stderr, "rejection without %s: \"%s\"\n",
			err->msg[0] ? "the file name" : "a message", buf);
		abort();
	}
}

/* As above, and the rejection must name the line too. */
static inline void fuzz_check_located(const struct fw_err *err, const char *file)
{
	fuzz_check_rejection(err, file);
	if (err->line <= 0) {
		char buf[1024];

		fprintf(stderr, "rejection without a line: \"%s\"\n",
			fw_err_str(err, buf, sizeof(buf)));
		abort();
	}
}

/*
 * Split the input at the first line that is exactly `mark` (for harnesses
 * that feed two files): *a is everything before it, *b the rest (empty when
 * there is no such line).
 */
static inline void fuzz_split(const char *buf, size_t len, const char *mark,
			      size_t *alen, const char **b, size_t *blen)
{
	size_t m = strlen(mark);

	for (size_t i = 0; i + m <= len; i++) {
		if ((i == 0 || buf[i - 1] == '\n') && !memcmp(buf + i, mark, m) &&
		    (i + m == len || buf[i + m] == '\n')) {
			*alen = i;
			*b = buf + i + m + (i + m < len);
			*blen = len - (size_t)(*b - buf);
			return;
		}
	}
	*alen = len;
	*b = buf + len;
	*blen = 0;
}

#endif /* FUZZ_UTIL_H */
