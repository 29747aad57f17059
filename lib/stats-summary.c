/* stats-summary.c - descriptive statistics of one sample: the summary
 * (Welford, or ministat's way), quantiles by selection, the median absolute
 * deviation, the running mean and variance (stats-summary.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/stats-dist.h"
#include "tachy/stats-summary.h"

void
ty_stats_welford_init(struct ty_welford *w)
{
	w->n = 0;
	w->mean = 0;
	w->m2 = 0;
}

void
ty_stats_welford_add(struct ty_welford *w, double x)
{
	double d = x - w->mean;

	w->n++;
	w->mean += d / (double)w->n;
	w->m2 += d * (x - w->mean);
}

double
ty_stats_welford_var(const struct ty_welford *w)
{
	if (w->n < 2)
		return 0;
	return w->m2 / (w->n - 1.0);
}

static void
swap(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

int
ty_stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Put the K-th smallest of X[0..N) at X[K], smaller-or-equal values before
 * it and greater-or-equal after (Hoare partitions around a median of three).
 * Falls back to sorting the remaining range if partitions keep going badly,
 * so the worst case is O(n log n) and the expected case linear. */
static void
select_kth(double *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1, budget = 64;

	while (hi > lo) {
		if (hi - lo < 16 || budget-- == 0) {
			qsort(x + lo, hi - lo + 1, sizeof(*x), ty_stats_cmp_double);
			return;
		}
		size_t mid = lo + (hi - lo) / 2;
		if (x[mid] < x[lo])
			swap(&x[mid], &x[lo]);
		if (x[hi] < x[lo])
			swap(&x[hi], &x[lo]);
		if (x[hi] < x[mid])
			swap(&x[hi], &x[mid]);
		double pivot = x[mid];
		size_t i = lo, j = hi;
		for (;;) {
			while (x[i] < pivot)
				i++;
			while (pivot < x[j])
				j--;
			if (i >= j)
				break;
			swap(&x[i], &x[j]);
			i++;
			j--;
		}
		/* x[lo..j] <= pivot <= x[j+1..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
}

static double
min_of(const double *x, size_t n)
{
	double m = x[0];
	size_t i;

	for (i = 1; i < n; i++)
		if (x[i] < m)
			m = x[i];
	return m;
}

/* Floyd and Rivest's idea: order statistics of a random sample give two
 * values LO <= HI that bracket the K-th smallest with high probability;
 * one branch-free pass moves the values in [LO, HI] to the front and counts
 * those below LO. Returns the offset to subtract from K, with *M values in
 * the front part, or (size_t)-1 when the bracket missed (or is not worth it). */
static size_t
bracket(double *x, size_t n, size_t k, size_t want_after, size_t *m_out)
{
	size_t s, i, j, lo_i, hi_i, gap, below = 0, m = 0;
	uint64_t r = 0x9e3779b97f4a7c15u;
	double lo, hi;

	if (n < 65536)
		return (size_t)-1;
	s = (size_t)pow((double)n, 2.0 / 3);
	for (i = 0; i < s; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		j = i + (size_t)(r % (n - i));
		swap(&x[i], &x[j]);
	}
	gap = (size_t)(2 * sqrt((double)s)) + 1;
	i = (size_t)((double)k * s / n);
	lo_i = i > gap ? i - gap : 0;
	hi_i = i + gap < s ? i + gap : s - 1;
	select_kth(x, s, lo_i);
	lo = x[lo_i];
	select_kth(x + lo_i, s - lo_i, hi_i - lo_i);
	hi = x[hi_i];
	for (i = 0; i < n; i++) {
		double v = x[i];
		below += v < lo;
		x[i] = x[m];
		x[m] = v;
		m += (v >= lo) & (v <= hi);
	}
	if (k < below || k + want_after >= below + m)
		return (size_t)-1;
	*m_out = m;
	return below;
}

/* The K-th smallest of X[0..N) in *A and, when PAIR, the next one in *B.
 * Reorders X. Expected linear time. */
static void
select_two(double *x, size_t n, size_t k, int pair, double *a, double *b)
{
	size_t m = n, off = bracket(x, n, k, pair ? 1 : 0, &m);

	if (off == (size_t)-1) {
		/* the bracket pass left X a permutation: select in all of it */
		off = 0;
		m = n;
	}
	k -= off;
	select_kth(x, m, k);
	*a = x[k];
	if (pair)
		*b = min_of(x + k + 1, m - k - 1);
}

double
ty_stats_quantile(double *x, size_t n, double q)
{
	double h, lo_v, hi_v;
	size_t lo;

	if (n == 0 || !(q >= 0 && q <= 1))
		return NAN;
	h = (n - 1) * q;
	lo = (size_t)floor(h);
	if (lo >= n - 1)
		lo = n - 1;
	if (lo == n - 1 || h == (double)lo) {
		select_two(x, n, lo, 0, &lo_v, &hi_v);
		return lo_v;
	}
	select_two(x, n, lo, 1, &lo_v, &hi_v);
	return lo_v + (h - lo) * (hi_v - lo_v);
}

/* The median of X[0..N), reordering X. */
static double
median_inplace(double *x, size_t n)
{
	double a, b;

	if (n % 2) {
		select_two(x, n, n / 2, 0, &a, &b);
		return a;
	}
	select_two(x, n, n / 2 - 1, 1, &a, &b);
	return (b + a) / 2;
}

int
ty_stats_summarize(const double *x, size_t n, struct ty_summary *s)
{
	struct ty_welford w;
	double small[64], *tmp = small;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n == 0) {
		s->mean = s->median = s->min = s->max = NAN;
		return 0;
	}
	ty_stats_welford_init(&w);
	s->min = s->max = x[0];
	for (i = 0; i < n; i++) {
		ty_stats_welford_add(&w, x[i]);
		if (x[i] < s->min)
			s->min = x[i];
		if (x[i] > s->max)
			s->max = x[i];
	}
	s->mean = w.mean;
	s->var = ty_stats_welford_var(&w);
	s->stddev = sqrt(s->var);
	if (n > sizeof(small) / sizeof(small[0])) {
		tmp = malloc(n * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
	}
	memcpy(tmp, x, n * sizeof(*tmp));
	s->median = median_inplace(tmp, n);
	if (tmp != small)
		free(tmp);
	return 0;
}

/* Signed zeros: ministat sorts with a stable qsort (glibc's), so among
 * equal values the input order stays, and a zero order statistic has the
 * sign of the zero that lands there. NEG values are below zero; ZEROS
 * holds whether each zero, in input order, is -0. Returns the zero that a
 * stable sort puts at rank R, or NAN when R is not in the zero run. */
static double
zero_at_rank(const double *x, size_t n, size_t neg, size_t nzero, size_t r)
{
	size_t i, seen = 0;

	if (r < neg || r >= neg + nzero)
		return NAN;
	for (i = 0; i < n; i++)
		if (x[i] == 0 && seen++ == r - neg)
			return x[i];
	return NAN;
}

/* The mean (when the plain sum overflows) and the standard deviation of
 * X[0..N) computed on X scaled by a power of two that brings its largest
 * magnitude MAXABS near 1: exact, so nothing is lost to the scaling, and
 * the squares neither overflow nor vanish. The variance is the square of
 * the result, infinite or zero when that is beyond a double: the
 * comparisons below then work from the standard deviation. */
static void
summarize_scaled(const double *x, size_t n, double maxabs, struct ty_summary *s)
{
	int e = ilogb(maxabs);
	double sum = 0, ss = 0, m;
	size_t i;

	for (i = 0; i < n; i++)
		sum += ldexp(x[i], -e);
	m = sum / n;
	if (!isfinite(s->mean))
		s->mean = ldexp(m, e);
	else
		m = ldexp(s->mean, -e);
	for (i = 0; i < n; i++)
		ss += (ldexp(x[i], -e) - m) * (ldexp(x[i], -e) - m);
	s->stddev = ldexp(sqrt(ss / (n - 1.0)), e);
	s->var = s->stddev * s->stddev;
}

int
ty_stats_summarize_inplace(double *x, size_t n, struct ty_summary *s)
{
	double sum = 0, ss = 0, mn, mx, a, b, za = NAN, zb = NAN;
	size_t i, neg = 0, negz = 0, posz = 0, k = n / 2;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n == 0) {
		s->mean = s->median = s->min = s->max = NAN;
		return 0;
	}
	mn = mx = x[0];
	for (i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < mn)
			mn = x[i];
		if (x[i] >= mx) /* the last of equals, as sorted output has it */
			mx = x[i];
		neg += x[i] < 0;
		if (x[i] == 0)
			*(signbit(x[i]) ? &negz : &posz) += 1;
	}
	s->mean = sum / n;
	for (i = 0; i < n; i++)
		ss += (x[i] - s->mean) * (x[i] - s->mean);
	s->var = n < 2 ? 0 : ss / (n - 1.0);
	s->stddev = sqrt(s->var);
	if (n >= 2 && (!isfinite(s->var) || (s->var < 0x1p-1000 && mn != mx)))
		summarize_scaled(x, n, fmax(fabs(mn), fabs(mx)), s);
	s->min = mn;
	s->max = mx;
	if (negz && posz) {
		zb = zero_at_rank(x, n, neg, negz + posz, k);
		if (n % 2 == 0)
			za = zero_at_rank(x, n, neg, negz + posz, k - 1);
	}
	if (n % 2) {
		select_two(x, n, k, 0, &b, &a);
		s->median = isnan(zb) ? b : zb;
		return 0;
	}
	select_two(x, n, k - 1, 1, &a, &b);
	if (!isnan(za))
		a = za;
	if (!isnan(zb))
		b = zb;
	s->median = (b + a) / 2;
	return 0;
}

double
ty_stats_mad(const double *x, size_t n, double median)
{
	double *tmp, r;
	size_t i;

	if (n == 0)
		return NAN;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return NAN;
	for (i = 0; i < n; i++)
		tmp[i] = fabs(x[i] - median);
	r = median_inplace(tmp, n);
	free(tmp);
	return r;
}

double
ty_stats_mean_ci_halfwidth(const struct ty_summary *s, double confidence)
{
	if (s->n < 2 || !(confidence > 0 && confidence < 100))
		return NAN;
	return ty_stats_t_quantile(0.5 + confidence / 200, s->n - 1.0) * s->stddev /
	       sqrt((double)s->n);
}
