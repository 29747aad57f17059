/* runner.h - the schedule of a benchmark.
 *
 * Runs each job (a command with its hooks) the requested number of times,
 * or adaptively until its centre (the one o.test compares: the median by
 * default) is known precisely enough; warm-ups first,
 * then rounds in interleaved, sequential or random order; hooks around the
 * runs; timeouts, failures and interruption. Results go into a ty_results
 * (results.h), one ty_result per job, in the order of the jobs.
 *
 * Probes. A probe adds values to every measured run (performance counters,
 * ...). For each measured run the runner, while the child is held before
 * exec, calls attach(ctx, pid); right after the reap it calls
 * collect(ctx, pid, values), where VALUES has room for the probe's
 * nvalues doubles (NAN for "not counted"); a run that is discarded
 * (interrupted) gets detach(ctx, pid) instead of collect. The values are
 * described by the probe's ty_value_desc array (name, unit, supported...),
 * which the probe owns and which must outlive the results (the runner
 * copies the descriptors before the first run and again after the last, so
 * a probe may update supported/scaled/running_share as it goes). Summaries,
 * comparisons, the terminal table and the JSON export ("counters" per run,
 * "summary" per figure) treat probe values like the time figures.
 * A probe error stops the benchmark with the probe's message; a probe
 * whose attach or collect fails cleans up after itself (it gets no detach).
 *
 * The clock. Every wall-clock reading of the runner goes through
 * runner->clock (default CLOCK_MONOTONIC), so a calibrated TSC can be
 * plugged in, and tests can use a fake one. */
#ifndef TACHY_RUNNER_H
#define TACHY_RUNNER_H

#include <sched.h>
#include <signal.h>
#include <stdint.h>

#include "tachy/error.h"
#include "tachy/memcg.h"
#include "tachy/results.h"
#include "tachy/spawn.h"

struct ty_probe {
	const char *name; /* for messages: "counters" */
	void *ctx;
	size_t nvalues;
	const struct ty_value_desc *values;
	int (*attach)(void *ctx, pid_t pid, struct ty_error *e);
	int (*collect)(void *ctx, pid_t pid, double *values, struct ty_error *e);
	void (*detach)(void *ctx, pid_t pid); /* optional */
	/* Optional: a counting engine that runs the command itself (Valgrind,
	 * vgcount.h): every measured run executes WRAP[0] with the words of
	 * WRAP, then the command's resolved program and its arguments.
	 * Warm-ups and hooks run as they are. One wrapping probe at most. */
	char *const *wrap;
};

#define TY_MAX_PROBES 8

struct ty_clock {
	const char *name; /* "CLOCK_MONOTONIC", "tsc" */
	int64_t (*now_ns)(void *ctx);
	void *ctx;
};

/* CLOCK_MONOTONIC in nanoseconds (the default clock). */
int64_t ty_runner_monotonic_ns(void *ctx);

enum ty_order { TY_ORDER_INTERLEAVED, TY_ORDER_SEQUENTIAL, TY_ORDER_RANDOM };
enum ty_output { TY_OUTPUT_NULL, TY_OUTPUT_PIPE, TY_OUTPUT_INHERIT, TY_OUTPUT_FILE };
enum ty_hook { TY_HOOK_SETUP, TY_HOOK_PREPARE, TY_HOOK_CONCLUDE, TY_HOOK_CLEANUP, TY_HOOKS };

/* What a step is, for the executor and for tests. */
enum ty_step { TY_STEP_RUN, TY_STEP_WARMUP, TY_STEP_HOOK, TY_STEP_SHELL };

/* One command to benchmark. */
struct ty_job {
	char **argv;			 /* words to run (with --shell: SH -c CMD) */
	char **hook[TY_HOOKS];		 /* argv of each hook, or NULL */
	const char *hook_text[TY_HOOKS]; /* as given, for messages */
	char path[4096];		 /* resolved argv[0] (ty_runner_run fills it) */
	char hook_path[TY_HOOKS][4096];
	/* Filled by ty_runner_run: runs after which processes were left (in
	 * the runs' memory cgroup, which holds every process a run starts, a
	 * daemon's too; in the run's process group where there is no cgroup),
	 * the most left by one run, and where they were looked for:
	 * "memory cgroup" or "process group". */
	long leftover_runs, leftover_max;
	const char *leftover_where;
	/* Filled by ty_runner_run: why the kernel counts nothing of the
	 * command for this user (ty_spawn_unobservable: a set-user-ID program),
	 * "" when it does. The probes are left out of its runs (their values
	 * NaN) and its result says so. */
	char uncounted[4200];
};

/* What to do with processes a run leaves behind (a daemon started by the
 * command) once the command has exited: those in the runs' memory cgroup
 * that were not there before the run, or where no cgroup could be made,
 * those in the run's process group. */
