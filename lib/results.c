/* results.c - the result model, its analysis and its exports. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "tachy/jsonw.h"
#include "tachy/markdown.h"
#include "tachy/outfile.h"
#include "tachy/results.h"
#include "tachy/runprof-json.h"
#include "tachy/tachy.h"
#include "tachy/utf8.h"
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
ty_result_add(struct ty_result *r, const struct ty_sample *s, const double *values, size_t nvalues,
	      struct ty_error *e)
{
	if (r->nruns == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct ty_sample *runs = realloc(r->runs, cap * sizeof(*runs));
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
	const struct ty_sample *s = &r->runs[i];

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
static int
warn_orders(struct ty_result *r, const double *x, size_t n, const struct ty_summary *s)
{
	static const char each[] = "to start every run alike, clean up around every run with "
				   "--prepare or --conclude (perf's --pre/--post)";

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
	else if (s->max >= 10 * s->min)
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
		if (!warn_orders(r, x, n, &r->sum[TY_FIG_WALL]))
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

/* ---- JSON ---- */

void
ty_results_env_default(struct ty_jsonw *w, void *ctx)
{
	struct utsname u;
	char date[32];
	time_t now = time(NULL);
	struct tm tm;

	(void)ctx;
	if (uname(&u) == 0) {
		ty_jsonw_kstring(w, "kernel", u.release);
		ty_jsonw_kstring(w, "machine", u.machine);
	}
	ty_jsonw_kint(w, "cores", sysconf(_SC_NPROCESSORS_ONLN));
	ty_jsonw_kstring(w, "tachy_version", TY_VERSION);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	ty_jsonw_kstring(w, "date", date);
}

static const char *
stop_name(enum ty_stop_reason s)
{
	static const char *const names[] = {"runs",	"precision",   "max-time",
					    "max-runs", "interrupted", "failed"};
	return names[s];
}

/* A whole number as an integer (counts read better as 812345 than
 * 8.12345e+05), anything else as the shortest round-tripping double. */
static void
json_num(struct ty_jsonw *w, const char *key, double v)
{
	if (isfinite(v) && v == floor(v) && fabs(v) < 9e15)
		ty_jsonw_kint(w, key, (int64_t)v);
	else
		ty_jsonw_kdouble(w, key, v);
}

static void
json_run(const struct ty_results *rs, const struct ty_result *r, size_t i, struct ty_jsonw *w)
{
	const struct ty_sample *s = &r->runs[i];
	size_t k;

	ty_jsonw_object_begin(w);
	ty_jsonw_kint(w, "start_ns", s->start_ns);
	ty_jsonw_kint(w, "wall_ns", s->wall_ns);
	ty_jsonw_kint(w, "user_ns", s->usage.user_ns);
	ty_jsonw_kint(w, "system_ns", s->usage.system_ns);
	ty_jsonw_kint(w, "maxrss_kb", s->usage.maxrss_kb);
	if (rs->tree_method)
		ty_jsonw_kint(w, "tree_peak_kb", s->usage.tree_peak_kb);
	ty_jsonw_kint(w, "minflt", s->usage.minflt);
	ty_jsonw_kint(w, "majflt", s->usage.majflt);
	ty_jsonw_kint(w, "nvcsw", s->usage.nvcsw);
	ty_jsonw_kint(w, "nivcsw", s->usage.nivcsw);
	ty_jsonw_kint(w, "exit_code", s->exit_code);
	ty_jsonw_kint(w, "signal", s->signal);
	ty_jsonw_kbool(w, "timed_out", s->timed_out);
	ty_jsonw_kint(w, "round", s->round);
	if (rs->nvalues) {
		ty_jsonw_key(w, "counters");
		ty_jsonw_object_begin(w);
		for (k = 0; k < rs->nvalues; k++)
			if (rs->values[k].supported) /* unsupported: left out, never 0 */
				json_num(w, rs->values[k].name, r->values[i * rs->nvalues + k]);
		ty_jsonw_object_end(w);
	}
	ty_jsonw_object_end(w);
}

