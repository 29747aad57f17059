/* history-compare.c - tachy history compare (history-compare.h): the
 * results stored at two commits, each read back as an export would be
 * (ty_history_saved_at), compared by comparison.c as tachy compare
 * compares two files (unpaired: two commits are two runs), and the
 * "where it changed" section of run-profile.c under the table. */
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
#include "history-store.h"
#include "run-profile.h"
#include "tachy/comparison.h"
#include "tachy/history.h"
#include "tachy/jsonw.h"
#include "tachy/outfile.h"
#include "tachy/results-saved.h"
#include "term.h"

/* One side: the commit as named, its id in the store, the machines there. */
struct side {
	const char *named;
	char *rev;
	char **machines;
	const char *machine; /* the one compared */
};

static void
side_release(struct side *s)
{
	for (size_t i = 0; s->machines && s->machines[i]; i++)
		free(s->machines[i]);
	free(s->machines);
	free(s->rev);
}

/* S->named as the store knows it: the commit git names by it, else the
 * name itself (a commit stored with --commit, or the start of one). */
static int
find(struct ty_history *h, struct side *s)
{
	struct ty_history_git g;
	struct ty_error e = {0};
	int rc = -ENOENT;

	if (ty_history_git_describe(NULL, s->named, &g) == 0)
		rc = ty_history_commit_find(h, g.rev, &s->rev, &s->machines, &e);
	if (rc == -ENOENT)
		rc = ty_history_commit_find(h, s->named, &s->rev, &s->machines, &e);
	if (rc < 0)
		return cli_error(history_store_status(rc == -ENOENT ? -EINVAL : rc), "%s", e.msg);
	return 0;
}

static int
has(char **v, const char *m)
{
	for (; v && *v; v++)
		if (strcmp(*v, m) == 0)
			return 1;
	return 0;
}

static void
list(char *buf, size_t size, char **v)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; v && v[i] && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s'%s'", i ? ", " : "",
					term_safe(v[i]));
}

/* The machine of each side: --machine, else the one machine both have
 * results on, else each side's only one. */
static int
machines(const char *want, struct side *a, struct side *b)
{
	char la[512], lb[512];
	const char *common = NULL;
	size_t i, ncommon = 0;

	if (want) {
		if (!has(a->machines, want) || !has(b->machines, want)) {
			struct side *s = has(a->machines, want) ? b : a;
			list(la, sizeof(la), s->machines);
			return cli_error(EXIT_USAGE,
					 "no results of %.12s on machine '%s' (it has %s)",
					 term_safe(s->rev), term_safe(want), la);
		}
		a->machine = b->machine = want;
		return 0;
	}
	for (i = 0; a->machines[i]; i++)
		if (has(b->machines, a->machines[i]) && !ncommon++)
			common = a->machines[i];
	if (ncommon == 1) {
		a->machine = b->machine = common;
		return 0;
	}
	if (!ncommon && !a->machines[1] && !b->machines[1]) {
		a->machine = a->machines[0];
		b->machine = b->machines[0];
		return 0;
	}
	list(la, sizeof(la), a->machines);
	list(lb, sizeof(lb), b->machines);
	return cli_error(EXIT_USAGE,
			 "results on several machines (%.12s: %s; %.12s: %s): choose one with "
			 "--machine",
			 term_safe(a->rev), la, term_safe(b->rev), lb);
}

/* Whether benchmark B of F carries per-run profiles. */
static int
has_profile(const struct ty_results_saved *f, const struct ty_results_saved_bench *b)
{
	size_t k = (size_t)(b - f->benches);

	return f->profile && k < f->profile->ncmds && f->profile->cmds[k].nruns;
}

/* ---- text ---- */

