/* Unit tests of the planner's configuration: SchedulerParameters tokens
 * (Slurm's names, units and ranges) and fairway.conf keys. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_plan_util.h"

static int sp(struct fw_plan_conf *c, const char *v, struct fw_err *e)
{
	fw_err_clear(e);
	return fw_plan_conf_slurm(c, "SchedulerParameters", v, e);
}

START_TEST(defaults_are_slurms)
{
	struct fw_plan_conf *c = fw_plan_conf_new();

	/* Slurm 22.05: bf_window 1440 min, bf_resolution 60 s,
	 * bf_interval 30 s, yield 2 s / 0.5 s; Fairway: whole queue. */
	ck_assert_int_eq(c->bf_window, 86400);
	ck_assert_int_eq(c->bf_resolution, 60);
	ck_assert_int_eq(c->bf_interval, 30);
	ck_assert_uint_eq(c->bf_max_job_test, 0);
	ck_assert_int_eq(c->bf_yield_interval, 2000000);
	ck_assert_int_eq(c->bf_yield_sleep, 500000);
	ck_assert_int_eq(c->sched_interval, 60);
	ck_assert(!c->defer);
	ck_assert_uint_eq(fw_plan_conf_depth(c), 0);	/* conservative */
	ck_assert_int_eq(c->topo, FW_TOPO_PREFER);
	fw_plan_conf_free(c);
}
END_TEST

START_TEST(seed_001_and_002_parameters)
{
	struct fw_plan_conf *c = fw_plan_conf_new();
	struct fw_err e;

	/* seed 001: priority 3000 and 30 minutes */
	ck_assert_int_eq(sp(c, "bf_min_prio_reserve=3000,bf_min_age_reserve=1800,"
			    "bf_window=10080,bf_resolution=300,bf_continue", &e),
			 FW_CONF_OK);
	ck_assert_uint_eq(c->bf_min_prio_reserve, 3000);
	ck_assert_int_eq(c->bf_min_age_reserve, 1800);
	/* 10080 minutes = 7 days = 604800 s */
	ck_assert_int_eq(c->bf_window, 604800);
	ck_assert_int_eq(c->bf_resolution, 300);
	ck_assert(c->bf_continue);
	/* seed 002: priority 20000; a new value replaces the whole set */
	ck_assert_int_eq(sp(c, "bf_min_prio_reserve=20000", &e), FW_CONF_OK);
	ck_assert_uint_eq(c->bf_min_prio_reserve, 20000);
	ck_assert_int_eq(c->bf_min_age_reserve, 0);
	ck_assert(!c->bf_continue);
	fw_plan_conf_free(c);
}
END_TEST

START_TEST(all_limits_and_main_scheduler_tokens)
{
	struct fw_plan_conf *c = fw_plan_conf_new();
	struct fw_err e;

	ck_assert_int_eq(sp(c, " sched_interval=-1 , defer,default_queue_depth=500,"
			    "bf_max_job_test=2000,bf_max_job_start=50,bf_max_job_user=10,"
			    "bf_max_job_part=300,bf_max_job_user_part=5,"
			    "bf_job_part_count_reserve=3,bf_interval=-1,bf_max_time=600,"
			    "bf_yield_interval=1000000,bf_yield_sleep=100000,"
			    "bf_node_space_size=100,bf_max_job_array_resv=0,"
			    "bf_window_linear=30,bf_hetjob_prio=avg,bf_hetjob_immediate,"
			    "bf_busy_nodes,bf_licenses,bf_one_resv_per_job,"
			    "bf_running_job_reserve,max_rpc_cnt=150,,", &e), FW_CONF_OK);
	ck_assert_int_eq(c->sched_interval, -1);
	ck_assert(c->sched_interval_set);
	ck_assert(c->defer);
	ck_assert_uint_eq(c->bf_max_job_test, 2000);
	ck_assert_uint_eq(c->bf_max_job_start, 50);
	ck_assert_uint_eq(c->bf_max_job_user, 10);
	ck_assert_uint_eq(c->bf_max_job_part, 300);
	ck_assert_uint_eq(c->bf_max_job_user_part, 5);
	ck_assert_uint_eq(c->bf_job_part_count_reserve, 3);
	ck_assert_uint_eq(fw_plan_conf_depth(c), 3);
	ck_assert_int_eq(c->bf_interval, -1);
	ck_assert_int_eq(c->bf_max_time, 600);
	ck_assert_int_eq(c->bf_yield_interval, 1000000);
	ck_assert_int_eq(c->bf_yield_sleep, 100000);
	ck_assert_int_eq(fw_plan_conf_finish(c, &e), FW_CONF_OK);
	/* bf_max_job_assoc alone */
	ck_assert_int_eq(sp(c, "bf_max_job_assoc=4", &e), FW_CONF_OK);
	ck_assert_uint_eq(c->bf_max_job_assoc, 4);
	ck_assert_uint_eq(c->bf_max_job_user, 0);
	/* not our key */
	ck_assert_int_eq(fw_plan_conf_slurm(c, "PriorityWeightAge", "1000", &e),
			 FW_CONF_UNKNOWN);
	fw_plan_conf_free(c);
}
END_TEST

