/* comparison.c - pair saved benchmarks and give each figure its verdict. */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/comparison.h"

/* Figures of every run that are not shown unless asked for (--figures all). */
static const char *const quiet_figures[] = {"maxrss", "minflt", "majflt", "nvcsw", "nivcsw"};

int
ty_comparison_unit_is_time(const char *unit)
{
	return strcmp(unit, "s") == 0 || strcmp(unit, "ns") == 0 || strcmp(unit, "us") == 0 ||
	       strcmp(unit, "ms") == 0;
}

static void
free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
ty_comparison_release(struct ty_cmp_table *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nsets; i++) {
		free_strv(c->sets[i].env_diffs, c->sets[i].nenv_diffs);
		free_strv(c->sets[i].unmatched, c->sets[i].nunmatched);
	}
	free(c->sets);
	free(c->rows);
	free(c->geo);
	free_strv(c->notes, c->nnotes);
	memset(c, 0, sizeof(*c));
}

/* The 1-based index of note TEXT, added when new; 0 when out of memory. */
static size_t
note(struct ty_cmp_table *c, const char *text)
{
	size_t i;

	for (i = 0; i < c->nnotes; i++)
		if (strcmp(c->notes[i], text) == 0)
			return i + 1;
	if (ty_results_saved_strv_addf(&c->notes, &c->nnotes, "%s", text))
		return 0;
	return c->nnotes;
}

static void row_note(struct ty_cmp_table *c, struct ty_cmp_row *r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
row_note(struct ty_cmp_table *c, struct ty_cmp_row *r, const char *fmt, ...)
{
	char buf[1024];
	size_t i, id;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!(id = note(c, buf)))
		return;
	for (i = 0; i < sizeof(r->notes) / sizeof(r->notes[0]); i++) {
		if (r->notes[i] == id)
			return;
		if (r->notes[i] == 0) {
			r->notes[i] = id;
			return;
		}
	}
}

/* ---- pairing ---- */

struct pairing {
	const struct ty_results_saved_bench **old, **new;
	size_t n;
	char *old_used, *new_used;
};

static long
find_bench(const struct ty_results_saved *r, const char *name, const char *used)
{
	size_t i;

	for (i = 0; i < r->nbenches; i++)
		if ((!used || !used[i]) && strcmp(r->benches[i].name, name) == 0)
			return (long)i;
	for (i = 0; i < r->nbenches; i++)
		if ((!used || !used[i]) && strcmp(r->benches[i].command, name) == 0)
			return (long)i;
	for (i = 0; i < r->nbenches; i++) /* "NAME #2" */
		if ((!used || !used[i]) && r->benches[i].label &&
		    strcmp(r->benches[i].label, name) == 0)
			return (long)i;
	return -1;
}

static void
add_pair(struct pairing *p, const struct ty_results_saved *o, size_t i,
	 const struct ty_results_saved *n, size_t j)
{
	p->old[p->n] = &o->benches[i];
	p->new[p->n] = &n->benches[j];
	p->n++;
	p->old_used[i] = 1;
	p->new_used[j] = 1;
}

/* --match OLD=NEW: split at the '=' where both names exist. */
static int
pair_rule(struct pairing *p, const struct ty_results_saved *o, const struct ty_results_saved *n,
	  const char *rule, struct ty_error *e)
{
	const char *eq;
	char *left;
	long i, j;

	for (eq = strchr(rule, '='); eq; eq = strchr(eq + 1, '=')) {
		if (!(left = strndup(rule, (size_t)(eq - rule))))
			return -ENOMEM;
		i = find_bench(o, left, p->old_used);
		free(left);
		j = find_bench(n, eq + 1, p->new_used);
		if (i >= 0 && j >= 0) {
			add_pair(p, o, (size_t)i, n, (size_t)j);
			return 0;
		}
	}
	return ty_error_set(e, -EINVAL,
			    "--match '%s': expected OLD=NEW naming a benchmark of '%s' and one of "
			    "'%s' (not already paired)",
			    rule, o->path, n->path);
}

