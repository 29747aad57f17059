/* run-report.c - tachy run's output: the human report (each command, the
 * verdicts, the counters), the progress line, the exports written whole,
 * the regression gate. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "figure-text.h"
#include "gate.h"
#include "run.h"
#include "tachy/tachy.h"

/* the human report: stdout, or stderr when an export goes to stdout */
static FILE *rep;

/* The run's results as saved results (what the gate and the CPU line
 * compare, as compare compares the export) and the CPU figure's table. */
struct saved_view {
	struct ty_results_saved saved;
	struct ty_cmp_table cpu;
	int have, have_cpu;
};

/* The view of the report being printed (run_report_print), for the CPU line. */
static const struct saved_view *shown_view;
static const struct ty_results_saved_bench *bench_of(const struct saved_view *v,
						     const struct ty_results *rs, size_t i);

/* Print "  LABEL" padded to a column (by characters, not bytes). */
static void
label(const char *s)
{
	int w = 0;
	const char *p;

	for (p = s; *p; p++)
		w += ((unsigned char)*p & 0xc0) != 0x80;
	fprintf(rep, "  %s%*s", s, w < 26 ? 26 - w : 1, "");
}

/* Max RSS, the tree's memory, page faults, context switches (--details). */
static void
print_memory(struct term *t, const struct ty_results *rs, size_t i)
{
	const struct ty_result *r = &rs->r[i];
	const struct ty_summary *s = r->sum;
	char a[32], b[32];

	label("Max RSS (max):");
	if (r->maxrss_unmeasured < r->nruns - r->left_out || r->maxrss_floor_kb <= 0) {
		term_value(t, a, sizeof(a), s[TY_FIG_MAXRSS].max, "KiB");
		fprintf(rep, "%s", a);
		if (r->maxrss_unmeasured) {
			term_value(t, b, sizeof(b), (double)r->maxrss_floor_kb, "KiB");
			fprintf(rep, "   (%zu of %zu runs not measurable: %s %s)",
				r->maxrss_unmeasured, r->nruns - r->left_out, term_sym(t, "le"), b);
		}
		fprintf(rep, "\n");
	} else {
		term_value(t, a, sizeof(a), (double)r->maxrss_floor_kb, "KiB");
		fprintf(rep, "%s %s: below %s own footprint, not measurable\n", term_sym(t, "le"),
			a,
			rs->maxrss_method && !strcmp(rs->maxrss_method, "helper") ? "the spawner's"
										  : "tachy's");
	}
	if (rs->tree_method && ty_result_tree_peak_kb(r) > 0) {
		label("Tree memory (max):");
		term_value(t, a, sizeof(a), (double)ty_result_tree_peak_kb(r), "KiB");
		/* a cgroup is charged only the pages its processes were first to
		 * bring in: said in the man page, not on every report */
		fprintf(rep, "%s   (all processes, %s)\n", a,
			strcmp(rs->tree_method, "cgroup-v1") == 0 ? "cgroup v1, with page cache"
								  : "cgroup v2");
	}
	label("Page faults (mean):");
	fprintf(rep, "%.0f minor, %.0f major\n", s[TY_FIG_MINFLT].mean, s[TY_FIG_MAJFLT].mean);
	label("Context switches (mean):");
	fprintf(rep, "%.0f voluntary, %.0f involuntary\n", s[TY_FIG_NVCSW].mean,
		s[TY_FIG_NIVCSW].mean);
}

/* Are the counters shown in the report: named with -e, or --details? */
static int
counters_shown(const struct run_opts *o)
{
	return o->details || o->counters.replace || o->counters.add;
}

