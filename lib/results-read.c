/* results-read.c - read tachy's and hyperfine's JSON exports.
 *
 * Every field is checked where it is read, and a problem is reported with
 * the file and a path to the value (results[1].tachy.runs[3].wall_ns), or
 * jansson's line and column for syntax. Values are never guessed. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/results-read.h"
#include "tachy/runprof-json.h"

#ifdef HAVE_JANSSON
#include <jansson.h>
#endif

#ifndef HAVE_JANSSON

int
ty_results_read_text(struct ty_results_saved *r, const char *text, const char *path,
		     struct ty_error *e)
{
	memset(r, 0, sizeof(*r));
	return ty_error_set(e, -ENOTSUP, "cannot read '%s': not built with jansson", path);
}

int
ty_results_read_file(struct ty_results_saved *r, const char *path, struct ty_error *e)
{
	return ty_results_read_text(r, "", path, e);
}

int
ty_results_read_stream(struct ty_results_saved *r, FILE *fp, const char *path, struct ty_error *e)
{
	(void)fp;
	return ty_results_read_text(r, "", path, e);
}

#else

#include "results-read-json.h"

static void
push_value(struct ty_results_saved_figure *f, double v, size_t run)
{
	if (isnan(v)) {
		f->missing++;
	} else {
		f->run[f->n] = run;
		f->values[f->n++] = v;
	}
}

/* results[i].times -> figure "wall" (seconds). Returns 1 when the array
 * is empty (a benchmark without a finished run). */
static int
read_times(struct reader *rd, const json_t *res, struct ty_results_saved_bench *b)
{
	json_t *times, *v;
	struct ty_results_saved_figure *f;
	size_t i, l;
	double d;
	int rc;

	if ((rc = rr_member(rd, res, "times", JSON_ARRAY, 1, &times)))
		return rc;
	if (json_array_size(times) == 0)
		return 1;
	if (!(f = ty_results_saved_figure_add(b, "wall", "s", json_array_size(times))))
		return rr_nomem(rd);
	l = rr_down(rd, "times", 0);
	json_array_foreach(times, i, v)
	{
		size_t l2 = rr_down(rd, NULL, i);
		rc = rr_nonneg_number(rd, v, 0, TIME_MAX_S, "s", &d);
		rr_up(rd, l2);
		if (rc) {
			rr_up(rd, l);
			return rc;
		}
		push_value(f, d, i);
	}
	rr_up(rd, l);
	b->nruns = json_array_size(times);
	return 0;
}

/* hyperfine's summary fields: a number (or null) where present. */
static int
check_hyperfine_fields(struct reader *rd, const json_t *res)
{
	static const char *keys[] = {"mean", "stddev", "median", "user", "system", "min", "max"};
	size_t i, l;
	json_t *v;
	double d;
	int rc;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!(v = json_object_get(res, keys[i])))
			continue;
		l = rr_down(rd, keys[i], 0);
		rc = rr_nonneg_number(rd, v, 1, TIME_MAX_S, "s", &d);
		rr_up(rd, l);
		if (rc)
			return rc;
	}
	return 0;
}

/* Per-run rusage fields: name in the run, figure name, unit, scale. */
static const struct {
	const char *field, *figure, *unit;
	double scale;
	int required;
} run_fields[] = {
    {"user_ns", "user", "s", 1e-9, 1},	  {"system_ns", "system", "s", 1e-9, 1},
    {"maxrss_kb", "maxrss", "KiB", 1, 0}, {"minflt", "minflt", "", 1, 0},
    {"majflt", "majflt", "", 1, 0},	  {"nvcsw", "nvcsw", "", 1, 0},
    {"nivcsw", "nivcsw", "", 1, 0},
};
#define NRUN_FIELDS (sizeof(run_fields) / sizeof(run_fields[0]))

/* The unit of counter NAME: tachy.counters[NAME].unit, else
 * tachy.summary[NAME].unit, else "" (a count). */