/* The key of NAME under RE into BUF: the first group, else the match, else
 * the name itself. */
static void
match_key(const regex_t *re, const char *name, char *buf, size_t size)
{
	regmatch_t m[2];
	int g;

	if (regexec(re, name, 2, m, 0) != 0) {
		snprintf(buf, size, "%s", name);
		return;
	}
	g = m[1].rm_so >= 0 ? 1 : 0;
	snprintf(buf, size, "%.*s", (int)(m[g].rm_eo - m[g].rm_so), name + m[g].rm_so);
}

static void
pair_by_key(struct pairing *p, const struct ty_results_saved *o, const struct ty_results_saved *n,
	    const regex_t *re)
{
	char ka[512], kb[512];
	size_t i, j;

	for (i = 0; i < o->nbenches; i++) {
		if (p->old_used[i])
			continue;
		match_key(re, o->benches[i].name, ka, sizeof(ka));
		for (j = 0; j < n->nbenches; j++) {
			if (p->new_used[j])
				continue;
			match_key(re, n->benches[j].name, kb, sizeof(kb));
			if (strcmp(ka, kb) == 0) {
				add_pair(p, o, i, n, j);
				break;
			}
		}
	}
}

static void
pair_by_name(struct pairing *p, const struct ty_results_saved *o, const struct ty_results_saved *n)
{
	size_t i;
	long j;

	for (i = 0; i < o->nbenches; i++) {
		if (p->old_used[i])
			continue;
		if ((j = find_bench(n, o->benches[i].name, p->new_used)) < 0)
			j = find_bench(n, o->benches[i].command, p->new_used);
		if (j >= 0)
			add_pair(p, o, i, n, (size_t)j);
	}
}

static int
pair_files(struct pairing *p, const struct ty_results_saved *o, const struct ty_results_saved *n,
	   const struct ty_match *m, struct ty_error *e)
{
	regex_t re;
	char buf[256];
	size_t i;
	int rc;

	for (i = 0; i < m->npairs; i++)
		if ((rc = pair_rule(p, o, n, m->pairs[i], e)))
			return rc;
	if (m->key_re) {
		if ((rc = regcomp(&re, m->key_re, REG_EXTENDED))) {
			regerror(rc, &re, buf, sizeof(buf));
			return ty_error_set(e, -EINVAL, "--match /%s/: %s", m->key_re, buf);
		}
		pair_by_key(p, o, n, &re);
		regfree(&re);
	}
	pair_by_name(p, o, n);
	if (p->n == 0)
		return ty_error_set(e, -EINVAL,
				    "no benchmark of '%s' has the name of one in '%s'; pair them "
				    "with --match OLD=NEW or --match /REGEX/",
				    n->path, o->path);
	return 0;
}

static int
pair_reference(struct pairing *p, const struct ty_results_saved *f, const char *refname,
	       struct ty_error *e)
{
	size_t i, ref = f->reference;
	long k;

	if (f->reference_norun && !refname)
		return ty_error_set(e, -EINVAL,
				    "the reference of '%s'%s%s%s has no finished run: pick another "
				    "with --reference NAME",
				    f->path, f->reference_norun[0] ? ", '" : "", f->reference_norun,
				    f->reference_norun[0] ? "'," : "");
	if (f->nbenches < 2)
		return ty_error_set(
		    e, -EINVAL, "'%s' holds one benchmark%s: give a second file to compare with",
		    f->path, f->nnotes ? " with runs" : "");
	if (refname) {
		if ((k = find_bench(f, refname, NULL)) < 0)
			return ty_error_set(e, -EINVAL,
					    "--reference '%s': no such benchmark in '%s'", refname,
					    f->path);
		ref = (size_t)k;
	}
	for (i = 0; i < f->nbenches; i++) {
		if (i == ref)
			continue;
		p->old[p->n] = &f->benches[ref];
		p->new[p->n] = &f->benches[i];
		p->n++;
	}
	return 0;
}