static void
print_text(FILE *fp, const struct ty_cmp_table *c, const struct side *a, const struct side *b)
{
	static const char *const head[6] = {"benchmark", NULL,	    NULL,
					    "change",	 "p-value", "verdict"};
	char cells[6][96], oc[40], nc[40];
	size_t w[6] = {0}, i, k, row;

	if (strcmp(a->machine, b->machine) == 0)
		fprintf(fp, "old: %.12s  new: %.12s  on %s (%s, %g%% confidence, unpaired)\n",
			term_safe(a->rev), term_safe(b->rev), term_safe(a->machine),
			ty_verdict_test_title(c->opt.test, 0), c->opt.confidence);
	else
		fprintf(fp, "old: %.12s on %s  new: %.12s on %s (%s, %g%% confidence, unpaired)\n",
			term_safe(a->rev), term_safe(a->machine), term_safe(b->rev),
			term_safe(b->machine), ty_verdict_test_title(c->opt.test, 0),
			c->opt.confidence);
	snprintf(oc, sizeof(oc), "old %s", ty_verdict_centre_name(c->opt.test));
	snprintf(nc, sizeof(nc), "new %s", ty_verdict_centre_name(c->opt.test));
	/* two passes: the widths, then the rows */
	for (k = 0; k < 2; k++)
		for (row = 0; row <= c->nrows + c->ngeo; row++) {
			const struct ty_cmp_row *r =
			    row && row <= c->nrows ? &c->rows[row - 1] : NULL;
			if (row > c->nrows) {
				const struct ty_cmp_geomean *g = &c->geo[row - c->nrows - 1];
				snprintf(cells[0], sizeof(cells[0]), "geomean%s%s%s",
					 strcmp(g->figure, "wall") ? " [" : "",
					 strcmp(g->figure, "wall") ? g->figure : "",
					 strcmp(g->figure, "wall") ? "]" : "");
				figure_text_value(cells[1], sizeof(cells[1]), g->old, g->old,
						  g->unit);
				figure_text_value(cells[2], sizeof(cells[2]), g->new, g->old,
						  g->unit);
				figure_text_pct(cells[3], sizeof(cells[3]), g->rel);
				cells[4][0] = cells[5][0] = '\0';
			} else if (!r) {
				for (i = 0; i < 6; i++)
					snprintf(cells[i], sizeof(cells[i]), "%s",
						 i == 1	  ? oc
						 : i == 2 ? nc
							  : head[i]);
			} else {
				/* the gate's figure beside the wall time: named */
				snprintf(cells[0], sizeof(cells[0]), "%s%s%s%s",
					 term_safe(r->new->label),
					 strcmp(r->figure, "wall") ? " [" : "",
					 strcmp(r->figure, "wall") ? term_safe(r->figure) : "",
					 strcmp(r->figure, "wall") ? "]" : "");
				figure_text_centre(cells[1], sizeof(cells[1]), &r->v.old,
						   figure_text_row_ref(r), r->unit);
				figure_text_centre(cells[2], sizeof(cells[2]), &r->v.new,
						   figure_text_row_ref(r), r->unit);
				figure_text_change(cells[3], sizeof(cells[3]), r);
				figure_text_p(cells[4], sizeof(cells[4]), r->v.c.p_value);
				snprintf(cells[5], sizeof(cells[5]), "%s", figure_text_verdict(r));
				for (i = 0; i < 4 && r->notes[i]; i++)
					snprintf(cells[5] + strlen(cells[5]),
						 sizeof(cells[5]) - strlen(cells[5]), "%s%zu%s",
						 i ? "," : " [", r->notes[i],
						 i + 1 < 4 && r->notes[i + 1] ? "" : "]");
			}
			for (i = 0; i < 6; i++) {
				size_t cw = figure_text_width(cells[i]);
				if (!k) {
					w[i] = cw > w[i] ? cw : w[i];
					continue;
				}
				fputs(cells[i], fp);
				if (i < 5 && cells[i + 1][0])
					fprintf(fp, "%*s", (int)(w[i] + 2 - cw), "");
			}
			if (k)
				fputc('\n', fp);
		}
	for (i = 0; i < c->nsets; i++)
		for (k = 0; k < c->sets[i].nunmatched; k++)
			fprintf(fp, "%s%s\n", i || k ? "" : "\n",
				term_safe(c->sets[i].unmatched[k]));
	if (c->nnotes)
		fputc('\n', fp);
	for (i = 0; i < c->nnotes; i++)
		fprintf(fp, "[%zu] %s\n", i + 1, term_safe(c->notes[i]));
	run_profile_compare_text(fp, c);
	/* where the functions could not be compared: at the old commit, the new, both */
	for (k = 1; k < 4; k++) {
		size_t shown = 0;
		for (i = 0; i < c->nrows; i++) {
			const struct ty_cmp_row *r = &c->rows[i];
			const struct ty_cmp_set *set = &c->sets[r->set];
			size_t lack = (size_t)!has_profile(set->old, r->old) |
				      (size_t)!has_profile(set->new, r->new) << 1;
			if (lack != k || strcmp(r->figure, "wall") != 0)
				continue;
			fprintf(fp, "%s'%s'", shown++ ? ", " : "\nNo per-run profiles of ",
				term_safe(r->new->label));
		}
		if (!shown)
			continue;
		if (k == 3)
			fprintf(fp, " stored at %.12s or %.12s", term_safe(a->rev),
				term_safe(b->rev));
		else
			fprintf(fp, " stored at %.12s", term_safe(k == 1 ? a->rev : b->rev));
		fprintf(fp,
			": no functions to compare\n(tachy run --profile --history keeps them)\n");
	}
}

