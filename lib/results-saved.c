/* results-saved.c - saved results (results-saved.h): freeing them, looking
 * up their figures and facts, naming their benchmarks, and making them from
 * the results of this run. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/jsonw.h"
#include "tachy/results-saved.h"
#include "tachy/results.h"
#include "tachy/runprof-json.h"
#include "tachy/verdict.h"

void
ty_results_saved_figure_release(struct ty_results_saved_figure *f)
{
	free(f->name);
	free(f->unit);
	free(f->values);
	free(f->run);
}

void
ty_results_saved_bench_release(struct ty_results_saved_bench *b)
{
	size_t i;

	free(b->command);
	free(b->name);
	free(b->label);
	for (i = 0; i < b->nfigs; i++)
		ty_results_saved_figure_release(&b->figs[i]);
	free(b->figs);
	for (i = 0; i < b->nwarnings; i++)
		free(b->warnings[i]);
	free(b->warnings);
	free(b->rounds);
}

void
ty_results_saved_release(struct ty_results_saved *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nbenches; i++)
		ty_results_saved_bench_release(&r->benches[i]);
	free(r->benches);
	for (i = 0; i < r->nenv; i++) {
		free(r->env_keys[i]);
		free(r->env_values[i]);
	}
	free(r->env_keys);
	free(r->env_values);
	for (i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->path);
	free(r->test);
	free(r->order);
	free(r->reference_norun);
	ty_runprof_json_free(r->profile);
	memset(r, 0, sizeof(*r));
}

const struct ty_results_saved_figure *
ty_results_saved_figure_named(const struct ty_results_saved_bench *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nfigs; i++)
		if (strcmp(b->figs[i].name, name) == 0)
			return &b->figs[i];
	return NULL;
}

const char *
ty_results_saved_env_value(const struct ty_results_saved *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nenv; i++)
		if (strcmp(r->env_keys[i], key) == 0)
			return r->env_values[i];
	return NULL;
}

/* Needs no JSON library: compare's notes use it in every build. */
int
ty_results_saved_strv_addf(char ***v, size_t *n, const char *fmt, ...)
{
	char **nv, *s;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	/* one at a time here and below: notes, figures and environment
	 * entries are a handful a benchmark, and readers give no capacity */
	if (!(nv = realloc(*v, (*n + 1) * sizeof(*nv)))) {
		free(s);
		return -ENOMEM;
	}
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

int
ty_results_saved_label(struct ty_results_saved *r, const size_t *orig)
{
	char list[512];
	size_t i, j, k, len;
	int rc;

	for (i = 0; i < r->nbenches; i++) {
		if (r->benches[i].dup)
			continue;
		for (j = i + 1, k = 1; j < r->nbenches; j++)
			if (strcmp(r->benches[j].name, r->benches[i].name) == 0)
				r->benches[j].dup = ++k;
		if (k == 1)
			continue;
		r->benches[i].dup = 1;
		len = (size_t)snprintf(list, sizeof(list), "results[%zu]", orig[i]);
		for (j = i + 1; j < r->nbenches && len < sizeof(list); j++)
			if (r->benches[j].dup &&
			    strcmp(r->benches[j].name, r->benches[i].name) == 0)
				len += (size_t)snprintf(list + len, sizeof(list) - len,
							", results[%zu]", orig[j]);
		rc = ty_results_saved_strv_addf(
		    &r->notes, &r->nnotes,
		    "%zu benchmarks are named '%s' (%s): shown numbered ('%s #1', ...); "
		    "across files they pair in the order they appear",
		    k, r->benches[i].name, list, r->benches[i].name);
		if (rc)
			return rc;
	}
	for (i = 0; i < r->nbenches; i++) {
		struct ty_results_saved_bench *b = &r->benches[i];
		if (b->dup ? asprintf(&b->label, "%s #%zu", b->name, b->dup) < 0
			   : !(b->label = strdup(b->name))) {
			b->label = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/* ---- from the results of this run ---- */

struct ty_results_saved_figure *
ty_results_saved_figure_add(struct ty_results_saved_bench *b, const char *name, const char *unit,
			    size_t n)
{
	struct ty_results_saved_figure *f, *figs;

	if (!(figs = realloc(b->figs, (b->nfigs + 1) * sizeof(*figs))))
		return NULL;
	b->figs = figs;
	f = &figs[b->nfigs];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->unit = strdup(unit);
	f->values = calloc(n ? n : 1, sizeof(double));
	f->run = calloc(n ? n : 1, sizeof(*f->run));
	if (!f->name || !f->unit || !f->values || !f->run) {
		ty_results_saved_figure_release(f);
		return NULL;
	}
	b->nfigs++;
	return f;
}

/* Value V of run RUN into F; a value not finite is missing (the export
 * writes it as null). */
static void
push_value(struct ty_results_saved_figure *f, double v, size_t run)
{
	if (!isfinite(v)) {
		f->missing++;
		return;
	}
	f->run[f->n] = run;
	f->values[f->n++] = v;
}

/* The built-in figures of a run, as the export writes them and the reader
 * scales them: wall (times[], seconds), then tachy.runs[]'s fields. */
static double
builtin_value(const struct ty_results_run *s, size_t k)
{
	const struct ty_usage *u = &s->usage;

	switch (k) {
	case 0:
		return (double)s->wall_ns / 1e9;
	case 1:
		return (double)u->user_ns * 1e-9;
	case 2:
		return (double)u->system_ns * 1e-9;
	case 3:
		return (double)u->maxrss_kb;
	case 4:
		return (double)u->minflt;
	case 5:
		return (double)u->majflt;
	case 6:
		return (double)u->nvcsw;
	default:
		return (double)u->nivcsw;
	}
}

static const struct {
	const char *name, *unit;
} builtin_figs[] = {{"wall", "s"},  {"user", "s"},  {"system", "s"}, {"maxrss", "KiB"},
		    {"minflt", ""}, {"majflt", ""}, {"nvcsw", ""},   {"nivcsw", ""}};

/* The probe values (counters) of RES that are supported, in their order. */
static int
probe_figures(struct ty_results_saved_bench *b, const struct ty_results *rs,
	      const struct ty_result *res)
{
	struct ty_results_saved_figure *f;
	size_t k, i;

	for (k = 0; k < rs->nvalues; k++) {
		const struct ty_value_desc *d = &rs->values[k];
		if (!d->supported || ty_results_saved_figure_named(b, d->name))
			continue;
		if (!(f = ty_results_saved_figure_add(b, d->name, d->unit, res->nruns)))
			return -ENOMEM;
		f->user_only = d->user_only;
		f->exact = d->exact; /* the gate of run judges a count as compare does */
		for (i = 0; i < res->nruns; i++)
			push_value(f, res->values[i * rs->nvalues + k], i);
	}
	return 0;
}

static int
bench_from(struct ty_results_saved_bench *b, const struct ty_results *rs,
	   const struct ty_result *res)
{
	struct ty_results_saved_figure *f;
	size_t i, k, n = res->nruns;

	b->left_out = (long)res->left_out;
	b->nruns = n;
	if (!(b->command = strdup(res->command)) || !(b->name = strdup(res->name)) ||
	    !(b->rounds = calloc(n + 1, sizeof(*b->rounds))))
		return -ENOMEM;
	for (k = 0; k < sizeof(builtin_figs) / sizeof(builtin_figs[0]); k++) {
		if (!(f = ty_results_saved_figure_add(b, builtin_figs[k].name, builtin_figs[k].unit,
						      n)))
			return -ENOMEM;
		for (i = 0; i < n; i++)
			push_value(f, builtin_value(&res->runs[i], k), i);
	}
	for (i = 0; i < n; i++)
		b->rounds[i] = res->runs[i].round;
	if (probe_figures(b, rs, res) < 0)
		return -ENOMEM;
	if (!res->maxrss_measurable) { /* the spawner's footprint, not the command's */
		b->maxrss_why = "some runs' peak RSS was not above the floor of the process "
				"they were cloned from (tachy.maxrss_measurable is false): "
				"not measurable";
		for (i = 0; i < b->nfigs; i++)
			if (strcmp(b->figs[i].name, "maxrss") == 0)
				b->figs[i].n = 0;
	}
	for (i = 1, k = 1; i < b->nfigs; i++) /* figures without a value are left out */
		if (b->figs[i].n == 0)
			ty_results_saved_figure_release(&b->figs[i]);
		else
			b->figs[k++] = b->figs[i];
	b->nfigs = k;
	if (!(b->warnings = calloc(res->nwarnings + 1, sizeof(char *))))
		return -ENOMEM;
	for (i = 0; i < res->nwarnings; i++)
		if (!(b->warnings[b->nwarnings++] = strdup(res->warnings[i])))
			return -ENOMEM;
	return 0;
}

static int
env_member(void *ctx, const char *key, const char *text)
{
	struct ty_results_saved *r = ctx;
	char **k = realloc(r->env_keys, (r->nenv + 2) * sizeof(*k)), **v;

	if (!k)
		return -ENOMEM;
	r->env_keys = k;
	if (!(v = realloc(r->env_values, (r->nenv + 2) * sizeof(*v))))
		return -ENOMEM;
	r->env_values = v;
	k[r->nenv] = strdup(key);
	v[r->nenv] = strdup(text);
	if (!k[r->nenv] || !v[r->nenv]) {
		free(k[r->nenv]);
		free(v[r->nenv]);
		return -ENOMEM;
	}
	r->nenv++;
	return 0;
}

/* The file-wide part: the notes of the commands not run, the reference
 * left out, the statistics, the environment. */
static int
file_from(struct ty_results_saved *r, const struct ty_results *rs, ty_results_env_fn env,
	  void *env_ctx)
{
	struct ty_jsonw w;
	size_t i;

	r->schema = TY_RESULTS_SCHEMA;
	r->confidence = rs->confidence;
	r->interrupted = rs->interrupted;
	if (!(r->test = strdup(ty_verdict_test_name(rs->test))) ||
	    (rs->order && !(r->order = strdup(rs->order))))
		return -ENOMEM;
	for (i = 0; i < rs->n; i++) /* the commands left out of results[], as tachy.not_run */
		if (rs->r[i].nruns == 0 &&
		    ty_results_saved_strv_addf(&r->notes, &r->nnotes,
					       "'%s' (tachy.not_run) has no finished run: left out",
					       rs->r[i].name) < 0)
			return -ENOMEM;
	/* a reference without a run is not named in the file (no tachy.reference) */
	for (i = 0; i < rs->n && rs->r[i].nruns > 0; i++)
		;
	if (i < rs->n && !(rs->reference < rs->n && rs->r[rs->reference].nruns > 0) &&
	    !(r->reference_norun = strdup("")))
		return -ENOMEM;
	ty_jsonw_init_members(&w, env_member, r);
	(env ? env : ty_results_env_default)(&w, env_ctx);
	return w.member_err;
}

int
ty_results_saved_from(struct ty_results_saved *r, const struct ty_results *rs,
		      ty_results_env_fn env, void *env_ctx, const char *path, struct ty_error *e)
{
	size_t i, *orig = calloc(rs->n + 1, sizeof(*orig));
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	if (!(r->path = strdup(path)) || !orig ||
	    !(r->benches = calloc(rs->n + 1, sizeof(*r->benches))))
		goto out;
	if (rs->interrupted && ty_results_saved_strv_addf(
				   &r->notes, &r->nnotes,
				   "the run was interrupted (tachy.interrupted): the file holds "
				   "only the runs finished before the stop") < 0)
		goto out;
	for (i = 0; i < rs->n; i++) {
		if (rs->r[i].nruns == 0)
			continue;
		if (i == rs->reference)
			r->reference = r->nbenches;
		orig[r->nbenches] = r->nbenches; /* results[] holds only the commands run */
		if ((rc = bench_from(&r->benches[r->nbenches++], rs, &rs->r[i])) < 0)
			goto out;
	}
	if (r->nbenches == 0) {
		rc = ty_error_set(e, -EINVAL, "%s: no benchmark has a finished run", path);
		goto fail;
	}
	if ((rc = ty_results_saved_label(r, orig)) < 0 || (rc = file_from(r, rs, env, env_ctx)) < 0)
		goto out;
	if (!(r->confidence > 0 && r->confidence < 100)) {
		rc = ty_error_set(e, -EINVAL,
				  "%s: the confidence is %g: not a percentage in (0, 100)", path,
				  r->confidence);
		goto fail;
	}
	free(orig);
	return 0;
out:
	if (rc == -EINVAL) /* what the reader does not take either */
		rc = ty_error_set(e, rc, "%s: an environment fact is an object or an array", path);
	else
		rc = ty_error_set(e, -ENOMEM, "%s: out of memory", path);
fail:
	free(orig);
	ty_results_saved_release(r);
	return rc;
}
