/* cmd-history.c - tachy history: results kept with their commits, change
 * points found where they began, trends drawn. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare-input.h"
#include "figure-text.h"
#include "gate.h"
#include "history-compare.h"
#include "history-plot.h"
#include "history-store.h"
#include "run-profile.h"
#include "tachy/array.h"
#include "tachy/history.h"
#include "tachy/jsonw.h"
#include "tachy/outfile.h"
#include "tachy/results-export.h"
#include "tachy/results-read.h"
#include "tachy/results.h"
#include "tachy/svg.h"
#include "tachy/sysinfo.h"
#include "term.h"

int cmd_history(int argc, char **argv);

static const char usage[] =
    "usage: tachy history add [--db DB] [--commit REV] [--branch B] [--machine M]\n"
    "                         [--tag T] FILE.json...\n"
    "       tachy history list [--db DB] [--figure F] [--machine M]\n"
    "       tachy history show [--db DB] [--figure F] [--machine M] BENCH\n"
    "       tachy history detect [--db DB] [--figure F] [--machine M] [--since REV]\n"
    "                            [--format text|json|csv] [--fail-if-slower P]\n"
    "                            [--fail-if-faster P] [--gate-on F] [--max-p P]\n"
    "                            [BENCH...]\n"
    "       tachy history plot [--db DB] [--figure F] [--machine M] [-o FILE]\n"
    "                          [BENCH...]\n"
    "       tachy history compare [--db DB] [--machine M] [--format text|json]\n"
    "                             [-c P] [--fail-if-slower P] [--fail-if-faster P]\n"
    "                             [--gate-on M]\n"
    "                             [-o FILE]\n"
    "                             OLD NEW [BENCH...]\n"
    "\n"
    "Keep every result with its commit, and find the commits where performance\n"
    "changed (E-Divisive means with a t test on per-commit medians, each machine\n"
    "apart; see tachy-history(1)).\n"
    "\n"
    "  add      store tachy's or hyperfine's --export-json files under a commit\n"
    "           (default: git's HEAD here, with its branch, time and order)\n"
    "  list     the benchmarks, machines and commits stored\n"
    "  show     a benchmark's table per commit: runs, median, interval, change\n"
    "  detect   the change points per benchmark, machine and figure\n"
    "  plot     each series with its intervals and change points (.html or .svg)\n"
    "  compare  the wall times stored at two commits, as tachy compare compares\n"
    "           two exports, and which functions' time changed where both keep\n"
    "           the per-run profiles of tachy run --profile --history\n"
    "\n"
    "compare warns on stderr when the commits are not comparable (another\n"
    "machine or kernel, clearly different load, a stale baseline); detect, when\n"
    "a change point coincides with a change of load (the step may be that).\n"
    "\n";

static const char footer[] =
    "\n"
    "Exit status: 0 ok, 1 runtime failure, 2 usage or bad input, 3 --fail-if-slower\n"
    "or --fail-if-faster tripped.\n";

enum format { FMT_TEXT, FMT_JSON, FMT_CSV };

struct opts {
	const char *db, *commit, *branch, *machine, *tag, *figure, *since, *output, *gate_on;
	int format; /* enum format */
	double fail_if_slower, fail_if_faster, max_p, confidence;
	enum ty_match_mode match; /* compare --match */
};

static int
load(struct ty_history *h, const char *bench, const struct opts *o, struct ty_history_series **s,
     size_t *n)
{
	struct ty_error e = {0};
	int rc = ty_history_load(h, bench, o->machine, o->figure, s, n, &e);

	if (rc < 0)
		return cli_error(history_store_status(rc), "%s", e.msg);
	return 0;
}

/* ---- add ---- */

static int
do_add(const struct opts *o, char **paths, int n)
{
	struct ty_results_saved *files;
	int st, i;

	if (n < 1)
		return cli_usage_error("add: no results file given");
	if (!(files = calloc((size_t)n, sizeof(*files))))
		return cli_error(EXIT_RUNTIME, "out of memory");
	/* every file is read before the store is touched: a bad one writes nothing */
	if ((st = compare_input_read(files, paths, n))) {
		free(files);
		return st;
	}
	st =
	    history_store_add(o->db, o->commit, o->branch, o->machine, o->tag, files, (size_t)n, 0);
	for (i = 0; i < n; i++)
		ty_results_saved_release(&files[i]);
	free(files);
	return st;
}

/* ---- list ---- */

