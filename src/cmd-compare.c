/* cmd-compare.c - tachy compare: saved results side by side, with verdicts. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare-input.h"
#include "figure-text.h"
#include "gate.h"
#include "run-profile.h"
#include "tachy/array.h"
#include "tachy/comparison.h"
#include "tachy/jsonw.h"
#include "tachy/markdown.h"
#include "tachy/outfile.h"
#include "tachy/results-export.h"
#include "tachy/results-read.h"
#include "tachy/results.h"
#include "term.h"

int cmd_compare(int argc, char **argv);

static const char usage[] =
    "usage: tachy compare [options] OLD.json NEW.json [NEW2.json ...]\n"
    "       tachy compare [options] FILE.json\n"
    "\n"
    "Compare saved results (tachy's or hyperfine's --export-json files): every\n"
    "benchmark of each NEW file against the one of the same name in OLD, or, with\n"
    "one FILE, every benchmark against its reference. A row per benchmark and\n"
    "figure (wall time, user and system time, each counter both sides have): the\n"
    "old and new centre with its interval, the change with its interval, the\n"
    "p-value and the verdict; '~' where no difference is proven. A file named\n"
    "'-' is read from standard input (one at most).\n"
    "\n";

static const char footer[] = "\n"
			     "Warns on stderr (and in JSON) when the sides are not comparable:\n"
			     "another machine or kernel, or clearly different load (the load\n"
			     "average recorded, runs that waited for a CPU); verdicts unchanged.\n"
			     "\n"
			     "Exit status: 0 ok, 1 runtime failure, 2 usage or bad input,\n"
			     "3 a proven regression beyond --fail-if-slower (on the figure\n"
			     "--gate-on names, the wall time by default).\n";

enum format { FMT_TEXT, FMT_CSV, FMT_MARKDOWN, FMT_JSON };

struct options {
	struct ty_cmp_options cmp;
	int format; /* enum format */
	const char *output;
	struct gate gate;		    /* --fail-if-slower P, --gate-on METRIC */
	enum ty_match_mode match_functions; /* --match-functions */
};

/* ---- cells ---- */

/* S as it may reach a terminal (term_shown), newly allocated; NULL: no memory. */
static char *
shown_copy(const char *s)
{
	char *t = term_shown(s);

	return t ? t : strdup(s);
}

static char *
notes_cell(char *buf, size_t size, const struct ty_cmp_row *r)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < 4 && r->notes[i] && len + 8 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%zu", i ? "," : "", r->notes[i]);
	return buf;
}

/* ---- the text and markdown tables ---- */

#define NCOL 7
struct table {
	char *(*cells)[NCOL];
	size_t n, cap;
};

static int
table_add(struct table *t, const char *const *cols)
{
	size_t i;

	if (ty_array_grow(&t->cells, sizeof(*t->cells), t->n + 1, &t->cap) < 0)
		return -ENOMEM;
	for (i = 0; i < NCOL; i++)
		if (!(t->cells[t->n][i] = shown_copy(cols[i] ? cols[i] : "")))
			return -ENOMEM;
	t->n++;
	return 0;
}

static void
table_free(struct table *t)
{
	size_t i, j;

	for (i = 0; i < t->n; i++)
		for (j = 0; j < NCOL; j++)
			free(t->cells[i][j]);
	free(t->cells);
}

static void
table_print(FILE *fp, const struct table *t, int markdown)
{
	size_t w[NCOL] = {0}, i, j, k;

	for (i = 0; i < t->n; i++)
		for (j = 0; j < NCOL; j++)
			if (figure_text_width(t->cells[i][j]) > w[j])
				w[j] = figure_text_width(t->cells[i][j]);
	for (i = 0; i < t->n; i++) {
		size_t last = NCOL;
		while (!markdown && last > 1 && !t->cells[i][last - 1][0])
			last--;
		for (j = 0; j < last; j++) {
			if (markdown) {
				fputs(j ? " | " : "| ", fp);
				ty_markdown_escape(fp, t->cells[i][j]);
				continue;
			}
			fputs(t->cells[i][j], fp);
			if (j + 1 < last)
				for (k = figure_text_width(t->cells[i][j]); k < w[j] + 2; k++)
					fputc(' ', fp);
		}
		fputs(markdown ? " |\n" : "\n", fp);
		if (markdown && i == 0)
			fputs("|---|---|--:|--:|--:|--:|---|\n", fp);
	}
}