/* Every bad token is rejected, naming the token, its value and why. */
static void expect_bad(const char *params, const char *key, const char *value,
		       const char *why)
{
	struct fw_plan_conf *c = fw_plan_conf_new();
	struct fw_err e;

	ck_assert_int_eq(sp(c, params, &e), FW_CONF_ERR);
	ck_assert_str_eq(e.key, key);
	ck_assert_str_eq(e.value, value);
	ck_assert_msg(strstr(e.msg, why) != NULL, "'%s' lacks '%s'", e.msg, why);
	fw_plan_conf_free(c);
}

START_TEST(bad_scheduler_parameters)
{
	expect_bad("bf_window=0", "bf_window", "0", "1..43200 minutes");
	expect_bad("bf_window=43201", "bf_window", "43201", "out of range");
	expect_bad("bf_window=10min", "bf_window", "10min", "not an integer");
	expect_bad("bf_window=", "bf_window", "", "needs a value");
	expect_bad("bf_window", "bf_window", "", "needs a value");
	expect_bad("bf_resolution=3601", "bf_resolution", "3601", "1..3600 seconds");
	expect_bad("bf_resolution=0", "bf_resolution", "0", "out of range");
	expect_bad("bf_interval=0", "bf_interval", "0", "-1 or 1..10800");
	expect_bad("bf_interval=-2", "bf_interval", "-2", "out of range");
	expect_bad("bf_interval=10801", "bf_interval", "10801", "out of range");
	expect_bad("bf_max_time=0", "bf_max_time", "0", "1..3600");
	expect_bad("bf_max_job_test=0", "bf_max_job_test", "0", "1..1000000");
	expect_bad("bf_max_job_test=1000001", "bf_max_job_test", "1000001", "out of range");
	expect_bad("bf_max_job_start=10001", "bf_max_job_start", "10001", "0..10000");
	expect_bad("bf_max_job_user=-1", "bf_max_job_user", "-1", "out of range");
	expect_bad("bf_max_job_part=x", "bf_max_job_part", "x", "not an integer");
	expect_bad("bf_max_job_user_part=1.5", "bf_max_job_user_part", "1.5", "not an integer");
	expect_bad("bf_max_job_assoc=-3", "bf_max_job_assoc", "-3", "out of range");
	expect_bad("bf_job_part_count_reserve=100001", "bf_job_part_count_reserve",
		   "100001", "0..100000");
	expect_bad("bf_min_age_reserve=2592001", "bf_min_age_reserve", "2592001",
		   "0..2592000 seconds");
	expect_bad("bf_min_prio_reserve=0", "bf_min_prio_reserve", "0", "1..4294967295");
	expect_bad("bf_min_prio_reserve=4294967296", "bf_min_prio_reserve",
		   "4294967296", "out of range");
	expect_bad("bf_yield_interval=0", "bf_yield_interval", "0", "1..10000000 microseconds");
	expect_bad("bf_yield_sleep=10000001", "bf_yield_sleep", "10000001", "out of range");
	expect_bad("bf_node_space_size=1", "bf_node_space_size", "1", "2..2000000");
	expect_bad("bf_max_job_array_resv=1001", "bf_max_job_array_resv", "1001", "0..1000");
	expect_bad("bf_window_linear=0", "bf_window_linear", "0", "out of range");
	expect_bad("bf_hetjob_prio=median", "bf_hetjob_prio", "median", "min, max or avg");
	expect_bad("bf_continue=yes", "bf_continue", "yes", "takes no value");
	expect_bad("bf_busy_nodes=1", "bf_busy_nodes", "1", "takes no value");
	/* token by token: a misspelt bf_ token is not silently ignored */
	expect_bad("bf_windw=60", "bf_windw", "60", "unknown backfill parameter");
	expect_bad("bf_max_job_users=3", "bf_max_job_users", "3", "unknown backfill parameter");
	expect_bad("bf_window=60,bf_window=120", "bf_window", "120", "given twice");
	expect_bad("bf_max_time=10,BF_MAX_TIME=20", "BF_MAX_TIME", "20", "given twice");
	expect_bad("max_job_bf=50", "max_job_bf", "50", "bf_max_job_test");
	expect_bad("sched_interval=-2", "sched_interval", "-2", "-1 or a number");
	expect_bad("sched_interval=soon", "sched_interval", "soon", "-1 or a number");
	expect_bad("sched_interval", "sched_interval", "", "-1 or a number");
	expect_bad("defer=1", "defer", "1", "takes no value");
}
END_TEST

