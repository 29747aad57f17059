/* stats.c - tests and intervals comparing two samples, and the one-sample
 * tests of paired rounds (the summaries are in stats-summary.c, the
 * distributions in stats-dist.c). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/stats.h"

/* ---- comparisons ---- */

double
ty_stats_pooled_s(const struct ty_summary *a, const struct ty_summary *b)
{
	double sp;

	/* ministat's order of operations, so its output is matched bit for bit */
	sp = (b->n - 1) * b->var + (a->n - 1) * a->var;
	sp /= b->n + a->n - 2;
	if (isfinite(sp) && (sp >= 0x1p-1000 || (a->stddev == 0 && b->stddev == 0)))
		return sqrt(sp);
	/* beyond a double's squares (see summarize_scaled): from the standard
	 * deviations, which hypot adds without squaring them */
	return hypot(sqrt(b->n - 1.0) * b->stddev, sqrt(a->n - 1.0) * a->stddev) /
	       sqrt(b->n + a->n - 2.0);
}

double
ty_stats_pooled_halfwidth(const struct ty_summary *a, const struct ty_summary *b, double t)
{
	return t * (ty_stats_pooled_s(a, b) * sqrt(1.0 / b->n + 1.0 / a->n));
}

double
ty_stats_relative_halfwidth(const struct ty_summary *a, const struct ty_summary *b, double t)
{
	double re;

	re = (b->n - 1) * b->var + (a->n - 1) * a->var * (b->mean * b->mean) / (a->mean * a->mean);
	re *= (b->n + a->n) / (b->n * a->n * (b->n + a->n - 2.0));
	if (isfinite(re) && (re >= 0x1p-1000 || (a->stddev == 0 && b->stddev == 0)))
		return t * sqrt(re) * 100 / a->mean;
	/* the same from the standard deviations and the ratio of the means,
	 * without the squares that overflow or vanish; infinite or NaN only
	 * when the answer itself is beyond a double (or A's mean is 0) */
	re = a->stddev > 0 ? sqrt(a->n - 1.0) * a->stddev * fabs(b->mean / a->mean) : 0;
	re = hypot(sqrt(b->n - 1.0) * b->stddev, re);
	re *= sqrt((b->n + a->n) / (b->n * a->n * (b->n + a->n - 2.0)));
	return t * (re / a->mean * 100);
}

static int
bad_confidence(double confidence)
{
	return !(confidence > 0 && confidence < 100);
}

/* Fill the relative and ratio fields of R from the difference, its
 * interval and a's centre CENTRE: the interval of the difference divided by
 * CENTRE, so that it excludes 0% (ratio 1) exactly when the difference's
 * interval excludes 0, which is the test's decision. The ratio's bounds
 * stop at 0; when no value is negative (NONNEG: times, counts) the
 * relative bounds stop at -100%, which the new centre cannot go below.
 * Neither changes whether the interval excludes 0. */
static void
fill_relative(struct ty_compare *r, double centre, int nonneg)
{
	double lo, hi;

	r->rel = r->diff * 100 / centre;
	lo = r->diff_lo * 100 / centre;
	hi = r->diff_hi * 100 / centre;
	if (!isfinite(r->rel) && isfinite(r->diff) && centre != 0) {
		/* DIFF * 100 overflowed: divide first (the plain order above is
		 * ministat's, kept where it works) */
		r->rel = r->diff / centre * 100;
		lo = isfinite(r->diff_lo) ? r->diff_lo / centre * 100 : lo;
		hi = isfinite(r->diff_hi) ? r->diff_hi / centre * 100 : hi;
	}
	r->rel_lo = fmin(lo, hi);
	r->rel_hi = fmax(lo, hi);
	r->ratio = 1 + r->rel / 100;
	r->ratio_lo = 1 + r->rel_lo / 100;
	r->ratio_hi = 1 + r->rel_hi / 100;
	if (!(centre > 0 || centre < 0))
		return; /* no relative change from 0: leave the infinities, NaNs */
	if (nonneg) {
		r->rel_lo = fmax(r->rel_lo, -100);
		r->rel_hi = fmax(r->rel_hi, -100);
	}
	r->ratio_lo = fmax(0, r->ratio_lo);
	r->ratio_hi = fmax(0, r->ratio_hi);
}

