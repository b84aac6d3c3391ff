/*
 * fw_slurm.c - helpers shared by Fairway's Slurm plugins.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"

#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_compat.h"

#include "fw_config.h"
#include "fw_server.h"
#include "fw_slurm.h"

bool fw_in_slurmctld(void)
{
	return dlsym(RTLD_DEFAULT, "build_job_queue") != NULL;
}

void fw_log_err(const char *plugin, const struct fw_err *err)
{
	char buf[1024];

	error("%s: %s", plugin, fw_err_str(err, buf, sizeof(buf)));
}

struct fw_server *fw_slurm_serve(const char *plugin, const char *service,
				 const struct fw_config *c, unsigned port_offset,
				 char *(*handler)(uid_t, const char *))
{
	char name[200], sock[256], why[512];
	struct fw_server_conf sc = { .name = name };
	struct fw_server *srv;

	fw_server_name(name, sizeof(name), slurm_conf.cluster_name,
		       slurm_conf.slurmctld_port, service);
	if (c->service_port)
		sc.tcp_port = (uint16_t)(c->service_port + port_offset);
	if (fw_authinfo_munge_socket(slurm_conf.authinfo, sock, sizeof(sock)))
		sc.munge_socket = sock;
	srv = fw_server_start(&sc, handler, why, sizeof(why));
	if (!srv)
		error("%s: cannot serve the fairway command: %s", plugin, why);
	else if (sc.tcp_port)
		info("%s: serving the fairway command on @%s and TCP port %u (MUNGE)",
		     plugin, name, sc.tcp_port);
	return srv;
}

bool fw_job_visible_to(const job_record_t *job, uid_t uid)
{
	if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS))
		return true;
	if (job->user_id == uid || validate_operator(uid))
		return true;
	/* Coordinators come from slurmdbd's user list; without one there
	 * are none (and asking would make assoc_mgr try to fetch it). */
	if (!assoc_mgr_user_list || !job->account)
		return false;
	return assoc_mgr_is_user_acct_coord(acct_db_conn, uid, job->account,
					    false);
}

/* ------------------------------------------------------- configuration */

static const char *reset_name(uint16_t r)
{
	switch (r) {
	case PRIORITY_RESET_NOW: return "NOW";
	case PRIORITY_RESET_DAILY: return "DAILY";
	case PRIORITY_RESET_WEEKLY: return "WEEKLY";
	case PRIORITY_RESET_MONTHLY: return "MONTHLY";
	case PRIORITY_RESET_QUARTERLY: return "QUARTERLY";
	case PRIORITY_RESET_YEARLY: return "YEARLY";
	default: return "NONE";
	}
}

/* PriorityFlags as the names Slurm accepts, from the parsed bitmask. */
static void flags_string(uint16_t f, char *buf, size_t len)
{
	static const struct { uint16_t bit; const char *name; } names[] = {
		{ PRIORITY_FLAGS_ACCRUE_ALWAYS, "ACCRUE_ALWAYS" },
		{ PRIORITY_FLAGS_MAX_TRES, "MAX_TRES" },
		{ PRIORITY_FLAGS_SIZE_RELATIVE, "SMALL_RELATIVE_TO_TIME" },
		{ PRIORITY_FLAGS_DEPTH_OBLIVIOUS, "DEPTH_OBLIVIOUS" },
		{ PRIORITY_FLAGS_CALCULATE_RUNNING, "CALCULATE_RUNNING" },
		{ PRIORITY_FLAGS_INCR_ONLY, "INCR_ONLY" },
		{ PRIORITY_FLAGS_NO_NORMAL_ASSOC, "NO_NORMAL_ASSOC" },
		{ PRIORITY_FLAGS_NO_NORMAL_PART, "NO_NORMAL_PART" },
		{ PRIORITY_FLAGS_NO_NORMAL_QOS, "NO_NORMAL_QOS" },
		{ PRIORITY_FLAGS_NO_NORMAL_TRES, "NO_NORMAL_TRES" },
	};
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & names[i].bit)
			off += snprintf(buf + off, len - off, "%s%s",
					off ? "," : "", names[i].name);
	/* Slurm sets FAIR_TREE unless NO_FAIR_TREE or DEPTH_OBLIVIOUS. */
	if (!(f & PRIORITY_FLAGS_FAIR_TREE) &&
	    !(f & PRIORITY_FLAGS_DEPTH_OBLIVIOUS))
		snprintf(buf + off, len - off, "%sNO_FAIR_TREE", off ? "," : "");
}

