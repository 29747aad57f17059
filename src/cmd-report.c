/* cmd-report.c - tachy report: show a recorded profile. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "report-args.h"
#include "report-input.h"
#include "run-profile.h"
#include "tachy/cpulist.h"
#include "tachy/flame.h"
#include "tachy/outfile.h"
#include "tachy/pprof.h"
#include "tachy/profile-file.h"
#include "tachy/profile-views.h"
#include "tachy/profile-who.h"
#include "tachy/record-system.h"
#include "tachy/timeline.h"
#include "tachy/utf8.h"
#include "term.h"

static const char *
base(const char *dso)
{
	const char *s;

	if (!dso)
		return "";
	s = strrchr(dso, '/');
	return s && s[1] ? s + 1 : dso;
}

/* Clock events are shown in seconds; others (page-faults, -c counts of any
 * event) in events: their seconds would be an estimate at best. */
static double
amount(const struct ty_profile *p, double weight)
{
	return p->meta.period_ns ? ty_profile_seconds(p, weight) : weight;
}

static const char *
unit(const struct ty_profile *p)
{
	return p->meta.period_ns ? "seconds" : " events";
}

/* An amount in a column WIDTH wide. */
static void
put_amount(const struct ty_profile *p, int width, double v)
{
	printf(p->meta.period_ns ? "%*.3f" : "%*.0f", width, v);
}

static const struct report_opts *filter_opts; /* for the header's Filter: line */

/* A system-wide profile: which CPUs, how long, how idle; and the filters. */
static void
system_line(const struct ty_profile *p)
{
	const struct ty_prof_meta *m = &p->meta;
	const struct report_opts *o = filter_opts;
	size_t i;

	if (m->system_wide)
		printf("System-wide: CPUs %s, %.3f s, idle %.1f%% of the samples\n",
		       m->cpus && *m->cpus ? term_safe(m->cpus) : "?", (double)m->wall_ns / 1e9,
		       100 * ty_record_system_idle(p));
	if (!o || !o->filtered)
		return;
	printf("Filter:");
	for (i = 0; i < o->comm_args.n; i++)
		printf(" --comm %s", term_safe(o->comm_args.v[i]));
	for (i = 0; i < o->pid_args.n; i++)
		printf(" --pid %s", term_safe(o->pid_args.v[i]));
	if (o->cpu_arg)
		printf(" --cpu %s", term_safe(o->cpu_arg));
	printf(" (%zu samples kept)\n", p->nsamples);
}

/* The header of a profile with off-CPU time: its wall time per state. */
static void
header_off_cpu(const struct ty_profile *p, const char *what, double total)
{
	const struct ty_prof_meta *m = &p->meta;
	double w[TY_NSTATES];
	size_t i, off = 0;
	uint32_t st;
	char cover[512];

	ty_profile_state_weights(p, w);
	for (i = 0; i < p->nsamples; i++)
		off += p->samples[i].state != TY_STATE_CPU;
	printf("%s: %zu on-CPU samples", what, p->nsamples - off);
	if (m->off_cpu != TY_OFFCPU_ONLY && m->event && *m->event)
		printf(" of %s at %" PRIu64 " Hz", term_safe(m->event), m->rate);
	printf(" and %zu off-CPU intervals, %.3f s of thread time", off,
	       ty_profile_seconds(p, total));
	printf(", %" PRIu64 " lost\n", m->lost);
	printf("States:");
	for (st = 0; st < TY_NSTATES; st++)
		if (w[st] > 0 || st == TY_STATE_CPU)
			printf("%s %s %.3f s (%.1f%%)", st ? "," : "", ty_profile_state_name(st),
			       ty_profile_seconds(p, w[st]), total > 0 ? 100 * w[st] / total : 0);
	printf("\n");
	if (m->command && *m->command)
		printf("Command: %s\n", term_safe(m->command));
	system_line(p);
	if (m->off_cpu_limits && *m->off_cpu_limits)
		printf("Limits: %s\n", term_safe(m->off_cpu_limits));
	if (ty_profile_chains_note(p, cover, sizeof(cover)) == 0)
		printf("Chains: %s\n", cover);
	if (off < p->nsamples && !m->system_wide &&
	    ty_profile_coverage(p, cover, sizeof(cover)) == 0)
		printf("Coverage: %s\n", term_safe(cover));
	if (m->lost)
		printf("Warning: %" PRIu64 " records were lost; percentages may be off.\n",
		       m->lost);
}

