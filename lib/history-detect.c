/* history-detect.c - change points of a per-commit series (history.h).
 *
 * The split step follows E-Divisive means (Matteson and James 2014) the way
 * Hunter (Fleming et al., ICPE 2023) runs it: overlapping windows, in each
 * the split that maximises the energy statistic q-hat, kept when a Welch t
 * test between the two sides says so, and searched again on either side.
 * The test is on per-commit centres (medians of the runs, so an outlier run
 * moves nothing) weighted by run counts. The variance of a commit's median
 * is taken as the larger of two estimates: the spread of the medians about
 * their level (n - 2 degrees of freedom), and what the runs' own spread
 * implies for a median of that many runs ((pi/2) s^2 / k, s robust, with
 * the many degrees of freedom of the runs): when the commits agree with each
 * other as closely as their runs allow, the runs give the test its power
 * (10 commits of 10 runs: 8 degrees of freedom become about 33), and a
 * commit-to-commit spread beyond that is never hidden. Its p-value is
 * multiplied by the
 * number of places the split could have been put (Bonferroni), since the
 * place was chosen as the best one. The merge step then drops, weakest
 * first, every change point whose test against its neighbours fails, and
 * each survivor is moved to the best place between its neighbours. A
 * change point needs two commits on each side, so one odd commit is never
 * one; the newest commit alone is judged against the level before it with
 * a prediction interval (flagged `single`). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/history.h"
#include "tachy/stats.h"
#include "tachy/verdict.h"

void
ty_history_detect_defaults(struct ty_history_detect_opts *o)
{
	o->max_p = 0.001;
	o->window = 50;
	o->confidence = 95;
	o->min_change_pct = 0;
}

int
ty_history_point_of(double *values, size_t n, double confidence, struct ty_history_point *p)
{
	struct ty_summary s;
	int rc;

	memset(p, 0, sizeof(*p));
	p->weight = (double)n;
	if (n == 0) {
		p->centre = p->lo = p->hi = NAN;
		return 0;
	}
	if ((rc = ty_stats_summarize(values, n, &s)) < 0)
		return rc;
	p->centre = s.median;
	if (n >= 3) {
		double mad = 1.4826 * ty_stats_mad(values, n, s.median);
		p->run_var = mad * mad;
	}
	rc = ty_verdict_median_ci(values, n, confidence, &p->lo, &p->hi);
	return rc == -ENOMEM ? rc : 0;
}

/* Prefix sums over the points (centres shifted by the first one, so the
 * sums of squares keep their precision): O(1) statistics of any segment. */
struct prefix {
	double *w, *wc, *wc2, *w2;
	double *rdf, *rss; /* sum of (k - 1) and of (k - 1) run_var over points with a run_var */
	double shift;
	const struct ty_history_point *x;
};

struct seg {
	double n;    /* points */
	double neff; /* effective count: (sum w)^2 / sum w^2 */
	double w;    /* sum of the weights (runs) */
	double mean; /* weighted, shifted back */
	double var;  /* weighted, unbiased by n / (n - 1) */
	double rdf;  /* the runs' degrees of freedom about their commits' medians */
	double rss;  /* their sum of squares (robust variances times degrees of freedom) */
};

/* The variance of the median of k runs is about (pi/2) s^2 / k (normal
 * runs); s^2 from the MAD keeps about 37% of the degrees of freedom. */
#define MEDIAN_VAR_FACTOR 1.5707963267948966
#define MAD_DF_SHARE 0.37

static void
seg_of(const struct prefix *P, size_t a, size_t b, struct seg *s)
{
	double w = P->w[b] - P->w[a], wc = P->wc[b] - P->wc[a];
	double wc2 = P->wc2[b] - P->wc2[a], w2 = P->w2[b] - P->w2[a];
	double m = wc / w, ss = wc2 - wc * m;

	s->n = (double)(b - a);
	s->neff = w2 > 0 ? w * w / w2 : s->n;
	s->w = w;
	s->mean = m + P->shift;
	s->var = s->n > 1 && ss > 0 ? ss / w * s->n / (s->n - 1) : 0;
	s->rdf = P->rdf[b] - P->rdf[a];
	s->rss = P->rss[b] - P->rss[a];
}

/* The standard error of the difference of the levels L and R, and its
 * degrees of freedom: the larger of the commits' spread and the one their
 * runs imply (see the top of the file). SE_B, DF_B: the commits'. */
