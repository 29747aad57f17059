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

#include "tachy/symbols.h"

struct sym {
	uint64_t addr, size;
	const char *name; /* in the DSO's name arena */
};

struct seg {
	uint64_t off, vaddr, filesz;
	int exec;
};

struct dso {
	char *path;
	int loaded;
	struct sym *syms;
	size_t nsyms;
	struct seg *segs;
	size_t nsegs;
	char *names;	    /* arena of symbol names */
	char build_id[130]; /* GNU build-id in hex, "" when none */
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
	unsigned kallsyms_reads;
	char **warnings;
	size_t nwarnings;
	int warned_noelf;
};

struct ty_symbols *
ty_symbols_new(void)
{
	return calloc(1, sizeof(struct ty_symbols));
}

static void
dso_release(struct dso *d)
{
	free(d->path);
	free(d->syms);
	free(d->segs);
	free(d->names);
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
	free(s->cache_dir);
	free(s->boot_id_path);
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
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1; /* sized first */
	/* Then the first read (names are in the arena in reading order), so
	 * that which of several aliases names an address does not depend on
	 * qsort. */
	return ((uintptr_t)x->name > (uintptr_t)y->name) -
	       ((uintptr_t)x->name < (uintptr_t)y->name);
}

/* Give the size-less symbols of the sorted SYMS the room up to the next. */
static void
fill_sizes(struct sym *syms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (syms[i].size == 0)
			syms[i].size = i + 1 < n ? syms[i + 1].addr - syms[i].addr : 4096;
}

/* Sort, drop duplicates, and give size-less symbols the room up to the next. */
static void
finish_syms(struct dso *d)
{
	size_t i, n = 0;

	if (!d->nsyms)
		return;
	qsort(d->syms, d->nsyms, sizeof(*d->syms), by_addr);
	for (i = 0; i < d->nsyms; i++)
		if (n == 0 || d->syms[n - 1].addr != d->syms[i].addr)
			d->syms[n++] = d->syms[i];
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

#ifdef HAVE_LIBELF
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

/* Add the function symbols of one symbol table section. Offsets into the
 * arena are kept in .name until the arena stops moving. */
static int
read_symtab(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct dso *d, char **arena, size_t *alen,
	    size_t *acap, size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Sym sym;

	if (!data || sh->sh_entsize == 0)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		const char *name;
		size_t off;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value == 0)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (d->nsyms == *cap) {
			size_t nc = *cap ? *cap * 2 : 1024;
			struct sym *ns = realloc(d->syms, nc * sizeof(*ns));
			if (!ns)
				return -1;
			d->syms = ns;
			*cap = nc;
		}
		if ((off = arena_add(arena, alen, acap, name)) == (size_t)-1)
			return -1;
		d->syms[d->nsyms].addr = sym.st_value;
		d->syms[d->nsyms].size = sym.st_size;
		d->syms[d->nsyms].name = (const char *)(uintptr_t)off;
		d->nsyms++;
	}
	return 0;
}

/* Read the function symbols of ELF into D; returns 1 when it had a .symtab
 * (a full table), 0 when only .dynsym or nothing. SEGS: also read the
 * program headers (not for separate debug files, whose layout is the
 * stripped file's). */
static int
read_elf_syms(struct ty_symbols *s, struct dso *d, Elf *elf, int segs)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t acap = 0, alen = 0, cap = 0, i;
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
		if (read_symtab(elf, scn, &sh, d, &d->names, &alen, &acap, &cap) < 0)
			break;
	}
	for (i = 0; i < d->nsyms; i++)
		d->syms[i].name = d->names + (uintptr_t)d->syms[i].name;
	return full;
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

/* A stripped file: the full symbol table may be in a separate debug file
 * under /usr/lib/debug (by build-id, else by path). */
