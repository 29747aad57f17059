/* run-jobs.c - tachy run's jobs: one per command and parameter value, with
 * {VAR} substituted, named as hyperfine names them, the reference placed,
 * each command and hook split into words (or run through --shell). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run.h"
#include "tachy/argv.h"

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
		if (len + add + 1 > cap) { /* a string's bytes, a value at a time */
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
		return ty_argv_split(text, &v, e) < 0 ? NULL : v;
	return ty_argv_shell(shell, text, &v, e) < 0 ? NULL : v;
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
	if (run_list_add(&o->cmds, o->reference))
		return -1;
	memmove(o->cmds.v + 1, o->cmds.v, (o->cmds.n - 1) * sizeof(char *));
	o->cmds.v[0] = o->reference;
	*added = 1;
	if (o->names.n) { /* the names stay with their commands */
		if (run_list_add(&o->names, o->reference))
			return -1;
		memmove(o->names.v + 1, o->names.v, (o->names.n - 1) * sizeof(char *));
		o->names.v[0] = o->reference;
	}
	return 0;
}

int
run_jobs_build(struct bench *b)
{
	struct run_opts *o = &b->o;
	size_t combos = 1, c, k, j = 0, pick[MAX_PARAMS], x, nref;
	int rc, ref, added;
	struct ty_error e;

	if (o->argv_cmd) {
		/* the command as text, words quoted where needed: splitting it
		 * (as every command is) gives the argv back */
		b->argv_text = ty_argv_join(o->argv_cmd, (size_t)o->argc_cmd);
		if (!b->argv_text || run_list_add(&o->cmds, b->argv_text))
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
