/* vgcount.h - counting instructions under Valgrind's cachegrind: the
 * second counting engine beside the perf_event counters (counters.h).
 *
 * Every measured run of a benchmark runs under
 *   valgrind -q --tool=cachegrind --cache-sim=no --trace-children=yes
 *            --cachegrind-out-file=DIR/cg.%p PROGRAM ARGS...
 * in a directory of its own (mkdtemp, mode 0700). After the reap the
 * files of the run (one per process: the command and every child it
 * forked or exec'd) are read (profile-cachegrind.h), their instructions
 * (Ir) summed into the run's value "instructions", and removed. Warm-ups
 * and hooks run natively (not wrapped, not counted).
 *
 * A process forked without an exec carries its parent's counts up to the
 * fork in its file (Valgrind copies the counters with the process): they
 * are counted twice. A fork followed by an exec starts a fresh count.
 *
 * It is a runner probe (runner.h) with a wrapper: ty_vgcount_probe_get
 * fills the probe's wrap argv, which the runner puts before the program
 * of every measured run. With a ty_runprof attached (the per-run profiles
 * of `run --profile`), each run's per-function counts go into it too: the
 * exact counts, one "sample" per instruction. */
#ifndef TACHY_VGCOUNT_H
#define TACHY_VGCOUNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tachy/error.h"
#include "tachy/results.h"

struct ty_probe;
struct ty_runprof;
struct ty_runner;

#define TY_VGCOUNT_WRAP_MAX 8

struct ty_vgcount {
	char valgrind[4096]; /* its resolved path */
	char version[128];   /* "3.19.0" (from valgrind --version), "" if unknown */
	char source[160];    /* "valgrind cachegrind 3.19.0": where the figure comes from */
	char dir[4096];	     /* the runs' directory, "" until made */
	char outopt[4200];   /* --cachegrind-out-file=DIR/cg.%p */
	char *wrap[TY_VGCOUNT_WRAP_MAX + 1];
	struct ty_value_desc desc; /* "instructions" */
	struct ty_runprof *prof;   /* NULL: no per-function counts */
	struct ty_runner *runner;  /* whose job is counted (for prof) */
	uint64_t last;		   /* the last run's count */
	size_t last_procs;	   /* ... over this many processes */
	size_t runs;		   /* runs counted */
	pid_t version_pid;	   /* `valgrind --version` running (-1: none; private) */
	int version_fd;		   /* its output (-1: read; private) */
};

/* Find valgrind (NAME as execvp would: "valgrind" searches PATH, whose
 * value the caller passes, NULL: the process's), and ask its version: the
 * question runs beside the first measured run (it starts the whole tool),
 * its answer read after that run's reap into VERSION and SOURCE ("valgrind
 * cachegrind" until then; the release reaps it where no run came).
 * Returns 0; -ENOENT with E saying it is not installed and how to install
 * it (apt-get install valgrind); another negative errno. */
int ty_vgcount_init(struct ty_vgcount *v, const char *name, struct ty_error *e);

/* Make the runs' directory under TMPDIR (NULL: /tmp), mode 0700. Returns 0
 * or a negative errno with E set. */
int ty_vgcount_open(struct ty_vgcount *v, const char *tmpdir, struct ty_error *e);

/* Remove the directory and what is left in it. */
void ty_vgcount_release(struct ty_vgcount *v);

/* Fill PROBE (runner.h) with V's value, callbacks and wrapper (V must
 * outlive the benchmark). */
void ty_vgcount_probe_get(struct ty_vgcount *v, struct ty_probe *probe);

/* Read and remove every output file in DIR: the sum of their first
 * events into *TOTAL, the number of files into *NFILES; with PROF, the
 * per-function sums added as a run of command CMD. Returns 0 or a
 * negative errno with E set (a damaged file, none at all). */
int ty_vgcount_collect_dir(const char *dir, uint64_t *total, size_t *nfiles,
			   struct ty_runprof *prof, size_t cmd, struct ty_error *e);

#endif
