/* history-saved.c - what the history holds at one commit, as saved
 * results (history.h): the commit a name stands for, the machines with
 * results there, and their wall times and per-run profiles as tachy
 * compare reads a file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "tachy/array.h"
#include "tachy/comparable.h"
#include "tachy/history.h"
#include "tachy/results-read.h"
#include "tachy/results-saved.h"
#include "tachy/runprof-json.h"
#include "tachy/runprof.h"

/* ---- the commit ---- */

static const char sql_find[] =
    "SELECT DISTINCT c.rev, m.name FROM commits c JOIN results r ON r.commit_id = c.id "
    "JOIN machines m ON m.id = r.machine_id WHERE c.rev = CAST($1 AS TEXT) "
    "OR substr(c.rev, 1, length(CAST($1 AS TEXT))) = CAST($1 AS TEXT) ORDER BY c.rev, m.name";

struct found {
	const char *want;
	char *exact, *first, *other; /* the commit named exactly; the first and another matching */
	char **machines;	     /* of the commit taken, NULL-ended */
	size_t n, cap;
	int nomem;
};

static int
found_row(void *ctx, int ncols, const char *const *v)
{
	struct found *f = ctx;

	if (ncols < 2 || !v[0] || !v[1])
		return 0;
	if (strcmp(v[0], f->want) == 0 && !f->exact && !(f->exact = strdup(v[0])))
		return -ENOMEM;
	if (!f->first) {
		if (!(f->first = strdup(v[0])))
			return -ENOMEM;
	} else if (strcmp(f->first, v[0]) != 0 && !f->other && !(f->other = strdup(v[0]))) {
		return -ENOMEM;
	}
	return 0;
}

/* The machines of commit F->first (rows of one commit follow each other). */
static int
machine_row(void *ctx, int ncols, const char *const *v)
{
	struct found *f = ctx;

	if (ncols < 2 || !v[0] || !v[1] || strcmp(v[0], f->want) != 0)
		return 0;
	if (ty_array_grow(&f->machines, sizeof(*f->machines), f->n + 2, &f->cap) < 0)
		return -ENOMEM;
	if (!(f->machines[f->n] = strdup(v[1])))
		return -ENOMEM;
	f->machines[++f->n] = NULL;
	return 0;
}

static void
strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int
ty_history_commit_find(struct ty_history *h, const char *rev, char **full, char ***machines,
		       struct ty_error *e)
{
	struct found f = {.want = rev};
	const char *p[1] = {rev};
	int rc;

	*full = NULL;
	*machines = NULL;
	rc = h->s.exec(&h->s, sql_find, p, 1, found_row, &f, e);
	if (rc == 0 && f.first && (f.exact || !f.other)) {
		f.want = f.exact ? f.exact : f.first;
		rc = h->s.exec(&h->s, sql_find, p, 1, machine_row, &f, e);
	}
	if (rc == -ENOMEM)
		ty_error_set(e, rc, "out of memory");
	else if (rc == 0 && !f.first)
		rc = ty_error_set(e, -ENOENT, "no results of commit '%s' in '%s'", rev, h->s.name);
	else if (rc == 0 && !f.exact && f.other)
		rc = ty_error_set(e, -EINVAL,
				  "'%s' names more than one commit in '%s' (%.12s and %.12s at "
				  "least): give more of it",
				  rev, h->s.name, f.first, f.other);
	if (rc == 0) {
		*full = f.exact ? f.exact : f.first;
		*machines = f.machines;
		if (*full == f.exact)
			free(f.first);
		else
			free(f.exact);
		free(f.other);
		return 0;
	}
	free(f.exact);
	free(f.first);
	free(f.other);
	strv_free(f.machines);
	return rc;
}

/* ---- its results ---- */

/* The wall time of each result with its profile; version 1 kept neither
 * profiles nor left_out. */
static const char sql_at_v1[] =
    "SELECT r.id, r.benchmark, r.command, NULL, s.vals, NULL, NULL FROM results r "
    "JOIN commits c ON c.id = r.commit_id JOIN machines m ON m.id = r.machine_id "
    "JOIN samples s ON s.result_id = r.id AND s.figure = 'wall' "
    "WHERE c.rev = $1 AND m.name = $2 ORDER BY r.benchmark, r.id";
