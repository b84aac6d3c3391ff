/*
 * fault_shim.c - LD_PRELOAD fault injection for the live fault tests (never
 * installed; testsuite/live/fault_lib.sh compiles it into the test's log
 * directory and preloads it into one slurmctld run).
 *
 * It watches only Fairway's state files (paths whose last component starts
 * with "fairway_") and leaves every other file slurmctld touches alone.
 * Each step fw_state_write() takes on a state file is an "event", counted
 * per file name: creating NAME.new, each write chunk, fsync, close, link,
 * unlink, rename.  Environment:
 *
 *   FW_FAULT_DIR=DIR      required: DIR/events.log gets one line per event
 *                         ("<pid> <name> <n> <what> <path>"); every buffer
 *                         written to NAME.new is also copied whole to
 *                         DIR/<name>.<pid>.<k> before it reaches the file,
 *                         so the test knows each complete "new version".
 *   FW_FAULT_KILL=NAME:N  raise SIGKILL just before the N-th event on NAME
 *                         (a kill -9 at exactly that point).
 *   FW_FAULT_CHUNK=B      write NAME.new in chunks of B bytes (default: two
 *                         halves), each chunk its own event;
 *   FW_FAULT_SLOW_US=U    sleep U microseconds before each chunk, which
 *                         widens the write window for random kills.
 *   FW_FAULT_FAIL=ERRNO   make creating NAME.new fail with this errno
 *                         (e.g. 28 = ENOSPC), for hosts without mounts.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FD 4096
#define MAX_NAMES 8

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char fd_name[MAX_FD][64];   /* tracked NAME.new descriptors */
static struct { char name[64]; int events, copies; } names[MAX_NAMES];

/* NAME for a Fairway state path (…/fairway_x, …/fairway_x.new, .old), or
 * NULL.  The name is the last component up to the first '.'. */
static const char *state_name(const char *path, char *buf, size_t len)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	size_t n;

	base = base ? base + 1 : path;
	if (!base || strncmp(base, "fairway_", 8))
		return NULL;
	n = strcspn(base, ".");
	if (n >= len)
		return NULL;
	memcpy(buf, base, n);
	buf[n] = '\0';
	return buf;
}

static int slot(const char *name)
{
	for (int i = 0; i < MAX_NAMES; i++) {
		if (!names[i].name[0])
			snprintf(names[i].name, sizeof(names[i].name), "%s", name);
		if (!strcmp(names[i].name, name))
			return i;
	}
	return 0;
}

static void append_line(const char *file, const char *line)
{
	static ssize_t (*real_write)(int, const void *, size_t);
	static int (*real_open)(const char *, int, ...);
	int fd;

	if (!real_write) {
		real_write = dlsym(RTLD_NEXT, "write");
		real_open = dlsym(RTLD_NEXT, "open");
	}
	fd = real_open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (real_write(fd, line, strlen(line)) < 0) { /* best effort */ }
		close(fd);
	}
}

/* Count one event on NAME; die here if it is the chosen one. */
static void event(const char *name, const char *what, const char *path)
{
	const char *dir = getenv("FW_FAULT_DIR"), *kill = getenv("FW_FAULT_KILL");
	char line[512], file[512];
	int n;

	pthread_mutex_lock(&mu);
	n = ++names[slot(name)].events;
	pthread_mutex_unlock(&mu);
	if (dir) {
		snprintf(file, sizeof(file), "%s/events.log", dir);
		snprintf(line, sizeof(line), "%d %s %d %s %s\n", (int)getpid(), name,
			 n, what, path ? path : "-");
		append_line(file, line);
	}
	if (kill) {
		const char *colon = strrchr(kill, ':');

		if (colon && (size_t)(colon - kill) == strlen(name) &&
		    !strncmp(kill, name, strlen(name)) && atoi(colon + 1) == n) {
			if (dir) {
				snprintf(line, sizeof(line), "%d %s %d KILLED before %s\n",
					 (int)getpid(), name, n, what);
				append_line(file, line);
			}
			raise(SIGKILL);
		}
	}
}

static void track(int fd, const char *path)
{
	char nb[64];
	const char *name = state_name(path, nb, sizeof(nb));
	size_t l = path ? strlen(path) : 0;

	if (fd < 0 || fd >= MAX_FD)
		return;
	pthread_mutex_lock(&mu);
	fd_name[fd][0] = '\0';
	if (name && l > 4 && !strcmp(path + l - 4, ".new"))
		snprintf(fd_name[fd], sizeof(fd_name[fd]), "%s", name);
	pthread_mutex_unlock(&mu);
}

static const char *tracked(int fd, char *buf, size_t len)
{
	if (fd < 0 || fd >= MAX_FD)
		return NULL;
	pthread_mutex_lock(&mu);
	snprintf(buf, len, "%s", fd_name[fd]);
	pthread_mutex_unlock(&mu);
	return buf[0] ? buf : NULL;
}