/* The counters of command I, each mean with its interval in one unit. */
static void
print_counters(struct term *t, const struct ty_results *rs, size_t i, const struct run_opts *o)
{
	const struct ty_result *r = &rs->r[i];
	const struct ty_summary *s = r->sum;
	char a[32], b[32], lbl[48];
	size_t f;

	for (f = TY_FIG_BUILTIN; f < ty_results_nfigures(rs); f++) {
		const char *u = ty_results_figure_unit(rs, f);
		if (!rs->values[f - TY_FIG_BUILTIN].supported)
			continue; /* said once, left out */
		snprintf(lbl, sizeof(lbl), "%s:", ty_results_figure_name(rs, f));
		label(lbl);
		if (s[f].n == 0) {
			fprintf(rep, "not counted\n");
			continue;
		}
		if (strcmp(u, "ns") == 0) { /* a time: both in the unit of the mean */
			const char *tu = term_unit_for(s[f].mean / 1e9, NULL);
			term_time(t, a, sizeof(a), s[f].mean / 1e9, tu);
			term_time(t, b, sizeof(b), r->ci_half[f] / 1e9, tu);
		} else {
			term_value(t, a, sizeof(a), s[f].mean, u);
			term_value(t, b, sizeof(b), r->ci_half[f], u);
		}
		fprintf(rep, "%s %s %s", a, term_sym(t, "pm"), b);
		if (rs->shell) /* a count with the shell against a time without: no ratio */
			fprintf(rep, "   (includes %s -c)", o->ro.shell);
		else
			counters_print_derived(&o->counters, rs, i, f, rep);
		fputc('\n', rep);
	}
}

/* Is W the runner's "the median is known to within X% only" warning? */
static int
precision_warning(const char *w)
{
	return strstr(w, " is known to within ") && strstr(w, " only, not ");
}

/* Does the precision of command I matter to what is reported: a
 * comparison with it (as command or reference) that proved nothing? A
 * single command's interval is on its Time line already. */
static int
precision_matters(const struct ty_results *rs, size_t i)
{
	size_t k;

	for (k = 0; k < rs->ncmp; k++)
		if (rs->cmp[k].figure == TY_FIG_WALL &&
		    (rs->cmp[k].command == i || rs->cmp[k].reference == i) &&
		    rs->cmp[k].verdict == TY_VERDICT_SAME)
			return 1;
	return 0;
}

