/*
 * fw_boost.c - parsing and evaluation of When= calendar windows.
 * Syntax in fw_boost.h and fairway.conf(5).
 */
#define _POSIX_C_SOURCE 200809L
#include "fw_boost.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MIN_PER_DAY 1440
#define MIN_PER_WEEK (7 * MIN_PER_DAY)

static int win_err(struct fw_err *err, const char *win, const char *msg)
{
	if (err)
		snprintf(err->msg, sizeof(err->msg), "window '%s': %s", win, msg);
	return -1;
}

/* "HH:MM" with HH 0..24 (24:00 only as an end), MM 0..59 -> minute of day. */
static int parse_hhmm(const char *s, const char **end, int *out)
{
	int h = 0, m = 0, nd = 0;

	while (isdigit((unsigned char)*s) && nd < 2) {
		h = h * 10 + (*s++ - '0');
		nd++;
	}
	if (!nd || *s != ':')
		return -1;
	s++;
	if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
		return -1;
	m = (s[0] - '0') * 10 + (s[1] - '0');
	s += 2;
	if (m > 59 || h > 24 || (h == 24 && m != 0))
		return -1;
	*end = s;
	*out = h * 60 + m;
	return 0;
}

static int parse_day_name(const char *s, const char **end)
{
	static const char *const names[7] = { "monday", "tuesday", "wednesday",
		"thursday", "friday", "saturday", "sunday" };
	size_t n = 0;

	while (isalpha((unsigned char)s[n]))
		n++;
	if (n < 3)
		return -1;
	for (int d = 0; d < 7; d++) {
		/* three-letter abbreviation or the full name */
		if ((n == 3 || n == strlen(names[d])) &&
		    !strncasecmp(s, names[d], n)) {
			*end = s + n;
			return d;
		}
	}
	return -1;
}

static int parse_uint(const char *s, const char **end, int max_digits, int *out)
{
	int v = 0, nd = 0;

	while (isdigit((unsigned char)*s)) {
		if (++nd > max_digits)
			return -1;
		v = v * 10 + (*s++ - '0');
	}
	if (!nd)
		return -1;
	*end = s;
	*out = v;
	return 0;
}

static int parse_daily(const char *body, const char *win, struct fw_window *w,
		       struct fw_err *err)
{
	const char *p;
	int a, b;

	if (parse_hhmm(body, &p, &a) || *p != '-' ||
	    parse_hhmm(p + 1, &p, &b) || *p)
		return win_err(err, win, "expected daily:HH:MM-HH:MM");
	if (a == b || (a == MIN_PER_DAY && b == 0))
		return win_err(err, win, "empty daily window (start equals end)");
	if (a == MIN_PER_DAY)
		return win_err(err, win, "a daily window cannot start at 24:00");
	w->kind = FW_WIN_DAILY;
	w->from = a;
	w->to = b;
	return 0;
}

/* DAY or DAY@HH:MM; whole-day forms give the day's start or next day's start. */
static int parse_week_point(const char *s, const char **end, bool is_end,
			    bool *timed, int *out)
{
	int d = parse_day_name(s, &s), t;

	if (d < 0)
		return -1;
	if (*s == '@') {
		if (parse_hhmm(s + 1, &s, &t))
			return -1;
		*timed = true;
		*out = d * MIN_PER_DAY + t;
	} else {
		*timed = false;
		*out = (d + (is_end ? 1 : 0)) * MIN_PER_DAY;
	}
	*end = s;
	return 0;
}

static int parse_weekly(const char *body, const char *win, struct fw_window *w,
			struct fw_err *err)
{
	const char *p;
	bool ta, tb = false;
	int a, b;

	if (parse_week_point(body, &p, false, &ta, &a))
		return win_err(err, win, "expected weekly:DAY[-DAY] or weekly:DAY@HH:MM-DAY@HH:MM");
	if (*p == '\0' && !ta) {
		b = a + MIN_PER_DAY;    /* one whole day */
	} else {
		if (*p != '-' || parse_week_point(p + 1, &p, true, &tb, &b) || *p)
			return win_err(err, win, "expected weekly:DAY[-DAY] or weekly:DAY@HH:MM-DAY@HH:MM");
		if (ta != tb)
			return win_err(err, win, "give a time on both days or on neither");
	}
	a %= MIN_PER_WEEK;
	b %= MIN_PER_WEEK;
	if (ta && a == b)
		return win_err(err, win, "empty weekly window (start equals end)");
	w->kind = FW_WIN_WEEKLY;
	w->from = a;
	w->to = b; /* whole days Mon-Sun: a == b == 0, i.e. the whole week */
	return 0;
}

static int parse_monthly(const char *body, const char *win, struct fw_window *w,
			 struct fw_err *err)
{
	const char *p;
	int a, b;

	if (parse_uint(body, &p, 2, &a))
		return win_err(err, win, "expected monthly:D or monthly:D-D (days 1..31)");
	b = a;
	if (*p == '-' && parse_uint(p + 1, &p, 2, &b))
		return win_err(err, win, "expected monthly:D or monthly:D-D (days 1..31)");
	if (*p)
		return win_err(err, win, "expected monthly:D or monthly:D-D (days 1..31)");
	if (a < 1 || a > 31 || b < 1 || b > 31)
		return win_err(err, win, "day of month out of range 1..31");
	w->kind = FW_WIN_MONTHLY;
	w->from = a;
	w->to = b;
	return 0;
}