static const char sql_at[] =
    "SELECT r.id, r.benchmark, r.command, r.left_out, s.vals, p.runs, p.data FROM results r "
    "JOIN commits c ON c.id = r.commit_id JOIN machines m ON m.id = r.machine_id "
    "JOIN samples s ON s.result_id = r.id AND s.figure = 'wall' "
    "LEFT JOIN profiles p ON p.result_id = r.id "
    "WHERE c.rev = $1 AND m.name = $2 ORDER BY r.benchmark, r.id";

/* A figure other than the wall time stored with a result. */
struct stored_fig {
	char *name, *unit;
	double *vals;
	size_t n;
};

struct stored {
	char *id, *bench, *command, *data; /* data: the profile's text, NULL: none */
	long left_out;			   /* -1: not known */
	long runs;			   /* of the profile */
	double *vals;
	size_t n;
	struct stored_fig *figs; /* user, system, the counters */
	size_t nfigs, capfigs;
};

/* The other figures of one result, by name. */
static const char sql_figs[] = "SELECT figure, unit, vals FROM samples WHERE result_id = $1 AND "
			       "figure <> 'wall' ORDER BY figure";

struct rows {
	struct stored *r;
	size_t n, cap;
	const char *const *benches;
	size_t nb;
	const char *name, *rev;
	struct ty_error *e;
};

static long
long_or(const char *s, long dflt)
{
	char *end;
	long v;

	if (!s)
		return dflt;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || end == s || *end || v < 0 ? -2 : v;
}

static int
wanted(const struct rows *R, const char *bench)
{
	size_t i;

	for (i = 0; i < R->nb; i++)
		if (strcmp(R->benches[i], bench) == 0)
			return 1;
	return R->nb == 0;
}

static int
stored_row(void *ctx, int ncols, const char *const *v)
{
	struct rows *R = ctx;
	struct stored *s;
	long nv;

	if (ncols < 7 || !v[0] || !v[1] || !v[4])
		return ty_error_set(R->e, -EINVAL, "database '%s': a result with a missing field",
				    R->name);
	if (!wanted(R, v[1]))
		return 0;
	if (ty_array_grow(&R->r, sizeof(*R->r), R->n + 1, &R->cap) < 0)
		return ty_error_set(R->e, -ENOMEM, "out of memory");
	s = &R->r[R->n++];
	memset(s, 0, sizeof(*s));
	s->left_out = long_or(v[3], -1);
	s->runs = long_or(v[5], -1);
	if (s->left_out < -1 || s->runs < -1 || (v[6] && s->runs < 0))
		return ty_error_set(R->e, -EINVAL,
				    "database '%s': result %s ('%s' at %.12s) has a bad run count",
				    R->name, v[0], v[1], R->rev);
	nv = ty_history_parse_values(v[4], &s->vals);
	if (nv == -ENOMEM)
		return ty_error_set(R->e, -ENOMEM, "out of memory");
	if (nv < 0)
		return ty_error_set(R->e, -EINVAL,
				    "database '%s': the values of '%s' at %.12s are not numbers",
				    R->name, v[1], R->rev);
	s->n = (size_t)nv;
	if (!(s->id = strdup(v[0])) || !(s->bench = strdup(v[1])) ||
	    (v[2] && !(s->command = strdup(v[2]))) || (v[6] && !(s->data = strdup(v[6]))))
		return ty_error_set(R->e, -ENOMEM, "out of memory");
	return 0;
}

struct figs_ctx {
	struct stored *s;
	const struct rows *R;
};

static int
fig_row(void *ctx, int ncols, const char *const *v)
{
	struct figs_ctx *x = ctx;
	struct stored *s = x->s;
	struct stored_fig *f;
	long nv;

	if (ncols < 3 || !v[0] || !v[1] || !v[2])
		return ty_error_set(x->R->e, -EINVAL,
				    "database '%s': a figure of result %s with a missing field",
				    x->R->name, s->id);
	if (ty_array_grow(&s->figs, sizeof(*s->figs), s->nfigs + 1, &s->capfigs) < 0)
		return ty_error_set(x->R->e, -ENOMEM, "out of memory");
	f = &s->figs[s->nfigs];
	memset(f, 0, sizeof(*f));
	nv = ty_history_parse_values(v[2], &f->vals);
	if (nv == -ENOMEM)
		return ty_error_set(x->R->e, -ENOMEM, "out of memory");
	if (nv < 0)
		return ty_error_set(
		    x->R->e, -EINVAL,
		    "database '%s': the values of '%s' (%s) at %.12s are not numbers", x->R->name,
		    s->bench, v[0], x->R->rev);
	s->nfigs++;
	f->n = (size_t)nv;
	if (!(f->name = strdup(v[0])) || !(f->unit = strdup(v[1])))
		return ty_error_set(x->R->e, -ENOMEM, "out of memory");
	return 0;
}

