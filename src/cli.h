/* cli.h - what the subcommands of the tachy tool share (src/ only): exit
 * statuses, messages, and the one table-driven option parser. */
#ifndef TACHY_CLI_H
#define TACHY_CLI_H

#include <stddef.h>
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

/* The one wording of a bad option value: "invalid value 'ARG' for OPT:
 * expected EXPECTED" (OPT as the user typed it), then the --help hint.
 * Returns EXIT_USAGE. */
int cli_bad_value(const char *opt, const char *arg, const char *expected_fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parse a whole decimal integer / real number in [MIN, MAX] for option OPT.
 * Return 0 and store it, or print a usage error and return EXIT_USAGE. */
int cli_parse_long(const char *opt, const char *s, long min, long max, long *out);
int cli_parse_double(const char *opt, const char *s, double min, double max, double *out);

/* Flush stdout and report a failed write (EPIPE, ENOSPC, ...).
 * Returns STATUS when all went well, EXIT_RUNTIME otherwise. */
int cli_finish_stdout(int status);

/* ---- the option parser (git's parse-options is the model) ----
 *
 * A command describes its options in an array of struct cli_option built
 * with the OPT_* macros and ended by OPT_END(); cli_parse() reads argv
 * against it and cli_help() prints the usage generated from it. Accepted:
 * --long=VAL, --long VAL, an unambiguous prefix of a long name, -xVAL,
 * -x VAL, bundled short flags (-Anq, -Ar9), and "--" ending the options.
 * Operands may come between options unless CLI_STOP_AT_OPERAND is set.
 * Every error names the option as it was typed, in one wording:
 *   unknown option '--fast'
 *   option '--root' needs a value
 *   option '--json' takes no value
 *   option '--ex' is ambiguous: --export-json, --export-csv
 *   invalid value 'x' for -r: expected a whole number from 1 to 100000000
 * followed by "Try 'tachy CMD --help'." and exit status 2. */

enum cli_type {
	CLI_T_END,
	CLI_T_GROUP,	/* a line of text in the help (a group's title) */
	CLI_T_HELP,	/* -h/--help: print the help, stop */
	CLI_T_FLAG,	/* int *value = ival */
	CLI_T_LONG,	/* long *value, in [min, max] */
	CLI_T_DOUBLE,	/* double *value, in [min, max] */
	CLI_T_STRING,	/* const char **value (the last one given wins) */
	CLI_T_STRINGS,	/* struct cli_strings *value: every one given, in order */
	CLI_T_CHOICE,	/* int *value = the index of the value in choices[] */
	CLI_T_CALLBACK, /* cb(opt, typed, args) with nargs values */
};

/* Flags of an option. */
enum {
	CLI_OPTARG = 1, /* the value is optional: --long=VAL or -xVAL only */
};

/* Flags of a parser. */
enum {
	CLI_STOP_AT_OPERAND = 1, /* options end at the first operand (a command's argv) */
};

/* Repeated strings (CLI_T_STRINGS): V[0..N), the caller frees V. */
struct cli_strings {
	const char **v;
	size_t n;
};

struct cli_option {
	enum cli_type type;
	int short_name;	       /* 0: none */
	const char *long_name; /* NULL: none */
	void *value;
	const char *argh; /* the value's name in the help ("N"), NULL: takes none */
	const char *help; /* '\n' starts a continuation line; NULL: not listed */
	int flags;
	long ival;		    /* FLAG: the value stored */
	double min, max;	    /* LONG, DOUBLE: the range */
	const char *const *choices; /* CHOICE: NULL-terminated */
	int nargs;		    /* CALLBACK: how many values (0 to 3) */
	/* CALLBACK: ARGS[0..nargs) are the values (ARGS[0] is NULL when there
	 * is none: nargs 0, or an optional value not given); TYPED is the option
	 * as typed, for messages. Returns 0, or an exit status after printing why. */
	int (*cb)(const struct cli_option *opt, const char *typed, char **args);
};

#define OPT_END()                                                                                  \
	{                                                                                          \
		CLI_T_END, 0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, NULL, 0, NULL                    \
	}
#define OPT_GROUP(text)                                                                            \
	{                                                                                          \
		CLI_T_GROUP, 0, NULL, NULL, NULL, (text), 0, 0, 0, 0, NULL, 0, NULL                \
	}
#define OPT_HELP(s, l, h)                                                                          \
	{                                                                                          \
		CLI_T_HELP, (s), (l), NULL, NULL, (h), 0, 0, 0, 0, NULL, 0, NULL                   \
	}
#define OPT_SET_INT(s, l, v, val, h)                                                               \
	{                                                                                          \
		CLI_T_FLAG, (s), (l), (v), NULL, (h), 0, (val), 0, 0, NULL, 0, NULL                \
	}
#define OPT_FLAG(s, l, v, h) OPT_SET_INT(s, l, v, 1, h)
/* a flag whose help names the operands it takes (--diff OLD NEW) */
#define OPT_FLAG_OPERANDS(s, l, v, a, h)                                                           \
	{                                                                                          \
		CLI_T_FLAG, (s), (l), (v), (a), (h), 0, 1, 0, 0, NULL, 0, NULL                     \
	}
#define OPT_LONG(s, l, v, a, lo, hi, h)                                                            \
	{                                                                                          \
		CLI_T_LONG, (s), (l), (v), (a), (h), 0, 0, (lo), (hi), NULL, 0, NULL               \
	}
#define OPT_DOUBLE(s, l, v, a, lo, hi, h)                                                          \
	{                                                                                          \
		CLI_T_DOUBLE, (s), (l), (v), (a), (h), 0, 0, (lo), (hi), NULL, 0, NULL             \
	}
#define OPT_STRING(s, l, v, a, h)                                                                  \
	{                                                                                          \
		CLI_T_STRING, (s), (l), (v), (a), (h), 0, 0, 0, 0, NULL, 0, NULL                   \
	}
#define OPT_STRING_OPTARG(s, l, v, a, h)                                                           \
	{                                                                                          \
		CLI_T_STRING, (s), (l), (v), (a), (h), CLI_OPTARG, 0, 0, 0, NULL, 0, NULL          \
	}
#define OPT_STRINGS(s, l, v, a, h)                                                                 \
	{                                                                                          \
		CLI_T_STRINGS, (s), (l), (v), (a), (h), 0, 0, 0, 0, NULL, 0, NULL                  \
	}
#define OPT_CHOICE(s, l, v, a, names, h)                                                           \
	{                                                                                          \
		CLI_T_CHOICE, (s), (l), (v), (a), (h), 0, 0, 0, 0, (names), 0, NULL                \
	}
#define OPT_CALLBACK(s, l, v, a, h, fn)                                                            \
	{                                                                                          \
		CLI_T_CALLBACK, (s), (l), (v), (a), (h), 0, 0, 0, 0, NULL, 1, (fn)                 \
	}
#define OPT_CALLBACK_N(s, l, v, a, n, h, fn)                                                       \
	{                                                                                          \
		CLI_T_CALLBACK, (s), (l), (v), (a), (h), 0, 0, 0, 0, NULL, (n), (fn)               \
	}
#define OPT_CALLBACK_NOARG(s, l, v, h, fn)                                                         \
	{                                                                                          \
		CLI_T_CALLBACK, (s), (l), (v), NULL, (h), 0, 0, 0, 0, NULL, 0, (fn)                \
	}

/* An option a peer has (perf stat -a, perf report --children) with no
 * meaning here: not listed, and refused (exit 2) with WHY, the sentence
 * that says the tachy way; A names the value it takes, NULL: none. */
int cli_opt_refused(const struct cli_option *opt, const char *typed, char **args);
#define OPT_REFUSED(s, l, a, why)                                                                  \
	{                                                                                          \
		CLI_T_CALLBACK, (s), (l), (void *)(why), (a), NULL, 0, 0, 0, 0, NULL, (a) ? 1 : 0, \
		    cli_opt_refused                                                                \
	}

/* --test TEST, the same for every command: student, welch, mann-whitney
 * (or u) into an enum ty_test. */
int cli_opt_test(const struct cli_option *opt, const char *typed, char **args);
#define OPT_TEST(s, v, h) OPT_CALLBACK((s), "test", (v), "TEST", (h), cli_opt_test)
/* The same with yuen too (the commands whose verdicts come from verdict.h:
 * run, compare, plot). */
int cli_opt_test_all(const struct cli_option *opt, const char *typed, char **args);
#define OPT_TEST_ALL(s, v, h) OPT_CALLBACK((s), "test", (v), "TEST", (h), cli_opt_test_all)

struct cli_parser {
	const char *usage;		  /* the usage lines and description, printed first */
	const struct cli_option *options; /* ended by OPT_END() */
	const char *footer;		  /* printed after the options (NULL: none) */
	int flags;			  /* CLI_STOP_AT_OPERAND */
	int width;			  /* column where the options' help starts (0: 27) */
};

/* Options of other tools (perf's, hyperfine's) the command has no such
 * name for: pairs {"-g", "what to use instead"}, ended by NULL; an unknown
 * option found here says so in cli_parse's error. NULL: none. */
void cli_set_hints(const char *const *hints);

/* What is left of argv: the operands V[0..N) (in argv's storage);
 * DASHDASH is the index in V of the first operand after "--", or -1. */
struct cli_args {
	char **v;
	int n;
	int dashdash;
};

/* The return of cli_parse() after --help was printed on stdout: the
 * command returns cli_finish_stdout(EXIT_OK). */
#define CLI_HELP_SHOWN (-1)

/* Parse ARGV[1..ARGC) (ARGV[0] is the command's name) against P's
 * options, storing values as they come (so that an option may depend on
 * the ones before it). Returns 0 with the operands in REST, CLI_HELP_SHOWN,
 * or an exit status after printing why (EXIT_USAGE; a callback's own).
 * ARGV's order is changed: the operands are moved to its front, followed
 * by a NULL. */
int cli_parse(const struct cli_parser *p, int argc, char **argv, struct cli_args *rest);

/* Print P's usage, its options as the table lists them, and its footer. */
void cli_help(const struct cli_parser *p, FILE *fp);

/* Would WORD be taken as one of P's options (an exact or prefix match)? */
int cli_is_option(const struct cli_parser *p, const char *word);

/* S's caches (ty_symbols_set_cache_dir: the kernel's symbols per boot,
 * debug files decompressed): $TACHY_CACHE_DIR ("" disables them), else
 * $XDG_CACHE_HOME/tachy, else $HOME/.cache/tachy; none in another user's
 * home (sudo keeping HOME), where root would leave root's files. A path
 * that fails cachedir.h's rule (a directory of it another user's, or open
 * to others) is not used, with a warning that says why. */
struct ty_symbols;
void cli_symbols_cache(struct ty_symbols *s);

#endif