/* ---- figures and rows ---- */

static int
figure_wanted(const char *name, const char *figures)
{
	const char *s;
	size_t len = strlen(name), i;

	if (!figures) {
		for (i = 0; i < sizeof(quiet_figures) / sizeof(quiet_figures[0]); i++)
			if (strcmp(name, quiet_figures[i]) == 0)
				return 0;
		return 1;
	}
	if (strcmp(figures, "all") == 0)
		return 1;
	for (s = figures; (s = strstr(s, name)); s++)
		if ((s == figures || s[-1] == ',') && (s[len] == ',' || s[len] == '\0'))
			return 1;
	return 0;
}

/* The runs of B to leave out as a warm-up: none with --keep-warmup; what
 * run left out when the file says (tachy.left_out); else what
 * ty_verdict_series finds in the wall times (a hyperfine export, an older
 * tachy file). *FOUND is set when it was found here. */
static int
warmup_of(const struct ty_cmp_table *c, const struct ty_results_saved_bench *b, size_t *skip,
	  double *ratio)
{
	struct ty_verdict_series s;
	int rc;

	*skip = 0;
	*ratio = 0;
	if (c->opt.keep_warmup)
		return 0;
	if (b->left_out >= 0) {
		*skip = (size_t)b->left_out;
		return 0;
	}
	if ((rc = ty_verdict_series(b->figs[0].values, b->figs[0].n, &s)))
		return rc;
	*skip = s.warmup;
	*ratio = s.warmup_ratio;
	return 0;
}

/* The values of F from run SKIP on into X, their rounds (from ROUNDS) into
 * RX when ROUNDS is given. Returns the count. */
static size_t
figure_from(const struct ty_results_saved_figure *f, size_t skip, const uint32_t *rounds, double *x,
	    uint32_t *rx)
{
	size_t i, k = 0;

	for (i = 0; i < f->n; i++) {
		size_t run = f->run ? f->run[i] : i;
		if (run < skip)
			continue;
		if (rounds)
			rx[k] = rounds[run];
		x[k++] = f->values[i];
	}
	return k;
}

/* Rounds pair when both benchmarks come from one interleaved run. */
static int
pairable(const struct ty_cmp_table *c, const struct ty_cmp_set *s,
	 const struct ty_results_saved_bench *ob, const struct ty_results_saved_bench *nb)
{
	return !c->opt.no_pairing && s->old == s->new &&
	       s->old->order &&strcmp(s->old->order, "interleaved") == 0 && ob->rounds &&
	       nb->rounds;
}

/* Whether X[0..N) is one value repeated (N >= 1). */
static int
repeated(const double *x, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (x[i] != x[0])
			return 0;
	return n >= 1;
}

/* The exact verdict of a count each side repeated: A against B. */
static void
exact_verdict(double a, double b, struct ty_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->old.n = v->new.n = 1;
	v->old.centre = v->old.lo = v->old.hi = a;
	v->new.centre = v->new.lo = v->new.hi = b;
	v->old.exact_ci = v->new.exact_ci = 1;
	ty_verdict_exact(a, b, &v->c, &v->verdict, &v->interval);
}

