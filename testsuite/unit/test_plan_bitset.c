/* Unit tests of fw_bitset: the node sets every planner step works on. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdlib.h>

#include "test_plan_util.h"

START_TEST(set_count_iterate)
{
	struct fw_bitset *b = fw_bitset_new(130);	/* 3 words, 2 bits in the last */
	char buf[64];
	int64_t i, sum = 0;

	ck_assert_uint_eq(b->nwords, 3);
	fw_bitset_set(b, 0);
	fw_bitset_set(b, 63);
	fw_bitset_set(b, 64);
	fw_bitset_set(b, 129);
	ck_assert_uint_eq(fw_bitset_count(b), 4);
	ck_assert(fw_bitset_test(b, 63));
	ck_assert(!fw_bitset_test(b, 62));
	ck_assert_int_eq(fw_bitset_first_set(b), 0);
	ck_assert_int_eq(fw_bitset_next_set(b, 1), 63);
	ck_assert_int_eq(fw_bitset_next_set(b, 65), 129);
	ck_assert_int_eq(fw_bitset_next_set(b, 130), -1);
	FW_BITSET_FOREACH(b, i)
		sum += i;
	/* 0 + 63 + 64 + 129 */
	ck_assert_int_eq(sum, 256);
	ck_assert_str_eq(fw_bitset_fmt(b, buf, sizeof(buf)), "0,63-64,129");
	/* bits [1, 64) hold only 63; [64, 130) hold 64 and 129 */
	ck_assert_uint_eq(fw_bitset_count_range(b, 1, 64), 1);
	ck_assert_uint_eq(fw_bitset_count_range(b, 64, 130), 2);
	ck_assert_uint_eq(fw_bitset_count_range(b, 0, 200), 4);
	ck_assert_int_eq(fw_bitset_nth_set(b, 2), 64);
	ck_assert_int_eq(fw_bitset_nth_set(b, 4), -1);
	fw_bitset_clear(b, 64);
	ck_assert_uint_eq(fw_bitset_count(b), 3);
	fw_bitset_free(b);
}
END_TEST

START_TEST(set_all_keeps_tail_clear)
{
	struct fw_bitset *b = fw_bitset_new(70);
	uint32_t lo, hi;

	fw_bitset_set_all(b);
	ck_assert_uint_eq(fw_bitset_count(b), 70);
	fw_bitset_not(b);
	ck_assert_uint_eq(fw_bitset_count(b), 0);
	ck_assert(!fw_bitset_any(b));
	fw_bitset_word_range(b, &lo, &hi);
	ck_assert_uint_eq(lo, 0);
	ck_assert_uint_eq(hi, 0);
	fw_bitset_set_range(b, 60, 70);
	ck_assert_uint_eq(fw_bitset_count(b), 10);
	fw_bitset_word_range(b, &lo, &hi);
	ck_assert_uint_eq(lo, 0);
	ck_assert_uint_eq(hi, 2);
	fw_bitset_clear_all(b);
	fw_bitset_set(b, 69);
	fw_bitset_word_range(b, &lo, &hi);
	ck_assert_uint_eq(lo, 1);
	ck_assert_uint_eq(hi, 2);
	fw_bitset_free(b);
}
END_TEST

START_TEST(binary_ops)
{
	struct fw_bitset *a = fw_bitset_new(200), *b = fw_bitset_new(200);
	struct fw_bitset *c;
	char buf[64];

	ck_assert_int_eq(fw_bitset_parse(a, "0-9,100-109"), 0);
	ck_assert_int_eq(fw_bitset_parse(b, "5-14,105"), 0);
	/* a&b = 5-9,105 : 6 bits */
	ck_assert_uint_eq(fw_bitset_count_and(a, b), 6);
	ck_assert(fw_bitset_intersects(a, b));
	c = fw_bitset_dup(a);
	fw_bitset_and(c, b);
	ck_assert_str_eq(fw_bitset_fmt(c, buf, sizeof(buf)), "5-9,105");
	ck_assert(fw_bitset_is_subset(c, a));
	ck_assert(!fw_bitset_is_subset(a, c));
	fw_bitset_copy(c, a);
	fw_bitset_andnot(c, b);
	ck_assert_str_eq(fw_bitset_fmt(c, buf, sizeof(buf)), "0-4,100-104,106-109");
	fw_bitset_or(c, b);
	ck_assert_str_eq(fw_bitset_fmt(c, buf, sizeof(buf)), "0-14,100-109");
	ck_assert(!fw_bitset_equal(c, a));
	fw_bitset_copy(c, a);
	ck_assert(fw_bitset_equal(c, a));
	fw_bitset_free(a);
	fw_bitset_free(b);
	fw_bitset_free(c);
}
END_TEST

START_TEST(keep_lowest)
{
	struct fw_bitset *b = fw_bitset_new(300);
	char buf[64];

	ck_assert_int_eq(fw_bitset_parse(b, "3,10-12,64,65,200-210"), 0);
	/* lowest 5 of 3,10,11,12,64,65,... = 3,10,11,12,64 */
	ck_assert_uint_eq(fw_bitset_keep_lowest(b, 5), 5);
	ck_assert_str_eq(fw_bitset_fmt(b, buf, sizeof(buf)), "3,10-12,64");
	/* asking for more than there is keeps everything */
	ck_assert_uint_eq(fw_bitset_keep_lowest(b, 50), 5);
	ck_assert_uint_eq(fw_bitset_keep_lowest(b, 0), 0);
	ck_assert(!fw_bitset_any(b));
	fw_bitset_free(b);
}
END_TEST

START_TEST(parse_rejects_garbage)
{
	struct fw_bitset *b = fw_bitset_new(10);

	ck_assert_int_eq(fw_bitset_parse(b, ""), 0);
	ck_assert_int_eq(fw_bitset_parse(b, "10"), -1);	/* out of range */
	ck_assert_int_eq(fw_bitset_parse(b, "3-1"), -1);
	ck_assert_int_eq(fw_bitset_parse(b, "1,,2"), -1);
	ck_assert_int_eq(fw_bitset_parse(b, "x"), -1);
	ck_assert_int_eq(fw_bitset_parse(b, "2-"), -1);
	fw_bitset_free(b);
}
END_TEST

START_TEST(fmt_truncates)
{
	struct fw_bitset *b = fw_bitset_new(100);
	char buf[8];

	for (uint32_t i = 0; i < 100; i += 2)
		fw_bitset_set(b, i);
	/* "0,2,4,6,..." does not fit in 8 bytes: ends with "..." */
	ck_assert_str_eq(fw_bitset_fmt(b, buf, sizeof(buf)), "0,2,...");
	fw_bitset_free(b);
}
END_TEST

Suite *plan_bitset_suite(void)
{
	Suite *s = suite_create("plan_bitset");
	TCase *tc = tcase_create("bitset");

	tcase_add_test(tc, set_count_iterate);
	tcase_add_test(tc, set_all_keeps_tail_clear);
	tcase_add_test(tc, binary_ops);
	tcase_add_test(tc, keep_lowest);
	tcase_add_test(tc, parse_rejects_garbage);
	tcase_add_test(tc, fmt_truncates);
	suite_add_tcase(s, tc);
	return s;
}
