/*
 * submit.c - submit the benchmark queue from one process (contrib/perf).
 *
 * Reads "nodes limit_min run_s" lines (contrib/perf/queue.sh list) and
 * submits each as an exclusive batch job named q<nodes> running
 * "sleep run_s", in order, like
 *   sbatch --exclusive -N nodes -t limit -D /tmp -o /dev/null --wrap "sleep run_s"
 * 50,000 sbatch processes take about ten minutes on two cores; one process
 * calling slurm_submit_batch_job() needs a fraction of that.
 *
 * Build: gcc -O2 -o submit submit.c -lslurm   (libslurm-dev)
 * Usage: submit [WORKDIR] < list   (SLURM_CONF from the environment)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv)
{
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	unsigned nodes, limit, run, line = 0, failed = 0;

	slurm_init(NULL);
	while (scanf("%u %u %u", &nodes, &limit, &run) == 3) {
		job_desc_msg_t d;
		submit_response_msg_t *resp = NULL;
		char script[64], name[16];

		line++;
		slurm_init_job_desc_msg(&d);
		snprintf(script, sizeof(script), "#!/bin/sh\nsleep %u\n", run);
		snprintf(name, sizeof(name), "q%u", nodes);
		d.name = name;
		d.script = script;
		d.min_nodes = d.max_nodes = nodes;
		d.time_limit = limit;
		d.shared = JOB_SHARED_NONE;	/* --exclusive */
		d.user_id = getuid();
		d.group_id = getgid();
		d.work_dir = (char *)dir;
		d.std_out = "/dev/null";
		d.environment = env;
		d.env_size = 1;
		if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
			fprintf(stderr, "submit: line %u: %s\n", line,
				slurm_strerror(slurm_get_errno()));
			if (++failed > 10)
				return 1;
			continue;
		}
		slurm_free_submit_response_response_msg(resp);
	}
	slurm_fini();
	printf("%u submitted, %u failed\n", line - failed, failed);
	return failed ? 1 : 0;
}