static void
print_result(struct term *t, const struct ty_results *rs, size_t i, const struct run_opts *o)
{
	static const char *const stops[] = {"",		  "precision reached", "--max-time",
					    "--max-runs", "interrupted",       "failed"};
	const struct ty_result *r = &rs->r[i];
	const struct ty_summary *s = r->sum;
	const char *unit = term_unit_for(s[TY_FIG_WALL].mean, o->unit);
	char a[32], b[32], c[32], d[32], lbl[48];
	size_t w;

	fprintf(rep, "%sBenchmark %zu%s: %s\n", term_c(t, "bold"), i + 1, term_c(t, "reset"),
		r->name);
	if (r->failure)
		fprintf(rep, "  %sFailed%s: %s\n", term_c(t, "red"), term_c(t, "reset"),
			r->failure);
	if (r->nruns == 0) {
		fprintf(rep, "  no finished runs\n");
		return;
	}
	run_instr_print_result(&o->instr, rs, i, t, rep);
	/* under Valgrind the times are Valgrind's: said on the line */
	snprintf(lbl, sizeof(lbl), "Time%s (mean %s %g%% CI):", o->instr.active ? ", Valgrind" : "",
		 term_sym(t, "pm"), rs->confidence);
	label(lbl);
	term_time(t, a, sizeof(a), s->mean, unit);
	term_time(t, b, sizeof(b), r->ci_half[TY_FIG_WALL], unit);
	term_time(t, c, sizeof(c), s->median, unit);
	term_time(t, d, sizeof(d), s->n >= 2 ? s->stddev : NAN, unit);
	fprintf(rep, "%s%s%s %s %s   (median %s, %s %s)\n", term_c(t, "bold"), a,
		term_c(t, "reset"), term_sym(t, "pm"), b, c, term_sym(t, "sigma"), d);
	if (o->details && (rs->test == TY_TEST_MANN_WHITNEY || rs->test == TY_TEST_YUEN)) {
		const struct ty_centre *m = &r->centre[TY_FIG_WALL];
		snprintf(lbl, sizeof(lbl), "Time (%s, %g%% CI):", ty_verdict_centre_name(rs->test),
			 rs->confidence);
		label(lbl);
		term_time(t, a, sizeof(a), m->centre, unit);
		term_time(t, b, sizeof(b), m->lo, unit);
		term_time(t, c, sizeof(c), m->hi, unit);
		if (m->exact_ci)
			fprintf(rep, "%s%s%s [%s, %s]\n", term_c(t, "bold"), a, term_c(t, "reset"),
				b, c);
		else
			fprintf(rep, "%s%s%s (too few runs for an interval)\n", term_c(t, "bold"),
				a, term_c(t, "reset"));
	}
	snprintf(lbl, sizeof(lbl), "Range (min %s max):", term_sym(t, "dots"));
	label(lbl);
	term_time(t, a, sizeof(a), s[TY_FIG_WALL].min, unit);
	term_time(t, b, sizeof(b), s[TY_FIG_WALL].max, unit);
	/* the runs the figures come from; a warm-up left out is counted apart */
	fprintf(rep, "%s %s %s   (%zu run%s", a, term_sym(t, "dots"), b, r->nruns - r->left_out,
		r->nruns - r->left_out == 1 ? "" : "s");
	if (r->left_out)
		fprintf(rep, " + %zu warm-up left out", r->left_out);
	fprintf(rep, "%s%s)\n", r->stop ? ", " : "", stops[r->stop]);
	label("User / System (mean):");
	/* one unit for both, that of the larger */
	unit = term_unit_for(fmax(s[TY_FIG_USER].mean, s[TY_FIG_SYSTEM].mean), o->unit);
	term_time(t, a, sizeof(a), s[TY_FIG_USER].mean, unit);
	term_time(t, b, sizeof(b), s[TY_FIG_SYSTEM].mean, unit);
	fprintf(rep, "%s / %s\n", a, b);
	if (o->details)
		print_memory(t, rs, i);
	if (counters_shown(o))
		print_counters(t, rs, i, o);
	if (o->details && r->shell_ns)
		fprintf(rep, "  (shell start-up of %.3f ms subtracted from each run)\n",
			(double)r->shell_ns / 1e6);
	for (w = 0; w < r->nwarnings; w++)
		if (o->details || !precision_warning(r->warnings[w]) || precision_matters(rs, i))
			fprintf(rep, "  %sWarning%s: %s\n", term_c(t, "yellow"), term_c(t, "reset"),
				r->warnings[w]);
}

/* "1.02x slower" or "1.5x faster" for the time ratio V (new/reference). */
static void
ratio_text(struct term *t, char *buf, size_t size, double v)
{
	snprintf(buf, size, "%.3f%s %s", v >= 1 ? v : 1 / v, term_sym(t, "times"),
		 v >= 1 ? "slower" : "faster");
}

/* The interval of a comparison as people read it: its bounds as ratios
 * in words ("[1.02x slower, 1.10x slower]"), the percentages beside only
 * while they stay readable (between -90% and +900%), and no interval at
 * all where it spans more than a factor 10 or has no bound: "too wide to
 * be useful" then says so instead of "[-99.5%, +21805.4%]". */
static void
print_interval(struct term *t, const struct ty_compare *x, int too_few)
{
	char lo[48], hi[48];

	if (too_few) { /* the verdict says so */
		fputs(", ", rep);
		return;
	}
	if (!(x->ratio_lo > 0) || !isfinite(x->ratio_hi) || x->ratio_hi / x->ratio_lo > 10) {
		fputs(" (interval too wide to be useful: more runs, -r N or --max-time), ", rep);
		return;
	}
	ratio_text(t, lo, sizeof(lo), x->ratio_lo);
	ratio_text(t, hi, sizeof(hi), x->ratio_hi);
	fprintf(rep, " [%s, %s], ", lo, hi);
	if (x->rel_lo > -90 && x->rel_hi < 900)
		fprintf(rep, "%+.1f%% [%+.1f%%, %+.1f%%], ", x->rel, x->rel_lo, x->rel_hi);
}

