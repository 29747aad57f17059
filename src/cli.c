/* cli.c - messages, exit codes and the one option parser of the subcommands. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tachy/cachedir.h"
#include "tachy/stats.h"
#include "tachy/symbols.h"
#include "term.h"

const char *cli_cmd;

static void
vsay(const char *what, const char *fmt, va_list ap)
{
	char *msg = NULL, *safe;

	fflush(stdout);
	if (cli_cmd)
		fprintf(stderr, "tachy %s: %s", cli_cmd, what);
	else
		fprintf(stderr, "tachy: %s", what);
	/* a message names what came from outside (a command, a commit, a file
	 * name): its control characters are shown, never sent to the terminal */
	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("(out of memory)\n", stderr);
		return;
	}
	safe = term_shown_lines(msg);
	fputs(safe ? safe : msg, stderr);
	fputc('\n', stderr);
	free(safe);
	free(msg);
}

int
cli_error(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	return status;
}

void
cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

int
cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	if (cli_cmd)
		fprintf(stderr, "Try 'tachy %s --help'.\n", cli_cmd);
	else
		fprintf(stderr, "Try 'tachy help'.\n");
	return EXIT_USAGE;
}

int
cli_bad_value(const char *opt, const char *arg, const char *expected_fmt, ...)
{
	char expected[512];
	va_list ap;

	va_start(ap, expected_fmt);
	vsnprintf(expected, sizeof(expected), expected_fmt, ap);
	va_end(ap);
	return cli_usage_error("invalid value '%s' for %s: expected %s", arg, opt, expected);
}

int
cli_parse_long(const char *opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE || v < min || v > max)
		return cli_bad_value(opt, s, "a whole number from %ld to %ld", min, max);
	*out = v;
	return 0;
}

int
cli_parse_double(const char *opt, const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || v < min || v > max)
		return cli_bad_value(opt, s, "a number from %g to %g", min, max);
	*out = v;
	return 0;
}

int
cli_finish_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int err = errno ? errno : EIO;
		return cli_error(EXIT_RUNTIME, "cannot write to standard output: %s",
				 strerror(err));
	}
	return status;
}

/* ---- the option parser ---- */

int
cli_opt_test(const struct cli_option *opt, const char *typed, char **args)
{
	enum ty_test *t = opt->value;
	const char *s = args[0];

	if (strcmp(s, "welch") == 0)
		*t = TY_TEST_WELCH;
	else if (strcmp(s, "student") == 0)
		*t = TY_TEST_STUDENT;
	else if (strcmp(s, "mann-whitney") == 0 || strcmp(s, "u") == 0)
		*t = TY_TEST_MANN_WHITNEY;
	else
		return cli_bad_value(typed, s, "welch, student or mann-whitney");
	return 0;
}

int
cli_opt_test_all(const struct cli_option *opt, const char *typed, char **args)
{
	if (strcmp(args[0], "yuen") == 0) {
		*(enum ty_test *)opt->value = TY_TEST_YUEN;
		return 0;
	}
	if (strcmp(args[0], "welch") && strcmp(args[0], "student") &&
	    strcmp(args[0], "mann-whitney") && strcmp(args[0], "u"))
		return cli_bad_value(typed, args[0], "mann-whitney, yuen, welch or student");
	return cli_opt_test(opt, typed, args);
}

int
cli_opt_refused(const struct cli_option *opt, const char *typed, char **args)
{
	(void)args;
	return cli_usage_error("%s: %s", typed, (const char *)opt->value);
}

/* "a, b or c" of a CHOICE's names. */
static void
choices_text(const char *const *names, char *buf, size_t size)
{
	size_t len = 0, i;

	buf[0] = '\0';
	for (i = 0; names[i] && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i == 0	       ? ""
					: names[i + 1] ? ", "
						       : " or ",
					names[i]);
}

