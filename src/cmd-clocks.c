/* cmd-clocks.c - tachy clocks: what every clock costs, and which one
 * tachy times with.
 *
 * The kernel's clock sources and the TSC flags come from lib/sysinfo
 * (rooted at --root or $TACHY_SYSROOT, for fixture trees); the costs,
 * steps and cross-CPU checks are always measured on this machine, and
 * --no-measure leaves them out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tachy/clock.h"
#include "tachy/jsonw.h"
#include "tachy/sysinfo.h"
#include "tachy/tachy.h"

#define CS_FILE "/sys/devices/system/clocksource/clocksource0/current_clocksource"

static const char usage_text[] =
    "usage: tachy clocks [--json] [--no-measure] [--root DIR]\n"
    "\n"
    "Show the kernel's clock sources, the TSC's flags and measured frequency,\n"
    "the tick clock tachy times benchmarks with, and for every clock a\n"
    "benchmark could use (rdtsc, rdtscp, clock_gettime's clocks, gettimeofday,\n"
    "getrusage, the perf_event task clock): the cost of one read (median ns\n"
    "and quartiles), the smallest step seen, and whether readings went\n"
    "backwards from one CPU to another. Takes about a second.\n"
    "\n"
    "Options:\n";

static int
slow_source(const char *cs)
{
	return strcmp(cs, "hpet") == 0 || strcmp(cs, "acpi_pm") == 0 ||
	       strcmp(cs, "jiffies") == 0 || strcmp(cs, "refined-jiffies") == 0 ||
	       strcmp(cs, "pit") == 0 || strcmp(cs, "i8253") == 0;
}

static const struct ty_clock_probe *
find_probe(const struct ty_clock_report *r, const char *name)
{
	size_t i;

	for (i = 0; r && i < r->n; i++)
		if (strcmp(r->probe[i].name, name) == 0 && r->probe[i].available)
			return &r->probe[i];
	return NULL;
}

static const char *
yesno(int v, const char *yes, const char *no)
{
	return v < 0 ? "unknown" : v ? yes : no;
}

/* Warnings, one sentence each, for both output forms. */
static size_t
warnings(const struct ty_sysinfo *si, const struct ty_clock_report *r, char (*out)[600], size_t max)
{
	const struct ty_clock_probe *mono = find_probe(r, "CLOCK_MONOTONIC");
	const struct ty_clock_probe *tsc = find_probe(r, "rdtsc");
	size_t n = 0, i;

	if (si->clocksource[0] && slow_source(si->clocksource) && n < max) {
		char cost[200] = "";
		if (mono && tsc)
			snprintf(cost, sizeof(cost),
				 "; here CLOCK_MONOTONIC costs %.0f ns per read, "
				 "rdtsc %.1f ns",
				 mono->cost_ns, tsc->cost_ns);
		else if (mono)
			snprintf(cost, sizeof(cost),
				 "; here CLOCK_MONOTONIC costs %.0f ns per read", mono->cost_ns);
		snprintf(out[n++], 600,
			 "the kernel's clock source is %s, a slow one: every clock_gettime is a "
			 "system call and a chipset access (around a microsecond, the TSC about "
			 "20 ns)%s%s%s",
			 si->clocksource, cost,
			 ty_sysinfo_has_flag(si->clocksources, "tsc") ? "; fix: echo tsc > " : "",
			 ty_sysinfo_has_flag(si->clocksources, "tsc") ? CS_FILE : "");
	}
	if (si->has_tsc == 1 && (si->constant_tsc != 1 || si->nonstop_tsc != 1) && n < max)
		snprintf(out[n++], 600,
			 "the TSC is %s and %s: it cannot time benchmarks, tachy uses "
			 "CLOCK_MONOTONIC",
			 si->constant_tsc == 1 ? "constant" : "not constant",
			 si->nonstop_tsc == 1 ? "nonstop" : "stops in deep idle states");
	for (i = 0; r && i < r->n && n < max; i++) {
		const struct ty_clock_probe *p = &r->probe[i];
		if (p->available && p->backwards > 0 && strcmp(p->kind, "cpu") != 0)
			snprintf(out[n++], 600,
				 "%s went backwards %d time%s (by up to %.0f ns) across %d CPUs",
				 p->name, p->backwards, p->backwards == 1 ? "" : "s",
				 p->backwards_max_ns, p->cpus);
	}
	return n;
}

