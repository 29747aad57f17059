/* counters-out.c - performance counters in `tachy run` (see counters-out.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "counters-out.h"
#include "tachy/array.h"
#include "term.h"

void
counters_cli_init(struct counters_cli *cc)
{
	memset(cc, 0, sizeof(*cc));
	ty_event_list_init(&cc->user);
	ty_event_list_init(&cc->events);
}

void
counters_cli_release(struct counters_cli *cc)
{
	ty_counters_probe_release(&cc->probe);
	ty_event_list_release(&cc->user);
	ty_event_list_release(&cc->events);
	memset(cc, 0, sizeof(*cc));
}

int
counters_opt_events(const struct cli_option *opt, const char *typed, char **args)
{
	struct counters_cli *cc = opt->value;
	const char *arg = args[0];
	struct ty_error e;

	if (*arg == '+') {
		cc->add = 1;
		arg++;
	} else {
		cc->replace = 1;
	}
	if (ty_event_list_add(&cc->user, arg, &e) < 0) {
		if (e.code == -ENOTSUP) /* "not built with libpfm4" */
			return cli_error(EXIT_RUNTIME, "%s: %s", typed, e.msg);
		return cli_usage_error("%s: %s", typed, e.msg);
	}
	return 0;
}

int
counters_opt_separator(const struct cli_option *opt, const char *typed, char **args)
{
	if (!*args[0])
		return cli_bad_value(typed, args[0], "a separator, not an empty string");
	((struct counters_cli *)opt->value)->csv_sep = args[0];
	return 0;
}

/* What the machine did not allow. */

/* Is event I left out although it was named with -e? (Default events the
 * machine lacks are only listed in the report, as perf stat does.) */
static int
asked(const struct counters_cli *cc, size_t i)
{
	const struct ty_counter *k = &cc->probe.set.c[i];

	if (k->state != TY_COUNTER_UNSUPPORTED && k->state != TY_COUNTER_FAILED)
		return 0;
	return k->state == TY_COUNTER_FAILED || ty_event_list_find(&cc->user, k->ev.name) >= 0;
}

/* Say once what the machine did not allow: the notes (user-only
 * counting, not permitted), then the events asked for and left out, one
 * line per reason. */
static void
tell_once(struct counters_cli *cc)
{
	const char *msg;
	unsigned note;
	size_t i, j;

	while ((note = ty_counters_note(&cc->probe.set, &msg)))
		/* perf stat says nothing of user-only counting: its ":u" labels do, and ours */
		if (!cc->quiet && (note != TY_COUNTERS_NOTE_USER_ONLY || !cc->perf_stat))
			cli_warn("%s", msg);
	if (cc->probe.set.off)
		return;
	for (i = 0; i < cc->probe.set.n; i++) {
		struct ty_counter *k = &cc->probe.set.c[i];
		char names[512] = "";
		int dup = 0;

		if (!asked(cc, i))
			continue;
		for (j = 0; j < i && !dup; j++)
			dup = asked(cc, j) && cc->probe.set.c[j].state == k->state &&
			      strcmp(cc->probe.set.c[j].msg, k->msg) == 0;
		if (dup)
			continue;
		for (j = i; j < cc->probe.set.n; j++) {
			struct ty_counter *o = &cc->probe.set.c[j];

			if (!asked(cc, j) || o->state != k->state || strcmp(o->msg, k->msg) != 0)
				continue;
			if (strlen(names) + strlen(o->ev.name) + 3 < sizeof(names))
				strcat(strcat(names, *names ? ", " : ""), o->ev.name);
		}
		cli_warn("%s %s: %s (left out)", strchr(names, ',') ? "events" : "event", k->msg,
			 names);
	}
}

/* Whether L already counts what EV counts, under any name ("cs" and
 * "context-switches" are one event: it must not be counted twice). */
static int
counted(const struct ty_event_list *l, const struct ty_event *ev)
{
	const struct perf_event_attr *a = &ev->attr, *b;
	size_t i;

	for (i = 0; i < l->n; i++) {
		b = &l->ev[i].attr;
		if (strcmp(l->ev[i].name, ev->name) == 0 ||
		    (a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
		     a->config2 == b->config2 && a->exclude_user == b->exclude_user &&
		     a->exclude_kernel == b->exclude_kernel && a->exclude_hv == b->exclude_hv))
			return 1;
	}
	return 0;
}

