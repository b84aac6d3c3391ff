/*
 * Preemption in the plan (fw_plan_add_running_preemptable,
 * fw_plan_job.preempts): hand-worked cases and a property test.
 *
 * Hand-worked: 8-CPU / 16,000 MB nodes, one-minute slots, NOW on a slot
 * boundary.  Classes: SCAV (QOS id 1, Priority 10), MID (id 3, Priority
 * 50); owners may preempt the classes listed in their job.  Every
 * expected victim and start is worked out from the rule in
 * fw_plan_preempt.c (rank: lower priority, fewer nodes, youngest, higher
 * id; per node the victims Slurm's select plugin takes there (the
 * shortest prefix in rank order, then reordered with the job that
 * completed the fit first), the node with the fewest; start when the
 * last victim's grace time is over, rounded up to a slot), not read back
 * from the planner.
 *
 * Property (fixed seeds): random shared clusters with running jobs of
 * three classes (random starts, exemptions, grace times), a queue in
 * which some jobs may preempt some classes; one backfill pass, decision
 * by decision, replayed on a dense [node][slot] model:
 *   1. every victim is of a class its preemptor may preempt, not exempt,
 *      still running, and preempted once;
 *   2. the job fits on its nodes at its start once its victims are gone
 *      (no oversubscription), and after the whole pass no node is
 *      oversubscribed with preempted jobs held until their grace ends;
 *   3. Slurm's victims: a one-node job's victims are exactly those that
 *      Slurm's select plugin preempts on its node (its algorithm worked
 *      on the dense model), and no node could have made room at the same
 *      start with fewer such victims (strict order: with a lower-ranked
 *      worst victim, then fewer); a job on several nodes has no victim
 *      that could be spared;
 *   4. a job that may not preempt never gets a start earlier than the
 *      brute-force earliest start on the bookings as they are;
 *   5. a start that waits for jobs that may not be preempted and names
 *      its victims for later (victims_later) comes after every victim's
 *      release slot, and its victims keep their resources until it (the
 *      model releases them at the start, not now).
 * Some queued jobs want whole nodes (--exclusive: the model needs the
 * node empty) and some preemptable running jobs hold their node whole
 * (added with a 1-CPU use and fw_preempt_run.whole: the plan must book
 * the whole node).  A whole-node job's start is exact until the first
 * preemption of the pass; after it the whole-node view still holds the
 * victims' nodes until their planned end, so its start may be later than
 * the brute force (never earlier).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_plan_util.h"

enum { SCAV = 1, OWNER = 2, MID = 3 };

static const uint32_t p_scav[] = { SCAV };
static const uint32_t p_mid[] = { MID };
static const uint32_t p_both[] = { SCAV, MID };

/* A shared cluster of n nodes of cpus CPUs / 16,000 MB, partition "all". */
static struct fw_cluster *pc_cluster(uint32_t n, uint32_t cpus)
{
	struct fw_cluster *cl = fw_cluster_new();
	struct fw_partition_def pd = { 0 };
	struct fw_bitset *all = fw_bitset_new(n);
	struct fw_err e;

	for (uint32_t i = 0; i < n; i++) {
		char name[16];
		struct fw_node_def d = {
			.name = name, .cpus = cpus, .mem_mb = 16000,
			.island = -1, .usable = true,
		};

		snprintf(name, sizeof(name), "n%u", i + 1);
		ck_assert_int_eq(fw_cluster_add_node(cl, &d, &e), (int)i);
		fw_bitset_set(all, i);
	}
	pd.name = "all";
	pd.nodes = all;
	pd.priority_tier = 1;
	ck_assert_int_eq(fw_cluster_add_partition(cl, &pd, &e), 0);
	fw_bitset_free(all);
	ck_assert_int_eq(fw_cluster_set_shared(cl, true, &e), 0);
	ck_assert_int_eq(fw_cluster_finalize(cl, &e), 0);
	return cl;
}

struct world {
	struct fw_cluster *cl;
	struct fw_plan_conf *conf;
	struct fw_plan *p;
};

static void world_new(struct world *w, uint32_t n)
{
	struct fw_err e;

	w->cl = pc_cluster(n, 8);
	w->conf = fw_plan_conf_new();
	w->conf->bf_window = 24 * H;
	w->conf->bf_resolution = MIN;
	w->p = fw_plan_new(w->cl, w->conf, NOW, &e);
	ck_assert_ptr_nonnull(w->p);
}

static void world_free(struct world *w)
{
	fw_plan_free(w->p);
	fw_plan_conf_free(w->conf);
	fw_cluster_free(w->cl);
}

/* A preemptable running job `id` of cpus CPUs on node until end. */
struct vic {
	uint32_t id, node, cpus, cls, prio;
	fw_time_t start, end, exempt_until;
	int64_t grace;
};

static void add_vic(struct world *w, const struct vic *v)
{
	struct fw_node_use u = { .node = v->node, .job = v->id,
				 .cpus = v->cpus, .mem_mb = 1000 };
	struct fw_preempt_run pr = { .cls = v->cls, .prio = v->prio,
				     .start = v->start,
				     .exempt_until = v->exempt_until,
				     .grace = v->grace };
	struct fw_err e;

	ck_assert_int_eq(fw_plan_add_running_preemptable(w->p, &u, 1, v->end,
							 NULL, 0, &pr, &e), 0);
}

static void add_plain(struct world *w, uint32_t id, uint32_t node,
		      uint32_t cpus, fw_time_t end)
{
	struct fw_node_use u = { .node = node, .job = id, .cpus = cpus,
				 .mem_mb = 1000 };
	struct fw_err e;

	ck_assert_int_eq(fw_plan_add_running_use(w->p, &u, 1, end, NULL, 0,
						 &e), 0);
}

static struct fw_plan_job pjob(uint32_t id, uint32_t prio, uint32_t cpus,
			       int64_t secs, const uint32_t *pre,
			       uint32_t npre)
{
	struct fw_plan_job j = tp_job(id, prio, 0, 1, secs);

	j.cpus_per_node = cpus;
	j.mem_per_node_mb = 1000;
	j.preempts = pre;
	j.npreempts = npre;
	return j;
}

static enum fw_plan_kind decide(struct world *w, const struct fw_plan_job *j,
				enum fw_plan_pass pass,
				struct fw_plan_decision *d)
{
	struct fw_err e;

	ck_assert_int_eq(fw_plan_decide(w->p, j, pass, d, &e), 0);
	if (d->kind == FW_PLAN_START_NOW)
		ck_assert_int_eq(fw_plan_started(w->p, NULL, &e), 0);
	return d->kind;
}

/* j is reserved at start, preempting nobody. */
static void waits_unpreempting(struct world *w, const struct fw_plan_job *j,
			       fw_time_t start)
{
	struct fw_plan_decision d;

	ck_assert_int_eq(decide(w, j, FW_PASS_BACKFILL, &d),
			 FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, start);
	ck_assert_int_eq(d.nvictims, 0);
}

/* j is reserved at start on node, preempting victim then, not now
 * (victims_later). */
static void preempts_later(struct world *w, const struct fw_plan_job *j,
			   fw_time_t start, uint32_t node, uint32_t victim)
{
	struct fw_plan_decision d;

	ck_assert_int_eq(decide(w, j, FW_PASS_BACKFILL, &d),
			 FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, start);
	ck_assert_int_eq(fw_bitset_count(d.nodes), 1);
	ck_assert(fw_bitset_test(d.nodes, node));
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], victim);
	ck_assert(d.victims_later);
}

/* ------------------------------------------------------- hand-worked */

/* n1 is full with two scavenger jobs of 4 CPUs until +10 h (101 started
 * 2 h ago, 102 1 h ago).  An owner job of 8 CPUs preempts both and
 * starts now; they are listed youngest first (same class and size).  A
 * later 1-CPU job that may not preempt then waits for the owner's end
 * (+1 h), not for the scavengers' (+10 h): they are gone. */
START_TEST(owner_preempts_both)
{
	struct world w;
	struct fw_plan_decision d;
	struct vic a = { 101, 0, 4, SCAV, 10, NOW - 2 * H, NOW + 10 * H, 0, 0 };
	struct vic b = { 102, 0, 4, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job own = pjob(1, 900, 8, H, p_scav, 1);
	struct fw_plan_job small = pjob(2, 100, 1, 10 * MIN, NULL, 0);

	world_new(&w, 1);
	add_vic(&w, &a);
	add_vic(&w, &b);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.start, NOW);
	ck_assert_int_eq(d.nvictims, 2);
	ck_assert_int_eq(d.victims[0], 102);
	ck_assert_int_eq(d.victims[1], 101);
	ck_assert(fw_bitset_test(d.nodes, 0));
	ck_assert_int_eq(decide(&w, &small, FW_PASS_BACKFILL, &d),
			 FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + H);
	ck_assert_int_eq(d.nvictims, 0);
	world_free(&w);
}
END_TEST

