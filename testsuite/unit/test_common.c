/* Unit tests for fw_common: value parsers, tokenizer, line reader, hostlists. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_common.h"
#include "test_run.h"

START_TEST(durations_in_slurm_formats)
{
	struct fw_err e;
	int64_t s;

	/* "30" is minutes in Slurm's time format: 30*60 */
	ck_assert_int_eq(fw_parse_duration("30", false, &s, &e), 0);
	ck_assert_int_eq(s, 1800);
	/* "5:30" is min:sec: 5*60+30 */
	ck_assert_int_eq(fw_parse_duration("5:30", false, &s, &e), 0);
	ck_assert_int_eq(s, 330);
	/* "1:02:03" is h:m:s: 3600+120+3 */
	ck_assert_int_eq(fw_parse_duration("1:02:03", false, &s, &e), 0);
	ck_assert_int_eq(s, 3723);
	/* "7-0" is 7 days (PriorityMaxAge's default form): 7*86400 */
	ck_assert_int_eq(fw_parse_duration("7-0", false, &s, &e), 0);
	ck_assert_int_eq(s, 604800);
	/* "30-0" is 30 days (seed 001's age horizon) */
	ck_assert_int_eq(fw_parse_duration("30-0", false, &s, &e), 0);
	ck_assert_int_eq(s, 2592000);
	/* "1-2:03" days-hours:minutes: 86400+7200+180 */
	ck_assert_int_eq(fw_parse_duration("1-2:03", false, &s, &e), 0);
	ck_assert_int_eq(s, 93780);
	/* "1-2:03:04" */
	ck_assert_int_eq(fw_parse_duration("1-2:03:04", false, &s, &e), 0);
	ck_assert_int_eq(s, 93784);
	/* unit suffixes: 168h is the IT4I half-life, one week */
	ck_assert_int_eq(fw_parse_duration("168h", false, &s, &e), 0);
	ck_assert_int_eq(s, 604800);
	ck_assert_int_eq(fw_parse_duration("2w", false, &s, &e), 0);
	ck_assert_int_eq(s, 1209600);
	ck_assert_int_eq(fw_parse_duration("90s", false, &s, &e), 0);
	ck_assert_int_eq(s, 90);
	ck_assert_int_eq(fw_parse_duration("UNLIMITED", true, &s, &e), 0);
	ck_assert_int_eq(s, -1);
	ck_assert_int_eq(fw_parse_duration("UNLIMITED", false, &s, &e), -1);
	ck_assert_int_eq(fw_parse_duration("", false, &s, &e), -1);
	ck_assert_int_eq(fw_parse_duration("abc", false, &s, &e), -1);
	ck_assert_int_eq(fw_parse_duration("1:2:3:4", false, &s, &e), -1);
	ck_assert_int_eq(fw_parse_duration("-5", false, &s, &e), -1);
	ck_assert_int_eq(fw_parse_duration("5x", false, &s, &e), -1);
	ck_assert_int_eq(fw_parse_duration("1-", false, &s, &e), -1);
}
END_TEST

START_TEST(weights_may_be_fractions_and_negative)
{
	struct fw_err e;
	double w;

	ck_assert_int_eq(fw_parse_weight("1000", &w, &e), 0);
	ck_assert(w == 1000.0);
	ck_assert_int_eq(fw_parse_weight("-2.5", &w, &e), 0);
	ck_assert(w == -2.5);
	/* seed 000: eligible_time/864000 */
	ck_assert_int_eq(fw_parse_weight("1/864000", &w, &e), 0);
	ck_assert(fabs(w - 1.0 / 864000.0) < 1e-20);
	ck_assert_int_eq(fw_parse_weight("-1/4", &w, &e), 0);
	ck_assert(w == -0.25);
	ck_assert_int_eq(fw_parse_weight("1/0", &w, &e), -1);
	ck_assert_int_eq(fw_parse_weight("1/x", &w, &e), -1);
	ck_assert_int_eq(fw_parse_weight("nan", &w, &e), -1);
	ck_assert_int_eq(fw_parse_weight("inf", &w, &e), -1);
	ck_assert_int_eq(fw_parse_weight("12abc", &w, &e), -1);
}
END_TEST