static struct fw_kv kv_of(const char *line)
{
	struct fw_kv kv;
	struct fw_err e;

	ck_assert_int_eq(fw_kv_parse(line, &kv, &e), 0);
	return kv;
}

START_TEST(fairway_conf_keys)
{
	struct fw_plan_conf *c = fw_plan_conf_new();
	struct fw_err e;
	struct fw_kv kv = kv_of("ReservationDepth=easy TopologyPlacement=strict");
	bool used[FW_KV_MAX] = { false };

	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_OK);
	ck_assert(used[0] && used[1]);
	ck_assert_uint_eq(fw_plan_conf_depth(c), 1);
	ck_assert_int_eq(c->topo, FW_TOPO_STRICT);
	fw_kv_free(&kv);
	fw_plan_conf_free(c);

	c = fw_plan_conf_new();
	kv = kv_of("ReservationDepth=25");
	memset(used, 0, sizeof(used));
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_OK);
	ck_assert_uint_eq(fw_plan_conf_depth(c), 25);
	fw_kv_free(&kv);
	kv = kv_of("TopologyPlacement=NONE");
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_OK);
	ck_assert_int_eq(c->topo, FW_TOPO_NONE);
	fw_kv_free(&kv);
	/* the same depth via bf_job_part_count_reserve does not conflict */
	ck_assert_int_eq(sp(c, "bf_job_part_count_reserve=25", &e), FW_CONF_OK);
	ck_assert_int_eq(fw_plan_conf_finish(c, &e), FW_CONF_OK);
	fw_plan_conf_free(c);

	c = fw_plan_conf_new();
	kv = kv_of("ReservationDepth=conservative");
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_OK);
	ck_assert_uint_eq(fw_plan_conf_depth(c), 0);
	fw_kv_free(&kv);
	/* an entity line is not the planner's, even with our key on it */
	kv = kv_of("Account=phys ReservationDepth=easy");
	memset(used, 0, sizeof(used));
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_UNKNOWN);
	ck_assert(!used[0] && !used[1]);
	fw_kv_free(&kv);
	kv = kv_of("PriorityWeightAge=100");
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_UNKNOWN);
	fw_kv_free(&kv);
	fw_plan_conf_free(c);
}
END_TEST

static void expect_bad_line(const char *l1, const char *l2, const char *key,
			    const char *value, const char *why)
{
	struct fw_plan_conf *c = fw_plan_conf_new();
	struct fw_err e;
	bool used[FW_KV_MAX] = { false };
	struct fw_kv kv = kv_of(l1);
	int rc = fw_plan_conf_line(c, &kv, used, &e);

	fw_kv_free(&kv);
	if (l2) {
		ck_assert_int_eq(rc, FW_CONF_OK);
		kv = kv_of(l2);
		fw_err_clear(&e);
		rc = fw_plan_conf_line(c, &kv, used, &e);
		fw_kv_free(&kv);
	}
	ck_assert_int_eq(rc, FW_CONF_ERR);
	ck_assert_str_eq(e.key, key);
	ck_assert_str_eq(e.value, value);
	ck_assert_msg(strstr(e.msg, why) != NULL, "'%s' lacks '%s'", e.msg, why);
	fw_plan_conf_free(c);
}

START_TEST(bad_fairway_conf_lines)
{
	expect_bad_line("ReservationDepth=0", NULL, "ReservationDepth", "0",
			"easy, conservative or a number");
	expect_bad_line("ReservationDepth=100001", NULL, "ReservationDepth",
			"100001", "1..100000");
	expect_bad_line("ReservationDepth=deep", NULL, "ReservationDepth", "deep",
			"easy, conservative");
	expect_bad_line("ReservationDepth=", NULL, "ReservationDepth", "",
			"easy, conservative");
	expect_bad_line("ReservationDepth=easy", "ReservationDepth=3",
			"ReservationDepth", "3", "set twice");
	expect_bad_line("TopologyPlacement=island", NULL, "TopologyPlacement",
			"island", "none, prefer or strict");
	expect_bad_line("TopologyPlacement=prefer", "TopologyPlacement=strict",
			"TopologyPlacement", "strict", "set twice");
	expect_bad_line("TopologyPlacement=prefer ReservationDepth=-1", NULL,
			"ReservationDepth", "-1", "easy, conservative");
	expect_bad_line("ReservationOrder=age", NULL, "ReservationOrder",
			"age", "expected priority or submit");
	expect_bad_line("ReservationOrder=", NULL, "ReservationOrder", "",
			"expected priority or submit");
	expect_bad_line("ReservationOrder=submit", "ReservationOrder=priority",
			"ReservationOrder", "priority", "set twice");
}