struct key_line {
	const char *key;
	int line;
};

static int match_key_line(void *ctx, const char *line, int lineno)
{
	struct key_line *k = ctx;
	size_t n = strlen(k->key);

	while (*line == ' ' || *line == '\t')
		line++;
	if (strncasecmp(line, k->key, n))
		return 0;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == '=')
		k->line = lineno; /* the last one wins, as in Slurm */
	return 0;
}

int fw_slurm_conf_line(const char *key)
{
	struct key_line k = { .key = key };
	struct fw_err ignored;

	if (!slurm_conf.slurm_conf ||
	    fw_read_lines(slurm_conf.slurm_conf, match_key_line, &k, &ignored))
		return 0;
	return k.line;
}

/* Where slurm.conf keys go, and the record of what was fed (the
 * "Key=Value" lines of a kept configuration, see fw_slurm_load_config()). */
struct feed {
	struct fw_config *c;
	struct fw_err *err;
	struct fw_buf *rec;
};

/* Feed one slurm.conf key; on error err names the file, line, key and
 * value. */
static int feed(struct feed *f, const char *key, const char *value)
{
	if (!value)
		return 0;
	fw_buf_printf(f->rec, "%s=%s\n", key, value);
	return fw_config_slurm_at(f->c, key, value, slurm_conf.slurm_conf,
				  fw_slurm_conf_line(key), f->err) == FW_CONF_ERR ? -1 : 0;
}

static int feed_u(struct feed *f, const char *key, unsigned long v,
		  const char *suffix)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%lu%s", v, suffix);
	return feed(f, key, buf);
}

static int feed_slurm_conf(struct feed *f)
{
	char flags[512];

	flags_string(slurm_conf.priority_flags, flags, sizeof(flags));
	return feed_u(f, "PriorityWeightAge", slurm_conf.priority_weight_age, "") ||
	       feed_u(f, "PriorityWeightFairshare", slurm_conf.priority_weight_fs, "") ||
	       feed_u(f, "PriorityWeightJobSize", slurm_conf.priority_weight_js, "") ||
	       feed_u(f, "PriorityWeightPartition", slurm_conf.priority_weight_part, "") ||
	       feed_u(f, "PriorityWeightQOS", slurm_conf.priority_weight_qos, "") ||
	       feed_u(f, "PriorityWeightAssoc", slurm_conf.priority_weight_assoc, "") ||
	       feed(f, "PriorityWeightTRES", slurm_conf.priority_weight_tres) ||
	       feed_u(f, "PriorityMaxAge", slurm_conf.priority_max_age, "s") ||
	       feed(f, "PriorityFavorSmall", slurm_conf.priority_favor_small ? "YES" : "NO") ||
	       feed(f, "PriorityFlags", flags) ||
	       feed_u(f, "PriorityCalcPeriod", slurm_conf.priority_calc_period, "s") ||
	       feed_u(f, "PriorityDecayHalfLife", slurm_conf.priority_decay_hl, "s") ||
	       feed(f, "PriorityUsageResetPeriod", reset_name(slurm_conf.priority_reset_period)) ||
	       feed_u(f, "FairShareDampeningFactor", slurm_conf.fs_dampening_factor, "") ||
	       feed(f, "SchedulerParameters", slurm_conf.sched_params);
}

char *fw_slurm_fairway_conf_path(void)
{
	const char *sc = slurm_conf.slurm_conf ? slurm_conf.slurm_conf
					       : "/etc/slurm/slurm.conf";
	char *copy = strdup(sc), *dir = dirname(copy);
	size_t n = strlen(dir) + sizeof("/fairway.conf");
	char *path = malloc(n);

	snprintf(path, n, "%s/fairway.conf", dir);
	free(copy);
	return path;
}

