/* t-verdict.c - the verdict on two samples, and trust in it: with no true
 * difference, the share of "proven" verdicts stays at or below 1 - confidence
 * for normal, log-normal, outlier-ridden and bimodal noise (2,000 simulated
 * comparisons per case, a fixed seed, checked against an exact binomial
 * bound); with a true difference the verdict finds it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "simdist.h"
#include "tachy/verdict.h"

#define TRIALS 2000
#define MAXN 64

static void
test_median_ci(void)
{
	double x[20], lo, hi;
	int i;

	for (i = 0; i < 20; i++)
		x[i] = 20 - i; /* 20, 19, ..., 1 */
	/* n = 20 at 95%: the 6th and 15th order statistics (P(B <= 5) = 0.0207). */
	CHECK_INT(ty_verdict_median_ci(x, 20, 95, &lo, &hi), 0);
	CHECK_NEAR(lo, 6, 0);
	CHECK_NEAR(hi, 15, 0);
	/* n = 5 cannot give a 95% interval (2 / 32 > 0.05); n = 6 can. */
	CHECK_INT(ty_verdict_median_ci(x, 5, 95, &lo, &hi), -ERANGE);
	CHECK_NEAR(lo, 16, 0);
	CHECK_NEAR(hi, 20, 0);
	CHECK_INT(ty_verdict_median_ci(x, 6, 95, &lo, &hi), 0);
	CHECK_NEAR(lo, 15, 0);
	CHECK_NEAR(hi, 20, 0);
}

/* The quadratic rule ty_verdict_median_ci used before (QA finding 10):
 * P(B <= j) summed from 0 for every j. */
static size_t
old_median_rank(size_t n, double alpha)
{
	size_t j = 0, i;
	double sum;

	for (;;) {
		if (!(j + 1 <= n / 2))
			break;
		sum = 0;
		for (i = 0; i <= j; i++)
			sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
				   lgamma((double)(n - i) + 1) - (double)n * M_LN2);
		if (!(sum <= alpha / 2))
			break;
		j++;
	}
	return j;
}

/* The linear-time median interval gives the old bounds for every small n
 * and level, and the right order statistics for a large n (checked against
 * an independent binomial tail, not against the clock). */
static void
test_median_ci_linear(void)
{
	static const double levels[] = {50, 80, 90, 95, 99, 99.9};
	static double x[200001];
	double lo, hi, alpha;
	size_t n, j, i, bad = 0;
	int l, rc;

	for (i = 0; i < 200001; i++)
		x[i] = (double)((i * 7919) % 200001); /* 0 .. 200000, shuffled */
	for (l = 0; l < 6; l++)
		for (n = 1; n <= 400; n++) {
			double y[400];

			for (i = 0; i < n; i++)
				y[i] = (double)(n - 1 - i);
			j = old_median_rank(n, 1 - levels[l] / 100);
			rc = ty_verdict_median_ci(y, n, levels[l], &lo, &hi);
			if (j == 0)
				bad += rc != -ERANGE || lo != 0 || hi != (double)(n - 1);
			else
				bad += rc != 0 || lo != (double)(j - 1) || hi != (double)(n - j);
		}
	CHECK_INT(bad, 0);
	/* n = 200001 at 95%: lo = x(j) with P(B <= j-1) <= 2.5% < P(B <= j) */
	n = 200001;
	alpha = 0.05;
	CHECK_INT(ty_verdict_median_ci(x, n, 95, &lo, &hi), 0);
	j = (size_t)lo + 1;
	CHECK_NEAR(hi, (double)(n - j), 0);
	CHECK(sim_binom_upper((long)n, (long)(n - j + 1), 0.5) <= alpha / 2);
	CHECK(sim_binom_upper((long)n, (long)(n - j), 0.5) > alpha / 2);
	/* and near the normal approximation n/2 - z sqrt(n)/2 */
	CHECK_NEAR((double)j, n / 2.0 - 1.959964 * sqrt((double)n) / 2, 2);
	/* the fewest values for a median interval, as compare's note says */
	CHECK_INT(ty_verdict_median_min_n(95), 6);
	CHECK_INT(ty_verdict_median_min_n(99), 8);
	CHECK_INT(ty_verdict_median_min_n(50), 2);
	CHECK_INT(ty_verdict_median_min_n(99.9), 11);
	CHECK_INT(ty_verdict_median_min_n(100), 0);
	for (l = 0; l < 6; l++) {
		n = ty_verdict_median_min_n(levels[l]);
		CHECK(old_median_rank(n, 1 - levels[l] / 100) > 0 &&
		      old_median_rank(n - 1, 1 - levels[l] / 100) == 0);
	}
}