static int
counter_unit(struct reader *rd, const json_t *tachy, const char *name, const char **unit,
	     int *supported, int *user_only, int *exact)
{
	json_t *o, *c, *u = NULL, *s, *uo = NULL, *ex = NULL;
	size_t l;
	int rc = 0;

	*unit = "";
	*supported = 1;
	*exact = 0;
	/* perf's label says it (a file written before user_only was) */
	*user_only = strlen(name) > 2 && strcmp(name + strlen(name) - 2, ":u") == 0;
	if ((o = json_object_get(tachy, "counters")) && (c = json_object_get(o, name))) {
		l = rr_down(rd, "counters", 0);
		rr_down(rd, name, 0);
		s = json_object_get(c, "supported");
		if (!json_is_object(c))
			rc = rr_bad(rd, "expected an object, found %s", rr_type_name(c));
		else if (s && !json_is_boolean(s))
			rc = rr_bad(rd, "\"supported\": expected a boolean, found %s",
				    rr_type_name(s));
		else if ((uo = json_object_get(c, "user_only")) && !json_is_boolean(uo))
			rc = rr_bad(rd, "\"user_only\": expected a boolean, found %s",
				    rr_type_name(uo));
		else if ((ex = json_object_get(c, "exact")) && !json_is_boolean(ex))
			rc =
			    rr_bad(rd, "\"exact\": expected a boolean, found %s", rr_type_name(ex));
		else if (!(rc = rr_member(rd, c, "unit", JSON_STRING, 0, &u)) && u)
			*unit = json_string_value(u);
		if (!rc && s)
			*supported = json_is_true(s);
		if (!rc && uo)
			*user_only = json_is_true(uo);
		if (!rc && ex)
			*exact = json_is_true(ex);
		rr_up(rd, l);
		if (rc || u)
			return rc;
	}
	if ((o = json_object_get(tachy, "summary")) && (c = json_object_get(o, name)) &&
	    json_is_object(c) && (u = json_object_get(c, "unit")) && json_is_string(u))
		*unit = json_string_value(u);
	return 0;
}

/* Counters named in any run, as figures, values in run order. */
static int
read_counters(struct reader *rd, const json_t *tachy, const json_t *runs,
	      struct ty_results_saved_bench *b)
{
	json_t *run, *cs, *v;
	const char *name, *unit;
	struct ty_results_saved_figure *f;
	size_t i, j, n = json_array_size(runs), l, l2;
	int rc, supported, user_only, exact;
	double d;

	json_array_foreach(runs, i, run)
	{
		if (!(cs = json_object_get(run, "counters")))
			continue;
		json_object_foreach(cs, name, v)
		{
			if (ty_results_saved_figure_named(b, name))
				continue;
			if ((rc = counter_unit(rd, tachy, name, &unit, &supported, &user_only,
					       &exact)))
				return rc;
			if (!supported)
				continue;
			if (!(f = ty_results_saved_figure_add(b, name, unit, n)))
				return rr_nomem(rd);
			f->user_only = user_only;
			f->exact = exact;
			for (j = 0; j < n; j++) {
				json_t *c = json_object_get(json_array_get(runs, j), "counters");
				json_t *x = c ? json_object_get(c, name) : NULL;
				if (!x) {
					f->missing++;
					continue;
				}
				l = rr_down(rd, "runs", 0);
				rr_down(rd, NULL, j);
				rr_down(rd, "counters", 0);
				l2 = rr_down(rd, name, 0);
				rc = rr_nonneg_number(
				    rd, x, 1, rr_time_max(unit) ? rr_time_max(unit) : COUNT_MAX,
				    rr_time_max(unit) ? unit : "", &d);
				rr_up(rd, l2);
				rr_up(rd, l);
				if (rc)
					return rc;
				push_value(f, d, j);
			}
		}
	}
	return 0;
}

