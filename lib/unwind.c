/* unwind.c - unwind tables from .eh_frame / .debug_frame and the walk of a
 * sampled user stack (x86-64). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/unwind.h"

/* DWARF register numbers (x86-64 psABI). */
#define DW_RSP 7
#define DW_RBP 6
#define DW_RA 16
#define DW_NREGS 17

/* --- reading ------------------------------------------------------------ */

struct rd {
	const unsigned char *p, *end, *base; /* base: where the section starts */
	uint64_t vbase;			     /* its link-time address */
	int bad;
};

static uint64_t
rd_u(struct rd *r, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t
rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (!r->bad) {
		unsigned char b;
		if (r->p >= r->end) {
			r->bad = 1;
			break;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t
rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	unsigned char b = 0;

	while (!r->bad) {
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~0ull << shift;
	return (int64_t)v;
}

/* A pointer in DW_EH_PE encoding ENC; 0 when omitted or not understood
 * (*OK cleared). */
static uint64_t
rd_ptr(struct rd *r, uint8_t enc, int *ok)
{
	uint64_t here = r->vbase + (uint64_t)(r->p - r->base), v;

	if (enc == 0xff)
		return 0;
	switch (enc & 0x0f) {
	case 0x00:
		v = rd_u(r, 8);
		break;
	case 0x01:
		v = rd_uleb(r);
		break;
	case 0x02:
		v = rd_u(r, 2);
		break;
	case 0x03:
		v = rd_u(r, 4);
		break;
	case 0x04:
		v = rd_u(r, 8);
		break;
	case 0x09:
		v = (uint64_t)rd_sleb(r);
		break;
	case 0x0a:
		v = (uint64_t)(int64_t)(int16_t)rd_u(r, 2);
		break;
	case 0x0b:
		v = (uint64_t)(int64_t)(int32_t)rd_u(r, 4);
		break;
	case 0x0c:
		v = rd_u(r, 8);
		break;
	default:
		*ok = 0;
		return 0;
	}
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10:
		v += here;
		break;
	default: /* textrel, datarel, funcrel: not used in .eh_frame FDEs */
		*ok = 0;
		return 0;
	}
	if (enc & 0x80) /* indirect: we read no data sections */
		*ok = 0;
	return v;
}

/* --- the table ------------------------------------------------------------ */

struct seg {
	uint64_t off, vaddr, filesz;
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;
	int has_z, signal;
	const unsigned char *insns, *insns_end;
	int addr_size; /* .debug_frame: bytes of an address */
};

struct fde_range {
	uint64_t start, end;
};

/* Lazy tables (a file's, kept mapped): the rows of an FDE are made the
 * first time a pc falls in it, found through .eh_frame_hdr's sorted table.
 * cc1's 480,000 rows took 0.2 s to make eagerly, in the middle of a drain. */
struct lazy_fde {
	struct ty_unwind_row *rows;
	uint32_t n;
	int done;
};

struct ty_unwind_table {
	struct ty_unwind_row *rows;
	size_t nrows, cap;
	struct seg *segs;
	size_t nsegs;
	uint64_t entry;		    /* e_entry: the outermost frame of a program or ld.so */
	unsigned char build_id[64]; /* NT_GNU_BUILD_ID, build_id_len bytes (0: none) */
	size_t build_id_len;
	/* lazy */
	void *map;
	size_t maplen;
	struct rd eh;		  /* .eh_frame */
	const unsigned char *tab; /* .eh_frame_hdr's (initial_loc, fde) pairs, sdata4 datarel */
	size_t nfde;
	uint64_t hdr_vaddr;
	struct lazy_fde *fdes;
	const unsigned char *last_cie;
	struct cie cie;
	int cie_ok;
	/* eager: the FDEs' ranges, sorted by start (ty_unwind_table_fde) */
	struct fde_range *ranges;
	size_t nranges, capranges;
	int keep_ranges;
};

/* The state of the CFA program. */
struct state {
	uint8_t cfa_kind, cfa_reg, plt_arg;
	int64_t cfa_off;
	uint8_t kind[TY_UW_NRULES];
	int64_t off[TY_UW_NRULES];
};

static int
slot_of(uint64_t reg, uint64_t ra_reg)
{
	if (reg == ra_reg)
		return TY_UW_RA;
	switch (reg) {
	case 3:
		return TY_UW_RBX;
	case 6:
		return TY_UW_RBP;
	case 12:
	case 13:
	case 14:
	case 15:
		return TY_UW_R12 + (int)(reg - 12);
	default:
		return -1;
	}
}

static int
fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static int
emit(struct ty_unwind_table *t, const struct state *st, uint64_t pc, int signal)
{
	struct ty_unwind_row *row;
	int i;

	if (t->nrows && t->rows[t->nrows - 1].pc == pc && t->rows[t->nrows - 1].cfa_kind &&
	    st->cfa_kind) {
		row = &t->rows[t->nrows - 1]; /* a later row at the same pc wins */
	} else {
		if (ty_array_grow(&t->rows, sizeof(*t->rows), t->nrows + 1, &t->cap) < 0)
			return -ENOMEM;
		row = &t->rows[t->nrows++];
	}
	memset(row, 0, sizeof(*row));
	row->pc = pc;
	row->cfa_kind = st->cfa_kind;
	row->cfa_reg = st->cfa_reg;
	row->plt_arg = st->plt_arg;
	row->signal = (uint8_t)signal;
	if (!fits32(st->cfa_off))
		row->cfa_kind = TY_CFA_NONE;
	row->cfa_off = (int32_t)st->cfa_off;
	for (i = 0; i < TY_UW_NRULES; i++) {
		row->kind[i] = st->kind[i];
		row->off[i] = fits32(st->off[i]) ? (int32_t)st->off[i] : 0;
		if (!fits32(st->off[i]))
			row->kind[i] = TY_RULE_UNKNOWN;
	}
	return 0;
}

/* A DW_CFA_def_cfa_expression: DW_OP_bregN off; DW_OP_deref (a realigned
 * stack, a signal frame), or the PLT expression
 *   DW_OP_breg7 off; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_litK;
 *   DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus.
 * Anything else: no CFA rule here. */
static void
cfa_expr(struct state *st, const unsigned char *p, size_t n)
{
	struct rd r = {p, p + n, p, 0, 0};
	uint8_t op = (uint8_t)rd_u(&r, 1);
	int64_t off;
	uint8_t reg;

	st->cfa_kind = TY_CFA_NONE;
	if (op < 0x70 || op > 0x80) /* DW_OP_breg0..16 */
		return;
	reg = (uint8_t)(op - 0x70);
	off = rd_sleb(&r);
	if (r.bad)
		return;
	if (r.p + 1 == r.end && *r.p == 0x06) { /* DW_OP_deref */
		st->cfa_kind = TY_CFA_DEREF;
		st->cfa_reg = reg;
		st->cfa_off = off;
		return;
	}
	if (reg == DW_RSP && r.end - r.p == 9 && r.p[0] == 0x80 && r.p[1] == 0 && r.p[2] == 0x3f &&
	    r.p[3] == 0x1a && r.p[4] >= 0x30 && r.p[4] <= 0x4f && r.p[5] == 0x2a &&
	    r.p[6] == 0x33 && r.p[7] == 0x24 && r.p[8] == 0x22) {
		st->cfa_kind = TY_CFA_PLT;
		st->cfa_reg = DW_RSP;
		st->cfa_off = off;
		st->plt_arg = (uint8_t)(r.p[4] - 0x30);
		return;
	}
}

/* A DW_CFA_expression for register slot I: DW_OP_breg7 off gives the
 * address it is saved at, relative to rsp (signal frames). */
static void
reg_expr(struct state *st, int i, const unsigned char *p, size_t n)
{
	struct rd r = {p, p + n, p, 0, 0};
	int64_t off;

	st->kind[i] = TY_RULE_UNKNOWN;
	if (rd_u(&r, 1) != 0x70 + DW_RSP)
		return;
	off = rd_sleb(&r);
	if (!r.bad && r.p == r.end) {
		st->kind[i] = TY_RULE_AT_SP;
		st->off[i] = off;
	}
}

#define STACK_DEPTH 16

/* Register REG's rule becomes KIND with offset OFF (a register we do not
 * track is ignored). */
static void
set_rule(struct state *st, const struct cie *c, uint64_t reg, uint8_t kind, int64_t off)
{
	int i = slot_of(reg, c->ra_reg);

	if (i >= 0)
		st->kind[i] = kind, st->off[i] = off;
}

/* Register REG's rule goes back to the CIE's initial one (none without it). */
static void
restore_rule(struct state *st, const struct cie *c, uint64_t reg, const struct state *init)
{
	int i = slot_of(reg, c->ra_reg);

	if (i >= 0 && init)
		st->kind[i] = init->kind[i], st->off[i] = init->off[i];
}

/* A factored offset, V times the CIE's data alignment, as a wrapping product:
 * a damaged table gives a wrong offset (which the unwinder's bounded reads
 * refuse), never an overflow. */
static int64_t
factored(uint64_t v, int64_t align)
{
	return (int64_t)(v * (uint64_t)align);
}

/* Run the CFA instructions [P, END) from location *LOC, emitting a row at
 * each advance (FDE programs; INIT is the state after the CIE's). A CIE
 * program (T NULL) only sets ST. Returns 0, or -ENOMEM. Bad or unknown
 * instructions end the program. */
static int
run_cfa(struct ty_unwind_table *t, const struct cie *c, const struct state *init, struct state *st,
	const unsigned char *p, const unsigned char *end, uint64_t *loc, uint64_t limit,
	int addr_size)
{
	struct state saved[STACK_DEPTH];
	int depth = 0, i;
	struct rd r = {p, end, p, 0, 0};

	while (r.p < r.end && !r.bad) {
		uint8_t op = (uint8_t)rd_u(&r, 1), hi = op & 0xc0, lo = op & 0x3f;
		uint64_t reg = 0, adv = 0;
		int has_adv = 0;

		if (hi == 0x40) {
			adv = lo * c->code_align, has_adv = 1;
		} else if (hi == 0x80) {
			set_rule(st, c, lo, TY_RULE_OFFSET, factored(rd_uleb(&r), c->data_align));
		} else if (hi == 0xc0) {
			restore_rule(st, c, lo, init);
		} else {
			switch (op) {
			case 0x00: /* nop */
				break;
			case 0x01: /* set_loc */
			{
				int ok = 1;
				uint64_t v;
				if (addr_size)
					v = rd_u(&r, (size_t)addr_size);
				else
					v = rd_ptr(&r, c->fde_enc, &ok);
				if (!ok || v < *loc)
					return 0;
				adv = v - *loc, has_adv = 1;
				break;
			}
			case 0x02:
				adv = rd_u(&r, 1) * c->code_align, has_adv = 1;
				break;
			case 0x03:
				adv = rd_u(&r, 2) * c->code_align, has_adv = 1;
				break;
			case 0x04:
				adv = rd_u(&r, 4) * c->code_align, has_adv = 1;
				break;
			case 0x05: /* offset_extended */
				reg = rd_uleb(&r);
				set_rule(st, c, reg, TY_RULE_OFFSET,
					 factored(rd_uleb(&r), c->data_align));
				break;
			case 0x06: /* restore_extended */
				reg = rd_uleb(&r);
				restore_rule(st, c, reg, init);
				break;
			case 0x07: /* undefined */
				if ((i = slot_of(rd_uleb(&r), c->ra_reg)) >= 0)
					st->kind[i] = TY_RULE_UNDEF;
				break;
			case 0x08: /* same_value */
				if ((i = slot_of(rd_uleb(&r), c->ra_reg)) >= 0)
					st->kind[i] = TY_RULE_SAME;
				break;
			case 0x09: /* register */
				reg = rd_uleb(&r);
				rd_uleb(&r);
				if ((i = slot_of(reg, c->ra_reg)) >= 0)
					st->kind[i] = TY_RULE_UNKNOWN;
				break;
			case 0x0a: /* remember_state */
				if (depth == STACK_DEPTH)
					return 0;
				saved[depth++] = *st;
				break;
			case 0x0b: /* restore_state: the CFA too, as GCC and LLVM expect */
				if (depth == 0)
					return 0;
				*st = saved[--depth];
				break;
			case 0x0c: /* def_cfa */
				st->cfa_reg = (uint8_t)rd_uleb(&r);
				st->cfa_off = (int64_t)rd_uleb(&r);
				st->cfa_kind = st->cfa_reg < DW_NREGS ? TY_CFA_REG : TY_CFA_NONE;
				break;
			case 0x0d: /* def_cfa_register */
				st->cfa_reg = (uint8_t)rd_uleb(&r);
				if (st->cfa_kind != TY_CFA_REG && st->cfa_kind != TY_CFA_NONE)
					st->cfa_off = 0;
				st->cfa_kind = st->cfa_reg < DW_NREGS ? TY_CFA_REG : TY_CFA_NONE;
				break;
			case 0x0e: /* def_cfa_offset */
				st->cfa_off = (int64_t)rd_uleb(&r);
				break;
			case 0x0f: /* def_cfa_expression */
			{
				uint64_t n = rd_uleb(&r);
				if (r.bad || n > (uint64_t)(r.end - r.p))
					return 0;
				cfa_expr(st, r.p, (size_t)n);
				r.p += n;
				break;
			}
			case 0x10: /* expression */
			case 0x16: /* val_expression */
			{
				uint64_t n;
				reg = rd_uleb(&r);
				n = rd_uleb(&r);
				if (r.bad || n > (uint64_t)(r.end - r.p))
					return 0;
				if ((i = slot_of(reg, c->ra_reg)) >= 0) {
					if (op == 0x10)
						reg_expr(st, i, r.p, (size_t)n);
					else
						st->kind[i] = TY_RULE_UNKNOWN;
				}
				r.p += n;
				break;
			}
			case 0x11: /* offset_extended_sf */
				reg = rd_uleb(&r);
				set_rule(st, c, reg, TY_RULE_OFFSET,
					 factored((uint64_t)rd_sleb(&r), c->data_align));
				break;
			case 0x12: /* def_cfa_sf */
				st->cfa_reg = (uint8_t)rd_uleb(&r);
				st->cfa_off = factored((uint64_t)rd_sleb(&r), c->data_align);
				st->cfa_kind = st->cfa_reg < DW_NREGS ? TY_CFA_REG : TY_CFA_NONE;
				break;
			case 0x13: /* def_cfa_offset_sf */
				st->cfa_off = factored((uint64_t)rd_sleb(&r), c->data_align);
				break;
			case 0x14: /* val_offset */
				reg = rd_uleb(&r);
				set_rule(st, c, reg, TY_RULE_VAL,
					 factored(rd_uleb(&r), c->data_align));
				break;
			case 0x15: /* val_offset_sf */
				reg = rd_uleb(&r);
				set_rule(st, c, reg, TY_RULE_VAL,
					 factored((uint64_t)rd_sleb(&r), c->data_align));
				break;
			case 0x2e: /* GNU_args_size */
				rd_uleb(&r);
				break;
			case 0x2f: /* GNU_negative_offset_extended */
				reg = rd_uleb(&r);
				set_rule(st, c, reg, TY_RULE_OFFSET,
					 factored(0 - rd_uleb(&r), c->data_align));
				break;
			default:
				return 0; /* unknown: what follows cannot be trusted */
			}
		}
		if (has_adv && t) {
			if (adv && *loc < limit && emit(t, st, *loc, c->signal) < 0)
				return -ENOMEM;
			if (adv > limit - *loc)
				return 0;
			*loc += adv;
		}
	}
	return 0;
}

/* Parse the CIE at P (its length field) in the section R describes. */
static int
parse_cie(const struct rd *sec, const unsigned char *p, int debug, struct cie *c)
{
	struct rd r = *sec;
	uint64_t len, id;
	const unsigned char *end;
	const char *aug;
	int version, is64 = 0;

	memset(c, 0, sizeof(*c));
	r.p = p;
	len = rd_u(&r, 4);
	if (len == 0xffffffffu)
		len = rd_u(&r, 8), is64 = 1;
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return -1;
	end = r.p + len;
	r.end = end;
	id = rd_u(&r, debug && is64 ? 8 : 4);
	if (r.bad || (debug ? id != (is64 ? ~0ull : 0xffffffffu) : id != 0))
		return -1;
	version = (int)rd_u(&r, 1);
	if (version != 1 && version != 3 && version != 4)
		return -1;
	aug = (const char *)r.p;
	while (r.p < r.end && *r.p)
		r.p++;
	if (r.p >= r.end)
		return -1;
	r.p++;
	if (version == 4) {
		c->addr_size = (int)rd_u(&r, 1);
		rd_u(&r, 1); /* segment size */
	} else if (debug) {
		c->addr_size = 8;
	}
	if (debug && c->addr_size != 8 && c->addr_size != 4)
		return -1;
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	c->ra_reg = version == 1 ? rd_u(&r, 1) : rd_uleb(&r);
	c->fde_enc = 0; /* absptr */
	if (aug[0] == 'z') {
		uint64_t alen = rd_uleb(&r);
		const unsigned char *aend = r.p + alen;
		const char *a;
		int ok = 1;
		if (r.bad || alen > (uint64_t)(r.end - r.p))
			return -1;
		c->has_z = 1;
		for (a = aug + 1; *a && ok; a++) {
			if (*a == 'R')
				c->fde_enc = (uint8_t)rd_u(&r, 1);
			else if (*a == 'L')
				rd_u(&r, 1);
			else if (*a == 'P') {
				uint8_t enc = (uint8_t)rd_u(&r, 1);
				rd_ptr(&r, enc & 0x7f, &ok);
			} else if (*a == 'S')
				c->signal = 1;
			else if (*a != 'B' && *a != 'G')
				break; /* unknown: the length lets us skip the data */
		}
		r.p = aend;
	} else if (aug[0] != '\0') {
		return -1; /* "eh" and others: not worth the trouble today */
	}
	if (r.bad || r.p > end || c->code_align == 0)
		return -1;
	c->insns = r.p;
	c->insns_end = end;
	return 0;
}

static void
init_state(struct state *st)
{
	memset(st, 0, sizeof(*st));
	/* Callee-saved registers keep their values unless a rule says where
	 * they went; the return address has no rule until the CIE gives one. */
	st->kind[TY_UW_RA] = TY_RULE_UNDEF;
}

/* The entry (CIE or FDE) at P of section SEC: its end in *NEXT (NULL at
 * the terminator or where the section is damaged). An FDE's rows go to T.
 * *LAST_CIE and *CIE cache the last CIE parsed (*CIE_OK says if it was
 * usable). Returns 0 or -ENOMEM. */
static int
parse_entry(struct ty_unwind_table *t, const struct rd *sec, int debug, const unsigned char *p,
	    const unsigned char **next, const unsigned char **last_cie, struct cie *cie,
	    int *cie_ok)
{
	struct rd r = *sec;
	uint64_t len, cie_ptr, pc, range, loc;
	const unsigned char *end, *cie_at, *idp;
	struct state init, st;
	int ok = 1, ret, is64 = 0;

	*next = NULL;
	if (p < sec->base || p + 4 > sec->end)
		return 0;
	r.p = p;
	len = rd_u(&r, 4);
	if (len == 0) {
		if (debug)
			*next = r.p;
		return 0; /* the terminator of .eh_frame */
	}
	if (len == 0xffffffffu)
		len = rd_u(&r, 8), is64 = 1;
	if (r.bad || len > (uint64_t)(sec->end - r.p) || len < 4)
		return 0;
	end = r.p + len;
	*next = end;
	r.end = end;
	idp = r.p;
	cie_ptr = rd_u(&r, debug && is64 ? 8 : 4);
	if (debug ? cie_ptr == (is64 ? ~0ull : 0xffffffffu) : cie_ptr == 0)
		return 0; /* a CIE: read when an FDE points at it */
	if (debug && cie_ptr >= (uint64_t)(sec->end - sec->base))
		return 0;
	if (!debug && cie_ptr > (uint64_t)(idp - sec->base))
		return 0;
	cie_at = debug ? sec->base + cie_ptr : idp - cie_ptr;
	if (cie_at != *last_cie) {
		*cie_ok = parse_cie(sec, cie_at, debug, cie) == 0;
		*last_cie = cie_at;
	}
	if (!*cie_ok)
		return 0;
	if (debug) {
		pc = rd_u(&r, (size_t)cie->addr_size);
		range = rd_u(&r, (size_t)cie->addr_size);
	} else {
		pc = rd_ptr(&r, cie->fde_enc, &ok);
		range = rd_ptr(&r, cie->fde_enc & 0x0f, &ok);
	}
	if (cie->has_z) {
		uint64_t alen = rd_uleb(&r);
		if (alen > (uint64_t)(r.end - r.p))
			r.bad = 1;
		else
			r.p += alen;
	}
	if (r.bad || !ok || range == 0 || pc + range < pc || pc == 0)
		return 0;
	if (t && t->keep_ranges) {
		if (ty_array_grow(&t->ranges, sizeof(*t->ranges), t->nranges + 1, &t->capranges) <
		    0)
			return -ENOMEM;
		t->ranges[t->nranges++] = (struct fde_range){pc, pc + range};
	}
	init_state(&init);
	loc = pc;
	if ((ret = run_cfa(NULL, cie, NULL, &init, cie->insns, cie->insns_end, &loc, pc + range,
			   debug ? cie->addr_size : 0)) < 0)
		return ret;
	st = init;
	loc = pc;
	if ((ret = run_cfa(t, cie, &init, &st, r.p, end, &loc, pc + range,
			   debug ? cie->addr_size : 0)) < 0)
		return ret;
	if (loc < pc + range && emit(t, &st, loc, cie->signal) < 0)
		return -ENOMEM;
	/* Where the FDE ends, no CFI (unless another FDE starts there). */
	init_state(&st);
	return emit(t, &st, pc + range, 0) < 0 ? -ENOMEM : 0;
}

/* Every FDE of the section SEC (.eh_frame, or .debug_frame when DEBUG). */
static int
parse_frames(struct ty_unwind_table *t, const struct rd *sec, int debug)
{
	const unsigned char *p = sec->base, *last_cie = NULL;
	struct cie cie;
	int cie_ok = 0, ret;

	while (p) {
		if ((ret = parse_entry(t, sec, debug, p, &p, &last_cie, &cie, &cie_ok)) < 0)
			return ret;
	}
	return 0;
}

static int
row_cmp(const void *a, const void *b)
{
	const struct ty_unwind_row *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	/* At the same pc an FDE's first row wins over another's end. */
	return (x->cfa_kind != 0) - (y->cfa_kind != 0);
}

/* Sort the rows, and of several at one pc keep the last (a start over an
 * end); drop ends followed by nothing new. */
static void
finish_rows(struct ty_unwind_table *t)
{
	size_t i, n = 0;

	if (!t->nrows)
		return;
	qsort(t->rows, t->nrows, sizeof(*t->rows), row_cmp);
	for (i = 0; i < t->nrows; i++) {
		if (n && t->rows[n - 1].pc == t->rows[i].pc) {
			t->rows[n - 1] = t->rows[i];
			continue;
		}
		if (n && !t->rows[i].cfa_kind && !t->rows[n - 1].cfa_kind)
			continue; /* an end after an end */
		t->rows[n++] = t->rows[i];
	}
	t->nrows = n;
}

static int
range_cmp(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

struct elf_view {
	const unsigned char *img;
	size_t len;
};

static const void *
at(const struct elf_view *v, uint64_t off, uint64_t size)
{
	if (off > v->len || size > v->len - off)
		return NULL;
	return v->img + off;
}

/* The section named NAME: its contents and link-time address. */
static int
find_section(const struct elf_view *v, const Elf64_Ehdr *eh, const char *name, struct rd *out)
{
	const Elf64_Shdr *sh, *strs;
	const char *names;
	unsigned i;

	if (!eh->e_shoff || (eh->e_shoff & 7) || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return -1;
	sh = at(v, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh));
	if (!sh)
		return -1;
	strs = &sh[eh->e_shstrndx];
	names = at(v, strs->sh_offset, strs->sh_size);
	if (!names || !strs->sh_size)
		return -1;
	for (i = 0; i < eh->e_shnum; i++) {
		const unsigned char *p;
		if (sh[i].sh_name >= strs->sh_size || sh[i].sh_type == SHT_NOBITS)
			continue;
		if (strncmp(names + sh[i].sh_name, name, strs->sh_size - sh[i].sh_name) != 0)
			continue;
		if (!(p = at(v, sh[i].sh_offset, sh[i].sh_size)))
			return -1;
		*out = (struct rd){p, p + sh[i].sh_size, p, sh[i].sh_addr, 0};
		return 0;
	}
	return -1;
}

static const unsigned char *
vaddr_ptr(const struct ty_unwind_table *t, const struct elf_view *v, uint64_t va, uint64_t *left)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++) {
		const struct seg *s = &t->segs[i];
		if (va >= s->vaddr && va - s->vaddr < s->filesz) {
			uint64_t off = s->off + (va - s->vaddr);
			if (off >= v->len)
				return NULL;
			*left = s->filesz - (va - s->vaddr);
			if (*left > v->len - off)
				*left = v->len - off;
			return v->img + off;
		}
	}
	return NULL;
}

/* No section headers: PT_GNU_EH_FRAME gives .eh_frame_hdr, whose
 * eh_frame_ptr gives .eh_frame (to the end of its segment). */
static int
eh_frame_from_phdr(const struct ty_unwind_table *t, const struct elf_view *v, const Elf64_Phdr *ph,
		   unsigned n, struct rd *out)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		const unsigned char *p;
		uint64_t left;
		struct rd r;
		int ok = 1;
		uint64_t ef;
		if (ph[i].p_type != PT_GNU_EH_FRAME)
			continue;
		if (!(p = at(v, ph[i].p_offset, ph[i].p_filesz)) || ph[i].p_filesz < 4)
			return -1;
		r = (struct rd){p, p + ph[i].p_filesz, p, ph[i].p_vaddr, 0};
		if (rd_u(&r, 1) != 1)
			return -1;
		{
			uint8_t enc = (uint8_t)rd_u(&r, 1);
			rd_u(&r, 2);
			ef = rd_ptr(&r, enc, &ok);
		}
		if (!ok || r.bad || !(p = vaddr_ptr(t, v, ef, &left)))
			return -1;
		*out = (struct rd){p, p + left, p, ef, 0};
		return 0;
	}
	return -1;
}