static void
test_basics(void)
{
	double a[] = {10, 11, 10.5, 10.2, 10.8, 10.1, 10.9, 10.4};
	double b[] = {12, 13, 12.5, 12.2, 12.8, 12.1, 12.9, 12.4};
	double one[] = {10};
	struct ty_verdict v;
	struct ty_error e = {0};

	CHECK_INT(ty_verdict_compute(
		      a, 8, b, 8, &(struct ty_verdict_opts){TY_TEST_WELCH, 95, NULL, NULL}, &v, &e),
		  0);
	CHECK_INT(v.verdict, 1);
	CHECK_NEAR(v.c.rel, 100 * 2.0 / 10.4875, 1e-9);
	CHECK(v.c.rel_lo > 0 && v.c.rel_hi > v.c.rel);
	CHECK(v.old.lo < v.old.centre && v.old.centre < v.old.hi);
	CHECK_INT(ty_verdict_compute(
		      b, 8, a, 8, &(struct ty_verdict_opts){TY_TEST_MANN_WHITNEY, 95, NULL, NULL},
		      &v, &e),
		  0);
	CHECK_INT(v.verdict, -1);
	CHECK_NEAR(v.old.centre, 12.45, 1e-12);
	/* Three runs a side: Mann-Whitney cannot prove anything at 95%. */
	CHECK_INT(ty_verdict_compute(
		      a, 3, b, 3, &(struct ty_verdict_opts){TY_TEST_MANN_WHITNEY, 95, NULL, NULL},
		      &v, &e),
		  0);
	CHECK_INT(v.too_few, 1);
	CHECK_INT(v.verdict, 0);
	CHECK_NEAR(v.min_p, 0.1, 1e-12);
	/* One run: no test, but the change of the centres. */
	CHECK_INT(ty_verdict_compute(one, 1, b, 8,
				     &(struct ty_verdict_opts){TY_TEST_WELCH, 95, NULL, NULL}, &v,
				     &e),
		  0);
	CHECK_INT(v.too_few, 1);
	CHECK_INT(v.verdict, 0);
	CHECK_NEAR(v.c.rel, 100 * (12.4875 - 10) / 10, 1e-9);
	CHECK(isnan(v.c.p_value));
	CHECK_INT(ty_verdict_compute(a, 8, b, 8,
				     &(struct ty_verdict_opts){TY_TEST_WELCH, 100, NULL, NULL}, &v,
				     &e),
		  -EINVAL);
	CHECK_INT(ty_verdict_compute(
		      a, 0, b, 8, &(struct ty_verdict_opts){TY_TEST_WELCH, 95, NULL, NULL}, &v, &e),
		  -EINVAL);
	b[2] = NAN;
	CHECK_INT(ty_verdict_compute(
		      a, 8, b, 8, &(struct ty_verdict_opts){TY_TEST_WELCH, 95, NULL, NULL}, &v, &e),
		  -EINVAL);
}

/* Share of comparisons of two samples of N draws (the second scaled by
 * 1 + SHIFT) that give a verdict. */
static long
proven(struct sim_rng *rng, enum sim_shape shape, enum ty_test test, size_t n, double cv,
       double shift, long trials)
{
	double a[MAXN], b[MAXN];
	struct ty_verdict v;
	struct ty_error e = {0};
	long t, k = 0;
	size_t i;

	for (t = 0; t < trials; t++) {
		for (i = 0; i < n; i++) {
			a[i] = sim_draw(rng, shape, 1.0, cv);
			b[i] = sim_draw(rng, shape, 1.0 + shift, cv);
		}
		if (ty_verdict_compute(a, n, b, n, &(struct ty_verdict_opts){test, 95, NULL, NULL},
				       &v, &e) != 0) {
			printf("     compute failed: %s\n", e.msg);
			return -1;
		}
		k += v.verdict != 0;
	}
	return k;
}

