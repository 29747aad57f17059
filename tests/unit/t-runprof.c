/* t-runprof.c - per-run profiles and the per-function tests between them:
 * exact answers on synthetic per-run counts, the pooling of rare functions,
 * Holm and Benjamini-Hochberg, an A/A simulation (fixed seed) that flags in
 * at most the familywise error rate's share of trials, and a planted change
 * found. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tachy/profile.h"
#include "tachy/runprof-diff.h"
#include "tachy/runprof-json.h"
#include "tachy/runprof.h"

static void
test_bh(void)
{
	double p[4] = {0.01, 0.04, 0.03, 0.2}, q[4];

	CHECK_INT(ty_runprof_bh(p, 4, q), 0);
	CHECK_NEAR(q[0], 0.04, 1e-15);
	CHECK_NEAR(q[1], 0.04 * 4 / 3, 1e-15);
	CHECK_NEAR(q[2], 0.04 * 4 / 3, 1e-15);
	CHECK_NEAR(q[3], 0.2, 1e-15);
}

static void
test_holm(void)
{
	double p[4] = {0.01, 0.04, 0.03, 0.2}, q[4], one[2] = {0.6, NAN};

	/* sorted 0.01 0.03 0.04 0.2, times 4 3 2 1, made non-decreasing */
	CHECK_INT(ty_runprof_holm(p, 4, q), 0);
	CHECK_NEAR(q[0], 0.04, 1e-15);
	CHECK_NEAR(q[2], 0.09, 1e-15);
	CHECK_NEAR(q[1], 0.09, 1e-15);
	CHECK_NEAR(q[3], 0.2, 1e-15);
	CHECK_INT(ty_runprof_holm(one, 2, q), 0);
	CHECK_NEAR(q[0], 1, 0); /* 1.2, capped at 1 */
	CHECK_NEAR(q[1], 1, 0); /* NAN counts as 1 */
	CHECK_INT(ty_runprof_holm(p, 0, q), 0);
}

static void
test_model(void)
{
	struct ty_runprof p;
	struct ty_runprof_ent en[2];
	uint32_t a, b;

	CHECK_INT(ty_runprof_init(&p, 2), 0);
	a = ty_runprof_sym(&p, "f", "prog");
	b = ty_runprof_sym(&p, "f", "libc.so.6");
	CHECK_INT(a, 0);
	CHECK_INT(b, 1);
	CHECK_INT(ty_runprof_sym(&p, "f", "prog"), 0);
	en[0] = (struct ty_runprof_ent){a, 3, 4};
	en[1] = (struct ty_runprof_ent){7, 1, 1};
	CHECK_INT(ty_runprof_add_run(&p, 0, 10, 20.0, en, 2), -EINVAL); /* sym 7 */
	CHECK_INT(ty_runprof_add_run(&p, 2, 10, 20.0, en, 1), -EINVAL); /* cmd 2 */
	CHECK_INT(ty_runprof_add_run(&p, 1, 10, 20.0, en, 1), 0);
	CHECK_INT(p.cmds[1].nruns, 1);
	CHECK_NEAR(ty_runprof_ms(&p.cmds[1].runs[0], 3), 6.0, 1e-12);
	ty_runprof_release(&p);
}

/* Two commands of N runs, 1 ms a sample: "hot" OLD_HOT + i % 3 samples in
 * old run i and NEW_HOT + i % 3 in new run i, "flat" 50 both sides,
 * "rare1" and "rare2" a sample in a few runs. */