static int
do_list(const struct opts *o, int argc)
{
	struct ty_history_series *s;
	struct ty_history *h;
	size_t n, i, k, runs;
	int st;

	if (argc)
		return cli_usage_error("list takes no arguments");
	if ((st = history_store_open(o->db, 0, &h)))
		return st;
	st = load(h, NULL, o, &s, &n);
	if (!st) {
		printf("%-32s %-20s %7s %7s  %-12s  %-12s\n", "benchmark", "machine", "commits",
		       "runs", "first", "last");
		for (i = 0; i < n; i++) {
			for (k = 0, runs = 0; k < s[i].n; k++)
				runs += s[i].commits[k].nvalues;
			printf("%-32s %-20s %7zu %7zu  %-12.12s  %-12.12s\n",
			       term_safe(s[i].benchmark), term_safe(s[i].machine), s[i].n, runs,
			       term_safe(s[i].commits[0].rev),
			       term_safe(s[i].commits[s[i].n - 1].rev));
		}
		if (!n)
			printf("(no results of figure '%s')\n", o->figure ? o->figure : "wall");
		ty_history_series_free(s, n);
	}
	ty_history_close(h);
	return cli_finish_stdout(st);
}

/* ---- detect ---- */

struct found {
	struct ty_history_series *s;
	struct ty_history_change c;
};

/* What a series where nothing was found could have shown. */
struct quiet {
	double min_step;   /* percent; NAN: too short to tell */
	double runs;	   /* median runs per commit */
	double max_p;	   /* of the test */
	int nothing_found; /* no change point in the series */
};

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The confidence of detect's intervals (ty_history_detect_defaults). */
static double
d_confidence(void)
{
	struct ty_history_detect_opts d;

	ty_history_detect_defaults(&d);
	return d.confidence;
}

static int
detect_series(struct ty_history_series *s, const struct opts *o, struct found **out, size_t *nout,
	      size_t *cap, struct quiet *q)
{
	struct ty_history_detect_opts d;
	struct ty_history_point *p = history_store_points(s);
	struct ty_history_change *ch;
	struct ty_error e = {0};
	size_t nch, k, since = 0;
	int rc;

	if (!p)
		return cli_error(EXIT_RUNTIME, "out of memory");
	ty_history_detect_defaults(&d);
	if (!isnan(o->max_p))
		d.max_p = o->max_p;
	rc = ty_history_detect(p, s->n, &d, &ch, &nch, &e);
	q->nothing_found = rc == 0 && nch == 0;
	q->max_p = d.max_p;
	q->min_step = q->nothing_found ? ty_history_min_step(p, s->n, &d, 0.8) : NAN;
	q->runs = 0;
	if (q->nothing_found && s->n) {
		double *w = malloc(s->n * sizeof(*w));
		for (size_t i = 0; w && i < s->n; i++)
			w[i] = p[i].weight;
		if (w) {
			qsort(w, s->n, sizeof(*w), cmp_d);
			q->runs = w[s->n / 2];
		}
		free(w);
	}
	free(p);
	if (rc < 0)
		return cli_error(EXIT_RUNTIME, "%s: %s", s->benchmark, e.msg);
	if (o->since) {
		size_t len = strlen(o->since);
		since = s->n;
		for (k = 0; k < s->n; k++)
			if (strncmp(s->commits[k].rev, o->since, len) == 0) {
				since = k;
				break;
			}
	}
	for (k = 0; k < nch; k++) {
		if (ch[k].index < since)
			continue;
		if (ty_array_grow(out, sizeof(**out), *nout + 1, cap) < 0) {
			free(ch);
			return cli_error(EXIT_RUNTIME, "out of memory");
		}
		(*out)[*nout].s = s;
		(*out)[(*nout)++].c = ch[k];
	}
	free(ch);
	return 0;
}

/* Where a change point's commit ran under other load (or another kernel)
 * than the commit before it: the step may be that, not the code. Said on
 * stderr; the change point stays as found. */
static void
detect_coincidences(struct ty_history *h, const struct found *f, size_t n)
{
	struct ty_comparable_finding fnd[COMPARE_INPUT_FINDINGS];
	struct ty_results_saved facts[2];
	struct ty_comparable_side a, b;
	struct ty_error e = {0};
	char na[16], nb[16];

	for (size_t i = 0; i < n; i++) {
		const struct ty_history_series *s = f[i].s;
		size_t at = f[i].c.index, m;
		if (!at)
			continue;
		snprintf(na, sizeof(na), "%.12s", s->commits[at - 1].rev);
		snprintf(nb, sizeof(nb), "%.12s", s->commits[at].rev);
		if (ty_history_facts_at(h, s->commits[at - 1].rev, s->machine, &facts[0], &e) < 0)
			continue;
		if (ty_history_facts_at(h, s->commits[at].rev, s->machine, &facts[1], &e) == 0) {
			ty_comparable_side_of(&a, na, &facts[0], 1);
			ty_comparable_side_of(&b, nb, &facts[1], 1);
			m = ty_comparable_judge(&a, &b, fnd, COMPARE_INPUT_FINDINGS);
			for (size_t k = 0; k < m && k < COMPARE_INPUT_FINDINGS; k++)
				cli_warn(
				    "the change point of '%s' on %s at %s coincides with a change "
				    "of %s: the step may be that, not the code: %s: %s",
				    s->benchmark, s->machine, nb,
				    fnd[k].kind == TY_COMPARABLE_LOAD ? "load"
								      : "machine or kernel",
				    fnd[k].facts, fnd[k].fix);
			ty_results_saved_release(&facts[1]);
		}
		ty_results_saved_release(&facts[0]);
	}
}

