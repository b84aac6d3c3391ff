/*
 * sf_pass.c - sched/fairway: one main or backfill pass.
 *
 * The pass builds the planner's view (cluster, running jobs, advanced
 * reservations, unavailable nodes), offers the queue to the core planner in
 * priority order and applies each decision through slurmctld's own paths:
 * jobs start through select_nodes() with every node the planner does not
 * allow excluded, waiting jobs get StartTime/SchedNodeList and a reason.
 *
 * Per queue record it does the housekeeping Slurm's own schedulers do
 * (array tasks, reservations, partition/QOS/association limits, deadlines,
 * federation locks) before asking the planner.  Long passes yield the locks
 * every bf_yield_interval; job pointers stay valid across a yield because
 * slurmctld_diag_stats.bf_active stops purge_old_job(), and the pass is
 * abandoned if partitions, reservations or the configuration changed.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/acct_policy.h"
#include "src/slurmctld/fed_mgr.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/licenses.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/reservation.h"
#include "src/slurmctld/slurmctld.h"

#include "fw_slurm.h"
#include "sf.h"

/* One queue record and its planner job. */
struct qentry {
	job_queue_rec_t *rec;          /* owned until processed */
	job_record_t *job;
	part_record_t *part;
	struct fw_plan_job fj;
	struct fw_bitset *req, *exc;   /* owned */
	struct fw_plan_lic *lics;      /* owned */
	struct fw_gres_count *gres;    /* owned */
	uint32_t *pre;                 /* classes it may preempt (owned) */
	bool requeuing;                /* a victim slurmctld is requeueing:
					  planned, the job not touched */
};

/* Nodes that lack the features a job requires (--constraint), computed
 * once per distinct request and pass. */
struct feat_memo {
	char *features;
	struct fw_bitset *lacking;     /* NULL: no filter (XOR, counts) */
};
#define FEAT_MEMO_MAX 64

/* What an active CoreCnt reservation holds on each of its nodes. */
struct core_hold {
	uint32_t node;		/* node index */
	uint32_t cpus;		/* CPUs reserved there */
};

struct resv_map {
	slurmctld_resv_t *resv;
	int32_t idx;
	struct core_hold *hold;	/* NULL: whole nodes */
	uint32_t nhold;
};

/* Job ids (open addressing; 0 = empty). */
struct idset {
	uint32_t *slot;
	uint32_t cap, cnt;
};

struct pass {
	enum sf_pass_kind kind;
	struct timespec mark;          /* end of the last charged phase */
	struct sf_pass_times t;        /* where the pass's time went */
	time_t now;
	struct fw_plan *plan;
	struct qentry *q;
	size_t n;
	size_t *order;
	struct fw_plan_heads *heads;   /* ReservationOrder=submit, or NULL */
	struct fw_plan_late *late;     /* victims it requeues (backfill) */
	struct qentry **lq;            /* their entries (owned) */
	size_t nlq, lq_cap;
	struct fw_plan_job *hjobs;     /* the queue as the heads cursor saw it */
	enum fw_plan_kind last_kind;   /* of the last record decided */
	uint32_t *seq_job;             /* planner seq -> job id */
	size_t nseq, seq_cap;
	struct resv_map *resv;
	size_t nresv;
	struct timespec t_start, t_locked;
	int started, backfilled, tested;
	job_record_t *reject_array;    /* array already found not runnable */
	part_record_t *reject_array_part;
	time_t saved_job, saved_node, saved_part, saved_resv, saved_conf;
	bool abandoned;
	bool jobs_touched;             /* others updated jobs during a yield */
	struct feat_memo *feat;        /* nodes lacking each feature request */
	size_t nfeat;
	struct idset estimated;        /* jobs given StartTime in this pass */
	struct idset requeuing;        /* victims planned as requeued */
	uint32_t *whole_job;           /* shared cluster: per node, the running
					  job added whole there (its planner
					  record has no id), or 0 */
	/* Shared nodes: what one job holds on each of its nodes (scratch,
	 * reused job after job). */
	struct fw_node_use *use;
	struct fw_gres_count *use_gres; /* use_cap x cluster GRES entries */
	uint64_t *gcnt;                /* per cluster GRES: one node's counts */
	uint32_t use_cap;
};

static slurmctld_lock_t pass_locks = {
	.conf = READ_LOCK, .job = WRITE_LOCK, .node = WRITE_LOCK,
	.part = READ_LOCK, .fed = READ_LOCK,
	FW_LOCK_SELECT_NODE(WRITE_LOCK) /* starts jobs (Slurm 26.05+) */
};

static int64_t ns_between(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 +
	       (b->tv_nsec - a->tv_nsec);
}

static int64_t us_between(const struct timespec *a, const struct timespec *b)
{
	return ns_between(a, b) / 1000;
}

/* Charge the time since the last phase ended to *bucket (nanoseconds: a
 * few charges per job, microseconds would lose ~0.5 us to rounding each,
 * 100 ms over a 50,000-job pass): one clock read per phase boundary. */
static void charge(struct pass *p, int64_t *bucket)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	*bucket += ns_between(&p->mark, &now);
	p->mark = now;
}

/* --------------------------------------------------------- the timeline */

static int32_t license_index(const char *name)
{
	for (int i = 0; sf.lic_names && sf.lic_names[i]; i++)
		if (!xstrcmp(sf.lic_names[i], name))
			return i;
	return -1;
}

/* licenses_t list of a job -> planner license array (NULL if none). */
static struct fw_plan_lic *job_licenses(job_record_t *job, uint32_t *n)
{
	list_itr_t *it;
	licenses_t *l;
	struct fw_plan_lic *out;
	uint32_t k = 0;

	*n = 0;
	if (!job->license_list || !list_count(job->license_list))
		return NULL;
	out = xcalloc(list_count(job->license_list), sizeof(*out));
	it = list_iterator_create(job->license_list);
	while ((l = list_next(it))) {
		int32_t idx = license_index(l->name);

		if (idx < 0)
			continue; /* remote license: Slurm checks it */
		out[k].idx = (uint32_t)idx;
		out[k].count = l->total;
		k++;
	}
	list_iterator_destroy(it);
	*n = k;
	return out;
}

static void mark_unavailable_nodes(struct pass *p, struct fw_bitset *tmp)
{
	struct fw_bitset *avail = fw_bitset_new(sf.cluster->nnodes);
	struct fw_err err;
	int64_t i;

	sf_bits_from_slurm(avail, avail_node_bitmap);
	sf_bits_from_slurm(tmp, rs_node_bitmap);
	fw_bitset_or(avail, tmp);
	fw_bitset_not(avail);
	FW_BITSET_FOREACH(avail, i) {
		if ((uint32_t)i >= sf.cluster->nnodes)
			break;
		fw_plan_node_down(p->plan, (uint32_t)i, &err);
	}
	fw_bitset_free(avail);
}

/* ------------------------------------------------------ shared nodes */

static void use_reserve(struct pass *p, uint32_t n)
{
	uint32_t ng = sf.cluster->ngres ? sf.cluster->ngres : 1;

	if (!p->gcnt)
		p->gcnt = xcalloc(ng, sizeof(uint64_t));
	if (n <= p->use_cap)
		return;
	p->use_cap = n * 2;
	xrecalloc(p->use, p->use_cap, sizeof(*p->use));
	xrecalloc(p->use_gres, (size_t)p->use_cap * ng, sizeof(*p->use_gres));
}

/* Count `cnt` of GRES NAME[:TYPE] on the node being read (a GRES the
 * cluster does not know is left to select_nodes()). */
static void use_gres_add(struct pass *p, const char *name, const char *type,
			 uint64_t cnt)
{
	char key[256];
	int32_t idx = fw_cluster_gres_index(sf.cluster,
					    sf_gres_key(key, sizeof(key), name,
							type));

	if (idx >= 0)
		p->gcnt[idx] += cnt;
}

static gres_node_state_t *node_gres_state(node_record_t *n, const char *name)
{
	gres_node_state_t *ns = NULL;
	list_itr_t *it;
	gres_state_t *gs;

	if (!n->gres_list)
		return NULL;
	it = list_iterator_create(n->gres_list);
	while ((gs = list_next(it)))
		if (!xstrcmp(gs->gres_name, name)) {
			ns = gs->gres_data;
			break;
		}
	list_iterator_destroy(it);
	return ns;
}

/* Devices of `bits` (a job's GRES bitmap on node) of topo entry t. */
static uint64_t topo_overlap(const gres_node_state_t *ns, int t, bitstr_t *bits)
{
	if (!ns->topo_gres_bitmap[t] || !ns->topo_type_name[t] ||
	    bit_size(ns->topo_gres_bitmap[t]) != bit_size(bits))
		return 0;
	return (uint64_t)bit_overlap(bits, ns->topo_gres_bitmap[t]);
}

/*
 * An allocation of `cnt` untyped GRES `name` (--gres=gpu:1) on a node
 * that has typed ones: it took devices of some type, and jobs asking for
 * that type must not count on them.  The types are those of the devices
 * in the job's bitmap (the node's per-device topo records); when the
 * bitmap does not tell (count-only or shared GRES), every type of the
 * node counts `cnt` (an over-estimate).
 */
static void untyped_alloc(struct pass *p, node_record_t *n, const char *name,
			  bitstr_t *bits, uint64_t cnt)
{
	gres_node_state_t *ns = node_gres_state(n, name);
	uint64_t found = 0;

	if (!ns || !ns->type_cnt || !ns->type_name)
		return;
	if (bits && ns->topo_cnt && ns->topo_gres_bitmap && ns->topo_type_name) {
		for (int t = 0; t < ns->topo_cnt; t++)
			found += topo_overlap(ns, t, bits);
		if (found == cnt) {
			for (int t = 0; t < ns->topo_cnt; t++) {
				uint64_t c = topo_overlap(ns, t, bits);

				if (c)
					use_gres_add(p, name,
						     ns->topo_type_name[t], c);
			}
			return;
		}
	}
	for (int t = 0; t < ns->type_cnt; t++)
		if (ns->type_name[t])
			use_gres_add(p, name, ns->type_name[t], cnt);
}

/* GRES the job holds on node nd, the j-th of its allocation, into u (its
 * entries go to p->use_gres row k). */
static void node_gres_use(struct pass *p, job_record_t *job,
			  node_record_t *nd, uint32_t j, struct fw_node_use *u,
			  uint32_t k)
{
	uint32_t ng = sf.cluster->ngres, m = 0;
	struct fw_gres_count *out = p->use_gres + (size_t)k * (ng ? ng : 1);
	list_itr_t *it;
	gres_state_t *gs;

	u->gres = out;
	u->ngres = 0;
	if (!job->gres_list_alloc)
		return;
	memset(p->gcnt, 0, (ng ? ng : 1) * sizeof(uint64_t));
	it = list_iterator_create(job->gres_list_alloc);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;
		uint64_t c;

		if (!js || !gs->gres_name || !js->gres_cnt_node_alloc ||
		    j >= js->node_cnt || !(c = js->gres_cnt_node_alloc[j]))
			continue;
		if (!xstrcmp(gs->gres_name, "gpu"))
			u->gpus += c > UINT32_MAX - u->gpus ? UINT32_MAX - u->gpus
							    : (uint32_t)c;
		else
			use_gres_add(p, gs->gres_name, NULL, c);
		if (js->type_name)
			use_gres_add(p, gs->gres_name, js->type_name, c);
		else
			untyped_alloc(p, nd, gs->gres_name,
				      js->gres_bit_alloc ? js->gres_bit_alloc[j]
							 : NULL, c);
	}
	list_iterator_destroy(it);
	for (uint32_t g = 0; g < ng; g++)
		if (p->gcnt[g]) {
			out[m].idx = g;
			out[m].count = p->gcnt[g];
			m++;
		}
	u->ngres = m;
}

/* Does the job hold its nodes whole?  Every job on select/linear; on
 * select/cons_tres with --exclusive or OverSubscribe=EXCLUSIVE (no other
 * job may use its nodes). */
static bool holds_whole_nodes(job_record_t *job)
{
	return sf.cluster->whole_jobs || fw_job_whole_node(job) ||
	       (job->part_ptr && job->part_ptr->max_share == 0);
}

