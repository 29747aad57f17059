/* record-args.c - tachy record's command line: usage, options, the call
 * graph's modes (-g, --call-graph, --off-cpu-chains), their rules. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record-args.h"

static const char usage_text[] =
    "usage: tachy record [-g | --call-graph MODE] [-F HZ | -c PERIOD] [-e EVENT]\n"
    "                    [-o FILE] [-m PAGES] [--proc-maps | --mmap-records]\n"
    "                    [--user | --kernel] [--off-cpu | --wall]\n"
    "                    [--off-cpu-chains HZ|all] [--calls PATTERN]... [-q]\n"
    "                    (-- COMMAND [ARG...] | -p PID)\n"
    "       tachy record -a [-C LIST] [options] [--duration SECS | -- COMMAND [ARG...]]\n"
    "\n"
    "Sample where COMMAND (with all its threads and children) or the running\n"
    "process PID spends its time, and write a self-contained profile (-p PID: until\n"
    "it ends, for SECS seconds, or while COMMAND runs, as perf's -p PID -- sleep 5).\n"
    "With -a, sample every process and the kernel on every CPU (or those of -C)\n"
    "while COMMAND runs, for SECS seconds, or until Ctrl-C, SIGTERM or SIGHUP.\n"
    "\n";

static const char footer[] =
    "\n"
    "At the end one line says how many samples were taken and lost, and the CPU\n"
    "time the profiler used against the workload's; a second line what share of\n"
    "the workload's CPU time the samples cover. See tachy-record(1).\n";

static int
parse_callgraph(const char *arg, struct record_opts *o)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

	o->callchain = 1;
	if (n == 2 && strncmp(arg, "fp", 2) == 0 && !comma)
		o->cg = TY_CG_FP;
	else if (n == 4 && strncmp(arg, "auto", 4) == 0 && !comma)
		o->cg = TY_CG_AUTO;
	else if (n == 5 && strncmp(arg, "dwarf", 5) == 0)
		o->cg = TY_CG_DWARF;
	else
		return cli_usage_error("--call-graph %s: give fp, dwarf[,SIZE] or auto", arg);
	if (comma) {
		if (cli_parse_long("--call-graph dwarf,SIZE", comma + 1, 8, TY_RECORD_STACK_MAX,
				   &o->stack_size))
			return EXIT_USAGE;
		if (o->stack_size & 7)
			return cli_usage_error(
			    "--call-graph dwarf,%ld: the size must be a multiple "
			    "of 8",
			    o->stack_size);
	}
	return 0;
}

/* -g: call chains, --call-graph auto. */
static int
opt_g(const struct cli_option *opt, const char *typed, char **args)
{
	struct record_opts *o = opt->value;

	o->callchain = 1;
	o->cg = TY_CG_AUTO;
	return 0;
}

/* --off-cpu-chains HZ | all. */
static int
opt_chains(const struct cli_option *opt, const char *typed, char **args)
{
	struct record_opts *o = opt->value;
	long hz;

	if (strcmp(args[0], "all") == 0) {
		o->switch_chains = TY_RECORD_CHAINS_ALL;
		return 0;
	}
	if (!*args[0] || strspn(args[0], "0123456789") != strlen(args[0]) || strlen(args[0]) > 8 ||
	    (hz = strtol(args[0], NULL, 10)) < 1 || hz > 10000000)
		return cli_usage_error("--off-cpu-chains %s: give the chains a second (1 to "
				       "10000000) or all",
				       args[0]);
	o->switch_chains = (uint64_t)hz;
	return 0;
}

static int
opt_callgraph(const struct cli_option *opt, const char *typed, char **args)
{
	((struct record_opts *)opt->value)->cg_given = 1;
	return parse_callgraph(args[0], opt->value);
}