static void
p_text(char *buf, size_t size, double p)
{
	if (p < 1e-300)
		snprintf(buf, size, "<1e-300");
	else if (p < 0.001)
		snprintf(buf, size, "%.1e", p);
	else
		snprintf(buf, size, "%.4f", p);
}

/* A series where nothing was found: how large a step it could have shown. */
static void
write_quiet_text(FILE *fp, const struct ty_history_series *s, const struct quiet *q)
{
	fprintf(fp, "no change points in %s on %s, %s (%zu commit%s, %g run%s per commit)",
		term_safe(s->benchmark), term_safe(s->machine), term_safe(s->figure), s->n,
		s->n == 1 ? "" : "s", q->runs, q->runs == 1 ? "" : "s");
	if (isfinite(q->min_step))
		fprintf(fp,
			": with this noise, a step of %.1f%% or more in the middle would have "
			"been found 80%% of the time (p < %g)\n",
			q->min_step, q->max_p);
	else
		fprintf(fp, ": too few commits to find a step (4 or more are needed)\n");
}

static void
write_detect_text(FILE *fp, const struct found *f, size_t n, const struct ty_history_series *all,
		  const struct quiet *q, size_t ns)
{
	char v1[32], v2[32], l1[32], h1[32], l2[32], h2[32], pc[32], pl[32], ph[32], pp[32];
	size_t i, quiet = 0;

	for (i = 0; i < ns; i++)
		quiet += q[i].nothing_found;
	if (!n && !quiet) /* nothing from --since on */
		fprintf(fp, "no change points\n");
	for (i = 0; i < n; i++) {
		const struct ty_history_change *c = &f[i].c;
		const struct ty_history_series *s = f[i].s;
		double ref = c->before;
		figure_text_value(v1, sizeof(v1), c->before, ref, s->unit);
		figure_text_value(l1, sizeof(l1), c->before_lo, ref, s->unit);
		figure_text_value(h1, sizeof(h1), c->before_hi, ref, s->unit);
		figure_text_value(v2, sizeof(v2), c->after, ref, s->unit);
		figure_text_value(l2, sizeof(l2), c->after_lo, ref, s->unit);
		figure_text_value(h2, sizeof(h2), c->after_hi, ref, s->unit);
		figure_text_pct(pc, sizeof(pc), c->change_pct);
		figure_text_pct(pl, sizeof(pl), c->ci_low);
		figure_text_pct(ph, sizeof(ph), c->ci_high);
		p_text(pp, sizeof(pp), c->p);
		fprintf(fp, "%s on %s, %s: at %.12s (commit %zu of %zu%s)\n",
			term_safe(s->benchmark), term_safe(s->machine), term_safe(s->figure),
			term_safe(s->commits[c->index].rev), c->index + 1, s->n,
			c->single ? ", the newest alone" : "");
		fprintf(fp, "  %s [%s, %s] over %zu commits -> %s [%s, %s] over %zu\n", v1, l1, h1,
			c->n_before, v2, l2, h2, c->n_after);
		fprintf(fp, "  change %s [%s, %s], p = %s\n", pc, pl, ph, pp);
	}
	for (i = 0; i < ns; i++) /* the series where nothing was found, and what they could show */
		if (q[i].nothing_found)
			write_quiet_text(fp, &all[i], &q[i]);
}