static int
read_run(struct reader *rd, const json_t *run, struct ty_results_saved_bench *b, size_t first,
	 size_t index)
{
	json_t *v, *cs;
	size_t j;
	double d;
	int rc;

	if (!json_is_object(run))
		return rr_bad(rd, "expected an object, found %s", rr_type_name(run));
	if ((rc = rr_member(rd, run, "wall_ns", JSON_REAL, 1, &v)))
		return rc;
	if ((rc = rr_member(rd, run, "counters", JSON_OBJECT, 0, &cs)))
		return rc;
	for (j = 0; j < NRUN_FIELDS; j++) {
		struct ty_results_saved_figure *f = &b->figs[first + j];
		if ((rc = rr_member(rd, run, run_fields[j].field, JSON_REAL, run_fields[j].required,
				    &v)))
			return rc;
		if (!v) {
			f->missing++;
			continue;
		}
		size_t l = rr_down(rd, run_fields[j].field, 0);
		rc = run_fields[j].scale == 1e-9
			 ? rr_nonneg_number(rd, v, 0, TIME_MAX_S * 1e9, "ns", &d)
			 : rr_nonneg_number(rd, v, 0, COUNT_MAX, "", &d);
		rr_up(rd, l);
		if (rc)
			return rc;
		push_value(f, d * run_fields[j].scale, index);
	}
	if ((rc = rr_member(rd, run, "round", JSON_INTEGER, 0, &v)))
		return rc;
	if (!v) {
		free(b->rounds); /* pairs only when every run has its round */
		b->rounds = NULL;
	} else if (json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX) {
		size_t l = rr_down(rd, "round", 0);
		rc = rr_bad(rd, "%lld is not a round number", (long long)json_integer_value(v));
		rr_up(rd, l);
		return rc;
	} else if (b->rounds) {
		b->rounds[index] = (uint32_t)json_integer_value(v);
	}
	return 0;
}

/* Drop figures that no run had (optional rusage fields absent throughout). */
static void
drop_empty_figures(struct ty_results_saved_bench *b)
{
	size_t i, k = 0;

	for (i = 0; i < b->nfigs; i++) {
		if (b->figs[i].n == 0 && i > 0) {
			ty_results_saved_figure_release(&b->figs[i]);
			continue;
		}
		b->figs[k++] = b->figs[i];
	}
	b->nfigs = k;
}

static int
read_tachy_result(struct reader *rd, const json_t *tachy, struct ty_results_saved_bench *b)
{
	json_t *name, *cmd, *mm, *runs, *warn, *run, *w;
	size_t i, l, first = b->nfigs;
	int rc;

	if ((rc = rr_member(rd, tachy, "name", JSON_STRING, 1, &name)) ||
	    (rc = rr_member(rd, tachy, "command", JSON_STRING, 0, &cmd)) ||
	    (rc = rr_member(rd, tachy, "runs", JSON_ARRAY, 1, &runs)) ||
	    (rc = rr_member(rd, tachy, "warnings", JSON_ARRAY, 0, &warn)) ||
	    (rc = rr_member(rd, tachy, "summary", JSON_OBJECT, 0, &w)) ||
	    (rc = rr_member(rd, tachy, "counters", JSON_OBJECT, 0, &w)))
		return rc;
	free(b->name);
	if (!(b->name = strdup(json_string_value(name))))
		return rr_nomem(rd);
	if (cmd) { /* with -n, hyperfine's "command" holds the name */
		free(b->command);
		if (!(b->command = strdup(json_string_value(cmd))))
			return rr_nomem(rd);
	}
	if (json_array_size(runs) != b->figs[0].n) {
		l = rr_down(rd, "runs", 0);
		rc = rr_bad(rd, "%zu runs, but \"times\" has %zu", json_array_size(runs),
			    b->figs[0].n);
		rr_up(rd, l);
		return rc;
	}
	for (i = 0; i < NRUN_FIELDS; i++)
		if (!ty_results_saved_figure_add(b, run_fields[i].figure, run_fields[i].unit,
						 json_array_size(runs)))
			return rr_nomem(rd);
	if (!(b->rounds = calloc(json_array_size(runs) + 1, sizeof(*b->rounds))))
		return rr_nomem(rd);
	json_array_foreach(runs, i, run)
	{
		l = rr_down(rd, "runs", 0);
		rr_down(rd, NULL, i);
		rc = read_run(rd, run, b, first, i);
		rr_up(rd, l);
		if (rc)
			return rc;
	}
	if ((rc = read_counters(rd, tachy, runs, b)))
		return rc;
	if ((rc = rr_member(rd, tachy, "left_out", JSON_INTEGER, 0, &w)))
		return rc;
	if (w && (json_integer_value(w) < 0 || (size_t)json_integer_value(w) > b->nruns)) {
		l = rr_down(rd, "left_out", 0);
		rc = rr_bad(rd, "%lld runs left out of %zu", (long long)json_integer_value(w),
			    b->nruns);
		rr_up(rd, l);
		return rc;
	}
	if (w)
		b->left_out = (long)json_integer_value(w);
	mm = json_object_get(tachy, "maxrss_measurable");
	if (mm && json_is_false(mm)) /* the spawner's footprint, not the command's */
		for (i = first; i < b->nfigs; i++)
			if (strcmp(b->figs[i].name, "maxrss") == 0) {
				b->maxrss_why =
				    "some runs' peak RSS was not above the floor of the process "
				    "they were cloned from (tachy.maxrss_measurable is false): "
				    "not measurable";
				b->figs[i].n = 0;
			}
	drop_empty_figures(b);
	if (warn) {
		b->warnings = calloc(json_array_size(warn) + 1, sizeof(char *));
		if (!b->warnings)
			return rr_nomem(rd);
		json_array_foreach(warn, i, w)
		{
			if (!json_is_string(w)) {
				l = rr_down(rd, "warnings", 0);
				rr_down(rd, NULL, i);
				rc = rr_bad(rd, "expected a string, found %s", rr_type_name(w));
				rr_up(rd, l);
				return rc;
			}
			if (!(b->warnings[b->nwarnings++] = strdup(json_string_value(w))))
				return rr_nomem(rd);
		}
	}
	return 0;
}