/* Where the wall time's comparison C proves nothing and a CPU figure's
 * proves a change: one line with that figure and the gate on it. */
static void
print_cpu_line(const struct ty_results *rs, const struct ty_comparison *c)
{
	const struct ty_cmp_row *r;
	char buf[512];

	if (!shown_view || !shown_view->have_cpu || c->figure != TY_FIG_WALL)
		return;
	r = gate_cpu_row(&shown_view->cpu, bench_of(shown_view, rs, c->reference),
			 bench_of(shown_view, rs, c->command));
	if (r)
		fprintf(rep, "    %s\n", gate_cpu_text(buf, sizeof(buf), r));
}

static void
print_comparison(struct term *t, const struct ty_results *rs, const struct ty_comparison *c)
{
	const struct ty_compare *x = &c->c;
	const char *color = c->verdict == TY_VERDICT_FASTER   ? "green"
			    : c->verdict == TY_VERDICT_SLOWER ? "red"
							      : "dim";
	const char *word = c->verdict == TY_VERDICT_SAME ? "no difference proven"
							 : ty_verdict_word_name(c->verdict);
	int faster = x->ratio < 1;
	double ratio = faster ? 1 / x->ratio : x->ratio;
	char p[32];

	if (x->p_value < 0.001)
		snprintf(p, sizeof(p), "p < 0.001");
	else
		snprintf(p, sizeof(p), "p = %.3f", x->p_value);
	fprintf(rep, "  %s%s%s", term_c(t, "bold"), rs->r[c->command].name, term_c(t, "reset"));
	if (c->figure != TY_FIG_WALL)
		fprintf(rep, " [%s]", ty_results_figure_name(rs, c->figure));
	if (rs->r[c->command].failure || rs->r[c->reference].failure) {
		fprintf(rep, ": not compared: %s failed\n",
			rs->r[c->command].failure ? "it" : "the reference");
		return;
	}
	if (!isfinite(ratio) || !isfinite(x->rel)) { /* against a zero reference */
		fprintf(rep, ": the reference is 0: no ratio, %s: %s%s%s%s\n", p, term_c(t, color),
			word, c->too_few ? " (too few runs to prove one)" : "", term_c(t, "reset"));
		return;
	}
	if (c->interval != TY_INTERVAL_OK) { /* no interval to show: say why */
		fprintf(rep, ": %.3f%s %s, %+.1f%%, interval n/a (%s), %s: %s%s%s%s\n", ratio,
			term_sym(t, "times"), faster ? "faster" : "slower", x->rel,
			ty_verdict_interval_why(c->interval), p, term_c(t, color), word,
			c->too_few ? " (too few runs to prove one)" : "", term_c(t, "reset"));
		return;
	}
	fprintf(rep, ": %.3f%s %s", ratio, term_sym(t, "times"), faster ? "faster" : "slower");
	print_interval(t, x, c->too_few);
	fprintf(rep, "%s: %s%s%s%s\n", p, term_c(t, color), word,
		c->too_few ? " (too few runs to prove one)" : "", term_c(t, "reset"));
	if (rs->interleaved && !rs->no_pairing && !c->pairs)
		fprintf(rep, "    (rounds not paired: too few shared rounds for the test, or a "
			     "value not positive; more rounds pair them: raise -m N or -r N)\n");
	print_cpu_line(rs, c);
}

/* The commands by mean wall time, fastest first (those without a finished
 * run last; ties in the order run), for --sort mean-time. Freed by the
 * caller; NULL when out of memory. */
static const struct ty_results *by_mean_rs;