/* .eh_frame_hdr with a table we can search (sdata4, datarel): set up T
 * to make rows lazily. Returns 0, or -1 to build eagerly. */
static int
setup_lazy(struct ty_unwind_table *t, const struct elf_view *v, const Elf64_Ehdr *eh,
	   const Elf64_Phdr *ph)
{
	struct rd hdr, r;
	uint64_t ef, n;
	uint8_t efenc, cntenc, tabenc;
	int ok = 1;
	unsigned i;

	if (find_section(v, eh, ".eh_frame_hdr", &hdr) < 0) {
		const unsigned char *p = NULL;
		for (i = 0; ph && i < eh->e_phnum; i++)
			if (ph[i].p_type == PT_GNU_EH_FRAME &&
			    (p = at(v, ph[i].p_offset, ph[i].p_filesz)))
				break;
		if (!p)
			return -1;
		hdr = (struct rd){p, p + ph[i].p_filesz, p, ph[i].p_vaddr, 0};
	}
	r = hdr;
	if (rd_u(&r, 1) != 1)
		return -1;
	efenc = (uint8_t)rd_u(&r, 1);
	cntenc = (uint8_t)rd_u(&r, 1);
	tabenc = (uint8_t)rd_u(&r, 1);
	ef = rd_ptr(&r, efenc, &ok);
	n = rd_ptr(&r, cntenc, &ok);
	if (r.bad || !ok || tabenc != 0x3b || n == 0 || n > (uint64_t)(r.end - r.p) / 8)
		return -1;
	if (find_section(v, eh, ".eh_frame", &t->eh) < 0) {
		uint64_t left;
		const unsigned char *p = vaddr_ptr(t, v, ef, &left);
		if (!p)
			return -1;
		t->eh = (struct rd){p, p + left, p, ef, 0};
	}
	if (!(t->fdes = calloc((size_t)n, sizeof(*t->fdes))))
		return -1;
	t->tab = r.p;
	t->nfde = (size_t)n;
	t->hdr_vaddr = hdr.vbase;
	return 0;
}

