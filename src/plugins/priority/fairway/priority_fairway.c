/*
 * priority_fairway.c - priority/fairway: Fairway's priority plugin.
 *
 * A thin adapter between slurmctld and the policy core: the factor model
 * (fw_prio), fair-share (fw_fairshare) and the accrual ledger (fw_accrue).
 * See pf.h for the lock order and pf_jobs.c / pf_usage.c for the
 * translation in each direction.
 *
 * Entry points and the locks their callers hold (Slurm 22.05):
 *   priority_p_set          job W (+ node W, part R in job_allocate)
 *   priority_p_job_end      job W (only with AccountingStorageEnforce=limits)
 *   priority_p_reconfig     none (true) / conf W + job R|W (false)
 *   priority_p_set_assoc_usage  assoc R (sshare) or scheduler locks
 *   priority_p_get_priority_factors_list  none (we take job/node/part R)
 *   priority_p_calc_fs_factor  none (also called inside sshare)
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dlfcn.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/state_save.h"

#include "fw_server.h"
#include "fw_slurm.h"
#include "pf.h"

FW_EXPORT const char plugin_name[] = "Fairway priority plugin";
FW_EXPORT const char plugin_type[] = PLUGIN;
FW_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

FW_EXPORT int init(void);
FW_EXPORT int fini(void);
FW_EXPORT uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr);
FW_EXPORT void priority_p_reconfig(bool assoc_clear);
FW_EXPORT void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc);
FW_EXPORT double priority_p_calc_fs_factor(long double usage_efctv,
					   long double shares_norm);
FW_EXPORT list_t *priority_p_get_priority_factors_list(FW_PRIO_FACTORS_PARAMS);
FW_EXPORT void priority_p_job_end(job_record_t *job_ptr);
FW_EXPORT uint32_t priority_p_recover(uint32_t prio_boost);
FW_EXPORT void priority_p_thread_start(void);

/*
 * slurmctld-only data symbols we reference.  Defining them here (default
 * visibility, so slurmctld's own definitions interpose inside the daemon)
 * lets client commands such as sshare dlopen this plugin: data references
 * are bound at load time even with lazy binding.
 */
FW_EXPORT list_t *job_list = NULL;
FW_EXPORT time_t last_job_update = 0;
FW_EXPORT time_t last_part_update = 0;
FW_EXPORT uint32_t cluster_cpus = NO_VAL;
FW_EXPORT int slurmctld_tres_cnt = 0;
FW_EXPORT uint16_t accounting_enforce = 0;
FW_EXPORT void *acct_db_conn = NULL;

struct pf pf = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.gpu_tres = -1,
};

static struct fw_server *server;

/* ------------------------------------------------------- bypass counts */

/*
 * sched/fairway keeps bypass counts (it is the one that backfills); it
 * exports fairway_sched_bypass_count().  Plugins are loaded RTLD_LOCAL, so
 * find it by opening (without loading) sched_fairway.so from PluginDir.
 */
typedef uint32_t (*bypass_fn)(uint32_t);
static bypass_fn find_bypass_fn(void)
{
	char *dirs = xstrdup(slurm_conf.plugindir), *save = NULL, *d;
	bypass_fn fn = NULL;

	for (d = strtok_r(dirs, ":", &save); d && !fn;
	     d = strtok_r(NULL, ":", &save)) {
		char *path = NULL;
		void *h;

		xstrfmtcat(path, "%s/sched_fairway.so", d);
		h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			fn = (bypass_fn)dlsym(h, "fairway_sched_bypass_count");
			dlclose(h); /* drops only our extra reference */
		}
		xfree(path);
	}
	xfree(dirs);
	return fn;
}

uint32_t pf_bypass_count(uint32_t job_id)
{
	static bypass_fn fn;
	static bool looked;

	if (!looked && xstrcmp(slurm_conf.schedtype, "sched/fairway") == 0) {
		fn = find_bypass_fn();
		looked = fn != NULL; /* sched plugin may load after us */
	}
	return fn ? fn(job_id) : 0;
}

/* --------------------------------------------------------- configuration */