static int
read_debug_file(struct ty_symbols *s, struct dso *d, Elf *elf)
{
	char hex[130], path[4200];
	int fd = -1, full = 0;
	Elf *dbg;

	if (build_id(elf, hex) == 0) {
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
			 hex + 2);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		snprintf(path, sizeof(path), "/usr/lib/debug%s.debug", d->path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return 0;
	if ((dbg = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		struct dso tmp = {.path = d->path};
		if (read_elf_syms(s, &tmp, dbg, 0) && tmp.nsyms) { /* replaces .dynsym */
			free(d->syms);
			free(d->names);
			d->syms = tmp.syms;
			d->nsyms = tmp.nsyms;
			d->names = tmp.names;
			full = 1;
		} else {
			free(tmp.syms);
			free(tmp.names);
		}
		elf_end(dbg);
	}
	close(fd);
	return full;
}

static void
read_elf(struct ty_symbols *s, struct dso *d, Elf *elf, int debug)
{
	int full = read_elf_syms(s, d, elf, 1);

	if (build_id(elf, d->build_id) < 0)
		d->build_id[0] = '\0';
	if (!full && debug)
		full = read_debug_file(s, d, elf);
	finish_syms(d);
	if (d->nsyms == 0 && !full)
		warn(s,
		     "%s is stripped (no .symtab, no debug file, no exported functions): "
		     "its addresses are shown raw",
		     d->path);
	else if (d->nsyms == 0)
		warn(s, "no function symbols in %s: its addresses are shown raw", d->path);
	else if (!full && debug)
		warn(s,
		     "%s is stripped (no .symtab, no debug file): only its exported functions "
		     "are named",
		     d->path);
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
				elf_end(elf);
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
	if (d->path[0] != '/')
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
	} else {
		read_elf(s, d, elf, 1);
		elf_end(elf);
	}
	close(fd);
}
#else
static void
load_dso(struct ty_symbols *s, struct dso *d)
{
	if (!s->warned_noelf)
		warn(s, "not built with elfutils: user-space addresses shown raw");
	s->warned_noelf = 1;
}
#endif

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
	return sym ? sym->name : NULL;
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

/* The per-boot cache of the core kernel's symbols: one file, DIR/kallsyms,
 * in the machine's byte order:
 *   struct kc_head, then nsyms struct kc_ent sorted by strictly increasing
 *   address (no duplicates), then arena_len bytes of NUL-terminated names
 *   (the last byte a NUL) that the entries point into. */
#define KC_MAGIC "TYKSYMS\n"
#define KC_VERSION 1
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

/* Write LEN bytes of BUF to DIR/kallsyms: a temporary file, then a rename. */
static void
kcache_put(const char *dir, const char *buf, size_t len)
{
	char tmp[4200], dst[4200];
	int fd, ok;

	if ((size_t)snprintf(dst, sizeof(dst), "%s/kallsyms", dir) >= sizeof(dst) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/.kallsyms.XXXXXX", dir) >= sizeof(tmp) ||
	    make_dirs(dir) < 0 || (fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		return;
	ok = fchmod(fd, 0600) == 0 && write_all(fd, buf, len) == 0;
	if (close(fd) != 0)
		ok = 0;
	if (!ok || rename(tmp, dst) != 0)
		unlink(tmp);
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
	char id[KC_IDLEN], path[4200];
	struct stat st;
	void *map;
	int fd;

	if (!kcache_enabled(s) || boot_id(s, id) < 0 ||
	    (size_t)snprintf(path, sizeof(path), "%s/kallsyms", s->cache_dir) >= sizeof(path) ||
	    (fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
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
		d->syms[d->nsyms].addr = addr;
		d->syms[d->nsyms].size = 0;
		d->syms[d->nsyms].name = (const char *)(uintptr_t)off;
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

	if (!sp || add_change(sp, time) < 0)
		return -ENOMEM;
	sp->exec_time = time;
	sp->has_parent = 0; /* the parent's mappings are gone */
	return 0;
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
 * (and after the last exec); else the first one seen after TIME (a mapping
 * read from /proc/PID/maps carries the time it was read, not the time it
 * was made); else the parent's at the fork; else any that covers it. */
static const struct map *
find_map(struct ty_symbols *s, uint32_t pid, uint64_t ip, uint64_t time, int depth)
{
	struct space *sp = get_space(s, pid, 0);
	const struct map *best = NULL, *next = NULL, *any = NULL;
	size_t i;

	if (!sp || depth > 64)
		return NULL;
	for (i = 0; i < sp->nmaps; i++) {
		const struct map *m = &sp->maps[i];
		if (ip < m->start || ip >= m->end)
			continue;
		if (m->time <= time && m->time >= sp->exec_time && (!best || m->time >= best->time))
			best = m;
		if (m->time > time && m->time >= sp->exec_time && (!next || m->time < next->time))
			next = m;
		if (!any || m->time >= any->time)
			any = m;
	}
	if (best)
		return best;
	if (next)
		return next;
	if (sp->has_parent) {
		const struct map *m = find_map(s, sp->ppid, ip, sp->fork_time, depth + 1);
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
		if (!sp->has_parent)
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
		r->dso = "[unknown]";
		return;
	}
	r->dso = m->dso->path;
	if (!m->dso->loaded) {
		m->dso->loaded = 1;
		load_dso(s, m->dso);
	}
	r->addr = file_vaddr(m->dso, ip - m->start + m->pgoff);
	sym = find_sym(m->dso, r->addr);
	r->name = sym ? sym->name : NULL;
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