int
ty_stats_student_t(const struct ty_summary *a, const struct ty_summary *b, double t,
		   struct ty_compare *r)
{
	double e, se;

	memset(r, 0, sizeof(*r));
	if (a->n < 2 || b->n < 2 || !(t > 0))
		return -EINVAL;
	r->test = TY_TEST_STUDENT;
	r->df = a->n + b->n - 2.0;
	r->pooled_s = ty_stats_pooled_s(a, b);
	r->diff = b->mean - a->mean;
	e = ty_stats_pooled_halfwidth(a, b, t);
	r->diff_lo = r->diff - e;
	r->diff_hi = r->diff + e;
	fill_relative(r, a->mean, a->min >= 0 && b->min >= 0);
	se = r->pooled_s * sqrt(1.0 / b->n + 1.0 / a->n);
	r->p_value = se > 0 ? 2 * ty_stats_t_cdf(-fabs(r->diff) / se, r->df) : (r->diff ? 0 : 1);
	r->significant = fabs(r->diff) > e;
	return 0;
}

int
ty_stats_student(const struct ty_summary *a, const struct ty_summary *b, double confidence,
		 struct ty_compare *r)
{
	if (bad_confidence(confidence) || a->n < 2 || b->n < 2) {
		memset(r, 0, sizeof(*r));
		return -EINVAL;
	}
	return ty_stats_student_t(
	    a, b, ty_stats_t_quantile(0.5 + confidence / 200, a->n + b->n - 2.0), r);
}

int
ty_stats_welch(const struct ty_summary *a, const struct ty_summary *b, double confidence,
	       struct ty_compare *r)
{
	double va, vb, se, t, e;

	memset(r, 0, sizeof(*r));
	if (bad_confidence(confidence) || a->n < 2 || b->n < 2)
		return -EINVAL;
	r->test = TY_TEST_WELCH;
	va = a->var / a->n;
	vb = b->var / b->n;
	se = sqrt(va + vb);
	if (!(se >= 0x1p-250 && se <= 0x1p250) && (a->stddev > 0 || b->stddev > 0)) {
		/* squares beyond a double: the same from the standard
		 * deviations, with the variances relative to their sum */
		se = hypot(a->stddev / sqrt(a->n), b->stddev / sqrt(b->n));
		va = a->stddev / sqrt(a->n) / se;
		vb = b->stddev / sqrt(b->n) / se;
		va *= va;
		vb *= vb;
	}
	if (va + vb > 0)
		r->df = (va + vb) * (va + vb) / (va * va / (a->n - 1.0) + vb * vb / (b->n - 1.0));
	else
		r->df = a->n + b->n - 2.0;
	t = ty_stats_t_quantile(0.5 + confidence / 200, r->df);
	r->diff = b->mean - a->mean;
	e = t * se;
	r->diff_lo = r->diff - e;
	r->diff_hi = r->diff + e;
	fill_relative(r, a->mean, a->min >= 0 && b->min >= 0);
	r->p_value = se > 0 ? 2 * ty_stats_t_cdf(-fabs(r->diff) / se, r->df) : (r->diff ? 0 : 1);
	r->significant = fabs(r->diff) > e;
	return 0;
}

/* ---- Mann-Whitney U ---- */

/* Distribution of U for sizes M, N without ties: COUNT[u] = the number of
 * arrangements with U = u (u in 0..m*n), as doubles. Returns NULL on
 * allocation failure. The counts are the coefficients of the Gaussian
 * binomial [m+n choose m], built by the recurrence on the largest value. */
static double *
u_counts(size_t m, size_t n)
{
	size_t mn = m * n, i, j, u;
	double *f;

	/* the product form prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i) */
	f = calloc(mn + 1, sizeof(*f));
	if (!f)
		return NULL;
	f[0] = 1;
	for (i = 1; i <= m; i++) {
		size_t up = n + i;
		/* multiply by (1 - q^up) */
		for (u = mn; u >= up; u--) {
			f[u] -= f[u - up];
			if (u == up)
				break;
		}
		/* divide by (1 - q^i): running sum with stride i */
		for (j = i; j <= mn; j++)
			f[j] += f[j - i];
	}
	return f;
}