/* n1 full with one scavenger job of 8 CPUs until +10 h.  An owner of 4
 * CPUs preempts it; slurmctld takes that as a preemption (the adapter
 * reports fw_plan_preempting): the scavenger is still there for the
 * current step, so a 1-CPU job that may not preempt cannot start now on
 * the 4 CPUs the owner leaves; it is planned at the next step (+1 min).
 * Reported as a plain start instead, it would start now. */
static enum fw_plan_kind after_preempting(bool preempting, fw_time_t *start)
{
	struct world w;
	struct fw_plan_decision d;
	struct vic a = { 101, 0, 8, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job own = pjob(1, 900, 4, H, p_scav, 1);
	struct fw_plan_job small = pjob(2, 100, 1, 10 * MIN, NULL, 0);
	struct fw_err e;
	enum fw_plan_kind k;

	world_new(&w, 1);
	add_vic(&w, &a);
	ck_assert_int_eq(fw_plan_decide(w.p, &own, FW_PASS_BACKFILL, &d, &e),
			 0);
	ck_assert_int_eq(d.kind, FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(preempting ? fw_plan_preempting(w.p, d.nodes, &e) :
			 fw_plan_started(w.p, d.nodes, &e), 0);
	k = decide(&w, &small, FW_PASS_BACKFILL, &d);
	*start = d.start;
	world_free(&w);
	return k;
}

START_TEST(victims_held_while_slurmctld_preempts)
{
	fw_time_t start;

	ck_assert_int_eq(after_preempting(true, &start), FW_PLAN_RESERVED);
	ck_assert_int_eq(start, NOW + MIN);
	ck_assert_int_eq(after_preempting(false, &start), FW_PLAN_START_NOW);
}
END_TEST

/* The same node, an owner of 4 CPUs: one victim is enough.  Same class:
 * the youngest (102).  101 in SCAV (Priority 10) and 102 in MID (50):
 * the lower priority first (101) although 102 is younger; with
 * preempt_youngest_first the youngest (102). */
START_TEST(one_victim_by_rank)
{
	struct vic a = { 101, 0, 4, SCAV, 10, NOW - 2 * H, NOW + 10 * H, 0, 0 };
	struct vic b = { 102, 0, 4, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job own = pjob(1, 900, 4, H, p_both, 2);
	struct fw_plan_decision d;
	struct world w;

	world_new(&w, 1);
	add_vic(&w, &a);
	add_vic(&w, &b);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], 102);
	world_free(&w);

	b.cls = MID;
	b.prio = 50;
	world_new(&w, 1);
	add_vic(&w, &a);
	add_vic(&w, &b);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], 101);
	world_free(&w);

	world_new(&w, 1);
	w.conf->preempt_youngest_first = true;
	add_vic(&w, &a);
	add_vic(&w, &b);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], 102);
	world_free(&w);
}
END_TEST

/* A whole-node (--exclusive) owner on two 8-CPU nodes.  n1: scavenger
 * 101 (4 CPUs) and a plain job 201 (2 CPUs) until +2 h; n2: scavengers
 * 102 (2 CPUs, 1 h old) and 103 (3 CPUs, 30 min old), until +10 h.  n1
 * cannot be emptied (201 may not be preempted), so the owner takes n2 and
 * preempts both jobs there, the youngest first (103, 102), although each
 * alone would leave room for its CPUs.  A later 1-CPU job that may not
 * preempt starts now on n1 (2 CPUs left there), not on n2 (the owner's
 * for an hour).  Without the scavengers' class in its list the owner
 * waits until a node is empty: +10 h (both nodes' scavengers end then),
 * no victim. */
/* Two 8-CPU nodes: n1 with scavenger 101 (4 CPUs) and plain job 201 (2
 * CPUs, until +2 h), n2 with scavengers 102 (2 CPUs) and 103 (3 CPUs). */
static void excl_world(struct world *w)
{
	struct vic a = { 101, 0, 4, SCAV, 10, NOW - 2 * H, NOW + 10 * H, 0, 0 };
	struct vic b = { 102, 1, 2, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct vic c = { 103, 1, 3, SCAV, 10, NOW - 30 * MIN, NOW + 10 * H,
			 0, 0 };

	world_new(w, 2);
	add_vic(w, &a);
	add_plain(w, 201, 0, 2, NOW + 2 * H);
	add_vic(w, &b);
	add_vic(w, &c);
}

START_TEST(exclusive_owner_empties_a_node)
{
	struct fw_plan_job own = pjob(1, 900, 1, H, p_scav, 1);
	struct fw_plan_job small = pjob(2, 100, 1, 10 * MIN, NULL, 0);
	struct fw_plan_decision d;
	struct world w;

	own.exclusive = true;
	excl_world(&w);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert(!d.shared);
	ck_assert_int_eq(d.nvictims, 2);
	ck_assert_int_eq(d.victims[0], 103);
	ck_assert_int_eq(d.victims[1], 102);
	ck_assert_int_eq(fw_bitset_count(d.nodes), 1);
	ck_assert(fw_bitset_test(d.nodes, 1));
	/* The select plugin may use n2 only. */
	ck_assert_int_eq(fw_bitset_count(d.allowed), 1);
	ck_assert(fw_bitset_test(d.allowed, 1));
	ck_assert_int_eq(decide(&w, &small, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert(fw_bitset_test(d.nodes, 0));
	ck_assert(!fw_bitset_test(d.nodes, 1));
	world_free(&w);

	own.npreempts = 0;
	own.preempts = NULL;
	excl_world(&w);
	waits_unpreempting(&w, &own, NOW + 10 * H);
	world_free(&w);
}
END_TEST

/* Every node holds a job that may not be preempted beside a 6-CPU
 * scavenger (103 on n1, 104 on n2, until +10 h): 201 on n1 until +3 h,
 * 202 on n2 until +1 h.  An exclusive owner cannot start now (no node can
 * be emptied), but n2 can be at +1 h, when 202 ends, by preempting 104:
 * it is reserved there (as Slurm's backfill plans it, testing the job
 * with every candidate gone), naming 104, which is not preempted now
 * (victims_later: its start waits for 202, not for 104's grace time).
 * 104 keeps running in the plan until +1 h: a 2-CPU job that may not
 * preempt finds 1 free CPU on each node now and waits for the owner's
 * end, +2 h on n2 (n1 frees 2 CPUs only at +3 h).  Without the later
 * start, the owner waited for the first node to empty: +10 h. */
START_TEST(exclusive_owner_waits_for_plain_jobs)
{
	struct vic a = { 103, 0, 6, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct vic b = { 104, 1, 6, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job own = pjob(1, 900, 1, H, p_scav, 1);
	struct fw_plan_job two = pjob(2, 100, 2, 30 * MIN, NULL, 0);
	struct world w;

	own.exclusive = true;
	world_new(&w, 2);
	add_plain(&w, 201, 0, 1, NOW + 3 * H);
	add_plain(&w, 202, 1, 1, NOW + H);
	add_vic(&w, &a);
	add_vic(&w, &b);
	preempts_later(&w, &own, NOW + H, 1, 104);
	waits_unpreempting(&w, &two, NOW + 2 * H);
	world_free(&w);
}
END_TEST

/* n1: a plain job of 4 CPUs until +1 h (201) beside a 4-CPU scavenger
 * until +10 h (101).  An 8-CPU owner is reserved at +1 h preempting 101
 * then (victims_later), not at +10 h; a 4-CPU job that may not preempt
 * then waits for the owner's end (+2 h): 101 holds its CPUs until +1 h.
 * In the main pass (no reservations, only starts now) the owner gets no
 * victims: it cannot start now. */
START_TEST(owner_preempts_once_a_plain_job_ends)
{
	struct vic a = { 101, 0, 4, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job own = pjob(1, 900, 8, H, p_scav, 1);
	struct fw_plan_job four = pjob(2, 100, 4, 30 * MIN, NULL, 0);
	struct fw_plan_decision d;
	struct world w;

	world_new(&w, 1);
	add_plain(&w, 201, 0, 4, NOW + H);
	add_vic(&w, &a);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_MAIN, &d) ==
			 FW_PLAN_START_NOW, 0);
	ck_assert_int_eq(d.nvictims, 0);
	preempts_later(&w, &own, NOW + H, 0, 101);
	waits_unpreempting(&w, &four, NOW + 2 * H);
	world_free(&w);
}
END_TEST

/* A scavenger that holds n1 whole (--exclusive: 101, declared with 1 CPU
 * and 1,000 MB, which the plan must not believe) until +10 h.  A 1-CPU
 * job that may not preempt is planned at +10 h, not now.  A 2-CPU owner
 * preempts 101 and starts now; a 6-CPU / 14,000-MB job that may not
 * preempt then starts now beside it: 101 gave back all of n1's 8 CPUs
 * and 16,000 MB, not only what its use said. */
START_TEST(whole_node_victim)
{
	struct fw_node_use u = { .node = 0, .job = 101, .cpus = 1,
				 .mem_mb = 1000 };
	struct fw_preempt_run pr = { .cls = SCAV, .prio = 10,
				     .start = NOW - H, .whole = true };
	struct fw_plan_job small = pjob(1, 900, 1, 10 * MIN, NULL, 0);
	struct fw_plan_job own = pjob(2, 800, 2, H, p_scav, 1);
	struct fw_plan_job big = pjob(3, 700, 6, 10 * MIN, NULL, 0);
	struct fw_plan_decision d;
	struct world w;
	struct fw_err e;

	big.mem_per_node_mb = 14000;
	world_new(&w, 1);
	ck_assert_int_eq(fw_plan_add_running_preemptable(w.p, &u, 1,
							 NOW + 10 * H, NULL,
							 0, &pr, &e), 0);
	ck_assert_int_eq(decide(&w, &small, FW_PASS_BACKFILL, &d),
			 FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + 10 * H);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], 101);
	ck_assert_int_eq(decide(&w, &big, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	world_free(&w);
}
END_TEST

/* PreemptExemptTime: 102 (the youngest) is exempt until +30 min, so the
 * 4-CPU owner takes 101.  With both exempt nothing is preempted: the
 * owner waits for the first to end (101 at +2 h). */
START_TEST(exempt_jobs_are_skipped)
{
	struct vic a = { 101, 0, 4, SCAV, 10, NOW - 2 * H, NOW + 2 * H, 0, 0 };
	struct vic b = { 102, 0, 4, SCAV, 10, NOW - 10 * MIN, NOW + 10 * H,
			 NOW + 30 * MIN, 0 };
	struct fw_plan_job own = pjob(1, 900, 4, H, p_scav, 1);
	struct fw_plan_decision d;
	struct world w;

	world_new(&w, 1);
	add_vic(&w, &a);
	add_vic(&w, &b);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], 101);
	world_free(&w);

	a.exempt_until = NOW + MIN;
	world_new(&w, 1);
	add_vic(&w, &a);
	add_vic(&w, &b);
	waits_unpreempting(&w, &own, NOW + 2 * H);
	world_free(&w);
}
END_TEST

/* GraceTime: 101 has 5 min, 102 2 min; the protected 8-CPU owner needs
 * both, so it is planned at +5 min (RESERVED, victims named now).  A
 * grace of 90 s is rounded up to the next slot: +2 min.  An unprotected
 * owner does not preempt for a later start: it is estimated at the
 * scavengers' end (+10 h). */
START_TEST(grace_time_delays_the_start)
{
	struct vic a = { 101, 0, 4, SCAV, 10, NOW - 2 * H, NOW + 10 * H, 0,
			 300 };
	struct vic b = { 102, 0, 4, SCAV, 10, NOW - H, NOW + 10 * H, 0, 120 };
	struct fw_plan_job own = pjob(1, 900, 8, H, p_scav, 1);
	struct fw_plan_decision d;
	struct world w;

	world_new(&w, 1);
	add_vic(&w, &a);
	add_vic(&w, &b);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_RESERVED);
	ck_assert(d.is_protected);
	ck_assert_int_eq(d.start, NOW + 5 * MIN);
	ck_assert_int_eq(d.nvictims, 2);
	/* What it waits for: 101, gone at +5 min (102 at +2 min). */
	ck_assert_int_eq(d.nholders, 1);
	ck_assert_int_eq(d.holders[0].id, 101);
	world_free(&w);

	a.grace = 90;
	b.grace = 0;
	world_new(&w, 1);
	add_vic(&w, &a);
	add_vic(&w, &b);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + 2 * MIN);
	world_free(&w);

	world_new(&w, 1);
	w.conf->bf_min_prio_reserve = 1000;
	add_vic(&w, &a);
	add_vic(&w, &b);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_ESTIMATED);
	ck_assert_int_eq(d.start, NOW + 10 * H);
	ck_assert_int_eq(d.nvictims, 0);
	world_free(&w);
}
END_TEST