static int
add_row(struct ty_cmp_table *c, size_t set, const struct ty_results_saved_bench *ob,
	const struct ty_results_saved_bench *nb, const struct ty_results_saved_figure *of,
	const struct ty_results_saved_figure *nf, const size_t *skip, struct ty_error *e)
{
	const struct ty_cmp_set *s = &c->sets[set];
	int pair = pairable(c, s, ob, nb);
	struct ty_verdict_opts vo = {c->opt.test, c->opt.confidence, NULL, NULL};
	double *xa = NULL, *xb = NULL;
	uint32_t *ra = NULL, *rb = NULL;
	size_t na, nb_;
	struct ty_cmp_row *r;
	int rc, exact = 0;

	r = &c->rows[c->nrows];
	memset(r, 0, sizeof(*r));
	r->set = set;
	r->old = ob;
	r->new = nb;
	r->figure = of->name;
	r->unit = of->unit;
	r->is_time = ty_comparison_unit_is_time(of->unit);
	r->skip_old = skip[0];
	r->skip_new = skip[1];
	xa = malloc((of->n + 1) * sizeof(*xa));
	xb = malloc((nf->n + 1) * sizeof(*xb));
	ra = malloc((of->n + 1) * sizeof(*ra));
	rb = malloc((nf->n + 1) * sizeof(*rb));
	if (!xa || !xb || !ra || !rb) {
		rc = -ENOMEM;
		goto out;
	}
	na = figure_from(of, skip[0], pair ? ob->rounds : NULL, xa, ra);
	nb_ = figure_from(nf, skip[1], pair ? nb->rounds : NULL, xb, rb);
	if (pair) {
		vo.old_round = ra;
		vo.new_round = rb;
	}
	if (of->exact && nf->exact && repeated(xa, na) && repeated(xb, nb_)) {
		exact_verdict(xa[0], xb[0], &r->v);
		exact = 1;
		rc = 0;
	} else
		rc = ty_verdict_compute(xa, na, xb, nb_, &vo, &r->v, e);
out:
	free(xa);
	free(xb);
	free(ra);
	free(rb);
	if (rc == -ENOMEM)
		return rc;
	if (rc) /* no values at all: a note, not a row */
		return 0;
	c->nrows++;
	if (exact) {
		row_note(c, r,
			 "exact, %s, deterministic: every run repeated its count, the difference "
			 "is exact",
			 na == 1 && nb_ == 1 ? "1 run each" : "every run the same");
		return 0;
	}
	if (r->v.too_few && (na < 2 || nb_ < 2))
		row_note(c, r, "fewer than 2 runs on a side: no test is possible");
	else if (r->v.too_few && r->v.pairs)
		row_note(c, r,
			 "with %zu paired rounds the smallest p-value the signed-rank test can "
			 "give is %.3g: no difference can be proven at %g%% confidence",
			 r->v.pairs, r->v.min_p, c->opt.confidence);
	else if (r->v.too_few)
		row_note(c, r,
			 "with %zu and %zu runs the smallest p-value %s can give is %.3g: no "
			 "difference can be proven at %g%% confidence",
			 na, nb_, c->opt.test == TY_TEST_MANN_WHITNEY ? "Mann-Whitney" : "the test",
			 r->v.min_p, c->opt.confidence);
	else if ((c->opt.test == TY_TEST_WELCH || c->opt.test == TY_TEST_STUDENT) &&
		 (na < 5 || nb_ < 5))
		row_note(c, r,
			 "fewer than 5 runs on a side: the t interval assumes normal noise, which "
			 "so few runs cannot check");
	if (!r->v.old.exact_ci || !r->v.new.exact_ci) {
		size_t need = c->opt.test == TY_TEST_MANN_WHITNEY
				  ? ty_verdict_median_min_n(c->opt.confidence)
				  : 2;
		row_note(c, r, "too few runs for a %g%% interval of the %s (need %zu or more)",
			 c->opt.confidence, ty_verdict_centre_name(c->opt.test), need);
	}
	if (of->missing)
		row_note(c, r, "%s: '%s': %zu runs have no value for %s", s->old->path, ob->label,
			 of->missing, of->name);
	if (nf->missing)
		row_note(c, r, "%s: '%s': %zu runs have no value for %s", s->new->path, nb->label,
			 nf->missing, nf->name);
	return 0;
}

