/* run-profile.c - `tachy run --profile[=HZ]` and the "where it changed"
 * section of run and compare. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "resfmt.h"
#include "run-profile.h"
#include "tachy/stats.h"
#include "tachy/symbols.h"
#include "tachy/verdict.h"

#define SHOWN_UNPROVEN 3 /* rows of no proven change shown (the largest) */
#define NAME_MAX_SHOWN 40

int
run_profile_opt(const struct cli_option *opt, const char *typed, char **args)
{
	struct run_profile *p = opt->value;
	long hz = TY_RUNPROF_HZ_DEFAULT;

	if (args[0] && cli_parse_long(typed, args[0], 1, 100000, &hz))
		return EXIT_USAGE;
	p->on = 1;
	p->hz = hz;
	return 0;
}

int
run_profile_setup(struct run_profile *p, struct ty_runner *r, struct ty_results *rs)
{
	struct ty_error e;

	if (!p->on)
		return 0;
	ty_error_clear(&e);
	if (ty_runprof_init(&p->rp, rs->n) < 0 || !(p->syms = ty_symbols_new()))
		return cli_error(EXIT_RUNTIME, "out of memory");
	if (ty_runprof_attach(&p->rp, r, p->syms, (uint64_t)p->hz, &e) < 0)
		return cli_error(EXIT_RUNTIME, "--profile: %s", e.msg);
	rs->profile = &p->rp;
	return 0;
}

void
run_profile_release(struct run_profile *p)
{
	ty_runprof_release(&p->rp);
	ty_symbols_free(p->syms);
	p->syms = NULL;
}

int
run_profile_diff(struct run_profile_pair *pr, struct ty_runprof_diff *d)
{
	struct ty_error e;

	ty_error_clear(&e);
	if (!isfinite(pr->o.wall_change_ms))
		pr->o.wall_change_ms = 0;
	if (ty_runprof_diff(pr->rp, pr->old_cmd, pr->new_cmd, &pr->o, d, &e) < 0) {
		cli_warn("profile of '%s' against '%s': %s", term_safe(pr->new_name),
			 term_safe(pr->old_name), e.msg);
		return -1;
	}
	return 0;
}

static char *
fmt_ms(char *buf, size_t size, double v, int sign)
{
	double a = fabs(v);
	int prec = a >= 100 ? 1 : a >= 1 ? 2 : 3;

	if (a < 0.0005) /* no "-0.000" */
		v = 0;

	if (!isfinite(v))
		snprintf(buf, size, "%s", v > 0 ? "+inf" : v < 0 ? "-inf" : "?");
	else
		snprintf(buf, size, sign ? "%+.*f" : "%.*f", prec, v);
	return buf;
}

static const char *
base_name(const char *s)
{
	const char *b = strrchr(s, '/');

	return b && b[1] ? b + 1 : s;
}

static const char *
row_name(const struct ty_runprof *rp, const struct ty_runprof_row *r, char *buf, size_t size)
{
	char t[NAME_MAX_SHOWN * 4 + 8];

	if (r->sym == TY_RUNPROF_POOLED)
		snprintf(buf, size, "(%zu rare functions)", r->npooled);
	else
		snprintf(buf, size, "%s",
			 resfmt_truncate(t, sizeof(t), term_safe(rp->syms[r->sym].name),
					 NAME_MAX_SHOWN));
	return buf;
}

static const char *
method(const struct run_profile_pair *pr, const struct ty_runprof_diff *d, char *buf, size_t size)
{
	int t = pr->o.test == TY_TEST_STUDENT || pr->o.test == TY_TEST_WELCH;
	int y = pr->o.test == TY_TEST_YUEN;

	if (d->pairs)
		snprintf(buf, size, "%s on the differences of %zu paired rounds",
			 t   ? "paired t"
			 : y ? "trimmed t"
			     : "Wilcoxon signed-rank",
			 d->pairs);
	else
		snprintf(buf, size, "%s, unpaired",
			 t   ? (pr->o.test == TY_TEST_STUDENT ? "Student's t" : "Welch's t")
			 : y ? "Yuen's t"
			     : "Mann-Whitney U");
	return buf;
}

