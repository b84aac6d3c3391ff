/*
 * Unit tests of fairway-sim's inputs: SWF, CSV and sacct traces,
 * slurm.conf, topology.conf and sacctmgr dumps (values and every error
 * path: file, line, key, value and reason).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_cluster.h"
#include "sim_report.h"
#include "sim_trace.h"
#include "sim_util.h"
#include "test_run.h"

/* 2024-01-01T00:00:00Z: 19723 days after 1970-01-01, 19723*86400. */
#define JAN1_2024 1704067200LL

static const struct sim_read_opts stop_opts = { 0 };
static const struct sim_read_opts skip_opts = { .skip_bad_lines = true };

static int swf(struct sim_trace *t, const char *text,
	       const struct sim_read_opts *o, struct fw_err *e)
{
	sim_trace_init(t);
	fw_err_clear(e);
	return sim_read_swf_mem(t, "w.swf", text, strlen(text), o, e);
}

static int csv(struct sim_trace *t, const char *text,
	       const struct sim_read_opts *o, struct fw_err *e)
{
	sim_trace_init(t);
	fw_err_clear(e);
	return sim_read_csv_mem(t, "w.csv", text, strlen(text), o, e);
}

static int sacct(struct sim_trace *t, const char *text,
		 const struct sim_read_opts *o, struct fw_err *e)
{
	sim_trace_init(t);
	fw_err_clear(e);
	return sim_read_sacct_mem(t, "s.txt", text, strlen(text), o, e);
}

/* An error must carry file, line, key, value and a reason. */
static void check_err(const struct fw_err *e, const char *file, int line,
		      const char *key, const char *value, const char *msg_part)
{
	ck_assert_str_eq(e->file, file);
	ck_assert_int_eq(e->line, line);
	ck_assert_str_eq(e->key, key);
	ck_assert_str_eq(e->value, value);
	ck_assert_msg(strstr(e->msg, msg_part), "message '%s' lacks '%s'",
		      e->msg, msg_part);
}

/* ------------------------------------------------------------- util */

START_TEST(time_stamps)
{
	fw_time_t t;
	struct fw_err e;

	ck_assert_int_eq(sim_parse_time("1700000000", &t, &e), 0);
	ck_assert_int_eq(t, 1700000000);
	ck_assert_int_eq(sim_parse_time("2024-01-01T00:00:00Z", &t, &e), 0);
	ck_assert_int_eq(t, JAN1_2024);
	/* +02:00 means 2 h ahead of UTC: 08:30+02:00 = 06:30Z */
	ck_assert_int_eq(sim_parse_time("2024-01-01T08:30+02:00", &t, &e), 0);
	ck_assert_int_eq(t, JAN1_2024 + 6 * 3600 + 30 * 60);
	/* no zone: local time; the test suite runs with TZ=UTC */
	ck_assert_int_eq(sim_parse_time("2024-03-01 12:00:05", &t, &e), 0);
	/* Jan 31 + Feb 29 (leap year) = 60 days to March 1 */
	ck_assert_int_eq(t, JAN1_2024 + 60 * 86400 + 12 * 3600 + 5);
	ck_assert_int_eq(sim_parse_time("2024-02-30T00:00:00", &t, &e), -1);
	ck_assert_int_eq(sim_parse_time("2024-01-01T25:00", &t, &e), -1);
	ck_assert_int_eq(sim_parse_time("yesterday", &t, &e), -1);
	ck_assert_int_eq(sim_parse_time("", &t, &e), -1);
	ck_assert_int_eq(sim_parse_time("12abc", &t, &e), -1);
	char buf[32];
	ck_assert_str_eq(sim_fmt_time(JAN1_2024 + 3661, buf, sizeof(buf)),
			 "2024-01-01T01:01:01");
}
END_TEST

START_TEST(field_splitting)
{
	char line[] = " a , \"b,c\" ,\"say \"\"hi\"\"\",,d ";
	char *f[8];

	ck_assert_int_eq(sim_split(line, ',', true, f, 8), 5);
	ck_assert_str_eq(f[0], "a");
	ck_assert_str_eq(f[1], "b,c");
	ck_assert_str_eq(f[2], "say \"hi\"");
	ck_assert_str_eq(f[3], "");
	ck_assert_str_eq(f[4], "d");
	char bad[] = "a,\"open";
	ck_assert_int_eq(sim_split(bad, ',', true, f, 8), -1);
	char many[] = "1,2,3";
	ck_assert_int_eq(sim_split(many, ',', true, f, 2), -1);
	char ws[] = "  1\t2   3 ";
	ck_assert_int_eq(sim_split_ws(ws, f, 8), 3);
	ck_assert_str_eq(f[2], "3");
}
END_TEST

/* ------------------------------------------------------------------ SWF */

static const char swf_text[] =
	"; Version: 2.2\n"
	"; UnixStartTime: 1704067200\n"
	"; MaxNodes: 4\n"
	"; MaxProcs: 32\n"
	"1 0 10 3600 16 -1 -1 16 7200 1024 1 3 7 -1 1 2 -1 -1\n"
	"2 60 -1 -1 8 -1 -1 8 600 -1 5 3 7 -1 1 -1 -1 -1\n"
	"3 120 0 100 -1 -1 -1 9 -1 -1 1 4 8 -1 -1 -1 1 30\n";

START_TEST(swf_mapping)
{
	struct sim_trace t;
	struct fw_err e;

	ck_assert_int_eq(swf(&t, swf_text, &stop_opts, &e), 0);
	ck_assert_int_eq(t.swf_max_nodes, 4);
	ck_assert_int_eq(t.swf_max_procs, 32);
	ck_assert_int_eq(t.n, 2);          /* job 2 never ran (run time -1) */
	ck_assert_int_eq(t.not_started, 1);
	const struct sim_job *j = &t.job[0];
	ck_assert_uint_eq(j->id, 1);
	ck_assert_int_eq(j->submit, JAN1_2024 + 0);
	ck_assert_int_eq(j->trace_start, JAN1_2024 + 10);
	ck_assert_int_eq(j->run_time, 3600);
	ck_assert_uint_eq(j->cpus, 16);
	/* 32 procs / 4 nodes = 8 per node: ceil(16/8) = 2 nodes */
	ck_assert_uint_eq(j->nodes, 2);
	ck_assert_int_eq(j->time_limit, 7200);
	/* 1024 KB per processor * 16 = 16384 KB = 16 MB */
	ck_assert_uint_eq(j->mem_mb, 16);
	ck_assert_str_eq(j->user, "u3");
	ck_assert_str_eq(j->account, "g7");
	ck_assert_str_eq(j->qos, "q1");
	ck_assert_str_eq(j->partition, "p2");
	j = &t.job[1];
	ck_assert_uint_eq(j->id, 3);
	/* 9 requested procs at 8 per node: ceil(9/8) = 2 */
	ck_assert_uint_eq(j->nodes, 2);
	/* requested time unknown: the default estimate is the run time */
	ck_assert_int_eq(j->time_limit, 100);
	ck_assert(j->limit_estimated);
	ck_assert_int_eq(t.swf_limit_estimated, 1);
	ck_assert_ptr_null(j->partition);
	ck_assert_uint_eq(j->dep_job, 1);
	ck_assert_int_eq(j->think_time, 30);
	sim_trace_free(&t);

	/* An explicit cpus_per_node and start time win over the header. */
	struct sim_read_opts o = { .cpus_per_node = 4, .start_time_set = true,
				   .start_time = 1000 };
	ck_assert_int_eq(swf(&t, swf_text, &o, &e), 0);
	ck_assert_int_eq(t.job[0].submit, 1000);
	ck_assert_uint_eq(t.job[0].nodes, 4); /* 16/4 */
	ck_assert_uint_eq(t.job[1].nodes, 3); /* ceil(9/4) */
	sim_trace_free(&t);
}
END_TEST

