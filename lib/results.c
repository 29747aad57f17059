/* results.c - the result model (results.h): the runs of each command, and
 * their analysis (summaries, warnings about the order of the runs, the
 * comparisons against the reference). Its exports are results-export.c's. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/results.h"
#include "tachy/verdict.h"

static const char *const fig_names[TY_FIG_BUILTIN] = {"wall",	"user",	  "system", "maxrss",
						      "minflt", "majflt", "nvcsw",  "nivcsw"};
static const char *const fig_units[TY_FIG_BUILTIN] = {"s", "s", "s", "KiB", "", "", "", ""};

int
ty_results_init(struct ty_results *rs, size_t n, struct ty_error *e)
{
	memset(rs, 0, sizeof(*rs));
	rs->confidence = 95;
	rs->test = TY_TEST_DEFAULT;
	rs->clock = "CLOCK_MONOTONIC";
	rs->r = calloc(n ? n : 1, sizeof(*rs->r));
	if (!rs->r)
		return ty_error_set(e, -ENOMEM, "out of memory");
	rs->n = n;
	return 0;
}

static void
result_release(struct ty_result *r)
{
	size_t i;

	free(r->command);
	free(r->name);
	for (i = 0; i < r->nparams; i++) {
		free(r->params[i].name);
		free(r->params[i].value);
	}
	free(r->params);
	free(r->runs);
	free(r->values);
	for (i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->failure);
	free(r->sum);
	free(r->ci_half);
	free(r->centre);
}

void
ty_results_release(struct ty_results *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		result_release(&rs->r[i]);
	free(rs->r);
	free(rs->cmp);
	free((void *)rs->values);
	memset(rs, 0, sizeof(*rs));
}

int
ty_result_add(struct ty_result *r, const struct ty_results_run *s, const double *values,
	      size_t nvalues, struct ty_error *e)
{
	/* not ty_array_grow: runs and values (NVALUES a run) grow together
	 * under the one capacity */
	if (r->nruns == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct ty_results_run *runs = realloc(r->runs, cap * sizeof(*runs));
		double *v = NULL;

		if (!runs)
			return ty_error_set(e, -ENOMEM, "out of memory");
		r->runs = runs;
		if (nvalues) {
			v = realloc(r->values, cap * nvalues * sizeof(*v));
			if (!v)
				return ty_error_set(e, -ENOMEM, "out of memory");
			r->values = v;
		}
		r->cap = cap;
	}
	r->runs[r->nruns] = *s;
	if (nvalues)
		memcpy(r->values + r->nruns * nvalues, values, nvalues * sizeof(double));
	r->nruns++;
	return 0;
}

