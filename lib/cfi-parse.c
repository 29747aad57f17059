/* cfi-parse.c - CIEs, FDEs and their CFA programs, run into rows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/cfi-parse.h"

/* DWARF register numbers (x86-64 psABI). */
#define DW_RSP 7
#define DW_RBP 6
#define DW_RA 16
#define DW_NREGS 17

uint64_t
ty_cfi_rd_u(struct ty_cfi_rd *r, size_t n)
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
rd_uleb(struct ty_cfi_rd *r)
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
rd_sleb(struct ty_cfi_rd *r)
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
uint64_t
ty_cfi_rd_ptr(struct ty_cfi_rd *r, uint8_t enc, int *ok)
{
	uint64_t here = r->vbase + (uint64_t)(r->p - r->base), v;

	if (enc == 0xff)
		return 0;
	switch (enc & 0x0f) {
	case 0x00:
		v = ty_cfi_rd_u(r, 8);
		break;
	case 0x01:
		v = rd_uleb(r);
		break;
	case 0x02:
		v = ty_cfi_rd_u(r, 2);
		break;
	case 0x03:
		v = ty_cfi_rd_u(r, 4);
		break;
	case 0x04:
		v = ty_cfi_rd_u(r, 8);
		break;
	case 0x09:
		v = (uint64_t)rd_sleb(r);
		break;
	case 0x0a:
		v = (uint64_t)(int64_t)(int16_t)ty_cfi_rd_u(r, 2);
		break;
	case 0x0b:
		v = (uint64_t)(int64_t)(int32_t)ty_cfi_rd_u(r, 4);
		break;
	case 0x0c:
		v = ty_cfi_rd_u(r, 8);
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
/* The state of the CFA program. */
struct state {
	uint8_t cfa_kind, cfa_reg, plt_arg;
	int64_t cfa_off;
	uint8_t kind[TY_CFI_NRULES];
	int64_t off[TY_CFI_NRULES];
};

static int
slot_of(uint64_t reg, uint64_t ra_reg)
{
	if (reg == ra_reg)
		return TY_CFI_RA;
	switch (reg) {
	case 3:
		return TY_CFI_RBX;
	case 6:
		return TY_CFI_RBP;
	case 12:
	case 13:
	case 14:
	case 15:
		return TY_CFI_R12 + (int)(reg - 12);
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
emit(struct ty_cfi_rows *t, const struct state *st, uint64_t pc, int signal)
{
	struct ty_cfi_row *row;
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
	for (i = 0; i < TY_CFI_NRULES; i++) {
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
	struct ty_cfi_rd r = {p, p + n, p, 0, 0};
	uint8_t op = (uint8_t)ty_cfi_rd_u(&r, 1);
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
	struct ty_cfi_rd r = {p, p + n, p, 0, 0};
	int64_t off;

	st->kind[i] = TY_RULE_UNKNOWN;
	if (ty_cfi_rd_u(&r, 1) != 0x70 + DW_RSP)
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
set_rule(struct state *st, const struct ty_cfi_cie *c, uint64_t reg, uint8_t kind, int64_t off)
{
	int i = slot_of(reg, c->ra_reg);

	if (i >= 0)
		st->kind[i] = kind, st->off[i] = off;
}

/* Register REG's rule goes back to the CIE's initial one (none without it). */
static void
restore_rule(struct state *st, const struct ty_cfi_cie *c, uint64_t reg, const struct state *init)
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
run_cfa(struct ty_cfi_rows *t, const struct ty_cfi_cie *c, const struct state *init,
	struct state *st, const unsigned char *p, const unsigned char *end, uint64_t *loc,
	uint64_t limit, int addr_size)
{
	struct state saved[STACK_DEPTH];
	int depth = 0, i;
	struct ty_cfi_rd r = {p, end, p, 0, 0};

	while (r.p < r.end && !r.bad) {
		uint8_t op = (uint8_t)ty_cfi_rd_u(&r, 1), hi = op & 0xc0, lo = op & 0x3f;
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
					v = ty_cfi_rd_u(&r, (size_t)addr_size);
				else
					v = ty_cfi_rd_ptr(&r, c->fde_enc, &ok);
				if (!ok || v < *loc)
					return 0;
				adv = v - *loc, has_adv = 1;
				break;
			}
			case 0x02:
				adv = ty_cfi_rd_u(&r, 1) * c->code_align, has_adv = 1;
				break;
			case 0x03:
				adv = ty_cfi_rd_u(&r, 2) * c->code_align, has_adv = 1;
				break;
			case 0x04:
				adv = ty_cfi_rd_u(&r, 4) * c->code_align, has_adv = 1;
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
			case 0x09: { /* register: its value is in another register */
				uint64_t in;
				reg = rd_uleb(&r);
				in = rd_uleb(&r);
				if ((i = slot_of(reg, c->ra_reg)) >= 0) {
					st->kind[i] = in < DW_NREGS ? TY_RULE_REG : TY_RULE_UNKNOWN;
					st->off[i] = (int64_t)in;
				}
				break;
			}
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
parse_cie(const struct ty_cfi_rd *sec, const unsigned char *p, int debug, struct ty_cfi_cie *c)
{
	struct ty_cfi_rd r = *sec;
	uint64_t len, id;
	const unsigned char *end;
	const char *aug;
	int version, is64 = 0;

	memset(c, 0, sizeof(*c));
	r.p = p;
	len = ty_cfi_rd_u(&r, 4);
	if (len == 0xffffffffu)
		len = ty_cfi_rd_u(&r, 8), is64 = 1;
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return -1;
	end = r.p + len;
	r.end = end;
	id = ty_cfi_rd_u(&r, debug && is64 ? 8 : 4);
	if (r.bad || (debug ? id != (is64 ? ~0ull : 0xffffffffu) : id != 0))
		return -1;
	version = (int)ty_cfi_rd_u(&r, 1);
	if (version != 1 && version != 3 && version != 4)
		return -1;
	aug = (const char *)r.p;
	while (r.p < r.end && *r.p)
		r.p++;
	if (r.p >= r.end)
		return -1;
	r.p++;
	if (version == 4) {
		c->addr_size = (int)ty_cfi_rd_u(&r, 1);
		ty_cfi_rd_u(&r, 1); /* segment size */
	} else if (debug) {
		c->addr_size = 8;
	}
	if (debug && c->addr_size != 8 && c->addr_size != 4)
		return -1;
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	c->ra_reg = version == 1 ? ty_cfi_rd_u(&r, 1) : rd_uleb(&r);
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
				c->fde_enc = (uint8_t)ty_cfi_rd_u(&r, 1);
			else if (*a == 'L')
				ty_cfi_rd_u(&r, 1);
			else if (*a == 'P') {
				uint8_t enc = (uint8_t)ty_cfi_rd_u(&r, 1);
				ty_cfi_rd_ptr(&r, enc & 0x7f, &ok);
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
	st->kind[TY_CFI_RA] = TY_RULE_UNDEF;
}

/* The entry (CIE or FDE) at P of section SEC: its end in *NEXT (NULL at
 * the terminator or where the section is damaged). An FDE's rows go to T.
 * *LAST_CIE and *CIE cache the last CIE parsed (*CIE_OK says if it was
 * usable). Returns 0 or -ENOMEM. */
int
ty_cfi_parse_entry(struct ty_cfi_rows *t, const struct ty_cfi_rd *sec, int debug,
		   const unsigned char *p, const unsigned char **next,
		   const unsigned char **last_cie, struct ty_cfi_cie *cie, int *cie_ok)
{
	struct ty_cfi_rd r = *sec;
	uint64_t len, cie_ptr, pc, range, loc;
	const unsigned char *end, *cie_at, *idp;
	struct state init, st;
	int ok = 1, ret, is64 = 0;

	*next = NULL;
	if (p < sec->base || p + 4 > sec->end)
		return 0;
	r.p = p;
	len = ty_cfi_rd_u(&r, 4);
	if (len == 0) {
		if (debug)
			*next = r.p;
		return 0; /* the terminator of .eh_frame */
	}
	if (len == 0xffffffffu)
		len = ty_cfi_rd_u(&r, 8), is64 = 1;
	if (r.bad || len > (uint64_t)(sec->end - r.p) || len < 4)
		return 0;
	end = r.p + len;
	*next = end;
	r.end = end;
	idp = r.p;
	cie_ptr = ty_cfi_rd_u(&r, debug && is64 ? 8 : 4);
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
		pc = ty_cfi_rd_u(&r, (size_t)cie->addr_size);
		range = ty_cfi_rd_u(&r, (size_t)cie->addr_size);
	} else {
		pc = ty_cfi_rd_ptr(&r, cie->fde_enc, &ok);
		range = ty_cfi_rd_ptr(&r, cie->fde_enc & 0x0f, &ok);
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
		t->ranges[t->nranges++] = (struct ty_cfi_range){pc, pc + range};
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
int
ty_cfi_parse_frames(struct ty_cfi_rows *t, const struct ty_cfi_rd *sec, int debug)
{
	const unsigned char *p = sec->base, *last_cie = NULL;
	struct ty_cfi_cie cie;
	int cie_ok = 0, ret;

	while (p) {
		if ((ret = ty_cfi_parse_entry(t, sec, debug, p, &p, &last_cie, &cie, &cie_ok)) < 0)
			return ret;
	}
	return 0;
}

static int
row_cmp(const void *a, const void *b)
{
	const struct ty_cfi_row *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	/* At the same pc an FDE's first row wins over another's end. */
	return (x->cfa_kind != 0) - (y->cfa_kind != 0);
}

/* Sort the rows, and of several at one pc keep the last (a start over an
 * end); drop ends followed by nothing new. */
void
ty_cfi_parse_finish(struct ty_cfi_rows *t)
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

int
ty_cfi_parse_range_cmp(const void *a, const void *b)
{
	const struct ty_cfi_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}
