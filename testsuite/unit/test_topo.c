/*
 * Unit tests of fw_topo: topology.conf as Slurm's topology/tree reads it
 * (topology.conf(5)), and the islands (leaf switches) sched/fairway and
 * fairway-sim take from it.  Every expectation is worked out by hand from
 * the file in the test.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fw_topo.h"
#include "test_run.h"

static struct fw_topo *parse(const char *text, struct fw_err *e)
{
	return fw_topo_parse("topology.conf", text, strlen(text), e);
}

static void check_err(const struct fw_err *e, int line, const char *key,
		      const char *value, const char *msg_part)
{
	ck_assert_str_eq(e->file, "topology.conf");
	ck_assert_int_eq(e->line, line);
	ck_assert_str_eq(e->key, key);
	ck_assert_str_eq(e->value, value);
	ck_assert_msg(strstr(e->msg, msg_part), "message '%s' lacks '%s'",
		      e->msg, msg_part);
}

/* A rejected file: NULL, and the error located as expected. */
static void rejected(const char *text, int line, const char *key,
		     const char *value, const char *msg_part)
{
	struct fw_err e;
	struct fw_topo *t = parse(text, &e);

	ck_assert_msg(t == NULL, "accepted: %s", text);
	check_err(&e, line, key, value, msg_part);
}

START_TEST(two_levels)
{
	struct fw_err e;
	const char *text =
		"# two leaf switches under one top switch\n"
		"SwitchName=s0 Nodes=c[1-2],c4\n"
		"switchname=s1 nodes=c3,c[5-6] LinkSpeed=100   # keys in any case\n"
		"SwitchName=top Switches=s[0-1]\n";
	struct fw_topo *t = parse(text, &e);
	const char *names[] = { "c1", "c2", "c3", "c4", "c5", "c6", NULL, "c7" };
	int32_t isl[8];
	struct fw_topo_warn w;

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->nsw, 3);
	ck_assert_uint_eq(t->nislands, 2);
	ck_assert_str_eq(fw_topo_island_name(t, 0), "s0");
	ck_assert_str_eq(fw_topo_island_name(t, 1), "s1");
	ck_assert_ptr_null(fw_topo_island_name(t, 2));
	ck_assert_int_eq(t->sw[0].line, 2);
	ck_assert_int_eq(t->sw[2].line, 4);
	ck_assert_int_eq(t->sw[0].level, 0);
	ck_assert_int_eq(t->sw[1].level, 0);
	ck_assert_int_eq(t->sw[2].level, 1);
	ck_assert_int_eq(t->levels, 1);
	ck_assert_uint_eq(t->sw[0].link_speed, 1); /* Slurm's default */
	ck_assert_uint_eq(t->sw[1].link_speed, 100);
	ck_assert_uint_eq(t->sw[0].nnodes, 3);
	ck_assert_str_eq(t->sw[0].nodes[2], "c4");
	ck_assert_uint_eq(t->sw[2].nchild, 2);
	ck_assert_uint_eq(t->sw[2].child[0], 0);
	ck_assert_uint_eq(t->sw[2].child[1], 1);
	ck_assert_int_eq(t->sw[2].island, -1);

	ck_assert_uint_eq(fw_topo_islands(t, names, 8, isl, &w), 2);
	ck_assert_int_eq(isl[0], 0);
	ck_assert_int_eq(isl[1], 0);
	ck_assert_int_eq(isl[2], 1);
	ck_assert_int_eq(isl[3], 0);
	ck_assert_int_eq(isl[4], 1);
	ck_assert_int_eq(isl[5], 1);
	ck_assert_int_eq(isl[6], -1);  /* an empty slot of the node table */
	ck_assert_int_eq(isl[7], -1);  /* c7: under no switch */
	ck_assert_uint_eq(w.unknown, 0);
	ck_assert_uint_eq(w.multi, 0);
	ck_assert_uint_eq(w.outside, 1);
	fw_topo_free(t);
}
END_TEST

