/* t-cli.c - the option parser of the tool (src/cli.c): every spelling of
 * an option, operands, "--", stopping at the first operand, the messages
 * and the generated help. src/ is not in libtachy: it is built in. */
#include <stdlib.h>
#include <unistd.h>

#include "../../src/cli.c"
#include "../../src/term.c" /* the messages show control characters */
#include "check.h"

struct vals {
	int flag, quiet, choice;
	long n;
	double d;
	const char *s;
	struct cli_strings many;
	const char *triple[3];
	int calls;
};

static int
cb_triple(const struct cli_option *opt, const char *typed, char **args)
{
	struct vals *v = opt->value;

	(void)typed;
	v->triple[0] = args[0], v->triple[1] = args[1], v->triple[2] = args[2];
	return 0;
}

static int
cb_count(const struct cli_option *opt, const char *typed, char **args)
{
	(void)typed;
	CHECK(args[0] == NULL);
	((struct vals *)opt->value)->calls++;
	return 0;
}

static const char *const colours[] = {"red", "green", "blue", NULL};
static struct vals v;
static struct cli_option options[] = {
    OPT_GROUP("Group:"),
    OPT_FLAG('f', "flag", &v.flag, "a flag"),
    OPT_FLAG('q', "quiet", &v.quiet, "quiet"),
    OPT_LONG('n', "number", &v.n, "N", 1, 100, "a number\nin two lines"),
    OPT_DOUBLE(0, "real", &v.d, "R", 0, 1, "a real"),
    OPT_STRING('s', "string", &v.s, "S", "a string"),
    OPT_STRINGS('m', "many", &v.many, "M", "repeatable"),
    OPT_CHOICE(0, "colour", &v.choice, "C", colours, "a choice"),
    OPT_CALLBACK_N('P', "triple", &v, "A B C", 3, "three values", cb_triple),
    OPT_CALLBACK_NOARG('k', "count", &v, "counted", cb_count),
    OPT_STRING(0, "export-json", &v.s, "F", "x"),
    OPT_STRING(0, "export-csv", &v.s, "F", "x"),
    OPT_HELP('h', "help", "this help"),
    OPT_END(),
};

/* Parse the words of LINE (split at spaces; "_" is an empty word). */
static int
parse(int flags, const char *line, struct cli_args *a)
{
	static char buf[512], *argv[64];
	const struct cli_parser p = {"usage: t\n", options, NULL, flags, 20};
	int argc = 0;
	char *w;

	free(v.many.v);
	memset(&v, 0, sizeof(v));
	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = "t";
	for (w = strtok(buf, " "); w; w = strtok(NULL, " "))
		argv[argc++] = strcmp(w, "_") == 0 ? w + 1 : w;
	argv[argc] = NULL;
	return cli_parse(&p, argc, argv, a);
}

/* The stderr of parsing LINE (in FILE). */
static const char *
error_of(const char *line)
{
	static char out[1024];
	struct cli_args a;
	FILE *f = tmpfile();
	int fd = dup(2), rc;
	size_t n;

	fflush(stderr);
	dup2(fileno(f), 2);
	rc = parse(0, line, &a);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	CHECK_INT(rc, EXIT_USAGE);
	return out;
}

static void
check_spellings(void)
{
	struct cli_args a;

	CHECK_INT(parse(0, "-n 5", &a), 0);
	CHECK_INT(v.n, 5);
	CHECK_INT(parse(0, "-n5", &a), 0);
	CHECK_INT(v.n, 5);
	CHECK_INT(parse(0, "--number 7", &a), 0);
	CHECK_INT(v.n, 7);
	CHECK_INT(parse(0, "--number=8", &a), 0);
	CHECK_INT(v.n, 8);
	CHECK_INT(parse(0, "--num=9", &a), 0); /* a prefix */
	CHECK_INT(v.n, 9);
	CHECK_INT(parse(0, "-fqn3", &a), 0); /* bundled, the last with its value */
	CHECK(v.flag && v.quiet && v.n == 3);
	CHECK_INT(parse(0, "-s -n", &a), 0); /* a value may start with '-' */
	CHECK_STR(v.s, "-n");
	CHECK_INT(parse(0, "--string= x", &a), 0); /* an empty value */
	CHECK_STR(v.s, "");
	CHECK_INT(a.n, 1);
	CHECK_INT(parse(0, "--real 0.25 --colour blue", &a), 0);
	CHECK_NEAR(v.d, 0.25, 0);
	CHECK_INT(v.choice, 2);
	CHECK_INT(parse(0, "-m a --many b -mc", &a), 0);
	CHECK_INT(v.many.n, 3);
	CHECK_STR(v.many.v[0], "a");
	CHECK_STR(v.many.v[2], "c");
	CHECK_INT(parse(0, "-P x 1 2", &a), 0);
	CHECK_STR(v.triple[0], "x");
	CHECK_STR(v.triple[2], "2");
	CHECK_INT(parse(0, "--triple=x 1 2", &a), 0);
	CHECK_STR(v.triple[0], "x");
	CHECK_STR(v.triple[1], "1");
	CHECK_INT(parse(0, "-k --count -kk", &a), 0);
	CHECK_INT(v.calls, 4);
}

