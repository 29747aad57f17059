/* symbols.c - address spaces, ELF symbol tables, kallsyms, demangling. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif
#ifdef HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#endif
#ifdef HAVE_LZMA
#include <lzma.h>
#endif
#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#include "tachy/kmod.h"
#include "tachy/outfile.h"
#include "tachy/symbols.h"
#include "tachy/unwind.h"

/* Kinds of symbol, best first where several start at one address. */
enum { K_FUNC, K_PLT, K_LABEL };

struct sym {
	uint64_t addr, size;
	const char *name;		 /* in the DSO's name arena or pool */
	uint64_t lim;			 /* a label's section end (0: none) */
	uint32_t seq;			 /* reading order */
	unsigned char kind, bind, under; /* bind: 0 global, 1 weak, 2 local */
};

/* Strings that never move: blocks chained. */
struct pool_blk {
	struct pool_blk *next;
	size_t used, cap;
	char data[];
};

/* A function range of the call-frame information, named DSO+0xSTART. */
struct fde_name {
	uint64_t start;
	const char *name;
};

/* One JIT region named in /tmp/perf-PID.map. */
struct jit_sym {
	uint64_t start, end;
	const char *name;
	uint32_t seq;
};

struct seg {
	uint64_t off, vaddr, filesz;
	int exec;
};

struct dso {
	char *path;
	int loaded;
	struct sym *syms;
	size_t nsyms, capsyms;
	struct seg *segs;
	size_t nsegs;
	char *names;	       /* arena of symbol names (the kernel's) */
	struct pool_blk *pool; /* names of the other DSOs */
	char build_id[130];    /* GNU build-id in hex, "" when none */
	const char *base;      /* basename of path */
	/* Kept open for lookups after loading: the file, its call-frame
	 * information (function ranges: lib/unwind.c's table of the file's
	 * image, made an FDE at a time) and the DWARF of it or of its debug
	 * file (inline frames and lines). */
	int fd, dbg_fd;
	void *elf, *dbg_elf, *dwarf;
	struct ty_unwind_table *cfi;
	void *dbg_mem; /* decompressed MiniDebugInfo the dbg_elf reads */
	struct fde_name *fdes;
	size_t nfdes, capfdes; /* open addressing on start, 0 empty */
	struct dso *next;
};

struct map {
	uint64_t start, end, pgoff, time;
	struct dso *dso;
};

struct space {
	uint32_t pid, ppid;
	uint64_t fork_time, exec_time;
	int has_parent;
	struct map *maps;
	size_t nmaps, cap;
	uint64_t *changes; /* times the same address began to mean something else */
	size_t nchanges, capchanges;
	uint64_t *execs; /* exec times, ascending */
	size_t nexecs, capexecs;
	int jit_tried;	     /* perf map read */
	struct jit_sym *jit; /* sorted by start */
	size_t njit;
	char *jit_path;
	struct pool_blk *jit_pool;
	struct space *next;
};

#define NBUCKET 256

struct kc_ent {
	uint64_t addr;
	uint32_t name; /* offset in the arena */
	uint32_t zero;
};

struct ty_symbols {
	struct space *spaces[NBUCKET];
	struct dso *dsos;
	struct dso kernel;
	int kernel_tried;
	char *kallsyms_path;
	char *cache_dir;    /* per-boot core kernel symbol cache; NULL: none */
	char *boot_id_path; /* NULL: the kernel's */
	void *kcache_map;   /* the cache file, mapped; cached names point into it */
	size_t kcache_len;
	const struct kc_ent *kc_ent; /* its entries, sorted by address */
	size_t kc_n;
	const char *kc_arena;
	uint64_t core_lo, core_hi; /* the cached table covers [core_lo, core_hi] */
	int kernel_partial;	   /* kernel addresses resolve from the cache alone */
	struct ty_kmod *kmod;	   /* module symbols (kmod.c), from the full read */
	unsigned kallsyms_reads;
	char **warnings;
	size_t nwarnings;
	int warned_noelf;
	char *debug_root;   /* "/usr/lib/debug" unless set */
	char *perf_map_dir; /* "/tmp" unless set */
	void *debuginfod;   /* a debuginfod_client, when DEBUGINFOD_URLS is set */
	int debuginfod_tried;
};

struct ty_symbols *
ty_symbols_new(void)
{
	return calloc(1, sizeof(struct ty_symbols));
}

static void
pool_free(struct pool_blk *b)
{
	while (b) {
		struct pool_blk *n = b->next;
		free(b);
		b = n;
	}
}

/* A copy of STR[N] (NUL added) in the pool *HEAD; NULL when out of memory. */
static const char *
pool_addn(struct pool_blk **head, const char *str, size_t n)
{
	struct pool_blk *b = *head;
	char *out;

	if (!b || b->cap - b->used < n + 1) {
		size_t cap = n + 1 > 65536 ? n + 1 : 65536;
		if (!(b = malloc(sizeof(*b) + cap)))
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = *head;
		*head = b;
	}
	out = b->data + b->used;
	memcpy(out, str, n);
	out[n] = '\0';
	b->used += n + 1;
	return out;
}

#ifdef HAVE_LIBELF
static const char *
pool_add(struct pool_blk **head, const char *str)
{
	return pool_addn(head, str, strlen(str));
}
#endif

static void dso_close(struct dso *d);

static void
dso_release(struct dso *d)
{
	dso_close(d);
	free(d->path);
	free(d->syms);
	free(d->segs);
	free(d->names);
	free(d->fdes);
	pool_free(d->pool);
}

void
ty_symbols_free(struct ty_symbols *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < NBUCKET; i++) {
		struct space *sp = s->spaces[i], *n;
		for (; sp; sp = n) {
			n = sp->next;
			free(sp->maps);
			free(sp->changes);
			free(sp->execs);
			free(sp->jit);
			free(sp->jit_path);
			pool_free(sp->jit_pool);
			free(sp);
		}
	}
	while (s->dsos) {
		struct dso *n = s->dsos->next;
		dso_release(s->dsos);
		free(s->dsos);
		s->dsos = n;
	}
	dso_release(&s->kernel);
	for (i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->kallsyms_path);
	ty_kmod_free(s->kmod);
	free(s->cache_dir);
	free(s->boot_id_path);
	free(s->debug_root);
	free(s->perf_map_dir);
#ifdef HAVE_DEBUGINFOD
	if (s->debuginfod)
		debuginfod_end(s->debuginfod);
#endif
	if (s->kcache_map)
		munmap(s->kcache_map, s->kcache_len);
	free(s);
}

void
ty_symbols_set_kallsyms(struct ty_symbols *s, const char *path)
{
	free(s->kallsyms_path);
	s->kallsyms_path = strdup(path);
}

void
ty_symbols_set_cache_dir(struct ty_symbols *s, const char *dir)
{
	free(s->cache_dir);
	s->cache_dir = dir && *dir ? strdup(dir) : NULL;
}

void
ty_symbols_set_boot_id(struct ty_symbols *s, const char *path)
{
	free(s->boot_id_path);
	s->boot_id_path = path ? strdup(path) : NULL;
}

void
ty_symbols_set_debug_root(struct ty_symbols *s, const char *dir)
{
	free(s->debug_root);
	s->debug_root = dir ? strdup(dir) : NULL;
}

void
ty_symbols_set_perf_map_dir(struct ty_symbols *s, const char *dir)
{
	free(s->perf_map_dir);
	s->perf_map_dir = dir ? strdup(dir) : NULL;
}

unsigned
ty_symbols_kallsyms_reads(const struct ty_symbols *s)
{
	return s->kallsyms_reads;
}

static void __attribute__((format(printf, 2, 3))) warn(struct ty_symbols *s, const char *fmt, ...)
{
	char buf[1024], **nw;
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < s->nwarnings; i++)
		if (strcmp(s->warnings[i], buf) == 0)
			return;
	nw = realloc(s->warnings, (s->nwarnings + 1) * sizeof(*nw));
	if (!nw)
		return;
	s->warnings = nw;
	if ((nw[s->nwarnings] = strdup(buf)))
		s->nwarnings++;
}

size_t
ty_symbols_nwarnings(const struct ty_symbols *s)
{
	return s->nwarnings;
}

const char *
ty_symbols_warning(const struct ty_symbols *s, size_t i)
{
	return i < s->nwarnings ? s->warnings[i] : NULL;
}

