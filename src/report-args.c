/* report-args.c - tachy report's command line: usage, options, the
 * filters (--comm, --pid, --cpu) split and checked, the modes' rules. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report-args.h"
#include "run-profile.h"

static const char usage_text[] =
    "usage: tachy report [--sort KEY] [--limit N]\n"
    "                    [--by symbol|thread|comm|process|cpu|dso|line|state |\n"
    "                     --lines] [--on-cpu | --off-cpu] [FILE]\n"
    "       tachy report (--callers SYM | --callees SYM) [FILE]\n"
    "       tachy report --tree [--min PCT] [FILE]\n"
    "       tachy report --folded [FILE]\n"
    "       tachy report --flame OUT.svg [--title TEXT] [FILE]\n"
    "       tachy report --pprof OUT.pb.gz [FILE]\n"
    "       tachy report --firefox OUT.json | --speedscope OUT.json [FILE]\n"
    "       tachy report --diff OLD NEW [--by WHAT] [--match MODE] [--flame OUT.svg]\n"
    "       tachy report [-e NAME] --convert OUT.prof perf.data\n"
    "\n"
    "Show a profile written by tachy record (FILE, default tachy.prof), a\n"
    "perf.data of perf record (-e NAME: which event; sched:sched_switch is read as\n"
    "off-CPU time; symbols of the recorded builds, from ~/.debug or debuginfod\n"
    "where this machine's differ) or a cachegrind.out file.\n"
    "Every view takes --comm NAME[,NAME], --pid PID[,PID] and --cpu LIST: only\n"
    "the samples of those commands, processes and CPUs count.\n"
    "\n";

static const char footer[] = "\n"
			     "A file that is not a valid tachy profile is an error (exit 2). See\n"
			     "tachy-report(1).\n";

static int
opt_lines(const struct cli_option *opt, const char *typed, char **args)
{
	(void)typed, (void)args;
	*(int *)opt->value = TY_BY_LINE;
	return 0;
}

/* --sort KEY: tachy's orders, or perf report's keys, which are what the
 * rows are per (tachy's --by): --sort dso is --by dso. */
struct sort_choice {
	int sort, by;	      /* -1: not given */
	int children;	      /* --children 1, --no-children 0, -1: neither */
	const char *by_typed; /* the option that set BY */
};

static int
opt_sort(const struct cli_option *opt, const char *typed, char **args)
{
	static const char *const sorts[] = {"self", "total", "name", "samples", NULL};
	/* perf report's sort keys, and the --by each means */
	static const struct {
		const char *key;
		int by;
	} perf_keys[] = {{"sym", TY_BY_SYMBOL},	  {"symbol", TY_BY_SYMBOL}, {"comm", TY_BY_COMM},
			 {"dso", TY_BY_DSO},	  {"pid", TY_BY_THREAD},    {"tid", TY_BY_THREAD},
			 {"srcline", TY_BY_LINE}, {"cpu", TY_BY_CPU}};
	struct sort_choice *sc = opt->value;
	const char *s = args[0];
	size_t i;

	for (i = 0; sorts[i]; i++)
		if (strcmp(s, sorts[i]) == 0) {
			sc->sort = (int)i;
			return 0;
		}
	if (strchr(s, ','))
		return cli_usage_error(
		    "%s %s: tachy report's rows are per one key at a time: --by comm, --by dso, "
		    "--by symbol, --by thread or --by line (and --sort self, total, samples or "
		    "name orders them)",
		    typed, s);
	if (strcmp(s, "overhead") == 0) {
		sc->sort = 0;
		return 0;
	}
	for (i = 0; i < sizeof(perf_keys) / sizeof(perf_keys[0]); i++)
		if (strcmp(s, perf_keys[i].key) == 0) {
			sc->by = perf_keys[i].by;
			sc->by_typed = typed;
			return 0;
		}
	return cli_bad_value(typed, s,
			     "self, total, samples or name (or perf report's sym, comm, dso, "
			     "pid, tid, srcline: the rows per that key, as --by)");
}

