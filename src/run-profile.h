/* run-profile.h - `tachy run --profile[=HZ]`: every measured run sampled
 * (lib/runprof.c), and the "where it changed" section that run and compare
 * print under the wall-time verdict (lib/runprof-diff.c). */
#ifndef TACHY_RUN_PROFILE_H
#define TACHY_RUN_PROFILE_H

#include <stdio.h>

#include "cli.h"
#include "tachy/comparison.h"
#include "tachy/flame.h"
#include "tachy/jsonw.h"
#include "tachy/profile-match.h"
#include "tachy/results-read.h"
#include "tachy/results.h"
#include "tachy/runner.h"
#include "tachy/runprof-diff.h"
#include "tachy/runprof-json.h"
#include "tachy/runprof.h"
#include "term.h"

struct run_profile {
	int on;
	long hz;
	const char *flame;	  /* --flame OUT.svg */
	enum ty_match_mode match; /* --match: how functions are matched across commands */
	int match_given;
	struct ty_runprof rp;
	struct ty_symbols *syms;
};

int run_profile_opt(const struct cli_option *opt, const char *typed, char **args);

/* --match MODE (its value an enum ty_match_mode): sym, dso,sym, path,sym;
 * anything else a usage error. */
int run_profile_opt_match(const struct cli_option *opt, const char *typed, char **args);

/* run's --match: the same, into a struct run_profile (OPT->value). */
int run_profile_opt_run_match(const struct cli_option *opt, const char *typed, char **args);

#define RUN_PROFILE_MATCH_HELP                                                                     \
	"with --profile: how a function is matched across\n"                                       \
	"commands: dso,sym (default: name and object, the\n"                                       \
	"main program whatever its path), sym, path,sym"

#define RUN_PROFILE_OPTION(p)                                                                      \
	{CLI_T_CALLBACK,                                                                           \
	 0,                                                                                        \
	 "profile",                                                                                \
	 (p),                                                                                      \
	 "HZ",                                                                                     \
	 "sample every measured run (HZ a second, default 499)\n"                                  \
	 "and say which functions' self time changed",                                             \
	 CLI_OPTARG,                                                                               \
	 0,                                                                                        \
	 0,                                                                                        \
	 0,                                                                                        \
	 NULL,                                                                                     \
	 1,                                                                                        \
	 run_profile_opt},                                                                         \
	    {CLI_T_STRING,                                                                         \
	     0,                                                                                    \
	     "flame",                                                                              \
	     &(p)->flame,                                                                          \
	     "OUT.svg",                                                                            \
	     "with --profile (implied), two commands: the other's\n"                               \
	     "flame graph, red/blue only where a change is proven",                                \
	     0,                                                                                    \
	     0,                                                                                    \
	     0,                                                                                    \
	     0,                                                                                    \
	     NULL,                                                                                 \
	     0,                                                                                    \
	     NULL},                                                                                \
	{                                                                                          \
		CLI_T_CALLBACK, 0, "match", (p), "MODE", RUN_PROFILE_MATCH_HELP, 0, 0, 0, 0, NULL, \
		    1, run_profile_opt_run_match                                                   \
	}

/* With --profile: add the sampling probe to R for the jobs of RS, whose
 * export will carry the profiles. Returns 0 or an exit status after
 * printing why. */
int run_profile_setup(struct run_profile *p, struct ty_runner *r, struct ty_results *rs);

/* The section of every command against the reference, under the summary. */
void run_profile_print(const struct run_profile *p, const struct ty_results *rs,
		       const struct term *t, FILE *fp);

/* With --flame: write the differential flame graph of the second
 * command against the reference. Returns 0 or an exit status after
 * printing why. */
int run_profile_flame(struct run_profile *p, const struct ty_results *rs);

void run_profile_release(struct run_profile *p);

/* One comparison of two commands' per-run profiles. */
struct run_profile_pair {
	const struct ty_runprof *rp;
	size_t old_cmd, new_cmd;
	const char *old_name, *new_name;
	struct ty_runprof_diff_opts o; /* o.wall_change_ms: the change of the wall
					  time's centre (what its verdict compares) */
};

/* Compute the diff of PR into D. Returns 0, or -1 after warning why. */
int run_profile_diff(struct run_profile_pair *pr, struct ty_runprof_diff *d);

/* Print the section of PR with D to FP. */
void run_profile_section(FILE *fp, const struct term *t, const struct run_profile_pair *pr,
			 const struct ty_runprof_diff *d);

/* compare and history compare: their functions are matched as
 * C->opt.match_functions says (an enum ty_match_mode). */

/* compare: the section under the tables, for each wall-time row whose
 * benchmarks both have per-run profiles (nothing for the others); where
 * both are instruction counts (runprof.h's exact), their exact section
 * (run-instr.h), not a test of samples. */
void run_profile_compare_text(FILE *fp, const struct ty_cmp_table *c);

/* Write the flame graph of PROF as FO says to PATH (outfile.h: written
 * whole or not at all). Returns 0 or an exit status after printing why. */
int run_profile_flame_file(const char *path, const struct ty_profile *prof,
			   const struct ty_flame_opts *fo);

/* compare --format json: the "functions" array of row R (a wall-time row
 * of C) when both benchmarks have per-run profiles, else nothing. */
void run_profile_compare_json(struct ty_jsonw *w, const struct ty_cmp_table *c,
			      const struct ty_cmp_row *r);

#endif
