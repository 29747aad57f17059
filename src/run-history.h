/* run-history.h - tachy run's --history[=DB] and --bisect BASE.json (src/ only).
 *
 * --history stores the run's results in the history under git's HEAD;
 * --bisect compares them against BASE as `tachy compare` does (the one
 * verdict of comparison.c) and turns the verdict into git bisect run's
 * exit codes: 0 not proven slower, 1 proven slower by more than
 * --fail-if-slower P (default 0) on the figure of --gate-on (the wall time), 125 inconclusive (too
 * few runs to prove anything, or more than P% slower but not proven) or the command could not run,
 * 128 a usage error, 130 interrupted. */
#ifndef TACHY_RUN_HISTORY_H
#define TACHY_RUN_HISTORY_H

#include "gate.h"
#include "tachy/results-read.h"
#include "tachy/results.h"

struct run_history {
	int history;	    /* --history given */
	const char *db;	    /* its DB, NULL: the default */
	const char *bisect; /* BASE.json, NULL: no bisect */
	struct ty_results_saved base;
	int base_read;
	int done; /* run_history_finish gave the exit status */
};

struct run_history_stats {
	enum ty_test test;
	double confidence;
	struct gate gate; /* --fail-if-slower (NAN: 0 where --fail-if-faster is not
			     given either) on --gate-on's figure */
};

/* Before the first run: read BASE. Returns 0 or an exit status. */
int run_history_prepare(struct run_history *h);
void run_history_release(struct run_history *h);

/* git bisect's code for an exit status ST that is no verdict: 128 for a
 * usage error, 130 interrupted, 125 (skip the commit) otherwise. */
int run_history_bisect_status(int st);

/* After the run whose exit status is ST: store and/or judge RS (ENV and
 * CTX fill the export's environment). Returns the final exit status
 * (git bisect's codes with --bisect). */
int run_history_finish(struct run_history *h, const struct ty_results *rs, ty_results_env_fn env,
		       void *ctx, const struct run_history_stats *s, int st);

#endif