static void
json_summary(const struct ty_results *rs, const struct ty_result *r, struct ty_jsonw *w)
{
	size_t f;

	ty_jsonw_key(w, "summary");
	ty_jsonw_object_begin(w);
	for (f = 0; f < ty_results_nfigures(rs); f++) {
		const struct ty_summary *s = &r->sum[f];
		if (f >= TY_FIG_BUILTIN && !rs->values[f - TY_FIG_BUILTIN].supported)
			continue; /* an unsupported counter: left out */
		ty_jsonw_key(w, ty_results_figure_name(rs, f));
		ty_jsonw_object_begin(w);
		ty_jsonw_kstring(w, "unit", ty_results_figure_unit(rs, f));
		ty_jsonw_kuint(w, "n", s->n);
		json_num(w, "mean", s->mean);
		ty_jsonw_kdouble(w, "ci_low", s->mean - r->ci_half[f]);
		ty_jsonw_kdouble(w, "ci_high", s->mean + r->ci_half[f]);
		json_num(w, "median", s->median);
		json_num(w, "centre", r->centre[f].centre);
		ty_jsonw_kdouble(w, "centre_low", r->centre[f].lo);
		ty_jsonw_kdouble(w, "centre_high", r->centre[f].hi);
		ty_jsonw_kdouble(w, "stddev", s->n >= 2 ? s->stddev : NAN);
		json_num(w, "min", s->min);
		json_num(w, "max", s->max);
		ty_jsonw_object_end(w);
	}
	ty_jsonw_object_end(w);
}

static void
json_tachy_result(const struct ty_results *rs, const struct ty_result *r, struct ty_jsonw *w)
{
	size_t i;

	ty_jsonw_key(w, "tachy");
	ty_jsonw_object_begin(w);
	ty_jsonw_kstring(w, "name", r->name);
	ty_jsonw_kstring(w, "command", r->command);
	if (rs->maxrss_method)
		ty_jsonw_kstring(w, "maxrss_method", rs->maxrss_method);
	ty_jsonw_kint(w, "maxrss_floor_kb", r->maxrss_floor_kb);
	ty_jsonw_kbool(w, "maxrss_measurable", r->maxrss_measurable);
	ty_jsonw_kint(w, "maxrss_unmeasured_runs", (int64_t)r->maxrss_unmeasured);
	if (rs->tree_method) {
		ty_jsonw_kstring(w, "tree_peak_method", rs->tree_method);
		ty_jsonw_kint(w, "tree_peak_max_kb", ty_result_tree_peak_kb(r));
	}
	ty_jsonw_kstring(w, "stopped_by", stop_name(r->stop));
	if (r->failure)
		ty_jsonw_kstring(w, "failure", r->failure);
	ty_jsonw_kdouble(w, "shell_startup", (double)r->shell_ns / 1e9);
	ty_jsonw_kuint(w, "warmup_runs", r->series.warmup);
	ty_jsonw_kuint(w, "left_out", r->left_out);
	/* the runs the figures come from, as times[] lists them; the runs
	 * left out (a warm-up) apart, in run order before them */
	ty_jsonw_key(w, "runs");
	ty_jsonw_array_begin(w);
	for (i = r->left_out; i < r->nruns; i++)
		json_run(rs, r, i, w);
	ty_jsonw_array_end(w);
	if (r->left_out) {
		ty_jsonw_key(w, "left_out_runs");
		ty_jsonw_array_begin(w);
		for (i = 0; i < r->left_out; i++)
			json_run(rs, r, i, w);
		ty_jsonw_array_end(w);
	}
	json_summary(rs, r, w);
	if (rs->nvalues) {
		ty_jsonw_key(w, "counters");
		ty_jsonw_object_begin(w);
		for (i = 0; i < rs->nvalues; i++) {
			ty_jsonw_key(w, rs->values[i].name);
			ty_jsonw_object_begin(w);
			ty_jsonw_kbool(w, "supported", rs->values[i].supported);
			ty_jsonw_kstring(w, "unit", rs->values[i].unit);
			ty_jsonw_kbool(w, "scaled", rs->values[i].scaled);
			ty_jsonw_kdouble(w, "running_share", rs->values[i].running_share);
			ty_jsonw_kbool(w, "user_only", rs->values[i].user_only);
			ty_jsonw_object_end(w);
		}
		ty_jsonw_object_end(w);
	}
	ty_jsonw_key(w, "warnings");
	ty_jsonw_array_begin(w);
	for (i = 0; i < r->nwarnings; i++)
		ty_jsonw_string(w, r->warnings[i]);
	ty_jsonw_array_end(w);
	ty_jsonw_object_end(w);
}

