/* unwind.c - the walk of a sampled user stack (x86-64) by the call-frame
 * tables of the files mapped where its return addresses are. */
#include <stdlib.h>
#include <string.h>

#include "tachy/dso.h"
#include "tachy/unwind.h"

/* DWARF register numbers (x86-64 psABI). */
#define DW_RSP 7
#define DW_RBP 6
#define DW_RA 16
#define DW_NREGS 17

#define NMAPCACHE 64

struct mapcache {
	uint32_t pid;
	size_t epoch; /* of PID's mappings (ty_addrspace_epoch) at the sample's time */
	uint64_t start, end, pgoff;
	struct ty_cfi_table *t;
	int valid;
};

struct ty_unwinder {
	struct ty_addrspace *as;
	struct ty_cfi_cache *cfi;
	struct mapcache mc[NMAPCACHE];
	int miss;     /* the last look-up found no mapping */
	size_t epoch; /* the sample's (ty_addrspace_epoch): samples of one drain come
			 after every mapping change in it, exec and mmap */
	struct ty_unwind_stats st;
};

struct ty_unwinder *
ty_unwind_new(struct ty_addrspace *as, struct ty_cfi_cache *cfi)
{
	struct ty_unwinder *u = calloc(1, sizeof(*u));

	if (u) {
		u->as = as;
		u->cfi = cfi;
	}
	return u;
}

void
ty_unwind_free(struct ty_unwinder *u)
{
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
	st->tables = ty_cfi_cache_tables(u->cfi);
}

/* The table and the link-time address of PC in PID. */
static struct ty_cfi_table *
lookup(struct ty_unwinder *u, uint32_t pid, uint64_t time, uint64_t pc, uint64_t *vaddr)
{
	struct mapcache *m = &u->mc[(pc >> 12 ^ pid) % NMAPCACHE];
	struct ty_addrspace_map sm;
	const char *src;
	size_t i;

	u->miss = 0;
	if (!(m->valid && m->pid == pid && m->epoch == u->epoch && pc >= m->start && pc < m->end)) {
		for (i = 0; i < NMAPCACHE; i++) { /* another slot may hold it */
			struct mapcache *o = &u->mc[i];
			if (o->valid && o->pid == pid && o->epoch == u->epoch && pc >= o->start &&
			    pc < o->end) {
				*m = *o;
				break;
			}
		}
	}
	if (!(m->valid && m->pid == pid && m->epoch == u->epoch && pc >= m->start && pc < m->end)) {
		if (ty_addrspace_find(u->as, pid, pc, time, &sm) < 0) {
			u->miss = 1;
			return NULL;
		}
		m->valid = 1;
		m->pid = pid;
		m->epoch = u->epoch;
		m->start = sm.start;
		m->end = sm.end;
		m->pgoff = sm.pgoff;
		/* the file the mapping holds, not one put at its path since */
		src = sm.dso ? ty_dso_source(sm.dso) : sm.path;
		m->t = src ? ty_cfi_cache_get(u->cfi, src) : NULL;
	}
	if (!m->t)
		return NULL;
	*vaddr = ty_cfi_table_vaddr(m->t, pc - m->start + m->pgoff);
	return m->t;
}

struct walk {
	uint64_t v[DW_NREGS];
	uint32_t valid; /* bit per DWARF register */
	const unsigned char *stack;
	uint64_t sp0, len;
	int full, truncated, short_read;
};