/* --- demangling ------------------------------------------------------ */

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn
demangler(void)
{
	static int tried;
	static demangle_fn fn;
	void *h;

	if (tried)
		return fn;
	tried = 1;
	h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		*(void **)&fn = dlsym(h, "__cxa_demangle");
	return fn;
}

int
ty_symbols_can_demangle(void)
{
	return demangler() != NULL;
}

char *
ty_symbols_demangle(const char *name)
{
	demangle_fn fn;
	int status = -1;
	char *out;

	if (strncmp(name, "_Z", 2) != 0 || !(fn = demangler()))
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* --- symbol tables ---------------------------------------------------- */

static int
by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Of several names at one address: a function's before a PLT entry's
	 * before a label's; then the global name before the weak alias before
	 * the internal one (malloc, not __GI___libc_malloc); then the one with
	 * fewer leading underscores (read, not __read); then a sized one; then
	 * the first read, so that the choice does not depend on qsort. */
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->bind != y->bind)
		return x->bind < y->bind ? -1 : 1;
	if (x->under != y->under)
		return x->under < y->under ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Give the size-less symbols of the sorted SYMS the room up to the next
 * (and a label no more than to the end of its section). */
static void
fill_sizes(struct sym *syms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (syms[i].size != 0)
			continue;
		syms[i].size = i + 1 < n ? syms[i + 1].addr - syms[i].addr : 4096;
		if (syms[i].lim > syms[i].addr && syms[i].lim - syms[i].addr < syms[i].size)
			syms[i].size = syms[i].lim - syms[i].addr;
	}
}

/* Sort, keep one name per address (the best, with the largest size of its
 * kind), drop labels inside sized functions (a local label is no function
 * of its own), and give size-less symbols the room up to the next. */
static void
finish_syms(struct dso *d)
{
	size_t i, n = 0;
	uint64_t cover = 0; /* end of the sized functions so far */

	if (!d->nsyms)
		return;
	qsort(d->syms, d->nsyms, sizeof(*d->syms), by_addr);
	for (i = 0; i < d->nsyms; i++) {
		struct sym *x = &d->syms[i];
		if (n > 0 && d->syms[n - 1].addr == x->addr) {
			if (d->syms[n - 1].kind == x->kind && x->size > d->syms[n - 1].size)
				d->syms[n - 1].size = x->size;
			continue;
		}
		if (x->kind == K_LABEL && x->addr < cover)
			continue;
		if (x->kind != K_LABEL && x->size && x->addr + x->size > cover)
			cover = x->addr + x->size;
		d->syms[n++] = *x;
	}
	d->nsyms = n;
	fill_sizes(d->syms, n);
}

static const struct sym *
find_sym(const struct dso *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	if (addr - d->syms[lo - 1].addr < d->syms[lo - 1].size)
		return &d->syms[lo - 1];
	return NULL;
}

/* Copy NAME (demangled when it is C++) into a growing arena; returns the
 * arena offset, or (size_t)-1 when out of memory. */
static size_t
arena_add(char **arena, size_t *len, size_t *cap, const char *name)
{
	char *dm = ty_symbols_demangle(name);
	const char *src = dm ? dm : name;
	size_t n = strlen(src) + 1, off = *len;

	if (*len + n > *cap) {
		size_t nc = (*cap ? *cap * 2 : 4096) + n;
		char *na = realloc(*arena, nc);
		if (!na) {
			free(dm);
			return (size_t)-1;
		}
		*arena = na;
		*cap = nc;
	}
	memcpy(*arena + off, src, n);
	*len += n;
	free(dm);
	return off;
}

static const char *
base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

#ifdef HAVE_LIBELF
/* Add a symbol to D, its NAME copied (demangled) into D's pool. */
static int
add_sym(struct dso *d, uint64_t addr, uint64_t size, const char *name, int kind, int bind,
	uint64_t lim)
{
	char *dm = ty_symbols_demangle(name);
	const char *nm = pool_add(&d->pool, dm ? dm : name);
	unsigned under = 0;

	free(dm);
	if (!nm)
		return -1;
	if (d->nsyms == d->capsyms) {
		size_t nc = d->capsyms ? d->capsyms * 2 : 1024;
		struct sym *ns = realloc(d->syms, nc * sizeof(*ns));
		if (!ns)
			return -1;
		d->syms = ns;
		d->capsyms = nc;
	}
	while (name[under] == '_' && under < 9)
		under++;
	d->syms[d->nsyms] = (struct sym){addr,
					 size,
					 nm,
					 lim,
					 (uint32_t)d->nsyms,
					 (unsigned char)kind,
					 (unsigned char)bind,
					 (unsigned char)under};
	d->nsyms++;
	return 0;
}

/* CRC-32 (as .gnu_debuglink and zlib compute it) of the file FD. */
static int
file_crc32(int fd, uint32_t *out)
{
	static uint32_t tab[256];
	unsigned char buf[65536];
	uint32_t crc = 0xffffffffu;
	ssize_t n;
	size_t i;

	if (!tab[1])
		for (i = 0; i < 256; i++) {
			uint32_t c = (uint32_t)i;
			int k;
			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			tab[i] = c;
		}
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < (size_t)n; i++)
			crc = tab[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
	if (n < 0)
		return -1;
	*out = crc ^ 0xffffffffu;
	return 0;
}

static int
read_segs(Elf *elf, struct dso *d)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	d->segs = calloc(n ? n : 1, sizeof(*d->segs));
	if (!d->segs)
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nsegs].off = ph.p_offset;
		d->segs[d->nsegs].vaddr = ph.p_vaddr;
		d->segs[d->nsegs].filesz = ph.p_filesz > ph.p_memsz ? ph.p_filesz : ph.p_memsz;
		d->segs[d->nsegs].exec = (ph.p_flags & PF_X) != 0;
		d->nsegs++;
	}
	return 0;
}

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

/* Add the function symbols (and code labels without a type, such as
 * ld.so's _start and _dl_start_user) of one symbol table section. */
static int
read_symtab(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct dso *d)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Sym sym;

	if (!data || sh->sh_entsize == 0)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		const char *name;
		uint64_t lim = 0;
		int type, bind, b;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_value == 0)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || name[0] == '$' || strncmp(name, ".L", 2) == 0)
			continue;
		if (type == STT_NOTYPE && !(lim = code_section_end(elf, sym.st_shndx)))
			continue;
		b = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
		if (add_sym(d, sym.st_value, type == STT_NOTYPE ? 0 : sym.st_size, name,
			    type == STT_NOTYPE ? K_LABEL : K_FUNC, b, lim) < 0)
			return -1;
	}
	return 0;
}

/* Add the symbols of ELF to D; returns 1 when it had a .symtab (a full
 * table), 0 when only .dynsym or nothing. SEGS: also read the program
 * headers (not for separate debug files, whose layout is the stripped
 * file's). */
static int
read_elf_syms(struct ty_symbols *s, struct dso *d, Elf *elf, int segs)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int full = 0;

	if (elf_kind(elf) != ELF_K_ELF || (segs && read_segs(elf, d) < 0)) {
		warn(s, "cannot read symbols of %s: not a valid ELF file; addresses shown raw",
		     d->path);
		return 0;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		full |= sh.sh_type == SHT_SYMTAB;
		if (read_symtab(elf, scn, &sh, d) < 0)
			break;
	}
	return full;
}

/* The section of ELF called NAME, with its header in *SH; NULL if none. */
static Elf_Scn *
section_by_name(Elf *elf, const char *name, GElf_Shdr *sh)
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
	size_t njump;
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
irelative_name(struct dso *d, uint64_t resolver)
{
	const struct sym *best = NULL;
	char buf[64];
	size_t i;

	for (i = 0; i < d->nsyms; i++)
		if (d->syms[i].addr == resolver && d->syms[i].kind == K_FUNC &&
		    (!best || by_addr(&d->syms[i], best) < 0))
			best = &d->syms[i];
	if (best)
		return best->name;
	snprintf(buf, sizeof(buf), "*ABS*+0x%" PRIx64, resolver);
	return pool_add(&d->pool, buf);
}

/* Collect the relocations against the dynamic symbols: the GOT slot each
 * fills, and the order of .rela.plt (lazy stubs push their index). */
