/* t-stats.c - the statistics core against SciPy's reference values
 * (tests/unit/data/stats-ref.txt, made by gen-stats-ref.py) and against
 * ministat's printed figures. */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "simdist.h"
#include "tachy/stats.h"

#define MAXN 2048

static double sample[MAXN], xa[MAXN], xb[MAXN];
static size_t nsample, na, nb;

static FILE *
open_ref(void)
{
	char path[4096];
	const char *top = getenv("TOP");
	FILE *fp;

	snprintf(path, sizeof(path), "%s/tests/unit/data/stats-ref.txt", top ? top : ".");
	fp = fopen(path, "r");
	if (!fp)
		printf("cannot open %s\n", path);
	return fp;
}

/* Read up to MAX numbers from the rest of the line after the count. */
static size_t
read_values(char *rest, double *v, size_t max)
{
	char *end;
	size_t n = strtoul(rest, &end, 10), i;

	for (i = 0; i < n && i < max; i++)
		v[i] = strtod(end, &end);
	return n < max ? n : max;
}

static void
check_two_sample(const char *kind, char *rest)
{
	struct ty_summary a, b;
	struct ty_compare r;
	double conf, v[5];
	int i;

	conf = strtod(rest, &rest);
	for (i = 0; i < 5; i++)
		v[i] = strtod(rest, &rest);
	CHECK_INT(ty_stats_summarize(xa, na, &a), 0);
	CHECK_INT(ty_stats_summarize(xb, nb, &b), 0);
	if (!strcmp(kind, "student")) {
		CHECK_INT(ty_stats_student(&a, &b, conf, &r), 0);
		CHECK_REL(r.diff, v[0], 1e-9);
		CHECK_REL(r.diff_hi - r.diff, v[1], 1e-9);
		CHECK_REL(r.diff - r.diff_lo, v[1], 1e-9);
		CHECK_REL(r.p_value, v[2], 1e-9);
		CHECK_REL(r.pooled_s, v[3], 1e-12);
		CHECK_INT(r.significant, fabs(v[0]) > v[1]);
		CHECK(r.test == TY_TEST_STUDENT);
	} else if (!strcmp(kind, "welch")) {
		CHECK_INT(ty_stats_welch(&a, &b, conf, &r), 0);
		CHECK_REL(r.diff, v[0], 1e-9);
		CHECK_REL(r.diff_hi - r.diff, v[1], 1e-9);
		CHECK_REL(r.p_value, v[2], 1e-9);
		CHECK_REL(r.df, v[3], 1e-12);
		CHECK(r.test == TY_TEST_WELCH);
	} else {
		CHECK_INT(ty_stats_mann_whitney(xa, na, xb, nb, conf, &r), 0);
		CHECK_REL(r.u, v[0], 0);
		CHECK_REL(r.p_value, v[1], 1e-9);
		CHECK_REL(r.diff, v[2], 1e-12);
		/* -inf, inf: sizes that can prove nothing have no bound */
		if (isinf(v[3]))
			CHECK(r.diff_lo == v[3] && r.diff_hi == v[4]);
		else {
			CHECK_REL(r.diff_lo, v[3], 1e-12);
			CHECK_REL(r.diff_hi, v[4], 1e-12);
		}
		CHECK(r.test == TY_TEST_MANN_WHITNEY);
	}
}

