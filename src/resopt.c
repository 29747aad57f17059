/* resopt.c - options and input shared by compare and plot. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "resopt.h"

int
resopt_test(const char *s, enum ty_test *t)
{
	if (strcmp(s, "welch") == 0)
		*t = TY_TEST_WELCH;
	else if (strcmp(s, "student") == 0)
		*t = TY_TEST_STUDENT;
	else if (strcmp(s, "mann-whitney") == 0 || strcmp(s, "u") == 0)
		*t = TY_TEST_MANN_WHITNEY;
	else if (strcmp(s, "yuen") == 0)
		*t = TY_TEST_YUEN;
	else
		return cli_usage_error("unknown test '%s': mann-whitney, yuen, welch, or student",
				       s);
	return 0;
}

int
resopt_confidence(const char *s, double *conf)
{
	int rc = cli_parse_double("--confidence", s, 0, 100, conf);

	if (!rc && (*conf <= 0 || *conf >= 100))
		rc = cli_usage_error("invalid value '%s' for --confidence: expected a percentage "
				     "between 0 and 100, exclusive",
				     s);
	return rc;
}

int
resopt_match(struct ty_match *m, char *rule)
{
	size_t len = strlen(rule);
	char **p;

	if (len >= 2 && rule[0] == '/' && rule[len - 1] == '/') {
		if (m->key_re)
			return cli_usage_error("--match /REGEX/ given twice");
		rule[len - 1] = '\0';
		m->key_re = rule + 1;
		return 0;
	}
	if (!strchr(rule, '='))
		return cli_usage_error("--match '%s': expected OLD=NEW or /REGEX/", rule);
	if (!(p = realloc(m->pairs, (m->npairs + 1) * sizeof(*p))))
		return cli_error(EXIT_RUNTIME, "out of memory");
	m->pairs = p;
	m->pairs[m->npairs++] = rule;
	return 0;
}

int
resopt_read(struct ty_saved *files, char **paths, int n)
{
	struct ty_error e = {0};
	int i, rc, stdin_seen = 0;

	for (i = 0; i < n; i++)
		if (strcmp(paths[i], "-") == 0 && stdin_seen++)
			return cli_usage_error("'-' (standard input) given twice: it can be read "
					       "once");
	for (i = 0; i < n; i++) {
		if (strcmp(paths[i], "-") == 0)
			rc = ty_results_read_stream(&files[i], stdin, RESOPT_STDIN, &e);
		else
			rc = ty_results_read_file(&files[i], paths[i], &e);
		if (rc) {
			while (i-- > 0)
				ty_results_read_release(&files[i]);
			return cli_error(rc == -ENOTSUP || rc == -ENOMEM ? EXIT_RUNTIME
									 : EXIT_USAGE,
					 "%s", e.msg);
		}
	}
	return 0;
}

int
resopt_cmp_option(int ch, char *arg, struct ty_cmp_options *cmp)
{
	switch (ch) {
	case 't':
		return resopt_test(arg, &cmp->test);
	case 'c':
		return resopt_confidence(arg, &cmp->confidence);
	case 'm':
		return resopt_match(&cmp->match, arg);
	case 'r':
		cmp->reference = arg;
		return 0;
	case 'F':
		cmp->figures = arg;
		return 0;
	case RESOPT_KEEP_WARMUP:
		cmp->keep_warmup = 1;
		return 0;
	case RESOPT_NO_PAIRING:
		cmp->no_pairing = 1;
		return 0;
	}
	return -1;
}