static void
test_false_positives(void)
{
	static const enum ty_test tests[] = {TY_TEST_WELCH, TY_TEST_MANN_WHITNEY, TY_TEST_YUEN};
	static const size_t sizes[] = {5, 10, 30};
	/* With a true rate of 5%, more than LIMIT verdicts in 2,000 happen
	 * with probability below 0.1%: beyond that the rate is not 5%. */
	long limit = sim_binom_limit(TRIALS, 0.05, 0.001), k, total = 0, all = 0;
	struct sim_rng rng;
	size_t s, t, z;

	sim_seed(&rng, 20261129);
	for (s = 0; s < SIM_NSHAPES; s++)
		for (t = 0; t < 3; t++)
			for (z = 0; z < 3; z++) {
				k = proven(&rng, (enum sim_shape)s, tests[t], sizes[z], 0.02, 0,
					   TRIALS);
				printf("# no difference, %-13s %-12s n=%-2zu: %4ld of %d proven "
				       "(%.2f%%, limit %ld)\n",
				       sim_shape_names[s], ty_verdict_test_name(tests[t]), sizes[z],
				       k, TRIALS, 100.0 * k / TRIALS, limit);
				CHECK(k >= 0 && k <= limit);
				total += k;
				all += TRIALS;
			}
	/* Pooled over every case (72,000 comparisons): at most 5% too. */
	printf("# pooled: %ld of %ld (%.2f%%)\n", total, all, 100.0 * total / all);
	CHECK(total <= sim_binom_limit(all, 0.05, 0.001));
}

static void
test_power(void)
{
	struct sim_rng rng;
	long k;

	sim_seed(&rng, 3);
	/* A true 3% difference with 1% normal noise and 10 runs: found nearly
	 * always, and always in the right direction. */
	k = proven(&rng, SIM_NORMAL, TY_TEST_WELCH, 10, 0.01, 0.03, 500);
	CHECK(k >= 495);
	k = proven(&rng, SIM_LOGNORMAL, TY_TEST_MANN_WHITNEY, 10, 0.01, 0.03, 500);
	CHECK(k >= 490);
}

/* The new tests against values worked by hand. */
static void
test_exact_values(void)
{
	double a[10], b[10], d[] = {0.05, 0.01, 0.04, 0.02, 0.03};
	struct ty_compare r;
	int i;

	for (i = 0; i < 10; i++) {
		a[i] = i + 1;
		b[i] = i + 2;
	}
	/* Yuen: trimmed means 5.5 and 6.5 (g = 2), winsorized variance 42.5/9,
	 * d = 9 s_w^2 / (6 * 5) = 42.5/30 each side, df = 10 */
	CHECK_INT(ty_stats_yuen(a, 10, b, 10, 95, &r), 0);
	CHECK_NEAR(r.diff, 1, 1e-12);
	CHECK_NEAR(r.df, 10, 1e-9);
	CHECK_NEAR(r.p_value, 2 * ty_stats_t_cdf(-1 / sqrt(2 * 42.5 / 30), 10), 1e-12);
	CHECK(!r.significant);
	/* signed rank: all 5 positive, W+ = 15, exact p = 2/32; Hodges-Lehmann:
	 * the median of the 15 Walsh averages is 0.03 */
	CHECK_INT(ty_stats_signed_rank(d, 5, 95, &r), 0);
	CHECK_NEAR(r.u, 15, 0);
	CHECK_NEAR(r.p_value, 0.0625, 1e-12);
	CHECK_NEAR(r.diff, 0.03, 1e-12);
	CHECK(!r.significant);
	CHECK_INT(ty_stats_signed_rank(d, 5, 90, &r), 0);
	CHECK(r.significant && r.diff_lo > 0);
	/* one-sample t: mean 0.03, sd 0.0158 */
	CHECK_INT(ty_stats_one_sample_t(d, 5, 95, &r), 0);
	CHECK_NEAR(r.diff, 0.03, 1e-12);
	CHECK_NEAR(r.diff_hi - r.diff, ty_stats_t_quantile(0.975, 4) * sqrt(0.00025 / 5), 1e-12);
}