static void
print_backwards(const struct ty_clock_probe *p)
{
	if (p->backwards < 0)
		printf("not tested");
	else if (p->backwards == 0)
		printf("no (%d CPU%s)", p->cpus, p->cpus == 1 ? "" : "s");
	else
		printf("YES: %d, up to %.0f ns (%d CPUs)", p->backwards, p->backwards_max_ns,
		       p->cpus);
}

static void
print_text(const struct ty_sysinfo *si, const struct ty_tick_clock *tick,
	   const struct ty_clock_report *r)
{
	char warn[8][600];
	size_t i, nw;

	if (si->root[0])
		printf("tachy clocks: facts read under %s\n\n", si->root);
	printf("kernel clock source: %s (available: %s)\n",
	       si->clocksource[0] ? si->clocksource : "not visible",
	       si->clocksources[0] ? si->clocksources : "not visible");
	if (si->has_tsc == 1)
		printf("TSC: present, %s, %s%s",
		       yesno(si->constant_tsc, "constant", "not constant"),
		       yesno(si->nonstop_tsc, "nonstop", "stops when idle"),
		       r && r->tsc_hz > 0 ? "" : "\n");
	else
		printf("TSC: %s\n", si->has_tsc == 0 ? "none" : "not visible");
	if (si->has_tsc == 1 && r && r->tsc_hz > 0)
		printf("; %.3f MHz measured against CLOCK_MONOTONIC\n", r->tsc_hz / 1e6);
	printf("tick clock for benchmarks: %s (%s)\n", ty_clock_name(tick), tick->why);
	if (r) {
		printf("\n%-24s %-7s %9s %-19s %11s %10s  %s\n", "clock", "kind", "ns/read",
		       "(quartiles)", "step ns", "getres ns", "backwards");
		for (i = 0; i < r->n; i++) {
			const struct ty_clock_probe *p = &r->probe[i];
			char q[40];

			if (!p->available) {
				printf("%-24s %-7s unavailable: %s\n", p->name, p->kind, p->why);
				continue;
			}
			snprintf(q, sizeof(q), "(%.1f-%.1f)", p->cost_lo_ns, p->cost_hi_ns);
			printf("%-24s %-7s %9.1f %-19s %11.*f ", p->name, p->kind, p->cost_ns, q,
			       p->step_ns < 100 ? 1 : 0, p->step_ns);
			if (p->getres_ns > 0)
				printf("%10.0f  ", p->getres_ns);
			else
				printf("%10s  ", "-");
			print_backwards(p);
			putchar('\n');
		}
	}
	nw = warnings(si, r, warn, 8);
	if (nw)
		putchar('\n');
	for (i = 0; i < nw; i++)
		printf("warning: %s\n", warn[i]);
}

static void
write_sources(struct ty_jsonw *w, const char *list)
{
	char buf[TY_SYSINFO_STR], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	ty_jsonw_array_begin(w);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		ty_jsonw_string(w, tok);
	ty_jsonw_array_end(w);
}

static void
kbool3(struct ty_jsonw *w, const char *key, int v)
{
	ty_jsonw_key(w, key);
	if (v < 0)
		ty_jsonw_null(w);
	else
		ty_jsonw_bool(w, v);
}

static void
write_probe(struct ty_jsonw *w, const struct ty_clock_probe *p)
{
	ty_jsonw_object_begin(w);
	ty_jsonw_kstring(w, "name", p->name);
	ty_jsonw_kstring(w, "kind", p->kind);
	ty_jsonw_kbool(w, "available", p->available);
	if (!p->available) {
		ty_jsonw_kstring(w, "why", p->why);
	} else {
		ty_jsonw_kdouble(w, "cost_ns", p->cost_ns);
		ty_jsonw_kdouble(w, "cost_q1_ns", p->cost_lo_ns);
		ty_jsonw_kdouble(w, "cost_q3_ns", p->cost_hi_ns);
		ty_jsonw_kdouble(w, "step_ns", p->step_ns);
		ty_jsonw_key(w, "getres_ns");
		if (p->getres_ns > 0)
			ty_jsonw_double(w, p->getres_ns);
		else
			ty_jsonw_null(w);
		ty_jsonw_kint(w, "backwards", p->backwards);
		ty_jsonw_kdouble(w, "backwards_max_ns", p->backwards_max_ns);
		ty_jsonw_kint(w, "cpus", p->cpus);
	}
	ty_jsonw_object_end(w);
}

