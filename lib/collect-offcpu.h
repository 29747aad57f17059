/* collect-offcpu.h - the collector's state, its off-CPU pairing and its
 * exec windows (private to lib/: collect.c, collect-offcpu.c and
 * collect-exec.c are one module in three files, struct ty_collector of
 * collect.h, and include this for that reason only).
 *
 * collect.c takes the records as they come and turns them into a profile
 * at the end; collect-offcpu.c keeps the switch records per thread,
 * pairs each switch-out with the thread's next switch-in into an off-CPU
 * sample with a call chain, and tells from the kernel's frames what a
 * thread waited for. */
#ifndef TACHY_LIB_COLLECT_OFFCPU_H
#define TACHY_LIB_COLLECT_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/array.h"
#include "tachy/collect.h"
#include "tachy/profile.h"
#include "tachy/sampler.h"
#include "tachy/symbatch.h"

struct raw_sample {
	uint64_t time, period;
	uint32_t tid, cpu, stack;
	uint32_t state; /* off-CPU: its state | the switch-out's hint << 8 (struct sw) */
};

/* Off-CPU bookkeeping: switch records and context-switch samples, kept
 * per thread as they come and paired at the end (a thread leaves one CPU
 * and comes back on another: its records are in two rings, drained in any
 * order). */
enum { SW_SAMPLE, SW_OUT, SW_IN, SW_PEEK /* a chain read while it was off (record-peek.c) */ };
struct sw { /* in its thread's list (struct swlist) */
	uint64_t time;
	uint32_t cpu, stack; /* stack: SW_SAMPLE's and SW_PEEK's */
	uint8_t kind, preempt;
	uint8_t hint; /* SW_OUT: the state the kernel said (a sched_switch's), 0: none */
};

struct swlist { /* one thread's entries, in the order they came */
	struct sw *v;
	size_t n, cap;
	uint32_t tid;
	int disordered;		    /* one came before the one it followed: sort them */
	int exited;		    /* its EXIT record came */
	uint64_t last_out, last_in; /* the latest switch-out and switch-in */
	uint64_t peeked;	    /* the latest SW_PEEK */
};

#define NAMES 4 /* the names a thread had that are kept: its last ones */
struct tname {
	uint64_t time;
	char comm[32];
};

struct tcomm {
	uint32_t pid, tid;
	char comm[32];		  /* its name at the end */
	struct tname hist[NAMES]; /* its own COMM records' names, oldest first */
	unsigned nhist;
	uint64_t fork_time; /* when it was created... */
	uint32_t ptid;	    /* ...and by whom (0: not seen) */
};

/* An exec: from TIME on, PID's old image is gone. */
struct exec_ev {
	uint32_t pid;
	uint64_t time;
};

/* A FORK record of a new process (not a thread's): PID created by PPID
 * at TIME, kept as they come (ty_collector_tree_samples). */
struct fork_ev {
	uint64_t time;
	uint32_t pid, ppid;
};

/* An execve call (the exec probe's sample): its user chain, interned. */
struct exec_entry {
	struct exec_ev at; /* first: sorted and searched as the execs are */
	uint32_t stack;
};

struct ty_collector {
	struct ty_symbols *syms;
	/* raw stacks: words[off] = key (the pid, ...), words[off+1] = n, then n ips */
	uint64_t *words;
	size_t nwords, capwords;
	size_t *stack_off;
	uint32_t nstacks;
	size_t capstacks;
	uint32_t *slots; /* open addressing over stack indices, TY_NONE empty */
	size_t nslots;
	struct raw_sample *samples;
	size_t nsamples, capsamples;
	struct tcomm *threads;
	size_t nthreads, capthreads;
	uint64_t lost, throttled, unthrottled;
	int oom;
	struct swlist *swl;
	size_t nswl, capswl, nout;
	uint64_t chained, chained_ns; /* off-CPU samples with their own chain */
	size_t new_lists;	      /* threads seen switching since the last ask */
	size_t offcur;		      /* ty_collector_off_cpu's next list */
	struct ty_idmap swmap;	      /* tid -> its list */
	uint32_t swlast;	      /* the list of the last entry (+1; 0: none) */
	size_t first_off;	      /* samples from here on are off-CPU (after pairing) */
	unsigned char *from_chain;    /* per off-CPU sample: its stack is the switch-out's */
	struct exec_ev *execs;	      /* every exec, sorted by (pid, time) at the end */
	size_t nexecs, capexecs;
	struct exec_entry *entries; /* every execve call, sorted by (pid, time) at the end */
	size_t nentries, capentries;
	struct fork_ev *forks; /* every new process's FORK record, as drained */
	size_t nforks, capforks;
	int forks_oom; /* one could not be kept */
	/* at the end: per raw stack, an entry's resolved locations (eoff
	   TY_NONE: not an entry's) and the pid of an exec window's stack (0:
	   not one); collect-exec.c */
	uint32_t *eoff, *elen, *efirst, *elocs, *wpid;
	unsigned char *wkind;  /* 1: in the exec window, 2: in the probe's step */
	uint32_t *wkeep;       /* the locations of a window's stack a graft keeps */
	unsigned char *rooted; /* its chain complete (KEY_ROOTED) */
	size_t nelocs, capelocs;
	struct ty_collector_graft *grafts; /* the samples a graft made complete or not */
	size_t ngrafts, capgrafts;
	struct ty_symbatch *batch; /* the user addresses, resolved file by file */
	int no_names;		   /* ty_collector_no_names */
	int planning;		   /* the first walk: ask the batch for them */
};