/*
 * Bind PriorityWeightTRES to Slurm's TRES list, which slurmctld builds
 * before it loads the priority plugin (and never changes without a
 * restart).  An unknown TRES is a configuration error like any other.
 * Returns 1 if bound, 0 if the list is not known (not in slurmctld), -1 on
 * error (err names slurm.conf's line).  Caller holds assoc_mgr TRES R.
 */
static int bind_tres_list(struct fw_config *c, struct fw_err *err)
{
	if (!assoc_mgr_tres_name_array || slurmctld_tres_cnt <= 0)
		return 0;
	if (fw_prio_bind_tres(c->prio,
			      (const char *const *)assoc_mgr_tres_name_array,
			      slurmctld_tres_cnt, err) == FW_CONF_ERR) {
		fw_err_locate(err, slurm_conf.slurm_conf,
			      fw_slurm_conf_line("PriorityWeightTRES"));
		return -1;
	}
	return 1;
}

/* The whole configuration, TRES bound; NULL with err on any error. */
static struct fw_config *load_config(bool *tres_bound, bool *kept,
				     struct fw_err *err)
{
	assoc_mgr_lock_t tres_read = { .tres = READ_LOCK };
	struct fw_config *c = fw_slurm_load_config("prio", kept, err);
	int rc;

	if (!c)
		return NULL;
	assoc_mgr_lock(&tres_read);
	rc = bind_tres_list(c, err);
	assoc_mgr_unlock(&tres_read);
	if (rc < 0) {
		fw_config_free(c);
		return NULL;
	}
	*tres_bound = rc > 0;
	return c;
}

/* Late binding (pf.mu and TRES R held), only if the list was unknown when
 * the configuration was loaded. */
static void bind_tres(void)
{
	struct fw_err err;
	int rc;

	if (pf.tres_bound)
		return;
	rc = bind_tres_list(pf.conf, &err);
	if (rc < 0)
		fw_log_err(PLUGIN, &err);
	pf.tres_bound = rc > 0;
}

static int find_gpu_tres(void)
{
	for (int i = 0; assoc_mgr_tres_name_array && i < slurmctld_tres_cnt; i++)
		if (!xstrcasecmp(assoc_mgr_tres_name_array[i], "gres/gpu"))
			return i;
	return -1;
}

/* Install a new configuration (pf.mu held).  On reconfigure the accrual
 * ledger keeps its accrued time; the tree is rebuilt if it depends on it. */
static void install_config(struct fw_config *c, bool tres_bound)
{
	struct fw_config *old = pf.conf;
	bool eligible = fw_prio_accrue_policy(c->prio) == FW_ACCRUE_ELIGIBLE;

	pf.conf = c;
	pf.tres_bound = tres_bound;
	pf.gpu_tres = find_gpu_tres();
	if (eligible && !pf.accrue)
		pf.accrue = fw_accrue_new(c->prio);
	else if (eligible)
		fw_accrue_configure(pf.accrue, c->prio);
	else if (pf.accrue) {
		fw_accrue_free(pf.accrue);
		pf.accrue = NULL;
	}
	if (old && pf.tree) {
		/* fair-share parameters may have changed: rebuild the tree on
		 * the next tick, carrying usage over; a reconfigure is when
		 * PriorityUsageResetPeriod=NOW resets again (as slurmctld) */
		pf.assoc_sig = 0;
		pf.rearm_reset_now = true;
		if (!pf.with_dbd) {
			struct fw_err err;
			struct fw_fs_tree *keep = pf.tree;

			pf.tree = NULL;
			pf.with_dbd = false;
			if (pf_usage_sync_tree(&err)) {
				fw_log_err(PLUGIN, &err);
				pf.tree = keep;
			} else {
				fw_fs_tree_carry_usage(pf.tree, keep);
				fw_fs_tree_free(keep);
			}
		}
	}
	fw_config_free(old);
}

/* ------------------------------------------------------------- state */