static void
run_warnings(struct ty_cmp_table *c, struct ty_cmp_row *r)
{
	const struct ty_cmp_set *s = &c->sets[r->set];
	size_t i;

	for (i = 0; i < r->old->nwarnings; i++)
		row_note(c, r, "%s: '%s': %s", s->old->path, r->old->label, r->old->warnings[i]);
	if (r->new == r->old)
		return;
	for (i = 0; i < r->new->nwarnings; i++)
		row_note(c, r, "%s: '%s': %s", s->new->path, r->new->label, r->new->warnings[i]);
}

/* A warm-up found here (not by run, whose warning says it already). */
static void
warmup_notes(struct ty_cmp_table *c, struct ty_cmp_row *r, const size_t *skip, const double *ratio)
{
	const struct ty_cmp_set *s = &c->sets[r->set];
	int k;

	for (k = 0; k < 2; k++) {
		const struct ty_results_saved_bench *b = k ? r->new : r->old;
		double q = ratio[k] >= 1 ? ratio[k] : 1 / ratio[k];
		if (!skip[k] || !(ratio[k] > 0) || (k && r->new == r->old))
			continue;
		row_note(c, r,
			 "%s: '%s': warm-up: the first %zu run%s %.*fx %s than the rest: left "
			 "out (--keep-warmup keeps them)",
			 (k ? s->new : s->old)->path, b->label, skip[k],
			 skip[k] == 1 ? " was" : "s were", q >= 10 ? 0 : 1, q,
			 ratio[k] >= 1 ? "slower" : "faster");
	}
}

/* The CPU time of B's runs, user + system ("cpu"), into F (values and
 * their runs malloc'd; F->n 0 when B lacks either figure). Returns 0 or
 * -ENOMEM. */
static int
cpu_figure(const struct ty_results_saved_bench *b, struct ty_results_saved_figure *f)
{
	const struct ty_results_saved_figure *u = ty_results_saved_figure_named(b, "user");
	const struct ty_results_saved_figure *s = ty_results_saved_figure_named(b, "system");
	size_t i, j = 0, ru, rs = 0;

	memset(f, 0, sizeof(*f));
	f->name = (char *)"cpu";
	f->unit = (char *)"s";
	if (!u || !s || strcmp(u->unit, "s") != 0 || strcmp(s->unit, "s") != 0)
		return 0;
	f->values = malloc((u->n + 1) * sizeof(*f->values));
	f->run = malloc((u->n + 1) * sizeof(*f->run));
	if (!f->values || !f->run)
		return -ENOMEM;
	/* the runs with both values, matched by run (both are in run order) */
	for (i = 0; i < u->n; i++) {
		ru = u->run ? u->run[i] : i;
		for (; j < s->n && (rs = s->run ? s->run[j] : j) < ru; j++)
			;
		if (j == s->n || rs != ru)
			continue;
		f->values[f->n] = u->values[i] + s->values[j];
		f->run[f->n++] = ru;
	}
	f->missing = b->nruns > f->n ? b->nruns - f->n : 0;
	return 0;
}

/* -F cpu (named, as the gate names it): the CPU time of each run, user +
 * system, where both sides have both and neither has a figure of that
 * name. */
static int
cpu_row(struct ty_cmp_table *c, size_t set, const struct ty_results_saved_bench *ob,
	const struct ty_results_saved_bench *nb, const size_t *skip, struct ty_error *e)
{
	struct ty_results_saved_figure f[2];
	int rc;

	if (!c->opt.figures || strcmp(c->opt.figures, "all") == 0 ||
	    !figure_wanted("cpu", c->opt.figures) || ty_results_saved_figure_named(ob, "cpu") ||
	    ty_results_saved_figure_named(nb, "cpu"))
		return 0;
	rc = cpu_figure(ob, &f[0]);
	if (!rc)
		rc = cpu_figure(nb, &f[1]);
	else
		memset(&f[1], 0, sizeof(f[1]));
	if (!rc && f[0].n && f[1].n)
		rc = add_row(c, set, ob, nb, &f[0], &f[1], skip, e);
	free(f[0].values);
	free(f[0].run);
	free(f[1].values);
	free(f[1].run);
	return rc;
}