/*
 * What a running or just started job holds on each of its nodes, as
 * select/cons_tres recorded it in job_resrcs: CPUs = its cores there times
 * the node's threads per core (no fewer than job_resrcs->cpus; two jobs
 * never share a core), memory_allocated where memory is consumable, and
 * each GRES of gres_list_alloc.  Fills p->use[0 .. *n - 1]; false when
 * the job has no such record (then it is planned on whole nodes).
 */
static bool job_use(struct pass *p, job_record_t *job, uint32_t *n)
{
	job_resources_t *jr = job->job_resrcs;
	int64_t last;
	uint32_t j = 0, k = 0;
	bool mem;

	*n = 0;
	if (!jr || !jr->node_bitmap || !jr->cpus || !jr->nhosts)
		return false;
	mem = jr->memory_allocated &&
	      (sf_part_cr_type(job->part_ptr) & FW_CR_MEMORY);
	use_reserve(p, jr->nhosts);
	last = bit_fls(jr->node_bitmap);
	for (int64_t i = bit_ffs(jr->node_bitmap);
	     i >= 0 && i <= last && i < node_record_count && j < jr->nhosts;
	     i++) {
		node_record_t *nd = node_record_table_ptr[i];
		struct fw_node_use *u = &p->use[k];
		int cores;

		if (!bit_test(jr->node_bitmap, i))
			continue;
		/* j: the node's index in the job's allocation */
		if (!nd || (job->node_bitmap && !bit_test(job->node_bitmap, i))) {
			j++;
			continue;
		}
		memset(u, 0, sizeof(*u));
		u->node = (uint32_t)i;
		u->job = job->job_id;
		cores = jr->core_bitmap && jr->sock_core_rep_count ?
			count_job_resources_node(jr, j) : 0;
		u->cpus = cores > 0 ? (uint32_t)cores * sf_node_tpc(nd) : 0;
		if (u->cpus < jr->cpus[j])
			u->cpus = jr->cpus[j];
		u->mem_mb = mem ? jr->memory_allocated[j] : 0;
		node_gres_use(p, job, nd, j, u, k);
		k++;
		j++;
	}
	*n = k;
	return true;
}

/* A running job added by whole nodes on a shared cluster: remembered per
 * node, so that `fairway explain` can name it among what a waiting job
 * waits for (fw_plan_add_running records no job id). */
static void note_whole_job(struct pass *p, const struct fw_bitset *nodes,
			   uint32_t job_id)
{
	int64_t i;

	if (!p->whole_job)
		p->whole_job = xcalloc(sf.cluster->nnodes, sizeof(uint32_t));
	FW_BITSET_FOREACH(nodes, i)
		p->whole_job[i] = job_id;
}

static void add_running_jobs(struct pass *p, struct fw_bitset *tmp)
{
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job;
	struct fw_err err;

	while ((job = list_next(it))) {
		struct fw_plan_lic *lics;
		struct fw_preempt_run pr;
		uint32_t nl, nu;
		fw_time_t end;
		bool pre, whole;
		int rc;

		if (!(IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job)) ||
		    !job->node_bitmap)
			continue;
		sf_bits_from_slurm(tmp, job->node_bitmap);
		end = job->time_limit == INFINITE ? 0 : job->end_time;
		if (end && end <= p->now)
			end = p->now; /* over its limit: ends any moment */
		lics = job_licenses(job, &nl);
		/* Suspended jobs too: they keep their memory, and resume.
		 * A preemption candidate counts as freeable for the jobs
		 * that may preempt it (the planner only preempts on a
		 * shared cluster, per node amounts; one that holds whole
		 * nodes frees them whole). */
		pre = sf.cluster->shared && sf_preempt_run(job, &pr);
		whole = holds_whole_nodes(job);
		/* Per-node uses only where the plan needs them: a job that
		 * holds whole nodes and may not be preempted is whole. */
		if (sf.cluster->shared && (pre || !whole) &&
		    job_use(p, job, &nu)) {
			if (pre) {
				pr.whole = whole;
				rc = fw_plan_add_running_preemptable(
					p->plan, p->use, nu, end, lics, nl,
					&pr, &err);
			} else {
				rc = fw_plan_add_running_use(
					p->plan, p->use, nu, end, lics, nl,
					&err);
			}
		} else {
			rc = fw_plan_add_running(p->plan, tmp, end, lics, nl,
						 &err);
			if (sf.cluster->shared)
				note_whole_job(p, tmp, job->job_id);
		}
		if (rc)
			fw_log_err(PLUGIN, &err);
		xfree(lics);
	}
	list_iterator_destroy(it);
	/* Nodes still completing earlier jobs are busy for the moment. */
	if (cg_node_bitmap && bit_set_count(cg_node_bitmap)) {
		sf_bits_from_slurm(tmp, cg_node_bitmap);
		fw_plan_add_running(p->plan, tmp, p->now, NULL, 0, &err);
	}
}

/*
 * The CPUs an active reservation of cores (CoreCnt=, not whole nodes) holds
 * on each of its nodes, or NULL for a whole-node reservation.  Reservations
 * that start later are planned on whole nodes: the plan then never counts
 * on the cores they will take.
 */
static struct core_hold *core_holds(slurmctld_resv_t *r, time_t now,
				    uint32_t *n)
{
	struct core_hold *h;
	int64_t i;

	*n = 0;
	if ((r->ctld_flags & RESV_CTLD_FULL_NODE) || !r->core_bitmap ||
	    r->start_time > now)
		return NULL;
	h = xcalloc(bit_set_count(r->node_bitmap) + 1, sizeof(*h));
	for (i = bit_ffs(r->node_bitmap); i >= 0 && i < node_record_count;
	     i++) {
		node_record_t *nd = node_record_table_ptr[i];
		uint32_t lo, hi, c = 0;

		if (!nd || !bit_test(r->node_bitmap, i))
			continue;
		lo = cr_get_coremap_offset(i);
		hi = cr_get_coremap_offset(i + 1);
		for (uint32_t k = lo; k < hi; k++)
			if (bit_test(r->core_bitmap, k))
				c++;
		h[*n].node = (uint32_t)i;
		h[*n].cpus = c * (nd->tpc ? nd->tpc : 1);
		(*n)++;
	}
	return h;
}

/* On a shared cluster: the CPUs an active CoreCnt reservation holds on
 * each of its nodes, which other jobs plan around. */
static void resv_hold(struct pass *p, int32_t idx, const struct core_hold *h,
		      uint32_t n)
{
	struct fw_err err;

	use_reserve(p, n);
	for (uint32_t k = 0; k < n; k++) {
		memset(&p->use[k], 0, sizeof(p->use[k]));
		p->use[k].node = h[k].node;
		p->use[k].cpus = h[k].cpus;
	}
	if (fw_plan_resv_hold(p->plan, idx, p->use, n, &err))
		fw_log_err(PLUGIN, &err);
}

static void add_reservations(struct pass *p, struct fw_bitset *tmp)
{
	list_itr_t *it;
	slurmctld_resv_t *r;
	struct fw_err err;

	if (!resv_list)
		return;
	p->resv = xcalloc(list_count(resv_list) + 1, sizeof(*p->resv));
	it = list_iterator_create(resv_list);
	while ((r = list_next(it))) {
		struct core_hold *hold;
		uint32_t nhold;
		int32_t idx;

		if (!r->node_bitmap || r->end_time <= p->now)
			continue;
		sf_bits_from_slurm(tmp, r->node_bitmap);
		hold = core_holds(r, p->now, &nhold);
		idx = hold ? fw_plan_add_partial_resv(p->plan, r->name, tmp,
						      r->start_time,
						      r->end_time, &err)
			   : fw_plan_add_resv(p->plan, r->name, tmp,
					      r->start_time, r->end_time, &err);
		if (idx < 0) {
			fw_log_err(PLUGIN, &err);
			xfree(hold);
			continue;
		}
		if (hold && fw_cluster_jobs_share(sf.cluster))
			resv_hold(p, idx, hold, nhold);
		p->resv[p->nresv].resv = r;
		p->resv[p->nresv].idx = idx;
		p->resv[p->nresv].hold = hold;
		p->resv[p->nresv].nhold = nhold;
		p->nresv++;
	}
	list_iterator_destroy(it);
}

/*
 * Nodes of active CoreCnt reservations where the job cannot get the CPUs it
 * needs per node: for a job of the reservation, more than the reserved
 * cores; for any other job, more than the cores left (on a shared cluster
 * the plan itself books the reserved cores: fw_plan_resv_hold).  Added to
 * *exc (created on demand).
 */
static void exclude_core_resv_nodes(struct pass *p, job_record_t *job,
				    uint32_t cpus_per_node,
				    struct fw_bitset **exc)
{
	for (size_t k = 0; k < p->nresv; k++) {
		const struct resv_map *m = &p->resv[k];
		bool own = job->resv_ptr == m->resv;

		if (!own && fw_cluster_jobs_share(sf.cluster))
			continue;
		for (uint32_t h = 0; h < m->nhold; h++) {
			node_record_t *n = node_record_table_ptr[m->hold[h].node];
			uint32_t held = m->hold[h].cpus;
			uint32_t left = own ? held :
					n->cpus > held ? n->cpus - held : 0;

			if (left >= cpus_per_node)
				continue;
			if (!*exc)
				*exc = fw_bitset_new(sf.cluster->nnodes);
			fw_bitset_set(*exc, m->hold[h].node);
		}
	}
}

static int32_t resv_index(const struct pass *p, slurmctld_resv_t *r)
{
	for (size_t i = 0; r && i < p->nresv; i++)
		if (p->resv[i].resv == r)
			return p->resv[i].idx;
	return -1;
}

/* ------------------------------------------------------------ the queue */

static int32_t part_index(part_record_t *part)
{
	return part ? fw_cluster_partition_index(sf.cluster, part->name) : -1;
}

/*
 * A job with --deadline runs at most until its deadline: Slurm's schedulers
 * cut its time limit, when they start it, to the whole minutes left before
 * the deadline (or to the job's own limit, else the partition's default or
 * maximum time, if smaller).  Minutes, 0 = no cut (no deadline, or less
 * than a minute left, where Slurm does not cut either).
 */
static uint32_t deadline_limit(job_record_t *job, part_record_t *part,
			       time_t now)
{
	uint32_t t;

	if (!job->deadline || job->deadline == NO_VAL || job->deadline <= now)
		return 0;
	t = (uint32_t)((job->deadline - now) / 60);
	if (job->time_limit != NO_VAL && job->time_limit != INFINITE)
		return MIN(job->time_limit, t);
	if (part && part->default_time != NO_VAL &&
	    part->default_time != INFINITE)
		return MIN(part->default_time, t);
	if (part && part->max_time != NO_VAL && part->max_time != INFINITE)
		return MIN(part->max_time, t);
	return t;
}

/* Time limit in seconds as Slurm applies it (0 = unlimited). */
static int64_t sf_time_limit(job_record_t *job, part_record_t *part,
			     time_t now)
{
	uint32_t t = job->time_limit, cut = deadline_limit(job, part, now);

	if (t == NO_VAL)
		t = part && part->default_time != NO_VAL ? part->default_time
							 : part ? part->max_time : INFINITE;
	if (part && part->max_time != INFINITE && part->max_time != NO_VAL &&
	    t > part->max_time)
		t = part->max_time;
	if (cut && (t == INFINITE || t == NO_VAL || cut < t))
		t = cut;
	if (t == INFINITE || t == NO_VAL)
		return 0;
	return (int64_t)t * 60;
}

/* Counts Slurm stores as NO_VAL/INFINITE when not given, as 0. */
static uint32_t given32(uint32_t v)
{
	return v == NO_VAL || v == INFINITE ? 0 : v;
}

static uint32_t given16(uint16_t v)
{
	return v == NO_VAL16 || v == INFINITE16 ? 0 : v;
}