/* ---- whether the sides are comparable ---- */

struct findings {
	struct ty_comparable_finding f[COMPARE_INPUT_FINDINGS + 8];
	size_t n;
};

/* The load, machine and kernel of the two commits' results, and each
 * benchmark's baseline against the commits after it: warned on stderr,
 * kept for the JSON. They change no verdict. */
static void
judge(struct ty_history *h, const struct side *a, const struct side *b,
      const struct ty_results_saved *old, struct findings *fs)
{
	struct ty_results_saved facts[2];
	struct ty_error e = {0};
	char na[16], nb[16];

	snprintf(na, sizeof(na), "%.12s", a->rev);
	snprintf(nb, sizeof(nb), "%.12s", b->rev);
	if (ty_history_facts_at(h, a->rev, a->machine, &facts[0], &e) == 0) {
		if (ty_history_facts_at(h, b->rev, b->machine, &facts[1], &e) == 0) {
			fs->n = compare_input_comparable(&facts[0], 1, na, &facts[1], 1, nb, fs->f);
			ty_results_saved_release(&facts[1]);
		}
		ty_results_saved_release(&facts[0]);
	}
	if (strcmp(a->machine, b->machine) != 0)
		return;
	for (size_t i = 0; i < old->nbenches && fs->n < sizeof(fs->f) / sizeof(fs->f[0]); i++)
		if (ty_history_stale(h, old->benches[i].name, a->machine, a->rev, b->rev,
				     &fs->f[fs->n], &e) == 1)
			compare_input_warn_finding(&fs->f[fs->n++]);
}

/* ---- JSON ---- */

static void
json_side(struct ty_jsonw *w, const char *key, const struct side *s)
{
	ty_jsonw_key(w, key);
	ty_jsonw_object_begin(w);
	ty_jsonw_kstring(w, "commit", s->rev);
	ty_jsonw_kstring(w, "machine", s->machine);
	ty_jsonw_object_end(w);
}

static void
print_json(FILE *fp, const struct ty_cmp_table *c, const struct side *a, const struct side *b,
	   const struct findings *fs)
{
	struct ty_jsonw w;
	size_t i;

	ty_jsonw_init(&w, fp, 1);
	ty_jsonw_object_begin(&w);
	json_side(&w, "old", a);
	json_side(&w, "new", b);
	ty_jsonw_kstring(&w, "test", ty_verdict_test_name(c->opt.test));
	ty_jsonw_kstring(&w, "centre", ty_verdict_centre_name(c->opt.test));
	ty_jsonw_kdouble(&w, "confidence", c->opt.confidence);
	ty_jsonw_key(&w, "rows");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < c->nrows; i++) {
		const struct ty_cmp_row *r = &c->rows[i];
		ty_jsonw_object_begin(&w);
		ty_jsonw_kstring(&w, "benchmark", r->new->name);
		ty_jsonw_kstring(&w, "figure", r->figure);
		ty_jsonw_kstring(&w, "unit", r->unit);
		compare_input_json_centre(&w, "old", &r->v.old);
		compare_input_json_centre(&w, "new", &r->v.new);
		ty_jsonw_kdouble(&w, "change_pct", r->v.c.rel);
		ty_jsonw_kdouble(&w, "change_low_pct", r->v.c.rel_lo);
		ty_jsonw_kdouble(&w, "change_high_pct", r->v.c.rel_hi);
		ty_jsonw_kdouble(&w, "p_value", r->v.c.p_value);
		ty_jsonw_kstring(&w, "verdict", ty_verdict_word_key(r->v.verdict));
		ty_jsonw_kbool(&w, "too_few_runs", r->v.too_few);
		ty_jsonw_kuint(&w, "old_left_out", r->skip_old);
		ty_jsonw_kuint(&w, "new_left_out", r->skip_new);
		run_profile_compare_json(&w, c, r);
		ty_jsonw_object_end(&w);
	}
	ty_jsonw_array_end(&w);
	ty_jsonw_key(&w, "unmatched");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < c->nsets; i++)
		for (size_t k = 0; k < c->sets[i].nunmatched; k++)
			ty_jsonw_string(&w, c->sets[i].unmatched[k]);
	ty_jsonw_array_end(&w);
	ty_jsonw_key(&w, "notes");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < c->nnotes; i++)
		ty_jsonw_string(&w, c->notes[i]);
	ty_jsonw_array_end(&w);
	compare_input_json_findings(&w, fs->f, fs->n);
	ty_jsonw_object_end(&w);
	fputc('\n', fp);
}

