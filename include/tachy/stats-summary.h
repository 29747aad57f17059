/* stats-summary.h - descriptive statistics of one sample: the summary,
 * quantiles, the median absolute deviation, the running mean and variance.
 *
 * Pure functions over arrays of doubles; nothing here allocates unless it
 * says so. Confidence levels are given in percent, in (0, 100). */
#ifndef TACHY_STATS_SUMMARY_H
#define TACHY_STATS_SUMMARY_H

#include <stddef.h>

/* Descriptive summary of one sample. */
struct ty_summary {
	size_t n;
	double mean;   /* Welford */
	double var;    /* unbiased (n-1) variance; 0 when n < 2 */
	double stddev; /* sqrt(var) */
	double min, max;
	double median; /* of an even count: the mean of the two middle values */
};

/* Summarize X[0..N): mean and variance by Welford's method, min, max, and
 * the median by linear-time selection. X is not modified (a scratch copy is
 * made when N is large; returns -ENOMEM if that fails). Returns 0. */
int ty_stats_summarize(const double *x, size_t n, struct ty_summary *s);

/* Running mean/variance (Welford), for adaptive stopping. */
struct ty_welford {
	size_t n;
	double mean, m2;
};
void ty_stats_welford_init(struct ty_welford *w);
void ty_stats_welford_add(struct ty_welford *w, double x);
double ty_stats_welford_var(const struct ty_welford *w); /* unbiased, 0 when n < 2 */

/* The Q-quantile (0 <= Q <= 1) of X[0..N) by linear interpolation between
 * order statistics (R type 7). Reorders X (selection, linear time). */
double ty_stats_quantile(double *x, size_t n, double q);

/* Median absolute deviation around MEDIAN (unscaled). Reorders nothing:
 * uses a scratch copy; returns NAN if it cannot allocate. */
double ty_stats_mad(const double *x, size_t n, double median);

/* Half-width of the CONFIDENCE% interval of the mean of S (t-based). */
double ty_stats_mean_ci_halfwidth(const struct ty_summary *s, double confidence);

/* As ty_stats_summarize, computed the way ministat does and in place (used
 * by `tachy stat` to match FreeBSD ministat bit for bit): the
 * mean is the plain sum in input order over N, the variance the sum of
 * squared deviations from it over N - 1, the median by selection.
 * Reorders X; allocates nothing. Returns 0. */
int ty_stats_summarize_inplace(double *x, size_t n, struct ty_summary *s);

/* qsort's comparison of doubles, ascending. */
int ty_stats_cmp_double(const void *a, const void *b);

#endif