/* The title of set SET's test: paired when its rows were. */
static const char *
set_title(const struct ty_cmp_table *c, size_t set, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].set == set && c->rows[i].v.pairs) {
			snprintf(buf, size,
				 "interleaved rounds paired: %s on the per-round log ratios",
				 ty_verdict_test_title(c->opt.test, 1));
			return buf;
		}
	return ty_verdict_test_title(c->opt.test, 0);
}

static int
set_table(struct table *t, const struct ty_cmp_table *c, size_t set)
{
	const struct ty_cmp_set *s = &c->sets[set];
	char o[96], n[96], ch[96], p[32], v[64], nt[32], oc[40], nc[40], *label = NULL;
	const char *cols[NCOL], *prev = NULL;
	size_t i;
	int rc;

	cols[0] = "benchmark";
	cols[1] = "figure";
	/* the centres are what is tested */
	snprintf(oc, sizeof(oc), "%s %s", s->old == s->new ? "reference" : "old",
		 ty_verdict_centre_name(c->opt.test));
	snprintf(nc, sizeof(nc), "new %s", ty_verdict_centre_name(c->opt.test));
	cols[2] = oc;
	cols[3] = nc;
	cols[4] = "change";
	cols[5] = "p-value";
	cols[6] = "verdict";
	if ((rc = table_add(t, cols)))
		return rc;
	for (i = 0; i < c->nrows; i++) {
		const struct ty_cmp_row *r = &c->rows[i];
		if (r->set != set)
			continue;
		free(label);
		label = NULL;
		if (s->old != s->new &&strcmp(r->old->label, r->new->label) != 0 &&
		    asprintf(&label, "%s %s %s", r->old->label, term_glyph("arrow"),
			     r->new->label) < 0)
			return -ENOMEM;
		cols[0] = prev && prev == r->new->label ? "" : label ? label : r->new->label;
		prev = r->new->label;
		cols[1] = r->figure;
		cols[2] =
		    figure_text_centre(o, sizeof(o), &r->v.old, figure_text_row_ref(r), r->unit);
		cols[3] =
		    figure_text_centre(n, sizeof(n), &r->v.new, figure_text_row_ref(r), r->unit);
		cols[4] = figure_text_change(ch, sizeof(ch), r);
		cols[5] = figure_text_p(p, sizeof(p), r->v.c.p_value);
		notes_cell(nt, sizeof(nt), r);
		snprintf(v, sizeof(v), "%s%s%s%s", figure_text_verdict(r), nt[0] ? " [" : "", nt,
			 nt[0] ? "]" : "");
		cols[6] = v;
		if ((rc = table_add(t, cols))) {
			free(label);
			return rc;
		}
	}
	free(label);
	for (i = 0; i < c->ngeo; i++) {
		const struct ty_cmp_geomean *g = &c->geo[i];
		if (g->set != set)
			continue;
		cols[0] = "geomean";
		cols[1] = g->figure;
		cols[2] = figure_text_value(o, sizeof(o), g->old, g->old, g->unit);
		cols[3] = figure_text_value(n, sizeof(n), g->new, g->old, g->unit);
		cols[4] = figure_text_pct(ch, sizeof(ch), g->rel);
		cols[5] = cols[6] = "";
		if ((rc = table_add(t, cols)))
			return rc;
	}
	return 0;
}

/* A line of text around the table: what could drive a terminal shown
 * (term_shown), and in
 * markdown escaped after MD ("**" for bold, closed at the end; "- " an item). */
static void line(FILE *fp, int markdown, const char *md, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
line(FILE *fp, int markdown, const char *md, const char *fmt, ...)
{
	va_list ap;
	char *s, *t;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return;
	if ((t = term_shown(s))) {
		free(s);
		s = t;
	}
	if (markdown) {
		fputs(md, fp);
		ty_markdown_escape(fp, s);
		fputs(strcmp(md, "**") == 0 ? "**\n" : "\n", fp);
	} else {
		fprintf(fp, "%s\n", s);
	}
	free(s);
}

static const char *
ref_name(const struct ty_cmp_table *c, size_t set)
{
	size_t i;

	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].set == set)
			return c->rows[i].old->label;
	return "?";
}

