/* gate.c - the regression gate on the figure --gate-on names, and the line
 * that points to a CPU figure (gate.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure-text.h"
#include "gate.h"
#include "term.h"

int
gate_opt_metric(const struct cli_option *opt, const char *typed, char **args)
{
	const char *m = args[0];

	/* one figure's name: what a results file can hold (a counter's name,
	 * "task-clock", "instructions"...), never a list */
	if (!m[0] || strchr(m, ',') || strcmp(m, "all") == 0 || strlen(m) > 120)
		return cli_bad_value(typed, m,
				     "one figure: wall, cpu (user+system), user, system, "
				     "task-clock or a counter's name (instructions, cycles...)");
	*(const char **)opt->value = m;
	return 0;
}

int
gate_set(const struct gate *g)
{
	return !isnan(g->limit) || !isnan(g->faster);
}

const char *
gate_figure(const struct gate *g)
{
	return g->metric ? g->metric : "wall";
}

/* Does bench B have FIGURE ("cpu": user and system)? */
static int
has(const struct ty_results_saved_bench *b, const char *figure)
{
	if (strcmp(figure, "cpu") == 0 && !ty_results_saved_figure_named(b, "cpu"))
		return ty_results_saved_figure_named(b, "user") &&
		       ty_results_saved_figure_named(b, "system");
	return ty_results_saved_figure_named(b, figure) != NULL;
}

/* The figures OLD and NEW both have, with cpu after system, into BUF. */
static const char *
both_have(const struct ty_results_saved_bench *old, const struct ty_results_saved_bench *new,
	  char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < old->nfigs && len < size; i++) {
		const char *f = old->figs[i].name;
		if (!has(new, f))
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", f);
		if (strcmp(f, "system") == 0 && has(old, "cpu") && has(new, "cpu") && len < size)
			len += (size_t)snprintf(buf + len, size - len, ", cpu");
	}
	return buf;
}

/* Is FIGURE one of rusage's times? */
static int
builtin(const char *figure)
{
	return strcmp(figure, "user") == 0 || strcmp(figure, "system") == 0 ||
	       strcmp(figure, "cpu") == 0;
}

/* Every pair of C's wall rows has a row of FIGURE: else say which lacks it. */
static int
check_pairs(const struct ty_cmp_table *c, const char *figure)
{
	size_t i, j;
	char have[1024];

	for (i = 0; i < c->nrows; i++) {
		const struct ty_cmp_row *w = &c->rows[i];
		if (strcmp(w->figure, "wall") != 0)
			continue;
		for (j = 0; j < c->nrows; j++)
			if (c->rows[j].old == w->old &&
			    c->rows[j].new == w->new &&strcmp(c->rows[j].figure, figure) == 0)
				break;
		if (j < c->nrows)
			continue;
		return cli_error(
		    EXIT_USAGE,
		    "--gate-on %s: '%s' against '%s' has no %s on both sides (the "
		    "figures both have: %s)%s",
		    term_safe(figure), term_safe(w->new->label), term_safe(w->old->label),
		    term_safe(figure), term_safe(both_have(w->old, w->new, have, sizeof(have))),
		    builtin(figure) ? ": a file without per-run user and system times "
				      "(a hyperfine export?) cannot be gated on them"
				    : ": count it on both sides (tachy run -e NAME), or "
				      "gate on a figure both have");
	}
	return 0;
}