/* The GNU build-id among the notes of the segment PH, if any. */
static void
read_build_id(struct ty_unwind_table *t, const struct elf_view *v, const Elf64_Phdr *ph)
{
	const unsigned char *p = at(v, ph->p_offset, ph->p_filesz), *end;

	if (!p || t->build_id_len)
		return;
	end = p + ph->p_filesz;
	while ((size_t)(end - p) >= 12) {
		uint32_t nsz, dsz, type;
		uint64_t nlen, dlen;
		memcpy(&nsz, p, 4);
		memcpy(&dsz, p + 4, 4);
		memcpy(&type, p + 8, 4);
		nlen = ((uint64_t)nsz + 3) & ~3ull;
		dlen = ((uint64_t)dsz + 3) & ~3ull;
		if (nlen > (uint64_t)(end - p) - 12 || dlen > (uint64_t)(end - p) - 12 - nlen)
			return;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(p + 12, "GNU", 4) == 0 &&
		    dsz > 0 && dsz <= sizeof(t->build_id)) {
			memcpy(t->build_id, p + 12 + nlen, dsz);
			t->build_id_len = dsz;
			return;
		}
		p += 12 + nlen + dlen;
	}
}

static int
build(const void *image, size_t len, int lazy, struct ty_unwind_table **out, struct ty_error *e)
{
	struct elf_view v = {image, len};
	const Elf64_Ehdr *eh = at(&v, 0, sizeof(Elf64_Ehdr));
	const Elf64_Phdr *ph = NULL;
	struct ty_unwind_table *t;
	struct rd sec;
	unsigned i;
	int ret = 0;

	*out = NULL;
	if (((uintptr_t)image & 7) != 0)
		return ty_error_set(e, -EINVAL, "the ELF image is not aligned in memory");
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return ty_error_set(e, -EINVAL, "not a 64-bit little-endian ELF image");
	if (!(t = calloc(1, sizeof(*t))))
		return ty_error_set(e, -ENOMEM, "out of memory");
	t->entry = eh->e_entry;
	if (eh->e_phoff && !(eh->e_phoff & 7) && eh->e_phentsize == sizeof(Elf64_Phdr))
		ph = at(&v, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr));
	for (i = 0; ph && i < eh->e_phnum; i++) {
		size_t cap = t->nsegs;
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ty_array_grow(&t->segs, sizeof(*t->segs), t->nsegs + 1, &cap) < 0) {
			ret = -ENOMEM;
			goto fail;
		}
		t->segs[t->nsegs++] = (struct seg){ph[i].p_offset, ph[i].p_vaddr, ph[i].p_filesz};
	}
	for (i = 0; ph && i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_NOTE)
			read_build_id(t, &v, &ph[i]);
	if (lazy && setup_lazy(t, &v, eh, ph) == 0) {
		*out = t;
		return 0;
	}
	t->keep_ranges = 1;
	if (find_section(&v, eh, ".eh_frame", &sec) == 0 ||
	    (ph && eh_frame_from_phdr(t, &v, ph, eh->e_phnum, &sec) == 0))
		ret = parse_frames(t, &sec, 0);
	if (ret == 0 && !t->nrows && find_section(&v, eh, ".debug_frame", &sec) == 0)
		ret = parse_frames(t, &sec, 1);
	if (ret < 0)
		goto fail;
	finish_rows(t);
	if (t->nranges)
		qsort(t->ranges, t->nranges, sizeof(*t->ranges), range_cmp);
	*out = t;
	return 0;
