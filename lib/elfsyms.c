/* elfsyms.c - an ELF file's symbol tables and PLT entries, through libelf. */
#ifdef HAVE_LIBELF
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/cfi.h"
#include "tachy/elfsyms.h"

/* The end of section NDX when it holds code, else 0. */
static uint64_t
code_section_end(Elf *elf, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return 0;
	return sh.sh_addr + sh.sh_size;
}

/* Where a symbol table is read from, for its checks and warnings. */
struct table {
	Elf *elf;
	const char *path; /* for warnings */
	const char *what; /* ".symtab", ".dynsym" */
	size_t file_size; /* 0: unknown (no raw image) */
	size_t nsections;
	uint64_t strsize; /* its string table's size */
	size_t bad_name, bad_shndx;
	struct ty_symtab_warnings *warn;
};

/* Whether [OFF, OFF + SIZE) lies inside T's file. */
static int
in_file(const struct table *t, uint64_t off, uint64_t size)
{
	return !t->file_size || (off <= t->file_size && size <= t->file_size - off);
}

/* Why the symbol table SH (and its string table) cannot be read, into WHY;
 * 0 when it can. The header fields are the file's, so each is checked
 * before libelf is trusted with them. */
static int
table_damage(struct table *t, const GElf_Shdr *sh, char *why, size_t size)
{
	size_t want = gelf_getclass(t->elf) == ELFCLASS32 ? sizeof(Elf32_Sym) : sizeof(Elf64_Sym);
	const char *sdata;
	Elf_Scn *str;
	Elf_Data *sd;
	GElf_Shdr ss;

	if (sh->sh_entsize != want)
		snprintf(why, size, "its entry size (sh_entsize) is %" PRIu64 ", not %zu",
			 (uint64_t)sh->sh_entsize, want);
	else if (sh->sh_size % want)
		snprintf(why, size,
			 "its size %" PRIu64 " is not a whole number of %zu-byte entries",
			 (uint64_t)sh->sh_size, want);
	else if (!in_file(t, sh->sh_offset, sh->sh_size))
		snprintf(why, size,
			 "it lies beyond the end of the file (offset %" PRIu64 ", size %" PRIu64
			 ", file %zu bytes)",
			 (uint64_t)sh->sh_offset, (uint64_t)sh->sh_size, t->file_size);
	else if (sh->sh_link == 0 || sh->sh_link >= t->nsections ||
		 !(str = elf_getscn(t->elf, sh->sh_link)) || !gelf_getshdr(str, &ss))
		snprintf(why, size, "its string table (sh_link %u) is no section of the file",
			 (unsigned)sh->sh_link);
	else if (ss.sh_type != SHT_STRTAB)
		snprintf(why, size, "its string table (sh_link %u) is not a string table (type %u)",
			 (unsigned)sh->sh_link, (unsigned)ss.sh_type);
	else if (!in_file(t, ss.sh_offset, ss.sh_size))
		snprintf(why, size,
			 "its string table lies beyond the end of the file (offset %" PRIu64
			 ", size %" PRIu64 ", file %zu bytes)",
			 (uint64_t)ss.sh_offset, (uint64_t)ss.sh_size, t->file_size);
	else if (!(sd = elf_getdata(str, NULL)) || !(sdata = sd->d_buf) || sd->d_size == 0 ||
		 sdata[sd->d_size - 1] != '\0')
		snprintf(why, size, "its string table does not end in a NUL byte");
	else {
		t->strsize = ss.sh_size;
		return 0;
	}
	return 1;
}

/* Add the function symbols (and code labels without a type, such as
 * ld.so's _start and _dl_start_user) of one symbol table section. */
static int
read_symtab(struct table *t, Elf_Scn *scn, GElf_Shdr *sh, struct ty_symtab *d)
{
	Elf *elf = t->elf;
	Elf_Data *data;
	size_t i, n;
	GElf_Sym sym;
	char why[256];

	if (table_damage(t, sh, why, sizeof(why))) {
		ty_symtab_warn(t->warn,
			       "%s of %s is damaged: %s; it is ignored, addresses shown raw",
			       t->what, t->path, why);
		return 0;
	}
	if (!(data = elf_getdata(scn, NULL))) {
		ty_symtab_warn(t->warn, "%s of %s cannot be read: %s; addresses shown raw", t->what,
			       t->path, elf_errmsg(-1));
		return 0;
	}
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		const char *name;
		uint64_t lim = 0;
		int type, bind, b;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (sym.st_name >= t->strsize) {
			t->bad_name++;
			continue;
		}
		if ((type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_value == 0)
			continue;
		if (sym.st_shndx >= t->nsections) {
			t->bad_shndx++;
			continue;
		}
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || name[0] == '$' || strncmp(name, ".L", 2) == 0)
			continue;
		if (type == STT_NOTYPE && !(lim = code_section_end(elf, sym.st_shndx)))
			continue;
		b = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
		if (ty_symtab_add(d, sym.st_value, type == STT_NOTYPE ? 0 : sym.st_size, name,
				  type == STT_NOTYPE ? TY_SYM_LABEL : TY_SYM_FUNC, b, lim) < 0)
			return -1;
	}
	return 0;
}

