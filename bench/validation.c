/* validation.c - how much can tachy's verdict be trusted? Simulated
 * comparisons through the code path of every verdict (ty_verdict_compute,
 * lib/verdict.c over lib/stats.c), from known distributions, for every
 * test (Welch's t on means, Mann-Whitney U on medians, Yuen's t on 20%
 * trimmed means), unpaired and paired by round:
 *
 *   1. with no true difference: the share of "proven" verdicts (should stay
 *      at or below 5% at 95% confidence) in every noise shape and level;
 *   2. with a true 3% slowdown: the share found with 30 runs a side, and
 *      the runs a side needed to find it 95% of the time;
 *   3. adaptive runs as `tachy run` makes them (at least 10 runs, then
 *      rounds until the 95% interval of each command's centre is within 1%,
 *      at most 1000), through the real code path: ty_runner_run
 *      (lib/runner.c) with a simulated executor and clock, then
 *      ty_results_analyze (lib/results.c, whose verdicts are
 *      ty_verdict_compute's): runs needed (mean and most), the 3% found,
 *      false verdicts;
 *   4. drift during a benchmark of 20 interleaved rounds, through the
 *      runner: the machine slowing by 20% (linearly, or in one step), paired
 *      and unpaired;
 *   5. a warm-up (the first 3 runs 2x as long), through the runner and
 *      analyze: found, left out, the mean against the steady state.
 *
 * Noise shapes (tests/unit/simdist.h) plus, here, the order of the runs:
 * linear drift (+20% from the first round to the last), a step (+20% from
 * the middle on) and a warm-up (the first 3 runs of each command 2x).
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

/* Trials per cell (BENCH_SMOKE=1 in the environment: a few, for make
 * bench-smoke; the figures are then not the published ones). */
static int TRIALS = 1000;
#define MAXN 1000

enum order { ORD_NONE, ORD_LINEAR, ORD_STEP, ORD_WARMUP, NORDERS };
static const char *const order_names[] = {"", "linear drift", "step", "warm-up"};

static const enum ty_test tests[] = {TY_TEST_WELCH, TY_TEST_MANN_WHITNEY, TY_TEST_YUEN};
#define NTESTS 3

static double a[MAXN], b[MAXN];
static uint32_t rounds[MAXN];

/* The level of round I of N under order O. */
static double
level(enum order o, size_t i, size_t n)
{
	switch (o) {
	case ORD_LINEAR:
		return 1 + 0.2 * (double)i / (double)(n > 1 ? n - 1 : 1);
	case ORD_STEP:
		return i >= n / 2 ? 1.2 : 1;
	case ORD_WARMUP:
		return i < 3 ? 2 : 1;
	default:
		return 1;
	}
}

static int
verdict(size_t na, size_t nb, enum ty_test test, int paired)
{
	struct ty_verdict_opts o = {test, 95, paired ? rounds : NULL, paired ? rounds : NULL};
	struct ty_verdict v;
	struct ty_error e = {0};

	if (ty_verdict_compute(a, na, b, nb, &o, &v, &e)) {
		fprintf(stderr, "validation: %s\n", e.msg);
		exit(1);
	}
	return v.verdict;
}

/* Share of TRIALS comparisons of N runs a side (in N rounds) that prove a
 * difference (with SHIFT: in its direction), for each test, unpaired
 * (RATE[t]) and paired (RATE[NTESTS + t]), all on the same samples. */
static void
detect_rates(struct sim_rng *r, enum sim_shape s, enum order o, double cv, double shift, size_t n,
	     int unpaired_only, double *rate)
{
	long k[2 * NTESTS] = {0}, t;
	size_t i, x;
	int v;

	for (i = 0; i < n; i++)
		rounds[i] = (uint32_t)i;
	for (t = 0; t < TRIALS; t++) {
		for (i = 0; i < n; i++) {
			a[i] = sim_draw(r, s, level(o, i, n), cv);
			b[i] = sim_draw(r, s, level(o, i, n) * (1 + shift), cv);
		}
		for (x = 0; x < (unpaired_only ? NTESTS : 2 * NTESTS); x++) {
			v = verdict(n, n, tests[x % NTESTS], x >= NTESTS);
			k[x] += shift > 0 ? v == 1 : v != 0;
		}
	}
	for (x = 0; x < 2 * NTESTS; x++)
		rate[x] = (double)k[x] / TRIALS;
}

