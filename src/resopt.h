/* resopt.h - options and input shared by compare and plot (src/ only). */
#ifndef TACHY_RESOPT_H
#define TACHY_RESOPT_H

#include "tachy/comparison.h"
#include "tachy/results_read.h"

/* Each returns 0, or prints a usage error and returns EXIT_USAGE. */
int resopt_test(const char *s, enum ty_test *t);    /* --test */
int resopt_confidence(const char *s, double *conf); /* --confidence */
int resopt_match(struct ty_match *m, char *rule);   /* --match (keeps RULE) */

/* How a results file read from standard input is named. */
#define RESOPT_STDIN "(standard input)"

/* Read PATHS[0..N) into FILES ("-": standard input, at most once).
 * Returns 0, or prints why and returns EXIT_USAGE (bad input) or
 * EXIT_RUNTIME (no jansson, no memory); then nothing is left to release. */
int resopt_read(struct ty_saved *files, char **paths, int n);

#endif
