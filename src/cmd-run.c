/* cmd-run.c - tachy run: benchmark commands, compare them, export results.
 * The options are run-options.c's, the jobs run-jobs.c's, the report and
 * exports run-report.c's; here the machine and the clock are set up, the
 * benchmark is run (lib/runner.c) and interrupted on a signal. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run.h"
#include "tachy/clock.h"
#include "tachy/tachy.h"

int cmd_run(int argc, char **argv);

static volatile int stop_flag;
static struct ty_runner *volatile running; /* while ty_runner_run runs */

static void
on_signal(int sig)
{
	stop_flag = sig;
	if (running)
		ty_runner_stop(running);
}

/* ---- the machine (lib/sysinfo) and the tick clock (lib/clock) ---- */

static void
env_warn(void *ctx, const char *line)
{
	(void)ctx;
	cli_warn("%s", line);
}

/* Read the machine's facts (under $TACHY_SYSROOT, for tests), warn about
 * the settings known to spoil results (unless QUIET), and time with the TSC where it is
 * safe (constant, nonstop, still a kernel clock source). Returns the facts
 * for the export (NULL: the default environment). */
static struct ty_sysinfo *
env_setup(struct ty_runner *r, struct ty_tick_clock *tick, int quiet)
{
	const char *root = getenv("TACHY_SYSROOT");
	struct ty_sysinfo *si = malloc(sizeof(*si));
	struct ty_clock_calibration cal;
	struct ty_error e;

	if (root && !root[0])
		root = NULL;
	/* The TSC is calibrated across the reading of the facts, topped up to
	 * 2 ms (a ~100 ns bracket over 2 ms: 50 ppm, far below run-to-run noise). */
	ty_clock_calibration_start(&cal);
	if (si && ty_sysinfo_collect_quick(root, si, &e) < 0) {
		cli_warn("%s", e.msg);
		free(si);
		si = NULL;
	}
	if (si && !quiet)
		ty_sysinfo_warnings(si, env_warn, NULL);
	if (ty_clock_init_calibrated(tick, root, &cal, &e) == 0 && tick->kind == TY_CLOCK_TSC) {
		r->clock.name = ty_clock_name(tick);
		r->clock.now_ns = ty_clock_since_init_ns;
		r->clock.ctx = tick;
	}
	return si;
}

static void
bench_release(struct bench *b)
{
	size_t j, h;

	for (j = 0; j < b->njobs; j++) {
		free(b->jobs[j].argv);
		for (h = 0; h < TY_HOOKS; h++) {
			free(b->jobs[j].hook[h]);
			free(b->hook_text[j * TY_HOOKS + h]);
		}
	}
	free(b->argv_text);
	free(b->jobs);
	free(b->hook_text);
	free(b->si);
	run_exports_abort(b->of, b->of_open);
	if (b->rof_open)
		ty_outfile_abort(&b->rof);
	ty_results_release(&b->rs);
	counters_cli_release(&b->o.counters);
	run_profile_release(&b->o.prof);
	run_instr_release(&b->o.instr);
	free(b->o.cmds.v);
	free(b->o.names.v);
	for (h = 0; h < TY_HOOKS; h++)
		free(b->o.hooks[h].v);
	for (j = 0; j < b->o.nparams; j++) {
		for (h = 0; h < b->o.params[j].n; h++)
			free(b->o.params[j].values[h]);
		free(b->o.params[j].values);
	}
}

static void
catch_signals(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed terminal or ssh session: the runs done are reported and
	 * exported too; under nohup (SIGHUP ignored) the run goes on */
	if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
}

/* Is the environment variable NAME set to "0" (a knob turned off)? */
static int
env_zero(const char *name)
{
	const char *v = getenv(name);

	return v && strcmp(v, "0") == 0;
}

