/* cmd-plot.c - tachy plot: saved results as plain SVG, or one HTML page. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare-input.h"
#include "figure-text.h"
#include "tachy/comparison.h"
#include "tachy/outfile.h"
#include "tachy/results-read.h"
#include "tachy/stats.h"
#include "tachy/svg.h"

int cmd_plot(int argc, char **argv);

static const char usage[] =
    "usage: tachy plot [options] -o OUT.svg|OUT.html FILE.json [NEW.json ...]\n"
    "\n"
    "Draw saved results (tachy's or hyperfine's --export-json files): for each\n"
    "command the distribution of its run times (a histogram with the median, its\n"
    "interval and the mean marked) and its runs in the order they ran (warm-up and\n"
    "drift show), and, for a comparison (several commands in one file against its\n"
    "reference, or NEW files against the first), the change of every figure with\n"
    "its interval. SVG is plain (no scripts); HTML is one self-contained page with\n"
    "the pictures and a table of the numbers. A FILE named '-' is read from\n"
    "standard input (one at most).\n"
    "\n";

#define WIDTH 960.0
#define ROW_H 250.0

enum format { FMT_NONE, FMT_SVG, FMT_HTML };

struct options {
	struct ty_cmp_options cmp;
	const char *output, *title;
	enum format format;
};

struct plot {
	const struct options *o;
	const struct ty_results_saved *files;
	size_t nfiles;
	const struct ty_cmp_table *cmp; /* NULL: nothing to compare */
};

/* ---- one benchmark: distribution and runs in order ---- */

struct bench_stats {
	struct ty_summary s;
	double lo, hi; /* interval of the median */
	int has_ci;
};

static int
bench_stats(const struct ty_results_saved_figure *f, double confidence, struct bench_stats *b)
{
	int rc;

	if ((rc = ty_stats_summarize(f->values, f->n, &b->s)))
		return rc;
	rc = ty_verdict_median_ci(f->values, f->n, confidence, &b->lo, &b->hi);
	if (rc == -ENOMEM)
		return rc;
	b->has_ci = rc == 0;
	return 0;
}

/* The value whose prefix a benchmark's figures share (one unit a line):
 * the median, else (all but a few runs took no time) the largest. */
static double
scale_ref(const struct ty_summary *s)
{
	return s->median != 0 ? s->median : s->max;
}

static char *
bench_title(char *buf, size_t size, const struct plot *p, size_t file,
	    const struct ty_results_saved_bench *b)
{
	char full[1024];

	if (p->nfiles > 1)
		snprintf(full, sizeof(full), "%s (%s)", b->label, p->files[file].path);
	else
		snprintf(full, sizeof(full), "%s", b->label);
	return figure_text_truncate(buf, size, full, 52);
}

/* The axis all the histograms of a figure share (one unit, one range, so
 * a command 28% slower looks it): the scale reference (the largest of the
 * commands') into *REF and the range of every run of every command (in
 * the display units of *REF) into FRAME. Commands whose unit differs from
 * B's keep their own axes. */
static void
shared_axis(const struct plot *p, const struct ty_results_saved_bench *b, double *ref,
	    struct ty_svg_frame *frame)
{
	const char *unit = b->figs[0].unit, *suffix;
	double scale, lo = INFINITY, hi = -INFINITY, r = 0;
	struct bench_stats st;
	size_t i, j, k;

	for (k = 0; k < 2; k++) {
		if (k)
			figure_text_scale(r, unit, &scale, &suffix);
		for (i = 0; i < p->nfiles; i++)
			for (j = 0; j < p->files[i].nbenches; j++) {
				const struct ty_results_saved_figure *f =
				    &p->files[i].benches[j].figs[0];
				size_t v;
				if (strcmp(f->unit, unit) != 0)
					continue;
				if (!k) {
					if (bench_stats(f, p->o->cmp.confidence, &st) == 0)
						r = fmax(r, scale_ref(&st.s));
					continue;
				}
				for (v = 0; v < f->n; v++)
					if (isfinite(f->values[v])) {
						lo = fmin(lo, f->values[v] * scale);
						hi = fmax(hi, f->values[v] * scale);
					}
			}
	}
	if (r > 0)
		*ref = r;
	if (isfinite(lo) && lo < hi) {
		frame->xlo = lo;
		frame->xhi = hi;
	}
}