static void
synth(struct ty_runprof *p, size_t n, uint32_t old_hot, uint32_t new_hot)
{
	uint32_t hot, flat, r1, r2;
	size_t i, c;

	ty_runprof_init(p, 2);
	hot = ty_runprof_sym(p, "hot", "prog");
	flat = ty_runprof_sym(p, "flat", "prog");
	r1 = ty_runprof_sym(p, "rare1", "prog");
	r2 = ty_runprof_sym(p, "rare2", "libc.so.6");
	for (c = 0; c < 2; c++)
		for (i = 0; i < n; i++) {
			struct ty_runprof_ent en[4];
			size_t k = 0;
			uint32_t h = (c ? new_hot : old_hot) + (uint32_t)(i % 3);
			en[k++] = (struct ty_runprof_ent){hot, h, h};
			en[k++] = (struct ty_runprof_ent){flat, 50 + (uint32_t)(i % 2), 60};
			if (i == 1)
				en[k++] = (struct ty_runprof_ent){r1, 1, 1};
			if (i == 2 && c)
				en[k++] = (struct ty_runprof_ent){r2, 2, 2};
			uint64_t total = 0;
			for (size_t j = 0; j < k; j++)
				total += en[j].self;
			ty_runprof_add_run(p, c, total, (double)total, en, k);
		}
}

static void
test_unpaired(void)
{
	struct ty_runprof p;
	struct ty_runprof_diff d;
	struct ty_runprof_diff_opts o = {0};
	struct ty_compare want;
	double a[8], b[8];
	struct ty_error e;
	size_t i;

	synth(&p, 8, 40, 60);
	o.test = TY_TEST_MANN_WHITNEY;
	o.confidence = 95;
	o.wall_change_ms = 20;
	CHECK_INT(ty_runprof_diff(&p, 0, 1, &o, &d, &e), 0);
	CHECK_INT(d.min_samples, 16);
	CHECK_INT(d.pairs, 0);
	CHECK_INT(d.nrows, 3); /* hot, flat, the pooled row */
	CHECK_INT(d.nflagged, 1);
	CHECK_STR(p.syms[d.rows[0].sym].name, "hot");
	CHECK_INT(d.rows[0].verdict, 1);
	CHECK_NEAR(d.rows[0].change_ms, 20, 1e-12);
	/* old: 40 41 42 40 41 42 40 41 -> mean 327/8 */
	CHECK_NEAR(d.rows[0].old_ms, 327.0 / 8, 1e-12);
	CHECK_NEAR(d.rows[0].new_ms, 487.0 / 8, 1e-12);
	for (i = 0; i < 8; i++) {
		a[i] = 40 + (double)(i % 3);
		b[i] = 60 + (double)(i % 3);
	}
	CHECK_INT(ty_stats_mann_whitney(a, 8, b, 8, 95, &want), 0);
	CHECK_NEAR(d.rows[0].p, want.p_value, 0);
	/* q of the smallest of 3 p-values: 3 p / 1 unless a larger one is smaller */
	CHECK(d.rows[0].q <= 3 * want.p_value + 1e-15);
	/* the interval at the false coverage rate's level: 1 - 1 * 0.05 / 3 */
	CHECK_NEAR(d.rows[0].conf, 100 * (1 - 0.05 / 3), 1e-9);
	CHECK(d.rows[0].lo <= 20 && d.rows[0].hi >= 20);
	CHECK_STR(p.syms[d.rows[1].sym].name, "flat");
	CHECK_INT(d.rows[1].verdict, 0);
	CHECK_NEAR(d.rows[1].change_ms, 0, 1e-12);
	CHECK_INT(d.rows[2].sym, TY_RUNPROF_POOLED);
	CHECK_INT(d.rows[2].npooled, 2);
	CHECK_NEAR(d.rows[2].old_ms, 1.0 / 8, 1e-12);
	CHECK_NEAR(d.rows[2].new_ms, 3.0 / 8, 1e-12);
	CHECK(isnan(d.rows[2].old_total_ms));
	CHECK_NEAR(d.rows[1].old_total_ms, 60, 1e-12);
	CHECK_NEAR(d.explained_ms, 20, 1e-12);
	ty_runprof_diff_release(&d);
	/* a faster side: the verdict turns, the ranking follows the wall */
	o.wall_change_ms = -20;
	CHECK_INT(ty_runprof_diff(&p, 1, 0, &o, &d, &e), 0);
	CHECK_INT(d.rows[0].verdict, -1);
	CHECK_NEAR(d.rows[0].change_ms, -20, 1e-12);
	ty_runprof_diff_release(&d);
	/* too few runs after a warm-up left out */
	o.skip_old = 7;
	CHECK_INT(ty_runprof_diff(&p, 0, 1, &o, &d, &e), -EINVAL);
	ty_runprof_release(&p);
}