static void
check_line(char *line)
{
	char kind[32], *rest;
	double x, y, want;
	int off;

	if (line[0] == '#' || sscanf(line, "%31s%n", kind, &off) != 1)
		return;
	rest = line + off;
	if (!strcmp(kind, "tcdf")) {
		x = strtod(rest, &rest), y = strtod(rest, &rest), want = strtod(rest, &rest);
		CHECK_REL(ty_stats_t_cdf(x, y), want, 1e-9);
	} else if (!strcmp(kind, "tq")) {
		x = strtod(rest, &rest), y = strtod(rest, &rest), want = strtod(rest, &rest);
		CHECK_REL(ty_stats_t_quantile(x, y), want, 1e-9);
	} else if (!strcmp(kind, "ncdf")) {
		x = strtod(rest, &rest), want = strtod(rest, &rest);
		CHECK_REL(ty_stats_normal_cdf(x), want, 1e-9);
	} else if (!strcmp(kind, "nq")) {
		x = strtod(rest, &rest), want = strtod(rest, &rest);
		CHECK_REL(ty_stats_normal_quantile(x), want, 1e-9);
	} else if (!strcmp(kind, "sample")) {
		nsample = read_values(rest, sample, MAXN);
	} else if (!strcmp(kind, "quantile")) {
		double tmp[MAXN];
		x = strtod(rest, &rest), want = strtod(rest, &rest);
		memcpy(tmp, sample, nsample * sizeof(double));
		CHECK_REL(ty_stats_quantile(tmp, nsample, x), want, 1e-12);
	} else if (!strcmp(kind, "mad")) {
		x = strtod(rest, &rest), want = strtod(rest, &rest);
		CHECK_REL(ty_stats_mad(sample, nsample, x), want, 1e-12);
	} else if (!strcmp(kind, "summary")) {
		struct ty_summary s, s2;
		double tmp[MAXN], v[5];
		int i;
		for (i = 0; i < 5; i++)
			v[i] = strtod(rest, &rest);
		CHECK_INT(ty_stats_summarize(sample, nsample, &s), 0);
		memcpy(tmp, sample, nsample * sizeof(double));
		CHECK_INT(ty_stats_summarize_inplace(tmp, nsample, &s2), 0);
		CHECK_REL(s.mean, v[0], 1e-13);
		CHECK_REL(s2.mean, v[0], 1e-13);
		CHECK_REL(s.var, v[1], 1e-11);
		CHECK_REL(s2.var, v[1], 1e-11);
		CHECK_REL(s.stddev, sqrt(v[1]), 1e-11);
		CHECK(s.min == v[2] && s2.min == v[2]);
		CHECK(s.max == v[3] && s2.max == v[3]);
		CHECK(s.median == v[4] && s2.median == v[4]);
		CHECK_INT(s.n, nsample);
	} else if (!strcmp(kind, "a")) {
		na = read_values(rest, xa, MAXN);
	} else if (!strcmp(kind, "b")) {
		nb = read_values(rest, xb, MAXN);
	} else if (!strcmp(kind, "student") || !strcmp(kind, "welch") || !strcmp(kind, "mw")) {
		check_two_sample(kind, rest);
	} else {
		printf("unknown reference line: %s", line);
		CHECK(0);
	}
}

static void
test_reference(void)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *fp = open_ref();
	int lines = 0;

	CHECK(fp != NULL);
	if (!fp)
		return;
	while (getline(&line, &cap, fp) > 0) {
		check_line(line);
		lines++;
	}
	CHECK(lines > 800);
	free(line);
	fclose(fp);
}

static struct ty_summary
make_summary(size_t n, double mean, double sd)
{
	struct ty_summary s = {0};

	s.n = n;
	s.mean = mean;
	s.var = sd * sd;
	s.stddev = sd;
	return s;
}

static void
check_g(double v, const char *want)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%g", v);
	CHECK_STR(buf, want);
}

/* Seed 000's first comparison, from the printed N, means and deviations:
 * FreeBSD ministat says -28.398 +/- 10.0344, -32.0602% +/- 7.69825%,
 * pooled s = 10.6794 (t = 2.101 from its table, 18 df). */
static void
test_ministat_relative(void)
{
	struct ty_summary a = make_summary(10, 88.577, 15.100031);
	struct ty_summary b = make_summary(10, 60.179, 0.29957192);
	struct ty_compare r;

	CHECK_INT(ty_stats_student_t(&a, &b, 2.101, &r), 0);
	check_g(r.diff, "-28.398");
	check_g(ty_stats_pooled_halfwidth(&a, &b, 2.101), "10.0344");
	check_g(r.rel, "-32.0602");
	check_g(ty_stats_relative_halfwidth(&a, &b, 2.101), "7.69825");
	check_g(r.pooled_s, "10.6794");
	/* the relative interval is the difference's over a's mean (10.0344 / 88.577),
	 * not ministat's, so that it agrees with the test */
	check_g(r.rel_hi - r.rel, "11.3284");
	CHECK(r.significant);
	CHECK_REL(r.df, 18, 0);
	CHECK(r.p_value > 0 && r.p_value < 0.001);
	CHECK_REL(r.ratio, 60.179 / 88.577, 1e-12);
}

