/* resopt.h - options and input shared by compare and plot (src/ only). */
#ifndef TACHY_RESOPT_H
#define TACHY_RESOPT_H

#include "tachy/comparison.h"
#include "tachy/results_read.h"

/* Each returns 0, or prints a usage error and returns EXIT_USAGE. */
int resopt_test(const char *s, enum ty_test *t);    /* --test */
int resopt_confidence(const char *s, double *conf); /* --confidence */
int resopt_match(struct ty_match *m, char *rule);   /* --match (keeps RULE) */

/* The comparison options compare and plot share, as getopt letters and
 * their long forms: -t/--test, -c/--confidence, -m/--match, -r/--reference,
 * -F/--figures. Handle option CH with ARG into CMP: returns 0 when done,
 * EXIT_USAGE after printing a usage error, or -1 when CH is not one of them. */
#define RESOPT_CMP_SHORT "t:c:m:r:F:"
#define RESOPT_KEEP_WARMUP 0x200 /* --keep-warmup */
#define RESOPT_NO_PAIRING 0x201	 /* --no-pairing */
/* clang-format off */
#define RESOPT_CMP_LONG                                                        \
	{"test", required_argument, NULL, 't'},                                \
	{"confidence", required_argument, NULL, 'c'},                          \
	{"match", required_argument, NULL, 'm'},                               \
	{"reference", required_argument, NULL, 'r'},                           \
	{"figures", required_argument, NULL, 'F'},                             \
	{"keep-warmup", no_argument, NULL, RESOPT_KEEP_WARMUP},                \
	{"no-pairing", no_argument, NULL, RESOPT_NO_PAIRING}
/* clang-format on */
int resopt_cmp_option(int ch, char *arg, struct ty_cmp_options *cmp);

/* How a results file read from standard input is named. */
#define RESOPT_STDIN "(standard input)"

/* Read PATHS[0..N) into FILES ("-": standard input, at most once).
 * Returns 0, or prints why and returns EXIT_USAGE (bad input) or
 * EXIT_RUNTIME (no jansson, no memory); then nothing is left to release. */
int resopt_read(struct ty_saved *files, char **paths, int n);

#endif