/* Two functions move apart, "up" 30 samples a run slower and "down" 5
 * faster, while the wall time fell (the old side ran on a loaded machine
 * and waited for the CPU): the flagged rows follow the profile's own
 * direction, the slower one first, in the self and the total families. */
static void
test_rank_direction(void)
{
	struct ty_runprof p;
	struct ty_runprof_diff d;
	struct ty_runprof_diff_opts o = {0};
	struct ty_error e;
	uint32_t up, down;
	size_t i, c;

	ty_runprof_init(&p, 2);
	up = ty_runprof_sym(&p, "up", "prog");
	down = ty_runprof_sym(&p, "down", "prog");
	for (c = 0; c < 2; c++)
		for (i = 0; i < 10; i++) {
			uint32_t u = (c ? 60 : 30) + (uint32_t)(i % 3),
				 w = (c ? 15 : 20) + (uint32_t)(i % 2);
			struct ty_runprof_ent en[2] = {{up, u, u}, {down, w, w}};
			ty_runprof_add_run(&p, c, u + w, (double)(u + w), en, 2);
		}
	o.test = TY_TEST_MANN_WHITNEY;
	o.confidence = 95;
	o.wall_change_ms = -20;
	CHECK_INT(ty_runprof_diff(&p, 0, 1, &o, &d, &e), 0);
	CHECK_INT(d.nflagged, 2);
	CHECK_STR(p.syms[d.rows[0].sym].name, "up");
	CHECK_INT(d.rows[0].verdict, 1);
	CHECK_STR(p.syms[d.rows[1].sym].name, "down");
	CHECK_INT(d.rows[1].verdict, -1);
	CHECK(d.ntotals >= 2 && strcmp(p.syms[d.totals[0].sym].name, "up") == 0);
	ty_runprof_diff_release(&d);
	ty_runprof_release(&p);
}

static void
test_paired(void)
{
	struct ty_runprof p;
	struct ty_runprof_diff d;
	struct ty_runprof_diff_opts o = {0};
	struct ty_compare want;
	uint32_t ra[10], rb[10];
	double x[10];
	struct ty_error e;
	size_t i;

	synth(&p, 10, 40, 45);
	for (i = 0; i < 10; i++)
		ra[i] = rb[i] = (uint32_t)i;
	o.test = TY_TEST_MANN_WHITNEY;
	o.confidence = 95;
	o.old_round = ra;
	o.new_round = rb;
	o.wall_change_ms = 5;
	CHECK_INT(ty_runprof_diff(&p, 0, 1, &o, &d, &e), 0);
	CHECK_INT(d.pairs, 10);
	CHECK_STR(p.syms[d.rows[0].sym].name, "hot");
	for (i = 0; i < 10; i++)
		x[i] = 5;
	CHECK_INT(ty_stats_signed_rank(x, 10, 95, &want), 0);
	CHECK_NEAR(d.rows[0].p, want.p_value, 0);
	CHECK_NEAR(d.rows[0].change_ms, 5, 1e-12);
	CHECK_INT(d.rows[0].verdict, 1);
	ty_runprof_diff_release(&d);
	/* rounds that do not pair (each twice on a side): unpaired */
	for (i = 0; i < 10; i++)
		ra[i] = rb[i] = (uint32_t)(i / 2);
	CHECK_INT(ty_runprof_diff(&p, 0, 1, &o, &d, &e), 0);
	CHECK_INT(d.pairs, 0);
	ty_runprof_diff_release(&d);
	ty_runprof_release(&p);
}

/* ---- simulation: Poisson counts per function per run ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double
unif(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

static uint32_t
poisson(double mean)
{
	double l = exp(-mean), t = 1;
	uint32_t k = 0;

	if (mean > 30) { /* normal approximation, good enough here */
		double u1 = unif(), u2 = unif();
		double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
		double v = mean + sqrt(mean) * z + 0.5;
		return v < 0 ? 0 : (uint32_t)v;
	}
	for (;;) {
		t *= unif();
		if (t <= l)
			return k;
		k++;
	}
}

