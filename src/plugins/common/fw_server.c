/*
 * fw_server.c - request/reply server for the `fairway` command.
 * See fw_server.h for the protocol and the safety rules.
 */
#define _GNU_SOURCE
#include "fw_server.h"

#include <errno.h>
#include <fcntl.h>
#include <munge.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define FW_REQ_MAX 4096  /* a MUNGE credential for a short request is ~250 bytes */
#define FW_IO_TIMEOUT_S 2

struct fw_server {
	int unix_fd;
	int tcp_fd;               /* -1 without FairwayPort */
	int stop_pipe[2];
	pthread_t thread;
	fw_server_handler handler;
	char munge_socket[256];   /* "" = MUNGE's default */
};

void fw_server_name(char *buf, size_t len, const char *cluster,
		    unsigned port, const char *service)
{
	snprintf(buf, len, "fairway/%s/%u/%s", cluster ? cluster : "cluster",
		 port, service);
}

static socklen_t abstract_addr(struct sockaddr_un *sa, const char *name)
{
	size_t n = strlen(name);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (n > sizeof(sa->sun_path) - 1)
		n = sizeof(sa->sun_path) - 1;
	/* sun_path[0] == '\0' selects the abstract namespace */
	memcpy(sa->sun_path + 1, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = FW_IO_TIMEOUT_S };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Read one line; returns length or -1 (timeout, oversize, error). */
static ssize_t read_request(int fd, char *buf, size_t cap)
{
	size_t len = 0;

	while (len < cap - 1) {
		ssize_t n = recv(fd, buf + len, cap - 1 - len, 0);

		if (n <= 0)
			return n == 0 && len ? (ssize_t)len : -1;
		len += (size_t)n;
		buf[len] = '\0';
		char *nl = memchr(buf, '\n', len);
		if (nl) {
			*nl = '\0';
			return nl - buf;
		}
	}
	return -1;
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void answer(struct fw_server *s, int fd, uid_t uid, const char *req)
{
	char *reply = s->handler(uid, req);

	if (reply) {
		write_all(fd, reply, strlen(reply));
		free(reply);
	}
}

static void reply_text(int fd, const char *text)
{
	write_all(fd, text, strlen(text));
}

/* Controller host: the kernel tells who is calling. */
static void serve_local(struct fw_server *s, int fd)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	char req[FW_REQ_MAX];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
	    read_request(fd, req, sizeof(req)) < 0)
		return;
	answer(s, fd, cred.uid, req);
}

/*
 * Over TCP the command cannot ask the kernel who answers (anyone on the
 * controller host may listen on FairwayPort while slurmctld does not), so
 * the reply travels in a MUNGE credential too: its uid is slurmctld's
 * (SlurmUser), and its payload "<request credential>\n<reply>" ties it to
 * this very request (every credential is unique), so an old answer cannot
 * be passed off as a fresh one.
 */
static void answer_signed(struct fw_server *s, int fd, munge_ctx_t ctx,
			  uid_t uid, const char *req, const char *req_cred)
{
	char *reply = s->handler(uid, req), *payload = NULL, *cred = NULL;
	munge_err_t rc;

	if (!reply)
		return;
	if (asprintf(&payload, "%s\n%s", req_cred, reply) < 0) {
		free(reply);
		return;
	}
	rc = munge_encode(&cred, ctx, payload, (int)strlen(payload));
	if (rc != EMUNGE_SUCCESS) {
		char msg[320];

		snprintf(msg, sizeof(msg), "error: the controller cannot sign its reply: %s\n",
			 munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(rc));
		reply_text(fd, msg);
	} else {
		reply_text(fd, FW_SERVER_MUNGE_PREFIX);
		reply_text(fd, cred);
		reply_text(fd, "\n");
	}
	free(cred);
	free(payload);
	free(reply);
}

/*
 * Other hosts: MUNGE tells who is calling.  The request is the credential's
 * payload, so it cannot be altered or replayed (munged keeps a replay cache).
 */