START_TEST(three_levels_forward_references)
{
	struct fw_err e;
	/* Parents before children; leaves numbered in the order of their
	 * lines (leaf3 first). */
	const char *text =
		"SwitchName=core Switches=spine[1-2]\n"
		"SwitchName=spine1 Switches=leaf1\n"
		"SwitchName=spine2 Switches=leaf[2-3]\n"
		"SwitchName=leaf3 Nodes=n[5-6]\n"
		"SwitchName=leaf1 Nodes=n[1-2]\n"
		"SwitchName=leaf2 Nodes=n[3-4]\n";
	struct fw_topo *t = parse(text, &e);
	const char *names[] = { "n1", "n2", "n3", "n4", "n5", "n6" };
	int32_t isl[6];

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->nislands, 3);
	ck_assert_str_eq(fw_topo_island_name(t, 0), "leaf3");
	ck_assert_str_eq(fw_topo_island_name(t, 1), "leaf1");
	ck_assert_str_eq(fw_topo_island_name(t, 2), "leaf2");
	ck_assert_int_eq(t->sw[0].level, 2);
	ck_assert_int_eq(t->sw[1].level, 1);
	ck_assert_int_eq(t->sw[2].level, 1);
	ck_assert_int_eq(t->sw[3].level, 0);
	ck_assert_int_eq(t->levels, 2);
	ck_assert_uint_eq(fw_topo_islands(t, names, 6, isl, NULL), 3);
	ck_assert_int_eq(isl[0], 1);
	ck_assert_int_eq(isl[1], 1);
	ck_assert_int_eq(isl[2], 2);
	ck_assert_int_eq(isl[3], 2);
	ck_assert_int_eq(isl[4], 0);
	ck_assert_int_eq(isl[5], 0);
	fw_topo_free(t);

	/* Uneven depth: top has a leaf (level 0) and mid (level 1) below it:
	 * its level is the higher plus one, 2. */
	t = parse("SwitchName=top Switches=a,mid\n"
		  "SwitchName=mid Switches=b\n"
		  "SwitchName=a Nodes=n1\n"
		  "SwitchName=b Nodes=n2\n", &e);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->sw[0].level, 2);
	ck_assert_int_eq(t->sw[1].level, 1);
	ck_assert_uint_eq(t->nislands, 2);
	fw_topo_free(t);
}
END_TEST

START_TEST(warnings_as_slurm_gives_them)
{
	struct fw_err e;
	const char *text =
		"SwitchName=s0 Nodes=n[1-2]\n"
		"SwitchName=s1 Nodes=n[2-3],ghost[1-2]\n";
	struct fw_topo *t = parse(text, &e);
	const char *names[] = { "n1", "n2", "n3", "n4" };
	int32_t isl[4];
	struct fw_topo_warn w;

	ck_assert_ptr_nonnull(t);
	/* n2 stays on s0 (listed first); ghost1/2 are not nodes; n4 is
	 * under no switch; both islands hold nodes. */
	ck_assert_uint_eq(fw_topo_islands(t, names, 4, isl, &w), 2);
	ck_assert_int_eq(isl[0], 0);
	ck_assert_int_eq(isl[1], 0);
	ck_assert_int_eq(isl[2], 1);
	ck_assert_int_eq(isl[3], -1);
	ck_assert_uint_eq(w.unknown, 2);
	check_err(&w.first_unknown, 2, "Nodes", "ghost1", "2 such names");
	ck_assert_msg(strstr(w.first_unknown.msg, "switch s1"), "%s",
		      w.first_unknown.msg);
	ck_assert_uint_eq(w.multi, 1);
	check_err(&w.first_multi, 2, "Nodes", "n2", "leaf switch s0");
	ck_assert_uint_eq(w.outside, 1);

	/* Node names compare case-sensitively, as in Slurm. */
	const char *upper[] = { "N1", "n2", "n3", "n4" };
	ck_assert_uint_eq(fw_topo_islands(t, upper, 4, isl, &w), 2);
	ck_assert_int_eq(isl[0], -1);
	ck_assert_uint_eq(w.unknown, 3);
	check_err(&w.first_unknown, 1, "Nodes", "n1", "3 such names");
	fw_topo_free(t);

	/* Only unknown names: no island holds a node. */
	t = parse("SwitchName=s0 Nodes=x[1-3]\n", &e);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(fw_topo_islands(t, names, 4, isl, &w), 0);
	ck_assert_uint_eq(w.outside, 4);
	fw_topo_free(t);
}
END_TEST

START_TEST(empty_and_absent)
{
	struct fw_err e;
	struct fw_topo *t = parse("# nothing but a comment\n\n", &e);
	const char *names[] = { "n1", "n2" };
	int32_t isl[2] = { 7, 7 };
	struct fw_topo_warn w;

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->nsw, 0);
	ck_assert_uint_eq(fw_topo_islands(t, names, 2, isl, &w), 0);
	ck_assert_int_eq(isl[0], -1);
	ck_assert_int_eq(isl[1], -1);
	ck_assert_uint_eq(w.outside, 2);
	fw_topo_free(t);
	/* no topology at all */
	isl[0] = isl[1] = 7;
	ck_assert_uint_eq(fw_topo_islands(NULL, names, 2, isl, NULL), 0);
	ck_assert_int_eq(isl[0], -1);
	ck_assert_int_eq(isl[1], -1);
}
END_TEST

START_TEST(syntax_comments_continuations)
{
	struct fw_err e;
	struct fw_topo *t = parse("SwitchName=s0 \\\n"
				  "   Nodes=n1   # the first rack\n"
				  "SwitchName=\"s1\" Nodes=\"n[2-3]\"\n", &e);

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->nsw, 2);
	ck_assert_int_eq(t->sw[0].line, 1);
	ck_assert_int_eq(t->sw[1].line, 3);
	ck_assert_str_eq(t->sw[1].name, "s1");
	ck_assert_uint_eq(t->sw[1].nnodes, 2);
	ck_assert_str_eq(t->sw[1].nodes_expr, "n[2-3]");
	fw_topo_free(t);
}
END_TEST

