/* results.h - the result model of a benchmark (results.c).
 *
 * A ty_results holds one ty_result per benchmarked command: every measured
 * run in run order (start time, wall time, wait4 figures, exit status, and
 * the values added by probes such as performance counters), then, after
 * ty_results_analyze(), a summary of every figure, warnings, and the
 * comparison of each command against the reference.
 *
 * Figures: index 0..TY_FIG_BUILTIN-1 are the built-in ones (wall, user,
 * system, maxrss, minflt, majflt, nvcsw, nivcsw); probe values follow, in
 * the order of ty_results.values. Time figures are given in seconds by
 * ty_results_value(); probe values are in their own unit. */
#ifndef TACHY_RESULTS_H
#define TACHY_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tachy/error.h"
#include "tachy/spawn.h"
#include "tachy/stats.h"
#include "tachy/verdict.h"

enum ty_figure {
	TY_FIG_WALL,
	TY_FIG_USER,
	TY_FIG_SYSTEM,
	TY_FIG_MAXRSS,
	TY_FIG_MINFLT,
	TY_FIG_MAJFLT,
	TY_FIG_NVCSW,
	TY_FIG_NIVCSW,
	TY_FIG_BUILTIN
};

/* A value added per run by a probe (a counter, ...). The probe owns the
 * strings and may update supported/scaled/running_share as runs go. */
struct ty_value_desc {
	const char *name;     /* "task-clock": a JSON key and a table label */
	const char *unit;     /* "ns", "" for a count */
	int supported;	      /* 0: the values are NAN */
	int scaled;	      /* the counter was multiplexed and scaled */
	double running_share; /* time running / time enabled, 1.0 when not multiplexed */
	int lower_is_better;  /* for verdict words; 1 for nearly everything */
	int user_only;	      /* counted in user space only (exclude_kernel): the
				 name carries perf's ":u" */
	int exact;	      /* a count that a deterministic program repeats exactly
				 (Valgrind's instructions): where every run of two
				 commands repeats its count, one run a side proves a
				 difference (ty_comparison.exact) */
	const char *source;   /* what counted it ("valgrind cachegrind 3.19.0"), NULL:
				 the perf_event counters */
};

/* One measured run. */
struct ty_results_run {
	int64_t start_ns; /* since the benchmark began */
	int64_t wall_ns;
	struct ty_usage usage;
	int exit_code; /* -1 when killed by a signal */
	int signal;
	int timed_out;
	uint32_t round;
};

struct ty_param {
	char *name, *value;
};

enum ty_stop_reason {
	TY_STOP_RUNS,	   /* -r N reached */
	TY_STOP_PRECISION, /* the confidence interval is narrow enough */
	TY_STOP_MAX_TIME,
	TY_STOP_MAX_RUNS,
	TY_STOP_INTERRUPTED,
	TY_STOP_FAILED,
};

struct ty_result {
	char *command; /* as run, after {VAR} substitution (owned) */
	char *name;    /* -n NAME, else the command (owned) */
	struct ty_param *params;
	size_t nparams;
	struct ty_results_run *runs;
	size_t nruns, cap;
	double *values;	  /* nruns x nvalues probe values, run-major (owned) */
	int64_t shell_ns; /* shell start-up subtracted from each run, 0 without --shell */
	enum ty_stop_reason stop;
	char **warnings;
	size_t nwarnings;
	/* After ty_results_analyze(): per figure. */
	struct ty_summary *sum;		 /* TY_FIG_BUILTIN + nvalues */
	double *ci_half;		 /* half-width of the CI of the mean, per figure */
	struct ty_centre *centre;	 /* per figure: the centre the test compares, with its
					    interval (ty_verdict_centre) */
	long maxrss_floor_kb;		 /* the highest usage.maxrss_floor_kb of the runs */
	int maxrss_measurable;		 /* every run's maxrss is above its floor (else the
					    maxrss figures are the spawner's, not the command's) */
	struct ty_verdict_series series; /* warm-up and level shift of the wall times */
	size_t left_out;	  /* the first LEFT_OUT runs (a detected warm-up) are not in the
				     summaries and comparisons; 0 with keep_warmup */
	size_t maxrss_unmeasured; /* runs kept (after left_out) whose maxrss is not above
				     their floor: left
				     out of the maxrss figure (ty_results_value is NAN) */
	int hooks_once;		  /* it had a hook that runs once (setup, cleanup) */
	int hooks_each;		  /* it had a hook that runs around every run (prepare,
				     conclude): the warnings name the likely cause */
	int64_t warmup_ns;	  /* the wall time of its warm-up runs, all together... */
	long nwarmup;		  /* ...and how many (a wrapping probe's measured runs
				     are not native: these are) */
	char *failure;		  /* why its runs stopped early (a run or a hook failed), NULL: they
				     did not (owned) */
};