static void serve_remote(struct fw_server *s, int fd)
{
	char line[FW_REQ_MAX], req[FW_REQ_MAX];
	const size_t plen = strlen(FW_SERVER_MUNGE_PREFIX);
	munge_ctx_t ctx;
	munge_err_t rc;
	void *payload = NULL;
	int len = 0;
	uid_t uid;
	gid_t gid;

	if (read_request(fd, line, sizeof(line)) < 0)
		return;
	if (strncmp(line, FW_SERVER_MUNGE_PREFIX, plen)) {
		reply_text(fd, "error: requests from other hosts must be MUNGE-authenticated (use the fairway command)\n");
		return;
	}
	ctx = munge_ctx_create();
	if (!ctx) {
		reply_text(fd, "error: the controller cannot use MUNGE\n");
		return;
	}
	if (s->munge_socket[0])
		munge_ctx_set(ctx, MUNGE_OPT_SOCKET, s->munge_socket);
	rc = munge_decode(line + plen, ctx, &payload, &len, &uid, &gid);
	if (rc != EMUNGE_SUCCESS) {
		char msg[320];

		snprintf(msg, sizeof(msg), "error: authentication failed: %s\n",
			 munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(rc));
		reply_text(fd, msg);
	} else if (len <= 0 || (size_t)len >= sizeof(req) ||
		   memchr(payload, '\0', (size_t)len) || memchr(payload, '\n', (size_t)len)) {
		reply_text(fd, "error: malformed request\n");
	} else {
		memcpy(req, payload, (size_t)len);
		req[len] = '\0';
		answer_signed(s, fd, ctx, uid, req, line + plen);
	}
	free(payload);
	munge_ctx_destroy(ctx);
}

static void accept_and_serve(struct fw_server *s, int lfd,
			     void (*serve)(struct fw_server *, int))
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	set_timeouts(fd);
	serve(s, fd);
	close(fd);
}

static void *server_thread(void *arg)
{
	struct fw_server *s = arg;
	struct pollfd p[3] = {
		{ .fd = s->stop_pipe[0], .events = POLLIN },
		{ .fd = s->unix_fd, .events = POLLIN },
		{ .fd = s->tcp_fd, .events = POLLIN },  /* ignored when -1 */
	};

	while (1) {
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents)
			break;
		if (p[1].revents & POLLIN)
			accept_and_serve(s, s->unix_fd, serve_local);
		if (p[2].revents & POLLIN)
			accept_and_serve(s, s->tcp_fd, serve_remote);
	}
	return NULL;
}

static int listen_abstract(const char *name)
{
	struct sockaddr_un sa;
	socklen_t alen = abstract_addr(&sa, name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && (bind(fd, (struct sockaddr *)&sa, alen) || listen(fd, 16))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* All addresses, IPv6 and IPv4 on one socket where the host has IPv6. */
static int listen_tcp(uint16_t port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int one = 1, zero = 0;
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (!bind(fd, (struct sockaddr *)&a6, sizeof(a6)) && !listen(fd, 16))
			return fd;
		close(fd);
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a4, sizeof(a4)) || listen(fd, 16)) {
		close(fd);
		return -1;
	}
	return fd;
}

struct fw_server *fw_server_start(const struct fw_server_conf *conf,
				  fw_server_handler h, char *errbuf,
				  size_t errlen)
{
	struct fw_server *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	s->handler = h;
	s->tcp_fd = -1;
	s->stop_pipe[0] = s->stop_pipe[1] = -1;
	if (conf->munge_socket)
		snprintf(s->munge_socket, sizeof(s->munge_socket), "%s", conf->munge_socket);
	s->unix_fd = listen_abstract(conf->name);
	if (s->unix_fd < 0) {
		snprintf(errbuf, errlen, "cannot listen on abstract socket @%s: %s",
			 conf->name, strerror(errno));
		goto fail;
	}
	if (conf->tcp_port) {
		s->tcp_fd = listen_tcp(conf->tcp_port);
		if (s->tcp_fd < 0) {
			snprintf(errbuf, errlen, "cannot listen on TCP port %u: %s",
				 conf->tcp_port, strerror(errno));
			goto fail;
		}
	}
	if (pipe2(s->stop_pipe, O_CLOEXEC)) {
		snprintf(errbuf, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	if (pthread_create(&s->thread, NULL, server_thread, s)) {
		snprintf(errbuf, errlen, "cannot start the server thread");
		goto fail;
	}
	return s;
fail:
	for (int i = 0; i < 2; i++)
		if (s->stop_pipe[i] >= 0)
			close(s->stop_pipe[i]);
	if (s->unix_fd >= 0)
		close(s->unix_fd);
	if (s->tcp_fd >= 0)
		close(s->tcp_fd);
	free(s);
	return NULL;
}

void fw_server_stop(struct fw_server *s)
{
	if (!s)
		return;
	if (write(s->stop_pipe[1], "x", 1) < 0) {
		/* the thread polls the pipe; nothing else can be done */
	}
	pthread_join(s->thread, NULL);
	close(s->unix_fd);
	if (s->tcp_fd >= 0)
		close(s->tcp_fd);
	close(s->stop_pipe[0]);
	close(s->stop_pipe[1]);
	free(s);
}