static void
write_detect_json(FILE *fp, const struct found *f, size_t n)
{
	struct ty_jsonw w;
	size_t i;

	ty_jsonw_init(&w, fp, 1);
	ty_jsonw_array_begin(&w);
	for (i = 0; i < n; i++) {
		const struct ty_history_change *c = &f[i].c;
		const struct ty_history_series *s = f[i].s;
		const struct ty_history_commit *k = &s->commits[c->index];
		ty_jsonw_object_begin(&w);
		ty_jsonw_kstring(&w, "benchmark", s->benchmark);
		ty_jsonw_kstring(&w, "figure", s->figure);
		ty_jsonw_kstring(&w, "unit", s->unit);
		ty_jsonw_kstring(&w, "machine", s->machine);
		ty_jsonw_kstring(&w, "commit", k->rev);
		ty_jsonw_key(&w, "branch");
		if (k->branch)
			ty_jsonw_string(&w, k->branch);
		else
			ty_jsonw_null(&w);
		ty_jsonw_kuint(&w, "index", c->index);
		ty_jsonw_kuint(&w, "commits", s->n);
		ty_jsonw_kdouble(&w, "before", c->before);
		ty_jsonw_kdouble(&w, "before_low", c->before_lo);
		ty_jsonw_kdouble(&w, "before_high", c->before_hi);
		ty_jsonw_kuint(&w, "commits_before", c->n_before);
		ty_jsonw_kdouble(&w, "after", c->after);
		ty_jsonw_kdouble(&w, "after_low", c->after_lo);
		ty_jsonw_kdouble(&w, "after_high", c->after_hi);
		ty_jsonw_kuint(&w, "commits_after", c->n_after);
		ty_jsonw_kdouble(&w, "change_pct", c->change_pct);
		ty_jsonw_kdouble(&w, "ci_low", c->ci_low);
		ty_jsonw_kdouble(&w, "ci_high", c->ci_high);
		ty_jsonw_kdouble(&w, "p", c->p);
		ty_jsonw_kbool(&w, "newest", c->index + 1 == s->n);
		ty_jsonw_kbool(&w, "single", c->single);
		ty_jsonw_object_end(&w);
	}
	ty_jsonw_array_end(&w);
	fputc('\n', fp);
}

static void
write_detect_csv(FILE *fp, const struct found *f, size_t n)
{
	size_t i;

	fprintf(fp, "benchmark,figure,machine,commit,index,before,before_low,before_high,after,"
		    "after_low,after_high,change_pct,ci_low,ci_high,p\n");
	for (i = 0; i < n; i++) {
		const struct ty_history_change *c = &f[i].c;
		const struct ty_history_series *s = f[i].s;
		ty_results_csv_field(fp, s->benchmark);
		fputc(',', fp);
		ty_results_csv_field(fp, s->figure);
		fputc(',', fp);
		ty_results_csv_field(fp, s->machine);
		fputc(',', fp);
		ty_results_csv_field(fp, s->commits[c->index].rev);
		fprintf(fp, ",%zu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
			c->index, c->before, c->before_lo, c->before_hi, c->after, c->after_lo,
			c->after_hi, c->change_pct, c->ci_low, c->ci_high, c->p);
	}
}

/* The series of BENCHES (every benchmark when none), loaded into *S. */
static int
load_benches(struct ty_history *h, const struct opts *o, char **benches, int nb,
	     struct ty_history_series **s, size_t *n)
{
	struct ty_history_series *all = NULL, *one;
	size_t nall = 0, none;
	int st, i;

	if (nb == 0)
		return load(h, NULL, o, s, n);
	for (i = 0; i < nb; i++) {
		if ((st = load(h, benches[i], o, &one, &none))) {
			ty_history_series_free(all, nall);
			return st;
		}
		if (!none) {
			ty_history_series_free(all, nall);
			free(one);
			return cli_error(EXIT_USAGE, "no benchmark '%s' with figure '%s' in '%s'",
					 term_safe(benches[i]), o->figure ? o->figure : "wall",
					 ty_history_name(h));
		}
		/* a benchmark's series appended at once (a few benchmarks) */
		struct ty_history_series *na = realloc(all, (nall + none) * sizeof(*na));
		if (!na) {
			ty_history_series_free(all, nall);
			ty_history_series_free(one, none);
			return cli_error(EXIT_RUNTIME, "out of memory");
		}
		all = na;
		memcpy(all + nall, one, none * sizeof(*one));
		nall += none;
		free(one);
	}
	*s = all;
	*n = nall;
	return 0;
}

/* detect --gate-on F: the gate judges the figure detect runs on, F. */
static int
detect_gate_on(struct opts *o)
{
	if (!o->gate_on)
		return 0;
	if (isnan(o->fail_if_slower) && isnan(o->fail_if_faster))
		return cli_usage_error("--gate-on %s: it names the figure of --fail-if-slower P, "
				       "which is not given",
				       term_safe(o->gate_on));
	if (o->figure && strcmp(o->figure, o->gate_on) != 0)
		return cli_usage_error("--gate-on %s and --figure %s: detect gates the figure it "
				       "looks at; give one of them",
				       term_safe(o->gate_on), term_safe(o->figure));
	o->figure = o->gate_on;
	return 0;
}