fail:
	ty_unwind_table_free(t);
	return ty_error_set(e, ret, "out of memory");
}

int
ty_unwind_table_build(const void *image, size_t len, struct ty_unwind_table **out,
		      struct ty_error *e)
{
	return build(image, len, 0, out, e);
}

int
ty_unwind_table_open(const void *image, size_t len, struct ty_unwind_table **out,
		     struct ty_error *e)
{
	return build(image, len, 1, out, e);
}

static const struct ty_unwind_row *
find_row(const struct ty_unwind_row *rows, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || !rows[lo - 1].cfa_kind)
		return NULL;
	return &rows[lo - 1];
}

static int32_t
tab_at(const struct ty_unwind_table *t, size_t i, int k)
{
	int32_t v;

	memcpy(&v, t->tab + 8 * i + 4 * (size_t)k, 4);
	return v;
}

/* Lazy: the FDE whose range may hold PC, its rows made on first use;
 * NULL when none starts at or below PC. */
static struct lazy_fde *
lazy_fde(struct ty_unwind_table *t, uint64_t pc, size_t *index)
{
	size_t lo = 0, hi = t->nfde, i;
	struct lazy_fde *f;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->hdr_vaddr + (uint64_t)(int64_t)tab_at(t, mid, 0) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	i = lo - 1;
	f = &t->fdes[i];
	if (!f->done) {
		struct ty_unwind_table tmp;
		uint64_t va = t->hdr_vaddr + (uint64_t)(int64_t)tab_at(t, i, 1);
		const unsigned char *next;
		memset(&tmp, 0, sizeof(tmp));
		f->done = 1;
		if (va >= t->eh.vbase && va - t->eh.vbase < (uint64_t)(t->eh.end - t->eh.base) &&
		    parse_entry(&tmp, &t->eh, 0, t->eh.base + (va - t->eh.vbase), &next,
				&t->last_cie, &t->cie, &t->cie_ok) == 0) {
			finish_rows(&tmp);
			f->rows = tmp.rows;
			f->n = (uint32_t)tmp.nrows;
		} else {
			free(tmp.rows);
		}
	}
	*index = i;
	return f;
}

