/* insn.h - the length of an x86-64 instruction (record --calls: where a
 * probed function resumes after its first instruction, emulated or stepped
 * out of line at the probe's trap). Lengths only: no operands, no names. */
#ifndef TACHY_INSN_H
#define TACHY_INSN_H

#include <stddef.h>

/* The length of the x86-64 instruction at B[N] (legacy and REX prefixes,
 * the one-byte, 0F, 0F38 and 0F3A maps, VEX); -1 when it is not one this
 * decodes (EVEX, an opcode invalid in 64-bit mode, or longer than N or 15
 * bytes). */
int ty_insn_len(const unsigned char *b, size_t n);

/* Where a function goes on after its first instruction (executed at a
 * probe's trap: emulated or stepped out of line), as an offset in it: */
#define TY_INSN_AWAY (-1)    /* in another function: a call, a return, a jump out */
#define TY_INSN_BRANCH (-2)  /* at a branch's target, or where its own code branches to */
#define TY_INSN_UNKNOWN (-3) /* an instruction this does not decode */

/* The offset in a function of SIZE bytes (0: not known) whose code from its
 * entry on is CODE[HAVE] where it goes on after its first instruction
 * (> 0), or TY_INSN_*; TY_INSN_BRANCH too where one of its own direct
 * branches goes there. The offset of the instruction after that into
 * *NEXT, or 0 where its own direct branches go there, or where that is not
 * known (SIZE 0, or an instruction of the function not decoded). */
int ty_insn_resume(const unsigned char *code, size_t size, size_t have, int *next);

#endif