/* The series S[0..N) of a gated figure: none is an error naming the figures
 * stored (a gate never passes for want of its figure). */
static int
detect_gate_found(struct ty_history *h, const struct opts *o, size_t n)
{
	struct ty_error e = {0};
	char **figs = NULL, list[1024];
	size_t i, len = 0;

	if (n || !o->gate_on)
		return 0;
	list[0] = '\0';
	if (ty_history_figures(h, NULL, &figs, &e) == 0)
		for (i = 0; figs && figs[i]; i++) {
			if (len < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
							i ? ", " : "", figs[i]);
			free(figs[i]);
		}
	free(figs);
	return cli_error(EXIT_USAGE,
			 "--gate-on %s: no series of '%s' in '%s'%s (the figures stored: %s)",
			 term_safe(o->gate_on), term_safe(o->gate_on), ty_history_name(h),
			 o->machine ? " on that machine" : "", list[0] ? term_safe(list) : "none");
}

static int
do_detect(struct opts *o, char **benches, int nb)
{
	struct ty_history_git g;
	struct ty_history_series *s = NULL;
	struct found *f = NULL;
	struct quiet *q = NULL;
	struct ty_history *h;
	struct ty_outfile of;
	struct ty_error e = {0};
	size_t n = 0, nf = 0, cap = 0, i, k;
	int st;

	if ((st = detect_gate_on(o)))
		return st;
	if (o->since && ty_history_git_describe(NULL, o->since, &g) == 0)
		o->since = g.rev; /* a name git knows: its commit id */
	if ((st = history_store_open(o->db, 0, &h)))
		return st;
	if ((st = load_benches(h, o, benches, nb, &s, &n)) || (st = detect_gate_found(h, o, n)))
		goto out;
	if (o->since) {
		int seen = 0;
		for (i = 0; i < n && !seen; i++)
			for (k = 0; k < s[i].n && !seen; k++)
				seen =
				    strncmp(s[i].commits[k].rev, o->since, strlen(o->since)) == 0;
		if (!seen) {
			st = cli_error(EXIT_USAGE, "--since: no commit '%s' in '%s'",
				       term_safe(o->since), ty_history_name(h));
			goto out;
		}
	}
	if (n && !(q = calloc(n, sizeof(*q)))) {
		st = cli_error(EXIT_RUNTIME, "out of memory");
		goto out;
	}
	for (i = 0; i < n && !st; i++)
		st = detect_series(&s[i], o, &f, &nf, &cap, &q[i]);
	if (st)
		goto out;
	detect_coincidences(h, f, nf);
	if (ty_outfile_open(&of, o->output ? o->output : "-", &e) < 0) {
		st = cli_error(EXIT_RUNTIME, "%s", e.msg);
		goto out;
	}
	if (o->format == FMT_JSON)
		write_detect_json(of.fp, f, nf);
	else if (o->format == FMT_CSV)
		write_detect_csv(of.fp, f, nf);
	else
		write_detect_text(of.fp, f, nf, s, q, n);
	if (of.is_stdout) {
		ty_outfile_abort(&of);
		st = cli_finish_stdout(0);
	} else if (ty_outfile_commit(&of, &e) < 0) {
		st = cli_error(EXIT_RUNTIME, "%s", e.msg);
	}
	if (st || (isnan(o->fail_if_slower) && isnan(o->fail_if_faster)))
		goto out;
	for (k = 0; k < nf; k++) {
		const struct ty_history_change *c = &f[k].c;
		int faster;
		if (c->index + 1 != f[k].s->n)
			continue;
		for (faster = 0; faster < 2; faster++) {
			double limit = faster ? o->fail_if_faster : o->fail_if_slower;
			/* a change point found is a proven change: its direction is the
			 * verdict; --fail-if-faster judges the change's mirror */
			double rel = faster ? -c->change_pct : c->change_pct;
			double lo = faster ? -c->ci_high : c->ci_low;
			char msg[256];
			enum ty_gate gt;
			if (isnan(limit))
				continue;
			gt = ty_verdict_gate(rel > 0 ? TY_VERDICT_SLOWER : TY_VERDICT_FASTER,
					     TY_INTERVAL_OK, 0, rel, lo, limit);
			if (gt != TY_GATE_TRIP && gt != TY_GATE_UNPROVEN)
				continue;
			figure_text_gate(msg, sizeof(msg), o->figure ? o->figure : "wall", gt,
					 limit, faster, c->change_pct, c->ci_low, c->ci_high,
					 TY_INTERVAL_OK, d_confidence());
			cli_error(0, "'%s' on %s: the newest commit %.12s: %s%s",
				  term_safe(f[k].s->benchmark), term_safe(f[k].s->machine),
				  term_safe(f[k].s->commits[c->index].rev), msg,
				  gt == TY_GATE_TRIP ? "" : " (the gate passes)");
			if (gt == TY_GATE_TRIP)
				st = EXIT_REGRESSION;
		}
	}
out:
	free(f);
	free(q);
	ty_history_series_free(s, n);
	ty_history_close(h);
	return st;
}

