/* run-instr.c - `tachy run --instructions` (run-instr.h). */
#include "run-instr.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run-profile.h"
#include "tachy/flame.h"
#include "tachy/profile.h"
#include "tachy/runprof-diff.h"
#include "term.h"

int
run_instr_setup(struct run_instr *in, struct ty_runner *r, struct ty_runprof *prof)
{
	struct ty_probe probe;
	struct ty_error e = {0};
	int rc;

	if (!in->on)
		return 0;
	/* TACHY_VALGRIND (tachy-run(1)): another valgrind than PATH's */
	rc = ty_vgcount_init(&in->vg,
			     getenv("TACHY_VALGRIND") ? getenv("TACHY_VALGRIND") : "valgrind", &e);
	if (rc < 0)
		return cli_error(rc == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME, "--instructions: %s",
				 e.msg);
	if ((rc = ty_vgcount_open(&in->vg, getenv("TMPDIR"), &e)) < 0)
		return cli_error(EXIT_RUNTIME, "--instructions: %s", e.msg);
	in->vg.prof = prof;
	in->vg.runner = r;
	ty_vgcount_probe_get(&in->vg, &probe);
	if (ty_runner_add_probe(r, &probe, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	in->active = 1;
	return 0;
}

void
run_instr_release(struct run_instr *in)
{
	if (in->on)
		ty_vgcount_release(&in->vg);
}

size_t
run_instr_figure(const struct run_instr *in, const struct ty_results *rs)
{
	size_t k;

	if (!in->active)
		return 0;
	for (k = 0; k < rs->nvalues; k++)
		if (rs->values[k].exact && strcmp(rs->values[k].name, "instructions") == 0)
			return TY_FIG_BUILTIN + k;
	return 0;
}

/* "1,234,567" into BUF. */
static const char *
grouped(char *buf, size_t size, double v)
{
	char d[48];
	size_t n, i, k = 0;
	int neg = v < 0;

	snprintf(d, sizeof(d), "%.0f", fabs(v));
	n = strlen(d);
	if (neg && k + 1 < size)
		buf[k++] = '-';
	for (i = 0; i < n && k + 2 < size; i++) {
		buf[k++] = d[i];
		if ((n - i - 1) % 3 == 0 && i + 1 < n)
			buf[k++] = ',';
	}
	buf[k] = 0;
	return buf;
}

void
run_instr_print_result(const struct run_instr *in, const struct ty_results *rs, size_t i,
		       const struct term *t, FILE *fp)
{
	size_t fig = run_instr_figure(in, rs), k, n = 0, ndiff = 0;
	const struct ty_result *r = &rs->r[i];
	double first = NAN, lo = INFINITY, hi = -INFINITY, far = 0;
	size_t far_run = 0;
	char a[48], b[48], c[48];

	if (!fig || !r->nruns)
		return;
	for (k = 0; k < r->nruns; k++) {
		double v = ty_results_value(rs, r, k, fig);
		if (!isfinite(v))
			continue;
		if (!n++)
			first = v;
		lo = fmin(lo, v);
		hi = fmax(hi, v);
		if (v != first)
			ndiff++;
		if (fabs(v - first) > far) {
			far = fabs(v - first);
			far_run = k;
		}
	}
	if (!n) {
		fprintf(fp, "  Instructions:             not counted\n");
		return;
	}
	if (lo == hi)
		fprintf(fp,
			"  Instructions:             %s%s%s   (exact: the same in %s%zu run%s)\n",
			term_c(t, "bold"), grouped(a, sizeof(a), first), term_c(t, "reset"),
			n > 1 ? "all " : "", n, n == 1 ? "" : "s");
	else {
		const struct ty_summary *s = &r->sum[fig];
		fprintf(fp,
			"  Instructions (mean):      %s%s%s   (min %s max: %s %s %s, %zu runs)\n",
			term_c(t, "bold"), grouped(a, sizeof(a), s->mean), term_c(t, "reset"),
			term_sym(t, "dots"), grouped(b, sizeof(b), lo), term_sym(t, "dots"),
			grouped(c, sizeof(c), hi), n);
		fprintf(
		    fp,
		    "  %sWarning%s: not deterministic: %zu of %zu runs counted another number of "
		    "instructions than the first (by up to %s, %.4f%%, in run %zu): the program "
		    "depends on something that changes from run to run (time, random seeds, "
		    "addresses, the environment, other processes); the verdicts use every run\n",
		    term_c(t, "yellow"), term_c(t, "reset"), ndiff, n, grouped(a, sizeof(a), far),
		    first != 0 ? 100 * far / fabs(first) : 0.0, far_run + 1);
	}
	if (r->nwarmup > 0 && r->sum[TY_FIG_WALL].n > 0 && r->warmup_ns > 0) {
		double native = (double)r->warmup_ns / (double)r->nwarmup / 1e9;
		term_time(t, a, sizeof(a), native, term_unit_for(native, NULL));
		fprintf(fp,
			"  Valgrind's slowdown:      %.1f%s native (native warm-up%s: %s a run)\n",
			r->sum[TY_FIG_WALL].mean / native, term_sym(t, "times"),
			r->nwarmup == 1 ? "" : "s", a);
	} else
		fprintf(fp, "  Valgrind's slowdown:      not known (--warmup 1 runs the command "
			    "once natively first)\n");
}

void
run_instr_print_comparisons(const struct run_instr *in, const struct ty_results *rs,
			    const struct term *t, FILE *fp)
{
	size_t fig = run_instr_figure(in, rs), k;
	const struct ty_comparison *c;
	char a[48];

	if (!fig || rs->n < 2)
		return;
	fprintf(fp, "\n%sInstructions%s (%s; %s is the reference)\n", term_c(t, "bold"),
		term_c(t, "reset"), in->vg.source, rs->r[rs->reference].name);
	for (k = 0; k < rs->n; k++) {
		const char *word, *color;
		if (k == rs->reference)
			continue;
		fprintf(fp, "  %s%s%s: ", term_c(t, "bold"), rs->r[k].name, term_c(t, "reset"));
		if (!(c = ty_results_comparison(rs, k, fig))) {
			fprintf(fp, "too few runs to compare (the counts differ from run to run: "
				    "2 runs a side at least)\n");
			continue;
		}
		word = c->verdict == TY_VERDICT_SLOWER	 ? "more instructions"
		       : c->verdict == TY_VERDICT_FASTER ? "fewer instructions"
							 : NULL;
		color = c->verdict == TY_VERDICT_SLOWER	  ? "red"
			: c->verdict == TY_VERDICT_FASTER ? "green"
							  : "dim";
		if (c->exact) {
			if (!word) {
				fprintf(fp, "%sthe same count%s (exact, deterministic)\n",
					term_c(t, color), term_c(t, "reset"));
				continue;
			}
			fprintf(fp, "%s%+.4f%% (%s%s)%s %s (exact, %s, deterministic)\n",
				term_c(t, color), c->c.rel, c->c.diff > 0 ? "+" : "",
				grouped(a, sizeof(a), c->c.diff), term_c(t, "reset"), word,
				rs->r[k].nruns == 1 && rs->r[rs->reference].nruns == 1
				    ? "1 run each"
				    : "every run the same");
			continue;
		}
		if (c->c.p_value < 0.001)
			snprintf(a, sizeof(a), "p < 0.001");
		else
			snprintf(a, sizeof(a), "p = %.3f", c->c.p_value);
		fprintf(fp,
			"%+.4f%% [%+.4f%%, %+.4f%%], %s: %s%s%s (not deterministic: tested as "
			"times are)\n",
			c->c.rel, c->c.rel_lo, c->c.rel_hi, a, term_c(t, color),
			word ? word : "no difference proven", term_c(t, "reset"));
	}
}

void
run_instr_profile_section(FILE *fp, const struct term *t, const struct ty_runprof *rp,
			  size_t old_cmd, size_t new_cmd, const char *old_name,
			  const char *new_name)
{
	struct ty_runprof_diff d;
	struct ty_error e = {0};
	char a[48], b[48], c[48];
	size_t k, shown = 0;
	int rc = ty_runprof_diff_exact(rp, old_cmd, new_cmd, &d, &e);

	fprintf(fp, "\n%sWhere it changed%s: '%s' against '%s', instructions per run by function",
		term_c(t, "bold"), term_c(t, "reset"), term_safe(new_name), term_safe(old_name));
	if (rc < 0) {
		fprintf(fp, ": %s\n", e.msg);
		return;
	}
	if (rc == 1) {
		fprintf(fp, ": not compared: a function's count differs between runs of one "
			    "command (not deterministic)\n");
		return;
	}
	fprintf(fp, " (exact, self counts: cachegrind counts no inclusive ones)\n");
	if (!d.nflagged)
		fprintf(fp, "  No function's count changed\n");
	else
		fprintf(fp, "  %-32s %15s %15s %15s\n", "function", "old", "new", "change");
	for (k = 0; k < d.nrows && shown < 20; k++) {
		const struct ty_runprof_row *r = &d.rows[k];
		char pct[32] = "";
		if (!r->verdict)
			continue;
		if (r->old_ms > 0)
			snprintf(pct, sizeof(pct), " (%+.2f%%)", 100 * r->change_ms / r->old_ms);
		fprintf(
		    fp, "  %s%-32s%s %15s %15s %s%15s%s%s\n", term_c(t, "bold"),
		    term_safe(rp->syms[r->sym].name), term_c(t, "reset"),
		    grouped(a, sizeof(a), r->old_ms), grouped(b, sizeof(b), r->new_ms),
		    term_c(t, r->verdict > 0 ? "red" : "green"),
		    r->change_ms > 0
			? (snprintf(c, sizeof(c), "+%s", grouped(a, sizeof(a), r->change_ms)), c)
			: grouped(c, sizeof(c), r->change_ms),
		    term_c(t, "reset"), pct);
		shown++;
	}
	if (d.nflagged > shown)
		fprintf(fp, "  ... and %zu more functions changed\n", d.nflagged - shown);
	if (d.nflagged)
		fprintf(fp, "  %zu function%s changed, %zu the same; total change %s%s\n",
			d.nflagged, d.nflagged == 1 ? "" : "s", d.nrows - d.nflagged,
			d.wall_change_ms > 0 ? "+" : "", grouped(a, sizeof(a), d.wall_change_ms));
	ty_runprof_diff_release(&d);
}

void
run_instr_print_profile(const struct run_instr *in, const struct ty_runprof *rp,
			const struct ty_results *rs, const struct term *t, FILE *fp)
{
	size_t i;

	if (!in->active || !rp || !rp->cmds)
		return;
	for (i = 0; i < rs->n; i++)
		if (i != rs->reference && !rs->r[i].failure && !rs->r[rs->reference].failure)
			run_instr_profile_section(fp, t, rp, rs->reference, i,
						  rs->r[rs->reference].name, rs->r[i].name);
}

/* ---- the flame graph of the counts ---- */

struct instr_shades {
	struct ty_runprof *rp;
	const struct ty_runprof_row **by_sym; /* the diff's row of each function */
	double max;			      /* the largest |change| */
	int exact;			      /* the diff was made (every run repeated) */
};

/* ty_flame_opts.shade: red or blue where the function's count changed
 * (stronger as it changed more), grey where it did not. */
static int
instr_shade(void *arg, const char *name, const char *dso, double *level, char *info, size_t len)
{
	struct instr_shades *sh = arg;
	uint32_t y = ty_runprof_sym(sh->rp, name, dso);
	const struct ty_runprof_row *r = y < sh->rp->nsyms ? sh->by_sym[y] : NULL;
	char a[48], b[48], c[48], pct[32] = "";

	*level = 0;
	if (!sh->exact) {
		snprintf(info, len, "not compared: the counts differ from run to run");
		return 0;
	}
	if (!r) {
		snprintf(info, len, "not counted in the old command");
		return 0;
	}
	if (r->old_ms > 0)
		snprintf(pct, sizeof(pct), " (%+.4f%%)", 100 * r->change_ms / r->old_ms);
	snprintf(info, len, "instructions a run: %s -> %s, %s%s%s (exact)",
		 grouped(a, sizeof(a), r->old_ms), grouped(b, sizeof(b), r->new_ms),
		 r->change_ms > 0 ? "+" : "", grouped(c, sizeof(c), r->change_ms), pct);
	if (!r->verdict)
		return 0;
	*level = sh->max > 0 ? 0.3 + 0.7 * fabs(r->change_ms) / sh->max : 1;
	return r->verdict;
}

int
run_instr_flame(const struct run_instr *in, struct ty_runprof *rp, const struct ty_results *rs,
		const char *path)
{
	size_t ref = rs->reference, other = ref == 0 ? 1 : 0, k;
	struct instr_shades sh = {rp, NULL, 0, 0};
	struct ty_flame_opts fo = {0};
	struct ty_runprof_diff d;
	struct ty_profile *prof;
	struct ty_error e = {0};
	char title[512];
	int rc, st;

	if (!in->active || !path)
		return 0;
	if (rs->n != 2 || other >= rp->ncmds || !rp->cmds[other].nruns || !rp->cmds[ref].nruns)
		return cli_error(EXIT_RUNTIME, "--flame: no counts to draw ('%s' against '%s')",
				 term_safe(rs->r[other].name), term_safe(rs->r[ref].name));
	if ((rc = ty_runprof_diff_exact(rp, ref, other, &d, &e)) < 0)
		return cli_error(EXIT_RUNTIME, "--flame: %s", e.msg);
	sh.exact = rc == 0;
	if (!(sh.by_sym = calloc(rp->nsyms + 1, sizeof(*sh.by_sym))) ||
	    !(prof = ty_runprof_flat_profile(rp, other))) {
		free(sh.by_sym);
		ty_runprof_diff_release(&d);
		return cli_error(EXIT_RUNTIME, "out of memory");
	}
	for (k = 0; k < d.nrows; k++) {
		sh.by_sym[d.rows[k].sym] = &d.rows[k];
		if (d.rows[k].verdict && fabs(d.rows[k].change_ms) > sh.max)
			sh.max = fabs(d.rows[k].change_ms);
	}
	snprintf(title, sizeof(title), "Where it changed: '%s' against '%s', instructions",
		 rs->r[other].name, rs->r[ref].name);
	fo.title = title;
	fo.shade = instr_shade;
	fo.shade_arg = &sh;
	fo.unit = "instructions";
	fo.legend = sh.exact ? "red: more instructions, blue: fewer (exact counts, Valgrind's); "
			       "grey: the same count. Width: the new command's instructions by "
			       "function (no call chains: cachegrind counts none)"
			     : "not compared: a function's count differs between runs of one "
			       "command (not deterministic). Width: the new command's "
			       "instructions by function";
	st = run_profile_flame_file(path, prof, &fo);
	ty_profile_free(prof);
	free(sh.by_sym);
	ty_runprof_diff_release(&d);
	return st;
}