static uint32_t given64(uint64_t v)
{
	return v == NO_VAL64 || v == INFINITE64 ? 0 :
	       v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The job's GPU request (--gres=gpu..., --gpus*, typed or not) as counts
 * per node, per task and per job; a per-socket request counts as per node
 * (at least one socket).  select_nodes() has the last word. */
static void job_gpu_request(job_record_t *job, struct fw_job_request *r)
{
	list_itr_t *it;
	gres_state_t *gs;

	if (!job->gres_list_req)
		return;
	it = list_iterator_create(job->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;

		if (xstrcmp(gs->gres_name, "gpu") || !js)
			continue;
		if (js->gres_per_node)
			r->gpus_per_node += given64(js->gres_per_node);
		else if (js->gres_per_socket)
			r->gpus_per_node += given64(js->gres_per_socket);
		else if (js->gres_per_task)
			r->gpus_per_task += given64(js->gres_per_task);
		else if (js->gres_per_job)
			r->gpus_per_job += given64(js->gres_per_job);
	}
	list_iterator_destroy(it);
}

/* The job's request in Slurm's terms, for fw_plan_job_size(). */
static void job_request(job_record_t *job, struct fw_job_request *r)
{
	job_details_t *d = job->details;
	uint64_t mem;

	memset(r, 0, sizeof(*r));
	if (d) {
		/* --overcommit: tasks share CPUs; Slurm allocates only
		 * min_cpus (one per node), so size by that, not by tasks. */
		r->ntasks = d->overcommit ? 0 : given32(d->num_tasks);
		r->cpus_per_task = given16(d->cpus_per_task);
		r->ntasks_per_node = given16(d->ntasks_per_node);
		r->min_cpus = given32(d->min_cpus);
		r->pn_min_cpus = given32(d->pn_min_cpus);
		r->nodes_min = given32(d->min_nodes);
		r->nodes_max = given32(d->max_nodes);
		mem = d->pn_min_memory;
		if (mem && mem != NO_VAL64) {
			if (mem & MEM_PER_CPU)
				r->mem_per_cpu_mb = mem & ~MEM_PER_CPU;
			else
				r->mem_per_node_mb = mem;
		}
	}
	job_gpu_request(job, r);
}

/* What one GRES request asks of each of `nodes` nodes running `tasks`. */
static uint64_t gres_per_node(const gres_job_state_t *js, uint32_t nodes,
			      uint32_t tasks)
{
	if (given64(js->gres_per_node))
		return given64(js->gres_per_node);
	if (given64(js->gres_per_socket))
		return given64(js->gres_per_socket);
	if (given64(js->gres_per_task))
		return given64(js->gres_per_task) *
		       ((tasks + nodes - 1) / nodes);
	return (given64(js->gres_per_job) + nodes - 1) / nodes;
}

/*
 * Every GRES the job asks for on each node besides its GPU count (that is
 * fw_plan_job.gpus_per_node): typed GPUs ("gpu:a100") and other GRES
 * ("shard", "tmpdisk"), as the cluster's indices (fw_cluster_gres_index;
 * a name no node has is left to select_nodes()).  NULL if none.
 */
static struct fw_gres_count *job_gres(job_record_t *job, uint32_t nodes,
				      uint32_t tasks, uint32_t *n)
{
	struct fw_gres_count *v = NULL;
	list_itr_t *it;
	gres_state_t *gs;

	*n = 0;
	if (!job->gres_list_req || !nodes)
		return NULL;
	it = list_iterator_create(job->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;
		char key[256];
		int32_t idx;

		if (!js || !gs->gres_name ||
		    (!xstrcmp(gs->gres_name, "gpu") && !js->type_name))
			continue;
		sf_gres_key(key, sizeof(key), gs->gres_name, js->type_name);
		if ((idx = fw_cluster_gres_index(sf.cluster, key)) < 0)
			continue;
		xrecalloc(v, *n + 1, sizeof(*v));
		v[*n].idx = (uint32_t)idx;
		v[*n].count = gres_per_node(js, nodes, tasks);
		(*n)++;
	}
	list_iterator_destroy(it);
	return v;
}

/* Nodes without the features the job requires, or NULL (no features, or
 * an expression valid_feature_counts() cannot filter: the planner then
 * considers every node and select_nodes() decides). */
static const struct fw_bitset *feature_lacking(struct pass *p,
					       job_record_t *job)
{
	job_details_t *d = job->details;
	const char *want = d->features_use ? d->features_use : d->features;
	struct feat_memo *m;
	bitstr_t *ok;
	bool has_xor = false;

	if (!want || !*want || !(d->feature_list_use || d->feature_list))
		return NULL;
	for (size_t i = 0; i < p->nfeat; i++)
		if (!xstrcmp(p->feat[i].features, want))
			return p->feat[i].lacking;
	if (p->nfeat == FEAT_MEMO_MAX)
		return NULL;
	if (!p->feat)
		p->feat = xcalloc(FEAT_MEMO_MAX, sizeof(*p->feat));
	m = &p->feat[p->nfeat++];
	m->features = xstrdup(want);
	ok = bit_alloc(node_record_count);
	bit_set_all(ok);
	if (valid_feature_counts(job, false, ok, &has_xor) == SLURM_SUCCESS &&
	    !has_xor) {
		m->lacking = fw_bitset_new(sf.cluster->nnodes);
		sf_bits_from_slurm(m->lacking, ok);
		fw_bitset_not(m->lacking);
	}
	FREE_NULL_BITMAP(ok);
	return m->lacking;
}

/* --mem-per-gpu (or DefMemPerGPU) without --mem: select/cons_tres then
 * gives each node that memory per GRES it allocates there, instead of
 * --mem/DefMemPerCPU.  MB per node when the job runs on `nodes` nodes;
 * 0 when it does not apply. */
static uint64_t gres_mem_per_node(job_record_t *job, uint32_t nodes,
				  uint32_t tasks)
{
	list_itr_t *it;
	gres_state_t *gs;
	uint64_t mem = 0;

	if ((job->bit_flags & JOB_MEM_SET) || !job->gres_list_req || !nodes)
		return 0;
	it = list_iterator_create(job->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;
		uint64_t per = 0;

		if (js)
			per = given64(js->mem_per_gres) ? given64(js->mem_per_gres)
							: given64(js->def_mem_per_gres);
		if (per)
			mem += per * gres_per_node(js, nodes, tasks);
	}
	list_iterator_destroy(it);
	return mem;
}

static uint32_t round_up(uint32_t v, uint32_t unit)
{
	return unit > 1 && v % unit ? v + unit - v % unit : v;
}

/*
 * On a shared cluster, the request as select/cons_tres allocates it,
 * before the job is sized: memory only where it is consumable, and
 * --mem-per-gpu replaces --mem's default; a job with no memory request at
 * all (no --mem, DefMemPerCPU or DefMemPerNode) gets the whole memory of
 * each of its nodes, which only a node where no other job holds memory
 * has: planned on whole nodes, as --exclusive.  A task of more than one
 * CPU, or one that may not share a core (--ntasks-per-core=1,
 * --hint=nomultithread), takes whole cores (sockets with CR_Socket); with
 * --threads-per-core=T a task of c CPUs takes ceil(c / T) whole cores.
 */
/* The partition's allocation unit and whether its memory is consumable
 * (shared_part_info), for a partition index of the planner's cluster. */
static uint32_t part_cpu_unit(int32_t part)
{
	return part >= 0 && sf.part_cpu_unit && sf.part_cpu_unit[part] ?
	       sf.part_cpu_unit[part] : 1;
}

static bool part_mem(int32_t part)
{
	return part >= 0 && sf.part_mem && sf.part_mem[part];
}

static void shared_request(job_record_t *job, int32_t part,
			   struct fw_job_request *r, struct fw_plan_job *fj)
{
	uint32_t unit = part_cpu_unit(part);
	multi_core_data_t *mc = job->details ? job->details->mc_ptr : NULL;
	uint32_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;

	fj->exclusive = fw_job_whole_node(job);
	if (!part_mem(part) || gres_mem_per_node(job, 1, 1))
		r->mem_per_cpu_mb = r->mem_per_node_mb = 0;
	else if (!r->mem_per_cpu_mb && !r->mem_per_node_mb)
		fj->exclusive = true;
	if (mc && unit > 1 && given16(mc->threads_per_core) &&
	    given16(mc->threads_per_core) < unit) {
		/* --threads-per-core=T: a task's CPUs are T per core */
		uint32_t t = given16(mc->threads_per_core);

		r->cpus_per_task = (cpt + t - 1) / t * unit;
	} else if (cpt > 1 || (mc && given16(mc->ntasks_per_core) == 1)) {
		r->cpus_per_task = round_up(cpt, unit);
	}
}

/* After sizing: each node's CPUs in whole allocation units, and the
 * memory that goes with them (--mem-per-cpu counts allocated CPUs). */
static void shared_size(job_record_t *job, int32_t part,
			const struct fw_job_request *r, uint32_t tasks,
			struct fw_plan_job *fj)
{
	uint32_t unit = part_cpu_unit(part);

	fj->cpus_per_node = round_up(fj->cpus_per_node, unit);
	if (r->mem_per_cpu_mb)
		fj->mem_per_node_mb = r->mem_per_cpu_mb * fj->cpus_per_node;
	else if (part_mem(part) && !r->mem_per_node_mb)
		fj->mem_per_node_mb = gres_mem_per_node(job, fj->nodes_min,
							tasks);
}

static void fill_plan_job(struct pass *p, struct qentry *e)
{
	job_record_t *job = e->job;
	job_details_t *d = job->details;
	struct fw_plan_job *fj = &e->fj;
	const struct fw_bitset *lacking = NULL;
	struct fw_job_request req;
	uint32_t tasks;

	fw_plan_job_init(fj);
	fj->id = job->job_id;
	fj->priority = e->rec->priority;
	fj->submit = d ? d->submit_time : 0;
	fj->eligible = d ? d->begin_time : 0;
	fj->part = part_index(e->part);
	job_request(job, &req);
	if (fw_cluster_jobs_share(sf.cluster))
		shared_request(job, fj->part, &req, fj);
	tasks = fw_plan_job_size(sf.cluster, fj->part, &req, fj);
	e->gres = job_gres(job, fj->nodes_min, tasks, &fj->ngres);
	fj->gres = e->gres;
	if (fw_cluster_jobs_share(sf.cluster))
		shared_size(job, fj->part, &req, tasks, fj);
	fj->time_limit = sf_time_limit(job, e->part, p->now);
	e->lics = job_licenses(job, &fj->nlics);
	fj->lics = e->lics;
	fj->uid = job->user_id;
	fj->account = job->assoc_id;
	if (d && d->req_node_bitmap) {
		e->req = fw_bitset_new(sf.cluster->nnodes);
		sf_bits_from_slurm(e->req, d->req_node_bitmap);
		fj->req_nodes = e->req;
	}
	if (d) {
		if (e->rec->use_prefer) {
			d->features_use = d->prefer;
			d->feature_list_use = d->prefer_list;
		} else {
			d->features_use = d->features;
			d->feature_list_use = d->feature_list;
		}
		lacking = feature_lacking(p, job);
	}
	exclude_core_resv_nodes(p, job, fj->cpus_per_node, &e->exc);
	if ((d && d->exc_node_bitmap) || lacking) {
		if (!e->exc)
			e->exc = fw_bitset_new(sf.cluster->nnodes);
		if (d->exc_node_bitmap) {
			struct fw_bitset *own = fw_bitset_new(sf.cluster->nnodes);

			sf_bits_from_slurm(own, d->exc_node_bitmap);
			fw_bitset_or(e->exc, own);
			fw_bitset_free(own);
		}
		if (lacking)
			fw_bitset_or(e->exc, lacking);
	}
	fj->exc_nodes = e->exc;
	fj->resv = resv_index(p, job->resv_ptr);
	fj->prio_reserve = acct_policy_get_prio_thresh(job, false);
	e->pre = sf_preempt_classes(job, fj->part, &fj->npreempts);
	fj->preempts = e->pre;
}

/* ------------------------------------------------------------ job sets */

static bool idset_add(struct idset *set, uint32_t id)
{
	uint32_t h;

	if ((set->cnt + 1) * 2 > set->cap) {
		struct idset big = { .cap = set->cap ? set->cap * 2 : 1024 };

		big.slot = xcalloc(big.cap, sizeof(uint32_t));
		for (uint32_t i = 0; i < set->cap; i++)
			if (set->slot[i])
				idset_add(&big, set->slot[i]);
		xfree(set->slot);
		*set = big;
	}
	for (h = (id * 2654435761u) & (set->cap - 1); set->slot[h];
	     h = (h + 1) & (set->cap - 1))
		if (set->slot[h] == id)
			return false;
	set->slot[h] = id;
	set->cnt++;
	return true;
}

static bool idset_has(const struct idset *set, uint32_t id)
{
	if (!set->cap)
		return false;
	for (uint32_t h = (id * 2654435761u) & (set->cap - 1); set->slot[h];
	     h = (h + 1) & (set->cap - 1))
		if (set->slot[h] == id)
			return true;
	return false;
}

/* ------------------------------------------------- requeued victims */

/*
 * Is slurmctld requeueing this preempted job?  With PreemptMode=REQUEUE
 * and no GraceTime select_nodes() has requeued it already (pending, still
 * completing until its epilog is done); within its GraceTime it runs on,
 * signalled, and is requeued when the grace ends.  Only batch jobs are
 * requeued.  Backfill passes plan such a job from its requeue on
 * (predict_requeue), Slurm's backfill only once it is pending again and
 * its hold is over.
 */
static bool victim_requeued(const job_record_t *v)
{
	if (!v->batch_flag || !v->details || IS_JOB_REVOKED(v))
		return false;
	if (IS_JOB_PENDING(v))
		return IS_JOB_COMPLETING(v);
	return IS_JOB_RUNNING(v) && v->preempt_time &&
	       (slurm_job_preempt_mode((job_record_t *)v) &
		PREEMPT_MODE_REQUEUE);
}

/* The requeue as batch_requeue_fini() will make it: submitted when the
 * job is gone (now, or its GraceTime's end), eligible a credential
 * lifetime plus one second later (unless its begin time is later still);
 * the priority is the one slurmctld holds now. */
static void predict_requeue(struct pass *p, struct qentry *e)
{
	const job_record_t *v = e->job;
	time_t gone = IS_JOB_RUNNING(v) && v->end_time > p->now ? v->end_time
								 : p->now;

	e->requeuing = true;
	idset_add(&p->requeuing, v->job_id);
	e->fj.submit = gone;
	e->fj.eligible = v->details->begin_time > gone ?
		v->details->begin_time : gone + fw_cred_lifetime() + 1;
}

/*
 * A requeued job (preempted, or scontrol requeue) is pending but waits
 * until its old launch credential has expired: batch_requeue_fini() sets
 * its begin time to then, and build_job_queue() leaves it out until that
 * time, as job_independent() stops at the begin time.  Slurm's backfill
 * plans it only from then on; the backfill pass plans it now, from its
 * begin time (fw_plan_job.eligible), so it keeps a StartTime, and a
 * reservation if protected, from the pass after the requeue.  Only what
 * build_job_queue() would also accept once the time has come: not held,
 * no dependency, no leftover steps or prolog, one record per partition
 * with the job's priority (not a per-partition one), no multiple
 * reservations, no array meta record or heterogeneous job.
 */
static bool requeued_waiting(const job_record_t *job, time_t now)
{
	const job_details_t *d = job->details;

	return IS_JOB_PENDING(job) && !IS_JOB_COMPLETING(job) &&
	       !IS_JOB_REVOKED(job) && d && d->begin_time > now &&
	       job->restart_cnt > 0 && job->priority != 0 &&
	       !d->prolog_running && !job->het_job_id && !job->resv_list &&
	       !job->array_recs && (!d->depend_list ||
				    !list_count(d->depend_list)) &&
	       (!job->step_list || !list_count(job->step_list));
}

/* A requeued job's queue records: one per partition (with the job's
 * priority: slurmctld holds no per-partition one for it yet). */
static void append_requeued_job(list_t *queue, job_record_t *job)
{
	job_queue_req_t req = { .job_ptr = job, .job_queue = queue,
				.prio = job->priority,
				.resv_ptr = job->resv_ptr };
	list_itr_t *it;
	part_record_t *part;

	if (!job->part_ptr_list) {
		if ((req.part_ptr = job->part_ptr))
			job_queue_append_internal(&req);
		return;
	}
	it = list_iterator_create(job->part_ptr_list);
	while ((part = list_next(it))) {
		req.part_ptr = part;
		job_queue_append_internal(&req);
	}
	list_iterator_destroy(it);
}

static void append_requeued(list_t *queue, time_t now)
{
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job;

	while ((job = list_next(it)))
		if (requeued_waiting(job, now) || victim_requeued(job))
			append_requeued_job(queue, job);
	list_iterator_destroy(it);
}

/* A queue record as the planner's entry (e owns rec); false, with rec
 * freed, for a partition unknown to this plan. */
static bool qentry_from_rec(struct pass *p, struct qentry *e,
			    job_queue_rec_t *rec)
{
	if (part_index(rec->part_ptr) < 0) {
		xfree(rec);
		return false;
	}
	e->rec = rec;
	e->job = rec->job_ptr;
	e->part = rec->part_ptr;
	fill_plan_job(p, e);
	if (victim_requeued(e->job))
		predict_requeue(p, e);
	return true;
}

static int build_queue(struct pass *p)
{
	bool bf = p->kind == SF_PASS_BACKFILL;
	/* clear_start=false: Slurm would zero every pending job's StartTime
	 * here, and squeue would show none for the jobs the pass has not
	 * reached yet (it yields to RPCs); clear_stale_estimates() clears
	 * what a complete pass did not renew. */
	list_t *queue = build_job_queue(false, bf);
	job_queue_rec_t *rec;
	size_t cap;

	if (!queue)
		return 0;
	if (bf)
		append_requeued(queue, p->now);
	cap = list_count(queue) + 1;
	p->q = xcalloc(cap, sizeof(*p->q));
	while ((rec = list_pop(queue)))
		if (qentry_from_rec(p, &p->q[p->n], rec))
			p->n++;
	FREE_NULL_LIST(queue);
	p->order = xcalloc(p->n + 1, sizeof(size_t));
	{
		struct fw_plan_job *tmp = xcalloc(p->n + 1, sizeof(*tmp));

		for (size_t i = 0; i < p->n; i++)
			tmp[i] = p->q[i].fj;
		fw_plan_sort_index(sf.cluster, tmp, p->n, p->order);
		/* ReservationOrder=submit: the oldest jobs go first. */
		p->heads = fw_plan_heads_new(sf.cluster, sf.conf->plan, p->now,
					     tmp, p->n);
		if (p->heads)
			p->hjobs = tmp;
		else
			xfree(tmp);
	}
	p->seq_cap = p->n + 16;
	p->seq_job = xcalloc(p->seq_cap, sizeof(uint32_t));
	if (bf)
		p->late = fw_plan_late_new(sf.cluster);
	return (int)p->n;
}

/* --------------------------------------------------------- estimates */

/*
 * A backfill pass recomputes every estimate, but the previous ones stay
 * visible while it runs (squeue --start during a long, yielding pass) and
 * are overwritten job by job.  After a complete pass, what it did not
 * estimate is cleared: a job it does not plan (held, dependency, not
 * runnable) shows none, and a job cancelled while it had a plan loses its
 * SchedNodeList (slurmctld does not clear it).  The job update stamp moves
 * only when something visible changed, so an unchanged plan does not wake
 * the main pass.
 */
static void clear_stale_estimates(const struct pass *p)
{
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job;
	bool changed = false;

	while ((job = list_next(it))) {
		if (IS_JOB_PENDING(job) && idset_has(&p->estimated, job->job_id))
			continue;
		if (job->sched_nodes) {
			xfree(job->sched_nodes);
			changed = true;
		}
		if (IS_JOB_PENDING(job) && job->start_time) {
			job->start_time = 0;
			changed = true;
		}
	}
	list_iterator_destroy(it);
	if (changed)
		last_job_update = p->now;
}

/* ------------------------------------------------- runnable checks */

/* Reasons the planner found, as Slurm's reason codes. */
static bool priority_or_resources(enum job_state_reason r)
{
	return r == WAIT_PRIORITY || r == WAIT_RESOURCES;
}

static void set_wait_reason(const struct pass *p, job_record_t *job,
			    enum fw_plan_reason r)
{
	time_t now = p->now;
	enum job_state_reason want;

	switch (r) {
	case FW_REASON_RESERVED:
	case FW_REASON_PRIORITY:
		want = WAIT_PRIORITY;
		break;
	case FW_REASON_LICENSE:
		want = WAIT_LICENSES;
		break;
	case FW_REASON_ADV_RESV:
	case FW_REASON_RESV_TIME:
		want = WAIT_RESERVATION;
		break;
	case FW_REASON_PART_LIMIT:
		want = WAIT_PART_NODE_LIMIT;
		break;
	case FW_REASON_NODES_DOWN:
		want = WAIT_NODE_NOT_AVAIL;
		break;
	case FW_REASON_NONE:
	case FW_REASON_START_FAILED:
	case FW_REASON_JOB_LIMIT:
		return; /* select_nodes() set its own reason */
	case FW_REASON_BEGIN_TIME:
		return; /* job_independent()'s BeginTime */
	default:
		want = WAIT_RESOURCES;
		break;
	}
	/* Only replace the reasons schedulers own, never a hold, dependency
	 * or limit reason set elsewhere. */
	if (job->state_reason != WAIT_NO_REASON &&
	    job->state_reason != WAIT_PRIORITY &&
	    job->state_reason != WAIT_RESOURCES &&
	    job->state_reason != WAIT_LICENSES &&
	    job->state_reason != WAIT_RESERVATION &&
	    job->state_reason != WAIT_NODE_NOT_AVAIL &&
	    job->state_reason != WAIT_PART_NODE_LIMIT)
		return;
	/* Priority vs Resources is the main pass's call, as in Slurm (a job
	 * behind a higher-priority job that waits in its partition shows
	 * Priority).  The backfill pass looks at the same job differently
	 * (the running jobs hold the nodes it needs: Resources); letting it
	 * overwrite would make the reason flip every pass. */
	if (p->kind == SF_PASS_BACKFILL && priority_or_resources(want) &&
	    priority_or_resources(job->state_reason))
		return;
	if (job->state_reason != want) {
		job->state_reason = want;
		xfree(job->state_desc);
		last_job_update = now;
	}
}

static bool qos_valid(job_record_t *job, time_t now)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK };
	bool ok = true;

	if (!job->qos_id)
		return true;
	assoc_mgr_lock(&locks);
	if (job->assoc_ptr && (accounting_enforce & ACCOUNTING_ENFORCE_QOS) &&
	    ((job->qos_id >= g_qos_count) || !job->assoc_ptr->usage ||
	     !job->assoc_ptr->usage->valid_qos ||
	     !bit_test(job->assoc_ptr->usage->valid_qos, job->qos_id)) &&
	    !job->limit_set.qos)
		ok = false;
	assoc_mgr_unlock(&locks);
	if (!ok) {
		job_fail_qos(job, __func__, false);
		last_job_update = now;
	}
	return ok;
}