/* Requested time unknown (field 9 = -1): the three estimates. */
START_TEST(swf_runtime_estimate)
{
	static const char text[] =
		"1 0 -1 100 4 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
		"2 0 -1 0 4 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
		"3 0 -1 100 4 -1 -1 -1 500 -1 1 1 1 -1 1 -1 -1 -1\n";
	struct sim_read_opts o = { .cpus_per_node = 4 };
	struct sim_trace t;
	struct fw_err e;
	char buf[32];

	ck_assert_int_eq(sim_swf_estimate_parse("exact", &o), 0);
	ck_assert_int_eq(swf(&t, text, &o, &e), 0);
	ck_assert_int_eq(t.job[0].time_limit, 100);
	ck_assert_int_eq(t.job[1].time_limit, 1);   /* 0 s run: 1 s limit */
	ck_assert_int_eq(t.job[2].time_limit, 500); /* requested wins */
	ck_assert(!t.job[2].limit_estimated);
	ck_assert_int_eq(t.swf_limit_estimated, 2);
	sim_trace_free(&t);

	ck_assert_int_eq(sim_swf_estimate_parse("factor:2.5", &o), 0);
	ck_assert_str_eq(sim_swf_estimate_str(&o, buf, sizeof(buf)), "factor:2.5");
	ck_assert_int_eq(swf(&t, text, &o, &e), 0);
	ck_assert_int_eq(t.job[0].time_limit, 250); /* 100 x 2.5 */
	ck_assert_int_eq(t.job[1].time_limit, 1);
	sim_trace_free(&t);

	ck_assert_int_eq(sim_swf_estimate_parse("partition-max", &o), 0);
	ck_assert_int_eq(swf(&t, text, &o, &e), 0);
	ck_assert_int_eq(t.job[0].time_limit, -1);  /* the partition's */
	ck_assert(!t.job[0].limit_estimated);
	ck_assert_int_eq(t.swf_limit_estimated, 0);
	sim_trace_free(&t);

	ck_assert_int_eq(sim_swf_estimate_parse("factor:0.9", &o), -1);
	ck_assert_int_eq(sim_swf_estimate_parse("factor:", &o), -1);
	ck_assert_int_eq(sim_swf_estimate_parse("factor:2x", &o), -1);
	ck_assert_int_eq(sim_swf_estimate_parse("max", &o), -1);
}
END_TEST

/* Field 5 (allocated) against field 8 (requested). */
START_TEST(swf_procs_field)
{
	static const char text[] =
		"1 0 -1 10 8 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
		"2 0 -1 10 -1 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
		"3 0 -1 10 8 -1 -1 -1 -1 -1 1 1 1 -1 1 -1 -1 -1\n";
	struct sim_read_opts o = { .cpus_per_node = 4 };
	struct sim_trace t;
	struct fw_err e;

	ck_assert_str_eq(sim_swf_procs_str(&o), "requested");
	ck_assert_int_eq(swf(&t, text, &o, &e), 0);
	ck_assert_uint_eq(t.job[0].cpus, 4);
	ck_assert_uint_eq(t.job[1].cpus, 4);
	ck_assert_uint_eq(t.job[2].cpus, 8);  /* field 8 unknown */
	ck_assert_uint_eq(t.job[2].nodes, 2);
	ck_assert_int_eq(t.swf_procs_fallback, 1);
	sim_trace_free(&t);

	ck_assert_int_eq(sim_swf_procs_parse("allocated", &o), 0);
	ck_assert_int_eq(swf(&t, text, &o, &e), 0);
	ck_assert_uint_eq(t.job[0].cpus, 8);
	ck_assert_uint_eq(t.job[1].cpus, 4);  /* field 5 unknown */
	ck_assert_uint_eq(t.job[2].cpus, 8);
	ck_assert_int_eq(t.swf_procs_fallback, 1);
	sim_trace_free(&t);
	ck_assert_int_eq(sim_swf_procs_parse("both", &o), -1);
}
END_TEST

START_TEST(swf_errors)
{
	struct sim_trace t;
	struct fw_err e;

	ck_assert_int_eq(swf(&t, "; c\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1\n",
			     &stop_opts, &e), -1);
	check_err(&e, "w.swf", 2, "fields", "17", "18 fields");
	sim_trace_free(&t);
	ck_assert_int_eq(swf(&t, "1 0 0 x 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n",
			     &stop_opts, &e), -1);
	check_err(&e, "w.swf", 1, "run_time", "x", "not a number");
	sim_trace_free(&t);
	ck_assert_int_eq(swf(&t, "0 0 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n",
			     &stop_opts, &e), -1);
	check_err(&e, "w.swf", 1, "job_number", "0", "job number");
	sim_trace_free(&t);
	ck_assert_int_eq(swf(&t, "1 0 0 1 -1 -1 -1 -1 -1 -1 1 1 1 -1 1 1 -1 -1\n",
			     &stop_opts, &e), -1);
	check_err(&e, "w.swf", 1, "requested_procs", "-1", "no processor count");
	sim_trace_free(&t);
	ck_assert_int_eq(swf(&t, "1 -5 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n",
			     &stop_opts, &e), -1);
	check_err(&e, "w.swf", 1, "submit_time", "-5", "out of range");
	sim_trace_free(&t);
	ck_assert_int_eq(swf(&t, "1 0 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1 9\n",
			     &stop_opts, &e), -1);
	check_err(&e, "w.swf", 1, "fields", "19", "18 fields");
	sim_trace_free(&t);
	/* duplicate job number names the second line and the first */
	ck_assert_int_eq(swf(&t, "5 0 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n"
				 "5 9 0 1 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n",
			     &stop_opts, &e), -1);
	check_err(&e, "w.swf", 2, "id", "5", "duplicate job id (first on line 1)");
	sim_trace_free(&t);
}
END_TEST

START_TEST(swf_skip_bad_lines)
{
	struct sim_trace t;
	struct fw_err e;
	const char *text =
		"1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n"
		"garbage\n"
		"2 5 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n"
		"3 5 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1\n";

	ck_assert_int_eq(swf(&t, text, &skip_opts, &e), 0);
	ck_assert_int_eq(t.n, 2);
	ck_assert_int_eq(t.bad_lines, 2);
	check_err(&t.first_bad, "w.swf", 2, "fields", "1", "18 fields");
	sim_trace_free(&t);
}
END_TEST

/* ------------------------------------------------------------------ CSV */

START_TEST(csv_mapping)
{
	struct sim_trace t;
	struct fw_err e;
	const char *text =
		"# a comment\n"
		"id,submit,user,account,partition,qos,nodes,cpus,mem,gpus,time_limit,run_time,licenses,nice,eligible\n"
		"7,2024-01-01T00:00:00Z,alice,phys,batch,normal,2,16,4G,2,1-00:00:00,90,\"matlab:2,ansys\",10,\n"
		"3,1704067100,bob,\"bio, inc\",,,,4,,,UNLIMITED,1:30:00,,,2024-01-01T01:00:00Z\n";

	ck_assert_int_eq(csv(&t, text, &stop_opts, &e), 0);
	ck_assert_int_eq(t.n, 2);
	/* sorted by submit: job 3 (1704067100) before job 7 (1704067200) */
	const struct sim_job *j = &t.job[1];
	ck_assert_uint_eq(j->id, 7);
	ck_assert_int_eq(j->submit, JAN1_2024);
	ck_assert_str_eq(j->user, "alice");
	ck_assert_str_eq(j->account, "phys");
	ck_assert_str_eq(j->partition, "batch");
	ck_assert_str_eq(j->qos, "normal");
	ck_assert_uint_eq(j->nodes, 2);
	ck_assert_uint_eq(j->cpus, 16);
	ck_assert_uint_eq(j->mem_mb, 4096);
	ck_assert_uint_eq(j->gpus, 2);
	ck_assert_int_eq(j->time_limit, 86400);
	/* run_time in Slurm's format: "90" is 90 minutes = 5400 s */
	ck_assert_int_eq(j->run_time, 5400);
	ck_assert_uint_eq(j->nlic, 2);
	ck_assert_str_eq(j->lic[0].name, "matlab");
	ck_assert_uint_eq(j->lic[0].count, 2);
	ck_assert_str_eq(j->lic[1].name, "ansys");
	ck_assert_uint_eq(j->lic[1].count, 1);
	ck_assert_int_eq(j->nice, 10);
	ck_assert_int_eq(j->eligible, 0);
	j = &t.job[0];
	ck_assert_uint_eq(j->id, 3);
	ck_assert_str_eq(j->account, "bio, inc");
	ck_assert_ptr_null(j->partition);
	ck_assert_uint_eq(j->nodes, 0);
	ck_assert_uint_eq(j->cpus, 4);
	ck_assert_int_eq(j->time_limit, -1);
	ck_assert_int_eq(j->run_time, 5400);
	ck_assert_int_eq(j->eligible, JAN1_2024 + 3600);
	sim_trace_free(&t);

	/* Seconds columns and ids from the row order. */
	ck_assert_int_eq(csv(&t, "submit,nodes,run_time_s,time_limit_s\n0,1,59,60\n5,2,1,2\n",
			     &stop_opts, &e), 0);
	ck_assert_uint_eq(t.job[0].id, 1);
	ck_assert_uint_eq(t.job[1].id, 2);
	ck_assert_int_eq(t.job[0].run_time, 59);
	ck_assert_int_eq(t.job[0].time_limit, 60);
	sim_trace_free(&t);
}
END_TEST