static int
bench_panel(FILE *fp, double y, const struct plot *p, size_t file,
	    const struct ty_results_saved_bench *b)
{
	const struct ty_results_saved_figure *f = &b->figs[0];
	struct ty_svg_frame left = {10, y, WIDTH / 2 - 15, ROW_H - 20, 0, 0, NULL};
	struct ty_svg_frame right = {WIDTH / 2 + 5, y, WIDTH / 2 - 15, ROW_H - 20, 0, 0, NULL};
	char title[1024], sub[256], m[32], l[32], h[32], mean[32], axis[64];
	struct bench_stats st;
	const char *suffix;
	double scale, ref, *x;
	size_t i;
	int rc;

	if ((rc = bench_stats(f, p->o->cmp.confidence, &st)))
		return rc;
	if (!(x = malloc(f->n * sizeof(*x))))
		return -ENOMEM;
	ref = scale_ref(&st.s);
	shared_axis(p, b, &ref, &left);
	figure_text_scale(ref, f->unit, &scale, &suffix);
	right.xlo = left.xlo;
	right.xhi = left.xhi;
	snprintf(axis, sizeof(axis), *suffix ? "wall time (%s)" : "wall time", suffix);
	left.xlabel = right.xlabel = axis;
	for (i = 0; i < f->n; i++)
		x[i] = f->values[i] * scale;
	figure_text_value(m, sizeof(m), st.s.median, ref, f->unit);
	figure_text_value(l, sizeof(l), st.lo, ref, f->unit);
	figure_text_value(h, sizeof(h), st.hi, ref, f->unit);
	figure_text_value(mean, sizeof(mean), st.s.mean, ref, f->unit);
	if (st.has_ci)
		snprintf(sub, sizeof(sub), "%zu run%s: median %s [%s, %s], mean %s", f->n,
			 f->n == 1 ? "" : "s", m, l, h, mean);
	else
		snprintf(sub, sizeof(sub), "%zu run%s: median %s, mean %s", f->n,
			 f->n == 1 ? "" : "s", m, mean);
	bench_title(title, sizeof(title), p, file, b);
	ty_svg_text(fp, 15, y + 4, "start", 15, 1, title);
	ty_svg_text(fp, WIDTH - 15, y + 4, "end", 12, 0, sub);
	left.y += 12;
	right.y += 12;
	snprintf(sub, sizeof(sub), "wall time (red: median and its %g%% interval; dashed: mean)",
		 p->o->cmp.confidence);
	ty_svg_histogram(fp, &left, x, f->n, st.s.median * scale, st.has_ci ? st.lo * scale : NAN,
			 st.has_ci ? st.hi * scale : NAN, st.s.mean * scale, suffix, sub);
	ty_svg_runs(fp, &right, x, f->n, st.s.median * scale, suffix,
		    "runs in the order they ran (red: median)");
	free(x);
	return 0;
}

/* ---- the changes of a comparison ---- */

/* Is row R drawn? Not when both sides are 0 (no change to show: a
 * counter this machine counts as nothing). */
static int
row_drawn(const struct ty_cmp_row *r)
{
	return !(r->v.old.centre == 0 && r->v.new.centre == 0);
}

/* Is row I the first drawn row of its figure? */
static int
first_of_figure(const struct ty_cmp_table *c, size_t i)
{
	size_t j;

	if (!row_drawn(&c->rows[i]))
		return 0;
	for (j = 0; j < i; j++)
		if (row_drawn(&c->rows[j]) && strcmp(c->rows[j].figure, c->rows[i].figure) == 0)
			return 0;
	return 1;
}

/* One panel per figure (each its own scale: a noisy counter must not
 * flatten the wall time), a row per pair. */
static double
change_height(const struct ty_cmp_table *c)
{
	double h = 0;
	size_t i;

	for (i = 0; i < c->nrows; i++)
		if (row_drawn(&c->rows[i]))
			h += 22 + (first_of_figure(c, i) ? 65 : 0);
	return h + 10;
}

