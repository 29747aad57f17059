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
#include <stdint.h>

#include "tachy/error.h"
#include "tachy/stats.h"

/* The test tachy uses unless told otherwise (--test): chosen by the
 * validation figures of BENCHMARKS.md ("Statistical validation"). */
#define TY_TEST_DEFAULT TY_TEST_MANN_WHITNEY

/* A sample's centre (mean for t tests, median for Mann-Whitney, the 20%
 * trimmed mean for Yuen) with its CONFIDENCE% interval. */
struct ty_centre {
	size_t n;
	double centre, lo, hi;
	int exact_ci; /* 0: too few values for a median interval; lo/hi are min/max */
};

/* The one vocabulary of every verdict, wall time and counters alike: a
 * higher value is "slower" (lower is better for every figure tachy
 * measures), a lower one "faster", and "~" when no difference is proven. */
enum ty_verdict_word {
	TY_VERDICT_FASTER = -1,
	TY_VERDICT_SAME = 0,
	TY_VERDICT_SLOWER = 1,
};

/* Whether the change's interval can be had (rel_lo, rel_hi of struct
 * ty_compare mean something). */
enum ty_interval {
	TY_INTERVAL_OK,
	TY_INTERVAL_TOO_FEW,	  /* too few values for a bounded interval */
	TY_INTERVAL_FEW_DISTINCT, /* ties: the shift's interval reaches 0 (or its
				     estimate is 0) while the test proves a
				     difference, or the other way round */
	TY_INTERVAL_ZERO_REF,	  /* the reference's centre is 0: no relative change */
};

struct ty_verdict {
	struct ty_centre old, new;
	struct ty_compare c;	      /* the test: change, interval, p-value (stats.h) */
	enum ty_verdict_word verdict; /* what the test proved at the confidence: the
					 direction of its ranks (or signs, or means)
					 when p < 1 - confidence, else SAME */
	enum ty_interval interval;    /* OK, or why c's interval is not to be shown */
	int too_few;		      /* so few values that no difference can be proven */
	double min_p;		      /* smallest p-value the test can give with these sizes */
	size_t pairs;		      /* rounds paired (0: the samples were compared unpaired) */
};

/* How to compare. OLD_ROUND and NEW_ROUND, when both are given, hold the
 * round of each value's run: give them only when the commands ran
 * interleaved (each round ran every command once, one after the other).
 * Then the values of a round present once on each side are paired, and the
 * test is on the per-round log ratios new/old: the paired t interval (t
 * tests), the sign test with the median and its distribution-free interval
 * (Mann-Whitney; the signed-rank test lost power to outliers in the
 * validation: BENCHMARKS.md), the trimmed t interval (Yuen); drift that hits both
 * commands of a round alike cancels out. The verdict falls back to the
 * unpaired test when fewer than 3 rounds, or fewer than half of the
 * values of the larger side, pair, when a paired value is not positive, or
 * when the pairs are too few for the sign test to ever prove a difference
 * (fewer than 6 at 95%). */
struct ty_verdict_opts {
	enum ty_test test;
	double confidence; /* percent */
	const uint32_t *old_round, *new_round;
};

/* Compare NEW[0..NB) against OLD[0..NA) as O says. Returns 0, or -EINVAL
 * (E says why: fewer than 2 values on a side, a confidence outside
 * (0, 100), a non-finite value) or -ENOMEM. When a side has too few values
 * to ever prove a difference, V->too_few is set and the verdict is 0. The
 * one function behind every verdict tachy gives. */
int ty_verdict_compute(const double *old, size_t na, const double *new, size_t nb,
		       const struct ty_verdict_opts *o, struct ty_verdict *v, struct ty_error *e);

/* The centre of X[0..N) that TEST compares, with its CONFIDENCE% interval
 * (what adaptive stopping judges). Returns 0, -EINVAL (N == 0) or -ENOMEM. */
int ty_verdict_centre(const double *x, size_t n, enum ty_test test, double confidence,
		      struct ty_centre *c);

/* "slower", "faster" or "~": the word shown. */
const char *ty_verdict_word_name(enum ty_verdict_word w);
/* "slower", "faster" or "same": the word written in files (JSON, CSV). */
const char *ty_verdict_word_key(enum ty_verdict_word w);

/* Why an interval cannot be had, in words for "n/a (...)": "too few
 * values", "too few distinct values", "the reference is 0"; NULL for
 * TY_INTERVAL_OK. */