static double
diff_se(const struct seg *l, const struct seg *r, double se_b, double df_b, double *df)
{
	double rdf = l->rdf + r->rdf, se_r;

	*df = df_b;
	if (!(rdf > 0) || !(l->rss + r->rss > 0))
		return se_b;
	se_r = sqrt(MEDIAN_VAR_FACTOR * (l->rss + r->rss) / rdf * (1 / l->w + 1 / r->w));
	if (!(se_r > se_b))
		return se_b;
	*df = MAD_DF_SHARE * rdf > df_b ? MAD_DF_SHARE * rdf : df_b;
	return se_r;
}

/* Student's t (pooled variance) between two levels; two-sided p, not
 * corrected. Pooled, not Welch: a level of two or three commits says
 * little about its own spread, and Welch would trust it. */
static double
student_p(const struct seg *l, const struct seg *r, double *t_out, double *df_out, double *se_out)
{
	double df = l->n + r->n - 2, sp2, se, t;

	*t_out = 0;
	*df_out = df > 1 ? df : 1;
	*se_out = 0;
	if (l->n < 2 || r->n < 2)
		return 1;
	sp2 = ((l->n - 1) * l->var + (r->n - 1) * r->var) / df;
	se = diff_se(l, r, sqrt(sp2 * (1 / l->neff + 1 / r->neff)), df, &df);
	*df_out = df;
	*se_out = se;
	if (!(se > 0))
		return r->mean == l->mean ? 1 : 0;
	t = (r->mean - l->mean) / se;
	*t_out = t;
	return 2 * ty_stats_t_cdf(-fabs(t), df);
}

/* The p-value of the point C against the level L as one more value of it
 * (a prediction interval), two-sided; 1 when C lies on the side opposite
 * to SIGN. */
static double
predict_p(const struct seg *l, double c, double sign)
{
	double s = sqrt(l->var), t;

	if (l->n < 3)
		return 1;
	if (!(s > 0))
		return c == l->mean ? 1 : (c - l->mean) * sign > 0 ? 0 : 1;
	t = (c - l->mean) / (s * sqrt(1 + 1 / l->neff));
	if (t * sign <= 0)
		return 1;
	return 2 * ty_stats_t_cdf(-fabs(t), l->neff > 1 ? l->neff - 1 : 1);
}

/* The corrected p-value of a change at T between the levels [A, T) and
 * [T, B). A level of two commits must have each of them apart from the
 * other level on its own: an odd commit beside an ordinary one is no
 * level. */
static double
split_p(const struct prefix *P, size_t a, size_t t, size_t b)
{
	struct seg l, r;
	double tt, df, se, p, places, sign;
	size_t i;

	if (t < a + 2 || b < t + 2)
		return 1;
	seg_of(P, a, t, &l);
	seg_of(P, t, b, &r);
	p = student_p(&l, &r, &tt, &df, &se);
	sign = r.mean > l.mean ? 1 : -1;
	if (r.n < 3)
		for (i = t; i < b; i++) {
			double q = predict_p(&l, P->x[i].centre, sign);
			if (q > p)
				p = q;
		}
	if (l.n < 3)
		for (i = a; i < t; i++) {
			double q = predict_p(&r, P->x[i].centre, -sign);
			if (q > p)
				p = q;
		}
	places = (double)(b - a) - 3;
	p *= places > 1 ? places : 1;
	return p > 1 ? 1 : p;
}

/* The split of X[A, B) with the largest q-hat (alpha = 1), both sides at
 * least 2 points long; 0 when the segment is too short. O((B-A)^2). */
static size_t
qhat_split(const double *x, size_t a, size_t b, double *rowbuf)
{
	size_t L = b - a, i, j, t, best = 0;
	double total = 0, within_l = 0, within_r, bestq = -1;

	if (L < 4)
		return 0;
	/* rowbuf[i]: sum of |x_i - x_j| over j > i, inside the segment */
	for (i = a; i < b; i++) {
		double s = 0;
		for (j = i + 1; j < b; j++)
			s += fabs(x[i] - x[j]);
		rowbuf[i - a] = s;
		total += s;
	}
	within_r = total;
	/* move points 0..t-1 to the left side one at a time */
	for (t = a; t + 2 < b; t++) {
		double to_left = 0;
		/* x[t] leaves the right side: its pairs inside the right go */
		within_r -= rowbuf[t - a];
		for (i = a; i < t; i++)
			to_left += fabs(x[i] - x[t]);
		within_l += to_left;
		if (t + 1 < a + 2)
			continue;
		{
			double m = (double)(t + 1 - a), n = (double)(b - t - 1);
			double between = total - within_l - within_r;
			double q = m * n / (m + n) *
				   (2 * between / (m * n) - within_l / (m * (m - 1) / 2) -
				    within_r / (n * (n - 1) / 2));
			if (q > bestq) {
				bestq = q;
				best = t + 1;
			}
		}
	}
	return best;
}

