/* verdict.c - the verdict on two samples of one figure (see verdict.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/stats-summary.h"
#include "tachy/verdict.h"

const char *
ty_verdict_test_name(enum ty_test test)
{
	switch (test) {
	case TY_TEST_STUDENT:
		return "student";
	case TY_TEST_WELCH:
		return "welch";
	case TY_TEST_MANN_WHITNEY:
		return "mann-whitney";
	case TY_TEST_YUEN:
		return "yuen";
	}
	return "?";
}

const char *
ty_verdict_centre_name(enum ty_test test)
{
	return test == TY_TEST_MANN_WHITNEY ? "median"
	       : test == TY_TEST_YUEN	    ? "trimmed mean"
					    : "mean";
}

const char *
ty_verdict_test_title(enum ty_test test, int paired)
{
	static const char *const unpaired_t[] = {"Student's t on means", "Welch's t on means",
						 "Mann-Whitney U on medians",
						 "Yuen's t on 20% trimmed means"};
	static const char *const paired_t[] = {"paired t", "paired t", "sign test (median)",
					       "paired trimmed t"};
	unsigned t = (unsigned)test < 4 ? (unsigned)test : 1;

	return paired ? paired_t[t] : unpaired_t[t];
}

const char *
ty_verdict_method(const struct ty_verdict *v, char *buf, size_t size)
{
	if (v->pairs)
		snprintf(buf, size, "%s on the log ratios of %zu paired rounds",
			 ty_verdict_test_title(v->c.test, 1), v->pairs);
	else
		snprintf(buf, size, "%s", ty_verdict_test_title(v->c.test, 0));
	return buf;
}

/* The largest j <= N/2 with P(Bin(N, 1/2) <= j-1) <= ALPHA/2. The CDF is
 * accumulated one term at a time (each term C(n,i)/2^n from lgamma, added
 * in the order 0, 1, ..., i): the same sums, bit for bit, as summing from 0
 * for every j, in linear instead of quadratic time. */
static size_t
median_rank(size_t n, double alpha)
{
	double cdf = 0, ln = lgamma((double)n + 1), lc;
	size_t j = 0;

	while (j + 1 <= n / 2) {
		lc = ln - lgamma((double)j + 1) - lgamma((double)(n - j) + 1);
		cdf += exp(lc - (double)n * M_LN2); /* now P(B <= j) */
		if (!(cdf <= alpha / 2))
			break;
		j++;
	}
	return j;
}

int
ty_verdict_median_ci(const double *x, size_t n, double confidence, double *lo, double *hi)
{
	double alpha = 1 - confidence / 100, *s;
	size_t j;

	if (n == 0)
		return -ERANGE;
	if (!(s = malloc(n * sizeof(*s))))
		return -ENOMEM;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), ty_stats_cmp_double);
	/* The largest j with P(B <= j-1) <= alpha/2: then [x(j), x(n-j+1)]
	 * (1-based) covers the median with probability >= 1 - alpha. */
	j = median_rank(n, alpha);
	if (j == 0) {
		*lo = s[0];
		*hi = s[n - 1];
		free(s);
		return -ERANGE;
	}
	*lo = s[j - 1];
	*hi = s[n - j];
	free(s);
	return 0;
}

size_t
ty_verdict_median_min_n(double confidence)
{
	double alpha = 1 - confidence / 100;
	size_t n;

	if (!(confidence > 0 && confidence < 100))
		return 0;
	/* needs 2^-n <= alpha/2 first: start near log2(2/alpha) */
	n = (size_t)fmax(1, floor(log2(2 / alpha)) - 1);
	for (; n <= 1000000; n++)
		if (median_rank(n, alpha) > 0)
			return n;
	return 0;
}

int
ty_verdict_centre(const double *x, size_t n, enum ty_test test, double confidence,
		  struct ty_centre *c)
{
	struct ty_summary s;
	double h;
	int rc;