#define HETJOB_REASON "Heterogeneous jobs need SchedulerType=sched/backfill (see sched_fairway(8))"

static int same_ptr(void *x, void *key)
{
	return x == key;
}

/* Is part still one of the partitions the job asks for? */
static bool job_part_valid(job_record_t *job, part_record_t *part)
{
	if (job->part_ptr_list)
		return list_find_first(job->part_ptr_list, same_ptr, part) != NULL;
	return job->part_ptr == part;
}

/*
 * After a lock yield the job may have been updated (partition, time
 * limit, node count, dependency, reservation...).  Job pointers are still
 * valid (bf_active), but the queue record and the planner's copy may not
 * be: check what the queue was built on and copy the job again.
 */
static bool revalidate_after_yield(struct pass *p, struct qentry *e,
				   job_record_t *job)
{
	if (!job_part_valid(job, e->rec->part_ptr) ||
	    !(requeued_waiting(job, p->now) || job_independent(job)))
		return false;
	e->job = job;
	fw_bitset_free(e->req);
	fw_bitset_free(e->exc);
	xfree(e->lics);
	xfree(e->pre);
	e->req = e->exc = NULL;
	fill_plan_job(p, e);
	return true;
}

/* The job a queue record stands for (the array's meta record when the
 * task was started in another partition), if it may still start: a
 * record left from before a lock yield may be stale. */