START_TEST(integers_bools_memory)
{
	struct fw_err e;
	uint32_t u;
	int64_t i;
	bool b;
	uint64_t mb;

	ck_assert_int_eq(fw_parse_uint32("4294967295", &u, &e), 0);
	ck_assert_uint_eq(u, 4294967295u);
	ck_assert_int_eq(fw_parse_uint32("4294967296", &u, &e), -1);
	ck_assert_int_eq(fw_parse_uint32("-1", &u, &e), -1);
	ck_assert_int_eq(fw_parse_int64(" -42 ", &i, &e), 0);
	ck_assert_int_eq(i, -42);
	ck_assert_int_eq(fw_parse_int64("99999999999999999999", &i, &e), -1);
	ck_assert_int_eq(fw_parse_bool("YES", &b, &e), 0);
	ck_assert(b);
	ck_assert_int_eq(fw_parse_bool("off", &b, &e), 0);
	ck_assert(!b);
	ck_assert_int_eq(fw_parse_bool("maybe", &b, &e), -1);
	ck_assert_int_eq(fw_parse_mem_mb("8G", &mb, &e), 0);
	ck_assert_uint_eq(mb, 8192);
	ck_assert_int_eq(fw_parse_mem_mb("1000", &mb, &e), 0);
	ck_assert_uint_eq(mb, 1000);
	ck_assert_int_eq(fw_parse_mem_mb("2048K", &mb, &e), 0);
	ck_assert_uint_eq(mb, 2);
	ck_assert_int_eq(fw_parse_mem_mb("1Q", &mb, &e), -1);
}
END_TEST

START_TEST(kv_tokenizer)
{
	struct fw_kv kv;
	struct fw_err e;

	ck_assert_int_eq(fw_kv_parse("QOS=devel  BasePriority=20000 # comment", &kv, &e), 0);
	ck_assert_int_eq(kv.n, 2);
	ck_assert_str_eq(kv.key[0], "QOS");
	ck_assert_str_eq(kv.val[0], "devel");
	ck_assert_str_eq(fw_kv_get(&kv, "basepriority"), "20000");
	ck_assert_ptr_null(fw_kv_get(&kv, "nothere"));
	fw_kv_free(&kv);

	ck_assert_int_eq(fw_kv_parse("Name=\"a b # c\" X=", &kv, &e), 0);
	ck_assert_int_eq(kv.n, 2);
	ck_assert_str_eq(kv.val[0], "a b # c");
	ck_assert_str_eq(kv.val[1], "");
	fw_kv_free(&kv);

	ck_assert_int_eq(fw_kv_parse("   # only a comment", &kv, &e), 0);
	ck_assert_int_eq(kv.n, 0);

	fw_err_clear(&e);
	ck_assert_int_eq(fw_kv_parse("Key=1 stray", &kv, &e), -1);
	ck_assert_str_eq(e.key, "stray");
	ck_assert_int_eq(fw_kv_parse("Key=\"unterminated", &kv, &e), -1);
	ck_assert_int_eq(fw_kv_parse("=5", &kv, &e), -1);
}
END_TEST

struct collected {
	int n;
	char line[8][128];
	int lineno[8];
};

static int collect(void *ctx, const char *line, int lineno)
{
	struct collected *c = ctx;

	if (c->n < 8) {
		snprintf(c->line[c->n], sizeof(c->line[0]), "%s", line);
		c->lineno[c->n] = lineno;
	}
	c->n++;
	return 0;
}

START_TEST(line_reader_joins_continuations)
{
	const char buf[] = "a=1\nb=2 \\\n  c=3\r\n\nlast=4";
	struct collected c = { 0 };

	ck_assert_int_eq(fw_read_lines_mem(buf, sizeof(buf) - 1, collect, &c), 0);
	ck_assert_int_eq(c.n, 4);
	ck_assert_str_eq(c.line[0], "a=1");
	ck_assert_int_eq(c.lineno[0], 1);
	/* "b=2 " + joining space + "  c=3" */
	ck_assert_str_eq(c.line[1], "b=2    c=3");
	ck_assert_int_eq(c.lineno[1], 2);
	ck_assert_str_eq(c.line[2], "");
	ck_assert_int_eq(c.lineno[2], 4);
	ck_assert_str_eq(c.line[3], "last=4");
	ck_assert_int_eq(c.lineno[3], 5);
}
END_TEST

START_TEST(line_reader_reports_missing_file)
{
	struct fw_err e;
	struct collected c = { 0 };
	char buf[512];

	fw_err_clear(&e);
	ck_assert_int_eq(fw_read_lines("/nonexistent/fairway.conf", collect, &c, &e), -1);
	ck_assert_str_eq(e.file, "/nonexistent/fairway.conf");
	ck_assert_ptr_nonnull(strstr(fw_err_str(&e, buf, sizeof(buf)), "cannot open"));
}
END_TEST

