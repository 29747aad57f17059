/* cfi.c - call-frame tables of ELF images, made lazily, and one table per
 * file (by path and build-id) in a cache. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tachy/array.h"
#include "tachy/cfi-parse.h"
#include "tachy/cfi.h"
#include "tachy/elfview.h"

#define DW_RSP 7 /* DWARF register number (x86-64 psABI) */

struct seg {
	uint64_t off, vaddr, filesz;
};

/* Lazy tables (a file's, kept mapped): the rows of an FDE are made the
 * first time a pc falls in it, found through .eh_frame_hdr's sorted table.
 * cc1's 480,000 rows took 0.2 s to make eagerly, in the middle of a drain. */
struct lazy_fde {
	struct ty_cfi_row *rows;
	uint32_t n;
	int done;
};

struct ty_cfi_table {
	struct ty_cfi_rows r; /* eager: the rows, and the FDEs' ranges sorted by start */
	struct seg *segs;
	size_t nsegs;
	uint64_t entry;		    /* e_entry: the outermost frame of a program or ld.so */
	uint64_t init;		    /* DT_INIT (_init, which crti.o gives no CFI), 0: none */
	unsigned char build_id[64]; /* NT_GNU_BUILD_ID, build_id_len bytes (0: none) */
	size_t build_id_len;
	/* lazy */
	void *map; /* the file's image, kept mapped (ty_cfi_cache) */
	size_t maplen;
	struct ty_cfi_rd eh;	  /* .eh_frame */
	const unsigned char *tab; /* .eh_frame_hdr's (initial_loc, fde) pairs, sdata4 datarel */
	size_t nfde;
	uint64_t hdr_vaddr;
	struct lazy_fde *fdes;
	const unsigned char *last_cie;
	struct ty_cfi_cie cie;
	int cie_ok;
};

/* The section named NAME: its contents and link-time address. */
static int
find_section(const struct ty_elfview *v, const char *name, struct ty_cfi_rd *out)
{
	const unsigned char *p;
	uint64_t size, addr;

	if (ty_elfview_section(v, name, &p, &size, &addr) < 0)
		return -1;
	*out = (struct ty_cfi_rd){p, p + size, p, addr, 0};
	return 0;
}

static const unsigned char *
vaddr_ptr(const struct ty_cfi_table *t, const struct ty_elfview *v, uint64_t va, uint64_t *left)
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
eh_frame_from_phdr(const struct ty_cfi_table *t, const struct ty_elfview *v, struct ty_cfi_rd *out)
{
	const Elf64_Phdr *ph = v->ph;
	unsigned i, n = v->phnum;

	for (i = 0; i < n; i++) {
		const unsigned char *p;
		uint64_t left;
		struct ty_cfi_rd r;
		int ok = 1;
		uint64_t ef;
		if (ph[i].p_type != PT_GNU_EH_FRAME)
			continue;
		if (!(p = ty_elfview_at(v, ph[i].p_offset, ph[i].p_filesz)) || ph[i].p_filesz < 4)
			return -1;
		r = (struct ty_cfi_rd){p, p + ph[i].p_filesz, p, ph[i].p_vaddr, 0};
		if (ty_cfi_rd_u(&r, 1) != 1)
			return -1;
		{
			uint8_t enc = (uint8_t)ty_cfi_rd_u(&r, 1);
			ty_cfi_rd_u(&r, 2);
			ef = ty_cfi_rd_ptr(&r, enc, &ok);
		}
		if (!ok || r.bad || !(p = vaddr_ptr(t, v, ef, &left)))
			return -1;
		*out = (struct ty_cfi_rd){p, p + left, p, ef, 0};
		return 0;
	}
	return -1;
}

/* .eh_frame_hdr with a table we can search (sdata4, datarel): set up T
 * to make rows lazily. Returns 0, or -1 to build eagerly. */