static int
plt_relocs(struct dso *d, Elf *elf, struct plt_ctx *c)
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
				const char **nj = realloc(c->jump, (c->njump + 1) * sizeof(*nj));
				if (!nj)
					return -1;
				c->jump = nj;
				c->jump[c->njump++] = name;
			}
			if (!name)
				continue;
			if (c->nslots == cap) {
				size_t nc = cap ? 2 * cap : 256;
				struct got_slot *ns = realloc(c->slots, nc * sizeof(*ns));
				if (!ns)
					return -1;
				c->slots = ns;
				cap = nc;
			}
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
plt_section(struct dso *d, Elf *elf, const char *secname, const struct plt_ctx *c)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(elf, secname, &sh);
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
		if (add_sym(d, sh.sh_addr + off, ent, buf, K_PLT, 0, 0) < 0)
			return -1;
	}
	return 0;
}

static void
read_plt(struct dso *d, Elf *elf)
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

/* The GNU build-id of ELF as lowercase hex into HEX (at least 129 bytes). */
static int
build_id(Elf *elf, char *hex)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	size_t off, noff, doff, i;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (off = 0; (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0;) {
			const unsigned char *id = (const unsigned char *)data->d_buf + doff;
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || nh.n_descsz < 2 ||
			    nh.n_descsz > 64 || memcmp((char *)data->d_buf + noff, "GNU", 4) != 0)
				continue;
			for (i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", id[i]);
			return 0;
		}
	}
	return -1;
}

/* --- separate debug files ------------------------------------------------ */

/* Open PATH as the debug file of D when it is a regular file other than D
 * itself; WANT_CRC: its CRC-32 must be CRC (debuglink); WANT_ID: its
 * build-id must be D's when both have one. */
static int
open_debug(struct ty_symbols *s, struct dso *d, const char *path, int want_crc, uint32_t crc,
	   int want_id)
{
	struct stat st, self;
	uint32_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (stat(d->path, &self) == 0 && self.st_ino == st.st_ino && self.st_dev == st.st_dev))
		goto no;
	if (want_crc && (file_crc32(fd, &got) < 0 || got != crc)) {
		warn(s, "debug file %s does not match %s (CRC differs): ignored", path, d->path);
		goto no;
	}
	if (want_id && *d->build_id) {
		char hex[130] = "";
		Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		int same = e && build_id(e, hex) == 0 ? strcmp(hex, d->build_id) == 0 : 1;
		if (e)
			elf_end(e);
		if (!same) {
			warn(s, "debug file %s does not match %s (build-id differs): ignored", path,
			     d->path);
			goto no;
		}
	}
	return fd;
no:
	close(fd);
	return -1;
}

/* The file named by .gnu_debuglink, looked for where gdb looks: beside D,
 * in .debug/ beside it, and under the debug root (by D's directory). */
static int
debuglink(struct ty_symbols *s, struct dso *d, Elf *elf, const char *root)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(elf, ".gnu_debuglink", &sh);
	Elf_Data *data;
	const char *name, *slash = strrchr(d->path, '/');
	size_t len, at;
	uint32_t crc;
	char path[4200], dir[4096];
	int fd, i;

	if (!scn)
		return -1;
	if (!(data = elf_getdata(scn, NULL)) || !data->d_buf || data->d_size < 8 ||
	    !(name = data->d_buf) || !(len = strnlen(name, data->d_size)) || len == data->d_size ||
	    strchr(name, '/') || strcmp(name, "..") == 0 || strcmp(name, ".") == 0 ||
	    (at = (len + 4) & ~(size_t)3) + 4 > data->d_size) {
		warn(s, "%s has a damaged .gnu_debuglink section: ignored", d->path);
		return -1;
	}
	memcpy(&crc, (const char *)data->d_buf + at, 4);
	if (elf_getident(elf, NULL) &&
	    elf_getident(elf, NULL)[EI_DATA] !=
		(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB))
		crc = __builtin_bswap32(crc);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - d->path) : 0, d->path);
	for (i = 0; i < 3; i++) {
		if ((size_t)snprintf(path, sizeof(path),
				     i == 0   ? "%s/%s"
				     : i == 1 ? "%s/.debug/%s"
					      : "%3$s%1$s/%2$s",
				     dir, name, root) >= sizeof(path))
			continue;
		if ((fd = open_debug(s, d, path, 1, crc, 0)) >= 0)
			return fd;
	}
	return -1;
}

/* A debug file for D: by build-id under the debug root, by .gnu_debuglink,
 * by path under the debug root, or from debuginfod (DEBUGINFOD_URLS). */
static int
find_debug_file(struct ty_symbols *s, struct dso *d, Elf *elf)
{
	const char *root = s->debug_root ? s->debug_root : "/usr/lib/debug";
	char path[4200];
	int fd = -1;

	if (*d->build_id && (size_t)snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root,
					     d->build_id, d->build_id + 2) < sizeof(path))
		fd = open_debug(s, d, path, 0, 0, 1);
	if (fd < 0)
		fd = debuglink(s, d, elf, root);
	if (fd < 0 &&
	    (size_t)snprintf(path, sizeof(path), "%s%s.debug", root, d->path) < sizeof(path))
		fd = open_debug(s, d, path, 0, 0, 1);
#ifdef HAVE_DEBUGINFOD
	if (fd < 0 && *d->build_id && getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS")) {
		if (!s->debuginfod_tried) {
			s->debuginfod_tried = 1;
			s->debuginfod = debuginfod_begin();
		}
		if (s->debuginfod) {
			fd = debuginfod_find_debuginfo(s->debuginfod,
						       (const unsigned char *)d->build_id, 0, NULL);
			if (fd < 0) {
				warn(s, "debuginfod has no debug file for %s (build-id %s): %s",
				     d->path, d->build_id, strerror(-fd));
				fd = -1;
			}
		}
	}
#endif
	return fd;
}

/* Read the symbols of a separate debug file FD into D, keeping it open
 * for its DWARF. Returns 1 when it had a full symbol table. */
static int
read_debug_file(struct ty_symbols *s, struct dso *d, int fd)
{
	Elf *dbg = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int full;

	if (!dbg || elf_kind(dbg) != ELF_K_ELF) {
		warn(s, "the debug file of %s is not a valid ELF file: ignored", d->path);
		if (dbg)
			elf_end(dbg);
		close(fd);
		return 0;
	}
	full = read_elf_syms(s, d, dbg, 0);
	d->dbg_fd = fd;
	d->dbg_elf = dbg;
	return full;
}

/* MiniDebugInfo: the .gnu_debugdata section is an xz-compressed ELF file
 * holding the symbols .dynsym lacks (Fedora's stripped binaries). */
#define MINIDEBUG_MAX (256u << 20)
static int
read_minidebuginfo(struct ty_symbols *s, struct dso *d, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(elf, ".gnu_debugdata", &sh);
	Elf_Data *data;

	if (!scn || sh.sh_type == SHT_NOBITS)
		return 0;
	if (!(data = elf_rawdata(scn, NULL)) || !data->d_buf || !data->d_size) {
		warn(s, "%s has a damaged .gnu_debugdata section: ignored", d->path);
		return 0;
	}
#ifdef HAVE_LZMA
	{
		lzma_stream z = LZMA_STREAM_INIT;
		unsigned char *out = NULL;
		size_t cap = 0;
		lzma_ret r;
		Elf *mini;
		int full = 0;

		if (lzma_stream_decoder(&z, MINIDEBUG_MAX, 0) != LZMA_OK)
			return 0;
		z.next_in = data->d_buf;
		z.avail_in = data->d_size;
		do {
			if (z.avail_out == 0) {
				size_t nc = cap ? 2 * cap : 4 * data->d_size + 4096;
				unsigned char *no;
				if (nc > MINIDEBUG_MAX || !(no = realloc(out, nc))) {
					r = LZMA_MEM_ERROR;
					break;
				}
				out = no;
				z.next_out = out + cap;
				z.avail_out = nc - cap;
				cap = nc;
			}
			r = lzma_code(&z, LZMA_FINISH);
		} while (r == LZMA_OK);
		if (r != LZMA_STREAM_END) {
			warn(s, "cannot decompress the MiniDebugInfo of %s (%s): ignored", d->path,
			     r == LZMA_MEM_ERROR ? "too large" : "not valid xz data");
			lzma_end(&z);
			free(out);
			return 0;
		}
		mini = elf_memory((char *)out, z.total_out);
		if (mini && elf_kind(mini) == ELF_K_ELF) {
			full = read_elf_syms(s, d, mini, 0);
		} else {
			warn(s, "the MiniDebugInfo of %s is not a valid ELF file: ignored",
			     d->path);
		}
		if (mini)
			elf_end(mini);
		lzma_end(&z);
		free(out);
		return full;
	}
#else
	warn(s, "%s has MiniDebugInfo (.gnu_debugdata), but tachy was not built with liblzma",
	     d->path);
	return 0;
#endif
}

