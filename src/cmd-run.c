/* cmd-run.c - tachy run: benchmark commands, compare them, export results. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "counters-out.h"
#include "resfmt.h"
#include "run-habits.h"
#include "run-profile.h"
#include "runhist.h"
#include "tachy/clock.h"
#include "tachy/outfile.h"
#include "tachy/results.h"
#include "tachy/runner.h"
#include "tachy/sysinfo.h"
#include "tachy/tachy.h"
#include "term.h"

#define MAX_PARAMS 8
#define NEXPORTS 5
#define EXPORT_PATHS(o)                                                                            \
	{                                                                                          \
		(o)->json, (o)->csv, (o)->md, (o)->adoc, (o)->org                                  \
	}

int cmd_run(int argc, char **argv);
#define MAX_COMBOS 100000

static const char usage_text[] =
    "usage: tachy run [options] CMD...\n"
    "       tachy run [options] -- PROG [ARG...]\n"
    "\n"
    "Run each command many times and report its time with a confidence interval;\n"
    "compare each command against the reference with a statistical test.\n"
    "Each CMD is split into words as a shell would and run without a shell.\n"
    "\n";

static const char footer[] =
    "\n"
    "Exit status: 0 ok, 1 a command failed, 2 bad usage, 3 --fail-if-slower tripped,\n"
    "130 interrupted (the finished runs are still reported and exported).\n";

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
	double fail_if_slower; /* NAN: off */
	enum term_color color;
	enum term_style style;
	int order, color_choice; /* --order, --color (-1: not given) */
	const char *unit;
	cpu_set_t cpus;
	int have_cpus;
	int output_given;	      /* --output or --show-output */
	int details;		      /* --details: every figure, every warning */
	struct counters_cli counters; /* -e, --no-counters, --perf-stat, -x */
	struct runhist hist;	      /* --history, --bisect */
	struct run_profile prof;      /* --profile */
	char **argv_cmd;	      /* after -- */
	int argc_cmd;
};

static volatile int stop_flag;
/* the human report: stdout, or stderr when an export goes to stdout */
static FILE *rep;
static volatile pid_t *running_pid;

static void
on_signal(int sig)
{
	pid_t p;

	stop_flag = sig;
	if (running_pid && (p = *running_pid) > 0) {
		kill(-p, SIGKILL);
		kill(p, SIGKILL);
	}
}

static int
list_add(struct list *l, const char *s)
{
	const char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return cli_error(EXIT_RUNTIME, "out of memory");
	v[l->n++] = s;
	l->v = v;
	return 0;
}

/* ---- option values ---- */

static int
parse_cpus(const char *typed, const char *s, cpu_set_t *set)
{
	cpu_set_t allowed;
	const char *p = s;
	char *end;
	long a, b, i;

	CPU_ZERO(set);
	sched_getaffinity(0, sizeof(allowed), &allowed);
	while (*p) {
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a >= CPU_SETSIZE)
			goto bad;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= CPU_SETSIZE)
				goto bad;
			p = end;
		}
		for (i = a; i <= b; i++) {
			if (!CPU_ISSET((int)i, &allowed))
				return cli_usage_error("CPU %ld in %s '%s' is not available here",
						       i, typed, s);
			CPU_SET((int)i, set);
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (CPU_COUNT(set) == 0)
		goto bad;
	return 0;
bad:
	return cli_bad_value(typed, s, "a list of CPUs such as 0,2-3");
}

static int
add_list_param(struct run_opts *o, const char *name, const char *vals)
{
	struct param *p;
	const char *q;
	size_t n = 1, i = 0;

	if (o->nparams >= MAX_PARAMS)
		return cli_usage_error("too many parameters (at most %d)", MAX_PARAMS);
	p = &o->params[o->nparams++];
	memset(p, 0, sizeof(*p));
	p->name = name;
	for (q = vals; *q; q++)
		n += *q == ',';
	p->values = calloc(n, sizeof(char *));
	if (!p->values)
		return cli_error(EXIT_RUNTIME, "out of memory");
	for (q = vals;; q++) {
		const char *c = strchr(q, ',');
		size_t len = c ? (size_t)(c - q) : strlen(q);
		p->values[i++] = strndup(q, len);
		if (!c)
			break;
		q = c;
	}
	p->n = n;
	return 0;
}

static int
decimals(const char *s)
{
	const char *d = strchr(s, '.');

	return d ? (int)strlen(d + 1) : 0;
}

static int
expand_scan(struct param *p)
{
	double a, b, st = 1;
	int dec;
	size_t n, i;

	/* the values were checked when given */
	a = strtod(p->min, NULL);
	b = strtod(p->max, NULL);
	if (p->step)
		st = strtod(p->step, NULL);
	dec = decimals(p->min);
	if (p->step && decimals(p->step) > dec)
		dec = decimals(p->step);
	if (decimals(p->max) > dec)
		dec = decimals(p->max);
	if ((b - a) / st + 1 > MAX_COMBOS)
		return cli_usage_error("-P %s: too many values", p->name);
	n = (size_t)floor((b - a) / st + 1e-9) + 1;
	p->values = calloc(n, sizeof(char *));
	if (!p->values)
		return cli_error(EXIT_RUNTIME, "out of memory");
	for (i = 0; i < n; i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%.*f", dec, a + (double)i * st);
		p->values[i] = strdup(buf);
	}
	p->n = n;
	return 0;
}

/* ---- options ---- */

static int
opt_name(const struct cli_option *opt, const char *typed, char **args)
{
	if (!*args[0])
		return cli_bad_value(typed, args[0], "a name, not an empty string");
	return list_add(opt->value, args[0]);
}

static int
opt_seed(const struct cli_option *opt, const char *typed, char **args)
{
	long s;
	int rc = cli_parse_long(typed, args[0], 1, 0x7fffffffL, &s);

	if (!rc)
		*(uint64_t *)opt->value = (uint64_t)s;
	return rc;
}

static int
opt_style(const struct cli_option *opt, const char *typed, char **args)
{
	/* hyperfine's auto, nocolor and color are accepted too */
	static const char *const styles[] = {"full", "basic", "none", "auto", "nocolor", "color"};
	struct run_opts *o = opt->value;
	size_t v;

	for (v = 0; v < sizeof(styles) / sizeof(styles[0]); v++)
		if (strcmp(args[0], styles[v]) == 0)
			break;
	if (v == sizeof(styles) / sizeof(styles[0]))
		return cli_bad_value(typed, args[0],
				     "full, basic or none (or hyperfine's auto, "
				     "nocolor or color)");
	o->style = v <= TERM_STYLE_NONE ? (enum term_style)v : TERM_STYLE_FULL;
	if (o->style == TERM_STYLE_NONE)
		o->quiet = 1;
	if (v == 4)
		o->color = TERM_COLOR_NEVER;
	else if (v == 5)
		o->color = TERM_COLOR_ALWAYS;
	return 0;
}

static int
opt_unit(const struct cli_option *opt, const char *typed, char **args)
{
	/* hyperfine's names too */
	static const char *const units[] = {
	    "s", "ms", "us", "ns", "second", "millisecond", "microsecond", "nanosecond", NULL};
	size_t i;

	for (i = 0; units[i]; i++)
		if (strcmp(args[0], units[i]) == 0) {
			*(const char **)opt->value = units[i % 4];
			return 0;
		}
	return cli_bad_value(typed, args[0],
			     "s, ms, us or ns (or second, millisecond, microsecond, nanosecond)");
}

static int
opt_scan(const struct cli_option *opt, const char *typed, char **args)
{
	struct run_opts *o = opt->value;
	struct param *p;
	double a, b;

	if (o->nparams >= MAX_PARAMS)
		return cli_usage_error("too many parameters (at most %d)", MAX_PARAMS);
	if (cli_parse_double(typed, args[1], -1e15, 1e15, &a) ||
	    cli_parse_double(typed, args[2], -1e15, 1e15, &b))
		return EXIT_USAGE;
	if (b < a)
		return cli_usage_error("%s %s %s %s: MIN is greater than MAX", typed, args[0],
				       args[1], args[2]);
	p = &o->params[o->nparams++];
	memset(p, 0, sizeof(*p));
	p->name = args[0];
	p->min = args[1];
	p->max = args[2];
	return 0;
}

static int
opt_step(const struct cli_option *opt, const char *typed, char **args)
{
	struct run_opts *o = opt->value;
	double st;

	if (o->nparams == 0 || !o->params[o->nparams - 1].min)
		return cli_usage_error("%s needs a -P before it", typed);
	if (cli_parse_double(typed, args[0], 1e-12, 1e15, &st))
		return EXIT_USAGE;
	o->params[o->nparams - 1].step = args[0];
	return 0;
}

