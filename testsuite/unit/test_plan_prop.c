/*
 * Property tests of the planner over random workloads (fixed seeds):
 *
 *  1. Protection: after a backfill pass, start every job it started (they
 *     become running jobs) and plan again at the same time.  No job that
 *     got a protected reservation may move later: the backfilled jobs were
 *     placed around it.  (Jobs below the thresholds may move, and the test
 *     checks that this does happen somewhere, so the scenario has teeth.)
 *  2. Independence: removing a backfilled job from the queue changes
 *     nothing for the protected jobs before it.
 *  3. Oracle: with topology placement off, every START_NOW / RESERVED /
 *     ESTIMATED start is checked against a brute-force search over every
 *     step of the window (the nodes/licenses used by running jobs and by
 *     the jobs placed before it), and NOT_IN_WINDOW against "no step
 *     works".  The chosen nodes must be free for the whole interval.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_plan_util.h"

#define MAXJ 48
#define MAXR 16

struct rng {
	uint64_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
	return (uint32_t)(fw_splitmix64(&r->s) % n);
}

struct running {
	struct fw_bitset *nodes;
	fw_time_t end;
	bool lic;
};

struct scenario {
	struct fw_cluster *cl;
	struct fw_plan_conf *conf;
	int32_t down;			/* a down node, or -1 */
	struct fw_bitset *resv;		/* an advanced reservation, or NULL */
	fw_time_t rstart, rend;
	struct running run[MAXR];
	int nrun;
	struct fw_plan_job jobs[MAXJ];
	int njobs;
};

static const struct fw_plan_lic one_lic = { 0, 1 };

/* Small clusters (12-24 nodes, one word per node set) or large ones
 * (130-300 nodes, several words: sparse ranges, column-wise checks). */
static void scenario_build(struct scenario *sc, uint64_t seed, bool islands,
			   bool large)
{
	struct rng r = { seed };
	uint32_t n = large ? 130 + rnd(&r, 171) : 12 + rnd(&r, 13);
	struct fw_bitset *used;
	char ranges[64];

	memset(sc, 0, sizeof(*sc));
	sc->cl = tp_begin();
	for (uint32_t i = 0; i < n; i++)
		tp_nodes(sc->cl, 1, 32 + 32 * (i % 3 == 0), 0,
			 islands ? (int32_t)(i * 3 / n) : -1);
	snprintf(ranges, sizeof(ranges), "0-%u", n - 1);
	tp_part(sc->cl, "all", ranges, 1);
	snprintf(ranges, sizeof(ranges), "%u-%u", n / 2, n - 1);
	tp_part(sc->cl, "half", ranges, 1);
	tp_lic(sc->cl, "lic", 3);
	tp_end(sc->cl);

	sc->conf = fw_plan_conf_new();
	sc->conf->bf_min_prio_reserve = 500;
	sc->conf->bf_resolution = 600;
	sc->conf->bf_window = 12 * H;
	switch (rnd(&r, 3)) {
	case 0: break;				/* conservative */
	case 1: sc->conf->resv_depth = 1; sc->conf->resv_depth_set = true; break;
	case 2: sc->conf->resv_depth = 3; sc->conf->resv_depth_set = true; break;
	}
	sc->conf->topo = islands ? (enum fw_topo_placement)rnd(&r, 3) :
		FW_TOPO_NONE;

	/* running jobs on disjoint nodes */
	used = fw_bitset_new(n);
	for (int k = 0; k < MAXR && sc->nrun < (int)n / 3; k++) {
		uint32_t first = rnd(&r, n), cnt = 1 + rnd(&r, large ? 24 : 3);
		struct running *rj = &sc->run[sc->nrun];

		rj->nodes = fw_bitset_new(n);
		for (uint32_t i = first; i < first + cnt && i < n; i++)
			if (!fw_bitset_test(used, i)) {
				fw_bitset_set(rj->nodes, i);
				fw_bitset_set(used, i);
			}
		if (!fw_bitset_any(rj->nodes)) {
			fw_bitset_free(rj->nodes);
			continue;
		}
		rj->end = NOW + (fw_time_t)(10 + rnd(&r, 300)) * MIN;
		rj->lic = rnd(&r, 4) == 0;
		sc->nrun++;
	}
	fw_bitset_free(used);

	/* sometimes a down node, sometimes a reservation on 2-3 nodes that is
	 * active now or starts later (jobs in it are sorted first) */
	sc->down = rnd(&r, 2) ? (int32_t)rnd(&r, n) : -1;
	if (rnd(&r, 2)) {
		uint32_t first = rnd(&r, n - 3);

		sc->resv = fw_bitset_new(n);
		fw_bitset_set_range(sc->resv, first, first + 2 + rnd(&r, 2));
		sc->rstart = NOW + ((fw_time_t)rnd(&r, 360) - 60) * MIN;
		sc->rend = sc->rstart + (fw_time_t)(60 + rnd(&r, 180)) * MIN;
	}

	for (int k = 0; k < MAXJ; k++) {
		struct fw_plan_job *j = &sc->jobs[k];

		*j = tp_job((uint32_t)k + 1, 1 + rnd(&r, 1000), (int32_t)rnd(&r, 2),
			    1 + rnd(&r, large && rnd(&r, 2) ? 4 : n / 2),
			    (int64_t)(10 + rnd(&r, 230)) * MIN);
		if (rnd(&r, 5) == 0) {
			j->lics = &one_lic;
			j->nlics = 1;
		}
		if (rnd(&r, 6) == 0)
			j->cpus_per_node = 48;	/* only every third node */
		if (sc->resv && rnd(&r, 8) == 0) {
			j->resv = 0;
			j->nodes_min = 1 + rnd(&r, 2);
		}
	}
	sc->njobs = MAXJ;
	fw_plan_sort(sc->cl, sc->jobs, (size_t)sc->njobs);
}

