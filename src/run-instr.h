/* run-instr.h - `tachy run --instructions`: every measured run counted
 * under Valgrind's cachegrind (lib/vgcount.c), and what the report says of
 * the counts: whether each command repeated its count, by how much the
 * runs differ when not, Valgrind's slowdown against native warm-ups, and
 * the verdicts on the counts. src/ only. */
#ifndef TACHY_RUN_INSTR_H
#define TACHY_RUN_INSTR_H

#include <stdio.h>

#include "tachy/results.h"
#include "tachy/runner.h"
#include "tachy/vgcount.h"

struct term;
struct ty_runprof;

struct run_instr {
	int on; /* --instructions */
	struct ty_vgcount vg;
	int active; /* the probe was added */
};

/* With --instructions: find valgrind, make the runs' directory, add the
 * counting probe to R (per-function counts into PROF when not NULL).
 * Returns 0, or an exit status after printing why. */
int run_instr_setup(struct run_instr *in, struct ty_runner *r, struct ty_runprof *prof);
void run_instr_release(struct run_instr *in);

/* The figure index of the instruction counts in RS, or 0 when none. */
size_t run_instr_figure(const struct run_instr *in, const struct ty_results *rs);

/* Command I's instruction lines (under its name, before the times). */
void run_instr_print_result(const struct run_instr *in, const struct ty_results *rs, size_t i,
			    const struct term *t, FILE *fp);

/* The verdicts on the counts against the reference (after the summary). */
void run_instr_print_comparisons(const struct run_instr *in, const struct ty_results *rs,
				 const struct term *t, FILE *fp);

/* The "Where it changed" section of command NEW_CMD of RP against
 * OLD_CMD, from their exact per-function counts (runprof.h's exact):
 * each changed function with its counts and change, or why there are
 * none; names escaped. run's and compare's. */
void run_instr_profile_section(FILE *fp, const struct term *t, const struct ty_runprof *rp,
			       size_t old_cmd, size_t new_cmd, const char *old_name,
			       const char *new_name);

/* With --flame PATH (two commands): the other command's counts by
 * function drawn as a flame graph (flame.h), red/blue where the count
 * changed against the reference, exactly. Returns 0 or an exit status
 * after printing why. */
int run_instr_flame(const struct run_instr *in, struct ty_runprof *rp, const struct ty_results *rs,
		    const char *path);

/* With --profile: the "Where it changed" section of every command
 * against the reference, from the exact per-function counts in RP. */
void run_instr_print_profile(const struct run_instr *in, const struct ty_runprof *rp,
			     const struct ty_results *rs, const struct term *t, FILE *fp);

#endif