static int
opt_list(const struct cli_option *opt, const char *typed, char **args)
{
	(void)typed;
	return add_list_param(opt->value, args[0], args[1]);
}

static int
opt_shell(const struct cli_option *opt, const char *typed, char **args)
{
	struct ty_runner_opts *r = opt->value;

	if (!*args[0])
		return cli_bad_value(typed, args[0], "a shell such as sh or bash, or none");
	r->shell = strcmp(args[0], "none") == 0 ? NULL : args[0];
	return 0;
}

static int
opt_no_shell(const struct cli_option *opt, const char *typed, char **args)
{
	(void)typed, (void)args;
	((struct ty_runner_opts *)opt->value)->shell = NULL;
	return 0;
}

static int
opt_output(const struct cli_option *opt, const char *typed, char **args)
{
	struct run_opts *o = opt->value;
	struct ty_runner_opts *r = &o->ro;
	const char *s = args[0] ? args[0] : "inherit"; /* --show-output: no value */

	(void)typed;
	o->output_given = 1;
	if (strcmp(s, "null") == 0) {
		r->output = TY_OUTPUT_NULL;
	} else if (strcmp(s, "pipe") == 0) {
		r->output = TY_OUTPUT_PIPE;
	} else if (strcmp(s, "inherit") == 0) {
		r->output = TY_OUTPUT_INHERIT;
	} else {
		r->output = TY_OUTPUT_FILE;
		r->output_file = s;
	}
	return 0;
}

static int
opt_cpu(const struct cli_option *opt, const char *typed, char **args)
{
	struct run_opts *o = opt->value;
	int rc = parse_cpus(typed, args[0], &o->cpus);

	if (!rc)
		o->have_cpus = 1;
	return rc;
}

static int
opt_history(const struct cli_option *opt, const char *typed, char **args)
{
	struct runhist *h = opt->value;

	(void)typed;
	h->history = 1;
	h->db = args[0];
	return 0;
}

static int
opt_sort(const struct cli_option *opt, const char *typed, char **args)
{
	struct run_opts *o = opt->value;

	if (strcmp(args[0], "mean-time") == 0)
		o->sort_mean = 1;
	else if (strcmp(args[0], "auto") == 0 || strcmp(args[0], "command") == 0)
		o->sort_mean = 0;
	else
		return cli_bad_value(typed, args[0], "auto, command or mean-time");
	return 0;
}

static int
opt_version(const struct cli_option *opt, const char *typed, char **args)
{
	(void)opt, (void)typed, (void)args;
	printf("tachy %s\n", TY_VERSION);
	return CLI_HELP_SHOWN;
}

/* The option table of tachy run; O receives the values. */
#define RUN_OPTIONS(o)                                                                             \
	OPT_GROUP("Runs:"),                                                                        \
	    OPT_LONG('r', "runs", &(o)->ro.runs, "N", 1, 100000000,                                \
		     "exactly N runs per command (default: adaptive)"),                            \
	    OPT_LONG('m', "min-runs", &(o)->ro.min_runs, "N", 1, 100000000,                        \
		     "adaptive: at least N runs (default 10)"),                                    \
	    OPT_LONG('M', "max-runs", &(o)->ro.max_runs, "N", 1, 100000000,                        \
		     "adaptive: at most N runs"),                                                  \
	    OPT_DOUBLE(0, "precision", &(o)->ro.precision, "P", 1e-6, 1000,                        \
		       "adaptive: stop when each CI of the centre the test\n"                      \
		       "compares (the median by default) is within P%\n"                           \
		       "(default 1)"),                                                             \
	    OPT_DOUBLE(0, "max-time", &(o)->ro.max_time, "S", 0, 1e9,                              \
		       "adaptive: stop once a command has had S seconds\n(default 10)"),           \
	    OPT_LONG('w', "warmup", &(o)->ro.warmup, "N", 0, 100000000,                            \
		     "N unmeasured runs of each command first"),                                   \
	    OPT_CHOICE(0, "order", &(o)->order, "ORDER", run_orders,                               \
		       "interleaved (default), sequential or random"),                             \
	    OPT_CALLBACK(0, "seed", &(o)->ro.seed, "N", "seed of the random orders", opt_seed),    \
	    OPT_GROUP("Hooks (not measured; once for all commands or once per command):"),         \
	    OPT_STRINGS('s', "setup", &(o)->hooks[TY_HOOK_SETUP], "CMD",                           \
			"before the first run of a command"),                                      \
	    OPT_STRINGS('p', "prepare", &(o)->hooks[TY_HOOK_PREPARE], "CMD",                       \
			"before every run (perf's --pre)"),                                        \
	    OPT_STRINGS(0, "pre", &(o)->hooks[TY_HOOK_PREPARE], "CMD", NULL),                      \
	    OPT_STRINGS(0, "conclude", &(o)->hooks[TY_HOOK_CONCLUDE], "CMD",                       \
			"after every run (perf's --post)"),                                        \
	    OPT_STRINGS(0, "post", &(o)->hooks[TY_HOOK_CONCLUDE], "CMD", NULL),                    \
	    OPT_STRINGS('c', "cleanup", &(o)->hooks[TY_HOOK_CLEANUP], "CMD",                       \
			"after the last run of a command"),                                        \
	    OPT_GROUP("Commands:"),                                                                \
	    OPT_CALLBACK('n', "name", &(o)->names, "NAME",                                         \
			 "name of the next command (the first names go to the\n"                   \
			 "first commands; the rest are named by their command)",                   \
			 opt_name),                                                                \
	    OPT_CALLBACK(0, "command-name", &(o)->names, "NAME", NULL, opt_name),                  \
	    OPT_STRING(0, "reference", &(o)->reference, "CMD",                                     \
		       "compare against CMD (default: the first command)"),                        \
	    OPT_CALLBACK_N('P', "parameter-scan", (o), "VAR MIN MAX", 3,                           \
			   "run with {VAR} = MIN..MAX", opt_scan),                                 \
	    OPT_CALLBACK('D', "parameter-step-size", (o), "STEP",                                  \
			 "step of the last -P (default 1)", opt_step),                             \
	    OPT_CALLBACK_N('L', "parameter-list", (o), "VAR A,B,...", 2,                           \
			   "run with {VAR} = each value", opt_list),                               \
	    OPT_CALLBACK('S', "shell", &(o)->ro, "SH",                                             \
			 "run commands with SH -c ('none': without); its\n"                        \
			 "start-up (the median of 50 runs) is subtracted",                         \
			 opt_shell),                                                               \
	    OPT_CALLBACK_NOARG('N', NULL, &(o)->ro, "no shell (the default)", opt_no_shell),       \
	    OPT_STRING(0, "input", &(o)->ro.input_file, "FILE",                                    \
		       "standard input of the commands (default /dev/null)"),                      \
	    OPT_CALLBACK(0, "output", (o), "WHERE", "null (default), pipe, inherit or a FILE",     \
			 opt_output),                                                              \
	    OPT_CALLBACK_NOARG(0, "show-output", (o), "same as --output inherit", opt_output),     \
	    OPT_CALLBACK(0, "cpu", (o), "LIST", "pin commands and hooks to CPUs (e.g. 0,2-3)",     \
			 opt_cpu),                                                                 \
	    OPT_DOUBLE(0, "timeout", &(o)->ro.timeout, "S", 1e-6, 1e9,                             \
		       "kill a run after S seconds (it counts as failed)"),                        \
	    OPT_DOUBLE(0, "hook-timeout", &(o)->ro.hook_timeout, "S", 1e-6, 1e9,                   \
		       "kill a setup/prepare/conclude/cleanup command after\n"                     \
		       "S seconds (the benchmark stops with an error)"),                           \
	    OPT_CHOICE(0, "leftovers", &(o)->ro.leftovers, "WHAT", run_leftovers,                  \
		       "processes a run leaves in its process group: warn\n"                       \
		       "(default), wait for them, or kill them"),                                  \
	    OPT_FLAG('i', "ignore-failure", &(o)->ro.ignore_failure,                               \
		     "record failing runs and go on"),                                             \
	    RUN_PROFILE_OPTION(&(o)->prof), OPT_GROUP("Statistics:"),                              \
	    OPT_TEST_ALL(0, &(o)->test,                                                            \
			 "mann-whitney (default: medians), yuen (trimmed\n"                        \
			 "means), welch or student (means)"),                                      \
	    OPT_FLAG(0, "no-pairing", &(o)->no_pairing, "compare interleaved rounds unpaired"),    \
	    OPT_FLAG(0, "keep-warmup", &(o)->keep_warmup,                                          \
		     "keep a detected warm-up in the figures"),                                    \
	    OPT_DOUBLE(0, "confidence", &(o)->ro.confidence, "C", 50, 99.9999,                     \
		       "confidence level in percent (default 95)"),                                \
	    OPT_DOUBLE(0, "fail-if-slower", &(o)->fail_if_slower, "P", 0, 1e9,                     \
		       "exit 3 when a command is proven slower than the\n"                         \
		       "reference by more than P% (the interval's bound)"),                        \
	    OPT_GROUP("Output:"),                                                                  \
	    OPT_CALLBACK('u', "time-unit", &(o)->unit, "UNIT",                                     \
			 "s, ms, us or ns, or hyperfine's second, millisecond,\n"                  \
			 "microsecond, nanosecond (default: per command)",                         \
			 opt_unit),                                                                \
	    OPT_CALLBACK(0, "sort", (o), "ORDER",                                                  \
			 "auto (default) or command: the summary and tables in\n"                  \
			 "the order given; mean-time: fastest first",                              \
			 opt_sort),                                                                \
	    OPT_CALLBACK(0, "style", (o), "STYLE",                                                 \
			 "full (default), basic (no colours, ASCII) or none\n"                     \
			 "(also no progress line, and --quiet)",                                   \
			 opt_style),                                                               \
	    OPT_STRING('o', "report-file", &(o)->report_file, "FILE",                              \
		       "the report to FILE, as perf stat -o writes it\n"                           \
		       "(default: stdout; stderr with --perf-stat, as perf's)"),                   \
	    OPT_FLAG(0, "details", &(o)->details,                                                  \
		     "every figure: the median's interval, memory, page\n"                         \
		     "faults, context switches, the default counters"),                            \
	    OPT_FLAG('v', "verbose", &(o)->details, NULL),                                         \
	    OPT_FLAG('q', "quiet", &(o)->quiet,                                                    \
		     "no warnings about the machine (tachy env tells them)"),                      \
	    OPT_CHOICE(0, "color", &(o)->color_choice, "WHEN", run_colors,                         \
		       "auto (default), always or never"),                                         \
	    OPT_STRING(0, "export-json", &(o)->json, "FILE",                                       \
		       "hyperfine's JSON plus tachy's fields ('-' is stdout)"),                    \
	    OPT_STRING(0, "export-csv", &(o)->csv, "FILE", "hyperfine's CSV"),                     \
	    OPT_STRING(0, "export-markdown", &(o)->md, "FILE", "a markdown table"),                \
	    OPT_STRING(0, "export-asciidoc", &(o)->adoc, "FILE", "the table in AsciiDoc"),         \
	    OPT_STRING(0, "export-orgmode", &(o)->org, "FILE", "the table in Org mode"),           \
	    {CLI_T_CALLBACK,                                                                       \
	     0,                                                                                    \
	     "history",                                                                            \
	     &(o)->hist,                                                                           \
	     "DB",                                                                                 \
	     "store the results in the history (tachy-history(1))\n"                               \
	     "under git's HEAD",                                                                   \
	     CLI_OPTARG,                                                                           \
	     0,                                                                                    \
	     0,                                                                                    \
	     0,                                                                                    \
	     NULL,                                                                                 \
	     1,                                                                                    \
	     opt_history},                                                                         \
	    OPT_STRING(0, "bisect", &(o)->hist.bisect, "BASE.json",                                \
		       "compare with BASE and exit as git bisect run wants:\n"                     \
		       "0 not proven slower, 1 proven slower by more than\n"                       \
		       "--fail-if-slower P (default 0), 125 inconclusive or\n"                     \
		       "the command failed, 128 bad usage, 130 interrupted"),                      \
	    OPT_GROUP("Counters (see COUNTERS in tachy-run(1)):"),                                 \
	    COUNTERS_OPTIONS(&(o)->counters), RUN_HABIT_OPTIONS(),                                 \
	    OPT_CALLBACK_NOARG('V', "version", NULL, "tachy's version", opt_version),              \
	    OPT_HELP('h', "help", "this help"), OPT_END()

