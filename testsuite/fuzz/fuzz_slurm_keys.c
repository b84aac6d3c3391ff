/*
 * Fairway's parsing of slurm.conf keys (Priority*, SchedulerParameters,
 * FairShareDampeningFactor, ...): each input line "Key=Value" is handed to
 * fw_config_slurm() as the plugins and fairway-sim do, then the
 * cross-checks run.  Lines without '=' are skipped.
 */
#include "fuzz_util.h"
#include "fw_config.h"

static void offer_line(struct fw_config *c, const char *line, bool *failed)
{
	const char *eq = strchr(line, '=');
	struct fw_err err = { 0 };
	char *key;

	if (!eq)
		return;
	key = strndup(line, (size_t)(eq - line));
	if (fw_config_slurm(c, key, eq + 1, &err) == FW_CONF_ERR) {
		fuzz_check_rejection(&err, NULL);
		*failed = true;
	}
	free(key);
}

FUZZ_ENTRY(slurm_keys)
{
	struct fw_config *c = fw_config_new();
	char *copy = malloc(size + 1), *line, *save = NULL;
	bool failed = false;
	struct fw_err err = { 0 };

	memcpy(copy, data, size);
	copy[size] = '\0';
	for (line = strtok_r(copy, "\n", &save); line && !failed;
	     line = strtok_r(NULL, "\n", &save))
		offer_line(c, line, &failed);
	if (!failed && fw_config_finish(c, &err))
		fuzz_check_rejection(&err, NULL);
	fw_config_free(c);
	free(copy);
	return 0;
}