/*
 * State file (all sections are text; the fair-share and accrual sections
 * are versioned and checksummed by the core, and the whole file is
 * checksummed too, so that a damaged last_tick or user line is caught):
 *   fairway-priority-state 2
 *   last_tick <epoch>
 *   --users--            (ledger mode: the account/user pairs that exist,
 *   <account> <user>      so usage of accounts created on the fly is kept)
 *   --fairshare--
 *   <fw_fs_state_save>
 *   --accrue--
 *   <fw_accrue_save>
 *   checksum <16 hex digits>   FNV-1a 64 of everything above
 * Version 1 files (no checksum line) are still read.
 */
#define STATE_MAGIC "fairway-priority-state 2\n"
#define STATE_MAGIC_V1 "fairway-priority-state 1\n"
#define SUM_MARK "checksum "
#define USERS_MARK "--users--\n"
#define FS_MARK "\n--fairshare--\n"
#define ACCRUE_MARK "\n--accrue--\n"

static void sb_add(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = realloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

static void sb_str(char **buf, size_t *len, size_t *cap, const char *s)
{
	sb_add(buf, len, cap, s, strlen(s));
}

static char *state_serialise(size_t *len)
{
	char *buf = NULL, line[512];
	size_t cap = 0, fl = 0, al = 0;
	char *fs = pf.tree ? fw_fs_state_save(pf.tree, &fl) : NULL;
	char *ac = pf.accrue ? fw_accrue_save(pf.accrue, &al) : NULL;

	*len = 0;
	snprintf(line, sizeof(line), "%slast_tick %" PRId64 "\n", STATE_MAGIC,
		 (int64_t)pf.last_tick);
	sb_str(&buf, len, &cap, line);
	sb_str(&buf, len, &cap, USERS_MARK);
	for (size_t i = 0; pf.tree && !pf.with_dbd && i < fw_fs_node_count(pf.tree); i++) {
		struct fw_fs_values v;

		if (fw_fs_node_values(pf.tree, (int)i, &v) || !v.is_user)
			continue;
		snprintf(line, sizeof(line), "%s %s\n", v.account, v.name);
		sb_str(&buf, len, &cap, line);
	}
	sb_str(&buf, len, &cap, FS_MARK);
	if (fs)
		sb_add(&buf, len, &cap, fs, fl);
	sb_str(&buf, len, &cap, ACCRUE_MARK);
	if (ac)
		sb_add(&buf, len, &cap, ac, al);
	if (buf[*len - 1] != '\n')
		sb_str(&buf, len, &cap, "\n");
	snprintf(line, sizeof(line), SUM_MARK "%016" PRIx64 "\n",
		 fw_state_checksum(buf, *len));
	sb_str(&buf, len, &cap, line);
	free(fs);
	free(ac);
	return buf;
}

/*
 * Check the trailing checksum line of a version-2 file; on success *len is
 * cut to the checksummed part.  Returns 0, or -1 with a reason.
 */
static int state_verify(const char *buf, size_t *len, struct fw_err *err)
{
	const char *end = buf + *len, *last;
	unsigned long long sum;
	char hex[17];

	if (*len < 2 || end[-1] != '\n')
		return fw_err_set(err, NULL, 0, NULL, NULL, "truncated (no checksum line)");
	for (last = end - 1; last > buf && last[-1] != '\n'; last--)
		;
	if ((size_t)(end - last) != strlen(SUM_MARK) + 17 ||
	    strncmp(last, SUM_MARK, strlen(SUM_MARK)))
		return fw_err_set(err, NULL, 0, NULL, NULL, "truncated (no checksum line)");
	memcpy(hex, last + strlen(SUM_MARK), 16);
	hex[16] = '\0';
	if (strspn(hex, "0123456789abcdef") != 16 || sscanf(hex, "%llx", &sum) != 1 ||
	    sum != fw_state_checksum(buf, (size_t)(last - buf)))
		return fw_err_set(err, NULL, 0, "checksum", hex,
				  "does not match the contents (damaged file)");
	*len = (size_t)(last - buf);
	return 0;
}

/* Ledger mode: recreate account/user nodes that were created on the fly. */
static int recreate_users(const char *p, const char *end, struct fw_err *err)
{
	int line = 3;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char acct[256], user[256];
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char tmp[520];

		line++;
		if (n >= sizeof(tmp) || (memcpy(tmp, p, n), tmp[n] = '\0',
		    sscanf(tmp, "%255s %255s", acct, user) != 2))
			return fw_err_set(err, NULL, line, NULL, NULL, "bad account/user line");
		if (!pf.with_dbd && pf.tree && fw_fs_resolve(pf.tree, acct, user) < 0)
			debug("%s: state names %s/%s, which fair-share ignores", PLUGIN, acct, user);
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* Returns 0, or -1 with a reason (then nothing of the file is used). */
static int state_parse(const char *buf, size_t len, struct fw_err *err)
{
	const char *p = buf, *end = buf + len, *fsm, *acm;
	long long tick;
	int consumed = 0;

	if (len >= strlen(STATE_MAGIC) && !strncmp(p, STATE_MAGIC, strlen(STATE_MAGIC))) {
		if (state_verify(buf, &len, err))
			return -1;
		end = buf + len;
	} else if (len < strlen(STATE_MAGIC_V1) ||
		   strncmp(p, STATE_MAGIC_V1, strlen(STATE_MAGIC_V1))) {
		return fw_err_set(err, NULL, 1, NULL, NULL, "not a Fairway priority state file");
	}
	p += strlen(STATE_MAGIC);
	if (sscanf(p, "last_tick %lld\n%n", &tick, &consumed) != 1 || !consumed)
		return fw_err_set(err, NULL, 2, NULL, NULL, "bad last_tick line");
	p += consumed;
	if ((size_t)(end - p) < strlen(USERS_MARK) ||
	    strncmp(p, USERS_MARK, strlen(USERS_MARK)))
		return fw_err_set(err, NULL, 3, NULL, NULL, "missing account/user section");
	p += strlen(USERS_MARK);
	fsm = memmem(p, (size_t)(end - p), FS_MARK, strlen(FS_MARK));
	acm = fsm ? memmem(fsm, (size_t)(end - fsm), ACCRUE_MARK, strlen(ACCRUE_MARK)) : NULL;
	if (!fsm || !acm)
		return fw_err_set(err, NULL, 0, NULL, NULL, "truncated (section missing)");
	/* Validate both core sections before changing anything. */
	if (recreate_users(p, fsm, err))
		return -1;
	p = fsm + strlen(FS_MARK);
	if (acm > p && pf.tree &&
	    fw_fs_state_load(pf.tree, p, (size_t)(acm - p), NULL, err))
		return -1;
	p = acm + strlen(ACCRUE_MARK);
	if (p < end && pf.accrue &&
	    fw_accrue_load(pf.accrue, p, (size_t)(end - p), err))
		return -1;
	pf.last_tick = (fw_time_t)tick;
	return 0;
}

/* Load at start (pf.mu held). A corrupt file is kept aside. */
static void state_load(void)
{
	char *buf = NULL, msg[512];
	size_t len;
	struct fw_err err;
	int rc = fw_state_read(PF_STATE_FILE, &buf, &len, msg, sizeof(msg));

	if (rc == 0) {
		info("%s: no state file yet (%s/%s): starting with no usage",
		     PLUGIN, slurm_conf.state_save_location, PF_STATE_FILE);
		return;
	}
	fw_err_clear(&err);
	if (rc < 0 || state_parse(buf, len, &err)) {
		char kept[1024] = "";

		if (rc >= 0)
			fw_err_str(&err, msg, sizeof(msg));
		fw_state_quarantine(PF_STATE_FILE, kept, sizeof(kept));
		error("%s: state file %s/%s is unusable (%s); kept aside as %s; starting with no usage",
		      PLUGIN, slurm_conf.state_save_location, PF_STATE_FILE, msg, kept);
		pf.last_tick = 0;
	} else {
		pf.restored = true;
		pf_usage_restored();
		info("%s: restored fair-share usage and accrual state (last tick %ld)",
		     PLUGIN, (long)pf.last_tick);
	}
	free(buf);
}

/* Serialise under pf.mu, write after releasing every lock. */
static void state_save_now(char *buf, size_t len)
{
	char msg[512];

	if (fw_state_write(PF_STATE_FILE, buf, len, msg, sizeof(msg)))
		error("%s: cannot save state: %s", PLUGIN, msg);
	free(buf);
}

/* ------------------------------------------------------------ the tick */

static uint64_t cluster_mem_mb(void)
{
	node_record_t *n;
	uint64_t total = 0;

	for (int i = 0; (n = next_node(&i)); i++)
		total += n->real_memory;
	return total;
}

/*
 * One recalculation.  The job write lock is taken to charge usage and
 * refresh fair-share (assoc_mgr written too), then the priorities are
 * recalculated (pf_recalc.c: inputs copied under the read lock, computed
 * outside every lock, stored under the write lock, in holds of at most a
 * few milliseconds).  Returns the serialised state to save (or NULL).
 */
static char *tick(size_t *state_len)
{
	slurmctld_lock_t usage_locks = { .job = WRITE_LOCK, .node = READ_LOCK,
					 .part = READ_LOCK };
	assoc_mgr_lock_t assoc_write = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK,
					 .tres = READ_LOCK, .user = READ_LOCK };
	struct pf_recalc_stats st;
	struct pf_hold h;
	fw_time_t now;
	struct fw_err err;
	char *state = NULL;
	static bool first = true;
	double longest;

	memset(&st, 0, sizeof(st));
	/* usage and fair-share: job W, assoc_mgr W */
	lock_slurmctld(usage_locks);
	pf_hold_begin(&h);
	assoc_mgr_lock(&assoc_write);
	pthread_mutex_lock(&pf.mu);
	now = time(NULL);
	bind_tres();
	pf.total_mem_mb = cluster_mem_mb();
	if (pf_usage_sync_tree(&err))
		fw_log_err(PLUGIN, &err);
	if (first) {
		first = false;
		state_load();
		pf_usage_restart_run_secs();
	}
	pf_usage_tick(now);
	pf_usage_mirror_to_assoc_mgr();
	pthread_mutex_unlock(&pf.mu);
	assoc_mgr_unlock(&assoc_write);
	pf_hold_end(&h, &st.write);
	unlock_slurmctld(usage_locks);

	pf_recalc_run(now, &st);

	pthread_mutex_lock(&pf.mu);
	pf.ticks++;
	if (now - pf.last_save >= 60 || pf.ticks == 1) {
		state = state_serialise(state_len);
		pf.last_save = now;
	}
	pf.last = st;
	if (st.write.ms > pf.max_write_ms)
		pf.max_write_ms = st.write.ms;
	longest = pf.max_write_ms;
	pthread_mutex_unlock(&pf.mu);
	if (slurm_conf.debug_flags & DEBUG_FLAG_PRIO)
		info("%s: recalculation of %u jobs held the job write lock for %.1f ms in %u holds (longest %.1f ms, CPU %.1f ms; most in a recalculation so far %.1f ms); read lock %.1f ms in %u holds (longest %.1f ms, CPU %.1f ms); computed outside the locks in %.1f ms; %u stored, %u changed meanwhile",
		     PLUGIN, st.jobs, st.write.ms, st.write.holds,
		     st.write.max_ms, st.write.cpu_ms, longest, st.read.ms,
		     st.read.holds, st.read.max_ms, st.read.cpu_ms,
		     st.compute_ms, st.stored, st.skipped);
	return state;
}

/* One line: what is wrong, where (file:line: key=value), what happens now. */
static void log_config_error(const struct fw_err *err, const char *outcome)
{
	char buf[1024];

	error("%s: %s; %s", PLUGIN, fw_err_str(err, buf, sizeof(buf)), outcome);
}

static void reload_config(void)
{
	slurmctld_lock_t conf_read = { .conf = READ_LOCK };
	struct fw_config *c;
	struct fw_err err;
	bool bound = false, kept;

	lock_slurmctld(conf_read);
	c = load_config(&bound, &kept, &err);
	unlock_slurmctld(conf_read);
	if (!c || kept) {
		/* (kept: the same configuration that is running) */
		log_config_error(&err, "reconfigure rejected, the previous configuration stays in effect");
		fw_config_free(c);
		return;
	}
	pthread_mutex_lock(&pf.mu);
	install_config(c, bound);
	pthread_mutex_unlock(&pf.mu);
	info("%s: configuration reloaded", PLUGIN);
}

static void *recalc_thread(void *arg)
{
	(void)arg;
	while (1) {
		struct timespec ts;
		size_t len = 0;
		char *state;
		bool reconf;

		state = tick(&len);
		if (state)
			state_save_now(state, len);
		pthread_mutex_lock(&pf.mu);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += fw_prio_calc_period(pf.conf->prio);
		while (!pf.stop && !pf.reconfig &&
		       pthread_cond_timedwait(&pf.cond, &pf.mu, &ts) == 0)
			;
		reconf = pf.reconfig;
		pf.reconfig = false;
		if (pf.stop) {
			pthread_mutex_unlock(&pf.mu);
			break;
		}
		pthread_mutex_unlock(&pf.mu);
		if (reconf)
			reload_config();
	}
	return NULL;
}

/* ------------------------------------------------------ explain server */

/*
 * May uid see the job (PrivateData=jobs)?  Decided under the job read lock
 * alone: Slurm's operator and coordinator checks may take assoc_mgr's user
 * write lock (without slurmdbd they try to fetch the user list), which would
 * deadlock under the assoc_mgr read locks the breakdown needs.  False for
 * absent and invisible jobs alike, so nothing leaks about other users' jobs.
 */
static bool job_visible(uint32_t job_id, uid_t uid)
{
	slurmctld_lock_t job_read = { .job = READ_LOCK };
	job_record_t *job;
	bool visible;

	lock_slurmctld(job_read);
	job = find_job_record(job_id);
	visible = job && fw_job_visible_to(job, uid);
	unlock_slurmctld(job_read);
	return visible;
}

static char *handle_request(uid_t uid, const char *req)
{
	slurmctld_lock_t locks = { .job = READ_LOCK, .node = READ_LOCK,
				   .part = READ_LOCK };
	assoc_mgr_lock_t alocks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				    .tres = READ_LOCK, .user = READ_LOCK };
	unsigned long id;
	char *reply;

	if (sscanf(req, "priority %lu", &id) != 1)
		return strdup("error: unknown request (expected: priority JOBID)\n");
	if (!job_visible((uint32_t)id, uid))
		return pf_explain_absent((uint32_t)id);
	lock_slurmctld(locks);
	assoc_mgr_lock(&alocks);
	pthread_mutex_lock(&pf.mu);
	reply = pf_explain_job((uint32_t)id);
	pthread_mutex_unlock(&pf.mu);
	assoc_mgr_unlock(&alocks);
	unlock_slurmctld(locks);
	return reply;
}

