/* compare-input.h - options and input shared by compare and plot, and the
 * JSON of a centre that compare and history compare write alike (src/ only). */
#ifndef TACHY_COMPARE_INPUT_H
#define TACHY_COMPARE_INPUT_H

#include "cli.h"
#include "tachy/comparable.h"
#include "tachy/comparison.h"
#include "tachy/jsonw.h"
#include "tachy/results-read.h"

/* Callbacks of the options compare and plot share (see cli.h):
 * -c/--confidence P, a percentage in (0, 100), into a double;
 * -m/--match RULE (OLD=NEW, or /REGEX/ once; RULE is kept) into a struct
 * ty_match. The test is cli.h's OPT_TEST. */
int compare_input_opt_confidence(const struct cli_option *opt, const char *typed, char **args);
int compare_input_opt_match(const struct cli_option *opt, const char *typed, char **args);

/* How a results file read from standard input is named. */
#define COMPARE_INPUT_STDIN "(standard input)"

/* Read PATHS[0..N) into FILES ("-": standard input, at most once).
 * Returns 0, or prints why and returns EXIT_USAGE (bad input) or
 * EXIT_RUNTIME (no jansson, no memory); then nothing is left to release. */
int compare_input_read(struct ty_results_saved *files, char **paths, int n);

/* Write the centre C under KEY as compare's JSON has it: {"n", "centre",
 * "ci_low", "ci_high"}, the interval null where C has too few values for
 * one. */
void compare_input_json_centre(struct ty_jsonw *w, const char *key, const struct ty_centre *c);

/* The most findings comparable.c gives for one pair of sides. */
#define COMPARE_INPUT_FINDINGS 4

/* Judge whether OLD and NEW (N_OLD, N_NEW files, named NAME_OLD and
 * NAME_NEW in the words) are comparable: the findings into F
 * (COMPARE_INPUT_FINDINGS of them at most), each also printed on stderr
 * as a warning. Returns their number. */
size_t compare_input_comparable(const struct ty_results_saved *old, size_t n_old,
				const char *name_old, const struct ty_results_saved *new,
				size_t n_new, const char *name_new,
				struct ty_comparable_finding *f);

/* Print finding F on stderr as a warning: what differs, its facts, the fix. */
void compare_input_warn_finding(const struct ty_comparable_finding *f);

/* Write the findings F[0..N) under "comparability", as compare, history
 * compare and run --bisect have them in their JSON. */
void compare_input_json_findings(struct ty_jsonw *w, const struct ty_comparable_finding *f,
				 size_t n);

#endif
