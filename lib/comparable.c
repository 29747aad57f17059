/* comparable.c - whether two sides were measured under comparable
 * conditions (comparable.h).
 *
 * The facts are those every result records: the machine and kernel in its
 * environment, the load average and the processes running when the run
 * started, and per run the CPU time, the wall time and the involuntary
 * context switches (how often another task took the CPU). A side's runs
 * that waited for the CPU and were preempted far more often than the other
 * side's ran beside other work, whatever the load average said when they
 * started. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/comparable.h"
#include "tachy/results-saved.h"

/* Load per CPU that must separate the sides: half the machine's CPUs
 * busy with other work on one side and not on the other. */
#define LOAD_PER_CPU 0.5
/* The runs' preemptions: the busier side at least this many per second
 * of CPU time and this many times the quieter side's, and their waiting
 * shares apart by this much, over at least MIN_CPU_S of CPU time a side
 * (fewer runs give a rate of chance). */
#define PREEMPT_RATE 100.0
#define PREEMPT_RATIO 4.0
#define WAIT_APART 0.05
#define MIN_CPU_S 0.2
/* How far the baseline must lie beyond every later result, relative to
 * its median. */
#define STALE_MARGIN 0.05

const char *
ty_comparable_kind_key(enum ty_comparable_kind kind)
{
	switch (kind) {
	case TY_COMPARABLE_MACHINE:
		return "machine";
	case TY_COMPARABLE_KERNEL:
		return "kernel";
	case TY_COMPARABLE_LOAD:
		return "load";
	case TY_COMPARABLE_STALE:
		return "stale_baseline";
	}
	return "?";
}

/* ---- the facts of a side ---- */

static const char *
env(const struct ty_results_saved *files, size_t n, const char *key)
{
	const char *v;

	for (size_t i = 0; i < n; i++)
		if ((v = ty_results_saved_env_value(&files[i], key)) && strcmp(v, "null") != 0 &&
		    v[0])
			return v;
	return NULL;
}

static double
env_num(const struct ty_results_saved *files, size_t n, const char *key)
{
	const char *v = env(files, n, key);
	char *end;
	double d;

	if (!v)
		return -1;
	d = strtod(v, &end);
	return *end || !isfinite(d) || d < 0 ? -1 : d;
}

static double
sum(const struct ty_results_saved_figure *f)
{
	double s = 0;

	for (size_t i = 0; f && i < f->n; i++)
		s += f->values[i];
	return s;
}

void
ty_comparable_side_of(struct ty_comparable_side *s, const char *name,
		      const struct ty_results_saved *files, size_t n)
{
	double cpus, busy;
	int ctx = 1;

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->host = env(files, n, "hostname");
	s->cpu_model = env(files, n, "cpu_model");
	s->kernel = env(files, n, "kernel");
	cpus = env_num(files, n, "cores");
	s->cpus = cpus >= 1 && cpus < 1e6 ? (int)cpus : -1;
	s->load = env_num(files, n, "load_average");
	busy = env_num(files, n, "busy_processes");
	s->busy = busy >= 0 && busy < 1e6 ? (int)busy : -1;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < files[i].nbenches; j++) {
			const struct ty_results_saved_bench *b = &files[i].benches[j];
			const struct ty_results_saved_figure *w, *u, *y, *c;
			w = ty_results_saved_figure_named(b, "wall");
			u = ty_results_saved_figure_named(b, "user");
			y = ty_results_saved_figure_named(b, "system");
			c = ty_results_saved_figure_named(b, "nivcsw");
			/* only benchmarks whose runs all have the three times */
			if (!w || !u || !y || u->n != w->n || y->n != w->n)
				continue;
			s->wall_s += sum(w);
			s->cpu_s += sum(u) + sum(y);
			if (c && c->n == w->n)
				s->nivcsw += sum(c);
			else
				ctx = 0;
		}
	if (!ctx || s->cpu_s <= 0)
		s->nivcsw = -1;
}

/* ---- judging ---- */

static void __attribute__((format(printf, 3, 4))) put(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}

static int
differ(const char *a, const char *b)
{
	return a && b && strcmp(a, b) != 0;
}

static void
machine_text(char *buf, size_t size, const struct ty_comparable_side *s)
{
	char cpus[32] = "";

	if (s->cpus > 0)
		snprintf(cpus, sizeof(cpus), "%s%d CPU%s", s->cpu_model ? ", " : "", s->cpus,
			 s->cpus == 1 ? "" : "s");
	snprintf(buf, size, "'%s' (%s%s)", s->host ? s->host : "unknown host",
		 s->cpu_model ? s->cpu_model : "", cpus);
}

static int
machine(const struct ty_comparable_side *o, const struct ty_comparable_side *n,
	struct ty_comparable_finding *f)
{
	char a[160], b[160];

	if (!differ(o->host, n->host) && !differ(o->cpu_model, n->cpu_model) &&
	    !(o->cpus > 0 && n->cpus > 0 && o->cpus != n->cpus))
		return 0;
	machine_text(a, sizeof(a), o);
	machine_text(b, sizeof(b), n);
	f->kind = TY_COMPARABLE_MACHINE;
	put(f->facts, sizeof(f->facts), "%s ran on %s, %s on %s", o->name, a, n->name, b);
	put(f->fix, sizeof(f->fix), "compare results of one machine: measure both sides on it");
	return 1;
}

static int
kernel(const struct ty_comparable_side *o, const struct ty_comparable_side *n,
       struct ty_comparable_finding *f)
{
	if (!differ(o->kernel, n->kernel))
		return 0;
	f->kind = TY_COMPARABLE_KERNEL;
	put(f->facts, sizeof(f->facts), "%s ran under kernel %s, %s under %s", o->name, o->kernel,
	    n->name, n->kernel);
	put(f->fix, sizeof(f->fix),
	    "a kernel's change alone can move the times: measure both sides under one kernel");
	return 1;
}

