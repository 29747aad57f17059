/* run.h - tachy run's parts: its options (run-options.c), the jobs they
 * make (run-jobs.c), the report and exports (run-report.c); cmd-run.c runs
 * the benchmark between them. Private to src/. */
#ifndef TACHY_SRC_RUN_H
#define TACHY_SRC_RUN_H

#include <sched.h>
#include <stdio.h>

#include "cli.h"
#include "counters-out.h"
#include "gate.h"
#include "run-history.h"
#include "run-instr.h"
#include "run-profile.h"
#include "tachy/jsonw.h"
#include "tachy/outfile.h"
#include "tachy/results.h"
#include "tachy/runner.h"
#include "tachy/sysinfo.h"
#include "term.h"

#define MAX_PARAMS 8
#define MAX_COMBOS 100000
#define NEXPORTS 5
#define EXPORT_PATHS(o)                                                                            \
	{                                                                                          \
		(o)->json, (o)->csv, (o)->md, (o)->adoc, (o)->org                                  \
	}

struct param {
	const char *name;
	char **values;
	size_t n;
	const char *min, *max, *step; /* -P, until expanded */
};

/* Strings given per command or once for all. */
#define list cli_strings

struct run_opts {
	struct ty_runner_opts ro;
	struct list cmds, names, hooks[TY_HOOKS];
	const char *reference;
	struct param params[MAX_PARAMS];
	size_t nparams;
	const char *json, *csv, *md, *adoc, *org; /* the exports */
	int sort_mean;				  /* --sort mean-time */
	int quiet;				  /* --quiet: no environment warnings */
	const char *report_file;		  /* -o FILE */
	enum ty_test test;
	int no_pairing, keep_warmup;
	struct gate gate; /* --fail-if-slower P (NAN: off), --gate-on METRIC */
	enum term_color color;
	enum term_style style;
	int order, color_choice; /* --order, --color (-1: not given) */
	const char *unit;
	cpu_set_t cpus;
	int have_cpus;
	int output_given;	      /* --output or --show-output */
	int details;		      /* --details: every figure, every warning */
	struct counters_cli counters; /* -e, --no-counters, --perf-stat, -x */
	struct run_history hist;      /* --history, --bisect */
	struct run_profile prof;      /* --profile */
	struct run_instr instr;	      /* --instructions */
	char **argv_cmd;	      /* after -- */
	int argc_cmd;
};

struct bench {
	struct run_opts o;
	struct ty_job *jobs;
	char **hook_text;
	size_t njobs;
	struct ty_results rs;
	struct ty_runner runner;
	struct term term;
	char *argv_text; /* the command after --, as text */
	struct ty_sysinfo *si;
	struct ty_outfile of[NEXPORTS]; /* the exports: JSON, CSV, markdown, AsciiDoc, Org */
	int of_open[NEXPORTS];
	struct ty_outfile rof; /* -o FILE: the report */
	int rof_open;
};

/* run-options.c: the option table and its checks. */

/* Parse tachy run's ARGV into O (its defaults set by the caller). Returns
 * 0, a negative value when --help or --version was shown, or an exit
 * status after saying what is wrong. */
int run_options_parse(struct run_opts *o, int argc, char **argv);

/* Append S to L. Returns 0, or EXIT_RUNTIME after saying so. */
int run_list_add(struct list *l, const char *s);

/* run-jobs.c: one job per command and parameter value. */

/* The jobs of B (b->jobs, b->rs's results named) from its options.
 * Returns 0 or an exit status after saying what is wrong. */
int run_jobs_build(struct bench *b);

/* run-report.c: the human report, the exports and the gate. */

/* Where the report goes (stdout; stderr when an export or perf stat's
 * report takes stdout; -o FILE) and its colours: B's terminal set up.
 * Returns 0 or an exit status after saying what is wrong. */
int run_report_start(struct bench *b);

/* The progress line (ty_runner.progress; CTX is a struct term). */
void run_report_progress(void *ctx, size_t job, const struct ty_result *res, long target,
			 double left);

/* Print the report of B's results (names and commands escaped). */
void run_report_print(struct bench *b);

/* Commit -o FILE's report. Returns 0 or EXIT_RUNTIME after saying why. */
int run_report_commit(struct bench *b);

/* The regression gate (--fail-if-slower on --gate-on's figure), with the names as the report
 * shows them: 0 or EXIT_REGRESSION, each proof said. */
int run_report_gate(struct bench *b);

/* The commands that failed, each with why (after the report). Returns
 * EXIT_RUNTIME. */
int run_report_failures(const struct ty_results *rs);

/* Open every export before the first run (a path that cannot be written
 * fails at once). Returns 0 or EXIT_RUNTIME after saying why. */
int run_exports_open(struct ty_outfile *of, int *open, const struct run_opts *o);

/* Write and commit the open exports that go to files (TO_STDOUT 0) or to
 * stdout (1). Returns 0 or EXIT_RUNTIME after saying why. */
int run_exports_write(struct ty_outfile *of, int *open, const struct ty_results *rs,
		      const struct run_opts *o, struct ty_sysinfo *si, int to_stdout);

/* Give up the open exports (the destinations are left untouched). */
void run_exports_abort(struct ty_outfile *of, int *open);

/* The machine's facts SI (a struct ty_sysinfo) as members of the JSON
 * export's environment. */
void run_env_json(struct ty_jsonw *w, void *si);

#endif