struct cands {
	size_t *v, n, cap;
};

static int
cands_add(struct cands *c, size_t i)
{
	size_t k;

	for (k = 0; k < c->n; k++)
		if (c->v[k] == i)
			return 0;
	if (ty_array_grow(&c->v, sizeof(*c->v), c->n + 1, &c->cap) < 0)
		return -ENOMEM;
	c->v[c->n++] = i;
	return 0;
}

/* Recursive E-Divisive on X[A, B): every split whose test passes. */
static int
divide(const double *x, const struct prefix *P, size_t a, size_t b, double max_p, double *rowbuf,
       struct cands *c, int depth)
{
	size_t t;
	int rc;

	if (depth > 64 || b - a < 4)
		return 0;
	t = qhat_split(x, a, b, rowbuf);
	if (!t || split_p(P, a, t, b) >= max_p)
		return 0;
	if ((rc = cands_add(c, t)) < 0)
		return rc;
	if ((rc = divide(x, P, a, t, max_p, rowbuf, c, depth + 1)) < 0)
		return rc;
	return divide(x, P, t, b, max_p, rowbuf, c, depth + 1);
}

static int
cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The best place for the change between neighbours A and B, within 3 of T. */
static size_t
refine(const struct prefix *P, size_t a, size_t t, size_t b)
{
	size_t best = t, u, lo = t > a + 5 ? t - 3 : a + 2, hi = t + 3 + 2 <= b ? t + 3 : b - 2;
	double bestp = split_p(P, a, t, b), bestt = 0;
	struct seg l, r;
	double tt, df, se;

	if (lo < a + 2)
		lo = a + 2;
	seg_of(P, a, t, &l);
	seg_of(P, t, b, &r);
	student_p(&l, &r, &bestt, &df, &se);
	for (u = lo; u <= hi && u + 2 <= b; u++) {
		double p = split_p(P, a, u, b);
		seg_of(P, a, u, &l);
		seg_of(P, u, b, &r);
		student_p(&l, &r, &tt, &df, &se);
		if (p < bestp || (p == bestp && fabs(tt) > fabs(bestt))) {
			bestp = p;
			bestt = tt;
			best = u;
		}
	}
	return best;
}

static void
describe(const struct prefix *P, size_t a, size_t t, size_t b, double confidence,
	 struct ty_history_change *ch)
{
	struct seg l, r;
	double tt = 0, df = 1, se = 0, q, hl, hr;
	double alpha = 1 - confidence / 100;

	seg_of(P, a, t, &l);
	seg_of(P, t, b, &r);
	student_p(&l, &r, &tt, &df, &se);
	ch->index = t;
	ch->n_before = t - a;
	ch->n_after = b - t;
	ch->p = split_p(P, a, t, b);
	ch->before = l.mean;
	ch->after = r.mean;
	hl = l.n > 1 ? ty_stats_t_quantile(1 - alpha / 2, l.neff > 1 ? l.neff - 1 : 1) *
			   sqrt(l.var / l.neff)
		     : 0;
	hr = r.n > 1 ? ty_stats_t_quantile(1 - alpha / 2, r.neff > 1 ? r.neff - 1 : 1) *
			   sqrt(r.var / r.neff)
		     : 0;
	ch->before_lo = l.mean - hl;
	ch->before_hi = l.mean + hl;
	ch->after_lo = r.mean - hr;
	ch->after_hi = r.mean + hr;
	q = ty_stats_t_quantile(1 - alpha / 2, df);
	ch->change_pct = (r.mean / l.mean - 1) * 100;
	ch->ci_low = (r.mean - l.mean - q * se) / fabs(l.mean) * 100;
	ch->ci_high = (r.mean - l.mean + q * se) / fabs(l.mean) * 100;
	ch->single = 0;
}

/* The newest point alone against the level [A, N-1) before it: a
 * prediction interval of one new value. Returns its p-value. */
static double
newest_p(const struct prefix *P, const struct ty_history_point *x, size_t a, size_t n, double *df)
{
	struct seg l;
	double s, t;

	seg_of(P, a, n - 1, &l);
	if (l.n < 3)
		return 1;
	s = sqrt(l.var);
	*df = l.neff > 1 ? l.neff - 1 : 1;
	if (!(s > 0))
		return x[n - 1].centre == l.mean ? 1 : 0;
	t = (x[n - 1].centre - l.mean) / (s * sqrt(1 + 1 / l.neff));
	return 2 * ty_stats_t_cdf(-fabs(t), *df);
}