/* Count of pairs (i, j) with fl(b[j] - a[i]) <= v; A and B sorted. */
static uint64_t
count_le(const double *a, size_t na, const double *b, size_t nb, double v)
{
	uint64_t c = 0;
	size_t i, j = 0;

	/* b[j] - a[i] <= v holds for more j as a[i] grows */
	for (i = 0; i < na; i++) {
		while (j < nb && b[j] - a[i] <= v)
			j++;
		c += j;
	}
	return c;
}

/* Order-preserving map of doubles to unsigned integers, and back. */
static uint64_t
dkey(double v)
{
	uint64_t k;

	memcpy(&k, &v, sizeof(k));
	return (k >> 63) ? ~k : k | (UINT64_C(1) << 63);
}

static double
dval(uint64_t k)
{
	double v;

	k = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
	memcpy(&v, &k, sizeof(v));
	return v;
}

/* The K-th smallest (1-based) of the pairwise differences b[j] - a[i],
 * A and B sorted: bisection over the doubles, counting in linear time. */
static double
kth_difference(const double *a, size_t na, const double *b, size_t nb, uint64_t k)
{
	uint64_t lo = dkey(b[0] - a[na - 1]), hi = dkey(b[nb - 1] - a[0]);

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (count_le(a, na, b, nb, dval(mid)) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return dval(lo) + 0.0; /* -0 is no shift */
}

/* Critical count C for the interval of the shift, chosen so that the
 * interval excludes 0 exactly when the test rejects: the C-th smallest
 * difference is above 0 when fewer than C differences are <= 0. Exact
 * counts: the largest C with 2 P(U <= C-1) < alpha, summed as exact_p sums.
 * Normal law with continuity correction: the test rejects when
 * |U - mn/2| - 1/2 > z sigma, so C = ceil(mn/2 - 1/2 - z sigma). Returns 0
 * when no U can be rejected (the interval is then unbounded). */
static uint64_t
shift_rank(const double *counts, size_t na, size_t nb, double sigma, double alpha)
{
	double mn = (double)na * nb, total = 0, cum = 0, x;
	size_t u;

	if (counts) {
		for (u = 0; u <= na * nb; u++)
			total += counts[u];
		for (u = 0; u <= na * nb; u++) {
			if (2 * (cum + counts[u]) / total >= alpha)
				break;
			cum += counts[u];
		}
		return u;
	}
	x = ceil(mn / 2 - 0.5 - ty_stats_normal_quantile(1 - alpha / 2) * sigma);
	return x < 1 ? 0 : (uint64_t)x;
}

/* U of B, whether there are ties, and the tie-corrected standard deviation
 * of U, by walking the sorted samples A and B together (ranks of a group
 * of equal values are their average). */
static void
mw_sorted(const double *a, size_t na, const double *b, size_t nb, struct ty_compare *r,
	  int *ties_out, double *sigma_out)
{
	size_t n = na + nb, i = 0, j = 0, pos = 0, ta, tb;
	double rank_b = 0, tie_sum = 0, v, t;
	int ties = 0;

	while (i < na || j < nb) {
		v = (j >= nb || (i < na && a[i] < b[j])) ? a[i] : b[j];
		for (ta = 0; i < na && a[i] == v; i++)
			ta++;
		for (tb = 0; j < nb && b[j] == v; j++)
			tb++;
		t = (double)(ta + tb);
		rank_b += tb * (pos + (t + 1) / 2); /* average of ranks pos+1 .. pos+t */
		if (t > 1) {
			ties = 1;
			tie_sum += t * t * t - t;
		}
		pos += ta + tb;
	}
	r->u = rank_b - nb * (nb + 1) / 2.0;
	*ties_out = ties;
	*sigma_out = sqrt((double)na * nb / 12 * ((n + 1) - tie_sum / ((double)n * (n - 1))));
}

/* Exact two-sided p-value of U from the counts: twice the lower tail at
 * min(U, mn - U) (the law is symmetric), summed from 0 up as shift_rank
 * sums, so that both make the same decision. */
static double
exact_p(const double *counts, size_t na, size_t nb, double u)
{
	double total = 0, le = 0, p, k0;
	size_t k, mn = na * nb;

	k0 = fmin(u, (double)mn - u);
	for (k = 0; k <= mn; k++) {
		total += counts[k];
		if ((double)k <= k0)
			le += counts[k];
	}
	p = 2 * le / total;
	return p > 1 ? 1 : p;
}

#define TY_MW_EXACT_MAX 50 /* exact p-values when both samples are this small */

int
ty_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double confidence,
		      struct ty_compare *r)
{
	double *sa = NULL, *sb = NULL, *counts = NULL, sigma, alpha;
	uint64_t m, c;
	int ties, rc;

