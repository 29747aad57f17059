/* validation.c - how much can tachy's verdict be trusted? Simulated
 * comparisons through the code path of every verdict (ty_verdict_compute,
 * lib/verdict.c over lib/stats.c), from known distributions:
 *
 *   1. with no true difference: the share of "proven" verdicts (should stay
 *      at or below 5% at 95% confidence);
 *   2. with a true 3% difference: how many runs a side detect it 95% of the
 *      time, per noise shape and level, for Welch's t and Mann-Whitney;
 *   3. adaptive stopping as `tachy run --precision P` does it (at least 10
 *      runs, then until the 95% interval of the mean is within P% of it, or
 *      1000 runs): how often it detects the 3%, with how many runs, and its
 *      false-positive rate.
 *
 * Built and run by bench/validation.sh; deterministic (fixed seeds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdist.h"
#include "tachy/stats.h"
#include "tachy/verdict.h"

#define TRIALS 1000
#define MAXN 1000

static double a[MAXN], b[MAXN];

static int
verdict(size_t na, size_t nb, enum ty_test test)
{
	struct ty_verdict v;
	struct ty_error e = {0};

	if (ty_verdict_compute(a, na, b, nb, test, 95, &v, &e)) {
		fprintf(stderr, "validation: %s\n", e.msg);
		exit(1);
	}
	return v.verdict;
}

/* Share of TRIALS comparisons of N runs a side that prove a difference. */
static double
detect_rate(struct sim_rng *r, enum sim_shape s, double cv, double shift, size_t n,
	    enum ty_test test)
{
	long k = 0, t;
	size_t i;
	int v;

	for (t = 0; t < TRIALS; t++) {
		for (i = 0; i < n; i++) {
			a[i] = sim_draw(r, s, 1.0, cv);
			b[i] = sim_draw(r, s, 1.0 + shift, cv);
		}
		v = verdict(n, n, test);
		/* With a shift: a verdict in its direction; without: any verdict. */
		k += shift > 0 ? v == 1 : shift < 0 ? v == -1 : v != 0;
	}
	return (double)k / TRIALS;
}

static const size_t grid[] = {3,  4,  5,  6,   7,   8,	 10,  12,  15,	20,  25,  30,  40,
			      50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 700, 1000};

/* The smallest N on the grid detecting SHIFT at least 95% of the time. */
static size_t
runs_needed(struct sim_rng *r, enum sim_shape s, double cv, double shift, enum ty_test test,
	    double *rate)
{
	size_t i;

	for (i = 0; i < sizeof(grid) / sizeof(grid[0]); i++) {
		*rate = detect_rate(r, s, cv, shift, grid[i], test);
		if (*rate >= 0.95)
			return grid[i];
	}
	return 0;
}

/* t quantiles for the 95% interval of the mean of n runs, computed once. */
static double tq[MAXN + 1];

static const char *
runs_text(size_t n)
{
	static char buf[2][32];
	static int k;

	k ^= 1;
	if (n)
		snprintf(buf[k], sizeof(buf[k]), "%zu", n);
	else
		snprintf(buf[k], sizeof(buf[k]), "> %d", MAXN);
	return buf[k];
}

/* Draw runs into X until the 95% interval of the mean is within PRECISION%
 * of it (at least 10, at most MAXN): the rule of `tachy run --precision`,
 * with a running mean and variance (Welford) as a runner keeps them.
 * Returns the count. */
static size_t
adaptive(struct sim_rng *r, double *x, enum sim_shape s, double mu, double cv, double precision)
{
	struct ty_welford w;
	size_t n = 0;

	ty_stats_welford_init(&w);
	while (n < MAXN) {
		x[n] = sim_draw(r, s, mu, cv);
		ty_stats_welford_add(&w, x[n++]);
		if (n < 10)
			continue;
		if (tq[n] * sqrt(ty_stats_welford_var(&w) / (double)n) <=
		    precision / 100 * fabs(w.mean))
			break;
	}
	return n;
}

/* Both commands run in the same rounds until both intervals are within
 * PRECISION% (at least 10 rounds, at most MAXN): the same count a side. */
static size_t
adaptive_joint(struct sim_rng *r, enum sim_shape s, double mub, double cv, double precision)
{
	struct ty_welford wa, wb;
	size_t n = 0;

	ty_stats_welford_init(&wa);
	ty_stats_welford_init(&wb);
	while (n < MAXN) {
		a[n] = sim_draw(r, s, 1.0, cv);
		b[n] = sim_draw(r, s, mub, cv);
		ty_stats_welford_add(&wa, a[n]);
		ty_stats_welford_add(&wb, b[n++]);
		if (n < 10)
			continue;
		if (tq[n] * sqrt(ty_stats_welford_var(&wa) / (double)n) <=
			precision / 100 * fabs(wa.mean) &&
		    tq[n] * sqrt(ty_stats_welford_var(&wb) / (double)n) <=
			precision / 100 * fabs(wb.mean))
			break;
	}
	return n;
}