static int
opt_children(const struct cli_option *opt, const char *typed, char **args)
{
	(void)args;
	((struct sort_choice *)opt->value)->children = strcmp(typed, "--children") == 0;
	return 0;
}

/* --comm, --pid and --cpu into O's filter. */
static int
parse_filters(struct report_opts *o)
{
	struct ty_error e = {0};
	size_t i;

	if (o->comm_args.n && !(o->dups = calloc(o->comm_args.n, sizeof(*o->dups))))
		return cli_error(EXIT_RUNTIME, "out of memory");
	for (i = 0; i < o->comm_args.n; i++) {
		char *dup = o->dups[i] = strdup(o->comm_args.v[i]), *tok, *save = NULL;
		if (!dup)
			return cli_error(EXIT_RUNTIME, "out of memory");
		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			/* one at a time: the --comm names given, a handful */
			const char **v = realloc(o->comms, (o->ncomms + 1) * sizeof(*v));
			if (!v)
				return cli_error(EXIT_RUNTIME, "out of memory");
			o->comms = v;
			o->comms[o->ncomms++] = tok; /* DUP lives as long as the command */
		}
		if (!o->ncomms)
			return cli_usage_error("--comm '%s': give a command name",
					       o->comm_args.v[i]);
	}
	for (i = 0; i < o->pid_args.n; i++) {
		const char *p = o->pid_args.v[i];
		for (;;) {
			size_t n = strspn(p, "0123456789");
			uint32_t *v;
			if (n == 0 || n > 9 || (p[n] && p[n] != ','))
				return cli_usage_error(
				    "--pid %s: give process ids as 123 or 123,456",
				    o->pid_args.v[i]);
			/* one at a time: the --pid ids given, a handful */
			if (!(v = realloc(o->pids, (o->npids + 1) * sizeof(*v))))
				return cli_error(EXIT_RUNTIME, "out of memory");
			o->pids = v;
			o->pids[o->npids++] = (uint32_t)strtoul(p, NULL, 10);
			if (!p[n])
				break;
			p += n + 1;
		}
	}
	if (o->cpu_arg && ty_cpulist_parse(&o->cpus, o->cpu_arg, 0, &e) < 0)
		return cli_usage_error("--cpu %s: %s", o->cpu_arg, e.msg);
	o->filtered = o->ncomms || o->npids || o->cpu_arg;
	return 0;
}