/* A result without runs: only its name is read (tachy.name when given);
 * returns 1 (left out) or an error. */
static int
no_runs(struct reader *rd, const json_t *res, struct ty_results_saved_bench *b)
{
	json_t *tachy, *name;
	size_t l;
	int rc;

	if ((rc = rr_member(rd, res, "tachy", JSON_OBJECT, 0, &tachy)) || !tachy)
		return rc ? rc : 1;
	l = rr_down(rd, "tachy", 0);
	rc = rr_member(rd, tachy, "name", JSON_STRING, 0, &name);
	rr_up(rd, l);
	if (rc)
		return rc;
	if (name) {
		free(b->name);
		if (!(b->name = strdup(json_string_value(name))))
			return rr_nomem(rd);
	}
	return 1;
}

/* A result whose runs left out (a warm-up) are kept apart, in
 * tachy.left_out_runs (times[] and tachy.runs hold only the runs the
 * figures come from), as one in the layout of files without it: those runs
 * first in times[] and tachy.runs, tachy.left_out counting them. Stores a
 * new result in *OUT (NULL when RES has no left_out_runs). Returns 0 or an
 * error. */
static int
join_left_out(struct reader *rd, const json_t *res, json_t **out)
{
	json_t *tachy = json_object_get(res, "tachy"), *lo, *times, *runs, *w, *run;
	json_t *t2 = NULL, *r2 = NULL, *tc = NULL, *rc2 = NULL;
	size_t i, l, l2;
	int rc = 0;

	*out = NULL;
	if (!json_is_object(tachy) || !(lo = json_object_get(tachy, "left_out_runs")))
		return 0;
	l = rr_down(rd, "tachy", 0);
	l2 = rr_down(rd, "left_out_runs", 0);
	if (!json_is_array(lo)) {
		rc = rr_bad(rd, "expected an array, found %s", rr_type_name(lo));
		goto out;
	}
	w = json_object_get(tachy, "left_out");
	if (!json_is_integer(w) || json_integer_value(w) < 0 ||
	    (size_t)json_integer_value(w) != json_array_size(lo)) {
		rc = rr_bad(rd, "%zu runs, but \"left_out\" is not %zu", json_array_size(lo),
			    json_array_size(lo));
		goto out;
	}
	times = json_object_get(res, "times");
	runs = json_object_get(tachy, "runs");
	if (!json_is_array(times) || !json_is_array(runs))
		goto out; /* said by the readers of times and runs */
	if (!(t2 = json_array()) || !(r2 = json_array()) || !(tc = json_copy(tachy)) ||
	    !(rc2 = json_copy((json_t *)res))) {
		rc = rr_nomem(rd);
		goto out;
	}
	json_array_foreach(lo, i, run)
	{
		json_t *ns = json_is_object(run) ? json_object_get(run, "wall_ns") : NULL;
		if (!json_is_integer(ns) || json_integer_value(ns) < 0) {
			size_t l3 = rr_down(rd, NULL, i);
			rc = rr_bad(rd, "expected a run with a non-negative integer \"wall_ns\"");
			rr_up(rd, l3);
			goto out;
		}
		if (json_array_append_new(t2, json_real((double)json_integer_value(ns) / 1e9)) ||
		    json_array_append(r2, run)) {
			rc = rr_nomem(rd);
			goto out;
		}
	}
	if (json_array_extend(t2, times) || json_array_extend(r2, runs) ||
	    json_object_set(tc, "runs", r2) || json_object_set(rc2, "times", t2) ||
	    json_object_set(rc2, "tachy", tc)) {
		rc = rr_nomem(rd);
		goto out;
	}
	*out = rc2;
	rc2 = NULL;
out:
	rr_up(rd, l2);
	rr_up(rd, l);
	json_decref(t2);
	json_decref(r2);
	json_decref(tc);
	json_decref(rc2);
	return rc;
}

