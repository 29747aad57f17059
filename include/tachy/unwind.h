/* unwind.h - user call chains from call-frame information (x86-64).
 *
 * A sample taken with PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER
 * carries the registers at the sampled instruction and a copy of the top of
 * the stack. The unwinder walks it with the CFI of each binary: an unwind
 * table is built once per file (from .eh_frame, found through the section
 * headers or PT_GNU_EH_FRAME, or .debug_frame where there is no .eh_frame):
 * a sorted array of rows (pc, CFA rule, rules for RBP, RBX, R12-R15 and the
 * return address), looked up by binary search. The standard PLT expression
 * and the DW_OP_breg/deref expressions of signal trampolines and realigned
 * stacks are understood; the vDSO's table is read from tachy's own vDSO
 * (the kernel maps the same image into every process). Where no CFI covers
 * a pc, the frame pointer is followed.
 *
 * A chain ends cleanly where the return address is undefined (_start,
 * clone, clone3) or zero; it is truncated when the next frame would be read
 * from above the stack copy. Damaged tables give no rows (or fewer), never a
 * crash. Not thread-safe: one unwinder per recorder. */
#ifndef TACHY_UNWIND_H
#define TACHY_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"
#include "tachy/sampler.h" /* TY_FRAME_EXACT */
#include "tachy/symbols.h"

/* The perf_event registers sampled (PERF_REG_X86_*: AX BX CX DX SI DI BP
 * SP IP and R8-R15): every general register, so that a CFA rule on any of
 * them can be followed in the first frame. */
#define TY_UNWIND_REGS_MASK 0xff01ffull
#define TY_UNWIND_PERF_REGS 24 /* regs[] of a sample are indexed by PERF_REG_X86_* */

/* The rules of one row. */
enum ty_unwind_cfa {
	TY_CFA_NONE = 0, /* no CFI covers this pc */
	TY_CFA_REG,	 /* CFA = reg + off */
	TY_CFA_DEREF,	 /* CFA = *(reg + off) */
	TY_CFA_PLT,	 /* CFA = rsp + off + ((rip & 15) >= arg ? 8 : 0): a PLT entry */
};
enum ty_unwind_rule {
	TY_RULE_SAME = 0, /* unchanged (the callee saved it nowhere, or kept it) */
	TY_RULE_UNDEF,	  /* undefined: for the return address, the end of the chain */
	TY_RULE_OFFSET,	  /* saved at CFA + off */
	TY_RULE_VAL,	  /* its value is CFA + off */
	TY_RULE_AT_SP,	  /* saved at rsp + off (signal frames: DW_OP_breg7) */
	TY_RULE_UNKNOWN,  /* an expression we do not follow: the value is lost */
};
/* Rule slots: RBX RBP R12 R13 R14 R15 and the return address. */
enum { TY_UW_RBX, TY_UW_RBP, TY_UW_R12, TY_UW_R13, TY_UW_R14, TY_UW_R15, TY_UW_RA, TY_UW_NRULES };

struct ty_unwind_row {
	uint64_t pc; /* link-time address where the row starts */
	int32_t cfa_off;
	uint8_t cfa_kind, cfa_reg; /* enum ty_unwind_cfa, DWARF register */
	uint8_t signal;		   /* the FDE is a signal frame ('S') */
	uint8_t plt_arg;
	int32_t off[TY_UW_NRULES];
	uint8_t kind[TY_UW_NRULES];
};

struct ty_unwind_table;

/* Build the unwind table of the ELF image IMAGE (LEN bytes: a file's
 * contents or the vDSO in memory). Returns 0 and *OUT (possibly with no
 * rows: no CFI), or -EINVAL (not a 64-bit ELF image) / -ENOMEM with E set.
 * Damaged CIEs and FDEs are skipped. */
int ty_unwind_table_build(const void *image, size_t len, struct ty_unwind_table **out,
			  struct ty_error *e);

/* The same, lazily: the rows of an FDE are made the first time a pc falls
 * in it (found through .eh_frame_hdr's table; without one, or with one we
 * cannot search, the table is built whole as ty_unwind_table_build does).
 * IMAGE is read as the table is used: the caller keeps it until
 * ty_unwind_table_free. */
int ty_unwind_table_open(const void *image, size_t len, struct ty_unwind_table **out,
			 struct ty_error *e);

/* The row covering the link-time address PC, or NULL (no CFI there). */
const struct ty_unwind_row *ty_unwind_table_find(const struct ty_unwind_table *t, uint64_t pc);

/* The function range of the call-frame information holding the link-time
 * address PC: the FDE covering it, [*START, *END). Returns 0, or -1 when no
 * FDE covers PC (or its entry is damaged). lib/symbols.c names code
 * without symbols by it (DSO+0xSTART). */
int ty_unwind_table_fde(const struct ty_unwind_table *t, uint64_t pc, uint64_t *start,
			uint64_t *end);

/* Map the file offset OFF to its link-time address through the image's
 * PT_LOAD segments (OFF itself when none holds it). */
uint64_t ty_unwind_table_vaddr(const struct ty_unwind_table *t, uint64_t off);

/* The GNU build-id of the image (from its PT_NOTE segments): its length
 * in bytes and *ID, or 0 when it has none. */
size_t ty_unwind_table_build_id(const struct ty_unwind_table *t, const unsigned char **id);

/* Number of rows (tests). */
size_t ty_unwind_table_rows(const struct ty_unwind_table *t);

void ty_unwind_table_free(struct ty_unwind_table *t);

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

/* How a chain ended. */
enum ty_unwind_end {
	TY_UNWIND_COMPLETE = 0, /* reached the outermost frame */
	TY_UNWIND_TRUNCATED,	/* the next frame was above the stack copy */
	TY_UNWIND_LOST,		/* no rule and no frame pointer led further */
	TY_UNWIND_MAXED,	/* MAX frames */
};

struct ty_unwinder;

/* An unwinder on the mappings SYMS knows (the caller keeps SYMS). NULL when
 * out of memory. */
struct ty_unwinder *ty_unwind_new(struct ty_symbols *syms);
void ty_unwind_free(struct ty_unwinder *u);

/* Forget cached mapping look-ups (after an mmap or exec record, or a read
 * of /proc/PID/maps): tables stay. */
void ty_unwind_forget(struct ty_unwinder *u);

/* Unwind S into OUT (at most MAX addresses, innermost first: the sampled pc,
 * then return addresses). Returns the number of frames and sets *END. */
size_t ty_unwind_sample(struct ty_unwinder *u, const struct ty_unwind_sample *s, uint64_t *out,
			size_t max, enum ty_unwind_end *end);

/* Counters since ty_unwind_new: frames found with CFI, with the frame
 * pointer, and tables built (tests, statistics): one per file, and one
 * per build-id (a file mapped under several paths is read for one table;
 * many processes of one program, cc1 started 20 times, share it too). */
struct ty_unwind_stats {
	uint64_t cfi_frames, fp_frames, tables;
	uint64_t depth; /* the last sample: stack bytes from its sp to its last frame's */
};
void ty_unwind_stats(const struct ty_unwinder *u, struct ty_unwind_stats *st);

/* Set where the vDSO's image is read from (tests; NULL: tachy's own). */
void ty_unwind_set_vdso(struct ty_unwinder *u, const void *image, size_t len);

#endif