static void
check_operands(void)
{
	struct cli_args a;

	CHECK_INT(parse(0, "a -f b -n 2 c", &a), 0); /* operands between options */
	CHECK_INT(a.n, 3);
	CHECK_STR(a.v[0], "a");
	CHECK_STR(a.v[2], "c");
	CHECK(a.v[3] == NULL);
	CHECK_INT(a.dashdash, -1);
	CHECK(v.flag && v.n == 2);
	CHECK_INT(parse(0, "-f a -- -n b", &a), 0);
	CHECK_INT(a.n, 3);
	CHECK_INT(a.dashdash, 1);
	CHECK_STR(a.v[1], "-n");
	CHECK_INT(v.n, 0);
	CHECK_INT(parse(0, "- -f", &a), 0); /* "-" is an operand */
	CHECK_INT(a.n, 1);
	CHECK_STR(a.v[0], "-");
	CHECK_INT(parse(CLI_STOP_AT_OPERAND, "-f make -j4 -n 3", &a), 0);
	CHECK_INT(a.n, 4);
	CHECK_STR(a.v[0], "make");
	CHECK_STR(a.v[1], "-j4");
	CHECK_INT(v.n, 0);
	CHECK_INT(parse(CLI_STOP_AT_OPERAND, "-f -- -n", &a), 0);
	CHECK_INT(a.n, 1);
	CHECK_INT(a.dashdash, 0);
	CHECK_INT(parse(0, "", &a), 0);
	CHECK_INT(a.n, 0);
}

static void
check_messages(void)
{
	const char *try = "Try 'tachy t --help'.\n";
	char want[256];

#define WANT(line, msg)                                                                            \
	do {                                                                                       \
		snprintf(want, sizeof(want), "tachy t: %s\n%s", (msg), try);                       \
		CHECK_STR(error_of(line), want);                                                   \
	} while (0)
	cli_cmd = "t";
	WANT("--fast", "unknown option '--fast'");
	WANT("--fast=1", "unknown option '--fast'");
	WANT("-fz", "unknown option '-z'");
	WANT("-n", "option '-n' needs a value");
	WANT("--num", "option '--num' needs a value");
	WANT("-P x 1", "option '-P' needs 3 values: A B C");
	WANT("--flag=1", "option '--flag' takes no value");
	WANT("--export", "option '--export' is ambiguous: --export-json, --export-csv");
	WANT("-n 0", "invalid value '0' for -n: expected a whole number from 1 to 100");
	WANT("--number=x", "invalid value 'x' for --number: expected a whole number from 1 to 100");
	WANT("--nu 5x", "invalid value '5x' for --nu: expected a whole number from 1 to 100");
	WANT("--real 2", "invalid value '2' for --real: expected a number from 0 to 1");
	WANT("--real nan", "invalid value 'nan' for --real: expected a number from 0 to 1");
	WANT("--colour pink", "invalid value 'pink' for --colour: expected red, green or blue");
	WANT("--count=x", "option '--count' takes no value");
#undef WANT
}

static void
check_help(void)
{
	const struct cli_parser p = {"usage: t\n\n", options, "footer\n", 0, 20};
	char out[2048];
	FILE *f = tmpfile();
	size_t n;

	cli_help(&p, f);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	CHECK_STR(out, "usage: t\n\n"
		       "Group:\n"
		       "  -f, --flag        a flag\n"
		       "  -q, --quiet       quiet\n"
		       "  -n, --number N    a number\n"
		       "                    in two lines\n"
		       "      --real R      a real\n"
		       "  -s, --string S    a string\n"
		       "  -m, --many M      repeatable\n"
		       "      --colour C    a choice\n"
		       "  -P, --triple A B C  three values\n"
		       "  -k, --count       counted\n"
		       "      --export-json F  x\n"
		       "      --export-csv F  x\n"
		       "  -h, --help        this help\n"
		       "footer\n");
}

int
main(void)
{
	struct cli_args a;

	check_spellings();
	check_operands();
	check_messages();
	check_help();
	/* --help prints the help and says so */
	fflush(stdout);
	{
		int fd = dup(1);
		FILE *f = tmpfile();
		dup2(fileno(f), 1);
		CHECK_INT(parse(0, "-f --help -n 3", &a), CLI_HELP_SHOWN);
		fflush(stdout);
		dup2(fd, 1);
		close(fd);
		CHECK(lseek(fileno(f), 0, SEEK_END) > 0);
		fclose(f);
	}
	CHECK_INT(v.n, 0); /* nothing after --help is parsed */
	free(v.many.v);
	return check_done();
}