static int
takes_value(const struct cli_option *o)
{
	if (o->type == CLI_T_CALLBACK)
		return o->nargs > 0;
	return o->type != CLI_T_FLAG && o->type != CLI_T_HELP;
}

static int
nvalues(const struct cli_option *o)
{
	return o->type == CLI_T_CALLBACK ? o->nargs : takes_value(o);
}

static int
is_option(const struct cli_option *o)
{
	return o->type != CLI_T_END && o->type != CLI_T_GROUP;
}

static const struct cli_option default_help = OPT_HELP('h', "help", "show this help");

/* The option of long name NAME (LEN bytes: an exact match, else the only
 * one it is a prefix of). Sets *AMBIGUOUS when several start with it. */
static const struct cli_option *
find_long(const struct cli_option *opts, const char *name, size_t len, int *ambiguous)
{
	const struct cli_option *o, *found = NULL;
	int n = 0, help = 0;

	*ambiguous = 0;
	for (o = opts; o->type != CLI_T_END; o++) {
		if (!is_option(o) || !o->long_name || strncmp(o->long_name, name, len) != 0)
			continue;
		help |= o->type == CLI_T_HELP;
		if (o->long_name[len] == '\0')
			return o;
		n++;
		found = o;
	}
	if (!help && len > 0 && strncmp("help", name, len) == 0) {
		if (len == 4)
			return &default_help;
		if (!found)
			return &default_help;
		n++;
	}
	*ambiguous = n > 1;
	return n == 1 ? found : NULL;
}

static const struct cli_option *
find_short(const struct cli_option *opts, int c)
{
	const struct cli_option *o;

	for (o = opts; o->type != CLI_T_END; o++)
		if (is_option(o) && o->short_name == c)
			return o;
	return NULL;
}

static int
ambiguous_error(const struct cli_option *opts, const char *typed, const char *name, size_t len)
{
	const struct cli_option *o;
	char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	for (o = opts; o->type != CLI_T_END && n < sizeof(buf); o++)
		if (is_option(o) && o->long_name && strncmp(o->long_name, name, len) == 0)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s--%s", n ? ", " : "",
					      o->long_name);
	return cli_usage_error("option '%s' is ambiguous: %s", typed, buf);
}

/* Store the option's values ARGS (nvalues() of them; ARGS[0] NULL for an
 * optional value not given). */
static int
apply(const struct cli_parser *p, const struct cli_option *o, const char *typed, char **args)
{
	char buf[512];
	size_t i;

	switch (o->type) {
	case CLI_T_HELP:
		cli_help(p, stdout);
		return CLI_HELP_SHOWN;
	case CLI_T_FLAG:
		*(int *)o->value = (int)o->ival;
		return 0;
	case CLI_T_LONG:
		return cli_parse_long(typed, args[0], (long)o->min, (long)o->max, o->value);
	case CLI_T_DOUBLE:
		return cli_parse_double(typed, args[0], o->min, o->max, o->value);
	case CLI_T_STRING:
		*(const char **)o->value = args[0];
		return 0;
	case CLI_T_STRINGS: {
		struct cli_strings *l = o->value;
		/* one at a time: a repeated option's values, a handful */
		const char **v = realloc(l->v, (l->n + 1) * sizeof(*v));
		if (!v)
			return cli_error(EXIT_RUNTIME, "out of memory");
		v[l->n++] = args[0];
		l->v = v;
		return 0;
	}
	case CLI_T_CHOICE:
		for (i = 0; o->choices[i]; i++)
			if (strcmp(args[0], o->choices[i]) == 0) {
				*(int *)o->value = (int)i;
				return 0;
			}
		choices_text(o->choices, buf, sizeof(buf));
		return cli_bad_value(typed, args[0], "%s", buf);
	case CLI_T_CALLBACK:
		return o->cb(o, typed, args);
	default:
		return 0;
	}
}