struct adaptive_tally {
	long hit_w, hit_u, fp_w, fp_u, fp_joint;
	double runs;
};

static void
adaptive_trial(struct sim_rng *r, enum sim_shape s, double cv, double precision,
	       struct adaptive_tally *t)
{
	size_t na, nb;

	/* Each command stops on its own, as tachy run does today. */
	na = adaptive(r, a, s, 1.0, cv, precision);
	nb = adaptive(r, b, s, 1.03, cv, precision);
	t->runs += (double)(na + nb) / 2;
	t->hit_w += verdict(na, nb, TY_TEST_WELCH) == 1;
	t->hit_u += verdict(na, nb, TY_TEST_MANN_WHITNEY) == 1;
	na = adaptive(r, a, s, 1.0, cv, precision);
	nb = adaptive(r, b, s, 1.0, cv, precision);
	t->fp_w += verdict(na, nb, TY_TEST_WELCH) != 0;
	t->fp_u += verdict(na, nb, TY_TEST_MANN_WHITNEY) != 0;
	/* Both stop together, after the same number of rounds. */
	na = adaptive_joint(r, s, 1.0, cv, precision);
	t->fp_joint += verdict(na, na, TY_TEST_WELCH) != 0;
}

static void
adaptive_row(struct sim_rng *r, enum sim_shape s, double cv, double precision)
{
	struct adaptive_tally t = {0};
	long i;

	for (i = 0; i < TRIALS; i++)
		adaptive_trial(r, s, cv, precision, &t);
	printf("| %-13s | %4.0f%% | %4.0f%% | %9.1f | %5.1f%% | %5.1f%% | %6.1f%% | %6.1f%% | "
	       "%6.1f%% |\n",
	       sim_shape_names[s], 100 * cv, precision, t.runs / TRIALS, 100.0 * t.hit_w / TRIALS,
	       100.0 * t.hit_u / TRIALS, 100.0 * t.fp_w / TRIALS, 100.0 * t.fp_u / TRIALS,
	       100.0 * t.fp_joint / TRIALS);
}

int
main(void)
{
	static const double cvs[] = {0.01, 0.02, 0.05};
	static const double precisions[] = {1, 2};
	struct sim_rng r;
	size_t s, c, p, nw, nm;
	double rw, rm;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (s = 2; s <= MAXN; s++)
		tq[s] = ty_stats_t_quantile(0.975, (double)s - 1);
	sim_seed(&r, 5);
	printf("### False positives: no true difference, %d comparisons each, 95%% confidence\n\n",
	       TRIALS);
	printf("| noise shape   | noise | runs | Welch | Mann-Whitney |\n"
	       "|---------------|------:|-----:|------:|-------------:|\n");
	for (s = 0; s < SIM_NSHAPES; s++)
		for (c = 0; c < 2; c++)
			printf("| %-13s | %4.0f%% | %4d | %4.1f%% | %11.1f%% |\n",
			       sim_shape_names[s], 100 * cvs[c + 1], 10,
			       100 * detect_rate(&r, (enum sim_shape)s, cvs[c + 1], 0, 10,
						 TY_TEST_WELCH),
			       100 * detect_rate(&r, (enum sim_shape)s, cvs[c + 1], 0, 10,
						 TY_TEST_MANN_WHITNEY));
	printf("\n### Runs a side to detect a true 3%% slowdown 95%% of the time\n\n");
	printf("| noise shape   | noise | Welch runs (rate) | Mann-Whitney runs (rate) |\n"
	       "|---------------|------:|------------------:|-------------------------:|\n");
	for (s = 0; s < SIM_NSHAPES; s++)
		for (c = 0; c < 3; c++) {
			nw = runs_needed(&r, (enum sim_shape)s, cvs[c], 0.03, TY_TEST_WELCH, &rw);
			nm = runs_needed(&r, (enum sim_shape)s, cvs[c], 0.03, TY_TEST_MANN_WHITNEY,
					 &rm);
			printf("| %-13s | %4.0f%% | %s (%3.0f%%) | %s (%3.0f%%) |\n",
			       sim_shape_names[s], 100 * cvs[c], runs_text(nw), 100 * rw,
			       runs_text(nm), 100 * rm);
		}
	printf("\n### Adaptive runs (--precision P: at least 10 runs, then until the 95%% "
	       "interval of the mean is within P%%, at most %d)\n\n"
	       "Detected: a true 3%% slowdown proven, each command stopping on its own as "
	       "tachy run does.\nFalse positives: no true difference, stopping on its own, and "
	       "(joint) both commands stopping together after the same rounds.\n\n",
	       MAXN);
	printf("| noise shape   | noise | P | mean runs | detected (Welch) | detected (U) "
	       "| false pos. (Welch) | false pos. (U) | false pos. (Welch, joint) |\n"
	       "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (s = 0; s < SIM_NSHAPES; s++)
		for (c = 0; c < 3; c++)
			for (p = 0; p < 2; p++)
				adaptive_row(&r, (enum sim_shape)s, cvs[c], precisions[p]);
	return 0;
}
