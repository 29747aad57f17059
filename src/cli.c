/* cli.c - messages and option helpers shared by the subcommands. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_cmd;

static void
vsay(const char *what, const char *fmt, va_list ap)
{
	fflush(stdout);
	if (cli_cmd)
		fprintf(stderr, "tachy %s: %s", cli_cmd, what);
	else
		fprintf(stderr, "tachy: %s", what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
cli_parse_long(const char *opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE || v < min || v > max)
		return cli_usage_error(
		    "invalid value '%s' for %s: expected a whole number from %ld to %ld", s, opt,
		    min, max);
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
		return cli_usage_error("invalid value '%s' for %s: expected a number from %g to %g",
				       s, opt, min, max);
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
