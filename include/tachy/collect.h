/* collect.h - a recording's records to a resolved profile: the collector
 * keeps the raw samples and the process events the sampler decodes, and at
 * the end resolves every sampled address (symbols.h) into a profile. */
#ifndef TACHY_COLLECT_H
#define TACHY_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"
#include "tachy/profile.h"
#include "tachy/sampler.h"
#include "tachy/symbols.h"

struct ty_collector;

/* A collector keeps raw samples and the process events of a recording; SYMS
 * (owned by the caller) learns the mappings. NULL when out of memory. */
struct ty_collector *ty_collector_new(struct ty_symbols *syms);
void ty_collector_free(struct ty_collector *c);
/* A ty_sampler_rec_fn: pass it to ty_sampler_drain with the collector as ARG. */
void ty_collector_record(const struct ty_sampler_rec *r, void *arg);
/* Counts so far. */
uint64_t ty_collector_samples(const struct ty_collector *c);
uint64_t ty_collector_lost(const struct ty_collector *c);
uint64_t ty_collector_throttled(const struct ty_collector *c);
uint64_t ty_collector_unthrottled(const struct ty_collector *c);
/* The processes seen so far (from thread names and forks): up to MAX pids
 * into OUT; returns how many there are. */
size_t ty_collector_pids(const struct ty_collector *c, uint32_t *out, size_t max);

/* The threads off the CPU as far as the switch records drained say (their
 * latest a switch-out, no EXIT record), in an interval without a chain read
 * (ty_collector_peek) yet: up to MAX into TIDS (the next call goes on from
 * where this one stopped); returns how many. */
size_t ty_collector_off_cpu(struct ty_collector *c, uint32_t *tids, size_t max);
/* Did a FORK record say that process PID (or a thread of it) was created
 * while recording? */
int ty_collector_forked(const struct ty_collector *c, uint32_t pid);
/* The on-CPU samples so far (call it before ty_collector_finish) of
 * process ROOT and of every process it created, or they did, as the FORK
 * records tell, in any order they were drained: each pid only from the
 * fork that made it the command's until another's fork reuses it (ROOT from
 * the start). Into *N; returns 0, or -ENOMEM (a FORK record or a sample
 * could not be kept: *N 0). */
int ty_collector_tree_samples(const struct ty_collector *c, uint32_t root, uint64_t *n);
/* The process of thread TID (TID itself when not known). */
uint32_t ty_collector_pid_of(const struct ty_collector *c, uint32_t tid);
/* A call chain of thread R->tid read while it was off the CPU, at R->time
 * (R->chain, R->nr; lib/record-peek.c): the interval around that time
 * takes it where the kernel gave none at its switch-out. */
void ty_collector_peek(struct ty_collector *c, const struct ty_sampler_rec *r);

/* A switch of thread R->tid at R->time on R->cpu read from a sched_switch
 * tracepoint (perf.data): OUT (else in); a switch-out's STATE is what the
 * kernel said of the thread (a TY_STATE_*: R->preempt set for
 * TY_STATE_RUNNABLE), its off-CPU interval's state where its kernel frames
 * tell no more (a futex wait in S is a lock). A switch-out right after a
 * ty_collector_record of the same switch's sample (a
 * TY_SAMPLER_REC_SWITCH_SAMPLE) takes its chain. */
void ty_collector_sched_switch(struct ty_collector *c, const struct ty_sampler_rec *r, int out,
			       uint32_t state);

/* How many threads had their first switch record since the last call. */
size_t ty_collector_new_threads(struct ty_collector *c);
/* Resolve every sampled address and fill P (whose meta the caller sets):
 * the user addresses file by file (symbatch.h), each file let go once its
 * addresses are named, and the raw stacks let go once P holds them (call
 * it once). Returns 0 or -ENOMEM with E filled. */
/* Name nothing at the end (the profile goes to /dev/null): every user and
 * kernel address stays "[unknown] 0xADDR in [not named]", no file is read. */
void ty_collector_no_names(struct ty_collector *c);

int ty_collector_finish(struct ty_collector *c, struct ty_profile *p, struct ty_error *e);

/* A sample inside an execve call whose chain the exec probe's chain of
 * the call replaced (the collector's graft, at the end): the unwinder's
 * verdict (ty_sampler_rec.complete) on the chain it had, against the
 * verdict on the call's chain it has now. */
struct ty_collector_graft {
	uint32_t tid;
	uint64_t time;
	int complete; /* 1: complete now, not before; 0: complete before, not now */
};
/* After ty_collector_finish: the samples of the recorder's own chains
 * (every on-CPU sample, every off-CPU interval with the chain of its
 * switch-out) whose chain the graft made complete or incomplete, in *V
 * (valid until ty_collector_free); returns how many. */
size_t ty_collector_grafts(const struct ty_collector *c, const struct ty_collector_graft **v);

#endif
