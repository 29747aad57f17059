/* validation.c - how much can tachy's verdict be trusted? Simulated
 * comparisons through the code path of every verdict (ty_verdict_compute,
 * lib/verdict.c over lib/stats.c), from known distributions:
 *
 *   1. with no true difference: the share of "proven" verdicts (should stay
 *      at or below 5% at 95% confidence);
 *   2. with a true 3% difference: how many runs a side detect it 95% of the
 *      time, per noise shape and level, for Welch's t and Mann-Whitney;
 *   3. adaptive runs as `tachy run --precision P` makes them (at least 10
 *      runs, then rounds until the 95% interval of the mean of each command
 *      is within P% of it, or 1000 runs): how often they detect the 3%, with
 *      how many runs, and the false-positive rate. These go through the
 *      real code path: ty_runner_run (lib/runner.c) with a simulated
 *      executor and clock, then ty_results_analyze (lib/results.c, whose
 *      verdicts are ty_verdict_compute's). For comparison, the old rule
 *      (each command stopping on its own) is simulated alongside.
 *
 * Built and run by bench/validation.sh; deterministic (fixed seeds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdist.h"
#include "tachy/results.h"
#include "tachy/runner.h"
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

/* The old rule of `tachy run --precision`, each command on its own: draw
 * runs into X until the 95% interval of the mean is within PRECISION% of
 * it (at least 10, at most MAXN), with a running mean and variance
 * (Welford) as the runner keeps them. Returns the count. */
static size_t
adaptive_alone(struct sim_rng *r, double *x, enum sim_shape s, double mu, double cv,
	       double precision)
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

/* ---- the runner with simulated runs ---- */

/* Job 0 takes 1 ms times a draw around 1, job 1 around MU[1]. */
static struct sim_world {
	struct sim_rng *rng;
	enum sim_shape shape;
	double mu[2], cv;
	int64_t now;
	struct ty_job jobs[2];
} W;

static int64_t
sim_now(void *ctx)
{
	(void)ctx;
	return W.now;
}

static int
sim_exec(struct ty_runner *r, struct ty_job *job, size_t index, enum ty_step step, int hook,
	 struct ty_sample *s, double *values, struct ty_error *e)
{
	size_t j = (size_t)(job - W.jobs);

	(void)r;
	(void)index;
	(void)step;
	(void)hook;
	(void)values;
	(void)e;
	s->wall_ns = llround(1e6 * sim_draw(W.rng, W.shape, W.mu[j], W.cv));
	W.now += s->wall_ns;
	return 0;
}

static int
verdict_of(struct ty_results *rs, enum ty_test test)
{
	const struct ty_comparison *c;
	struct ty_error e = {0};

	rs->test = test;
	if (ty_results_analyze(rs, &e)) {
		fprintf(stderr, "validation: %s\n", e.msg);
		exit(1);
	}
	c = ty_results_comparison(rs, 1, TY_FIG_WALL);
	if (!c)
		return 0;
	return strcmp(c->verdict, "slower") == 0 ? 1 : strcmp(c->verdict, "faster") == 0 ? -1 : 0;
}

/* `tachy run --precision PRECISION -m 10 -M MAXN` (interleaved order) of
 * two simulated commands, the second MUB times the first; the verdicts on
 * their wall times with Welch's t (*VW) and Mann-Whitney (*VU). Returns the
 * runs of the second command. */