int
report_parse_args(int argc, char **argv, struct report_opts *o)
{
	static const char *const bys[] = {"symbol", "thread",  "comm", "dso", "line",
					  "state",  "process", "cpu",  NULL};
	const char *callers = NULL, *callees = NULL, *input = NULL;
	int tree = 0, folded = 0, diff = 0, by = -1, stdio = 0, modes, rc;
	struct sort_choice sc = {-1, -1, -1, NULL};
	double min = NAN;
	enum ty_match_mode match = (enum ty_match_mode) - 1;
	struct cli_option options[] = {
	    OPT_CALLBACK(0, "sort", &sc, "KEY",
			 "flat profile order: self (default), total, samples, name\n"
			 "(perf report's keys sym, comm, dso, pid, tid, srcline:\n"
			 "the rows per that key, as --by)",
			 opt_sort),
	    OPT_LONG(0, "limit", &o->limit, "N", 1, 1L << 30, "show the first N rows only"),
	    OPT_CHOICE(0, "by", &by, "WHAT", bys,
		       "flat profile (and --diff) per symbol (default), thread,\n"
		       "comm, process (name [pid]), cpu, dso, line (file:line,\n"
		       "from DWARF) or state (on-CPU, sleeping, I/O, lock,\n"
		       "runnable, blocked)"),
	    OPT_CALLBACK_NOARG(0, "lines", &by, "the same as --by line", opt_lines),
	    OPT_STRING(0, "callers", &callers, "SYM", "who calls SYM, in how many samples"),
	    OPT_STRING(0, "callees", &callees, "SYM", "what SYM calls, and its own time"),
	    OPT_FLAG(0, "tree", &tree, "the call tree from the root, nodes under --min PCT hidden"),
	    OPT_DOUBLE(0, "min", &min, "PCT", 0, 100,
		       "tree cut-off in percent of all samples (default 0.5)"),
	    OPT_FLAG(0, "folded", &folded, "FlameGraph's folded stacks (\"a;b;c 123\") on stdout"),
	    OPT_STRING(0, "flame", &o->flame, "OUT.svg",
		       "an interactive flame graph (hover, click to zoom, search)"),
	    OPT_STRING(0, "title", &o->title, "TEXT", "the flame graph's title"),
	    OPT_FLAG_OPERANDS(0, "diff", &diff, "OLD NEW",
			      "the change per symbol from OLD to NEW (in percent of each\n"
			      "profile's samples); with --flame a differential flame\n"
			      "graph of NEW (red grew, blue shrank)"),
	    OPT_CALLBACK(0, "match", &match, "MODE",
			 "--diff: how functions are matched across the two:\n"
			 "dso,sym (default: name and object, the program\n"
			 "whatever its path), sym or path,sym",
			 run_profile_opt_match),
	    OPT_STRING(0, "pprof", &o->pprof, "OUT", "pprof's protobuf format, gzip-compressed"),
	    OPT_STRING(0, "firefox", &o->firefox, "OUT",
		       "the Firefox Profiler's format (processed profile, version\n"
		       "57): a timeline per thread, off-CPU intervals as markers"),
	    OPT_STRING(0, "speedscope", &o->speedscope, "OUT",
		       "speedscope's format: one sampled profile per thread"),
	    OPT_STRING('e', "event", &o->event, "NAME", "a perf.data's event (default: its first)"),
	    OPT_STRING(0, "convert", &o->convert, "OUT.prof",
		       "write FILE (a perf.data) as tachy's own profile"),
	    OPT_STRINGS(0, "comm", &o->comm_args, "NAME[,NAME]",
			"only the samples of threads named NAME (repeatable)"),
	    OPT_STRINGS(0, "pid", &o->pid_args, "PID[,PID]",
			"only the samples of process PID (repeatable)"),
	    OPT_STRING(0, "cpu", &o->cpu_arg, "LIST",
		       "only the samples taken on CPUs LIST (0-3,6)"),
	    OPT_FLAG(0, "on-cpu", &o->on_cpu, "keep the on-CPU samples only"),
	    OPT_FLAG(0, "off-cpu", &o->off_cpu,
		     "keep the off-CPU time only (record --off-cpu, --wall)"),
	    OPT_GROUP("perf report's spellings:"),
	    OPT_STRING('i', "input", &input, "FILE", "the profile to read (as FILE)"),
	    OPT_CALLBACK_NOARG(0, "children", &sc,
			       "rows in order of their total (callees\n"
			       "included), as --sort total",
			       opt_children),
	    OPT_CALLBACK_NOARG(0, "no-children", &sc,
			       "rows in order of their self time (the\n"
			       "default), as --sort self",
			       opt_children),
	    OPT_FLAG('G', "inverted", &tree,
		     "the call tree from the root (callers first),\n"
		     "as --tree"),
	    OPT_FLAG(0, "stdio", &stdio, "text on standard output (always so)"),
	    OPT_REFUSED(0, "tui", NULL,
			"tachy report prints text (as --stdio); to browse a profile: --flame "
			"OUT.svg (zoom, search) or --firefox OUT.json (a timeline)"),
	    OPT_REFUSED(0, "gtk", NULL,
			"tachy report prints text (as --stdio); to browse a profile: --flame "
			"OUT.svg (zoom, search) or --firefox OUT.json (a timeline)"),
	    OPT_HELP('h', "help", "this help"),
	    OPT_END(),
	};
	static const char *const hints[] = {
	    "-g",
	    "perf report's call graph is --tree (the call tree) or --folded (a line a stack)",
	    "--call-graph",
	    "perf report's call graph is --tree or --folded",
	    "--stdio",
	    "the report is text already",
	    NULL};
	const struct cli_parser parser = {usage_text, options, footer, 0, 20};
	struct cli_args args;

	cli_set_hints(hints);
	memset(o, 0, sizeof(*o));
	if ((rc = cli_parse(&parser, argc, argv, &args)))
		return rc;
	(void)stdio; /* the report is text on stdout in any case */
	if (by >= 0) /* the index in bys[] to the row kind */
		by = by == 6 ? (int)TY_BY_PROCESS : by == 7 ? (int)TY_BY_CPU : by;
	if (sc.by >= 0 && by >= 0 && sc.by != by)
		return cli_usage_error("%s and --by ask for different rows: give one", sc.by_typed);
	if (sc.children >= 0 && sc.sort >= 0 && sc.sort != (sc.children ? 1 : 0))
		return cli_usage_error("--%schildren and --sort ask for different orders: give one",
				       sc.children ? "" : "no-");
	o->sort = (enum ty_prof_sort)(sc.sort >= 0 ? sc.sort : sc.children > 0 ? 1 : 0);
	o->by = (enum ty_prof_by)(by >= 0 ? by : sc.by >= 0 ? sc.by : 0);
	if ((rc = parse_filters(o)))
		return rc;
	o->min = isnan(min) ? 0.5 : min;
	modes = !!callers + !!callees + tree + folded + diff;
	if (callers)
		o->mode = M_CALLERS, o->sym = callers;
	if (callees)
		o->mode = M_CALLEES, o->sym = callees;
	if (tree)
		o->mode = M_TREE;
	if (folded)
		o->mode = M_FOLDED;
	if (diff)
		o->mode = M_DIFF;
	argv = args.v;
	argc = args.n;
	if (modes > 1)
		return cli_usage_error("--callers, --callees, --tree, --folded and --diff exclude "
				       "each other");
	if (o->on_cpu && o->off_cpu)
		return cli_usage_error("--on-cpu and --off-cpu exclude each other (give "
				       "neither for both)");
	if ((o->on_cpu || o->off_cpu) && o->mode == M_DIFF)
		return cli_usage_error("--on-cpu and --off-cpu do not apply to --diff");
	if (o->on_cpu && o->off_cpu)
		return cli_usage_error("--on-cpu and --off-cpu exclude each other (give "
				       "neither for both)");
	if ((o->on_cpu || o->off_cpu) && o->mode == M_DIFF)
		return cli_usage_error("--on-cpu and --off-cpu do not apply to --diff");
	if (o->convert && (o->mode != M_FLAT || o->flame || o->pprof || o->firefox ||
			   o->speedscope || o->filtered || o->on_cpu || o->off_cpu))
		return cli_usage_error("--convert writes the whole profile read, and nothing "
				       "else: give it alone (the views read the converted file)");
	if (o->title && !o->flame)
		return cli_usage_error("--title is the flame graph's: give --flame OUT.svg too");
	if (!isnan(min) && o->mode != M_TREE)
		return cli_usage_error("--min is the call tree's cut-off: give --tree too");
	if ((int)match != -1 && o->mode != M_DIFF)
		return cli_usage_error("--match says how --diff matches functions: give --diff "
				       "OLD NEW too");
	o->match = (int)match == -1 ? TY_MATCH_DSO_SYM : match;
	if (o->mode == M_DIFF) {
		if (argc != 2)
			return cli_usage_error("--diff needs two profiles: OLD NEW");
		o->old = argv[0];
		o->new_ = argv[1];
		return 0;
	}
	if (argc > 1 || (argc && input))
		return cli_usage_error("one profile at a time (or --diff OLD NEW)");
	o->file = argc ? argv[0] : input ? input : "tachy.prof";
	return 0;
}

void
report_opts_release(struct report_opts *o)
{
	size_t i;

	for (i = 0; i < o->comm_args.n && o->dups; i++) /* --comm's copies, split */
		free(o->dups[i]);
	free(o->dups);
	free(o->comms);
	free(o->pids);
	free(o->comm_args.v);
	free(o->pid_args.v);
	ty_cpulist_release(&o->cpus);
}