/* Does ELF carry DWARF of its own (a binary built with -g, not stripped)? */
static int
has_debug_info(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(elf, ".debug_info", &sh);

	return scn && sh.sh_type != SHT_NOBITS;
}

/* A stripped program's entry point has no symbol, but it is _start: name
 * the range of the call-frame information that begins at the ELF header's
 * e_entry so, in a file with a program interpreter (an executable, PIE or
 * not; a library's e_entry is not a _start) and no symbol there already. */
static void
entry_sym(struct dso *d, Elf *elf)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	uint64_t start, end;
	size_t i, n;
	int interp = 0;

	if (!d->cfi || !gelf_getehdr(elf, &eh) || !eh.e_entry || elf_getphdrnum(elf, &n) != 0)
		return;
	for (i = 0; i < n && !interp; i++)
		interp = gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP;
	if (!interp || ty_unwind_table_fde(d->cfi, eh.e_entry, &start, &end) < 0 ||
	    start != eh.e_entry || end <= start)
		return;
	for (i = 0; i < d->nsyms; i++)
		if (d->syms[i].addr == eh.e_entry)
			return;
	add_sym(d, start, end - start, "_start", K_FUNC, 0, 0);
}

static void
read_elf(struct ty_symbols *s, struct dso *d, Elf *elf, int debug)
{
	int full = read_elf_syms(s, d, elf, 1), fd, dbgfile = 0;

	if (build_id(elf, d->build_id) < 0)
		d->build_id[0] = '\0';
	read_plt(d, elf);
	if (debug && !has_debug_info(elf) && (fd = find_debug_file(s, d, elf)) >= 0) {
		full |= read_debug_file(s, d, fd);
		dbgfile = 1;
	}
	if (!full && !dbgfile)
		full = read_minidebuginfo(s, d, elf);
	{ /* the FDEs' ranges, read by the unwinder's reader from the image */
		size_t len = 0;
		const char *img = elf_rawfile(elf, &len);
		struct ty_error e;
		if (img && len)
			ty_unwind_table_open(img, len, &d->cfi, &e);
	}
	if (!full)
		entry_sym(d, elf);
#ifdef HAVE_LIBDW
	d->dwarf = dwarf_begin_elf(d->dbg_elf ? (Elf *)d->dbg_elf : elf, DWARF_C_READ, NULL);
#endif
	finish_syms(d);
	if (!full && debug)
		warn(s,
		     "%s is stripped (no .symtab, no debug file): functions it does not export "
		     "are named %s+0xADDRESS",
		     d->path, d->base);
}

static void
load_vdso(struct ty_symbols *s, struct dso *d)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	FILE *fp;
	char line[512];
	unsigned long lo, hi;
	Elf *elf;

	if (!base)
		return;
	fp = fopen("/proc/self/maps", "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo == base) {
			elf = elf_memory((char *)base, hi - lo);
			if (elf) {
				read_elf(s, d, elf, 0);
				d->elf = elf;
			}
			break;
		}
	fclose(fp);
}

static void
load_dso(struct ty_symbols *s, struct dso *d)
{
	int fd;
	Elf *elf;

	elf_version(EV_CURRENT);
	if (strcmp(d->path, "[vdso]") == 0) {
		load_vdso(s, d);
		return;
	}
	if (d->path[0] != '/' || d->path[1] == '/') /* "//anon" */
		return;
	fd = open(d->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		warn(s, "cannot read symbols of %s: %s; addresses shown raw", d->path,
		     strerror(errno));
		return;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		warn(s, "cannot read symbols of %s: %s; addresses shown raw", d->path,
		     elf_errmsg(-1));
		close(fd);
		return;
	}
	read_elf(s, d, elf, 1);
	d->elf = elf;
	d->fd = fd;
}

static void
dso_close(struct dso *d)
{
#ifdef HAVE_LIBDW
	if (d->dwarf)
		dwarf_end(d->dwarf);
#endif
	ty_unwind_table_free(d->cfi);
	if (d->dbg_elf)
		elf_end(d->dbg_elf);
	if (d->elf)
		elf_end(d->elf);
	if (d->dbg_fd > 0)
		close(d->dbg_fd);
	if (d->fd > 0)
		close(d->fd);
	d->dwarf = d->dbg_elf = d->elf = NULL;
	d->cfi = NULL;
	d->fd = d->dbg_fd = -1;
}
#else
static void
load_dso(struct ty_symbols *s, struct dso *d)
{
	if (!s->warned_noelf)
		warn(s, "not built with elfutils: user-space addresses shown raw");
	s->warned_noelf = 1;
}

static void
dso_close(struct dso *d)
{
}
#endif

/* The name of the call-frame information's function range (an .eh_frame
 * FDE) holding ADDR: DSO+0xSTART, one name per range; NULL when none. */
static const char *
fde_symbol(struct dso *d, uint64_t addr)
{
#ifdef HAVE_LIBELF
	uint64_t start, end;
	size_t j;
	char buf[600];

	if (!d->cfi || ty_unwind_table_fde(d->cfi, addr, &start, &end) < 0)
		return NULL;
	if ((d->nfdes + 1) * 2 > d->capfdes) {
		size_t nc = d->capfdes ? 2 * d->capfdes : 64, i;
		struct fde_name *nt = calloc(nc, sizeof(*nt));
		if (!nt)
			return NULL;
		for (i = 0; i < d->capfdes; i++) {
			if (!d->fdes[i].name)
				continue;
			for (j = (d->fdes[i].start * 0x9e3779b97f4a7c15ull) >> 20 & (nc - 1);
			     nt[j].name; j = (j + 1) & (nc - 1))
				;
			nt[j] = d->fdes[i];
		}
		free(d->fdes);
		d->fdes = nt;
		d->capfdes = nc;
	}
	for (j = (start * 0x9e3779b97f4a7c15ull) >> 20 & (d->capfdes - 1); d->fdes[j].name;
	     j = (j + 1) & (d->capfdes - 1))
		if (d->fdes[j].start == start)
			return d->fdes[j].name;
	snprintf(buf, sizeof(buf), "%.500s+0x%" PRIx64, d->base, (uint64_t)start);
	if (!(d->fdes[j].name = pool_add(&d->pool, buf)))
		return NULL;
	d->fdes[j].start = start;
	d->nfdes++;
	return d->fdes[j].name;
#else
	return NULL;
#endif
}

static struct dso *
get_dso(struct ty_symbols *s, const char *path)
{
	struct dso *d;

	for (d = s->dsos; d; d = d->next)
		if (strcmp(d->path, path) == 0)
			return d;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path))) {
		free(d);
		return NULL;
	}
	d->base = base_name(d->path);
	d->fd = d->dbg_fd = -1;
	d->next = s->dsos;
	s->dsos = d;
	return d;
}

int
ty_symbols_dso_info(struct ty_symbols *s, const char *path, struct ty_dso_info *out)
{
	struct dso *d;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (d = s->dsos; d && strcmp(d->path, path) != 0; d = d->next)
		;
	if (!d || !d->loaded)
		return -1;
	out->build_id = d->build_id;
	for (i = 0; i < d->nsegs; i++) {
		if (!d->segs[i].exec)
			continue;
		out->start = d->segs[i].vaddr;
		out->limit = d->segs[i].vaddr + d->segs[i].filesz;
		out->offset = d->segs[i].off;
		return 0;
	}
	return *d->build_id ? 0 : -1;
}

static const char *
dso_symbol(struct ty_symbols *s, struct dso *d, uint64_t addr)
{
	const struct sym *sym;

	if (!d->loaded) {
		d->loaded = 1;
		load_dso(s, d);
	}
	sym = find_sym(d, addr);
	return sym ? sym->name : fde_symbol(d, addr);
}

const char *
ty_symbols_lookup_file(struct ty_symbols *s, const char *path, uint64_t addr)
{
	struct dso *d = get_dso(s, path);

	return d ? dso_symbol(s, d, addr) : NULL;
}

/* --- kernel ----------------------------------------------------------- */