	memset(c, 0, sizeof(*c));
	c->n = n;
	if (n == 0)
		return -EINVAL;
	if ((rc = ty_stats_summarize(x, n, &s)))
		return rc;
	if (test == TY_TEST_YUEN && n >= 2) {
		if ((rc = ty_stats_trimmed_mean(x, n, confidence, &c->centre, &h)))
			return rc;
		c->lo = c->centre - h;
		c->hi = c->centre + h;
		c->exact_ci = 1;
		return 0;
	}
	if (test == TY_TEST_MANN_WHITNEY) {
		c->centre = s.median;
		rc = ty_verdict_median_ci(x, n, confidence, &c->lo, &c->hi);
		if (rc == -ENOMEM)
			return rc;
		c->exact_ci = rc == 0;
		return 0;
	}
	c->centre = s.mean;
	h = n >= 2 ? ty_stats_mean_ci_halfwidth(&s, confidence) : NAN;
	c->lo = s.mean - h;
	c->hi = s.mean + h;
	c->exact_ci = n >= 2;
	return 0;
}

/* The smallest two-sided p-value the test can give with NA and NB values. */
static double
min_p_value(size_t na, size_t nb, enum ty_test test)
{
	if (na < 2 || (nb < 2 && nb != 0))
		return 1;
	if (test != TY_TEST_MANN_WHITNEY)
		return 0;
	if (nb == 0) /* paired: NA pairs, signed-rank: all of one sign */
		return na > 50 ? 0 : fmin(1, 2 * exp(-(double)na * M_LN2));
	/* Exact Mann-Whitney: the most extreme ordering, on either side. */
	return fmin(1, 2 * exp(lgamma((double)na + 1) + lgamma((double)nb + 1) -
			       lgamma((double)(na + nb) + 1)));
}

static void
no_test(struct ty_verdict *v, enum ty_test test)
{
	struct ty_compare *c = &v->c;

	memset(c, 0, sizeof(*c));
	c->test = test;
	c->diff = v->new.centre - v->old.centre;
	c->rel = v->old.centre != 0 ? 100 * c->diff / v->old.centre : NAN;
	c->ratio = v->old.centre != 0 ? v->new.centre / v->old.centre : NAN;
	c->diff_lo = c->diff_hi = c->rel_lo = c->rel_hi = NAN;
	c->ratio_lo = c->ratio_hi = c->p_value = c->df = c->pooled_s = c->u = NAN;
}

struct pairval {
	uint32_t round;
	double x;
};

static int
cmp_round(const void *a, const void *b)
{
	const struct pairval *x = a, *y = b;

	return (x->round > y->round) - (x->round < y->round);
}

/* X with its rounds, sorted by round, the values of a round seen more than
 * once dropped. Returns the count, or (size_t)-1 when out of memory. */
static size_t
by_round(const double *x, const uint32_t *round, size_t n, struct pairval **out)
{
	struct pairval *p = malloc((n ? n : 1) * sizeof(*p));
	size_t i, j, k = 0;

	if (!(*out = p))
		return (size_t)-1;
	for (i = 0; i < n; i++)
		p[i] = (struct pairval){round[i], x[i]};
	qsort(p, n, sizeof(*p), cmp_round);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && p[j].round == p[i].round; j++)
			;
		if (j == i + 1)
			p[k++] = p[i];
	}
	return k;
}

/* The log ratios new/old of the rounds both sides have, into *D. Returns
 * the count (0 when pairing does not apply), or (size_t)-1 when out of
 * memory. */
static size_t
log_ratios(const double *old, size_t na, const double *new, size_t nb,
	   const struct ty_verdict_opts *o, double **d)
{
	struct pairval *pa = NULL, *pb = NULL;
	size_t ka, kb, i = 0, j = 0, n = 0, big = na > nb ? na : nb;

	*d = NULL;
	ka = by_round(old, o->old_round, na, &pa);
	kb = by_round(new, o->new_round, nb, &pb);
	if (ka == (size_t)-1 || kb == (size_t)-1 || !(*d = malloc((big + 1) * sizeof(**d)))) {
		n = (size_t)-1;
		goto out;
	}
	while (i < ka && j < kb) {
		if (pa[i].round < pb[j].round) {
			i++;
		} else if (pa[i].round > pb[j].round) {
			j++;
		} else {
			if (!(pa[i].x > 0 && pb[j].x > 0)) {
				n = 0;
				goto out;
			}
			(*d)[n++] = log(pb[j].x / pa[i].x);
			i++;
			j++;
		}
	}
	if (n < 3 || 2 * n < big)
		n = 0;
out:
	free(pa);
	free(pb);
	return n;
}

