/* profile.h - the profile model: strings, functions, locations, stacks,
 * threads, mappings and samples, interned as they are added, and the
 * recording's facts. Its file format is profile-file.h's, its views
 * profile-views.h's (flat, callers and callees, call tree, folded stacks,
 * diff), flame.h's, pprof.h's and timeline.h's; collect.h builds one from
 * the sampler's records. The model knows nothing of how it was sampled.
 *
 * A profile holds resolved names only (function and DSO strings), so it can
 * be reported on another machine or after the binaries changed.
 *
 * A sample is on-CPU time (a clock event's period, or a count of another
 * event) or off-CPU time: how long a thread stayed off the CPU after a
 * switch-out, in nanoseconds, with the state it waited in. Both kinds add up
 * to wall time per thread in a --wall profile. */
#ifndef TACHY_PROFILE_H
#define TACHY_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* What of a counted function's self samples its probe's traps put there
 * (record --calls): the samples the kernel takes during a trap and
 * delivers as it returns land at the function's entry or at the end of
 * its first instruction (emulated or stepped out of line). */
enum {
	TY_TRAP_UNKNOWN,   /* not looked for (an older profile) */
	TY_TRAP_TAKEN,	   /* found: trap below, taken off its self ns/call */
	TY_TRAP_BRANCH,	   /* it begins with a branch: they land among its own */
	TY_TRAP_UNDECODED, /* its first instruction is not one tachy decodes */
	TY_TRAP_STATES
};

/* A function's exact call count (record --calls: uprobes). */
struct ty_prof_call {
	uint32_t func;
	uint64_t count;
	uint64_t trap;	     /* the weight of its self samples at the trap's return */
	uint32_t trap_state; /* TY_TRAP_* */
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
	uint64_t calls_disturb_ps;   /* ...of it, what a hit adds to the function's own
					time (ps; 0: not measured) */
	uint64_t sample_cost_ps;     /* the kernel's work per sample, charged to the
					sampled tasks (ps; 0: not measured) */
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
	uint32_t nmaps, cap_maps;
	struct ty_prof_call *calls; /* optional: counted functions */
	uint32_t ncalls, cap_calls;
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

/* ", 12.3% of the workload's 0.456 s of CPU (...)" into BUF: what the
 * probes of record --calls cost (COST s) against the workload's CPU (WORK
 * s), in which the traps are; never above 100% (an estimate that passes
 * the workload's CPU says so). Empty when WORK is not known. */
void ty_profile_calls_share(char *buf, size_t size, double cost, double work);

/* Counted function CALL's (an index of P->calls) self ns per call from
 * SELF_S seconds of its samples: less its samples at the trap's return
 * (P->calls[CALL].trap) and the time a probe hit adds to the function's
 * own body (meta.calls_disturb_ps, measured when recording). *BOUND set
 * when the figure is an upper bound: those samples could not be told from
 * its own (trap_state not TY_TRAP_TAKEN). */
double ty_profile_self_per_call(const struct ty_profile *p, uint32_t call, double self_s,
				int *bound);

/* The weight of P's on-CPU samples whose leaf is function F at one of
 * ADDRS[0..N) (link-time addresses in its DSO). */
uint64_t ty_profile_leaf_weight(const struct ty_profile *p, uint32_t f, const uint64_t *addrs,
				size_t n);

/* Seconds that WEIGHT (a sum of periods) stands for: the periods themselves
 * for clock events, else the weight's share of the workload's CPU time. */
double ty_profile_seconds(const struct ty_profile *p, double weight);

/* One sentence (no final period) into BUF on how much of the workload's CPU
 * time the samples stand for, with a hint when they cover little of it
 * (kernel time not sampled; short-lived processes at a low rate). Returns
 * 0, or -1 when that is not known (not a clock event, no CPU time). */
int ty_profile_coverage(const struct ty_profile *p, char *buf, size_t len);

/* What share of the off-CPU intervals have a call chain of their own, into
 * BUF ("all N" when every one has): 0, or -1 when there is nothing to say
 * (no off-CPU intervals with chains). */
int ty_profile_chains_note(const struct ty_profile *p, char *buf, size_t len);

#endif