/* Asked for (-F all, -F maxrss), maxrss missing on a side: say why. */
static void
missing_maxrss(struct ty_cmp_table *c, size_t set, const struct ty_results_saved_bench *ob,
	       const struct ty_results_saved_bench *nb)
{
	const struct ty_cmp_set *s = &c->sets[set];
	const struct ty_results_saved_bench *b[2] = {ob, nb};
	const char *path[2] = {s->old->path, s->new->path};
	char buf[1024];
	int k;

	if (!c->opt.figures || !figure_wanted("maxrss", c->opt.figures))
		return;
	for (k = 0; k < 2; k++) {
		if (ty_results_saved_figure_named(b[k], "maxrss"))
			continue;
		snprintf(buf, sizeof(buf), "%s: '%s' has no maxrss: %s", path[k], b[k]->label,
			 b[k]->maxrss_why ? b[k]->maxrss_why
					  : "the file records no peak RSS (memory_usage_byte)");
		note(c, buf);
		if (ob == nb)
			break;
	}
}

static int
pair_rows(struct ty_cmp_table *c, size_t set, const struct ty_results_saved_bench *ob,
	  const struct ty_results_saved_bench *nb, struct ty_error *e)
{
	const struct ty_results_saved_figure *of, *nf;
	struct ty_cmp_row *rows;
	size_t i, first = c->nrows, skip[2];
	double ratio[2];
	int rc;

	if ((rc = warmup_of(c, ob, &skip[0], &ratio[0])) ||
	    (rc = warmup_of(c, nb, &skip[1], &ratio[1])))
		return rc;
	/* the rows of one pair at once (a handful of figures) */
	if (!(rows = realloc(c->rows, (c->nrows + ob->nfigs + 1) * sizeof(*rows))))
		return -ENOMEM;
	c->rows = rows;
	for (i = 0; i < ob->nfigs; i++) {
		of = &ob->figs[i];
		if (!figure_wanted(of->name, c->opt.figures) ||
		    !(nf = ty_results_saved_figure_named(nb, of->name)))
			continue;
		if (strcmp(of->unit, nf->unit) != 0) {
			char buf[512];
			snprintf(buf, sizeof(buf), "'%s' %s: unit '%s' against '%s': not compared",
				 nb->label, of->name, of->unit, nf->unit);
			note(c, buf);
			continue;
		}
		if ((rc = add_row(c, set, ob, nb, of, nf, skip, e)))
			return rc;
	}
	if ((rc = cpu_row(c, set, ob, nb, skip, e)))
		return rc;
	if (c->nrows > first && strcmp(c->rows[first].figure, "wall") == 0) {
		run_warnings(c, &c->rows[first]);
		warmup_notes(c, &c->rows[first], skip, ratio);
	}
	missing_maxrss(c, set, ob, nb);
	return 0;
}

/* ---- environments, geometric means ---- */

static int
env_diffs(struct ty_cmp_set *s)
{
	const struct ty_results_saved *o = s->old, *n = s->new;
	const char *a, *b;
	size_t i;
	int rc;

	if (!o->nenv || !n->nenv) {
		if (!o->nenv && !n->nenv)
			return 0;
		return ty_results_saved_strv_addf(
		    &s->env_diffs, &s->nenv_diffs,
		    "'%s' records no environment (a hyperfine export?): whether the "
		    "machines match is unknown",
		    o->nenv ? n->path : o->path);
	}
	for (i = 0; i < o->nenv + n->nenv; i++) {
		const char *key = i < o->nenv ? o->env_keys[i] : n->env_keys[i - o->nenv];
		/* the load differs from run to run: comparable.c judges it */
		if (strcmp(key, "date") == 0 || strcmp(key, "load_average") == 0 ||
		    strcmp(key, "busy_processes") == 0 ||
		    (i >= o->nenv && ty_results_saved_env_value(o, key)))
			continue;
		a = ty_results_saved_env_value(o, key);
		b = ty_results_saved_env_value(n, key);
		if (a && b && strcmp(a, b) == 0)
			continue;
		rc = ty_results_saved_strv_addf(
		    &s->env_diffs, &s->nenv_diffs, "%s: '%s' in %s, '%s' in %s", key,
		    a ? a : "(absent)", o->path, b ? b : "(absent)", n->path);
		if (rc)
			return rc;
	}
	return 0;
}