/* ---- show ---- */

static int
do_show(const struct opts *o, char **args, int n)
{
	struct ty_history_series *s = NULL;
	struct ty_history *h;
	size_t ns = 0, i, k, j;
	int st;

	if (n != 1)
		return cli_usage_error("show takes one benchmark name");
	if ((st = history_store_open(o->db, 0, &h)))
		return st;
	if ((st = load_benches(h, o, args, 1, &s, &ns)))
		goto out;
	for (i = 0; i < ns; i++) {
		struct ty_history_point *p = history_store_points(&s[i]);
		struct ty_history_change *ch = NULL;
		struct ty_error e = {0};
		size_t nch = 0;
		char b[256], v[32], l[32], hi[32], pc[32];
		if (!p) {
			st = cli_error(EXIT_RUNTIME, "out of memory");
			break;
		}
		if (ty_history_detect(p, s[i].n, NULL, &ch, &nch, &e) < 0)
			nch = 0;
		printf("%s on %s, %s (%zu commit%s)\n", term_safe(s[i].benchmark),
		       term_safe(s[i].machine), term_safe(s[i].figure), s[i].n,
		       s[i].n == 1 ? "" : "s");
		printf("  %-12s %-16s %5s %12s %25s %9s\n", "commit", "branch", "runs", "median",
		       "95% interval", "change");
		for (k = 0; k < s[i].n; k++) {
			double ref = p[0].centre;
			const char *mark = "";
			for (j = 0; j < nch; j++)
				if (ch[j].index == k)
					mark = "  <- change point";
			figure_text_value(v, sizeof(v), p[k].centre, ref, s[i].unit);
			figure_text_value(l, sizeof(l), p[k].lo, ref, s[i].unit);
			figure_text_value(hi, sizeof(hi), p[k].hi, ref, s[i].unit);
			if (k)
				figure_text_pct(pc, sizeof(pc),
						(p[k].centre / p[k - 1].centre - 1) * 100);
			else
				snprintf(pc, sizeof(pc), "-");
			snprintf(b, sizeof(b), "[%s, %s]", l, hi);
			printf("  %-12.12s %-16.16s %5zu %12s %25s %9s%s\n",
			       term_safe(s[i].commits[k].rev),
			       term_safe(s[i].commits[k].branch ? s[i].commits[k].branch : "-"),
			       s[i].commits[k].nvalues, v, b, pc, mark);
		}
		if (i + 1 < ns)
			putchar('\n');
		free(p);
		free(ch);
	}
out:
	ty_history_series_free(s, ns);
	ty_history_close(h);
	return cli_finish_stdout(st);
}

/* ---- plot ---- */

static int
do_plot(const struct opts *o, char **benches, int nb)
{
	const char *out = o->output ? o->output : "trend.html";
	const char *dot = strrchr(out, '.');
	struct ty_history_series *s = NULL;
	struct ty_history *h;
	struct ty_outfile of;
	struct ty_error e = {0};
	size_t n = 0;
	int st, html;

	if (dot && strcmp(dot, ".svg") == 0)
		html = 0;
	else if (dot && (strcmp(dot, ".html") == 0 || strcmp(dot, ".htm") == 0))
		html = 1;
	else
		return cli_usage_error("plot: -o must name a .html or .svg file");
	if ((st = history_store_open(o->db, 0, &h)))
		return st;
	if ((st = load_benches(h, o, benches, nb, &s, &n)) || (st = detect_gate_found(h, o, n)))
		goto out;
	if (ty_outfile_open(&of, out, &e) < 0) {
		st = cli_error(EXIT_RUNTIME, "%s", e.msg);
		goto out;
	}
	if (history_plot_write(of.fp, ty_history_name(h), s, n, html) < 0)
		st = cli_error(EXIT_RUNTIME, "out of memory");
	if (st) {
		ty_outfile_abort(&of);
	} else if (of.is_stdout) {
		ty_outfile_abort(&of);
		st = cli_finish_stdout(0);
	} else if (ty_outfile_commit(&of, &e) < 0) {
		st = cli_error(EXIT_RUNTIME, "%s", e.msg);
	}
out:
	ty_history_series_free(s, n);
	ty_history_close(h);
	return st;
}