static void
test_errors(void)
{
	double x[3] = {1, 2, 3};
	struct ty_summary one = make_summary(1, 1, 0), s = make_summary(3, 2, 1);
	struct ty_compare r;

	CHECK_INT(ty_stats_student(&one, &s, 95, &r), -EINVAL);
	CHECK_INT(ty_stats_welch(&s, &one, 95, &r), -EINVAL);
	CHECK_INT(ty_stats_student(&s, &s, 100, &r), -EINVAL);
	CHECK_INT(ty_stats_student(&s, &s, 0, &r), -EINVAL);
	CHECK_INT(ty_stats_welch(&s, &s, NAN, &r), -EINVAL);
	CHECK_INT(ty_stats_student_t(&s, &s, -1, &r), -EINVAL);
	CHECK_INT(ty_stats_mann_whitney(x, 0, x, 3, 95, &r), -EINVAL);
	CHECK_INT(ty_stats_mann_whitney(x, 3, x, 3, 101, &r), -EINVAL);
	CHECK(isnan(ty_stats_t_quantile(0, 3)));
	CHECK(isnan(ty_stats_t_quantile(1, 3)));
	CHECK(isnan(ty_stats_t_quantile(0.5, 0)));
	CHECK(isnan(ty_stats_t_cdf(1, -1)));
	CHECK(ty_stats_t_quantile(0.5, 3) == 0);
	/* quantiles beyond the largest double are infinite, not wrong */
	CHECK(ty_stats_t_quantile(1e-100, 0.01) == -INFINITY);
	CHECK(ty_stats_t_quantile(1 - 1e-16, 0.01) == INFINITY);
	CHECK(isfinite(ty_stats_t_quantile(1e-20, 0.1)));
	CHECK(isnan(ty_stats_quantile(x, 3, 1.5)));
	CHECK(isnan(ty_stats_mean_ci_halfwidth(&one, 95)));
	/* identical samples: no difference, p = 1 */
	CHECK_INT(ty_stats_student(&s, &s, 95, &r), 0);
	CHECK(!r.significant && r.p_value == 1);
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
test_quantile_big(void)
{
	enum { N = 100001 };
	double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
	struct ty_summary s;
	size_t i;
	unsigned seed = 7;

	/* many duplicates, then sorted and reversed inputs */
	for (i = 0; i < N; i++)
		x[i] = (double)(rand_r(&seed) % 100);
	memcpy(y, x, N * sizeof(double));
	CHECK_INT(ty_stats_summarize(x, N, &s), 0);
	qsort(y, N, sizeof(double), cmp);
	CHECK(s.median == y[N / 2]);
	CHECK(s.min == y[0] && s.max == y[N - 1]);
	for (i = 0; i < N; i++)
		x[i] = (double)i;
	CHECK_REL(ty_stats_quantile(x, N, 0.5), 50000, 0);
	for (i = 0; i < N; i++)
		x[i] = (double)(N - i);
	CHECK_REL(ty_stats_quantile(x, N, 0.25), 25001, 0);
	for (i = 0; i < N; i++)
		x[i] = (double)(N - i);
	CHECK_REL(ty_stats_quantile(x, N - 1, 0.5), 50001.5, 0);
	for (i = 0; i < N; i++)
		x[i] = 3;
	CHECK_REL(ty_stats_quantile(x, N, 0.7), 3, 0);
	free(x);
	free(y);
}

/* Selection against sorting, on sizes that take the sampled bracket. */
static void
test_selection_random(void)
{
	static const double qs[] = {0, 0.0001, 0.25, 0.5, 0.75, 0.9999, 1, 1.0 / 3};
	size_t sizes[] = {65536, 200000, 200001, 70000};
	unsigned seed = 11;
	size_t t, i, q, n;

	for (t = 0; t < 8; t++) {
		n = sizes[t % 4];
		double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
		double *z = malloc(n * sizeof(double));
		struct ty_summary s;
		for (i = 0; i < n; i++)
			x[i] = t < 4 ? (double)rand_r(&seed) : (double)(rand_r(&seed) % 50);
		memcpy(y, x, n * sizeof(double));
		qsort(y, n, sizeof(double), cmp);
		for (q = 0; q < sizeof(qs) / sizeof(qs[0]); q++) {
			double h = (n - 1) * qs[q], want;
			size_t lo = (size_t)floor(h);
			want = lo + 1 < n ? y[lo] + (h - lo) * (y[lo + 1] - y[lo]) : y[lo];
			memcpy(z, x, n * sizeof(double));
			CHECK_REL(ty_stats_quantile(z, n, qs[q]), want, 1e-15);
		}
		memcpy(z, x, n * sizeof(double));
		CHECK_INT(ty_stats_summarize_inplace(z, n, &s), 0);
		CHECK(s.median == (n % 2 ? y[n / 2] : (y[n / 2] + y[n / 2 - 1]) / 2));
		free(x);
		free(y);
		free(z);
	}
}

/* Signed zeros land where a stable sort (ministat's glibc qsort) puts them. */
static void
test_signed_zeros(void)
{
	double a[] = {-0.0, 0.0, 1, -1, 0.0}, b[] = {0.0, -0.0, 5, -5, -0.0};
	double c[] = {0.0, -0.0, 1, -1}, d[] = {-0.0, -0.0, 3, -3}, e[] = {-1, 0.0, -0.0};
	struct ty_summary s;

	ty_stats_summarize_inplace(a, 5, &s);
	CHECK(s.median == 0 && !signbit(s.median));
	ty_stats_summarize_inplace(b, 5, &s);
	CHECK(s.median == 0 && signbit(s.median));
	ty_stats_summarize_inplace(c, 4, &s);
	CHECK(s.median == 0 && !signbit(s.median));
	ty_stats_summarize_inplace(d, 4, &s);
	CHECK(s.median == 0 && signbit(s.median));
	ty_stats_summarize_inplace(e, 3, &s);
	CHECK(s.max == 0 && signbit(s.max));
	CHECK(s.median == 0 && !signbit(s.median));
}

static void
test_welford(void)
{
	struct ty_welford w;
	int i;

	ty_stats_welford_init(&w);
	CHECK(ty_stats_welford_var(&w) == 0);
	/* a large offset: the naive sum of squares would lose everything */
	for (i = 0; i < 1000; i++)
		ty_stats_welford_add(&w, 1e9 + (i % 2));
	CHECK_REL(w.mean, 1e9 + 0.5, 1e-15);
	CHECK_REL(ty_stats_welford_var(&w), 0.25 * 1000 / 999, 1e-9);
}

static void
test_mean_ci(void)
{
	struct ty_summary s = make_summary(10, 5, 2);

	/* t(0.975, 9) = 2.2621571627409915 */
	CHECK_REL(ty_stats_mean_ci_halfwidth(&s, 95), 2.2621571627409915 * 2 / sqrt(10), 1e-9);
}

/* QA's data (finding 2): a spread around 10, b tight around 15. The
 * relative and ratio intervals used to be ministat's, +50% [-16.7%,
 * +116.7%] next to p = 0.032 "slower"; they are now the difference's
 * interval over a's centre and agree with the verdict. */
static const double qa_a[] = {2, 3, 4, 5, 10, 10, 15, 16, 17, 18};
static const double qa_b[] = {14.9, 15, 15.1, 14.9, 15, 15.1, 15, 15, 14.95, 15.05};

static void
test_qa_intervals(void)
{
	struct ty_summary a, b;
	struct ty_compare r;

	CHECK_INT(ty_stats_summarize(qa_a, 10, &a), 0);
	CHECK_INT(ty_stats_summarize(qa_b, 10, &b), 0);
	CHECK_INT(ty_stats_welch(&a, &b, 95, &r), 0);
	CHECK(r.significant && r.p_value < 0.05);
	check_g(r.diff_hi - r.diff, "4.44838"); /* as ministat-style stat -A prints */
	CHECK_REL(r.rel, 50, 1e-12);
	CHECK_REL(r.rel_lo, (r.diff_lo) * 10, 1e-12);
	CHECK_REL(r.rel_hi, (r.diff_hi) * 10, 1e-12);
	CHECK(r.rel_lo > 0 && r.rel_hi > r.rel);
	CHECK(r.ratio_lo > 1 && r.ratio_lo < r.ratio && r.ratio < r.ratio_hi);
	CHECK_REL(r.ratio_lo, 1 + r.diff_lo / 10, 1e-12);

	CHECK_INT(ty_stats_student(&a, &b, 95, &r), 0);
	CHECK_INT(r.significant, r.rel_lo > 0 || r.rel_hi < 0);
	CHECK_INT(r.significant, r.p_value < 0.05);
	CHECK(r.ratio_lo >= 0 && r.ratio_lo <= r.ratio_hi);

	CHECK_INT(ty_stats_mann_whitney(qa_a, 10, qa_b, 10, 95, &r), 0);
	CHECK_INT(r.significant, r.p_value < 0.05);
	CHECK_INT(r.significant, r.rel_lo > 0 || r.rel_hi < 0);
	CHECK(r.rel_lo <= r.rel && r.rel <= r.rel_hi);
	CHECK(r.ratio_lo >= 0 && r.ratio_lo <= r.ratio && r.ratio <= r.ratio_hi);
	/* 1.235x faster [0.405, -1.177]: a ratio bound never goes below 0 */
	CHECK_INT(ty_stats_summarize(qa_b, 2, &a), 0);
	CHECK_INT(ty_stats_summarize((const double[]){2, 18}, 2, &b), 0);
	CHECK_INT(ty_stats_welch(&a, &b, 95, &r), 0);
	CHECK(r.ratio_lo == 0 && r.ratio_hi > 1 && !r.significant);
}

/* Whether one random comparison's intervals agree with its test. STRICT:
 * no ties at 0, so a significant interval excludes 0 strictly. */
static int
agrees(const struct ty_compare *r, double alpha, int strict)
{
	int excl =
	    strict ? (r->diff_lo > 0 || r->diff_hi < 0) : (r->diff_lo >= 0 || r->diff_hi <= 0);
	int rexcl = strict ? (r->rel_lo > 0 || r->rel_hi < 0) : (r->rel_lo >= 0 || r->rel_hi <= 0);
	int incl = r->diff_lo <= 0 && r->diff_hi >= 0 && r->rel_lo <= 0 && r->rel_hi >= 0;

	if (!(r->rel_lo <= r->rel_hi && r->ratio_lo >= 0 && r->ratio_lo <= r->ratio_hi &&
	      (r->significant ? (r->ratio_lo >= 1 || r->ratio_hi <= 1)
			      : (r->ratio_lo <= 1 && r->ratio_hi >= 1))))
		return 0;
	/* the p-value says the same, but at its own rounding */
	if (fabs(r->p_value - alpha) > 1e-9 && r->significant != (r->p_value < alpha))
		return 0;
	return r->significant ? excl && rexcl : incl;
}

/* Property: over thousands of random samples (sizes, shapes, shifts,
 * levels), each test's interval excludes 0 exactly when it is significant. */
static void
test_interval_agrees(void)
{
	static const double levels[] = {80, 90, 95, 99};
	struct sim_rng g;
	double x[140], *y = x + 70, conf, shift;
	size_t ma, mb, i;
	int k, bad[4] = {0}, sig[4] = {0}, rounds = 4000;

	sim_seed(&g, 20261129);
	for (k = 0; k < rounds; k++) {
		struct ty_summary a, b;
		struct ty_compare r;
		enum sim_shape sh = (enum sim_shape)(sim_next(&g) % SIM_NSHAPES);
		int ints = k % 4 == 3; /* a quarter with ties: integer counts */

		ma = 2 + sim_next(&g) % (k % 2 ? 12 : 68);
		mb = 2 + sim_next(&g) % (k % 3 ? 12 : 68);
		conf = levels[sim_next(&g) % 4];
		shift = 0.1 * sim_uniform(&g) * (sim_next(&g) % 2 ? 1 : -1);
		for (i = 0; i < ma; i++)
			x[i] = sim_draw(&g, sh, 100, 0.05);
		for (i = 0; i < mb; i++)
			y[i] = sim_draw(&g, sh, 100 * (1 + shift), 0.05);
		if (ints)
			for (i = 0; i < 140; i++)
				x[i] = round(x[i] / 4);
		CHECK_INT(ty_stats_summarize(x, ma, &a), 0);
		CHECK_INT(ty_stats_summarize(y, mb, &b), 0);
		CHECK_INT(ty_stats_welch(&a, &b, conf, &r), 0);
		bad[0] += !agrees(&r, 1 - conf / 100, 1);
		sig[0] += r.significant;
		CHECK_INT(ty_stats_student(&a, &b, conf, &r), 0);
		bad[1] += !agrees(&r, 1 - conf / 100, 1);
		sig[1] += r.significant;
		CHECK_INT(ty_stats_mann_whitney(x, ma, y, mb, conf, &r), 0);
		bad[ints ? 3 : 2] += !agrees(&r, 1 - conf / 100, !ints);
		sig[ints ? 3 : 2] += r.significant;
	}
	CHECK_INT(bad[0], 0); /* Welch */
	CHECK_INT(bad[1], 0); /* Student */
	CHECK_INT(bad[2], 0); /* Mann-Whitney, no ties */
	CHECK_INT(bad[3], 0); /* Mann-Whitney with ties */
	/* both outcomes were exercised */
	for (k = 0; k < 4; k++)
		CHECK(sig[k] > rounds / 40 && sig[k] < rounds - rounds / 40);
}

int
main(void)
{
	test_reference();
	test_ministat_relative();
	test_errors();
	test_quantile_big();
	test_selection_random();
	test_signed_zeros();
	test_welford();
	test_mean_ci();
	test_qa_intervals();
	test_interval_agrees();
	return check_done();
}