/* The sign test on D[0..N): the median of D with its distribution-free
 * interval (order statistics, as ty_verdict_median_ci), the exact
 * two-sided binomial p-value of the signs (zeros dropped). Significant when
 * the interval excludes 0, which the p-value agrees with (p <= alpha). */
static int
sign_test(const double *d, size_t n, double confidence, struct ty_compare *c)
{
	struct ty_summary s;
	double lo, hi, lp, p = 0;
	size_t i, pos = 0, neg = 0, k, m;
	int rc;

	memset(c, 0, sizeof(*c));
	rc = ty_verdict_median_ci(d, n, confidence, &lo, &hi);
	if (rc == -ENOMEM)
		return rc;
	if (rc) /* too few pairs for an interval */
		lo = -INFINITY, hi = INFINITY;
	for (i = 0; i < n; i++) {
		pos += d[i] > 0;
		neg += d[i] < 0;
	}
	m = pos + neg;
	k = pos < neg ? pos : neg;
	for (i = 0; i <= k && m; i++) {
		lp = lgamma((double)m + 1) - lgamma((double)i + 1) - lgamma((double)(m - i) + 1) -
		     (double)m * M_LN2;
		p += exp(lp);
	}
	c->p_value = m ? fmin(1, 2 * p) : 1;
	if ((rc = ty_stats_summarize(d, n, &s)))
		return rc;
	c->diff = s.median;
	c->diff_lo = lo;
	c->diff_hi = hi;
	c->df = NAN;
	c->u = (double)pos;
	c->significant = lo > 0 || hi < 0;
	return 0;
}

/* The paired test on the N log ratios D: the change as a ratio, from the
 * location of the log ratios and its interval. */
static int
paired_test(const double *d, size_t n, const struct ty_verdict_opts *o, struct ty_verdict *v)
{
	struct ty_compare *c = &v->c;
	double centre = v->old.centre;
	int rc;

	if (o->test == TY_TEST_MANN_WHITNEY)
		rc = sign_test(d, n, o->confidence, c);
	else if (o->test == TY_TEST_YUEN)
		rc = ty_stats_one_sample_trimmed(d, n, o->confidence, c);
	else
		rc = ty_stats_one_sample_t(d, n, o->confidence, c);
	if (rc)
		return rc;
	c->test = o->test;
	c->ratio = exp(c->diff);
	c->ratio_lo = exp(c->diff_lo);
	c->ratio_hi = exp(c->diff_hi);
	c->rel = 100 * (c->ratio - 1);
	c->rel_lo = 100 * (c->ratio_lo - 1);
	c->rel_hi = 100 * (c->ratio_hi - 1);
	c->diff = centre * (c->ratio - 1);
	c->diff_lo = centre * (c->ratio_lo - 1);
	c->diff_hi = centre * (c->ratio_hi - 1);
	c->pooled_s = NAN;
	v->pairs = n;
	v->min_p = min_p_value(n, 0, o->test);
	return 0;
}

static int
unpaired_test(const double *old, size_t na, const double *new, size_t nb,
	      const struct ty_verdict_opts *o, struct ty_verdict *v)
{
	struct ty_summary sa, sb;
	int rc;

	if (o->test == TY_TEST_MANN_WHITNEY)
		return ty_stats_mann_whitney(old, na, new, nb, o->confidence, &v->c);
	if (o->test == TY_TEST_YUEN)
		return ty_stats_yuen(old, na, new, nb, o->confidence, &v->c);
	if ((rc = ty_stats_summarize(old, na, &sa)) || (rc = ty_stats_summarize(new, nb, &sb)))
		return rc;
	return o->test == TY_TEST_WELCH ? ty_stats_welch(&sa, &sb, o->confidence, &v->c)
					: ty_stats_student(&sa, &sb, o->confidence, &v->c);
}

/* Which way the paired log ratios D[0..N) lean: +1 more above 0, -1
 * more below, 0 as many. */
static int
sign_of_pairs(const double *d, size_t n)
{
	size_t i, pos = 0, neg = 0;

	for (i = 0; i < n; i++) {
		pos += d[i] > 0;
		neg += d[i] < 0;
	}
	return (pos > neg) - (pos < neg);
}

/* Which way NEW's values lean against OLD's: the sign of (pairs with the
 * new value higher) - (pairs with it lower), the direction Mann-Whitney's
 * U proves. Stores it in *DIR; returns 0 or -ENOMEM. */