static int
read_result_joined(struct reader *rd, const json_t *res, struct ty_results_saved_bench *b,
		   int is_tachy)
{
	json_t *cmd, *tachy;
	size_t l;
	int rc;

	if (!json_is_object(res))
		return rr_bad(rd, "expected an object, found %s", rr_type_name(res));
	if ((rc = rr_member(rd, res, "command", JSON_STRING, 1, &cmd)))
		return rc;
	if (!(b->command = strdup(json_string_value(cmd))) || !(b->name = strdup(b->command)))
		return rr_nomem(rd);
	if ((rc = read_times(rd, res, b)) == 1)
		return no_runs(rd, res, b);
	if (rc || (rc = check_hyperfine_fields(rd, res)))
		return rc;
	if ((rc = rr_member(rd, res, "tachy", JSON_OBJECT, is_tachy, &tachy)) || !tachy)
		return rc;
	l = rr_down(rd, "tachy", 0);
	rc = read_tachy_result(rd, tachy, b);
	rr_up(rd, l);
	return rc;
}

static int
read_result(struct reader *rd, const json_t *res, struct ty_results_saved_bench *b, int is_tachy)
{
	json_t *joined = NULL;
	int rc;

	if (json_is_object(res) && (rc = join_left_out(rd, res, &joined)))
		return rc;
	if (json_is_object(res) && joined) {
		rc = read_result_joined(rd, joined, b, is_tachy);
		json_decref(joined);
		return rc;
	}
	return read_result_joined(rd, res, b, is_tachy);
}

/* An environment value as text: strings as they are, the rest as JSON. */
static char *
env_text(const json_t *v)
{
	char buf[64];

	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return strdup(buf);
	}
	if (json_is_real(v)) {
		snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
		return strdup(buf);
	}
	return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

static int
read_environment(struct reader *rd, const json_t *env, struct ty_results_saved *r)
{
	const char *key;
	json_t *v;
	size_t n = json_object_size(env);

	r->env_keys = calloc(n + 1, sizeof(char *));
	r->env_values = calloc(n + 1, sizeof(char *));
	if (!r->env_keys || !r->env_values)
		return rr_nomem(rd);
	json_object_foreach((json_t *)env, key, v)
	{
		r->env_keys[r->nenv] = strdup(key);
		r->env_values[r->nenv] = env_text(v);
		if (!r->env_keys[r->nenv] || !r->env_values[r->nenv]) {
			free(r->env_keys[r->nenv]);
			free(r->env_values[r->nenv]);
			return rr_nomem(rd);
		}
		r->nenv++;
	}
	return 0;
}