static void
header(const struct ty_profile *p, const char *what)
{
	const struct ty_prof_meta *m = &p->meta;
	double total = 0;
	char cover[512];
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		total += (double)p->samples[i].period;
	if (ty_profile_has_off_cpu(p)) {
		header_off_cpu(p, what, total);
		return;
	}
	printf("%s: %zu samples of %s", what, p->nsamples,
	       m->event && *m->event ? term_safe(m->event) : "?");
	if (m->use_freq)
		printf(" at %" PRIu64 " Hz", m->rate);
	else
		printf(" every %" PRIu64 " events", m->rate);
	if (m->period_ns)
		printf(", %.3f s", ty_profile_seconds(p, total));
	else
		printf(", %.0f events", total);
	printf(", %" PRIu64 " lost, %" PRIu64 " throttled\n", m->lost, m->throttled);
	if (m->command && *m->command)
		printf("Command: %s\n", term_safe(m->command));
	system_line(p);
	if (!m->system_wide && ty_profile_coverage(p, cover, sizeof(cover)) == 0)
		printf("Coverage: %s\n", term_safe(cover));
	if (m->lost)
		printf("Warning: %" PRIu64 " samples were lost; percentages may be off.\n",
		       m->lost);
}

static const char *
by_heading(enum ty_prof_by by)
{
	switch (by) {
	case TY_BY_THREAD:
		return "thread";
	case TY_BY_COMM:
		return "command";
	case TY_BY_DSO:
		return "DSO";
	case TY_BY_LINE:
		return "line  DSO";
	case TY_BY_STATE:
		return "state";
	case TY_BY_PROCESS:
		return "process [pid]";
	case TY_BY_CPU:
		return "CPU";
	default:
		return "symbol  DSO";
	}
}

/* The exact call count of ROW's function (record --calls), or -1; its
 * index in P->calls into *CALL. */
static int64_t
row_calls(const struct ty_profile *p, const struct ty_profile_views_row *row, uint32_t *call)
{
	uint32_t i;

	for (i = 0; i < p->ncalls; i++) {
		uint32_t f = p->calls[i].func;
		if (row->dso == ty_profile_func_dso(p, f) &&
		    strcmp(row->name, ty_profile_func_name(p, f)) == 0) {
			*call = i;
			return (int64_t)p->calls[i].count;
		}
	}
	return -1;
}

/* gprof's columns: calls, self ns/call, total ns/call (blank where the
 * function was not counted, or not called). */
static void
put_calls(const struct ty_profile *p, const struct ty_profile_views_row *r)
{
	uint32_t call = 0;
	int64_t n = row_calls(p, r, &call);

	if (n <= 0 || !p->meta.period_ns) {
		if (n == 0)
			printf(" %10d %10s %10s", 0, "", "");
		else
			printf(" %10s %10s %10s", "", "", "");
		return;
	}
	{
		int bound;
		double self = ty_profile_self_per_call(
		    p, call, ty_profile_seconds(p, r->self_weight), &bound);
		char v[32];
		snprintf(v, sizeof(v), "%s%.0f", bound ? "<" : "", self);
		printf(" %10lld %10s %10.0f", (long long)n, v,
		       ty_profile_seconds(p, r->total_weight) * 1e9 / (double)n);
	}
}

/* How the self ns/call of counted functions is corrected for the probes:
 * their samples at the trap's return taken off, or where they could not
 * be told apart, a bound ('<N') and why. */