/* The newest point alone as the change after the level [A, N-1). */
static void
single(const struct prefix *P, const struct ty_history_point *x, size_t a, size_t n,
       double confidence, struct ty_history_change *ch)
{
	struct seg l;
	double df = 1, s, q, hl, alpha = 1 - confidence / 100;

	seg_of(P, a, n - 1, &l);
	memset(ch, 0, sizeof(*ch));
	ch->index = n - 1;
	ch->single = 1;
	ch->n_before = n - 1 - a;
	ch->n_after = 1;
	ch->p = newest_p(P, x, a, n, &df);
	q = ty_stats_t_quantile(1 - alpha / 2, df);
	hl = q * sqrt(l.var / l.neff);
	ch->before = l.mean;
	ch->before_lo = l.mean - hl;
	ch->before_hi = l.mean + hl;
	ch->after = x[n - 1].centre;
	ch->after_lo = x[n - 1].lo;
	ch->after_hi = x[n - 1].hi;
	s = sqrt(l.var * (1 + 1 / l.neff));
	ch->change_pct = (ch->after / l.mean - 1) * 100;
	ch->ci_low = (ch->after - l.mean - q * s) / fabs(l.mean) * 100;
	ch->ci_high = (ch->after - l.mean + q * s) / fabs(l.mean) * 100;
}

static int
prefix_init(struct prefix *P, const struct ty_history_point *x, size_t n)
{
	size_t i;

	P->w = calloc(6 * (n + 1), sizeof(double));
	if (!P->w)
		return -ENOMEM;
	P->wc = P->w + (n + 1);
	P->wc2 = P->wc + (n + 1);
	P->w2 = P->wc2 + (n + 1);
	P->rdf = P->w2 + (n + 1);
	P->rss = P->rdf + (n + 1);
	P->shift = n ? x[0].centre : 0;
	P->x = x;
	for (i = 0; i < n; i++) {
		double w = x[i].weight > 0 ? x[i].weight : 1, c = x[i].centre - P->shift;
		P->w[i + 1] = P->w[i] + w;
		P->wc[i + 1] = P->wc[i] + w * c;
		P->wc2[i + 1] = P->wc2[i] + w * c * c;
		P->w2[i + 1] = P->w2[i] + w * w;
		/* a commit's runs, when their spread is known */
		double k = x[i].weight, v = x[i].run_var;
		int known = k >= 3 && isfinite(v) && v > 0;
		P->rdf[i + 1] = P->rdf[i] + (known ? k - 1 : 0);
		P->rss[i + 1] = P->rss[i] + (known ? (k - 1) * v : 0);
	}
	return 0;
}

/* Merge: drop the weakest change point (largest p against its neighbours,
 * or the smallest change below MIN_PCT) until every one passes. */
static void
merge(const struct prefix *P, struct cands *c, size_t n, double max_p, double min_pct)
{
	for (;;) {
		size_t k, worst = 0;
		double worst_p = -1, small = INFINITY;
		size_t smallest = 0;
		for (k = 0; k < c->n; k++) {
			size_t a = k ? c->v[k - 1] : 0, b = k + 1 < c->n ? c->v[k + 1] : n;
			double p = split_p(P, a, c->v[k], b);
			if (p > worst_p) {
				worst_p = p;
				worst = k;
			}
			if (min_pct > 0) {
				struct seg l, r;
				seg_of(P, a, c->v[k], &l);
				seg_of(P, c->v[k], b, &r);
				double pct = fabs(r.mean / l.mean - 1) * 100;
				if (pct < small) {
					small = pct;
					smallest = k;
				}
			}
		}
		if (!c->n)
			return;
		if (worst_p < max_p) {
			if (!(min_pct > 0) || small >= min_pct)
				return;
			worst = smallest;
		}
		memmove(c->v + worst, c->v + worst + 1, (c->n - worst - 1) * sizeof(*c->v));
		c->n--;
	}
}