static const struct ty_unwind_row *
find_lazy(struct ty_unwind_table *t, uint64_t pc)
{
	size_t i;
	struct lazy_fde *f = lazy_fde(t, pc, &i);

	return f ? find_row(f->rows, f->n, pc) : NULL;
}

int
ty_unwind_table_fde(const struct ty_unwind_table *t, uint64_t pc, uint64_t *start, uint64_t *end)
{
	if (t->fdes) { /* the FDE's rows end with a row of no CFI at its end */
		size_t i;
		struct lazy_fde *f = lazy_fde((struct ty_unwind_table *)t, pc, &i);
		if (!f || !f->n || f->rows[f->n - 1].cfa_kind || pc >= f->rows[f->n - 1].pc)
			return -1;
		(void)i;
		*start = f->rows[0].pc; /* the FDE's own start, whatever the index says */
		*end = f->rows[f->n - 1].pc;
		return pc >= *start ? 0 : -1;
	} else {
		size_t lo = 0, hi = t->nranges;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->ranges[mid].start <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || pc >= t->ranges[lo - 1].end)
			return -1;
		*start = t->ranges[lo - 1].start;
		*end = t->ranges[lo - 1].end;
		return 0;
	}
}

const struct ty_unwind_row *
ty_unwind_table_find(const struct ty_unwind_table *t, uint64_t pc)
{
	if (t->fdes) /* the cache of rows is not the caller's business */
		return find_lazy((struct ty_unwind_table *)t, pc);
	return find_row(t->rows, t->nrows, pc);
}