static job_record_t *record_job(struct pass *p, struct qentry *e)
{
	job_queue_rec_t *rec = e->rec;
	job_record_t *job = rec->job_ptr;

	if (job->array_task_id != rec->array_task_id &&
	    rec->array_task_id == NO_VAL) {
		/* an array task was started in another partition */
		job = find_job_record(job->array_job_id);
		if (!job)
			return NULL;
	}
	/* The job may have started (from its record of another partition),
	 * been requeued and still be completing - pending again, but a start
	 * now would come before its requeue hold is set and slurmd refuses
	 * the launch ("already killed"); or revoked.  sched/backfill checks
	 * the same after its yields (backfill.c, _job_runnable_now). */
	if (!IS_JOB_PENDING(job) || IS_JOB_COMPLETING(job) ||
	    IS_JOB_REVOKED(job) || job->priority == 0 ||
	    job->preempt_in_progress)
		return NULL;
	if (p->jobs_touched && !revalidate_after_yield(p, e, job))
		return NULL;
	return job;
}

/* Give the job its record's partition, QOS, priority, features and
 * reservations, as Slurm's schedulers do before testing it. */
static void apply_record(struct pass *p, job_queue_rec_t *rec,
			 job_record_t *job)
{
	if (rec->use_prefer) {
		job->details->features_use = job->details->prefer;
		job->details->feature_list_use = job->details->prefer_list;
	} else {
		job->details->features_use = job->details->features;
		job->details->feature_list_use = job->details->feature_list;
	}
	if (job->resv_list)
		job_queue_rec_resv_list(rec);
	else
		job_queue_rec_magnetic_resv(rec);
	job->part_ptr = rec->part_ptr;
	fw_queue_rec_apply_qos(job, rec);
	job->priority = rec->priority;
	job->last_sched_eval = p->now;
	if (p->kind == SF_PASS_BACKFILL)
		job->bit_flags |= BACKFILL_SCHED;
}

/* slurmctld only accepts heterogeneous jobs when SchedulerType is
 * literally sched/backfill, so they can only be here from before a
 * switch of SchedulerType: say why they wait. */
static void hetjob_waits(struct pass *p, job_record_t *job)
{
	if (xstrcmp(job->state_desc, HETJOB_REASON)) {
		xfree(job->state_desc);
		job->state_desc = xstrdup(HETJOB_REASON);
		last_job_update = p->now;
	}
}

/* Array tasks: one rejected task of an array rejects the others of the
 * same partition in this pass; Slurm's own array limits. */
static bool array_runnable(struct pass *p, job_queue_rec_t *rec,
			   job_record_t *job)
{
	if (!job->array_recs && job->array_task_id == NO_VAL)
		return true;
	if (p->reject_array && p->reject_array->array_job_id == job->array_job_id &&
	    p->reject_array_part == rec->part_ptr)
		return false;
	p->reject_array = job;
	p->reject_array_part = rec->part_ptr;
	return job_array_start_test(job);
}

/* Limits, QOS, deadline and association checks.  May switch *jobp. */
static bool policy_runnable(struct pass *p, job_record_t **jobp)
{
	job_record_t *job;

	if (job_limits_check(jobp, p->kind == SF_PASS_BACKFILL) != WAIT_NO_REASON)
		return false;
	job = *jobp;
	if (!qos_valid(job, p->now))
		return false;
	if (job->deadline && job->deadline != NO_VAL && !deadline_ok(job, "sched/fairway"))
		return false;
	if (job_state_reason_check(job->state_reason, JSR_QOS_ASSOC) &&
	    !acct_policy_job_runnable_pre_select(job, false))
		return false;
	if (assoc_mgr_validate_assoc_id(acct_db_conn, job->assoc_id,
					accounting_enforce)) {
		job->state_reason = FAIL_ACCOUNT;
		xfree(job->state_desc);
		last_job_update = p->now;
		return false;
	}
	return true;
}

/*
 * Everything Slurm's schedulers check before trying a job, except what the
 * planner decides (resources, licenses, reservations' nodes).  May switch
 * *jobp to the array's meta record.  False: skip this record.
 */
static bool runnable(struct pass *p, struct qentry *e, job_record_t **jobp)
{
	job_record_t *job = record_job(p, e);

	if (!job)
		return false;
	*jobp = job;
	apply_record(p, e->rec, job);
	if (job->het_job_id) {
		hetjob_waits(p, job);
		return false;
	}
	return array_runnable(p, e->rec, job) && policy_runnable(p, jobp);
}

/* ------------------------------------------------------------ starting */

static void launch(job_record_t *job)
{
	if (job->batch_flag == 0)
		srun_allocate(job);
	else if (!IS_JOB_CONFIGURING(job))
		launch_job(job);
	rebuild_job_part_list(job);
}

/*
 * Did the planner keep the job off nodes it could use right now (in its
 * partition, available, not excluded by the job itself)?  Then a failure
 * of select_nodes() says nothing about the job's request as such.
 */
static bool planner_restricted(job_record_t *job, bitstr_t *planner_exc,
			       bitstr_t *own_exc)
{
	bitstr_t *b;
	bool r;

	if (!job->part_ptr || !job->part_ptr->node_bitmap)
		return true;
	b = bit_copy(job->part_ptr->node_bitmap);
	bit_and(b, avail_node_bitmap);
	if (own_exc)
		bit_and_not(b, own_exc);
	bit_and(b, planner_exc);
	r = bit_ffs(b) >= 0;
	FREE_NULL_BITMAP(b);
	return r;
}

/*
 * Start job through select_nodes() on the nodes the planner allows: every
 * other node joins the job's own excluded nodes for the call.  *restricted
 * tells whether that exclusion kept the job off usable nodes.
 */
static int start_job(job_record_t *job, const struct fw_bitset *allowed,
		     bool backfilled, bool *restricted)
{
	job_details_t *d = job->details;
	bitstr_t *orig = d->exc_node_bitmap, *exc = bit_alloc(node_record_count);
	job_record_t *meta;
	uint32_t saved_limit = job->time_limit;
	uint32_t cut = deadline_limit(job, job->part_ptr, time(NULL));
	int rc;

	sf_bits_to_slurm(exc, allowed);
	bit_not(exc);
	*restricted = planner_restricted(job, exc, orig);
	if (orig)
		bit_or(exc, orig);
	d->exc_node_bitmap = exc;
	if (cut)	/* as Slurm's schedulers: runs until the deadline */
		job->time_limit = cut;
	if (fed_mgr_job_lock(job)) {
		rc = ESLURM_FED_JOB_LOCK;
	} else {
		job_node_select_t sel = { .job_ptr = job };

		rc = select_nodes(&sel, false, false,
				  backfilled ? SLURMDB_JOB_FLAG_BACKFILL
					     : SLURMDB_JOB_FLAG_SCHED);
		if (rc == SLURM_SUCCESS)
			fed_mgr_job_start(job, job->start_time);
		else
			fed_mgr_job_unlock(job);
	}
	d->exc_node_bitmap = orig;
	FREE_NULL_BITMAP(exc);
	if (rc != SLURM_SUCCESS && cut)
		job->time_limit = saved_limit;
	/* Splitting an array copies the job's details, our exclusion
	 * included: give the remaining tasks their own exclusion back. */
	if (job->array_task_id != NO_VAL &&
	    (meta = find_job_record(job->array_job_id)) && meta != job &&
	    meta->details) {
		FREE_NULL_BITMAP(meta->details->exc_node_bitmap);
		if (orig)
			meta->details->exc_node_bitmap = bit_copy(orig);
	}
	if (rc == SLURM_SUCCESS) {
		info("%s: started %pJ on %s%s", PLUGIN, job, job->nodes,
		     backfilled ? " (backfill)" : "");
		launch(job);
		last_job_update = time(NULL);
		if (backfilled) {
			slurmctld_diag_stats.backfilled_jobs++;
			slurmctld_diag_stats.last_backfilled_jobs++;
		}
	}
	return rc;
}

/* Slurm's main scheduler gives up on jobs whose request can never be met.
 * Only called when the planner did not restrict the nodes (select_nodes()
 * saw every node the job may use), as Slurm's main scheduler calls it. */
static void fail_bad_constraints(job_record_t *job, int rc, time_t now)
{
	if (rc == ESLURM_NODES_BUSY || rc == ESLURM_ACCOUNTING_POLICY ||
	    rc == ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE ||
	    rc == ESLURM_NODE_NOT_AVAIL || rc == ESLURM_RESERVATION_BUSY ||
	    rc == ESLURM_RESERVATION_NOT_USABLE || rc == ESLURM_FED_JOB_LOCK ||
	    rc == ESLURM_BURST_BUFFER_WAIT ||
	    rc == ESLURM_INVALID_BURST_BUFFER_REQUEST ||
	    (rc == ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE && job->part_ptr_list))
		return;
	info("%s: %pJ non-runnable: %s", PLUGIN, job, slurm_strerror(rc));
	job->job_state = JOB_PENDING;
	job->state_reason = FAIL_BAD_CONSTRAINTS;
	xfree(job->state_desc);
	job->start_time = job->end_time = now;
	job->priority = 0;
	last_job_update = now;
}

/*
 * The planner found that no node of the job's partition can ever hold it
 * (its static capacities: more GPUs or memory per node than any node has,
 * a partition changed under a pending job).  Slurm rejects such a job at
 * submission; one that got in anyway gets Slurm's answer here, once: ask
 * select_nodes() whether the request can ever be met on the configured
 * nodes (the submission test, test_only) and, if not, fail it as Slurm's
 * main scheduler does (BadConstraints, priority 0: passes skip it until an
 * admin changes it).  The planner's model over-estimates some requests, so
 * without select_nodes()' agreement the job only waits (Resources).
 * Returns true if the job was failed.
 */
static bool confirm_never_fits(job_record_t *job, time_t now)
{
	job_node_select_t sel = { .job_ptr = job };
	int rc;

	if (job->part_ptr_list)	/* other partitions may still hold it */
		return false;
	rc = select_nodes(&sel, true, false, SLURMDB_JOB_FLAG_SCHED);
	if (rc != ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE)
		return false;
	fail_bad_constraints(job, rc, now);
	return true;
}

/* ------------------------------------------------------- applying plans */

/* Planned nodes of a reservation as names (malloc'd), or NULL. */
static char *planned_names(const struct fw_plan_decision *d)
{
	if (!d->nodes || d->kind != FW_PLAN_RESERVED)
		return NULL;
	return fw_cluster_hostlist(sf.cluster, d->nodes);
}

/* An advanced reservation's name from the plan's index. */
static const char *resv_name(const struct pass *p, uint32_t idx)
{
	for (size_t k = 0; k < p->nresv; k++)
		if (p->resv[k].idx == (int32_t)idx)
			return p->resv[k].resv->name;
	return "?";
}

/* The id of a running holder: the planner's, or for a job added by whole
 * nodes (no id there) the one noted per node; 0 if unknown. */
static uint32_t running_holder(const struct pass *p,
			       const struct fw_plan_holder *h)
{
	if (h->id || !p->whole_job)
		return h->id;
	return p->whole_job[h->node];
}

/*
 * What a waiting job on shared nodes waits for, for `fairway explain`:
 * "running job 12 on n1, the reservation of job 15 on n2, reservation
 * course on n3" (malloc'd), or NULL.
 */
static char *waits_for(const struct pass *p, const struct fw_plan_decision *d)
{
	struct fw_buf b = { 0 };

	for (uint32_t k = 0; k < d->nholders; k++) {
		const struct fw_plan_holder *h = &d->holders[k];
		const char *node = sf.cluster->nodes[h->node].name;

		fw_buf_printf(&b, "%s", k ? ", " : "");
		if (h->kind == FW_HOLD_RUNNING && running_holder(p, h))
			fw_buf_printf(&b, "running job %u on %s",
				      running_holder(p, h), node);
		else if (h->kind == FW_HOLD_RUNNING)
			fw_buf_printf(&b, "a running job on %s", node);
		else if (h->kind == FW_HOLD_PLANNED && h->id < p->nseq)
			fw_buf_printf(&b, "job %u (ahead of it, started or "
				      "reserved in this pass) on %s",
				      p->seq_job[h->id], node);
		else if (h->kind == FW_HOLD_RESV)
			fw_buf_printf(&b, "reservation %s on %s",
				      resv_name(p, h->id), node);
	}
	return b.s;
}