static int
by_mean(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = by_mean_rs->r[i].nruns ? by_mean_rs->r[i].sum[TY_FIG_WALL].mean : INFINITY;
	double y = by_mean_rs->r[j].nruns ? by_mean_rs->r[j].sum[TY_FIG_WALL].mean : INFINITY;

	if (x != y)
		return x < y ? -1 : 1;
	return (i > j) - (i < j);
}

static size_t *
mean_order(const struct ty_results *rs)
{
	size_t *order = malloc((rs->n ? rs->n : 1) * sizeof(*order)), i;

	for (i = 0; order && i < rs->n; i++)
		order[i] = i;
	if (order) {
		by_mean_rs = rs;
		qsort(order, rs->n, sizeof(*order), by_mean);
	}
	return order;
}

/* The verdicts against the reference, in the order run or (ORDER) by
 * mean time. */
static void
print_summary(struct term *t, const struct ty_results *rs, const size_t *order)
{
	const struct ty_comparison *c;
	size_t k, i;
	int any = 0;

	if (rs->n < 2)
		return;
	for (i = 0; i < rs->ncmp; i++)
		any |= rs->cmp[i].figure == TY_FIG_WALL && rs->cmp[i].pairs > 0;
	if (any)
		fprintf(rep,
			"\n%sSummary%s (interleaved rounds paired: %s of the per-round log "
			"ratios, %g%% confidence)\n",
			term_c(t, "bold"), term_c(t, "reset"), ty_verdict_test_title(rs->test, 1),
			rs->confidence);
	else
		fprintf(rep, "\n%sSummary%s (%s, %g%% confidence)\n", term_c(t, "bold"),
			term_c(t, "reset"), ty_verdict_test_title(rs->test, 0), rs->confidence);
	fprintf(rep, "  %s is the reference\n", rs->r[rs->reference].name);
	if (order && order[0] != rs->reference) /* hyperfine's users read it from the fastest */
		fprintf(rep,
			"  (sorted fastest first, but every ratio is against the reference, not "
			"the fastest as hyperfine's are: --reference '%s' for that)\n",
			rs->r[order[0]].name);
	if (!order) {
		for (i = 0; i < rs->ncmp; i++)
			if (rs->cmp[i].figure ==
			    TY_FIG_WALL) /* counters: counters_print_comparisons */
				print_comparison(t, rs, &rs->cmp[i]);
	}
	for (k = 0; k < rs->n; k++) {
		i = order ? order[k] : k;
		if (i == rs->reference)
			continue;
		if (!(c = ty_results_comparison(rs, i, TY_FIG_WALL)))
			fprintf(rep, "  %s: too few runs to compare\n", rs->r[i].name);
		else if (order)
			print_comparison(t, rs, c);
	}
}

void
run_report_progress(void *ctx, size_t job, const struct ty_result *res, long target, double left)
{
	struct term *t = ctx;
	double mean = 0;
	size_t i;

	(void)job;
	if (!t->progress || !term_progress_due(t))
		return;
	for (i = 0; i < res->nruns; i++)
		mean += (double)res->runs[i].wall_ns;
	mean = res->nruns ? mean / (double)res->nruns / 1e9 : 0;
	term_progress(t, res->name, (long)res->nruns, target, left, mean, 0);
}

void
run_env_json(struct ty_jsonw *w, void *si)
{
	ty_sysinfo_write_json_members(w, si);
}

/* Open every export before the first run, so that a path that cannot be
 * written fails at once, before anything is measured in vain. */
int
run_exports_open(struct ty_outfile *of, int *open, const struct run_opts *o)
{
	const char *path[NEXPORTS] = EXPORT_PATHS(o);
	struct ty_error e;
	int k, j;

	for (k = 0; k < NEXPORTS; k++) {
		if (!path[k])
			continue;
		ty_error_clear(&e);
		if (ty_outfile_open(&of[k], path[k], &e) < 0) {
			for (j = 0; j < k; j++)
				if (open[j])
					ty_outfile_abort(&of[j]);
			memset(open, 0, NEXPORTS * sizeof(*open));
			return cli_error(EXIT_RUNTIME, "%s", e.msg);
		}
		open[k] = 1;
	}
	return 0;
}