static int
print_tables(FILE *fp, const struct ty_cmp_table *c, int markdown)
{
	struct table t = {0};
	char title[128];
	size_t i, j;
	int rc = 0;

	for (i = 0; !rc && i < c->nsets; i++) {
		const struct ty_cmp_set *s = &c->sets[i];
		if (i)
			fputc('\n', fp);
		if (s->old == s->new)
			line(fp, markdown, "**",
			     "%s: against its reference '%s' (%s, %g%% confidence)", s->old->path,
			     ref_name(c, i), set_title(c, i, title, sizeof(title)),
			     c->opt.confidence);
		else
			line(fp, markdown, "**", "old: %s  new: %s (%s, %g%% confidence)",
			     s->old->path, s->new->path, set_title(c, i, title, sizeof(title)),
			     c->opt.confidence);
		if (markdown)
			fputc('\n', fp);
		t.n = 0;
		if ((rc = set_table(&t, c, i)))
			break;
		table_print(fp, &t, markdown);
		for (j = 0; j < t.n; j++) {
			size_t k;
			for (k = 0; k < NCOL; k++)
				free(t.cells[j][k]);
		}
		t.n = 0;
		if (s->nenv_diffs || s->nunmatched)
			fputc('\n', fp);
		for (j = 0; j < s->nenv_diffs; j++)
			line(fp, markdown, "- ", "environments differ: %s", s->env_diffs[j]);
		for (j = 0; j < s->nunmatched; j++)
			line(fp, markdown, "- ", "%s", s->unmatched[j]);
	}
	table_free(&t);
	if (c->nnotes)
		fputc('\n', fp);
	for (i = 0; i < c->nnotes; i++)
		line(fp, markdown, "- ", "[%zu] %s", i + 1, c->notes[i]);
	return rc;
}

/* ---- CSV ---- */

static void
csv_num(FILE *fp, double v)
{
	if (isfinite(v))
		fprintf(fp, ",%.10g", v);
	else
		fputc(',', fp);
}

static void
print_csv(FILE *fp, const struct ty_cmp_table *c)
{
	size_t i, j;

	fputs("old_file,new_file,old_benchmark,benchmark,figure,unit,old_n,old_centre,old_low,"
	      "old_high,new_n,new_centre,new_low,new_high,change_pct,change_low_pct,"
	      "change_high_pct,ratio,ratio_low,ratio_high,p_value,verdict,notes\n",
	      fp);
	for (i = 0; i < c->nrows; i++) {
		const struct ty_cmp_row *r = &c->rows[i];
		const struct ty_cmp_set *s = &c->sets[r->set];
		const char *cols[] = {s->old->path, s->new->path, r->old->name,
				      r->new->name, r->figure,	  r->unit};
		for (j = 0; j < 6; j++) {
			if (j)
				fputc(',', fp);
			ty_results_csv_field(fp, cols[j]);
		}
		fprintf(fp, ",%zu", r->v.old.n);
		csv_num(fp, r->v.old.centre);
		csv_num(fp, r->v.old.exact_ci ? r->v.old.lo : NAN);
		csv_num(fp, r->v.old.exact_ci ? r->v.old.hi : NAN);
		fprintf(fp, ",%zu", r->v.new.n);
		csv_num(fp, r->v.new.centre);
		csv_num(fp, r->v.new.exact_ci ? r->v.new.lo : NAN);
		csv_num(fp, r->v.new.exact_ci ? r->v.new.hi : NAN);
		csv_num(fp, r->v.c.rel);
		csv_num(fp, r->v.c.rel_lo);
		csv_num(fp, r->v.c.rel_hi);
		csv_num(fp, r->v.c.ratio);
		csv_num(fp, r->v.c.ratio_lo);
		csv_num(fp, r->v.c.ratio_hi);
		csv_num(fp, r->v.c.p_value);
		fprintf(fp, ",%s,", ty_verdict_word_key(r->v.verdict));
		for (j = 0; j < 4 && r->notes[j]; j++)
			fprintf(fp, "%s%zu", j ? ";" : "", r->notes[j]);
		fputc('\n', fp);
	}
}

/* ---- JSON ---- */

