/* sampler-decode.h - the records the kernel writes into a perf_event
 * ring (samples, mappings, names, forks and exits, lost, throttling,
 * context switches), decoded into struct ty_sampler_rec.
 *
 * A pure function of the record's bytes and the layout the events were
 * opened with (struct ty_sampler_layout): every read is bounds-checked,
 * and a record shorter than its fields is refused. */
#ifndef TACHY_SAMPLER_DECODE_H
#define TACHY_SAMPLER_DECODE_H

#include <stddef.h>
#include <stdint.h>

#define TY_SAMPLER_MAX_STACK 256 /* frames kept per sample */

/* User frames of a chain unwound by tachy (no user address reaches these
 * bits, nor is one in the kernel half): an address with TY_FRAME_EXACT is
 * an interrupted pc, not a return address (no "call before it" look-up);
 * TY_FRAME_TRUNCATED alone says the stack copy ended the chain there. */
#define TY_FRAME_EXACT (1ull << 56)
#define TY_FRAME_TRUNCATED (1ull << 57)
#define TY_SAMPLER_REGS 24 /* PERF_REG_X86_* slots of ty_sampler_rec.regs */

enum ty_sampler_rec_type {
	TY_SAMPLER_REC_SAMPLE = 1,
	TY_SAMPLER_REC_MMAP, /* an executable mapping (MMAP or MMAP2) */
	TY_SAMPLER_REC_COMM, /* a thread's name changed (exec when .exec is set) */
	TY_SAMPLER_REC_FORK, /* a new process or thread */
	TY_SAMPLER_REC_EXIT,
	TY_SAMPLER_REC_LOST,	 /* .lost records were dropped: the ring was full */
	TY_SAMPLER_REC_THROTTLE, /* the kernel throttled the event (too many samples) */
	TY_SAMPLER_REC_UNTHROTTLE,
	TY_SAMPLER_REC_SWITCH,	      /* a thread went off the CPU (.out) or came back */
	TY_SAMPLER_REC_SWITCH_SAMPLE, /* a sample of the context-switches event */
	TY_SAMPLER_REC_EXEC_ENTRY,    /* a sample of the exec probe (an execve call) */
	TY_SAMPLER_REC_OTHER,	      /* anything else: skipped */
};

/* One decoded record. Pointers point into the ring (or its scratch copy) and
 * are valid only during the callback. */
struct ty_sampler_rec {
	enum ty_sampler_rec_type type;
	uint32_t pid, tid;   /* SAMPLE, MMAP, COMM, FORK/EXIT (the new/exiting one) */
	uint32_t ppid, ptid; /* FORK/EXIT: the parent */
	uint64_t time;	     /* ns of CLOCK_MONOTONIC */
	uint32_t cpu;
	uint64_t ip, period;
	uint64_t nr;			/* call chain length, context markers removed */
	const uint64_t *chain;		/* leaf first, points to chainbuf; NULL when nr == 0 */
	uint64_t start, len, pgoff;	/* MMAP */
	uint64_t dev, ino;		/* MMAP2: the file's (makedev), 0 unknown */
	const char *name;		/* MMAP file name, COMM name */
	int exec;			/* COMM caused by exec */
	int user;			/* SAMPLE: the ip is in user space */
	uint64_t lost;			/* LOST */
	uint64_t regs_abi;		/* SAMPLE with regs_user: PERF_SAMPLE_REGS_ABI_*, 0: none */
	uint64_t regs[TY_SAMPLER_REGS]; /* by PERF_REG_X86_*, those of the mask */
	const unsigned char *stack;	/* SAMPLE with stack_user: the copy (in the ring) */
	uint64_t stack_size, stack_dyn; /* bytes reserved and bytes valid */
	int out, preempt;		/* SWITCH: out (else in); out while runnable */
	uint64_t id;			/* SAMPLE: the event's id (PERF_SAMPLE_IDENTIFIER) */
	const unsigned char *raw;	/* SAMPLE with PERF_SAMPLE_RAW: a tracepoint's record... */
	uint32_t raw_size;		/* ...of this many bytes (in the ring) */
	int complete; /* SAMPLE, SWITCH_SAMPLE, EXEC_ENTRY whose user chain the recorder
			 unwound (record.c): it reached the program's root */
	uint64_t chainbuf[TY_SAMPLER_MAX_STACK];
};

/* The sample_type and options the sampler uses, for ty_sampler_decode. */
struct ty_sampler_layout {
	uint64_t sample_type;
	int sample_id_all;
	uint64_t regs_user; /* the mask of PERF_SAMPLE_REGS_USER */
	uint64_t period;    /* without PERF_SAMPLE_PERIOD: every sample's period */
};

/* Decode the record REC (LEN bytes, a whole perf_event_header record) laid
 * out by L into R. The call chain is copied into R without the kernel's
 * context markers; chains longer than TY_SAMPLER_MAX_STACK are cut.
 * Returns 0, or -EINVAL when the record is shorter than its fields. */
int ty_sampler_decode(const void *rec, size_t len, const struct ty_sampler_layout *l,
		      struct ty_sampler_rec *r);

#endif