static const char *
shape_name(enum sim_shape s, enum order o)
{
	static char buf[64];

	if (o == ORD_NONE)
		return sim_shape_names[s];
	snprintf(buf, sizeof(buf), "%s, %s", sim_shape_names[s], order_names[o]);
	return buf;
}

static void
rates_table(struct sim_rng *r, double shift, size_t n)
{
	static const double cvs[] = {0.01, 0.02, 0.05};
	double rate[2 * NTESTS];
	size_t s, c, x;
	int o;

	printf("| noise shape | noise | Welch | Mann-Whitney | Yuen | paired t | paired sign "
	       "| paired trimmed t |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (o = 0; o < NORDERS; o++)
		for (s = 0; s < SIM_NSHAPES; s++) {
			if (o != ORD_NONE && s != SIM_NORMAL && s != SIM_OUTLIERS)
				continue;
			for (c = 0; c < 3; c++) {
				detect_rates(r, (enum sim_shape)s, (enum order)o, cvs[c], shift, n,
					     0, rate);
				printf("| %s | %.0f%% |", shape_name((enum sim_shape)s, o),
				       100 * cvs[c]);
				for (x = 0; x < 2 * NTESTS; x++)
					printf(" %.1f%% |", 100 * rate[x]);
				printf("\n");
			}
		}
}

static const size_t grid[] = {3,  4,  5,  6,   7,   8,	 10,  12,  15,	20,  25,  30,  40,
			      50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 700, 1000};

static void
runs_needed_table(struct sim_rng *r)
{
	static const double cvs[] = {0.01, 0.02, 0.05};
	double rate[2 * NTESTS];
	size_t s, c, x, i, need[NTESTS];
	double got[NTESTS];

	printf("| noise shape | noise | Welch runs (rate) | Mann-Whitney runs (rate) | Yuen runs "
	       "(rate) |\n|---|---:|---:|---:|---:|\n");
	for (s = 0; s < SIM_NSHAPES; s++)
		for (c = 0; c < 3; c++) {
			for (x = 0; x < NTESTS; x++)
				need[x] = 0;
			for (i = 0; i < sizeof(grid) / sizeof(grid[0]); i++) {
				int all = 1;
				detect_rates(r, (enum sim_shape)s, ORD_NONE, cvs[c], 0.03, grid[i],
					     1, rate);
				for (x = 0; x < NTESTS; x++) {
					if (!need[x] && rate[x] >= 0.95) {
						need[x] = grid[i];
						got[x] = rate[x];
					}
					all &= need[x] != 0;
				}
				if (all)
					break;
			}
			printf("| %s | %.0f%% |", sim_shape_names[s], 100 * cvs[c]);
			for (x = 0; x < NTESTS; x++)
				if (need[x])
					printf(" %zu (%.0f%%) |", need[x], 100 * got[x]);
				else
					printf(" > %d |", MAXN);
			printf("\n");
		}
}

/* ---- the runner with simulated runs ---- */

/* Job 0 takes 1 ms times a draw around 1, job 1 around MU[1]; the level
 * of the machine follows ORDER over the runs of the benchmark (TOTAL in
 * all). */
static struct sim_world {
	struct sim_rng *rng;
	enum sim_shape shape;
	enum order order;
	double mu[2], cv;
	int64_t now;
	long steps, total;
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
	 struct ty_results_run *s, double *values, struct ty_error *e)
{
	size_t j = (size_t)(job - W.jobs);
	double lv;

	(void)r;
	(void)step;
	(void)hook;
	(void)values;
	(void)e;
	if (W.order == ORD_WARMUP)
		lv = index < 3 ? 2 : 1;
	else /* the machine's level at this point of the benchmark */
		lv = level(W.order, (size_t)W.steps, (size_t)W.total);
	W.steps++;
	s->wall_ns = llround(1e6 * sim_draw(W.rng, W.shape, W.mu[j] * lv, W.cv));
	W.now += s->wall_ns;
	return 0;
}

static int
verdict_of(struct ty_results *rs)
{
	const struct ty_comparison *c;

	c = ty_results_comparison(rs, 1, TY_FIG_WALL);
	if (!c)
		return 0;
	return (int)c->verdict; /* TY_VERDICT_SLOWER 1, FASTER -1, SAME 0 */
}

/* `tachy run` of two simulated commands, the second MUB times the first,
 * with TEST (adaptive when RUNS is 0); RS is analyzed (with pairing unless
 * NOPAIR). */
static void
sim_run(struct sim_rng *rng, enum sim_shape s, enum order o, double mub, double cv, long runs,
	enum ty_test test, int nopair, struct ty_results *rs)
{
	static char *argv[] = {"sim", NULL};
	struct ty_runner r;
	struct ty_error e = {0};
	size_t j;

	W.rng = rng;
	W.shape = s;
	W.order = o;
	W.mu[0] = 1.0;
	W.mu[1] = mub;
	W.cv = cv;
	W.steps = 0;
	W.total = 2 * runs;
	W.jobs[0].argv = W.jobs[1].argv = argv;
	ty_runner_init(&r);
	r.o.runs = runs;
	r.o.min_runs = 10;
	r.o.max_runs = MAXN;
	r.o.max_time = 1e9;
	r.o.precision = 1;
	r.o.test = test;
	r.o.seed = sim_next(rng) | 1;
	r.clock.name = "simulated";
	r.clock.now_ns = sim_now;
	r.exec = sim_exec;
	if (ty_results_init(rs, 2, &e) < 0)
		exit(1);
	for (j = 0; j < 2; j++) {
		rs->r[j].command = strdup(j ? "b" : "a");
		rs->r[j].name = strdup(j ? "b" : "a");
	}
	if (ty_runner_run(&r, W.jobs, 2, rs, &e) < 0) {
		fprintf(stderr, "validation: %s\n", e.msg);
		exit(1);
	}
	rs->test = test;
	rs->no_pairing = nopair;
	if (ty_results_analyze(rs, &e)) {
		fprintf(stderr, "validation: %s\n", e.msg);
		exit(1);
	}
}

#define ATRIALS_MAX 400
static int ATRIALS = ATRIALS_MAX;

static void
adaptive_table(struct sim_rng *rng)
{
	static const double cvs[] = {0.01, 0.02, 0.05};
	struct ty_results rs;
	size_t s, c, x;
	long t;

	printf("| noise shape | noise | test | mean runs | most runs | 3%% found | false "
	       "verdicts |\n|---|---:|---|---:|---:|---:|---:|\n");
	for (s = 0; s < SIM_NSHAPES; s++)
		for (c = 0; c < 3; c++)
			for (x = 0; x < NTESTS; x++) {
				long hit = 0, fp = 0;
				size_t most = 0;
				double sum = 0;
				for (t = 0; t < ATRIALS; t++) {
					sim_run(rng, (enum sim_shape)s, ORD_NONE, 1.03, cvs[c], 0,
						tests[x], 0, &rs);
					hit += verdict_of(&rs) == 1;
					sum += (double)rs.r[1].nruns;
					if (rs.r[1].nruns > most)
						most = rs.r[1].nruns;
					ty_results_release(&rs);
					sim_run(rng, (enum sim_shape)s, ORD_NONE, 1.0, cvs[c], 0,
						tests[x], 0, &rs);
					fp += verdict_of(&rs) != 0;
					if (rs.r[1].nruns > most)
						most = rs.r[1].nruns;
					sum += (double)rs.r[1].nruns;
					ty_results_release(&rs);
				}
				printf("| %s | %.0f%% | %s | %.1f | %zu | %.1f%% | %.1f%% |\n",
				       sim_shape_names[s], 100 * cvs[c],
				       ty_verdict_test_name(tests[x]), sum / (2 * ATRIALS), most,
				       100.0 * hit / ATRIALS, 100.0 * fp / ATRIALS);
			}
}

static void
drift_table(struct sim_rng *rng)
{
	static const enum sim_shape shapes[] = {SIM_NORMAL, SIM_OUTLIERS};
	static const enum order orders[] = {ORD_NONE, ORD_LINEAR, ORD_STEP};
	struct ty_results rs;
	size_t s, o, x, p;
	long t;

	printf("| noise (1%%) | drift | test | paired: 3%% found | paired: false | unpaired: 3%% "
	       "found | unpaired: false |\n|---|---|---|---:|---:|---:|---:|\n");
	for (s = 0; s < 2; s++)
		for (o = 0; o < 3; o++)
			for (x = 0; x < NTESTS; x++) {
				long hit[2] = {0}, fp[2] = {0};
				for (t = 0; t < ATRIALS; t++)
					for (p = 0; p < 2; p++) {
						sim_run(rng, shapes[s], orders[o], 1.03, 0.01, 20,
							tests[x], (int)p, &rs);
						hit[p] += verdict_of(&rs) == 1;
						ty_results_release(&rs);
						sim_run(rng, shapes[s], orders[o], 1.0, 0.01, 20,
							tests[x], (int)p, &rs);
						fp[p] += verdict_of(&rs) != 0;
						ty_results_release(&rs);
					}
				printf("| %s | %s | %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n",
				       sim_shape_names[shapes[s]],
				       orders[o] == ORD_NONE	 ? "none"
				       : orders[o] == ORD_LINEAR ? "+20% linear"
								 : "+20% step at round 10",
				       ty_verdict_test_name(tests[x]), 100.0 * hit[0] / ATRIALS,
				       100.0 * fp[0] / ATRIALS, 100.0 * hit[1] / ATRIALS,
				       100.0 * fp[1] / ATRIALS);
			}
}

static void
warmup_table(struct sim_rng *rng)
{
	static const enum sim_shape shapes[] = {SIM_NORMAL, SIM_OUTLIERS};
	static const long runs[] = {30, 0};
	struct ty_results rs;
	size_t s, k;
	long t;

	printf("| noise (1%%) | runs | warm-up found (3 runs) | mean within 3%% of the steady "
	       "state | worst mean / steady | mean / steady with --keep-warmup (median) |\n"
	       "|---|---|---:|---:|---:|---:|\n");
	for (s = 0; s < 2; s++)
		for (k = 0; k < 2; k++) {
			long found = 0, within = 0;
			double worst = 1, kept[ATRIALS_MAX];
			for (t = 0; t < ATRIALS; t++) {
				double m;
				sim_run(rng, shapes[s], ORD_WARMUP, 1.0, 0.01, runs[k],
					TY_TEST_DEFAULT, 0, &rs);
				found += rs.r[0].series.warmup == 3;
				m = rs.r[0].sum[TY_FIG_WALL].mean / 1e-3;
				/* the steady state: 1 ms, and 1.5-3x on 5% of runs */
				if (shapes[s] == SIM_OUTLIERS)
					m /= 0.95 + 0.05 * 2.25;
				within += fabs(m - 1) <= 0.03;
				if (fabs(m - 1) > fabs(worst - 1))
					worst = m;
				rs.keep_warmup = 1;
				ty_results_analyze(&rs, &(struct ty_error){0});
				kept[t] = rs.r[0].sum[TY_FIG_WALL].mean / 1e-3;
				if (shapes[s] == SIM_OUTLIERS)
					kept[t] /= 0.95 + 0.05 * 2.25;
				ty_results_release(&rs);
			}
			printf("| %s | %s | %.1f%% | %.1f%% | %.3f | %.3f |\n",
			       sim_shape_names[shapes[s]], runs[k] ? "-r 30" : "adaptive",
			       100.0 * found / ATRIALS, 100.0 * within / ATRIALS, worst,
			       ty_stats_quantile(kept, ATRIALS, 0.5));
		}
}

int
main(void)
{
	struct sim_rng r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("BENCH_SMOKE") && strcmp(getenv("BENCH_SMOKE"), "1") == 0)
		TRIALS = 20, ATRIALS = 10;
	sim_seed(&r, 5);
	printf("### False verdicts with no true difference, 30 runs a side in 30 rounds, "
	       "%d comparisons a cell, 95%% confidence\n\n",
	       TRIALS);
	rates_table(&r, 0, 30);
	printf("\n### False verdicts with no true difference, 10 runs a side\n\n");
	rates_table(&r, 0, 10);
	printf("\n### A true 3%% slowdown found, 30 runs a side in 30 rounds\n\n");
	rates_table(&r, 0.03, 30);
	printf("\n### Runs a side to find a true 3%% slowdown 95%% of the time (unpaired)\n\n");
	runs_needed_table(&r);
	printf("\n### Adaptive runs (tachy run: at least 10 runs, then rounds until the 95%% "
	       "interval of each command's centre is within 1%%, at most %d), %d benchmarks "
	       "of each kind\n\n",
	       MAXN, ATRIALS);
	adaptive_table(&r);
	printf("\n### Drift during 20 interleaved rounds (tachy run -r 20), %d benchmarks each\n\n",
	       ATRIALS);
	drift_table(&r);
	printf(
	    "\n### A warm-up: the first 3 runs of each command 2x as long, %d benchmarks each\n\n",
	    ATRIALS);
	warmup_table(&r);
	return 0;
}
