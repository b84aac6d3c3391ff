/*
 * replay.c - the fuzz harnesses as a `make check` test: every file of
 * corpus/<target>/ (the seeds) and regress/<target>/ (every input that
 * once crashed, leaked or broke a promise, kept after the fix) is run
 * through its harness.  Built plainly and with ASan/UBSan like the unit
 * tests, so a regression aborts, and LeakSanitizer checks at exit.
 *
 * Usage: replay [DIR]   DIR defaults to $FW_SRCDIR/testsuite/fuzz.
 */
#define FUZZ_REPLAY 1
#include "fuzz_util.h"

#include <dirent.h>
#include <limits.h>

#define TARGETS(X)                                                        \
	X(fairway_conf) X(slurm_keys) X(slurm_conf) X(swf) X(csv) X(sacct) \
	X(sacctmgr_dump) X(state)

#define DECLARE(t) int fuzz_##t(const uint8_t *data, size_t size);
TARGETS(DECLARE)

struct target {
	const char *name;
	int (*fn)(const uint8_t *data, size_t size);
};

#define ENTRY(t) { #t, fuzz_##t },
static const struct target targets[] = { TARGETS(ENTRY) };

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap)
			buf = realloc(buf, cap = cap ? 2 * cap : 4096);
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

/* Run fn on every regular file of dir; returns the count, -1 on error. */
static long replay_dir(const struct target *t, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long n = 0;

	if (!d)
		return 0;	/* a target may have no regressions yet */
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		size_t len;
		char *buf;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		buf = slurp(path, &len);
		if (!buf) {
			fprintf(stderr, "replay: cannot read %s\n", path);
			closedir(d);
			return -1;
		}
		t->fn((const uint8_t *)buf, len);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("FW_SRCDIR");
	char base[PATH_MAX - 64], dir[PATH_MAX];
	long total = 0;

	if (argc > 1)
		snprintf(base, sizeof(base), "%s", argv[1]);
	else
		snprintf(base, sizeof(base), "%s/testsuite/fuzz", srcdir ? srcdir : ".");
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		long seeds, regress;

		snprintf(dir, sizeof(dir), "%s/corpus/%s", base, targets[i].name);
		seeds = replay_dir(&targets[i], dir);
		snprintf(dir, sizeof(dir), "%s/regress/%s", base, targets[i].name);
		regress = replay_dir(&targets[i], dir);
		if (seeds < 0 || regress < 0)
			return 1;
		if (seeds == 0) {
			fprintf(stderr, "replay: no seeds in %s/corpus/%s\n", base,
				targets[i].name);
			return 1;
		}
		printf("%-14s %3ld seeds %3ld regressions\n", targets[i].name, seeds,
		       regress);
		total += seeds + regress;
	}
	printf("replayed %ld inputs\n", total);
	return 0;
}