/* ---------------------------------------------------------- entry points */

int init(void)
{
	struct fw_err err;
	struct fw_config *c;
	bool bound = false, kept;

	if (!fw_in_slurmctld())
		return SLURM_SUCCESS; /* sshare: only calc_fs_factor is used */
	/* slurm_conf is stable here (init runs before any reconfigure). */
	c = load_config(&bound, &kept, &err);
	if (!c) {
		log_config_error(&err, "refusing to start");
		return SLURM_ERROR;
	}
	/* Slurm 23.11+ re-executes slurmctld for a reconfigure: this init is
	 * the reconfigure, and a rejected configuration left the kept one. */
	if (kept)
		log_config_error(&err, "reconfigure rejected, the previous configuration stays in effect");
	else if (fw_slurm_reconfig_reexec())
		info("%s: configuration reloaded", PLUGIN);
	pthread_mutex_lock(&pf.mu);
	install_config(c, bound);
	pf.stop = false;
	pthread_mutex_unlock(&pf.mu);
	if (pthread_create(&pf.thread, NULL, recalc_thread, NULL)) {
		error("%s: cannot start the recalculation thread", PLUGIN);
		return SLURM_ERROR;
	}
	pf.thread_running = true;
	server = fw_slurm_serve(PLUGIN, "prio", pf.conf, 0, handle_request);
	info("%s loaded (fair-share %s, recalculation every %" PRId64 " s)", PLUGIN,
	     fw_fs_formula_name(pf.conf->fs->formula),
	     (int64_t)fw_prio_calc_period(pf.conf->prio));
	return SLURM_SUCCESS;
}