static int
geomeans(struct ty_cmp_table *c)
{
	struct ty_cmp_geomean g, *ng;
	size_t i, j;

	for (i = 0; i < c->nrows; i++) {
		const struct ty_cmp_row *r = &c->rows[i];
		int seen = 0, ok = 1;
		for (j = 0; j < i; j++)
			if (c->rows[j].set == r->set && strcmp(c->rows[j].figure, r->figure) == 0)
				seen = 1;
		if (seen)
			continue;
		memset(&g, 0, sizeof(g));
		g.set = r->set;
		g.figure = r->figure;
		g.unit = r->unit;
		for (j = i; j < c->nrows; j++) {
			const struct ty_cmp_row *q = &c->rows[j];
			if (q->set != r->set || strcmp(q->figure, r->figure) != 0)
				continue;
			if (!(q->v.old.centre > 0 && q->v.new.centre > 0))
				ok = 0;
			g.old += log(q->v.old.centre);
			g.new += log(q->v.new.centre);
			g.n++;
		}
		if (!ok || g.n < 2)
			continue;
		g.old = exp(g.old / (double)g.n);
		g.new = exp(g.new / (double)g.n);
		g.rel = 100 * (g.new / g.old - 1);
		/* one a figure: a handful */
		if (!(ng = realloc(c->geo, (c->ngeo + 1) * sizeof(*ng))))
			return -ENOMEM;
		c->geo = ng;
		c->geo[c->ngeo++] = g;
	}
	return 0;
}

/* ---- the whole ---- */

/* The notes of each file (benchmarks left out, an interrupted run) come
 * first, named by the file. */
static int
file_notes(struct ty_cmp_table *c, const struct ty_results_saved *files, size_t n)
{
	char buf[1024];
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < files[i].nnotes; j++) {
			snprintf(buf, sizeof(buf), "%s: %s", files[i].path, files[i].notes[j]);
			if (!note(c, buf))
				return -ENOMEM;
		}
	return 0;
}

static int
unmatched(struct ty_cmp_set *s, const struct pairing *p)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < s->old->nbenches; i++)
		if (!p->old_used[i])
			rc = ty_results_saved_strv_addf(&s->unmatched, &s->nunmatched,
							"only in %s: '%s'", s->old->path,
							s->old->benches[i].label);
	for (i = 0; !rc && i < s->new->nbenches; i++)
		if (!p->new_used[i])
			rc = ty_results_saved_strv_addf(&s->unmatched, &s->nunmatched,
							"only in %s: '%s'", s->new->path,
							s->new->benches[i].label);
	return rc;
}

/* How F's counters were counted: 0 it has none, 1 user and kernel space,
 * 2 user space only (perf's ":u"), 3 both kinds. */
static int
counting_mode(const struct ty_results_saved *f)
{
	static const char *const builtin[] = {"wall",	"user",	  "system", "maxrss",
					      "minflt", "majflt", "nvcsw",  "nivcsw"};
	size_t i, j, k;
	int mode = 0;

	for (i = 0; i < f->nbenches; i++)
		for (j = 0; j < f->benches[i].nfigs; j++) {
			const struct ty_results_saved_figure *g = &f->benches[i].figs[j];
			for (k = 0; k < sizeof(builtin) / sizeof(*builtin); k++)
				if (strcmp(g->name, builtin[k]) == 0)
					break;
			if (k == sizeof(builtin) / sizeof(*builtin))
				mode |= g->user_only ? 2 : 1;
		}
	return mode;
}

