/* sample-cost.h - what the kernel's work for one sample costs the task it
 * interrupts (record's "added CPU"): the interrupt, the sample's copy into
 * the ring, its call chain or user stack copy are charged to the sampled
 * task, not to the profiler, and no clock of the profiler sees them. It is
 * measured the way --calls measures a probe hit: a loop of tachy's own
 * thread run with an event of the recording's kind on it and without, in
 * the thread's CPU time, per sample. */
#ifndef TACHY_SAMPLE_COST_H
#define TACHY_SAMPLE_COST_H

#include <stdint.h>

#include "tachy/error.h"

struct ty_sample_cost_opts {
	uint32_t type;	     /* PERF_TYPE_* of the recording's event */
	uint64_t config;     /* and its config */
	int exclude_kernel;  /* user space only */
	int callchain;	     /* frame-pointer chains */
	uint64_t regs_user;  /* PERF_SAMPLE_REGS_USER mask (0: none) */
	uint32_t stack_user; /* PERF_SAMPLE_STACK_USER bytes (0: none) */
	uint64_t samples;    /* the recording's samples (0: not known) */
};

/* The CPU one sample costs the sampled task (ns) into *NS: 3 rounds each of
 * a loop of 25 samples at 10 kHz (2.5 ms; 10 samples at the kernel's limit
 * where it is lower), or of as many as the recording took where it took
 * fewer (4 at least), sampled and unsampled, the least round of each (a
 * loaded machine's preemptions only add), the difference over the samples
 * taken. At most about 18 ms of CPU, under 3 ms for a few samples. Returns
 * 0, or a negative errno with E filled (the event cannot be opened on
 * tachy's own thread, or took no sample). */
int ty_sample_cost(const struct ty_sample_cost_opts *o, double *ns, struct ty_error *e);

#endif