static void
json_result(const struct ty_results *rs, const struct ty_result *r, struct ty_jsonw *w)
{
	const struct ty_summary *s = r->sum;
	size_t i;

	ty_jsonw_object_begin(w);
	ty_jsonw_kstring(w, "command", r->name); /* as hyperfine: -n NAME if given */
	ty_jsonw_kdouble(w, "mean", s[TY_FIG_WALL].mean);
	ty_jsonw_kdouble(w, "stddev", s[TY_FIG_WALL].n >= 2 ? s[TY_FIG_WALL].stddev : NAN);
	ty_jsonw_kdouble(w, "median", s[TY_FIG_WALL].median);
	ty_jsonw_kdouble(w, "user", s[TY_FIG_USER].mean);
	ty_jsonw_kdouble(w, "system", s[TY_FIG_SYSTEM].mean);
	ty_jsonw_kdouble(w, "min", s[TY_FIG_WALL].min);
	ty_jsonw_kdouble(w, "max", s[TY_FIG_WALL].max);
	/* hyperfine's per-run fields hold the runs its figures come from: not
	 * those of a warm-up left out (tachy.left_out_runs has them) */
	ty_jsonw_key(w, "times");
	ty_jsonw_array_begin(w);
	for (i = r->left_out; i < r->nruns; i++)
		ty_jsonw_double(w, (double)r->runs[i].wall_ns / 1e9);
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "memory_usage_byte");
	ty_jsonw_array_begin(w);
	for (i = r->left_out; i < r->nruns; i++)
		ty_jsonw_int(w, (int64_t)r->runs[i].usage.maxrss_kb * 1024);
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "exit_codes");
	ty_jsonw_array_begin(w);
	for (i = r->left_out; i < r->nruns; i++)
		if (r->runs[i].exit_code >= 0)
			ty_jsonw_int(w, r->runs[i].exit_code);
		else if (r->runs[i].signal > 0) /* as hyperfine and the shells: 128 + signal */
			ty_jsonw_int(w, 128 + r->runs[i].signal);
		else
			ty_jsonw_null(w);
	ty_jsonw_array_end(w);
	if (r->nparams) {
		ty_jsonw_key(w, "parameters");
		ty_jsonw_object_begin(w);
		for (i = 0; i < r->nparams; i++)
			ty_jsonw_kstring(w, r->params[i].name, r->params[i].value);
		ty_jsonw_object_end(w);
	}
	json_tachy_result(rs, r, w);
	ty_jsonw_object_end(w);
}

/* The index of command I in the exported results[], which leaves out the
 * commands with no finished run (an interrupted benchmark). */
static size_t
json_index(const struct ty_results *rs, size_t i)
{
	size_t k, n = 0;

	for (k = 0; k < i; k++)
		n += rs->r[k].nruns > 0;
	return n;
}