/* ---- compare ---- */

static int
do_compare(const struct opts *o, char **args, int n)
{
	struct history_compare_opts c = {.db = o->db,
					 .machine = o->machine,
					 .output = o->output,
					 .json = o->format == FMT_JSON,
					 .confidence = o->confidence,
					 .fail_if_slower = o->fail_if_slower,
					 .fail_if_faster = o->fail_if_faster,
					 .gate_on = o->gate_on,
					 .match = o->match};

	if (o->format == FMT_CSV)
		return cli_usage_error("compare: --format csv: text or json");
	if (o->gate_on && isnan(o->fail_if_slower) && isnan(o->fail_if_faster))
		return cli_usage_error("--gate-on %s: it names the figure of --fail-if-slower P, "
				       "which is not given",
				       term_safe(o->gate_on));
	return history_compare(&c, args, n);
}

/* ---- main ---- */

/* The subcommands, as bits: which one an option goes with. */
enum { ADD = 1, LIST = 2, SHOW = 4, DETECT = 8, PLOT = 16, COMPARE = 32, ALL = 63 };
static const char *const subs[] = {"add", "list", "show", "detect", "plot", "compare", NULL};

/* The subcommand being parsed, for refuse(). */
static const char *parsing;

/* An option of another subcommand: OPT->value says which ones. */
static int
refuse(const struct cli_option *opt, const char *typed, char **args)
{
	(void)args;
	if (typed[1] == '-') /* its whole name, however much of it was typed */
		return cli_usage_error("%s does not take --%s (it goes with %s)", parsing,
				       opt->long_name, (const char *)opt->value);
	return cli_usage_error("%s does not take %s (it goes with %s)", parsing, typed,
			       (const char *)opt->value);
}

/* "detect", "detect and plot", "list, show, detect and plot": the
 * subcommands of the bits OWN, into BUF. */
static const char *
owners_text(unsigned own, char *buf, size_t size)
{
	size_t len = 0, i, n = 0, k = 0;

	for (i = 0; subs[i]; i++)
		n += (own >> i) & 1;
	buf[0] = '\0';
	for (i = 0; subs[i] && len < size; i++)
		if ((own >> i) & 1) {
			k++;
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						k == 1	 ? ""
						: k == n ? " and "
							 : ", ",
						subs[i]);
		}
	return buf;
}

/* OPTIONS[0..N) as subcommand SUB (a bit) parses them: those of the
 * others refused by name (the help, and the prefixes an option is typed
 * by, stay those of the whole table), into OUT, with their owners' names
 * in TEXT. */
static void
options_for(unsigned sub, const struct cli_option *options, const unsigned *own, size_t n,
	    struct cli_option *out, char (*text)[64])
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[i] = options[i];
		if (!own[i] || (own[i] & sub))
			continue;
		out[i].type = CLI_T_CALLBACK;
		out[i].value = (void *)owners_text(own[i], text[i], sizeof(text[i]));
		out[i].nargs = out[i].argh ? 1 : 0;
		out[i].cb = refuse;
	}
}