static int
build_list(struct counters_cli *cc, struct ty_error *e)
{
	size_t i;
	int ret;

	if (!cc->replace || cc->add) {
		ret = ty_event_list_add_defaults(&cc->events, e);
		if (ret < 0)
			return ret;
	}
	/* user events keep their groups, numbered after the defaults' */
	for (i = 0; i < cc->user.n; i++) {
		struct ty_event ev = cc->user.ev[i];

		if (counted(&cc->events, &ev))
			continue;
		if (ev.group)
			ev.group += 1000;
		if (ty_array_grow(&cc->events.ev, sizeof(*cc->events.ev), cc->events.n + 1,
				  &cc->events.cap) < 0)
			return ty_error_set(e, -ENOMEM, "out of memory");
		cc->events.ev[cc->events.n++] = ev;
	}
	return 0;
}

int
counters_cli_setup(struct counters_cli *cc, struct ty_runner *r)
{
	struct ty_probe p;
	struct ty_error e;

	if (cc->csv_sep && !cc->perf_stat)
		return cli_usage_error("-x needs --perf-stat");
	if (cc->off) {
		if (cc->replace || cc->add || cc->perf_stat)
			return cli_usage_error("--no-counters cannot go with -e or --perf-stat");
		return 0;
	}
	if (build_list(cc, &e) < 0 || ty_counters_probe_init(&cc->probe, &cc->events, NULL, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	cc->active = 1;
	cc->probe.keep_kernel_zero = cc->perf_stat;
	ty_counters_probe_get(&cc->probe, &p);
	if (ty_runner_add_probe(r, &p, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	return 0;
}

/* Index of the first probe value of ours in RS, or -1. */
static long
first_value(const struct counters_cli *cc, const struct ty_results *rs)
{
	size_t i;

	if (!cc->active || !cc->events.n)
		return -1;
	for (i = 0; i + cc->events.n <= rs->nvalues; i++)
		if (rs->values[i].name == cc->probe.desc[0].name ||
		    strcmp(rs->values[i].name, cc->probe.desc[0].name) == 0)
			return (long)i;
	return -1;
}

void
counters_cli_finish(struct counters_cli *cc, struct ty_results *rs)
{
	long k = first_value(cc, rs);
	struct ty_value_desc *d;

	if (cc->active && cc->probe.attached)
		tell_once(cc);
	if (k < 0)
		return;
	/* The runner copied our descriptions before the first run. */
	d = (struct ty_value_desc *)(rs->values + k);
	ty_counters_probe_finish(&cc->probe, d);
}

/* Statistics of one counter of one command, over the runs that counted it. */
struct cstat {
	const struct ty_event *ev;
	int supported;
	size_t n;
	double mean, sd; /* in the event's raw unit (ns for clocks) */
	double ci;	 /* half-width of the CI of the mean, or NAN */
	double share;	 /* worst running share */
	double running;	 /* mean running time, ns */
};

static void
counter_stats(const struct counters_cli *cc, const struct ty_results *rs, size_t cmd, size_t i,
	      struct cstat *s)
{
	const struct ty_result *r = &rs->r[cmd];
	long k = first_value(cc, rs);
	size_t fig = TY_FIG_BUILTIN + (size_t)k + i, j;
	double m = 0, m2 = 0;

	memset(s, 0, sizeof(*s));
	s->ev = &cc->events.ev[i];
	s->ci = NAN;
	s->share = cc->probe.desc[i].running_share;
	if (k < 0 || !cc->probe.desc[i].supported)
		return;
	for (j = 0; j < r->nruns; j++) {
		double x = r->values[j * rs->nvalues + (size_t)k + i], d;

		if (isnan(x))
			continue;
		s->n++;
		d = x - m;
		m += d / (double)s->n;
		m2 += d * (x - m);
	}
	s->supported = s->n > 0;
	s->mean = m;
	s->sd = s->n > 1 ? sqrt(m2 / (double)(s->n - 1)) : 0;
	if (r->ci_half)
		s->ci = r->ci_half[fig];
	if (cc->probe.nread[i])
		s->running = cc->probe.running_ns[i] / (double)cc->probe.nread[i];
}

static double
wall_mean(const struct ty_results *rs, size_t cmd, double *sd)
{
	const struct ty_result *r = &rs->r[cmd];
	double m = 0, m2 = 0;
	size_t j;

	for (j = 0; j < r->nruns; j++) {
		double x = ty_results_value(rs, r, j, TY_FIG_WALL), d = x - m;

		m += d / (double)(j + 1);
		m2 += d * (x - m);
	}
	if (sd)
		*sd = r->nruns > 1 ? sqrt(m2 / (double)(r->nruns - 1)) : 0;
	return m;
}

/* perf stat's derived figure for counter I of the statistics ST. */
static int
derived(const struct counters_cli *cc, const struct cstat *st, size_t i, double wall_s,
	struct ty_derived *d)
{
	double means[256];
	size_t j;

	if (cc->events.n > 256)
		return 0;
	for (j = 0; j < cc->events.n; j++)
		means[j] = st[j].supported ? st[j].mean : NAN;
	return ty_counters_derived(&cc->events, means, wall_s * 1e9, i, d);
}

static struct cstat *
all_stats(const struct counters_cli *cc, const struct ty_results *rs, size_t cmd)
{
	struct cstat *st = calloc(cc->events.n ? cc->events.n : 1, sizeof(*st));
	size_t i;

	if (st)
		for (i = 0; i < cc->events.n; i++)
			counter_stats(cc, rs, cmd, i, &st[i]);
	return st;
}

void
counters_print_derived(const struct counters_cli *cc, const struct ty_results *rs, size_t cmd,
		       size_t fig, FILE *fp)
{
	long k = first_value(cc, rs);
	struct cstat *st;
	struct ty_derived d;
	size_t i;
	char tmp[32];

	if (k < 0 || fig < TY_FIG_BUILTIN + (size_t)k ||
	    fig >= TY_FIG_BUILTIN + (size_t)k + cc->events.n)
		return;
	i = fig - TY_FIG_BUILTIN - (size_t)k;
	if (!(st = all_stats(cc, rs, cmd)))
		return;
	if (st[i].supported && derived(cc, st, i, wall_mean(rs, cmd, NULL), &d)) {
		ty_counters_derived_format(&d, tmp, sizeof(tmp));
		fprintf(fp, "   # %s %s", tmp + strspn(tmp, " "), d.unit);
	}
	if (st[i].supported && st[i].share < 1)
		fprintf(fp, "  (counted %.1f%% of the time)", 100 * st[i].share);
	free(st);
}

/* perf stat's layout (perf 6.1: a value in 18 columns, the unit in 4, the
 * name in 32, the derived figure in 35). */
#define METRIC_LEN 35

static double
rel_noise(double sd, size_t n, double mean)
{
	if (n < 2 || mean == 0)
		return 0;
	return 100 * (sd / sqrt((double)n)) / mean;
}

static void
perf_line(const struct counters_cli *cc, const struct cstat *st, size_t i, size_t runs, double wall,
	  FILE *fp)
{
	const struct ty_event *ev = &cc->events.ev[i];
	struct ty_derived d;
	double pct;
	int n;

	if (!st[i].supported) {
		fprintf(fp, "%18s %-4s %-25s%-35s\n",
			cc->probe.set.c[i].state == TY_COUNTER_OK ? "<not counted>"
								  : "<not supported>",
			"", cc->probe.label[i], "");
		return;
	}
	fprintf(fp, ev->scale != 1 ? "%18.2f %-4s %-32s" : "%18.0f %-4s %-32s",
		st[i].mean * ev->scale, ev->unit, cc->probe.label[i]);
	if (derived(cc, st, i, wall, &d)) {
		char tmp[32];

		n = fprintf(fp, " # ");
		n += ty_counters_derived_format(&d, tmp, sizeof(tmp));
		fputs(tmp, fp);
		fprintf(fp, " %-*s", METRIC_LEN - n - 1, d.unit);
	} else {
		fprintf(fp, "%-*s", METRIC_LEN, "");
	}
	pct = rel_noise(st[i].sd, st[i].n, st[i].mean);
	if (runs > 1 && pct != 0)
		fprintf(fp, "  ( +-%6.2f%% )", pct);
	if (st[i].share < 1)
		fprintf(fp, "  (%.2f%%)", 100 * st[i].share);
	fputc('\n', fp);
}

static void
csv_line(const struct counters_cli *cc, const struct cstat *st, size_t i, size_t runs, double wall,
	 FILE *fp)
{
	const struct ty_event *ev = &cc->events.ev[i];
	const char *sep = cc->csv_sep;
	struct ty_derived d;
	char buf[64];

	if (!st[i].supported) {
		fprintf(fp, "%s%s%s%s",
			cc->probe.set.c[i].state == TY_COUNTER_OK ? "<not counted>"
								  : "<not supported>",
			sep, sep, cc->probe.label[i]);
		if (runs > 1)
			fprintf(fp, "%s0.00%%", sep);
		fprintf(fp, "%s0%s100.00%s%s\n", sep, sep, sep, sep);
		return;
	}
	fprintf(fp, ev->scale != 1 ? "%.2f%s%s%s%s" : "%.0f%s%s%s%s", st[i].mean * ev->scale, sep,
		ev->unit, sep, cc->probe.label[i]);
	if (runs > 1)
		fprintf(fp, "%s%.2f%%", sep, rel_noise(st[i].sd, st[i].n, st[i].mean));
	fprintf(fp, "%s%.0f%s%.2f", sep, st[i].running, sep, 100 * st[i].share);
	if (derived(cc, st, i, wall, &d)) {
		char *v, *end;

		ty_counters_derived_format(&d, buf, sizeof(buf));
		v = buf + strspn(buf, " ");
		for (end = v; (*end >= '0' && *end <= '9') || *end == '.'; end++)
			;
		*end = '\0';
		fprintf(fp, "%s%s%s%s\n", sep, v, sep, d.unit);
	} else {
		fprintf(fp, "%s%s\n", sep, sep);
	}
}

/* perf's precision for the elapsed time: two digits past the stddev's. */
static int
elapsed_precision(double sd)
{
	if (sd > 1)
		return 2;
	if (sd <= 0)
		return 9;
	return (int)lround(ceil(-log10(sd))) + 2;
}

static void
perf_block(const struct counters_cli *cc, const struct ty_results *rs, size_t cmd, FILE *fp)
{
	const struct ty_result *r = &rs->r[cmd];
	struct cstat *st = all_stats(cc, rs, cmd);
	double sd, wall = wall_mean(rs, cmd, &sd);
	size_t i;

	if (!st)
		return;
	if (!cc->csv_sep) {
		fprintf(fp, "\n Performance counter stats for '%s'", r->command);
		if (r->nruns > 1)
			fprintf(fp, " (%zu runs)", r->nruns);
		fprintf(fp, ":\n\n");
	}
	for (i = 0; i < cc->events.n; i++) {
		if (cc->csv_sep)
			csv_line(cc, st, i, r->nruns, wall, fp);
		else
			perf_line(cc, st, i, r->nruns, wall, fp);
	}
	free(st);
	if (cc->csv_sep)
		return;
	fputc('\n', fp);
	if (r->nruns > 1) {
		int prec = elapsed_precision(sd / sqrt((double)r->nruns));
		double se = sd / sqrt((double)r->nruns);

		fprintf(fp, " %17.*f +- %.*f seconds time elapsed", prec, wall, prec, se);
		if (wall != 0 && se != 0)
			fprintf(fp, "  ( +-%6.2f%% )", 100 * se / wall);
		fprintf(fp, "\n\n");
	} else if (r->nruns == 1) {
		fprintf(fp, " %17.9f seconds time elapsed\n\n", wall);
		fprintf(fp, " %17.9f seconds user\n", ty_results_value(rs, r, 0, TY_FIG_USER));
		fprintf(fp, " %17.9f seconds sys\n\n\n", ty_results_value(rs, r, 0, TY_FIG_SYSTEM));
	}
}

void
counters_print_perf_stat(const struct counters_cli *cc, const struct ty_results *rs, size_t cmd,
			 FILE *fp)
{
	perf_block(cc, rs, cmd, fp);
}

/* The comparison table. */

/* Print S padded to W columns (characters, not bytes). */
static void
pad(FILE *fp, const char *s, int w, int right)
{
	int n = 0;
	const char *p;

	for (p = s; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	if (right)
		fprintf(fp, "%*s%s", w > n ? w - n : 0, "", s);
	else
		fprintf(fp, "%s%*s", s, w > n ? w - n : 0, "");
}

static void
comparison_row(const struct counters_cli *cc, const struct ty_results *rs,
	       const struct ty_comparison *c, size_t i, const struct term *t, FILE *fp)
{
	const struct ty_compare *x = &c->c;
	const char *unit = cc->probe.desc[i].unit;
	/* the centres the test compares */
	double a = rs->r[c->reference].centre[c->figure].centre,
	       b = rs->r[c->command].centre[c->figure].centre;
	char va[32], vb[32], ch[80], p[16];

	term_value(t, va, sizeof(va), a, unit);
	term_value(t, vb, sizeof(vb), b, unit);
	if (a != 0 && isfinite(x->rel) && c->interval == TY_INTERVAL_OK)
		snprintf(ch, sizeof(ch), "%+.1f%% [%+.1f%%, %+.1f%%]", x->rel, x->rel_lo,
			 x->rel_hi);
	else if (a != 0 && isfinite(x->rel)) /* never an interval of infinities or one
						 contradicting the test */
		snprintf(ch, sizeof(ch), "%+.1f%% n/a (%s)", x->rel,
			 ty_verdict_interval_why(c->interval));
	else
		snprintf(ch, sizeof(ch), "%+g", b - a);
	if (x->p_value < 0.001)
		snprintf(p, sizeof(p), "< 0.001");
	else
		snprintf(p, sizeof(p), "%.3f", x->p_value);
	fputs("  ", fp);
	pad(fp, cc->events.ev[i].name, 22, 0);
	pad(fp, va, 13, 1);
	pad(fp, vb, 13, 1);
	fputs("  ", fp);
	pad(fp, ch, 28, 0);
	pad(fp, p, 8, 1);
	fprintf(fp, "  %s%s%s\n", term_c(t, c->verdict == TY_VERDICT_SAME ? "dim" : "bold"),
		ty_verdict_word_name(c->verdict), term_c(t, "reset"));
}

static int
any_paired(const struct ty_results *rs)
{
	size_t i;

	for (i = 0; i < rs->ncmp; i++)
		if (rs->cmp[i].figure >= TY_FIG_BUILTIN && rs->cmp[i].pairs)
			return 1;
	return 0;
}

void
counters_print_comparisons(const struct counters_cli *cc, const struct ty_results *rs,
			   const struct term *t, FILE *fp)
{
	static const char *const heads[][2] = {{"ref mean", "this mean"},
					       {"ref mean", "this mean"},
					       {"ref median", "this median"},
					       {"ref trimmed", "this trimmed"}};
	long k = first_value(cc, rs);
	size_t cmd, i;

	if (k < 0 || rs->n < 2)
		return;
	/* the test as the summary names it: rounds paired, the sign test (or
	 * paired t) on the per-round log ratios, not the unpaired test's name */
	if (any_paired(rs))
		fprintf(fp,
			"\n%sCounters%s against %s (interleaved rounds paired: %s of the per-round "
			"log ratios, %g%% confidence)\n",
			term_c(t, "bold"), term_c(t, "reset"), rs->r[rs->reference].name,
			ty_verdict_test_title(rs->test, 1), rs->confidence);
	else
		fprintf(fp, "\n%sCounters%s against %s (%s, %g%% confidence)\n", term_c(t, "bold"),
			term_c(t, "reset"), rs->r[rs->reference].name,
			ty_verdict_test_title(rs->test, 0), rs->confidence);
	if (rs->shell)
		fprintf(fp, "  (with --shell every count includes the shell's own start-up)\n");
	for (cmd = 0; cmd < rs->n; cmd++) {
		int head = 0;

		for (i = 0; i < cc->events.n; i++) {
			const struct ty_comparison *c =
			    ty_results_comparison(rs, cmd, TY_FIG_BUILTIN + (size_t)k + i);

			if (!c || !cc->probe.desc[i].supported)
				continue;
			if (!head++) {
				fprintf(fp, "  %s\n  ", rs->r[cmd].name);
				pad(fp, "counter", 22, 0);
				pad(fp, heads[rs->test][0], 13, 1);
				pad(fp, heads[rs->test][1], 13, 1);
				fputs("  ", fp);
				pad(fp, "change [CI]", 28, 0);
				pad(fp, "p", 8, 1);
				fputs("  verdict\n", fp);
			}
			comparison_row(cc, rs, c, i, t, fp);
		}
	}
}

void
counters_print_unsupported(const struct counters_cli *cc, const struct ty_results *rs, FILE *fp)
{
	size_t i, runs = 0, n = 0;

	for (i = 0; i < rs->n; i++)
		runs += rs->r[i].nruns;
	if (!cc->active || !runs || cc->probe.set.off)
		return;
	for (i = 0; i < cc->probe.set.n; i++) {
		if (cc->probe.set.c[i].state != TY_COUNTER_UNSUPPORTED || asked(cc, i))
			continue;
		fprintf(fp, "%s%s", n++ ? ", " : "\nNot supported here (left out): ",
			cc->probe.set.c[i].ev.name);
	}
	if (n)
		fputc('\n', fp);
	for (i = 0, n = 0; i < cc->probe.set.n; i++) {
		if (!ty_counters_user_only_zero(&cc->probe.set, i) || cc->perf_stat)
			continue;
		fprintf(fp, "%s%s", n++ ? ", " : "\nNot counted in user-only mode (left out): ",
			cc->probe.set.c[i].ev.name);
	}
	if (n)
		fputc('\n', fp);
}
