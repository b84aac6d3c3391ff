/*
 * fw_server.h - a tiny request/reply server inside slurmctld for the
 * `fairway` user command (priority breakdown, plan explanation).
 *
 * Two transports, one protocol:
 *  - on the controller host, a Linux abstract Unix socket (no file on disk,
 *    so nothing is world-writable), named after the cluster and
 *    SlurmctldPort so several clusters can run on one host; the caller's uid
 *    comes from SO_PEERCRED;
 *  - from other hosts (login nodes), optionally TCP on FairwayPort
 *    (fairway.conf): the request line is "MUNGE:<credential>", a MUNGE
 *    credential whose payload is the request; the uid is the one MUNGE
 *    vouches for (the same trust Slurm's own RPCs rely on; MUNGE refuses
 *    replayed and expired credentials).
 * The handler decides what that uid may see (PrivateData=jobs).
 *
 * Protocol: one request line (at most 4 KiB, "\n"-terminated), one reply
 * (text), then the server closes the connection.  Over TCP an answered
 * request's reply is "MUNGE:<credential>\n" whose payload is
 * "<request credential>\n<reply text>", so the command knows SlurmUser
 * answered, and answered this very request; errors before a request is authenticated are plain
 * "error: ..." lines.  Every socket operation has
 * a timeout and the handler runs in the server's own thread, so a slow or
 * hostile client can never block slurmctld.
 */
#ifndef FW_SERVER_H
#define FW_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reply text is malloc()ed by the handler; the server frees it. */
typedef char *(*fw_server_handler)(uid_t uid, const char *request);

struct fw_server;

/* Abstract socket name for a service ("prio" or "sched") of this cluster. */
void fw_server_name(char *buf, size_t len, const char *cluster,
		    unsigned port, const char *service);

/* Prefix of a TCP request line; the MUNGE credential follows. */
#define FW_SERVER_MUNGE_PREFIX "MUNGE:"

struct fw_server_conf {
	const char *name;          /* abstract socket name (fw_server_name) */
	uint16_t tcp_port;         /* 0: no TCP listener */
	const char *munge_socket;  /* NULL: MUNGE's default socket */
};

/* Start serving; NULL with a reason in errbuf on failure. */
struct fw_server *fw_server_start(const struct fw_server_conf *conf,
				  fw_server_handler h, char *errbuf,
				  size_t errlen);
void fw_server_stop(struct fw_server *s);

#endif /* FW_SERVER_H */