static int
shown(const struct ty_runprof_row *r, size_t *unproven)
{
	if (r->verdict || r->sym == TY_RUNPROF_POOLED)
		return 1;
	return (*unproven)++ < SHOWN_UNPROVEN;
}

void
run_profile_section(FILE *fp, const struct term *t, const struct run_profile_pair *pr,
		    const struct ty_runprof_diff *d)
{
	const struct ty_runprof *rp = pr->rp;
	char name[NAME_MAX_SHOWN * 4 + 32], m[128], o[32], n[32], c[32], lo[32], hi[32], p[32];
	size_t i, un = 0, hidden = 0, w = 8;
	int cw = 0;

	fprintf(fp, "\n%sWhere it changed%s: '%s' against '%s', self time in ms per run\n",
		term_c(t, "bold"), term_c(t, "reset"), term_safe(pr->new_name),
		term_safe(pr->old_name));
	fprintf(fp, "  (%s;\n  Benjamini-Hochberg, false discovery rate %g%% over %zu rows;\n",
		method(pr, d, m, sizeof(m)), 100 * d->alpha, d->nrows);
	fprintf(fp, "  functions with fewer than %u samples in all pooled into one row)\n",
		d->min_samples);
	if (!d->nrows) {
		fprintf(fp, "  no samples\n");
		return;
	}
	for (i = 0; i < d->nrows; i++) {
		size_t k = un;
		if (!shown(&d->rows[i], &k))
			continue;
		un = k;
		size_t l = resfmt_width(row_name(rp, &d->rows[i], name, sizeof(name)));
		if (l > w)
			w = l;
	}
	un = 0;
	fprintf(fp, "  %-*s %-16s %9s %9s  %-28s %8s  %s\n", (int)w, "function", "dso", "old",
		"new", "change [interval]", "p", "verdict");
	for (i = 0; i < d->nrows; i++) {
		const struct ty_runprof_row *r = &d->rows[i];
		char iv[96], dso[64];
		if (!shown(r, &un)) {
			hidden++;
			continue;
		}
		row_name(rp, r, name, sizeof(name));
		resfmt_truncate(
		    dso, sizeof(dso),
		    r->sym == TY_RUNPROF_POOLED ? "" : term_safe(base_name(rp->syms[r->sym].dso)),
		    16);
		snprintf(iv, sizeof(iv), "%s [%s, %s]", fmt_ms(c, sizeof(c), r->change_ms, 1),
			 fmt_ms(lo, sizeof(lo), r->lo, 1), fmt_ms(hi, sizeof(hi), r->hi, 1));
		cw = (int)(w + strlen(name) - resfmt_width(name));
		fprintf(fp, "  %-*s %-*s %9s %9s  %-28s %8s  %s%s%s\n", cw, name,
			(int)(16 + strlen(dso) - resfmt_width(dso)), dso,
			fmt_ms(o, sizeof(o), r->old_ms, 0), fmt_ms(n, sizeof(n), r->new_ms, 0), iv,
			resfmt_p(p, sizeof(p), r->p),
			term_c(t, r->verdict > 0   ? "red"
				  : r->verdict < 0 ? "green"
						   : "dim"),
			ty_runprof_verdict_word(r->verdict), term_c(t, "reset"));
	}
	if (hidden)
		fprintf(fp, "  (%zu more functions with no change proven)\n", hidden);
	if (d->nflagged) {
		double share =
		    d->wall_change_ms != 0 ? 100 * d->explained_ms / d->wall_change_ms : NAN;
		fprintf(fp, "  Explained: %s ms of the wall change of %s ms",
			fmt_ms(c, sizeof(c), d->explained_ms, 1),
			fmt_ms(o, sizeof(o), d->wall_change_ms, 1));
		if (isfinite(share))
			fprintf(fp, " (%.0f%%)", share);
		fprintf(fp, "; intervals of the %zu flagged at %.4g%%\n  (false coverage rate)\n",
			d->nflagged, d->rows[0].conf);
	} else {
		fprintf(fp, "  No function's self time changed provably (wall change %s ms)\n",
			fmt_ms(o, sizeof(o), d->wall_change_ms, 1));
	}
}

static size_t
first_kept(const struct ty_result *r)
{
	return r->left_out < r->nruns ? r->left_out : 0;
}