static int
sign_of_ranks(const double *old, size_t na, const double *new, size_t nb, int *dir)
{
	double *a = malloc(na * sizeof(*a)), *b = malloc(nb * sizeof(*b));
	double higher = 0, lower = 0;
	size_t i, lo = 0, hi = 0;

	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	memcpy(a, old, na * sizeof(*a));
	memcpy(b, new, nb * sizeof(*b));
	qsort(a, na, sizeof(*a), ty_stats_cmp_double);
	qsort(b, nb, sizeof(*b), ty_stats_cmp_double);
	for (i = 0; i < nb; i++) {
		while (lo < na && a[lo] < b[i]) /* a[0..lo) below b[i] */
			lo++;
		while (hi < na && a[hi] <= b[i]) /* a[hi..na) above b[i] */
			hi++;
		higher += (double)lo;
		lower += (double)(na - hi);
	}
	*dir = (higher > lower) - (higher < lower);
	free(a);
	free(b);
	return 0;
}

/* The verdict from what the test proved (its p-value, in the direction
 * DIR), and whether its interval can be shown beside it: an interval
 * that disagrees with the test (ties put a bound on 0, or the estimate
 * at 0) is not shown rather than shown contradicting the verdict. */
static void
judge(struct ty_verdict *v, int dir, double confidence)
{
	const struct ty_compare *c = &v->c;
	int proven = c->p_value < 1 - confidence / 100;
	int excludes = c->diff_lo > 0 || c->diff_hi < 0;

	v->verdict = TY_VERDICT_SAME;
	v->interval = TY_INTERVAL_OK;
	if (!isfinite(c->rel_lo) || !isfinite(c->rel_hi) || !isfinite(c->rel))
		v->interval = v->old.centre == 0 ? TY_INTERVAL_ZERO_REF : TY_INTERVAL_TOO_FEW;
	if (!isfinite(v->old.centre) || !isfinite(v->new.centre) || !isfinite(c->p_value))
		return; /* sums past the doubles' range: nothing proven from them */
	if (v->too_few) {
		/* sizes that can prove nothing at this confidence bound nothing
		 * at it either (ties can give a finite but unfounded one) */
		if (v->interval == TY_INTERVAL_OK)
			v->interval = TY_INTERVAL_TOO_FEW;
		return;
	}
	if (proven && dir)
		v->verdict = dir > 0 ? TY_VERDICT_SLOWER : TY_VERDICT_FASTER;
	if (v->interval != TY_INTERVAL_OK)
		return;
	if (proven != excludes ||
	    (proven && (c->diff > 0   ? 1
			: c->diff < 0 ? -1
				      : 0) != dir) ||
	    (excludes && (c->diff_lo > 0 ? 1 : -1) != dir))
		v->interval = TY_INTERVAL_FEW_DISTINCT;
}

const char *
ty_verdict_word_name(enum ty_verdict_word w)
{
	return w == TY_VERDICT_SLOWER ? "slower" : w == TY_VERDICT_FASTER ? "faster" : "~";
}

const char *
ty_verdict_word_key(enum ty_verdict_word w)
{
	return w == TY_VERDICT_SAME ? "same" : ty_verdict_word_name(w);
}

const char *
ty_verdict_interval_why(enum ty_interval i)
{
	switch (i) {
	case TY_INTERVAL_TOO_FEW:
		return "too few values";
	case TY_INTERVAL_FEW_DISTINCT:
		return "too few distinct values";
	case TY_INTERVAL_ZERO_REF:
		return "the reference is 0";
	case TY_INTERVAL_OK:
		break;
	}
	return NULL;
}

enum ty_gate
ty_verdict_gate(enum ty_verdict_word verdict, enum ty_interval interval, int too_few, double rel,
		double rel_lo, double limit)
{
	if (too_few)
		return TY_GATE_TOO_FEW;
	if (verdict == TY_VERDICT_SLOWER &&
	    (interval == TY_INTERVAL_OK ? rel_lo > limit : !(limit > 0)))
		return TY_GATE_TRIP;
	if (limit > 0 && rel > limit)
		return TY_GATE_UNPROVEN;
	return TY_GATE_PASS;
}