static void
json_comparison(const struct ty_results *rs, const struct ty_comparison *c, struct ty_jsonw *w)
{
	ty_jsonw_object_begin(w);
	ty_jsonw_kuint(w, "command", json_index(rs, c->command));
	ty_jsonw_kuint(w, "reference", json_index(rs, c->reference));
	ty_jsonw_kstring(w, "figure", ty_results_figure_name(rs, c->figure));
	ty_jsonw_kdouble(w, "ratio", c->c.ratio);
	ty_jsonw_kdouble(w, "ratio_low", c->c.ratio_lo);
	ty_jsonw_kdouble(w, "ratio_high", c->c.ratio_hi);
	ty_jsonw_kdouble(w, "change_pct", c->c.rel);
	ty_jsonw_kdouble(w, "change_low_pct", c->c.rel_lo);
	ty_jsonw_kdouble(w, "change_high_pct", c->c.rel_hi);
	ty_jsonw_kdouble(w, "p_value", c->c.p_value);
	ty_jsonw_kstring(w, "verdict",
			 c->verdict == TY_VERDICT_SAME ? "same" : ty_verdict_word_name(c->verdict));
	if (c->interval != TY_INTERVAL_OK) /* the bounds above are not to be read */
		ty_jsonw_kstring(w, "interval_unavailable", ty_verdict_interval_why(c->interval));
	ty_jsonw_kuint(w, "paired_rounds", c->pairs);
	if (c->too_few)
		ty_jsonw_kbool(w, "too_few_runs", 1);
	ty_jsonw_object_end(w);
}

/* The commands left out of results[] for want of a finished run. */
static void
json_not_run(const struct ty_results *rs, struct ty_jsonw *w)
{
	size_t i;

	for (i = 0; i < rs->n && rs->r[i].nruns > 0; i++)
		;
	if (i == rs->n)
		return;
	ty_jsonw_key(w, "not_run");
	ty_jsonw_array_begin(w);
	for (i = 0; i < rs->n; i++) {
		if (rs->r[i].nruns > 0)
			continue;
		ty_jsonw_object_begin(w);
		ty_jsonw_kstring(w, "name", rs->r[i].name);
		ty_jsonw_kstring(w, "command", rs->r[i].command);
		ty_jsonw_object_end(w);
	}
	ty_jsonw_array_end(w);
}

int
ty_results_write_json(const struct ty_results *rs, FILE *fp, ty_results_env_fn env, void *env_ctx)
{
	struct ty_jsonw w;
	size_t i;

	ty_jsonw_init(&w, fp, 1);
	ty_jsonw_object_begin(&w);
	ty_jsonw_key(&w, "results");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < rs->n; i++)
		if (rs->r[i].nruns > 0)
			json_result(rs, &rs->r[i], &w);
	ty_jsonw_array_end(&w);
	ty_jsonw_key(&w, "tachy");
	ty_jsonw_object_begin(&w);
	ty_jsonw_kint(&w, "schema", 1);
	ty_jsonw_kstring(&w, "version", TY_VERSION);
	if (rs->reference < rs->n && rs->r[rs->reference].nruns > 0)
		ty_jsonw_kuint(&w, "reference", json_index(rs, rs->reference));
	ty_jsonw_kdouble(&w, "confidence", rs->confidence);
	ty_jsonw_kstring(&w, "test", ty_verdict_test_name(rs->test));
	ty_jsonw_kstring(&w, "centre", ty_verdict_centre_name(rs->test));
	if (rs->order)
		ty_jsonw_kstring(&w, "order", rs->order);
	ty_jsonw_kbool(&w, "paired", rs->interleaved && !rs->no_pairing);
	ty_jsonw_kstring(&w, "clock", rs->clock);
	ty_jsonw_kbool(&w, "interrupted", rs->interrupted);
	json_not_run(rs, &w);
	if (rs->profile)
		ty_runprof_json_write(rs->profile, rs, &w);
	ty_jsonw_key(&w, "environment");
	ty_jsonw_object_begin(&w);
	(env ? env : ty_results_env_default)(&w, env_ctx);
	ty_jsonw_object_end(&w);
	ty_jsonw_key(&w, "comparisons");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < rs->ncmp; i++)
		json_comparison(rs, &rs->cmp[i], &w);
	ty_jsonw_array_end(&w);
	ty_jsonw_object_end(&w);
	ty_jsonw_object_end(&w);
	fputc('\n', fp);
	return ferror(fp) ? -EIO : 0;
}

/* ---- CSV and markdown ---- */

