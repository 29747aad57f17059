/* run-profile.c - `tachy run --profile[=HZ]` and the "where it changed"
 * section of run and compare. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "figure-text.h"
#include "run-instr.h"
#include "run-profile.h"
#include "tachy/flame.h"
#include "tachy/outfile.h"
#include "tachy/profile.h"
#include "tachy/stats.h"
#include "tachy/symbols.h"
#include "tachy/verdict.h"

#define SHOWN_UNPROVEN 3 /* rows of no proven change shown (the largest) */
#define NAME_MAX_SHOWN 40
#define DSO_MAX_SHOWN 32

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
run_profile_opt_match(const struct cli_option *opt, const char *typed, char **args)
{
	if (ty_profile_match_parse(args[0], opt->value) < 0)
		return cli_usage_error("%s: '%s' is no matching mode: give sym (the name alone), "
				       "dso,sym (the name and the object, the default) or path,sym "
				       "(the name and the object's full path)",
				       typed, term_safe(args[0]));
	return 0;
}

int
run_profile_opt_run_match(const struct cli_option *opt, const char *typed, char **args)
{
	struct run_profile *p = opt->value;
	struct cli_option o = *opt;

	o.value = &p->match;
	p->match_given = 1;
	return run_profile_opt_match(&o, typed, args);
}