static uint32_t *
rounds(const struct ty_result *r)
{
	uint32_t *v = malloc((r->nruns + 1) * sizeof(*v));
	size_t i;

	for (i = 0; v && i < r->nruns; i++)
		v[i] = r->runs[i].round;
	return v;
}

static void
print_costs(const struct run_profile *p, const struct ty_results *rs, FILE *fp)
{
	uint64_t samples = 0;
	size_t runs = 0, c, i;

	for (c = 0; c < p->rp.ncmds; c++)
		for (i = 0; i < p->rp.cmds[c].nruns; i++, runs++)
			samples += p->rp.cmds[c].runs[i].samples;
	(void)rs;
	fprintf(fp, "\nProfiled at %llu Hz: %llu samples in %zu runs", (unsigned long long)p->rp.hz,
		(unsigned long long)samples, runs);
	if (p->rp.lost)
		fprintf(fp, ", %llu lost (a run filled its buffers)",
			(unsigned long long)p->rp.lost);
	if (p->rp.user_only)
		fprintf(fp, ", user space only (the kernel refused its samples)");
	fprintf(fp,
		".\n%.2f ms a run outside the timed region (opening the sampler, reading and\n"
		"resolving the samples); inside it only the sampling's interrupts, %llu a second\n"
		"of CPU time (bench/runprof-cost.sh measures what they cost)\n",
		runs ? p->rp.cost_ms / (double)runs : 0, (unsigned long long)p->rp.hz);
}

void
run_profile_print(const struct run_profile *p, const struct ty_results *rs, const struct term *t,
		  FILE *fp)
{
	size_t i, ref = rs->reference;

	if (!p->on)
		return;
	print_costs(p, rs, fp);
	if (ref >= rs->n || ref >= p->rp.ncmds)
		return;
	for (i = 0; i < rs->n && i < p->rp.ncmds; i++) {
		const struct ty_result *a = &rs->r[ref], *b = &rs->r[i];
		struct run_profile_pair pr;
		struct ty_runprof_diff d;
		uint32_t *ra, *rb;
		size_t sa = first_kept(a), sb = first_kept(b);
		if (i == ref || p->rp.cmds[i].nruns != b->nruns ||
		    p->rp.cmds[ref].nruns != a->nruns)
			continue;
		memset(&pr, 0, sizeof(pr));
		pr.rp = &p->rp;
		pr.old_cmd = ref;
		pr.new_cmd = i;
		pr.old_name = a->name;
		pr.new_name = b->name;
		pr.o.wall_change_ms =
		    (b->centre[TY_FIG_WALL].centre - a->centre[TY_FIG_WALL].centre) * 1e3;
		ra = rounds(a);
		rb = rounds(b);
		pr.o.test = rs->test;
		pr.o.confidence = rs->confidence;
		if (rs->interleaved && !rs->no_pairing) {
			pr.o.old_round = ra;
			pr.o.new_round = rb;
		}
		pr.o.skip_old = sa;
		pr.o.skip_new = sb;
		if (ra && rb && run_profile_diff(&pr, &d) == 0) {
			run_profile_section(fp, t, &pr, &d);
			ty_runprof_diff_release(&d);
		}
		free(ra);
		free(rb);
	}
}

static void
json_functions(struct ty_jsonw *w, const struct ty_runprof *rp, const struct ty_runprof_diff *d)
{
	size_t i;

	ty_jsonw_key(w, "functions");
	ty_jsonw_array_begin(w);
	for (i = 0; i < d->nrows; i++) {
		const struct ty_runprof_row *r = &d->rows[i];
		int pooled = r->sym == TY_RUNPROF_POOLED;
		ty_jsonw_object_begin(w);
		if (pooled) {
			ty_jsonw_key(w, "symbol");
			ty_jsonw_null(w);
			ty_jsonw_key(w, "dso");
			ty_jsonw_null(w);
			ty_jsonw_kuint(w, "pooled", r->npooled);
		} else {
			ty_jsonw_kstring(w, "symbol", rp->syms[r->sym].name);
			ty_jsonw_kstring(w, "dso", rp->syms[r->sym].dso);
		}
		ty_jsonw_kdouble(w, "old_ms", r->old_ms);
		ty_jsonw_kdouble(w, "new_ms", r->new_ms);
		ty_jsonw_kdouble(w, "change_ms", r->change_ms);
		ty_jsonw_key(w, "ci");
		ty_jsonw_array_begin(w);
		ty_jsonw_double(w, r->lo);
		ty_jsonw_double(w, r->hi);
		ty_jsonw_array_end(w);
		ty_jsonw_kdouble(w, "confidence", r->conf);
		ty_jsonw_kdouble(w, "p", r->p);
		ty_jsonw_kdouble(w, "q", r->q);
		ty_jsonw_kstring(w, "verdict", ty_runprof_verdict_word(r->verdict));
		ty_jsonw_object_end(w);
	}
	ty_jsonw_array_end(w);
}