static const char *const run_orders[] = {"interleaved", "sequential", "random", NULL};
static const char *const run_colors[] = {"auto", "always", "never", NULL};
static const char *const run_leftovers[] = {"warn", "wait", "kill", NULL};

/* Is S one word, a program's name rather than a command line? */
static int
one_word(const char *s)
{
	return !strpbrk(s, " \t\n");
}

/* The commands after the options: strings, one per command (hyperfine's
 * way), with options allowed between them; or one program and its
 * arguments (perf stat's way): after "--"; or when the first is one word
 * and the first word after it that starts with '-' is not an option of
 * ours (tachy run make -j4); or with --perf-stat given before them. */
static int
take_commands(const struct cli_parser *p, struct run_opts *o, struct cli_args *a, char *argv0)
{
	struct cli_parser again = *p;
	struct cli_args b;
	char **sub;
	int i, rc, dashes = 0;

	if (a->dashdash == 0) {
		o->argv_cmd = a->v;
		o->argc_cmd = a->n;
		return a->n ? 0 : cli_usage_error("'--' must be followed by a program to run");
	}
	/* the first word after the first that starts with '-' decides */
	for (i = 1; i < a->n && a->dashdash < 0 && !dashes; i++)
		if (a->v[i][0] == '-' && a->v[i][1])
			dashes = strcmp(a->v[i], "--") == 0 || cli_is_option(p, a->v[i]) ? -1 : 1;
	if (a->dashdash < 0 && a->n > 1 && one_word(a->v[0]) &&
	    (dashes > 0 || o->counters.perf_stat)) {
		o->argv_cmd = a->v;
		o->argc_cmd = a->n;
		return 0;
	}
	/* command strings: the options between them are options still */
	if (!(sub = calloc((size_t)a->n + 2, sizeof(*sub))))
		return cli_error(EXIT_RUNTIME, "out of memory");
	sub[0] = argv0;
	memcpy(sub + 1, a->v, (size_t)a->n * sizeof(*sub));
	again.flags &= ~CLI_STOP_AT_OPERAND;
	rc = cli_parse(&again, a->n + 1, sub, &b);
	for (i = 0; !rc && i < b.n; i++) {
		if (b.dashdash >= 0 && i >= b.dashdash) {
			rc = cli_usage_error("give commands as strings or after '--', not both");
			break;
		}
		rc = list_add(&o->cmds, b.v[i]);
	}
	free(sub);
	return rc;
}

static int
parse_args(struct run_opts *o, int argc, char **argv)
{
	struct cli_option options[] = {RUN_OPTIONS(o)};
	const struct cli_parser parser = {usage_text, options, footer, CLI_STOP_AT_OPERAND, 27};
	struct cli_args a;
	char *argv0 = argv[0];
	int rc;
	size_t k;

	o->color_choice = -1;
	if ((rc = cli_parse(&parser, argc, argv, &a)) ||
	    (rc = take_commands(&parser, o, &a, argv0)))
		return rc;
	if ((rc = run_habits_check(&o->ro, &o->hooks[TY_HOOK_PREPARE], o->counters.perf_stat,
				   o->output_given)))
		return rc;
	o->ro.order = (enum ty_order)o->order;
	o->ro.test = o->test; /* adaptive stopping judges the test's centre */
	if (o->color_choice >= 0)
		o->color = (enum term_color)o->color_choice;
	if (!o->argv_cmd && o->cmds.n == 0 && o->ro.shell && !one_word(o->ro.shell))
		return cli_usage_error("no command to benchmark: --shell takes the shell, and "
				       "'%s' was taken for it (tachy run --shell bash 'CMD')",
				       o->ro.shell);
	if (!o->argv_cmd && o->cmds.n == 0)
		return cli_usage_error("no command to benchmark");
	if (o->ro.max_runs && o->ro.max_runs < o->ro.min_runs && !o->ro.runs) {
		if (o->ro.min_runs != 10)
			return cli_usage_error("-M/--max-runs is smaller than -m/--min-runs");
		o->ro.min_runs = o->ro.max_runs;
	}
	for (k = 0; k < o->nparams; k++) {
		size_t m;
		if (!o->params[k].name[0])
			return cli_usage_error("a parameter needs a name");
		for (m = 0; m < k; m++)
			if (strcmp(o->params[m].name, o->params[k].name) == 0)
				return cli_usage_error("parameter '%s' is given twice",
						       o->params[k].name);
		if (o->params[k].min && (rc = expand_scan(&o->params[k])))
			return rc;
	}
	return 0;
}

/* ---- jobs ---- */