/* "needs a value" / "needs VAR MIN MAX" */
static int
missing_value(const struct cli_option *o, const char *typed)
{
	if (nvalues(o) > 1)
		return cli_usage_error("option '%s' needs %d values: %s", typed, nvalues(o),
				       o->argh ? o->argh : "");
	return cli_usage_error("option '%s' needs a value", typed);
}

/* Gather option O's values: FIRST (attached to it, or NULL), then the
 * words after *I. */
static int
gather(const struct cli_parser *p, const struct cli_option *o, const char *typed, char *first,
       int argc, char **argv, int *i)
{
	char *args[4] = {NULL, NULL, NULL, NULL};
	int n = nvalues(o), k = 0;

	if (n > 3)
		n = 3;
	if (first)
		args[k++] = first;
	if (!(o->flags & CLI_OPTARG))
		for (; k < n; k++) {
			if (*i + 1 >= argc)
				return missing_value(o, typed);
			args[k] = argv[++*i];
		}
	return apply(p, o, typed, args);
}

static const char *const *hints;

void
cli_set_hints(const char *const *h)
{
	hints = h;
}

/* "unknown option", with the command's hint for TYPED where it has one. */
static int
unknown_option(const struct cli_parser *p, const char *typed)
{
	size_t i;

	(void)p;
	for (i = 0; hints && hints[i]; i += 2)
		if (strcmp(hints[i], typed) == 0)
			return cli_usage_error("unknown option '%s': %s", typed, hints[i + 1]);
	return cli_usage_error("unknown option '%s'", typed);
}

static int
parse_long_option(const struct cli_parser *p, char *arg, int argc, char **argv, int *i)
{
	char typed[128];
	char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct cli_option *o;
	int amb;

	snprintf(typed, sizeof(typed), "%.*s", (int)(len + 2), arg);
	o = find_long(p->options, name, len, &amb);
	if (amb)
		return ambiguous_error(p->options, typed, name, len);
	if (!o)
		return unknown_option(p, typed);
	if (eq && !takes_value(o))
		return cli_usage_error("option '%s' takes no value", typed);
	return gather(p, o, typed, eq ? eq + 1 : NULL, argc, argv, i);
}

static int
parse_short_options(const struct cli_parser *p, char *arg, int argc, char **argv, int *i)
{
	const struct cli_option *o;
	char typed[3] = {'-', 0, 0};
	char *none[1] = {NULL}, *c;
	int rc;

	for (c = arg + 1; *c; c++) {
		typed[1] = *c;
		o = find_short(p->options, (unsigned char)*c);
		if (!o)
			return unknown_option(p, typed);
		if (takes_value(o))
			return gather(p, o, typed, c[1] ? c + 1 : NULL, argc, argv, i);
		if ((rc = apply(p, o, typed, none)))
			return rc;
	}
	return 0;
}

int
cli_parse(const struct cli_parser *p, int argc, char **argv, struct cli_args *rest)
{
	int i, w = 0, rc;

	rest->v = argv;
	rest->n = 0;
	rest->dashdash = -1;
	for (i = 1; i < argc; i++) {
		char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			rest->dashdash = w;
			for (i++; i < argc; i++)
				argv[w++] = argv[i];
			break;
		}
		if (a[0] != '-' || a[1] == '\0') { /* an operand ("-" is one) */
			argv[w++] = a;
			if (p->flags & CLI_STOP_AT_OPERAND) {
				for (i++; i < argc; i++)
					argv[w++] = argv[i];
				break;
			}
			continue;
		}
		rc = a[1] == '-' ? parse_long_option(p, a, argc, argv, &i)
				 : parse_short_options(p, a, argc, argv, &i);
		if (rc)
			return rc;
	}
	argv[w] = NULL;
	rest->n = w;
	return 0;
}

int
cli_is_option(const struct cli_parser *p, const char *word)
{
	const char *eq;
	int amb;

	if (word[0] != '-' || word[1] == '\0')
		return 0;
	if (word[1] != '-')
		return find_short(p->options, (unsigned char)word[1]) != NULL;
	eq = strchr(word + 2, '=');
	return word[2] && (find_long(p->options, word + 2,
				     eq ? (size_t)(eq - word - 2) : strlen(word + 2), &amb) ||
			   amb);
}

