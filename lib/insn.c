/* insn.c - the length of an x86-64 instruction, from the opcode maps of
 * the Intel SDM (volume 2, appendix A): prefixes, opcode, ModRM, SIB,
 * displacement, immediate. */
#include <stdint.h>

#include "tachy/insn.h"

/* Per one-byte opcode: M has a ModRM byte; the immediate: B 1 byte, W 2,
 * Z 2 or 4 (the operand size), V 3 (enter: 2 + 1); X invalid in 64-bit
 * mode (or a prefix or escape handled apart). */
enum { N = 0, M = 1, B = 2, W = 4, Z = 8, X = 16, V = 32 };

/* clang-format off */
static const unsigned char one[256] = {
    /* 00 */ M, M, M, M, B, Z, X, X, M, M, M, M, B, Z, X, X,
    /* 10 */ M, M, M, M, B, Z, X, X, M, M, M, M, B, Z, X, X,
    /* 20 */ M, M, M, M, B, Z, X, X, M, M, M, M, B, Z, X, X,
    /* 30 */ M, M, M, M, B, Z, X, X, M, M, M, M, B, Z, X, X,
    /* 40 */ X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    /* 50 */ N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N,
    /* 60 */ X, X, X, M, X, X, X, X, Z, M | Z, B, M | B, N, N, N, N,
    /* 70 */ B, B, B, B, B, B, B, B, B, B, B, B, B, B, B, B,
    /* 80 */ M | B, M | Z, X, M | B, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 90 */ N, N, N, N, N, N, N, N, N, N, X, N, N, N, N, N,
    /* a0 */ X, X, X, X, N, N, N, N, B, Z, N, N, N, N, N, N,
    /* b0 */ B, B, B, B, B, B, B, B, Z, Z, Z, Z, Z, Z, Z, Z,
    /* c0 */ M | B, M | B, W, N, X, X, M | B, M | Z, V, N, W, N, N, B, X, N,
    /* d0 */ M, M, M, M, X, X, X, N, M, M, M, M, M, M, M, M,
    /* e0 */ B, B, B, B, B, B, B, B, Z, Z, X, B, N, N, N, N,
    /* f0 */ X, N, X, X, N, N, M, M, N, N, N, N, N, N, M, M,
};

/* The 0F map. */
static const unsigned char two[256] = {
    /* 00 */ M, M, M, M, X, N, N, N, N, N, X, N, X, M, N, M | B,
    /* 10 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 20 */ M, M, M, M, X, X, X, X, M, M, M, M, M, M, M, M,
    /* 30 */ N, N, N, N, N, N, X, N, X, X, X, X, X, X, X, X,
    /* 40 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 50 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 60 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 70 */ M | B, M | B, M | B, M | B, M, M, M, N, M, M, M, M, M, M, M, M,
    /* 80 */ Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z,
    /* 90 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* a0 */ N, N, N, M, M | B, M, X, X, N, N, N, M, M | B, M, M, M,
    /* b0 */ M, M, M, M, M, M, M, M, M, M, M | B, M, M, M, M, M,
    /* c0 */ M, M, M | B, M, M | B, M | B, M | B, M, N, N, N, N, N, N, N, N,
    /* d0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* e0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    /* f0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
};
/* clang-format on */

/* The bytes a ModRM at B[N] takes with what follows it (SIB,
 * displacement), or -1 past N. */
static int
modrm_len(const unsigned char *b, size_t n)
{
	int mod, rm, len = 1;

	if (n < 1)
		return -1;
	mod = b[0] >> 6, rm = b[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) { /* a SIB byte */
		if (n < 2)
			return -1;
		len++;
		if (mod == 0 && (b[1] & 7) == 5)
			len += 4; /* no base: disp32 */
	} else if (mod == 0 && rm == 5) {
		len += 4; /* RIP-relative */
	}
	len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
	return (size_t)len <= n ? len : -1;
}

int
ty_insn_len(const unsigned char *b, size_t n)
{
	size_t i = 0, max = n < 15 ? n : 15, imm = 0;
	int opsize16 = 0, rexw = 0, addr32 = 0, flags, m, map = 1;
	unsigned op;

	for (; i < max; i++) { /* legacy prefixes, any order */
		unsigned c = b[i];
		if (c == 0x66)
			opsize16 = 1;
		else if (c == 0x67)
			addr32 = 1;
		else if (!(c == 0xf0 || c == 0xf2 || c == 0xf3 || c == 0x26 || c == 0x2e ||
			   c == 0x36 || c == 0x3e || c == 0x64 || c == 0x65))
			break;
	}
	if (i < max && (b[i] & 0xf0) == 0x40) /* REX: last before the opcode */
		rexw = (b[i++] & 8) != 0;
	if (rexw)
		opsize16 = 0; /* REX.W wins over 66 */
	if (i >= max)
		return -1;
	op = b[i++];
	if (op == 0xc4 || op == 0xc5) { /* VEX: its map, then ModRM but for vzero* */
		if (op == 0xc4) {
			if (i + 2 > max)
				return -1;
			map = b[i] & 0x1f, i += 2;
		} else {
			map = 1, i += 1;
		}
		if (i >= max || map < 1 || map > 3)
			return -1;
		op = b[i++];
		if (map == 1 && op == 0x77)
			return (int)i;
		flags = M | (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
						       (op >= 0xc4 && op <= 0xc6)))
				 ? B
				 : 0);
		map = 4; /* no more to look up */
	} else if (op == 0x0f) {
		if (i >= max)
			return -1;
		op = b[i++];
		map = 2;
		if (op == 0x38 || op == 0x3a) { /* three-byte maps: ModRM; 0F3A an imm8 */
			if (i >= max)
				return -1;
			flags = M | (op == 0x3a ? B : 0);
			i++, map = 3;
		} else {
			flags = two[op];
		}
	} else {
		flags = one[op];
		if (op >= 0xa0 && op <= 0xa3) /* mov to or from a moffs: an address */
			flags = N, imm = addr32 ? 4 : 8;
		else if (op >= 0xb8 && op <= 0xbf && rexw)
			imm = 4; /* mov imm64: 4 more than Z's */
	}
	if (flags & X)
		return -1;
	if (flags & M) {
		if ((m = modrm_len(b + i, max - i)) < 0)
			return -1;
		if (map == 1 && (op == 0xf6 || op == 0xf7) && ((b[i] >> 3) & 7) < 2)
			imm += op == 0xf6 ? 1 : opsize16 ? 2 : 4; /* test r/m, imm */
		i += (size_t)m;
	}
	imm += (flags & B ? 1 : 0) + (flags & W ? 2 : 0) + (flags & V ? 3 : 0) +
	       (flags & Z ? (opsize16 ? 2 : 4) : 0);
	return i + imm <= max ? (int)(i + imm) : -1;
}

