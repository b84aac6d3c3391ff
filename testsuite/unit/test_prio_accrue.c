/*
 * Unit tests of the accrual ledger: held time does not count, only the
 * first N eligible jobs per user/account accrue, pruning, and the text
 * format (round trip, corrupt input).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_prio.h"

#define T0 1767225600LL

static struct fw_prio_job pend(uint32_t id, uint32_t uid, uint32_t acct, fw_time_t submit)
{
	struct fw_prio_job j = job_plain(id);

	j.uid = uid;
	j.account_id = acct;
	j.submit_time = submit;
	return j;
}

static int64_t accrued(const struct fw_accrue *l, uint32_t id)
{
	int64_t s = -1;

	ck_assert_msg(fw_accrue_get(l, id, &s, NULL), "job %u not in the ledger", id);
	return s;
}

START_TEST(held_time_not_counted)
{
	struct fw_prio_conf *c = conf_ok(NULL, "AccruePolicy=Eligible\n");
	struct fw_accrue *l = fw_accrue_new(c);
	struct fw_prio_job j = pend(1, 100, 1, T0);

	/* ticks every 60 s; held from 120 to 300 (as seen at the ticks).
	   counted: [0,60) [60,120) and [300,360): 60 + 60 + 60 = 180,
	   the job's unheld eligible time */
	for (int64_t t = 0; t <= 360; t += 60) {
		j.held = t >= 120 && t < 300;
		fw_accrue_tick(l, &j, 1, T0 + t);
	}
	ck_assert_int_eq(j.queue_sec, 180);
	ck_assert_int_eq(accrued(l, 1), 180);
	fw_accrue_free(l);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(not_before_eligible)
{
	struct fw_prio_conf *c = conf_ok(NULL, "AccruePolicy=Eligible\n");
	struct fw_accrue *l = fw_accrue_new(c);
	struct fw_prio_job j = pend(1, 100, 1, T0);

	/* begin time T0+1000: ticks at 0 and 500 give nothing; from the tick
	   at 1000 it accrues: at 1600, 600 s */
	j.eligible_time = T0 + 1000;
	fw_accrue_tick(l, &j, 1, T0);
	fw_accrue_tick(l, &j, 1, T0 + 500);
	ck_assert_int_eq(j.queue_sec, 0);
	fw_accrue_tick(l, &j, 1, T0 + 1000);
	fw_accrue_tick(l, &j, 1, T0 + 1600);
	ck_assert_int_eq(j.queue_sec, 600);
	fw_accrue_free(l);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(first_n_per_user)
{
	struct fw_prio_conf *c = conf_ok(NULL, "AccrueMaxJobsPerUser=2\n");
	struct fw_accrue *l = fw_accrue_new(c);
	struct fw_prio_job j[4] = {
		pend(1, 100, 1, T0), pend(2, 100, 1, T0 + 1),
		pend(3, 100, 1, T0 + 2), pend(4, 200, 1, T0 + 3),
	};
	const fw_time_t t = T0 + 10;

	/* first sight at T0+10: user 100's two oldest (1, 2) and user 200's
	   job 4 qualify and are credited since eligible: 10, 9, -, 7 */
	fw_accrue_tick(l, j, 4, t);
	ck_assert_int_eq(j[0].queue_sec, 10);
	ck_assert_int_eq(j[1].queue_sec, 9);
	ck_assert_int_eq(j[2].queue_sec, 0);
	ck_assert_int_eq(j[3].queue_sec, 7);
	/* +100 s */
	fw_accrue_tick(l, j, 4, t + 100);
	ck_assert_int_eq(j[0].queue_sec, 110);
	ck_assert_int_eq(j[1].queue_sec, 109);
	ck_assert_int_eq(j[2].queue_sec, 0);
	ck_assert_int_eq(j[3].queue_sec, 107);
	/* job 1 starts: its last interval still counts (210); the freed slot
	   goes to job 3 from now on */
	j[0].running = true;
	fw_accrue_tick(l, j, 4, t + 200);
	ck_assert_int_eq(j[0].queue_sec, 210);
	ck_assert_int_eq(j[2].queue_sec, 0);
	fw_accrue_tick(l, j, 4, t + 300);
	ck_assert_int_eq(j[0].queue_sec, 210);
	ck_assert_int_eq(j[1].queue_sec, 309);
	ck_assert_int_eq(j[2].queue_sec, 100);
	ck_assert_int_eq(j[3].queue_sec, 307);
	fw_accrue_free(l);
	fw_prio_conf_free(c);
}
END_TEST

/*
 * Against a brute-force reference: with only a per-user limit N, a job
 * accrues iff fewer than N jobs of its user come before it in (submit,
 * job id) order.  Run with a narrow and with a very wide spread of submit
 * times (the latter exceeds 2^32 s and takes the comparison sort).
 */
static void check_against_reference(fw_time_t spread)
{
	enum { N = 3000, LIMIT = 3 };
	struct fw_prio_conf *c = conf_ok(NULL, "AccrueMaxJobsPerUser=3\n");
	struct fw_accrue *l = fw_accrue_new(c);
	struct fw_prio_job *j = calloc(N, sizeof(*j));
	fw_time_t now = spread + 1000;
	uint64_t s = 99;

	for (int i = 0; i < N; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		/* few distinct submit times, so ties on submit are common */
		j[i] = pend((uint32_t)(N - i), (uint32_t)((s >> 33) % 50), 1,
			    -spread + (fw_time_t)((s >> 40) % 64) * (2 * spread / 63));
	}
	fw_accrue_tick(l, j, N, now);
	for (int i = 0; i < N; i++) {
		int before = 0;

		for (int k = 0; k < N; k++)
			if (j[k].uid == j[i].uid &&
			    (j[k].submit_time < j[i].submit_time ||
			     (j[k].submit_time == j[i].submit_time && j[k].job_id < j[i].job_id)))
				before++;
		/* a qualifying new job is credited since submission (> 0) */
		ck_assert_int_eq(j[i].queue_sec > 0, before < LIMIT);
	}
	free(j);
	fw_accrue_free(l);
	fw_prio_conf_free(c);
}

START_TEST(limit_matches_reference)
{
	check_against_reference(100000);
	check_against_reference(3000000000LL);
}
END_TEST

START_TEST(held_jobs_take_no_slot)
{
	struct fw_prio_conf *c = conf_ok(NULL, "AccrueMaxJobsPerUser=1\n");
	struct fw_accrue *l = fw_accrue_new(c);
	struct fw_prio_job j[2] = { pend(1, 100, 1, T0), pend(2, 100, 1, T0 + 1) };

	/* the older job is held: the newer one accrues */
	j[0].held = true;
	fw_accrue_tick(l, j, 2, T0 + 1);
	fw_accrue_tick(l, j, 2, T0 + 61);
	ck_assert_int_eq(j[0].queue_sec, 0);
	ck_assert_int_eq(j[1].queue_sec, 60);
	fw_accrue_free(l);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(first_n_per_account)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"AccrueMaxJobsPerUser=1\nAccrueMaxJobsPerAccount=1\n");
	struct fw_accrue *l = fw_accrue_new(c);
	/* job 10: user B in account X (oldest); job 11: user A in X;
	   job 12: user A in Y */
	struct fw_prio_job j[3] = { pend(10, 200, 7, T0), pend(11, 100, 7, T0 + 1),
				    pend(12, 100, 8, T0 + 2) };

	/* X's slot goes to job 10; job 11 is stopped by its account and does
	   not use user A's slot, so job 12 accrues */
	fw_accrue_tick(l, j, 3, T0 + 2);
	fw_accrue_tick(l, j, 3, T0 + 102);
	ck_assert_int_eq(j[0].queue_sec, 102);
	ck_assert_int_eq(j[1].queue_sec, 0);
	ck_assert_int_eq(j[2].queue_sec, 100);
	fw_accrue_free(l);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(prune_and_clock)
{
	struct fw_prio_conf *c = conf_ok(NULL, "AccruePolicy=Eligible\n");
	struct fw_accrue *l = fw_accrue_new(c);
	struct fw_prio_job j[2] = { pend(1, 1, 1, T0), pend(2, 1, 1, T0) };
	bool on;

	fw_accrue_tick(l, j, 2, T0);
	fw_accrue_tick(l, j, 2, T0 + 50);
	ck_assert_uint_eq(fw_accrue_count(l), 2);
	/* job 1 finished: not in the next tick, pruned after it */
	fw_accrue_tick(l, &j[1], 1, T0 + 100);
	ck_assert_uint_eq(fw_accrue_prune(l), 1);
	ck_assert_uint_eq(fw_accrue_count(l), 1);
	ck_assert(!fw_accrue_get(l, 1, NULL, NULL));
	ck_assert_int_eq(accrued(l, 2), 100);
	ck_assert(fw_accrue_get(l, 2, NULL, &on) && on);
	/* a clock stepping back adds nothing */
	fw_accrue_tick(l, &j[1], 1, T0 + 40);
	ck_assert_int_eq(accrued(l, 2), 100);
	fw_accrue_tick(l, &j[1], 1, T0 + 160);
	ck_assert_int_eq(accrued(l, 2), 160);
	/* many jobs: the table grows and keeps every entry */
	{
		enum { N = 5000 };
		struct fw_prio_job *many = calloc(N, sizeof(*many));

		for (int i = 0; i < N; i++)
			many[i] = pend((uint32_t)(1000 + i), (uint32_t)i, 1, T0);
		fw_accrue_tick(l, many, N, T0 + 200);
		fw_accrue_tick(l, many, N, T0 + 260);
		ck_assert_uint_eq(fw_accrue_prune(l), 1); /* job 2 */
		ck_assert_uint_eq(fw_accrue_count(l), N);
		for (int i = 0; i < N; i++)
			ck_assert_int_eq(many[i].queue_sec, 260);
		free(many);
	}
	fw_accrue_free(l);
	fw_prio_conf_free(c);
}
END_TEST

START_TEST(ledger_feeds_queue_time)
{
	struct fw_prio_conf *c = conf_ok(NULL,
		"AccrueMaxJobsPerUser=1\nPriorityWeightQueueTime=1\n");
	struct fw_accrue *l = fw_accrue_new(c);
	struct fw_prio_job j[2] = { pend(1, 1, 1, T0), pend(2, 1, 1, T0 + 60) };
	struct fw_prio_ctx x = { .now = T0 + 3660 };
	uint32_t p[2];

	/* stuffing: two jobs of one user, only the older accrues.
	   job 1: 3660 s = 61 min -> 61; job 2: 0 -> floor 1 */
	fw_accrue_tick(l, j, 2, T0 + 60);
	fw_accrue_tick(l, j, 2, T0 + 3660);
	fw_prio_compute_batch(c, &x, j, 2, p, NULL);
	ck_assert_uint_eq(p[0], 61);
	ck_assert_uint_eq(p[1], 1);
	fw_accrue_free(l);
	fw_prio_conf_free(c);
}
END_TEST

/* ------------------------------------------------------------ serialisation */

static struct fw_accrue *sample_ledger(struct fw_prio_conf **cp)
{
	struct fw_prio_conf *c = conf_ok(NULL, "AccrueMaxJobsPerUser=2\n");
	struct fw_accrue *l = fw_accrue_new(c);
	struct fw_prio_job j[3] = { pend(1, 1, 1, T0), pend(2, 1, 1, T0),
				    pend(3, 1, 1, T0) };

	fw_accrue_tick(l, j, 3, T0);
	fw_accrue_tick(l, j, 3, T0 + 100);
	*cp = c;
	return l;
}

START_TEST(save_load_round_trip)
{
	struct fw_prio_conf *c;
	struct fw_accrue *l = sample_ledger(&c), *m = fw_accrue_new(c);
	struct fw_prio_job j[3] = { pend(1, 1, 1, T0), pend(2, 1, 1, T0),
				    pend(3, 1, 1, T0) };
	struct fw_err e;
	size_t len;
	char *text = fw_accrue_save(l, &len);

	ck_assert_uint_eq(len, strlen(text));
	{
		const char *head = "fairway-accrue 1\nlast 1767225700 jobs 3\n";

		ck_assert(!strncmp(text, head, strlen(head)));
	}
	ck_assert_int_eq(fw_accrue_load(m, text, len, &e), 0);
	ck_assert_uint_eq(fw_accrue_count(m), 3);
	ck_assert_int_eq(accrued(m, 1), 100);
	ck_assert_int_eq(accrued(m, 2), 100);
	ck_assert_int_eq(accrued(m, 3), 0);
	/* the restored ledger carries on where the saved one stopped:
	   jobs 1 and 2 were accruing, 3 not */
	fw_accrue_tick(m, j, 3, T0 + 160);
	ck_assert_int_eq(j[0].queue_sec, 160);
	ck_assert_int_eq(j[1].queue_sec, 160);
	ck_assert_int_eq(j[2].queue_sec, 0);
	/* an empty ledger round-trips too */
	{
		struct fw_accrue *z = fw_accrue_new(NULL);
		char *t = fw_accrue_save(z, &len);

		ck_assert_int_eq(fw_accrue_load(z, t, len, &e), 0);
		ck_assert_uint_eq(fw_accrue_count(z), 0);
		free(t);
		fw_accrue_free(z);
	}
	free(text);
	fw_accrue_free(l);
	fw_accrue_free(m);
	fw_prio_conf_free(c);
}
END_TEST

/* The format's checksum (FNV-1a 64 of everything before "end "), to build
   inputs that are well-formed except for one property. */
static char *with_checksum(const char *body)
{
	uint64_t h = 14695981039346656037ull;
	size_t n = strlen(body);
	char *out = malloc(n + 32);

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)body[i]) * 1099511628211ull;
	snprintf(out, n + 32, "%send %016" PRIx64 "\n", body, h);
	return out;
}