static void
print_json(const struct ty_sysinfo *si, const struct ty_tick_clock *tick,
	   const struct ty_clock_report *r)
{
	char warn[8][600];
	struct ty_jsonw w;
	size_t i, nw;

	ty_jsonw_init(&w, stdout, 1);
	ty_jsonw_object_begin(&w);
	ty_jsonw_key(&w, "clocksource");
	if (si->clocksource[0])
		ty_jsonw_string(&w, si->clocksource);
	else
		ty_jsonw_null(&w);
	ty_jsonw_key(&w, "clocksources");
	write_sources(&w, si->clocksources);
	ty_jsonw_key(&w, "tsc");
	ty_jsonw_object_begin(&w);
	kbool3(&w, "present", si->has_tsc);
	kbool3(&w, "constant", si->constant_tsc);
	kbool3(&w, "nonstop", si->nonstop_tsc);
	ty_jsonw_key(&w, "hz");
	if (r && r->tsc_hz > 0)
		ty_jsonw_double(&w, r->tsc_hz);
	else
		ty_jsonw_null(&w);
	ty_jsonw_object_end(&w);
	ty_jsonw_key(&w, "tick_clock");
	ty_jsonw_object_begin(&w);
	ty_jsonw_kstring(&w, "name", ty_clock_name(tick));
	ty_jsonw_kstring(&w, "why", tick->why);
	ty_jsonw_key(&w, "hz");
	if (tick->hz > 0)
		ty_jsonw_double(&w, tick->hz);
	else
		ty_jsonw_null(&w);
	ty_jsonw_object_end(&w);
	if (r) {
		ty_jsonw_key(&w, "clocks");
		ty_jsonw_array_begin(&w);
		for (i = 0; i < r->n; i++)
			write_probe(&w, &r->probe[i]);
		ty_jsonw_array_end(&w);
	}
	nw = warnings(si, r, warn, 8);
	ty_jsonw_key(&w, "warnings");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < nw; i++)
		ty_jsonw_string(&w, warn[i]);
	ty_jsonw_array_end(&w);
	ty_jsonw_object_end(&w);
	putchar('\n');
}

static int
cmd_clocks(int argc, char **argv)
{
	struct ty_clock_report *rep = NULL;
	struct ty_sysinfo *si;
	struct ty_tick_clock tick;
	struct ty_error err;
	const char *root = getenv("TACHY_SYSROOT");
	int json = 0, no_measure = 0, measure, rc;
	struct cli_option options[] = {
	    OPT_FLAG(0, "json", &json, "write JSON on stdout"),
	    OPT_FLAG(0, "no-measure", &no_measure,
		     "only what the kernel and CPU flags say (exact, quick)"),
	    OPT_STRING(0, "root", &root, "DIR",
		       "read /proc and /sys under DIR instead of / (also\n"
		       "$TACHY_SYSROOT); measurements are still of this machine"),
	    OPT_HELP('h', "help", "show this help"),
	    OPT_END(),
	};
	const struct cli_parser parser = {usage_text, options, NULL, 0, 17};
	struct cli_args args;

	if ((rc = cli_parse(&parser, argc, argv, &args)))
		return rc == CLI_HELP_SHOWN ? cli_finish_stdout(EXIT_OK) : rc;
	if (args.n)
		return cli_usage_error("unexpected argument '%s'", args.v[0]);
	measure = !no_measure;
	if (root && !root[0])
		root = NULL;
	si = malloc(sizeof(*si));
	if (!si)
		return cli_error(EXIT_RUNTIME, "out of memory");
	if (ty_sysinfo_collect(root, si, &err) < 0) {
		free(si);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	if (!measure) {
		memset(&tick, 0, sizeof(tick));
		tick.kind = ty_clock_choose(root, tick.why, sizeof(tick.why));
	} else if (ty_clock_init(&tick, root, &err) < 0) {
		free(si);
		return cli_error(EXIT_RUNTIME, "%s", err.msg);
	}
	if (measure) {
		rep = malloc(sizeof(*rep));
		if (!rep || ty_clock_measure(rep, &err) < 0) {
			free(si);
			free(rep);
			return cli_error(EXIT_RUNTIME, "%s", rep ? err.msg : "out of memory");
		}
	}
	if (json)
		print_json(si, &tick, rep);
	else
		print_text(si, &tick, rep);
	free(rep);
	free(si);
	return cli_finish_stdout(EXIT_OK);
}

const struct cmd_info cmd_info_clocks = {
    "clocks", 70, "measure every clock: cost, resolution, monotonicity", cmd_clocks};