int fini(void)
{
	size_t len = 0;
	char *state = NULL;

	fw_server_stop(server);
	server = NULL;
	if (pf.thread_running) {
		pthread_mutex_lock(&pf.mu);
		pf.stop = true;
		pthread_cond_broadcast(&pf.cond);
		pthread_mutex_unlock(&pf.mu);
		pthread_join(pf.thread, NULL);
		pf.thread_running = false;
	}
	pthread_mutex_lock(&pf.mu);
	if (pf.tree)
		state = state_serialise(&len);
	pthread_mutex_unlock(&pf.mu);
	if (state)
		state_save_now(state, len);
	pthread_mutex_lock(&pf.mu);
	pf_usage_free();
	pf_recalc_free();
	fw_accrue_free(pf.accrue);
	pf.accrue = NULL;
	fw_config_free(pf.conf);
	pf.conf = NULL;
	pthread_mutex_unlock(&pf.mu);
	return SLURM_SUCCESS;
}

uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	assoc_mgr_lock_t alocks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				    .tres = READ_LOCK };
	uint32_t prio;

	(void)last_prio;
	if (job_ptr->direct_set_prio)
		return job_ptr->priority;
	assoc_mgr_lock(&alocks);
	pthread_mutex_lock(&pf.mu);
	if (!pf.conf) {
		prio = 1; /* not initialised (cannot happen inside slurmctld) */
	} else {
		/* TRES are bound at load (bind_tres() is for the
		 * recalculation thread only: it changes pf.conf) */
		pf_usage_sync_for_job(job_ptr);
		prio = pf_compute_job(job_ptr, time(NULL), true);
		pf_recalc_touch(job_ptr->job_id);
	}
	pthread_mutex_unlock(&pf.mu);
	assoc_mgr_unlock(&alocks);
	return prio;
}

