/* runprof-diff.h - where a change is: each function's self time per run
 * (runprof.h) tested between two commands as the wall time is.
 *
 * Per function, the self time of each run in ms: its samples times the
 * time a sample stands for, the same for every run of both sides (all
 * their time over all their samples: the kernel adjusts a frequency-mode
 * period as it goes, and one weight keeps equal counts equal, their
 * difference exactly 0). Paired by round when rounds are given and enough
 * pair (as verdict.h pairs the wall time: at least 6 rounds and half of
 * the larger side): the per-round differences new - old by Wilcoxon's
 * signed-rank test with the Hodges-Lehmann estimate and its interval (the
 * differences are counts with zeros, not ratios: no logarithm); else
 * Mann-Whitney U with the Hodges-Lehmann shift. With a t test (Student,
 * Welch) the paired t / Welch's t on means; with Yuen the trimmed forms.
 *
 * Functions sampled fewer than MIN_SAMPLES times on both sides together
 * are not tested one by one: their times are added into one pooled row,
 * tested once. The rows tested are one family, its familywise error rate
 * (the chance that any unchanged function is flagged) held by Holm's
 * step-down at alpha = 1 - confidence: a row is flagged when its adjusted
 * p (q) is at most alpha. Holm rather than Benjamini-Hochberg's false
 * discovery rate: once the changed function is in, BH lets a second in at
 * p <= 2 alpha / M, so one trial in ~2 alpha/(1 - alpha) names a function
 * that did not change (bench/runprof-fdr-sim.c: 7.1% at 5%, Holm 3.3%, the
 * same power); BH stays available (adjust). The intervals of the R rows
 * flagged out of M are at confidence 1 - R alpha / M (Benjamini-Yekutieli's
 * false coverage rate; Holm's last flagged p is at most alpha / (M - R + 1)
 * <= R alpha / M, so they exclude 0), the others at CONFIDENCE.
 *
 * Total time is tested the same way as a second family (totals below),
 * its error rate held on its own: each family's at alpha. Each row says
 * the other family's verdict of its function (other), so that a function
 * proven in one and not the other can say why (its callees changed; its
 * callees' noise hides its own change).
 *
 * An interval that the test cannot bound (too few differences that are not
 * zero at that confidence) is NAN, never infinite: no interval.
 *
 * A row is one function matched across the two sides by profile-match.h
 * (O's match: its mode; each side's main program found from the side's
 * command line and objects where O leaves it NULL): two builds of one
 * program at two paths have one row a function, not one a side.
 *
 * Row order, the report's: the flagged rows by how much of the wall change
 * they explain (change_ms in the wall change's direction, largest first),
 * then the others by |change_ms|, the pooled row last. */
#ifndef TACHY_RUNPROF_DIFF_H
#define TACHY_RUNPROF_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"
#include "tachy/profile-match.h"
#include "tachy/runprof.h"
#include "tachy/stats.h"

#define TY_RUNPROF_POOLED UINT32_MAX /* the sym of the pooled row */

enum ty_runprof_adjust {
	TY_RUNPROF_HOLM, /* Holm's step-down: the familywise error rate */
	TY_RUNPROF_BH,	 /* Benjamini-Hochberg's step-up: the false discovery rate */
};

struct ty_runprof_diff_opts {
	enum ty_runprof_adjust adjust;
	enum ty_test test;
	double confidence; /* percent */
	/* The round of each run of the old and new command (their results'
	 * runs), or NULL: unpaired. */
	const uint32_t *old_round, *new_round;
	/* Runs to leave out at the start of each side (a warm-up left out). */
	size_t skip_old, skip_new;
	uint32_t min_samples;  /* 0: the default, max(10, runs of both sides) */
	double wall_change_ms; /* the wall time's change (ranks the rows) */
	/* How functions are matched across the sides: the mode, and each
	 * side's main program (NULL: found from the command below and the
	 * objects sampled on that side, ty_profile_match_main). */
	struct ty_profile_match match;
	const char *old_command, *new_command; /* each side's command line, or NULL */
};