/* A job may only preempt the classes it lists: an owner that preempts
 * MID only, and a job that preempts nobody, wait for the SCAV jobs'
 * end (+3 h). */
START_TEST(only_listed_classes)
{
	struct vic a = { 101, 0, 4, SCAV, 10, NOW - 2 * H, NOW + 3 * H, 0, 0 };
	struct vic b = { 102, 0, 4, SCAV, 10, NOW - H, NOW + 3 * H, 0, 0 };
	struct fw_plan_job mid = pjob(1, 900, 8, H, p_mid, 1);
	struct fw_plan_job none = pjob(2, 800, 8, H, NULL, 0);
	struct fw_plan_decision d;
	struct world w;

	world_new(&w, 1);
	add_vic(&w, &a);
	add_vic(&w, &b);
	w.conf->bf_min_prio_reserve = 1000;	/* estimates only */
	ck_assert_int_eq(decide(&w, &mid, FW_PASS_BACKFILL, &d),
			 FW_PLAN_ESTIMATED);
	ck_assert_int_eq(d.start, NOW + 3 * H);
	ck_assert_int_eq(d.nvictims, 0);
	ck_assert_int_eq(decide(&w, &none, FW_PASS_BACKFILL, &d),
			 FW_PLAN_ESTIMATED);
	ck_assert_int_eq(d.start, NOW + 3 * H);
	ck_assert_int_eq(d.nvictims, 0);
	world_free(&w);
}
END_TEST

/* Fewest victims across nodes: n1 holds four 2-CPU scavenger jobs, n2
 * one 8-CPU scavenger job (all until +10 h).  An 8-CPU owner takes n2
 * with one victim (301), not n1 with four. */
START_TEST(fewest_victims_across_nodes)
{
	struct fw_plan_job own = pjob(1, 900, 8, H, p_scav, 1);
	struct fw_plan_decision d;
	struct world w;

	world_new(&w, 2);
	for (uint32_t k = 0; k < 4; k++) {
		struct vic v = { 201 + k, 0, 2, SCAV, 10, NOW - H, NOW + 10 * H,
				 0, 0 };

		add_vic(&w, &v);
	}
	{
		struct vic v = { 301, 1, 8, SCAV, 10, NOW - 3 * H,
				 NOW + 10 * H, 0, 0 };

		add_vic(&w, &v);
	}
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], 301);
	ck_assert(fw_bitset_test(d.nodes, 1) && !fw_bitset_test(d.nodes, 0));
	world_free(&w);
}
END_TEST

/*
 * Slurm's victims, not the fewest: n1 full with A (2 CPUs, SCAV,
 * younger), B (2 CPUs, SCAV), C (4 CPUs, MID); rank A, B, C; a 4-CPU
 * owner.  C alone would be fewer, but select/cons_tres (given n1) removes
 * candidates in rank order until the job fits: A (2 free), B (4: fits);
 * then B first: B, A fits (A completes it); then A first: A, B.  Victims
 * 101 and 102, whatever preempt_strict_order or preempt_reorder_count
 * (0: one reorder; 1: two).
 */
START_TEST(slurms_victims_not_the_fewest)
{
	struct vic a = { 101, 0, 2, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct vic b = { 102, 0, 2, SCAV, 10, NOW - 2 * H, NOW + 10 * H, 0, 0 };
	struct vic c = { 103, 0, 4, MID, 50, NOW - 30 * MIN, NOW + 10 * H, 0,
			 0 };
	struct fw_plan_job own = pjob(1, 900, 4, H, p_both, 2);
	struct fw_plan_decision d;
	struct world w;

	for (int mode = 0; mode < 3; mode++) {
		world_new(&w, 1);
		w.conf->preempt_strict_order = mode == 1;
		w.conf->preempt_reorder_count = mode == 2 ? 0 : 1;
		add_vic(&w, &a);
		add_vic(&w, &b);
		add_vic(&w, &c);
		ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
				 FW_PLAN_START_NOW);
		ck_assert_int_eq(d.nvictims, 2);
		ck_assert_int_eq(d.victims[0], 101);
		ck_assert_int_eq(d.victims[1], 102);
		world_free(&w);
	}
}
END_TEST

/*
 * The reorder drops a victim the prefix takes.  n1 full: A (2 CPUs, SCAV,
 * the younger), B (2 CPUs, SCAV), C (4 CPUs, MID); rank A, B, C.  A 6-CPU
 * owner: the prefix is A, B, C (2, 4, 8 free); then C first: C, A (4,
 * 6: fits, A completes it); then A first: A, C.  Victims 101 and 103, in
 * both orders (strict only changes how Slurm re-sorts jobs on several
 * nodes).
 */