/* Add a note about the file to R. */
#define note(rd, r, ...)                                                                           \
	(ty_results_saved_strv_addf(&(r)->notes, &(r)->nnotes, __VA_ARGS__) ? rr_nomem(rd) : 0)

/* tachy.reference (index IDX into results[]) as an index into r->benches:
 * ORIG[i] is the results[] index of benches[i]; NORUN names the results
 * left out. */
static int
set_reference(struct reader *rd, struct ty_results_saved *r, size_t idx, const size_t *orig,
	      char *const *norun)
{
	size_t i;

	for (i = 0; i < r->nbenches; i++)
		if (orig[i] == idx) {
			r->reference = i;
			return 0;
		}
	r->reference = 0;
	if (norun[idx] && !(r->reference_norun = strdup(norun[idx])))
		return rr_nomem(rd);
	return 0;
}

/* tachy.not_run: [{"name": ..., "command": ...}], the commands an
 * interrupted run left out of results[]; a note each. Without
 * tachy.reference (HAS_REF 0) the reference is one of them. */
static int
read_not_run(struct reader *rd, const json_t *t, struct ty_results_saved *r, int has_ref)
{
	json_t *list, *o, *name;
	size_t i, l;
	int rc;

	if ((rc = rr_member(rd, t, "not_run", JSON_ARRAY, 0, &list)) || !list)
		return rc;
	json_array_foreach(list, i, o)
	{
		l = rr_down(rd, "not_run", 0);
		rr_down(rd, NULL, i);
		if (!json_is_object(o))
			rc = rr_bad(rd, "expected an object, found %s", rr_type_name(o));
		else
			rc = rr_member(rd, o, "name", JSON_STRING, 1, &name);
		rr_up(rd, l);
		if (rc)
			return rc;
		if ((rc = note(rd, r, "'%s' (tachy.not_run) has no finished run: left out",
			       json_string_value(name))))
			return rc;
	}
	if (!has_ref && json_array_size(list) && !r->reference_norun &&
	    !(r->reference_norun = strdup("")))
		return rr_nomem(rd);
	return 0;
}

static int
read_top_tachy(struct reader *rd, const json_t *t, struct ty_results_saved *r, size_t nresults,
	       const size_t *orig, char *const *norun)
{
	json_t *schema, *ref, *conf, *test, *order, *env;
	int rc;

	if ((rc = rr_member(rd, t, "schema", JSON_INTEGER, 1, &schema)))
		return rc;
	if (json_integer_value(schema) < 1)
		return rr_bad(rd, "\"schema\" is %lld: not a schema version",
			      (long long)json_integer_value(schema));
	if (json_integer_value(schema) > TY_RESULTS_SCHEMA)
		return rr_bad(rd,
			      "schema version %lld is newer than this tachy understands (%d); "
			      "read it with a newer tachy",
			      (long long)json_integer_value(schema), TY_RESULTS_SCHEMA);
	r->schema = (int)json_integer_value(schema);
	if ((rc = rr_member(rd, t, "reference", JSON_INTEGER, 0, &ref)) ||
	    (rc = rr_member(rd, t, "confidence", JSON_REAL, 0, &conf)) ||
	    (rc = rr_member(rd, t, "test", JSON_STRING, 0, &test)) ||
	    (rc = rr_member(rd, t, "order", JSON_STRING, 0, &order)) ||
	    (rc = rr_member(rd, t, "environment", JSON_OBJECT, 0, &env)))
		return rc;
	if (order && !(r->order = strdup(json_string_value(order))))
		return rr_nomem(rd);
	if (conf) {
		r->confidence = json_number_value(conf);
		if (!(r->confidence > 0 && r->confidence < 100))
			return rr_bad(rd, "\"confidence\" is %g: expected a percentage in (0, 100)",
				      r->confidence);
	}
	if (test && !(r->test = strdup(json_string_value(test))))
		return rr_nomem(rd);
	if (ref && (json_integer_value(ref) < 0 || (size_t)json_integer_value(ref) >= nresults))
		return rr_bad(rd, "\"reference\" is %lld: there are %zu results",
			      (long long)json_integer_value(ref), nresults);
	if (ref && (rc = set_reference(rd, r, (size_t)json_integer_value(ref), orig, norun)))
		return rc;
	if ((rc = read_not_run(rd, t, r, ref != NULL)))
		return rc;
	return env ? read_environment(rd, env, r) : 0;
}