/* The whole of a file (malloc'd, NUL-terminated): 1 read, 0 absent, -1
 * error (errno). */
static int read_whole(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "re");
	struct fw_buf b = { 0 };
	char chunk[4096];
	size_t n;

	if (!f)
		return errno == ENOENT ? 0 : -1;
	fw_buf_append(&b, "", 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fw_buf_append(&b, chunk, n);
	if (ferror(f)) {
		fclose(f);
		fw_buf_free(&b);
		errno = EIO;
		return -1;
	}
	fclose(f);
	*buf = b.s;
	*len = b.len;
	return 1;
}

/* The separator between the slurm.conf keys and fairway.conf's text in a
 * kept configuration. */
#define KEPT_MARK "%%fairway.conf\n"

/* The current configuration; *rec gets what it was built from. */
static struct fw_config *load_current(struct fw_buf *rec, struct fw_err *err)
{
	struct fw_config *c = fw_config_new();
	struct feed f = { .c = c, .err = err, .rec = rec };
	char *path = fw_slurm_fairway_conf_path(), *text = NULL;
	size_t len = 0;
	int r;

	fw_err_clear(err);
	fw_buf_append(rec, "", 0);
	if (feed_slurm_conf(&f))
		goto fail;
	fw_buf_append(rec, KEPT_MARK, strlen(KEPT_MARK));
	r = read_whole(path, &text, &len);
	if (r < 0) {
		fw_err_set(err, path, 0, NULL, NULL, "cannot read: %s",
			   strerror(errno));
		goto fail;
	}
	if (r > 0) {
		fw_buf_append(rec, text, len);
		if (fw_config_load_buf(c, path, text, len, err))
			goto fail;
	}
	if (fw_config_finish(c, err)) {
		fw_err_locate(err, path, 0);
		goto fail;
	}
	free(text);
	free(path);
	return c;
fail:
	free(text);
	free(path);
	fw_config_free(c);
	return NULL;
}

/* A configuration kept by save_kept(); NULL if there is none or it no
 * longer loads. */
static struct fw_config *load_kept(const char *name)
{
	struct fw_config *c;
	struct fw_err err;
	char *buf = NULL, *line, *mark, msg[256];
	size_t len;
	int lineno = 0;

	if (fw_state_read(name, &buf, &len, msg, sizeof(msg)) != 1)
		return NULL;
	mark = strstr(buf, KEPT_MARK);
	if (!mark) {
		free(buf);
		return NULL;
	}
	*mark = '\0';
	c = fw_config_new();
	for (line = buf; *line; ) {
		char *nl = strchr(line, '\n'), *eq = strchr(line, '=');

		if (nl)
			*nl = '\0';
		lineno++;
		if (eq && eq < (nl ? nl : line + strlen(line))) {
			*eq = '\0';
			if (fw_config_slurm_at(c, line, eq + 1, name, lineno,
					       &err) == FW_CONF_ERR)
				goto fail;
		}
		line = nl ? nl + 1 : line + strlen(line);
	}
	mark += strlen(KEPT_MARK);
	if (fw_config_load_buf(c, name, mark, len - (size_t)(mark - buf), &err) ||
	    fw_config_finish(c, &err))
		goto fail;
	free(buf);
	return c;
fail:
	free(buf);
	fw_config_free(c);
	return NULL;
}

static void save_kept(const char *name, const struct fw_buf *rec)
{
	char msg[512];

	if (fw_state_write(name, rec->s, rec->len, msg, sizeof(msg)))
		debug("fairway: cannot keep the accepted configuration: %s", msg);
}

bool fw_slurm_reconfig_reexec(void)
{
	/* Slurm 23.11+ re-executes slurmctld for a reconfigure and marks the
	 * new process with this variable. */
	return getenv("SLURMCTLD_RECONF") != NULL;
}

struct fw_config *fw_slurm_load_config(const char *service, bool *kept,
				       struct fw_err *err)
{
	struct fw_buf rec = { 0 };
	struct fw_config *c = load_current(&rec, err);
	char name[64];