/* Parse one kallsyms line "ADDR TYPE NAME [module]" at P; returns the next
 * line, or NULL at the end. *NAME is NUL-terminated in place; *CORE says
 * the line names no module (it is the core kernel's). */
static char *
kallsyms_line(char *p, char *end, unsigned long long *addr, char *type, char **name, int *core)
{
	char *nl = memchr(p, '\n', (size_t)(end - p)), *q;
	unsigned long long v = 0;
	int c;

	if (!nl)
		nl = end;
	*name = NULL;
	for (q = p; q < nl && (c = *q) != ' '; q++) {
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			goto next;
		v = v << 4 | (unsigned)d;
	}
	if (nl - q < 4 || q[2] != ' ')
		goto next;
	*addr = v;
	*type = q[1];
	*name = q + 3;
	for (q += 3; q < nl && *q != ' ' && *q != '\t'; q++)
		;
	*core = q == nl;
	*q = '\0';
next:
	return nl < end ? nl + 1 : NULL;
}

/* How internal a kernel name looks, for the choice among names at one
 * address (by_addr): its leading underscores, and more for the "__pi_"
 * copies of the position-independent startup code
 * (__pi___x86_indirect_thunk_r12 beside __x86_indirect_thunk_r12). */
static unsigned char
kernel_under(const char *name)
{
	unsigned n = 0;

	if (strncmp(name, "__pi_", 5) == 0)
		return 9;
	while (name[n] == '_' && n < 8)
		n++;
	return (unsigned char)n;
}

/* The per-boot cache of the core kernel's symbols: one file, DIR/kallsyms,
 * in the machine's byte order:
 *   struct kc_head, then nsyms struct kc_ent sorted by strictly increasing
 *   address (no duplicates), then arena_len bytes of NUL-terminated names
 *   (the last byte a NUL) that the entries point into. */
#define KC_MAGIC "TYKSYMS\n"
#define KC_VERSION 2 /* 2: aliases chosen by kernel_under */
#define KC_IDLEN 48
#define KC_MAXSIZE (256u << 20)

struct kc_head {
	char magic[8];
	uint32_t version;
	uint32_t entry_size;
	char boot_id[KC_IDLEN]; /* NUL-padded */
	uint64_t nsyms, arena_len;
	uint64_t text_lo, text_hi; /* first and last address */
};

_Static_assert(sizeof(struct kc_head) == 96, "cache header layout");
_Static_assert(sizeof(struct kc_ent) == 16, "cache entry layout");

static int
kcache_enabled(const struct ty_symbols *s)
{
	return s->cache_dir && (!s->kallsyms_path || s->boot_id_path);
}

/* This boot's id, NUL-padded into ID; -1 when it cannot be read. */
static int
boot_id(const struct ty_symbols *s, char id[KC_IDLEN])
{
	const char *path = s->boot_id_path ? s->boot_id_path : "/proc/sys/kernel/random/boot_id";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t i;

	if (fd < 0)
		return -1;
	memset(id, 0, KC_IDLEN);
	n = read(fd, id, KC_IDLEN);
	close(fd);
	if (n <= 0 || n == KC_IDLEN)
		return -1;
	if (id[n - 1] == '\n')
		id[--n] = '\0';
	for (i = 0; i < (size_t)n; i++)
		if (!strchr("0123456789abcdefABCDEF-", id[i]) || !id[i])
			return -1;
	return n > 0 ? 0 : -1;
}

static int
write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* mkdir -p DIR, the parts it creates mode 0700. */
static int
make_dirs(const char *dir)
{
	char *p = strdup(dir), *q, c;
	struct stat st;
	int ret = -1;

	for (q = p ? p + 1 : NULL; q; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		c = *q;
		*q = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST)
			break;
		*q = c;
		if (!c) {
			ret = stat(p, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
			break;
		}
	}
	free(p);
	return ret;
}

/* The cache directory DIR, opened; -1 when it is not ours, or reached
 * through another user's symbolic link in a shared directory (where root
 * would write the kernel's addresses, or read a planted table). */
static int
kcache_dir(const char *dir)
{
	struct stat st;
	int dfd = ty_outfile_open_dir(dir, NULL);

	if (dfd >= 0 && (fstat(dfd, &st) != 0 || st.st_uid != geteuid())) {
		close(dfd);
		dfd = -1;
	}
	return dfd;
}

/* Write LEN bytes of BUF to DIR/kallsyms: a temporary file, then a rename. */
static void
kcache_put(const char *dir, const char *buf, size_t len)
{
	char *tmp = NULL;
	int dfd, fd, ok;

	if (make_dirs(dir) < 0 || (dfd = kcache_dir(dir)) < 0)
		return;
	if ((fd = ty_outfile_tmpat(dfd, "kallsyms", 0600, &tmp)) >= 0) {
		ok = fchmod(fd, 0600) == 0 && write_all(fd, buf, len) == 0;
		if (close(fd) != 0)
			ok = 0;
		if (!ok || renameat(dfd, tmp, dfd, "kallsyms") != 0)
			unlinkat(dfd, tmp, 0);
	}
	free(tmp);
	close(dfd);
}

/* Write the sorted, duplicate-free core table SYMS[N] for boot ID. */
static void
kcache_write(struct ty_symbols *s, const char *id, const struct sym *syms, size_t n)
{
	struct kc_head h = {.version = KC_VERSION, .entry_size = sizeof(struct kc_ent)};
	struct kc_ent *ent;
	size_t alen = 0, off = 0, i;
	char *buf, *arena;

	for (i = 0; i < n; i++)
		alen += strlen(syms[i].name) + 1;
	if (alen > UINT32_MAX || sizeof(h) + n * sizeof(*ent) + alen > KC_MAXSIZE)
		return;
	if (!(buf = calloc(1, sizeof(h) + n * sizeof(*ent) + alen)))
		return;
	memcpy(h.magic, KC_MAGIC, sizeof(h.magic));
	memcpy(h.boot_id, id, KC_IDLEN);
	h.nsyms = n;
	h.arena_len = alen;
	h.text_lo = syms[0].addr;
	h.text_hi = syms[n - 1].addr;
	memcpy(buf, &h, sizeof(h));
	ent = (struct kc_ent *)(void *)(buf + sizeof(h));
	arena = buf + sizeof(h) + n * sizeof(*ent);
	for (i = 0; i < n; i++) {
		size_t len = strlen(syms[i].name) + 1;
		ent[i].addr = syms[i].addr;
		ent[i].name = (uint32_t)off;
		memcpy(arena + off, syms[i].name, len);
		off += len;
	}
	kcache_put(s->cache_dir, buf, sizeof(h) + n * sizeof(*ent) + alen);
	free(buf);
}

/* The address range [*LO, *HI] of the core symbols of the kallsyms table
 * ALL[N] (CORE[i]: line i names no module); -1 when there is nothing to
 * cache: no core symbol, one at zero, or a module's among them (the cached
 * table alone must name every address of its range as the full one does). */
static int
core_range(const struct sym *all, const unsigned char *core, size_t n, uint64_t *lo, uint64_t *hi)
{
	size_t i;

	*lo = UINT64_MAX;
	*hi = 0;
	for (i = 0; i < n; i++)
		if (core[i]) {
			*lo = all[i].addr < *lo ? all[i].addr : *lo;
			*hi = all[i].addr > *hi ? all[i].addr : *hi;
		}
	if (*lo == 0 || *lo > *hi)
		return -1;
	for (i = 0; i < n; i++)
		if (!core[i] && all[i].addr >= *lo && all[i].addr <= *hi)
			return -1;
	return 0;
}

/* Cache the part [LO, HI] of the finished (sorted, duplicate-free) full
 * table D: the core kernel's symbols, as the full table names them. */
static void
kcache_save(struct ty_symbols *s, const struct dso *d, uint64_t lo, uint64_t hi)
{
	char id[KC_IDLEN];
	size_t i = 0, j;

	if (boot_id(s, id) < 0)
		return;
	while (i < d->nsyms && d->syms[i].addr < lo)
		i++;
	for (j = i; j < d->nsyms && d->syms[j].addr <= hi; j++)
		;
	if (j > i)
		kcache_write(s, id, d->syms + i, j - i);
}