static void
calls_self_note(const struct ty_profile *p)
{
	static const char *const why[TY_TRAP_STATES] = {
	    "the samples taken as a trap returns to the function are in it", "",
	    "the samples taken as a trap returns land where its own code branches to (it "
	    "begins with a branch into itself, or a loop starts at its second instruction)",
	    "its first instruction is not one tachy decodes: where the samples taken as a "
	    "trap returns land is not known"};
	double trap = 0, d = (double)p->meta.calls_disturb_ps / 1000;
	int seen[TY_TRAP_STATES] = {0}, k;
	uint32_t i;

	for (i = 0; i < p->ncalls; i++) {
		seen[p->calls[i].trap_state < TY_TRAP_STATES ? p->calls[i].trap_state : 0] = 1;
		if (p->calls[i].trap_state == TY_TRAP_TAKEN)
			trap += (double)p->calls[i].trap;
	}
	if (seen[TY_TRAP_TAKEN])
		printf("; self ns/call less the samples the kernel took during the traps (%.3f s, "
		       "delivered as a trap returns, at the function's entry)",
		       ty_profile_seconds(p, trap));
	for (k = 0; k < TY_TRAP_STATES; k++)
		if (seen[k] && k != TY_TRAP_TAKEN)
			printf("; self ns/call '<N': at most N, %s", why[k]);
	if (d > 0)
		printf(" (the %.0f ns a hit adds to its body taken off, measured)", d);
}

/* What the probes of record --calls cost, as measured when recording. */
static void
calls_line(const struct ty_profile *p)
{
	const struct ty_prof_meta *m = &p->meta;
	uint64_t total = 0;
	char share[160];
	double cost;
	uint32_t i;

	if (!p->ncalls)
		return;
	for (i = 0; i < p->ncalls; i++)
		total += p->calls[i].count;
	cost = (double)total * (double)m->calls_hit_ps / 1e12;
	ty_profile_calls_share(share, sizeof(share), cost,
			       m->workload_cpu_ns ? (double)m->workload_cpu_ns / 1e9 : 0);
	printf("Calls: %u functions counted exactly by uprobes, %llu calls; a probe hit cost %.0f "
	       "ns, about %.3f s in all%s",
	       p->ncalls, (unsigned long long)total, (double)m->calls_hit_ps / 1000, cost, share);
	calls_self_note(p);
	printf("\n");
}

/* Columns S takes on a terminal (a code point each; escapes as shown). */
static int
columns(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The width of the name column of ROWS[0..N) with their DSOs beside them:
 * the longest name shown, at most 60 (a longer one pushes its DSO on). */
static int
name_width(const struct report_opts *o, const struct ty_profile_views_row *rows, size_t n)
{
	int w = 0, k;
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].dso && (k = columns(term_safe(o->by == TY_BY_DSO ? base(rows[i].name)
									     : rows[i].name))) > w)
			w = k;
	return w > 60 ? 60 : w;
}

/* One row of the flat profile; *CUM the cumulative amount so far; the
 * name padded to NAMEW columns before the DSO. */
static void
flat_row(const struct ty_profile *p, const struct report_opts *o,
	 const struct ty_profile_views_row *r, double weight, double *cum, int off, int calls,
	 int namew)
{
	const char *name;
	int pad;

	double self = amount(p, r->self_weight);
	double pct = weight > 0 ? 100 * r->self_weight / weight : 0;
	double tpct = weight > 0 ? 100 * r->total_weight / weight : 0;

	*cum += self;
	printf("%6.2f ", pct);
	put_amount(p, 10, *cum);
	put_amount(p, 10, self);
	printf(" %9" PRIu64 " %7.2f ", r->self_samples, tpct);
	put_amount(p, 9, amount(p, r->total_weight));
	if (off)
		put_amount(p, 9, amount(p, r->self_off));
	if (calls)
		put_calls(p, r);
	name = term_safe(o->by == TY_BY_DSO ? base(r->name) : r->name);
	pad = r->dso ? namew - columns(name) : 0;
	printf("  %s%*s", name, pad > 0 ? pad : 0, "");
	printf("%s%s\n", r->dso ? "  " : "", term_safe(base(r->dso)));
}