static void scenario_free(struct scenario *sc)
{
	fw_bitset_free(sc->resv);
	for (int k = 0; k < sc->nrun; k++)
		fw_bitset_free(sc->run[k].nodes);
	fw_plan_conf_free(sc->conf);
	fw_cluster_free(sc->cl);
}

/* Plan `jobs` with the scenario's running jobs plus `extra` ones. */
static void plan_with(const struct scenario *sc, const struct fw_plan_job *jobs,
		      int n, const struct running *extra, int nextra,
		      struct fw_plan_result *res)
{
	struct fw_err e;
	struct fw_plan *p = fw_plan_new(sc->cl, sc->conf, NOW, &e);

	ck_assert_ptr_nonnull(p);
	if (sc->down >= 0)
		ck_assert_int_eq(fw_plan_node_down(p, (uint32_t)sc->down, &e), 0);
	if (sc->resv)
		ck_assert_int_eq(fw_plan_add_resv(p, "r", sc->resv, sc->rstart,
						  sc->rend, &e), 0);
	for (int k = 0; k < sc->nrun; k++)
		ck_assert_int_eq(fw_plan_add_running(p, sc->run[k].nodes, sc->run[k].end,
						     &one_lic, sc->run[k].lic, &e), 0);
	for (int k = 0; k < nextra; k++)
		ck_assert_int_eq(fw_plan_add_running(p, extra[k].nodes, extra[k].end,
						     &one_lic, extra[k].lic, &e), 0);
	ck_assert_msg(fw_plan_backfill(p, jobs, (size_t)n, res, &e) == 0, "%s", e.msg);
	fw_plan_free(p);
}

struct tally {
	int protected_checked, estimates_delayed;
};

