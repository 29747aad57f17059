/* calls.h - exact call counts with uprobes (record --calls): the functions
 * of an ELF file whose names match a glob, a counting uprobe at the entry
 * of each (on a command and its children, or on every process), their
 * counts, and what a probe hit costs on this machine (a trap per call:
 * seed 003's lesson, where mcount was 40% of the profile).
 *
 * The uprobe PMU (/sys/bus/event_source/devices/uprobe) needs CAP_PERFMON
 * or root; without it, or without it in the kernel, opening fails with a
 * sentence that says so. */
#ifndef TACHY_CALLS_H
#define TACHY_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tachy/error.h"

#define TY_CALLS_MAX 64 /* functions counted at most */

/* How the kernel takes a probe hit, by the function's first instruction
 * (x86-64): it emulates a push, a nop (or a branch) and an endbr64 at the
 * trap; it steps any other out of line, which costs a second trap. */
enum { TY_CALLS_PUSH, TY_CALLS_NOP, TY_CALLS_ENDBR, TY_CALLS_STEP, TY_CALLS_KINDS };

struct ty_calls_fn {
	char *name;	 /* as the symbol table has it */
	char *path;	 /* the file (its real path: the DSO the profile names) */
	uint64_t offset; /* of the entry in the file */
	uint64_t count;	 /* after ty_calls_read */
	int kind;	 /* TY_CALLS_PUSH...: its first instruction's */
	uint64_t vaddr;	 /* its link-time address (the profile's locations') */
	/* Where it goes on after a hit (ty_insn_resume): the offset of its
	 * second instruction (> 0: the samples the kernel takes during the
	 * trap land there as it returns, or at the entry, or one instruction
	 * late at RESUME2 unless that is 0) or TY_INSN_*. */
	int resume, resume2;
};

struct ty_calls {
	struct ty_calls_fn *fn;
	size_t n, cap;
	int *fds; /* per function, NFDS_PER each */
	size_t nfds_per;
	double hit_ns; /* ty_calls_calibrate's cost per hit of the first function's kind */
	double kind_ns[TY_CALLS_KINDS];	   /* the CPU a hit costs, per kind (calibrated) */
	double disturb_ns[TY_CALLS_KINDS]; /* of it, in the probed function's own time */
	double body_ns;			   /* the calibration body's own time, unprobed (median) */
	const char *tracefs;		   /* the probes of a command are tracefs's (inherited) */
	size_t traced;			   /* how many were placed there */
	int no_children;		   /* without tracefs: the command's children not counted */
	size_t swept; /* stale probes of tachys gone, removed (ty_calls_sweep) */
};

/* Add the functions of PATTERN: "GLOB" over the function symbols of EXE,
 * or "FILE:GLOB" over those of FILE. Aliases (one entry, several names)
 * count once, under the first name. Returns the number added; -ENOENT
 * when the glob matches no function (E says how to list them), -E2BIG
 * when the total would pass TY_CALLS_MAX (E says how to narrow it),
 * -ENOTSUP without elfutils, or another negative errno. */
int ty_calls_add(struct ty_calls *c, const char *exe, const char *pattern, struct ty_error *e);

/* Open a counting uprobe per function: on PID and what it starts (counting
 * from its exec when ON_EXEC), or, PID -1, on every process of each CPU of
 * CPUS (NCPUS; NULL: every CPU). For PID the probes are tracefs's
 * (tachy_PID/fN in uprobe_events, removed by ty_calls_release), whose
 * events its children inherit; without tracefs mounted they are the
 * uprobe PMU's, which children do not inherit (C->no_children set). Returns 0, or a negative errno
 * with E saying why (-EACCES: no CAP_PERFMON; -ENODEV: no uprobe PMU). */
int ty_calls_open(struct ty_calls *c, pid_t pid, int on_exec, const int *cpus, int ncpus,
		  struct ty_error *e);

/* The probes of tachy in tracefs are named tachy_PID/fN, PID tachy's own.
 * At ty_calls_open those of tachys that are gone (killed before they
 * could remove theirs) are removed first, and a tachy removes its own at
 * ty_calls_release: the command installs a handler for SIGINT, SIGTERM and
 * SIGHUP that ends the recording, so that release is reached. */

/* The PID of LINE[LEN], a line of uprobe_events, when it is one of
 * tachy's probes ("p:tachy_PID/EVENT ..."), with "tachy_PID/EVENT" in
 * NAME[SIZE]; 0 when it is not one. */
pid_t ty_calls_probe_pid(const char *line, size_t len, char *name, size_t size);

/* Remove from DIR/uprobe_events (DIR: the tracefs directory) the probes
 * of tachys whose PID no process has now, never another tool's (by their
 * name) nor a running tachy's; adds their number to C->swept (C may be
 * NULL). Returns the number removed, or a negative errno when the file
 * cannot be read. */
int ty_calls_sweep(struct ty_calls *c, const char *dir);

/* Read every count (summed over the CPUs; a command's children counted
 * once they have exited). Returns 0 or a negative errno with E filled. */
int ty_calls_read(struct ty_calls *c, struct ty_error *e);

/* Measure what one probe hit costs here, for each kind of first
 * instruction among C's functions: a function of tachy's own that begins
 * so, with a loop of known length in its own body, called with a probe on
 * it and without (5 rounds of 100 calls each): the thread's CPU time per
 * call (what the workload pays: the traps are its CPU), the least round
 * with less the least without, into C->kind_ns; and what a hit adds to the
 * function's own time after the trap (its body timed from after the first
 * instruction to before the return, the median call with less the median
 * without; what the samples put in the function's self time) into
 * C->disturb_ns. Returns 0, or a negative errno with E filled (the probe
 * could not be opened, or counted wrong). */
int ty_calls_calibrate(struct ty_calls *c, struct ty_error *e);

/* What a hit adds to a probed function's own body, in ns: the median of
 * ON[NON] (the body's times with the probe, in ticks) less the median of
 * OFF[NOFF] (without), at NS_PER_TICK; 0 where it is not above, or either
 * is empty. Sorts both in place. */
double ty_calls_disturbance(uint64_t *on, size_t non, uint64_t *off, size_t noff,
			    double ns_per_tick);

/* The kind of the instruction in B[N] (the first bytes of a function). */
int ty_calls_kind(const unsigned char *b, size_t n);

/* What the counted hits cost in all (ns), each at its kind's calibrated
 * cost; the mean disturbance of a hit into *DISTURB_NS (may be NULL).
 * After ty_calls_read. */
double ty_calls_cost_ns(const struct ty_calls *c, double *disturb_ns);

/* The sum of the counts. */
uint64_t ty_calls_total(const struct ty_calls *c);

void ty_calls_release(struct ty_calls *c);

#endif