/* A stack key's top bit: the recorder's unwinder took the chain to the
 * program's root (ty_sampler_rec.complete). */
#define KEY_ROOTED (1ull << 63)
#define KEY_OF(r) ((r)->pid | ((r)->complete ? KEY_ROOTED : 0))

/* The index of the raw stack IPS[0..N) under KEY (the pid in the low 32
 * bits; above, the epoch + 1 of a stack split off at the end, 0 for the
 * stacks of the recording, and KEY_ROOTED), interned once; TY_NONE when
 * out of memory. (collect.c) */
uint32_t ty_collector_intern_stack(struct ty_collector *c, uint64_t key, const uint64_t *ips,
				   uint64_t n);

/* A switch record R (KIND SW_OUT or SW_IN, STACK TY_NONE) or a
 * context-switch sample (SW_SAMPLE, STACK its interned chain) into its
 * thread's list; out of memory sets c->oom. */
void ty_collector_switch(struct ty_collector *c, const struct ty_sampler_rec *r, int kind,
			 uint32_t stack);

/* Thread TID ended (its EXIT record): no longer off the CPU. */
void ty_collector_switch_exit(struct ty_collector *c, uint32_t tid);

/* A context-switch sample R: its chain interned, then ty_collector_switch. */
void ty_collector_switch_sample(struct ty_collector *c, const struct ty_sampler_rec *r);

/* The switch records into off-CPU samples appended after the on-CPU ones
 * (from c->first_off on), threads in the order of their ids. Returns 0 or
 * -ENOMEM. */
int ty_collector_pair_switches(struct ty_collector *c);

/* collect-exec.c: the exec windows. A sample the kernel takes inside
 * execve after the point of no return carries the old program's
 * registers, but its user stack is copied from the new image: only the pc
 * (the old program's execve call) means anything, and it is looked up in
 * the mappings from before the exec; the rest of its chain comes from the
 * exec probe's sample at that execve's entry, where there is one. */

/* The exec probe's sample R (already unwound): its user frames kept. */
void ty_collector_exec_entry(struct ty_collector *c, const struct ty_sampler_rec *r);
/* Is a sample of PID at TIME, inside execve, after the point of no return
 * of an exec (its time in *WHEN)? Before the first exec after TIME it
 * would be early in that exec instead: the nearer of the two wins. Needs
 * the execs sorted (ty_collector_exec_prepare). */
int ty_collector_exec_tail(const struct ty_collector *c, uint32_t pid, uint64_t time,
			   uint64_t *when);
/* Is F one of the kernel's execve entry points (1), or the function that
 * installs the new image (2)? */
int ty_collector_is_exec_call(const struct ty_profile *p, uint32_t f);
/* Before the resolution: the execs and entries sorted, each entry's raw
 * stack given the epoch and time of its call (*EPOCHS, one per raw stack,
 * grown where a stack is split off; TIMES is filled after), and the
 * per-stack tables made. Returns 0 or -ENOMEM. */
int ty_collector_exec_prepare(struct ty_collector *c, uint32_t **epochs);
void ty_collector_exec_times(struct ty_collector *c, uint64_t *times);
/* Is raw stack S an entry's (its locations then go to ty_collector_exec_keep,
 * not to a profile stack unless samples have it too)? 0: no; 1: an entry's
 * only; 2: samples have it too. Until ty_collector_exec_keep. */
int ty_collector_is_entry(const struct ty_collector *c, uint32_t s);
/* Keep entry stack S's resolved locations LOCS[0..N), of which the first
 * NFIRST are its leaf's (execve itself). Returns 0 or -ENOMEM. */
int ty_collector_exec_keep(struct ty_collector *c, uint32_t s, const uint32_t *locs, uint32_t n,
			   uint32_t nfirst);
/* Raw stack S of PID is an exec window's (its locations end at [exec]),
 * or XOL, one whose user leaf is the exec probe's instruction stepped out
 * of line (the kernel's [uprobes] page: in no file); its first KEEP
 * locations stay when it takes the chain of its execve call. */
void ty_collector_exec_window(struct ty_collector *c, uint32_t s, uint32_t pid, int xol,
			      uint32_t keep);
/* The profile stack of sample R, its raw stack resolved as PSTACK:
 * PSTACK itself, or where R's raw stack is an exec window's and the entry
 * of that execve is known, PSTACK without its [exec] and with the callers
 * of that execve call instead. Where the graft makes a chain complete that
 * was not (the entry's was), or the other way round, and R is one of the
 * recorder's chains (COUNTED: not an off-CPU interval's borrowed one), it
 * is noted for ty_collector_grafts. TY_NONE when out of memory. */
uint32_t ty_collector_exec_graft(struct ty_collector *c, struct ty_profile *p,
				 const struct raw_sample *r, uint32_t pstack, int counted);
/* Let the per-stack tables go. */
void ty_collector_exec_free(struct ty_collector *c);

/* What a thread that went off the CPU in the kernel's STACK of P
 * (resolved, leaf first) waited for: TY_STATE_LOCK, _IO, _SLEEP, or
 * TY_STATE_BLOCKED when it is none of them. */
uint32_t ty_collector_classify(const struct ty_profile *p, uint32_t stack);

#endif