void priority_p_reconfig(bool assoc_clear)
{
	/* Called with slurmctld locks held when !assoc_clear: only flag. */
	(void)assoc_clear;
	pthread_mutex_lock(&pf.mu);
	pf.reconfig = true;
	pthread_cond_broadcast(&pf.cond);
	pthread_mutex_unlock(&pf.mu);
}

void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	struct fw_fs_values v;
	int node;

	/* Callers may hold the assoc lock: take none, only pf.mu. */
	pthread_mutex_lock(&pf.mu);
	node = pf.tree && pf.with_dbd && assoc->id < pf.assoc_node_len ?
		pf.assoc_node[assoc->id] : -1;
	if (node >= 0 && assoc->usage && !fw_fs_node_values(pf.tree, node, &v)) {
		assoc->usage->usage_norm = v.usage_norm;
		assoc->usage->usage_efctv = v.usage_efctv;
	}
	pthread_mutex_unlock(&pf.mu);
}

double priority_p_calc_fs_factor(long double usage_efctv,
				 long double shares_norm)
{
	/* Slurm's classic formula, as sshare shows it for non-Fair-Tree
	 * sites; Fairway's own factor is in each association's fs_factor. */
	double damp = slurm_conf.fs_dampening_factor ?
		slurm_conf.fs_dampening_factor : 1;

	if (shares_norm <= 0 || usage_efctv == (long double)NO_VAL)
		return 0.0;
	return pow(2.0, -(double)(usage_efctv / shares_norm) / damp);
}