/* ---- the help ---- */

static void
help_line(const struct cli_option *o, int align, int width, FILE *fp)
{
	char left[160];
	size_t n = 0;
	const char *h;

	n += (size_t)snprintf(left + n, sizeof(left) - n, "  ");
	if (o->short_name)
		n += (size_t)snprintf(left + n, sizeof(left) - n, "-%c%s", o->short_name,
				      o->long_name ? ", " : "");
	else if (align && o->long_name)
		n += (size_t)snprintf(left + n, sizeof(left) - n, "    ");
	if (o->long_name)
		n += (size_t)snprintf(left + n, sizeof(left) - n, "--%s", o->long_name);
	if (o->argh && n < sizeof(left)) {
		if (o->flags & CLI_OPTARG)
			n += (size_t)snprintf(left + n, sizeof(left) - n, "[%s%s]",
					      o->long_name ? "=" : "", o->argh);
		else
			n += (size_t)snprintf(left + n, sizeof(left) - n, " %s", o->argh);
	}
	fputs(left, fp);
	if ((int)strlen(left) + 2 > width)
		fputs("  ", fp);
	else
		fprintf(fp, "%*s", width - (int)strlen(left), "");
	for (h = o->help; *h; h++) {
		fputc(*h, fp);
		if (*h == '\n' && h[1])
			fprintf(fp, "%*s", width, "");
	}
	fputc('\n', fp);
}

void
cli_help(const struct cli_parser *p, FILE *fp)
{
	const struct cli_option *o;
	int shorts = 0, width = p->width ? p->width : 27;

	/* long names line up under the short ones' when several have one */
	for (o = p->options; o->type != CLI_T_END; o++)
		shorts += is_option(o) && o->short_name && o->type != CLI_T_HELP;
	if (p->usage)
		fputs(p->usage, fp);
	for (o = p->options; o->type != CLI_T_END; o++) {
		if (o->type == CLI_T_GROUP)
			fprintf(fp, "%s\n", o->help);
		else if (o->help)
			help_line(o, shorts > 1, width, fp);
	}
	if (p->footer)
		fputs(p->footer, fp);
}

void
cli_symbols_cache(struct ty_symbols *s)
{
	const char *v = getenv("TACHY_CACHE_DIR"), *var = "TACHY_CACHE_DIR";
	struct ty_error e = {0};
	char dir[4096];
	struct stat st;
	int n = -1, fd;

	if (v) {
		if (!*v)
			return;
		n = snprintf(dir, sizeof(dir), "%s", v);
	} else if ((v = getenv("XDG_CACHE_HOME")) && *v == '/') {
		var = "XDG_CACHE_HOME";
		n = snprintf(dir, sizeof(dir), "%s/tachy", v);
	} else if ((v = getenv("HOME")) && *v == '/' && stat(v, &st) == 0 &&
		   st.st_uid == geteuid()) {
		/* another user's HOME (sudo keeps it): no cache, and nothing made there */
		var = "HOME";
		n = snprintf(dir, sizeof(dir), "%s/.cache/tachy", v);
	}
	if (n <= 0 || (size_t)n >= sizeof(dir))
		return;
	/* judged now, made when first written (cachedir.h's rule, again at each use) */
	fd = ty_cachedir_walk(dir, TY_CACHEDIR_OURS, &e);
	if (fd >= 0)
		close(fd);
	if (fd >= 0 || fd == -ENOENT)
		ty_symbols_set_cache_dir(s, dir);
	else
		cli_warn("%s: the cache '%s' is not used: %s; set TACHY_CACHE_DIR to a directory "
			 "of your own (TACHY_CACHE_DIR= goes without)",
			 var, term_safe(dir), term_safe(e.msg));
}