static char *
substitute(const char *s, const struct run_opts *o, const size_t *pick)
{
	size_t cap = strlen(s) + 1, len = 0, k;
	char *out = malloc(cap);
	const char *p = s;

	while (out && *p) {
		const char *val = NULL;
		size_t skip = 1;
		for (k = 0; pick && k < o->nparams && *p == '{'; k++) {
			size_t nl = strlen(o->params[k].name);
			if (strncmp(p + 1, o->params[k].name, nl) == 0 && p[1 + nl] == '}') {
				val = o->params[k].values[pick[k]];
				skip = nl + 2;
				break;
			}
		}
		size_t add = val ? strlen(val) : 1;
		if (len + add + 1 > cap) {
			char *n;
			cap = (len + add + 1) * 2;
			n = realloc(out, cap);
			if (!n) {
				free(out);
				return NULL;
			}
			out = n;
		}
		memcpy(out + len, val ? val : p, add);
		len += add;
		p += skip;
	}
	if (out)
		out[len] = '\0';
	return out;
}

/* Does S hold {VAR} for parameter K (K < 0: for any parameter)? */
static int
uses_param(const struct run_opts *o, const char *s, int k)
{
	size_t m, nl;
	const char *p;

	for (m = 0; m < o->nparams; m++) {
		if (k >= 0 && m != (size_t)k)
			continue;
		nl = strlen(o->params[m].name);
		for (p = strchr(s, '{'); p; p = strchr(p + 1, '{'))
			if (strncmp(p + 1, o->params[m].name, nl) == 0 && p[1 + nl] == '}')
				return 1;
	}
	return 0;
}

static int
uses_params(const struct run_opts *o, const char *s)
{
	return uses_param(o, s, -1);
}

/* COMMAND with the parameters substituted, then, as hyperfine names it,
 * those it does not use: "echo test (branch = master)" (PICK NULL: no
 * parameters). */
static char *
named(const struct run_opts *o, const char *command, const size_t *pick)
{
	char *s = pick ? substitute(command, o, pick) : strdup(command), *t;
	size_t k;
	int first = 1;

	for (k = 0; s && pick && k < o->nparams; k++) {
		if (uses_param(o, command, (int)k))
			continue;
		t = NULL;
		if (asprintf(&t, "%s%s%s = %s", s, first ? " (" : ", ", o->params[k].name,
			     o->params[k].values[pick[k]]) < 0)
			t = NULL;
		free(s);
		s = t;
		first = 0;
	}
	if (s && !first) {
		t = NULL;
		if (asprintf(&t, "%s)", s) < 0)
			t = NULL;
		free(s);
		s = t;
	}
	return s;
}

static char **
make_argv(const char *text, const char *shell, struct ty_error *e)
{
	char **v;

	if (!shell)
		return ty_runner_split(text, &v, e) < 0 ? NULL : v;
	return ty_runner_shell_argv(shell, text, &v, e) < 0 ? NULL : v;
}

static const char *
per_command(const struct list *l, size_t c)
{
	if (l->n == 0)
		return NULL;
	return l->n == 1 ? l->v[0] : l->v[c];
}

static int
build_job(const struct run_opts *o, size_t c, const size_t *pick, struct ty_job *job,
	  struct ty_result *res, char **hook_text)
{
	struct ty_error e;
	/* as hyperfine: the first names go to the first commands, the rest
	 * are named by their command */
	const char *name = c < o->names.n ? o->names.v[c] : NULL;
	size_t k;
	int h;

	ty_error_clear(&e);
	res->command = substitute(o->cmds.v[c], o, pick);
	/* a name given is kept as given ({VAR} substituted) */
	res->name = name ? substitute(name, o, pick) : named(o, o->cmds.v[c], pick);
	res->params = calloc(o->nparams ? o->nparams : 1, sizeof(*res->params));
	if (!res->command || !res->name || !res->params)
		return cli_error(EXIT_RUNTIME, "out of memory");
	for (k = 0; pick && k < o->nparams; k++) {
		res->params[k].name = strdup(o->params[k].name);
		res->params[k].value = strdup(o->params[k].values[pick[k]]);
	}
	res->nparams = pick ? o->nparams : 0;
	if (!(job->argv = make_argv(res->command, o->ro.shell, &e)))
		return cli_error(EXIT_USAGE, "%s", e.msg);
	for (h = 0; h < TY_HOOKS; h++) {
		const char *t = per_command(&o->hooks[h], c);
		if (!t)
			continue;
		if (h == TY_HOOK_SETUP || h == TY_HOOK_CLEANUP)
			res->hooks_once = 1;
		else
			res->hooks_each = 1;
		hook_text[h] = substitute(t, o, pick);
		job->hook_text[h] = hook_text[h];
		if (!hook_text[h] || !(job->hook[h] = make_argv(hook_text[h], o->ro.shell, &e)))
			return cli_error(EXIT_USAGE, "%s", e.msg[0] ? e.msg : "out of memory");
	}
	return 0;
}

static int
check_counts(struct run_opts *o)
{
	static const char *const hn[TY_HOOKS] = {"--setup", "--prepare", "--conclude", "--cleanup"};
	size_t n = o->cmds.n;
	int h;

	if (o->names.n > n)
		return cli_usage_error("%zu names for %zu command%s: give -n/--name at most once "
				       "per command",
				       o->names.n, n, n == 1 ? "" : "s");
	for (h = 0; h < TY_HOOKS; h++)
		if (o->hooks[h].n > 1 && o->hooks[h].n != n)
			return cli_usage_error("%zu %s commands for %zu commands: give it once, or "
					       "once per command",
					       o->hooks[h].n, hn[h], n);
	return 0;
}

/* The index of the reference among the commands; one that is not among
 * them is added first (*ADDED set). */
static int
place_reference(struct run_opts *o, int *added)
{
	size_t i;

	*added = 0;
	if (!o->reference)
		return 0;
	for (i = 0; i < o->cmds.n; i++)
		if (strcmp(o->cmds.v[i], o->reference) == 0 ||
		    (i < o->names.n && strcmp(o->names.v[i], o->reference) == 0))
			return (int)i;
	if (list_add(&o->cmds, o->reference))
		return -1;
	memmove(o->cmds.v + 1, o->cmds.v, (o->cmds.n - 1) * sizeof(char *));
	o->cmds.v[0] = o->reference;
	*added = 1;
	if (o->names.n) { /* the names stay with their commands */
		if (list_add(&o->names, o->reference))
			return -1;
		memmove(o->names.v + 1, o->names.v, (o->names.n - 1) * sizeof(char *));
		o->names.v[0] = o->reference;
	}
	return 0;
}

/* ---- the report ---- */

/* Print "  LABEL" padded to a column (by characters, not bytes). */
static void
label(const char *s)
{
	int w = 0;
	const char *p;

	for (p = s; *p; p++)
		w += ((unsigned char)*p & 0xc0) != 0x80;
	fprintf(rep, "  %s%*s", s, w < 26 ? 26 - w : 1, "");
}

/* Max RSS, the tree's memory, page faults, context switches (--details). */
static void
print_memory(struct term *t, const struct ty_results *rs, size_t i)
{
	const struct ty_result *r = &rs->r[i];
	const struct ty_summary *s = r->sum;
	char a[32], b[32];

	label("Max RSS (max):");
	if (r->maxrss_unmeasured < r->nruns - r->left_out || r->maxrss_floor_kb <= 0) {
		term_value(t, a, sizeof(a), s[TY_FIG_MAXRSS].max, "KiB");
		fprintf(rep, "%s", a);
		if (r->maxrss_unmeasured) {
			term_value(t, b, sizeof(b), (double)r->maxrss_floor_kb, "KiB");
			fprintf(rep, "   (%zu of %zu runs not measurable: %s %s)",
				r->maxrss_unmeasured, r->nruns - r->left_out, term_sym(t, "le"), b);
		}
		fprintf(rep, "\n");
	} else {
		term_value(t, a, sizeof(a), (double)r->maxrss_floor_kb, "KiB");
		fprintf(rep, "%s %s: below %s own footprint, not measurable\n", term_sym(t, "le"),
			a,
			rs->maxrss_method && !strcmp(rs->maxrss_method, "helper") ? "the spawner's"
										  : "tachy's");
	}
	if (rs->tree_method && ty_result_tree_peak_kb(r) > 0) {
		label("Tree memory (max):");
		term_value(t, a, sizeof(a), (double)ty_result_tree_peak_kb(r), "KiB");
		/* a cgroup is charged only the pages its processes were first to
		 * bring in: said in the man page, not on every report */
		fprintf(rep, "%s   (all processes, %s)\n", a,
			strcmp(rs->tree_method, "cgroup-v1") == 0 ? "cgroup v1, with page cache"
								  : "cgroup v2");
	}
	label("Page faults (mean):");
	fprintf(rep, "%.0f minor, %.0f major\n", s[TY_FIG_MINFLT].mean, s[TY_FIG_MAJFLT].mean);
	label("Context switches (mean):");
	fprintf(rep, "%.0f voluntary, %.0f involuntary\n", s[TY_FIG_NVCSW].mean,
		s[TY_FIG_NIVCSW].mean);
}