static void
json_row(struct ty_jsonw *w, const struct ty_cmp_table *c, const struct ty_cmp_row *r)
{
	size_t j;

	ty_jsonw_object_begin(w);
	ty_jsonw_kuint(w, "set", r->set);
	ty_jsonw_kstring(w, "old_benchmark", r->old->name);
	ty_jsonw_kstring(w, "benchmark", r->new->name);
	ty_jsonw_kstring(w, "figure", r->figure);
	ty_jsonw_kstring(w, "unit", r->unit);
	compare_input_json_centre(w, "old", &r->v.old);
	compare_input_json_centre(w, "new", &r->v.new);
	ty_jsonw_kdouble(w, "change_pct", r->v.c.rel);
	ty_jsonw_kdouble(w, "change_low_pct", r->v.c.rel_lo);
	ty_jsonw_kdouble(w, "change_high_pct", r->v.c.rel_hi);
	ty_jsonw_kdouble(w, "ratio", r->v.c.ratio);
	ty_jsonw_kdouble(w, "ratio_low", r->v.c.ratio_lo);
	ty_jsonw_kdouble(w, "ratio_high", r->v.c.ratio_hi);
	ty_jsonw_kdouble(w, "p_value", r->v.c.p_value);
	ty_jsonw_kstring(w, "verdict", ty_verdict_word_key(r->v.verdict));
	ty_jsonw_kbool(w, "too_few_runs", r->v.too_few);
	if (r->v.interval != TY_INTERVAL_OK) /* the bounds above are not to be read */
		ty_jsonw_kstring(w, "interval_unavailable", ty_verdict_interval_why(r->v.interval));
	ty_jsonw_kuint(w, "paired_rounds", r->v.pairs);
	ty_jsonw_kuint(w, "old_left_out", r->skip_old);
	ty_jsonw_kuint(w, "new_left_out", r->skip_new);
	run_profile_compare_json(w, c, r);
	ty_jsonw_key(w, "notes");
	ty_jsonw_array_begin(w);
	for (j = 0; j < 4 && r->notes[j]; j++)
		ty_jsonw_string(w, c->notes[r->notes[j] - 1]);
	ty_jsonw_array_end(w);
	ty_jsonw_object_end(w);
}

/* Whether the sides of each set are comparable (comparable.c): judged
 * once, warned on stderr, kept for the JSON. */
struct findings {
	struct ty_comparable_finding f[COMPARE_INPUT_FINDINGS];
	size_t n;
};

static struct findings *
judge_sets(const struct ty_cmp_table *c)
{
	struct findings *fs = calloc(c->nsets ? c->nsets : 1, sizeof(*fs));

	for (size_t i = 0; fs && i < c->nsets; i++) {
		const struct ty_cmp_set *s = &c->sets[i];
		if (s->old != s->new) /* one file: one run, one machine */
			fs[i].n = compare_input_comparable(s->old, 1, s->old->path, s->new, 1,
							   s->new->path, fs[i].f);
	}
	return fs;
}

static void
json_sets(struct ty_jsonw *w, const struct ty_cmp_table *c, const struct findings *fs)
{
	size_t i, j;

	ty_jsonw_key(w, "sets");
	ty_jsonw_array_begin(w);
	for (i = 0; i < c->nsets; i++) {
		const struct ty_cmp_set *s = &c->sets[i];
		ty_jsonw_object_begin(w);
		ty_jsonw_kstring(w, "old", s->old->path);
		ty_jsonw_kstring(w, "new", s->new->path);
		ty_jsonw_key(w, "environment_differences");
		ty_jsonw_array_begin(w);
		for (j = 0; j < s->nenv_diffs; j++)
			ty_jsonw_string(w, s->env_diffs[j]);
		ty_jsonw_array_end(w);
		ty_jsonw_key(w, "unmatched");
		ty_jsonw_array_begin(w);
		for (j = 0; j < s->nunmatched; j++)
			ty_jsonw_string(w, s->unmatched[j]);
		ty_jsonw_array_end(w);
		compare_input_json_findings(w, fs ? fs[i].f : NULL, fs ? fs[i].n : 0);
		ty_jsonw_object_end(w);
	}
	ty_jsonw_array_end(w);
}