	memset(r, 0, sizeof(*r));
	if (na < 1 || nb < 1 || bad_confidence(confidence))
		return -EINVAL;
	r->test = TY_TEST_MANN_WHITNEY;
	sa = malloc(na * sizeof(*sa));
	sb = malloc(nb * sizeof(*sb));
	rc = -ENOMEM;
	if (!sa || !sb)
		goto out;
	memcpy(sa, a, na * sizeof(*sa));
	memcpy(sb, b, nb * sizeof(*sb));
	qsort(sa, na, sizeof(*sa), ty_stats_cmp_double);
	qsort(sb, nb, sizeof(*sb), ty_stats_cmp_double);
	mw_sorted(sa, na, sb, nb, r, &ties, &sigma);
	if (!ties && na <= TY_MW_EXACT_MAX && nb <= TY_MW_EXACT_MAX) {
		counts = u_counts(na, nb);
		rc = -ENOMEM;
		if (!counts)
			goto out;
		r->p_value = exact_p(counts, na, nb, r->u);
	} else {
		/* normal approximation with continuity correction */
		double z, d;

		d = fabs(r->u - (double)na * nb / 2) - 0.5;
		if (d < 0)
			d = 0;
		z = sigma > 0 ? d / sigma : 0;
		r->p_value = sigma > 0 ? 2 * ty_stats_normal_cdf(-z) : 1;
		if (r->p_value > 1)
			r->p_value = 1;
	}
	/* Hodges-Lehmann shift and its distribution-free interval */
	m = (uint64_t)na * nb;
	if (m % 2)
		r->diff = kth_difference(sa, na, sb, nb, m / 2 + 1);
	else
		r->diff = (kth_difference(sa, na, sb, nb, m / 2) +
			   kth_difference(sa, na, sb, nb, m / 2 + 1)) /
			  2;
	alpha = 1 - confidence / 100;
	c = shift_rank(counts, na, nb, sigma, alpha);
	if (c > m / 2 + (m % 2))
		c = m / 2 + (m % 2);
	if (c == 0) {
		/* these sizes can prove nothing: no bound */
		r->diff_lo = -INFINITY;
		r->diff_hi = INFINITY;
	} else {
		r->diff_lo = kth_difference(sa, na, sb, nb, c);
		r->diff_hi = kth_difference(sa, na, sb, nb, m + 1 - c);
	}
	/* relative to a's median */
	fill_relative(r, (na % 2) ? sa[na / 2] : (sa[na / 2 - 1] + sa[na / 2]) / 2,
		      sa[0] >= 0 && sb[0] >= 0);
	r->significant = r->p_value < alpha;
	rc = 0;
out:
	free(counts);
	free(sa);
	free(sb);
	return rc;
}

/* ---- trimmed means: Yuen, Tukey-McLaughlin ---- */

/* Of sorted S[0..N): the 20% trimmed mean, the kept count H and the
 * squared standard error of the trimmed mean, (n-1) s_w^2 / (h (h-1)),
 * with s_w^2 the winsorized variance. Returns -EINVAL when H < 2. */
static int
trim_sorted(const double *s, size_t n, double *tmean, size_t *h_out, double *d_out)
{
	size_t g = (size_t)floor(TY_STATS_TRIM * (double)n), h = n - 2 * g, i;
	double sum = 0, wm = 0, ss = 0, w;

	if (n < 2 || h < 2)
		return -EINVAL;
	for (i = g; i < n - g; i++)
		sum += s[i];
	*tmean = sum / (double)h;
	for (i = 0; i < n; i++)
		wm += i < g ? s[g] : i >= n - g ? s[n - g - 1] : s[i];
	wm /= (double)n;
	for (i = 0; i < n; i++) {
		w = (i < g ? s[g] : i >= n - g ? s[n - g - 1] : s[i]) - wm;
		ss += w * w;
	}
	*h_out = h;
	*d_out = ss / ((double)h * (double)(h - 1));
	return 0;
}