/* Add the symbols of ELF to D; returns 1 when it had a .symtab (a full
 * table), 0 when only .dynsym or nothing. SEGS: also read the program
 * headers (not for separate debug files, whose layout is the stripped
 * file's). */

Elf_Scn *
ty_elfsyms_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstr, sh->sh_name)) &&
		    strcmp(n, name) == 0)
			return scn;
	return NULL;
}

/* --- PLT entries -------------------------------------------------------- */

struct got_slot {
	uint64_t addr;
	const char *name; /* in the ELF's string table */
};

struct plt_ctx {
	struct got_slot *slots; /* from every dynamic relocation with a symbol */
	size_t nslots;
	const char **jump; /* .rela.plt's symbol names, in order (push index) */
	size_t njump, capjump;
};

static int
slot_cmp(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static const char *
slot_name(const struct plt_ctx *c, uint64_t addr)
{
	struct got_slot key = {addr, NULL}, *hit;

	hit = c->nslots ? bsearch(&key, c->slots, c->nslots, sizeof(key), slot_cmp) : NULL;
	return hit ? hit->name : NULL;
}

/* The name of an IRELATIVE relocation's PLT entry (a call inside the
 * library to one of its own IFUNCs, as libc's to strnlen): the IFUNC
 * symbol at the resolver's address RESOLVER, else objdump's spelling
 * "*ABS*+0xRESOLVER". NULL when out of memory. */
static const char *
irelative_name(struct ty_symtab *d, uint64_t resolver)
{
	const struct ty_sym *best = NULL;
	char buf[64];
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->syms[i].addr == resolver && d->syms[i].kind == TY_SYM_FUNC &&
		    (!best || ty_symtab_cmp(&d->syms[i], best) < 0))
			best = &d->syms[i];
	if (best)
		return ty_symtab_name(d, best);
	snprintf(buf, sizeof(buf), "*ABS*+0x%" PRIx64, resolver);
	return ty_symtab_pool_add(&d->pool, buf, strlen(buf));
}

/* Collect the relocations against the dynamic symbols: the GOT slot each
 * fills, and the order of .rela.plt (lazy stubs push their index). */
static int
plt_relocs(struct ty_symtab *d, Elf *elf, struct plt_ctx *c)
{
	Elf_Scn *scn = NULL, *symscn;
	GElf_Shdr sh, symsh;
	size_t shstr, cap = 0;

	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data, *syms;
		const char *sname;
		size_t i, n;
		int jump;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) ||
		    sh.sh_entsize == 0 || !(symscn = elf_getscn(elf, sh.sh_link)) ||
		    !gelf_getshdr(symscn, &symsh) || symsh.sh_type != SHT_DYNSYM ||
		    !(data = elf_getdata(scn, NULL)) || !(syms = elf_getdata(symscn, NULL)))
			continue;
		sname = elf_strptr(elf, shstr, sh.sh_name);
		jump = sname && (strcmp(sname, ".rela.plt") == 0 || strcmp(sname, ".rel.plt") == 0);
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Rela ra;
			GElf_Rel rl;
			GElf_Sym sym;
			uint64_t off, info;
			const char *name = NULL;
			if (sh.sh_type == SHT_RELA) {
				if (!gelf_getrela(data, (int)i, &ra))
					break;
				off = ra.r_offset, info = ra.r_info;
			} else {
				if (!gelf_getrel(data, (int)i, &rl))
					break;
				off = rl.r_offset, info = rl.r_info;
			}
			if (GELF_R_SYM(info) && gelf_getsym(syms, (int)GELF_R_SYM(info), &sym))
				name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (name && !*name)
				name = NULL;
			if (!name && jump && sh.sh_type == SHT_RELA &&
			    GELF_R_TYPE(info) == R_X86_64_IRELATIVE &&
			    !(name = irelative_name(d, (uint64_t)ra.r_addend)))
				return -1;
			if (jump) {
				if (ty_array_grow(&c->jump, sizeof(*c->jump), c->njump + 1,
						  &c->capjump) < 0)
					return -1;
				c->jump[c->njump++] = name;
			}
			if (!name)
				continue;
			if (ty_array_grow(&c->slots, sizeof(*c->slots), c->nslots + 1, &cap) < 0)
				return -1;
			c->slots[c->nslots++] = (struct got_slot){off, name};
		}
	}
	if (c->nslots)
		qsort(c->slots, c->nslots, sizeof(*c->slots), slot_cmp);
	return 0;
}