int
record_parse_args(int argc, char **argv, struct record_opts *o)
{
	int user = 0, kernel = 0, offcpu = 0, wall = 0, rc;
	struct cli_option options[] = {
	    OPT_LONG('F', "freq", &o->freq, "HZ", 1, 10000000, "samples per second (default 999)"),
	    OPT_LONG('c', "period", &o->period, "N", 1, (double)(1L << 62),
		     "one sample every N events instead of -F"),
	    OPT_STRING('e', "event", &o->event, "EVENT",
		       "what to sample, as tachy run -e names it; default\n"
		       "cycles where the CPU has it, else cpu-clock"),
	    OPT_FLAG(0, "fallback", &o->fallback,
		     "sample cpu-clock where the -e event is missing\n"
		     "(perf's habit) instead of failing"),
	    OPT_CALLBACK_NOARG('g', NULL, o, "record call chains (--call-graph auto)", opt_g),
	    OPT_CALLBACK(0, "call-graph", o, "MODE",
			 "fp: the kernel follows frame pointers; dwarf[,SIZE]:\n"
			 "a copy of SIZE bytes of each user stack (default\n"
			 "65528, the kernel's most) unwound with the binaries'\n"
			 "call-frame information (.eh_frame) while recording,\n"
			 "the frame pointer where none covers a pc; auto:\n"
			 "dwarf on x86-64, else fp",
			 opt_callgraph),
	    OPT_STRING('o', "output", &o->output, "FILE",
		       "profile file (default tachy.prof, - for stdout: the\n"
		       "command's stdout then goes to stderr)"),
	    OPT_LONG('p', "pid", &o->pid, "PID", 1, 1L << 22,
		     "attach to a running process (all its threads) until it\n"
		     "exits, Ctrl-C, --duration SECS or -- COMMAND ends"),
	    OPT_LONG('m', "mmap-pages", &o->pages, "N", 1, 1L << 20,
		     "ring buffer pages per CPU, a power of two (default 128;\n"
		     "dwarf 2048, 1024 for SIZE <= 32768; off-CPU 512,\n"
		     "2048 with dwarf; halved down to 128 where the\n"
		     "locked-memory limit refuses more)"),
	    OPT_FLAG(0, "proc-maps", &o->proc_maps,
		     "no mmap records at all: read /proc/PID/maps every\n"
		     "50 ms instead (processes that live less than that\n"
		     "keep raw addresses)"),
	    OPT_FLAG(0, "mmap-records", &o->mmap_records,
		     "mmap records for the whole run (by default they stop\n"
		     "100 ms after start when the command has started no\n"
		     "other process: every mmap(2) pays for them)"),
	    OPT_FLAG(0, "user", &user, "user space only"),
	    OPT_FLAG(0, "kernel", &kernel,
		     "kernel samples too, or fail (default: kernel samples\n"
		     "where allowed -- root, CAP_PERFMON or\n"
		     "perf_event_paranoid <= 1 -- else user space only)"),
	    OPT_FLAG(0, "off-cpu", &offcpu,
		     "off-CPU time instead of samples: every switch-out of\n"
		     "every thread and how long it stayed off the CPU\n"
		     "(runnable: preempted); with -g its call chain (unwound\n"
		     "as for samples, from a copy of 2048 bytes of user stack)\n"
		     "and what it waited for (sleeping, I/O, lock)"),
	    OPT_FLAG(0, "wall", &wall,
		     "on-CPU samples (a clock event, default cpu-clock) and\n"
		     "off-CPU time together: a wall-clock profile"),
	    OPT_CALLBACK(0, "off-cpu-chains", o, "HZ|all",
			 "with -g: a call chain at each switch-out\n"
			 "while they come at most HZ a second in all (default\n"
			 "999); above, in windows that keep to about HZ chains\n"
			 "a second (a burst of HZ/4 kept), each other interval\n"
			 "taking the chain of one near it in its thread with the\n"
			 "nearest duration (every duration stays exact); all:\n"
			 "at every switch-out (the kernel's ~2.5 us each)",
			 opt_chains),
	    OPT_FLAG('a', "all-cpus", &o->all,
		     "system-wide: every process and the kernel on every\n"
		     "CPU, with a ring per CPU; the processes running\n"
		     "before are named and symbolized from /proc (needs\n"
		     "root, CAP_PERFMON or perf_event_paranoid <= 0); -g\n"
		     "is frame-pointer chains here (--call-graph dwarf to\n"
		     "unwind copies of the stacks)"),
	    OPT_STRING('C', "cpu", &o->cpu_list, "LIST", "with -a: these CPUs only (0, 0-3,6)"),
	    OPT_DOUBLE(0, "duration", &o->duration, "SECS", 0.001, 1e7,
		       "with -a and no command, or -p: stop after SECS seconds"),
	    OPT_STRINGS(0, "calls", &o->calls, "PATTERN",
			"count every call of the functions matching the glob\n"
			"PATTERN in the command's executable (FILE:PATTERN: in\n"
			"FILE, a library say), exactly, with a uprobe at each\n"
			"entry (root or CAP_PERFMON); the flat profile then\n"
			"has gprof's calls, self ns/call and total ns/call.\n"
			"A probe hit's cost is measured first and stated"),
	    OPT_FLAG('q', "quiet", &o->quiet, "no summary line"),
	    OPT_HELP('h', "help", "this help"),
	    OPT_END(),
	};
	const struct cli_parser parser = {usage_text, options, footer, CLI_STOP_AT_OPERAND, 23};
	struct cli_args args;

	memset(o, 0, sizeof(*o));
	o->output = "tachy.prof";
	if ((rc = cli_parse(&parser, argc, argv, &args)))
		return rc;
	o->argv = args.v;
	if (o->pages & (o->pages - 1))
		return cli_usage_error("-m %ld: the ring size must be a power of two", o->pages);
	if (o->freq && o->period)
		return cli_usage_error("-F and -c exclude each other (a frequency or a period)");
	if (offcpu && wall)
		return cli_usage_error("--off-cpu and --wall exclude each other (--wall has both)");
	o->off_cpu = offcpu ? TY_OFFCPU_ONLY : wall ? TY_OFFCPU_WALL : TY_OFFCPU_NONE;
	if (offcpu && (o->event || o->freq || o->period))
		return cli_usage_error("--off-cpu records the switch-outs: -e, -F and -c are "
				       "--wall's (on-CPU samples beside the off-CPU time)");
	if (o->switch_chains && !o->off_cpu)
		return cli_usage_error("--off-cpu-chains is for --off-cpu and --wall");
	if (o->switch_chains && !o->callchain)
		return cli_usage_error("--off-cpu-chains: call chains need -g (or --call-graph)");
	if (!o->freq)
		o->freq = 999;
	if (o->proc_maps && o->mmap_records)
		return cli_usage_error("--proc-maps and --mmap-records exclude each other");
	if (user && kernel)
		return cli_usage_error("--user and --kernel exclude each other");
	o->user = user ? 1 : kernel ? -1 : 0;
	if (o->cpu_list && !o->all)
		return cli_usage_error("-C is for -a (the CPUs to sample every process on)");
	if (o->duration > 0 && !o->all && !o->pid)
		return cli_usage_error("--duration is for -a or -p PID (a command is recorded "
				       "until it ends)");
	if (o->pid && o->duration > 0 && o->argv[0])
		return cli_usage_error("-p PID records for --duration SECS or while a command "
				       "runs, not both");
	if (o->all && o->pid)
		return cli_usage_error("-a samples every process: -p PID is for one");
	if (o->all && o->duration > 0 && o->argv[0])
		return cli_usage_error("-a records for --duration SECS or for the life of a "
				       "command, not both");
	if (o->all && o->callchain && o->cg == TY_CG_AUTO && !o->cg_given)
		o->cg = TY_CG_FP; /* a stack copy per sample on every CPU: asked for, not -g */
	if (o->all && o->cpu_list) {
		struct ty_error e = {0};
		long n = sysconf(_SC_NPROCESSORS_CONF);
		if (ty_cpulist_parse(&o->cpus, o->cpu_list, n > 0 ? (int)n : 1, &e) < 0)
			return cli_usage_error("-C %s: %s", o->cpu_list, e.msg);
	}
	if (!o->pid && !o->argv[0] && !o->all)
		return cli_usage_error("no command to record (tachy record [options] -- COMMAND, "
				       "or -a for every process)");
	return 0;
}

/* OPT's rate V is above the kernel's limit MAX: a usage error. */