static void
csv_quoted(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

void
ty_results_csv_field(FILE *fp, const char *s)
{
	char *esc = NULL;

	/* control characters as \xHH (ty_utf8_escape: reversible); a field
	 * that cannot be escaped for want of memory is written without them */
	if (ty_utf8_needs_escape(s) && !(s = esc = ty_utf8_escape(s)))
		s = "?";
	csv_quoted(fp, s);
	free(esc);
}

int
ty_results_write_csv(const struct ty_results *rs, FILE *fp)
{
	size_t i, k, p, with = 0;

	/* the parameters' columns: of a command that has them (an added
	 * reference runs without any: its cells are empty) */
	for (i = 0; i < rs->n; i++)
		if (rs->r[i].nparams > rs->r[with].nparams)
			with = i;
	fputs("command,mean,stddev,median,user,system,min,max", fp);
	if (rs->n)
		for (p = 0; p < rs->r[with].nparams; p++) {
			fputs(",parameter_", fp);
			ty_results_csv_field(fp, rs->r[with].params[p].name);
		}
	fputc('\n', fp);
	for (i = 0; i < rs->n; i++) {
		const struct ty_result *r = &rs->r[i];
		const struct ty_summary *w = &r->sum[TY_FIG_WALL];
		if (r->nruns == 0) /* interrupted before its first run */
			continue;
		double v[7] = {w->mean,
			       w->n >= 2 ? w->stddev : NAN,
			       w->median,
			       r->sum[TY_FIG_USER].mean,
			       r->sum[TY_FIG_SYSTEM].mean,
			       w->min,
			       w->max};
		ty_results_csv_field(fp, r->name);
		for (k = 0; k < 7; k++)
			if (isfinite(v[k]))
				fprintf(fp, ",%.9g", v[k]);
			else
				fputc(',', fp);
		for (p = 0; p < rs->r[with].nparams; p++) {
			fputc(',', fp);
			if (p < r->nparams)
				ty_results_csv_field(fp, r->params[p].value);
		}
		fputc('\n', fp);
	}
	return ferror(fp) ? -EIO : 0;
}

static double
unit_scale(const char *unit)
{
	if (strcmp(unit, "ms") == 0)
		return 1e3;
	if (strcmp(unit, "us") == 0 || strcmp(unit, "µs") == 0)
		return 1e6;
	if (strcmp(unit, "ns") == 0)
		return 1e9;
	return 1;
}

/* A name in an AsciiDoc table cell, as text: '|' would end the cell and
 * the punctuation of inline markup (* _ ` # ~ ^ + [ ] { } < > & \ : ' ")
 * or of a replacement (-- -> ... (C) =>) is written as a character
 * reference, which Asciidoctor shows as the character itself. */
static void
asciidoc_text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n' || c == '\t')
			fputc(' ', fp);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', fp);
		else if (strchr("|*_`#~^+[]{}<>&\\:'\"()!$%;@", c) ||
			 ((c == '-' || c == '.' || c == '=') && s[1] && strchr("-.>", s[1])))
			fprintf(fp, "&#%d;", c);
		else
			fputc(c, fp);
	}
}

/* A name in an Org table cell, as text: '|' would end the cell (\vert{}
 * is Org's entity for it); a zero-width space on each side of the
 * characters of markup (* / _ = ~ + [ ] < > ^ { }) and after a backslash
 * keeps them from opening emphasis, a link, a target, a script or an
 * entity: it is the escape Org's manual gives. */
static void
orgmode_text(FILE *fp, const char *s)
{
	static const char zwsp[] = "\xe2\x80\x8b";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n' || c == '\t')
			fputc(' ', fp);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', fp);
		else if (c == '|')
			fputs("\\vert{}", fp);
		else if (c == '\\')
			fprintf(fp, "\\%s", zwsp);
		else if (strchr("*/_=~+[]<>^{}", c))
			fprintf(fp, "%s%c%s", zwsp, c, zwsp);
		else
			fputc(c, fp);
	}
}