#define NF 24
#define RUNS 30

/* One trial: NF functions with shares 1/2^k-ish of 500 samples a run; the
 * function PLANT (or none: -1) FACTOR times slower on the new side. Returns
 * the rows flagged; *FIRST gets the sym of the first row. */
static size_t
trial(int plant, double factor, uint32_t *first, int *first_flagged)
{
	struct ty_runprof p;
	struct ty_runprof_diff d;
	struct ty_runprof_diff_opts o = {0};
	uint32_t sym[NF], rounds[RUNS];
	double mean[NF];
	struct ty_error e;
	size_t i, c, f, flagged;
	char name[16];

	ty_runprof_init(&p, 2);
	for (f = 0; f < NF; f++) {
		snprintf(name, sizeof(name), "f%zu", f);
		sym[f] = ty_runprof_sym(&p, name, "prog");
		mean[f] = 500.0 * (f + 1) / (NF * (NF + 1) / 2.0);
	}
	for (i = 0; i < RUNS; i++) {
		rounds[i] = (uint32_t)i;
		for (c = 0; c < 2; c++) {
			struct ty_runprof_ent en[NF];
			uint64_t tot = 0;
			for (f = 0; f < NF; f++) {
				double m = mean[f] * (c && (int)f == plant ? factor : 1);
				en[f] = (struct ty_runprof_ent){sym[f], poisson(m), 0};
				tot += en[f].self;
			}
			ty_runprof_add_run(&p, c, tot, (double)tot * 2, en, NF);
		}
	}
	o.test = TY_TEST_MANN_WHITNEY;
	o.confidence = 95;
	o.old_round = o.new_round = rounds;
	o.wall_change_ms = plant >= 0 ? 2 * mean[plant] * (factor - 1) : 0;
	ty_runprof_diff(&p, 0, 1, &o, &d, &e);
	flagged = d.nflagged;
	*first = d.nrows ? d.rows[0].sym : TY_RUNPROF_POOLED;
	*first_flagged = d.nrows && d.rows[0].verdict != 0;
	ty_runprof_diff_release(&d);
	ty_runprof_release(&p);
	return flagged;
}

static void
test_aa(void)
{
	size_t t, any = 0, n = 200;
	uint32_t first;
	int ff;

	for (t = 0; t < n; t++)
		any += trial(-1, 1, &first, &ff) > 0;
	/* Holm at 5% holds the familywise error rate at 5%: expected <= 10
	 * of 200; 20 is 3.2 binomial standard deviations out */
	printf("# A/A: %zu of %zu trials flagged a function\n", any, n);
	CHECK(any <= 20);
}

static void
test_power(void)
{
	size_t t, found = 0, others = 0, n = 40;
	uint32_t first;
	int ff;

	/* f20 (about 7% of the samples) 1.5 times slower */
	for (t = 0; t < n; t++) {
		size_t fl = trial(20, 1.5, &first, &ff);
		found += first == 20 && ff;
		others += fl - (first == 20 && ff);
	}
	printf("# planted: found first in %zu of %zu, other flags %zu\n", found, n, others);
	CHECK(found >= 38);
	CHECK(others <= 4); /* Holm: at most 5% of trials hold one (2 expected) */
}

/* Total time, the second family: "main" is never the leaf (no self row,
 * not even pooled) but is on every chain, so its total is tested; its
 * total and hot's move by exactly 20 ms, flat's not at all. */