static int
setup_lazy(struct ty_cfi_table *t, const struct ty_elfview *v)
{
	const Elf64_Phdr *ph = v->ph;
	struct ty_cfi_rd hdr, r;
	uint64_t ef, n;
	uint8_t efenc, cntenc, tabenc;
	int ok = 1;
	unsigned i;

	if (find_section(v, ".eh_frame_hdr", &hdr) < 0) {
		const unsigned char *p = NULL;
		for (i = 0; i < v->phnum; i++)
			if (ph[i].p_type == PT_GNU_EH_FRAME &&
			    (p = ty_elfview_at(v, ph[i].p_offset, ph[i].p_filesz)))
				break;
		if (!p)
			return -1;
		hdr = (struct ty_cfi_rd){p, p + ph[i].p_filesz, p, ph[i].p_vaddr, 0};
	}
	r = hdr;
	if (ty_cfi_rd_u(&r, 1) != 1)
		return -1;
	efenc = (uint8_t)ty_cfi_rd_u(&r, 1);
	cntenc = (uint8_t)ty_cfi_rd_u(&r, 1);
	tabenc = (uint8_t)ty_cfi_rd_u(&r, 1);
	ef = ty_cfi_rd_ptr(&r, efenc, &ok);
	n = ty_cfi_rd_ptr(&r, cntenc, &ok);
	if (r.bad || !ok || tabenc != 0x3b || n == 0 || n > (uint64_t)(r.end - r.p) / 8)
		return -1;
	if (find_section(v, ".eh_frame", &t->eh) < 0) {
		uint64_t left;
		const unsigned char *p = vaddr_ptr(t, v, ef, &left);
		if (!p)
			return -1;
		t->eh = (struct ty_cfi_rd){p, p + left, p, ef, 0};
	}
	if (!(t->fdes = calloc((size_t)n, sizeof(*t->fdes))))
		return -1;
	t->tab = r.p;
	t->nfde = (size_t)n;
	t->hdr_vaddr = hdr.vbase;
	return 0;
}

static int
build(const void *image, size_t len, int lazy, struct ty_cfi_table **out, struct ty_error *e)
{
	struct ty_elfview v;
	struct ty_cfi_table *t;
	struct ty_cfi_rd sec;
	unsigned i;
	int ret;

	*out = NULL;
	if ((ret = ty_elfview_init(&v, image, len, e)) < 0)
		return ret;
	if (!(t = calloc(1, sizeof(*t))))
		return ty_error_set(e, -ENOMEM, "out of memory");
	t->entry = v.eh->e_entry;
	for (i = 0; i < v.phnum; i++) {
		size_t cap = t->nsegs;
		if (v.ph[i].p_type != PT_LOAD)
			continue;
		if (ty_array_grow(&t->segs, sizeof(*t->segs), t->nsegs + 1, &cap) < 0) {
			ret = -ENOMEM;
			goto fail;
		}
		t->segs[t->nsegs++] =
		    (struct seg){v.ph[i].p_offset, v.ph[i].p_vaddr, v.ph[i].p_filesz};
	}
	t->init = ty_elfview_init_func(&v);
	t->build_id_len = ty_elfview_build_id(&v, t->build_id, sizeof(t->build_id));
	if (lazy && setup_lazy(t, &v) == 0) {
		*out = t;
		return 0;
	}
	t->r.keep_ranges = 1;
	if (find_section(&v, ".eh_frame", &sec) == 0 || eh_frame_from_phdr(t, &v, &sec) == 0)
		ret = ty_cfi_parse_frames(&t->r, &sec, 0);
	if (ret == 0 && !t->r.nrows && find_section(&v, ".debug_frame", &sec) == 0)
		ret = ty_cfi_parse_frames(&t->r, &sec, 1);
	if (ret < 0)
		goto fail;
	ty_cfi_parse_finish(&t->r);
	if (t->r.nranges)
		qsort(t->r.ranges, t->r.nranges, sizeof(*t->r.ranges), ty_cfi_parse_range_cmp);
	*out = t;
	return 0;
fail:
	ty_cfi_table_free(t);
	return ty_error_set(e, ret, "out of memory");
}

int
ty_cfi_table_build(const void *image, size_t len, struct ty_cfi_table **out, struct ty_error *e)
{
	return build(image, len, 0, out, e);
}

