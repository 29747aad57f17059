/* cfi-parse.h - the call-frame information's entries and CFA programs,
 * read into rows (lib/cfi.c builds its tables with it; the walk of
 * lib/unwind.c reads the rows).
 *
 * .eh_frame and .debug_frame hold CIEs and FDEs; an FDE's CFA program,
 * run from its CIE's initial instructions, gives the rows of struct
 * ty_cfi_row for its range of code. Every read is
 * bounded by the section: a damaged entry gives no rows, never a read
 * outside it. */
#ifndef TACHY_CFI_PARSE_H
#define TACHY_CFI_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* The rules of one row. */
enum ty_cfi_cfa {
	TY_CFA_NONE = 0, /* no CFI covers this pc */
	TY_CFA_REG,	 /* CFA = reg + off */
	TY_CFA_DEREF,	 /* CFA = *(reg + off) */
	TY_CFA_PLT,	 /* CFA = rsp + off + ((rip & 15) >= arg ? 8 : 0): a PLT entry */
};
enum ty_cfi_rule {
	TY_RULE_SAME = 0, /* unchanged (the callee saved it nowhere, or kept it) */
	TY_RULE_UNDEF,	  /* undefined: for the return address, the end of the chain */
	TY_RULE_OFFSET,	  /* saved at CFA + off */
	TY_RULE_VAL,	  /* its value is CFA + off */
	TY_RULE_AT_SP,	  /* saved at rsp + off (signal frames: DW_OP_breg7) */
	TY_RULE_UNKNOWN,  /* an expression we do not follow: the value is lost */
	TY_RULE_REG, /* its value is in DWARF register off (vfork: the return address in rdi) */
};
/* Rule slots: RBX RBP R12 R13 R14 R15 and the return address. */
enum {
	TY_CFI_RBX,
	TY_CFI_RBP,
	TY_CFI_R12,
	TY_CFI_R13,
	TY_CFI_R14,
	TY_CFI_R15,
	TY_CFI_RA,
	TY_CFI_NRULES
};

struct ty_cfi_row {
	uint64_t pc; /* link-time address where the row starts */
	int32_t cfa_off;
	uint8_t cfa_kind, cfa_reg; /* enum ty_cfi_cfa, DWARF register */
	uint8_t signal;		   /* the FDE is a signal frame ('S') */
	uint8_t plt_arg;
	int32_t off[TY_CFI_NRULES];
	uint8_t kind[TY_CFI_NRULES];
};

/* A bounded reader over a section: P moves toward END; BAD once a read
 * would pass it (later reads give 0). */
struct ty_cfi_rd {
	const unsigned char *p, *end, *base; /* base: where the section starts */
	uint64_t vbase;			     /* its link-time address */
	int bad;
};

/* N little-endian bytes at R's position (0 and BAD set past the end). */
uint64_t ty_cfi_rd_u(struct ty_cfi_rd *r, size_t n);

/* A pointer in the DW_EH_PE encoding ENC; *OK cleared for encodings we do
 * not follow (indirect, textrel, funcrel, aligned). */
uint64_t ty_cfi_rd_ptr(struct ty_cfi_rd *r, uint8_t enc, int *ok);

/* A parsed CIE. */
struct ty_cfi_cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;
	int has_z, signal;
	const unsigned char *insns, *insns_end;
	int addr_size; /* .debug_frame: bytes of an address */
};

/* An FDE's range of code, [start, end). */
struct ty_cfi_range {
	uint64_t start, end;
};

/* Rows as they are made; with KEEP_RANGES, the FDEs' ranges too. */
struct ty_cfi_rows {
	struct ty_cfi_row *rows;
	size_t nrows, cap;
	struct ty_cfi_range *ranges;
	size_t nranges, capranges;
	int keep_ranges;
};

/* The entry (CIE or FDE) at P of section SEC (.debug_frame when DEBUG):
 * its end in *NEXT (NULL at the terminator or where the section is
 * damaged). An FDE's rows go to T. *LAST_CIE and *CIE cache the last CIE
 * parsed (*CIE_OK says if it was usable). Returns 0 or -ENOMEM. */
int ty_cfi_parse_entry(struct ty_cfi_rows *t, const struct ty_cfi_rd *sec, int debug,
		       const unsigned char *p, const unsigned char **next,
		       const unsigned char **last_cie, struct ty_cfi_cie *cie, int *cie_ok);

/* Every FDE of the section SEC. Returns 0 or -ENOMEM. */
int ty_cfi_parse_frames(struct ty_cfi_rows *t, const struct ty_cfi_rd *sec, int debug);

/* Sort T's rows, and of several at one pc keep the last (a start over an
 * end); drop ends followed by nothing new. */
void ty_cfi_parse_finish(struct ty_cfi_rows *t);

/* qsort order of struct ty_cfi_range: by start, then end. */
int ty_cfi_parse_range_cmp(const void *a, const void *b);

#endif