int
ty_verdict_compute(const double *old, size_t na, const double *new, size_t nb,
		   const struct ty_verdict_opts *o, struct ty_verdict *v, struct ty_error *e)
{
	double confidence = o->confidence, *d = NULL;
	size_t i, np = 0;
	int rc, dir = 0;

	memset(v, 0, sizeof(*v));
	if (!(confidence > 0 && confidence < 100))
		return ty_error_set(e, -EINVAL, "confidence %g%% is not in (0, 100)", confidence);
	if (na == 0 || nb == 0)
		return ty_error_set(e, -EINVAL, "cannot compare: a sample has no values");
	for (i = 0; i < na + nb; i++)
		if (!isfinite(i < na ? old[i] : new[i - na]))
			return ty_error_set(e, -EINVAL, "cannot compare: a value is not finite");
	if ((rc = ty_verdict_centre(old, na, o->test, confidence, &v->old)) ||
	    (rc = ty_verdict_centre(new, nb, o->test, confidence, &v->new)))
		return ty_error_set(e, rc, "cannot compare: %s", strerror(-rc));
	v->min_p = min_p_value(na, nb, o->test);
	if (na < 2 || nb < 2) {
		v->too_few = 1;
		v->interval = TY_INTERVAL_TOO_FEW;
		no_test(v, o->test);
		return 0;
	}
	if (o->old_round && o->new_round &&
	    (np = log_ratios(old, na, new, nb, o, &d)) == (size_t)-1)
		return ty_error_set(e, -ENOMEM, "out of memory");
	/* too few pairs for the sign test to ever prove a difference: unpaired */
	if (np && min_p_value(np, 0, o->test) > 1 - confidence / 100)
		np = 0;
	rc = np ? paired_test(d, np, o, v) : unpaired_test(old, na, new, nb, o, v);
	/* the direction the test proves: of the ranks or signs (Mann-Whitney,
	 * sign test), of the difference of means (t tests, Yuen) */
	if (!rc && o->test != TY_TEST_MANN_WHITNEY)
		dir = (v->c.diff > 0) - (v->c.diff < 0);
	else if (!rc && np)
		dir = sign_of_pairs(d, np);
	else if (!rc)
		rc = sign_of_ranks(old, na, new, nb, &dir);
	free(d);
	if (rc)
		return ty_error_set(e, rc, "cannot compare: %s", strerror(-rc));
	v->too_few = v->min_p > 1 - confidence / 100;
	judge(v, dir, confidence);
	return 0;
}

/* ---- warm-up and level shifts ---- */

/* log C(n, k) */
static double
lchoose(size_t n, size_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1);
}

/* The warm-up of X[0..N) by the rule of ty_verdict_series; TMP has room
 * for N values. */
static void
find_warmup(const double *x, size_t n, double *tmp, struct ty_verdict_series *s)
{
	double best = log(0.01), med, mad, lim, t, lp;
	size_t k, i, m, kmax = n / 3 < 10 ? n / 3 : 10;
	int side;

	for (k = 1; k <= kmax; k++) {
		memcpy(tmp, x + k, (n - k) * sizeof(*tmp));
		med = ty_stats_quantile(tmp, n - k, 0.5);
		mad = 1.4826 * ty_stats_mad(x + k, n - k, med);
		if (!(mad > 0))
			mad = 1e-9 * fabs(med) + 1e-300;
		side = x[0] > med ? 1 : -1;
		lim = med + side * 3.5 * mad;
		for (i = 0, t = x[0]; i < k; i++) {
			if (side * (x[i] - lim) <= 0)
				break;
			if (side * (x[i] - t) < 0)
				t = x[i]; /* the least extreme of the prefix */
		}
		if (i < k)
			break; /* a longer prefix cannot be all beyond either */
		for (i = 0, m = 0; i < n; i++)
			m += side * (x[i] - t) >= 0;
		/* as extreme as the warm-up: at most a tenth of the rest (outliers),
		 * else the runs are at two levels (a shift, not a warm-up) */
		if (m - k > (n - k) / 10)
			continue;
		lp = lchoose(m, k) - lchoose(n, k);
		if (lp < best) {
			best = lp;
			s->warmup = k;
			s->warmup_ratio = 0;
		}
	}
	if (s->warmup) {
		memcpy(tmp, x, s->warmup * sizeof(*tmp));
		med = ty_stats_quantile(tmp, s->warmup, 0.5);
		memcpy(tmp, x + s->warmup, (n - s->warmup) * sizeof(*tmp));
		s->warmup_ratio = med / ty_stats_quantile(tmp, n - s->warmup, 0.5);
	}
}

