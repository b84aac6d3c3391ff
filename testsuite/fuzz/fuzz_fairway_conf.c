/*
 * fairway.conf: the dispatcher (fw_config) offers every line to the factor
 * model, fair-share and planner parsers, then runs their cross-checks.
 * A rejection must name the file and line (a cross-check error about a
 * key: the line that set it).
 */
#include "fuzz_util.h"
#include "fw_config.h"

#define NAME "fuzz/fairway.conf"

FUZZ_ENTRY(fairway_conf)
{
	struct fw_config *c = fw_config_new();
	struct fw_err err = { 0 };

	if (fw_config_load_buf(c, NAME, (const char *)data, size, &err))
		fuzz_check_located(&err, NAME);
	else if (fw_config_finish(c, &err) && err.key[0])
		fuzz_check_located(&err, NAME);  /* at the line of the key */
	else if (!c->finished)
		fuzz_check_rejection(&err, NULL);
	fw_config_free(c);
	return 0;
}
