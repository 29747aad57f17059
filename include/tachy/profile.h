/* profile.h - the profile model, its self-contained file format, and the
 * views of it: flat profile, callers and callees, call tree, folded stacks,
 * diff, flame graphs (flame.c) and pprof export (pprof.c).
 *
 * A profile holds resolved names only (function and DSO strings), so it can
 * be reported on another machine or after the binaries changed.
 *
 * A sample is on-CPU time (a clock event's period, or a count of another
 * event) or off-CPU time: how long a thread stayed off the CPU after a
 * switch-out, in nanoseconds, with the state it waited in. Both kinds add up
 * to wall time per thread in a --wall profile.
 *
 * File format, version 2, little-endian: the magic "TACHYPRF", u32 version,
 * u32 zero, then sections {u32 tag, u32 zero, u64 length, payload} ending
 * with an END section; see profile-file.c for each payload. Version 2 adds
 * the state of every sample; version 1 files (all on-CPU) are read too.
 * Readers reject a bad magic, another version, truncation, and any index
 * out of range. */
#ifndef TACHY_PROFILE_H
#define TACHY_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tachy/error.h"
#include "tachy/sampler.h"
#include "tachy/symbols.h"

#define TY_PROFILE_MAGIC "TACHYPRF"
#define TY_PROFILE_VERSION 3	 /* 3: a CRC-32 per section */
#define TY_PROFILE_VERSION_MIN 1 /* the oldest version read */
#define TY_NONE UINT32_MAX

struct ty_prof_func {
	uint32_t name, dso; /* string indices */
};

struct ty_prof_loc {
	uint64_t addr; /* inside the DSO */
	uint32_t func;
	uint32_t line; /* string index of "file:line", TY_NONE when unknown */
};

/* Where a DSO's code lies, in the link-time addresses of the locations:
 * [start, limit) is file bytes from offset on (pprof's mapping). */
struct ty_prof_mapping {
	uint32_t dso;	   /* string index */
	uint32_t build_id; /* string index (hex), TY_NONE when unknown */
	uint64_t start, limit, offset;
};

/* A function's exact call count (record --calls: uprobes). */
struct ty_prof_call {
	uint32_t func;
	uint64_t count;
};

struct ty_prof_thread {
	uint32_t pid, tid, comm; /* comm: string index */
};

/* What a thread was doing during a sample's weight. */
enum ty_prof_state {
	TY_STATE_CPU,	   /* on the CPU */
	TY_STATE_SLEEP,	   /* sleeping: nanosleep, a timer, a wait for a child */
	TY_STATE_IO,	   /* waiting for I/O: a pipe, a socket, a disk, poll */
	TY_STATE_LOCK,	   /* waiting on a lock: a futex, a kernel mutex */
	TY_STATE_RUNNABLE, /* preempted: runnable, not waiting, off the CPU */
	TY_STATE_BLOCKED,  /* off the CPU, waiting for something not known */
	TY_NSTATES
};

struct ty_prof_sample {
	uint64_t time;	 /* ns of CLOCK_MONOTONIC: the sample, or the switch-out */
	uint64_t period; /* weight: the period, or ns off the CPU */
	uint32_t tid, cpu, stack;
	uint32_t state; /* enum ty_prof_state */
};

/* "on-CPU", "sleeping", "I/O", "lock", "runnable", "blocked"; "?" when out
 * of range. */
const char *ty_profile_state_name(uint32_t state);
/* The pseudo-frame that ends an off-CPU stack in trees, folded stacks and
 * flame graphs: "[off-CPU: sleeping]"...; NULL for TY_STATE_CPU. */
const char *ty_profile_state_frame(uint32_t state);

/* meta.off_cpu */
#define TY_OFFCPU_NONE 0
#define TY_OFFCPU_ONLY 1 /* record --off-cpu */
#define TY_OFFCPU_WALL 2 /* record --wall: on-CPU samples and off-CPU time */

/* Facts about the recording. */
struct ty_prof_meta {
	char *event;   /* "cpu-clock" */
	char *command; /* the profiled command line */
	int use_freq;  /* rate is Hz (1) or a period (0) */
	uint64_t rate;
	int callchain;
	int period_ns; /* periods are nanoseconds (clock events) */
	uint64_t lost, throttled, unthrottled;
	uint64_t profiler_cpu_ns, workload_cpu_ns, wall_ns;
	uint64_t workload_sys_ns;    /* of workload_cpu_ns, in the kernel */
	int user_only;		     /* kernel samples were not taken */
	int kernel_refused;	     /* ... because the kernel refused them */
	uint32_t processes;	     /* processes seen */
	int off_cpu;		     /* TY_OFFCPU_* */
	char *off_cpu_limits;	     /* what the kernel did not give (NULL: nothing) */
	uint64_t switch_chain_hz;    /* chains at about this many switch-outs a second
					(0: at every one) */
	uint64_t off_cpu_chained;    /* off-CPU intervals with a chain of their own... */
	uint64_t off_cpu_chained_ns; /* ...and their time; the others took the
					chain of one near them in their thread */
	uint64_t start_unix_ns;	     /* the recording's start: CLOCK_REALTIME (0: unknown)... */
	uint64_t start_mono_ns;	     /* ...and CLOCK_MONOTONIC (the samples' clock) then */
	uint64_t calls_hit_ps;	     /* record --calls: a probe hit's measured cost (ps) */
	int system_wide;	     /* record -a: every process on the CPUs of... */
	char *cpus;		     /* ..."0-3,6" (NULL: not system-wide) */
};