/* Are the counters shown in the report: named with -e, or --details? */
static int
counters_shown(const struct run_opts *o)
{
	return o->details || o->counters.replace || o->counters.add;
}

/* The counters of command I, each mean with its interval in one unit. */
static void
print_counters(struct term *t, const struct ty_results *rs, size_t i, const struct run_opts *o)
{
	const struct ty_result *r = &rs->r[i];
	const struct ty_summary *s = r->sum;
	char a[32], b[32], lbl[48];
	size_t f;

	for (f = TY_FIG_BUILTIN; f < ty_results_nfigures(rs); f++) {
		const char *u = ty_results_figure_unit(rs, f);
		if (!rs->values[f - TY_FIG_BUILTIN].supported)
			continue; /* said once, left out */
		snprintf(lbl, sizeof(lbl), "%s:", ty_results_figure_name(rs, f));
		label(lbl);
		if (s[f].n == 0) {
			fprintf(rep, "not counted\n");
			continue;
		}
		if (strcmp(u, "ns") == 0) { /* a time: both in the unit of the mean */
			const char *tu = term_unit_for(s[f].mean / 1e9, NULL);
			term_time(t, a, sizeof(a), s[f].mean / 1e9, tu);
			term_time(t, b, sizeof(b), r->ci_half[f] / 1e9, tu);
		} else {
			term_value(t, a, sizeof(a), s[f].mean, u);
			term_value(t, b, sizeof(b), r->ci_half[f], u);
		}
		fprintf(rep, "%s %s %s", a, term_sym(t, "pm"), b);
		if (rs->shell) /* a count with the shell against a time without: no ratio */
			fprintf(rep, "   (includes %s -c)", o->ro.shell);
		else
			counters_print_derived(&o->counters, rs, i, f, rep);
		fputc('\n', rep);
	}
}

/* Is W the runner's "the median is known to within X% only" warning? */
static int
precision_warning(const char *w)
{
	return strstr(w, " is known to within ") && strstr(w, " only, not ");
}

/* Does the precision of command I matter to what is reported: a
 * comparison with it (as command or reference) that proved nothing? A
 * single command's interval is on its Time line already. */
static int
precision_matters(const struct ty_results *rs, size_t i)
{
	size_t k;

	for (k = 0; k < rs->ncmp; k++)
		if (rs->cmp[k].figure == TY_FIG_WALL &&
		    (rs->cmp[k].command == i || rs->cmp[k].reference == i) &&
		    rs->cmp[k].verdict == TY_VERDICT_SAME)
			return 1;
	return 0;
}

static void
print_result(struct term *t, const struct ty_results *rs, size_t i, const struct run_opts *o)
{
	static const char *const stops[] = {"",		  "precision reached", "--max-time",
					    "--max-runs", "interrupted",       "failed"};
	const struct ty_result *r = &rs->r[i];
	const struct ty_summary *s = r->sum;
	const char *unit = term_unit_for(s[TY_FIG_WALL].mean, o->unit);
	char a[32], b[32], c[32], d[32], lbl[48];
	size_t w;

	fprintf(rep, "%sBenchmark %zu%s: %s\n", term_c(t, "bold"), i + 1, term_c(t, "reset"),
		r->name);
	if (r->failure)
		fprintf(rep, "  %sFailed%s: %s\n", term_c(t, "red"), term_c(t, "reset"),
			r->failure);
	if (r->nruns == 0) {
		fprintf(rep, "  no finished runs\n");
		return;
	}
	snprintf(lbl, sizeof(lbl), "Time (mean %s %g%% CI):", term_sym(t, "pm"), rs->confidence);
	label(lbl);
	term_time(t, a, sizeof(a), s->mean, unit);
	term_time(t, b, sizeof(b), r->ci_half[TY_FIG_WALL], unit);
	term_time(t, c, sizeof(c), s->median, unit);
	term_time(t, d, sizeof(d), s->n >= 2 ? s->stddev : NAN, unit);
	fprintf(rep, "%s%s%s %s %s   (median %s, %s %s)\n", term_c(t, "bold"), a,
		term_c(t, "reset"), term_sym(t, "pm"), b, c, term_sym(t, "sigma"), d);
	if (o->details && (rs->test == TY_TEST_MANN_WHITNEY || rs->test == TY_TEST_YUEN)) {
		const struct ty_centre *m = &r->centre[TY_FIG_WALL];
		snprintf(lbl, sizeof(lbl), "Time (%s, %g%% CI):", ty_verdict_centre_name(rs->test),
			 rs->confidence);
		label(lbl);
		term_time(t, a, sizeof(a), m->centre, unit);
		term_time(t, b, sizeof(b), m->lo, unit);
		term_time(t, c, sizeof(c), m->hi, unit);
		if (m->exact_ci)
			fprintf(rep, "%s%s%s [%s, %s]\n", term_c(t, "bold"), a, term_c(t, "reset"),
				b, c);
		else
			fprintf(rep, "%s%s%s (too few runs for an interval)\n", term_c(t, "bold"),
				a, term_c(t, "reset"));
	}
	snprintf(lbl, sizeof(lbl), "Range (min %s max):", term_sym(t, "dots"));
	label(lbl);
	term_time(t, a, sizeof(a), s[TY_FIG_WALL].min, unit);
	term_time(t, b, sizeof(b), s[TY_FIG_WALL].max, unit);
	/* the runs the figures come from; a warm-up left out is counted apart */
	fprintf(rep, "%s %s %s   (%zu run%s", a, term_sym(t, "dots"), b, r->nruns - r->left_out,
		r->nruns - r->left_out == 1 ? "" : "s");
	if (r->left_out)
		fprintf(rep, " + %zu warm-up left out", r->left_out);
	fprintf(rep, "%s%s)\n", r->stop ? ", " : "", stops[r->stop]);
	label("User / System (mean):");
	/* one unit for both, that of the larger */
	unit = term_unit_for(fmax(s[TY_FIG_USER].mean, s[TY_FIG_SYSTEM].mean), o->unit);
	term_time(t, a, sizeof(a), s[TY_FIG_USER].mean, unit);
	term_time(t, b, sizeof(b), s[TY_FIG_SYSTEM].mean, unit);
	fprintf(rep, "%s / %s\n", a, b);
	if (o->details)
		print_memory(t, rs, i);
	if (counters_shown(o))
		print_counters(t, rs, i, o);
	if (o->details && r->shell_ns)
		fprintf(rep, "  (shell start-up of %.3f ms subtracted from each run)\n",
			(double)r->shell_ns / 1e6);
	for (w = 0; w < r->nwarnings; w++)
		if (o->details || !precision_warning(r->warnings[w]) || precision_matters(rs, i))
			fprintf(rep, "  %sWarning%s: %s\n", term_c(t, "yellow"), term_c(t, "reset"),
				r->warnings[w]);
}

/* "1.02x slower" or "1.5x faster" for the time ratio V (new/reference). */
static void
ratio_text(struct term *t, char *buf, size_t size, double v)
{
	snprintf(buf, size, "%.3f%s %s", v >= 1 ? v : 1 / v, term_sym(t, "times"),
		 v >= 1 ? "slower" : "faster");
}

/* The interval of a comparison as people read it: its bounds as ratios
 * in words ("[1.02x slower, 1.10x slower]"), the percentages beside only
 * while they stay readable (between -90% and +900%), and no interval at
 * all where it spans more than a factor 10 or has no bound: "too wide to
 * be useful" then says so instead of "[-99.5%, +21805.4%]". */
static void
print_interval(struct term *t, const struct ty_compare *x, int too_few)
{
	char lo[48], hi[48];

	if (too_few) { /* the verdict says so */
		fputs(", ", rep);
		return;
	}
	if (!(x->ratio_lo > 0) || !isfinite(x->ratio_hi) || x->ratio_hi / x->ratio_lo > 10) {
		fputs(" (interval too wide to be useful: more runs, -r N or --max-time), ", rep);
		return;
	}
	ratio_text(t, lo, sizeof(lo), x->ratio_lo);
	ratio_text(t, hi, sizeof(hi), x->ratio_hi);
	fprintf(rep, " [%s, %s], ", lo, hi);
	if (x->rel_lo > -90 && x->rel_hi < 900)
		fprintf(rep, "%+.1f%% [%+.1f%%, %+.1f%%], ", x->rel, x->rel_lo, x->rel_hi);
}