uint64_t
ty_unwind_table_vaddr(const struct ty_unwind_table *t, uint64_t off)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++)
		if (off >= t->segs[i].off && off - t->segs[i].off < t->segs[i].filesz)
			return off - t->segs[i].off + t->segs[i].vaddr;
	return off;
}

size_t
ty_unwind_table_build_id(const struct ty_unwind_table *t, const unsigned char **id)
{
	*id = t->build_id;
	return t->build_id_len;
}

size_t
ty_unwind_table_rows(const struct ty_unwind_table *t)
{
	size_t n = t->nrows, i;

	for (i = 0; t->fdes && i < t->nfde; i++)
		n += t->fdes[i].n;
	return n;
}

void
ty_unwind_table_free(struct ty_unwind_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; t->fdes && i < t->nfde; i++)
		free(t->fdes[i].rows);
	free(t->fdes);
	if (t->map)
		munmap(t->map, t->maplen);
	free(t->ranges);
	free(t->rows);
	free(t->segs);
	free(t);
}

/* --- the unwinder ------------------------------------------------------------ */

struct file_table {
	char *path;
	struct ty_unwind_table *t; /* NULL: unreadable, no CFI */
	int shared;		   /* T is another path's (the same build-id) */
	struct file_table *next;
};

#define NFILES 64
#define NMAPCACHE 64