static double
per_cpu(const struct ty_comparable_side *s)
{
	return s->load < 0 ? -1 : s->load / (s->cpus > 0 ? s->cpus : 1);
}

static double
wait_share(const struct ty_comparable_side *s)
{
	double w = s->wall_s > 0 ? 1 - s->cpu_s / s->wall_s : 0;

	return w > 0 ? w : 0;
}

/* Preemptions per second of CPU time, -1 when unknown or too few to say. */
static double
preempt_rate(const struct ty_comparable_side *s)
{
	return s->nivcsw < 0 || s->cpu_s < MIN_CPU_S ? -1 : s->nivcsw / s->cpu_s;
}

/* Which side ran under more load by the recorded facts: 1 the new, -1 the
 * old, 0 neither clearly. */
static int
busier(const struct ty_comparable_side *o, const struct ty_comparable_side *n)
{
	double lo = per_cpu(o), ln = per_cpu(n), ro = preempt_rate(o), rn = preempt_rate(n);
	double hi, low;

	if (lo >= 0 && ln >= 0 && fabs(lo - ln) >= LOAD_PER_CPU)
		return ln > lo ? 1 : -1;
	if (ro < 0 || rn < 0)
		return 0;
	hi = ro > rn ? ro : rn;
	low = ro > rn ? rn : ro;
	if (hi >= PREEMPT_RATE && hi >= PREEMPT_RATIO * low &&
	    fabs(wait_share(o) - wait_share(n)) >= WAIT_APART)
		return rn > ro ? 1 : -1;
	return 0;
}

static size_t
load_text(char *buf, size_t size, const struct ty_comparable_side *s)
{
	size_t len = 0;

#define ADD(...)                                                                                   \
	(len += (size_t)snprintf(buf + len, len < size ? size - len : 0, __VA_ARGS__),             \
	 len = len < size ? len : size)
	if (s->load >= 0) {
		ADD("%s ran at load %.2f", s->name, s->load);
		if (s->cpus > 0)
			ADD(" on %d CPU%s", s->cpus, s->cpus == 1 ? "" : "s");
		if (s->busy > 0)
			ADD(" with %d other process%s running", s->busy, s->busy == 1 ? "" : "es");
		if (preempt_rate(s) >= 0)
			ADD(", its runs waiting for a CPU %.0f%% of their time, preempted %.0f "
			    "times "
			    "a second of CPU time",
			    100 * wait_share(s), preempt_rate(s));
	} else if (preempt_rate(s) >= 0) {
		ADD("%s's runs waited for a CPU %.0f%% of their time, preempted %.0f times a "
		    "second of CPU time",
		    s->name, 100 * wait_share(s), preempt_rate(s));
	} else {
		ADD("%s: no load recorded", s->name);
	}
	return len;
#undef ADD
}

static int
load(const struct ty_comparable_side *o, const struct ty_comparable_side *n,
     struct ty_comparable_finding *f)
{
	int who = busier(o, n);
	const struct ty_comparable_side *loaded = who > 0 ? n : o, *quiet = who > 0 ? o : n;
	size_t len;

	if (!who)
		return 0;
	f->kind = TY_COMPARABLE_LOAD;
	len = load_text(f->facts, sizeof(f->facts), o);
	if (len + 3 < sizeof(f->facts)) {
		memcpy(f->facts + len, "; ", 3);
		load_text(f->facts + len + 2, sizeof(f->facts) - len - 2, n);
	}
	put(f->fix, sizeof(f->fix),
	    "measure both in one `tachy run` (interleaved), or re-measure %s on a machine as "
	    "quiet as for %s",
	    loaded->name, quiet->name);
	return 1;
}

size_t
ty_comparable_judge(const struct ty_comparable_side *old, const struct ty_comparable_side *new,
		    struct ty_comparable_finding *out, size_t max)
{
	struct ty_comparable_finding f;
	size_t n = 0;
	int other;

	memset(&f, 0, sizeof(f));
	other = machine(old, new, &f);
	if (other && n++ < max)
		out[n - 1] = f;
	if (!other && kernel(old, new, &f) && n++ < max)
		out[n - 1] = f;
	if (load(old, new, &f) && n++ < max)
		out[n - 1] = f;
	return n;
}

int
ty_comparable_stale(const char *bench, const char *base_name, double median,
		    const struct ty_comparable_range *later, size_t n,
		    struct ty_comparable_finding *f)
{
	double lo = INFINITY, hi = -INFINITY, margin = STALE_MARGIN * fabs(median);
	double near, far;
	int above;

	if (n < 2 || !isfinite(median) || median <= 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(later[i].lo) || !isfinite(later[i].hi))
			return 0;
		lo = later[i].lo < lo ? later[i].lo : lo;
		hi = later[i].hi > hi ? later[i].hi : hi;
	}
	if (median - hi > margin)
		above = 1;
	else if (lo - median > margin)
		above = 0;
	else
		return 0;
	near = 100 * fabs((above ? hi : lo) / median - 1);
	far = 100 * fabs((above ? lo : hi) / median - 1);
	f->kind = TY_COMPARABLE_STALE;
	put(f->facts, sizeof(f->facts),
	    "the median of '%s' at %s lies %s every run of the %zu results after it (%.1f%% to "
	    "%.1f%% %s it)",
	    bench, base_name, above ? "above" : "below", n, near, far, above ? "below" : "above");
	put(f->fix, sizeof(f->fix),
	    "if no commit between changed '%s', %s was measured under other conditions: "
	    "re-measure it, or compare against a later commit",
	    bench, base_name);
	return 1;
}
