/* counters-out.h - performance counters in `tachy run`: the options, the
 * probe that counts every measured run, and the outputs (derived figures,
 * perf stat's own layout and CSV). src/ only. */
#ifndef TACHY_COUNTERS_OUT_H
#define TACHY_COUNTERS_OUT_H

#include <stdio.h>

#include "cli.h"
#include "tachy/counters.h"
#include "tachy/results.h"
#include "tachy/runner.h"

struct counters_cli {
	int off;		     /* --no-counters */
	int replace;		     /* -e LIST given without '+': no defaults */
	int add;		     /* -e +LIST given */
	int perf_stat;		     /* --perf-stat */
	int quiet;		     /* --quiet: not the machine's notes (user-only counting) */
	const char *csv_sep;	     /* -x SEP: perf stat's CSV layout */
	struct ty_event_list user;   /* events named with -e */
	struct ty_event_list events; /* what is counted */
	struct ty_counters set;
	struct ty_value_desc *desc;	      /* one per event: the probe's values */
	char (*label)[TY_EVENT_NAME_MAX + 4]; /* per event: its name in every output,
						 perf's "task-clock:u" in user-only
						 mode (desc[i].name points here) */
	struct ty_counter_value *v;
	double *running_ns; /* per event: sum of running time (for -x) */
	size_t *nread;	    /* per event: runs counted */
	int attached;	    /* attach calls so far */
	int active;	    /* the probe was added */
};

/* The counters' options, as entries of tachy run's option table (cli.h):
 * -e/--events LIST, --no-counters, --perf-stat, -x/--field-separator SEP. */
int counters_opt_events(const struct cli_option *opt, const char *typed, char **args);
int counters_opt_separator(const struct cli_option *opt, const char *typed, char **args);
#define COUNTERS_OPTIONS(cc)                                                                       \
	OPT_CALLBACK('e', "events", (cc), "LIST",                                                  \
		     "count these events instead of the defaults; +LIST\n"                         \
		     "adds them (perf's names, L1-dcache-load-misses,\n"                           \
		     "rNNNN, :u :k)",                                                              \
		     counters_opt_events),                                                         \
	    OPT_FLAG(0, "no-counters", &(cc)->off, "count no events"),                             \
	    OPT_FLAG(0, "perf-stat", &(cc)->perf_stat,                                             \
		     "perf stat's layout and defaults: one run unless -r,\n"                       \
		     "the output shown"),                                                          \
	    OPT_CALLBACK('x', "field-separator", (cc), "SEP",                                      \
			 "with --perf-stat: perf stat's CSV layout", counters_opt_separator)

void counters_cli_init(struct counters_cli *cc);
void counters_cli_release(struct counters_cli *cc);

/* Build the event list and add the counting probe to R (unless off).
 * Returns 0, or an exit status after printing why. */
int counters_cli_setup(struct counters_cli *cc, struct ty_runner *r);

/* After ty_runner_run(): bring what was learned while counting (which
 * events are supported, multiplexing) into RS's value descriptions. */
void counters_cli_finish(struct counters_cli *cc, struct ty_results *rs);

/* After the mean of figure FIG of command CMD: perf stat's derived
 * figure ("   # 0.950 CPUs utilized"), and the share of time counted when
 * the counter was multiplexed. Nothing for figures that are not ours. */
void counters_print_derived(const struct counters_cli *cc, const struct ty_results *rs, size_t cmd,
			    size_t fig, FILE *fp);

/* After the reports: the default events this machine does not have, in
 * one line ("Not supported here (left out): cycles, ..."), and the ones
 * that count only in the kernel when counting user space only ("Not
 * counted in user-only mode (left out): context-switches, ..."); nothing
 * when all are counted or no run finished. (Events asked for with -e and
 * not supported are warned about on stderr.) */
void counters_print_unsupported(const struct counters_cli *cc, const struct ty_results *rs,
				FILE *fp);

/* Every counter of every command against the reference, in one table:
 * means, change with its interval, p-value and verdict (lower, higher,
 * same), from the comparisons of ty_results_analyze(). */
struct term;
void counters_print_comparisons(const struct counters_cli *cc, const struct ty_results *rs,
				const struct term *t, FILE *fp);

/* Command CMD in perf stat's layout (or its CSV layout with -x). */
void counters_print_perf_stat(const struct counters_cli *cc, const struct ty_results *rs,
			      size_t cmd, FILE *fp);

#endif