START_TEST(reorder_drops_a_prefix_victim)
{
	struct vic a = { 101, 0, 2, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct vic b = { 102, 0, 2, SCAV, 10, NOW - 2 * H, NOW + 10 * H, 0, 0 };
	struct vic c = { 103, 0, 4, MID, 50, NOW - 30 * MIN, NOW + 10 * H, 0,
			 0 };
	struct fw_plan_job own = pjob(1, 900, 6, H, p_both, 2);
	struct fw_plan_decision d;
	struct world w;

	for (int strict = 0; strict < 2; strict++) {
		world_new(&w, 1);
		w.conf->preempt_strict_order = strict;
		add_vic(&w, &a);
		add_vic(&w, &b);
		add_vic(&w, &c);
		ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
				 FW_PLAN_START_NOW);
		ck_assert_int_eq(d.nvictims, 2);
		ck_assert_int_eq(d.victims[0], 101);
		ck_assert_int_eq(d.victims[1], 103);
		world_free(&w);
	}
}
END_TEST

/*
 * preempt_reorder_count: how often Slurm reorders.  n1 full: A (1 CPU),
 * B (1 CPU), C (3 CPUs), all SCAV, and D (3 CPUs, MID); rank A, B, C
 * (youngest first), D.  A 6-CPU owner: the prefix is all four (1, 2, 5,
 * 8 free; D completes it).  Reorder 1: D, A, B, C (3, 4, 5, 8: C
 * completes it): still all four.  Reorder 2: C, D (3, 6: fits).  So
 * preempt_reorder_count=0 (one reorder) preempts four jobs, the default
 * (1: two reorders) two, 103 and 104.
 */
START_TEST(reorder_count)
{
	struct vic v[4] = {
		{ 101, 0, 1, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 },
		{ 102, 0, 1, SCAV, 10, NOW - 2 * H, NOW + 10 * H, 0, 0 },
		{ 103, 0, 3, SCAV, 10, NOW - 3 * H, NOW + 10 * H, 0, 0 },
		{ 104, 0, 3, MID, 50, NOW - 30 * MIN, NOW + 10 * H, 0, 0 },
	};
	struct fw_plan_job own = pjob(1, 900, 6, H, p_both, 2);
	struct fw_plan_decision d;
	struct world w;

	for (uint32_t count = 0; count < 2; count++) {
		world_new(&w, 1);
		w.conf->preempt_reorder_count = count;
		for (int k = 0; k < 4; k++)
			add_vic(&w, &v[k]);
		ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
				 FW_PLAN_START_NOW);
		if (count == 0) {
			ck_assert_int_eq(d.nvictims, 4);
			for (uint32_t k = 0; k < 4; k++)
				ck_assert_int_eq(d.victims[k], 101 + k);
		} else {
			ck_assert_int_eq(d.nvictims, 2);
			ck_assert_int_eq(d.victims[0], 103);
			ck_assert_int_eq(d.victims[1], 104);
		}
		world_free(&w);
	}
}
END_TEST

/*
 * Strict order picks the node by its worst victim.  n1: A and B (2 CPUs
 * each, SCAV) beside a plain 4-CPU job; n2: C (8 CPUs, MID).  A 4-CPU
 * owner needs both A and B on n1 (worst: a SCAV job), or C alone on n2
 * (a MID job).  Default: the fewest, C on n2.  preempt_strict_order: only
 * the lowest priority jobs, A and B on n1, as Slurm's select plugin
 * chooses (it takes candidates in rank order until the job fits
 * anywhere).
 */
START_TEST(strict_order_chooses_the_lowest_ranks)
{
	struct vic a = { 101, 0, 2, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct vic b = { 102, 0, 2, SCAV, 10, NOW - 2 * H, NOW + 10 * H, 0, 0 };
	struct vic c = { 103, 1, 8, MID, 50, NOW - 30 * MIN, NOW + 10 * H, 0,
			 0 };
	struct fw_plan_job own = pjob(1, 900, 4, H, p_both, 2);
	struct fw_plan_decision d;
	struct world w;

	for (int strict = 0; strict < 2; strict++) {
		world_new(&w, 2);
		w.conf->preempt_strict_order = strict;
		add_plain(&w, 201, 0, 4, NOW + 10 * H);
		add_vic(&w, &a);
		add_vic(&w, &b);
		add_vic(&w, &c);
		ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
				 FW_PLAN_START_NOW);
		if (!strict) {
			ck_assert_int_eq(d.nvictims, 1);
			ck_assert_int_eq(d.victims[0], 103);
			ck_assert(fw_bitset_test(d.nodes, 1));
		} else {
			ck_assert_int_eq(d.nvictims, 2);
			ck_assert_int_eq(d.victims[0], 101);
			ck_assert_int_eq(d.victims[1], 102);
			ck_assert(fw_bitset_test(d.nodes, 0));
		}
		world_free(&w);
	}
}
END_TEST

/* A victim on two nodes frees both: V holds 4 CPUs on n1 and n2, a
 * plain job holds n1's other 4, n2's other 4 are free.  An 8-CPU owner
 * preempts V and takes n2; afterwards a 4-CPU job that may not preempt
 * starts now on n1 (V's half there is gone too). */
START_TEST(multi_node_victim_frees_all_its_nodes)
{
	struct fw_node_use u[2] = {
		{ .node = 0, .job = 500, .cpus = 4, .mem_mb = 1000 },
		{ .node = 1, .job = 500, .cpus = 4, .mem_mb = 1000 },
	};
	struct fw_preempt_run pr = { .cls = SCAV, .prio = 10,
				     .start = NOW - H };
	struct fw_plan_job own = pjob(1, 900, 8, H, p_scav, 1);
	struct fw_plan_job four = pjob(2, 100, 4, H, NULL, 0);
	struct fw_plan_decision d;
	struct fw_err e;
	struct world w;

	world_new(&w, 2);
	ck_assert_int_eq(fw_plan_add_running_preemptable(w.p, u, 2,
							 NOW + 10 * H, NULL,
							 0, &pr, &e), 0);
	add_plain(&w, 600, 0, 4, NOW + 10 * H);
	ck_assert_int_eq(decide(&w, &four, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);	/* n2's free half */
	ck_assert(fw_bitset_test(d.nodes, 1));
	{
		struct fw_plan_job four2 = pjob(3, 50, 4, H, NULL, 0);

		/* Nothing free now: n1 and n2 are full until +1 h (four). */
		ck_assert_int_eq(decide(&w, &four2, FW_PASS_BACKFILL, &d),
				 FW_PLAN_RESERVED);
		ck_assert_int_eq(d.start, NOW + H);
	}
	world_free(&w);

	/* Now with the owner first. */
	world_new(&w, 2);
	ck_assert_int_eq(fw_plan_add_running_preemptable(w.p, u, 2,
							 NOW + 10 * H, NULL,
							 0, &pr, &e), 0);
	add_plain(&w, 600, 0, 4, NOW + 10 * H);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], 500);
	ck_assert(fw_bitset_test(d.nodes, 1) && !fw_bitset_test(d.nodes, 0));
	four.priority = 100;
	ck_assert_int_eq(decide(&w, &four, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert(fw_bitset_test(d.nodes, 0));
	world_free(&w);
}
END_TEST

/* Main pass: a preemption without grace time starts the owner now; with
 * grace time the main pass does not preempt (the owner waits, Resources). */
START_TEST(main_pass)
{
	struct vic a = { 101, 0, 8, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job own = pjob(1, 900, 8, H, p_scav, 1);
	struct fw_plan_decision d;
	struct world w;

	world_new(&w, 1);
	add_vic(&w, &a);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_MAIN, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], 101);
	world_free(&w);

	a.grace = 60;
	world_new(&w, 1);
	add_vic(&w, &a);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_MAIN, &d), FW_PLAN_WAITING);
	ck_assert_int_eq(d.nvictims, 0);
	ck_assert_int_eq(d.reason, FW_REASON_NODES);
	world_free(&w);
}
END_TEST

/* A node Slurm oversubscribed (6 + 6 CPUs of 8, the second one
 * preemptable): what the victim holds is not known exactly, so the
 * owner does not count on it and waits for the plain job's end. */
START_TEST(inexact_node_not_counted)
{
	struct vic a = { 101, 0, 6, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job own = pjob(1, 900, 4, H, p_scav, 1);
	struct fw_plan_decision d;
	struct world w;

	world_new(&w, 1);
	add_plain(&w, 600, 0, 6, NOW + 2 * H);
	add_vic(&w, &a);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_RESERVED);
	ck_assert_int_eq(d.nvictims, 0);
	/* At +2 h 6 CPUs of the victim's are booked where there is room:
	 * 2 left, the owner needs 4: it waits for the victim (+10 h). */
	ck_assert_int_eq(d.start, NOW + 10 * H);
	world_free(&w);
}
END_TEST