static int
report_flat(const struct ty_profile *p, const struct report_opts *o)
{
	struct ty_profile_views_flat f;
	double cum = 0;
	size_t i, n;
	int off = ty_profile_has_off_cpu(p), calls = p->ncalls && o->by == TY_BY_SYMBOL, namew;
	const char *head, *dso_head;

	if ((o->by == TY_BY_PROCESS || o->by == TY_BY_CPU
		 ? ty_profile_flat_who(p, o->by == TY_BY_CPU, o->sort, &f)
		 : ty_profile_views_flat(p, o->by, o->sort, &f)) < 0)
		return cli_error(EXIT_RUNTIME, "out of memory");
	header(p, "Flat profile");
	calls_line(p);
	n = o->limit && (size_t)o->limit < f.nrows ? (size_t)o->limit : f.nrows;
	namew = name_width(o, f.rows, n);
	head = by_heading(o->by);
	dso_head = strstr(head, "  DSO"); /* "symbol  DSO": DSO over its column */
	printf("\n  %%    cumulative   self       self    total    total%s%s\n"
	       " time    %s   %s   samples     %%    %s%s%s  %.*s%*s%s\n",
	       off ? "      self" : "", calls ? "                   self      total" : "", unit(p),
	       unit(p), unit(p), off ? "   off-CPU" : "",
	       calls ? "      calls    ns/call    ns/call" : "",
	       dso_head ? (int)(dso_head - head) : (int)strlen(head), head,
	       dso_head && namew > (int)(dso_head - head) ? namew - (int)(dso_head - head) : 0, "",
	       dso_head ? dso_head : "");
	for (i = 0; i < n; i++)
		flat_row(p, o, &f.rows[i], f.weight, &cum, off, calls, namew);
	if (n < f.nrows)
		printf("(%zu more rows; --limit shows more)\n", f.nrows - n);
	else if (calls) /* called but never sampled: listed, as gprof lists them */
		for (i = 0; i < p->ncalls; i++) {
			uint32_t fn = p->calls[i].func;
			struct ty_profile_views_row r = {0};
			size_t k;
			r.name = (char *)ty_profile_func_name(p, fn);
			r.dso = ty_profile_func_dso(p, fn);
			for (k = 0; k < f.nrows &&
				    (f.rows[k].dso != r.dso || strcmp(f.rows[k].name, r.name) != 0);
			     k++)
				;
			if (k == f.nrows && p->calls[i].count)
				flat_row(p, o, &r, f.weight, &cum, off, calls, namew);
		}
	ty_profile_views_flat_release(&f);
	return 0;
}

static int
report_neighbours(const struct ty_profile *p, const struct report_opts *o)
{
	struct ty_profile_views_flat f;
	struct ty_profile_views_row m;
	int up = o->mode == M_CALLERS, r, off = ty_profile_has_off_cpu(p);
	size_t i;

	r = ty_profile_views_neighbours(p, o->sym, up, &f, &m);
	if (r == -ENOENT)
		return cli_error(EXIT_USAGE, "no symbol named '%s' in %s", term_safe(o->sym),
				 term_safe(o->file));
	if (r < 0)
		return cli_error(EXIT_RUNTIME, "out of memory");
	header(p, up ? "Callers" : "Callees");
	printf("\n%s of %s: in %" PRIu64 " samples (%.2f%%), ", up ? "Callers" : "Callees",
	       term_safe(o->sym), m.total_samples,
	       f.weight > 0 ? 100 * m.total_weight / f.weight : 0);
	put_amount(p, 0, amount(p, m.total_weight));
	printf("%s\n\n", p->meta.period_ns ? " s" : " events");
	printf("      %%   %s   samples%s  %s  DSO\n", unit(p), off ? "   off-CPU" : "",
	       up ? "caller" : "callee");
	for (i = 0; i < f.nrows && (!o->limit || i < (size_t)o->limit); i++) {
		const struct ty_profile_views_row *x = &f.rows[i];
		printf("%7.2f ", m.total_weight > 0 ? 100 * x->self_weight / m.total_weight : 0);
		put_amount(p, 9, amount(p, x->self_weight));
		printf(" %9" PRIu64, x->self_samples);
		if (off)
			put_amount(p, 9, amount(p, x->self_off));
		printf("  %s%s%s\n", term_safe(x->name), x->dso ? "  " : "",
		       term_safe(base(x->dso)));
	}
	ty_profile_views_flat_release(&f);
	return 0;
}