static void
print_json(FILE *fp, const struct ty_cmp_table *c, const struct findings *fs)
{
	struct ty_jsonw w;
	size_t i;

	ty_jsonw_init(&w, fp, 1);
	ty_jsonw_object_begin(&w);
	ty_jsonw_kstring(&w, "test", ty_verdict_test_name(c->opt.test));
	ty_jsonw_kstring(&w, "centre", ty_verdict_centre_name(c->opt.test));
	ty_jsonw_kdouble(&w, "confidence", c->opt.confidence);
	json_sets(&w, c, fs);
	ty_jsonw_key(&w, "rows");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < c->nrows; i++)
		json_row(&w, c, &c->rows[i]);
	ty_jsonw_array_end(&w);
	ty_jsonw_key(&w, "geomeans");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < c->ngeo; i++) {
		ty_jsonw_object_begin(&w);
		ty_jsonw_kuint(&w, "set", c->geo[i].set);
		ty_jsonw_kstring(&w, "figure", c->geo[i].figure);
		ty_jsonw_kstring(&w, "unit", c->geo[i].unit);
		ty_jsonw_kuint(&w, "benchmarks", c->geo[i].n);
		ty_jsonw_kdouble(&w, "old", c->geo[i].old);
		ty_jsonw_kdouble(&w, "new", c->geo[i].new);
		ty_jsonw_kdouble(&w, "change_pct", c->geo[i].rel);
		ty_jsonw_object_end(&w);
	}
	ty_jsonw_array_end(&w);
	ty_jsonw_key(&w, "notes"); /* every footnote, the files' first */
	ty_jsonw_array_begin(&w);
	for (i = 0; i < c->nnotes; i++)
		ty_jsonw_string(&w, c->notes[i]);
	ty_jsonw_array_end(&w);
	ty_jsonw_object_end(&w);
	fputc('\n', fp);
}

/* ---- the gate ---- */

static void
gate_say(void *ctx, const struct ty_cmp_row *r, enum ty_gate g, const char *m)
{
	const struct ty_cmp_table *c = ctx;

	if (g != TY_GATE_TRIP && g != TY_GATE_UNPROVEN)
		return;
	cli_error(0, "'%s' against '%s' in %s: %s%s", term_safe(r->new->label),
		  term_safe(r->old->label), term_safe(c->sets[r->set].old->path), m,
		  g == TY_GATE_TRIP ? "" : " (the gate passes)");
}

/* The CPU figure where it proves what the wall time does not (the default
 * text report): a line a benchmark. */
static void
print_cpu_lines(FILE *fp, const struct ty_results_saved *files, size_t n, const struct options *o,
		const struct ty_cmp_table *c)
{
	struct ty_cmp_table cpu;
	const struct ty_cmp_row *r;
	char buf[512];
	size_t i;
	int first = 1;

	if (o->cmp.figures || gate_cpu_table(&cpu, files, n, &o->cmp) < 0)
		return;
	for (i = 0; i < c->nrows; i++) {
		if (strcmp(c->rows[i].figure, "wall") != 0 ||
		    !(r = gate_cpu_row(&cpu, c->rows[i].old, c->rows[i].new)))
			continue;
		if (first)
			fputc('\n', fp);
		first = 0;
		line(fp, 0, "", "%s: %s", r->new->label, gate_cpu_text(buf, sizeof(buf), r));
	}
	ty_comparison_release(&cpu);
}

/* ---- options ---- */

static int
parse_options(int argc, char **argv, struct options *o, struct cli_args *args)
{
	static const char *const formats[] = {"text", "csv", "markdown", "json", NULL};
	struct cli_option options[] = {
	    OPT_TEST_ALL('t', &o->cmp.test,
			 "mann-whitney (default, on medians), yuen (on 20%\n"
			 "trimmed means), welch or student (on means)"),
	    OPT_FLAG(0, "no-pairing", &o->cmp.no_pairing,
		     "never pair rounds (else the benchmarks of one\n"
		     "interleaved run pair their runs by round)"),
	    OPT_FLAG(0, "keep-warmup", &o->cmp.keep_warmup,
		     "keep the runs of a warm-up (else left out)"),
	    OPT_CALLBACK('c', "confidence", &o->cmp.confidence, "P",
			 "confidence level in percent (default 95)", compare_input_opt_confidence),
	    OPT_CALLBACK('m', "match", &o->cmp.match, "RULE",
			 "pair benchmarks: OLD=NEW pairs two names; /REGEX/\n"
			 "pairs names whose matches (first group) are equal;\n"
			 "repeatable; unpaired names then pair by name",
			 compare_input_opt_match),
	    OPT_CALLBACK(0, "match-functions", &o->match_functions, "MODE",
			 "how the per-run profiles' functions are matched:\n"
			 "dso,sym (default), sym or path,sym",
			 run_profile_opt_match),
	    OPT_STRING('r', "reference", &o->cmp.reference, "NAME",
		       "with one FILE: compare against NAME"),
	    OPT_STRING('F', "figures", &o->cmp.figures, "LIST",
		       "figures to compare: names separated by commas, or\n"
		       "'all' (adds maxrss, minflt, majflt, nvcsw, nivcsw)"),
	    OPT_CHOICE('f', "format", &o->format, "FORMAT", formats,
		       "text (default), csv, markdown, or json"),
	    OPT_STRING('o', "output", &o->output, "FILE",
		       "write the table to FILE (default: standard output)"),
	    OPT_DOUBLE(0, "fail-if-slower", &o->gate.limit, "P", 0, 1e9,
		       "exit 3 when a benchmark's wall time (or --gate-on's\n"
		       "figure) is proven slower by more than P percent\n"
		       "(the interval's bound)"),
	    OPT_DOUBLE(0, "fail-if-faster", &o->gate.faster, "P", 0, 1e9,
		       "exit 3 when it is proven faster by more than P\n"
		       "percent (an improvement to record)"),
	    OPT_CALLBACK(0, "gate-on", &o->gate.metric, "METRIC",
			 "the figure --fail-if-slower/-faster gates:\n"
			 "wall (default), cpu (user+system), user, system,\n"
			 "task-clock or a counter (instructions, cycles...)",
			 gate_opt_metric),
	    OPT_HELP('h', "help", "show this help"),
	    OPT_END(),
	};
	const struct cli_parser parser = {usage, options, footer, 0, 26};

	return cli_parse(&parser, argc, argv, args);
}

