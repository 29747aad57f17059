/* record.h - the recorder: sample a command (held before exec, with all
 * its threads and children) or a running process until it ends, and turn
 * what the rings say into a resolved profile.
 *
 * The recorder owns the sampler, the collector and the command: it creates
 * the child with ty_spawn_*, opens the sampling events on it before it
 * execs, waits in poll() on the rings, the watcher and a pidfd, keeps the
 * mappings known (mmap records, /proc/PID/maps, or the lazy tracking
 * described in tachy-record(1)), unwinds user stacks when asked (see
 * unwind.h) and reaps the child with wait4(). It never prints: warnings go
 * to the caller's callback. Signals are the caller's: it passes a stop word
 * that its handler sets. */
#ifndef TACHY_RECORD_H
#define TACHY_RECORD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tachy/error.h"
#include "tachy/events.h"
#include "tachy/profile.h"
#include "tachy/spawn.h"
#include "tachy/symbols.h"

/* How user call chains are taken (perf's --call-graph). */
enum ty_callgraph {
	TY_CG_NONE = 0,
	TY_CG_FP,    /* the kernel walks frame pointers */
	TY_CG_DWARF, /* registers and a stack copy, unwound with CFI */
	TY_CG_AUTO,  /* -g: DWARF where the kernel can copy stacks, else FP */
};

#define TY_RECORD_STACK_DEFAULT 65528 /* stack bytes copied (see BENCHMARKS.md) */
#define TY_RECORD_STACK_MAX 65528     /* the kernel's limit (u16, 8-aligned) */
/* Stack bytes copied at a switch-out: there the thread is in a system call
 * (or preempted), its user stack shallower than where it computes, and a
 * copy is taken at every switch-out that has a chain (see BENCHMARKS.md). */
#define TY_RECORD_OFFCPU_STACK_DEFAULT 2048

/* The call chains at switch-outs (ty_record_opts.switch_chains). A chain
 * costs the kernel ~2.5 us (its own chain and the user stack copy), which
 * at 100,000 switches a second is a quarter of the workload's time: by
 * default chains come at about this many a second in all (lib/duty.c), an
 * interval without one taking the chain of one near it in its thread. */
#define TY_RECORD_CHAINS_DEFAULT 999
#define TY_RECORD_CHAINS_ALL UINT64_MAX

/* How the mappings of the workload are learnt. */
enum ty_record_maps {
	TY_MAPS_LAZY = 0,    /* mmap records at start-up and when it forks, /proc later */
	TY_MAPS_PROC,	     /* /proc/PID/maps every 50 ms, no mmap records */
	TY_MAPS_MMAP_RECORDS /* mmap records for the whole run */
};

struct ty_record_opts {
	struct ty_event ev; /* what to sample (parsed by ty_event_parse) */
	int explicit_event; /* the user named EV: no fallback to cpu-clock... */
	int fallback;	    /* ...unless asked (--fallback): a hardware event the
			       machine lacks falls back to cpu-clock */
	int use_freq;	    /* 1: RATE is Hz; 0: a period */
	uint64_t rate;
	enum ty_callgraph callgraph;
	uint32_t stack_size; /* TY_CG_DWARF/AUTO: bytes (0: the default; off the CPU
				TY_RECORD_OFFCPU_STACK_DEFAULT) */
	int user;	     /* 1 user space only, -1 kernel or fail, 0 where allowed */
	pid_t pid;	     /* attach to this process, or 0 */
	char *const *argv;   /* else the command */
	int stdout_fd;	     /* >= 0: the command's stdout (-o -: the profile owns ours) */
	int same_group;	     /* the command stays in tachy's process group (a terminal's
				foreground: Ctrl-C reaches it directly) */
	unsigned mmap_pages; /* data pages per ring, a power of two (0: 128) */
	enum ty_record_maps maps;
	int off_cpu;		/* TY_OFFCPU_*: switch records and context-switch samples;
				   TY_OFFCPU_WALL needs a clock event (EV) */
	uint64_t switch_chains; /* with call chains: at about this many switch-outs a
				   second (0: TY_RECORD_CHAINS_DEFAULT), or
				   TY_RECORD_CHAINS_ALL: at every one */
	int no_names;		/* the profile goes nowhere (-o /dev/null): the
				   samples are counted, their addresses not named */
	int system_wide;	/* -a: every process and the kernel, every CPU (the
				   command, if any, only says how long; PID unused) */
	const int *cpus;	/* system_wide: these CPUs only (NULL: all), sorted */
	int ncpus;
	uint64_t duration_ns; /* system_wide without a command, or attached to PID:
				 stop after this (0: at the stop word, or PID's end) */
	/* Called with the command's pid while it is held before its exec (the
	 * place to open more events on it); a negative return stops the start
	 * with that error (E filled). NULL: none. */
	int (*on_child)(pid_t pid, void *arg, struct ty_error *e);
	void *on_child_arg;
	/* Called for what a user should hear of at once (MSG lives for the call). */
	void (*warn)(const char *msg, void *arg);
	void *warn_arg;
	/* Diagnostics (TACHY_UNWIND_DEBUG): at the end, one line per sample
	 * whose chain is incomplete or has a frame in no mapping, saying why,
	 * then counts by program and cause. NULL: none. */
	FILE *unwind_log;
};