static void
print_node(const struct ty_profile *p, const struct ty_profile_views_tree *t, uint32_t i, int depth,
	   double min)
{
	const struct ty_profile_views_node *n = &t->nodes[i];
	double all = t->nodes[0].total;
	uint32_t k;

	if (i != 0) {
		if (all <= 0 || 100 * n->total / all < min)
			return;
		printf("%7.2f%% %7.2f%%  %*s%s  %s\n", 100 * n->total / all, 100 * n->self / all,
		       2 * (depth - 1), "", term_safe(n->name), term_safe(base(n->dso)));
	}
	for (k = n->child; k != TY_NONE; k = t->nodes[k].sibling)
		print_node(p, t, k, depth + 1, min);
}

static int
report_tree(const struct ty_profile *p, const struct report_opts *o)
{
	struct ty_profile_views_tree t;

	if (ty_profile_views_tree_build(&t, p, NULL) < 0)
		return cli_error(EXIT_RUNTIME, "out of memory");
	ty_profile_views_tree_sort_by_total(&t);
	header(p, "Call tree");
	printf("\n  total     self  function  DSO (nodes under %.2g%% hidden)\n", o->min);
	print_node(p, &t, 0, 0, o->min);
	ty_profile_views_tree_release(&t);
	return 0;
}

static int
report_diff(const struct ty_profile *a, const struct ty_profile *b, const struct report_opts *o)
{
	struct ty_profile_views_diff d;
	struct ty_profile_match m = {o->match, {NULL, NULL}};
	char ob[512];
	size_t i;

	m.main[0] = ty_profile_match_main_of(a);
	m.main[1] = ty_profile_match_main_of(b);
	if (ty_profile_views_diff_match(a, b, o->by, &m, &d) < 0)
		return cli_error(EXIT_RUNTIME, "out of memory");
	printf("Diff: %s (%zu samples) -> %s (%zu samples), in %% of each profile's samples\n",
	       term_safe(o->old), a->nsamples, term_safe(o->new_), b->nsamples);
	if (o->by == TY_BY_SYMBOL) {
		printf("(functions matched by %s", ty_profile_match_mode_words(m.mode));
		if (m.mode == TY_MATCH_DSO_SYM)
			printf("; the program: %s = %s", term_safe(base(m.main[0])),
			       term_safe(base(m.main[1])));
		printf(")\n");
	}
	printf("\n");
	printf("  self%%:  old      new    delta  total%%: old     new  %s\n", by_heading(o->by));
	for (i = 0; i < d.nrows && (!o->limit || i < (size_t)o->limit); i++) {
		const struct ty_profile_views_diff_row *r = &d.rows[i];
		printf("      %7.2f  %7.2f  %+7.2f      %7.2f %7.2f  %s%s%s\n", r->old_self,
		       r->new_self, r->new_self - r->old_self, r->old_total, r->new_total,
		       term_safe(o->by == TY_BY_DSO ? base(r->name) : r->name), r->dso ? "  " : "",
		       term_safe(o->by == TY_BY_SYMBOL
				     ? ty_profile_match_shown(r->old_dso, r->dso, ob, sizeof(ob))
				     : base(r->dso)));
	}
	ty_profile_views_diff_release(&d);
	printf("\nOne run a side: no interval and no test, so any change above may be sampling\n"
	       "noise. For each function's change with its interval and p, sample every run:\n"
	       "tachy run --profile 'OLD COMMAND' 'NEW COMMAND' (tachy-run(1)).\n");
	return 0;
}

