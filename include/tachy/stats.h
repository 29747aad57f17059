/* stats.h - tests and intervals (the summaries of one sample are in
 * stats-summary.h, the distributions in stats-dist.h; both included here).
 *
 * Pure functions over arrays of doubles; nothing here allocates unless it
 * says so. Confidence levels are given in percent, in (0, 100). */
#ifndef TACHY_STATS_H
#define TACHY_STATS_H

#include <stddef.h>

#include "tachy/stats-dist.h"
#include "tachy/stats-summary.h"

/* The tests, each with its centre: Student's and Welch's t (means),
 * Mann-Whitney U with the Hodges-Lehmann shift (medians), Yuen's t on 20%
 * trimmed means (trimmed means). Their paired forms (verdict.h) test the
 * per-round log ratios: a t interval, the sign test on their median, a
 * trimmed t interval. */
enum ty_test { TY_TEST_STUDENT, TY_TEST_WELCH, TY_TEST_MANN_WHITNEY, TY_TEST_YUEN };

/* The share trimmed off each end by Yuen's test and the trimmed mean. */
#define TY_STATS_TRIM 0.2

/* Result of comparing sample B against reference A. */
struct ty_compare {
	enum ty_test test;
	double diff; /* B - A: of means (t tests) or Hodges-Lehmann shift (Mann-Whitney) */
	double diff_lo, diff_hi; /* CONFIDENCE% interval of diff */
	double rel;		 /* diff relative to A's centre, in percent */
	double rel_lo, rel_hi;	 /* its interval, in percent: [diff_lo, diff_hi] / A's centre,
				  * stopped at -100% when no value is negative */
	double ratio, ratio_lo, ratio_hi; /* centre(B)/centre(A) = 1 + rel/100, with interval
					   * 1 + rel_lo/100 .. 1 + rel_hi/100, the low bound
					   * stopped at 0 */
	double p_value;			  /* two-sided */
	double df;			  /* degrees of freedom (t tests) */
	double pooled_s;		  /* Student: pooled standard deviation */
	double u;			  /* Mann-Whitney U of B */
	int significant;		  /* 1 when the difference is proven at CONFIDENCE */
};

/* The intervals of rel and ratio are the interval of the difference that
 * the test decides on, divided by A's centre (the mean for the t tests, the
 * median for Mann-Whitney): so rel's interval excludes 0% and ratio's
 * excludes 1 exactly when SIGNIFICANT is set, and the bounds are ordered.
 * They treat A's centre as known; ministat's relative formula (which
 * rescales A's variance) is kept only in ty_stats_relative_halfwidth, for
 * `tachy stat`'s ministat-compatible Student text. For Mann-Whitney the
 * Hodges-Lehmann interval is built with the same critical count as the
 * test (exact law, or normal law with continuity correction); when the
 * sizes can never give p < alpha, diff_lo/diff_hi are -inf/+inf. With ties
 * exactly at a zero difference a significant interval may end at 0 (it is
 * open there).
 *
 * Student's t (pooled) and Welch's t on summaries. Return 0, or -EINVAL
 * when a sample has fewer than 2 values or CONFIDENCE is out of (0,100). */
int ty_stats_student(const struct ty_summary *a, const struct ty_summary *b, double confidence,
		     struct ty_compare *r);
int ty_stats_welch(const struct ty_summary *a, const struct ty_summary *b, double confidence,
		   struct ty_compare *r);

/* Mann-Whitney U on raw samples: exact p-value for small samples without
 * ties, tie-corrected normal approximation otherwise; diff is the
 * Hodges-Lehmann shift with its interval. Returns 0, -EINVAL, or -ENOMEM. */
int ty_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double confidence,
			  struct ty_compare *r);

/* Yuen's t on the 20% trimmed means of raw samples (winsorized variances,
 * Welch-like degrees of freedom); diff is the difference of the trimmed
 * means. Returns 0; -EINVAL when a side has fewer than 2 values left after
 * trimming or CONFIDENCE is out of range; -ENOMEM. */
int ty_stats_yuen(const double *a, size_t na, const double *b, size_t nb, double confidence,
		  struct ty_compare *r);

/* The 20% trimmed mean of X[0..N) with the half-width of its CONFIDENCE%
 * interval (Tukey-McLaughlin: winsorized standard error, t with h - 1
 * degrees of freedom, h the values kept). Returns 0, -EINVAL (fewer than 2
 * values kept) or -ENOMEM. */
int ty_stats_trimmed_mean(const double *x, size_t n, double confidence, double *tmean,
			  double *halfwidth);

/* One-sample tests of the location of D[0..N) against 0 (paired
 * differences, log ratios): they fill diff (the location), diff_lo,
 * diff_hi (its CONFIDENCE% interval), p_value, df, significant and test;
 * the relative fields are left to the caller. ty_stats_one_sample_t: the
 * mean and Student's t. ty_stats_signed_rank: Wilcoxon's signed-rank test
 * (exact law for up to 50 values without ties or zeros, else the normal law
 * with tie and continuity corrections; zeros are dropped) with the
 * Hodges-Lehmann estimate, the median of the Walsh averages, and its
 * distribution-free interval at the test's critical count; U holds W+.
 * ty_stats_one_sample_trimmed: the 20% trimmed mean, Tukey-McLaughlin's t.
 * Return 0, -EINVAL (too few values, bad confidence) or -ENOMEM. */
int ty_stats_one_sample_t(const double *d, size_t n, double confidence, struct ty_compare *r);
int ty_stats_signed_rank(const double *d, size_t n, double confidence, struct ty_compare *r);
int ty_stats_one_sample_trimmed(const double *d, size_t n, double confidence, struct ty_compare *r);

/* Additions (used by `tachy stat` to match FreeBSD ministat bit for bit). */

/* Pooled standard deviation of A and B (both n >= 2). */
double ty_stats_pooled_s(const struct ty_summary *a, const struct ty_summary *b);

/* Half-widths of the Student intervals for the critical value T: of the
 * difference of means B - A, and of that difference relative to A's mean
 * in percent (ministat's formula: A's variance scaled by (mean B / mean A)^2
 * before pooling). */
double ty_stats_pooled_halfwidth(const struct ty_summary *a, const struct ty_summary *b, double t);
double ty_stats_relative_halfwidth(const struct ty_summary *a, const struct ty_summary *b,
				   double t);

/* ty_stats_student with the critical value T given instead of a confidence
 * level (e.g. from ministat's table). Returns 0, or -EINVAL when a sample
 * has fewer than 2 values or T <= 0. */
int ty_stats_student_t(const struct ty_summary *a, const struct ty_summary *b, double t,
		       struct ty_compare *r);

#endif