static int days_in_month(int y, int m)
{
	static const int dm[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : dm[m - 1];
}

/* YYYY-MM-DDTHH:MM -> YYYYMMDDHHMM */
static int parse_stamp(const char *s, const char **end, int64_t *out)
{
	int y, mo, d, t;

	if (parse_uint(s, &s, 4, &y) || *s++ != '-' ||
	    parse_uint(s, &s, 2, &mo) || *s++ != '-' ||
	    parse_uint(s, &s, 2, &d) || *s++ != 'T' || parse_hhmm(s, &s, &t))
		return -1;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) ||
	    t >= MIN_PER_DAY)
		return -1;
	*out = (((int64_t)y * 100 + mo) * 100 + d) * 10000 + (t / 60) * 100 + t % 60;
	*end = s;
	return 0;
}

static int parse_once(const char *body, const char *win, struct fw_window *w,
		      struct fw_err *err)
{
	const char *p;
	int64_t a, b;

	if (parse_stamp(body, &p, &a) || *p != '/' || parse_stamp(p + 1, &p, &b) || *p)
		return win_err(err, win, "expected once:YYYY-MM-DDTHH:MM/YYYY-MM-DDTHH:MM");
	if (b <= a)
		return win_err(err, win, "end of a once: window must be after its start");
	w->kind = FW_WIN_ONCE;
	w->from = a;
	w->to = b;
	return 0;
}

static int parse_window(const char *win, struct fw_window *w, struct fw_err *err)
{
	const char *colon = strchr(win, ':');
	size_t n;

	if (!colon)
		return win_err(err, win, "expected daily:, weekly:, monthly: or once:");
	n = (size_t)(colon - win);
	if (n == 5 && !strncasecmp(win, "daily", n))
		return parse_daily(colon + 1, win, w, err);
	if (n == 6 && !strncasecmp(win, "weekly", n))
		return parse_weekly(colon + 1, win, w, err);
	if (n == 7 && !strncasecmp(win, "monthly", n))
		return parse_monthly(colon + 1, win, w, err);
	if (n == 4 && !strncasecmp(win, "once", n))
		return parse_once(colon + 1, win, w, err);
	return win_err(err, win, "unknown window type (daily, weekly, monthly, once)");
}

int fw_when_parse(const char *spec, struct fw_when *out, struct fw_err *err)
{
	struct fw_when w = { 0 };
	const char *p = spec;

	out->n = 0;
	out->w = NULL;
	if (!spec || !*spec) {
		if (err)
			snprintf(err->msg, sizeof(err->msg), "empty window list");
		return -1;
	}
	while (1) {
		const char *q = strchr(p, ',');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		char buf[96];

		if (n == 0 || n >= sizeof(buf)) {
			fw_when_free(&w);
			if (err)
				snprintf(err->msg, sizeof(err->msg), "%s",
					 n ? "window too long" : "empty window in list");
			return -1;
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		w.w = fw_xrealloc(w.w, (size_t)(w.n + 1) * sizeof(*w.w));
		if (parse_window(buf, &w.w[w.n], err)) {
			fw_when_free(&w);
			return -1;
		}
		w.n++;
		if (!q)
			break;
		p = q + 1;
	}
	*out = w;
	return 0;
}

void fw_when_free(struct fw_when *w)
{
	free(w->w);
	w->w = NULL;
	w->n = 0;
}

void fw_local_time(fw_time_t now, struct fw_local_time *lt)
{
	time_t t = (time_t)now;
	struct tm tm;

	/* localtime_r need not consult TZ by itself (POSIX). */
	tzset();
	if (!localtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	lt->minute_of_day = tm.tm_hour * 60 + tm.tm_min;
	lt->minute_of_week = ((tm.tm_wday + 6) % 7) * MIN_PER_DAY + lt->minute_of_day;
	lt->mday = tm.tm_mday;
	lt->stamp = (((int64_t)(tm.tm_year + 1900) * 100 + tm.tm_mon + 1) * 100 +
		     tm.tm_mday) * 10000 + tm.tm_hour * 100 + tm.tm_min;
}

/* Half-open [from, to) on a circle; from == to means the full circle. */
static bool in_cyclic(int64_t x, int64_t from, int64_t to)
{
	if (from < to)
		return x >= from && x < to;
	return x >= from || x < to;
}

static bool window_active(const struct fw_window *w, const struct fw_local_time *lt)
{
	switch (w->kind) {
	case FW_WIN_DAILY:
		return in_cyclic(lt->minute_of_day, w->from, w->to % MIN_PER_DAY);
	case FW_WIN_WEEKLY:
		return in_cyclic(lt->minute_of_week, w->from, w->to);
	case FW_WIN_MONTHLY:
		/* inclusive day range, wrapping past the month's end */
		if (w->from <= w->to)
			return lt->mday >= w->from && lt->mday <= w->to;
		return lt->mday >= w->from || lt->mday <= w->to;
	case FW_WIN_ONCE:
		return lt->stamp >= w->from && lt->stamp < w->to;
	}
	return false;
}

bool fw_when_active(const struct fw_when *w, const struct fw_local_time *lt)
{
	for (int i = 0; i < w->n; i++)
		if (window_active(&w->w[i], lt))
			return true;
	return false;
}