static int
write_flame(const struct ty_profile *p, const struct ty_profile *old, const struct report_opts *o)
{
	struct ty_outfile of;
	struct ty_error e = {0};
	struct ty_flame_opts fo = {0};
	struct ty_profile_match m = {TY_MATCH_DSO_SYM, {NULL, NULL}};
	char title[256];
	int r;

	if (!o->title)
		snprintf(title, sizeof(title), "%s%s",
			 old ? "Differential flame graph: " : "Flame graph: ",
			 p->meta.command && *p->meta.command ? p->meta.command
			 : o->file			     ? o->file
							     : o->new_);
	fo.title = o->title ? o->title : title;
	fo.old = old;
	if (old) { /* the two profiles' functions matched as report --diff matches them */
		m.mode = o->match;
		m.main[0] = ty_profile_match_main_of(old);
		m.main[1] = ty_profile_match_main_of(p);
		fo.match = &m;
	}
	if (ty_outfile_open(&of, o->flame, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	r = ty_flame_write(p, &fo, of.fp);
	if (r == -EIO && of.werr)
		r = -of.werr; /* the write's own reason (ENOSPC), not the stream's EIO */
	if (r < 0) {
		ty_outfile_abort(&of);
		return cli_error(EXIT_RUNTIME, "cannot write '%s': %s", o->flame, strerror(-r));
	}
	if (ty_outfile_commit(&of, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	return 0;
}

/* The folded stacks on stdout, each line with its control characters
 * escaped (ty_utf8_escape: \xHH, reversible): a symbol's ESC or OSC 52
 * must not reach the terminal or the next tool raw. The lines are made
 * whole first: a name's line break is already a space there, so every
 * '\n' ends a line. */
static int
report_folded(const struct ty_profile *p)
{
	char *buf = NULL, *line, *nl, *esc;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int r;

	if (!mem)
		return cli_error(EXIT_RUNTIME, "out of memory");
	r = ty_profile_views_folded(p, mem);
	if (fclose(mem) != 0 || r == -ENOMEM || !buf) {
		free(buf);
		return cli_error(EXIT_RUNTIME, "out of memory");
	}
	for (line = buf; line < buf + len; line = nl + 1) {
		if (!(nl = memchr(line, '\n', (size_t)(buf + len - line))))
			nl = buf + len;
		*nl = '\0';
		if (!ty_utf8_needs_escape(line)) {
			puts(line);
			continue;
		}
		if (!(esc = ty_utf8_escape(line))) {
			free(buf);
			return cli_error(EXIT_RUNTIME, "out of memory");
		}
		puts(esc);
		free(esc);
	}
	free(buf);
	return 0;
}

/* Is PATH a tachy profile? --flame victim.prof must not destroy it. */
static int
is_profile(const char *path)
{
	char magic[8];
	FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	int r;

	if (!fp)
		return 0;
	r = fread(magic, 1, sizeof(magic), fp) == sizeof(magic) &&
	    memcmp(magic, TY_PROFILE_MAGIC, sizeof(magic)) == 0;
	fclose(fp);
	return r;
}

static int
check_output(const char *opt, const char *path)
{
	if (path && is_profile(path))
		return cli_error(EXIT_USAGE,
				 "%s %s: that file is a tachy profile; not overwriting it "
				 "(the profile to read comes after the output: %s OUT %s)",
				 opt, path, opt, path);
	return 0;
}

/* --convert: the profile read written as tachy's, with both sizes. */
static int
convert(const struct ty_profile *p, const struct report_opts *o)
{
	struct ty_error e = {0};
	struct stat a, b;

	if (ty_profile_write(p, o->convert, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	if (stat(o->file, &a) == 0 && stat(o->convert, &b) == 0 && a.st_size > 0)
		printf("%s: %lld bytes (%s: %lld bytes, %.1f%%)\n", term_safe(o->convert),
		       (long long)b.st_size, term_safe(o->file), (long long)a.st_size,
		       100.0 * (double)b.st_size / (double)a.st_size);
	return 0;
}

static int
run(const struct report_opts *o)
{
	struct ty_profile *p = NULL, *old = NULL;
	struct ty_error e = {0};
	int r = 0;

	if ((r = check_output("--flame", o->flame)) || (r = check_output("--pprof", o->pprof)) ||
	    (r = check_output("--firefox", o->firefox)) ||
	    (r = check_output("--speedscope", o->speedscope)))
		return r;
	if (o->convert && report_is_perfdata(o->convert))
		return cli_error(EXIT_USAGE,
				 "--convert %s: that file is a perf.data; not overwriting it (the "
				 "perf.data to read comes after the output: --convert OUT.prof %s)",
				 term_safe(o->convert), term_safe(o->convert));

	if (o->mode == M_DIFF) {
		if ((r = report_load(o->old, o->event, &old)) ||
		    (r = report_load(o->new_, o->event, &p)))
			goto out;
	} else if ((r = report_load(o->file, o->event, &p))) {
		goto out;
	} else if (o->convert) {
		r = convert(p, o);
		goto out;
	}
	if (o->filtered) {
		struct ty_prof_filter f = {o->comms, o->ncomms, o->pids, o->npids,
					   o->cpu_arg ? &o->cpus : NULL};
		filter_opts = o;
		if (ty_profile_filter(p, &f) < 0 || (old && ty_profile_filter(old, &f) < 0)) {
			r = cli_error(EXIT_RUNTIME, "out of memory");
			goto out;
		}
	}
	if (o->on_cpu || o->off_cpu) {
		if (o->off_cpu && !ty_profile_has_off_cpu(p)) {
			r = cli_error(EXIT_USAGE,
				      "%s has no off-CPU time (record it with --off-cpu or "
				      "--wall)",
				      o->file);
			goto out;
		}
		ty_profile_keep(p, o->on_cpu, o->off_cpu);
	}
	if (o->flame && (r = write_flame(p, old, o)))
		goto out;
	if (o->firefox && ty_timeline_firefox_write(p, o->firefox, &e) < 0) {
		r = cli_error(EXIT_RUNTIME, "%s", e.msg);
		goto out;
	}
	if (o->speedscope && ty_timeline_speedscope_write(p, o->speedscope, &e) < 0) {
		r = cli_error(EXIT_RUNTIME, "%s", e.msg);
		goto out;
	}
	if (o->pprof && ty_pprof_write(p, o->pprof, &e) < 0) {
		r = cli_error(EXIT_RUNTIME, "%s", e.msg);
		goto out;
	}
	switch (o->mode) {
	case M_FLAT:
		if (!o->flame && !o->pprof && !o->firefox && !o->speedscope)
			r = report_flat(p, o);
		break;
	case M_CALLERS:
	case M_CALLEES:
		r = report_neighbours(p, o);
		break;
	case M_TREE:
		r = report_tree(p, o);
		break;
	case M_FOLDED:
		r = report_folded(p);
		break;
	case M_DIFF:
		if (!o->flame)
			r = report_diff(old, p, o);
		break;
	}
out:
	ty_profile_free(p);
	ty_profile_free(old);
	return r;
}

int cmd_report(int argc, char **argv);

int
cmd_report(int argc, char **argv)
{
	struct report_opts o;
	int r = report_parse_args(argc, argv, &o);

	if (r == 0)
		r = cli_finish_stdout(run(&o));
	else if (r < 0)
		r = cli_finish_stdout(EXIT_OK);
	report_opts_release(&o);
	return r;
}

const struct cmd_info cmd_info_report = {
    "report", 60, "show a profile: flat, call graph, folded, flame graphs", cmd_report};