int
cmd_history(int argc, char **argv)
{
	static const char *const formats[] = {"text", "json", "csv", NULL};
	struct opts o = {
	    .fail_if_slower = NAN, .fail_if_faster = NAN, .max_p = NAN, .confidence = 95};
	struct cli_option options[] = {
	    OPT_STRING(0, "db", &o.db, "DB",
		       "SQLite file, postgresql://... URI or libpq's\n"
		       "'host=H dbname=D' (default: $TACHY_DB, else\n"
		       "$XDG_DATA_HOME/tachy/history.db, else\n"
		       "~/.local/share/tachy/history.db)"),
	    OPT_STRING(0, "commit", &o.commit, "REV",
		       "add: the commit of the results (resolved by git if\n"
		       "it can)"),
	    OPT_STRING(0, "branch", &o.branch, "B", "add: its branch"),
	    OPT_STRING(0, "machine", &o.machine, "M",
		       "add: the machine (default: the file's hostname, else\n"
		       "this machine's, with its facts, for hyperfine's files);\n"
		       "the others: only the results of machine M"),
	    OPT_STRING(0, "tag", &o.tag, "T", "add: a free tag, stored with the results"),
	    OPT_STRING('F', "figure", &o.figure, "F",
		       "list, show, detect, plot: wall (default), user,\n"
		       "system, maxrss or a counter"),
	    OPT_STRING(0, "since", &o.since, "REV", "detect: only change points from REV on"),
	    OPT_CHOICE('f', "format", &o.format, "FORMAT", formats,
		       "detect: text (default), json or csv;\n"
		       "compare: text (default) or json"),
	    OPT_DOUBLE(0, "fail-if-slower", &o.fail_if_slower, "P", 0, 1e9,
		       "detect: exit 3 when the newest commit of a series\n"
		       "starts a slowdown proven beyond P percent;\n"
		       "compare: when NEW's wall time is proven slower\n"
		       "than OLD's by more than P percent"),
	    OPT_DOUBLE(0, "fail-if-faster", &o.fail_if_faster, "P", 0, 1e9,
		       "detect: exit 3 when the newest commit of a series\n"
		       "starts a speed-up proven beyond P percent;\n"
		       "compare: when NEW is proven faster than OLD by\n"
		       "more than P percent"),
	    OPT_CALLBACK(0, "gate-on", &o.gate_on, "METRIC",
			 "detect, compare: the figure that gate judges: wall\n"
			 "(default), user, system, a counter; compare also\n"
			 "cpu (user+system)",
			 gate_opt_metric),
	    OPT_DOUBLE(0, "max-p", &o.max_p, "P", 1e-300, 0.5,
		       "detect: the p-value a change point must beat (0.001)"),
	    OPT_CALLBACK('c', "confidence", &o.confidence, "P",
			 "compare: confidence level in percent (default 95)",
			 compare_input_opt_confidence),
	    OPT_CALLBACK(0, "match", &o.match, "MODE",
			 "compare: how the per-run profiles' functions are\n"
			 "matched: dso,sym (default), sym or path,sym",
			 run_profile_opt_match),
	    OPT_STRING('o', "output", &o.output, "FILE",
		       "plot: trend.html (default) or a .svg file;\n"
		       "detect, compare: a file instead of standard output"),
	    OPT_HELP('h', "help", "show this help"),
	    OPT_END(),
	};
	/* which subcommands each option goes with (0: every one, --help) */
	static const unsigned own[] = {
	    ALL,			 /* --db */
	    ADD,			 /* --commit */
	    ADD,			 /* --branch */
	    ALL,			 /* --machine */
	    ADD,			 /* --tag */
	    LIST | SHOW | DETECT | PLOT, /* --figure */
	    DETECT,			 /* --since */
	    DETECT | COMPARE,		 /* --format */
	    DETECT | COMPARE,		 /* --fail-if-slower */
	    DETECT | COMPARE,		 /* --fail-if-faster */
	    DETECT | COMPARE,		 /* --gate-on */
	    DETECT,			 /* --max-p */
	    COMPARE,			 /* --confidence */
	    COMPARE,			 /* --match */
	    DETECT | PLOT | COMPARE,	 /* --output */
	    0,				 /* --help */
	    0,				 /* the end */
	};
	_Static_assert(sizeof(own) / sizeof(own[0]) == sizeof(options) / sizeof(options[0]),
		       "an owner for every option");
	struct cli_option mine[sizeof(options) / sizeof(options[0])];
	char text[sizeof(options) / sizeof(options[0])][64];
	const struct cli_parser parser = {usage, options, footer, 0, 26};
	struct cli_parser sub_parser = parser;
	struct cli_args args;
	const char *sub;
	unsigned bit;
	int c;

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		cli_help(&parser, stdout);
		return cli_finish_stdout(EXIT_OK);
	}
	if (argc < 2)
		return cli_usage_error("which one: add, list, show, detect, plot or compare?");
	sub = argv[1];
	for (bit = 0; subs[bit] && strcmp(sub, subs[bit]) != 0; bit++)
		;
	if (!subs[bit])
		return cli_usage_error(
		    "unknown subcommand '%s': add, list, show, detect, plot or compare", sub);
	options_for(1u << bit, options, own, sizeof(options) / sizeof(options[0]), mine, text);
	sub_parser.options = mine;
	parsing = sub;
	argc--;
	argv++;
	if ((c = cli_parse(&sub_parser, argc, argv, &args)))
		return c == CLI_HELP_SHOWN ? cli_finish_stdout(EXIT_OK) : c;
	argc = args.n;
	argv = args.v;
	switch (1u << bit) {
	case ADD:
		return do_add(&o, argv, argc);
	case LIST:
		return do_list(&o, argc);
	case SHOW:
		return do_show(&o, argv, argc);
	case DETECT:
		return do_detect(&o, argv, argc);
	case COMPARE:
		return do_compare(&o, argv, argc);
	default:
		return do_plot(&o, argv, argc);
	}
}

const struct cmd_info cmd_info_history = {
    "history", 75, "results kept with their commits; change points, bisect verdicts", cmd_history};