struct ty_profile {
	struct ty_prof_meta meta;
	char **strings;
	uint32_t nstrings, cap_strings;
	struct ty_prof_func *funcs;
	uint32_t nfuncs, cap_funcs;
	struct ty_prof_loc *locs;
	uint32_t nlocs, cap_locs;
	uint32_t *stack_off; /* stack i is frames[stack_off[i] .. stack_off[i+1]), leaf first */
	uint32_t *frames;    /* location indices */
	uint32_t nstacks, cap_stacks;
	size_t nframes, cap_frames;
	struct ty_prof_thread *threads;
	uint32_t nthreads, cap_threads;
	struct ty_prof_mapping *maps; /* optional, one per DSO at most */
	uint32_t nmaps;
	struct ty_prof_call *calls; /* optional: counted functions */
	uint32_t ncalls;
	struct ty_prof_sample *samples;
	size_t nsamples, cap_samples;
	double weight; /* sum of the samples' periods */
	void *index;   /* interning tables (profile.c) */
};

/* Allocate an empty profile; NULL when out of memory. */
struct ty_profile *ty_profile_new(void);
void ty_profile_free(struct ty_profile *p);

/* Builders: each returns an index (equal inputs give the same index for
 * strings, functions, locations and stacks), or TY_NONE when out of memory. */
uint32_t ty_profile_string(struct ty_profile *p, const char *s);
uint32_t ty_profile_func(struct ty_profile *p, const char *name, const char *dso);
uint32_t ty_profile_loc(struct ty_profile *p, uint64_t addr, uint32_t func);
/* Give location L the source line LINE ("file:line"; its first one stays).
 * Returns 0 or -ENOMEM. */
int ty_profile_loc_line(struct ty_profile *p, uint32_t l, const char *line);
uint32_t ty_profile_stack(struct ty_profile *p, const uint32_t *locs, uint32_t n);
/* Set the command name of thread TID (adding the thread). */
uint32_t ty_profile_thread(struct ty_profile *p, uint32_t pid, uint32_t tid, const char *comm);
int ty_profile_sample(struct ty_profile *p, const struct ty_prof_sample *s);
/* Function F was called COUNT times (record --calls). Returns 0 or
 * -ENOMEM. */
int ty_profile_calls(struct ty_profile *p, uint32_t f, uint64_t count);
/* The count of function F, or -1 when it was not counted. */
int64_t ty_profile_call_count(const struct ty_profile *p, uint32_t f);
/* Add the mapping M (its strings already interned). Returns 0 or -ENOMEM. */
int ty_profile_mapping(struct ty_profile *p, const struct ty_prof_mapping *m);

/* Does P hold off-CPU samples (or was it recorded for them)? */
int ty_profile_has_off_cpu(const struct ty_profile *p);
/* Keep only the on-CPU (ON) and/or off-CPU (OFF) samples of P. */
void ty_profile_keep(struct ty_profile *p, int on, int off);
/* Total weight of P's samples in each state into W[TY_NSTATES]. */
void ty_profile_state_weights(const struct ty_profile *p, double *w);

/* Name of function F / location L's function, and their DSO. */
const char *ty_profile_func_name(const struct ty_profile *p, uint32_t f);
const char *ty_profile_func_dso(const struct ty_profile *p, uint32_t f);

/* Seconds that WEIGHT (a sum of periods) stands for: the periods themselves
 * for clock events, else the weight's share of the workload's CPU time. */
double ty_profile_seconds(const struct ty_profile *p, double weight);

/* One sentence (no final period) into BUF on how much of the workload's CPU
 * time the samples stand for, with a hint when they cover little of it
 * (kernel time not sampled; short-lived processes at a low rate). Returns
 * 0, or -1 when that is not known (not a clock event, no CPU time). */
int ty_profile_coverage(const struct ty_profile *p, char *buf, size_t len);

/* What share of the off-CPU intervals have a call chain of their own, into
 * BUF: 0, or -1 when there is nothing to say (no chains, or every interval
 * has its own). */