static double *
sorted_copy(const double *x, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), ty_stats_cmp_double);
	return s;
}

int
ty_stats_trimmed_mean(const double *x, size_t n, double confidence, double *tmean,
		      double *halfwidth)
{
	double *s, d;
	size_t h;
	int rc;

	if (bad_confidence(confidence))
		return -EINVAL;
	if (!(s = sorted_copy(x, n)))
		return -ENOMEM;
	rc = trim_sorted(s, n, tmean, &h, &d);
	free(s);
	if (rc)
		return rc;
	*halfwidth = ty_stats_t_quantile(0.5 + confidence / 200, (double)(h - 1)) * sqrt(d);
	return 0;
}

/* diff with standard error SE and DF degrees of freedom into R: the
 * interval, the two-sided p-value, the decision. */
static void
t_decide(struct ty_compare *r, double se, double df, double confidence)
{
	double e = ty_stats_t_quantile(0.5 + confidence / 200, df) * se;

	r->df = df;
	r->diff_lo = r->diff - e;
	r->diff_hi = r->diff + e;
	r->p_value = se > 0 ? 2 * ty_stats_t_cdf(-fabs(r->diff) / se, df) : (r->diff ? 0 : 1);
	r->significant = se > 0 ? fabs(r->diff) > e : r->diff != 0;
}

int
ty_stats_yuen(const double *a, size_t na, const double *b, size_t nb, double confidence,
	      struct ty_compare *r)
{
	double *sa = NULL, *sb = NULL, ta, tb, da, db, df;
	size_t ha, hb;
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	if (bad_confidence(confidence))
		return -EINVAL;
	if (!(sa = sorted_copy(a, na)) || !(sb = sorted_copy(b, nb)))
		goto out;
	if ((rc = trim_sorted(sa, na, &ta, &ha, &da)) || (rc = trim_sorted(sb, nb, &tb, &hb, &db)))
		goto out;
	r->test = TY_TEST_YUEN;
	r->diff = tb - ta;
	if (da + db > 0)
		df = (da + db) * (da + db) / (da * da / (ha - 1.0) + db * db / (hb - 1.0));
	else
		df = ha + hb - 2.0;
	t_decide(r, sqrt(da + db), df, confidence);
	fill_relative(r, ta, sa[0] >= 0 && sb[0] >= 0);
out:
	free(sa);
	free(sb);
	return rc;
}

/* ---- one-sample tests (paired rounds) ---- */

int
ty_stats_one_sample_t(const double *d, size_t n, double confidence, struct ty_compare *r)
{
	struct ty_summary s;
	int rc;

	memset(r, 0, sizeof(*r));
	if (n < 2 || bad_confidence(confidence))
		return -EINVAL;
	if ((rc = ty_stats_summarize(d, n, &s)))
		return rc;
	r->test = TY_TEST_WELCH;
	r->diff = s.mean;
	t_decide(r, s.stddev / sqrt((double)n), n - 1.0, confidence);
	return 0;
}

int
ty_stats_one_sample_trimmed(const double *d, size_t n, double confidence, struct ty_compare *r)
{
	double *s, dd;
	size_t h;
	int rc;

	memset(r, 0, sizeof(*r));
	if (bad_confidence(confidence))
		return -EINVAL;
	if (!(s = sorted_copy(d, n)))
		return -ENOMEM;
	rc = trim_sorted(s, n, &r->diff, &h, &dd);
	free(s);
	if (rc)
		return rc;
	r->test = TY_TEST_YUEN;
	t_decide(r, sqrt(dd), h - 1.0, confidence);
	return 0;
}

/* Count of Walsh averages (s[i] + s[j]) / 2, i <= j, that are <= V; S sorted. */
static uint64_t
walsh_le(const double *s, size_t n, double v)
{
	uint64_t c = 0;
	size_t i, j = n;

	for (i = 0; i < n; i++) {
		/* the largest j with (s[i] + s[j]) / 2 <= v shrinks as i grows */
		while (j > 0 && (s[i] + s[j - 1]) / 2 > v)
			j--;
		if (j <= i)
			break;
		c += j - i;
	}
	return c;
}

/* The K-th smallest (1-based) Walsh average of sorted S (bisection over
 * the doubles, counting in linear time). */