/* ---- compare ---- */

/* The per-run profiles of row R's two benchmarks merged into RP (command
 * 0 the old, 1 the new) and PR set up; 0 when either has none. */
static int
compare_pair(const struct ty_cmp_table *c, const struct ty_cmp_row *r, struct ty_runprof *rp,
	     struct run_profile_pair *pr)
{
	const struct ty_cmp_set *set = &c->sets[r->set];
	const struct ty_runprof *po = set->old->profile, *pn = set->new->profile;
	size_t bo = (size_t)(r->old - set->old->benches), bn = (size_t)(r->new - set->new->benches);

	if (strcmp(r->figure, "wall") != 0 || !po || !pn || bo >= po->ncmds || bn >= pn->ncmds ||
	    po->cmds[bo].nruns != r->old->nruns || pn->cmds[bn].nruns != r->new->nruns ||
	    !r->old->nruns || !r->new->nruns)
		return 0;
	if (ty_runprof_init(rp, 2) < 0 || ty_runprof_copy_cmd(rp, 0, po, bo) < 0 ||
	    ty_runprof_copy_cmd(rp, 1, pn, bn) < 0) {
		ty_runprof_release(rp);
		cli_error(EXIT_RUNTIME, "out of memory");
		return -1;
	}
	rp->hz = po->hz;
	memset(pr, 0, sizeof(*pr));
	pr->rp = rp;
	pr->old_cmd = 0;
	pr->new_cmd = 1;
	pr->old_name = r->old->label;
	pr->new_name = r->new->label;
	pr->o.test = c->opt.test;
	pr->o.confidence = c->opt.confidence;
	if (r->v.pairs && r->old->rounds && r->new->rounds) {
		pr->o.old_round = r->old->rounds;
		pr->o.new_round = r->new->rounds;
	}
	pr->o.skip_old = r->skip_old;
	pr->o.skip_new = r->skip_new;
	pr->o.wall_change_ms = (r->v.new.centre - r->v.old.centre) * 1e3;
	return 1;
}

void
run_profile_compare_text(FILE *fp, const struct ty_cmp_table *c)
{
	struct term t;
	size_t i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < c->nrows; i++) {
		struct ty_runprof rp;
		struct run_profile_pair pr;
		struct ty_runprof_diff d;
		if (compare_pair(c, &c->rows[i], &rp, &pr) <= 0)
			continue;
		if (run_profile_diff(&pr, &d) == 0) {
			run_profile_section(fp, &t, &pr, &d);
			ty_runprof_diff_release(&d);
		}
		ty_runprof_release(&rp);
	}
}

void
run_profile_compare_json(struct ty_jsonw *w, const struct ty_cmp_table *c,
			 const struct ty_cmp_row *r)
{
	struct ty_runprof rp;
	struct run_profile_pair pr;
	struct ty_runprof_diff d;

	if (compare_pair(c, r, &rp, &pr) <= 0)
		return;
	if (run_profile_diff(&pr, &d) == 0) {
		ty_jsonw_kuint(w, "profile_pairs", d.pairs);
		ty_jsonw_kdouble(w, "profile_explained_ms", d.explained_ms);
		ty_jsonw_kdouble(w, "profile_wall_change_ms", d.wall_change_ms);
		json_functions(w, &rp, &d);
		ty_runprof_diff_release(&d);
	}
	ty_runprof_release(&rp);
}