static int
figure_panel(FILE *fp, double *y, const struct plot *p, size_t first)
{
	const struct ty_cmp_table *c = p->cmp;
	const char *fig = c->rows[first].figure;
	struct ty_svg_change *ch;
	struct ty_svg_frame f = {0};
	char **labels, title[512], name[160];
	size_t i, n = 0;
	int rc = 0;

	ch = calloc(c->nrows + 1, sizeof(*ch));
	labels = calloc(c->nrows + 1, sizeof(*labels));
	if (!ch || !labels) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = first; i < c->nrows; i++) {
		const struct ty_cmp_row *r = &c->rows[i];
		if (strcmp(r->figure, fig) != 0 || !row_drawn(r))
			continue;
		figure_text_truncate(name, sizeof(name), r->new->label, c->nsets > 1 ? 28 : 44);
		if (asprintf(&labels[n], "%s%s%s", name, c->nsets > 1 ? " in " : "",
			     c->nsets > 1 ? c->sets[r->set].new->path : "") < 0) {
			labels[n] = NULL;
			rc = -ENOMEM;
			goto out;
		}
		ch[n].label = labels[n];
		ch[n].rel = r->v.c.rel;
		ch[n].lo = r->v.c.rel_lo;
		ch[n].hi = r->v.c.rel_hi;
		ch[n].verdict = r->v.verdict;
		n++;
	}
	if (first == 0)
		snprintf(title, sizeof(title),
			 "change of %s against %s, with its %g%% interval (red: proven higher, "
			 "green: proven lower, grey: not proven)",
			 fig,
			 c->sets[0].old == c->sets[0].new ? "the reference" : c->sets[0].old->path,
			 c->opt.confidence);
	else
		snprintf(title, sizeof(title), "change of %s", fig);
	f.x = 10;
	f.y = *y;
	f.w = WIDTH - 20;
	f.h = 65 + 22 * (double)n;
	ty_svg_changes(fp, &f, ch, n, title);
	*y += f.h;
out:
	for (i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
	free(ch);
	return rc;
}

static int
change_panel(FILE *fp, double y, const struct plot *p)
{
	size_t i;
	int rc;

	for (i = 0; i < p->cmp->nrows; i++)
		if (first_of_figure(p->cmp, i) && (rc = figure_panel(fp, &y, p, i)))
			return rc;
	return 0;
}

/* ---- SVG: everything stacked ---- */

static size_t
nbenches(const struct plot *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nfiles; i++)
		n += p->files[i].nbenches;
	return n;
}

static const char *
page_title(const struct plot *p, char *buf, size_t size)
{
	size_t i, len = 0;

	if (p->o->title)
		return p->o->title;
	len = (size_t)snprintf(buf, size, "tachy plot:");
	for (i = 0; i < p->nfiles && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, " %s", p->files[i].path);
	return buf;
}

static size_t
nfile_notes(const struct plot *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nfiles; i++)
		n += p->files[i].nnotes;
	return n;
}

/* The notes of the files (benchmarks left out, interrupted runs), a line
 * each from Y down. */
static void
svg_file_notes(FILE *fp, double y, const struct plot *p)
{
	char buf[1200], cut[1024];
	size_t i, j;

	for (i = 0; i < p->nfiles; i++)
		for (j = 0; j < p->files[i].nnotes; j++, y += 18) {
			snprintf(buf, sizeof(buf), "note: %s: %s", p->files[i].path,
				 p->files[i].notes[j]);
			ty_svg_text(fp, 15, y, "start", 12, 0,
				    figure_text_truncate(cut, sizeof(cut), buf, 140));
		}
}

static int
write_svg(FILE *fp, const struct plot *p)
{
	double y = 40 + 18 * (double)nfile_notes(p);
	double h = y + ROW_H * (double)nbenches(p) + (p->cmp ? change_height(p->cmp) : 0);
	char title[1024];
	size_t i, j;
	int rc;

	ty_svg_begin(fp, WIDTH, h);
	ty_svg_text(fp, 15, 24, "start", 18, 1, page_title(p, title, sizeof(title)));
	svg_file_notes(fp, 46, p);
	for (i = 0; i < p->nfiles; i++)
		for (j = 0; j < p->files[i].nbenches; j++, y += ROW_H)
			if ((rc = bench_panel(fp, y, p, i, &p->files[i].benches[j])))
				return rc;
	if (p->cmp && (rc = change_panel(fp, y, p)))
		return rc;
	ty_svg_end(fp);
	return 0;
}

/* ---- HTML: one page, pictures and tables ---- */

