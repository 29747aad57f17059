/* results-saved.c - saved results (results-saved.h): freeing them, looking
 * up their figures and facts, naming their benchmarks, and making them from
 * the results of this run. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/results-saved.h"
#include "tachy/runprof-json.h"

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