int
ty_cfi_table_open(const void *image, size_t len, struct ty_cfi_table **out, struct ty_error *e)
{
	return build(image, len, 1, out, e);
}

static const struct ty_cfi_row *
find_row(const struct ty_cfi_row *rows, size_t n, uint64_t pc)
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
tab_at(const struct ty_cfi_table *t, size_t i, int k)
{
	int32_t v;

	memcpy(&v, t->tab + 8 * i + 4 * (size_t)k, 4);
	return v;
}

/* Lazy: the FDE whose range may hold PC, its rows made on first use;
 * NULL when none starts at or below PC. */
static struct lazy_fde *
lazy_fde(struct ty_cfi_table *t, uint64_t pc, size_t *index)
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
		struct ty_cfi_rows tmp;
		uint64_t va = t->hdr_vaddr + (uint64_t)(int64_t)tab_at(t, i, 1);
		const unsigned char *next;
		memset(&tmp, 0, sizeof(tmp));
		f->done = 1;
		if (va >= t->eh.vbase && va - t->eh.vbase < (uint64_t)(t->eh.end - t->eh.base) &&
		    ty_cfi_parse_entry(&tmp, &t->eh, 0, t->eh.base + (va - t->eh.vbase), &next,
				       &t->last_cie, &t->cie, &t->cie_ok) == 0) {
			ty_cfi_parse_finish(&tmp);
			f->rows = tmp.rows;
			f->n = (uint32_t)tmp.nrows;
		} else {
			free(tmp.rows);
		}
	}
	*index = i;
	return f;
}

static const struct ty_cfi_row *
find_lazy(struct ty_cfi_table *t, uint64_t pc)
{
	size_t i;
	struct lazy_fde *f = lazy_fde(t, pc, &i);

	return f ? find_row(f->rows, f->n, pc) : NULL;
}

int
ty_cfi_table_fde(const struct ty_cfi_table *t, uint64_t pc, uint64_t *start, uint64_t *end)
{
	if (t->fdes) { /* the FDE's rows end with a row of no CFI at its end */
		size_t i;
		struct lazy_fde *f = lazy_fde((struct ty_cfi_table *)t, pc, &i);
		if (!f || !f->n || f->rows[f->n - 1].cfa_kind || pc >= f->rows[f->n - 1].pc)
			return -1;
		(void)i;
		*start = f->rows[0].pc; /* the FDE's own start, whatever the index says */
		*end = f->rows[f->n - 1].pc;
		return pc >= *start ? 0 : -1;
	} else {
		size_t lo = 0, hi = t->r.nranges;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->r.ranges[mid].start <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || pc >= t->r.ranges[lo - 1].end)
			return -1;
		*start = t->r.ranges[lo - 1].start;
		*end = t->r.ranges[lo - 1].end;
		return 0;
	}
}

const struct ty_cfi_row *
ty_cfi_table_find(const struct ty_cfi_table *t, uint64_t pc)
{
	if (t->fdes) /* the cache of rows is not the caller's business */
		return find_lazy((struct ty_cfi_table *)t, pc);
	return find_row(t->r.rows, t->r.nrows, pc);
}

uint64_t
ty_cfi_table_vaddr(const struct ty_cfi_table *t, uint64_t off)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++)
		if (off >= t->segs[i].off && off - t->segs[i].off < t->segs[i].filesz)
			return off - t->segs[i].off + t->segs[i].vaddr;
	return off;
}

size_t
ty_cfi_table_build_id(const struct ty_cfi_table *t, const unsigned char **id)
{
	*id = t->build_id;
	return t->build_id_len;
}

size_t
ty_cfi_table_rows(const struct ty_cfi_table *t)
{
	size_t n = t->r.nrows, i;

	for (i = 0; t->fdes && i < t->nfde; i++)
		n += t->fdes[i].n;
	return n;
}

void
ty_cfi_table_free(struct ty_cfi_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; t->fdes && i < t->nfde; i++)
		free(t->fdes[i].rows);
	free(t->fdes);
	if (t->map)
		munmap(t->map, t->maplen);
	free(t->r.ranges);
	free(t->r.rows);
	free(t->segs);
	free(t);
}