START_TEST(errors_name_file_line_key_value)
{
	char longname[80], line[120];

	rejected("SwitchName=s0 Nodes=n1 Switches=s1\n", 1, "Switches", "s1",
		 "both Nodes= and Switches=");
	rejected("SwitchName=s0\n", 1, "SwitchName", "s0",
		 "neither Nodes= nor Switches=");
	rejected("\nSwitchName=s0 Nodes=n1\nSwitchName=s0 Nodes=n2\n", 3,
		 "SwitchName", "s0", "already defined on line 2");
	rejected("SwitchName=top Switches=s[0-1]\nSwitchName=s0 Nodes=n1\n", 1,
		 "Switches", "s1", "no SwitchName line defines child s1");
	rejected("SwitchName=s0 Switches=s0\n", 1, "Switches", "s0",
		 "lists itself");
	rejected("SwitchName=a Switches=b\nSwitchName=b Switches=a\n"
		 "SwitchName=c Nodes=n1\n", 1, "Switches", "b", "cycle");
	/* above a cycle, not on it: still no tree */
	rejected("SwitchName=c Nodes=n1\nSwitchName=top Switches=a,c\n"
		 "SwitchName=a Switches=b\nSwitchName=b Switches=a\n", 2,
		 "Switches", "a,c", "cycle");
	rejected("SwitchName=s0 Nodes=n[1-\n", 1, "Nodes", "n[1-",
		 "hostlist");
	rejected("SwitchName=s0 Nodes=n[1-2000000]\n", 1, "Nodes",
		 "n[1-2000000]", "too");
	rejected("SwitchName=s0 Nodes=\n", 1, "Nodes", "", "names no node");
	rejected("SwitchName=s0 Switches=,\n", 1, "Switches", ",",
		 "names no switch");
	rejected("SwitchName=s0 Nodes=n1 LinkSpeed=fast\n", 1, "LinkSpeed",
		 "fast", "");
	rejected("SwitchName=s0 Nodes=n1 Speed=10\n", 1, "Speed", "10",
		 "unknown key");
	rejected("SwitchName=s0 Nodes=n1 SwitchName=s1\n", 1, "SwitchName",
		 "s1", "second SwitchName");
	rejected("# fine\nNodes=n1\n", 2, "Nodes", "n1",
		 "not a topology/tree line");
	rejected("BlockName=b1 Nodes=n[1-4]\n", 1, "BlockName", "b1",
		 "not a topology/tree line");
	rejected("SwitchName=s0 Nodes=n1\n  include /etc/slurm/more.conf\n", 2,
		 "Include", "/etc/slurm/more.conf", "does not follow Include");
	rejected("SwitchName= Nodes=n1\n", 1, "SwitchName", "", "no name");
	/* the tokenizer's own error, located */
	rejected("SwitchName=s0 Nodes=n1\nSwitchName=s1 n2\n", 2, "n2", "",
		 "without '='");

	/* Slurm takes names of up to HOST_NAME_MAX (64) characters. */
	memset(longname, 'x', 65);
	longname[65] = '\0';
	snprintf(line, sizeof(line), "SwitchName=%s Nodes=n1\n", longname);
	rejected(line, 1, "SwitchName", longname, "longer than 64");
	longname[64] = '\0';
	snprintf(line, sizeof(line), "SwitchName=%s Nodes=n1\n", longname);
	struct fw_err e;
	struct fw_topo *t = parse(line, &e);
	ck_assert_ptr_nonnull(t);
	fw_topo_free(t);
}
END_TEST

START_TEST(reads_files)
{
	char path[] = "/tmp/fw_topo_XXXXXX";
	int fd = mkstemp(path);
	const char *text = "SwitchName=s0 Nodes=n1\nSwitchName=s1 Nodes=n2 X=1\n";
	struct fw_err e;
	struct fw_topo *t;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	t = fw_topo_read(path, &e);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(e.file, path);
	ck_assert_int_eq(e.line, 2);
	ck_assert_str_eq(e.key, "X");
	unlink(path);
	t = fw_topo_read(path, &e);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(e.file, path);
	ck_assert_msg(strstr(e.msg, "cannot open"), "%s", e.msg);
}
END_TEST

static Suite *topo_suite(void)
{
	Suite *s = suite_create("topo");
	TCase *tc = tcase_create("topology.conf");

	tcase_add_test(tc, two_levels);
	tcase_add_test(tc, three_levels_forward_references);
	tcase_add_test(tc, warnings_as_slurm_gives_them);
	tcase_add_test(tc, empty_and_absent);
	tcase_add_test(tc, syntax_comments_continuations);
	tcase_add_test(tc, errors_name_file_line_key_value);
	tcase_add_test(tc, reads_files);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(topo_suite());

	return fw_test_run(sr);
}