static int
emit(const struct ty_cmp_table *c, const struct options *o, const struct ty_results_saved *files,
     size_t n, const struct findings *fs)
{
	struct ty_outfile of;
	struct ty_error e = {0};

	if (ty_outfile_open(&of, o->output, &e))
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	switch (o->format) {
	case FMT_TEXT:
		print_tables(of.fp, c, 0);
		print_cpu_lines(of.fp, files, n, o, c);
		run_profile_compare_text(of.fp, c);
		break;
	case FMT_MARKDOWN:
		print_tables(of.fp, c, 1);
		break;
	case FMT_CSV:
		print_csv(of.fp, c);
		break;
	case FMT_JSON:
		print_json(of.fp, c, fs);
		break;
	}
	if (ty_outfile_commit(&of, &e))
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	return 0;
}

int
cmd_compare(int argc, char **argv)
{
	struct options o = {.cmp = {.test = TY_TEST_DEFAULT, .confidence = 95},
			    .output = "-",
			    .gate = {NULL, NAN, NAN}};
	struct ty_results_saved *files = NULL;
	struct ty_cmp_table c, g;
	struct ty_error e = {0};
	struct cli_args args;
	int n, i, rc, gated = 0;

	if ((rc = parse_options(argc, argv, &o, &args)))
		goto out;
	o.cmp.match_functions = (int)o.match_functions;
	n = args.n;
	if (n < 1) {
		rc = cli_usage_error("expected one or more results files");
		goto out;
	}
	if (o.gate.metric && !gate_set(&o.gate)) {
		rc = cli_usage_error("--gate-on %s: it names the figure of --fail-if-slower P, "
				     "which is not given",
				     o.gate.metric);
		goto out;
	}
	if (o.cmp.reference && n > 1) {
		rc = cli_usage_error("--reference needs a single results file");
		goto out;
	}
	if (!(files = calloc((size_t)n, sizeof(*files)))) {
		rc = cli_error(EXIT_RUNTIME, "out of memory");
		goto out;
	}
	if ((rc = compare_input_read(files, args.v, n)))
		goto out;
	/* the gate's figure checked before anything is shown */
	if (gate_set(&o.gate))
		gated = !(rc = gate_table(&g, files, (size_t)n, &o.cmp, &o.gate));
	if (rc)
		; /* said */
	else if ((rc = ty_comparison_build(&c, files, (size_t)n, &o.cmp, &e))) {
		rc = cli_error(rc == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", e.msg);
	} else {
		struct findings *fs = judge_sets(&c);
		rc = emit(&c, &o, files, (size_t)n, fs);
		if (!rc && gated && gate_judge(&g, &o.gate, gate_say, &g) == TY_GATE_TRIP)
			rc = EXIT_REGRESSION;
		free(fs);
		ty_comparison_release(&c);
	}
	if (gated)
		ty_comparison_release(&g);
	for (i = 0; i < n; i++)
		ty_results_saved_release(&files[i]);
out:
	free(files);
	free(o.cmp.match.pairs);
	return rc == CLI_HELP_SHOWN ? cli_finish_stdout(EXIT_OK) : rc;
}

const struct cmd_info cmd_info_compare = {
    "compare", 30, "compare saved results; gate CI on regressions", cmd_compare};