struct bad_case {
	const char *text;
	int line;
	const char *key, *value, *msg;
};

START_TEST(csv_errors)
{
	static const struct bad_case cases[] = {
		{ "submit,nodes,run_time,color\n", 1, "column", "color", "unknown column" },
		{ "submit,nodes,nodes,run_time\n", 1, "column", "nodes", "twice" },
		{ "nodes,run_time\n", 1, "column", "submit", "no submit column" },
		{ "submit,nodes\n", 1, "column", "run_time", "no run_time" },
		{ "submit,run_time\n", 1, "column", "nodes", "nodes or a cpus" },
		{ "submit,nodes,run_time,run_time_s\n", 1, "column", "run_time_s", "not both" },
		{ "submit,nodes,run_time,time_limit,time_limit_s\n", 1, "column", "time_limit_s", "not both" },
		{ "submit,nodes,run_time\n0,1\n", 2, "fields", "2", "expected 3 fields" },
		{ "submit,nodes,run_time\nnoon,1,5\n", 2, "submit", "noon", "epoch seconds or" },
		{ "submit,nodes,run_time\n,1,5\n", 2, "submit", "", "needs a submit" },
		{ "submit,nodes,run_time\n0,x,5\n", 2, "nodes", "x", "whole number" },
		{ "submit,nodes,run_time\n0,0,5\n", 2, "nodes", "0", "at least one node" },
		{ "submit,nodes,run_time\n0,1,\n", 2, "run_time", "", "needs a run time" },
		{ "submit,nodes,run_time\n0,1,soon\n", 2, "run_time", "soon", "duration" },
		{ "submit,nodes,run_time_s\n0,1,1:00\n", 2, "run_time_s", "1:00", "whole number" },
		{ "submit,nodes,run_time,time_limit\n0,1,5,0\n", 2, "time_limit", "0", "positive" },
		{ "submit,nodes,run_time,mem\n0,1,5,4Q\n", 2, "mem", "4Q", "memory unit" },
		{ "submit,nodes,run_time,gpus\n0,1,5,-1\n", 2, "gpus", "-1", "whole number" },
		{ "submit,nodes,run_time,licenses\n0,1,5,:3\n", 2, "licenses", ":3", "needs a name" },
		{ "submit,nodes,run_time,licenses\n0,1,5,m:0\n", 2, "licenses", "m:0", "1..1000000" },
		{ "submit,nodes,run_time,nice\n0,1,5,9999999999\n", 2, "nice", "9999999999", "nice" },
		{ "id,submit,nodes,run_time\n0,0,1,5\n", 2, "id", "0", "start at 1" },
		{ "id,submit,nodes,run_time\n,0,1,5\n", 2, "id", "", "empty job id" },
		{ "submit,nodes,run_time\n0,1,\"5\n", 2, "line", "", "unterminated quote" },
		{ "submit,nodes,run_time,eligible\n0,1,5,later\n", 2, "eligible", "later", "epoch" },
		{ "submit,nodes,run_time,deadline\n0,1,5,x\n", 2, "deadline", "x", "epoch" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_trace t;
		struct fw_err e;

		ck_assert_msg(csv(&t, cases[i].text, &stop_opts, &e) == -1,
			      "case %zu accepted", i);
		check_err(&e, "w.csv", cases[i].line, cases[i].key,
			  cases[i].value, cases[i].msg);
		sim_trace_free(&t);
	}
	/* A header error stops even with skip_bad_lines; so does no header. */
	struct sim_trace t;
	struct fw_err e;
	ck_assert_int_eq(csv(&t, "submit,nodes,run_time,oops\n0,1,5,1\n", &skip_opts, &e), -1);
	check_err(&e, "w.csv", 1, "column", "oops", "unknown column");
	sim_trace_free(&t);
	ck_assert_int_eq(csv(&t, "# only a comment\n", &stop_opts, &e), -1);
	ck_assert_msg(strstr(e.msg, "no header"), "%s", e.msg);
	sim_trace_free(&t);
	/* Rows are skipped and counted. */
	ck_assert_int_eq(csv(&t, "submit,nodes,run_time\n0,1,5\n0,x,5\n1,1,5\n",
			     &skip_opts, &e), 0);
	ck_assert_int_eq(t.n, 2);
	ck_assert_int_eq(t.bad_lines, 1);
	check_err(&t.first_bad, "w.csv", 3, "nodes", "x", "whole number");
	sim_trace_free(&t);
}
END_TEST

/* ---------------------------------------------------------------- sacct */

START_TEST(sacct_mapping)
{
	struct sim_trace t;
	struct fw_err e;
	const char *text =
		"JobID|JobIDRaw|User|Account|Partition|QOS|Submit|Eligible|Start|End|Elapsed|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|State\n"
		"100|100|alice|phys|batch|normal|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00|02:00:00|2|64|8G|billing=64,cpu=64,gres/gpu=4,license/matlab=2,mem=8G,node=2|COMPLETED\n"
		"100.batch|100.batch||phys|||2024-01-01T00:10:00|2024-01-01T00:10:00|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00||1|32|||COMPLETED\n"
		"101|101|bob|bio|batch|normal|2024-01-01T00:05:00|Unknown|Unknown|Unknown|00:00:00|1-00:00:00|1|1|1G|cpu=1,mem=1G,node=1|PENDING\n"
		"102_3|107|bob|bio|batch,gpu|normal|2024-01-01T00:06:00|2024-01-01T02:00:00|2024-01-01T03:00:00|Unknown|00:30:00|Partition_Limit|1|8|2000Mn|cpu=8,node=1|RUNNING\n"
		"103|103|carol|bio|batch|normal|2024-01-01T00:07:00|2024-01-01T00:07:00|2024-01-01T00:08:00|2024-01-01T00:08:00|00:00:00|UNLIMITED|1|4|100Mc||CANCELLED by 0\n";

	ck_assert_int_eq(sacct(&t, text, &stop_opts, &e), 0);
	ck_assert_int_eq(t.n, 3);
	ck_assert_int_eq(t.not_started, 1);   /* 101 pending */
	ck_assert_int_eq(t.still_running, 1); /* 107: End=Unknown */
	const struct sim_job *j = &t.job[0];
	ck_assert_uint_eq(j->id, 100);
	ck_assert_int_eq(j->submit, JAN1_2024);
	ck_assert_int_eq(j->trace_start, JAN1_2024 + 600);
	/* run time = End - Start = 01:10 - 00:10 */
	ck_assert_int_eq(j->run_time, 3600);
	ck_assert_int_eq(j->time_limit, 7200);
	ck_assert_uint_eq(j->nodes, 2);
	ck_assert_uint_eq(j->cpus, 64);
	ck_assert_uint_eq(j->mem_mb, 8192);
	ck_assert_uint_eq(j->gpus, 4);
	ck_assert_uint_eq(j->nlic, 1);
	ck_assert_str_eq(j->lic[0].name, "matlab");
	ck_assert_uint_eq(j->lic[0].count, 2);
	ck_assert_int_eq(j->eligible, 0); /* eligible at submit */
	j = &t.job[1];
	ck_assert_uint_eq(j->id, 107);    /* JobIDRaw of array task 102_3 */
	ck_assert_str_eq(j->partition, "batch");
	ck_assert_int_eq(j->eligible, JAN1_2024 + 7200);
	ck_assert_int_eq(j->run_time, 1800); /* Elapsed */
	ck_assert_int_eq(j->time_limit, -1);
	/* 2000 MB per node x 1 node */
	ck_assert_uint_eq(j->mem_mb, 2000);
	j = &t.job[2];
	ck_assert_uint_eq(j->id, 103);
	ck_assert_int_eq(j->run_time, 0);
	/* 100 MB per CPU x 4 CPUs */
	ck_assert_uint_eq(j->mem_mb, 400);
	ck_assert_int_eq(j->time_limit, -1);
	sim_trace_free(&t);

	/* Without JobIDRaw, array ids get fresh numbers above the largest. */
	ck_assert_int_eq(sacct(&t, "JobID|Submit|Start|End|NNodes\n"
				   "5_1|0|10|20|1\n9|0|10|20|1\n5_2|0|10|20|1\n",
			       &stop_opts, &e), 0);
	ck_assert_uint_eq(t.job[0].id, 9);
	ck_assert_uint_eq(t.job[1].id, 10); /* 5_1 */
	ck_assert_uint_eq(t.job[2].id, 11); /* 5_2 */
	sim_trace_free(&t);
}
END_TEST

START_TEST(sacct_errors)
{
	static const struct bad_case cases[] = {
		{ "User|Submit|Start|End|NNodes\n", 1, "field", "JobID", "no JobID" },
		{ "JobID|Start|End|NNodes\n", 1, "field", "Submit", "no Submit" },
		{ "JobID|Submit|End|NNodes\n", 1, "field", "Start", "no Start" },
		{ "JobID|Submit|Start|NNodes\n", 1, "field", "End", "End or Elapsed" },
		{ "JobID|Submit|Start|End\n", 1, "field", "NNodes", "NNodes, NCPUS or ReqTRES" },
		{ "JobID|Submit|Start|End|NNodes|nnodes\n", 1, "field", "nnodes", "twice" },
		{ "JobID|Submit|Start|End|NNodes\n1|0|5\n", 2, "fields", "3", "expected 5" },
		{ "JobID|Submit|Start|End|NNodes\nx|0|5|6|1\n", 2, "JobID", "x", "not a job id" },
		{ "JobID|Submit|Start|End|NNodes\n|0|5|6|1\n", 2, "JobID", "", "empty job id" },
		{ "JobID|Submit|Start|End|NNodes\n1|Unknown|5|6|1\n", 2, "Submit", "Unknown", "needs a submit" },
		{ "JobID|Submit|Start|End|NNodes\n1|9|5|6|1\n", 2, "Start", "5", "before submit" },
		{ "JobID|Submit|Start|End|NNodes\n1|0|5|4|1\n", 2, "End", "4", "before start" },
		{ "JobID|Submit|Start|End|NNodes\n1|0|5|x|1\n", 2, "End", "x", "epoch" },
		{ "JobID|Submit|Start|End|NNodes\n1|0|5|Unknown|1\n", 2, "End", "Unknown", "no Elapsed" },
		{ "JobID|Submit|Start|Elapsed|NNodes\n1|0|5|ages|1\n", 2, "Elapsed", "ages", "duration" },
		{ "JobID|Submit|Start|End|NNodes\n1|0|5|6|0\n", 2, "NNodes", "0", "no node or CPU" },
		{ "JobID|Submit|Start|End|NNodes|NCPUS\n1|0|5|6|1|z\n", 2, "NCPUS", "z", "whole number" },
		{ "JobID|Submit|Start|End|NNodes|ReqMem\n1|0|5|6|1|lots\n", 2, "ReqMem", "lots", "memory" },
		{ "JobID|Submit|Start|End|ReqTRES\n1|0|5|6|cpu\n", 2, "ReqTRES", "cpu", "name=count" },
		{ "JobID|Submit|Start|End|ReqTRES\n1|0|5|6|cpu=x\n", 2, "ReqTRES", "x", "whole number" },
		{ "JobID|Submit|Start|End|NNodes|Timelimit\n1|0|5|6|1|soon\n", 2, "Timelimit", "soon", "duration" },
		{ "JobID|Submit|Start|End|NNodes|Eligible\n1|0|5|6|1|x\n", 2, "Eligible", "x", "epoch" },
		{ "JobID|JobIDRaw|Submit|Start|End|NNodes\n1|1_2|0|5|6|1\n", 2, "JobIDRaw", "1_2", "not a job id" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_trace t;
		struct fw_err e;

		ck_assert_msg(sacct(&t, cases[i].text, &stop_opts, &e) == -1,
			      "case %zu accepted", i);
		check_err(&e, "s.txt", cases[i].line, cases[i].key,
			  cases[i].value, cases[i].msg);
		sim_trace_free(&t);
	}
	struct sim_trace t;
	struct fw_err e;
	ck_assert_int_eq(sacct(&t, "", &stop_opts, &e), -1);
	ck_assert_msg(strstr(e.msg, "no header"), "%s", e.msg);
	sim_trace_free(&t);
	ck_assert_int_eq(sacct(&t, "JobID|Submit|Start|End|NNodes\n1|0|5|6|1\n2|0|5|x|1\n",
			       &skip_opts, &e), 0);
	ck_assert_int_eq(t.n, 1);
	ck_assert_int_eq(t.bad_lines, 1);
	check_err(&t.first_bad, "s.txt", 3, "End", "x", "epoch");
	sim_trace_free(&t);
}
END_TEST

/* ---------------------------------------------------------- slurm.conf */

static int conf(struct sim_cluster *c, const char *text, struct fw_err *e)
{
	sim_cluster_init(c);
	fw_err_clear(e);
	if (sim_read_slurm_conf_mem(c, "slurm.conf", text, strlen(text), e))
		return -1;
	return sim_cluster_finish(c, e);
}

START_TEST(slurm_conf_cluster)
{
	struct sim_cluster c;
	struct fw_err e;
	const char *text =
		"ClusterName=test\n"
		"PriorityWeightAge=1000 PriorityMaxAge=7-0\n"
		"SchedulerParameters=bf_interval=30,bf_window=1440\n"
		"Licenses=matlab:10,ansys*2\n"
		"NodeName=DEFAULT Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=64G\n"
		"NodeName=c[01-03] Feature=cpu\n"
		"NodeName=g1 CPUs=32 Gres=gpu:a100:2,gpu:v100:2(S:0),mps:100 RealMemory=128000\n"
		"PartitionName=DEFAULT MaxTime=1-0 State=UP\n"
		"PartitionName=batch Nodes=c[01-03] Default=YES PriorityJobFactor=10 PriorityTier=2 QOS=pq\n"
		"PartitionName=gpu Nodes=g1,c01 MaxTime=UNLIMITED DefaultTime=30 OverSubscribe=EXCLUSIVE\n"
		"PartitionName=all Nodes=ALL State=DOWN Priority=5\n";

	ck_assert_int_eq(conf(&c, text, &e), 0);
	ck_assert_int_eq(c.nnodes, 4);
	/* 2 sockets x 8 cores x 2 threads */
	ck_assert_uint_eq(c.node[0].cpus, 32);
	ck_assert_uint_eq(c.node[0].mem_mb, 65536);
	ck_assert_str_eq(c.node[0].name, "c01");
	ck_assert_str_eq(c.node[2].name, "c03");
	ck_assert_str_eq(c.node[0].features, "cpu");
	ck_assert_uint_eq(c.node[3].cpus, 32);
	ck_assert_uint_eq(c.node[3].gpus, 4); /* 2 a100 + 2 v100; mps is not a GPU */
	ck_assert_uint_eq(c.node[3].mem_mb, 128000);
	ck_assert_uint_eq(c.total_cpus, 128);
	ck_assert_uint_eq(c.total_gpus, 4);
	ck_assert_int_eq(c.nparts, 3);
	ck_assert_int_eq(c.default_part, 0);
	const struct sim_partition *p = &c.part[0];
	ck_assert_str_eq(p->name, "batch");
	ck_assert_int_eq(p->nnodes, 3);
	ck_assert_uint_eq(p->prio_job_factor, 10);
	ck_assert_uint_eq(p->prio_tier, 2);
	ck_assert_int_eq(p->max_time, 86400);
	ck_assert_int_eq(p->default_time, -1);
	ck_assert_str_eq(p->qos, "pq");
	ck_assert(p->up);
	p = &c.part[1];
	ck_assert_int_eq(p->nnodes, 2);
	ck_assert_uint_eq(p->node[0], 0); /* sorted: c01 (0) before g1 (3) */
	ck_assert_uint_eq(p->node[1], 3);
	ck_assert_int_eq(p->max_time, -1);
	ck_assert_int_eq(p->default_time, 1800);
	ck_assert(p->exclusive);
	p = &c.part[2];
	ck_assert_int_eq(p->nnodes, 4);
	ck_assert(!p->up);
	ck_assert_uint_eq(p->prio_job_factor, 5);
	ck_assert_uint_eq(p->prio_tier, 5);
	ck_assert_int_eq(c.nlic, 2);
	ck_assert_str_eq(c.lic[1].name, "ansys");
	ck_assert_uint_eq(c.lic[1].count, 2);
	/* Other keys are kept, with their line, for the core modules. */
	const struct sim_conf_key *k = sim_cluster_key(&c, "priorityweightage");
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->value, "1000");
	ck_assert_int_eq(k->lineno, 2);
	k = sim_cluster_key(&c, "SchedulerParameters");
	ck_assert_str_eq(k->value, "bf_interval=30,bf_window=1440");
	ck_assert_int_eq(sim_cluster_find_node(&c, "g1"), 3);
	ck_assert_int_eq(sim_cluster_find_node(&c, "nope"), -1);
	ck_assert_int_eq(sim_cluster_find_part(&c, "gpu"), 1);
	sim_cluster_free(&c);

	/* Without Default=YES the first partition is the default. */
	ck_assert_int_eq(conf(&c, "NodeName=n1\nPartitionName=a Nodes=n1\n"
				  "PartitionName=b Nodes=n1\n", &e), 0);
	ck_assert_int_eq(c.default_part, 0);
	ck_assert_uint_eq(c.node[0].cpus, 1);
	sim_cluster_free(&c);
}
END_TEST

START_TEST(slurm_conf_include)
{
	char dir[] = "/tmp/fwsimXXXXXX";
	char path[256], inc[256];
	FILE *f;
	struct sim_cluster c;
	struct fw_err e;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	snprintf(inc, sizeof(inc), "%s/nodes.conf", dir);
	f = fopen(inc, "w");
	fputs("NodeName=n[1-2] CPUs=4\nPriorityWeightFairshare=500\n", f);
	fclose(f);
	f = fopen(path, "w");
	fputs("Include nodes.conf\nPartitionName=p Nodes=n[1-2]\n", f);
	fclose(f);
	sim_cluster_init(&c);
	ck_assert_int_eq(sim_read_slurm_conf(&c, path, &e), 0);
	ck_assert_int_eq(sim_cluster_finish(&c, &e), 0);
	ck_assert_int_eq(c.nnodes, 2);
	ck_assert_uint_eq(c.total_cpus, 8);
	const struct sim_conf_key *k = sim_cluster_key(&c, "PriorityWeightFairshare");
	ck_assert_str_eq(k->file, inc);
	ck_assert_int_eq(k->lineno, 2);
	sim_cluster_free(&c);

	/* An error inside the included file names that file and line. */
	f = fopen(inc, "w");
	fputs("NodeName=n1 CPUs=4\nNodeName=n2 CPUs=four\n", f);
	fclose(f);
	sim_cluster_init(&c);
	ck_assert_int_eq(sim_read_slurm_conf(&c, path, &e), -1);
	check_err(&e, inc, 2, "CPUs", "four", "");
	sim_cluster_free(&c);
	/* A missing include names the including file and line. */
	f = fopen(path, "w");
	fputs("\nInclude missing.conf\n", f);
	fclose(f);
	sim_cluster_init(&c);
	ck_assert_int_eq(sim_read_slurm_conf(&c, path, &e), -1);
	check_err(&e, path, 2, "Include", "missing.conf", "cannot open");
	sim_cluster_free(&c);
	/* A file including itself is stopped. */
	f = fopen(path, "w");
	fputs("Include slurm.conf\n", f);
	fclose(f);
	sim_cluster_init(&c);
	ck_assert_int_eq(sim_read_slurm_conf(&c, path, &e), -1);
	ck_assert_msg(strstr(e.msg, "nested too deeply"), "%s", e.msg);
	sim_cluster_free(&c);
	sim_cluster_init(&c);
	ck_assert_int_eq(sim_read_slurm_conf(&c, "/nonexistent/slurm.conf", &e), -1);
	ck_assert_str_eq(e.file, "/nonexistent/slurm.conf");
	ck_assert_msg(strstr(e.msg, "cannot open"), "%s", e.msg);
	sim_cluster_free(&c);
	unlink(inc);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(slurm_conf_errors)
{
	static const struct bad_case cases[] = {
		{ "NodeName=n1 CPUs=x\n", 1, "CPUs", "x", "" },
		{ "NodeName=n1 CPUs=0\n", 1, "CPUs", "0", "at least one CPU" },
		{ "NodeName=n1 RealMemory=lots\n", 1, "RealMemory", "lots", "memory" },
		{ "NodeName=n1 Gres=gpu:x:y\n", 1, "Gres", "gpu:x:y", "GPU count" },
		{ "NodeName=n1 Gres=gpu:9999999\n", 1, "Gres", "gpu:9999999", "GPU count" },
		{ "NodeName=n1\nNodeName=n[0-1]\n", 2, "NodeName", "n1", "defined twice" },
		{ "NodeName=n[1-\n", 1, "NodeName", "n[1-", "" },
		{ "NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=forever\n", 2, "MaxTime", "forever", "duration" },
		{ "NodeName=n1\nPartitionName=p Nodes=n1 MaxTime=0\n", 2, "MaxTime", "0", "positive" },
		{ "NodeName=n1\nPartitionName=p Nodes=n1 Default=maybe\n", 2, "Default", "maybe", "yes or no" },
		{ "NodeName=n1\nPartitionName=p Nodes=n1 State=SLEEPY\n", 2, "State", "SLEEPY", "UP, DOWN" },
		{ "NodeName=n1\nPartitionName=p Nodes=n1 PriorityTier=-1\n", 2, "PriorityTier", "-1", "" },
		{ "NodeName=n1\nPartitionName=p Nodes=n1\nPartitionName=p Nodes=n1\n", 3, "PartitionName", "p", "defined twice" },
		{ "NodeName=n1\nPartitionName=p Nodes=n1,n2\n", 2, "Nodes", "n2", "no NodeName line defines" },
		{ "NodeName=n1\nPartitionName=p\n", 2, "PartitionName", "p", "no Nodes=" },
		{ "Licenses=a:x\n", 1, "Licenses", "a:x", "license count" },
		{ "Licenses=a,a\n", 1, "Licenses", "a,a", "listed twice" },
		{ "Licenses=:3\n", 1, "Licenses", ":3", "needs a name" },
		{ "NodeName=n1\nInclude\n", 2, "Include", "", "no file name" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_cluster c;
		struct fw_err e;

		ck_assert_msg(conf(&c, cases[i].text, &e) == -1, "case %zu accepted", i);
		check_err(&e, "slurm.conf", cases[i].line, cases[i].key,
			  cases[i].value, cases[i].msg);
		sim_cluster_free(&c);
	}
	struct sim_cluster c;
	struct fw_err e;
	ck_assert_int_eq(conf(&c, "PartitionName=p Nodes=ALL\n", &e), -1);
	ck_assert_msg(strstr(e.msg, "no nodes"), "%s", e.msg);
	ck_assert_str_eq(e.file, "slurm.conf");
	sim_cluster_free(&c);
	ck_assert_int_eq(conf(&c, "NodeName=n1\n", &e), -1);
	ck_assert_msg(strstr(e.msg, "no partition"), "%s", e.msg);
	ck_assert_str_eq(e.file, "slurm.conf");
	sim_cluster_free(&c);
	/* A token without '=' is the tokenizer's error, located. */
	ck_assert_int_eq(conf(&c, "NodeName=n1\nbogus\n", &e), -1);
	ck_assert_str_eq(e.file, "slurm.conf");
	ck_assert_int_eq(e.line, 2);
	sim_cluster_free(&c);
}
END_TEST

START_TEST(topology_islands)
{
	struct sim_cluster c;
	struct fw_err e;
	const char *topo = "# leaf switches\n"
			   "SwitchName=s0 Nodes=n[1-2]\n"
			   "SwitchName=s1 Nodes=n[3-4] LinkSpeed=100\n"
			   "SwitchName=top Switches=s[0-1]\n";

	ck_assert_int_eq(conf(&c, "NodeName=n[1-5]\nPartitionName=p Nodes=ALL\n", &e), 0);
	ck_assert_int_eq(sim_read_topology_mem(&c, "topology.conf", topo, strlen(topo), &e), 0);
	ck_assert_int_eq(c.nislands, 2);
	ck_assert_int_eq(c.node[0].island, 0);
	ck_assert_int_eq(c.node[1].island, 0);
	ck_assert_int_eq(c.node[2].island, 1);
	ck_assert_int_eq(c.node[3].island, 1);
	ck_assert_int_eq(c.node[4].island, -1);
	ck_assert_str_eq(c.island_name[1], "s1");
	/* Reading another file replaces the islands.  What Slurm only
	 * warns about is a warning: n1 stays under s2 (listed first), x9 is
	 * not a node. */
	const char *warn = "SwitchName=s2 Nodes=n[1-2]\n"
			   "SwitchName=s3 Nodes=n1,x9\n";
	ck_assert_int_eq(sim_read_topology_mem(&c, "topology.conf", warn, strlen(warn), &e), 0);
	ck_assert_int_eq(c.nislands, 2);
	ck_assert_str_eq(c.island_name[0], "s2");
	ck_assert_int_eq(c.node[0].island, 0);
	ck_assert_int_eq(c.node[1].island, 0);
	ck_assert_int_eq(c.node[2].island, -1);
	ck_assert_int_eq(c.topo_warn.multi, 1);
	check_err(&c.topo_warn.first_multi, "topology.conf", 2, "Nodes", "n1",
		  "also under leaf switch s2");
	ck_assert_int_eq(c.topo_warn.unknown, 1);
	check_err(&c.topo_warn.first_unknown, "topology.conf", 2, "Nodes", "x9",
		  "does not have");
	const char *bad = "SwitchName=s4 Nodes=n[\n";
	ck_assert_int_eq(sim_read_topology_mem(&c, "topology.conf", bad, strlen(bad), &e), -1);
	/* the hostlist's own reason survives (found by fuzzing: it was lost) */
	check_err(&e, "topology.conf", 1, "Nodes", "n[", "unbalanced brackets");
	sim_cluster_free(&c);
	ck_assert_int_eq(conf(&c, "NodeName=n[1-2\nPartitionName=p Nodes=ALL\n", &e), -1);
	check_err(&e, "slurm.conf", 1, "NodeName", "n[1-2", "unbalanced brackets");
	sim_cluster_free(&c);
	ck_assert_int_eq(conf(&c, "NodeName=n1\nPartitionName=p Nodes=n[1\n", &e), -1);
	check_err(&e, "slurm.conf", 2, "Nodes", "n[1", "unbalanced brackets");
	sim_cluster_free(&c);
}
END_TEST

/* ------------------------------------------------------- sacctmgr dump */

static const char dump_text[] =
	"# sacctmgr dump\n"
	"Cluster - 'rpi':Fairshare=1:QOS='normal'\n"
	"Parent - 'root'\n"
	"User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n"
	"Account - 'phys':Description='physics: dept':Organization='phys':Fairshare=60:Priority=10\n"
	"Account - 'bio':Description='bio':Fairshare=40\n"
	"Parent - 'phys'\n"
	"User - 'markov':DefaultAccount='phys':Fairshare=parent\n"
	"Account - 'phys-part':Fairshare=1\n"
	"Parent - 'phys-part'\n"
	"User - 'markov':DefaultAccount='phys':Priority=3\n"
	"User - 'lee':Fairshare=2\n"
	"QOS - 'high':Priority=100:UsageFactor=2.0\n"
	"QOS - 'normal':Priority=0\n";

START_TEST(sacctmgr_dump_tree)
{
	struct sim_assocs a;
	struct fw_err e;

	sim_assocs_init(&a);
	ck_assert_int_eq(sim_read_sacctmgr_dump_mem(&a, "dump.cfg", dump_text,
						    strlen(dump_text), &e), 0);
	ck_assert_str_eq(a.cluster, "rpi");
	ck_assert_int_eq(a.nacct, 3);
	ck_assert_str_eq(a.acct[0].name, "phys");
	ck_assert_str_eq(a.acct[0].parent, "root");
	ck_assert_uint_eq(a.acct[0].shares, 60);
	ck_assert_str_eq(a.acct[2].name, "phys-part");
	ck_assert_str_eq(a.acct[2].parent, "phys");
	ck_assert_int_eq(a.nuser, 4);
	int u = sim_assocs_find_user(&a, "phys", "markov");
	ck_assert_int_ge(u, 0);
	ck_assert_uint_eq(a.user[u].shares, SIM_SHARES_PARENT);
	ck_assert_str_eq(sim_assocs_default_account(&a, "markov"), "phys");
	ck_assert_ptr_null(sim_assocs_default_account(&a, "lee"));
	/* markov under phys-part has its own priority 3; lee inherits phys's 10
	   through phys-part (which has none); bio has none at all */
	ck_assert_uint_eq(sim_assocs_priority(&a, "phys-part", "markov"), 3);
	ck_assert_uint_eq(sim_assocs_priority(&a, "phys-part", "lee"), 10);
	ck_assert_uint_eq(sim_assocs_priority(&a, "phys", "markov"), 10);
	ck_assert_uint_eq(sim_assocs_priority(&a, "bio", "x"), 0);
	const struct sim_qos *q = sim_assocs_find_qos(&a, "HIGH");
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(q->priority, 100);
	ck_assert(q->usage_factor == 2.0);
	ck_assert(sim_assocs_find_qos(&a, "normal")->usage_factor == -1);
	sim_assocs_free(&a);
}
END_TEST

START_TEST(sacctmgr_dump_errors)
{
	static const struct bad_case cases[] = {
		{ "Account - 'a'\n", 1, "Account", "a", "no Parent" },
		{ "Parent - 'x'\n", 1, "Parent", "x", "not defined above" },
		{ "Parent - 'root'\nAccount - 'a':Fairshare=lots\n", 2, "Fairshare", "lots", "share count" },
		{ "Parent - 'root'\nAccount - 'a'\nAccount - 'A'\n", 3, "Account", "A", "defined twice" },
		{ "Parent - 'root'\nUser - 'u'\nUser - 'u'\n", 3, "User", "u", "defined twice" },
		{ "Parent - 'root'\nUser - 'u':Priority=-3\n", 2, "Priority", "-3", "" },
		{ "QOS - 'q':UsageFactor=-1\n", 1, "UsageFactor", "-1", ">= 0" },
		{ "QOS - 'q'\nQOS - 'q'\n", 2, "QOS", "q", "defined twice" },
		{ "Coordinator - 'x'\n", 1, "type", "Coordinator", "unknown line type" },
		{ "just words\n", 1, "line", "just words", "Type - 'name'" },
		{ "User - 'open\n", 1, "User", "'open", "malformed" },
		{ "Parent - 'root'\nUser - 'u':Fairshare\n", 2, "User", "'u':Fairshare", "malformed" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_assocs a;
		struct fw_err e;

		sim_assocs_init(&a);
		ck_assert_msg(sim_read_sacctmgr_dump_mem(&a, "dump.cfg", cases[i].text,
							 strlen(cases[i].text), &e) == -1,
			      "case %zu accepted", i);
		check_err(&e, "dump.cfg", cases[i].line, cases[i].key,
			  cases[i].value, cases[i].msg);
		sim_assocs_free(&a);
	}
}
END_TEST


/* ------------------------------------------------------------ reports */

/*
 * A tiny run computed by hand: 2 nodes x 4 CPUs.
 *   job 1: submit 0,  start 0,   end 100, 1 node, 4 CPUs: wait 0,   run 100
 *   job 2: submit 0,  start 100, end 105, 2 nodes, 8 CPUs: wait 100, run 5
 *   job 3: submit 50, start 50,  end 60,  1 node, 2 CPUs: wait 0,   run 10
 *   job 4: rejected
 */
static void tiny_result(struct sim_cluster *c, struct sim_result *r,
			struct sim_outjob *j)
{
	struct fw_err e;
	static const uint32_t n0[] = { 0 }, n01[] = { 0, 1 }, n1[] = { 1 };

	ck_assert_int_eq(conf(c, "NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=ALL\n", &e), 0);
	memset(r, 0, sizeof(*r));
	memset(j, 0, 4 * sizeof(*j));
	r->cluster = c;
	r->policy = "easy";
	r->job = j;
	r->n = 4;
	r->sim_begin = 0;
	r->sim_end = 105;
	j[0] = (struct sim_outjob){ .id = 1, .user = "ann", .account = "a",
		.state = SIM_JOB_DONE, .submit = 0, .eligible = 0, .start = 0,
		.end = 100, .nodes = 1, .cpus = 4, .node = n0, .priority = 7,
		.cols = { .age = 3, .fairshare = 4 } };
	j[1] = (struct sim_outjob){ .id = 2, .user = "bob", .account = "b,c",
		.state = SIM_JOB_DONE, .submit = 0, .start = 100, .end = 105,
		.nodes = 2, .cpus = 8, .node = n01, .backfilled = false,
		.bypass = 1 };
	j[2] = (struct sim_outjob){ .id = 3, .user = "ann", .account = "a",
		.state = SIM_JOB_DONE, .submit = 50, .eligible = 50, .start = 50,
		.end = 60, .nodes = 1, .cpus = 2, .node = n1, .backfilled = true };
	j[3] = (struct sim_outjob){ .id = 4, .state = SIM_JOB_REJECTED,
		.start = -1, .end = -1, .nodes = 3,
		.reason = "more nodes than the partition has" };
}

START_TEST(metrics_by_hand)
{
	struct sim_cluster c;
	struct sim_result r;
	struct sim_outjob j[4];
	struct sim_metrics m;

	tiny_result(&c, &r, j);
	sim_metrics_compute(&r, &m);
	ck_assert_uint_eq(m.jobs, 4);
	ck_assert_uint_eq(m.done, 3);
	ck_assert_uint_eq(m.rejected, 1);
	ck_assert_uint_eq(m.backfilled, 1);
	/* last end 105 - first submit 0 */
	ck_assert_int_eq(m.makespan, 105);
	/* node-seconds 1*100 + 2*5 + 1*10 = 120 over 2 nodes * 105 s */
	ck_assert_double_eq_tol(m.utilisation, 120.0 / 210.0, 1e-12);
	/* CPU-seconds 4*100 + 8*5 + 2*10 = 460 over 8 CPUs * 105 s */
	ck_assert_double_eq_tol(m.cpu_utilisation, 460.0 / 840.0, 1e-12);
	/* waits 0, 100, 0 */
	ck_assert_double_eq_tol(m.mean_wait, 100.0 / 3, 1e-12);
	ck_assert_double_eq_tol(m.median_wait, 0, 1e-12);
	ck_assert_int_eq(m.max_wait, 100);
	/* bounded slowdown, tau 10 s:
	 *   job 1: (0+100)/max(100,10) = 1
	 *   job 2: (100+5)/max(5,10)   = 10.5
	 *   job 3: (0+10)/max(10,10)   = 1      mean 12.5/3 */
	ck_assert_double_eq_tol(m.mean_bsld, 12.5 / 3, 1e-12);
	ck_assert_double_eq_tol(m.max_bsld, 10.5, 1e-12);
	/* a job shorter than tau that did not wait is not slowed down */
	ck_assert_double_eq_tol(sim_bsld(0, 2), 1, 1e-12);
	/* 5 s wait, 2 s run: (5+2)/10 = 0.7, bounded below by 1 */
	ck_assert_double_eq_tol(sim_bsld(5, 2), 1, 1e-12);
	/* 20 s wait, 2 s run: 22/10 */
	ck_assert_double_eq_tol(sim_bsld(20, 2), 2.2, 1e-12);
	sim_cluster_free(&c);
}
END_TEST

/* p95, the wait threshold and per-account/QOS/partition metrics. */
START_TEST(metrics_groups_by_hand)
{
	struct sim_cluster c;
	struct sim_result r;
	struct sim_outjob j[4];
	struct sim_metrics m;
	struct sim_group *g;
	size_t n;

	tiny_result(&c, &r, j);
	r.wait_threshold_set = true;
	r.wait_threshold = 50;
	sim_metrics_compute(&r, &m);
	/* waits sorted 0, 0, 100: nearest rank ceil(0.95 * 3) = 3 -> 100 */
	ck_assert_int_eq(m.p95_wait, 100);
	ck_assert_uint_eq(m.over_threshold, 1);   /* job 2 waited 100 > 50 */

	n = sim_groups_compute(&r, SIM_BY_ACCOUNT, &g);
	/* first appearance: a (jobs 1, 3), b,c (job 2), (none) (job 4) */
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(g[0].name, "a");
	ck_assert_uint_eq(g[0].m.jobs, 2);
	ck_assert_uint_eq(g[0].m.done, 2);
	ck_assert_double_eq_tol(g[0].m.mean_wait, 0, 1e-12);
	ck_assert_int_eq(g[0].m.p95_wait, 0);
	ck_assert_uint_eq(g[0].m.over_threshold, 0);
	/* node-seconds 100 + 10 over the run's 2 nodes x 105 s */
	ck_assert_double_eq_tol(g[0].m.utilisation, 110.0 / 210.0, 1e-12);
	ck_assert_str_eq(g[1].name, "b,c");
	ck_assert_int_eq(g[1].m.max_wait, 100);
	ck_assert_double_eq_tol(g[1].m.mean_bsld, 10.5, 1e-12);
	ck_assert_uint_eq(g[1].m.over_threshold, 1);
	ck_assert_double_eq_tol(g[1].m.utilisation, 10.0 / 210.0, 1e-12);
	ck_assert_str_eq(g[2].name, "(none)");
	ck_assert_uint_eq(g[2].m.rejected, 1);
	ck_assert_uint_eq(g[2].m.done, 0);
	free(g);
	/* no QOS anywhere: one group with everything */
	n = sim_groups_compute(&r, SIM_BY_QOS, &g);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(g[0].m.done, 3);
	ck_assert_double_eq_tol(g[0].m.mean_bsld, 12.5 / 3, 1e-12);
	free(g);
	sim_cluster_free(&c);
}
END_TEST

/* Nearest-rank p95 over 20 waits 1..20 s: ceil(0.95 * 20) = 19th -> 19. */
START_TEST(p95_nearest_rank)
{
	struct sim_result r;
	struct sim_outjob j[20];
	struct sim_metrics m;

	memset(&r, 0, sizeof(r));
	memset(j, 0, sizeof(j));
	for (int i = 0; i < 20; i++)
		j[i] = (struct sim_outjob){ .id = (uint32_t)i + 1,
			.state = SIM_JOB_DONE, .submit = 0, .start = 20 - i,
			.end = 100, .nodes = 1 };
	r.job = j;
	r.n = 20;
	sim_metrics_compute(&r, &m);
	ck_assert_int_eq(m.p95_wait, 19);
	ck_assert_int_eq(m.max_wait, 20);
	ck_assert_double_eq_tol(m.median_wait, 10.5, 1e-12);
}
END_TEST

START_TEST(median_of_even_count)
{
	struct sim_cluster c;
	struct sim_result r;
	struct sim_outjob j[4];
	struct sim_metrics m;

	tiny_result(&c, &r, j);
	j[3] = j[2];
	j[3].id = 5;
	j[3].submit = 0;
	j[3].start = 30; /* wait 30 */
	sim_metrics_compute(&r, &m);
	/* waits 0, 100, 0, 30 sorted 0 0 30 100: median (0+30)/2 */
	ck_assert_double_eq_tol(m.median_wait, 15, 1e-12);
	sim_cluster_free(&c);
}
END_TEST

START_TEST(hostlist_compression)
{
	struct sim_cluster c;
	struct fw_err e;
	struct fw_buf b = { 0 };
	uint32_t all[] = { 0, 1, 2, 3, 4, 5, 6 };
	uint32_t some[] = { 0, 2, 3 };

	ck_assert_int_eq(conf(&c, "NodeName=n[1-3],n5,gpu[01-02],login\n"
				  "PartitionName=p Nodes=ALL\n", &e), 0);
	sim_hostlist_compress(&c, all, 7, &b);
	ck_assert_str_eq(b.s, "n[1-3,5],gpu[01-02],login");
	b.len = 0;
	sim_hostlist_compress(&c, some, 3, &b);
	ck_assert_str_eq(b.s, "n[1,3,5]");
	b.len = 0;
	sim_hostlist_compress(&c, all + 4, 1, &b);
	ck_assert_str_eq(b.s, "gpu01");
	/* the compressed form expands back to the same names */
	char **names;
	int n = fw_hostlist_expand("n[1-3,5],gpu[01-02],login", &names, 100, &e);
	ck_assert_int_eq(n, 7);
	for (int i = 0; i < n; i++)
		ck_assert_str_eq(names[i], c.node[i].name);
	fw_hostlist_free(names, n);
	fw_buf_free(&b);
	sim_cluster_free(&c);
}
END_TEST

START_TEST(jobs_csv_and_summary_json)
{
	struct sim_cluster c;
	struct sim_result r;
	struct sim_outjob j[4];
	struct sim_metrics m;
	struct fw_buf b = { 0 };

	tiny_result(&c, &r, j);
	sim_write_jobs_csv(&r, &b);
	ck_assert_msg(strstr(b.s, "\n1,ann,a,,,done,0,0,0,100,0,100,1,n1,4,7,3,0,4,0,0,0,0,0,0,0,0,0,\n"),
		      "%s", b.s);
	/* the account with a comma is quoted; two nodes as a hostlist */
	ck_assert_msg(strstr(b.s, "\n2,bob,\"b,c\",,,done,0,0,100,105,100,5,2,n[1-2],8,"), "%s", b.s);
	ck_assert_msg(strstr(b.s, ",0,1,0,\n3,"), "%s", b.s); /* job 2: bypass 1 */
	ck_assert_msg(strstr(b.s, "\n4,,,,,rejected,0,0,,,,,3,,0,"), "%s", b.s);
	ck_assert_msg(strstr(b.s, "more nodes than the partition has\n"), "%s", b.s);
	b.len = 0;
	sim_metrics_compute(&r, &m);
	sim_write_summary_json(&r, &m, &b);
	ck_assert_msg(strstr(b.s, "\"jobs\": 4,"), "%s", b.s);
	ck_assert_msg(strstr(b.s, "\"utilisation\": 0.5714285714,"), "%s", b.s);
	ck_assert_msg(strstr(b.s, "\"makespan_s\": 105,"), "%s", b.s);
	ck_assert_msg(strstr(b.s, "\"wait_max_s\": 100,"), "%s", b.s);
	ck_assert_msg(strstr(b.s, "\"bounded_slowdown_mean\": 4.166666667,"), "%s", b.s);
	ck_assert_msg(strstr(b.s, "\"jobs_backfilled\": 1,"), "%s", b.s);
	ck_assert_msg(strstr(b.s, "\"policy\": \"easy\","), "%s", b.s);
	fw_buf_free(&b);
	sim_cluster_free(&c);
}
END_TEST

START_TEST(charts_are_svg)
{
	struct sim_cluster c;
	struct sim_result r;
	struct sim_outjob j[4];
	struct fw_buf b = { 0 };

	tiny_result(&c, &r, j);
	sim_svg_gantt(&r, &b);
	ck_assert_msg(!strncmp(b.s, "<svg ", 5) && strstr(b.s, "</svg>\n"), "%s", b.s);
	/* one block per job and node run, job 2 spans both node rows */
	ck_assert_msg(strstr(b.s, "<title>job 2  user bob  account b,c"), "%s", b.s);
	ck_assert_msg(strstr(b.s, ">n2</text>"), "%s", b.s);
	b.len = 0;
	sim_svg_utilisation(&r, &b);
	/* mean utilisation over the chart's span (0..105) is 120/210 */
	ck_assert_msg(strstr(b.s, "mean 57.1%"), "%s", b.s);
	b.len = 0;
	sim_svg_waits(&r, &b);
	/* classes 1 node (jobs 1 and 3) and 2 nodes (job 2) */
	ck_assert_msg(strstr(b.s, "1 node(s): 2 jobs"), "%s", b.s);
	ck_assert_msg(strstr(b.s, "2 node(s): 1 jobs"), "%s", b.s);
	b.len = 0;
	/* the compare chart: one box per configuration, labels escaped */
	int64_t wa[] = { 0, 60, 600 }, wb[] = { 5 };
	struct sim_wait_box bx[] = { { "easy", NULL, wa, 3 },
				     { "a<b", NULL, wb, 1 },
				     { "empty", NULL, NULL, 0 } };
	sim_svg_wait_boxes(bx, 3, "Wait time by configuration", "configuration", &b);
	ck_assert_msg(strstr(b.s, "<title>easy: 3 jobs, median wait 00:01:00</title>"), "%s", b.s);
	ck_assert_msg(strstr(b.s, ">a&lt;b</text>"), "%s", b.s);
	ck_assert_msg(!strstr(b.s, "empty"), "%s", b.s);
	fw_buf_free(&b);
	sim_cluster_free(&c);
}
END_TEST

/* A reader must survive arbitrary bytes (a poor man's fuzz run). */
START_TEST(readers_survive_noise)
{
	unsigned seed = 12345;
	char buf[512];

	for (int round = 0; round < 300; round++) {
		size_t n = (size_t)(rand_r(&seed) % (sizeof(buf) - 1));
		static const char alphabet[] = "0123456789 -:|,;\n\"'=_TZabcNodeSw[]";
		for (size_t i = 0; i < n; i++)
			buf[i] = (rand_r(&seed) % 8) ? alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)]
						     : (char)(rand_r(&seed) % 256);
		buf[n] = '\0';
		struct sim_trace t;
		struct fw_err e;
		swf(&t, buf, &skip_opts, &e);
		sim_trace_free(&t);
		csv(&t, buf, &skip_opts, &e);
		sim_trace_free(&t);
		sacct(&t, buf, &skip_opts, &e);
		sim_trace_free(&t);
		struct sim_cluster c;
		conf(&c, buf, &e);
		sim_read_topology_mem(&c, "t", buf, n, &e);
		sim_cluster_free(&c);
		struct sim_assocs a;
		sim_assocs_init(&a);
		sim_read_sacctmgr_dump_mem(&a, "d", buf, n, &e);
		sim_assocs_free(&a);
	}
}
END_TEST

static Suite *io_suite(void)
{
	Suite *s = suite_create("sim_io");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, time_stamps);
	tcase_add_test(tc, field_splitting);
	tcase_add_test(tc, swf_mapping);
	tcase_add_test(tc, swf_runtime_estimate);
	tcase_add_test(tc, swf_procs_field);
	tcase_add_test(tc, swf_errors);
	tcase_add_test(tc, swf_skip_bad_lines);
	tcase_add_test(tc, csv_mapping);
	tcase_add_test(tc, csv_errors);
	tcase_add_test(tc, sacct_mapping);
	tcase_add_test(tc, sacct_errors);
	tcase_add_test(tc, slurm_conf_cluster);
	tcase_add_test(tc, slurm_conf_include);
	tcase_add_test(tc, slurm_conf_errors);
	tcase_add_test(tc, topology_islands);
	tcase_add_test(tc, sacctmgr_dump_tree);
	tcase_add_test(tc, sacctmgr_dump_errors);
	tcase_add_test(tc, readers_survive_noise);
	tcase_add_test(tc, metrics_by_hand);
	tcase_add_test(tc, metrics_groups_by_hand);
	tcase_add_test(tc, p95_nearest_rank);
	tcase_add_test(tc, median_of_even_count);
	tcase_add_test(tc, hostlist_compression);
	tcase_add_test(tc, jobs_csv_and_summary_json);
	tcase_add_test(tc, charts_are_svg);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(io_suite());

	return fw_test_run(sr);
}