static int before_open(const char *path, int flags)
{
	char nb[64];
	const char *name = state_name(path, nb, sizeof(nb));
	const char *fail = getenv("FW_FAULT_FAIL");
	size_t l = path ? strlen(path) : 0;

	if (!name || !(flags & O_CREAT) || l < 4 || strcmp(path + l - 4, ".new"))
		return 0;
	event(name, "open", path);
	if (fail && atoi(fail) > 0) {
		errno = atoi(fail);
		return -1;
	}
	return 0;
}

#define OPEN_WRAPPER(fn)						\
int fn(const char *path, int flags, ...)				\
{									\
	static int (*real)(const char *, int, ...);			\
	mode_t mode = 0;						\
	int fd;								\
									\
	if (!real)							\
		real = dlsym(RTLD_NEXT, #fn);				\
	if (flags & (O_CREAT | O_TMPFILE)) {				\
		va_list ap;						\
		va_start(ap, flags);					\
		mode = (mode_t)va_arg(ap, int);				\
		va_end(ap);						\
	}								\
	if (before_open(path, flags))					\
		return -1;						\
	fd = real(path, flags, mode);					\
	track(fd, path);						\
	return fd;							\
}
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

static void copy_new_version(const char *name, const void *buf, size_t len)
{
	const char *dir = getenv("FW_FAULT_DIR");
	static ssize_t (*real_write)(int, const void *, size_t);
	static int (*real_open)(const char *, int, ...);
	char file[512];
	int k, fd;

	if (!dir)
		return;
	if (!real_write) {
		real_write = dlsym(RTLD_NEXT, "write");
		real_open = dlsym(RTLD_NEXT, "open");
	}
	pthread_mutex_lock(&mu);
	k = ++names[slot(name)].copies;
	pthread_mutex_unlock(&mu);
	snprintf(file, sizeof(file), "%s/%s.%d.%d", dir, name, (int)getpid(), k);
	fd = real_open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (real_write(fd, buf, len) < 0) { /* best effort */ }
		close(fd);
	}
}

ssize_t write(int fd, const void *buf, size_t count)
{
	static ssize_t (*real)(int, const void *, size_t);
	const char *cs = getenv("FW_FAULT_CHUNK"), *slow = getenv("FW_FAULT_SLOW_US");
	char nb[64];
	const char *name;
	size_t chunk, off = 0;

	if (!real)
		real = dlsym(RTLD_NEXT, "write");
	name = tracked(fd, nb, sizeof(nb));
	if (!name)
		return real(fd, buf, count);
	copy_new_version(name, buf, count);
	chunk = cs && atol(cs) > 0 ? (size_t)atol(cs) : (count + 1) / 2;
	if (!chunk)
		chunk = 1;
	while (off < count) {
		size_t n = count - off < chunk ? count - off : chunk;
		ssize_t w;

		if (slow && atol(slow) > 0)
			usleep((useconds_t)atol(slow));
		event(name, "write", NULL);
		w = real(fd, (const char *)buf + off, n);
		if (w < 0)
			return off ? (ssize_t)off : -1;
		off += (size_t)w;
	}
	return (ssize_t)off;
}

int fsync(int fd)
{
	static int (*real)(int);
	char nb[64];
	const char *name;

	if (!real)
		real = dlsym(RTLD_NEXT, "fsync");
	if ((name = tracked(fd, nb, sizeof(nb))))
		event(name, "fsync", NULL);
	return real(fd);
}

int close(int fd)
{
	static int (*real)(int);
	char nb[64];
	const char *name;

	if (!real)
		real = dlsym(RTLD_NEXT, "close");
	if ((name = tracked(fd, nb, sizeof(nb)))) {
		event(name, "close", NULL);
		track(fd, NULL);
	}
	return real(fd);
}

int link(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	char nb[64];
	const char *name = state_name(to, nb, sizeof(nb));

	if (!real)
		real = dlsym(RTLD_NEXT, "link");
	if (name)
		event(name, "link", to);
	return real(from, to);
}

int unlink(const char *path)
{
	static int (*real)(const char *);
	char nb[64];
	const char *name = state_name(path, nb, sizeof(nb));

	if (!real)
		real = dlsym(RTLD_NEXT, "unlink");
	if (name)
		event(name, "unlink", path);
	return real(path);
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	char nb[64];
	const char *name = state_name(to, nb, sizeof(nb));
	int rc;

	if (!real)
		real = dlsym(RTLD_NEXT, "rename");
	if (name)
		event(name, "rename", to);
	rc = real(from, to);
	if (name && !rc)
		event(name, "renamed", to);
	return rc;
}