static void
print_comparison(struct term *t, const struct ty_results *rs, const struct ty_comparison *c)
{
	const struct ty_compare *x = &c->c;
	const char *color = c->verdict == TY_VERDICT_FASTER   ? "green"
			    : c->verdict == TY_VERDICT_SLOWER ? "red"
							      : "dim";
	const char *word = c->verdict == TY_VERDICT_SAME ? "no difference proven"
							 : ty_verdict_word_name(c->verdict);
	int faster = x->ratio < 1;
	double ratio = faster ? 1 / x->ratio : x->ratio;
	char p[32];

	if (x->p_value < 0.001)
		snprintf(p, sizeof(p), "p < 0.001");
	else
		snprintf(p, sizeof(p), "p = %.3f", x->p_value);
	fprintf(rep, "  %s%s%s", term_c(t, "bold"), rs->r[c->command].name, term_c(t, "reset"));
	if (c->figure != TY_FIG_WALL)
		fprintf(rep, " [%s]", ty_results_figure_name(rs, c->figure));
	if (rs->r[c->command].failure || rs->r[c->reference].failure) {
		fprintf(rep, ": not compared: %s failed\n",
			rs->r[c->command].failure ? "it" : "the reference");
		return;
	}
	if (!isfinite(ratio) || !isfinite(x->rel)) { /* against a zero reference */
		fprintf(rep, ": the reference is 0: no ratio, %s: %s%s%s%s\n", p, term_c(t, color),
			word, c->too_few ? " (too few runs to prove one)" : "", term_c(t, "reset"));
		return;
	}
	if (c->interval != TY_INTERVAL_OK) { /* no interval to show: say why */
		fprintf(rep, ": %.3f%s %s, %+.1f%%, interval n/a (%s), %s: %s%s%s%s\n", ratio,
			term_sym(t, "times"), faster ? "faster" : "slower", x->rel,
			ty_verdict_interval_why(c->interval), p, term_c(t, color), word,
			c->too_few ? " (too few runs to prove one)" : "", term_c(t, "reset"));
		return;
	}
	fprintf(rep, ": %.3f%s %s", ratio, term_sym(t, "times"), faster ? "faster" : "slower");
	print_interval(t, x, c->too_few);
	fprintf(rep, "%s: %s%s%s%s\n", p, term_c(t, color), word,
		c->too_few ? " (too few runs to prove one)" : "", term_c(t, "reset"));
	if (rs->interleaved && !rs->no_pairing && !c->pairs)
		fprintf(rep, "    (rounds not paired: too few shared rounds for the test, or a "
			     "value not positive)\n");
}

/* The commands by mean wall time, fastest first (those without a finished
 * run last; ties in the order run), for --sort mean-time. Freed by the
 * caller; NULL when out of memory. */
static const struct ty_results *by_mean_rs;

static int
by_mean(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = by_mean_rs->r[i].nruns ? by_mean_rs->r[i].sum[TY_FIG_WALL].mean : INFINITY;
	double y = by_mean_rs->r[j].nruns ? by_mean_rs->r[j].sum[TY_FIG_WALL].mean : INFINITY;

	if (x != y)
		return x < y ? -1 : 1;
	return (i > j) - (i < j);
}

static size_t *
mean_order(const struct ty_results *rs)
{
	size_t *order = malloc((rs->n ? rs->n : 1) * sizeof(*order)), i;

	for (i = 0; order && i < rs->n; i++)
		order[i] = i;
	if (order) {
		by_mean_rs = rs;
		qsort(order, rs->n, sizeof(*order), by_mean);
	}
	return order;
}

/* The verdicts against the reference, in the order run or (ORDER) by
 * mean time. */
static void
print_summary(struct term *t, const struct ty_results *rs, const size_t *order)
{
	static const char *const tests[] = {"Student's t on means", "Welch's t on means",
					    "Mann-Whitney U on medians",
					    "Yuen's t on 20% trimmed means"};
	static const char *const paired[] = {"paired t", "paired t", "sign test (median)",
					     "paired trimmed t"};
	const struct ty_comparison *c;
	size_t k, i;
	int any = 0;

	if (rs->n < 2)
		return;
	for (i = 0; i < rs->ncmp; i++)
		any |= rs->cmp[i].figure == TY_FIG_WALL && rs->cmp[i].pairs > 0;
	if (any)
		fprintf(rep,
			"\n%sSummary%s (interleaved rounds paired: %s of the per-round log "
			"ratios, %g%% confidence)\n",
			term_c(t, "bold"), term_c(t, "reset"), paired[rs->test], rs->confidence);
	else
		fprintf(rep, "\n%sSummary%s (%s, %g%% confidence)\n", term_c(t, "bold"),
			term_c(t, "reset"), tests[rs->test], rs->confidence);
	fprintf(rep, "  %s is the reference\n", rs->r[rs->reference].name);
	if (!order) {
		for (i = 0; i < rs->ncmp; i++)
			if (rs->cmp[i].figure ==
			    TY_FIG_WALL) /* counters: counters_print_comparisons */
				print_comparison(t, rs, &rs->cmp[i]);
	}
	for (k = 0; k < rs->n; k++) {
		i = order ? order[k] : k;
		if (i == rs->reference)
			continue;
		if (!(c = ty_results_comparison(rs, i, TY_FIG_WALL)))
			fprintf(rep, "  %s: too few runs to compare\n", rs->r[i].name);
		else if (order)
			print_comparison(t, rs, c);
	}
}

static void
progress(void *ctx, size_t job, const struct ty_result *res, long target, double left)
{
	struct term *t = ctx;
	double mean = 0;
	size_t i;

	(void)job;
	if (!t->progress || !term_progress_due(t))
		return;
	for (i = 0; i < res->nruns; i++)
		mean += (double)res->runs[i].wall_ns;
	mean = res->nruns ? mean / (double)res->nruns / 1e9 : 0;
	term_progress(t, res->name, (long)res->nruns, target, left, mean, 0);
}

/* ---- the machine (lib/sysinfo) and the tick clock (lib/clock) ---- */

static void
env_warn(void *ctx, const char *line)
{
	(void)ctx;
	cli_warn("%s", line);
}

static void
env_json(struct ty_jsonw *w, void *ctx)
{
	ty_sysinfo_write_json_members(w, ctx);
}

/* Read the machine's facts (under $TACHY_SYSROOT, for tests), warn about
 * the settings known to spoil results (unless QUIET), and time with the TSC where it is
 * safe (constant, nonstop, still a kernel clock source). Returns the facts
 * for the export (NULL: the default environment). */
static struct ty_sysinfo *
env_setup(struct ty_runner *r, struct ty_tick_clock *tick, int quiet)
{
	const char *root = getenv("TACHY_SYSROOT");
	struct ty_sysinfo *si = malloc(sizeof(*si));
	struct ty_clock_calibration cal;
	struct ty_error e;

	if (root && !root[0])
		root = NULL;
	/* The TSC is calibrated across the reading of the facts, topped up to
	 * 2 ms (a ~100 ns bracket over 2 ms: 50 ppm, far below run-to-run noise). */
	ty_clock_calibration_start(&cal);
	if (si && ty_sysinfo_collect_quick(root, si, &e) < 0) {
		cli_warn("%s", e.msg);
		free(si);
		si = NULL;
	}
	if (si && !quiet)
		ty_sysinfo_warnings(si, env_warn, NULL);
	if (ty_clock_init_calibrated(tick, root, &cal, &e) == 0 && tick->kind == TY_CLOCK_TSC) {
		r->clock.name = ty_clock_name(tick);
		r->clock.now_ns = ty_clock_now_ns;
		r->clock.ctx = tick;
	}
	return si;
}

/* Open every export before the first run, so that a path that cannot be
 * written fails at once, before anything is measured in vain. */
static int
exports_open(struct ty_outfile *of, int *open, const struct run_opts *o)
{
	const char *path[NEXPORTS] = EXPORT_PATHS(o);
	struct ty_error e;
	int k, j;

	for (k = 0; k < NEXPORTS; k++) {
		if (!path[k])
			continue;
		ty_error_clear(&e);
		if (ty_outfile_open(&of[k], path[k], &e) < 0) {
			for (j = 0; j < k; j++)
				if (open[j])
					ty_outfile_abort(&of[j]);
			memset(open, 0, NEXPORTS * sizeof(*open));
			return cli_error(EXIT_RUNTIME, "%s", e.msg);
		}
		open[k] = 1;
	}
	return 0;
}