/* Check the cache file BUF[LEN] and make it the kernel table. */
static int
kcache_parse(struct ty_symbols *s, const char *buf, size_t len, const char *id)
{
	const struct kc_ent *ent =
	    (const struct kc_ent *)(const void *)(buf + sizeof(struct kc_head));
	struct kc_head h;
	const char *arena;
	size_t room = len - sizeof(h), n, i;

	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, KC_MAGIC, sizeof(h.magic)) != 0 || h.version != KC_VERSION ||
	    h.entry_size != sizeof(*ent) || memcmp(h.boot_id, id, KC_IDLEN) != 0)
		return -1;
	if (h.nsyms == 0 || h.nsyms > room / sizeof(*ent) ||
	    h.arena_len != room - h.nsyms * sizeof(*ent) || h.arena_len == 0)
		return -1;
	n = h.nsyms;
	arena = buf + sizeof(h) + n * sizeof(*ent);
	if (arena[h.arena_len - 1] != '\0' || h.text_lo == 0 || ent[0].addr != h.text_lo ||
	    ent[n - 1].addr != h.text_hi)
		return -1;
	for (i = 0; i < n; i++)
		if (ent[i].name >= h.arena_len || (i > 0 && ent[i].addr <= ent[i - 1].addr))
			return -1;
	s->kc_ent = ent;
	s->kc_n = n;
	s->kc_arena = arena;
	s->core_lo = h.text_lo;
	s->core_hi = h.text_hi;
	s->kernel_partial = 1;
	return 0;
}

/* Load this boot's cached core table; -1 when there is none we can trust.
 * The file is mapped, not read: only our own user can change it, and
 * tachy replaces it by rename, never in place. */
static int
kcache_load(struct ty_symbols *s)
{
	char id[KC_IDLEN];
	struct stat st;
	void *map;
	int fd, dfd;

	if (!kcache_enabled(s) || boot_id(s, id) < 0 || (dfd = kcache_dir(s->cache_dir)) < 0)
		return -1;
	fd = openat(dfd, "kallsyms", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size < (off_t)sizeof(struct kc_head) ||
	    st.st_size > (off_t)KC_MAXSIZE) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	if (kcache_parse(s, map, (size_t)st.st_size, id) < 0) {
		munmap(map, (size_t)st.st_size);
		return -1;
	}
	s->kcache_map = map;
	s->kcache_len = (size_t)st.st_size;
	return 0;
}

/* The cached name of IP, in [core_lo, core_hi]: as find_sym on the full
 * table (a symbol spans up to the next one). */
static const char *
kcache_find(const struct ty_symbols *s, uint64_t ip)
{
	const struct kc_ent *e = s->kc_ent;
	size_t lo = 0, hi = s->kc_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	if (lo < s->kc_n || ip - e[lo - 1].addr < 4096)
		return s->kc_arena + e[lo - 1].name;
	return NULL;
}