struct mapcache {
	uint32_t pid;
	uint64_t start, end, pgoff;
	struct ty_unwind_table *t;
	int valid;
};

struct ty_unwinder {
	struct ty_symbols *syms;
	struct file_table *files[NFILES];
	struct mapcache mc[NMAPCACHE];
	const void *vdso;
	size_t vdso_len;
	int vdso_set;
	struct ty_unwind_stats st;
};

struct ty_unwinder *
ty_unwind_new(struct ty_symbols *syms)
{
	struct ty_unwinder *u = calloc(1, sizeof(*u));

	if (u)
		u->syms = syms;
	return u;
}

void
ty_unwind_free(struct ty_unwinder *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < NFILES; i++) {
		struct file_table *f = u->files[i], *n;
		for (; f; f = n) {
			n = f->next;
			if (!f->shared)
				ty_unwind_table_free(f->t);
			free(f->path);
			free(f);
		}
	}
	free(u);
}

void
ty_unwind_forget(struct ty_unwinder *u)
{
	memset(u->mc, 0, sizeof(u->mc));
}

void
ty_unwind_stats(const struct ty_unwinder *u, struct ty_unwind_stats *st)
{
	*st = u->st;
}

void
ty_unwind_set_vdso(struct ty_unwinder *u, const void *image, size_t len)
{
	u->vdso = image;
	u->vdso_len = len;
	u->vdso_set = 1;
}

/* The extent of our own vDSO image (its section headers end it). */
static const void *
own_vdso(size_t *len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	uint64_t end;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (end < sizeof(*eh) || end > (1u << 20))
		return NULL;
	*len = (size_t)end;
	return eh;
}

static struct ty_unwind_table *
load_file(const char *path)
{
	struct ty_unwind_table *t = NULL;
	struct ty_error e;
	struct stat st;
	void *img;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return NULL;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return NULL;
	build(img, (size_t)st.st_size, 1, &t, &e);
	if (t && t->fdes) { /* lazy: the table reads the file as it goes */
		t->map = img;
		t->maplen = (size_t)st.st_size;
	} else {
		munmap(img, (size_t)st.st_size);
	}
	return t;
}

