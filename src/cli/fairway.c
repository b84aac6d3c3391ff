/*
 * fairway - ask slurmctld's Fairway plugins about a job.
 *
 *   fairway [--tcp] explain JOBID   priority breakdown + plan: when and where
 *                                   the job is expected to start, and what
 *                                   blocks it
 *   fairway [--tcp] priority JOBID  every priority factor of the job
 *   fairway [--tcp] plan JOBID      planned start, nodes and blocker only
 *   fairway [--tcp] stats           sched/fairway's pass counts and where
 *                                   the last backfill pass's time went
 *
 * On the controller host the plugins answer on abstract Unix sockets (the
 * kernel tells them the caller's uid).  From any other host - a login node -
 * the command connects to FairwayPort (fairway.conf beside slurm.conf, or
 * $FAIRWAY_PORT) on the SlurmctldHost(s) and proves the caller's uid with a
 * MUNGE credential whose payload is the request.  --tcp uses the network
 * path even on the controller host.  See fw_server.h and fairway(1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <munge.h>
#include <netdb.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "fw_config.h"
#include "fw_server.h"

#define IO_TIMEOUT_S 10

struct target {
	const slurm_conf_t *conf;
	unsigned port;       /* FairwayPort, 0 if unknown */
	const char *munge_socket;
	int tcp_only;
};

static void usage(FILE *f)
{
	fputs("usage: fairway [--tcp] explain|priority|plan JOBID\n"
	      "       fairway [--tcp] stats\n"
	      "  explain   priority breakdown and plan (start time, nodes, blocker)\n"
	      "  priority  every priority factor of the job\n"
	      "  plan      planned start time, nodes, and what blocks the job\n"
	      "  stats     sched/fairway's passes and where the last backfill pass's time went\n"
	      "  --tcp     ask over the network (FairwayPort) even on the controller host\n",
	      f);
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int send_line(int fd, const char *line)
{
	size_t left = strlen(line);
	ssize_t r;

	while (left) {
		r = send(fd, line, left, MSG_NOSIGNAL);
		if (r <= 0)
			return -1;
		line += r;
		left -= (size_t)r;
	}
	return 0;
}

/* Send one line, copy the reply to stdout.  Returns 0 or -1. */
static int exchange(int fd, const char *line)
{
	char buf[4096];
	ssize_t r;

	if (send_line(fd, line))
		return -1;
	while ((r = recv(fd, buf, sizeof(buf), 0)) > 0)
		fwrite(buf, 1, (size_t)r, stdout);
	return r < 0 ? -1 : 0;
}

#define REPLY_MAX (4 << 20)

/* The whole reply, NUL-terminated (malloc'd), or NULL. */
static char *read_reply(int fd)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);
	ssize_t r;

	while (buf && (r = recv(fd, buf + n, cap - n - 1, 0)) > 0) {
		n += (size_t)r;
		if (n + 1 == cap) {
			char *bigger = cap < REPLY_MAX ? realloc(buf, cap * 2) : NULL;

			if (!bigger) {
				free(buf);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (buf)
		buf[n] = '\0';
	return buf;
}

/*
 * A TCP reply must be a MUNGE credential made by SlurmUser (or root) whose
 * payload is "<our request credential>\n<reply text>" (fw_server.h): anyone
 * on the controller host can listen on FairwayPort while slurmctld does
 * not, and an old genuine answer must not pass for a fresh one.
 * Prints the reply text; returns 0, or -1 with the reason on stderr.
 */
static int print_signed_reply(const struct target *t, const char *where,
			      const char *req_cred, char *reply)
{
	const size_t plen = strlen(FW_SERVER_MUNGE_PREFIX), rlen = strlen(req_cred);
	munge_ctx_t ctx;
	munge_err_t rc;
	void *payload = NULL;
	int len = 0, ret = -1;
	uid_t uid;
	gid_t gid;

	if (strncmp(reply, FW_SERVER_MUNGE_PREFIX, plen)) {
		if (!strncmp(reply, "error: ", 7))
			fprintf(stderr, "fairway: %s: %s", where, reply);
		else
			fprintf(stderr, "fairway: %s: the reply is not signed with MUNGE: not trusting it\n",
				where);
		return -1;
	}
	reply[strcspn(reply, "\n")] = '\0';
	if (!(ctx = munge_ctx_create()))
		return -1;
	if (t->munge_socket)
		munge_ctx_set(ctx, MUNGE_OPT_SOCKET, t->munge_socket);
	rc = munge_decode(reply + plen, ctx, &payload, &len, &uid, &gid);
	if (rc != EMUNGE_SUCCESS)
		fprintf(stderr, "fairway: %s: the reply's MUNGE credential is not valid: %s\n", where,
			munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(rc));
	else if (uid != t->conf->slurm_user_id && uid != 0)
		fprintf(stderr, "fairway: %s: the reply is signed by uid %u, not by SlurmUser %s (uid %u): not trusting it\n",
			where, (unsigned)uid,
			t->conf->slurm_user_name ? t->conf->slurm_user_name : "?",
			(unsigned)t->conf->slurm_user_id);
	else if ((size_t)len <= rlen || memcmp(payload, req_cred, rlen) ||
		 ((char *)payload)[rlen] != '\n')
		fprintf(stderr, "fairway: %s: the signed reply answers another request: not trusting it\n",
			where);
	else {
		fwrite((char *)payload + rlen + 1, 1, (size_t)len - rlen - 1, stdout);
		ret = 0;
	}
	free(payload);
	munge_ctx_destroy(ctx);
	return ret;
}

/*
 * Abstract socket names have no owner or permissions: any local user may
 * take a name before slurmctld does (the plugin then only logs that it
 * cannot serve).  So the answer is trusted only from a process running as
 * SlurmUser (slurmctld becomes SlurmUser before it loads plugins) or root,
 * which the kernel vouches for (SO_PEERCRED).  Returns 0 if
 * trusted; otherwise says whose socket it is and returns -1.
 */
static int peer_is_slurmctld(const struct target *t, int fd, const char *name)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen)) {
		fprintf(stderr, "fairway: @%s: cannot tell who serves it: %s\n", name,
			strerror(errno));
		return -1;
	}
	if (cred.uid != t->conf->slurm_user_id && cred.uid != 0) {
		fprintf(stderr, "fairway: @%s is held by uid %u (pid %d), not by "
			"SlurmUser %s (uid %u): not asking it\n", name,
			(unsigned)cred.uid, (int)cred.pid,
			t->conf->slurm_user_name ? t->conf->slurm_user_name : "?",
			(unsigned)t->conf->slurm_user_id);
		return -1;
	}
	return 0;
}