static void
test_totals(void)
{
	struct ty_runprof p;
	struct ty_runprof_diff d;
	struct ty_runprof_diff_opts o = {0};
	struct ty_compare want;
	struct ty_error e;
	double a[8], b[8];
	uint32_t mn, hot, flat;
	size_t i, c;

	ty_runprof_init(&p, 2);
	mn = ty_runprof_sym(&p, "main", "prog");
	hot = ty_runprof_sym(&p, "hot", "prog");
	flat = ty_runprof_sym(&p, "flat", "prog");
	for (c = 0; c < 2; c++)
		for (i = 0; i < 8; i++) {
			uint32_t h = (c ? 60 : 40) + (uint32_t)(i % 3);
			struct ty_runprof_ent en[3] = {
			    {mn, 0, h + 50}, {hot, h, h}, {flat, 50, 50}};
			ty_runprof_add_run(&p, c, h + 50, (double)(h + 50), en, 3);
		}
	o.test = TY_TEST_MANN_WHITNEY;
	o.confidence = 95;
	o.wall_change_ms = 20;
	CHECK_INT(ty_runprof_diff(&p, 0, 1, &o, &d, &e), 0);
	CHECK_INT(d.nrows, 2); /* hot, flat: main has no self time, no pooled row */
	CHECK_INT(d.nflagged, 1);
	CHECK_INT(d.ntotals, 3);
	CHECK_INT(d.ntotals_flagged, 2);
	/* flagged first, equal changes by name (not by symbol index, which an
	 * export read back numbers otherwise): hot, main; then flat */
	CHECK_STR(p.syms[d.totals[0].sym].name, "hot");
	CHECK_STR(p.syms[d.totals[1].sym].name, "main");
	CHECK_STR(p.syms[d.totals[2].sym].name, "flat");
	CHECK_INT(d.totals[0].verdict, 1);
	CHECK_INT(d.totals[1].verdict, 1);
	CHECK_INT(d.totals[2].verdict, 0);
	CHECK_NEAR(d.totals[0].change_ms, 20, 1e-12);
	CHECK_NEAR(d.totals[0].old_ms, 327.0 / 8, 1e-12);
	CHECK_NEAR(d.totals[1].old_ms, 327.0 / 8 + 50, 1e-12);
	CHECK_NEAR(d.totals[1].new_ms, 487.0 / 8 + 50, 1e-12);
	CHECK_NEAR(d.totals[2].change_ms, 0, 1e-12);
	for (i = 0; i < 8; i++) {
		a[i] = 90 + (double)(i % 3);
		b[i] = 110 + (double)(i % 3);
	}
	CHECK_INT(ty_stats_mann_whitney(a, 8, b, 8, 95, &want), 0);
	CHECK_NEAR(d.totals[0].p, want.p_value, 0);
	/* the false coverage rate's level of its own family: 2 flagged of 3 */
	CHECK_NEAR(d.totals[0].conf, 100 * (1 - 2 * 0.05 / 3), 1e-9);
	ty_runprof_diff_release(&d);
	ty_runprof_release(&p);
}

/* Exact counts (run --instructions --profile): repeated counts give exact
 * rows, one run a side; a count that differs between runs of a side is
 * left to the tests (1). Counts past 32 bits stay exact. */