static void
load_kallsyms(struct ty_symbols *s)
{
	const char *path = s->kallsyms_path ? s->kallsyms_path : "/proc/kallsyms";
	struct dso *d = &s->kernel;
	FILE *fp = fopen(path, "r");
	char *buf = NULL, *p, *name, type;
	unsigned char *core = NULL;
	unsigned long long addr;
	size_t cap = 0, alen = 0, acap = 0, len = 0, bcap = 0, n, i;
	int nonzero = 0, iscore = 0, cache;
	uint64_t lo = 0, hi = 0;

	if (!fp) {
		warn(s, "cannot read %s: %s; kernel addresses shown raw", path, strerror(errno));
		return;
	}
	s->kallsyms_reads++;
	do { /* /proc files have no size: read in chunks */
		if (len + 65536 + 1 > bcap) {
			char *nb = realloc(buf, bcap = bcap ? 2 * bcap : 1 << 20);
			if (!nb)
				break;
			buf = nb;
		}
		n = fread(buf + len, 1, bcap - len - 1, fp);
		len += n;
	} while (n > 0);
	fclose(fp);
	if (!s->kmod) /* before kallsyms_line cuts the lines */
		ty_kmod_parse(&s->kmod, buf, len);
	for (p = buf; p && p < buf + len;) {
		size_t off;
		p = kallsyms_line(p, buf + len, &addr, &type, &name, &iscore);
		if (!name || (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		if (addr)
			nonzero = 1;
		if (d->nsyms == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			struct sym *ns = realloc(d->syms, nc * sizeof(*ns));
			unsigned char *nf;
			if (ns)
				d->syms = ns;
			if (!ns || !(nf = realloc(core, nc)))
				break;
			core = nf;
			cap = nc;
		}
		if ((off = arena_add(&d->names, &alen, &acap, name)) == (size_t)-1)
			break;
		d->syms[d->nsyms] = (struct sym){.addr = addr,
						 .name = (const char *)(uintptr_t)off,
						 .seq = (uint32_t)d->nsyms,
						 .under = kernel_under(name)};
		core[d->nsyms] = (unsigned char)iscore;
		d->nsyms++;
	}
	free(buf);
	for (i = 0; i < d->nsyms; i++)
		d->syms[i].name = d->names + (uintptr_t)d->syms[i].name;
	if (!nonzero) {
		d->nsyms = 0;
		free(core);
		warn(s, "%s shows no addresses (kptr_restrict?): kernel addresses shown raw", path);
		return;
	}
	/* Not when the cache was read: it is good. */
	cache = !s->kcache_map && kcache_enabled(s) &&
		core_range(d->syms, core, d->nsyms, &lo, &hi) == 0;
	free(core);
	finish_syms(d);
	if (cache)
		kcache_save(s, d, lo, hi);
}

/* Make the kernel table cover IP: the cached core table when it does,
 * else the whole of kallsyms (read once). */
static void
kernel_table(struct ty_symbols *s, uint64_t ip)
{
	if (!s->kernel_tried) {
		s->kernel_tried = 1;
		if (kcache_load(s) < 0)
			load_kallsyms(s);
	}
	if (s->kernel_partial && (ip < s->core_lo || ip > s->core_hi)) {
		s->kernel_partial = 0; /* the cached names stay valid: results keep them */
		load_kallsyms(s);
	}
}

/* --- address spaces ----------------------------------------------------- */

static struct space *
get_space(struct ty_symbols *s, uint32_t pid, int create)
{
	struct space *sp;

	for (sp = s->spaces[pid % NBUCKET]; sp; sp = sp->next)
		if (sp->pid == pid)
			return sp;
	if (!create || !(sp = calloc(1, sizeof(*sp))))
		return NULL;
	sp->pid = pid;
	sp->next = s->spaces[pid % NBUCKET];
	s->spaces[pid % NBUCKET] = sp;
	return sp;
}

/* Does [LO, HI) of file D at PGOFF cover addresses a mapping of SP (since
 * its exec) gave to another file or another part of the file? */
static int
replaces(const struct space *sp, uint64_t lo, uint64_t hi, uint64_t pgoff, const struct dso *d)
{
	size_t i;

	for (i = 0; i < sp->nmaps; i++) {
		const struct map *m = &sp->maps[i];
		if (m->start < hi && lo < m->end && m->time >= sp->exec_time &&
		    (m->dso != d || m->start - m->pgoff != lo - pgoff))
			return 1;
	}
	return 0;
}

/* Keep the change times of SP sorted (records come nearly in order). */
static int
add_change(struct space *sp, uint64_t time)
{
	size_t i;

	if (sp->nchanges == sp->capchanges) {
		size_t nc = sp->capchanges ? 2 * sp->capchanges : 4;
		uint64_t *n = realloc(sp->changes, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		sp->changes = n;
		sp->capchanges = nc;
	}
	for (i = sp->nchanges; i > 0 && sp->changes[i - 1] > time; i--)
		sp->changes[i] = sp->changes[i - 1];
	sp->changes[i] = time;
	sp->nchanges++;
	return 0;
}

size_t
ty_symbols_epoch(struct ty_symbols *s, uint32_t pid, uint64_t time)
{
	struct space *sp = get_space(s, pid, 0);
	size_t lo = 0, hi;

	if (!sp || !sp->nchanges)
		return 0;
	for (hi = sp->nchanges; lo < hi;) { /* changes at or before TIME */
		size_t mid = (lo + hi) / 2;
		if (sp->changes[mid] <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
ty_symbols_add_mmap(struct ty_symbols *s, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *file, uint64_t time)
{
	struct space *sp = get_space(s, pid, 1);
	struct dso *d = get_dso(s, file);

	if (!sp || !d)
		return -ENOMEM;
	if (replaces(sp, start, start + len, pgoff, d) && add_change(sp, time) < 0)
		return -ENOMEM;
	if (sp->nmaps == sp->cap) {
		size_t nc = sp->cap ? sp->cap * 2 : 16;
		struct map *nm = realloc(sp->maps, nc * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		sp->maps = nm;
		sp->cap = nc;
	}
	sp->maps[sp->nmaps++] = (struct map){start, start + len, pgoff, time, d};
	return 0;
}

int
ty_symbols_fork(struct ty_symbols *s, uint32_t pid, uint32_t ppid, uint64_t time)
{
	struct space *sp;

	if (pid == ppid)
		return 0;
	if (!(sp = get_space(s, pid, 1)))
		return -ENOMEM;
	sp->ppid = ppid;
	sp->fork_time = time;
	sp->has_parent = 1;
	return 0;
}

int
ty_symbols_exec(struct ty_symbols *s, uint32_t pid, uint64_t time)
{
	struct space *sp = get_space(s, pid, 1);

	size_t i;

	if (!sp || add_change(sp, time) < 0)
		return -ENOMEM;
	if (sp->nexecs == sp->capexecs) {
		size_t nc = sp->capexecs ? 2 * sp->capexecs : 4;
		uint64_t *n = realloc(sp->execs, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		sp->execs = n;
		sp->capexecs = nc;
	}
	for (i = sp->nexecs; i > 0 && sp->execs[i - 1] > time; i--)
		sp->execs[i] = sp->execs[i - 1];
	sp->execs[i] = time;
	sp->nexecs++;
	/* The parent's mappings are gone from then on (samples from before
	 * still see them: see exec_window). */
	sp->exec_time = sp->execs[sp->nexecs - 1];
	return 0;
}

/* The exec epoch of SP holding TIME: [*LO, *HI) between its execs; returns
 * 1 when an exec came at or before TIME (the parent's mappings are gone). */
static int
exec_window(const struct space *sp, uint64_t time, uint64_t *lo, uint64_t *hi)
{
	size_t a = 0, b = sp->nexecs;

	while (a < b) { /* the first exec after TIME */
		size_t mid = (a + b) / 2;
		if (sp->execs[mid] <= time)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a > 0 ? sp->execs[a - 1] : 0;
	*hi = a < sp->nexecs ? sp->execs[a] : UINT64_MAX;
	return a > 0;
}

/* PID already has this mapping (since its last exec). */
static int
known(struct ty_symbols *s, uint32_t pid, uint64_t lo, uint64_t hi, uint64_t off, const char *file)
{
	struct space *sp = get_space(s, pid, 0);
	size_t i;

	for (i = 0; sp && i < sp->nmaps; i++) {
		const struct map *m = &sp->maps[i];
		if (m->start == lo && m->end == hi && m->pgoff == off && m->time >= sp->exec_time &&
		    strcmp(m->dso->path, file) == 0)
			return 1;
	}
	return 0;
}

int
ty_symbols_load_maps(struct ty_symbols *s, const char *root, uint32_t pid, uint64_t time,
		     struct ty_error *e)
{
	char path[4096], line[4096 + 128], perms[8], file[4096];
	unsigned long long lo, hi, off;
	FILE *fp;
	int n, added = 0;

	snprintf(path, sizeof(path), "%s/%u/maps", root, pid);
	if (!(fp = fopen(path, "r")))
		return ty_error_set(e, -errno, "cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		file[0] = '\0';
		n = sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &lo, &hi, perms, &off,
			   file);
		if (n < 4 || !strchr(perms, 'x') || !file[0] || known(s, pid, lo, hi, off, file))
			continue;
		if (ty_symbols_add_mmap(s, pid, lo, hi - lo, off, file, time) < 0) {
			fclose(fp);
			return ty_error_set(e, -ENOMEM, "out of memory");
		}
		added++;
	}
	fclose(fp);
	return added;
}

/* The mapping of PID covering IP at TIME: the latest one mapped before TIME
 * (and after the exec before TIME); else the first one seen after TIME and
 * before the next exec (a mapping read from /proc/PID/maps carries the time
 * it was read, not the time it was made); else, when no exec came before
 * TIME, the parent's at the fork (a child's samples before its exec are in
 * its parent's image); else, after an exec, the image before it (the
 * kernel samples the old program's registers while it runs the exec); else
 * any that covers it. */
static const struct map *
find_map(struct ty_symbols *s, uint32_t pid, uint64_t ip, uint64_t time, int depth)
{
	struct space *sp = get_space(s, pid, 0);
	const struct map *best = NULL, *next = NULL, *any = NULL;
	uint64_t lo, hi;
	size_t i;
	int execd;

	if (!sp || depth > 64)
		return NULL;
	execd = exec_window(sp, time, &lo, &hi);
	for (i = 0; i < sp->nmaps; i++) {
		const struct map *m = &sp->maps[i];
		if (ip < m->start || ip >= m->end)
			continue;
		if (m->time <= time && m->time >= lo && (!best || m->time >= best->time))
			best = m;
		if (m->time > time && m->time < hi && (!next || m->time < next->time))
			next = m;
		if (!any || m->time >= any->time)
			any = m;
	}
	if (best)
		return best;
	if (next)
		return next;
	if (sp->has_parent && !execd) {
		const struct map *m = find_map(s, sp->ppid, ip, sp->fork_time, depth + 1);
		if (m)
			return m;
	}
	if (execd && lo > 0) {
		/* In no mapping of the new program: the user registers of a
		 * sample taken while the kernel ran the exec are still the old
		 * program's (its execve call), the stack already gone. */
		const struct map *m = find_map(s, pid, ip, lo - 1, depth + 1);
		if (m)
			return m;
	}
	return any;
}

int
ty_symbols_covers(struct ty_symbols *s, uint32_t pid, uint64_t ip)
{
	struct space *sp = get_space(s, pid, 0);
	uint64_t until = UINT64_MAX;
	size_t i;
	int depth;

	/* Only mappings since the last exec count (a binary exec'd later may
	 * sit where the old one did), and a parent's only from before the fork. */
	for (depth = 0; sp && depth <= 64; depth++) {
		for (i = 0; i < sp->nmaps; i++) {
			const struct map *m = &sp->maps[i];
			/* (a parent's exec after the fork is not the child's) */
			if (ip >= m->start && ip < m->end && m->time <= until &&
			    (m->time >= sp->exec_time || sp->exec_time > until))
				return 1;
		}
		if (!sp->has_parent || (sp->nexecs && sp->execs[0] <= until))
			break;
		until = sp->fork_time;
		sp = get_space(s, sp->ppid, 0);
	}
	return 0;
}

static uint64_t
file_vaddr(const struct dso *d, uint64_t off)
{
	size_t i;

	for (i = 0; i < d->nsegs; i++)
		if (off >= d->segs[i].off && off < d->segs[i].off + d->segs[i].filesz)
			return off - d->segs[i].off + d->segs[i].vaddr;
	return off;
}

/* --- JIT code: perf maps ------------------------------------------------- */

/* A file we can read symbols from (not "//anon", "[heap]", "[anon:x]"). */
static int
is_file(const char *path)
{
	return (path[0] == '/' && path[1] != '/') || strcmp(path, "[vdso]") == 0;
}

static int
jit_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->seq < y->seq) - (x->seq > y->seq); /* the latest first */
}

static int
hex_field(const char **p, const char *end, uint64_t *out)
{
	const char *q = *p;
	uint64_t v = 0;
	int n = 0;

	if (end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	for (; q < end; q++, n++) {
		int c = *q, d = c >= '0' && c <= '9'   ? c - '0'
				: c >= 'a' && c <= 'f' ? c - 'a' + 10
				: c >= 'A' && c <= 'F' ? c - 'A' + 10
						       : -1;
		if (d < 0)
			break;
		if (n == 16)
			return -1;
		v = v << 4 | (unsigned)d;
	}
	if (n == 0)
		return -1;
	*p = q;
	*out = v;
	return 0;
}

/* One perf map line [P, END): "START SIZE name", hex numbers. */
static int
perf_map_line(const char *p, const char *end, uint64_t *start, uint64_t *size, const char **name,
	      size_t *len)
{
	if (memchr(p, '\0', (size_t)(end - p)))
		return -1;
	if (end > p && end[-1] == '\r')
		end--;
	if (hex_field(&p, end, start) < 0 || p == end || (*p != ' ' && *p != '\t'))
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (hex_field(&p, end, size) < 0 || p == end || (*p != ' ' && *p != '\t'))
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *size == 0 || *start + *size < *start)
		return -1;
	*name = p;
	*len = (size_t)(end - p) > 1024 ? 1024 : (size_t)(end - p);
	return 0;
}

long
ty_symbols_add_perf_map(struct ty_symbols *s, uint32_t pid, const char *buf, size_t len)
{
	struct space *sp = get_space(s, pid, 1);
	const char *p = buf, *end = buf + len;
	size_t cap = 0, i, n = 0;
	long skipped = 0;
	char path[4200];

	if (!sp)
		return -ENOMEM;
	sp->jit_tried = 1;
	free(sp->jit);
	pool_free(sp->jit_pool);
	free(sp->jit_path);
	sp->jit = NULL;
	sp->jit_pool = NULL;
	sp->njit = 0;
	snprintf(path, sizeof(path), "%s/perf-%u.map", s->perf_map_dir ? s->perf_map_dir : "/tmp",
		 pid);
	if (!(sp->jit_path = strdup(path)))
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *name;
		uint64_t start, size;
		size_t nlen;
		if (!nl)
			nl = end;
		if (nl == p || (nl - p == 1 && *p == '\r')) { /* empty line */
			p = nl + 1;
			continue;
		}
		if (perf_map_line(p, nl, &start, &size, &name, &nlen) < 0) {
			skipped++;
		} else {
			if (sp->njit == cap) {
				size_t nc = cap ? 2 * cap : 64;
				struct jit_sym *nj = realloc(sp->jit, nc * sizeof(*nj));
				if (!nj)
					return -ENOMEM;
				sp->jit = nj;
				cap = nc;
			}
			if (!(sp->jit[sp->njit].name = pool_addn(&sp->jit_pool, name, nlen)))
				return -ENOMEM;
			sp->jit[sp->njit].start = start;
			sp->jit[sp->njit].end = start + size;
			sp->jit[sp->njit].seq = (uint32_t)sp->njit;
			sp->njit++;
		}
		p = nl + 1;
	}
	if (sp->njit)
		qsort(sp->jit, sp->njit, sizeof(*sp->jit), jit_cmp);
	for (i = 0; i < sp->njit; i++) /* one entry per start: the latest */
		if (n == 0 || sp->jit[n - 1].start != sp->jit[i].start)
			sp->jit[n++] = sp->jit[i];
	sp->njit = n;
	return skipped;
}

#define PERF_MAP_MAX (256u << 20)

/* Read /tmp/perf-PID.map once, when it is a regular file of ours (or
 * root's), as perf does: another user's file could name our code. */
static void
load_perf_map(struct ty_symbols *s, struct space *sp)
{
	char path[4200], *buf;
	struct stat st;
	long skipped;
	size_t got = 0;
	ssize_t n;
	int fd;

	sp->jit_tried = 1;
	snprintf(path, sizeof(path), "%s/perf-%u.map", s->perf_map_dir ? s->perf_map_dir : "/tmp",
		 sp->pid);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)PERF_MAP_MAX) {
		close(fd);
		return;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		warn(s, "%s is not owned by this user or root: ignored", path);
		close(fd);
		return;
	}
	if (!(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return;
	}
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	skipped = ty_symbols_add_perf_map(s, sp->pid, buf, got);
	free(buf);
	if (skipped > 0)
		warn(s, "%s: %ld malformed line%s skipped", path, skipped, skipped == 1 ? "" : "s");
}

/* Name IP from PID's perf map (JIT code); 1 when it does. */
static int
jit_symbol(struct ty_symbols *s, uint32_t pid, uint64_t ip, struct ty_sym_result *r)
{
	struct space *sp = get_space(s, pid, 0);
	size_t lo = 0, hi;

	if (!sp)
		return 0;
	if (!sp->jit_tried)
		load_perf_map(s, sp);
	for (hi = sp->njit; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp->jit[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || ip >= sp->jit[lo - 1].end)
		return 0;
	r->name = sp->jit[lo - 1].name;
	r->dso = sp->jit_path;
	r->addr = ip;
	return 1;
}

/* A kernel address in a module: its symbol, the module as DSO ("[ext4]"),
 * from the module table load_kallsyms made (none while the cached core
 * table covers IP). */
static int
module_symbol(struct ty_symbols *s, uint64_t ip, struct ty_sym_result *r)
{
	const char *mod, *name;

	if (s->kernel_partial || !(name = ty_kmod_lookup(s->kmod, ip, &mod)))
		return 0;
	r->name = name;
	r->dso = mod;
	return 1;
}

void
ty_symbols_resolve(struct ty_symbols *s, uint32_t pid, uint64_t ip, uint64_t time, int kernel,
		   struct ty_sym_result *r)
{
	const struct map *m;
	const struct sym *sym;

	memset(r, 0, sizeof(*r));
	r->addr = ip;
	if (kernel || ip >= TY_KERNEL_START) {
		r->kernel = 1;
		r->dso = "[kernel.kallsyms]";
		kernel_table(s, ip);
		if (module_symbol(s, ip, r))
			return;
		if (s->kernel_partial) {
			r->name = kcache_find(s, ip);
			return;
		}
		sym = find_sym(&s->kernel, ip);
		r->name = sym ? sym->name : NULL;
		return;
	}
	m = find_map(s, pid, ip, time, 0);
	if (!m) {
		if (!jit_symbol(s, pid, ip, r))
			r->dso = "[unknown]";
		return;
	}
	if (!is_file(m->dso->path) && jit_symbol(s, pid, ip, r))
		return;
	r->dso = m->dso->path;
	r->handle = m->dso;
	if (!m->dso->loaded) {
		m->dso->loaded = 1;
		load_dso(s, m->dso);
	}
	r->addr = file_vaddr(m->dso, ip - m->start + m->pgoff);
	r->name = dso_symbol(s, m->dso, r->addr);
}

/* --- inline frames and source lines ------------------------------------- */

#ifdef HAVE_LIBDW
/* The name of the function DIE (following its abstract origin):
 * demangled linkage name, else DW_AT_name. */
static const char *
die_name(struct dso *d, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	char *dm;

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (n && (dm = ty_symbols_demangle(n))) {
		const char *p = pool_add(&d->pool, dm);
		free(dm);
		if (p)
			return p;
	}
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}
#endif

size_t
ty_symbols_frames(struct ty_symbols *s, const struct ty_sym_result *r, struct ty_sym_frame *frames,
		  size_t max)
{
#ifdef HAVE_LIBDW
	struct dso *d = (struct dso *)r->handle;
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Line *l;
	const char *file = NULL;
	size_t n = 0, nfiles = 0;
	int nscopes, i, line = 0;

	(void)s;
	if (!d || !d->dwarf || !r->name || max == 0 || r->kernel ||
	    !dwarf_addrdie(d->dwarf, r->addr, &cu))
		return 0;
	if ((l = dwarf_getsrc_die(&cu, r->addr))) {
		file = dwarf_linesrc(l, NULL, NULL);
		dwarf_lineno(l, &line);
	}
	nscopes = dwarf_getscopes(&cu, r->addr, &scopes);
	dwarf_getsrcfiles(&cu, &files, &nfiles);
	for (i = 0; i < nscopes && n + 1 < max; i++) {
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0;
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		frames[n].name = die_name(d, &scopes[i]);
		if (!frames[n].name)
			frames[n].name = "?";
		frames[n].file = file ? base_name(file) : NULL;
		frames[n].line = line > 0 ? (unsigned)line : 0;
		frames[n].inlined = 1;
		n++;
		/* The caller's line: where this callee was inlined. */
		file = NULL;
		line = 0;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &cf) == 0 &&
		    files && cf < nfiles)
			file = dwarf_filesrc(files, cf, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &cl) == 0)
			line = (int)cl;
	}
	free(scopes);
	frames[n].name = r->name;
	frames[n].file = file ? base_name(file) : NULL;
	frames[n].line = line > 0 ? (unsigned)line : 0;
	frames[n].inlined = 0;
	return n + 1;
#else
	(void)s, (void)r, (void)frames, (void)max;
	return 0;
#endif
}

int
ty_symbols_find_map(struct ty_symbols *s, uint32_t pid, uint64_t ip, uint64_t time,
		    struct ty_sym_map *out)
{
	const struct map *m = find_map(s, pid, ip, time, 0);

	if (!m)
		return -1;
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	out->path = m->dso->path;
	return 0;
}
