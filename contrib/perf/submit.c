/*
 * submit.c - submit the benchmark queue from one process (contrib/perf).
 *
 * Reads "nodes limit_min run_s" lines (contrib/perf/queue.sh list) and
 * submits each as an exclusive batch job named q<nodes> running
 * "sleep run_s", in order, like
 *   sbatch --exclusive -N nodes -t limit -D /tmp -o /dev/null --wrap "sleep run_s"
 * Lines of six numbers, "nodes tasks cpus_per_task mem_mb limit_min run_s"
 * (queue.sh list --shared), are node-sharing jobs, like
 *   sbatch -N nodes -n tasks -c cpus_per_task [--mem mem_mb]
 *          [--ntasks-per-node tasks/nodes] -t limit ... --wrap "sleep run_s"
 * (no --mem when mem_mb is 0: DefMemPerCPU applies; --ntasks-per-node only
 * for more than one node).  Such a line may end in a partition name and
 * then a job name ("... run_s scav fill": -p scav -J fill; queue.sh
 * --preempt and queue.sh fill).  A token "gpus=G" after the numbers asks
 * for G GPUs on each node (--gpus-per-node G; queue.sh --gpus).
 * 50,000 sbatch processes take about ten minutes on two cores; one process
 * calling slurm_submit_batch_job() needs a fraction of that.
 *
 * Build: gcc -O2 -o submit submit.c -lslurm   (libslurm-dev)
 * Usage: submit [WORKDIR] < list   (SLURM_CONF from the environment)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

/* The words after the numbers: "gpus=G" (GPUs per node, written as a
 * tres_per_node "gres:gpu:G" into tres), then a partition, then a job name.
 * Returns 0, or -1 for more words than that. */
static int parse_words(char *rest, char *part, char *jname, char *tres)
{
	char *save = NULL, *w;
	int k = 0;

	part[0] = jname[0] = tres[0] = '\0';
	for (w = strtok_r(rest, " \t\n", &save); w;
	     w = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(w, "gpus=", 5))
			snprintf(tres, 32, "gres:gpu:%s", w + 5);
		else if (k == 0 && ++k)
			snprintf(part, 64, "%s", w);
		else if (k == 1 && ++k)
			snprintf(jname, 16, "%s", w);
		else
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	unsigned v[6], nodes, limit, run, line = 0, failed = 0;
	char buf[256], part[64], jname[16], tres[32];

	slurm_init(NULL);
	while (fgets(buf, sizeof(buf), stdin)) {
		job_desc_msg_t d;
		submit_response_msg_t *resp = NULL;
		char script[64], name[16];
		int used = 0;
		int n = sscanf(buf, "%u %u %u %u %u %u%n", &v[0], &v[1],
			       &v[2], &v[3], &v[4], &v[5], &used);

		line++;
		part[0] = jname[0] = tres[0] = '\0';
		if (n == 6 && parse_words(buf + used, part, jname, tres) < 0)
			n = -1;
		if (n != 3 && n != 6) {
			fprintf(stderr, "submit: line %u: expected 3 or 6 numbers "
				"(then gpus=G, a partition and a job name)\n", line);
			return 1;
		}
		nodes = v[0];
		limit = v[n == 3 ? 1 : 4];
		run = v[n == 3 ? 2 : 5];
		slurm_init_job_desc_msg(&d);
		snprintf(script, sizeof(script), "#!/bin/sh\nsleep %u\n", run);
		snprintf(name, sizeof(name), "q%u", nodes);
		d.name = jname[0] ? jname : name;
		if (part[0])
			d.partition = part;
		if (tres[0])
			d.tres_per_node = tres;	/* --gpus-per-node */
		d.script = script;
		d.min_nodes = d.max_nodes = nodes;
		d.time_limit = limit;
		if (n == 3) {
			d.shared = JOB_SHARED_NONE;	/* --exclusive */
		} else {
			d.bitflags |= JOB_NTASKS_SET | JOB_CPUS_SET; /* -n, -c */
			d.num_tasks = v[1];
			d.cpus_per_task = v[2];
			d.min_cpus = v[1] * v[2];
			if (v[3])
				d.pn_min_memory = v[3];	/* --mem, MB per node */
			if (nodes > 1)
				d.ntasks_per_node = v[1] / nodes;
		}
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
