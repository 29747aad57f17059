/* cmd-env.c - tachy env: what on this machine can disturb a benchmark.
 *
 * Reads facts through lib/sysinfo (rooted at --root or $TACHY_SYSROOT, so
 * tests use fixture trees), prints each with its state and, where it is
 * not ideal, the advice and the command that would fix it. Changes
 * nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "tachy/jsonw.h"
#include "tachy/sysinfo.h"
#include "tachy/tachy.h"
#include "term.h"

static const char usage_text[] =
    "usage: tachy env [--json] [--root DIR]\n"
    "\n"
    "Show what on this machine can disturb a benchmark: frequency governor,\n"
    "turbo, SMT, isolated CPUs, ASLR, load and busy processes, memory and\n"
    "swap, clock source, perf settings, virtualisation and PMU, thermal\n"
    "throttling, power supply. Each fact has a state (ok, info, warn, bad);\n"
    "where it is not ideal, the advice and the command (for root) that would\n"
    "fix it. tachy env never changes the machine.\n"
    "\n"
    "Options:\n";

/* SOURCE_DATE_EPOCH, when set, fixes the recorded date (reproducible output). */
static void
fix_date(struct ty_sysinfo *si)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;
	time_t t;
	struct tm tm;

	if (!s || !*s)
		return;
	v = strtoll(s, &end, 10);
	if (*end || v < 0)
		return;
	t = (time_t)v;
	if (gmtime_r(&t, &tm))
		strftime(si->date, sizeof(si->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char *
state_color(enum ty_fact_state s)
{
	switch (s) {
	case TY_FACT_OK:
		return "green";
	case TY_FACT_WARN:
		return "yellow";
	case TY_FACT_BAD:
		return "red";
	default:
		return "dim";
	}
}

static void
print_text(const struct ty_sysinfo *si, const struct ty_fact *facts, size_t n)
{
	struct term t;
	size_t i;
	int bad = 0, warn = 0;

	term_init(&t, TERM_COLOR_AUTO, TERM_STYLE_FULL);

	if (si->root[0])
		printf("tachy env: facts read under %s\n\n", si->root);
	for (i = 0; i < n; i++) {
		const struct ty_fact *f = &facts[i];
		char state[8];

		snprintf(state, sizeof(state), "[%s]", ty_fact_state_name(f->state));
		printf("%s%-6s%s %-26s %s\n", term_c(&t, state_color(f->state)), state,
		       term_c(&t, "reset"), f->title, f->value);
		if (f->advice[0])
			printf("       why: %s\n", f->advice);
		if (f->fix[0])
			printf("       fix: %s\n", f->fix);
		bad += f->state == TY_FACT_BAD;
		warn += f->state == TY_FACT_WARN;
	}
	printf("\n%d setting%s known to spoil results, %d that can disturb them.%s\n", bad,
	       bad == 1 ? "" : "s", warn,
	       bad || warn ? " Fixes are commands for root; tachy env changed nothing." : "");
}

static void
kstr_or_null(struct ty_jsonw *w, const char *key, const char *s)
{
	ty_jsonw_key(w, key);
	if (s[0])
		ty_jsonw_string(w, s);
	else
		ty_jsonw_null(w);
}

static void
print_json(const struct ty_sysinfo *si, const struct ty_fact *facts, size_t n)
{
	struct ty_jsonw w;
	size_t i;
	int bad = 0, warn = 0;

	ty_jsonw_init(&w, stdout, 1);
	ty_jsonw_object_begin(&w);
	ty_jsonw_key(&w, "environment");
	ty_sysinfo_write_json(&w, si);
	ty_jsonw_key(&w, "facts");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < n; i++) {
		ty_jsonw_object_begin(&w);
		ty_jsonw_kstring(&w, "key", facts[i].key);
		ty_jsonw_kstring(&w, "title", facts[i].title);
		ty_jsonw_kstring(&w, "state", ty_fact_state_name(facts[i].state));
		ty_jsonw_kstring(&w, "value", facts[i].value);
		kstr_or_null(&w, "advice", facts[i].advice);
		kstr_or_null(&w, "fix", facts[i].fix);
		ty_jsonw_object_end(&w);
		bad += facts[i].state == TY_FACT_BAD;
		warn += facts[i].state == TY_FACT_WARN;
	}
	ty_jsonw_array_end(&w);
	ty_jsonw_kint(&w, "bad", bad);
	ty_jsonw_kint(&w, "warn", warn);
	ty_jsonw_object_end(&w);
	putchar('\n');
}

static int
cmd_env(int argc, char **argv)
{
	struct ty_fact facts[TY_SYSINFO_FACTS];
	struct ty_sysinfo *si;
	struct ty_error err;
	const char *root = getenv("TACHY_SYSROOT");
	int json = 0, rc;
	size_t n;
	struct cli_option options[] = {
	    OPT_FLAG(0, "json", &json, "write the facts as JSON on stdout"),
	    OPT_STRING(0, "root", &root, "DIR",
		       "read /proc and /sys under DIR instead of / (also\n$TACHY_SYSROOT)"),
	    OPT_HELP('h', "help", "show this help"),
	    OPT_END(),
	};
	const struct cli_parser parser = {usage_text, options, NULL, 0, 15};
	struct cli_args args;

	if ((rc = cli_parse(&parser, argc, argv, &args)))
		return rc == CLI_HELP_SHOWN ? cli_finish_stdout(EXIT_OK) : rc;
	if (args.n)
		return cli_usage_error("unexpected argument '%s'", args.v[0]);
	si = malloc(sizeof(*si));
	if (!si)
		return cli_error(EXIT_RUNTIME, "out of memory");
	if (ty_sysinfo_collect(root && root[0] ? root : NULL, si, &err) < 0) {
		free(si);
		return cli_error(EXIT_USAGE, "%s", err.msg);
	}
	fix_date(si);
	n = ty_sysinfo_facts(si, facts, TY_SYSINFO_FACTS);
	if (json)
		print_json(si, facts, n);
	else
		print_text(si, facts, n);
	free(si);
	return cli_finish_stdout(EXIT_OK);
}

const struct cmd_info cmd_info_env = {"env", 80,
				      "show what on this machine can disturb a benchmark", cmd_env};
