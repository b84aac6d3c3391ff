/*
 * Workload traces: SWF, CSV or sacct export.  Included once per format by
 * fuzz_swf.c, fuzz_csv.c and fuzz_sacct.c, which define FUZZ_FORMAT and
 * FUZZ_TARGET.  Each input is
 * read twice, as fairway-sim does: strictly (a bad line is an error naming
 * file and line) and with --skip-bad-lines (bad lines counted).
 */
#include "fuzz_util.h"
#include "sim_trace.h"

#ifndef FUZZ_FORMAT
#error "include from fuzz_swf.c, fuzz_csv.c or fuzz_sacct.c"
#endif

#define NAME "fuzz.trace"

static int read_trace(struct sim_trace *t, const char *buf, size_t len,
		      const struct sim_read_opts *o, struct fw_err *err)
{
	switch (FUZZ_FORMAT) {
	case SIM_TRACE_SWF:
		return sim_read_swf_mem(t, NAME, buf, len, o, err);
	case SIM_TRACE_CSV:
		return sim_read_csv_mem(t, NAME, buf, len, o, err);
	default:
		return sim_read_sacct_mem(t, NAME, buf, len, o, err);
	}
}

FUZZ_ENTRY(FUZZ_TARGET)
{
	const char *buf = (const char *)data;

	for (int skip = 0; skip <= 1; skip++) {
		struct sim_read_opts o = { .skip_bad_lines = skip };
		struct sim_trace t;
		struct fw_err err = { 0 };

		sim_trace_init(&t);
		if (read_trace(&t, buf, size, &o, &err))
			fuzz_check_rejection(&err, NAME);
		else if (t.bad_lines)
			fuzz_check_rejection(&t.first_bad, NAME);
		sim_trace_free(&t);
	}
	return 0;
}