/* tachy.interrupted: a note first when true. */
static int
read_interrupted(struct reader *rd, const json_t *t, struct ty_results_saved *r)
{
	json_t *intr;
	size_t l;
	int rc;

	if (!(intr = json_object_get(t, "interrupted")))
		return 0;
	if (!json_is_boolean(intr)) {
		l = rr_down(rd, "tachy", 0);
		rr_down(rd, "interrupted", 0);
		rc = rr_bad(rd, "expected a boolean, found %s", rr_type_name(intr));
		rr_up(rd, l);
		return rc;
	}
	r->interrupted = json_is_true(intr);
	if (!r->interrupted)
		return 0;
	return note(rd, r,
		    "the run was interrupted (tachy.interrupted): the file holds only the runs "
		    "finished before the stop");
}

/* Read results[] into R->benches, leaving out (with a note) those without
 * a run; ORIG[i] gets the results[] index of benches[i], NORUN[k] the name
 * of results[k] when it was left out. */
static int
read_results(struct reader *rd, const json_t *results, struct ty_results_saved *r, int is_tachy,
	     size_t *orig, char **norun)
{
	struct ty_results_saved_bench *b;
	const json_t *res;
	size_t i, l;
	int rc;

	json_array_foreach(results, i, res)
	{
		b = &r->benches[r->nbenches++];
		b->left_out = -1;
		l = rr_down(rd, "results", 0);
		rr_down(rd, NULL, i);
		rc = read_result(rd, res, b, is_tachy);
		rr_up(rd, l);
		if (rc < 0)
			return rc;
		orig[r->nbenches - 1] = i;
		if (rc == 0)
			continue;
		norun[i] = b->name;
		b->name = NULL;
		ty_results_saved_bench_release(b);
		memset(b, 0, sizeof(*b));
		b->left_out = -1;
		r->nbenches--;
		if ((rc = note(rd, r, "'%s' (results[%zu]) has no finished run: left out", norun[i],
			       i)))
			return rc;
	}
	if (r->nbenches == 0) {
		l = rr_down(rd, "results", 0);
		rc = rr_bad(rd, "no benchmark has a finished run (every \"times\" array is empty)");
		rr_up(rd, l);
		return rc;
	}
	return 0;
}

/* tachy.profile: per-run profiles (runprof-json.h). */
static int
read_profile(struct reader *rd, const json_t *prof, struct ty_results_saved *r, const size_t *orig,
	     size_t nresults)
{
	size_t *nruns = calloc(r->nbenches + 1, sizeof(*nruns)), i;
	int rc;

	if (!nruns)
		return rr_nomem(rd);
	for (i = 0; i < r->nbenches; i++)
		nruns[i] = r->benches[i].nruns;
	rc = ty_runprof_json_read(&r->profile, prof, orig, nruns, r->nbenches, nresults, rd->file,
				  rd->e);
	free(nruns);
	return rc;
}