/* Paired rounds: drift that hits both commands of a round cancels. */
static void
test_paired(void)
{
	double a[20], b[20];
	uint32_t ra[20], rb[20];
	struct ty_verdict v;
	struct ty_error e = {0};
	struct sim_rng rng;
	long hit = 0, fp = 0, hitu = 0, t;
	int i, k;

	sim_seed(&rng, 16);
	for (t = 0; t < 400; t++)
		for (k = 0; k < 2; k++) {
			for (i = 0; i < 20; i++) {
				double level = 1 + 0.2 * i / 19.0; /* 20% drift over the rounds */
				a[i] = sim_draw(&rng, SIM_OUTLIERS, level, 0.01);
				b[i] = sim_draw(&rng, SIM_OUTLIERS, level * (k ? 1.03 : 1), 0.01);
				ra[i] = rb[19 - i] = (uint32_t)i;
			}
			/* B's values in another order: pairing goes by round, not index */
			for (i = 0; i < 10; i++) {
				double x = b[i];
				b[i] = b[19 - i];
				b[19 - i] = x;
			}
			ty_verdict_compute(
			    a, 20, b, 20,
			    &(struct ty_verdict_opts){TY_TEST_MANN_WHITNEY, 95, ra, rb}, &v, &e);
			CHECK_INT(v.pairs, 20);
			if (k)
				hit += v.verdict == 1;
			else
				fp += v.verdict != 0;
			if (k) {
				ty_verdict_compute(
				    a, 20, b, 20,
				    &(struct ty_verdict_opts){TY_TEST_MANN_WHITNEY, 95, NULL, NULL},
				    &v, &e);
				hitu += v.verdict == 1;
			}
		}
	printf("# paired, 20%% drift, 20 rounds: 3%% found %ld/400 (unpaired %ld), A/A %ld/400\n",
	       hit, hitu, fp);
	CHECK(hit >= 390);
	CHECK(fp <= sim_binom_limit(400, 0.05, 0.001));
	/* too few shared rounds: unpaired */
	for (i = 0; i < 20; i++)
		rb[i] = (uint32_t)(100 + i);
	ty_verdict_compute(a, 20, b, 20, &(struct ty_verdict_opts){TY_TEST_WELCH, 95, ra, rb}, &v,
			   &e);
	CHECK_INT(v.pairs, 0);
}

static void
test_series(void)
{
	double x[60];
	struct ty_verdict_series s;
	struct sim_rng rng;
	int i;

	sim_seed(&rng, 7);
	for (i = 0; i < 40; i++)
		x[i] = sim_draw(&rng, SIM_NORMAL, i < 3 ? 2.0 : 1.0, 0.01);
	CHECK_INT(ty_verdict_series(x, 40, &s), 0);
	CHECK_INT(s.warmup, 3);
	CHECK_NEAR(s.warmup_ratio, 2, 0.05);
	CHECK_INT(s.shift_at, 0);
	/* backwards: the first runs faster */
	for (i = 0; i < 4; i++)
		x[i] = 0.5;
	CHECK_INT(ty_verdict_series(x, 40, &s), 0);
	CHECK_INT(s.warmup, 4);
	CHECK(s.warmup_ratio < 0.6);
	/* a step in the middle: a level shift, no warm-up */
	for (i = 0; i < 60; i++)
		x[i] = sim_draw(&rng, SIM_NORMAL, i < 30 ? 1.0 : 1.2, 0.01);
	CHECK_INT(ty_verdict_series(x, 60, &s), 0);
	CHECK_INT(s.warmup, 0);
	CHECK_INT(s.shift_at, 30);
	CHECK_NEAR(s.after / s.before, 1.2, 0.02);
	/* a straight drift is not a shift */
	for (i = 0; i < 60; i++)
		x[i] = sim_draw(&rng, SIM_NORMAL, 1.0 + 0.2 * i / 59, 0.01);
	CHECK_INT(ty_verdict_series(x, 60, &s), 0);
	CHECK_INT(s.shift_at, 0);
	/* steady noise with outliers: neither, in 1000 series of 30 */
	{
		long warm = 0, shift = 0, t;
		for (t = 0; t < 1000; t++) {
			for (i = 0; i < 30; i++)
				x[i] = sim_draw(&rng, SIM_OUTLIERS, 1.0, 0.01);
			ty_verdict_series(x, 30, &s);
			warm += s.warmup > 0;
			shift += s.shift_at > 0;
		}
		printf("# steady series with outliers: warm-up found in %ld/1000, shift in %ld\n",
		       warm, shift);
		CHECK(warm <= 20);
		CHECK(shift <= 5);
	}
}