START_TEST(reservation_order)
{
	struct fw_plan_conf *c = fw_plan_conf_new();
	struct fw_err e;
	struct fw_kv kv;
	bool used[FW_KV_MAX] = { false };

	/* default: by priority */
	ck_assert(!c->resv_by_submit);
	kv = kv_of("ReservationDepth=easy ReservationOrder=Submit");
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_OK);
	ck_assert(used[0] && used[1]);
	fw_kv_free(&kv);
	ck_assert(c->resv_by_submit);
	ck_assert_int_eq(fw_plan_conf_finish(c, &e), FW_CONF_OK);
	fw_plan_conf_free(c);

	/* the key may start a line of its own */
	c = fw_plan_conf_new();
	kv = kv_of("ReservationOrder=priority");
	memset(used, 0, sizeof(used));
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_OK);
	fw_kv_free(&kv);
	ck_assert(!c->resv_by_submit);
	ck_assert_int_eq(fw_plan_conf_finish(c, &e), FW_CONF_OK);
	fw_plan_conf_free(c);

	/* submit order needs a depth: conservative (the default) protects
	 * every job */
	c = fw_plan_conf_new();
	kv = kv_of("ReservationOrder=submit");
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_OK);
	fw_kv_free(&kv);
	ck_assert_int_eq(fw_plan_conf_finish(c, &e), FW_CONF_ERR);
	ck_assert_str_eq(e.key, "ReservationOrder");
	ck_assert_str_eq(e.value, "submit");
	ck_assert_ptr_nonnull(strstr(e.msg, "ReservationDepth"));
	/* ... which bf_job_part_count_reserve may give */
	ck_assert_int_eq(sp(c, "bf_job_part_count_reserve=2", &e), FW_CONF_OK);
	ck_assert_int_eq(fw_plan_conf_finish(c, &e), FW_CONF_OK);
	ck_assert_uint_eq(fw_plan_conf_depth(c), 2);
	fw_plan_conf_free(c);
}
END_TEST
END_TEST

START_TEST(finish_cross_checks)
{
	struct fw_plan_conf *c = fw_plan_conf_new();
	struct fw_err e;
	struct fw_kv kv;
	bool used[FW_KV_MAX] = { false };

	/* Slurm drops bf_max_job_user when both are set; Fairway refuses */
	ck_assert_int_eq(sp(c, "bf_max_job_user=5,bf_max_job_assoc=2", &e), FW_CONF_OK);
	ck_assert_int_eq(fw_plan_conf_finish(c, &e), FW_CONF_ERR);
	ck_assert_str_eq(e.key, "bf_max_job_user");
	ck_assert_str_eq(e.value, "5");
	ck_assert_ptr_nonnull(strstr(e.msg, "bf_max_job_assoc"));
	fw_plan_conf_free(c);

	c = fw_plan_conf_new();
	kv = kv_of("ReservationDepth=conservative");
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_OK);
	fw_kv_free(&kv);
	ck_assert_int_eq(sp(c, "bf_job_part_count_reserve=4", &e), FW_CONF_OK);
	ck_assert_int_eq(fw_plan_conf_finish(c, &e), FW_CONF_ERR);
	ck_assert_str_eq(e.key, "ReservationDepth");
	ck_assert_str_eq(e.value, "conservative");
	ck_assert_ptr_nonnull(strstr(e.msg, "bf_job_part_count_reserve=4"));
	fw_plan_conf_free(c);

	c = fw_plan_conf_new();
	kv = kv_of("ReservationDepth=easy");
	ck_assert_int_eq(fw_plan_conf_line(c, &kv, used, &e), FW_CONF_OK);
	fw_kv_free(&kv);
	ck_assert_int_eq(sp(c, "bf_job_part_count_reserve=2", &e), FW_CONF_OK);
	ck_assert_int_eq(fw_plan_conf_finish(c, &e), FW_CONF_ERR);
	ck_assert_str_eq(e.value, "1");
	fw_plan_conf_free(c);
}
END_TEST

/* ------------------------------------------------- bypass count state */

