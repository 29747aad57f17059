/* runner-exec.h - the runner's real executor, lib/runner-exec.c (private
 * to lib/: runner.c calls it; tests replace it with ty_runner.exec).
 *
 * The schedule (runner.c) decides what runs when; the executor runs one
 * step as a held child released under the clock, with the probes around a
 * measured run, in the runs' memory cgroup, and looks after what the run
 * left behind (ty_runner_opts.leftovers). */
#ifndef TACHY_LIB_RUNNER_EXEC_H
#define TACHY_LIB_RUNNER_EXEC_H

#include <stddef.h>

#include "tachy/error.h"
#include "tachy/results.h"
#include "tachy/runner.h"

/* The index given to the --prepare/--conclude hooks of a warm-up run
 * (TACHY_ITERATION=warmup). */
#define TY_RUNNER_HOOK_OF_WARMUP ((size_t)-1)

/* Set up what every step shares (after ty_spawn_init and the helper): the
 * runs' memory cgroup where one can be had, unless r->o.no_memcg
 * (RS->tree_method then says how the tree's peak is measured), the
 * commands' stdin and stdout, their environment. Returns 0 or a negative
 * errno with E set; undone by ty_runner_exec_end either way. */
int ty_runner_exec_start(struct ty_runner *r, struct ty_results *rs, struct ty_error *e);

/* Close what ty_runner_exec_start opened, end the spawner (and its helper)
 * and remove the runs' cgroup. */
void ty_runner_exec_end(struct ty_runner *r);

/* The real executor (a ty_runner_exec_fn): step STEP of JOB (its run
 * number INDEX; hook HOOK for TY_STEP_HOOK) as a held child, released and
 * reaped under r->clock; S gets the times and usage, VALUES the probes'
 * values of a measured run. Returns 0, 1 when *r->stop stopped it (the
 * run is discarded), or a negative errno with E set. */
int ty_runner_exec_step(struct ty_runner *r, struct ty_job *job, size_t index, enum ty_step step,
			int hook, struct ty_results_run *s, double *values, struct ty_error *e);

#endif