/* Read 8 bytes at ADDR from the stack copy. */
static int
peek(struct walk *w, uint64_t addr, uint64_t *out)
{
	if (addr < w->sp0 || addr - w->sp0 > w->len || w->len - (addr - w->sp0) < 8) {
		if (addr >= w->sp0 + w->len && w->full)
			w->truncated = 1;
		else if (addr >= w->sp0 + w->len)
			w->short_read = 1;
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
step_cfi(struct walk *w, const struct ty_cfi_row *row)
{
	static const int dw[TY_CFI_NRULES] = {3, 6, 12, 13, 14, 15, DW_RA};
	uint64_t cfa, v[TY_CFI_NRULES], sp = w->v[DW_RSP];
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
	if (row->kind[TY_CFI_RA] == TY_RULE_UNDEF)
		return 0;
	for (i = 0; i < TY_CFI_NRULES; i++) {
		uint64_t addr;
		v[i] = w->v[dw[i]];
		switch (row->kind[i]) {
		case TY_RULE_SAME:
			if (i == TY_CFI_RA)
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
		case TY_RULE_REG:
			if (row->off[i] >= 0 && row->off[i] < DW_NREGS && has(w, row->off[i])) {
				v[i] = w->v[row->off[i]];
				valid |= 1u << dw[i];
				continue;
			}
			if (i == TY_CFI_RA)
				return -1;
			valid &= ~(1u << dw[i]);
			continue;
		default:
			valid &= ~(1u << dw[i]);
			continue;
		}
		if (addr < w->sp0 && sp == w->sp0 && i != TY_CFI_RA)
			continue; /* the sampled frame's slot below its sp: popped
				   * already (an epilogue's pop %rbp that the CFI
				   * does not follow by a restore): the register
				   * holds the value */
		if (peek(w, addr, &v[i]) < 0) {
			if (i == TY_CFI_RA)
				return -1;
			valid &= ~(1u << dw[i]);
		} else {
			valid |= 1u << dw[i];
		}
	}
	/* Caller-saved registers are not known in the caller. */
	w->valid = valid & ((1u << 3) | (1u << 6) | (0xfu << 12) | (1u << DW_RA));
	for (i = 0; i < TY_CFI_NRULES; i++)
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
/* The sampled pc in code without CFI in a file that has some (assembly
 * such as libgmp's, crt's _init): its return address is the first word at
 * the stack pointer or up to three above it (what the leaf pushed) that
 * points just after a call instruction in code with CFI. The callee-saved
 * registers stay the caller's where nothing was pushed. 1 (moved) or -1. */
static int
step_leaf(struct ty_unwinder *u, struct walk *w, uint32_t pid, uint64_t time)
{
	uint64_t sp = w->v[DW_RSP], ra, va;
	int k;

	for (k = 0; k < 4; k++) {
		struct ty_cfi_table *t;
		if (peek(w, sp + 8 * (uint64_t)k, &ra) < 0)
			return -1;
		if (ra < 4096 || ra >= (1ull << 47) || !(t = lookup(u, pid, time, ra - 1, &va)) ||
		    !ty_cfi_table_find(t, va) || !ty_cfi_table_after_call(t, va + 1))
			continue;
		/* A frame pointer set up inside the words skipped: the frame
		 * pointer's walk knows %rbp of the caller too. */
		if (k > 0 && has(w, DW_RBP) && w->v[DW_RBP] >= sp && w->v[DW_RBP] < sp + 8 * k)
			return -1;
		w->valid &= k ? 0 : (1u << 3) | (1u << 6) | (0xfu << 12);
		w->v[DW_RA] = ra;
		w->v[DW_RSP] = sp + 8 * (uint64_t)k + 8;
		w->valid |= (1u << DW_RA) | (1u << DW_RSP);
		return 1;
	}
	return -1;
}

static const int8_t perf_to_dw[TY_UNWIND_PERF_REGS] = {
    0, 3, 2, 1, 4, 5, 6, 7, DW_RA, -1, -1, -1, -1, -1, -1, -1, 8, 9, 10, 11, 12, 13, 14, 15};

size_t
ty_unwind_input(const struct ty_sampler_rec *rec, uint64_t mask, struct ty_sampler_rec *out,
		struct ty_unwind_sample *us)
{
	size_t k = rec->nr < TY_SAMPLER_MAX_STACK - 2 ? rec->nr : TY_SAMPLER_MAX_STACK - 2;

	memcpy(out, rec, sizeof(*out));
	out->chain = out->chainbuf;
	memset(us, 0, sizeof(*us));
	us->pid = rec->pid;
	us->time = rec->time;
	memcpy(us->regs, rec->regs, sizeof(us->regs));
	us->mask = mask;
	us->stack = rec->stack;
	us->stack_len = rec->stack_dyn;
	us->stack_full = rec->stack_size && rec->stack_dyn == rec->stack_size;
	return k;
}

size_t
ty_unwind_sample(struct ty_unwinder *u, const struct ty_unwind_sample *s, uint64_t *out, size_t max,
		 enum ty_unwind_end *end)
{
	struct walk w;
	size_t n = 0;
	int i, exact = 1, guessed = 0;

	memset(&w, 0, sizeof(w));
	for (i = 0; i < TY_UNWIND_PERF_REGS; i++) {
		if (perf_to_dw[i] < 0 || !(s->mask & (1ull << i)))
			continue;
		w.v[perf_to_dw[i]] = s->regs[i];
		w.valid |= 1u << perf_to_dw[i];
	}
	u->epoch = ty_addrspace_epoch(u->as, s->pid, s->time);
	w.stack = s->stack;
	w.sp0 = w.v[DW_RSP];
	w.len = s->stack ? s->stack_len : 0;
	w.full = s->stack_full;
	*end = TY_UNWIND_LOST;
	u->st.stop = TY_STOP_CFA;
	u->st.unmapped = 0;
	if (!has(&w, DW_RA) || !has(&w, DW_RSP))
		return 0;
	while (n < max) {
		uint64_t pc = w.v[DW_RA], va, prev_sp = w.v[DW_RSP];
		struct ty_cfi_table *t;
		const struct ty_cfi_row *row = NULL;
		int r;

		out[n++] = pc | (exact ? TY_UNWIND_EXACT : 0);
		if (pc >= (1ull << 47)) {
			if (guessed)
				n--; /* a guess that led nowhere: not a frame */
			u->st.stop = TY_STOP_KERNEL;
			return n; /* not a user address: lost */
		}
		t = lookup(u, s->pid, s->time, exact ? pc : pc - 1, &va);
		if (guessed && !t && u->miss) {
			/* A return address guessed (in a CFI gap, or by the frame
			 * pointer through code that may keep none), in no
			 * mapping: %rbp held data, not a frame. */
			n--;
			u->st.unmapped = pc;
			if (u->st.stop != TY_STOP_NOCFI && u->st.stop != TY_STOP_NOMAP)
				u->st.stop = TY_STOP_NOROW;
			return n;
		}
		guessed = 0;
		if (t)
			row = ty_cfi_table_find(t, va);
		if (t && !row && (row = ty_cfi_table_guess(t, va, exact)))
			guessed = 1;
		exact = 0;
		if (row) {
			u->st.cfi_frames++;
			exact = row->signal;
			r = step_cfi(&w, row);
			u->st.stop = TY_STOP_CFA;
		} else if (t && va - ty_cfi_table_entry(t) < 0x40) {
			r = 0; /* in the entry code (ld.so's _start has no CFI): outermost */
		} else if (t && n == 1 && (r = step_leaf(u, &w, s->pid, s->time)) > 0) {
			u->st.fp_frames++; /* a frame by a fallback, as the frame pointer's */
			u->st.stop = TY_STOP_NOROW;
			guessed = 1;
		} else {
			u->st.fp_frames++;
			r = step_fp(&w);
			u->st.stop = t ? TY_STOP_NOROW : u->miss ? TY_STOP_NOMAP : TY_STOP_NOCFI;
			guessed = 1; /* by the frame pointer: a file with CFI but none
				      * here, or a file without any */
		}
		u->st.depth = w.v[DW_RSP] - w.sp0;
		if (r == 0) {
			*end = TY_UNWIND_COMPLETE;
			u->st.stop = TY_STOP_END;
			return n;
		}
		/* The stack pointer moves up, but for a signal frame and a return
		 * address kept in a register (vfork popped it: the caller's sp is
		 * the sampled one; the register is not known after one step). */
		if (r < 0 ||
		    (w.v[DW_RSP] <= prev_sp && !(row && row->signal) &&
		     !(row && row->kind[TY_CFI_RA] == TY_RULE_REG && w.v[DW_RSP] == prev_sp))) {
			*end = w.truncated ? TY_UNWIND_TRUNCATED : TY_UNWIND_LOST;
			if (w.truncated)
				u->st.stop = TY_STOP_COPY;
			else if (w.short_read && u->st.stop == TY_STOP_CFA)
				u->st.stop = TY_STOP_SHORT;
			else if (r > 0)
				u->st.stop = TY_STOP_SP;
			return n;
		}
	}
	u->st.stop = TY_STOP_END;
	*end = TY_UNWIND_MAXED;
	return n;
}
