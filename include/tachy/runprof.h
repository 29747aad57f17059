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
 * total (it is anywhere on the call chain, once per sample).
 *
 * The chains are taken as `record -g` takes them (x86-64): each sample
 * carries the user registers and a copy of the top of the user stack
 * (STACK_SIZE bytes), unwound after the reap with the CFI of each file
 * (unwind.c; the frame pointer where a file has none), so that code built
 * without frame pointers has callers too. The copies fill rings fast: a
 * thread copies the records out of them as they fill (runprof-spill.c),
 * nothing else; the unwinding and resolving wait for the reap. Elsewhere,
 * or with STACK_ASK TY_RUNPROF_STACK_NONE, the kernel's frame-pointer
 * chains, drained after the reap: a run whose samples overflow the rings
 * loses the rest (counted in LOST). Warm-ups and hooks are never sampled. */
#ifndef TACHY_RUNPROF_H
#define TACHY_RUNPROF_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/array.h"
#include "tachy/error.h"
#include "tachy/runner.h"
#include "tachy/symbols.h"

struct ty_profile;
struct ty_runprof_spill;
struct ty_sampler_rec;
struct ty_unwinder;

#define TY_RUNPROF_HZ_DEFAULT 499
/* User stack bytes copied a sample (bench/runprof-cost.sh; BENCHMARKS.md):
 * xz's and gzip's deepest chains took 2-4 KiB, python's 1 in 12,000 more
 * than 16 KiB. */
#define TY_RUNPROF_STACK_DEFAULT 8192
#define TY_RUNPROF_STACK_NONE UINT32_MAX /* stack_ask: frame-pointer chains only */

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
	uint64_t hz; /* sampling rate (0 where EXACT) */
	/* The counts are instructions counted by Valgrind (run --instructions
	 * --profile, vgcount.h), not samples: a run's SAMPLES is its total,
	 * MS the same number, each function's SELF its count (TOTAL the same:
	 * cachegrind counts no inclusive counts); exact, compared by
	 * ty_runprof_diff_exact. */
	int exact;
	int callchain;	/* totals come from call chains */
	int user_only;	/* kernel samples were not taken */
	uint64_t lost;	/* samples lost (rings full), all runs */
	double cost_ms; /* profiler time outside the timed region (open, drain, unwind, resolve) */
	/* Set before the attach: user stack bytes to copy a sample (0:
	 * TY_RUNPROF_STACK_DEFAULT; TY_RUNPROF_STACK_NONE: frame pointers). */
	uint32_t stack_ask;
	uint32_t stack_size;   /* bytes copied a sample (0: frame-pointer chains) */
	double spill_ms;       /* CPU of the thread copying records out during the runs */
	uint64_t unwound, cut; /* chains unwound from copies; cut short by the copy */
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
	unsigned ring_pages; /* the last that could be opened */
	struct ty_unwinder *uw;
	struct ty_runprof_spill *spill;
	struct ty_sampler_rec *scratch;
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

/* Command CMD of P as a profile of no call chains, for a flame graph of
 * per-function counts (EXACT's, which have none): one frame a function
 * under the root, its weight its self count per run (the mean over the
 * command's runs, rounded), its name and object P's. NULL when out of
 * memory or CMD is out of range. */
struct ty_profile *ty_runprof_flat_profile(const struct ty_runprof *p, size_t cmd);

/* Milliseconds that COUNT samples of run R stand for. */
double ty_runprof_ms(const struct ty_runprof_run *r, uint32_t count);

/* Sample every measured run of R's jobs at HZ into P (initialised for as
 * many commands as R will run jobs, STACK_ASK set): adds a probe to R,
 * which must outlive the run, as must SYMS (the symbol table the samples
 * are resolved and unwound with). Returns 0, or a negative errno with E
 * filled. */
int ty_runprof_attach(struct ty_runprof *p, struct ty_runner *r, struct ty_symbols *syms,
		      uint64_t hz, struct ty_error *e);

#endif