static void check_protection(uint64_t seed, bool islands, struct tally *t)
{
	struct scenario sc;
	struct fw_plan_result r1[MAXJ], r3[MAXJ];
	struct fw_plan_job rest[MAXJ];
	int map[MAXJ], nrest = 0, nstarted = 0;
	struct running started[MAXJ] = { { 0 } };

	scenario_build(&sc, seed, islands, seed % 3 == 0);
	plan_with(&sc, sc.jobs, sc.njobs, NULL, 0, r1);
	for (int k = 0; k < sc.njobs; k++) {
		if (r1[k].kind == FW_PLAN_START_NOW) {
			started[nstarted].nodes =
				fw_plan_result_nodes(&r1[k], sc.cl->nnodes);
			started[nstarted].end = NOW + sc.jobs[k].time_limit;
			started[nstarted].lic = sc.jobs[k].nlics > 0;
			nstarted++;
		} else {
			map[nrest] = k;
			rest[nrest++] = sc.jobs[k];
		}
	}
	/* Next cycle, same time: what backfill started is now running. */
	plan_with(&sc, rest, nrest, started, nstarted, r3);
	for (int i = 0; i < nrest; i++) {
		const struct fw_plan_result *a = &r1[map[i]], *b = &r3[i];

		if (a->kind == FW_PLAN_RESERVED) {
			ck_assert_msg(b->kind == FW_PLAN_RESERVED &&
				      b->start <= a->start,
				      "seed %llu job %u: protected start %lld moved to "
				      "%lld (%s)", (unsigned long long)seed,
				      sc.jobs[map[i]].id, (long long)(a->start - NOW),
				      (long long)(b->start - NOW),
				      fw_plan_kind_str(b->kind));
			/* the same placement, in fact */
			ck_assert_int_eq(b->start, a->start);
			ck_assert_uint_eq(a->nnodes, b->nnodes);
			ck_assert(memcmp(a->node_idx, b->node_idx,
					 a->nnodes * sizeof(uint32_t)) == 0);
			t->protected_checked++;
		}
		if (a->kind == FW_PLAN_ESTIMATED &&
		    (b->kind != FW_PLAN_ESTIMATED || b->start > a->start))
			t->estimates_delayed++;
	}
	for (int k = 0; k < nstarted; k++)
		fw_bitset_free(started[k].nodes);
	fw_plan_results_free(r1, (size_t)sc.njobs);
	fw_plan_results_free(r3, (size_t)nrest);
	scenario_free(&sc);
}

static void check_independence(uint64_t seed)
{
	struct scenario sc;
	struct fw_plan_result r1[MAXJ], r2[MAXJ];
	struct fw_plan_job q[MAXJ];

	scenario_build(&sc, seed, true, false);
	plan_with(&sc, sc.jobs, sc.njobs, NULL, 0, r1);
	for (int l = 0; l < sc.njobs; l++) {
		int nq = 0;

		if (!r1[l].backfilled)
			continue;
		for (int k = 0; k < sc.njobs; k++)
			if (k != l)
				q[nq++] = sc.jobs[k];
		plan_with(&sc, q, nq, NULL, 0, r2);
		for (int k = 0; k < l; k++)
			if (r1[k].kind == FW_PLAN_RESERVED)
				ck_assert_int_eq(r2[k].start, r1[k].start);
		fw_plan_results_free(r2, (size_t)nq);
	}
	fw_plan_results_free(r1, (size_t)sc.njobs);
	scenario_free(&sc);
}

/* ---- brute-force oracle (topology off) ---- */

struct occ {
	const struct fw_bitset *nodes;
	int32_t a, b;		/* slots, b may be INT32_MAX */
	uint32_t lic;
};

static int32_t oracle_end(int64_t end_sec, int64_t res, int32_t W)
{
	int64_t s = (end_sec + res - 1) / res;

	return s > W ? INT32_MAX : (int32_t)s;
}

static bool overlaps(int32_t a1, int32_t b1, int32_t a2, int32_t b2)
{
	return a1 < b2 && a2 < b1;
}

/* The reservation in slots, as fairway.conf(5) defines it: from the step
 * it starts in, until its end rounded up; past the window end: from the
 * window end / forever. */