int
ty_result_warn(struct ty_result *r, const char *fmt, ...)
{
	char **w;
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	/* one at a time: a result has a handful of warnings */
	w = realloc(r->warnings, (r->nwarnings + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return -ENOMEM;
	}
	w[r->nwarnings++] = s;
	r->warnings = w;
	return 0;
}

size_t
ty_results_nfigures(const struct ty_results *rs)
{
	return TY_FIG_BUILTIN + rs->nvalues;
}

const char *
ty_results_figure_name(const struct ty_results *rs, size_t fig)
{
	return fig < TY_FIG_BUILTIN ? fig_names[fig] : rs->values[fig - TY_FIG_BUILTIN].name;
}

const char *
ty_results_figure_unit(const struct ty_results *rs, size_t fig)
{
	return fig < TY_FIG_BUILTIN ? fig_units[fig] : rs->values[fig - TY_FIG_BUILTIN].unit;
}

double
ty_results_value(const struct ty_results *rs, const struct ty_result *r, size_t i, size_t fig)
{
	const struct ty_results_run *s = &r->runs[i];

	switch (fig) {
	case TY_FIG_WALL:
		return (double)s->wall_ns / 1e9;
	case TY_FIG_USER:
		return (double)s->usage.user_ns / 1e9;
	case TY_FIG_SYSTEM:
		return (double)s->usage.system_ns / 1e9;
	case TY_FIG_MAXRSS: /* not above the floor: the spawner's peak, not the run's */
		if (s->usage.maxrss_floor_kb > 0 && s->usage.maxrss_kb <= s->usage.maxrss_floor_kb)
			return NAN;
		return (double)s->usage.maxrss_kb;
	case TY_FIG_MINFLT:
		return (double)s->usage.minflt;
	case TY_FIG_MAJFLT:
		return (double)s->usage.majflt;
	case TY_FIG_NVCSW:
		return (double)s->usage.nvcsw;
	case TY_FIG_NIVCSW:
		return (double)s->usage.nivcsw;
	}
	return r->values[i * rs->nvalues + (fig - TY_FIG_BUILTIN)];
}

long
ty_result_tree_peak_kb(const struct ty_result *r)
{
	long m = 0;
	size_t i;

	for (i = r->left_out; i < r->nruns; i++)
		if (r->runs[i].usage.tree_peak_kb > m)
			m = r->runs[i].usage.tree_peak_kb;
	return m;
}

/* The finite values of FIG in R after the runs left out, into X (room
 * for r->nruns), with their rounds into ROUND when not NULL. */
static size_t
figure_values(const struct ty_results *rs, const struct ty_result *r, size_t fig, double *x,
	      uint32_t *round)
{
	size_t i, k = 0;

	for (i = r->left_out; i < r->nruns; i++) {
		double v = ty_results_value(rs, r, i, fig);
		if (isfinite(v)) {
			if (round)
				round[k] = r->runs[i].round;
			x[k++] = v;
		}
	}
	return k;
}

/* ---- analysis ---- */

static void
warn_outliers(struct ty_result *r, const double *x, size_t n, const struct ty_summary *s, int first)
{
	double mad = ty_stats_mad(x, n, s->median);
	size_t i, k = 0;

	if (n < 5 || !(mad > 0))
		return;
	for (i = 0; i < n; i++)
		if (fabs(0.6745 * (x[i] - s->median) / mad) > 3.5)
			k++;
	if (k)
		ty_result_warn(r,
			       "%zu outlier%s among %zu runs (modified z-score > 3.5): "
			       "another program or the system may have disturbed the benchmark",
			       k, k == 1 ? "" : "s", n);
	if (first && fabs(0.6745 * (x[0] - s->median) / mad) > 3.5 && x[0] > 1.5 * s->median &&
	    x[0] < 10 * s->median)
		ty_result_warn(r,
			       "the first run took %.1fx the median: caches were cold; "
			       "consider -w/--warmup or --prepare",
			       x[0] / s->median);
}

/* What the order of the runs showed: a warm-up, a level shift. */
static void
warn_series(struct ty_result *r, int keep)
{
	const struct ty_verdict_series *s = &r->series;
	double q;

	if (s->warmup) {
		q = s->warmup_ratio >= 1 ? s->warmup_ratio : 1 / s->warmup_ratio;
		ty_result_warn(r,
			       "warm-up: the first %zu run%s %.*fx %s than the rest: %s; "
			       "--warmup %zu would skip %s",
			       s->warmup, s->warmup == 1 ? " was" : "s were", q >= 10 ? 0 : 1, q,
			       s->warmup_ratio >= 1 ? "slower" : "faster",
			       keep ? "kept (--keep-warmup)" : "left out of the figures", s->warmup,
			       s->warmup == 1 ? "it" : "them");
	}
	if (s->shift_at)
		ty_result_warn(r,
			       "level shift: from run %zu on the times were %.2fx those before "
			       "(median %.4g s before, %.4g s after); the machine's state changed "
			       "during the benchmark, and the figures mix the two levels",
			       s->shift_at + 1, s->after / s->before, s->before, s->after);
}

/* Runs that differ by orders of magnitude did different work: say what
 * usually makes them (a hook that runs once, a first run that built what
 * the later ones found done, or one that found it done), not cold caches. */
/* The runs at either end of X[0..N) by wall time did about the same CPU
 * work (user + system within 3x, CPU[0..N) in the order of X) while their
 * wall times are 10x apart: the slow ones waited, not worked. */
static int
waited(const double *x, const double *cpu, size_t n)
{
	size_t i, lo = 0, hi = 0;

	if (!cpu)
		return 0;
	for (i = 1; i < n; i++) {
		if (x[i] < x[lo])
			lo = i;
		if (x[i] > x[hi])
			hi = i;
	}
	return cpu[hi] <= 3 * cpu[lo] && x[hi] > 10 * cpu[hi];
}

static int
warn_orders(const struct ty_results *rs, struct ty_result *r, const double *x, const double *cpu,
	    size_t n, const struct ty_summary *s)
{
	static const char each[] = "to start every run alike, clean up around every run with "
				   "--prepare or --conclude (perf's --pre/--post)";
	char load[96] = "";

	if (n < 3 || !(s->median > 0) || !(s->min > 0))
		return 0;
	if (x[0] >= 10 * s->median && r->hooks_once && !r->hooks_each)
		ty_result_warn(r,
			       "the first run took %.0fx the median: it did work the later runs "
			       "did not, and --setup/--cleanup run once, before the first run "
			       "and after the last; %s",
			       x[0] / s->median, each);
	else if (x[0] >= 10 * s->median)
		ty_result_warn(r,
			       "the first run took %.0fx the median: it did work the later runs "
			       "found done (a build, a cache it filled); %s, or leave it out "
			       "with -w/--warmup",
			       x[0] / s->median, each);
	else if (s->median >= 10 * x[0])
		ty_result_warn(r,
			       "the first run took 1/%.0f of the median: it found its work done "
			       "(a build already up to date?) while the later runs did it; "
			       "clean before the first run too (--setup or --prepare)",
			       s->median / x[0]);
	else if (s->max >= 10 * s->min && waited(x, cpu, n)) {
		if (rs->load1 > 0 && rs->load_cpus > 0)
			snprintf(load, sizeof(load), " (load average %.2f on %d CPUs at the start)",
				 rs->load1, rs->load_cpus);
		ty_result_warn(r,
			       "the runs differ by orders of magnitude (the slowest took %.0fx "
			       "the fastest) in wall time but not in CPU time: the slow ones "
			       "waited for a CPU, the machine was busy%s; run on a quiet machine "
			       "(tachy env names what runs), or gate on CPU time (--gate-on cpu)",
			       s->max / s->min, load);
	} else if (s->max >= 10 * s->min)
		ty_result_warn(r,
			       "the runs differ by orders of magnitude (the slowest took %.0fx "
			       "the fastest): some did work the others did not%s; %s",
			       s->max / s->min,
			       r->hooks_once && !r->hooks_each
				   ? " (--setup and --cleanup run once, not around every run)"
				   : "",
			       each);
	else
		return 0;
	return 1;
}

/* A trend of the wall time over the run order (Pearson's r, t test at 1%). */
static void
warn_drift(struct ty_result *r, const double *x, size_t n, const struct ty_summary *s)
{
	double sxx = 0, sxy = 0, syy = 0, mx, b, rr, t, p, change;
	size_t i;

	if (n < 8 || !(s->mean > 0))
		return;
	mx = (double)(n - 1) / 2;
	for (i = 0; i < n; i++) {
		double dx = (double)i - mx, dy = x[i] - s->mean;
		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	if (!(syy > 0))
		return;
	b = sxy / sxx;
	rr = sxy / sqrt(sxx * syy);
	if (fabs(rr) >= 1)
		return;
	t = rr * sqrt((double)(n - 2) / (1 - rr * rr));
	p = 2 * (1 - ty_stats_t_cdf(fabs(t), (double)(n - 2)));
	change = 100 * b * (double)(n - 1) / s->mean;
	if (p < 0.01 && fabs(change) >= 5)
		ty_result_warn(r,
			       "drift: the times %s by about %.0f%% from the first run to the "
			       "last (p = %.2g); the machine's state changed during the benchmark",
			       change > 0 ? "rose" : "fell", fabs(change), p);
}

static int
exact_figure(const struct ty_results *rs, size_t fig)
{
	return fig >= TY_FIG_BUILTIN && fig - TY_FIG_BUILTIN < rs->nvalues &&
	       rs->values[fig - TY_FIG_BUILTIN].exact;
}

/* The count every run of R repeated (all of them, a detected warm-up of
 * the wall times too) into *V: 1, or 0 when they differ or none counted. */
static int
repeated(const struct ty_results *rs, const struct ty_result *r, size_t fig, double *v)
{
	size_t i;

	if (!r->nruns)
		return 0;
	*v = ty_results_value(rs, r, 0, fig);
	for (i = 0; i < r->nruns; i++)
		if (!isfinite(*v) || ty_results_value(rs, r, i, fig) != *v)
			return 0;
	return 1;
}

/* An exact figure where every run of both commands repeated its count:
 * the difference is exact, with one run a side. Returns 0, or -EINVAL
 * when the counts were not repeated (the tests decide then). */
static int
compare_exact(const struct ty_results *rs, size_t i, size_t fig, struct ty_comparison *out)
{
	double a, b;

	if (!repeated(rs, &rs->r[rs->reference], fig, &a) || !repeated(rs, &rs->r[i], fig, &b))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->command = i;
	out->reference = rs->reference;
	out->figure = fig;
	out->exact = 1;
	out->c.test = rs->test;
	ty_verdict_exact(a, b, &out->c, &out->verdict, &out->interval);
	return 0;
}

/* Command I against the reference on figure FIG, through the same
 * function as every verdict of tachy compare (ty_verdict_compute), so the
 * two give the same verdict on the same runs. A and B have room for the
 * runs. Returns 0, -ENOMEM, or another negative errno when there is no
 * comparison to make (fewer than 2 values on a side). */
static int
compare(struct ty_results *rs, size_t i, size_t fig, double *a, double *b, uint32_t *ra,
	uint32_t *rb, struct ty_comparison *out)
{
	size_t na = figure_values(rs, &rs->r[rs->reference], fig, a, ra);
	size_t nb = figure_values(rs, &rs->r[i], fig, b, rb);
	int pair = rs->interleaved && !rs->no_pairing;
	struct ty_verdict_opts o = {rs->test, rs->confidence, pair ? ra : NULL, pair ? rb : NULL};
	struct ty_verdict v;
	struct ty_error e;
	int rc;

	if (exact_figure(rs, fig) && (rc = compare_exact(rs, i, fig, out)) != -EINVAL)
		return rc;
	if (na < 2 || nb < 2)
		return -EINVAL;
	rc = ty_verdict_compute(a, na, b, nb, &o, &v, &e);
	if (rc < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->command = i;
	out->reference = rs->reference;
	out->figure = fig;
	out->c = v.c;
	out->too_few = v.too_few;
	out->pairs = v.pairs;
	out->verdict = v.verdict;
	out->interval = v.interval;
	return 0;
}

static int
analyze_one(struct ty_results *rs, struct ty_result *r, double *x, struct ty_error *e)
{
	size_t nf = ty_results_nfigures(rs), f, n;
	int rc;

	r->left_out = 0;
	for (f = 0; f < r->nruns; f++)
		x[f] = ty_results_value(rs, r, f, TY_FIG_WALL);
	if ((rc = ty_verdict_series(x, r->nruns, &r->series)) < 0)
		return ty_error_set(e, rc, "out of memory");
	if (!rs->keep_warmup)
		r->left_out = r->series.warmup;
	free(r->sum);
	free(r->ci_half);
	free(r->centre);
	r->sum = calloc(nf, sizeof(*r->sum));
	r->ci_half = calloc(nf, sizeof(double));
	r->centre = calloc(nf, sizeof(*r->centre));
	if (!r->sum || !r->ci_half || !r->centre)
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (f = 0; f < nf; f++) {
		n = figure_values(rs, r, f, x, NULL);
		if (n == 0) {
			r->sum[f].mean = r->sum[f].median = r->sum[f].min = r->sum[f].max = NAN;
			r->ci_half[f] = NAN;
			r->centre[f].centre = r->centre[f].lo = r->centre[f].hi = NAN;
			continue;
		}
		if (ty_stats_summarize(x, n, &r->sum[f]) < 0)
			return ty_error_set(e, -ENOMEM, "out of memory");
		r->ci_half[f] =
		    n >= 2 ? ty_stats_mean_ci_halfwidth(&r->sum[f], rs->confidence) : NAN;
		if ((rc = ty_verdict_centre(x, n, rs->test, rs->confidence, &r->centre[f])) < 0)
			return ty_error_set(e, rc, "out of memory");
	}
	for (f = 0, n = 0; f < r->nruns; f++)
		n += r->runs[f].exit_code != 0 || r->runs[f].signal || r->runs[f].timed_out;
	if (n)
		ty_result_warn(r, "%zu of %zu runs failed (non-zero exit, signal or timeout)", n,
			       r->nruns);
	r->maxrss_floor_kb = 0;
	r->maxrss_unmeasured = 0;
	for (f = r->left_out; f < r->nruns; f++) { /* the runs the figures come from */
		const struct ty_usage *u = &r->runs[f].usage;
		if (u->maxrss_floor_kb > r->maxrss_floor_kb)
			r->maxrss_floor_kb = u->maxrss_floor_kb;
		if (u->maxrss_floor_kb > 0 && u->maxrss_kb <= u->maxrss_floor_kb)
			r->maxrss_unmeasured++;
	}
	r->maxrss_measurable = r->nruns > r->left_out && r->maxrss_unmeasured == 0;
	warn_series(r, rs->keep_warmup);
	n = figure_values(rs, r, TY_FIG_WALL, x, NULL);
	if (n) {
		/* the cause of runs orders of magnitude apart is named, not "outliers" */
		double *cpu = malloc(n * sizeof(*cpu)), *sys = malloc(n * sizeof(*sys));
		int have = cpu && sys && figure_values(rs, r, TY_FIG_USER, cpu, NULL) == n &&
			   figure_values(rs, r, TY_FIG_SYSTEM, sys, NULL) == n;
		for (size_t i = 0; have && i < n; i++)
			cpu[i] += sys[i];
		free(sys);
		int said = warn_orders(rs, r, x, have ? cpu : NULL, n, &r->sum[TY_FIG_WALL]);
		free(cpu);
		if (!said)
			warn_outliers(r, x, n, &r->sum[TY_FIG_WALL], r->left_out == 0);
		if (!r->series.shift_at)
			warn_drift(r, x, n, &r->sum[TY_FIG_WALL]);
		if (rs->shell && r->sum[TY_FIG_WALL].median < 0.005)
			ty_result_warn(
			    r, "the median is below 5 ms with --shell: the shell's start-up "
			       "that was subtracted dominates; run without --shell");
	}
	return 0;
}

int
ty_results_analyze(struct ty_results *rs, struct ty_error *e)
{
	size_t i, f, nf = ty_results_nfigures(rs), maxn = 1;
	uint32_t *ra, *rb;
	double *a, *b;
	int rc = 0;

	for (i = 0; i < rs->n; i++)
		if (rs->r[i].nruns > maxn)
			maxn = rs->r[i].nruns;
	a = malloc(maxn * sizeof(double));
	b = malloc(maxn * sizeof(double));
	ra = malloc(maxn * sizeof(*ra));
	rb = malloc(maxn * sizeof(*rb));
	free(rs->cmp);
	rs->ncmp = 0;
	rs->cmp = rs->n > 1 ? calloc((rs->n - 1) * nf, sizeof(*rs->cmp)) : NULL;
	if (!a || !b || !ra || !rb || (rs->n > 1 && !rs->cmp)) {
		rc = ty_error_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < rs->n && rc == 0; i++)
		rc = analyze_one(rs, &rs->r[i], a, e);
	for (i = 0; i < rs->n && rc == 0; i++) {
		if (i == rs->reference)
			continue;
		for (f = 0; f < nf && rc == 0; f++) {
			if (f == TY_FIG_MAXRSS && (!rs->r[i].maxrss_measurable ||
						   !rs->r[rs->reference].maxrss_measurable))
				continue; /* tachy's own footprint: no verdict */
			rc = compare(rs, i, f, a, b, ra, rb, &rs->cmp[rs->ncmp]);
			if (rc == 0)
				rs->ncmp++;
			else if (rc == -ENOMEM)
				rc = ty_error_set(e, rc, "out of memory");
			else /* too few runs: no comparison */
				rc = 0;
		}
	}
out:
	free(a);
	free(b);
	free(ra);
	free(rb);
	return rc;
}

const struct ty_comparison *
ty_results_comparison(const struct ty_results *rs, size_t command, size_t fig)
{
	size_t i;

	for (i = 0; i < rs->ncmp; i++)
		if (rs->cmp[i].command == command && rs->cmp[i].figure == fig)
			return &rs->cmp[i];
	return NULL;
}
