/* record-peek.h - call chains of blocked threads read from /proc while
 * they wait: the unprivileged recorder's chains at switch-outs.
 *
 * In user-space-only mode the kernel takes no sample at a switch-out, so no
 * chain says where a thread blocked. A thread blocked in a system call (or
 * a fault) shows its user stack and instruction pointers in
 * /proc/PID/task/TID/syscall, and its stack can be copied with
 * process_vm_readv(2): both need the same access as ptrace (the user's own
 * processes, where no Yama or capability rule forbids it). At each look the
 * threads that the switch records say are off the CPU are read so, once per
 * interval, at most HZ a second; a read is kept when the thread did not run
 * meanwhile (the same system call line, the same count of runs in its
 * schedstat); the copy and the two pointers are unwound as a sample's are. */
#ifndef TACHY_RECORD_PEEK_H
#define TACHY_RECORD_PEEK_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/collect.h"
#include "tachy/sampler.h"

#define TY_RECORD_PEEK_NS 10000000ull /* between looks */
#define TY_RECORD_PEEK_MAX 256	      /* threads looked at in one look */

struct ty_record_peek {
	uint64_t hz;	     /* reads a second at most (0: every interval seen) */
	uint32_t stack_size; /* bytes copied from the stack pointer up */
	uint64_t next_ns;    /* the next look */
	double tokens;	     /* reads owed (a bucket of hz/4 at the most) */
	uint64_t filled_ns;
	unsigned char *stack;
	uint32_t tids[TY_RECORD_PEEK_MAX];
	struct ty_sampler_rec rec;
	int denied;	       /* the kernel refused the first read: -errno, looks stop */
	uint64_t looks, reads; /* counters: looks made, chains read */
};

/* Start looking at NOW: at most HZ reads a second (0: no limit) of
 * STACK_SIZE bytes each. Returns 0 or -ENOMEM. */
int ty_record_peek_init(struct ty_record_peek *pk, uint64_t hz, uint32_t stack_size, uint64_t now);
void ty_record_peek_free(struct ty_record_peek *pk);

/* Called for each state read: a TY_SAMPLER_REC_SWITCH_SAMPLE of no kernel
 * chain, its registers the stack and instruction pointers only (MASK, by
 * PERF_REG_X86_*), its stack copy in REC->stack. */
typedef void (*ty_record_peek_fn)(const struct ty_sampler_rec *rec, uint64_t mask, void *arg);

/* A look, when one is due at NOW: the threads C says are off the CPU. */
void ty_record_peek_look(struct ty_record_peek *pk, struct ty_collector *c, uint64_t now,
			 ty_record_peek_fn fn, void *arg);

#endif