	snprintf(name, sizeof(name), "fairway_%s_config", service);
	*kept = false;
	if (c) {
		save_kept(name, &rec);
	} else if (fw_slurm_reconfig_reexec()) {
		/* 22.05 keeps the running configuration when a reconfigure
		 * is rejected; a re-executed slurmctld has none, so it gets
		 * the last accepted one back (err still says why). */
		c = load_kept(name);
		*kept = c != NULL;
	}
	fw_buf_free(&rec);
	return c;
}

/* ----------------------------------------------------------- state files */

static char *state_path(const char *name, const char *suffix)
{
	const char *dir = slurm_conf.state_save_location;
	size_t n = strlen(dir) + strlen(name) + strlen(suffix) + 2;
	char *p = malloc(n);

	snprintf(p, n, "%s/%s%s", dir, name, suffix);
	return p;
}

static int fsync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	free(copy);
	if (fd < 0)
		return -1;
	if (fsync(fd))
		rc = -1;
	close(fd);
	return rc;
}

int fw_state_write(const char *name, const char *buf, size_t len,
		   char *errbuf, size_t errlen)
{
	char *final = state_path(name, ""), *tmp = state_path(name, ".new");
	char *old = state_path(name, ".old");
	int fd, rc = -1;
	size_t off = 0;

	if (!xstrcmp(slurm_conf.state_save_location, "/dev/null")) {
		snprintf(errbuf, errlen, "StateSaveLocation=/dev/null: state not saved");
		goto out;
	}
	/*
	 * A fresh file, never one found there: O_TRUNC on a leftover .new
	 * would keep its mode (perhaps world-writable), and O_EXCL|O_NOFOLLOW
	 * refuse a symlink planted in its place.  0600 whatever the umask.
	 */
	if (unlink(tmp) && errno != ENOENT) {
		snprintf(errbuf, errlen, "cannot remove %s: %s", tmp, strerror(errno));
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(errbuf, errlen, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			snprintf(errbuf, errlen, "cannot write %s: %s", tmp, strerror(errno));
			close(fd);
			unlink(tmp);
			goto out;
		}
		off += (size_t)w;
	}
	if (fsync(fd) || close(fd)) {
		snprintf(errbuf, errlen, "cannot sync %s: %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	/* Keep the previous version; a missing one is fine (first save). */
	if (link(final, old) && errno == EEXIST) {
		unlink(old);
		if (link(final, old)) { /* best effort: .old is only a convenience */ }
	}
	if (rename(tmp, final)) {
		snprintf(errbuf, errlen, "cannot rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	fsync_dir(final);
	rc = 0;
out:
	free(final);
	free(tmp);
	free(old);
	return rc;
}

int fw_state_read(const char *name, char **buf, size_t *len, char *errbuf,
		  size_t errlen)
{
	char *path = state_path(name, "");
	FILE *f = fopen(path, "re");
	char *data = NULL;
	size_t cap = 0, n = 0;
	int rc = -1;

	*buf = NULL;
	*len = 0;
	if (!f) {
		rc = errno == ENOENT ? 0 : -1;
		if (rc)
			snprintf(errbuf, errlen, "cannot open %s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	while (1) {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			data = realloc(data, cap);
		}
		size_t r = fread(data + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(errbuf, errlen, "cannot read %s: %s", path, strerror(errno));
		free(data);
	} else {
		data[n] = '\0';
		*buf = data;
		*len = n;
		rc = 1;
	}
	fclose(f);
	free(path);
	return rc;
}

uint64_t fw_state_checksum(const char *buf, size_t len)
{
	return fw_state_hash(buf, len);
}

int fw_state_quarantine(const char *name, char *keptbuf, size_t keptlen)
{
	char suffix[64];
	char *path = state_path(name, ""), *kept;
	int rc;

	snprintf(suffix, sizeof(suffix), ".corrupt-%ld", (long)time(NULL));
	kept = state_path(name, suffix);
	rc = rename(path, kept);
	snprintf(keptbuf, keptlen, "%s", kept);
	free(path);
	free(kept);
	return rc;
}