/* Ties: a count that takes two values (context switches) gives a
 * Mann-Whitney p below 0.05 while the shift's interval stops on 0; the
 * verdict follows the test and the interval is said to be unavailable, never
 * shown contradicting it. A reference of zeros has no relative change. */
static void
test_ties_and_zeros(void)
{
	double a[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2};
	double b[12] = {1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2};
	double z[10] = {0}, d[10] = {5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
	struct ty_verdict_opts o = {TY_TEST_MANN_WHITNEY, 95, NULL, NULL};
	struct ty_verdict v;
	struct ty_error e = {0};

	CHECK_INT(ty_verdict_compute(a, 12, b, 12, &o, &v, &e), 0);
	CHECK(v.c.p_value < 0.05 && v.c.diff_lo == 0);
	CHECK_INT(v.verdict, TY_VERDICT_SLOWER);
	CHECK_INT(v.interval, TY_INTERVAL_FEW_DISTINCT);
	CHECK_STR(ty_verdict_interval_why(v.interval), "too few distinct values");
	CHECK_INT(ty_verdict_compute(b, 12, a, 12, &o, &v, &e), 0);
	CHECK_INT(v.verdict, TY_VERDICT_FASTER);
	CHECK_INT(ty_verdict_compute(a, 12, a, 12, &o, &v, &e), 0);
	CHECK_INT(v.verdict, TY_VERDICT_SAME);
	CHECK_INT(v.interval, TY_INTERVAL_OK);
	CHECK_INT(ty_verdict_compute(z, 10, d, 10, &o, &v, &e), 0);
	CHECK_INT(v.verdict, TY_VERDICT_SLOWER);
	CHECK_INT(v.interval, TY_INTERVAL_ZERO_REF);
	CHECK_STR(ty_verdict_word_name(TY_VERDICT_SAME), "~");
	CHECK_STR(ty_verdict_word_name(TY_VERDICT_FASTER), "faster");
}

/* The gate: slower by more than LIMIT only when the interval's low bound
 * is beyond it. */
static void
test_gate(void)
{
	enum ty_verdict_word S = TY_VERDICT_SLOWER, N = TY_VERDICT_SAME;
	enum ty_interval OK = TY_INTERVAL_OK, FEW = TY_INTERVAL_FEW_DISTINCT;

	/* the case: +10.4% [+1.6%, +19.5%] at P=10 is not proven */
	CHECK_INT(ty_verdict_gate(S, OK, 0, 10.4, 1.6, 10), TY_GATE_UNPROVEN);
	CHECK_INT(ty_verdict_gate(S, OK, 0, 10.4, 1.6, 1), TY_GATE_TRIP);
	CHECK_INT(ty_verdict_gate(S, OK, 0, 12.3, 7.1, 5), TY_GATE_TRIP);
	CHECK_INT(ty_verdict_gate(S, OK, 0, 12.3, 5, 5), TY_GATE_UNPROVEN); /* not beyond */
	CHECK_INT(ty_verdict_gate(N, OK, 0, 3, -1, 5), TY_GATE_PASS);
	CHECK_INT(ty_verdict_gate(N, OK, 0, 3, -1, 0), TY_GATE_PASS);
	CHECK_INT(ty_verdict_gate(N, OK, 0, 8, -1, 5), TY_GATE_UNPROVEN);
	CHECK_INT(ty_verdict_gate(N, OK, 1, 80, NAN, 5), TY_GATE_TOO_FEW);
	CHECK_INT(ty_verdict_gate(TY_VERDICT_FASTER, OK, 0, -20, -25, 0), TY_GATE_PASS);
	/* no interval: proven slower, by how much unknown */
	CHECK_INT(ty_verdict_gate(S, FEW, 0, 50, 0, 0), TY_GATE_TRIP);
	CHECK_INT(ty_verdict_gate(S, FEW, 0, 50, 0, 5), TY_GATE_UNPROVEN);
}

int
main(void)
{
	test_ties_and_zeros();
	test_gate();
	test_exact_values();
	test_paired();
	test_series();
	test_median_ci();
	test_median_ci_linear();
	test_basics();
	test_false_positives();
	test_power();
	return check_done();
}
