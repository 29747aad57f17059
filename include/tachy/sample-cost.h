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

/* The CPU one sample costs the sampled task (ns) into *NS: the event on
 * tachy's own thread at 10 kHz (or the kernel's limit), left to settle its
 * rate for 3 chunks of the loop, then 10 chunks of 30 samples' time (3 ms)
 * sampled and 10 not, alternating (where the recording took fewer than 300
 * samples: 5 or 3 pairs of chunks of its samples' share, 5 samples at
 * least); the difference of the two kinds' medians over the median count
 * of samples a sampled chunk took (medians: a pause of the host or the
 * scheduler falls in a few chunks of either kind; the least chunks of each
 * kind read up to 8x low on a loaded VM). About 80 ms of CPU, under 10 ms
 * for a recording of a few samples. Returns 0, or a negative errno with E
 * filled (the event cannot be opened on tachy's own thread, or took no
 * sample). */
int ty_sample_cost(const struct ty_sample_cost_opts *o, double *ns, struct ty_error *e);

#endif