/* ------------------------------------------------- late (requeued) */

/* The victim of a preemption of the pass, requeued: pending again with
 * its hold (eligible in 121 s), joining the pass (fw_plan_late). */
static struct fw_plan_job requeued(uint32_t id, uint32_t prio, uint32_t cpus,
				   int64_t secs)
{
	struct fw_plan_job j = pjob(id, prio, cpus, secs, NULL, 0);

	j.submit = NOW;
	j.eligible = NOW + 121;
	j.late = true;
	return j;
}

/*
 * n1: scavenger 101 (8 CPUs, until +10 h); n2: plain job 201 (4 CPUs,
 * until +30 min).  Owner 1 (8 CPUs, 1 h) preempts 101 and starts on n1
 * (n2 has 4 CPUs free).  101, requeued with priority 500, joins the pass
 * before job 3 (priority 100, 4 CPUs, 1 h): it needs 8 CPUs, n1 is the
 * owner's until +1 h, n2 is free at +30 min: reserved on n2 at +30 min.
 * Job 3 would fit on n2's 4 free CPUs now, but until +1 h: that delays
 * 101, so it waits for n1 at +1 h.  Without the late job it starts now.
 */
static enum fw_plan_kind low_job_after_requeue(bool with_late,
					       fw_time_t *start)
{
	struct vic a = { 101, 0, 8, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job own = pjob(1, 900, 8, H, p_scav, 1);
	struct fw_plan_job v = requeued(101, 500, 8, 2 * H);
	struct fw_plan_job low = pjob(3, 100, 4, H, NULL, 0);
	struct fw_plan_late *late;
	struct fw_plan_decision d;
	enum fw_plan_kind k;
	struct world w;
	size_t tag;

	world_new(&w, 2);
	add_vic(&w, &a);
	add_plain(&w, 201, 1, 4, NOW + 30 * MIN);
	late = fw_plan_late_new(w.cl);
	ck_assert(!fw_plan_late_next(late, &own, &tag));
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(d.nvictims, 1);
	ck_assert_int_eq(d.victims[0], 101);
	ck_assert(fw_bitset_test(d.nodes, 0));
	if (with_late)
		fw_plan_late_add(late, &v, 7);
	if (fw_plan_late_next(late, &low, &tag)) {
		ck_assert_int_eq(tag, 7);
		ck_assert_int_eq(decide(&w, &v, FW_PASS_BACKFILL, &d),
				 FW_PLAN_RESERVED);
		ck_assert_int_eq(d.start, NOW + 30 * MIN);
		ck_assert(fw_bitset_test(d.nodes, 1));
		ck_assert(d.is_protected);
		ck_assert_int_eq(d.nvictims, 0);
	}
	ck_assert_int_eq(fw_plan_late_count(late), 0);
	k = decide(&w, &low, FW_PASS_BACKFILL, &d);
	*start = d.start;
	fw_plan_late_free(late);
	world_free(&w);
	return k;
}

START_TEST(requeued_victim_planned_in_the_same_pass)
{
	fw_time_t start;

	ck_assert_int_eq(low_job_after_requeue(true, &start),
			 FW_PLAN_RESERVED);
	ck_assert_int_eq(start, NOW + H);
	ck_assert_int_eq(low_job_after_requeue(false, &start),
			 FW_PLAN_START_NOW);
	ck_assert_int_eq(start, NOW);
}
END_TEST

/* A requeued victim whose priority is above its preemptor's comes right
 * after it (out of queue order, with `late` only); the late queue gives
 * its jobs in queue order, ties in the order they were added, and all of
 * them at the end of the pass. */
START_TEST(late_jobs_order)
{
	struct vic a = { 101, 0, 8, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job own = pjob(1, 900, 8, H, p_scav, 1);
	struct fw_plan_job v = requeued(101, 950, 8, H);
	struct fw_plan_job x[4] = {
		requeued(11, 300, 1, H), requeued(12, 700, 1, H),
		requeued(13, 300, 1, H), requeued(14, 50, 1, H),
	};
	struct fw_plan_job next = pjob(5, 300, 1, H, NULL, 0);
	struct fw_plan_late *late;
	struct fw_plan_decision d;
	struct fw_err e;
	struct world w;
	size_t tag;

	world_new(&w, 1);
	add_vic(&w, &a);
	late = fw_plan_late_new(w.cl);
	ck_assert_int_eq(decide(&w, &own, FW_PASS_BACKFILL, &d),
			 FW_PLAN_START_NOW);
	fw_plan_late_add(late, &v, 0);
	ck_assert(fw_plan_late_next(late, &next, &tag));
	ck_assert_int_eq(tag, 0);
	ck_assert_int_eq(fw_plan_decide(w.p, &v, FW_PASS_BACKFILL, &d, &e), 0);
	ck_assert_int_eq(d.kind, FW_PLAN_RESERVED);
	ck_assert_int_eq(d.start, NOW + H);
	v.late = false;
	ck_assert_int_eq(fw_plan_decide(w.p, &v, FW_PASS_BACKFILL, &d, &e), -1);
	ck_assert_msg(strstr(e.msg, "out of queue order"), "%s", e.msg);
	fw_plan_late_free(late);
	world_free(&w);

	late = fw_plan_late_new(w.cl = pc_cluster(1, 8));
	for (size_t i = 0; i < 4; i++)
		fw_plan_late_add(late, &x[i], i);
	/* before job 5 (priority 300, submitted at 5): 12 (700), then 11
	   and 13 (300, submitted at NOW, after job 5): not before it */
	ck_assert(fw_plan_late_next(late, &next, &tag));
	ck_assert_int_eq(tag, 1);
	ck_assert(!fw_plan_late_next(late, &next, &tag));
	ck_assert_int_eq(fw_plan_late_count(late), 3);
	ck_assert(fw_plan_late_next(late, NULL, &tag));
	ck_assert_int_eq(tag, 0);
	ck_assert(fw_plan_late_next(late, NULL, &tag));
	ck_assert_int_eq(tag, 2);
	ck_assert(fw_plan_late_next(late, NULL, &tag));
	ck_assert_int_eq(tag, 3);
	ck_assert(!fw_plan_late_next(late, NULL, &tag));
	ck_assert(!fw_plan_late_next(NULL, NULL, &tag));
	fw_plan_late_add(NULL, &x[0], 0);
	ck_assert_int_eq(fw_plan_late_count(NULL), 0);
	fw_plan_late_free(late);
	fw_cluster_free(w.cl);
}
END_TEST

/* The batch pass keeps the victims and the explanation names them. */
START_TEST(batch_result_and_explanation)
{
	struct vic a = { 101, 0, 4, SCAV, 10, NOW - 2 * H, NOW + 10 * H, 0,
			 300 };
	struct vic b = { 102, 0, 4, SCAV, 10, NOW - H, NOW + 10 * H, 0, 0 };
	struct fw_plan_job jobs[1] = { pjob(1, 900, 8, H, p_scav, 1) };
	struct fw_plan_result res[1];
	struct fw_err e;
	struct world w;
	char buf[256];

	world_new(&w, 1);
	add_vic(&w, &a);
	add_vic(&w, &b);
	ck_assert_int_eq(fw_plan_backfill(w.p, jobs, 1, res, &e), 0);
	ck_assert_int_eq(res[0].kind, FW_PLAN_RESERVED);
	ck_assert_int_eq(res[0].nvictims, 2);
	ck_assert_int_eq(res[0].victims[0], 102);
	ck_assert_int_eq(res[0].victims[1], 101);
	fw_plan_explain(w.cl, jobs, res, 0, NOW, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "starts in 00:05:00") &&
		      strstr(buf, "; preempts jobs 102, 101 (start after "
			     "their grace time)"), "%s", buf);
	fw_plan_results_free(res, 1);
	world_free(&w);
}
END_TEST

START_TEST(bad_input)
{
	struct fw_node_use u[2] = {
		{ .node = 0, .job = 500, .cpus = 4 },
		{ .node = 1, .job = 501, .cpus = 4 },
	};
	struct fw_preempt_run pr = { .cls = SCAV, .prio = 10 };
	struct fw_plan_job j = pjob(1, 900, 1, H, NULL, 1);
	struct fw_plan_decision d;
	struct fw_err e;
	struct world w;

	world_new(&w, 2);
	ck_assert_int_eq(fw_plan_add_running_preemptable(w.p, u, 2, NOW + H,
							 NULL, 0, &pr, &e), -1);
	ck_assert_int_eq(fw_plan_add_running_preemptable(w.p, u, 1, NOW + H,
							 NULL, 0, NULL, &e), -1);
	pr.grace = -1;
	ck_assert_int_eq(fw_plan_add_running_preemptable(w.p, u, 1, NOW + H,
							 NULL, 0, &pr, &e), -1);
	ck_assert_int_eq(fw_plan_decide(w.p, &j, FW_PASS_BACKFILL, &d, &e),
			 -1);
	world_free(&w);
}
END_TEST

START_TEST(conf_tokens)
{
	struct fw_plan_conf *c = fw_plan_conf_new();
	struct fw_err e;

	ck_assert(!c->preempt_youngest_first && !c->preempt_strict_order);
	ck_assert_int_eq(c->preempt_reorder_count, 1);
	ck_assert_int_eq(fw_plan_conf_slurm(c, "SchedulerParameters",
					    "preempt_youngest_first,"
					    "preempt_strict_order,"
					    "preempt_reorder_count=3", &e),
			 FW_CONF_OK);
	ck_assert(c->preempt_youngest_first && c->preempt_strict_order);
	ck_assert_int_eq(c->preempt_reorder_count, 3);
	ck_assert_int_eq(fw_plan_conf_slurm(c, "SchedulerParameters",
					    "preempt_reorder_count=-1", &e),
			 FW_CONF_ERR);
	ck_assert_int_eq(fw_plan_conf_slurm(c, "SchedulerParameters",
					    "preempt_strict_order=1", &e),
			 FW_CONF_ERR);
	fw_plan_conf_free(c);
}
END_TEST

/* ----------------------------------------------------------- property */

#define QN 6		/* nodes at most */
#define QR 40		/* running jobs at most */
#define QJ 30		/* queued jobs at most */
#define QS 40		/* window of 40 one-minute slots */

struct rng {
	uint64_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
	return (uint32_t)(fw_splitmix64(&r->s) % n);
}

struct qrun {
	uint32_t id, nn, node[2], cpus;
	uint64_t mem;
	int32_t end;		/* slot */
	bool pre;		/* preemptable */
	bool whole;		/* holds its node whole (cpus, mem: all) */
	uint32_t cls, prio;
	fw_time_t start, exempt_until;
	int64_t grace;
};

struct qscen {
	uint32_t n, cpus[QN];
	uint64_t mem[QN];
	struct qrun run[QR];
	uint32_t nrun;
	struct fw_plan_job jobs[QJ];
	uint32_t pre[QJ][3];
	uint32_t njobs;
	bool strict;
};

static const uint32_t cls_prio[5] = { 0, 10, 0, 50, 30 };

/* Dense model: used[node][slot][cpu|mem], slot QS = forever. */
struct qdense {
	int64_t used[QN][QS + 1][2];
};

/* What j needs on node i: its amounts, or all of the node for a
 * whole-node job (false: the node cannot hold it at all). */
static bool qneed(const struct qscen *S, const struct fw_plan_job *j,
		  uint32_t i, int64_t *cpus, int64_t *mem)
{
	*cpus = j->cpus_per_node;
	*mem = (int64_t)j->mem_per_node_mb;
	if (!j->exclusive)
		return true;
	if (*cpus > S->cpus[i] || *mem > (int64_t)S->mem[i])
		return false;
	*cpus = S->cpus[i];
	*mem = (int64_t)S->mem[i];
	return true;
}

static int32_t qsl(int32_t s)
{
	return s > QS ? QS : s;
}

static void qbook(const struct qscen *S, struct qdense *D, uint32_t node,
		  int32_t a, int32_t b, int64_t cpus, int64_t mem)
{
	(void)S;
	for (int32_t t = qsl(a); t <= QS && (t < b || b > QS); t++) {
		D->used[node][t][0] += cpus;
		D->used[node][t][1] += mem;
	}
}

static bool qfits(const struct qscen *S, const struct qdense *D,
		  uint32_t node, int32_t a, int32_t b, int64_t cpus,
		  int64_t mem)
{
	for (int32_t t = qsl(a); t <= QS && (t < b || b > QS); t++)
		if (D->used[node][t][0] + cpus > S->cpus[node] ||
		    D->used[node][t][1] + mem > (int64_t)S->mem[node])
			return false;
	return true;
}

static bool qfitsj(const struct qscen *S, const struct qdense *D,
		   const struct fw_plan_job *j, uint32_t node, int32_t a,
		   int32_t b)
{
	int64_t cpus, mem;

	return qneed(S, j, node, &cpus, &mem) &&
	       qfits(S, D, node, a, b, cpus, mem);
}

/* Running jobs never oversubscribe a node (nominal amounts fit). */
static void qscen_build(struct qscen *S, uint64_t seed)
{
	struct rng r = { seed };
	struct qdense *D = calloc(1, sizeof(*D));

	memset(S, 0, sizeof(*S));
	S->n = 2 + rnd(&r, QN - 1);
	S->strict = rnd(&r, 4) == 0;
	for (uint32_t i = 0; i < S->n; i++) {
		S->cpus[i] = 4 + 4 * rnd(&r, 2);
		S->mem[i] = 8000 + 8000 * rnd(&r, 2);
	}
	for (uint32_t k = 0; k < QR; k++) {
		struct qrun *q = &S->run[S->nrun];
		uint32_t c = rnd(&r, 5);	/* 0, 2: plain; 1, 3, 4 */

		q->id = 100 + k;
		q->nn = rnd(&r, 6) == 0 ? 2 : 1;
		q->node[0] = rnd(&r, S->n);
		q->node[1] = (q->node[0] + 1) % S->n;
		/* Small and large: the fewest may not be the prefix. */
		q->cpus = 1 + rnd(&r, 4);
		q->mem = 500 * (1 + rnd(&r, 4));
		q->end = 1 + (int32_t)rnd(&r, 30);
		q->pre = c == 1 || c == 3 || c == 4;
		q->cls = c;
		q->prio = cls_prio[c];
		q->start = NOW - (fw_time_t)rnd(&r, 5) * 10 * MIN;
		q->exempt_until = rnd(&r, 4) == 0 ? NOW + 10 * MIN : 0;
		q->grace = (int64_t)(uint32_t[]){ 0, 0, 60, 90, 300 }[rnd(&r, 5)];
		q->whole = q->pre && q->nn == 1 && rnd(&r, 6) == 0;
		if (q->whole) {
			q->cpus = S->cpus[q->node[0]];
			q->mem = S->mem[q->node[0]];
		}
		if (!qfits(S, D, q->node[0], 0, q->end, q->cpus,
			   (int64_t)q->mem) ||
		    (q->nn == 2 && !qfits(S, D, q->node[1], 0, q->end,
					  q->cpus, (int64_t)q->mem)))
			continue;
		for (uint32_t m = 0; m < q->nn; m++)
			qbook(S, D, q->node[m], 0, q->end, q->cpus,
			      (int64_t)q->mem);
		S->nrun++;
	}
	S->njobs = 10 + rnd(&r, QJ - 10);
	for (uint32_t k = 0; k < S->njobs; k++) {
		struct fw_plan_job *j = &S->jobs[k];
		uint32_t np = 0;

		*j = pjob(k + 1, 1000 - k, 1 + rnd(&r, 8),
			  (int64_t)(1 + rnd(&r, 25)) * MIN, NULL, 0);
		j->mem_per_node_mb = 500 * (1 + rnd(&r, 6));
		j->nodes_min = rnd(&r, 5) == 0 ? 2 : 1;
		j->exclusive = rnd(&r, 5) == 0;
		if (rnd(&r, 2)) {
			static const uint32_t all[3] = { 1, 3, 4 };

			for (uint32_t m = 0; m < 3; m++)
				if (rnd(&r, 2))
					S->pre[k][np++] = all[m];
			if (!np)
				S->pre[k][np++] = 1;
			j->preempts = S->pre[k];
			j->npreempts = np;
		}
	}
	free(D);
}

static const struct qrun *qrun_by_id(const struct qscen *S, uint32_t id)
{
	for (uint32_t k = 0; k < S->nrun; k++)
		if (S->run[k].id == id)
			return &S->run[k];
	return NULL;
}

static int32_t qrelease(const struct qrun *q)
{
	int32_t r = q->grace > 0 ? (int32_t)((q->grace + MIN - 1) / MIN) : 0;

	return r < q->end ? r : q->end;
}

static bool qmay(const struct fw_plan_job *j, uint32_t cls)
{
	for (uint32_t m = 0; m < j->npreempts; m++)
		if (j->preempts[m] == cls)
			return true;
	return false;
}

/* Release (or take back, sign -1) q from slot from on. */
static void qrel_from(const struct qscen *S, struct qdense *D,
		      const struct qrun *q, int32_t from, int sign)
{
	for (uint32_t m = 0; m < q->nn; m++)
		qbook(S, D, q->node[m], from, q->end,
		      -sign * (int64_t)q->cpus, -sign * (int64_t)q->mem);
}

/* ... from its release slot on (preempted now). */
static void qrel(const struct qscen *S, struct qdense *D,
		 const struct qrun *q, int sign)
{
	qrel_from(S, D, q, qrelease(q), sign);
}

/* Earliest slot with n nodes fitting j in D (no preemption), or -1. */
static int32_t qearliest(const struct qscen *S, const struct qdense *D,
			 const struct fw_plan_job *j)
{
	int32_t L = (int32_t)(j->time_limit / MIN);

	for (int32_t c = 0; c < QS; c++) {
		uint32_t cnt = 0;

		for (uint32_t i = 0; i < S->n; i++)
			cnt += qfitsj(S, D, j, i, c, c + L);
		if (cnt >= j->nodes_min)
			return c;
	}
	return -1;
}

/* Slurm's rank order: lower priority, fewer nodes, the youngest, the
 * higher id. */
static bool qranks_before(const struct qrun *x, const struct qrun *y)
{
	if (x->prio != y->prio)
		return x->prio < y->prio;
	if (x->nn != y->nn)
		return x->nn < y->nn;
	if (x->start != y->start)
		return x->start > y->start;
	return x->id > y->id;
}

/* Does node i fit j at [c, e) with el[o[0..k-1]] released? */
static bool qfits_without(const struct qscen *S, struct qdense *D,
			  const struct fw_plan_job *j, uint32_t i, int32_t c,
			  int32_t e, const struct qrun **el, const uint32_t *o,
			  uint32_t k)
{
	bool ok;

	for (uint32_t b = 0; b < k; b++)
		qrel(S, D, el[o[b]], 1);
	ok = qfitsj(S, D, j, i, c, e);
	for (uint32_t b = 0; b < k; b++)
		qrel(S, D, el[o[b]], -1);
	return ok;
}

/*
 * What Slurm's select plugin preempts on node i for j at [c, e), worked
 * from its algorithm (cons_tres _run_now), not from the planner: the
 * node's eligible jobs in rank order, the shortest prefix that makes
 * room, then twice (preempt_reorder_count=1) the job that completed the
 * fit first and the shortest prefix again.  The victims' ids into ids
 * (ascending by rank), their count returned (UINT32_MAX: even all do not
 * make room); *worst: the rank position of the last among all eligible
 * jobs of the scenario.
 */
static uint32_t qslurm(const struct qscen *S, struct qdense *D,
		       const struct fw_plan_job *j, const bool *gone,
		       uint32_t i, int32_t c, int32_t e, uint32_t *ids,
		       const struct qrun **worst)
{
	const struct qrun *el[QR];
	uint32_t m = 0, o[QR], k = 0;

	for (uint32_t x = 0; x < S->nrun; x++) {
		const struct qrun *q = &S->run[x];
		uint32_t p;

		if (!(q->pre && !gone[x] && q->exempt_until <= NOW &&
		      qrelease(q) <= c && q->end > c && qmay(j, q->cls) &&
		      (q->node[0] == i || (q->nn == 2 && q->node[1] == i))))
			continue;
		for (p = m; p > 0 && qranks_before(q, el[p - 1]); p--)
			el[p] = el[p - 1];
		el[p] = q;
		m++;
	}
	for (uint32_t x = 0; x < m; x++)
		o[x] = x;
	if (!qfits_without(S, D, j, i, c, e, el, o, m))
		return UINT32_MAX;
	while (!qfits_without(S, D, j, i, c, e, el, o, ++k))
		;
	for (int round = 0; round < 2 && k > 1; round++) {
		uint32_t last = o[k - 1];

		memmove(o + 1, o, (k - 1) * sizeof(*o));
		o[0] = last;
		k = 0;
		while (!qfits_without(S, D, j, i, c, e, el, o, ++k))
			;
	}
	/* ascending rank */
	for (uint32_t x = 1; x < k; x++)
		for (uint32_t y = x; y > 0 && o[y] < o[y - 1]; y--) {
			uint32_t t = o[y];

			o[y] = o[y - 1];
			o[y - 1] = t;
		}
	for (uint32_t x = 0; x < k; x++)
		ids[x] = el[o[x]]->id;
	*worst = k ? el[o[k - 1]] : NULL;
	return k;
}

struct qdec {
	enum fw_plan_kind kind;
	bool prot, later;
	int32_t c;
	uint32_t nodes[QN], nn;
	uint32_t vic[QR], nv;
};

/*
 * A one-node job's victims are exactly what Slurm's select plugin takes
 * on its node (qslurm), and no node would do better: fewer victims
 * (default), or a lower-ranked worst victim, then fewer (strict order).
 */
static void qcheck_one_node(const struct qscen *S, struct qdense *D,
			    const struct fw_plan_job *j, const struct qdec *q,
			    const bool *gone, uint64_t seed)
{
	int32_t e = q->c + (int32_t)(j->time_limit / MIN);
	uint32_t ids[QR], n;
	const struct qrun *worst, *w;

	n = qslurm(S, D, j, gone, q->nodes[0], q->c, e, ids, &worst);
	ck_assert_msg(n == q->nv, "seed %llu job %u: %u victims, Slurm's %u",
		      (unsigned long long)seed, j->id, q->nv, n);
	for (uint32_t m = 0; m < n; m++)
		ck_assert_msg(ids[m] == q->vic[m], "seed %llu job %u: victim "
			      "%u, Slurm's %u", (unsigned long long)seed, j->id,
			      q->vic[m], ids[m]);
	for (uint32_t i = 0; i < S->n; i++) {
		uint32_t f = qslurm(S, D, j, gone, i, q->c, e, ids, &w);
		bool better;

		if (f == UINT32_MAX || f == 0)
			continue;	/* 0: would fit as it is (not now) */
		better = S->strict ? (qranks_before(w, worst) ||
				      (w == worst && f < n)) :
				     f < n;
		ck_assert_msg(!better, "seed %llu job %u: node %u has %u "
			      "victims, the plan's node %u has %u",
			      (unsigned long long)seed, j->id, i, f,
			      q->nodes[0], n);
	}
}

/* One preempting decision against the dense model before its victims
 * go: who may be preempted, the start, fewest and none to spare. */
static void qcheck_victims(const struct qscen *S, struct qdense *D,
			   const struct fw_plan_job *j, const struct qdec *q,
			   bool *gone, bool exact, uint64_t seed)
{
	int32_t L = (int32_t)(j->time_limit / MIN), e = q->c + L;

	ck_assert_msg(q->kind == FW_PLAN_START_NOW ||
		      (q->kind == FW_PLAN_RESERVED && q->prot),
		      "seed %llu job %u: victims with kind %d",
		      (unsigned long long)seed, j->id, q->kind);
	ck_assert_msg(!exact || q->c < qearliest(S, D, j) ||
		      qearliest(S, D, j) < 0,
		      "seed %llu job %u: preempts for no earlier start",
		      (unsigned long long)seed, j->id);
	for (uint32_t m = 0; m < q->nv; m++) {
		const struct qrun *r = qrun_by_id(S, q->vic[m]);

		ck_assert_msg(r && r->pre && qmay(j, r->cls) &&
			      r->exempt_until <= NOW && !gone[r - S->run] &&
			      qrelease(r) <= q->c,
			      "seed %llu job %u: victim %u may not be preempted",
			      (unsigned long long)seed, j->id, q->vic[m]);
	}
	if (j->nodes_min == 1) {
		qcheck_one_node(S, D, j, q, gone, seed);
		return;
	}
	/* None to spare: without any one of them some node does not fit. */
	for (uint32_t s = 0; s < q->nv; s++) {
		bool all = true;

		for (uint32_t m = 0; m < q->nv; m++)
			if (m != s)
				qrel(S, D, qrun_by_id(S, q->vic[m]), 1);
		for (uint32_t k = 0; k < q->nn; k++)
			all &= qfitsj(S, D, j, q->nodes[k], q->c, e);
		for (uint32_t m = 0; m < q->nv; m++)
			if (m != s)
				qrel(S, D, qrun_by_id(S, q->vic[m]), -1);
		ck_assert_msg(!all, "seed %llu job %u: victim %u not needed",
			      (unsigned long long)seed, j->id, q->vic[s]);
	}
}

static void qplan(const struct qscen *S, struct fw_plan_conf *conf,
		  struct qdec *out)
{
	struct fw_cluster *cl = fw_cluster_new();
	struct fw_partition_def pd = { 0 };
	struct fw_bitset *all = fw_bitset_new(S->n);
	struct fw_plan *p;
	struct fw_err e;

	for (uint32_t i = 0; i < S->n; i++) {
		char name[16];
		struct fw_node_def d = {
			.name = name, .cpus = S->cpus[i], .mem_mb = S->mem[i],
			.island = -1, .usable = true,
		};

		snprintf(name, sizeof(name), "n%u", i + 1);
		ck_assert_int_eq(fw_cluster_add_node(cl, &d, &e), (int)i);
		fw_bitset_set(all, i);
	}
	pd.name = "all";
	pd.nodes = all;
	pd.priority_tier = 1;
	ck_assert_int_eq(fw_cluster_add_partition(cl, &pd, &e), 0);
	ck_assert_int_eq(fw_cluster_set_shared(cl, true, &e), 0);
	ck_assert_int_eq(fw_cluster_finalize(cl, &e), 0);
	p = fw_plan_new(cl, conf, NOW, &e);
	for (uint32_t k = 0; k < S->nrun; k++) {
		const struct qrun *q = &S->run[k];
		struct fw_node_use u[2];
		struct fw_preempt_run pr = { q->cls, q->prio, q->start,
					     q->exempt_until, q->grace,
					     q->whole };

		/* A whole-node job says 1 CPU: the plan must not believe it. */
		for (uint32_t m = 0; m < q->nn; m++)
			u[m] = (struct fw_node_use){ .node = q->node[m],
						     .job = q->id,
						     .cpus = q->whole ? 1 : q->cpus,
						     .mem_mb = q->whole ? 500 :
							       q->mem };
		if (q->pre)
			ck_assert_int_eq(fw_plan_add_running_preemptable(
				p, u, q->nn, NOW + q->end * MIN, NULL, 0, &pr,
				&e), 0);
		else
			ck_assert_int_eq(fw_plan_add_running_use(
				p, u, q->nn, NOW + q->end * MIN, NULL, 0, &e),
				0);
	}
	for (uint32_t k = 0; k < S->njobs; k++) {
		struct fw_plan_decision d;
		struct qdec *q = &out[k];
		int64_t i;

		ck_assert_int_eq(fw_plan_decide(p, &S->jobs[k],
						FW_PASS_BACKFILL, &d, &e), 0);
		memset(q, 0, sizeof(*q));
		q->kind = d.kind;
		q->prot = d.is_protected;
		q->c = (int32_t)((d.start - NOW) / MIN);
		q->nv = d.nvictims;
		q->later = d.victims_later;
		if (d.nvictims)
			memcpy(q->vic, d.victims,
			       d.nvictims * sizeof(uint32_t));
		if (d.nodes)
			FW_BITSET_FOREACH(d.nodes, i)
				q->nodes[q->nn++] = (uint32_t)i;
		if (d.kind == FW_PLAN_START_NOW)
			ck_assert_int_eq(fw_plan_started(p, NULL, &e), 0);
	}
	fw_plan_free(p);
	fw_bitset_free(all);
	fw_cluster_free(cl);
}

START_TEST(property_preemption)
{
	uint64_t seed = 0x9ee0000u + (uint64_t)_i;
	struct qscen *S = calloc(1, sizeof(*S));
	struct qdense *D = calloc(1, sizeof(*D));
	struct qdec *dec = calloc(QJ, sizeof(*dec));
	struct fw_plan_conf *conf = fw_plan_conf_new();
	bool gone[QR] = { false };
	uint32_t npre = 0;

	qscen_build(S, seed);
	conf->bf_window = QS * MIN;
	conf->bf_resolution = MIN;
	conf->bf_min_prio_reserve = 990;	/* the first ten protected */
	conf->preempt_strict_order = S->strict;
	qplan(S, conf, dec);
	for (uint32_t k = 0; k < S->nrun; k++)
		for (uint32_t m = 0; m < S->run[k].nn; m++)
			qbook(S, D, S->run[k].node[m], 0, S->run[k].end,
			      S->run[k].cpus, (int64_t)S->run[k].mem);
	for (uint32_t k = 0; k < S->njobs; k++) {
		const struct fw_plan_job *j = &S->jobs[k];
		const struct qdec *q = &dec[k];
		int32_t L = (int32_t)(j->time_limit / MIN);
		bool books = q->kind == FW_PLAN_START_NOW ||
			     (q->kind == FW_PLAN_RESERVED && q->prot);
		/* Exact start (see the file comment), else never early. */
		bool exact = !j->exclusive || npre == 0;

		if (q->nv) {
			ck_assert_msg(j->npreempts, "seed %llu job %u preempts "
				      "without classes",
				      (unsigned long long)seed, j->id);
			qcheck_victims(S, D, j, q, gone, exact, seed);
			/* victims_later: preempted in a later pass, so
			   they run until the start; else gone from now
			   (after their grace time) */
			for (uint32_t m = 0; m < q->nv; m++) {
				const struct qrun *r = qrun_by_id(S, q->vic[m]);

				ck_assert_msg(!q->later || qrelease(r) < q->c,
					      "seed %llu job %u: later start "
					      "at a victim's release",
					      (unsigned long long)seed, j->id);
				qrel_from(S, D, r, q->later ? q->c :
					  qrelease(r), 1);
				gone[r - S->run] = true;
			}
			npre++;
		} else if (q->kind == FW_PLAN_START_NOW ||
			   q->kind == FW_PLAN_RESERVED ||
			   q->kind == FW_PLAN_ESTIMATED) {
			int32_t b = qearliest(S, D, j);

			ck_assert_msg(exact ? q->c == b : b >= 0 && q->c >= b,
				      "seed %llu job %u: start %d, brute "
				      "force %d", (unsigned long long)seed,
				      j->id, q->c, b);
		} else if (q->kind == FW_PLAN_NOT_IN_WINDOW && exact) {
			ck_assert_int_lt(qearliest(S, D, j), 0);
		}
		if (!books)
			continue;
		for (uint32_t m = 0; m < q->nn; m++) {
			int64_t cpus, mem;

			ck_assert_msg(qfitsj(S, D, j, q->nodes[m], q->c,
					     q->c + L),
				      "seed %llu job %u: node %u does not fit",
				      (unsigned long long)seed, j->id,
				      q->nodes[m]);
			qneed(S, j, q->nodes[m], &cpus, &mem);
			qbook(S, D, q->nodes[m], q->c, q->c + L, cpus, mem);
		}
	}
	for (uint32_t i = 0; i < S->n; i++)
		for (int32_t t = 0; t <= QS; t++)
			ck_assert_msg(D->used[i][t][0] <= S->cpus[i] &&
				      D->used[i][t][1] <= (int64_t)S->mem[i] &&
				      D->used[i][t][0] >= 0,
				      "seed %llu: node %u slot %d oversubscribed",
				      (unsigned long long)seed, i, t);
	(void)npre;
	fw_plan_conf_free(conf);
	free(dec);
	free(D);
	free(S);
}
END_TEST

Suite *plan_preempt_suite(void)
{
	Suite *s = suite_create("plan_preempt");
	TCase *t = tcase_create("hand");
	TCase *q = tcase_create("property");

	tcase_add_test(t, owner_preempts_both);
	tcase_add_test(t, victims_held_while_slurmctld_preempts);
	tcase_add_test(t, one_victim_by_rank);
	tcase_add_test(t, exclusive_owner_empties_a_node);
	tcase_add_test(t, exclusive_owner_waits_for_plain_jobs);
	tcase_add_test(t, owner_preempts_once_a_plain_job_ends);
	tcase_add_test(t, whole_node_victim);
	tcase_add_test(t, exempt_jobs_are_skipped);
	tcase_add_test(t, grace_time_delays_the_start);
	tcase_add_test(t, only_listed_classes);
	tcase_add_test(t, fewest_victims_across_nodes);
	tcase_add_test(t, reorder_drops_a_prefix_victim);
	tcase_add_test(t, slurms_victims_not_the_fewest);
	tcase_add_test(t, reorder_count);
	tcase_add_test(t, strict_order_chooses_the_lowest_ranks);
	tcase_add_test(t, multi_node_victim_frees_all_its_nodes);
	tcase_add_test(t, main_pass);
	tcase_add_test(t, inexact_node_not_counted);
	tcase_add_test(t, batch_result_and_explanation);
	tcase_add_test(t, requeued_victim_planned_in_the_same_pass);
	tcase_add_test(t, late_jobs_order);
	tcase_add_test(t, bad_input);
	tcase_add_test(t, conf_tokens);
	suite_add_tcase(s, t);
	/* 2,000 seeds: with 500 no seed told Slurm's two reorders from one,
	 * or strict order's node choice from the default's (seeds 1295 and
	 * 679 do). */
	tcase_add_loop_test(q, property_preemption, 0, 2000);
	tcase_set_timeout(q, 120);
	suite_add_tcase(s, q);
	return s;
}
