/* cli.h - what the subcommands of the tachy tool share (src/ only). */
#ifndef TACHY_CLI_H
#define TACHY_CLI_H

#include <stdio.h>

/* Exit statuses, as documented in tachy(1). */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,    /* a runtime failure */
	EXIT_USAGE = 2,	     /* usage or bad input */
	EXIT_REGRESSION = 3, /* a regression gate tripped */
	EXIT_INTERRUPTED = 130,
};

/* One subcommand. Every src/cmd-NAME.c defines `const struct cmd_info
 * cmd_info_NAME`; the Makefile collects them into the command table. */
struct cmd_info {
	const char *name;
	int rank;	     /* order in `tachy help`: smaller first */
	const char *summary; /* one line for `tachy help` */
	int (*fn)(int argc, char **argv);
};

/* The command being run ("stat", ...), for message prefixes. */
extern const char *cli_cmd;

/* Print "tachy CMD: MESSAGE" on stderr and return STATUS. */
int cli_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "tachy CMD: warning: MESSAGE" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "tachy CMD: MESSAGE" and "Try 'tachy CMD --help'." and return EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse a whole decimal integer / real number in [MIN, MAX] for option OPT.
 * Return 0 and store it, or print a usage error and return EXIT_USAGE. */
int cli_parse_long(const char *opt, const char *s, long min, long max, long *out);
int cli_parse_double(const char *opt, const char *s, double min, double max, double *out);

/* Flush stdout and report a failed write (EPIPE, ENOSPC, ...).
 * Returns STATUS when all went well, EXIT_RUNTIME otherwise. */
int cli_finish_stdout(int status);

#endif