static void oracle_resv(const struct scenario *sc, int64_t res, int32_t W,
			int32_t *ra, int32_t *rb)
{
	int64_t a = (sc->rstart - NOW) / res - ((sc->rstart - NOW) % res < 0);

	*ra = a < 0 ? 0 : (a > W ? W : (int32_t)a);
	*rb = oracle_end(sc->rend - NOW, res, W);
}

/* Nodes of E free in [a, b) and licenses enough there; count free nodes. */
static bool oracle_fits(const struct scenario *sc, const struct occ *o, int no,
			const struct fw_plan_job *j, int32_t a, int32_t b,
			const struct fw_bitset *chosen)
{
	const struct fw_cluster *cl = sc->cl;
	int64_t res = sc->conf->bf_resolution;
	int32_t W = (int32_t)(sc->conf->bf_window / res), ra = 0, rb = 0;
	uint32_t cnt = 0;
	struct fw_bitset *busy = fw_bitset_new(cl->nnodes);

	if (sc->resv)
		oracle_resv(sc, res, W, &ra, &rb);
	/* every node of an occupation overlapping [a, b) is busy */
	for (int k = 0; k < no; k++)
		if (overlaps(a, b, o[k].a, o[k].b))
			fw_bitset_or(busy, o[k].nodes);
	for (uint32_t i = 0; i < cl->nnodes; i++) {
		bool ok = fw_bitset_test(cl->parts[j->part].nodes, i) &&
			  cl->nodes[i].cpus >= j->cpus_per_node &&
			  (int32_t)i != sc->down;

		if (j->resv >= 0)
			ok = ok && fw_bitset_test(sc->resv, i);
		else if (sc->resv && fw_bitset_test(sc->resv, i) &&
			 overlaps(a, b, ra, rb))
			ok = false;
		if (fw_bitset_test(busy, i))
			ok = false;
		if (chosen && fw_bitset_test(chosen, i) && !ok) {
			fw_bitset_free(busy);
			return false;
		}
		cnt += ok;
	}
	fw_bitset_free(busy);
	if (cnt < j->nodes_min)
		return false;
	if (j->nlics) {
		/* licenses change only at occupation boundaries: check each */
		for (int k = -1; k < no; k++) {
			int32_t t = k < 0 ? a : o[k].a;
			uint32_t held = 1;

			if (t < a || t >= b)
				continue;
			for (int m = 0; m < no; m++)
				if (o[m].lic && o[m].a <= t && t < o[m].b)
					held += o[m].lic;
			if (held > 3)
				return false;
		}
	}
	return true;
}