int ty_profile_chains_note(const struct ty_profile *p, char *buf, size_t len);

/* Write P to PATH ("-" for stdout) atomically. Returns 0 or a negative
 * errno with E filled. */
int ty_profile_write(const struct ty_profile *p, const char *path, struct ty_error *e);

/* Write P to OUT (an open ty_outfile's stream, say; PATH names it in
 * errors); write errors are the caller's to check. Returns 0 or -ENOMEM
 * with E filled. */
int ty_profile_write_fp(const struct ty_profile *p, FILE *out, const char *path,
			struct ty_error *e);

/* Read PATH into a new profile. Returns 0 and *OUT, -EINVAL with E filled
 * for a file that is not a valid tachy profile (bad magic, other version,
 * truncated, an index out of range), or another negative errno. */
int ty_profile_read(const char *path, struct ty_profile **out, struct ty_error *e);
/* The same from memory (BUF is not kept). */
int ty_profile_parse(const void *buf, size_t len, struct ty_profile **out, struct ty_error *e);

/* --- building a profile from sampler records ---------------------------- */

struct ty_collector;

/* A collector keeps raw samples and the process events of a recording; SYMS
 * (owned by the caller) learns the mappings. NULL when out of memory. */
struct ty_collector *ty_collector_new(struct ty_symbols *syms);
void ty_collector_free(struct ty_collector *c);
/* A ty_record_fn: pass it to ty_sampler_drain with the collector as ARG. */
void ty_collector_record(const struct ty_record *r, void *arg);
/* Counts so far. */
uint64_t ty_collector_samples(const struct ty_collector *c);
uint64_t ty_collector_lost(const struct ty_collector *c);
uint64_t ty_collector_throttled(const struct ty_collector *c);
uint64_t ty_collector_unthrottled(const struct ty_collector *c);
/* The processes seen so far (from thread names and forks): up to MAX pids
 * into OUT; returns how many there are. */
size_t ty_collector_pids(const struct ty_collector *c, uint32_t *out, size_t max);

/* How many threads had their first switch record since the last call. */
size_t ty_collector_new_threads(struct ty_collector *c);
/* Resolve every sampled address and fill P (whose meta the caller sets).
 * Returns 0 or -ENOMEM with E filled. */
int ty_collector_finish(struct ty_collector *c, struct ty_profile *p, struct ty_error *e);

/* --- views --------------------------------------------------------------- */

/* TY_BY_LINE: per source line of the locations ("file:line"; a location
 * without one counts under its function's name). TY_BY_STATE: per state. */
enum ty_prof_by {
	TY_BY_SYMBOL,
	TY_BY_THREAD,
	TY_BY_COMM,
	TY_BY_DSO,
	TY_BY_LINE,
	TY_BY_STATE,
	TY_BY_PROCESS, /* "comm [pid]" (profile-who.c) */
	TY_BY_CPU      /* "cpu N" (profile-who.c) */
};
enum ty_prof_sort { TY_SORT_SELF, TY_SORT_TOTAL, TY_SORT_NAME, TY_SORT_SAMPLES };

struct ty_flat_row {
	char *name;	 /* owned by the row set */
	const char *dso; /* NULL for thread, comm and dso rows */
	uint64_t self_samples, total_samples;
	double self_weight, total_weight; /* sums of periods */
	double self_off;		  /* of self_weight, off the CPU */
};

struct ty_flat {
	struct ty_flat_row *rows;
	size_t nrows;
	uint64_t samples;
	double weight;
};

/* Aggregate P by BY, sorted by SORT (self: descending self weight, then
 * name). Total (with children) counts each function once per sample.
 * Returns 0 or -ENOMEM. */
int ty_profile_flat(const struct ty_profile *p, enum ty_prof_by by, enum ty_prof_sort sort,
		    struct ty_flat *out);
void ty_flat_release(struct ty_flat *f);

/* The call tree: node 0 is the root; children of a node are linked. */
struct ty_tree_node {
	const char *name, *dso; /* NULL for the root; owned by the profiles */
	uint32_t parent, child, sibling;
	double self, total;	    /* weights */
	double old_self, old_total; /* second profile of a diff, normalised */
	double off;		    /* of total, off the CPU */
	uint32_t state;		    /* a pseudo-frame's state (TY_STATE_CPU: a function) */
	uint64_t self_n, total_n;   /* samples */
};

struct ty_tree {
	struct ty_tree_node *nodes;
	uint32_t n, cap;
	uint32_t *slots; /* (parent, name, dso) -> node */
	size_t nslots;
};

/* Build the top-down call tree of P (root -> leaf); off-CPU time ends in a
 * pseudo-frame per state under the function it was spent in (its name is
 * ty_profile_state_frame's, its dso ""). With OLD (may be NULL),
 * also add OLD's weights into old_* scaled to P's total weight, merging
 * nodes by function name and DSO. Returns 0 or -ENOMEM. */