/* Name the entries of the x86-64 PLT section NAME: an entry that jumps
 * through a GOT slot (jmp *disp(%rip), with or without endbr64 and bnd)
 * is named for the slot's symbol; a lazy stub that pushes a .rela.plt
 * index (the IBT .plt beside .plt.sec) for that relocation's symbol. */
static int
plt_section(struct ty_symtab *d, Elf *elf, const char *secname, const struct plt_ctx *c)
{
	GElf_Shdr sh;
	Elf_Scn *scn = ty_elfsyms_section(elf, secname, &sh);
	Elf_Data *data;
	uint64_t ent, off;
	char buf[600];

	if (!scn || sh.sh_type != SHT_PROGBITS || !(data = elf_getdata(scn, NULL)) ||
	    !data->d_buf || data->d_size < sh.sh_size)
		return 0;
	ent = sh.sh_entsize >= 8 && sh.sh_entsize <= 64 ? sh.sh_entsize : 16;
	for (off = 0; off + ent <= sh.sh_size; off += ent) {
		const unsigned char *p = (const unsigned char *)data->d_buf + off;
		const char *name = NULL;
		uint64_t k;
		int32_t v;
		for (k = 0; k + 6 <= ent && !name; k++) {
			if (p[k] == 0xff && p[k + 1] == 0x25) {
				memcpy(&v, p + k + 2, 4);
				name =
				    slot_name(c, sh.sh_addr + off + k + 6 + (uint64_t)(int64_t)v);
				break;
			}
			if (p[k] == 0x68 && k + 5 <= ent) { /* push $index */
				memcpy(&v, p + k + 1, 4);
				if (v >= 0 && (size_t)v < c->njump)
					name = c->jump[v];
				break;
			}
		}
		if (!name)
			continue;
		snprintf(buf, sizeof(buf), "%.500s@plt", name);
		if (ty_symtab_add(d, sh.sh_addr + off, ent, buf, TY_SYM_PLT, 0, 0) < 0)
			return -1;
	}
	return 0;
}

void
ty_elfsyms_plt(struct ty_symtab *d, Elf *elf)
{
	struct plt_ctx c = {0};
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return;
	if (plt_relocs(d, elf, &c) == 0 && (c.nslots || c.njump)) {
		plt_section(d, elf, ".plt", &c);
		plt_section(d, elf, ".plt.sec", &c);
		plt_section(d, elf, ".plt.got", &c);
	}
	free(c.slots);
	free(c.jump);
}

int
ty_elfsyms_read(struct ty_symtab *t, Elf *elf, struct ty_symtab_warnings *w, const char *path)
{
	struct table tb = {.elf = elf, .path = path, .warn = w};
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int full = 0;

	if (!elf_rawfile(elf, &tb.file_size))
		tb.file_size = 0;
	if (elf_getshdrnum(elf, &tb.nsections) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		/* a damaged .symtab is said as such, not as "stripped" */
		full |= sh.sh_type == SHT_SYMTAB;
		tb.what = sh.sh_type == SHT_SYMTAB ? ".symtab" : ".dynsym";
		tb.bad_name = tb.bad_shndx = 0;
		if (read_symtab(&tb, scn, &sh, t) < 0)
			break;
		if (tb.bad_name)
			ty_symtab_warn(w,
				       "%s of %s is damaged: %zu symbol%s name%s (st_name) outside "
				       "its string table; left out, their addresses shown raw",
				       tb.what, path, tb.bad_name, tb.bad_name == 1 ? "'s" : "s'",
				       tb.bad_name == 1 ? " lies" : "s lie");
		if (tb.bad_shndx)
			ty_symtab_warn(
			    w,
			    "%s of %s is damaged: %zu function%s in no section of the file "
			    "(st_shndx); left out, their addresses shown raw",
			    tb.what, path, tb.bad_shndx, tb.bad_shndx == 1 ? "" : "s");
	}
	return full;
}
/* The bytes of ELF's loaded image at virtual address VADDR, LEN of them
 * inside one PT_LOAD segment's file contents; NULL when not there. */
static const unsigned char *
vaddr_bytes(Elf *elf, uint64_t vaddr, size_t len)
{
	GElf_Phdr ph;
	size_t i, n, flen = 0;
	const char *img = elf_rawfile(elf, &flen);

	if (!img || elf_getphdrnum(elf, &n) != 0)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || vaddr < ph.p_vaddr ||
		    vaddr - ph.p_vaddr > ph.p_filesz || ph.p_filesz - (vaddr - ph.p_vaddr) < len)
			continue;
		if (ph.p_offset > flen || vaddr - ph.p_vaddr + len > flen - ph.p_offset)
			return NULL;
		return (const unsigned char *)img + ph.p_offset + (vaddr - ph.p_vaddr);
	}
	return NULL;
}