static bool list_has_u32(list_t *l, uint32_t v)
{
	list_itr_t *it;
	uint32_t *p;
	bool found = false;

	if (!l)
		return true;
	it = list_iterator_create(l);
	while ((p = list_next(it)))
		if (*p == v) {
			found = true;
			break;
		}
	list_iterator_destroy(it);
	return found;
}

static bool partition_requested(const char *parts, const char *name)
{
	char *copy, *tok, *save = NULL;
	bool found = false;

	if (!parts)
		return true;
	copy = xstrdup(parts);
	for (tok = strtok_r(copy, ",", &save); tok && !found;
	     tok = strtok_r(NULL, ",", &save))
		found = name && !xstrcmp(tok, name);
	xfree(copy);
	return found;
}

static bool sprio_lists(const job_record_t *job, uid_t uid, fw_time_t now,
			uint32_t flags)
{
	fw_time_t use = (flags & FW_PRIO_FLAG_ACCRUE_ALWAYS) ?
		job->details->submit_time : job->details->begin_time;

	if (!(IS_JOB_PENDING(job) ||
	      ((flags & FW_PRIO_FLAG_CALCULATE_RUNNING) && IS_JOB_RUNNING(job))))
		return false;
	if (IS_JOB_REVOKED(job) || job->priority == 0 || !use || use > now)
		return false;
	return fw_job_visible_to(job, uid);
}

