/* history-compare.h - tachy history compare OLD NEW [BENCH...]: the results
 * stored at two commits compared as tachy compare compares two exports,
 * with the "where it changed" section of their per-run profiles (src/ only). */
#ifndef TACHY_HISTORY_COMPARE_H
#define TACHY_HISTORY_COMPARE_H

#include "tachy/profile-match.h"

struct history_compare_opts {
	const char *db, *machine, *output; /* NULL: the default store, any machine, stdout */
	int json;			   /* --format json */
	double confidence;		   /* percent */
	double fail_if_slower;		   /* NAN: no gate */
	double fail_if_faster;		   /* NAN: no gate */
	const char *gate_on;		   /* --gate-on: its figure; NULL: wall */
	enum ty_match_mode match;	   /* --match: the profiles' functions across the commits */
};

/* Compare what ARGS[0] and ARGS[1] (commits) hold, for the benchmarks
 * ARGS[2..N) (all when none). Prints the result or why not; returns an
 * exit status (3: a wall time, or --gate-on's figure, proven slower beyond
 * --fail-if-slower). */
int history_compare(const struct history_compare_opts *o, char **args, int n);

#endif