const char *ty_verdict_interval_why(enum ty_interval i);

/* What a regression gate "--fail-if-slower LIMIT" makes of a change.
 * Tripping means "slower by more than LIMIT percent, proven at the
 * confidence of the interval": the interval's low bound is beyond LIMIT
 * (with LIMIT 0: the verdict is SLOWER, which an interval that cannot be
 * had (ties) may still prove). */
enum ty_gate {
	TY_GATE_PASS,	  /* not shown slower by more than LIMIT */
	TY_GATE_UNPROVEN, /* the estimate is beyond LIMIT > 0, its interval is not
			     (or cannot be had): may be slower by more, not proven */
	TY_GATE_TOO_FEW,  /* so few values that nothing can be proven */
	TY_GATE_TRIP,	  /* proven slower by more than LIMIT */
};

/* The gate on a change of REL percent with the interval's low bound
 * REL_LO, as VERDICT and INTERVAL say it (TOO_FEW: no proof possible).
 * The one gate decision of run, compare, history and --bisect. */
enum ty_gate ty_verdict_gate(enum ty_verdict_word verdict, enum ty_interval interval, int too_few,
			     double rel, double rel_lo, double limit);

/* The exact verdict of a count each side repeated in every run (run
 * --instructions: one run a side proves it): the change B - A into C (its
 * interval the change itself, p 0 or 1), the word into *VERDICT and into
 * *INTERVAL OK, or TY_INTERVAL_ZERO_REF where A is 0 (no ratio). */
void ty_verdict_exact(double a, double b, struct ty_compare *c, enum ty_verdict_word *verdict,
		      enum ty_interval *interval);

/* The name of TEST's centre: "mean", "median", "trimmed mean". */
const char *ty_verdict_centre_name(enum ty_test test);

/* What V's test was, in words: "Welch's t on means", "Mann-Whitney U on
 * medians", "sign test (median) on the log ratios of 20 paired rounds"...
 * into BUF. */
const char *ty_verdict_method(const struct ty_verdict *v, char *buf, size_t size);

/* The CONFIDENCE% distribution-free interval of the median of X[0..N)
 * (order statistics, exact binomial). Returns 0 and stores *LO, *HI, or
 * -ERANGE when N is too small for one (then *LO, *HI are min and max), or
 * -ENOMEM. */
int ty_verdict_median_ci(const double *x, size_t n, double confidence, double *lo, double *hi);

/* The fewest values X for which ty_verdict_median_ci gives a CONFIDENCE%
 * interval (6 at 95%, 8 at 99%); 0 when CONFIDENCE is out of (0, 100) or
 * more than a million values would be needed. */
size_t ty_verdict_median_min_n(double confidence);

/* What the order of a command's runs says: a warm-up (its first runs
 * differing from the rest) and a level shift in the middle. */
struct ty_verdict_series {
	size_t warmup;	      /* the first WARMUP runs differ from the rest; 0: no warm-up */
	double warmup_ratio;  /* their median over the median of the rest */
	size_t shift_at;      /* runs [SHIFT_AT..) (after the warm-up) are at another level
				 than the runs before them; 0: no shift */
	double before, after; /* the medians of the two levels */
};

/* Look at X[0..N) in run order. A warm-up: the longest-standing prefix of
 * K <= 10 runs (K <= N/3) each beyond 3.5 robust standard deviations
 * (median, MAD) of the rest, all on one side, and so unlikely to be first
 * by chance (fewer than 1% of the orders put the K most extreme runs
 * first), with at most a tenth of the rest as extreme as they are. A level shift: the split of the
 * remaining runs (each part at least 5 runs and a tenth of them) whose Mann-Whitney z is largest,
 * when |z| > 5, the medians differ by 5% or more and two levels fit the runs clearly better than a
 * straight line (else it is a drift). Returns 0 or -ENOMEM. */
int ty_verdict_series(const double *x, size_t n, struct ty_verdict_series *s);

/* TEST as a reader's title: "Welch's t on means", "Mann-Whitney U on
 * medians"...; PAIRED: its paired form ("paired t", "sign test (median)"). */
const char *ty_verdict_test_title(enum ty_test test, int paired);

/* The name of TEST as written in results files: "welch", "student",
 * "mann-whitney", "yuen". */
const char *ty_verdict_test_name(enum ty_test test);

#endif