/* Remember the decision for `fairway plan`; takes nodes (malloc'd, the
 * planned nodes' names or NULL). */
static void record_decision(struct pass *p, job_record_t *job,
			    const struct qentry *e,
			    const struct fw_plan_decision *d, char *nodes)
{
	struct sf_jobinfo *t;
	char *wf;

	if (d->seq >= p->seq_cap) {
		size_t cap = (d->seq + 1) * 2;

		p->seq_job = xrecalloc(p->seq_job, cap, sizeof(uint32_t));
		p->seq_cap = cap;
	}
	p->seq_job[d->seq] = job->job_id;
	if (d->seq + 1 > p->nseq)
		p->nseq = d->seq + 1;
	wf = d->nholders ? waits_for(p, d) : NULL;
	pthread_mutex_lock(&sf.tab_mu);
	t = sf_tab_get(job->job_id, true);
	/* `fairway plan` explains the backfill pass's plan (start, nodes,
	 * blocker); a main pass only knows "waiting", so it does not
	 * overwrite one. */
	if (p->kind == SF_PASS_MAIN && d->kind != FW_PLAN_START_NOW &&
	    t->from_backfill) {
		pthread_mutex_unlock(&sf.tab_mu);
		free(nodes);
		free(wf);
		return;
	}
	t->from_backfill = p->kind == SF_PASS_BACKFILL;
	free(t->nodes);
	t->nodes = nodes;
	if (!t->partition || strcmp(t->partition, e->part->name)) {
		free(t->partition);
		t->partition = strdup(e->part->name);
	}
	t->decided = p->now;
	t->kind = (uint8_t)d->kind;
	t->reason = (uint8_t)d->reason;
	t->is_protected = d->is_protected;
	t->backfilled = d->backfilled;
	t->across_islands = d->across_islands;
	t->priority = e->fj.priority;
	t->start = d->start;
	t->end = d->end;
	t->blocker_job = d->blocker >= 0 && (size_t)d->blocker < p->nseq ?
		p->seq_job[d->blocker] : 0;
	t->blocker_lic = d->blocker_lic;
	free(t->waits_for);
	t->waits_for = wf;
	free(t->victims);
	t->victims = NULL;
	pthread_mutex_unlock(&sf.tab_mu);
}

/* StartTime / SchedNodeList for a job that waits (backfill pass).  The
 * first estimate of the pass replaces the previous pass's; a later one
 * (further tasks of an array) only moves it earlier. */
static void set_estimate(struct pass *p, job_record_t *job,
			 const struct fw_plan_decision *d, const char *nodes)
{
	time_t start;

	if (p->kind != SF_PASS_BACKFILL ||
	    (d->kind != FW_PLAN_RESERVED && d->kind != FW_PLAN_ESTIMATED))
		return;
	start = d->start > p->now ? d->start : p->now + 1;
	if (!idset_add(&p->estimated, job->job_id) && job->start_time &&
	    job->start_time <= start)
		return;
	if (job->start_time == start && !xstrcmp(job->sched_nodes, nodes))
		return;
	job->start_time = start;
	xfree(job->sched_nodes);
	if (nodes)
		job->sched_nodes = xstrdup(nodes);
	last_job_update = p->now;
}

/* A job that waits: its reason, StartTime/SchedNodeList and plan record
 * (the planned nodes' names are formatted once for both). */
static void apply_wait(struct pass *p, job_record_t *job,
		       const struct qentry *e, const struct fw_plan_decision *d,
		       enum fw_plan_reason reason)
{
	char *nodes = planned_names(d);

	set_wait_reason(p, job, reason);
	set_estimate(p, job, d, nodes);
	record_decision(p, job, e, d, nodes);
}

static void actual_nodes(job_record_t *job, struct fw_bitset *out)
{
	sf_bits_from_slurm(out, job->node_bitmap);
}

/*
 * select_nodes() refused the job for a QOS or association limit that only
 * its own usage can lift: Slurm's main scheduler goes on with the next job
 * of the partition (unless SchedulerParameters=assoc_limit_stop), so the
 * job must not block the partition nor hold a reservation.  Caller holds
 * the configuration read lock.
 */
static bool refused_for_limits(int rc)
{
	return rc == ESLURM_ACCOUNTING_POLICY &&
	       !xstrcasestr(slurm_conf.sched_params, "assoc_limit_stop");
}

/*
 * The jobs select_nodes() just preempted for job on the planned nodes:
 * signalled (preempt_time) at or after t0.  The select plugin picks them
 * in its own candidate order, which may differ from the plan's among
 * equal candidates; `fairway explain` shows what really happened.  The
 * pass holds the job write lock, so nobody else preempted meanwhile.
 * Up to max ids into out; returns how many.
 */
static uint32_t signalled_victims(const struct fw_plan_decision *d,
				  time_t t0, uint32_t *out, uint32_t max)
{
	list_itr_t *it = list_iterator_create(job_list);
	bitstr_t *planned = bit_alloc(node_record_count);
	job_record_t *j;
	uint32_t n = 0;

	/* One word-wise overlap test per signalled job: t0 has whole
	 * seconds, so every job preempted earlier in the same second is a
	 * candidate, and a bit-by-bit walk to the last node for each of
	 * them showed in the 2,000-node preemption rig's profile. */
	sf_bits_to_slurm(planned, d->nodes);
	while ((j = list_next(it)) && n < max) {
		if (!j->preempt_time || j->preempt_time < t0 || !j->node_bitmap)
			continue;
		if (bit_overlap_any(j->node_bitmap, planned))
			out[n++] = j->job_id;
	}
	list_iterator_destroy(it);
	FREE_NULL_BITMAP(planned);
	return n;
}

/* "12 13" (malloc'd): the victims, for `fairway explain`; each victim's
 * own record says for whom (caller holds tab_mu). */
static char *victims_text(const struct pass *p, job_record_t *job,
			  const uint32_t *v, uint32_t n)
{
	struct fw_buf b = { 0 };

	for (uint32_t k = 0; k < n; k++) {
		struct sf_jobinfo *e = sf_tab_get(v[k], true);

		fw_buf_printf(&b, "%s%u", k ? " " : "", v[k]);
		if (e) {
			e->preempted_for = job->job_id;
			e->preempted_at = p->now;
		}
	}
	return b.s;
}

/* Remember the victims of job's start: got, the n signalled for it (the
 * plan's when none was, e.g. all gone already). */
static void record_victims(const struct pass *p, job_record_t *job,
			   const struct fw_plan_decision *d,
			   const uint32_t *got, uint32_t n)
{
	struct sf_jobinfo *t;
	char *text;

	pthread_mutex_lock(&sf.tab_mu);
	/* victims first: creating their entries may move the table */
	text = n ? victims_text(p, job, got, n) :
		   victims_text(p, job, d->victims, d->nvictims);
	t = sf_tab_get(job->job_id, true);
	if (t) {
		free(t->victims);
		t->victims = text;
		t->victims_later = d->victims_later && !n;
	} else {
		free(text);
	}
	pthread_mutex_unlock(&sf.tab_mu);
}

/* One queue record of a victim joining the pass late (e owns rec). */
static void add_late_rec(struct pass *p, job_queue_rec_t *rec)
{
	struct qentry *e = xcalloc(1, sizeof(*e));

	if (!qentry_from_rec(p, e, rec)) {
		xfree(e);
		return;
	}
	e->fj.late = true;
	if (p->nlq == p->lq_cap) {
		p->lq_cap = p->lq_cap ? p->lq_cap * 2 : 16;
		p->lq = xrecalloc(p->lq, p->lq_cap, sizeof(*p->lq));
	}
	p->lq[p->nlq] = e;
	fw_plan_late_add(p->late, &e->fj, p->nlq++);
}

/* A victim this pass just had preempted, as a pending job joining the
 * pass (fw_plan_late): the records later passes give it
 * (append_requeued_job: each of its partitions). */
static void add_late(struct pass *p, job_record_t *v)
{
	list_t *recs;
	job_queue_rec_t *rec;

	/* already in the pass: it was being requeued when the pass began,
	 * and the job that preempted it has now let slurmctld finish */
	if (idset_has(&p->requeuing, v->job_id))
		return;
	recs = list_create(xfree_ptr);
	append_requeued_job(recs, v);
	while ((rec = list_pop(recs)))
		add_late_rec(p, rec);
	FREE_NULL_LIST(recs);
}

/* The victims select_nodes() just signalled (got, n) that slurmctld
 * requeues join the backfill pass (a main pass plans no later starts). */
static void late_victims(struct pass *p, const uint32_t *got, uint32_t n)
{
	if (!p->late)
		return;
	for (uint32_t k = 0; k < n; k++) {
		job_record_t *v = find_job_record(got[k]);

		if (v && victim_requeued(v))
			add_late(p, v);
	}
}

/* select_nodes() preempted for job since t0: its victims (one walk of
 * the job list) are recorded, and the requeued ones join the pass. */
static void preempted_now(struct pass *p, job_record_t *job,
			  const struct fw_plan_decision *d, time_t t0)
{
	uint32_t got[64], n = signalled_victims(d, t0, got, 64);

	record_victims(p, job, d, got, n);
	late_victims(p, got, n);
}

/*
 * Are the planned victims all signalled jobs whose GraceTime is over?
 * Then slurmctld only has to requeue or cancel them, which select_nodes()
 * does only outside its KillWait + MessageTimeout window after the first
 * signal (kill_pending in node_scheduler.c); sched/backfill clears that
 * window's start before each try, so the same is done here, but only for
 * victims whose grace is over (nobody new gets signalled early).
 */
static void victims_grace_over(job_record_t *job,
			       const struct fw_plan_decision *d, time_t now)
{
	for (uint32_t k = 0; k < d->nvictims; k++) {
		job_record_t *v = find_job_record(d->victims[k]);

		if (!v || !v->preempt_time || v->end_time > now)
			return;
	}
	if (d->nvictims && job->details)
		job->details->preempt_start_time = 0;
}

/*
 * select_nodes() on the planned nodes answered "nodes busy" for a start
 * that needs victims: slurmctld is preempting them (requeue or cancel,
 * with their GraceTime) and the job starts in a later pass, once they are
 * gone.  Not a refusal: the job keeps its nodes in this plan (booked as
 * started) so that no later job of the pass takes them.
 */
static void preempting(struct pass *p, job_record_t *job,
		       const struct qentry *e, struct fw_plan_decision *d,
		       time_t t0)
{
	struct fw_err err;
	char *nodes = fw_cluster_hostlist(sf.cluster, d->nodes);

	/* Once per preemption (slurmctld logs each victim); the passes
	 * after it, until the victims are gone, say so at debug level. */
	if (job->preempt_in_progress)
		info("%s: %pJ preempts %u job(s) on %s", PLUGIN, job,
		     d->nvictims, nodes ? nodes : "?");
	else
		debug("%s: %pJ waits for its victims on %s", PLUGIN, job,
		      nodes ? nodes : "?");
	/* The victims stay on these nodes until slurmctld has requeued or
	 * cancelled them: nothing else may count on them in this pass. */
	if (fw_plan_preempting(p->plan, d->nodes, &err))
		fw_log_err(PLUGIN, &err);
	set_wait_reason(p, job, FW_REASON_NODES);
	record_decision(p, job, e, d, nodes);
	preempted_now(p, job, d, t0);
}

/*
 * A protected job planned to start once its victims' GraceTime is over:
 * they must be signalled now, which select_nodes() on the planned nodes
 * does (it answers "nodes busy").  Returns 1 for that answer, 2 when the
 * job started (its victims were gone already), else 0.
 */