static int
read_root(struct reader *rd, const json_t *root, struct ty_results_saved *r)
{
	json_t *results, *tachy;
	char **norun = NULL;
	size_t i, l, n, *orig = NULL;
	int rc;

	if (!json_is_object(root))
		return rr_bad(rd, "expected an object, found %s", rr_type_name(root));
	if ((rc = rr_member(rd, root, "results", JSON_ARRAY, 1, &results)) ||
	    (rc = rr_member(rd, root, "tachy", JSON_OBJECT, 0, &tachy)))
		return rc;
	if (tachy) {
		/* The schema first: a newer file may differ in everything else. */
		json_t *s = json_object_get(tachy, "schema");
		if (s && json_is_integer(s) && json_integer_value(s) > TY_RESULTS_SCHEMA) {
			l = rr_down(rd, "tachy", 0);
			rc = read_top_tachy(rd, tachy, r, 0, NULL, NULL);
			rr_up(rd, l);
			return rc;
		}
	}
	if ((n = json_array_size(results)) == 0) {
		json_t *it = tachy ? json_object_get(tachy, "interrupted") : NULL;
		json_t *nr = tachy ? json_object_get(tachy, "not_run") : NULL;
		l = rr_down(rd, "results", 0);
		if (json_is_true(it) || json_array_size(nr))
			/* what an interrupted run leaves when no run had ended */
			rc = rr_bad(rd,
				    "no benchmark has a finished run (the run was interrupted "
				    "before the first one ended; %zu command%s in tachy.not_run "
				    "left out)",
				    json_array_size(nr), json_array_size(nr) == 1 ? "" : "s");
		else
			rc = rr_bad(rd, "no results (the array is empty)");
		rr_up(rd, l);
		return rc;
	}
	r->benches = calloc(n, sizeof(*r->benches));
	orig = calloc(n, sizeof(*orig));
	norun = calloc(n, sizeof(*norun));
	if (!r->benches || !orig || !norun)
		rc = rr_nomem(rd);
	else if (!tachy || !(rc = read_interrupted(rd, tachy, r)))
		rc = read_results(rd, results, r, tachy != NULL, orig, norun);
	if (!rc)
		rc = ty_results_saved_label(r, orig) < 0 ? rr_nomem(rd) : 0;
	if (!rc && tachy) {
		l = rr_down(rd, "tachy", 0);
		rc = read_top_tachy(rd, tachy, r, n, orig, norun);
		rr_up(rd, l);
	}
	if (!rc && tachy && json_object_get(tachy, "profile"))
		rc = read_profile(rd, json_object_get(tachy, "profile"), r, orig, n);
	for (i = 0; norun && i < n; i++)
		free(norun[i]);
	free(norun);
	free(orig);
	return rc;
}

static int
parse_json(struct ty_results_saved *r, json_t *root, const char *path, struct ty_error *e)
{
	struct reader rd = {.file = path, .e = e};
	int rc;

	if (!(r->path = strdup(path))) {
		json_decref(root);
		return ty_error_set(e, -ENOMEM, "%s: out of memory", path);
	}
	rc = read_root(&rd, root, r);
	json_decref(root);
	if (rc)
		ty_results_saved_release(r);
	return rc;
}

int
ty_results_read_text(struct ty_results_saved *r, const char *text, const char *path,
		     struct ty_error *e)
{
	json_error_t je;
	json_t *root;

	memset(r, 0, sizeof(*r));
	root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return ty_error_set(e, -EINVAL, "%s: line %d, column %d: %s", path, je.line,
				    je.column, je.text);
	return parse_json(r, root, path, e);
}

int
ty_results_read_stream(struct ty_results_saved *r, FILE *fp, const char *path, struct ty_error *e)
{
	json_error_t je;
	json_t *root;
	int err;

	memset(r, 0, sizeof(*r));
	errno = 0;
	root = json_loadf(fp, JSON_REJECT_DUPLICATES, &je);
	if (!root && ferror(fp)) {
		err = errno ? errno : EIO;
		return ty_error_set(e, -err, "cannot read '%s': %s", path, strerror(err));
	}
	if (!root)
		return ty_error_set(e, -EINVAL, "%s: line %d, column %d: %s", path, je.line,
				    je.column, je.text);
	return parse_json(r, root, path, e);
}

int
ty_results_read_file(struct ty_results_saved *r, const char *path, struct ty_error *e)
{
	FILE *fp;
	int err, rc;

	memset(r, 0, sizeof(*r));
	if (!(fp = fopen(path, "r"))) {
		err = errno;
		return ty_error_set(e, -err, "cannot open '%s': %s", path, strerror(err));
	}
	rc = ty_results_read_stream(r, fp, path, e);
	fclose(fp);
	return rc;
}

#endif /* HAVE_JANSSON */