/* Give up the open exports (the destinations are left untouched). */
void
run_exports_abort(struct ty_outfile *of, int *open)
{
	int k;

	for (k = 0; k < NEXPORTS; k++)
		if (open[k])
			ty_outfile_abort(&of[k]);
	memset(open, 0, NEXPORTS * sizeof(*open));
}

/* Write and commit the open exports that go to files (TO_STDOUT 0) or to
 * stdout (1): the files are written before the report, so a closed or full
 * stdout cannot cost them. */
int
run_exports_write(struct ty_outfile *of, int *open, const struct ty_results *rs,
		  const struct run_opts *o, struct ty_sysinfo *si, int to_stdout)
{
	const char *path[NEXPORTS] = EXPORT_PATHS(o);
	size_t *order = o->sort_mean ? mean_order(rs) : NULL;
	struct ty_error e;
	int st = 0, k, rc;

	for (k = 0; k < NEXPORTS; k++) {
		if (!open[k] || of[k].is_stdout != to_stdout)
			continue;
		open[k] = 0;
		if (k == 0)
			rc = ty_results_write_json(rs, of[k].fp, si ? run_env_json : NULL, si);
		else if (k == 1)
			rc = ty_results_write_csv(rs, of[k].fp);
		else if (k == 2 && !o->sort_mean)
			rc = ty_results_write_markdown(rs, of[k].fp, o->unit);
		else
			rc = ty_results_write_table(rs, of[k].fp, (enum ty_table)(k - 2), o->unit,
						    o->sort_mean ? order : NULL);
		if (rc < 0) {
			/* the writer sees only the stream's error flag: the
			 * write's own reason (ENOSPC, EPIPE...) is the file's */
			if (rc == -EIO && of[k].werr)
				rc = -of[k].werr;
			ty_outfile_abort(&of[k]);
			if (rc == -EIO && of[k].is_stdout) { /* said with its reason at exit */
				st = EXIT_RUNTIME;
				continue;
			}
			st = cli_error(EXIT_RUNTIME, "cannot write '%s': %s", path[k],
				       strerror(-rc));
			continue;
		}
		ty_error_clear(&e);
		if (ty_outfile_commit(&of[k], &e) < 0)
			st = cli_error(EXIT_RUNTIME, "%s", e.msg);
	}
	free(order);
	return st;
}

/* RS as saved results into V, and the options it is compared with. */
static int
saved_view(struct saved_view *v, const struct ty_results *rs, const struct run_opts *o,
	   struct ty_cmp_options *opt)
{
	struct ty_error e = {0};
	int rc;

	memset(v, 0, sizeof(*v));
	memset(opt, 0, sizeof(*opt));
	opt->test = rs->test;
	opt->confidence = rs->confidence;
	opt->no_pairing = o->no_pairing;
	opt->keep_warmup = o->keep_warmup;
	if ((rc = ty_results_saved_from(&v->saved, rs, NULL, NULL, "this run", &e)) < 0)
		return rc;
	v->have = 1;
	return 0;
}

static void
saved_view_release(struct saved_view *v)
{
	if (v->have_cpu)
		ty_comparison_release(&v->cpu);
	if (v->have)
		ty_results_saved_release(&v->saved);
	v->have = v->have_cpu = 0;
}

/* The saved benchmark of command I (the commands with runs, in order). */
static const struct ty_results_saved_bench *
bench_of(const struct saved_view *v, const struct ty_results *rs, size_t i)
{
	size_t k, b = 0;

	if (!v->have || !rs->r[i].nruns)
		return NULL;
	for (k = 0; k < i; k++)
		b += rs->r[k].nruns > 0;
	return b < v->saved.nbenches ? &v->saved.benches[b] : NULL;
}