/* The address _start (at ENTRY, its code up to END) hands __libc_start_main
 * as main, read from its first instruction that loads %rdi/%edi with an
 * address: lea disp32(%rip),%rdi (48 8d 3d), mov $imm32,%rdi (48 c7 c7) or
 * mov $imm32,%edi (bf), as glibc's x86-64 start code and other
 * compilers' do. Only x86-64; 0 when none is found. */
static uint64_t
start_main_arg(Elf *elf, uint64_t entry, uint64_t end)
{
	enum { SCAN = 64 };
	GElf_Ehdr eh;
	size_t n = end - entry < SCAN ? (size_t)(end - entry) : SCAN, i;
	const unsigned char *p;
	int32_t v;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || !(p = vaddr_bytes(elf, entry, n)))
		return 0;
	for (i = 0; i + 5 <= n; i++) {
		if (i + 7 <= n && p[i] == 0x48 && p[i + 1] == 0x8d && p[i + 2] == 0x3d) {
			memcpy(&v, p + i + 3, 4);
			return entry + i + 7 + (int64_t)v;
		}
		if (i + 7 <= n && p[i] == 0x48 && p[i + 1] == 0xc7 && p[i + 2] == 0xc7) {
			memcpy(&v, p + i + 3, 4);
			return (uint64_t)(int64_t)v;
		}
		if (p[i] == 0xbf && (i == 0 || p[i - 1] != 0x48)) {
			uint32_t u;

			memcpy(&u, p + i + 1, 4);
			return u;
		}
	}
	return 0;
}

/* Name `main` what _start passes to __libc_start_main, its extent that of
 * the call-frame information holding it, when nothing names it already. */
static void
main_sym(struct ty_symtab *t, Elf *elf, const struct ty_cfi_table *cfi, uint64_t entry,
	 uint64_t end)
{
	uint64_t m = start_main_arg(elf, entry, end), start, mend;
	size_t i;

	if (!m || ty_cfi_table_fde(cfi, m, &start, &mend) < 0 || start != m || mend <= start)
		return;
	for (i = 0; i < t->n; i++)
		if (t->syms[i].addr == m)
			return;
	ty_symtab_add(t, start, mend - start, "main", TY_SYM_FUNC, 0, 0);
}

/* The entry code of a file that has no call-frame information for it
 * (ld.so's _start, hand-written): the unwinder takes a return address
 * within 0x40 bytes past e_entry as the outermost frame (lib/unwind.c), so
 * name the same bytes, up to the next FDE, "_start". */
static void
entry_sym_nocfi(struct ty_symtab *t, const struct ty_cfi_table *cfi, uint64_t entry)
{
	enum { ENTRY_CODE = 0x40 };
	uint64_t s, start, end;

	for (s = 1; s < ENTRY_CODE; s++)
		if (ty_cfi_table_fde(cfi, entry + s, &start, &end) == 0)
			break;
	ty_symtab_add(t, entry, s, "_start", TY_SYM_FUNC, 0, 0);
}

/* A stripped program's entry point is _start: name the range of the CFI
 * that begins at e_entry so in a file with a program interpreter (not a
 * library) and no symbol there (an exported _start, ruby3.1's, is named:
 * main is still found). ld.so (no CFI at its entry): entry_sym_nocfi. */
void
ty_elfsyms_entry(struct ty_symtab *t, struct Elf *elf, const struct ty_cfi_table *cfi)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	uint64_t start, end;
	size_t i, n;
	int interp = 0, fde, named = 0;

	if (!cfi || !gelf_getehdr(elf, &eh) || !eh.e_entry || elf_getphdrnum(elf, &n) != 0)
		return;
	for (i = 0; i < t->n && !named; i++)
		named = t->syms[i].addr == eh.e_entry;
	for (i = 0; i < n && !interp; i++)
		interp = gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP;
	fde = ty_cfi_table_fde(cfi, eh.e_entry, &start, &end) == 0;
	if (!fde && !interp && eh.e_type == ET_DYN && !named)
		entry_sym_nocfi(t, cfi, eh.e_entry);
	if (!interp || !fde || start != eh.e_entry || end <= start)
		return;
	if (!named)
		ty_symtab_add(t, start, end - start, "_start", TY_SYM_FUNC, 0, 0);
	main_sym(t, elf, cfi, eh.e_entry, end);
}

#endif