/* Returns how many jobs inside the reservation got a start. */
static int check_oracle(uint64_t seed, bool large)
{
	int in_resv = 0;
	struct scenario sc;
	struct fw_plan_result r[MAXJ];
	struct occ o[MAXJ + MAXR];
	struct fw_bitset *chosen[MAXJ];
	int no = 0, nchosen = 0;
	int64_t res;
	int32_t W;

	scenario_build(&sc, seed, false, large);
	res = sc.conf->bf_resolution;
	W = (int32_t)(sc.conf->bf_window / res);
	plan_with(&sc, sc.jobs, sc.njobs, NULL, 0, r);
	for (int k = 0; k < sc.nrun; k++) {
		o[no].nodes = sc.run[k].nodes;
		o[no].a = 0;
		o[no].b = oracle_end(sc.run[k].end - NOW, res, W);
		o[no].lic = sc.run[k].lic;
		no++;
	}
	for (int k = 0; k < sc.njobs; k++) {
		const struct fw_plan_job *j = &sc.jobs[k];
		int32_t len = (int32_t)((j->time_limit + res - 1) / res);
		int32_t found = -1, cfirst = 0, clast = W - 1;

		if (j->resv >= 0) {
			/* starts while the reservation is active */
			int32_t ra, rb;

			oracle_resv(&sc, res, W, &ra, &rb);
			cfirst = ra;
			if (rb != INT32_MAX && rb - 1 < clast)
				clast = rb - 1;
			if (sc.rend <= NOW)
				clast = -1;
		}
		for (int32_t c = cfirst; c <= clast && found < 0; c++) {
			int32_t b = c + len > W ? INT32_MAX : c + len;

			if (oracle_fits(&sc, o, no, j, c, b, NULL))
				found = c;
		}
		switch (r[k].kind) {
		case FW_PLAN_START_NOW:
		case FW_PLAN_RESERVED:
		case FW_PLAN_ESTIMATED:
			ck_assert_msg(found >= 0 && r[k].start == NOW + found * res,
				      "seed %llu job %u: planner %lld, oracle %d steps",
				      (unsigned long long)seed, j->id,
				      (long long)(r[k].start - NOW), found);
			break;
		case FW_PLAN_NOT_IN_WINDOW:
			ck_assert_msg(found < 0, "seed %llu job %u: oracle finds step %d",
				      (unsigned long long)seed, j->id, found);
			break;
		case FW_PLAN_NOT_RUNNABLE: {
			uint32_t cap = 0;

			/* only if too few nodes of the partition can hold it */
			for (uint32_t i = 0; i < sc.cl->nnodes; i++)
				cap += fw_bitset_test(sc.cl->parts[j->part].nodes, i) &&
				       sc.cl->nodes[i].cpus >= j->cpus_per_node &&
				       (j->resv < 0 || fw_bitset_test(sc.resv, i));
			if (r[k].reason != FW_REASON_RESV_TIME)
				ck_assert_uint_lt(cap, j->nodes_min);
			ck_assert_int_lt(found, 0);
			break;
		}
		default:
			ck_abort_msg("seed %llu job %u: unexpected %s",
				     (unsigned long long)seed, j->id,
				     fw_plan_kind_str(r[k].kind));
		}
		if (r[k].node_idx) {
			int32_t b = found + len > W ? INT32_MAX : found + len;

			in_resv += j->resv >= 0;
			chosen[nchosen] = fw_plan_result_nodes(&r[k], sc.cl->nnodes);
			ck_assert_uint_eq(fw_bitset_count(chosen[nchosen]), j->nodes_min);
			ck_assert(oracle_fits(&sc, o, no, j, found, b, chosen[nchosen]));
			o[no].nodes = chosen[nchosen++];
			o[no].a = found;
			o[no].b = b;
			o[no].lic = j->nlics ? 1 : 0;
			no++;
		}
	}
	for (int k = 0; k < nchosen; k++)
		fw_bitset_free(chosen[k]);
	fw_plan_results_free(r, (size_t)sc.njobs);
	scenario_free(&sc);
	return in_resv;
}

START_TEST(protected_jobs_never_move_later)
{
	struct tally t = { 0, 0 };

	for (uint64_t seed = 1; seed <= 150; seed++) {
		check_protection(seed, false, &t);
		check_protection(seed + 1000, true, &t);
	}
	/* the property was exercised, and unprotected jobs did get delayed */
	ck_assert_int_gt(t.protected_checked, 1000);
	ck_assert_int_gt(t.estimates_delayed, 0);
}
END_TEST

START_TEST(backfilled_job_does_not_touch_earlier_ones)
{
	for (uint64_t seed = 1; seed <= 20; seed++)
		check_independence(seed);
}
END_TEST

START_TEST(search_matches_brute_force)
{
	int in_resv = 0;

	for (uint64_t seed = 1; seed <= 150; seed++)
		in_resv += check_oracle(seed + 77, false);
	for (uint64_t seed = 1; seed <= 40; seed++)
		in_resv += check_oracle(seed + 5000, true);
	/* the reservation path (free view) was exercised */
	ck_assert_int_gt(in_resv, 20);
}
END_TEST

Suite *plan_prop_suite(void)
{
	Suite *s = suite_create("plan_prop");
	TCase *tc = tcase_create("prop");

	tcase_add_test(tc, protected_jobs_never_move_later);
	tcase_add_test(tc, backfilled_job_does_not_touch_earlier_ones);
	tcase_add_test(tc, search_matches_brute_force);
	suite_add_tcase(s, tc);
	return s;
}
