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

	for (t = 0; t < TRIALS; t++) {
		for (i = 0; i < n; i++) {
			a[i] = sim_draw(r, s, 1.0, cv);
			b[i] = sim_draw(r, s, 1.0 + shift, cv);
		}
		k += verdict(n, n, test) == (shift > 0 ? 1 : shift < 0 ? -1 : 0) ? shift != 0 : 0;
		if (shift == 0)
			k += verdict(n, n, test) != 0;
	}
	return (double)k / TRIALS;
}

static const size_t grid[] = {3,  4,  5,  6,  7,  8,  10,  12,  15,  20,  25,  30,  40,
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

/* Draw runs into X until the 95% interval of the mean is within PRECISION%
 * of it (at least 10, at most MAXN). Returns the count. */
static size_t
adaptive(struct sim_rng *r, double *x, enum sim_shape s, double mu, double cv, double precision)
{
	struct ty_summary sum;
	size_t n = 0;

	while (n < MAXN) {
		x[n++] = sim_draw(r, s, mu, cv);
		if (n < 10)
			continue;
		ty_stats_summarize(x, n, &sum);
		if (ty_stats_mean_ci_halfwidth(&sum, 95) <= precision / 100 * fabs(sum.mean))
			break;
	}
	return n;
}

static void
adaptive_row(struct sim_rng *r, enum sim_shape s, double cv, double precision)
{
	long hit = 0, fp = 0, t;
	double runs = 0;
	size_t na, nb;

	for (t = 0; t < TRIALS; t++) {
		na = adaptive(r, a, s, 1.0, cv, precision);
		nb = adaptive(r, b, s, 1.03, cv, precision);
		runs += (double)(na + nb) / 2;
		hit += verdict(na, nb, TY_TEST_WELCH) == 1;
		na = adaptive(r, a, s, 1.0, cv, precision);
		nb = adaptive(r, b, s, 1.0, cv, precision);
		fp += verdict(na, nb, TY_TEST_WELCH) != 0;
	}
	printf("| %-13s | %4.0f%% | %5.1f%% | %9.1f | %9.1f%% | %10.1f%% |\n", sim_shape_names[s],
	       100 * cv, precision, runs / TRIALS, 100.0 * hit / TRIALS, 100.0 * fp / TRIALS);
}

int
main(void)
{
	static const double cvs[] = {0.01, 0.02, 0.05};
	static const double precisions[] = {1, 2};
	struct sim_rng r;
	size_t s, c, p, nw, nm;
	double rw, rm;

	sim_seed(&r, 5);
	printf("### False positives: no true difference, %d comparisons each, 95%% confidence\n\n",
	       TRIALS);
	printf("| noise shape   | noise | runs | Welch | Mann-Whitney |\n"
	       "|---------------|------:|-----:|------:|-------------:|\n");
	for (s = 0; s < SIM_NSHAPES; s++)
		for (c = 0; c < 2; c++)
			printf("| %-13s | %4.0f%% | %4d | %4.1f%% | %11.1f%% |\n", sim_shape_names[s],
			       100 * cvs[c + 1], 10,
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
			printf("| %-13s | %4.0f%% | %9zu (%3.0f%%) | %16zu (%3.0f%%) |\n",
			       sim_shape_names[s], 100 * cvs[c], nw, 100 * rw, nm, 100 * rm);
		}
	printf("\n### Adaptive runs (--precision P: at least 10 runs, then until the 95%% "
	       "interval of the mean is within P%%), true 3%% slowdown, Welch's t\n\n");
	printf("| noise shape   | noise | precision | mean runs | detected | false positives |\n"
	       "|---------------|------:|----------:|----------:|---------:|----------------:|\n");
	for (s = 0; s < SIM_NSHAPES; s++)
		for (c = 0; c < 3; c++)
			for (p = 0; p < 2; p++)
				adaptive_row(&r, (enum sim_shape)s, cvs[c], precisions[p]);
	return 0;
}
