/*
 * The state files the plugins save in StateSaveLocation: the fair-share
 * usage ledger (fw_fs_state_load) and the accrual ledger (fw_accrue_load)
 * of priority/fairway, the bypass counts of sched/fairway
 * (fw_bypass_load).  All end in an FNV-1a checksum, which random bytes
 * never match; so each input is loaded as it is and once more "resealed"
 * (the checksum line replaced by the right one), which lets the fuzzer
 * reach the record parsers.  The fair-share input is loaded into a
 * half-life and a window-decay tree built from a fixed configuration.
 */
#include <inttypes.h>

#include "fuzz_util.h"
#include "fw_accrue.h"
#include "fw_config.h"
#include "fw_plan.h"

static const char CONF_HALFLIFE[] =
	"Account=phys Shares=60\nAccount=theory Parent=phys\n"
	"Account=bio Shares=40\nUser=alice Account=phys,bio\n"
	"User=bob Account=theory Shares=3\nUser=carol Account=bio\n"
	"AccrueMaxJobsPerUser=2\n";

/*
 * FNV-1a 64 as each ledger computes it: the accrual ledger with the
 * standard offset basis, the fair-share state (and the plugins' state
 * envelope) with 1469598103934665603 (a digit short of the standard one;
 * kept, it is the on-disk format).
 */
#define FNV_STANDARD 14695981039346656037ull
#define FNV_FS_STATE 1469598103934665603ull

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* Start of the first line beginning with `tag` (or len if none). */
static size_t find_line(const char *buf, size_t len, const char *tag)
{
	size_t m = strlen(tag);

	for (size_t i = 0; i + m <= len; i++)
		if ((i == 0 || buf[i - 1] == '\n') && !memcmp(buf + i, tag, m))
			return i;
	return len;
}

/* buf[0..cut) + "<tag><checksum of that prefix>\n"; malloc'd. */
static char *reseal(const char *buf, size_t cut, const char *tag,
		    uint64_t basis, size_t *out)
{
	char *s = malloc(cut + 64);

	memcpy(s, buf, cut);
	*out = cut + (size_t)snprintf(s + cut, 64, "%s%016" PRIx64 "\n", tag,
				      fnv1a(basis, buf, cut));
	return s;
}

static struct fw_config *make_config(bool window)
{
	static const char WINDOW[] = "FairShareDecay=window\n";
	struct fw_config *c = fw_config_new();
	struct fw_err err = { 0 };

	if (fw_config_load_buf(c, "fixed", CONF_HALFLIFE, strlen(CONF_HALFLIFE), &err) ||
	    (window && fw_config_load_buf(c, "fixed", WINDOW, strlen(WINDOW), &err)) ||
	    fw_config_finish(c, &err)) {
		fprintf(stderr, "fixed configuration rejected: %s\n", err.msg);
		abort();
	}
	return c;
}

static void load_fs(const struct fw_config *c, const char *buf, size_t len)
{
	struct fw_fs_tree *t = fw_fs_tree_new(c->fs);
	struct fw_err err = { 0 };
	size_t dropped;

	if (fw_fs_tree_add_conf_defs(t, c->fs, &err))
		abort();
	if (fw_fs_state_load(t, buf, len, &dropped, &err))
		fuzz_check_rejection(&err, NULL);
	else
		fw_fs_compute(t);
	fw_fs_tree_free(t);
}

static void load_accrue(const struct fw_config *c, const char *buf, size_t len)
{
	struct fw_accrue *l = fw_accrue_new(c->prio);
	struct fw_err err = { 0 };

	if (fw_accrue_load(l, buf, len, &err))
		fuzz_check_rejection(&err, NULL);
	fw_accrue_free(l);
}

static void load_bypass(const char *buf, size_t len)
{
	struct fw_bypass *v;
	struct fw_err err = { 0 };
	size_t n;

	if (fw_bypass_load(buf, len, &v, &n, &err))
		fuzz_check_rejection(&err, NULL);
	else
		free(v);
}

/* The bypass table's end line also counts the lines before it. */
static void load_bypass_resealed(const char *buf, size_t len)
{
	size_t cut = find_line(buf, len, "end "), lines = 0, n;
	char tag[32], *sealed;

	for (size_t i = 0; i < cut; i++)
		lines += buf[i] == '\n';
	snprintf(tag, sizeof(tag), "end %zu ", lines ? lines - 1 : 0);
	sealed = reseal(buf, cut, tag, FNV_FS_STATE, &n);
	load_bypass(sealed, n);
	free(sealed);
}

FUZZ_ENTRY(state)
{
	const char *buf = (const char *)data;
	struct fw_config *half = make_config(false), *win = make_config(true);
	size_t n;
	char *sealed;

	load_fs(half, buf, size);
	load_fs(win, buf, size);
	sealed = reseal(buf, find_line(buf, size, "checksum "), "checksum ",
		      FNV_FS_STATE, &n);
	load_fs(half, sealed, n);
	load_fs(win, sealed, n);
	free(sealed);

	load_accrue(half, buf, size);
	sealed = reseal(buf, find_line(buf, size, "end "), "end ", FNV_STANDARD, &n);
	load_accrue(half, sealed, n);
	free(sealed);

	load_bypass(buf, size);
	load_bypass_resealed(buf, size);

	fw_config_free(half);
	fw_config_free(win);
	return 0;
}