/* One figure of one command against the reference. */
struct ty_comparison {
	size_t command, reference, figure;
	struct ty_compare c;
	enum ty_verdict_word verdict; /* ty_verdict_compute's verdict (lower values are "faster") */
	enum ty_interval interval;    /* whether c's interval can be shown */
	int too_few;		      /* so few runs that no difference can be proven (SAME) */
	size_t pairs;		      /* rounds paired (interleaved runs), 0: unpaired */
	int exact;		      /* an exact figure (ty_value_desc.exact) whose every run
					 repeated its command's count: the difference is
					 exact, proven with one run a side (p 0 when it is
					 not 0, else 1) */
};

struct ty_runprof;

struct ty_results {
	struct ty_result *r;
	size_t n;
	size_t reference;
	double confidence; /* percent */
	enum ty_test test;
	const char *clock;		    /* "CLOCK_MONOTONIC" ... */
	const struct ty_value_desc *values; /* probe values, nvalues of them: the array is
					       owned (malloc'd, freed by release), the
					       strings in it belong to the probes */
	size_t nvalues;
	const char *order; /* "interleaved", "sequential", "random"; NULL: not known */
	int interleaved;   /* the runs were in rounds that ran every command once, in turn:
			      comparisons pair the rounds (unless no_pairing) */
	int no_pairing;	   /* compare unpaired even so */
	int keep_warmup;   /* keep a detected warm-up in the figures */
	int shell;	   /* --shell was used */
	double load1;	   /* the 1-minute load average at the start and the
			      CPUs (0: unknown), named where runs waited */
	int load_cpus;
	int interrupted;	   /* the benchmark was stopped by a signal */
	const char *tree_method;   /* the runs' whole-tree peak: "cgroup-v1", "cgroup-v2",
				      NULL when not measured (memcg.h) */
	const char *maxrss_method; /* how peak RSS was measured (ty_spawn_rss_method),
				      NULL when unknown (a file written elsewhere) */
	struct ty_comparison *cmp;
	size_t ncmp;
	const struct ty_runprof *profile; /* per-run profiles (run --profile), exported as
					     tachy.profile (runprof-json.h); NULL: none */
};

/* Set up RS for N commands (results zeroed). Returns 0 or -ENOMEM. */
int ty_results_init(struct ty_results *rs, size_t n, struct ty_error *e);
/* Free everything RS holds (the descriptor array, not its strings). */
void ty_results_release(struct ty_results *rs);

/* Append a run to R, with its NVALUES probe values (or NULL). Returns 0 or -ENOMEM. */
int ty_result_add(struct ty_result *r, const struct ty_results_run *s, const double *values,
		  size_t nvalues, struct ty_error *e);
/* Add a printf-formatted warning to R. Returns 0 or -ENOMEM. */
int ty_result_warn(struct ty_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The highest whole-tree peak (usage.tree_peak_kb) of R's runs after those
 * left out (left_out), KiB; 0
 * when none was measured. */
long ty_result_tree_peak_kb(const struct ty_result *r);

/* Number of figures, a figure's name ("wall", "maxrss", "task-clock"...) and unit. */
size_t ty_results_nfigures(const struct ty_results *rs);
const char *ty_results_figure_name(const struct ty_results *rs, size_t fig);
const char *ty_results_figure_unit(const struct ty_results *rs, size_t fig);

/* The value of figure FIG in run I of R (seconds for the time figures). */
double ty_results_value(const struct ty_results *rs, const struct ty_result *r, size_t i,
			size_t fig);

/* Summaries, confidence intervals, warnings (outliers, slow first run,
 * drift, a warm-up, a level shift) and comparisons against rs->reference.
 * A warm-up found in the wall times (ty_verdict_series) is left out of
 * every figure's summary and comparison unless rs->keep_warmup. Commands with fewer than
 * two runs get no comparison. Returns 0 or -ENOMEM. */
int ty_results_analyze(struct ty_results *rs, struct ty_error *e);

/* The comparison of COMMAND on FIG, or NULL. */
const struct ty_comparison *ty_results_comparison(const struct ty_results *rs, size_t command,
						  size_t fig);

#endif