/* --- the cache ------------------------------------------------------------ */

struct file_table {
	char *path;
	struct ty_cfi_table *t; /* NULL: unreadable, no CFI */
	int shared;		/* T is another path's (the same build-id) */
	struct file_table *next;
};

#define NFILES 64

struct ty_cfi_cache {
	struct file_table *files[NFILES];
	uint64_t tables;
};

struct ty_cfi_cache *
ty_cfi_cache_new(void)
{
	return calloc(1, sizeof(struct ty_cfi_cache));
}

void
ty_cfi_cache_free(struct ty_cfi_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < NFILES; i++) {
		struct file_table *f = c->files[i], *n;
		for (; f; f = n) {
			n = f->next;
			if (!f->shared)
				ty_cfi_table_free(f->t);
			free(f->path);
			free(f);
		}
	}
	free(c);
}

uint64_t
ty_cfi_cache_tables(const struct ty_cfi_cache *c)
{
	return c->tables;
}

static struct ty_cfi_table *
load_file(const char *path)
{
	struct ty_cfi_table *t = NULL;
	struct ty_error e;
	size_t len;
	void *img = ty_elfview_map_file(path, &len);

	if (!img)
		return NULL;
	build(img, len, 1, &t, &e);
	if (t && t->fdes) { /* lazy: the table reads the file as it goes */
		t->map = img;
		t->maplen = len;
	} else {
		munmap(img, len);
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

/* One table per build-id: a file mapped under another path (a hard link,
 * a copy, a container's view of the same library) uses the table made
 * first, with the FDEs whose rows it made already, when its segments are
 * where the first one's are. */
static void
share_table(struct ty_cfi_cache *c, struct file_table *f)
{
	size_t i;

	if (!f->t->build_id_len)
		return;
	for (i = 0; i < NFILES; i++) {
		struct file_table *o;
		for (o = c->files[i]; o; o = o->next)
			if (o->t && !o->shared && o->t->build_id_len == f->t->build_id_len &&
			    memcmp(o->t->build_id, f->t->build_id, f->t->build_id_len) == 0 &&
			    o->t->nsegs == f->t->nsegs && /* not moved around (patchelf) */
			    memcmp(o->t->segs, f->t->segs, f->t->nsegs * sizeof(*f->t->segs)) ==
				0) {
				ty_cfi_table_free(f->t);
				f->t = o->t;
				f->shared = 1;
				return;
			}
	}
}

struct ty_cfi_table *
ty_cfi_cache_get(struct ty_cfi_cache *c, const char *path)
{
	unsigned h = hash_str(path) % NFILES;
	struct file_table *f;

	for (f = c->files[h]; f; f = f->next)
		if (strcmp(f->path, path) == 0)
			return f->t;
	if (!(f = calloc(1, sizeof(*f))) || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	if (strcmp(path, "[vdso]") == 0) {
		struct ty_error e;
		size_t len = 0;
		const void *img = ty_elfview_vdso(&len);
		if (img)
			ty_cfi_table_build(img, len, &f->t, &e);
	} else if (path[0] == '/') {
		f->t = load_file(path);
		if (f->t)
			share_table(c, f);
	}
	c->tables += f->t != NULL && !f->shared;
	f->next = c->files[h];
	c->files[h] = f;
	return f->t;
}

void
ty_cfi_cache_drop(struct ty_cfi_cache *c, const char *path)
{
	struct file_table **pf = &c->files[hash_str(path) % NFILES], *f;
	size_t i;

	for (; (f = *pf) && strcmp(f->path, path) != 0; pf = &f->next)
		;
	if (!f)
		return;
	*pf = f->next;
	for (i = 0; f->t && !f->shared && i < NFILES; i++) { /* a sharer takes it over */
		struct file_table *o;
		for (o = c->files[i]; o; o = o->next)
			if (o->shared && o->t == f->t) {
				o->shared = 0;
				f->shared = 1;
				break;
			}
	}
	if (!f->shared)
		ty_cfi_table_free(f->t);
	free(f->path);
	free(f);
}

/* --- rows the CFI lacks ------------------------------------------------------ */

/* Is the instruction before the link-time address VA of T a syscall
 * (0f 05), read from the file T keeps mapped? */
static int
after_syscall(const struct ty_cfi_table *t, uint64_t va)
{
	size_t i;

	if (!t->map || va < 2)
		return 0;
	for (i = 0; i < t->nsegs; i++) {
		const struct seg *sg = &t->segs[i];
		if (va - 2 >= sg->vaddr && va - sg->vaddr <= sg->filesz) {
			uint64_t off = sg->off + (va - 2 - sg->vaddr);
			const unsigned char *c = (const unsigned char *)t->map + off;
			return off + 2 <= t->maplen && c[0] == 0x0f && c[1] == 0x05;
		}
	}
	return 0;
}

/* No row covers the sampled pc VA: glibc's clone and clone3 end their FDE
 * just before the syscall (in the child the rules would be wrong), so the
 * parent, in the kernel for the syscall, is sampled 2 bytes past an FDE's
 * end. The syscall changed no register the rules use: the last row before
 * it holds. NULL when VA is not such a place. */
static const struct ty_cfi_row *
syscall_gap(const struct ty_cfi_table *t, uint64_t va)
{
	const struct ty_cfi_row *row;

	if (va < 3 || ty_cfi_table_find(t, va - 2) || !(row = ty_cfi_table_find(t, va - 3)))
		return NULL;
	return after_syscall(t, va) ? row : NULL;
}

static const unsigned char *code_before(const struct ty_cfi_table *t, uint64_t va, size_t n);

/* A function without CFI entered, no CFI row covering the sampled pc VA:
 * _init (crti.o), crt's frame_dummy and register_tm_clones, each called
 * by ld.so or __libc_start_main. At its first instruction, an endbr64 (a
 * mark only an indirect branch's target has: outside every FDE, a
 * function's entry), or at the jump or the stack pointer's first move
 * right after that, nothing was pushed yet: the return address is at rsp.
 * The same at _init's first instruction without an endbr64. */
static const struct ty_cfi_row *
init_entry(const struct ty_cfi_table *t, uint64_t va)
{
	static const struct ty_cfi_row entry = {.cfa_off = 8,
						.cfa_kind = TY_CFA_REG,
						.cfa_reg = DW_RSP,
						.off = {[TY_CFI_RA] = -8},
						.kind = {[TY_CFI_RA] = TY_RULE_OFFSET}};
	static const unsigned char endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	const unsigned char *c;

	if (t->init && va == t->init)
		return &entry;
	if ((c = code_before(t, va + 4, 4)) && memcmp(c, endbr64, 4) == 0)
		return &entry;
	if (va < 4 || !(c = code_before(t, va, 4)) || memcmp(c, endbr64, 4) != 0 ||
	    !(c = code_before(t, va + 4, 4)))
		return NULL;
	/* jmp rel32, jmp rel8, sub $imm,%rsp, push %rbp, push %rbx */
	if (c[0] == 0xe9 || c[0] == 0xeb ||
	    (c[0] == 0x48 && (c[1] == 0x83 || c[1] == 0x81) && c[2] == 0xec) || c[0] == 0x55 ||
	    c[0] == 0x53)
		return &entry;
	return NULL;
}

#define INIT_BODY_MAX 256 /* bytes of _init searched for crtn.o's epilogue */

/* Inside _init (DT_INIT) past crti.o's prologue, [endbr64] sub $8,%rsp,
 * up to crtn.o's add $8,%rsp; ret: the calls put between the two by
 * other objects' .init sections (OpenSSL's OPENSSL_cpuid_setup in node)
 * run with the return address at rsp + 8; at the ret it is at rsp. No CFI
 * says so (crti.o and crtn.o give _init none). VA is the sampled pc or a
 * return address's call. NULL when VA is not in such an _init. */
static const struct ty_cfi_row *
init_body(const struct ty_cfi_table *t, uint64_t va)
{
	static const struct ty_cfi_row body = {.cfa_off = 16,
					       .cfa_kind = TY_CFA_REG,
					       .cfa_reg = DW_RSP,
					       .off = {[TY_CFI_RA] = -8},
					       .kind = {[TY_CFI_RA] = TY_RULE_OFFSET}};
	static const struct ty_cfi_row at_ret = {.cfa_off = 8,
						 .cfa_kind = TY_CFA_REG,
						 .cfa_reg = DW_RSP,
						 .off = {[TY_CFI_RA] = -8},
						 .kind = {[TY_CFI_RA] = TY_RULE_OFFSET}};
	static const unsigned char endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa},
				   sub8[4] = {0x48, 0x83, 0xec, 8},
				   add8_ret[5] = {0x48, 0x83, 0xc4, 8, 0xc3};
	const unsigned char *c;
	uint64_t b = t->init, e;

	if (!b || va < b || va - b >= INIT_BODY_MAX)
		return NULL;
	if ((c = code_before(t, b + 4, 4)) && memcmp(c, endbr64, 4) == 0)
		b += 4;
	if (!(c = code_before(t, b + 4, 4)) || memcmp(c, sub8, 4) != 0 || va < b + 4)
		return NULL;
	for (e = b + 4; e < t->init + INIT_BODY_MAX; e++) {
		if (!(c = code_before(t, e + 5, 5)))
			return NULL;
		if (memcmp(c, add8_ret, 5) == 0)
			return va <= e ? &body : va == e + 4 ? &at_ret : NULL;
	}
	return NULL;
}

const struct ty_cfi_row *
ty_cfi_table_guess(const struct ty_cfi_table *t, uint64_t va, int exact)
{
	const struct ty_cfi_row *row;

	if (exact && ((row = syscall_gap(t, va)) || (row = init_entry(t, va))))
		return row;
	return init_body(t, va);
}

/* The N bytes of code before VA, from the file T keeps mapped; NULL where
 * they are not in one segment of it. */
static const unsigned char *
code_before(const struct ty_cfi_table *t, uint64_t va, size_t n)
{
	size_t i;

	if (!t->map || va < n)
		return NULL;
	for (i = 0; i < t->nsegs; i++) {
		const struct seg *sg = &t->segs[i];
		if (va - n >= sg->vaddr && va - sg->vaddr <= sg->filesz) {
			uint64_t off = sg->off + (va - n - sg->vaddr);
			return off + n <= t->maplen ? (const unsigned char *)t->map + off : NULL;
		}
	}
	return NULL;
}

int
ty_cfi_table_after_call(const struct ty_cfi_table *t, uint64_t va)
{
	const unsigned char *c;

	if ((c = code_before(t, va, 5)) && c[0] == 0xe8) /* call rel32 */
		return 1;
	if ((c = code_before(t, va, 6)) && c[0] == 0xff && c[1] == 0x15) /* call *rel32(%rip) */
		return 1;
	if ((c = code_before(t, va, 2)) && c[0] == 0xff && (c[1] & 0xf8) == 0xd0) /* call *%reg */
		return 1;
	if ((c = code_before(t, va, 3)) && c[0] == 0x41 && c[1] == 0xff &&
	    (c[2] & 0xf8) == 0xd0) /* call *%r8-15 */
		return 1;
	if ((c = code_before(t, va, 3)) && c[0] == 0xff && (c[1] & 0xf8) == 0x50 &&
	    c[1] != 0x54) /* call *disp8(%reg) */
		return 1;
	if ((c = code_before(t, va, 2)) && c[0] == 0xff && (c[1] & 0xf8) == 0x10 && c[1] != 0x14 &&
	    c[1] != 0x15) /* call *(%reg): ld.so's .init_array calls */
		return 1;
	if ((c = code_before(t, va, 3)) && c[0] == 0x41 && c[1] == 0xff && (c[2] & 0xf8) == 0x10 &&
	    c[2] != 0x14 && c[2] != 0x15) /* call *(%r8-15) */
		return 1;
	return 0;
}

uint64_t
ty_cfi_table_entry(const struct ty_cfi_table *t)
{
	return t->entry;
}