static void load_fails(struct fw_accrue *m, const char *text, size_t len, const char *why)
{
	struct fw_err e;

	fw_err_clear(&e);
	ck_assert_int_eq(fw_accrue_load(m, text, len, &e), -1);
	ck_assert_str_eq(e.key, "accrue");
	ck_assert_msg(strstr(e.msg, why), "message '%s' lacks '%s'", e.msg, why);
	ck_assert_int_gt(e.line, 0);
	/* the ledger is unchanged */
	ck_assert_uint_eq(fw_accrue_count(m), 3);
	ck_assert_int_eq(accrued(m, 1), 100);
}

START_TEST(load_rejects_corrupt_input)
{
	struct fw_prio_conf *c;
	struct fw_accrue *l = sample_ledger(&c);
	size_t len;
	char *good = fw_accrue_save(l, &len), *bad, *p;

	load_fails(l, "", 0, "truncated");
	load_fails(l, "fairway-accrue 2\n", 17, "version-1");
	/* no end line */
	bad = strdup(good);
	p = strstr(bad, "end ");
	*p = '\0';
	load_fails(l, bad, strlen(bad), "truncated");
	/* last line without newline */
	load_fails(l, good, len - 1, "truncated");
	/* one digit changed */
	free(bad);
	bad = strdup(good);
	p = strstr(bad, " 100 ");
	p[1] = '9';
	load_fails(l, bad, len, "checksum");
	/* data after the end line */
	free(bad);
	bad = malloc(len + 8);
	memcpy(bad, good, len);
	memcpy(bad + len, "7 7 1\n", 6);
	load_fails(l, bad, len + 6, "after the end");
	free(bad);
	/* well-formed apart from one thing (valid checksums) */
	bad = with_checksum("fairway-accrue 1\nlast 5 jobs 2\n1 10 1\n");
	load_fails(l, bad, strlen(bad), "count");
	free(bad);
	bad = with_checksum("fairway-accrue 1\nlast 5 jobs 2\n1 10 1\n1 20 0\n");
	load_fails(l, bad, strlen(bad), "twice");
	free(bad);
	bad = with_checksum("fairway-accrue 1\nlast 5 jobs 1\n1 -10 1\n");
	load_fails(l, bad, strlen(bad), "bad job line");
	free(bad);
	bad = with_checksum("fairway-accrue 1\nlast 5 jobs 1\n1 10 2\n");
	load_fails(l, bad, strlen(bad), "bad job line");
	free(bad);
	bad = with_checksum("fairway-accrue 1\nlast 5 jobs 1\n4294967296 10 1\n");
	load_fails(l, bad, strlen(bad), "bad job line");
	free(bad);
	bad = with_checksum("fairway-accrue 1\nlast 5 jobs 1\n1  10 1\n");
	load_fails(l, bad, strlen(bad), "bad job line");
	free(bad);
	bad = with_checksum("fairway-accrue 1\nlast 5 jobs 1\n1 99999999999999999999 1\n");
	load_fails(l, bad, strlen(bad), "bad job line");
	free(bad);
	bad = with_checksum("fairway-accrue 1\nlast five jobs 0\n");
	load_fails(l, bad, strlen(bad), "header");
	free(bad);
	bad = with_checksum("fairway-accrue 1\nlast 5 jobs 0 x\n");
	load_fails(l, bad, strlen(bad), "header");
	free(bad);
	/* random damage: every mutation is either rejected or (never, given
	   the checksum) accepted; nothing crashes (run under ASan) */
	{
		uint64_t s = 7;

		for (int i = 0; i < 500; i++) {
			struct fw_err e;
			char *m = malloc(len);
			size_t cut = len;

			memcpy(m, good, len);
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			m[(s >> 33) % len] ^= (char)(1 + (s >> 20) % 255);
			if (i % 3 == 0)
				cut = (size_t)((s >> 40) % len);
			ck_assert_int_eq(fw_accrue_load(l, m, cut, &e), -1);
			free(m);
		}
		ck_assert_uint_eq(fw_accrue_count(l), 3);
	}
	free(good);
	fw_accrue_free(l);
	fw_prio_conf_free(c);
}
END_TEST

Suite *prio_accrue_suite(void)
{
	Suite *s = suite_create("prio_accrue");
	TCase *tc = tcase_create("accrue");

	tcase_add_test(tc, held_time_not_counted);
	tcase_add_test(tc, not_before_eligible);
	tcase_add_test(tc, first_n_per_user);
	tcase_add_test(tc, limit_matches_reference);
	tcase_add_test(tc, held_jobs_take_no_slot);
	tcase_add_test(tc, first_n_per_account);
	tcase_add_test(tc, prune_and_clock);
	tcase_add_test(tc, ledger_feeds_queue_time);
	tcase_add_test(tc, save_load_round_trip);
	tcase_add_test(tc, load_rejects_corrupt_input);
	suite_add_tcase(s, tc);
	return s;
}