/* Stop word: a signal handler sets SIG (the signal) and counts in COUNT. */
struct ty_record_stop {
	volatile sig_atomic_t sig, count;
};

struct ty_recorder;

/* Create the recorder for O on the symbol table SYMS (the caller keeps it:
 * set its cache directory first). Starts the command held, opens the events
 * and releases it (or attaches to O->pid). Returns 0 and *OUT, or a negative
 * errno with E filled; -ENOENT for a command or a process not found (a
 * usage error for the caller). *OUT is then NULL. */
int ty_record_start(struct ty_recorder **out, const struct ty_record_opts *o,
		    struct ty_symbols *syms, struct ty_error *e);

/* Sample until the command exits (or, attached, the process ends), STOP is
 * set (the signal is passed on to the command, SIGKILL follows after 2 s or
 * a second signal) or the rings are corrupt. Then drains what is left.
 * Returns 0, or a negative errno with E filled. */
int ty_record_wait(struct ty_recorder *r, const struct ty_record_stop *stop, struct ty_error *e);

/* Fill P (a new profile) with what was recorded: samples, meta (event,
 * command, rate, times, the profiler's CPU so far). Returns 0 or a negative
 * errno with E filled. */
int ty_record_finish(struct ty_recorder *r, struct ty_profile *p, struct ty_error *e);

/* After the wait: how the command ended (NULL when attached or not yet
 * reaped), and whether the stop word was set during the wait. */
const struct ty_exit *ty_record_exit(const struct ty_recorder *r);
int ty_record_interrupted(const struct ty_recorder *r);

/* The event finally sampled (cycles may have fallen back to cpu-clock),
 * whether it fell back, whether kernel samples were refused (and the user
 * space only is sampled) and whether kernel samples were excluded at all. */
const char *ty_record_event_name(const struct ty_recorder *r);
int ty_record_fell_back(const struct ty_recorder *r);
int ty_record_kernel_refused(const struct ty_recorder *r);
int ty_record_user_only(const struct ty_recorder *r);

/* Why the kernel's work per sample (the "added CPU" line) could not be
 * measured at the start, or NULL: measured, or not tried (off-CPU). */
const char *ty_record_sample_cost_error(const struct ty_recorder *r);
/* -a with a command, after the wait: the samples taken in the command's
 * processes (it and those it created, from the FORK records, counted once
 * the recording is over: ty_collector_tree_samples) into *SAMPLES, and
 * their CPU time (wait4's) into *CPU_NS; returns 1, or 0 where there is no
 * such figure (not -a, no command, not reaped, or out of memory while
 * following its processes). */
int ty_record_command_samples(const struct ty_recorder *r, uint64_t *samples, uint64_t *cpu_ns);
/* The data pages per ring used (the default depends on the call graph). */
unsigned ty_record_ring_pages(const struct ty_recorder *r);
/* The call graph used (AUTO resolved) and its stack copy size. */
enum ty_callgraph ty_record_callgraph(const struct ty_recorder *r, uint32_t *stack_size);
/* The stack copy size at a switch-out (off-CPU recording), else 0. */
uint32_t ty_record_switch_stack(const struct ty_recorder *r);

/* What unwinding did (TY_CG_DWARF): samples with a user stack, chains that
 * reached the outermost frame, chains cut by the stack copy, frames found
 * by CFI and by the frame pointer, and the profiler time it took (ns of
 * CLOCK_MONOTONIC in the drain, so about its CPU: reading the thread's CPU
 * clock, a system call, twice per chain would cost more at every switch). */
struct ty_record_unwind_stats {
	uint64_t samples, complete, truncated, cfi_frames, fp_frames, unwind_ns;
	uint64_t depth[8];   /* complete chains whose stack took up to 1, 2, 4 ... 128 KiB */
	uint64_t exec_calls; /* execve calls of the command the exec probe sampled */
};
void ty_record_unwind_stats(const struct ty_recorder *r, struct ty_record_unwind_stats *st);

/* What off-CPU recording could not have here (NULL: nothing missing). */
const char *ty_record_off_cpu_limits(const struct ty_recorder *r);

/* Kill what is left of the command, close everything; R may be NULL. */
void ty_record_free(struct ty_recorder *r);

#endif