static int
cmp_index(const void *a, const void *b, void *ctx)
{
	const double *x = ctx;
	double u = x[*(const size_t *)a], v = x[*(const size_t *)b];

	return (u > v) - (u < v);
}

/* Mean absolute residual of X[0..N) around the least-squares line. */
static double
line_residual(const double *x, size_t n)
{
	double mx = (n - 1) / 2.0, my = 0, sxy = 0, sxx = 0, b, r = 0;
	size_t i;

	for (i = 0; i < n; i++)
		my += x[i] / (double)n;
	for (i = 0; i < n; i++) {
		sxy += ((double)i - mx) * (x[i] - my);
		sxx += ((double)i - mx) * ((double)i - mx);
	}
	b = sxy / sxx;
	for (i = 0; i < n; i++)
		r += fabs(x[i] - my - b * ((double)i - mx));
	return r / (double)n;
}

static void
find_shift(const double *x, size_t n, double *tmp, struct ty_verdict_series *s)
{
	double *rank = tmp, zbest = 0, sum = 0, z, u, a, b, res = 0;
	size_t i, j, k, lo = n / 10 > 5 ? n / 10 : 5, at = 0;
	size_t *idx;

	if (n < 2 * lo)
		return;
	if (!(idx = malloc(n * sizeof(*idx))))
		return;
	/* ranks (ties averaged) through a sort of indices */
	for (i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_index, (void *)x);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && x[idx[j]] == x[idx[i]]; j++)
			;
		for (k = i; k < j; k++)
			rank[idx[k]] = (double)(i + j + 1) / 2;
	}
	free(idx);
	for (k = 1; k < n; k++) {
		sum += rank[k - 1];
		if (k < lo || n - k < lo)
			continue;
		u = sum - (double)k * (k + 1) / 2;
		z = (u - (double)k * (n - k) / 2) / sqrt((double)k * (n - k) * (n + 1) / 12);
		if (fabs(z) > fabs(zbest)) {
			zbest = z;
			at = k;
		}
	}
	if (fabs(zbest) <= 5)
		return;
	memcpy(tmp, x, at * sizeof(*tmp));
	a = ty_stats_quantile(tmp, at, 0.5);
	memcpy(tmp, x + at, (n - at) * sizeof(*tmp));
	b = ty_stats_quantile(tmp, n - at, 0.5);
	if (!(a > 0 && b > 0) || fabs(log(b / a)) < log(1.05))
		return;
	for (i = 0; i < n; i++)
		res += fabs(x[i] - (i < at ? a : b)) / (double)n;
	if (!(res < 0.75 * line_residual(x, n)))
		return; /* a trend, not a step: the drift warning says it */
	s->shift_at = at;
	s->before = a;
	s->after = b;
}

int
ty_verdict_series(const double *x, size_t n, struct ty_verdict_series *s)
{
	double *tmp;

	memset(s, 0, sizeof(*s));
	if (n < 8)
		return 0;
	if (!(tmp = malloc(n * sizeof(*tmp))))
		return -ENOMEM;
	find_warmup(x, n, tmp, s);
	find_shift(x + s->warmup, n - s->warmup, tmp, s);
	if (s->shift_at)
		s->shift_at += s->warmup;
	free(tmp);
	return 0;
}

void
ty_verdict_exact(double a, double b, struct ty_compare *c, enum ty_verdict_word *verdict,
		 enum ty_interval *interval)
{
	double d = b - a;

	c->diff = c->diff_lo = c->diff_hi = d;
	c->p_value = d != 0 ? 0 : 1;
	c->significant = d != 0;
	*verdict = d > 0 ? TY_VERDICT_SLOWER : d < 0 ? TY_VERDICT_FASTER : TY_VERDICT_SAME;
	if (a != 0) {
		c->rel = c->rel_lo = c->rel_hi = 100 * d / a;
		c->ratio = c->ratio_lo = c->ratio_hi = b / a;
		*interval = TY_INTERVAL_OK;
	} else {
		c->rel = c->rel_lo = c->rel_hi = NAN;
		c->ratio = c->ratio_lo = c->ratio_hi = NAN;
		*interval = TY_INTERVAL_ZERO_REF;
	}
}