static int
run_bench(struct bench *b)
{
	struct ty_tick_clock tick;
	struct ty_error e;
	int rc, st, files_st;

	ty_runner_init(&b->runner);
	b->si = env_setup(&b->runner, &tick, b->o.quiet);
	b->runner.o = b->o.ro;
	/* TACHY_MEMCG=0 (tachy-run(1)): the runs in no cgroup of their own */
	b->runner.o.no_memcg = env_zero("TACHY_MEMCG");
	/* TACHY_SPAWN_HELPER=0, TACHY_SPAWN_PIN=0 (tachy-run(1)): the runs
	 * cloned from tachy; tachy and the helper left unpinned */
	b->runner.o.spawn_self = env_zero("TACHY_SPAWN_HELPER");
	b->runner.o.spawn_no_pin = env_zero("TACHY_SPAWN_PIN");
	b->o.counters.quiet = b->o.quiet;
	if (b->o.instr.on) {
		if (b->o.counters.replace || b->o.counters.add || b->o.counters.perf_stat)
			return cli_usage_error(
			    "--instructions counts under Valgrind: not with -e or "
			    "--perf-stat (the hardware counters would count "
			    "Valgrind)");
		b->o.counters.off = 1; /* Valgrind's own counts are no figure of the command */
	}
	if ((st = counters_cli_setup(&b->o.counters, &b->runner)))
		return st;
	if (b->o.instr.on && (b->o.prof.on || b->o.prof.flame)) {
		/* the per-function counts are Valgrind's: no sampling */
		if (b->o.prof.flame && b->rs.n != 2)
			return cli_usage_error("--flame draws one command against another: give "
					       "two commands (%zu given)",
					       b->rs.n);
		b->o.prof.on = 1; /* --flame implies --profile */
		if (ty_runprof_init(&b->o.prof.rp, b->rs.n) < 0)
			return cli_error(EXIT_RUNTIME, "out of memory");
		b->o.prof.rp.exact = 1;
		if ((st = run_instr_setup(&b->o.instr, &b->runner, &b->o.prof.rp)))
			return st;
		b->rs.profile = &b->o.prof.rp; /* the exports carry the counts */
	} else if ((st = run_instr_setup(&b->o.instr, &b->runner, NULL)) ||
		   (st = run_profile_setup(&b->o.prof, &b->runner, &b->rs)))
		return st;
	if (b->o.have_cpus)
		b->runner.o.cpus = &b->o.cpus;
	if ((st = run_report_start(b)))
		return st;
	b->runner.stop = &stop_flag;
	b->runner.progress = run_report_progress;
	b->runner.progress_ctx = &b->term;
	running = &b->runner;
	catch_signals();
	if (b->njobs > 1 && !b->o.ro.runs && b->o.ro.order == TY_ORDER_SEQUENTIAL)
		cli_warn("with --order sequential and adaptive runs each command stops on its "
			 "own, which can bias the verdicts: use --order interleaved or -r N");
	if ((st = run_exports_open(b->of, b->of_open, &b->o)))
		return st;
	if ((st = run_history_prepare(&b->o.hist)))
		return st;
	if (b->si && b->si->load1 > 0) { /* named where runs waited for a CPU */
		b->rs.load1 = b->si->load1;
		b->rs.load_cpus = b->si->cpus;
	}
	ty_error_clear(&e);
	rc = ty_runner_run(&b->runner, b->jobs, b->njobs, &b->rs, &e);
	running = NULL;
	term_progress_clear(&b->term);
	counters_cli_finish(&b->o.counters, &b->rs);
	if (rc == -ENOENT) /* a command that does not exist: as tachy record says it;
			    * under --bisect a commit that did not build (skipped) */
		return cli_error(b->o.hist.bisect ? EXIT_RUNTIME : EXIT_USAGE, "%s", e.msg);
	if (rc == -ENOEXEC) /* a script without its interpreter's line */
		return cli_error(
		    EXIT_RUNTIME,
		    "%s: a script needs a first line naming its interpreter (#!/bin/sh), "
		    "or run it through a shell: --shell sh",
		    e.msg);
	if (rc < 0 && rc != -EINTR && rc != -ECHILD)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	b->rs.test = b->o.test;
	if (ty_results_analyze(&b->rs, &e) < 0)
		return cli_error(EXIT_RUNTIME, "%s", e.msg);
	if (rc == -EINTR)
		cli_error(EXIT_INTERRUPTED, "interrupted by %s: reporting the runs finished so far",
			  stop_flag == SIGTERM	? "SIGTERM"
			  : stop_flag == SIGHUP ? "SIGHUP"
						: "SIGINT");
	files_st = run_exports_write(b->of, b->of_open, &b->rs, &b->o, b->si, 0);
	if (b->o.style != TERM_STYLE_NONE)
		run_report_print(b);
	if (b->rof_open && (st = run_report_commit(b)))
		files_st = st;
	if ((st = b->o.instr.active
		      ? run_instr_flame(&b->o.instr, &b->o.prof.rp, &b->rs, b->o.prof.flame)
		      : run_profile_flame(&b->o.prof, &b->rs)))
		files_st = st;
	st = run_exports_write(b->of, b->of_open, &b->rs, &b->o, b->si, 1);
	if (files_st)
		st = files_st;
	if (rc == -EINTR)
		st = EXIT_INTERRUPTED;
	else if (rc == -ECHILD) /* what finished is reported and exported; then why not all */
		st = run_report_failures(&b->rs);
	if (b->o.hist.history || b->o.hist.bisect) {
		struct run_history_stats hs = {b->o.test, b->o.ro.confidence, b->o.gate};
		st = run_history_finish(&b->o.hist, &b->rs, b->si ? run_env_json : NULL, b->si, &hs,
					st);
		if (b->o.hist.bisect || st)
			return cli_finish_stdout(st);
	}
	if (rc == -EINTR)
		return cli_finish_stdout(EXIT_INTERRUPTED);
	if (!st)
		st = run_report_gate(b);
	return cli_finish_stdout(st);
}

/* Is --bisect among the options (for the exit status of a usage error)? */
static int
bisecting(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strncmp(argv[i], "--bisect", 8) == 0)
			return 1;
	return 0;
}

int
cmd_run(int argc, char **argv)
{
	struct bench b;
	int st, bis = bisecting(argc, argv); /* before argv is reordered */

	memset(&b, 0, sizeof(b));
	b.o.ro.min_runs = 10;
	b.o.ro.precision = 1;
	b.o.ro.max_time = 10;
	b.o.ro.confidence = 95;
	b.o.ro.shell_runs = 50;
	b.o.test = TY_TEST_DEFAULT;
	b.o.ro.test = TY_TEST_DEFAULT;
	b.o.gate.limit = b.o.gate.faster = NAN;
	st = run_options_parse(&b.o, argc, argv);
	if (st < 0) {
		bench_release(&b);
		return cli_finish_stdout(EXIT_OK);
	}
	if (st == 0)
		st = run_jobs_build(&b);
	if (st == 0)
		st = run_bench(&b);
	if (st && !b.o.hist.done && bis)
		st = run_history_bisect_status(st); /* git bisect run's codes */
	run_history_release(&b.o.hist);
	bench_release(&b);
	return st;
}

const struct cmd_info cmd_info_run = {
    "run", 20, "benchmark commands: interleaved runs, verdicts, exports", cmd_run};
