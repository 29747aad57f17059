/* compare-input.c - options and input shared by compare and plot, and the
 * JSON of a centre that compare and history compare write alike. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare-input.h"

int
compare_input_opt_confidence(const struct cli_option *opt, const char *typed, char **args)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(args[0], &end);
	if (end == args[0] || *end != '\0' || errno == ERANGE || !(v > 0 && v < 100))
		return cli_bad_value(typed, args[0], "a percentage between 0 and 100, exclusive");
	*(double *)opt->value = v;
	return 0;
}

int
compare_input_opt_match(const struct cli_option *opt, const char *typed, char **args)
{
	struct ty_match *m = opt->value;
	char *rule = args[0];
	size_t len = strlen(rule);
	char **p;

	if (len >= 2 && rule[0] == '/' && rule[len - 1] == '/') {
		if (m->key_re)
			return cli_usage_error("%s /REGEX/ given twice", typed);
		rule[len - 1] = '\0';
		m->key_re = rule + 1;
		return 0;
	}
	if (!strchr(rule, '='))
		return cli_bad_value(typed, rule, "OLD=NEW or /REGEX/");
	/* one at a time: the -m rules given, a handful */
	if (!(p = realloc(m->pairs, (m->npairs + 1) * sizeof(*p))))
		return cli_error(EXIT_RUNTIME, "out of memory");
	m->pairs = p;
	m->pairs[m->npairs++] = rule;
	return 0;
}

int
compare_input_read(struct ty_results_saved *files, char **paths, int n)
{
	struct ty_error e = {0};
	int i, rc, stdin_seen = 0;

	for (i = 0; i < n; i++)
		if (strcmp(paths[i], "-") == 0 && stdin_seen++)
			return cli_usage_error("'-' (standard input) given twice: it can be read "
					       "once");
	for (i = 0; i < n; i++) {
		if (strcmp(paths[i], "-") == 0)
			rc = ty_results_read_stream(&files[i], stdin, COMPARE_INPUT_STDIN, &e);
		else
			rc = ty_results_read_file(&files[i], paths[i], &e);
		if (rc) {
			while (i-- > 0)
				ty_results_saved_release(&files[i]);
			return cli_error(rc == -ENOTSUP || rc == -ENOMEM ? EXIT_RUNTIME
									 : EXIT_USAGE,
					 "%s", e.msg);
		}
	}
	return 0;
}

void
compare_input_json_centre(struct ty_jsonw *w, const char *key, const struct ty_centre *c)
{
	ty_jsonw_key(w, key);
	ty_jsonw_object_begin(w);
	ty_jsonw_kuint(w, "n", c->n);
	ty_jsonw_kdouble(w, "centre", c->centre);
	ty_jsonw_kdouble(w, "ci_low", c->exact_ci ? c->lo : NAN);
	ty_jsonw_kdouble(w, "ci_high", c->exact_ci ? c->hi : NAN);
	ty_jsonw_object_end(w);
}

/* ---- whether the sides are comparable ---- */

void
compare_input_warn_finding(const struct ty_comparable_finding *f)
{
	static const char *const what[] = {
	    [TY_COMPARABLE_MACHINE] = "measured on different machines",
	    [TY_COMPARABLE_KERNEL] = "measured under different kernels",
	    [TY_COMPARABLE_LOAD] = "measured under clearly different load",
	    [TY_COMPARABLE_STALE] = "a stale baseline",
	};

	cli_warn("not comparable, %s: %s: %s", what[f->kind], f->facts, f->fix);
}

size_t
compare_input_comparable(const struct ty_results_saved *old, size_t n_old, const char *name_old,
			 const struct ty_results_saved *new, size_t n_new, const char *name_new,
			 struct ty_comparable_finding *f)
{
	struct ty_comparable_side a, b;
	size_t n;

	ty_comparable_side_of(&a, name_old, old, n_old);
	ty_comparable_side_of(&b, name_new, new, n_new);
	n = ty_comparable_judge(&a, &b, f, COMPARE_INPUT_FINDINGS);
	n = n < COMPARE_INPUT_FINDINGS ? n : COMPARE_INPUT_FINDINGS;
	for (size_t i = 0; i < n; i++)
		compare_input_warn_finding(&f[i]);
	return n;
}

void
compare_input_json_findings(struct ty_jsonw *w, const struct ty_comparable_finding *f, size_t n)
{
	ty_jsonw_key(w, "comparability");
	ty_jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++) {
		ty_jsonw_object_begin(w);
		ty_jsonw_kstring(w, "kind", ty_comparable_kind_key(f[i].kind));
		ty_jsonw_kstring(w, "facts", f[i].facts);
		ty_jsonw_kstring(w, "fix", f[i].fix);
		ty_jsonw_object_end(w);
	}
	ty_jsonw_array_end(w);
}
