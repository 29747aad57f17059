/* unwind.h - user call chains from call-frame information (x86-64).
 *
 * A sample taken with PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER
 * carries the registers at the sampled instruction and a copy of the top of
 * the stack (struct ty_unwind_sample: what the walk needs of it, not the
 * kernel's record). The unwinder finds the mapping of each pc in the
 * process's address space (lib/addrspace.c) and walks the stack with the
 * call-frame table of its file (lib/cfi.c: one per file); where no CFI
 * covers a pc, the frame pointer is followed.
 *
 * A chain ends cleanly where the return address is undefined (_start,
 * clone, clone3) or zero; it is truncated when the next frame would be read
 * from above the stack copy. Not thread-safe: one unwinder per recorder. */
#ifndef TACHY_UNWIND_H
#define TACHY_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/addrspace.h"
#include "tachy/cfi.h"
#include "tachy/sampler-decode.h"

/* The perf_event registers sampled (PERF_REG_X86_*: AX BX CX DX SI DI BP
 * SP IP and R8-R15): every general register, so that a CFA rule on any of
 * them can be followed in the first frame. */
#define TY_UNWIND_REGS_MASK 0xff01ffull
#define TY_UNWIND_PERF_REGS 24 /* regs[] of a sample are indexed by PERF_REG_X86_* */

/* Set on a frame that is the exact pc (the sampled one, or a signal
 * frame's), not a return address (the sampler's TY_FRAME_EXACT). */
#define TY_UNWIND_EXACT (1ull << 56)

/* One sample's user state. */
struct ty_unwind_sample {
	uint32_t pid;
	uint64_t time;
	uint64_t regs[TY_UNWIND_PERF_REGS]; /* by PERF_REG_X86_*; MASK says which hold values */
	uint64_t mask;
	const unsigned char *stack; /* the copy of [regs[SP], regs[SP] + stack_len) */
	uint64_t stack_len;
	int stack_full; /* the copy was as large as asked: the stack goes on above it */
};

/* The unwinder's input from a decoded sample REC, as record, run --profile
 * and the perf.data reader take it: OUT a copy of REC whose chain is OUT's
 * own buffer, the kernel's frames kept (at most TY_SAMPLER_MAX_STACK - 2);
 * US REC's user registers (MASK: those held) and its stack copy. Returns
 * K: the user frames go at OUT->chainbuf + K, TY_SAMPLER_MAX_STACK - 1 - K
 * of them at most (one left for a truncation mark). */
size_t ty_unwind_input(const struct ty_sampler_rec *rec, uint64_t mask, struct ty_sampler_rec *out,
		       struct ty_unwind_sample *us);

/* How a chain ended. */
enum ty_unwind_end {
	TY_UNWIND_COMPLETE = 0, /* reached the outermost frame */
	TY_UNWIND_TRUNCATED,	/* the next frame was above the stack copy */
	TY_UNWIND_LOST,		/* no rule and no frame pointer led further */
	TY_UNWIND_MAXED,	/* MAX frames */
};

struct ty_unwinder;

/* An unwinder on the mappings AS knows, with the tables of CFI (the caller
 * keeps both; ty_symbols_addrspace and ty_symbols_cfi give a symbol set's).
 * NULL when out of memory. */
struct ty_unwinder *ty_unwind_new(struct ty_addrspace *as, struct ty_cfi_cache *cfi);
void ty_unwind_free(struct ty_unwinder *u);

/* Forget cached mapping look-ups (after an mmap or exec record, or a read
 * of /proc/PID/maps): tables stay. */
void ty_unwind_forget(struct ty_unwinder *u);

/* Unwind S into OUT (at most MAX addresses, innermost first: the sampled pc,
 * then return addresses). Returns the number of frames and sets *END. */
size_t ty_unwind_sample(struct ty_unwinder *u, const struct ty_unwind_sample *s, uint64_t *out,
			size_t max, enum ty_unwind_end *end);

/* Why the last sample's chain stopped where it did (diagnostics). */
enum ty_unwind_stop {
	TY_STOP_END = 0, /* the outermost frame (or MAX frames) */
	TY_STOP_NOMAP,	 /* its last pc is in no mapping known for the process */
	TY_STOP_NOCFI,	 /* in a file without CFI (or unreadable), frame pointer unusable */
	TY_STOP_NOROW,	 /* the file's CFI covers no row there, frame pointer unusable */
	TY_STOP_CFA,	 /* a CFI row whose CFA or return address could not be read */
	TY_STOP_SP,	 /* the stack pointer did not move up */
	TY_STOP_KERNEL,	 /* the next address is not a user-space one */
	TY_STOP_COPY,	 /* the next frame is above the stack copy */
	TY_STOP_SHORT,	 /* above a copy the kernel cut short (a stack page not present:
			    a frame not touched yet, or the exec's new image) */
};

/* Counters since ty_unwind_new: frames found with CFI, with the frame
 * pointer, and tables built by its cache (tests, statistics): one per file, and one
 * per build-id (a file mapped under several paths is read for one table;
 * many processes of one program, cc1 started 20 times, share it too). */
struct ty_unwind_stats {
	uint64_t cfi_frames, fp_frames, tables;
	uint64_t depth;		  /* the last sample: stack bytes from its sp to its last frame's */
	enum ty_unwind_stop stop; /* the last sample: why its chain ended */
	uint64_t unmapped;	  /* the last sample: a return address in no mapping, dropped */
};
void ty_unwind_stats(const struct ty_unwinder *u, struct ty_unwind_stats *st);

#endif