int
gate_table(struct ty_cmp_table *c, const struct ty_results_saved *files, size_t n,
	   const struct ty_cmp_options *opt, const struct gate *g)
{
	struct ty_cmp_options o = *opt;
	struct ty_error e = {0};
	const char *figure = gate_figure(g);
	char figures[160];
	int rc;

	/* the wall rows name every pair; the gate's figure is checked on each */
	snprintf(figures, sizeof(figures), "wall%s%s", strcmp(figure, "wall") ? "," : "",
		 strcmp(figure, "wall") ? figure : "");
	o.figures = figures;
	rc = ty_comparison_build(c, files, n, &o, &e);
	if (rc == -EINVAL && strstr(e.msg, "--figures: ")) {
		/* no pair has it: the first pair's figures are named */
		struct ty_cmp_table all;
		o.figures = "wall";
		if (ty_comparison_build(&all, files, n, &o, &e) < 0)
			return cli_error(EXIT_USAGE, "--gate-on %s: %s", term_safe(figure), e.msg);
		rc = check_pairs(&all, figure);
		ty_comparison_release(&all);
		return rc ? rc : cli_error(EXIT_USAGE, "--gate-on %s: no such figure", figure);
	}
	if (rc < 0)
		return cli_error(rc == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", e.msg);
	if ((rc = check_pairs(c, figure)))
		ty_comparison_release(c);
	return rc;
}

enum ty_gate
gate_judge(const struct ty_cmp_table *c, const struct gate *g, gate_say_fn *say, void *ctx)
{
	static const int rank[] = {
	    [TY_GATE_PASS] = 0, [TY_GATE_TOO_FEW] = 1, [TY_GATE_UNPROVEN] = 2, [TY_GATE_TRIP] = 3};
	const char *figure = gate_figure(g);
	enum ty_gate worst = TY_GATE_PASS;
	char m[320];
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct ty_cmp_row *r = &c->rows[i];
		enum ty_gate v;
		enum ty_verdict_word mirror;
		if (strcmp(r->figure, figure) != 0)
			continue;
		if (!isnan(g->limit)) {
			v = ty_verdict_gate(r->v.verdict, r->v.interval, r->v.too_few, r->v.c.rel,
					    r->v.c.rel_lo, g->limit);
			figure_text_gate(m, sizeof(m), figure, v, g->limit, 0, r->v.c.rel,
					 r->v.c.rel_lo, r->v.c.rel_hi, r->v.interval,
					 c->opt.confidence);
			if (say)
				say(ctx, r, v, m);
			if (rank[v] > rank[worst])
				worst = v;
		}
		if (isnan(g->faster))
			continue;
		/* faster by more than P: the slower gate on the change's mirror */
		mirror = r->v.verdict == TY_VERDICT_FASTER   ? TY_VERDICT_SLOWER
			 : r->v.verdict == TY_VERDICT_SLOWER ? TY_VERDICT_FASTER
							     : r->v.verdict;
		v = ty_verdict_gate(mirror, r->v.interval, r->v.too_few, -r->v.c.rel,
				    -r->v.c.rel_hi, g->faster);
		figure_text_gate(m, sizeof(m), figure, v, g->faster, 1, r->v.c.rel, r->v.c.rel_lo,
				 r->v.c.rel_hi, r->v.interval, c->opt.confidence);
		if (say)
			say(ctx, r, v, m);
		if (rank[v] > rank[worst])
			worst = v;
	}
	return worst;
}

/* Do all FILES' benchmarks have FIGURE? */
static int
all_have(const struct ty_results_saved *files, size_t n, const char *figure)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < files[i].nbenches; j++)
			if (!has(&files[i].benches[j], figure))
				return 0;
	return 1;
}

int
gate_cpu_table(struct ty_cmp_table *c, const struct ty_results_saved *files, size_t n,
	       const struct ty_cmp_options *opt)
{
	struct ty_cmp_options o = *opt;
	struct ty_error e = {0};
	int rc;

	memset(c, 0, sizeof(*c));
	/* task-clock where counted: the kernel's CPU time of the whole tree,
	 * to the nanosecond; else rusage's */
	if (all_have(files, n, "task-clock"))
		o.figures = "wall,task-clock";
	else if (all_have(files, n, "cpu"))
		o.figures = "wall,cpu";
	else
		return 0;
	rc = ty_comparison_build(c, files, n, &o, &e);
	if (rc < 0)
		memset(c, 0, sizeof(*c));
	return rc == -ENOMEM ? rc : 0;
}

const struct ty_cmp_row *
gate_cpu_row(const struct ty_cmp_table *c, const struct ty_results_saved_bench *old,
	     const struct ty_results_saved_bench *new)
{
	const struct ty_cmp_row *wall = NULL, *cpu = NULL;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct ty_cmp_row *r = &c->rows[i];
		if (r->old != old || r->new != new)
			continue;
		if (strcmp(r->figure, "wall") == 0)
			wall = r;
		else
			cpu = r;
	}
	if (!wall || !cpu || wall->v.verdict != TY_VERDICT_SAME ||
	    cpu->v.verdict == TY_VERDICT_SAME)
		return NULL;
	return cpu;
}

char *
gate_cpu_text(char *buf, size_t size, const struct ty_cmp_row *r)
{
	char ch[96];

	snprintf(buf, size,
		 "%s: %s %s: proven where the wall time is not (that counts the waits for a CPU: "
		 "the machine's load); gate on it with --gate-on %s",
		 figure_text_metric(r->figure), figure_text_change(ch, sizeof(ch), r),
		 ty_verdict_word_name(r->v.verdict), r->figure);
	return buf;
}