static double
kth_walsh(const double *s, size_t n, uint64_t k)
{
	uint64_t lo = dkey(s[0]), hi = dkey(s[n - 1]);

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (walsh_le(s, n, dval(mid)) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return dval(lo) + 0.0;
}

static int
cmp_abs(const void *a, const void *b)
{
	double x = fabs(*(const double *)a), y = fabs(*(const double *)b);

	return (x > y) - (x < y);
}

/* Counts of W+ for N values without ties: the number of subsets of
 * {1..N} with each sum (0..N(N+1)/2). */
static double *
w_counts(size_t n)
{
	size_t m = n * (n + 1) / 2, i, w;
	double *f = calloc(m + 1, sizeof(*f));

	if (!f)
		return NULL;
	f[0] = 1;
	for (i = 1; i <= n; i++)
		for (w = i * (i + 1) / 2; w >= i; w--)
			f[w] += f[w - i];
	return f;
}

#define TY_SR_EXACT_MAX 50

int
ty_stats_signed_rank(const double *d, size_t n, double confidence, struct ty_compare *r)
{
	double *s = NULL, *a = NULL, *counts = NULL, wplus = 0, tie = 0, mean, sigma, alpha;
	size_t i, j, nz = 0, k;
	uint64_t m, c;
	int ties = 0, rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	if (n < 1 || bad_confidence(confidence))
		return -EINVAL;
	r->test = TY_TEST_MANN_WHITNEY;
	alpha = 1 - confidence / 100;
	if (!(s = sorted_copy(d, n)) || !(a = malloc(n * sizeof(*a))))
		goto out;
	for (i = 0; i < n; i++)
		if (d[i] != 0)
			a[nz++] = d[i];
	qsort(a, nz, sizeof(*a), cmp_abs);
	/* W+: the sum of the ranks of |d| of the positive values (ties averaged) */
	for (i = 0; i < nz; i = j) {
		for (j = i; j < nz && fabs(a[j]) == fabs(a[i]); j++)
			;
		for (k = i; k < j; k++)
			if (a[k] > 0)
				wplus += (double)(i + j + 1) / 2;
		if (j - i > 1) {
			ties = 1;
			tie += pow((double)(j - i), 3) - (double)(j - i);
		}
	}
	r->u = wplus;
	m = (uint64_t)nz * (nz + 1) / 2;
	mean = (double)m / 2;
	sigma = sqrt((double)nz * (nz + 1) * (2.0 * nz + 1) / 24 - tie / 48);
	if (!ties && nz == n && n <= TY_SR_EXACT_MAX) {
		double total = 0, le = 0, k0 = fmin(wplus, (double)m - wplus), cum = 0;
		if (!(counts = w_counts(n)))
			goto out;
		for (k = 0; k <= m; k++) {
			total += counts[k];
			if ((double)k <= k0)
				le += counts[k];
		}
		r->p_value = fmin(1, 2 * le / total);
		for (k = 0; k <= m; k++) { /* the critical count, as shift_rank */
			if (2 * (cum + counts[k]) / total >= alpha)
				break;
			cum += counts[k];
		}
		c = k;
	} else {
		double dd = fmax(0, fabs(wplus - mean) - 0.5), x;
		r->p_value = sigma > 0 ? fmin(1, 2 * ty_stats_normal_cdf(-dd / sigma)) : 1;
		x = ceil(mean - 0.5 - ty_stats_normal_quantile(1 - alpha / 2) * sigma);
		c = x < 1 ? 0 : (uint64_t)x;
	}
	/* Hodges-Lehmann: the median of the n(n+1)/2 Walsh averages */
	m = (uint64_t)n * (n + 1) / 2;
	if (m % 2)
		r->diff = kth_walsh(s, n, m / 2 + 1);
	else
		r->diff = (kth_walsh(s, n, m / 2) + kth_walsh(s, n, m / 2 + 1)) / 2;
	if (c > m / 2 + (m % 2))
		c = m / 2 + (m % 2);
	if (c == 0) {
		r->diff_lo = -INFINITY;
		r->diff_hi = INFINITY;
	} else {
		r->diff_lo = kth_walsh(s, n, c);
		r->diff_hi = kth_walsh(s, n, m + 1 - c);
	}
	r->df = NAN;
	r->significant = r->p_value < alpha;
	rc = 0;
out:
	free(counts);
	free(s);
	free(a);
	return rc;
}