struct ty_runprof_row {
	uint32_t sym;			   /* index into the profile's syms, or TY_RUNPROF_POOLED:
					      the new side's function, else the old's */
	uint32_t old_sym, new_sym;	   /* each side's function, UINT32_MAX where the side has
					      none (TY_RUNPROF_POOLED: pooled) */
	size_t npooled;			   /* functions in the pooled row */
	double old_ms, new_ms;		   /* mean self ms per run */
	double old_total_ms, new_total_ms; /* mean total ms per run (NAN: pooled) */
	double change_ms, lo, hi;	   /* the test's estimate of the change, interval */
	double conf;			   /* the interval's confidence, percent */
	double p, q;			   /* p, and its adjusted p (Holm's or BH's) */
	int verdict;			   /* +1 slower, -1 faster, 0 not proven */
	int other; /* the same function's verdict in the other family (self rows: its
		      total's; total rows: its self's), TY_RUNPROF_UNTESTED where it
		      has no row there (pooled, or too rare) */
};

#define TY_RUNPROF_UNTESTED 2

struct ty_runprof_diff {
	struct ty_runprof_row *rows; /* in the report's order */
	size_t nrows;		     /* all rows (every row is tested) */
	size_t nflagged;
	size_t pairs; /* rounds paired (0: unpaired) */
	/* Total time (the function anywhere on the chain, callees in), a
	 * family of its own: each function on the chains at least min_samples
	 * times (no pooled row), tested and ordered as the self rows, with
	 * the adjustment over these rows alone; old_ms/new_ms/change_ms
	 * are total ms here. */
	struct ty_runprof_row *totals;
	size_t ntotals, ntotals_flagged;
	double explained_ms;   /* sum of the flagged changes */
	double wall_change_ms; /* as given */
	double alpha;
	uint32_t min_samples;	       /* as used */
	struct ty_profile_match match; /* as used: the mode and each side's main program
					  (strings of the profile's syms, or NULL) */
};

/* Compare command NEW_CMD of P against OLD_CMD as O says into D. Returns
 * 0; -EINVAL with E (a command index out of range, fewer than 2 runs on a
 * side, a bad confidence, a run index out of range); -ENOMEM. Release D
 * with ty_runprof_diff_release. */
int ty_runprof_diff(const struct ty_runprof *p, size_t old_cmd, size_t new_cmd,
		    const struct ty_runprof_diff_opts *o, struct ty_runprof_diff *d,
		    struct ty_error *e);

/* Exact counts (instructions counted by Valgrind, run --instructions
 * --profile): where every run of each command has the same count for
 * every function, the differences are exact: a row per function counted
 * on either side, change_ms = lo = hi = the difference of the counts (in
 * the counts' unit, not ms), p = q = 0 where it is not 0 (flagged, verdict
 * its sign), else 1; ordered as ty_runprof_diff orders them (the flagged
 * by their change in the direction of the total's, then by |change|); no
 * pooled row, no totals (cachegrind counts no inclusive counts); the
 * functions are P's symbols, one a name (match.mode TY_MATCH_SYM: the
 * counts name no object, so two builds at two paths meet by name). Returns
 * 0; 1 when a function's count differs between runs of one side (D
 * empty: test them with ty_runprof_diff); -EINVAL (no such command, no
 * run), -ENOMEM. */
int ty_runprof_diff_exact(const struct ty_runprof *p, size_t old_cmd, size_t new_cmd,
			  struct ty_runprof_diff *d, struct ty_error *e);

void ty_runprof_diff_release(struct ty_runprof_diff *d);

/* Benjamini-Hochberg: the adjusted p-values of P[0..N) into Q. Returns 0
 * or -ENOMEM. */
int ty_runprof_bh(const double *p, size_t n, double *q);

/* Holm: the adjusted p-values of P[0..N) into Q (each at most 1). Returns
 * 0 or -ENOMEM. */
int ty_runprof_holm(const double *p, size_t n, double *q);

/* The verdict's word: "slower", "faster" or "~". */
const char *ty_runprof_verdict_word(int verdict);

#endif
