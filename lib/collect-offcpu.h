/* collect-offcpu.h - the collector's state and its off-CPU pairing
 * (private to lib/: collect.c and collect-offcpu.c are one module in two
 * files, struct ty_collector of collect.h, and include this for that
 * reason only).
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
	uint32_t tid, cpu, stack, state;
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

struct ty_collector {
	struct ty_symbols *syms;
	/* raw stacks: words[off] = pid, words[off+1] = n, then n ips */
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
	struct ty_symbatch *batch; /* the user addresses, resolved file by file */
	int no_names;		   /* ty_collector_no_names */
	int planning;		   /* the first walk: ask the batch for them */
};

/* The index of the raw stack IPS[0..N) under KEY (the pid in the low 32
 * bits; above, the epoch + 1 of a stack split off at the end, 0 for the
 * stacks of the recording), interned once; TY_NONE when out of memory.
 * (collect.c) */
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

/* What a thread that went off the CPU in the kernel's STACK of P
 * (resolved, leaf first) waited for: TY_STATE_LOCK, _IO, _SLEEP, or
 * TY_STATE_BLOCKED when it is none of them. */
uint32_t ty_collector_classify(const struct ty_profile *p, uint32_t stack);

#endif