static const char html_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'\">\n"
    "<meta name=\"generator\" content=\"tachy plot\">\n"
    "<style>\n"
    "body { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; margin: 24px; "
    "color: #222; }\n"
    "table { border-collapse: collapse; margin: 12px 0 24px; font-size: 13px; }\n"
    "th, td { border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: right; "
    "white-space: nowrap; }\n"
    "th { background: #f4f4f4; }\n"
    "td.l, th.l { text-align: left; }\n"
    "td.n { text-align: left; white-space: normal; min-width: 8em; max-width: 24em; "
    "overflow-wrap: anywhere; }\n"
    "td.slower, td.higher { color: #d62728; font-weight: bold; }\n"
    "td.faster, td.lower { color: #2ca02c; font-weight: bold; }\n"
    "svg { display: block; margin: 8px 0; }\n"
    "code { white-space: pre-wrap; }\n"
    "</style>\n";

static void
td(FILE *fp, const char *cls, const char *text)
{
	fprintf(fp, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	ty_svg_escape(fp, text);
	fputs("</td>", fp);
}

static int
bench_table(FILE *fp, const struct plot *p)
{
	char n[32], mean[96], med[128], sd[32], mn[32], mx[32], l[32], h[32];
	struct ty_centre c;
	struct bench_stats st;
	size_t i, j;
	int rc;

	fputs("<h2>Benchmarks</h2>\n<table>\n<tr><th class=\"l\">file</th><th class=\"l\">"
	      "benchmark</th><th class=\"l\">command</th><th>runs</th><th>mean</th>"
	      "<th>median</th><th>stddev</th><th>min</th><th>max</th></tr>\n",
	      fp);
	for (i = 0; i < p->nfiles; i++) {
		for (j = 0; j < p->files[i].nbenches; j++) {
			const struct ty_results_saved_bench *b = &p->files[i].benches[j];
			const struct ty_results_saved_figure *f = &b->figs[0];
			double ref;
			if ((rc = bench_stats(f, p->o->cmp.confidence, &st)))
				return rc;
			ref = scale_ref(&st.s);
			c.n = st.s.n;
			c.centre = st.s.mean;
			c.exact_ci = st.s.n >= 2;
			c.lo = c.hi = NAN;
			if (c.exact_ci) {
				double hw = ty_stats_mean_ci_halfwidth(&st.s, p->o->cmp.confidence);
				c.lo = st.s.mean - hw;
				c.hi = st.s.mean + hw;
			}
			snprintf(n, sizeof(n), "%zu", f->n);
			figure_text_centre(mean, sizeof(mean), &c, ref, f->unit);
			figure_text_value(med, sizeof(med), st.s.median, ref, f->unit);
			if (st.has_ci)
				snprintf(med + strlen(med), sizeof(med) - strlen(med), " [%s, %s]",
					 figure_text_value(l, sizeof(l), st.lo, ref, f->unit),
					 figure_text_value(h, sizeof(h), st.hi, ref, f->unit));
			fputs("<tr>", fp);
			td(fp, "l", p->files[i].path);
			td(fp, "n", b->label);
			fputs("<td class=\"n\"><code>", fp);
			ty_svg_escape(fp, b->command);
			fputs("</code></td>", fp);
			td(fp, NULL, n);
			td(fp, NULL, mean);
			td(fp, NULL, med);
			td(fp, NULL, figure_text_value(sd, sizeof(sd), st.s.stddev, ref, f->unit));
			td(fp, NULL, figure_text_value(mn, sizeof(mn), st.s.min, ref, f->unit));
			td(fp, NULL, figure_text_value(mx, sizeof(mx), st.s.max, ref, f->unit));
			fputs("</tr>\n", fp);
		}
	}
	fputs("</table>\n", fp);
	return 0;
}

static void
change_table(FILE *fp, const struct ty_cmp_table *c)
{
	char o[96], n[96], ch[96], pv[32];
	size_t i;

	const char *centre = ty_verdict_centre_name(c->opt.test);

	fprintf(fp,
		"<h2>Changes</h2>\n<table>\n<tr><th class=\"l\">old</th><th class=\"l\">new</th>"
		"<th class=\"l\">figure</th><th>old %s</th><th>new %s</th><th>change</th>"
		"<th>p-value</th><th class=\"l\">verdict</th></tr>\n",
		centre, centre);
	for (i = 0; i < c->nrows; i++) {
		const struct ty_cmp_row *r = &c->rows[i];
		const char *v = figure_text_verdict(r);
		fputs("<tr>", fp);
		td(fp, "n", r->old->label);
		if (c->nsets > 1) {
			char *in = NULL;
			if (asprintf(&in, "%s (%s)", r->new->label, c->sets[r->set].new->path) < 0)
				in = NULL;
			td(fp, "n", in ? in : r->new->label);
			free(in);
		} else {
			td(fp, "n", r->new->label);
		}
		td(fp, "l", r->figure);
		td(fp, NULL,
		   figure_text_centre(o, sizeof(o), &r->v.old, figure_text_row_ref(r), r->unit));
		td(fp, NULL,
		   figure_text_centre(n, sizeof(n), &r->v.new, figure_text_row_ref(r), r->unit));
		td(fp, NULL, figure_text_change(ch, sizeof(ch), r));
		td(fp, NULL, figure_text_p(pv, sizeof(pv), r->v.c.p_value));
		td(fp, r->v.verdict == TY_VERDICT_SAME ? "l" : v, v);
		fputs("</tr>\n", fp);
	}
	for (i = 0; i < c->ngeo; i++) { /* as tachy compare prints them */
		const struct ty_cmp_geomean *g = &c->geo[i];
		fputs("<tr>", fp);
		td(fp, "n", "geomean");
		td(fp, "n", c->nsets > 1 ? c->sets[g->set].new->path : "");
		td(fp, "l", g->figure);
		td(fp, NULL, figure_text_value(o, sizeof(o), g->old, g->old, g->unit));
		td(fp, NULL, figure_text_value(n, sizeof(n), g->new, g->old, g->unit));
		td(fp, NULL, figure_text_pct(ch, sizeof(ch), g->rel));
		td(fp, NULL, "");
		td(fp, "l", "");
		fputs("</tr>\n", fp);
	}
	fputs("</table>\n", fp);
	for (i = 0; i < c->nsets; i++) {
		size_t j;
		for (j = 0; j < c->sets[i].nenv_diffs; j++) {
			fputs("<p class=\"note\">environments differ: ", fp);
			ty_svg_escape(fp, c->sets[i].env_diffs[j]);
			fputs("</p>\n", fp);
		}
		for (j = 0; j < c->sets[i].nunmatched; j++) {
			fputs("<p class=\"note\">", fp);
			ty_svg_escape(fp, c->sets[i].unmatched[j]);
			fputs("</p>\n", fp);
		}
	}
	for (i = 0; i < c->nnotes; i++) {
		fprintf(fp, "<p class=\"note\">[%zu] ", i + 1);
		ty_svg_escape(fp, c->notes[i]);
		fputs("</p>\n", fp);
	}
}

static void
html_file_notes(FILE *fp, const struct plot *p)
{
	size_t i, j;

	for (i = 0; i < p->nfiles; i++)
		for (j = 0; j < p->files[i].nnotes; j++) {
			fputs("<p class=\"note\">", fp);
			ty_svg_escape(fp, p->files[i].path);
			fputs(": ", fp);
			ty_svg_escape(fp, p->files[i].notes[j]);
			fputs("</p>\n", fp);
		}
}

static int
write_html(FILE *fp, const struct plot *p)
{
	char title[1024];
	size_t i, j;
	int rc;

	page_title(p, title, sizeof(title));
	fputs(html_head, fp);
	fputs("<title>", fp);
	ty_svg_escape(fp, title);
	fputs("</title>\n</head>\n<body>\n<h1>", fp);
	ty_svg_escape(fp, title);
	fputs("</h1>\n", fp);
	if ((rc = bench_table(fp, p)))
		return rc;
	if (p->cmp)
		change_table(fp, p->cmp); /* its notes include the files' */
	else
		html_file_notes(fp, p);
	fputs("<h2>Pictures</h2>\n", fp);
	for (i = 0; i < p->nfiles; i++) {
		for (j = 0; j < p->files[i].nbenches; j++) {
			ty_svg_begin(fp, WIDTH, ROW_H);
			if ((rc = bench_panel(fp, 16, p, i, &p->files[i].benches[j])))
				return rc;
			ty_svg_end(fp);
		}
	}
	if (p->cmp) {
		ty_svg_begin(fp, WIDTH, change_height(p->cmp));
		if ((rc = change_panel(fp, 10, p)))
			return rc;
		ty_svg_end(fp);
	}
	fputs("</body>\n</html>\n", fp);
	return 0;
}

/* ---- options and main ---- */

static int
parse_options(int argc, char **argv, struct options *o, struct cli_args *args)
{
	static const char *const formats[] = {"svg", "html", NULL};
	int format = -1, rc;
	struct cli_option options[] = {
	    OPT_STRING('o', "output", &o->output, "FILE",
		       "where to write (required); .svg or .html by name"),
	    OPT_CHOICE(0, "format", &format, "FORMAT", formats,
		       "svg or html (default: from the name of the output)"),
	    OPT_STRING(0, "title", &o->title, "TEXT", "the title of the page"),
	    OPT_TEST_ALL('t', &o->cmp.test, "mann-whitney (default), yuen, welch, or student"),
	    OPT_CALLBACK('c', "confidence", &o->cmp.confidence, "P",
			 "confidence level in percent (default 95)", compare_input_opt_confidence),
	    OPT_CALLBACK('m', "match", &o->cmp.match, "RULE",
			 "pair benchmarks across files, as in tachy compare",
			 compare_input_opt_match),
	    OPT_STRING('r', "reference", &o->cmp.reference, "NAME",
		       "with one FILE: compare against NAME"),
	    OPT_STRING('F', "figures", &o->cmp.figures, "LIST",
		       "figures in the change plot (as in tachy compare)"),
	    OPT_HELP('h', "help", "show this help"),
	    OPT_END(),
	};
	const struct cli_parser parser = {usage, options, NULL, 0, 26};

	rc = cli_parse(&parser, argc, argv, args);
	if (format >= 0)
		o->format = format == 0 ? FMT_SVG : FMT_HTML;
	return rc;
}

static int
pick_format(struct options *o)
{
	const char *dot;

	if (!o->output)
		return cli_usage_error("no output: give -o OUT.svg or -o OUT.html");
	if (o->format != FMT_NONE)
		return 0;
	dot = strrchr(o->output, '.');
	if (dot && strcasecmp(dot, ".svg") == 0)
		o->format = FMT_SVG;
	else if (dot && (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0))
		o->format = FMT_HTML;
	else
		return cli_usage_error("cannot tell the format of '%s' by its name: use --format "
				       "svg or --format html",
				       o->output);
	return 0;
}

static int
draw(const struct plot *p)
{
	struct ty_outfile of;
	struct ty_error e = {0};
	int rc;

	if (ty_outfile_open(&of, p->o->output, &e))
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	rc = p->o->format == FMT_SVG ? write_svg(of.fp, p) : write_html(of.fp, p);
	if (rc) {
		ty_outfile_abort(&of);
		return cli_error(EXIT_RUNTIME, "cannot draw: %s", strerror(-rc));
	}
	if (ty_outfile_commit(&of, &e))
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	return 0;
}

int
cmd_plot(int argc, char **argv)
{
	struct options o = {.cmp = {.test = TY_TEST_DEFAULT, .confidence = 95}};
	struct ty_results_saved *files = NULL;
	struct ty_cmp_table c;
	struct ty_error e = {0};
	struct plot p = {.o = &o};
	struct cli_args args;
	int n = 0, i, rc, have_cmp = 0;

	if ((rc = parse_options(argc, argv, &o, &args)) || (rc = pick_format(&o)))
		goto out;
	n = args.n;
	if (n < 1) {
		rc = cli_usage_error("expected one or more results files");
		goto out;
	}
	if (!(files = calloc((size_t)n, sizeof(*files)))) {
		rc = cli_error(EXIT_RUNTIME, "out of memory");
		goto out;
	}
	if ((rc = compare_input_read(files, args.v, n))) {
		n = 0;
		goto out;
	}
	p.files = files;
	p.nfiles = (size_t)n;
	if (n > 1 || files[0].nbenches > 1) {
		if ((rc = ty_comparison_build(&c, files, (size_t)n, &o.cmp, &e))) {
			rc = cli_error(rc == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", e.msg);
			goto out;
		}
		have_cmp = 1;
		p.cmp = &c;
	}
	rc = draw(&p);
	if (have_cmp)
		ty_comparison_release(&c);
out:
	for (i = 0; i < n; i++)
		ty_results_saved_release(&files[i]);
	free(files);
	free(o.cmp.match.pairs);
	return rc == CLI_HELP_SHOWN ? cli_finish_stdout(EXIT_OK) : rc;
}

const struct cmd_info cmd_info_plot = {"plot", 40, "draw saved results as SVG or HTML", cmd_plot};