int
ty_results_write_table(const struct ty_results *rs, FILE *fp, enum ty_table fmt, const char *unit,
		       const size_t *order)
{
	double scale, best = INFINITY, best_sd = 0;
	size_t k, i;

	for (i = 0; i < rs->n; i++)
		if (rs->r[i].sum[TY_FIG_WALL].mean < best) {
			best = rs->r[i].sum[TY_FIG_WALL].mean;
			best_sd =
			    rs->r[i].sum[TY_FIG_WALL].n >= 2 ? rs->r[i].sum[TY_FIG_WALL].stddev : 0;
		}
	if (!unit)
		unit = !(best < 1) ? "s" : best >= 1e-3 ? "ms" : best >= 1e-6 ? "µs" : "ns";
	scale = unit_scale(unit);
	if (fmt == TY_TABLE_ASCIIDOC)
		fputs("[cols=\"<,>,>,>,>\",options=\"header\"]\n|===\n", fp);
	fprintf(fp, "| Command | Mean [%s] | Min [%s] | Max [%s] | Relative%s\n", unit, unit, unit,
		fmt == TY_TABLE_ASCIIDOC ? "" : " |");
	if (fmt == TY_TABLE_MARKDOWN)
		fputs("|:---|---:|---:|---:|---:|\n", fp);
	else if (fmt == TY_TABLE_ORGMODE)
		fputs("|---------+-----------+----------+----------+----------|\n", fp);
	for (k = 0; k < rs->n; k++) {
		const struct ty_summary *w;
		double rel, sd;
		i = order ? order[k] : k;
		w = &rs->r[i].sum[TY_FIG_WALL];
		rel = w->mean / best;
		sd = w->n >= 2 ? w->stddev : 0;
		if (rs->r[i].nruns == 0 ||
		    !isfinite(w->mean)) /* interrupted before its first run */
			continue;
		fputs("| ", fp);
		if (fmt == TY_TABLE_MARKDOWN)
			ty_markdown_escape(fp, rs->r[i].name);
		else if (fmt == TY_TABLE_ASCIIDOC)
			asciidoc_text(fp, rs->r[i].name);
		else
			orgmode_text(fp, rs->r[i].name);
		if (rs->r[i].stop == TY_STOP_FAILED)
			fputs(" (failed)", fp);
		fprintf(fp, "%s%.1f ± %.1f%s%.1f%s%.1f%s", " | ", w->mean * scale, sd * scale,
			" | ", w->min * scale, " | ", w->max * scale, " | ");
		if (w->mean == best)
			fprintf(fp, "%.2f", 1.0);
		else
			fprintf(fp, "%.2f ± %.2f", rel,
				rel * sqrt(pow(sd / w->mean, 2) + pow(best_sd / best, 2)));
		fputs(fmt == TY_TABLE_ASCIIDOC ? "\n" : " |\n", fp);
	}
	if (fmt == TY_TABLE_ASCIIDOC)
		fputs("|===\n", fp);
	return ferror(fp) ? -EIO : 0;
}

int
ty_results_write_markdown(const struct ty_results *rs, FILE *fp, const char *unit)
{
	return ty_results_write_table(rs, fp, TY_TABLE_MARKDOWN, unit, NULL);
}

int
ty_results_export(const struct ty_results *rs, enum ty_export kind, const char *path,
		  const char *unit, ty_results_env_fn env, void *env_ctx, struct ty_error *e)
{
	struct ty_outfile of;
	int rc;

	if ((rc = ty_outfile_open(&of, path, e)) < 0)
		return rc;
	if (kind == TY_EXPORT_JSON)
		rc = ty_results_write_json(rs, of.fp, env, env_ctx);
	else if (kind == TY_EXPORT_CSV)
		rc = ty_results_write_csv(rs, of.fp);
	else
		rc = ty_results_write_markdown(rs, of.fp, unit);
	if (rc < 0) {
		if (rc == -EIO && of.werr) /* the write's own reason */
			rc = -of.werr;
		ty_outfile_abort(&of);
		return ty_error_set(e, rc, "cannot write '%s': %s", path, strerror(-rc));
	}
	return ty_outfile_commit(&of, e);
}