/*
 * Connect to the plugin's abstract socket on this host: the descriptor,
 * -1 if nobody listens there, -2 if an impostor does (reported).
 */
static int connect_local(const struct target *t, const char *service)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char name[200];
	int fd, n;
	socklen_t len;

	fw_server_name(name, sizeof(name), t->conf->cluster_name,
		       t->conf->slurmctld_port, service);
	n = (int)strlen(name);
	if ((size_t)n >= sizeof(sa.sun_path) - 1)
		return -1;
	memcpy(sa.sun_path + 1, name, (size_t)n);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, len)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0 && peer_is_slurmctld(t, fd, name)) {
		close(fd);
		return -2;
	}
	if (fd >= 0)
		set_timeouts(fd);
	return fd;
}

/* Connect to host:port (first address that answers); -1 on failure. */
static int connect_tcp(const char *host, unsigned port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char ps[16];
	int fd = -1;

	snprintf(ps, sizeof(ps), "%u", port);
	if (getaddrinfo(host, ps, &hints, &res))
		return -1;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		set_timeouts(fd); /* also bounds connect() on Linux */
		if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

/* "MUNGE:<credential carrying the request>\n" (malloc'd) or NULL. */
static char *munge_request(const struct target *t, const char *request)
{
	munge_ctx_t ctx = munge_ctx_create();
	char *cred = NULL, *line = NULL;
	munge_err_t rc;

	if (!ctx)
		return NULL;
	if (t->munge_socket)
		munge_ctx_set(ctx, MUNGE_OPT_SOCKET, t->munge_socket);
	rc = munge_encode(&cred, ctx, request, (int)strlen(request));
	if (rc != EMUNGE_SUCCESS)
		fprintf(stderr, "fairway: cannot create a MUNGE credential: %s\n",
			munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(rc));
	else if (asprintf(&line, "%s%s\n", FW_SERVER_MUNGE_PREFIX, cred) < 0)
		line = NULL;
	free(cred);
	munge_ctx_destroy(ctx);
	return line;
}

/* Over the network: each SlurmctldHost in turn (backup controllers). */
static int ask_tcp(const struct target *t, unsigned port, const char *request)
{
	for (uint32_t i = 0; i < t->conf->control_cnt; i++) {
		const char *host = t->conf->control_addr && t->conf->control_addr[i] ?
			t->conf->control_addr[i] : t->conf->control_machine[i];
		char *line;
		int fd, rc;

		if (!host || (fd = connect_tcp(host, port)) < 0)
			continue;
		line = munge_request(t, request);
		rc = -1;
		if (line && !send_line(fd, line)) {
			char *reply = read_reply(fd), where[300];

			snprintf(where, sizeof(where), "%s port %u", host, port);
			/* our credential: the line without prefix and newline */
			line[strcspn(line, "\n")] = '\0';
			rc = reply ? print_signed_reply(t, where,
							line + strlen(FW_SERVER_MUNGE_PREFIX),
							reply) : -1;
			free(reply);
		}
		free(line);
		close(fd);
		return rc;
	}
	fprintf(stderr, "fairway: cannot reach the controller on TCP port %u\n", port);
	return -1;
}

/* Ask one plugin ("prio" on FairwayPort, "sched" on FairwayPort + 1). */
static int ask(const struct target *t, const char *service, const char *request)
{
	unsigned port = t->port ? t->port + (strcmp(service, "sched") == 0) : 0;
	int fd = t->tcp_only ? -1 : connect_local(t, service);
	char line[256];
	int rc;

	if (fd == -2)
		return -1; /* an impostor holds the name: no fallback to TCP either */
	if (fd >= 0) {
		snprintf(line, sizeof(line), "%s\n", request);
		rc = exchange(fd, line);
		close(fd);
		return rc;
	}
	if (port)
		return ask_tcp(t, port, request);
	fprintf(stderr, "fairway: the %s/fairway plugin does not answer on this host; "
		"from other hosts set FairwayPort in fairway.conf (or FAIRWAY_PORT)\n",
		strcmp(service, "sched") ? "priority" : "sched");
	return -1;
}

/*
 * FairwayPort: $FAIRWAY_PORT, else fairway.conf beside slurm.conf (the
 * same file and parser slurmctld's plugins use).  0 if not configured;
 * -1 if fairway.conf cannot be read or is invalid (reported).
 */
static int fairway_port(void)
{
	const char *env = getenv("FAIRWAY_PORT");
	const char *sc = getenv("SLURM_CONF");
	char *path = NULL, *slash;
	struct fw_config *c;
	struct fw_err err;
	char msg[1024];
	int port = -1;

	if (env && *env) {
		char *end;
		long v = strtol(env, &end, 10);

		if (*end || v <= 0 || v > 65534) {
			fprintf(stderr, "fairway: FAIRWAY_PORT=%s is not a TCP port\n", env);
			return -1;
		}
		return (int)v;
	}
	if (asprintf(&path, "%s", sc && *sc ? sc : "/etc/slurm/slurm.conf") < 0)
		return -1;
	slash = strrchr(path, '/');
	if (slash)
		slash[1] = '\0';
	else
		path[0] = '\0';
	if (asprintf(&slash, "%sfairway.conf", path) < 0) {
		free(path);
		return -1;
	}
	free(path);
	path = slash;
	if (access(path, F_OK)) {
		free(path);
		return 0; /* no extensions: no FairwayPort */
	}
	c = fw_config_new();
	fw_err_clear(&err);
	if (fw_config_load_file(c, path, &err))
		fprintf(stderr, "fairway: %s\n", fw_err_str(&err, msg, sizeof(msg)));
	else
		port = c->service_port;
	fw_config_free(c);
	free(path);
	return port;
}

int main(int argc, char **argv)
{
	slurm_conf_t *conf = NULL;
	struct target t = { 0 };
	char req[128], sock[256];
	const char *cmd;
	char *end;
	unsigned long id;
	int rc = 0, port, a = 1;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--tcp")) {
		t.tcp_only = 1;
		a++;
	}
	cmd = a < argc ? argv[a] : "";
	if (!strcmp(cmd, "stats") ? argc - a != 1 :
	    argc - a != 2 || (strcmp(cmd, "explain") && strcmp(cmd, "priority") &&
			      strcmp(cmd, "plan"))) {
		usage(stderr);
		return 2;
	}
	id = 0;
	if (strcmp(cmd, "stats")) {
		id = strtoul(argv[a + 1], &end, 10);
		if (*end || !id || id > UINT32_MAX) {
			fprintf(stderr, "fairway: bad job id '%s'\n", argv[a + 1]);
			return 2;
		}
	}
	if ((port = fairway_port()) < 0)
		return 1;
	if (t.tcp_only && !port) {
		fprintf(stderr, "fairway: --tcp needs FairwayPort in fairway.conf (or FAIRWAY_PORT)\n");
		return 2;
	}
	/* libslurm's plugins (auth, hash) must be loaded before any API call;
	 * 22.05 loaded them on demand, 24.11 aborts without this. */
	slurm_init(NULL);
	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS) {
		slurm_perror("fairway: cannot load the Slurm configuration");
		return 1;
	}
	t.conf = conf;
	t.port = (unsigned)port;
	if (fw_authinfo_munge_socket(conf->authinfo, sock, sizeof(sock)))
		t.munge_socket = sock;
	if (!strcmp(cmd, "stats"))
		rc |= ask(&t, "sched", "stats");
	if (!strcmp(cmd, "explain") || !strcmp(cmd, "priority")) {
		snprintf(req, sizeof(req), "priority %lu", id);
		rc |= ask(&t, "prio", req);
	}
	if (!strcmp(cmd, "explain") || !strcmp(cmd, "plan")) {
		snprintf(req, sizeof(req), "plan %lu", id);
		rc |= ask(&t, "sched", req);
	}
	slurm_free_ctl_conf(conf);
	return rc ? 1 : 0;
}
