/* runprof.h - per-run profiles: every measured run of a benchmark sampled
 * on its own (`tachy run --profile`), kept as a symbol table and, per run,
 * the sample counts of each function, so that a function's time can be
 * tested between commands as the wall time is (runprof-diff.h).
 *
 * The sampling is a runner probe (runner.h): while a measured run's child
 * is held before exec, a cpu-clock sampler is opened on it with
 * enable_on_exec (inherited by its threads and children); after the reap
 * its rings are drained and resolved (collect.c, symbols.c), and the run's
 * samples are counted per function: self (the function is the leaf) and
 * total (it is anywhere on the frame-pointer call chain, once per sample).
 * Nothing is drained while the run goes on: a run whose samples overflow
 * the rings loses the rest (counted in LOST). Warm-ups and hooks are never
 * sampled. */
#ifndef TACHY_RUNPROF_H
#define TACHY_RUNPROF_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/array.h"
#include "tachy/error.h"
#include "tachy/runner.h"
#include "tachy/symbols.h"

struct ty_profile;

#define TY_RUNPROF_HZ_DEFAULT 499

struct ty_runprof_sym {
	char *name, *dso;
};

/* One function's samples in one run. */
struct ty_runprof_ent {
	uint32_t sym;	      /* index into syms */
	uint64_t self, total; /* samples with it as the leaf / anywhere on the chain
				 (instructions: run --instructions --profile) */
};

/* One measured run: ents[first .. first + n). */
struct ty_runprof_run {
	uint64_t samples; /* all the run's samples */
	double ms;	  /* the time they stand for (sum of the periods), ms */
	size_t first, n;
};

struct ty_runprof_cmd {
	struct ty_runprof_run *runs; /* in the order of the command's measured runs */
	size_t nruns, cap;
};

struct ty_runprof {
	uint64_t hz;	/* sampling rate */
	int callchain;	/* totals come from call chains */
	int user_only;	/* kernel samples were not taken */
	uint64_t lost;	/* samples lost (rings full), all runs */
	double cost_ms; /* profiler time outside the timed region (open, drain, resolve) */
	struct ty_runprof_sym *syms;
	uint32_t nsyms;
	size_t capsyms;
	struct ty_runprof_ent *ents;
	size_t nents, capents;
	struct ty_runprof_cmd *cmds;
	size_t ncmds;
	/* Set before the runs: each command's samples also merged into one
	 * profile of call stacks (every run's, a weight of 1 a sample), for
	 * the differential flame graph. stacks[cmd] NULL until a run of it. */
	int keep_stacks;
	struct ty_profile **stacks;
	struct ty_idmap index; /* symbol interning (private) */
	/* Sampling state (private). */
	struct ty_symbols *syms_table;
	struct ty_runner *runner;
	void *sampler;
	pid_t pid;
	int user_only_tried;
};

/* Initialise P for NCMDS commands. Returns 0 or -ENOMEM. */
int ty_runprof_init(struct ty_runprof *p, size_t ncmds);
void ty_runprof_release(struct ty_runprof *p);

/* The index of function NAME in DSO (interned). Returns it, or UINT32_MAX
 * when out of memory. */
uint32_t ty_runprof_sym(struct ty_runprof *p, const char *name, const char *dso);

/* Append a run to command CMD: SAMPLES samples standing for MS ms, with
 * the counts ENTS[0..N) (each sym a valid index, at most one entry per
 * sym). Returns 0, -EINVAL (bad CMD or sym) or -ENOMEM. */
int ty_runprof_add_run(struct ty_runprof *p, size_t cmd, uint64_t samples, double ms,
		       const struct ty_runprof_ent *ents, size_t n);

/* Milliseconds that COUNT samples of run R stand for. */
double ty_runprof_ms(const struct ty_runprof_run *r, uint32_t count);

/* Sample every measured run of R's jobs at HZ into P (initialised for as
 * many commands as R will run jobs): adds a probe to R, which must outlive
 * the run, as must SYMS (the symbol table the samples are resolved with).
 * Returns 0, or a negative errno with E filled. */
int ty_runprof_attach(struct ty_runprof *p, struct ty_runner *r, struct ty_symbols *syms,
		      uint64_t hz, struct ty_error *e);

#endif