/* The other figures of every result of R (a query a result: a commit
 * holds a few). */
static int
load_figs(struct ty_history *h, struct rows *R)
{
	size_t i;
	int rc;

	for (i = 0; i < R->n; i++) {
		struct figs_ctx x = {&R->r[i], R};
		const char *p[1] = {R->r[i].id};
		if ((rc = h->s.exec(&h->s, sql_figs, p, 1, fig_row, &x, R->e)) < 0)
			return rc;
	}
	return 0;
}

static void
rows_free(struct rows *R)
{
	size_t i, k;

	for (i = 0; i < R->n; i++) {
		for (k = 0; k < R->r[i].nfigs; k++) {
			free(R->r[i].figs[k].name);
			free(R->r[i].figs[k].unit);
			free(R->r[i].figs[k].vals);
		}
		free(R->r[i].figs);
		free(R->r[i].id);
		free(R->r[i].bench);
		free(R->r[i].command);
		free(R->r[i].data);
		free(R->r[i].vals);
	}
	free(R->r);
}

/* The runs of S that are not a warm-up the run left out. */
static size_t
first_kept(const struct stored *s)
{
	return s->left_out > 0 && (size_t)s->left_out < s->n ? (size_t)s->left_out : 0;
}

/* The profile of S, its runs from first_kept on, into command CMD of
 * OUT->profile (made at the first one). */
static int
take_profile(const struct stored *s, struct ty_results_saved *out, size_t cmd, size_t ncmds,
	     const char *name, const char *rev, struct ty_error *e)
{
	struct ty_runprof *one = NULL;
	char what[512];
	size_t skip = first_kept(s);
	int rc;

	snprintf(what, sizeof(what), "database '%s': the profile of '%s' at %.12s (result %s)",
		 name, s->bench, rev, s->id);
	if ((size_t)s->runs != s->n)
		return ty_error_set(e, -EINVAL, "%s: %ld runs, but its wall time has %zu", what,
				    s->runs, s->n);
	if ((rc = ty_runprof_json_read_text(&one, s->data, s->n, what, e)) < 0)
		return rc;
	if (!out->profile) {
		if (!(out->profile = calloc(1, sizeof(*out->profile))) ||
		    ty_runprof_init(out->profile, ncmds) < 0) {
			free(out->profile);
			out->profile = NULL;
			ty_runprof_json_free(one);
			return ty_error_set(e, -ENOMEM, "out of memory");
		}
		out->profile->hz = one->hz;
		out->profile->exact = one->exact;
		out->profile->callchain = one->callchain;
		out->profile->user_only = one->user_only;
	}
	out->profile->lost += one->lost;
	if (one->exact != out->profile->exact)
		rc = 0; /* instruction counts beside samples: not one table (left unprofiled) */
	else if (one->cmds[0].nruns == s->n)
		rc = ty_runprof_copy_runs(out->profile, cmd, one, 0, skip, s->n - skip);
	else /* an empty list: no run was sampled */
		rc = ty_error_set(e, -EINVAL, "%s: no run in it", what);
	ty_runprof_json_free(one);
	if (rc == -ENOMEM)
		ty_error_set(e, rc, "out of memory");
	return rc;
}

/* Figure F of S, NULL when S has none with a value a run. */
static const struct stored_fig *
fig_of(const struct stored *s, const char *name)
{
	size_t k;

	for (k = 0; k < s->nfigs; k++)
		if (strcmp(s->figs[k].name, name) == 0)
			return s->figs[k].n == s->n ? &s->figs[k] : NULL;
	return NULL;
}