/* Two files whose counters were counted in different modes: said once. */
static int
mode_note(struct ty_cmp_table *c, const struct ty_cmp_set *s)
{
	static const char *const words[] = {"", "user and kernel space", "user space only (:u)",
					    "partly in user space only (:u)"};
	int a = counting_mode(s->old), b = counting_mode(s->new);
	char buf[1024];

	if (!a || !b || a == b)
		return 0;
	snprintf(buf, sizeof(buf),
		 "the counters of %s were counted in %s, those of %s in %s: they count "
		 "different things (a counter is compared only under the same name)",
		 s->old->path, words[a], s->new->path, words[b]);
	return note(c, buf) ? 0 : -ENOMEM;
}

static int
build_set(struct ty_cmp_table *c, size_t set, struct ty_error *e)
{
	struct ty_cmp_set *s = &c->sets[set];
	struct pairing p = {0};
	size_t i, nmax = s->old->nbenches + s->new->nbenches;
	int rc;

	p.old = calloc(nmax, sizeof(*p.old));
	p.new = calloc(nmax, sizeof(*p.new));
	p.old_used = calloc(s->old->nbenches, 1);
	p.new_used = calloc(s->new->nbenches, 1);
	rc = -ENOMEM;
	if (!p.old || !p.new || !p.old_used || !p.new_used)
		goto out;
	if (s->old == s->new)
		rc = pair_reference(&p, s->old, c->opt.reference, e);
	else
		rc = pair_files(&p, s->old, s->new, &c->opt.match, e);
	if (!rc && s->old != s->new)
		rc = unmatched(s, &p);
	if (!rc && s->old != s->new)
		rc = env_diffs(s);
	if (!rc && s->old != s->new)
		rc = mode_note(c, s);
	for (i = 0; !rc && i < p.n; i++)
		rc = pair_rows(c, set, p.old[i], p.new[i], e);
out:
	free(p.old);
	free(p.new);
	free(p.old_used);
	free(p.new_used);
	return rc;
}

static int
check_figures(const struct ty_cmp_table *c, struct ty_error *e)
{
	const char *s = c->opt.figures, *comma;
	char name[128];
	size_t i;

	if (!s || strcmp(s, "all") == 0)
		return 0;
	for (; *s; s = *comma ? comma + 1 : comma) {
		comma = strchrnul(s, ',');
		snprintf(name, sizeof(name), "%.*s", (int)(comma - s), s);
		for (i = 0; i < c->nrows; i++)
			if (strcmp(c->rows[i].figure, name) == 0)
				break;
		if (i == c->nrows)
			return ty_error_set(e, -EINVAL,
					    "--figures: no benchmark pair has the figure '%s' on "
					    "both sides",
					    name);
	}
	return 0;
}

int
ty_comparison_build(struct ty_cmp_table *c, const struct ty_results_saved *files, size_t n,
		    const struct ty_cmp_options *opt, struct ty_error *e)
{
	size_t i;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->opt = *opt;
	if (n == 0)
		return ty_error_set(e, -EINVAL, "no results to compare");
	c->nsets = n == 1 ? 1 : n - 1;
	if (!(c->sets = calloc(c->nsets, sizeof(*c->sets))))
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < c->nsets; i++) {
		c->sets[i].old = &files[0];
		c->sets[i].new = n == 1 ? &files[0] : &files[i + 1];
	}
	rc = file_notes(c, files, n);
	for (i = 0; !rc && i < c->nsets; i++)
		rc = build_set(c, i, e);
	if (!rc)
		rc = check_figures(c, e);
	if (!rc)
		rc = geomeans(c);
	if (rc == -ENOMEM)
		ty_error_set(e, rc, "out of memory");
	if (rc)
		ty_comparison_release(c);
	return rc;
}