/* The target of the direct branch at B[LEN] (a call's too) as an offset
 * from B, into *REL; 0 when it is not one. */
static int
branch_rel(const unsigned char *b, int len, int64_t *rel)
{
	int i = 0;

	while (i + 1 < len && (b[i] == 0x66 || b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x2e ||
			       b[i] == 0x3e || (b[i] & 0xf0) == 0x40))
		i++; /* prefixes: bnd, branch hints, REX */
	if ((b[i] >= 0x70 && b[i] <= 0x7f) || b[i] == 0xeb || (b[i] >= 0xe0 && b[i] <= 0xe3)) {
		if (i + 2 != len)
			return 0;
		*rel = len + (int8_t)b[i + 1];
		return 1;
	}
	if (b[i] == 0xe8 || b[i] == 0xe9 ||
	    (b[i] == 0x0f && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f)) {
		int at = b[i] == 0x0f ? i + 2 : i + 1;
		if (at + 4 != len)
			return 0;
		*rel = len + (int32_t)((uint32_t)b[at] | (uint32_t)b[at + 1] << 8 |
				       (uint32_t)b[at + 2] << 16 | (uint32_t)b[at + 3] << 24);
		return 1;
	}
	return 0;
}

int
ty_insn_resume(const unsigned char *code, size_t size, size_t have, int *next)
{
	int len = ty_insn_len(code, have), len2, i = 0;
	int64_t rel, at;
	size_t end = size < have ? size : have, off;

	*next = 0;
	if (len <= 0)
		return TY_INSN_UNKNOWN;
	while (i + 1 < len && (code[i] == 0x66 || code[i] == 0xf2 || code[i] == 0xf3 ||
			       code[i] == 0x2e || code[i] == 0x3e || (code[i] & 0xf0) == 0x40))
		i++;
	if (code[i] == 0xc3 || code[i] == 0xc2 ||
	    (code[i] == 0xff && i + 1 < len && ((code[i + 1] >> 3) & 7) >= 2 &&
	     ((code[i + 1] >> 3) & 7) <= 5))
		return TY_INSN_AWAY; /* a return, an indirect call or jump */
	if (branch_rel(code, len, &rel)) {
		if (code[i] == 0xe8)
			return TY_INSN_AWAY; /* a call: in the callee */
		if ((code[i] == 0xe9 || code[i] == 0xeb) && (rel < 0 || (uint64_t)rel >= size))
			return size ? TY_INSN_AWAY : TY_INSN_BRANCH; /* a jump out, or not known */
		return TY_INSN_BRANCH;
	}
	if (!size)
		return len;
	len2 = (size_t)len < have ? ty_insn_len(code + len, have - (size_t)len) : -1;
	*next = len2 > 0 && (size_t)(len + len2) < size ? len + len2 : 0;
	for (off = 0; off < end; off += (size_t)at) { /* its own branches: where to? */
		if ((at = ty_insn_len(code + off, end - off)) <= 0) {
			*next = 0; /* not all decoded */
			break;
		}
		if (branch_rel(code + off, (int)at, &rel) && (int64_t)off + rel == len) {
			*next = 0;
			return TY_INSN_BRANCH;
		}
		if (branch_rel(code + off, (int)at, &rel) && (int64_t)off + rel == *next)
			*next = 0;
	}
	return len;
}