list_t *priority_p_get_priority_factors_list(FW_PRIO_FACTORS_PARAMS)
{
	const fw_prio_request_t *req = FW_PRIO_FACTORS_REQ;
	slurmctld_lock_t locks = { .job = READ_LOCK, .node = READ_LOCK,
				   .part = READ_LOCK };
	assoc_mgr_lock_t alocks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				    .tres = READ_LOCK };
	list_t *ret = list_create(slurm_destroy_priority_factors_object);
	fw_time_t now = time(NULL);
	list_itr_t *it;
	job_record_t *job;
	uint32_t flags;

	if (FW_PRIO_FACTORS_CALLER_LOCKED)
		alocks.qos = NO_LOCK;
	else
		lock_slurmctld(locks);
	assoc_mgr_lock(&alocks);
	pthread_mutex_lock(&pf.mu);
	flags = pf.conf ? fw_prio_flags(pf.conf->prio) : 0;
	it = list_iterator_create(job_list);
	while (pf.conf && (job = list_next(it))) {
		if (!job->details || !sprio_lists(job, uid, now, flags) ||
		    !list_has_u32(fw_prio_req_jobs(req), job->job_id) ||
		    !list_has_u32(fw_prio_req_users(req), job->user_id))
			continue;
		if (job->part_ptr_list) {
			list_itr_t *pit = list_iterator_create(job->part_ptr_list);
			part_record_t *part;

			while ((part = list_next(pit)))
				if (partition_requested(fw_prio_req_partitions(req), part->name))
					list_append(ret, pf_factors_object(job, part, now));
			list_iterator_destroy(pit);
		} else if (job->part_ptr &&
			   partition_requested(fw_prio_req_partitions(req), job->part_ptr->name)) {
			list_append(ret, pf_factors_object(job, job->part_ptr, now));
		}
	}
	list_iterator_destroy(it);
	pthread_mutex_unlock(&pf.mu);
	assoc_mgr_unlock(&alocks);
	if (!FW_PRIO_FACTORS_CALLER_LOCKED)
		unlock_slurmctld(locks);
	if (!list_count(ret))
		FREE_NULL_LIST(ret);
	return ret;
}

void priority_p_job_end(job_record_t *job_ptr)
{
	assoc_mgr_lock_t alocks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				    .tres = READ_LOCK };

	/* job W held by the caller; assoc_mgr is not. */
	assoc_mgr_lock(&alocks);
	pthread_mutex_lock(&pf.mu);
	pf_usage_job_end(job_ptr, time(NULL));
	pthread_mutex_unlock(&pf.mu);
	assoc_mgr_unlock(&alocks);
}

/*
 * Slurm 23.02+ calls this after recovering job state; priority/basic uses
 * it to lift all priorities.  Fairway computes every priority itself (as on
 * 22.05, where slurmctld boosted only priority/basic's jobs): no boost.
 */
uint32_t priority_p_recover(uint32_t prio_boost)
{
	(void)prio_boost;
	return 0;
}

/*
 * Slurm 23.11+ calls this once slurmctld is ready for plugin threads.
 * Fairway's recalculation thread already starts in init() (in slurmctld
 * only), the same on every release, so there is nothing left to start.
 */
void priority_p_thread_start(void)
{
}
