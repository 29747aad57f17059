/* run-options.c - tachy run's options: the one option table (RUN_OPTIONS),
 * their values (CPU lists, parameters, styles) and the checks between
 * them; the commands after the options. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run-habits.h"
#include "run.h"
#include "tachy/tachy.h"

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

int
run_list_add(struct list *l, const char *s)
{
	/* one at a time: the command line's words, a handful */
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
	return run_list_add(opt->value, args[0]);
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
	struct run_history *h = opt->value;

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
	    RUN_PROFILE_OPTION(&(o)->prof),                                                        \
	    OPT_FLAG(0, "instructions", &(o)->instr.on,                                            \
		     "count the instructions of every measured run under\n"                        \
		     "Valgrind's cachegrind (exact, slow; tachy-run(1));\n"                        \
		     "with --profile or --flame: by function"),                                    \
	    OPT_GROUP("Statistics:"),                                                              \
	    OPT_TEST_ALL(0, &(o)->test,                                                            \
			 "mann-whitney (default: medians), yuen (trimmed\n"                        \
			 "means), welch or student (means)"),                                      \
	    OPT_FLAG(0, "no-pairing", &(o)->no_pairing, "compare interleaved rounds unpaired"),    \
	    OPT_FLAG(0, "keep-warmup", &(o)->keep_warmup,                                          \
		     "keep a detected warm-up in the figures"),                                    \
	    OPT_DOUBLE(0, "confidence", &(o)->ro.confidence, "C", 50, 99.9999,                     \
		       "confidence level in percent (default 95)"),                                \
	    OPT_DOUBLE(0, "fail-if-slower", &(o)->gate.limit, "P", 0, 1e9,                         \
		       "exit 3 when a command is proven slower than the\n"                         \
		       "reference by more than P% (the interval's bound)"),                        \
	    OPT_DOUBLE(0, "fail-if-faster", &(o)->gate.faster, "P", 0, 1e9,                        \
		       "exit 3 when a command is proven faster than the\n"                         \
		       "reference by more than P% (an improvement to record)"),                    \
	    OPT_CALLBACK(0, "gate-on", &(o)->gate.metric, "METRIC",                                \
			 "the figure --fail-if-slower/-faster and --bisect\n"                      \
			 "gate: wall (default), cpu (user+system), user,\n"                        \
			 "system, task-clock or a counter (instructions...)",                      \
			 gate_opt_metric),                                                         \
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
	    OPT_FLAG('v', "details", &(o)->details,                                                \
		     "every figure: the median's interval, memory, page\n"                         \
		     "faults, context switches, the default counters"),                            \
	    OPT_FLAG(0, "verbose", &(o)->details, NULL),                                           \
	    OPT_FLAG('q', "quiet", &(o)->quiet,                                                    \
		     "no warnings about the machine (tachy env tells them)"),                      \
	    OPT_CHOICE(0, "color", &(o)->color_choice, "WHEN", run_colors,                         \
		       "auto (default: on a terminal, unless NO_COLOR),\n"                         \
		       "always (even with NO_COLOR set) or never"),                                \
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
		       "the command failed, 128 bad usage, 130 interrupted;\n"                     \
		       "warns when BASE ran under other load, machine, kernel"),                   \
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
		rc = run_list_add(&o->cmds, b.v[i]);
	}
	free(sub);
	return rc;
}

int
run_options_parse(struct run_opts *o, int argc, char **argv)
{
	struct cli_option options[] = {RUN_OPTIONS(o)};
	const struct cli_parser parser = {usage_text, options, footer, CLI_STOP_AT_OPERAND, 27};
	struct cli_args a;
	char *argv0 = argv[0];
	int rc;
	size_t k;

	char **typed = calloc((size_t)argc + 1, sizeof(*typed)); /* cli_parse reorders argv */

	if (!typed)
		return cli_error(EXIT_RUNTIME, "out of memory");
	memcpy(typed, argv, (size_t)argc * sizeof(*typed));
	o->color_choice = -1;
	if ((rc = cli_parse(&parser, argc, argv, &a)) ||
	    (rc = take_commands(&parser, o, &a, argv0)) ||
	    (rc = run_habits_check(&o->ro, &o->hooks[TY_HOOK_PREPARE], o->counters.perf_stat,
				   o->output_given)) ||
	    (!o->argv_cmd && (rc = run_habits_two_commands(&o->cmds, argc, typed)))) {
		free(typed);
		return rc;
	}
	free(typed);
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
	if (o->gate.metric && !gate_set(&o->gate) && !o->hist.bisect)
		return cli_usage_error("--gate-on %s: it names the figure of --fail-if-slower P "
				       "(or --bisect), which is not given",
				       o->gate.metric);
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