static void
gate_say(void *ctx, const struct ty_cmp_row *r, enum ty_gate g, const char *m)
{
	(void)ctx;
	if (g != TY_GATE_TRIP && g != TY_GATE_UNPROVEN)
		return;
	/* the names as the report shows them (the results' shown forms) */
	cli_error(0, "'%s' against '%s': %s%s", r->new->label, r->old->label, m,
		  g == TY_GATE_TRIP ? "" : " (the gate passes)");
}

/* The one gate of run and compare (gate.c) on the run's saved results. */
static int
gate(const struct ty_results *rs, const struct run_opts *o)
{
	struct ty_cmp_options opt;
	struct saved_view v;
	struct ty_cmp_table c;
	int st;

	if (!gate_set(&o->gate) || rs->n < 2)
		return 0;
	if (saved_view(&v, rs, o, &opt) < 0)
		return 0; /* no command has a run: nothing to gate (said above) */
	if (!(st = gate_table(&c, &v.saved, 1, &opt, &o->gate))) {
		if (gate_judge(&c, &o->gate, gate_say, NULL) == TY_GATE_TRIP)
			st = EXIT_REGRESSION;
		ty_comparison_release(&c);
	}
	saved_view_release(&v);
	return st;
}

/* Swap the names and commands of RS with their shown forms (TO 1) and
 * back (TO 0); SAVED holds 2 per result. */
static void
swap_shown(struct ty_results *rs, char **saved, int to)
{
	size_t i;
	char *t;

	for (i = 0; i < rs->n && saved; i++) {
		if (to) {
			saved[2 * i] = term_shown(rs->r[i].name);
			saved[2 * i + 1] = term_shown(rs->r[i].command);
		}
		if (saved[2 * i]) {
			t = rs->r[i].name;
			rs->r[i].name = saved[2 * i];
			saved[2 * i] = t;
		}
		if (saved[2 * i + 1]) {
			t = rs->r[i].command;
			rs->r[i].command = saved[2 * i + 1];
			saved[2 * i + 1] = t;
		}
		if (!to) {
			free(saved[2 * i]);
			free(saved[2 * i + 1]);
		}
	}
}

static int
export_to_stdout(const struct run_opts *o)
{
	const char *path[NEXPORTS] = EXPORT_PATHS(o);
	int k;

	for (k = 0; k < NEXPORTS; k++)
		if (path[k] && strcmp(path[k], "-") == 0)
			return 1;
	return 0;
}

static void print_report_body(struct bench *b);

void
run_report_print(struct bench *b)
{
	char **saved = calloc(2 * b->rs.n + 1, sizeof(char *));
	struct ty_cmp_options opt;
	struct saved_view v = {0};

	swap_shown(&b->rs, saved, 1);
	/* the CPU line: the default report, where commands are compared */
	if (b->rs.n >= 2 && !b->o.counters.perf_stat && saved_view(&v, &b->rs, &b->o, &opt) == 0 &&
	    gate_cpu_table(&v.cpu, &v.saved, 1, &opt) == 0) {
		v.have_cpu = v.cpu.nrows > 0;
		if (!v.have_cpu)
			ty_comparison_release(&v.cpu);
		shown_view = &v;
	}
	print_report_body(b);
	shown_view = NULL;
	saved_view_release(&v);
	swap_shown(&b->rs, saved, 0);
	free(saved);
}