/* The figures other than the wall time that the results R[0..N) taken
 * (TAKEN[i]) hold, named by the first, into BENCH: each run at the index
 * the wall time gave it, a result without the figure counted missing. */
static int
take_figs(struct ty_results_saved_bench *bench, const struct stored *r, size_t n, const char *taken,
	  size_t total)
{
	const struct stored *first = NULL;
	size_t i, k, j, at;

	for (i = 0; i < n && !first; i++)
		if (taken[i])
			first = &r[i];
	for (j = 0; first && j < first->nfigs; j++) {
		const char *name = first->figs[j].name, *unit = first->figs[j].unit;
		struct ty_results_saved_figure *f;
		if (ty_results_saved_figure_named(bench, name))
			continue;
		if (!(f = ty_results_saved_figure_add(bench, name, unit, total)))
			return -ENOMEM;
		for (i = 0, at = 0; i < n; i++) {
			const struct stored_fig *sf = taken[i] ? fig_of(&r[i], name) : NULL;
			if (!taken[i])
				continue;
			if (!sf || strcmp(sf->unit, unit) != 0) {
				f->missing += r[i].n - first_kept(&r[i]);
				at += r[i].n - first_kept(&r[i]);
				continue;
			}
			for (k = first_kept(&r[i]); k < r[i].n; k++, at++, f->n++) {
				f->values[f->n] = sf->vals[k];
				f->run[f->n] = at;
			}
		}
	}
	return 0;
}

/* Benchmark B of OUT from the stored results R[0..N) of one name. */
static int
take_bench(struct ty_results_saved *out, size_t b, size_t nbenches, const struct stored *r,
	   size_t n, const char *name, const char *rev, struct ty_error *e)
{
	struct ty_results_saved_bench *bench = &out->benches[b];
	struct ty_results_saved_figure *wall;
	size_t i, k, total = 0, left = 0;
	int profiled = 0, rc;
	char *taken;

	for (i = 0; i < n; i++)
		profiled |= r[i].data != NULL;
	bench->left_out = 0; /* the runs left out are not taken */
	for (i = 0; i < n; i++) {
		if (profiled && !r[i].data) {
			left++;
			continue;
		}
		total += r[i].n - first_kept(&r[i]);
		if (r[i].left_out < 0)
			bench->left_out = -1; /* not known: compare looks for a warm-up */
	}
	if (!(bench->name = strdup(r[0].bench)) ||
	    !(bench->command = strdup(r[n - 1].command ? r[n - 1].command : r[0].bench)) ||
	    !(wall = ty_results_saved_figure_add(bench, "wall", "s", total)))
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if (profiled && !r[i].data)
			continue;
		for (k = first_kept(&r[i]); k < r[i].n; k++, wall->n++) {
			wall->values[wall->n] = r[i].vals[k];
			wall->run[wall->n] = wall->n;
		}
		if (profiled && (rc = take_profile(&r[i], out, b, nbenches, name, rev, e)) < 0)
			return rc;
	}
	bench->nruns = total;
	if (!(taken = calloc(n + 1, 1)))
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		taken[i] = !profiled || r[i].data;
	rc = take_figs(bench, r, n, taken, total);
	free(taken);
	if (rc < 0)
		return ty_error_set(e, -ENOMEM, "out of memory");
	if (left && ty_results_saved_strv_addf(
			&out->notes, &out->nnotes,
			"'%s': %zu result%s without per-run profiles left out (the wall time and "
			"the functions are compared over the %zu with them)",
			r[0].bench, left, left == 1 ? "" : "s", n - left) < 0)
		return ty_error_set(e, -ENOMEM, "out of memory");
	return 0;
}