/* Give up the open exports (the destinations are left untouched). */
static void
exports_abort(struct ty_outfile *of, int *open)
{
	int k;

	for (k = 0; k < NEXPORTS; k++)
		if (open[k])
			ty_outfile_abort(&of[k]);
	memset(open, 0, NEXPORTS * sizeof(*open));
}

/* Write and commit the open exports that go to files (TO_STDOUT 0) or to
 * stdout (1): the files are written before the report, so a closed or full
 * stdout cannot cost them. */
static int
exports_write(struct ty_outfile *of, int *open, const struct ty_results *rs,
	      const struct run_opts *o, struct ty_sysinfo *si, int to_stdout)
{
	const char *path[NEXPORTS] = EXPORT_PATHS(o);
	size_t *order = o->sort_mean ? mean_order(rs) : NULL;
	struct ty_error e;
	int st = 0, k, rc;

	for (k = 0; k < NEXPORTS; k++) {
		if (!open[k] || of[k].is_stdout != to_stdout)
			continue;
		open[k] = 0;
		if (k == 0)
			rc = ty_results_write_json(rs, of[k].fp, si ? env_json : NULL, si);
		else if (k == 1)
			rc = ty_results_write_csv(rs, of[k].fp);
		else if (k == 2 && !o->sort_mean)
			rc = ty_results_write_markdown(rs, of[k].fp, o->unit);
		else
			rc = ty_results_write_table(rs, of[k].fp, (enum ty_table)(k - 2), o->unit,
						    o->sort_mean ? order : NULL);
		if (rc < 0) {
			/* the writer sees only the stream's error flag: the
			 * write's own reason (ENOSPC, EPIPE...) is the file's */
			if (rc == -EIO && of[k].werr)
				rc = -of[k].werr;
			ty_outfile_abort(&of[k]);
			if (rc == -EIO && of[k].is_stdout) { /* said with its reason at exit */
				st = EXIT_RUNTIME;
				continue;
			}
			st = cli_error(EXIT_RUNTIME, "cannot write '%s': %s", path[k],
				       strerror(-rc));
			continue;
		}
		ty_error_clear(&e);
		if (ty_outfile_commit(&of[k], &e) < 0)
			st = cli_error(EXIT_RUNTIME, "%s", e.msg);
	}
	free(order);
	return st;
}

static int
gate(const struct ty_results *rs, const struct run_opts *o)
{
	size_t i;
	int st = 0;

	if (isnan(o->fail_if_slower))
		return 0;
	for (i = 0; i < rs->ncmp; i++) {
		const struct ty_comparison *c = &rs->cmp[i];
		enum ty_gate g;
		char m[256];
		if (c->figure != TY_FIG_WALL)
			continue;
		g = ty_verdict_gate(c->verdict, c->interval, c->too_few, c->c.rel, c->c.rel_lo,
				    o->fail_if_slower);
		if (g != TY_GATE_TRIP && g != TY_GATE_UNPROVEN)
			continue;
		resfmt_gate(m, sizeof(m), g, o->fail_if_slower, c->c.rel, c->c.rel_lo, c->c.rel_hi,
			    c->interval, rs->confidence);
		cli_error(0, "'%s' against '%s': %s%s", rs->r[c->command].name,
			  rs->r[c->reference].name, m,
			  g == TY_GATE_TRIP ? "" : " (the gate passes)");
		if (g == TY_GATE_TRIP)
			st = EXIT_REGRESSION;
	}
	return st;
}

/* ---- main ---- */

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

static int
build_jobs(struct bench *b)
{
	struct run_opts *o = &b->o;
	size_t combos = 1, c, k, j = 0, pick[MAX_PARAMS], x, nref;
	int rc, ref, added;
	struct ty_error e;

	if (o->argv_cmd) {
		/* the command as text, words quoted where needed: splitting it
		 * (as every command is) gives the argv back */
		b->argv_text = ty_runner_join(o->argv_cmd, (size_t)o->argc_cmd);
		if (!b->argv_text || list_add(&o->cmds, b->argv_text))
			return cli_error(EXIT_RUNTIME, "out of memory");
	}
	ref = place_reference(o, &added);
	if (ref < 0)
		return EXIT_RUNTIME;
	if ((rc = check_counts(o)))
		return rc;
	for (k = 0; k < o->nparams; k++)
		if ((combos *= o->params[k].n) > MAX_COMBOS)
			return cli_usage_error("too many parameter combinations");
	/* an added --reference without a {VAR} of its own runs once, as
	 * hyperfine's: it is one benchmark, not one per parameter value */
	nref = combos;
	if (added && !uses_params(o, o->reference)) {
		int h;
		for (h = 0, nref = 1; h < TY_HOOKS; h++)
			if (per_command(&o->hooks[h], 0) &&
			    uses_params(o, per_command(&o->hooks[h], 0)))
				nref = combos;
	}
	b->njobs = (o->cmds.n - (added ? 1 : 0)) * combos + (added ? nref : 0);
	b->jobs = calloc(b->njobs, sizeof(*b->jobs));
	b->hook_text = calloc(b->njobs * TY_HOOKS, sizeof(char *));
	if (!b->jobs || !b->hook_text || ty_results_init(&b->rs, b->njobs, &e) < 0)
		return cli_error(EXIT_RUNTIME, "out of memory");
	for (c = 0; c < o->cmds.n; c++)
		for (x = 0; x < (c == 0 && added ? nref : combos); x++, j++) {
			size_t rest = x;
			for (k = o->nparams; k-- > 0;) {
				pick[k] = rest % o->params[k].n;
				rest /= o->params[k].n;
			}
			if ((rc = build_job(o, c, c == 0 && added && nref == 1 ? NULL : pick,
					    &b->jobs[j], &b->rs.r[j], b->hook_text + j * TY_HOOKS)))
				return rc;
		}
	b->rs.reference = (size_t)ref * combos;
	b->rs.test = o->test;
	b->rs.no_pairing = o->no_pairing;
	b->rs.keep_warmup = o->keep_warmup;
	return 0;
}

static void
bench_release(struct bench *b)
{
	size_t j, h;

	for (j = 0; j < b->njobs; j++) {
		free(b->jobs[j].argv);
		for (h = 0; h < TY_HOOKS; h++) {
			free(b->jobs[j].hook[h]);
			free(b->hook_text[j * TY_HOOKS + h]);
		}
	}
	free(b->argv_text);
	free(b->jobs);
	free(b->hook_text);
	free(b->si);
	exports_abort(b->of, b->of_open);
	if (b->rof_open)
		ty_outfile_abort(&b->rof);
	ty_results_release(&b->rs);
	counters_cli_release(&b->o.counters);
	run_profile_release(&b->o.prof);
	free(b->o.cmds.v);
	free(b->o.names.v);
	for (h = 0; h < TY_HOOKS; h++)
		free(b->o.hooks[h].v);
	for (j = 0; j < b->o.nparams; j++) {
		for (h = 0; h < b->o.params[j].n; h++)
			free(b->o.params[j].values[h]);
		free(b->o.params[j].values);
	}
}

static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Swap the names and commands of RS with their shown forms (TO 1) and
 * back (TO 0); SAVED holds 2 per result. */
static void
swap_shown(struct ty_results *rs, char **saved, int to)
{
	size_t i;
	char *t;

	for (i = 0; i < rs->n && saved; i++) {
		if (to) {
			saved[2 * i] = term_shown(rs->r[i].name);
			saved[2 * i + 1] = term_shown(rs->r[i].command);
		}
		if (saved[2 * i]) {
			t = rs->r[i].name;
			rs->r[i].name = saved[2 * i];
			saved[2 * i] = t;
		}
		if (saved[2 * i + 1]) {
			t = rs->r[i].command;
			rs->r[i].command = saved[2 * i + 1];
			saved[2 * i + 1] = t;
		}
		if (!to) {
			free(saved[2 * i]);
			free(saved[2 * i + 1]);
		}
	}
}

static int
export_to_stdout(const struct run_opts *o)
{
	const char *path[NEXPORTS] = EXPORT_PATHS(o);
	int k;

	for (k = 0; k < NEXPORTS; k++)
		if (path[k] && strcmp(path[k], "-") == 0)
			return 1;
	return 0;
}

static void print_report_body(struct bench *b);

static void
print_report(struct bench *b)
{
	char **saved = calloc(2 * b->rs.n + 1, sizeof(char *));

	swap_shown(&b->rs, saved, 1);
	print_report_body(b);
	swap_shown(&b->rs, saved, 0);
	free(saved);
}

