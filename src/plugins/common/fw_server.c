/*
 * fw_server.c - request/reply server for the `fairway` command.
 * See fw_server.h for the protocol and the safety rules.
 */
#define _GNU_SOURCE
#include "fw_server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define FW_REQ_MAX 1024
#define FW_IO_TIMEOUT_S 2

struct fw_server {
	int listen_fd;
	int stop_pipe[2];
	pthread_t thread;
	fw_server_handler handler;
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

static void serve_one(struct fw_server *s, int fd)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	char req[FW_REQ_MAX];
	char *reply;

	set_timeouts(fd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
	    read_request(fd, req, sizeof(req)) < 0)
		return;
	reply = s->handler(cred.uid, req);
	if (reply) {
		write_all(fd, reply, strlen(reply));
		free(reply);
	}
}

static void *server_thread(void *arg)
{
	struct fw_server *s = arg;
	struct pollfd p[2] = {
		{ .fd = s->listen_fd, .events = POLLIN },
		{ .fd = s->stop_pipe[0], .events = POLLIN },
	};

	while (1) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (p[0].revents & POLLIN) {
			int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0) {
				serve_one(s, fd);
				close(fd);
			}
		}
	}
	return NULL;
}

struct fw_server *fw_server_start(const char *name, fw_server_handler h)
{
	struct fw_server *s = calloc(1, sizeof(*s));
	struct sockaddr_un sa;
	socklen_t alen = abstract_addr(&sa, name);

	if (!s)
		return NULL;
	s->handler = h;
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0)
		goto fail;
	if (bind(s->listen_fd, (struct sockaddr *)&sa, alen) ||
	    listen(s->listen_fd, 16))
		goto fail_fd;
	if (pipe2(s->stop_pipe, O_CLOEXEC))
		goto fail_fd;
	if (pthread_create(&s->thread, NULL, server_thread, s))
		goto fail_pipe;
	return s;
fail_pipe:
	close(s->stop_pipe[0]);
	close(s->stop_pipe[1]);
fail_fd:
	close(s->listen_fd);
fail:
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
	close(s->listen_fd);
	close(s->stop_pipe[0]);
	close(s->stop_pipe[1]);
	free(s);
}