static void
test_exact(void)
{
	struct ty_runprof p;
	struct ty_runprof_diff d;
	struct ty_runprof_ent en[3];
	struct ty_error e;
	uint32_t same, planted, gone;

	CHECK_INT(ty_runprof_init(&p, 2), 0);
	same = ty_runprof_sym(&p, "same", "");
	planted = ty_runprof_sym(&p, "planted", "");
	gone = ty_runprof_sym(&p, "gone", "");
	en[0] = (struct ty_runprof_ent){same, 5000000000ull, 5000000000ull};
	en[1] = (struct ty_runprof_ent){planted, 1000, 1000};
	en[2] = (struct ty_runprof_ent){gone, 7, 7};
	CHECK_INT(ty_runprof_add_run(&p, 0, 5000001007ull, 5000001007.0, en, 3), 0);
	en[1].self = en[1].total = 4000;
	CHECK_INT(ty_runprof_add_run(&p, 1, 5000004000ull, 5000004000.0, en, 2), 0);
	CHECK_INT(ty_runprof_diff_exact(&p, 0, 1, &d, &e), 0);
	CHECK_INT(d.nrows, 3);
	CHECK_INT(d.nflagged, 2);
	CHECK_STR(p.syms[d.rows[0].sym].name, "planted");
	CHECK_NEAR(d.rows[0].change_ms, 3000, 0);
	CHECK_NEAR(d.rows[0].lo, 3000, 0);
	CHECK_INT(d.rows[0].verdict, 1);
	CHECK_STR(p.syms[d.rows[1].sym].name, "gone"); /* against the total's direction */
	CHECK_NEAR(d.rows[1].change_ms, -7, 0);
	CHECK_INT(d.rows[2].verdict, 0);
	CHECK_NEAR(d.rows[2].old_ms, 5000000000.0, 0);
	CHECK_NEAR(d.wall_change_ms, 2993, 0);
	ty_runprof_diff_release(&d);
	/* a second run of the new side with another count: not exact */
	en[1].self = en[1].total = 4001;
	CHECK_INT(ty_runprof_add_run(&p, 1, 5000004001ull, 5000004001.0, en, 2), 0);
	CHECK_INT(ty_runprof_diff_exact(&p, 0, 1, &d, &e), 1);
	CHECK_INT(d.nrows, 0);
	CHECK_INT(ty_runprof_diff_exact(&p, 0, 2, &d, &e), -EINVAL);
	ty_runprof_release(&p);
}

/* Instruction counts (run --instructions --profile): the flat profile of a
 * flame graph weighs each function's mean count a run, and the export's
 * text keeps counts above 2^32 and says they are instructions. */
static void
test_exact_flat(void)
{
	struct ty_runprof p, *q = NULL;
	struct ty_runprof_ent en[2];
	struct ty_profile *pr;
	struct ty_error e;
	char *text;
	size_t i;
	double w[2] = {0, 0};

	CHECK_INT(ty_runprof_init(&p, 2), 0);
	p.exact = 1;
	en[0].sym = ty_runprof_sym(&p, "work", "");
	en[1].sym = ty_runprof_sym(&p, "planted", "");
	en[0].self = en[0].total = 6000000000ull;
	en[1].self = en[1].total = 10;
	CHECK_INT(ty_runprof_add_run(&p, 0, 6000000010ull, 6000000010.0, en, 2), 0);
	en[1].self = en[1].total = 13;
	CHECK_INT(ty_runprof_add_run(&p, 0, 6000000013ull, 6000000013.0, en, 2), 0);
	CHECK(ty_runprof_flat_profile(&p, 2) == NULL);
	pr = ty_runprof_flat_profile(&p, 0);
	CHECK(pr != NULL);
	CHECK_INT(pr->nsamples, 2);
	for (i = 0; pr && i < pr->nsamples; i++) {
		const char *name = ty_profile_func_name(
		    pr, pr->locs[pr->frames[pr->stack_off[pr->samples[i].stack]]].func);
		w[strcmp(name, "planted") == 0] = (double)pr->samples[i].period;
	}
	CHECK_NEAR(w[0], 6000000000.0, 0);
	CHECK_NEAR(w[1], 12, 0); /* (10 + 13) / 2, rounded */
	ty_profile_free(pr);
#ifdef HAVE_JANSSON
	text = ty_runprof_json_text(&p, 0);
	CHECK(text && strstr(text, "\"counts\":\"instructions\"") != NULL);
	CHECK_INT(ty_runprof_json_read_text(&q, text, 2, "t", &e), 0);
	CHECK(q && q->exact && q->cmds[0].nruns == 2);
	if (q && q->cmds[0].nruns == 2)
		CHECK(q->ents[q->cmds[0].runs[1].first].self == 6000000000ull);
	ty_runprof_json_free(q);
	free(text);
#else
	(void)q, (void)e, (void)text;
#endif
	ty_runprof_release(&p);
}

int
main(void)
{
	test_bh();
	test_holm();
	test_model();
	test_unpaired();
	test_paired();
	test_rank_direction();
	test_totals();
	test_aa();
	test_power();
	test_exact();
	test_exact_flat();
	return check_done();
}