int
ty_history_saved_at(struct ty_history *h, const char *rev, const char *machine,
		    const char *const *benches, size_t nb, struct ty_results_saved *out,
		    struct ty_error *e)
{
	struct rows R = {.benches = benches, .nb = nb, .name = h->s.name, .rev = rev, .e = e};
	const char *p[2] = {rev, machine};
	size_t i, j, b, nbenches = 0, *orig = NULL;
	char path[16];
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = h->s.exec(&h->s, h->version >= 2 ? sql_at : sql_at_v1, p, 2, stored_row, &R, e)) <
	    0)
		goto fail;
	if ((rc = load_figs(h, &R)) < 0)
		goto fail;
	for (i = 0; i < R.n; i++)
		nbenches += !i || strcmp(R.r[i].bench, R.r[i - 1].bench) != 0;
	if (!nbenches) {
		rc = nb ? ty_error_set(e, -ENOENT,
				       "none of the benchmarks named has results at %.12s on '%s' "
				       "in '%s'",
				       rev, machine, h->s.name)
			: ty_error_set(e, -ENOENT, "no results of commit %.12s on '%s' in '%s'",
				       rev, machine, h->s.name);
		goto fail;
	}
	snprintf(path, sizeof(path), "%.12s", rev);
	if (!(out->path = strdup(path)) ||
	    !(out->benches = calloc(nbenches, sizeof(*out->benches))) ||
	    !(orig = calloc(nbenches, sizeof(*orig)))) {
		rc = ty_error_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	out->schema = TY_RESULTS_SCHEMA;
	for (i = 0, b = 0; i < R.n; i = j, b++) {
		for (j = i + 1; j < R.n && strcmp(R.r[j].bench, R.r[i].bench) == 0; j++)
			;
		orig[b] = b;
		out->nbenches = b + 1;
		if ((rc = take_bench(out, b, nbenches, &R.r[i], j - i, h->s.name, rev, e)) < 0)
			goto fail;
	}
	if ((rc = ty_results_saved_label(out, orig)) < 0) {
		rc = ty_error_set(e, rc, "out of memory");
		goto fail;
	}
	free(orig);
	rows_free(&R);
	return 0;
fail:
	free(orig);
	rows_free(&R);
	ty_results_saved_release(out);
	memset(out, 0, sizeof(*out));
	return rc;
}

/* ---- the facts of a commit's results ---- */

static const char sql_facts[] =
    "SELECT r.id, r.environment, s.figure, s.unit, s.vals FROM results r "
    "JOIN commits c ON c.id = r.commit_id JOIN machines m ON m.id = r.machine_id "
    "JOIN samples s ON s.result_id = r.id "
    "AND s.figure IN ('wall', 'user', 'system', 'nivcsw') "
    "WHERE c.rev = $1 AND m.name = $2 ORDER BY r.id, s.figure";

struct facts {
	struct ty_results_saved *out;
	size_t cap;
	char *last_id, *env; /* the result of the rows now; the newest environment */
};

static int
facts_row(void *ctx, int ncols, const char *const *v)
{
	struct facts *F = ctx;
	struct ty_results_saved *out = F->out;
	struct ty_results_saved_figure *f;
	double *vals = NULL;
	long n;

	if (ncols < 5 || !v[0] || !v[2] || !v[3] || !v[4])
		return 0;
	if (!F->last_id || strcmp(F->last_id, v[0]) != 0) {
		if (ty_array_grow(&out->benches, sizeof(*out->benches), out->nbenches + 1,
				  &F->cap) < 0)
			return -ENOMEM;
		memset(&out->benches[out->nbenches++], 0, sizeof(*out->benches));
		free(F->last_id);
		free(F->env);
		F->env = NULL;
		if (!(F->last_id = strdup(v[0])) || (v[1] && !(F->env = strdup(v[1]))))
			return -ENOMEM;
	}
	if ((n = ty_history_parse_values(v[4], &vals)) < 0)
		return n == -ENOMEM ? -ENOMEM : 0; /* a corrupt list tells nothing */
	f = ty_results_saved_figure_add(&out->benches[out->nbenches - 1], v[2], v[3], (size_t)n);
	if (!f) {
		free(vals);
		return -ENOMEM;
	}
	for (f->n = 0; f->n < (size_t)n; f->n++) {
		f->values[f->n] = vals[f->n];
		f->run[f->n] = f->n;
	}
	free(vals);
	return 0;
}

/* The environment stored as ENV (a JSON object, as history.c writes it)
 * into OUT, read as an export's would be; left empty when it cannot be. */
