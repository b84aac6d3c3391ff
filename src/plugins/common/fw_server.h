/*
 * fw_server.h - a tiny request/reply server inside slurmctld for the
 * `fairway` user command (priority breakdown, plan explanation).
 *
 * Transport: a Linux abstract Unix socket (no file on disk, so nothing is
 * world-writable), named after the cluster and SlurmctldPort so several
 * clusters can run on one host.  The caller's uid comes from SO_PEERCRED;
 * the handler decides what that uid may see (PrivateData=jobs).
 *
 * Protocol: one request line (at most 1 KiB, "\n"-terminated), one reply
 * (text), then the server closes the connection.  Every socket operation has
 * a timeout and the handler runs in the server's own thread, so a slow or
 * hostile client can never block slurmctld.
 */
#ifndef FW_SERVER_H
#define FW_SERVER_H

#include <stddef.h>
#include <sys/types.h>

/* Reply text is malloc()ed by the handler; the server frees it. */
typedef char *(*fw_server_handler)(uid_t uid, const char *request);

struct fw_server;

/* Abstract socket name for a service ("prio" or "sched") of this cluster. */
void fw_server_name(char *buf, size_t len, const char *cluster,
		    unsigned port, const char *service);

/* Start serving; NULL (and an error logged by the caller) on failure. */
struct fw_server *fw_server_start(const char *name, fw_server_handler h);
void fw_server_stop(struct fw_server *s);

#endif /* FW_SERVER_H */