double
ty_history_min_step(const struct ty_history_point *x, size_t n,
		    const struct ty_history_detect_opts *o, double power)
{
	struct ty_history_detect_opts def;
	struct prefix P = {0};
	struct seg all, l, r;
	double places, se, df, alpha, t, step;
	size_t m, i;

	if (!o) {
		ty_history_detect_defaults(&def);
		o = &def;
	}
	for (i = 0; i < n; i++)
		if (!isfinite(x[i].centre) || !isfinite(x[i].weight) || x[i].weight < 0)
			return NAN;
	m = n < (o->window >= 8 ? o->window : 8) ? n : (o->window >= 8 ? o->window : 8);
	if (m < 4 || !(power > 0 && power < 1) || prefix_init(&P, x, n) < 0)
		return NAN;
	/* the series as one level; a step in the middle of M commits like it */
	seg_of(&P, 0, n, &all);
	free(P.w);
	if (!(all.mean != 0))
		return NAN;
	l = all;
	l.n = (double)(m / 2);
	l.neff = all.neff * l.n / all.n;
	l.w = all.w * l.n / all.n;
	l.rdf = all.rdf * l.n / all.n;
	l.rss = all.rss * l.n / all.n;
	r = l;
	r.n = (double)(m - m / 2);
	r.neff = all.neff * r.n / all.n;
	r.w = all.w * r.n / all.n;
	r.rdf = all.rdf * r.n / all.n;
	r.rss = all.rss * r.n / all.n;
	df = (double)m - 2;
	se = diff_se(&l, &r, sqrt(all.var * (1 / l.neff + 1 / r.neff)), df, &df);
	places = (double)m - 3;
	alpha = o->max_p / (places > 1 ? places : 1);
	t = ty_stats_t_quantile(1 - alpha / 2, df) + ty_stats_t_quantile(power, df);
	step = t * se;
	return se > 0 ? step / fabs(all.mean) * 100 : NAN;
}

int
ty_history_detect(const struct ty_history_point *x, size_t n,
		  const struct ty_history_detect_opts *o, struct ty_history_change **out,
		  size_t *nout, struct ty_error *e)
{
	struct ty_history_detect_opts def;
	struct prefix P = {0};
	struct cands c = {0};
	double *cen = NULL, *rowbuf = NULL, first_p;
	size_t i, start, win, step, k;
	int rc = 0;

	*out = NULL;
	*nout = 0;
	if (!o) {
		ty_history_detect_defaults(&def);
		o = &def;
	}
	for (i = 0; i < n; i++)
		if (!isfinite(x[i].centre) || !isfinite(x[i].weight) || x[i].weight < 0)
			return ty_error_set(e, -EINVAL,
					    "commit %zu of the series has no finite value", i + 1);
	if (n < 2)
		return 0;
	win = o->window >= 8 ? o->window : 8;
	step = win / 2;
	first_p = o->max_p * 10 < 0.5 ? o->max_p * 10 : o->max_p;
	cen = malloc(n * sizeof(*cen));
	rowbuf = malloc((win + 1) * sizeof(*rowbuf));
	if (!cen || !rowbuf || prefix_init(&P, x, n) < 0) {
		rc = ty_error_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		cen[i] = x[i].centre;
	/* split: overlapping windows, E-Divisive in each */
	for (start = 0;; start += step) {
		size_t end = start + win < n ? start + win : n;
		if ((rc = divide(cen, &P, start, end, first_p, rowbuf, &c, 0)) < 0) {
			ty_error_set(e, rc, "out of memory");
			goto out;
		}
		if (end == n)
			break;
	}
	if (c.n > 1)
		qsort(c.v, c.n, sizeof(*c.v), cmp_size);
	merge(&P, &c, n, o->max_p, o->min_change_pct);
	for (k = 0; k < c.n; k++) {
		size_t a = k ? c.v[k - 1] : 0, b = k + 1 < c.n ? c.v[k + 1] : n;
		c.v[k] = refine(&P, a, c.v[k], b);
	}
	merge(&P, &c, n, o->max_p, o->min_change_pct);
	/* the newest commit, alone */
	{
		size_t a = c.n ? c.v[c.n - 1] : 0;
		double df = 1, p = a + 1 < n ? newest_p(&P, x, a, n, &df) : 1;
		int add = p < o->max_p;
		struct seg l;
		if (add && o->min_change_pct > 0) {
			seg_of(&P, a, n - 1, &l);
			add = fabs(x[n - 1].centre / l.mean - 1) * 100 >= o->min_change_pct;
		}
		if (add && (rc = cands_add(&c, n - 1)) < 0) {
			ty_error_set(e, rc, "out of memory");
			goto out;
		}
	}
	if (c.n) {
		*out = calloc(c.n, sizeof(**out));
		if (!*out) {
			rc = ty_error_set(e, -ENOMEM, "out of memory");
			goto out;
		}
	}
	for (k = 0; k < c.n; k++) {
		size_t a = k ? c.v[k - 1] : 0, b = k + 1 < c.n ? c.v[k + 1] : n;
		struct ty_history_change *ch = &(*out)[k];
		if (c.v[k] == n - 1) {
			single(&P, x, a, n, o->confidence, ch);
		} else {
			describe(&P, a, c.v[k], b, o->confidence, ch);
		}
	}
	*nout = c.n;
out:
	free(cen);
	free(rowbuf);
	free(P.w);
	free(c.v);
	return rc;
}