START_TEST(error_string_names_everything)
{
	struct fw_err e;
	char buf[512];

	fw_err_clear(&e);
	fw_err_set(&e, NULL, 0, "PriorityWeightAge", "abc", "not a number");
	fw_err_locate(&e, "/etc/slurm/fairway.conf", 12);
	ck_assert_str_eq(fw_err_str(&e, buf, sizeof(buf)),
			 "/etc/slurm/fairway.conf:12: PriorityWeightAge=abc: not a number");
}
END_TEST

/* Wrapping an error in place keeps its reason (found by fuzzing). */
START_TEST(error_rewrapped_in_place_keeps_message)
{
	struct fw_err e;
	char buf[512];

	fw_err_set(&e, NULL, 0, NULL, NULL, "unbalanced brackets in hostlist");
	fw_err_set(&e, "topology.conf", 4, "Nodes", "n[1", "%s", e.msg);
	ck_assert_str_eq(fw_err_str(&e, buf, sizeof(buf)),
			 "topology.conf:4: Nodes=n[1: unbalanced brackets in hostlist");
	fw_err_set(&e, e.file, e.line, e.key, e.value, "%s (%s)", e.msg, e.value);
	ck_assert_str_eq(fw_err_str(&e, buf, sizeof(buf)),
			 "topology.conf:4: Nodes=n[1: unbalanced brackets in hostlist (n[1)");
}
END_TEST

START_TEST(hostlists)
{
	char **n;
	struct fw_err e;
	int cnt;

	cnt = fw_hostlist_expand("n[1-3,7],gpu[08-10],login", &n, 1000, &e);
	ck_assert_int_eq(cnt, 8);
	ck_assert_str_eq(n[0], "n1");
	ck_assert_str_eq(n[2], "n3");
	ck_assert_str_eq(n[3], "n7");
	ck_assert_str_eq(n[4], "gpu08");
	ck_assert_str_eq(n[6], "gpu10");
	ck_assert_str_eq(n[7], "login");
	fw_hostlist_free(n, cnt);

	cnt = fw_hostlist_expand("r[1-2]n[1-2]", &n, 1000, &e);
	ck_assert_int_eq(cnt, 4);
	ck_assert_str_eq(n[1], "r1n2");
	ck_assert_str_eq(n[2], "r2n1");
	fw_hostlist_free(n, cnt);

	ck_assert_int_eq(fw_hostlist_expand("n[1-", &n, 1000, &e), -1);
	ck_assert_int_eq(fw_hostlist_expand("n[5-1]", &n, 1000, &e), -1);
	ck_assert_int_eq(fw_hostlist_expand("n[a-b]", &n, 1000, &e), -1);
	ck_assert_int_eq(fw_hostlist_expand("n[1-999999999]", &n, 1000, &e), -1);
	ck_assert_int_eq(fw_hostlist_expand("n]", &n, 1000, &e), -1);
}
END_TEST

START_TEST(authinfo_munge_socket)
{
	char buf[64];

	ck_assert_int_eq(fw_authinfo_munge_socket("socket=/run/munge/x.sock", buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "/run/munge/x.sock");
	/* among other options, in any case, as Slurm accepts it */
	ck_assert_int_eq(fw_authinfo_munge_socket("ttl=60,Socket=/s,cred_expire=30", buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "/s");
	/* no socket: MUNGE's default */
	ck_assert_int_eq(fw_authinfo_munge_socket(NULL, buf, sizeof(buf)), 0);
	ck_assert_int_eq(fw_authinfo_munge_socket("", buf, sizeof(buf)), 0);
	ck_assert_int_eq(fw_authinfo_munge_socket("ttl=60", buf, sizeof(buf)), 0);
	ck_assert_int_eq(fw_authinfo_munge_socket("socket=", buf, sizeof(buf)), 0);
	/* a path that does not fit is not truncated into another path */
	ck_assert_int_eq(fw_authinfo_munge_socket("socket=/0123456789", buf, 8), 0);
}
END_TEST

static Suite *common_suite(void)
{
	Suite *s = suite_create("common");
	TCase *tc = tcase_create("parsers");

	tcase_add_test(tc, durations_in_slurm_formats);
	tcase_add_test(tc, weights_may_be_fractions_and_negative);
	tcase_add_test(tc, integers_bools_memory);
	tcase_add_test(tc, kv_tokenizer);
	tcase_add_test(tc, line_reader_joins_continuations);
	tcase_add_test(tc, line_reader_reports_missing_file);
	tcase_add_test(tc, error_string_names_everything);
	tcase_add_test(tc, error_rewrapped_in_place_keeps_message);
	tcase_add_test(tc, hostlists);
	tcase_add_test(tc, authinfo_munge_socket);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(common_suite());

	return fw_test_run(sr);
}