static int preempt_for_later(struct pass *p, job_record_t *job,
			      const struct fw_plan_decision *d)
{
	bool restricted;
	int rc;

	if (license_job_test(job, p->now, true) != SLURM_SUCCESS)
		return 0;
	rc = start_job(job, d->nodes, false, &restricted);
	charge(p, &p->t.starts);
	if (job->preempt_in_progress)
		info("%s: %pJ preempts %u job(s) for a start in %ld s (their GraceTime)",
		     PLUGIN, job, d->nvictims, (long)(d->start - p->now));
	if (rc == SLURM_SUCCESS) {
		/* the victims were gone already: started on the nodes
		 * the plan keeps for it from its planned start on */
		p->started++;
		return 2;
	}
	return rc == ESLURM_NODES_BUSY ? 1 : 0;
}

/* The job started: book what it really got (select_nodes() may give more:
 * whole cores, all memory), read its nodes' GPUs back, count it. */
static void book_started(struct pass *p, job_record_t *job, struct qentry *e,
			 const struct fw_plan_decision *d, struct fw_bitset *tmp)
{
	struct fw_err err;
	uint32_t nu;

	if (sf.cluster->shared && !e->fj.exclusive && !holds_whole_nodes(job) &&
	    job_use(p, job, &nu)) {
		fw_plan_started_use(p->plan, p->use, nu, &err);
	} else {
		actual_nodes(job, tmp);
		fw_plan_started(p->plan, tmp, &err);
	}
	sf_devices_started(p->plan, job);
	p->started++;
	p->backfilled += d->backfilled;
	p->reject_array = NULL;
	record_decision(p, job, e, d, NULL);
}

/* After a task of an array started from its meta record: the meta record
 * again if more of its tasks may start now, else NULL. */
static job_record_t *next_array_task(job_record_t *job, bool array_head)
{
	job_record_t *meta;

	if (!array_head || job->array_task_id == NO_VAL)
		return NULL;
	meta = find_job_record(job->array_job_id);
	if (meta && meta != job && IS_JOB_PENDING(meta) &&
	    job_array_start_test(meta))
		return meta;
	return NULL;
}

enum start_outcome {
	START_STARTED,		/* running: booked and recorded */
	START_HANDLED,		/* not started, and nothing more to do */
	START_REFUSED,		/* not started: d holds the plan's new decision */
};

/*
 * The plan says "start now".  select_nodes() does not test licenses;
 * Slurm's own schedulers do it first, and so do we.  With victims the job
 * is offered exactly the planned nodes, so that the select plugin preempts
 * there and nowhere else.
 */
static enum start_outcome start_now(struct pass *p, struct qentry *e,
				    job_record_t *job,
				    struct fw_plan_decision *d,
				    struct fw_bitset *tmp)
{
	struct fw_err err;
	bool restricted;
	time_t t0;
	int rc;

	if (license_job_test(job, p->now, true) != SLURM_SUCCESS) {
		fw_plan_start_failed(p->plan, d, &err);
		p->last_kind = d->kind;
		apply_wait(p, job, e, d, FW_REASON_LICENSE);
		return START_HANDLED;
	}
	t0 = time(NULL);
	victims_grace_over(job, d, t0);
	rc = start_job(job, d->nvictims ? d->nodes : d->allowed, d->backfilled,
		       &restricted);
	charge(p, &p->t.starts);
	if (rc == ESLURM_NODES_BUSY && d->nvictims) {
		preempting(p, job, e, d, t0);
		return START_HANDLED;
	}
	if (rc == SLURM_SUCCESS) {
		book_started(p, job, e, d, tmp);
		return START_STARTED;
	}
	if (refused_for_limits(rc)) {
		fw_plan_start_refused(p->plan, d, &err);
	} else {
		/* the plan said it fits now: a refusal here is a
		 * planner/slurmctld disagreement (the scale rig counts
		 * these lines) */
		info("%s: start of %pJ refused by select_nodes(): %s",
		     PLUGIN, job, slurm_strerror(rc));
		fw_plan_start_failed(p->plan, d, &err);
	}
	if (!restricted)
		fail_bad_constraints(job, rc, p->now);
	return START_REFUSED;
}

/* Not started now: a reservation that preempts for its later start, a job
 * that never fits, or one that waits.  Returns false when the pass must
 * end (per-cycle limits). */
static bool not_started(struct pass *p, struct qentry *e, job_record_t *job,
			struct fw_plan_decision *d)
{
	p->last_kind = d->kind;
	if (d->kind == FW_PLAN_RESERVED && d->nvictims && !d->victims_later) {
		time_t t0 = time(NULL);
		int r = preempt_for_later(p, job, d);

		if (r > 0) {
			char *nm = planned_names(d);

			if (r == 1) {	/* StartTime: after grace */
				set_wait_reason(p, job, FW_REASON_NODES);
				set_estimate(p, job, d, nm);
			}
			record_decision(p, job, e, d, nm);
			preempted_now(p, job, d, t0);
			return true;
		}
	}
	if (d->kind == FW_PLAN_NOT_RUNNABLE &&
	    d->reason == FW_REASON_NEVER_FITS &&
	    confirm_never_fits(job, p->now)) {
		record_decision(p, job, e, d, NULL);
		return true;
	}
	apply_wait(p, job, e, d, d->reason);
	if (d->nvictims)	/* victims_later: named for explain */
		record_victims(p, job, d, NULL, 0);
	return !(d->kind == FW_PLAN_SKIPPED &&
		 (d->reason == FW_REASON_BF_MAX_START ||
		  d->reason == FW_REASON_BF_MAX_TEST));
}

/*
 * A victim that slurmctld is requeueing (predict_requeue; one this pass
 * preempted joins it late, add_late): planned and recorded for `fairway
 * explain` and `fairway plan`, and its reservation (if protected) holds
 * for the rest of the pass.  Nothing is written to the job: it is still
 * running out its GraceTime or completing, and batch_requeue_fini()
 * clears its StartTime; the first pass that finds it pending and done
 * sets StartTime and SchedNodeList.
 */
static void decide_late(struct pass *p, struct qentry *e)
{
	job_record_t *job = find_job_record(e->fj.id);
	struct fw_plan_decision d;
	struct fw_err err;
	char *nodes;

	/* gone, cancelled or started during a lock yield */
	if (!job || job != e->job ||
	    !(victim_requeued(job) || requeued_waiting(job, p->now)))
		return;
	if (fw_plan_decide(p->plan, &e->fj, FW_PASS_BACKFILL, &d, &err)) {
		debug("%s: %pJ not planned: %s", PLUGIN, job, err.msg);
		return;
	}
	charge(p, &p->t.plan);
	p->tested++;
	p->last_kind = d.kind;
	if (d.kind == FW_PLAN_START_NOW) {	/* not before its hold */
		fw_plan_start_failed(p->plan, &d, &err);
		return;
	}
	nodes = planned_names(&d);
	if (e->fj.late &&
	    (d.kind == FW_PLAN_RESERVED || d.kind == FW_PLAN_ESTIMATED))
		info("%s: %pJ, requeued by this pass, planned to start in %ld s on %s",
			PLUGIN, job, (long)(d.start - p->now),
			nodes ? nodes : "?");
	record_decision(p, job, e, &d, nodes);
}

/* Decide one record (and further tasks of an array); returns false when
 * the pass must end (per-cycle start limit reached). */
static bool decide_record(struct pass *p, struct qentry *e,
			  struct fw_bitset *tmp, bool head)
{
	enum fw_plan_pass pass = p->kind == SF_PASS_BACKFILL ? FW_PASS_BACKFILL
							     : FW_PASS_MAIN;
	struct fw_plan_decision d;
	struct fw_err err;
	job_record_t *job;
	bool array_head;

	if (e->requeuing) {
		decide_late(p, e);
		return true;
	}
	bool ok = runnable(p, e, &job);

	xfree(e->rec);
	charge(p, &p->t.checks);
	if (!ok)
		return true;
	array_head = job->array_recs && job->array_task_id == NO_VAL;
	e->fj.id = job->job_id;
	e->fj.head = head;
	for (;;) {
		int bad = fw_plan_decide(p->plan, &e->fj, pass, &d, &err);
		enum start_outcome o;

		charge(p, &p->t.plan);
		if (bad) {
			debug("%s: %pJ not planned: %s", PLUGIN, job, err.msg);
			return true;
		}
		p->tested++;
		p->last_kind = d.kind;
		if (d.kind != FW_PLAN_START_NOW)
			return not_started(p, e, job, &d);
		o = start_now(p, e, job, &d, tmp);
		if (o == START_REFUSED)
			return not_started(p, e, job, &d);
		if (o == START_HANDLED || !(job = next_array_task(job, array_head)))
			return true;
		e->fj.id = job->job_id;
	}
}

/* ------------------------------------------------------------- yielding */

static void save_stamps(struct pass *p)
{
	p->saved_job = last_job_update;
	p->saved_node = last_node_update;
	p->saved_part = last_part_update;
	p->saved_resv = last_resv_update;
	p->saved_conf = slurm_conf.last_update;
}

/*
 * RPC-aware yield: RPC threads (squeue, sbatch, ...) are running while the
 * pass holds the locks.  Hold them at least SF_RPC_YIELD_HOLD_US between
 * such yields, so the pass still progresses under a stream of RPCs, and
 * release them for SF_RPC_YIELD_SLEEP_US: long enough for the threads
 * blocked on them to take them; the pass then waits in lock_slurmctld()
 * until those are done.  It does not sleep until the thread count drops:
 * the count includes threads that no longer need the locks (sending a
 * whole-queue squeue's reply to a slow client takes longer than building
 * it), and sleeping for them kept a pass of 0.45 s of work out for 4.4 s.
 */
#define SF_RPC_YIELD_HOLD_US 20000
#define SF_RPC_YIELD_SLEEP_US 1000

/* thread_count_lock is a leaf lock held only for a counter update, as
 * sched/backfill reads the same counter. */
static bool rpcs_waiting(void)
{
	int n;

	slurm_mutex_lock(&slurmctld_config.thread_count_lock);
	n = slurmctld_config.server_thread_count;
	slurm_mutex_unlock(&slurmctld_config.thread_count_lock);
	return n > 0;
}

/* Sleep with the locks released: for the waiting RPCs, or bf_yield_sleep. */
static void yield_locks(struct pass *p, bool for_rpcs)
{
	const struct fw_plan_conf *pc = sf.conf->plan;
	struct timespec a, b;

	save_stamps(p);
	unlock_slurmctld(pass_locks);
	/* Releasing the locks wakes their waiters and may preempt us: that
	 * counts as getting them back, the sleep alone as released. */
	clock_gettime(CLOCK_MONOTONIC, &a);
	p->t.lock_wait += ns_between(&p->mark, &a);
	usleep(for_rpcs ? SF_RPC_YIELD_SLEEP_US
			: (useconds_t)pc->bf_yield_sleep);
	clock_gettime(CLOCK_MONOTONIC, &b);
	p->t.slept += ns_between(&a, &b);
	lock_slurmctld(pass_locks);
	clock_gettime(CLOCK_MONOTONIC, &p->t_locked);
	p->t.lock_wait += ns_between(&b, &p->t_locked);
	p->mark = p->t_locked;
	p->t.yields++;
	/* Our own updates were before save_stamps(): a newer stamp is some
	 * RPC's (a job update, a submission, a job's end). */
	if (last_job_update != p->saved_job)
		p->jobs_touched = true;
}

/*
 * Release the locks when RPCs wait (after SF_RPC_YIELD_HOLD_US), or for
 * bf_yield_sleep when they were held for bf_yield_interval.  Returns false
 * if the pass must be abandoned because what it planned against changed
 * meanwhile.  Job and node changes abandon it only after a full yield
 * without bf_continue: after a short RPC yield the pass goes on, as with
 * bf_continue (each job is checked again before it is decided, and
 * select_nodes() has the last word on nodes).
 */
static bool maybe_yield(struct pass *p)
{
	const struct fw_plan_conf *pc = sf.conf->plan;
	struct timespec now;
	int64_t held;
	bool stop, for_rpcs;

	clock_gettime(CLOCK_MONOTONIC, &now);
	held = us_between(&p->t_locked, &now);
	for_rpcs = held >= SF_RPC_YIELD_HOLD_US && rpcs_waiting();
	if (!for_rpcs && held < pc->bf_yield_interval)
		return true;
	charge(p, &p->t.apply);
	yield_locks(p, for_rpcs);
	pthread_mutex_lock(&sf.mu);
	stop = sf.stop || sf.reconfig;
	pthread_mutex_unlock(&sf.mu);
	if (stop || last_part_update != p->saved_part ||
	    last_resv_update != p->saved_resv ||
	    slurm_conf.last_update != p->saved_conf ||
	    (!for_rpcs && !pc->bf_continue &&
	     (last_job_update != p->saved_job ||
	      last_node_update != p->saved_node))) {
		p->abandoned = true;
		return false;
	}
	return true;
}

