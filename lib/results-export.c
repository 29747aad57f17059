/* results-export.c - the result model written out (results-export.h):
 * tachy's JSON (docs/json-schema.md), hyperfine's CSV, and the table in
 * markdown, AsciiDoc and Org. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "tachy/jsonw.h"
#include "tachy/markdown.h"
#include "tachy/outfile.h"
#include "tachy/results-export.h"
#include "tachy/results.h"
#include "tachy/runprof-json.h"
#include "tachy/tachy.h"
#include "tachy/utf8.h"
#include "tachy/verdict.h"

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
	const struct ty_results_run *s = &r->runs[i];
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
			if (rs->values[i].exact)
				ty_jsonw_kbool(w, "exact", 1);
			if (rs->values[i].source)
				ty_jsonw_kstring(w, "source", rs->values[i].source);
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
	ty_jsonw_kstring(w, "verdict", ty_verdict_word_key(c->verdict));
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
	size_t k, i, failed = 0;

	for (i = 0; i < rs->n; i++)
		failed += rs->r[i].stop == TY_STOP_FAILED;
	/* Relative to the fastest command that did not fail (a command that
	 * failed early is no base for the others), unless all failed */
	for (i = 0; i < rs->n; i++)
		if ((failed == rs->n || rs->r[i].stop != TY_STOP_FAILED) &&
		    rs->r[i].sum[TY_FIG_WALL].mean < best) {
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