int
run_profile_setup(struct run_profile *p, struct ty_runner *r, struct ty_results *rs)
{
	struct ty_error e;
	const char *v;
	long stack;

	if (p->flame) {
		if (rs->n != 2)
			return cli_usage_error(
			    "--flame draws one command against another: give two "
			    "commands (%zu given)",
			    rs->n);
		p->on = 1; /* --flame implies --profile */
		if (!p->hz)
			p->hz = TY_RUNPROF_HZ_DEFAULT;
	}
	if (p->match_given && !p->on)
		return cli_usage_error("--match says how --profile matches functions: give "
				       "--profile (or --flame) too");
	if (!p->on)
		return 0;
	ty_error_clear(&e);
	if (ty_runprof_init(&p->rp, rs->n) < 0 || !(p->syms = ty_symbols_new()))
		return cli_error(EXIT_RUNTIME, "out of memory");
	cli_symbols_cache(p->syms);
	p->rp.keep_stacks = p->flame != NULL;
	if ((v = getenv("TACHY_PROFILE_STACK")) && *v) {
		/* bytes of user stack a sample (0: frame-pointer chains) */
		if (cli_parse_long("TACHY_PROFILE_STACK", v, 0, 65528, &stack))
			return EXIT_USAGE;
		p->rp.stack_ask = stack ? (uint32_t)stack : TY_RUNPROF_STACK_NONE;
	}
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

/* "+4.01 [+3.01, +6.01]", or "+4.01 (no interval)" where the test could
 * not bound it at its confidence. */
static const char *
fmt_change(char *buf, size_t size, const struct ty_runprof_row *r)
{
	char c[32], lo[32], hi[32];

	if (isnan(r->lo) || isnan(r->hi))
		snprintf(buf, size, "%s (no interval)", fmt_ms(c, sizeof(c), r->change_ms, 1));
	else
		snprintf(buf, size, "%s [%s, %s]", fmt_ms(c, sizeof(c), r->change_ms, 1),
			 fmt_ms(lo, sizeof(lo), r->lo, 1), fmt_ms(hi, sizeof(hi), r->hi, 1));
	return buf;
}

/* Why a self row proven changed has no such total (profile-diff's
 * families disagree), or "". */
static const char *
self_note(const struct ty_runprof_row *r)
{
	if (!r->verdict || r->other == TY_RUNPROF_UNTESTED || r->other == r->verdict)
		return "";
	if (r->other == -r->verdict)
		return " (total the other way: its callees changed more)";
	return " (total not proven: its callees' time adds noise)";
}

static const char *
row_name(const struct ty_runprof *rp, const struct ty_profile_match *m,
	 const struct ty_runprof_row *r, char *buf, size_t size)
{
	char t[NAME_MAX_SHOWN * 4 + 8];

	if (r->sym == TY_RUNPROF_POOLED)
		snprintf(buf, size, "(%zu rare functions)", r->npooled);
	else
		snprintf(
		    buf, size, "%s",
		    figure_text_truncate(t, sizeof(t),
					 term_safe(ty_profile_match_name(m, rp->syms[r->sym].name)),
					 NAME_MAX_SHOWN));
	return buf;
}

/* The object of row R: its file name on both sides, "OLD -> NEW" where
 * the two differ (profile-match.h). */
static const char *
row_dso(const struct ty_runprof *rp, const struct ty_runprof_row *r, char *buf, size_t size)
{
	const char *o, *n;

	if (r->sym == TY_RUNPROF_POOLED)
		return strcpy(buf, "");
	o = r->old_sym < rp->nsyms ? rp->syms[r->old_sym].dso : NULL;
	n = r->new_sym < rp->nsyms ? rp->syms[r->new_sym].dso : NULL;
	if (!o && !n)
		n = rp->syms[r->sym].dso;
	return ty_profile_match_shown(o, n, buf, size);
}

/* PATH to show: relative to the working directory when under it. */
static const char *
shown_path(const char *path, char *buf, size_t size)
{
	char cwd[4096];
	size_t n;

	if (!path)
		return "?";
	if (getcwd(cwd, sizeof(cwd)) && (n = strlen(cwd)) > 1 && strncmp(path, cwd, n) == 0 &&
	    path[n] == '/') {
		snprintf(buf, size, "%s", path + n + 1);
		return buf;
	}
	return path;
}

/* "functions matched by name and object (the program: OLD = NEW)". */
static void
match_line(FILE *fp, const struct ty_runprof_diff *d)
{
	char a[512], b[512];

	fprintf(fp, "  (functions matched by %s", ty_profile_match_mode_words(d->match.mode));
	if (d->match.mode == TY_MATCH_DSO_SYM)
		fprintf(fp, "; the program: %s = %s",
			term_safe(shown_path(d->match.main[0], a, sizeof(a))),
			term_safe(shown_path(d->match.main[1], b, sizeof(b))));
	fprintf(fp, ")\n");
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

#define SHOWN_TOTALS 8 /* flagged total-time rows listed */

/* The total-time family in a few lines: the functions whose total time
 * (callees in) is proven changed, the path from main to the change. */
static void
totals_section(FILE *fp, const struct term *t, const struct ty_runprof *rp,
	       const struct ty_runprof_diff *d)
{
	char name[NAME_MAX_SHOWN * 4 + 32], iv[96];
	size_t i;

	fprintf(fp, "  Total time (callees in), tested apart at the same familywise error rate:\n");
	if (!d->ntotals_flagged) {
		fprintf(fp, "    no function's total time changed provably (%zu tested)\n",
			d->ntotals);
		for (i = 0; i < d->nrows && d->rows[i].verdict; i++)
			if (d->rows[i].other != TY_RUNPROF_UNTESTED) {
				fprintf(fp,
					"    (%s's self time did: its total adds its callees' "
					"time, whose noise hides the change)\n",
					row_name(rp, &d->match, &d->rows[i], name, sizeof(name)));
				break;
			}
		return;
	}
	for (i = 0; i < d->ntotals && i < SHOWN_TOTALS && d->totals[i].verdict; i++) {
		const struct ty_runprof_row *r = &d->totals[i];
		fprintf(
		    fp, "    %s %s ms: %s%s%s%s\n", row_name(rp, &d->match, r, name, sizeof(name)),
		    fmt_change(iv, sizeof(iv), r), term_c(t, r->verdict > 0 ? "red" : "green"),
		    ty_runprof_verdict_word(r->verdict), term_c(t, "reset"),
		    r->other == r->verdict    ? ""
		    : r->other == -r->verdict ? " (its self time the other way: its callees "
						"changed more)"
					      : " (its self time not proven: its callees changed)");
	}
	if (d->ntotals_flagged > SHOWN_TOTALS)
		fprintf(fp, "    (%zu more)\n", d->ntotals_flagged - SHOWN_TOTALS);
	fprintf(fp, "    (%zu of %zu functions flagged)\n", d->ntotals_flagged, d->ntotals);
}

void
run_profile_section(FILE *fp, const struct term *t, const struct run_profile_pair *pr,
		    const struct ty_runprof_diff *d)
{
	const struct ty_runprof *rp = pr->rp;
	char name[NAME_MAX_SHOWN * 4 + 32], m[128], o[32], n[32], c[32], p[32];
	size_t i, un = 0, hidden = 0, w = 8, dw = 16;
	int cw = 0;

	fprintf(fp, "\n%sWhere it changed%s: '%s' against '%s', self time in ms per run\n",
		term_c(t, "bold"), term_c(t, "reset"), term_safe(pr->new_name),
		term_safe(pr->old_name));
	match_line(fp, d);
	fprintf(fp, "  (%s;\n  Holm, familywise error rate %g%% over %zu rows;\n",
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
		size_t l =
		    figure_text_width(row_name(rp, &d->match, &d->rows[i], name, sizeof(name)));
		char ob[256], dso[DSO_MAX_SHOWN * 4 + 8];
		if (l > w)
			w = l;
		l = figure_text_width(figure_text_truncate(
		    dso, sizeof(dso), term_safe(row_dso(rp, &d->rows[i], ob, sizeof(ob))),
		    DSO_MAX_SHOWN));
		if (l > dw)
			dw = l;
	}
	un = 0;
	fprintf(fp, "  %-*s %-*s %9s %9s  %-28s %8s  %s\n", (int)w, "function", (int)dw, "dso",
		"old", "new", "change [interval]", "p", "verdict");
	for (i = 0; i < d->nrows; i++) {
		const struct ty_runprof_row *r = &d->rows[i];
		char iv[96], dso[DSO_MAX_SHOWN * 4 + 8], ob[256];
		if (!shown(r, &un)) {
			hidden++;
			continue;
		}
		row_name(rp, &d->match, r, name, sizeof(name));
		figure_text_truncate(dso, sizeof(dso), term_safe(row_dso(rp, r, ob, sizeof(ob))),
				     DSO_MAX_SHOWN);
		fmt_change(iv, sizeof(iv), r);
		cw = (int)(w + strlen(name) - figure_text_width(name));
		fprintf(fp, "  %-*s %-*s %9s %9s  %-28s %8s  %s%s%s%s\n", cw, name,
			(int)(dw + strlen(dso) - figure_text_width(dso)), dso,
			fmt_ms(o, sizeof(o), r->old_ms, 0), fmt_ms(n, sizeof(n), r->new_ms, 0), iv,
			figure_text_p(p, sizeof(p), r->p),
			term_c(t, r->verdict > 0   ? "red"
				  : r->verdict < 0 ? "green"
						   : "dim"),
			ty_runprof_verdict_word(r->verdict), term_c(t, "reset"), self_note(r));
	}
	if (hidden)
		fprintf(fp, "  (%zu more functions with no change proven)\n", hidden);
	if (d->nflagged) {
		double share =
		    d->wall_change_ms != 0 ? 100 * d->explained_ms / d->wall_change_ms : NAN;
		fprintf(fp, "  Explained: %s ms of the wall change of %s ms",
			fmt_ms(c, sizeof(c), d->explained_ms, 1),
			fmt_ms(o, sizeof(o), d->wall_change_ms, 1));
		if (isfinite(share) && share < 0) /* the two moved apart */
			fprintf(fp, " (the other way: the wall time counts waiting for the CPU, "
				    "the profile does not)");
		else if (isfinite(share) && share > 100.5) /* more than the wall change */
			fprintf(fp,
				" (%.0f%%: more than the wall change: the profile counts the CPU "
				"time of every thread, the wall time only how long the command "
				"took)",
				share);
		else if (isfinite(share))
			fprintf(fp, " (%.0f%%)", share);
		fprintf(fp, "; intervals of the %zu flagged at %.4g%%\n  (false coverage rate)\n",
			d->nflagged, d->rows[0].conf);
	} else {
		fprintf(fp, "  No function's self time changed provably (wall change %s ms)\n",
			fmt_ms(o, sizeof(o), d->wall_change_ms, 1));
	}
	totals_section(fp, t, rp, d);
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
	if (p->rp.stack_size)
		fprintf(
		    fp,
		    ";\nchains unwound with CFI from %.0f KiB stack copies (%.1f%% cut short by "
		    "the copy)",
		    p->rp.stack_size / 1024.0,
		    p->rp.unwound ? 100.0 * (double)p->rp.cut / (double)p->rp.unwound : 0.0);
	else
		fprintf(fp, ";\nframe-pointer chains (the kernel's)");
	fprintf(fp,
		".\n%.2f ms a run outside the timed region (opening the sampler, reading%s\n"
		"resolving the samples); inside it only the sampling's interrupts,\n"
		"%llu a second of CPU time",
		runs ? p->rp.cost_ms / (double)runs : 0,
		p->rp.stack_size ? ",\nunwinding and" : " and", (unsigned long long)p->rp.hz);
	if (p->rp.stack_size)
		fprintf(fp,
			", each copying %.0f KiB of the stack, and a thread\n"
			"copying the samples out of the buffers (%.2f ms of CPU a run)",
			p->rp.stack_size / 1024.0, runs ? p->rp.spill_ms / (double)runs : 0);
	fprintf(fp, "\n(bench/runprof-cost.sh measures what they cost)\n");
}

/* The diff of command I against the reference into D. Returns 0, or -1
 * when there is none (I is the reference, runs missing, or the diff
 * failed: warned). */
static int
ref_diff(const struct run_profile *p, const struct ty_results *rs, size_t i,
	 struct run_profile_pair *pr, struct ty_runprof_diff *d)
{
	size_t ref = rs->reference;
	const struct ty_result *a, *b;
	uint32_t *ra, *rb;
	int rc = -1;

	if (ref >= rs->n || ref >= p->rp.ncmds || i >= rs->n || i >= p->rp.ncmds || i == ref)
		return -1;
	a = &rs->r[ref];
	b = &rs->r[i];
	if (p->rp.cmds[i].nruns != b->nruns || p->rp.cmds[ref].nruns != a->nruns)
		return -1;
	memset(pr, 0, sizeof(*pr));
	pr->rp = &p->rp;
	pr->old_cmd = ref;
	pr->new_cmd = i;
	pr->old_name = a->name;
	pr->new_name = b->name;
	pr->o.wall_change_ms =
	    (b->centre[TY_FIG_WALL].centre - a->centre[TY_FIG_WALL].centre) * 1e3;
	ra = rounds(a);
	rb = rounds(b);
	pr->o.test = rs->test;
	pr->o.confidence = rs->confidence;
	if (rs->interleaved && !rs->no_pairing) {
		pr->o.old_round = ra;
		pr->o.new_round = rb;
	}
	pr->o.skip_old = first_kept(a);
	pr->o.skip_new = first_kept(b);
	pr->o.match.mode = p->match;
	pr->o.old_command = a->command;
	pr->o.new_command = b->command;
	if (ra && rb)
		rc = run_profile_diff(pr, d);
	else
		cli_warn("out of memory");
	free(ra);
	free(rb);
	pr->o.old_round = pr->o.new_round = NULL;
	return rc;
}

void
run_profile_print(const struct run_profile *p, const struct ty_results *rs, const struct term *t,
		  FILE *fp)
{
	size_t i;

	if (!p->on)
		return;
	print_costs(p, rs, fp);
	for (i = 0; i < rs->n && i < p->rp.ncmds; i++) {
		struct run_profile_pair pr;
		struct ty_runprof_diff d;
		if (ref_diff(p, rs, i, &pr, &d) < 0)
			continue;
		run_profile_section(fp, t, &pr, &d);
		ty_runprof_diff_release(&d);
	}
}

/* ---- the differential flame graph ---- */

struct shade {
	const struct ty_runprof_row *self, *total; /* by sym (NULL: no row) */
};

struct shades {
	struct run_profile *p;
	struct shade *by_sym;
	uint32_t n;
	double max_self; /* largest |change| of a flagged self row */
};

static void
note_row(char *buf, size_t len, const char *what, const struct ty_runprof_row *r)
{
	char o[32], n[32], c[32], lo[32], hi[32], pv[32];

	snprintf(buf, len, "%s %s -> %s ms/run, %s [%s, %s] ms, p %s: %s", what,
		 fmt_ms(o, sizeof(o), r->old_ms, 0), fmt_ms(n, sizeof(n), r->new_ms, 0),
		 fmt_ms(c, sizeof(c), r->change_ms, 1), fmt_ms(lo, sizeof(lo), r->lo, 1),
		 fmt_ms(hi, sizeof(hi), r->hi, 1), figure_text_p(pv, sizeof(pv), r->p),
		 ty_runprof_verdict_word(r->verdict));
}

/* ty_flame_opts.shade: a frame is red or blue only where its function's
 * self time is proven changed (strength by how much), pale where only its
 * total is (the path to a change), grey elsewhere. */
static int
shade_frame(void *arg, const char *name, const char *dso, double *level, char *info, size_t len)
{
	struct shades *sh = arg;
	uint32_t sym = ty_runprof_sym(&sh->p->rp, name, dso);
	const struct shade *f;
	size_t used;

	*level = 0;
	if (sym >= sh->n)
		return 0; /* pooled: too rarely sampled to test one by one */
	f = &sh->by_sym[sym];
	if (f->self)
		note_row(info, len, "self", f->self);
	else
		snprintf(info, len, "self: pooled with the rare functions");
	used = strlen(info);
	if (f->total && used + 3 < len)
		note_row(info + used, len - used, "; total", f->total);
	if (f->self && f->self->verdict) {
		*level = sh->max_self > 0 ? 0.3 + 0.7 * fabs(f->self->change_ms) / sh->max_self : 1;
		return f->self->verdict;
	}
	if (f->total && f->total->verdict) {
		*level = 0.05;
		return f->total->verdict;
	}
	return 0;
}

int
run_profile_flame_file(const char *path, const struct ty_profile *prof,
		       const struct ty_flame_opts *fo)
{
	struct ty_outfile of;
	struct ty_error e;
	int r;

	ty_error_clear(&e);
	if (ty_outfile_open(&of, path, &e) < 0)
		return cli_error(EXIT_RUNTIME, "--flame: %s", e.msg);
	r = ty_flame_write(prof, fo, of.fp);
	if (r == -EIO && of.werr)
		r = -of.werr;
	if (r < 0) {
		ty_outfile_abort(&of);
		return cli_error(EXIT_RUNTIME, "cannot write '%s': %s", path, strerror(-r));
	}
	if (ty_outfile_commit(&of, &e) < 0)
		return cli_error(EXIT_RUNTIME, "--flame: %s", e.msg);
	return 0;
}

static int
flame_write(const struct run_profile *p, const struct ty_profile *prof, struct shades *sh,
	    const char *title)
{
	struct ty_flame_opts fo = {0};

	fo.title = title;
	fo.shade = shade_frame;
	fo.shade_arg = sh;
	fo.min_width = 1; /* frames too thin to see make towers of empty rows */
	fo.legend = "red: self time proven slower, blue: proven faster (pale: only the total, "
		    "callees in); grey: no change proven. Width: the new command's samples";
	return run_profile_flame_file(p->flame, prof, &fo);
}

int
run_profile_flame(struct run_profile *p, const struct ty_results *rs)
{
	struct run_profile_pair pr;
	struct ty_runprof_diff d;
	struct shades sh = {0};
	struct ty_profile *empty = NULL;
	const struct ty_profile *prof;
	char title[256];
	size_t i, k, other = rs->reference == 0 ? 1 : 0;
	int st;

	if (!p->on || !p->flame)
		return 0;
	if (ref_diff(p, rs, other, &pr, &d) < 0)
		return cli_error(EXIT_RUNTIME, "--flame: no profile to draw ('%s' against '%s')",
				 term_safe(rs->r[other].name),
				 term_safe(rs->r[rs->reference].name));
	sh.p = p;
	sh.n = p->rp.nsyms;
	if (!(sh.by_sym = calloc(sh.n ? sh.n : 1, sizeof(*sh.by_sym)))) {
		ty_runprof_diff_release(&d);
		return cli_error(EXIT_RUNTIME, "out of memory");
	}
	for (k = 0; k < 2; k++) {
		const struct ty_runprof_row *rows = k ? d.totals : d.rows;
		size_t n = k ? d.ntotals : d.nrows;
		for (i = 0; i < n; i++) {
			/* both sides' functions of the row: the frames drawn are the new
			 * side's, matched to the old's by the diff (profile-match.h) */
			uint32_t y[2] = {rows[i].old_sym, rows[i].new_sym};
			int j;
			if (rows[i].sym >= sh.n)
				continue;
			for (j = 0; j < 2; j++) {
				if (y[j] >= sh.n)
					continue;
				if (k)
					sh.by_sym[y[j]].total = &rows[i];
				else
					sh.by_sym[y[j]].self = &rows[i];
			}
			if (!k && rows[i].verdict && fabs(rows[i].change_ms) > sh.max_self)
				sh.max_self = fabs(rows[i].change_ms);
		}
	}
	prof = p->rp.stacks ? p->rp.stacks[other] : NULL;
	if (!prof && !(prof = empty = ty_profile_new())) {
		st = cli_error(EXIT_RUNTIME, "out of memory");
		goto out;
	}
	snprintf(title, sizeof(title), "Where it changed: '%s' against '%s'", rs->r[other].name,
		 rs->r[rs->reference].name);
	st = flame_write(p, prof, &sh, title);
out:
	ty_profile_free(empty);
	free(sh.by_sym);
	ty_runprof_diff_release(&d);
	return st;
}

static void
json_rows(struct ty_jsonw *w, const char *key, const struct ty_runprof *rp,
	  const struct ty_runprof_row *rows, size_t nrows)
{
	size_t i;

	ty_jsonw_key(w, key);
	ty_jsonw_array_begin(w);
	for (i = 0; i < nrows; i++) {
		const struct ty_runprof_row *r = &rows[i];
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
			if (r->old_sym < rp->nsyms && r->old_sym != r->sym)
				ty_jsonw_kstring(w, "old_dso", rp->syms[r->old_sym].dso);
		}
		/* instruction counts (rp->exact): counts, not ms */
		ty_jsonw_kdouble(w, rp->exact ? "old_instructions" : "old_ms", r->old_ms);
		ty_jsonw_kdouble(w, rp->exact ? "new_instructions" : "new_ms", r->new_ms);
		ty_jsonw_kdouble(w, rp->exact ? "change_instructions" : "change_ms", r->change_ms);
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

	if (strcmp(r->figure, "wall") != 0 || !po || !pn || po->exact != pn->exact ||
	    bo >= po->ncmds || bn >= pn->ncmds || po->cmds[bo].nruns != r->old->nruns ||
	    pn->cmds[bn].nruns != r->new->nruns || !r->old->nruns || !r->new->nruns)
		return 0;
	if (ty_runprof_init(rp, 2) < 0 || ty_runprof_copy_cmd(rp, 0, po, bo) < 0 ||
	    ty_runprof_copy_cmd(rp, 1, pn, bn) < 0) {
		ty_runprof_release(rp);
		cli_error(EXIT_RUNTIME, "out of memory");
		return -1;
	}
	rp->hz = po->hz;
	rp->exact = po->exact;
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
	pr->o.match.mode = (enum ty_match_mode)c->opt.match_functions;
	pr->o.old_command = r->old->command;
	pr->o.new_command = r->new->command;
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
		if (rp.exact) /* instruction counts: their exact differences */
			run_instr_profile_section(fp, &t, &rp, 0, 1, pr.old_name, pr.new_name);
		else if (run_profile_diff(&pr, &d) == 0) {
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
	if (rp.exact) {
		struct ty_error e;
		ty_error_clear(&e);
		/* instruction counts: exact differences where every run repeats */
		if (ty_runprof_diff_exact(&rp, 0, 1, &d, &e) == 0) {
			ty_jsonw_kstring(w, "profile_counts", "instructions");
			ty_jsonw_kdouble(w, "profile_change", d.wall_change_ms);
			ty_jsonw_kstring(w, "profile_match",
					 ty_profile_match_mode_name(d.match.mode));
			json_rows(w, "functions", &rp, d.rows, d.nrows);
			ty_runprof_diff_release(&d);
		}
	} else if (run_profile_diff(&pr, &d) == 0) {
		ty_jsonw_kuint(w, "profile_pairs", d.pairs);
		ty_jsonw_kdouble(w, "profile_explained_ms", d.explained_ms);
		ty_jsonw_kdouble(w, "profile_wall_change_ms", d.wall_change_ms);
		ty_jsonw_kstring(w, "profile_match", ty_profile_match_mode_name(d.match.mode));
		json_rows(w, "functions", &rp, d.rows, d.nrows);
		json_rows(w, "functions_total", &rp, d.totals, d.ntotals);
		ty_runprof_diff_release(&d);
	}
	ty_runprof_release(&rp);
}