static void
print_report_body(struct bench *b)
{
	if (b->rs.shell)
		fprintf(
		    rep,
		    "Shell start-up (%s -c '', %ld runs): %.3f ms, subtracted from each run\n\n",
		    b->o.ro.shell, b->runner.o.shell_runs,
		    b->rs.n ? (double)b->rs.r[0].shell_ns / 1e6 : 0);
	for (size_t i = 0; i < b->rs.n && b->o.counters.perf_stat; i++)
		counters_print_perf_stat(&b->o.counters, &b->rs, i, rep);
	for (size_t i = 0; i < b->rs.n && !b->o.counters.perf_stat; i++) {
		print_result(&b->term, &b->rs, i, &b->o);
		if (i + 1 < b->rs.n)
			fputc('\n', rep);
	}
	if (!b->o.counters.perf_stat) {
		if (counters_shown(&b->o))
			counters_print_unsupported(&b->o.counters, &b->rs, rep);
		size_t *order = b->o.sort_mean ? mean_order(&b->rs) : NULL;
		print_summary(&b->term, &b->rs, order);
		free(order);
		if (counters_shown(&b->o))
			counters_print_comparisons(&b->o.counters, &b->rs, &b->term, rep);
		run_profile_print(&b->o.prof, &b->rs, &b->term, rep);
	}
}

/* The regression gate, with the names as the report shows them. */
static int
gate_shown(struct bench *b)
{
	char **saved = calloc(2 * b->rs.n + 1, sizeof(char *));
	int st;

	swap_shown(&b->rs, saved, 1);
	st = gate(&b->rs, &b->o);
	swap_shown(&b->rs, saved, 0);
	free(saved);
	return st;
}

/* -o FILE: the report is written to FILE (through outfile.c: whole or
 * not at all), opened before the first run as the exports are. */
static int
report_open(struct bench *b, int color_stdout)
{
	struct ty_error e;

	if (!b->o.report_file)
		return 0;
	if (strcmp(b->o.report_file, "-") == 0 && export_to_stdout(&b->o))
		return cli_usage_error("-o - and an export to '-': standard output holds one");
	ty_error_clear(&e);
	if (ty_outfile_open(&b->rof, b->o.report_file, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	b->rof_open = 1;
	rep = b->rof.fp;
	if (!b->rof.is_stdout && b->o.color != TERM_COLOR_ALWAYS)
		b->term.color = 0;
	else if (b->rof.is_stdout && b->o.color == TERM_COLOR_AUTO)
		b->term.color = color_stdout;
	return 0;
}

static int
report_commit(struct bench *b)
{
	struct ty_error e;

	b->rof_open = 0;
	ty_error_clear(&e);
	if (fflush(b->rof.fp) != 0 || ferror(b->rof.fp)) {
		ty_outfile_abort(&b->rof);
		return cli_error(EXIT_RUNTIME, "cannot write '%s': %s", b->o.report_file,
				 strerror(errno ? errno : EIO));
	}
	if (ty_outfile_commit(&b->rof, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	return 0;
}

/* The commands that failed, each with why (after the report). Returns
 * EXIT_RUNTIME. */
static int
say_failures(const struct ty_results *rs)
{
	size_t i, k;

	for (i = 0; i < rs->n; i++) {
		if (!rs->r[i].failure)
			continue;
		for (k = 0; k < i; k++) /* a shared --setup: said once */
			if (rs->r[k].failure && strcmp(rs->r[k].failure, rs->r[i].failure) == 0)
				break;
		if (k == i)
			cli_error(EXIT_RUNTIME, "%s", rs->r[i].failure);
	}
	return EXIT_RUNTIME;
}

static int
run_bench(struct bench *b)
{
	struct ty_tick_clock tick;
	struct ty_error e;
	int rc, st, files_st, color_stdout;

	ty_runner_init(&b->runner);
	b->si = env_setup(&b->runner, &tick, b->o.quiet);
	b->runner.o = b->o.ro;
	b->o.counters.quiet = b->o.quiet;
	if ((st = counters_cli_setup(&b->o.counters, &b->runner)))
		return st;
	if ((st = run_profile_setup(&b->o.prof, &b->runner, &b->rs)))
		return st;
	if (b->o.have_cpus)
		b->runner.o.cpus = &b->o.cpus;
	term_init(&b->term, b->o.color, b->o.style);
	if (b->o.ro.output == TY_OUTPUT_INHERIT)
		b->term.progress = 0; /* it would be drawn between the command's lines */
	rep = stdout;
	color_stdout = b->term.color;
	if (export_to_stdout(&b->o) || b->o.counters.perf_stat) {
		/* stdout holds only the export; perf stat's report is on stderr */
		rep = stderr;
		if (b->o.color == TERM_COLOR_AUTO)
			b->term.color = b->term.color_stderr;
	}
	if ((st = report_open(b, color_stdout)))
		return st;
	b->runner.stop = &stop_flag;
	b->runner.progress = progress;
	b->runner.progress_ctx = &b->term;
	running_pid = &b->runner.sp.pid;
	catch_signals();
	if (b->njobs > 1 && !b->o.ro.runs && b->o.ro.order == TY_ORDER_SEQUENTIAL)
		cli_warn("with --order sequential and adaptive runs each command stops on its "
			 "own, which can bias the verdicts: use --order interleaved or -r N");
	if ((st = exports_open(b->of, b->of_open, &b->o)))
		return st;
	if ((st = runhist_prepare(&b->o.hist)))
		return st;
	ty_error_clear(&e);
	rc = ty_runner_run(&b->runner, b->jobs, b->njobs, &b->rs, &e);
	running_pid = NULL;
	term_progress_clear(&b->term);
	counters_cli_finish(&b->o.counters, &b->rs);
	if (rc < 0 && rc != -EINTR && rc != -ECHILD)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	b->rs.test = b->o.test;
	if (ty_results_analyze(&b->rs, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	if (rc == -EINTR)
		cli_error(EXIT_INTERRUPTED, "interrupted by %s: reporting the runs finished so far",
			  stop_flag == SIGTERM ? "SIGTERM" : "SIGINT");
	files_st = exports_write(b->of, b->of_open, &b->rs, &b->o, b->si, 0);
	if (b->o.style != TERM_STYLE_NONE)
		print_report(b);
	if (b->rof_open && (st = report_commit(b)))
		files_st = st;
	if ((st = run_profile_flame(&b->o.prof, &b->rs)))
		files_st = st;
	st = exports_write(b->of, b->of_open, &b->rs, &b->o, b->si, 1);
	if (files_st)
		st = files_st;
	if (rc == -EINTR)
		st = EXIT_INTERRUPTED;
	else if (rc == -ECHILD) /* what finished is reported and exported; then why not all */
		st = say_failures(&b->rs);
	if (b->o.hist.history || b->o.hist.bisect) {
		struct runhist_stats hs = {b->o.test, b->o.ro.confidence, b->o.fail_if_slower};
		st = runhist_finish(&b->o.hist, &b->rs, b->si ? env_json : NULL, b->si, &hs, st);
		if (b->o.hist.bisect || st)
			return cli_finish_stdout(st);
	}
	if (rc == -EINTR)
		return cli_finish_stdout(EXIT_INTERRUPTED);
	if (!st)
		st = gate_shown(b);
	return cli_finish_stdout(st);
}

/* Is --bisect among the options (for the exit status of a usage error)? */
static int
bisecting(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strncmp(argv[i], "--bisect", 8) == 0)
			return 1;
	return 0;
}

int
cmd_run(int argc, char **argv)
{
	struct bench b;
	int st, bis = bisecting(argc, argv); /* before argv is reordered */

	memset(&b, 0, sizeof(b));
	b.o.ro.min_runs = 10;
	b.o.ro.precision = 1;
	b.o.ro.max_time = 10;
	b.o.ro.confidence = 95;
	b.o.ro.shell_runs = 50;
	b.o.test = TY_TEST_DEFAULT;
	b.o.ro.test = TY_TEST_DEFAULT;
	b.o.fail_if_slower = NAN;
	st = parse_args(&b.o, argc, argv);
	if (st < 0) {
		bench_release(&b);
		return cli_finish_stdout(EXIT_OK);
	}
	if (st == 0)
		st = build_jobs(&b);
	if (st == 0)
		st = run_bench(&b);
	if (st && !b.o.hist.done && bis)
		st = runhist_bisect_status(st); /* git bisect run's codes */
	runhist_release(&b.o.hist);
	bench_release(&b);
	return st;
}

const struct cmd_info cmd_info_run = {
    "run", 20, "benchmark commands: interleaved runs, verdicts, exports", cmd_run};
