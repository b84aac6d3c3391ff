/*
 * fw_boost.h - calendar windows for timed priority boosts (internal to the
 * prio module).
 *
 * A When= value is a comma-separated list of windows; the boost is active
 * when `now` (local time) is inside any of them.  Intervals are half-open
 * [start, end) at minute resolution.
 *
 *   daily:HH:MM-HH:MM              every day; end <= start wraps past midnight
 *   weekly:DAY                     one whole day each week (Mon..Sun)
 *   weekly:DAY-DAY                 whole days, inclusive (Sat-Sun, Fri-Mon wraps)
 *   weekly:DAY@HH:MM-DAY@HH:MM     from a time on one day to a time on another
 *   monthly:D                      day D of each month (1..31)
 *   monthly:D-D                    days, inclusive (25-28; 28-3 wraps); a day a
 *                                  month does not have never matches
 *   once:YYYY-MM-DDTHH:MM/YYYY-MM-DDTHH:MM   one interval
 *
 * Day names: Mon Tue Wed Thu Fri Sat Sun or the full English names,
 * case-insensitive.
 */
#ifndef FW_BOOST_H
#define FW_BOOST_H

#include <stdbool.h>
#include <stdint.h>

#include "fw_common.h"

enum fw_window_kind { FW_WIN_DAILY, FW_WIN_WEEKLY, FW_WIN_MONTHLY, FW_WIN_ONCE };

struct fw_window {
	enum fw_window_kind kind;
	/* daily: minute of day; weekly: minute of week (Monday 00:00 = 0);
	   monthly: day of month; once: YYYYMMDDHHMM as a number. */
	int64_t from, to;
};

struct fw_when {
	int n;
	struct fw_window *w;
};

/* Local time reduced to what windows compare, computed once per pass. */
struct fw_local_time {
	int minute_of_day;   /* 0..1439 */
	int minute_of_week;  /* 0..10079, Monday 00:00 = 0 */
	int mday;            /* 1..31 */
	int64_t stamp;       /* YYYYMMDDHHMM */
};

int fw_when_parse(const char *spec, struct fw_when *out, struct fw_err *err);
void fw_when_free(struct fw_when *w);
void fw_local_time(fw_time_t now, struct fw_local_time *lt);
bool fw_when_active(const struct fw_when *w, const struct fw_local_time *lt);

#endif /* FW_BOOST_H */