/*
 * bf_max_time (default bf_interval) bounds a backfill pass, lock yields
 * included, as in Slurm.  The main pass has no such limit: it stops at
 * the first blocked job of each partition anyway.
 */
static bool over_max_time(const struct pass *p)
{
	const struct fw_plan_conf *pc = sf.conf->plan;
	int64_t limit = pc->bf_max_time ? pc->bf_max_time : pc->bf_interval;
	struct timespec now;

	if (p->kind != SF_PASS_BACKFILL || limit <= 0)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return us_between(&p->t_start, &now) >= limit * 1000000;
}

/* -------------------------------------------------------------- stats */

static void update_stats(struct pass *p, const struct fw_plan_stats *st)
{
	struct timespec end;
	uint64_t us;

	clock_gettime(CLOCK_MONOTONIC, &end);
	/* as sched/backfill: the time since the locks were taken, sleeps
	 * with them released excluded */
	us = (uint64_t)MAX(ns_between(&p->t_start, &end) - p->t.slept, 0) / 1000;
	p->t.jobs = (uint32_t)p->n;
	if (p->kind == SF_PASS_BACKFILL) {
		diag_stats_t *s = &slurmctld_diag_stats;

		s->bf_cycle_counter++;
		s->bf_cycle_last = (uint32_t)us;
		s->bf_cycle_sum += us;
		if (us > s->bf_cycle_max)
			s->bf_cycle_max = (uint32_t)us;
		s->bf_last_depth = (uint32_t)p->n;
		s->bf_depth_sum += (uint32_t)p->n;
		s->bf_last_depth_try = (uint32_t)p->tested;
		s->bf_depth_try_sum += (uint32_t)p->tested;
		s->bf_queue_len = (uint32_t)p->n;
		s->bf_queue_len_sum += (uint32_t)p->n;
		s->bf_table_size = (uint32_t)st->segments;
		s->bf_table_size_sum += (uint32_t)st->segments;
		sf.last_bf_ms = (double)us / 1000.0;
		sf.last_bf_times = p->t;
		if (sf.last_bf_ms > sf.max_bf_ms)
			sf.max_bf_ms = sf.last_bf_ms;
		sf.passes_bf++;
		sf.started_bf += p->started;
	} else {
		diag_stats_t *s = &slurmctld_diag_stats;

		s->schedule_cycle_counter++;
		s->schedule_cycle_last = (uint32_t)us;
		s->schedule_cycle_sum += (uint32_t)us;
		if (us > s->schedule_cycle_max)
			s->schedule_cycle_max = (uint32_t)us;
		s->schedule_cycle_depth += (uint32_t)p->tested;
		s->schedule_queue_len = (uint32_t)p->n;
		sf.last_main_ms = (double)us / 1000.0;
		sf.passes_main++;
		sf.started_main += p->started;
	}
}

/* One line: where a pass's time went (malloc'd; free()). */
char *sf_times_text(const struct sf_pass_times *t)
{
	struct fw_buf out = { 0 };
	int64_t held = t->setup + t->queue + t->checks + t->plan + t->starts +
		       t->apply + t->finish;

	fw_buf_printf(&out,
		 "%" PRIu32 " jobs; locks taken after %.2f ms; "
		 "%.2f ms holding the locks (setup %.2f, queue %.2f, "
		 "checks %.2f, plan %.2f, starts %.2f, apply %.2f, finish %.2f); "
		 "%" PRIu32 " yields: released %.2f ms, waited %.2f ms to get them back",
		 t->jobs, t->first_wait / 1e6, held / 1e6, t->setup / 1e6, t->queue / 1e6,
		 t->checks / 1e6, t->plan / 1e6, t->starts / 1e6, t->apply / 1e6,
		 t->finish / 1e6, t->yields, t->slept / 1e6, t->lock_wait / 1e6);
	return out.s;
}

static void log_times(const struct pass *p)
{
	char *line = sf_times_text(&p->t);

	info("%s: %s pass: %s", PLUGIN,
	     p->kind == SF_PASS_BACKFILL ? "backfill" : "main", line);
	free(line);
}

static void add_bypass(struct pass *p)
{
	uint32_t *inc = xcalloc(p->nseq + 1, sizeof(uint32_t));

	fw_plan_bypass(p->plan, inc, p->nseq);
	pthread_mutex_lock(&sf.tab_mu);
	for (size_t s = 0; s < p->nseq; s++)
		if (inc[s] && p->seq_job[s])
			sf_tab_get(p->seq_job[s], true)->bypass += inc[s];
	pthread_mutex_unlock(&sf.tab_mu);
	xfree(inc);
}

static void qentry_free(struct qentry *e)
{
	xfree(e->rec);
	fw_bitset_free(e->req);
	fw_bitset_free(e->exc);
	xfree(e->lics);
	xfree(e->gres);
	xfree(e->pre);
}

static void pass_free(struct pass *p)
{
	for (size_t i = 0; i < p->n; i++)
		qentry_free(&p->q[i]);
	xfree(p->q);
	for (size_t i = 0; i < p->nlq; i++) {
		qentry_free(p->lq[i]);
		xfree(p->lq[i]);
	}
	xfree(p->lq);
	fw_plan_late_free(p->late);
	xfree(p->order);
	fw_plan_heads_free(p->heads);
	xfree(p->hjobs);
	xfree(p->seq_job);
	for (size_t i = 0; i < p->nresv; i++)
		xfree(p->resv[i].hold);
	xfree(p->resv);
	for (size_t i = 0; i < p->nfeat; i++) {
		xfree(p->feat[i].features);
		fw_bitset_free(p->feat[i].lacking);
	}
	xfree(p->feat);
	xfree(p->estimated.slot);
	xfree(p->requeuing.slot);
	xfree(p->whole_job);
	xfree(p->use);
	xfree(p->use_gres);
	xfree(p->gcnt);
	fw_plan_free(p->plan);
}

/* Never called with slurmctld locks held (see sf_run_pass). */
static void set_bf_active(uint32_t v)
{
	slurm_mutex_lock(&check_bf_running_lock);
	slurmctld_diag_stats.bf_active = v;
	slurm_mutex_unlock(&check_bf_running_lock);
}

/* -------------------------------------------------------------- the pass */

/* The plan for this pass: what is unavailable, running and reserved,
 * then the queue.  False (logged) when there is no plan to make. */
static bool pass_setup(struct pass *p, struct fw_bitset **tmp)
{
	struct fw_err err;

	if (!sf.conf || sf_cluster_refresh(&err)) {
		if (sf.conf)
			fw_log_err(PLUGIN, &err);
		return false;
	}
	p->plan = fw_plan_new(sf.cluster, sf.conf->plan, p->now, &err);
	if (!p->plan) {
		fw_log_err(PLUGIN, &err);
		return false;
	}
	*tmp = fw_bitset_new(sf.cluster->nnodes);
	if (p->kind == SF_PASS_BACKFILL)
		slurmctld_diag_stats.bf_when_last_cycle = p->now;
	mark_unavailable_nodes(p, *tmp);
	sf_preempt_pass_begin();
	add_running_jobs(p, *tmp);
	sf_devices_now(p->plan);
	add_reservations(p, *tmp);
	charge(p, &p->t.setup);
	build_queue(p);
	charge(p, &p->t.queue);
	return true;
}

/* The next record to decide: a head (ReservationOrder=submit, oldest
 * first), else the queue in priority order without them, with the
 * victims the pass requeued at their place (fw_plan_late); NULL at the
 * end. */
static struct qentry *next_record(struct pass *p, size_t *k, bool *head)
{
	size_t x = fw_plan_heads_next(p->heads), t;

	*head = x != FW_PLAN_NO_HEAD;
	if (*head)
		return &p->q[x];
	while (*k < p->n && fw_plan_heads_taken(p->heads, p->order[*k]))
		(*k)++;
	if (fw_plan_late_next(p->late,
			      *k < p->n ? &p->q[p->order[*k]].fj : NULL, &t))
		return p->lq[t];
	if (*k >= p->n)
		return NULL;
	return &p->q[p->order[(*k)++]];
}

/* Every record in turn, with lock yields between them (sf.mu held on
 * entry and on return). */
static void walk_queue(struct pass *p, struct fw_bitset *tmp)
{
	size_t k = 0, done = 0;
	struct qentry *e;
	bool head;

	while ((e = next_record(p, &k, &head))) {
		bool go_on;

		/* slurmctld is shutting down, or (Slurm 23.11+) about to
		 * re-exec for a reconfigure: a start now could lose its
		 * launch RPC with the old process, so stop as Slurm's own
		 * schedulers do (backfill.c, job_scheduler.c). */
		if (slurmctld_config.shutdown_time) {
			p->abandoned = true;
			return;
		}
		p->last_kind = FW_PLAN_SKIPPED;
		go_on = decide_record(p, e, tmp, head);
		fw_plan_heads_outcome(p->heads, p->last_kind);
		done++;
		charge(p, &p->t.apply);
		if (!go_on)
			return;
		if (over_max_time(p)) {
			info("%s: backfill pass stopped by bf_max_time after %zu of %zu jobs",
			     PLUGIN, done, p->n);
			return;
		}
		pthread_mutex_unlock(&sf.mu);
		if (!maybe_yield(p)) {
			pthread_mutex_lock(&sf.mu);
			info("%s: %s pass abandoned after a lock yield (cluster changed)",
			     PLUGIN, p->kind == SF_PASS_BACKFILL ? "backfill" : "main");
			return;
		}
		pthread_mutex_lock(&sf.mu);
	}
}

/* After the walk.  Every pass counts bypasses, as the simulator does: a
 * lower-priority job started by the main pass, or before a pass was
 * abandoned, started ahead of the jobs that waited all the same. */
static void pass_finish(struct pass *p)
{
	struct fw_plan_stats st;

	add_bypass(p);
	if (p->kind == SF_PASS_BACKFILL && !p->abandoned)
		clear_stale_estimates(p);
	if (p->kind == SF_PASS_BACKFILL) {
		pthread_mutex_lock(&sf.tab_mu);
		sf_tab_prune_done();
		pthread_mutex_unlock(&sf.tab_mu);
	}
	charge(p, &p->t.finish);
	fw_plan_get_stats(p->plan, &st);
	update_stats(p, &st);
	if (slurm_conf.debug_flags & DEBUG_FLAG_BACKFILL)
		log_times(p);
}

int sf_run_pass(enum sf_pass_kind kind)
{
	struct pass p = { .kind = kind };
	struct timespec asked;
	struct fw_bitset *tmp = NULL;
	int started = 0;

	/* bf_active before the locks and cleared after them: slurmctld's
	 * background thread holds check_bf_running_lock while it waits for
	 * the job lock (to purge old jobs), so taking that mutex with the
	 * slurmctld locks held would deadlock (sched/backfill's order). */
	set_bf_active(1);
	clock_gettime(CLOCK_MONOTONIC, &asked);
	lock_slurmctld(pass_locks);
	/* The cycle starts once the locks are held, as sched/backfill's does
	 * (sdiag's cycle times stay comparable); the wait before is shown
	 * apart (other threads holding them: an squeue, a state save). */
	clock_gettime(CLOCK_MONOTONIC, &p.t_start);
	p.t.first_wait = ns_between(&asked, &p.t_start);
	p.t_locked = p.mark = p.t_start;
	p.now = time(NULL);
	pthread_mutex_lock(&sf.mu);
	if (pass_setup(&p, &tmp)) {
		walk_queue(&p, tmp);
		pass_finish(&p);
		started = p.started;
	}
	pthread_mutex_unlock(&sf.mu);
	if (p.plan)
		(void)bb_g_job_try_stage_in();
	unlock_slurmctld(pass_locks);
	set_bf_active(0);
	fw_bitset_free(tmp);
	pass_free(&p);
	return started;
}