static void
print_report_body(struct bench *b)
{
	if (b->rs.shell)
		fprintf(
		    rep,
		    "Shell start-up (%s -c '', %ld runs): %.3f ms, subtracted from each run\n\n",
		    b->o.ro.shell, b->runner.o.shell_runs,
		    b->rs.n ? (double)b->rs.r[0].shell_ns / 1e6 : 0);
	for (size_t i = 0; i < b->rs.n && b->o.counters.perf_stat; i++)
		counters_print_perf_stat(&b->o.counters, &b->rs, i, rep);
	for (size_t i = 0; i < b->rs.n && !b->o.counters.perf_stat; i++) {
		print_result(&b->term, &b->rs, i, &b->o);
		if (i + 1 < b->rs.n)
			fputc('\n', rep);
	}
	if (!b->o.counters.perf_stat) {
		if (counters_shown(&b->o))
			counters_print_unsupported(&b->o.counters, &b->rs, rep);
		size_t *order = b->o.sort_mean ? mean_order(&b->rs) : NULL;
		print_summary(&b->term, &b->rs, order);
		free(order);
		if (counters_shown(&b->o))
			counters_print_comparisons(&b->o.counters, &b->rs, &b->term, rep);
		run_instr_print_comparisons(&b->o.instr, &b->rs, &b->term, rep);
		if (b->o.instr.active)
			run_instr_print_profile(&b->o.instr, b->o.prof.on ? &b->o.prof.rp : NULL,
						&b->rs, &b->term, rep);
		else
			run_profile_print(&b->o.prof, &b->rs, &b->term, rep);
	}
}

/* The regression gate, with the names as the report shows them. */
int
run_report_gate(struct bench *b)
{
	char **saved = calloc(2 * b->rs.n + 1, sizeof(char *));
	int st;

	swap_shown(&b->rs, saved, 1);
	st = gate(&b->rs, &b->o);
	swap_shown(&b->rs, saved, 0);
	free(saved);
	return st;
}

/* -o FILE: the report is written to FILE (through outfile.c: whole or
 * not at all), opened before the first run as the exports are. */
static int
report_open(struct bench *b, int color_stdout)
{
	struct ty_error e;

	if (!b->o.report_file)
		return 0;
	if (strcmp(b->o.report_file, "-") == 0 && export_to_stdout(&b->o))
		return cli_usage_error("-o - and an export to '-': standard output holds one");
	ty_error_clear(&e);
	if (ty_outfile_open(&b->rof, b->o.report_file, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	b->rof_open = 1;
	rep = b->rof.fp;
	if (!b->rof.is_stdout && b->o.color != TERM_COLOR_ALWAYS)
		b->term.color = 0;
	else if (b->rof.is_stdout && b->o.color == TERM_COLOR_AUTO)
		b->term.color = color_stdout;
	return 0;
}

int
run_report_commit(struct bench *b)
{
	struct ty_error e;

	b->rof_open = 0;
	ty_error_clear(&e);
	if (fflush(b->rof.fp) != 0 || ferror(b->rof.fp)) {
		ty_outfile_abort(&b->rof);
		return cli_error(EXIT_RUNTIME, "cannot write '%s': %s", b->o.report_file,
				 strerror(errno ? errno : EIO));
	}
	if (ty_outfile_commit(&b->rof, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	return 0;
}

/* The commands that failed, each with why (after the report). Returns
 * EXIT_RUNTIME. */
int
run_report_failures(const struct ty_results *rs)
{
	size_t i, k;

	for (i = 0; i < rs->n; i++) {
		if (!rs->r[i].failure)
			continue;
		for (k = 0; k < i; k++) /* a shared --setup: said once */
			if (rs->r[k].failure && strcmp(rs->r[k].failure, rs->r[i].failure) == 0)
				break;
		if (k == i)
			cli_error(EXIT_RUNTIME, "%s", rs->r[i].failure);
	}
	return EXIT_RUNTIME;
}

/* Where the report goes and in which colours: stdout, or stderr when an
 * export or perf stat's report takes stdout; -o FILE opened now. */
int
run_report_start(struct bench *b)
{
	int color_stdout;

	term_init(&b->term, b->o.color, b->o.style);
	if (b->o.ro.output == TY_OUTPUT_INHERIT)
		b->term.progress = 0; /* it would be drawn between the command's lines */
	rep = stdout;
	color_stdout = b->term.color;
	if (export_to_stdout(&b->o) || b->o.counters.perf_stat) {
		/* stdout holds only the export; perf stat's report is on stderr */
		rep = stderr;
		if (b->o.color == TERM_COLOR_AUTO)
			b->term.color = b->term.color_stderr;
	}
	return report_open(b, color_stdout);
}