int ty_tree_build(struct ty_tree *t, const struct ty_profile *p, const struct ty_profile *old);
void ty_tree_release(struct ty_tree *t);
/* Children of N sorted by NAME ascending (for stable output). */
void ty_tree_sort_children(struct ty_tree *t, const struct ty_profile *p);
/* Children of every node sorted by total weight, largest first (equal
 * totals by name): the order of a call tree read from the top. */
void ty_tree_sort_by_total(struct ty_tree *t);

/* Write FlameGraph's folded stacks ("root;...;leaf COUNT", lines sorted)
 * to FP: counts in samples, or in nanoseconds when P has off-CPU time (so
 * that on- and off-CPU time share one unit). Returns 0, or -EIO when FP
 * fails. */
int ty_profile_folded(const struct ty_profile *p, FILE *fp);

/* Callers (UP = 1) or callees (UP = 0) of the functions named SYM: one row
 * per neighbour, weight = samples in which that pair occurs; a callee row
 * named "[self]" holds SYM's own time. *MATCHED is the total of SYM.
 * Returns 0, -ENOENT when no function is called SYM, or -ENOMEM. */
int ty_profile_neighbours(const struct ty_profile *p, const char *sym, int up, struct ty_flat *out,
			  struct ty_flat_row *matched);

/* Per-function change between OLD and NEW, in percent of each profile's
 * total weight. */
struct ty_diff_row {
	char *name;
	const char *dso;
	double old_self, new_self, old_total, new_total; /* percent */
};
struct ty_diff {
	struct ty_diff_row *rows;
	size_t nrows;
};
/* The flat profiles of OLD and NEW by BY, their rows matched by key as
 * the flat profile keys them (function name and DSO, DSO, thread, command,
 * source line). Rows sorted by |new_self - old_self| descending. Returns 0
 * or -ENOMEM. */
int ty_profile_diff(const struct ty_profile *old, const struct ty_profile *new_, enum ty_prof_by by,
		    struct ty_diff *out);
void ty_diff_release(struct ty_diff *d);

/* --- flame graphs (flame.c) ------------------------------------------------ */

struct ty_flame_opts {
	const char *title;
	int width;		      /* pixels, 0 for 1200 */
	const struct ty_profile *old; /* non-NULL: differential flame graph */
	/* Differential, coloured by a verdict (tachy run --profile --flame):
	 * with SHADE set, each frame of a function is coloured only as SHADE
	 * says for (NAME, DSO): it returns +1 (red: slower), -1 (blue:
	 * faster) or 0 (grey: no change proven), puts the colour's strength
	 * in *LEVEL (0..1) and a note for the frame's details in INFO ("" for
	 * none). LEGEND replaces the line under the title. */
	int (*shade)(void *arg, const char *name, const char *dso, double *level, char *info,
		     size_t len);
	void *shade_arg;
	const char *legend;
};

/* Write an interactive, self-contained flame graph SVG of P to FP: hover
 * shows details, click zooms, search highlights; every name escaped.
 * Returns 0, -ENOMEM, or -EIO when FP fails. */
int ty_flame_write(const struct ty_profile *p, const struct ty_flame_opts *o, FILE *fp);

/* --- pprof (pprof.c) --------------------------------------------------------- */

/* Write P as pprof's profile.proto to PATH, gzip-compressed (zlib).
 * Returns 0, -ENOTSUP with "not built with zlib", or a negative errno
 * with E filled. */
int ty_pprof_write(const struct ty_profile *p, const char *path, struct ty_error *e);
/* Encode P as an uncompressed profile.proto into a malloc'd buffer. */
int ty_pprof_encode(const struct ty_profile *p, unsigned char **buf, size_t *len);

/* --- timelines (timeline.c) ------------------------------------------------- */

/* The Firefox Profiler's processed profile format version written. */
#define TY_FIREFOX_VERSION 57

/* Write P as a Firefox Profiler processed profile (one thread per tid, its
 * samples with their times and weights, off-CPU intervals as markers,
 * libraries, categories per state) / as speedscope's file format (one
 * sampled profile per thread, weights in nanoseconds or events) to PATH
 * through ty_outfile. Returns 0, or a negative errno with E filled. */
int ty_firefox_write(const struct ty_profile *p, const char *path, struct ty_error *e);
int ty_speedscope_write(const struct ty_profile *p, const char *path, struct ty_error *e);
/* The same into an open stream; -EIO when FP fails, -ENOMEM. */
int ty_firefox_write_fp(const struct ty_profile *p, FILE *fp);
int ty_speedscope_write_fp(const struct ty_profile *p, FILE *fp);

#endif
