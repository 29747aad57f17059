/* fuzz-cli.c - libFuzzer target for the option parser (src/cli.c): the
 * input is an argument vector, words separated by NUL bytes, parsed
 * against a table with every kind of option, with and without stopping at
 * the first operand, and the help printed. The parser must never read past
 * argv, the operands must be words of argv in their order, followed by a
 * NULL, and every error must be a usage error (status 2).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -D_GNU_SOURCE \
 *       tests/fuzz/fuzz-cli.c -lm -o fuzz-cli
 *   (it includes src/cli.c and src/term.c, which are not in libtachy)
 *   ./fuzz-cli -close_fd_mask=3 -max_total_time=60 tests/fuzz/corpus/cli
 * (-close_fd_mask=3: the parser's messages and help are not shown)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli.c"
#include "../../src/term.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
cb(const struct cli_option *opt, const char *typed, char **args)
{
	int i;

	(void)typed;
	for (i = 0; i < opt->nargs; i++)
		if (!args[i])
			abort(); /* a value the parser promised */
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"red", "green", NULL};
	int flag = 0, choice = 0, test = 0, argc = 1, i, j, rc;
	long n = 0;
	double d = 0;
	const char *str = NULL;
	struct cli_strings many = {NULL, 0};
	struct cli_option options[] = {
	    OPT_GROUP("Group:"),
	    OPT_FLAG('f', "flag", &flag, "a flag"),
	    OPT_LONG('n', "number", &n, "N", 1, 100, "a number\nsecond line"),
	    OPT_DOUBLE(0, "real", &d, "R", 0, 1, "a real"),
	    OPT_STRING('s', "string", &str, "S", "a string"),
	    OPT_STRING_OPTARG(0, "opt", &str, "V", "optional"),
	    OPT_STRINGS('m', "many", &many, "M", "repeatable"),
	    OPT_CHOICE(0, "colour", &choice, "C", names, "a choice"),
	    OPT_CALLBACK_N('P', "triple", NULL, "A B C", 3, "three", cb),
	    OPT_CALLBACK_NOARG('k', "count", NULL, "none", cb),
	    OPT_TEST('t', &test, "the test"),
	    OPT_STRING(0, "export-json", &str, "F", "x"),
	    OPT_STRING(0, "export-csv", &str, "F", "x"),
	    OPT_END(),
	};
	struct cli_parser p = {"usage: f\n", options, NULL, 0, 20};
	char *buf = malloc(size + 1), **argv, **copy;
	struct cli_args a;
	FILE *null = fopen("/dev/null", "w");

	if (!buf || !null) {
		free(buf);
		if (null)
			fclose(null);
		return 0;
	}
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (i = 0; (size_t)i < size; i++)
		argc += buf[i] == '\0';
	argv = calloc((size_t)argc + 2, sizeof(*argv));
	copy = calloc((size_t)argc + 2, sizeof(*copy));
	if (argv && copy) {
		char *w = buf;
		argv[0] = "fuzz";
		for (i = 1; i < argc + 1 && w <= buf + size; i++, w += strlen(w) + 1)
			argv[i] = w;
		argc = i;
		argv[argc] = NULL;
		memcpy(copy, argv, (size_t)argc * sizeof(*argv));
		p.flags = size && (data[0] & 1) ? CLI_STOP_AT_OPERAND : 0;
		cli_cmd = "fuzz";
		rc = cli_parse(&p, argc, argv, &a);
		if (rc > 0 && rc != EXIT_USAGE)
			abort();
		if (rc == 0) {
			if (a.n < 0 || a.n >= argc || a.v[a.n] != NULL)
				abort();
			for (i = 0, j = 1; i < a.n; i++) { /* the operands, in argv's order */
				while (j < argc && copy[j] != a.v[i])
					j++;
				if (j++ >= argc)
					abort();
			}
		}
		cli_help(&p, null);
		cli_is_option(&p, copy[argc > 1 ? 1 : 0]);
	}
	free(many.v);
	free(argv);
	free(copy);
	free(buf);
	fclose(null);
	return 0;
}
