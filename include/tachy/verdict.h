/* verdict.h - compare two samples of one figure and say what changed.
 *
 * The one code path behind every verdict tachy prints (run's comparisons
 * through ty_results_analyze, compare, plot) and behind the statistical
 * validation suite: the test
 * itself comes from stats.h; this adds the centres with their intervals and
 * the checks on whether the samples can prove anything at all. */
#ifndef TACHY_VERDICT_H
#define TACHY_VERDICT_H

#include <stddef.h>

#include "tachy/error.h"
#include "tachy/stats.h"

/* A sample's centre (mean for t tests, median for Mann-Whitney) with its
 * CONFIDENCE% interval. */
struct ty_centre {
	size_t n;
	double centre, lo, hi;
	int exact_ci; /* 0: too few values for a median interval; lo/hi are min/max */
};

struct ty_verdict {
	struct ty_centre old, new;
	struct ty_compare c; /* the test: change, interval, p-value (stats.h) */
	int verdict;	     /* +1 higher, -1 lower, 0 no difference proven */
	int too_few;	     /* so few values that no difference can be proven */
	double min_p;	     /* smallest p-value the test can give with these sizes */
};

/* Compare NEW[0..NB) against OLD[0..NA) with TEST at CONFIDENCE percent.
 * Returns 0, or -EINVAL (E says why: fewer than 2 values on a side, a
 * confidence outside (0, 100), a non-finite value) or -ENOMEM. When a side
 * has too few values to ever prove a difference, V->too_few is set and
 * the verdict is 0. */
int ty_verdict_compute(const double *old, size_t na, const double *new, size_t nb,
		       enum ty_test test, double confidence, struct ty_verdict *v,
		       struct ty_error *e);

/* The CONFIDENCE% distribution-free interval of the median of X[0..N)
 * (order statistics, exact binomial). Returns 0 and stores *LO, *HI, or
 * -ERANGE when N is too small for one (then *LO, *HI are min and max), or
 * -ENOMEM. */
int ty_verdict_median_ci(const double *x, size_t n, double confidence, double *lo, double *hi);

/* The fewest values X for which ty_verdict_median_ci gives a CONFIDENCE%
 * interval (6 at 95%, 8 at 99%); 0 when CONFIDENCE is out of (0, 100) or
 * more than a million values would be needed. */
size_t ty_verdict_median_min_n(double confidence);

/* The name of TEST as written in results files: "welch", "student",
 * "mann-whitney". */
const char *ty_verdict_test_name(enum ty_test test);

#endif