static size_t
adaptive_run(struct sim_rng *rng, enum sim_shape s, double mub, double cv, double precision,
	     int *vw, int *vu)
{
	static char *argv[] = {"sim", NULL};
	struct ty_runner r;
	struct ty_results rs;
	struct ty_error e = {0};
	size_t j, n;

	W.rng = rng;
	W.shape = s;
	W.mu[0] = 1.0;
	W.mu[1] = mub;
	W.cv = cv;
	W.jobs[0].argv = W.jobs[1].argv = argv;
	ty_runner_init(&r);
	r.o.min_runs = 10;
	r.o.max_runs = MAXN;
	r.o.max_time = 1e9;
	r.o.precision = precision;
	r.o.seed = sim_next(rng) | 1;
	r.clock.name = "simulated";
	r.clock.now_ns = sim_now;
	r.exec = sim_exec;
	if (ty_results_init(&rs, 2, &e) < 0)
		exit(1);
	for (j = 0; j < 2; j++) {
		rs.r[j].command = strdup(j ? "b" : "a");
		rs.r[j].name = strdup(j ? "b" : "a");
	}
	if (ty_runner_run(&r, W.jobs, 2, &rs, &e) < 0) {
		fprintf(stderr, "validation: %s\n", e.msg);
		exit(1);
	}
	*vw = verdict_of(&rs, TY_TEST_WELCH);
	/* Mann-Whitney's interval is O(n^2): ty_results_analyze would compute
	 * it for all 8 figures, so the wall times go to ty_verdict_compute,
	 * the function analyze calls for each figure, directly. */
	for (j = 0; j < 2; j++)
		for (n = 0; n < rs.r[j].nruns; n++)
			(j ? b : a)[n] = (double)rs.r[j].runs[n].wall_ns / 1e9;
	*vu = verdict(rs.r[0].nruns, rs.r[1].nruns, TY_TEST_MANN_WHITNEY);
	n = rs.r[1].nruns;
	ty_results_release(&rs);
	return n;
}

struct adaptive_tally {
	long hit_w, hit_u, fp_w, fp_u, fp_alone_w, fp_alone_u;
	double runs;
};

static void
adaptive_trial(struct sim_rng *r, enum sim_shape s, double cv, double precision,
	       struct adaptive_tally *t)
{
	size_t na, nb;
	int vw, vu;

	/* tachy run: all commands in the same rounds until all are precise */
	t->runs += (double)adaptive_run(r, s, 1.03, cv, precision, &vw, &vu);
	t->hit_w += vw == 1;
	t->hit_u += vu == 1;
	adaptive_run(r, s, 1.0, cv, precision, &vw, &vu);
	t->fp_w += vw != 0;
	t->fp_u += vu != 0;
	/* the old rule: each command stopping on its own */
	na = adaptive_alone(r, a, s, 1.0, cv, precision);
	nb = adaptive_alone(r, b, s, 1.0, cv, precision);
	t->fp_alone_w += verdict(na, nb, TY_TEST_WELCH) != 0;
	t->fp_alone_u += verdict(na, nb, TY_TEST_MANN_WHITNEY) != 0;
}

static void
adaptive_row(struct sim_rng *r, enum sim_shape s, double cv, double precision)
{
	struct adaptive_tally t = {0};
	long i;

	for (i = 0; i < TRIALS; i++)
		adaptive_trial(r, s, cv, precision, &t);
	printf("| %-13s | %4.0f%% | %4.0f%% | %9.1f | %5.1f%% | %5.1f%% | %6.1f%% | %6.1f%% | "
	       "%6.1f%% | %6.1f%% |\n",
	       sim_shape_names[s], 100 * cv, precision, t.runs / TRIALS, 100.0 * t.hit_w / TRIALS,
	       100.0 * t.hit_u / TRIALS, 100.0 * t.fp_w / TRIALS, 100.0 * t.fp_u / TRIALS,
	       100.0 * t.fp_alone_w / TRIALS, 100.0 * t.fp_alone_u / TRIALS);
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
	printf("\n### Adaptive runs (--precision P: at least 10 runs, then rounds until the 95%% "
	       "interval of the mean of each command is within P%%, at most %d)\n\n"
	       "Through ty_runner_run and ty_results_analyze with simulated runs: mean runs "
	       "a command, a true 3%% slowdown detected, false positives with no true "
	       "difference.\nOld rule: each command stopping on its own as soon as its own "
	       "interval is narrow enough (what tachy run did before), false positives.\n\n",
	       MAXN);
	printf("| noise shape   | noise | P | mean runs | detected (Welch) | detected (U) "
	       "| false pos. (Welch) | false pos. (U) | old rule: false pos. (Welch) "
	       "| old rule: false pos. (U) |\n"
	       "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (s = 0; s < SIM_NSHAPES; s++)
		for (c = 0; c < 3; c++)
			for (p = 0; p < 2; p++)
				adaptive_row(&r, (enum sim_shape)s, cvs[c], precisions[p]);
	return 0;
}
