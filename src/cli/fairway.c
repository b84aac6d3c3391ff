/*
 * fairway - ask slurmctld's Fairway plugins about a job.
 *
 *   fairway explain JOBID    priority breakdown + plan: when and where the
 *                            job is expected to start, and what blocks it
 *   fairway priority JOBID   every priority factor of the job
 *   fairway plan JOBID       planned start, nodes and blocker only
 *
 * The plugins serve these on abstract Unix sockets on the controller host
 * (see fw_server.h); the caller's uid is checked by slurmctld's plugins
 * against PrivateData=jobs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <slurm/slurm.h>

static void usage(FILE *f)
{
	fputs("usage: fairway explain|priority|plan JOBID\n"
	      "  explain   priority breakdown and plan (start time, nodes, blocker)\n"
	      "  priority  every priority factor of the job\n"
	      "  plan      planned start time, nodes, and what blocks the job\n",
	      f);
}

/* Send one request line to a Fairway service; print the reply. */
static int ask(const char *cluster, unsigned port, const char *service,
	       const char *request)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char name[200], buf[4096];
	int fd, n, len;
	ssize_t r;

	n = snprintf(name, sizeof(name), "fairway/%s/%u/%s", cluster, port, service);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path) - 1)
		return -1;
	memcpy(sa.sun_path + 1, name, (size_t)n);
	len = (int)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, (socklen_t)len)) {
		fprintf(stderr, "fairway: cannot reach sched/priority plugin '%s' "
			"(run this on the slurmctld host; is %s/fairway loaded?): %s\n",
			service, service, strerror(errno));
		close(fd);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s\n", request);
	if (write(fd, buf, strlen(buf)) < 0) {
		close(fd);
		return -1;
	}
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)r, stdout);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	slurm_conf_t *conf = NULL;
	char req[128];
	char *end;
	unsigned long id;
	int rc = 0;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 3) {
		usage(stderr);
		return 2;
	}
	id = strtoul(argv[2], &end, 10);
	if (*end || !id) {
		fprintf(stderr, "fairway: bad job id '%s'\n", argv[2]);
		return 2;
	}
	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS) {
		slurm_perror("fairway: cannot load the Slurm configuration");
		return 1;
	}
	if (!strcmp(argv[1], "explain") || !strcmp(argv[1], "priority")) {
		snprintf(req, sizeof(req), "priority %lu", id);
		rc |= ask(conf->cluster_name, conf->slurmctld_port, "prio", req);
	}
	if (!strcmp(argv[1], "explain") || !strcmp(argv[1], "plan")) {
		snprintf(req, sizeof(req), "plan %lu", id);
		rc |= ask(conf->cluster_name, conf->slurmctld_port, "sched", req);
	}
	if (strcmp(argv[1], "explain") && strcmp(argv[1], "priority") &&
	    strcmp(argv[1], "plan")) {
		usage(stderr);
		rc = 2;
	}
	slurm_free_ctl_conf(conf);
	return rc ? 1 : 0;
}