/* FNV-1a 64 with the state files' basis, written out here on purpose. */
static uint64_t state_fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* body + "end N <checksum of body>\n", as sched/fairway always wrote it */
static char *sealed(const char *body, size_t n)
{
	char *s = malloc(strlen(body) + 64);

	sprintf(s, "%send %zu %016llx\n", body, n,
		(unsigned long long)state_fnv(body, strlen(body)));
	return s;
}

START_TEST(bypass_state_round_trip)
{
	const struct fw_bypass in[] = { { 7, 3 }, { 4294967295u, 1 }, { 12, 4294967295u } };
	const char *body = "fairway-sched-state 1\nbypass 7 3\n"
			   "bypass 4294967295 1\nbypass 12 4294967295\n";
	char *want = sealed(body, 3), *buf;
	struct fw_bypass *out;
	struct fw_err e;
	size_t len, n;

	buf = fw_bypass_save(in, 3, &len);
	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(len, strlen(want));
	fw_err_clear(&e);
	ck_assert_int_eq(fw_bypass_load(buf, len, &out, &n, &e), 0);
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(out[i].job_id, in[i].job_id);
		ck_assert_uint_eq(out[i].count, in[i].count);
	}
	free(out);
	free(buf);
	free(want);
	/* no entries */
	buf = fw_bypass_save(NULL, 0, &len);
	ck_assert_int_eq(fw_bypass_load(buf, len, &out, &n, &e), 0);
	ck_assert_uint_eq(n, 0);
	free(out);
	free(buf);
}
END_TEST

static void bypass_rejects(const char *text, int line, const char *msg_part)
{
	struct fw_bypass *out = (struct fw_bypass *)&out;
	struct fw_err e;
	size_t n = 99;

	fw_err_clear(&e);
	ck_assert_int_eq(fw_bypass_load(text, strlen(text), &out, &n, &e), -1);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(n, 0);
	ck_assert_msg(e.line == line && strstr(e.msg, msg_part),
		      "'%s': got line %d '%s', expected line %d '%s'", text,
		      e.line, e.msg, line, msg_part);
}

START_TEST(bypass_state_rejections_name_the_line)
{
	char *t;

	bypass_rejects("", 1, "empty");
	bypass_rejects("fairway-sched-state 2\nend 0 0\n", 1, "not a version-1");
	bypass_rejects("fairway-sched-state 1\nbypass 7 3\n", 3, "truncated");
	bypass_rejects("fairway-sched-state 1\nbypass 7 3", 2, "truncated");
#define BAD_LINE(l) \
	t = sealed("fairway-sched-state 1\n" l "\n", 1); \
	bypass_rejects(t, 2, "expected 'bypass JOBID COUNT'"); \
	free(t);
	BAD_LINE("bypass 0 1")            /* job id 0 */
	BAD_LINE("bypass -1 1")
	BAD_LINE("bypass 7 +1")
	BAD_LINE("bypass 4294967296 1")   /* beyond uint32 */
	BAD_LINE("bypass 7 3 x")
	BAD_LINE("bypass  7 3")
	BAD_LINE("bypass 7")
	BAD_LINE("bypassed 7 3")
#undef BAD_LINE
	t = sealed("fairway-sched-state 1\nbypass 7 3\n", 2);
	bypass_rejects(t, 3, "does not match the bypass lines");
	free(t);
	bypass_rejects("fairway-sched-state 1\nbypass 7 3\nend 1 0123456789abcdef\n", 3,
		       "checksum mismatch");
	t = sealed("fairway-sched-state 1\nbypass 7 3\n", 1);
	t = realloc(t, strlen(t) + 16);
	strcat(t, "bypass 8 1\n");
	bypass_rejects(t, 4, "data after the end line");
	free(t);
}
END_TEST

Suite *plan_conf_suite(void)
{
	Suite *s = suite_create("plan_conf");
	TCase *tc = tcase_create("conf");

	tcase_add_test(tc, defaults_are_slurms);
	tcase_add_test(tc, seed_001_and_002_parameters);
	tcase_add_test(tc, all_limits_and_main_scheduler_tokens);
	tcase_add_test(tc, bad_scheduler_parameters);
	tcase_add_test(tc, fairway_conf_keys);
	tcase_add_test(tc, bad_fairway_conf_lines);
	tcase_add_test(tc, finish_cross_checks);
	tcase_add_test(tc, reservation_order);
	tcase_add_test(tc, bypass_state_round_trip);
	tcase_add_test(tc, bypass_state_rejections_name_the_line);
	suite_add_tcase(s, tc);
	return s;
}
