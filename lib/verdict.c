/* verdict.c - the verdict on two samples of one figure (see verdict.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	}
	return "?";
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
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
	qsort(s, n, sizeof(*s), cmp_double);
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

static int
centre_of(const double *x, size_t n, enum ty_test test, double confidence, struct ty_centre *c)
{
	struct ty_summary s;
	double h;
	int rc;

	memset(c, 0, sizeof(*c));
	c->n = n;
	if ((rc = ty_stats_summarize(x, n, &s)))
		return rc;
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
	if (na < 2 || nb < 2)
		return 1;
	if (test != TY_TEST_MANN_WHITNEY)
		return 0;
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

int
ty_verdict_compute(const double *old, size_t na, const double *new, size_t nb, enum ty_test test,
		   double confidence, struct ty_verdict *v, struct ty_error *e)
{
	struct ty_summary sa, sb;
	size_t i;
	int rc;

	memset(v, 0, sizeof(*v));
	if (!(confidence > 0 && confidence < 100))
		return ty_error_set(e, -EINVAL, "confidence %g%% is not in (0, 100)", confidence);
	if (na == 0 || nb == 0)
		return ty_error_set(e, -EINVAL, "cannot compare: a sample has no values");
	for (i = 0; i < na + nb; i++)
		if (!isfinite(i < na ? old[i] : new[i - na]))
			return ty_error_set(e, -EINVAL, "cannot compare: a value is not finite");
	if ((rc = centre_of(old, na, test, confidence, &v->old)) ||
	    (rc = centre_of(new, nb, test, confidence, &v->new)))
		return ty_error_set(e, rc, "cannot compare: %s", strerror(-rc));
	v->min_p = min_p_value(na, nb, test);
	if (na < 2 || nb < 2) {
		v->too_few = 1;
		no_test(v, test);
		return 0;
	}
	if (test == TY_TEST_MANN_WHITNEY) {
		rc = ty_stats_mann_whitney(old, na, new, nb, confidence, &v->c);
	} else {
		if ((rc = ty_stats_summarize(old, na, &sa)) ||
		    (rc = ty_stats_summarize(new, nb, &sb)))
			return ty_error_set(e, rc, "cannot compare: %s", strerror(-rc));
		rc = test == TY_TEST_WELCH ? ty_stats_welch(&sa, &sb, confidence, &v->c)
					   : ty_stats_student(&sa, &sb, confidence, &v->c);
	}
	if (rc)
		return ty_error_set(e, rc, "cannot compare: %s", strerror(-rc));
	v->too_few = v->min_p > 1 - confidence / 100;
	if (v->c.significant && !v->too_few)
		v->verdict = v->c.diff > 0 ? 1 : v->c.diff < 0 ? -1 : 0;
	return 0;
}