static unsigned
hash_str(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/* One table per build-id in a recording: a file mapped under another
 * path (a hard link, a copy, a container's view of the same library)
 * uses the table made first, with the FDEs whose rows it made already,
 * when its segments are where the first one's are. */
static void
share_table(struct ty_unwinder *u, struct file_table *f)
{
	size_t i;

	if (!f->t->build_id_len)
		return;
	for (i = 0; i < NFILES; i++) {
		struct file_table *o;
		for (o = u->files[i]; o; o = o->next)
			if (o->t && !o->shared && o->t->build_id_len == f->t->build_id_len &&
			    memcmp(o->t->build_id, f->t->build_id, f->t->build_id_len) == 0 &&
			    o->t->nsegs == f->t->nsegs && /* not moved around (patchelf) */
			    memcmp(o->t->segs, f->t->segs, f->t->nsegs * sizeof(*f->t->segs)) ==
				0) {
				ty_unwind_table_free(f->t);
				f->t = o->t;
				f->shared = 1;
				return;
			}
	}
}

static struct ty_unwind_table *
table_for(struct ty_unwinder *u, const char *path)
{
	unsigned h = hash_str(path) % NFILES;
	struct file_table *f;

	for (f = u->files[h]; f; f = f->next)
		if (strcmp(f->path, path) == 0)
			return f->t;
	if (!(f = calloc(1, sizeof(*f))) || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	if (strcmp(path, "[vdso]") == 0) {
		struct ty_error e;
		size_t len = 0;
		const void *img = u->vdso_set ? u->vdso : own_vdso(&len);
		if (u->vdso_set)
			len = u->vdso_len;
		if (img)
			ty_unwind_table_build(img, len, &f->t, &e);
	} else if (path[0] == '/') {
		f->t = load_file(path);
		if (f->t)
			share_table(u, f);
	}
	u->st.tables += f->t != NULL && !f->shared;
	f->next = u->files[h];
	u->files[h] = f;
	return f->t;
}

/* The table and the link-time address of PC in PID. */
static struct ty_unwind_table *
lookup(struct ty_unwinder *u, uint32_t pid, uint64_t time, uint64_t pc, uint64_t *vaddr)
{
	struct mapcache *m = &u->mc[(pc >> 12 ^ pid) % NMAPCACHE];
	struct ty_sym_map sm;
	size_t i;

	if (!(m->valid && m->pid == pid && pc >= m->start && pc < m->end)) {
		for (i = 0; i < NMAPCACHE; i++) { /* another slot may hold it */
			struct mapcache *o = &u->mc[i];
			if (o->valid && o->pid == pid && pc >= o->start && pc < o->end) {
				*m = *o;
				break;
			}
		}
	}
	if (!(m->valid && m->pid == pid && pc >= m->start && pc < m->end)) {
		if (ty_symbols_find_map(u->syms, pid, pc, time, &sm) < 0)
			return NULL;
		m->valid = 1;
		m->pid = pid;
		m->start = sm.start;
		m->end = sm.end;
		m->pgoff = sm.pgoff;
		m->t = table_for(u, sm.path);
	}
	if (!m->t)
		return NULL;
	*vaddr = ty_unwind_table_vaddr(m->t, pc - m->start + m->pgoff);
	return m->t;
}

struct walk {
	uint64_t v[DW_NREGS];
	uint32_t valid; /* bit per DWARF register */
	const unsigned char *stack;
	uint64_t sp0, len;
	int full, truncated;
};

/* Read 8 bytes at ADDR from the stack copy. */
static int
peek(struct walk *w, uint64_t addr, uint64_t *out)
{
	if (addr < w->sp0 || addr - w->sp0 > w->len || w->len - (addr - w->sp0) < 8) {
		if (addr >= w->sp0 + w->len && w->full)
			w->truncated = 1;
		return -1;
	}
	memcpy(out, w->stack + (addr - w->sp0), 8);
	return 0;
}

static int
has(const struct walk *w, int reg)
{
	return (w->valid >> reg) & 1;
}

/* One frame up by CFI ROW. Returns 1 (moved), 0 (the outermost frame) or
 * -1 (lost). */
static int
step_cfi(struct walk *w, const struct ty_unwind_row *row)
{
	static const int dw[TY_UW_NRULES] = {3, 6, 12, 13, 14, 15, DW_RA};
	uint64_t cfa, v[TY_UW_NRULES], sp = w->v[DW_RSP];
	uint32_t valid = w->valid;
	int i;

	if (row->cfa_kind == TY_CFA_PLT) {
		if (!has(w, DW_RSP) || !has(w, DW_RA))
			return -1;
		cfa = sp + (uint64_t)(int64_t)row->cfa_off +
		      (((w->v[DW_RA] & 15) >= row->plt_arg) ? 8 : 0);
	} else {
		if (row->cfa_reg >= DW_NREGS || !has(w, row->cfa_reg))
			return -1;
		cfa = w->v[row->cfa_reg] + (uint64_t)(int64_t)row->cfa_off;
		if (row->cfa_kind == TY_CFA_DEREF && peek(w, cfa, &cfa) < 0)
			return -1;
	}
	if (row->kind[TY_UW_RA] == TY_RULE_UNDEF)
		return 0;
	for (i = 0; i < TY_UW_NRULES; i++) {
		uint64_t addr;
		v[i] = w->v[dw[i]];
		switch (row->kind[i]) {
		case TY_RULE_SAME:
			if (i == TY_UW_RA)
				return -1;
			continue;
		case TY_RULE_OFFSET:
			addr = cfa + (uint64_t)(int64_t)row->off[i];
			break;
		case TY_RULE_AT_SP:
			addr = sp + (uint64_t)(int64_t)row->off[i];
			break;
		case TY_RULE_VAL:
			v[i] = cfa + (uint64_t)(int64_t)row->off[i];
			valid |= 1u << dw[i];
			continue;
		default:
			valid &= ~(1u << dw[i]);
			continue;
		}
		if (peek(w, addr, &v[i]) < 0) {
			if (i == TY_UW_RA)
				return -1;
			valid &= ~(1u << dw[i]);
		} else {
			valid |= 1u << dw[i];
		}
	}
	/* Caller-saved registers are not known in the caller. */
	w->valid = valid & ((1u << 3) | (1u << 6) | (0xfu << 12) | (1u << DW_RA));
	for (i = 0; i < TY_UW_NRULES; i++)
		w->v[dw[i]] = v[i];
	w->v[DW_RSP] = cfa;
	w->valid |= 1u << DW_RSP;
	return w->v[DW_RA] == 0 ? 0 : 1;
}

/* One frame up by the frame pointer. */
static int
step_fp(struct walk *w)
{
	uint64_t bp = w->v[DW_RBP], ra, nbp;

	if (!has(w, DW_RBP) || bp < w->v[DW_RSP] || bp & 7)
		return -1;
	if (peek(w, bp + 8, &ra) < 0 || peek(w, bp, &nbp) < 0)
		return -1;
	w->v[DW_RA] = ra;
	w->v[DW_RBP] = nbp;
	w->v[DW_RSP] = bp + 16;
	w->valid = (1u << DW_RA) | (1u << DW_RBP) | (1u << DW_RSP);
	return ra == 0 ? 0 : 1;
}

/* PERF_REG_X86_* -> DWARF register. */
static const int8_t perf_to_dw[TY_UNWIND_PERF_REGS] = {
    0, 3, 2, 1, 4, 5, 6, 7, DW_RA, -1, -1, -1, -1, -1, -1, -1, 8, 9, 10, 11, 12, 13, 14, 15};

size_t
ty_unwind_sample(struct ty_unwinder *u, const struct ty_unwind_sample *s, uint64_t *out, size_t max,
		 enum ty_unwind_end *end)
{
	struct walk w;
	size_t n = 0;
	int i, exact = 1;

	memset(&w, 0, sizeof(w));
	for (i = 0; i < TY_UNWIND_PERF_REGS; i++) {
		if (perf_to_dw[i] < 0 || !(s->mask & (1ull << i)))
			continue;
		w.v[perf_to_dw[i]] = s->regs[i];
		w.valid |= 1u << perf_to_dw[i];
	}
	w.stack = s->stack;
	w.sp0 = w.v[DW_RSP];
	w.len = s->stack ? s->stack_len : 0;
	w.full = s->stack_full;
	*end = TY_UNWIND_LOST;
	if (!has(&w, DW_RA) || !has(&w, DW_RSP))
		return 0;
	while (n < max) {
		uint64_t pc = w.v[DW_RA], va, prev_sp = w.v[DW_RSP];
		struct ty_unwind_table *t;
		const struct ty_unwind_row *row = NULL;
		int r;

		out[n++] = pc | (exact ? TY_FRAME_EXACT : 0);
		if (pc >= (1ull << 47))
			return n; /* not a user address: lost */
		t = lookup(u, s->pid, s->time, exact ? pc : pc - 1, &va);
		if (t)
			row = ty_unwind_table_find(t, va);
		exact = 0;
		if (row) {
			u->st.cfi_frames++;
			exact = row->signal;
			r = step_cfi(&w, row);
		} else if (t && va - t->entry < 0x40) {
			r = 0; /* in the entry code (ld.so's _start has no CFI): outermost */
		} else {
			u->st.fp_frames++;
			r = step_fp(&w);
		}
		u->st.depth = w.v[DW_RSP] - w.sp0;
		if (r == 0) {
			*end = TY_UNWIND_COMPLETE;
			return n;
		}
		if (r < 0 || (w.v[DW_RSP] <= prev_sp && !(row && row->signal))) {
			*end = w.truncated ? TY_UNWIND_TRUNCATED : TY_UNWIND_LOST;
			return n;
		}
	}
	*end = TY_UNWIND_MAXED;
	return n;
}