static int
facts_env(struct ty_results_saved *out, const char *env, struct ty_error *e)
{
	static const char head[] =
	    "{\"results\": [{\"command\": \"-\", \"times\": [1], \"tachy\": {\"name\": \"-\", "
	    "\"runs\": [{\"wall_ns\": 1, \"user_ns\": 0, \"system_ns\": 0}]}}], \"tachy\": "
	    "{\"schema\": 1, \"environment\": ";
	struct ty_results_saved r;
	char *doc;
	int rc;

	if (!env || asprintf(&doc, "%s%s}}", head, env) < 0)
		return env ? ty_error_set(e, -ENOMEM, "out of memory") : 0;
	rc = ty_results_read_text(&r, doc, out->path, NULL);
	free(doc);
	if (rc < 0)
		return rc == -ENOMEM ? ty_error_set(e, rc, "out of memory") : 0;
	out->env_keys = r.env_keys;
	out->env_values = r.env_values;
	out->nenv = r.nenv;
	r.env_keys = r.env_values = NULL;
	r.nenv = 0;
	ty_results_saved_release(&r);
	return 0;
}

int
ty_history_facts_at(struct ty_history *h, const char *rev, const char *machine,
		    struct ty_results_saved *out, struct ty_error *e)
{
	struct facts F = {.out = out};
	const char *p[2] = {rev, machine};
	char path[16];
	int rc;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%.12s", rev);
	if (!(out->path = strdup(path)))
		return ty_error_set(e, -ENOMEM, "out of memory");
	rc = h->s.exec(&h->s, sql_facts, p, 2, facts_row, &F, e);
	if (rc == -ENOMEM)
		ty_error_set(e, rc, "out of memory");
	else if (rc == 0 && !out->nbenches)
		rc = ty_error_set(e, -ENOENT, "no results of commit %.12s on '%s' in '%s'", rev,
				  machine, h->s.name);
	if (rc == 0)
		rc = facts_env(out, F.env, e);
	free(F.last_id);
	free(F.env);
	if (rc < 0) {
		ty_results_saved_release(out);
		memset(out, 0, sizeof(*out));
	}
	return rc;
}

/* ---- a stale baseline ---- */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
stale_in(const struct ty_history_series *s, const char *old, const char *new,
	 struct ty_comparable_finding *f)
{
	struct ty_comparable_range *later;
	size_t i, io = s->n, in = s->n, n = 0;
	double *v, median;
	char name[16];
	int found;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->commits[i].rev, old) == 0)
			io = i;
		if (strcmp(s->commits[i].rev, new) == 0)
			in = i;
	}
	if (io >= s->n || in >= s->n || in <= io + 1 || !s->commits[io].nvalues)
		return 0;
	if (!(v = malloc(s->commits[io].nvalues * sizeof(*v))) ||
	    !(later = calloc(in - io, sizeof(*later)))) {
		free(v);
		return -ENOMEM;
	}
	memcpy(v, s->commits[io].values, s->commits[io].nvalues * sizeof(*v));
	qsort(v, s->commits[io].nvalues, sizeof(*v), cmp_double);
	i = s->commits[io].nvalues;
	median = i % 2 ? v[i / 2] : (v[i / 2 - 1] + v[i / 2]) / 2;
	for (i = io + 1; i <= in; i++) {
		const struct ty_history_commit *c = &s->commits[i];
		if (!c->nvalues)
			continue;
		later[n].name = c->rev;
		later[n].lo = later[n].hi = c->values[0];
		for (size_t k = 1; k < c->nvalues; k++) {
			later[n].lo = c->values[k] < later[n].lo ? c->values[k] : later[n].lo;
			later[n].hi = c->values[k] > later[n].hi ? c->values[k] : later[n].hi;
		}
		n++;
	}
	snprintf(name, sizeof(name), "%.12s", old);
	found = ty_comparable_stale(s->benchmark, name, median, later, n, f);
	free(v);
	free(later);
	return found;
}

int
ty_history_stale(struct ty_history *h, const char *bench, const char *machine, const char *old,
		 const char *new, struct ty_comparable_finding *f, struct ty_error *e)
{
	struct ty_history_series *s = NULL;
	size_t n = 0;
	int rc;

	if ((rc = ty_history_load(h, bench, machine, "wall", &s, &n, e)) < 0)
		return rc;
	rc = n ? stale_in(&s[0], old, new, f) : 0;
	if (rc == -ENOMEM)
		ty_error_set(e, rc, "out of memory");
	ty_history_series_free(s, n);
	return rc;
}