enum ty_leftovers {
	TY_LEFTOVERS_WARN, /* let them run; a warning says how many */
	TY_LEFTOVERS_WAIT, /* wait until they are gone (not timed) */
	TY_LEFTOVERS_KILL, /* SIGKILL the group, wait until gone (not timed) */
};

struct ty_runner_opts {
	long runs;	   /* exact number of runs; 0: adaptive */
	long min_runs;	   /* adaptive: at least this many (default 10) */
	long max_runs;	   /* adaptive: at most (0: no limit) */
	long warmup;	   /* unmeasured runs before the first round */
	double precision;  /* adaptive: CI half-width / centre, percent (default 1) */
	enum ty_test test; /* adaptive: whose centre (mean, median, trimmed mean) must be
			      known to PRECISION (default TY_TEST_DEFAULT) */
	double max_time;   /* adaptive: seconds per command (default 10) */
	double confidence; /* percent (default 95) */
	enum ty_order order;
	double timeout;	     /* seconds; 0: none */
	double hook_timeout; /* seconds for a setup/prepare/conclude/cleanup command; 0: none */
	int ignore_failure;  /* record failing runs and go on */
	enum ty_output output;
	const char *output_file; /* TY_OUTPUT_FILE */
	const char *input_file;	 /* stdin of the commands; NULL: /dev/null */
	const cpu_set_t *cpus;	 /* pin commands and hooks; NULL: no */
	const char *shell;	 /* commands run through SHELL -c; shell start-up is subtracted */
	long shell_runs;	 /* runs to measure shell start-up (default 50) */
	uint64_t seed;		 /* for the random orders; 0: from the clock */
	enum ty_leftovers leftovers;
	/* Do not put the runs into a memory cgroup of their own (tachy run:
	 * TACHY_MEMCG=0): no tree memory figure then, and what a run leaves
	 * behind is looked for in its process group only. */
	int no_memcg;
	int spawn_self;	  /* clone the runs from tachy, not from the spawner helper
			     (their peak RSS then floored at tachy's) */
	int spawn_no_pin; /* leave tachy and the helper unpinned (see spawn.c) */
};

struct ty_runner;

/* Runs one step and fills S (and VALUES for a run); replaceable for tests.
 * Returns 0, 1 when stopped by an interruption, or a negative errno. */
typedef int (*ty_runner_exec_fn)(struct ty_runner *r, struct ty_job *job, size_t index,
				 enum ty_step step, int hook, struct ty_results_run *s,
				 double *values, struct ty_error *e);

struct ty_runner {
	struct ty_runner_opts o;
	struct ty_clock clock;
	struct ty_probe probes[TY_MAX_PROBES];
	size_t nprobes;
	volatile int *stop; /* set by a signal handler: stop after killing the child */
	/* Called after each measured run (rate-limit in the callee). TARGET is
	 * the number of runs when known, else 0; TIME_LEFT in seconds. */
	void (*progress)(void *ctx, size_t job, const struct ty_result *res, long target,
			 double time_left);
	void *progress_ctx;
	ty_runner_exec_fn exec; /* NULL: spawn real processes */
	void *exec_ctx;
	size_t job; /* the index of the job whose step runs now (a probe reads it) */
	/* Private. */
	struct ty_spawner sp;
	struct ty_memcg memcg; /* the runs' cgroup, version 0 when none */
	int fd[3];
	int drain[2];
	char **envp;
	char iter_env[64];
	uint64_t rng;
	int64_t t0;
	cpu_set_t *cpus;
};

/* Fill R with the defaults (adaptive, interleaved, CLOCK_MONOTONIC). */
void ty_runner_init(struct ty_runner *r);

/* Add a probe (copied). Returns 0, or -E2BIG when there are too many. */
int ty_runner_add_probe(struct ty_runner *r, const struct ty_probe *p, struct ty_error *e);

/* Run the benchmark of JOBS[0..N) into RS (initialised by the caller with
 * ty_results_init(rs, N) and each result's command/name/params set; the
 * runner sets rs->values/nvalues/clock/shell). Every program is resolved
 * before the first run: a missing one fails at once. Returns 0; -EINTR
 * when *stop was set (RS holds the runs finished so far); -ECHILD when a
 * run or hook failed (E says which command, which run, what status);
 * another negative errno on other errors. */
int ty_runner_run(struct ty_runner *r, struct ty_job *jobs, size_t n, struct ty_results *rs,
		  struct ty_error *e);

/* Stop the step that runs now, at once: SIGKILL the running command's
 * process group and the command. Async-signal-safe: it is for a signal
 * handler that has set *R->stop (ty_runner_run then discards the run and
 * returns -EINTR); between steps it does nothing. */
void ty_runner_stop(struct ty_runner *r);

/* The name of signal SIG ("SIGKILL"), or "signal N". BUF has 32 bytes. */
const char *ty_runner_signame(int sig, char *buf);

#endif