/* ---- the gate ---- */

struct gate_ctx {
	const struct side *a, *b;
};

static void
gate_say(void *ctx, const struct ty_cmp_row *r, enum ty_gate g, const char *m)
{
	const struct gate_ctx *x = ctx;

	if (g != TY_GATE_TRIP && g != TY_GATE_UNPROVEN)
		return;
	cli_error(0, "'%s' at %.12s against %.12s: %s%s", term_safe(r->new->label),
		  term_safe(x->b->rev), term_safe(x->a->rev), m,
		  g == TY_GATE_TRIP ? "" : " (the gate passes)");
}

/* ---- compare ---- */

static int
named(const struct ty_results_saved *f, const char *bench)
{
	for (size_t i = 0; i < f->nbenches; i++)
		if (strcmp(f->benches[i].name, bench) == 0)
			return 1;
	return 0;
}

static int
emit(const struct history_compare_opts *o, const struct ty_cmp_table *c, const struct side *a,
     const struct side *b, const struct findings *fs)
{
	struct ty_outfile of;
	struct ty_error e = {0};

	if (ty_outfile_open(&of, o->output ? o->output : "-", &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	if (o->json)
		print_json(of.fp, c, a, b, fs);
	else
		print_text(of.fp, c, a, b);
	if (of.is_stdout) {
		ty_outfile_abort(&of);
		return cli_finish_stdout(0);
	}
	if (ty_outfile_commit(&of, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	return 0;
}

int
history_compare(const struct history_compare_opts *o, char **args, int n)
{
	struct side s[2] = {{.named = n > 0 ? args[0] : NULL}, {.named = n > 1 ? args[1] : NULL}};
	struct ty_cmp_options opt = {.test = TY_TEST_DEFAULT,
				     .match_functions = (int)o->match,
				     .confidence = o->confidence,
				     .figures = "wall",
				     .no_pairing = 1};
	struct gate g = {o->gate_on, o->fail_if_slower, o->fail_if_faster};
	struct gate_ctx gx = {&s[0], &s[1]};
	struct ty_cmp_table gt;
	char figures[160];
	int gated = 0;
	struct ty_results_saved files[2];
	struct ty_history *h;
	struct ty_cmp_table c;
	struct ty_error e = {0};
	int st, rc, k, read = 0;

	if (n < 2)
		return cli_usage_error("compare takes two commits: OLD NEW [BENCH...]");
	memset(files, 0, sizeof(files));
	if ((st = history_store_open(o->db, 0, &h)))
		return st;
	for (k = 0; k < 2 && !st; k++)
		st = find(h, &s[k]);
	if (!st)
		st = machines(o->machine, &s[0], &s[1]);
	for (k = 0; k < 2 && !st; k++, read++) {
		rc = ty_history_saved_at(h, s[k].rev, s[k].machine, (const char *const *)args + 2,
					 (size_t)n - 2, &files[k], &e);
		if (rc < 0)
			st = cli_error(rc == -EINVAL || rc == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME,
				       "%s", e.msg);
	}
	for (k = 2; k < n && !st; k++)
		if (!named(&files[0], args[k]) && !named(&files[1], args[k]))
			st =
			    cli_error(EXIT_USAGE, "no benchmark '%s' at %.12s or %.12s",
				      term_safe(args[k]), term_safe(s[0].rev), term_safe(s[1].rev));
	/* the gate's figure checked before anything is shown, and shown beside
	 * the wall time */
	if (!st && gate_set(&g))
		gated = !(st = gate_table(&gt, files, 2, &opt, &g));
	if (gated && strcmp(gate_figure(&g), "wall") != 0) {
		snprintf(figures, sizeof(figures), "wall,%s", gate_figure(&g));
		opt.figures = figures;
	}
	if (!st && (rc = ty_comparison_build(&c, files, 2, &opt, &e)) < 0)
		st = cli_error(rc == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", e.msg);
	else if (!st) {
		struct findings fs = {.n = 0};
		judge(h, &s[0], &s[1], &files[0], &fs);
		st = emit(o, &c, &s[0], &s[1], &fs);
		if (!st && gated && gate_judge(&gt, &g, gate_say, &gx) == TY_GATE_TRIP)
			st = EXIT_REGRESSION;
		ty_comparison_release(&c);
	}
	if (gated)
		ty_comparison_release(&gt);
	for (k = 0; k < read; k++)
		ty_results_saved_release(&files[k]);
	side_release(&s[0]);
	side_release(&s[1]);
	ty_history_close(h);
	return st;
}
