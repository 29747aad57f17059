/* t-insn.c - x86-64 instruction lengths (checked against objdump's) and
 * where a probed function goes on after its first instruction: its second
 * instruction, and the one after, unless its own branches go there. */
#include <string.h>

#include "check.h"
#include "tachy/insn.h"

#define LEN(want, ...)                                                                             \
	do {                                                                                       \
		static const unsigned char b[] = {__VA_ARGS__};                                    \
		CHECK_INT(ty_insn_len(b, sizeof(b)), want);                                        \
	} while (0)

static void
test_lengths(void)
{
	LEN(1, 0x55);					  /* push %rbp */
	LEN(2, 0x41, 0x57);				  /* push %r15 */
	LEN(3, 0x48, 0x89, 0xe5);			  /* mov %rsp,%rbp */
	LEN(4, 0x48, 0x83, 0xec, 0x08);			  /* sub $8,%rsp */
	LEN(7, 0x48, 0x81, 0xec, 0x00, 0x01, 0x00, 0x00); /* sub $256,%rsp */
	LEN(7, 0x48, 0x8b, 0x05, 1, 2, 3, 4);		  /* mov 0x..(%rip),%rax */
	LEN(5, 0x48, 0x8b, 0x44, 0x24, 0x08);		  /* mov 8(%rsp),%rax */
	LEN(8, 0x48, 0x8b, 0x84, 0x24, 0, 1, 0, 0);	  /* mov 256(%rsp),%rax */
	LEN(8, 0x48, 0x8b, 0x04, 0x25, 0, 0, 0, 0);	  /* mov 0x0,%rax: SIB, no base */
	LEN(10, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8);	  /* movabs $imm64,%rax */
	LEN(5, 0xb8, 1, 2, 3, 4);			  /* mov $imm32,%eax */
	LEN(4, 0x66, 0xb8, 1, 2);			  /* mov $imm16,%ax */
	LEN(4, 0xf3, 0x0f, 0x1e, 0xfa);			  /* endbr64 */
	LEN(6, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00);	  /* nopw 0(%rax,%rax) */
	LEN(8, 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0);	  /* nopl 0(%rax,%rax) */
	LEN(3, 0xf6, 0xc1, 0x01);			  /* test $1,%cl */
	LEN(6, 0xf7, 0xc1, 1, 0, 0, 0);			  /* test $1,%ecx */
	LEN(5, 0x66, 0xf7, 0xc1, 1, 0);			  /* test $1,%cx */
	LEN(2, 0xf7, 0xd8);				  /* neg %eax: no immediate */
	LEN(5, 0xe8, 1, 2, 3, 4);			  /* call rel32 */
	LEN(6, 0x0f, 0x84, 1, 2, 3, 4);			  /* je rel32 */
	LEN(2, 0x75, 0xfe);				  /* jne rel8 */
	LEN(4, 0xc8, 0x10, 0x00, 0x00);			  /* enter $16,$0 */
	LEN(9, 0xa1, 1, 2, 3, 4, 5, 6, 7, 8);		  /* movabs moffs64,%eax */
	LEN(3, 0xc5, 0xf8, 0x77);			  /* vzeroupper */
	LEN(4, 0xc5, 0xfe, 0x6f, 0x07);			  /* vmovdqu (%rdi),%ymm0 */
	LEN(9, 0xc4, 0xe2, 0x79, 0x18, 0x05, 1, 2, 3, 4); /* vbroadcastss 0x..(%rip) */
	LEN(6, 0xc4, 0xe3, 0x79, 0x16, 0xc0, 0x01);	  /* vpextrd $1,... (0F3A: imm8) */
	LEN(6, 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08);	  /* palignr $8 (0F3A: imm8) */
	LEN(4, 0xf0, 0x0f, 0xb1, 0x17);			  /* lock cmpxchg %edx,(%rdi) */
	LEN(-1, 0x62, 0xf1, 0x7f, 0x48, 0x6f, 0x0f);	  /* EVEX: not decoded */
	LEN(-1, 0x48, 0x8b);				  /* cut short */
	LEN(-1, 0x06);					  /* push %es: invalid in 64-bit */
	LEN(-1, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
	    0x66, 0x90); /* past 15 bytes */
}

#define RESUME(want, wnext, size, ...)                                                             \
	do {                                                                                       \
		static const unsigned char b[] = {__VA_ARGS__};                                    \
		int next = -9;                                                                     \
		CHECK_INT(ty_insn_resume(b, size, sizeof(b), &next), want);                        \
		CHECK_INT(next, wnext);                                                            \
	} while (0)

/* bench/calls-cost.c's functions: a loop of sink += i, its head a cmp */
#define LOOP(r)                                                                                    \
	0x48, 0x39, r, 0x7d, 0x0c, 0x48, 0x01, 0x0d, 1, 2, 3, 4, 0x48, 0xff, 0xc1, 0xeb, 0xef

static void
test_resume(void)
{
	/* push; mov %rsp,%rbp; xor; loop; pop; ret: after the push, then the mov */
	RESUME(1, 4, 0x19, 0x55, 0x48, 0x89, 0xe5, 0x31, 0xc9, LOOP(0xf9), 0x5d, 0xc3);
	/* mov %rdi,%rax; xor; the loop's head next: its own branch goes there */
	RESUME(3, 0, 0x17, 0x48, 0x89, 0xf8, 0x31, 0xc9, LOOP(0xc1), 0xc3);
	/* the size not known: the second instruction only */
	RESUME(1, 0, 0, 0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3);
	/* endbr64; push */
	RESUME(4, 5, 7, 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x5d, 0xc3);
	/* push %rbx, then a loop whose head is the second instruction */
	RESUME(TY_INSN_BRANCH, 0, 6, 0x53, 0xff, 0xc8, 0x75, 0xfc, 0xc3);
	/* beginning with a call, a return, an indirect jump: in another function */
	RESUME(TY_INSN_AWAY, 0, 6, 0xe8, 1, 2, 3, 4, 0xc3);
	RESUME(TY_INSN_AWAY, 0, 1, 0xc3);
	RESUME(TY_INSN_AWAY, 0, 6, 0xff, 0x25, 1, 2, 3, 4);
	RESUME(TY_INSN_AWAY, 0, 3, 0x3e, 0xff, 0xe0); /* notrack jmp *%rax */
	/* a jump out of the function, or into it; a conditional branch */
	RESUME(TY_INSN_AWAY, 0, 5, 0xe9, 0x10, 0, 0, 0);
	RESUME(TY_INSN_BRANCH, 0, 5, 0xeb, 0x01, 0x90, 0x90, 0xc3);
	RESUME(TY_INSN_BRANCH, 0, 4, 0x74, 0x01, 0x90, 0xc3);
	/* a first instruction not decoded; the rest not all decoded */
	RESUME(TY_INSN_UNKNOWN, 0, 7, 0x62, 0xf1, 0x7f, 0x48, 0x6f, 0x0f, 0xc3);
	RESUME(1, 0, 9, 0x55, 0x48, 0x89, 0xe5, 0x62, 0xf1, 0x7f, 0x48, 0x6f);
}

int
main(void)
{
	test_lengths();
	test_resume();
	return check_done();
}
