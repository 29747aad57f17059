/* dso.c - one file's symbols (ELF, its debug files, MiniDebugInfo), names
 * for code without symbols, and its DWARF's inline frames and lines. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#include "tachy/crc32.h"
#include "tachy/debugcache.h"
#include "tachy/demangle.h"
#include "tachy/dso.h"
#include "tachy/dynlib.h"
#include "tachy/elfsyms.h"
#include "tachy/elfview.h"
#include "tachy/safefile.h"

/* A function range of the call-frame information, named DSO+0xSTART. */
struct fde_name {
	uint64_t start;
	const char *name;
};

struct seg {
	uint64_t off, vaddr, filesz;
	int exec;
};

/* The line-table rows one file's DWARF handle keeps before it is renewed
 * (~120 bytes each in libdw, with its index). */
#define LINES_HELD 16384

struct ty_dso {
	struct ty_dsos *set;
	char *path;
	/* the file the first mapping held (ino 0: not known), and where it is
	 * read: PATH, /proc/self/fd/SRC_FD (PATH replaced, the mapping's file
	 * kept from /proc/PID/map_files), or "" (replaced: left raw) */
	uint64_t dev, ino, lo, hi;
	uint32_t pid;
	char src[64 + 4096];
	int src_fd;
	char gone[TY_SAFEFILE_WHY]; /* what PATH is now, when "" */
	int loaded;		    /* read once: its segments and build-id are known */
	int released;		    /* ...and what else it held let go (ty_dso_release) */
	struct ty_symtab tab;
	struct seg *segs;
	size_t nsegs;
	char build_id[130]; /* GNU build-id in hex, "" when none */
	const char *base;   /* basename of path */
	/* Kept open for lookups after loading: the file, and the DWARF of it
	 * or of its debug file (inline frames and lines). Its call-frame
	 * information (function ranges) is the cache's table of the file. */
	int fd, dbg_fd;
	void *elf, *dbg_elf, *dwarf;
	void *dwarf_elf;     /* the ELF the DWARF is read from */
	void *map, *dbg_map; /* their images, where libelf mapped them */
	size_t maplen, dbg_maplen;
	uint64_t cu_off;	      /* the last compilation unit looked in (+1; 0 none) */
	size_t lines_held;	      /* line-table rows libdw holds since it was opened */
	struct ty_debugcache_out unz; /* the DWARF's image, decompressed (debugcache.h) */
	struct fde_name *fdes;
	size_t nfdes, capfdes; /* open addressing on start, 0 empty */
	struct ty_dso *next;
};

struct ty_dsos {
	struct ty_dso *dsos;
	struct ty_cfi_cache *cfi;
	struct ty_symtab_warnings *warn;
	int warned_noelf;
	char *debug_root; /* "/usr/lib/debug" unless set */
	char *cache_dir;  /* decompressed debug files (debugcache.h); NULL: none */
	void *debuginfod; /* a debuginfod_client, when DEBUGINFOD_URLS is set */
	int debuginfod_tried;
};

/* Where D is read: its path while it holds the mapping's file, else that
 * file from /proc/PID/map_files (kept open), else nowhere (left raw). */
static int
judge(struct ty_dso *d)
{
	int r = ty_safefile_mapped(d->path, d->pid, d->lo, d->hi, d->dev, d->ino, d->src,
				   sizeof(d->src), &d->src_fd, d->gone);

	if (r < 0)
		d->src[0] = '\0';
	else if (r > 0)
		ty_symtab_warn(d->set->warn,
			       "%s %s: named from /proc/%u/map_files/%llx-%llx, the file it mapped",
			       d->path, d->gone, d->pid, (unsigned long long)d->lo,
			       (unsigned long long)d->hi);
	return r;
}

static const char *
base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

#ifdef HAVE_LIBELF

/* CRC-32 (as .gnu_debuglink and zlib compute it) of the file FD. */
static int
file_crc32(int fd, uint32_t *out)
{
	unsigned char buf[65536];
	uint32_t crc = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = ty_crc32(crc, buf, (size_t)n);
	if (n < 0)
		return -1;
	*out = crc;
	return 0;
}

static int
read_segs(Elf *elf, struct ty_dso *d)
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

/* Add the symbols of ELF to D; returns 1 when it had a .symtab (a full
 * table), 0 when only .dynsym or nothing. SEGS: also read the program
 * headers (not for separate debug files, whose layout is the stripped
 * file's). */
static int
read_elf_syms(struct ty_dsos *s, struct ty_dso *d, Elf *elf, int segs)
{
	if (elf_kind(elf) != ELF_K_ELF || (segs && read_segs(elf, d) < 0)) {
		ty_symtab_warn(
		    s->warn, "cannot read symbols of %s: not a valid ELF file; addresses shown raw",
		    d->path);
		return 0;
	}
	return ty_elfsyms_read(&d->tab, elf, s->warn, d->path);
}

/* Open PATH as the debug file of D when it is a regular file other than D
 * itself; WANT_CRC: its CRC-32 must be CRC (debuglink); WANT_ID: its
 * build-id must be D's when both have one. */
static int
open_debug(struct ty_dsos *s, struct ty_dso *d, const char *path, int want_crc, uint32_t crc,
	   int want_id)
{
	struct stat st, self;
	uint32_t got;
	char why[TY_SAFEFILE_WHY];
	int fd = ty_safefile_open(path, NULL, &st, why);

	if (fd == -EINVAL) /* a FIFO, a device: never a debug file */
		ty_symtab_warn(s->warn, "debug file %s %s: ignored", path, why);
	if (fd < 0)
		return -1;
	if (stat(d->src, &self) == 0 && self.st_ino == st.st_ino && self.st_dev == st.st_dev)
		goto no;
	if (want_crc && (file_crc32(fd, &got) < 0 || got != crc)) {
		ty_symtab_warn(s->warn, "debug file %s does not match %s (CRC differs): ignored",
			       path, d->path);
		goto no;
	}
	if (want_id && *d->build_id) {
		char hex[130] = "";
		Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		size_t len = 0;
		const char *img = e ? elf_rawfile(e, &len) : NULL;
		int same =
		    ty_elfview_build_id_hex(img, len, hex) ? strcmp(hex, d->build_id) == 0 : 1;
		if (e)
			elf_end(e);
		if (!same) {
			ty_symtab_warn(
			    s->warn, "debug file %s does not match %s (build-id differs): ignored",
			    path, d->path);
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
debuglink(struct ty_dsos *s, struct ty_dso *d, Elf *elf, const char *root)
{
	GElf_Shdr sh;
	Elf_Scn *scn = ty_elfsyms_section(elf, ".gnu_debuglink", &sh);
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
		ty_symtab_warn(s->warn, "%s has a damaged .gnu_debuglink section: ignored",
			       d->path);
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

#ifdef HAVE_DEBUGINFOD
/* libdebuginfod's functions, loaded when DEBUGINFOD_URLS is first used
 * (dynlib.h): linked in, it and curl's 20 libraries would load with every
 * command. */
static struct {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_end) *end;
} dfd;

static int
dfd_load(struct ty_dsos *s)
{
	static const struct ty_dynlib_sym syms[] = {
	    {"debuginfod_begin", (void **)&dfd.begin},
	    {"debuginfod_find_debuginfo", (void **)&dfd.find_debuginfo},
	    {"debuginfod_end", (void **)&dfd.end}};
	struct ty_error e = {0};

	if (ty_dynlib_load("libdebuginfod.so.1", "libdebuginfod1", syms, 3, &e) == 0)
		return 0;
	ty_symtab_warn(s->warn, "DEBUGINFOD_URLS is set, but %s", e.msg);
	return -1;
}
#endif

/* A debug file for D: by build-id under the debug root, by .gnu_debuglink,
 * by path under the debug root, or from debuginfod (DEBUGINFOD_URLS). */
static int
find_debug_file(struct ty_dsos *s, struct ty_dso *d, Elf *elf)
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
			if (dfd_load(s) == 0)
				s->debuginfod = dfd.begin();
		}
		if (s->debuginfod) {
			fd = dfd.find_debuginfo(s->debuginfod, (const unsigned char *)d->build_id,
						0, NULL);
			if (fd < 0) {
				ty_symtab_warn(
				    s->warn,
				    "debuginfod has no debug file for %s (build-id %s): %s",
				    d->path, d->build_id, strerror(-fd));
				fd = -1;
			}
		}
	}
#endif
	return fd;
}

/* The image libelf mapped of ELF from FD, where it did (else NULL: what it
 * read into memory must not be let go). */
static void *
mapped_image(Elf *elf, int fd, size_t *len)
{
	char *img = elf_kind(elf) == ELF_K_ELF ? elf_rawfile(elf, len) : NULL;

	return img && ty_elfview_is_file_map(img, *len, fd) ? img : NULL;
}

/* Let the pages of D's mapped files go: they come back from the page cache
 * where read again. Its symbols are copies; a 100 MiB library's string
 * tables, or the DWARF a batch of addresses read, would otherwise stay in
 * the profiler's resident memory until the file is let go. */
static void
shed(struct ty_dso *d)
{
	if (d->map)
		madvise(d->map, d->maplen, MADV_DONTNEED);
	if (d->dbg_map)
		madvise(d->dbg_map, d->dbg_maplen, MADV_DONTNEED);
}

/* Read the symbols of a separate debug file FD into D, keeping it open
 * for its DWARF. Returns 1 when it had a full symbol table. */
static int
read_debug_file(struct ty_dsos *s, struct ty_dso *d, int fd)
{
	Elf *dbg = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int full;

	if (!dbg || elf_kind(dbg) != ELF_K_ELF) {
		ty_symtab_warn(s->warn, "the debug file of %s is not a valid ELF file: ignored",
			       d->path);
		if (dbg)
			elf_end(dbg);
		close(fd);
		return 0;
	}
	full = read_elf_syms(s, d, dbg, 0);
	d->dbg_fd = fd;
	d->dbg_elf = dbg;
	d->dbg_map = mapped_image(dbg, fd, &d->dbg_maplen);
	return full;
}

/* MiniDebugInfo: the .gnu_debugdata section is an xz-compressed ELF file
 * holding the symbols .dynsym lacks (Fedora's stripped binaries). */
#define MINIDEBUG_MAX (256u << 20)
static int
read_minidebuginfo(struct ty_dsos *s, struct ty_dso *d, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = ty_elfsyms_section(elf, ".gnu_debugdata", &sh);
	Elf_Data *data;

	if (!scn || sh.sh_type == SHT_NOBITS)
		return 0;
	if (!(data = elf_rawdata(scn, NULL)) || !data->d_buf || !data->d_size) {
		ty_symtab_warn(s->warn, "%s has a damaged .gnu_debugdata section: ignored",
			       d->path);
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
				/* not ty_array_grow: the first size comes from the
				 * input's, and the cap is MINIDEBUG_MAX */
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
			ty_symtab_warn(
			    s->warn, "cannot decompress the MiniDebugInfo of %s (%s): ignored",
			    d->path, r == LZMA_MEM_ERROR ? "too large" : "not valid xz data");
			lzma_end(&z);
			free(out);
			return 0;
		}
		mini = elf_memory((char *)out, z.total_out);
		if (mini && elf_kind(mini) == ELF_K_ELF) {
			full = read_elf_syms(s, d, mini, 0);
		} else {
			ty_symtab_warn(s->warn,
				       "the MiniDebugInfo of %s is not a valid ELF file: ignored",
				       d->path);
		}
		if (mini)
			elf_end(mini);
		lzma_end(&z);
		free(out);
		return full;
	}
#else
	ty_symtab_warn(
	    s->warn, "%s has MiniDebugInfo (.gnu_debugdata), but tachy was not built with liblzma",
	    d->path);
	return 0;
#endif
}

/* Does ELF carry DWARF of its own (a binary built with -g, not stripped)? */
static int
has_debug_info(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = ty_elfsyms_section(elf, ".debug_info", &sh);

	return scn && sh.sh_type != SHT_NOBITS;
}

static void
read_elf(struct ty_dsos *s, struct ty_dso *d, Elf *elf, int debug)
{
	int full = read_elf_syms(s, d, elf, 1), fd, dbgfile = 0;
	size_t len = 0;
	const char *img = elf_rawfile(elf, &len);

	ty_elfview_build_id_hex(img, len, d->build_id);
	ty_elfsyms_plt(&d->tab, elf);
	if (debug && !has_debug_info(elf) && (fd = find_debug_file(s, d, elf)) >= 0) {
		full |= read_debug_file(s, d, fd);
		dbgfile = 1;
	}
	if (!full && !dbgfile)
		full = read_minidebuginfo(s, d, elf);
	if (!full)
		ty_elfsyms_entry(&d->tab, elf, ty_cfi_cache_get(d->set->cfi, d->src));
#ifdef HAVE_LIBDW
	{
		struct ty_debugcache_out o;
		int r = ty_debugcache_get(s->cache_dir, d->build_id, d->dbg_elf ? d->dbg_elf : elf,
					  d->path, &o);
		if (*o.why)
			ty_symtab_warn(s->warn, "%s", o.why);
		d->unz = o;
		if (r == 0) {
			d->dwarf_elf = d->unz.elf ? d->unz.elf : d->dbg_elf ? d->dbg_elf : elf;
			d->dwarf = dwarf_begin_elf(d->dwarf_elf, DWARF_C_READ, NULL);
		}
	}
#endif
	ty_symtab_finish(&d->tab);
	if (!full && debug)
		ty_symtab_warn_stripped(s->warn, d->path, d->base);
}

static void
load_vdso(struct ty_dsos *s, struct ty_dso *d)
{
	size_t len = 0;
	const void *img = ty_elfview_vdso(&len);
	Elf *elf = img ? elf_memory((char *)img, len) : NULL;

	if (elf) {
		read_elf(s, d, elf, 0);
		d->elf = elf;
	}
}

static void
load_dso(struct ty_dsos *s, struct ty_dso *d)
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
	/* tachy's own spawner (lib/spawn.c), gone with its process: its few
	 * samples are tachy's, no warning */
	if (strncmp(d->path, "/memfd:tachy-spawner", 20) == 0)
		return;
	if (!*d->src) {
		ty_symtab_warn(s->warn,
			       "%s %s: its addresses are left raw (as root, tachy reads the "
			       "mapped file from /proc/PID/map_files while the process runs)",
			       d->path, d->gone);
		return;
	}
	{
		struct ty_safefile_want w = {d->dev, d->ino, 0, 0};
		char why[TY_SAFEFILE_WHY];
		fd = ty_safefile_open(d->src, &w, NULL, why);
		/* replaced since it was judged: its process may still map it */
		if (fd == -ESTALE && d->src_fd < 0 && d->pid && judge(d) > 0)
			fd = ty_safefile_open(d->src, &w, NULL, why);
		if (fd < 0) {
			int phrase = fd == -EINVAL || fd == -ESTALE || fd == -EFBIG;
			ty_symtab_warn(s->warn,
				       "cannot read symbols of %s: %s%s; addresses shown raw%s",
				       d->path, phrase ? "it " : "", why,
				       fd == -EMFILE || fd == -ENFILE
					   ? " (raise the limit of open files: ulimit -n 1024)"
					   : "");
			return;
		}
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		ty_symtab_warn(s->warn, "cannot read symbols of %s: %s; addresses shown raw",
			       d->path, elf_errmsg(-1));
		close(fd);
		return;
	}
	d->map = mapped_image(elf, fd, &d->maplen);
	read_elf(s, d, elf, 1);
	d->elf = elf;
	d->fd = fd;
	shed(d);
}

static void
dso_close(struct ty_dso *d)
{
#ifdef HAVE_LIBDW
	if (d->dwarf)
		dwarf_end(d->dwarf);
#endif
	ty_debugcache_out_close(&d->unz);
	if (d->dbg_elf)
		elf_end(d->dbg_elf);
	if (d->elf)
		elf_end(d->elf);
	if (d->dbg_fd > 0)
		close(d->dbg_fd);
	if (d->fd > 0)
		close(d->fd);
	d->dwarf = d->dbg_elf = d->elf = d->dwarf_elf = d->map = d->dbg_map = NULL;
	d->cu_off = 0;
	d->lines_held = 0;
	d->fd = d->dbg_fd = -1;
}
#else
static void
load_dso(struct ty_dsos *s, struct ty_dso *d)
{
	if (!s->warned_noelf)
		ty_symtab_warn(s->warn, "not built with elfutils: user-space addresses shown raw");
	s->warned_noelf = 1;
}

static void
dso_close(struct ty_dso *d)
{
}
#endif

/* The name of the call-frame information's function range (an .eh_frame
 * FDE) holding ADDR: DSO+0xSTART, one name per range; NULL when none. */
static const char *
fde_symbol(struct ty_dso *d, uint64_t addr)
{
#ifdef HAVE_LIBELF
	uint64_t start, end;
	size_t j;
	char buf[600];

	const struct ty_cfi_table *cfi = d->elf ? ty_cfi_cache_get(d->set->cfi, d->src) : NULL;

	if (!cfi || ty_cfi_table_fde(cfi, addr, &start, &end) < 0)
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
	if (!(d->fdes[j].name = ty_symtab_pool_add(&d->tab.pool, buf, strlen(buf))))
		return NULL;
	d->fdes[j].start = start;
	d->nfdes++;
	return d->fdes[j].name;
#else
	return NULL;
#endif
}

struct ty_dsos *
ty_dsos_new(struct ty_cfi_cache *cfi, struct ty_symtab_warnings *w)
{
	struct ty_dsos *s = calloc(1, sizeof(*s));

	if (s) {
		s->cfi = cfi;
		s->warn = w;
	}
	return s;
}

void
ty_dsos_free(struct ty_dsos *s)
{
	if (!s)
		return;
	while (s->dsos) {
		struct ty_dso *n = s->dsos->next;
		dso_close(s->dsos);
		free(s->dsos->path);
		free(s->dsos->segs);
		free(s->dsos->fdes);
		ty_symtab_release(&s->dsos->tab);
		if (s->dsos->src_fd >= 0)
			close(s->dsos->src_fd);
		free(s->dsos);
		s->dsos = n;
	}
	free(s->debug_root);
	free(s->cache_dir);
#ifdef HAVE_DEBUGINFOD
	if (s->debuginfod)
		dfd.end(s->debuginfod);
#endif
	free(s);
}

void
ty_dsos_set_debug_root(struct ty_dsos *s, const char *dir)
{
	free(s->debug_root);
	s->debug_root = dir ? strdup(dir) : NULL;
}

struct ty_dso *
ty_dsos_find(const struct ty_dsos *s, const char *path)
{
	struct ty_dso *d;

	for (d = s->dsos; d; d = d->next)
		if (strcmp(d->path, path) == 0)
			return d;
	return NULL;
}

void
ty_dsos_set_cache_dir(struct ty_dsos *s, const char *dir)
{
	free(s->cache_dir);
	s->cache_dir = dir && *dir ? strdup(dir) : NULL;
}

struct ty_dso *
ty_dsos_get_id(struct ty_dsos *s, const char *path, uint32_t pid, uint64_t lo, uint64_t hi,
	       uint64_t dev, uint64_t ino)
{
	struct ty_dso *d;

	for (d = s->dsos; d; d = d->next)
		if (strcmp(d->path, path) == 0 && (!ino || !d->ino || d->ino == ino))
			return d;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path))) {
		free(d);
		return NULL;
	}
	d->set = s;
	d->base = base_name(d->path);
	d->fd = d->dbg_fd = d->unz.fd = d->src_fd = -1;
	d->dev = dev;
	d->ino = ino;
	d->pid = pid;
	d->lo = lo;
	d->hi = hi;
	snprintf(d->src, sizeof(d->src), "%s", path);
	if (path[0] == '/' && path[1] == '/') /* "//anon": no file to read */
		d->src[0] = '\0';
	else if (path[0] == '/') /* judged now, while the process that maps it may still run */
		judge(d);
	d->next = s->dsos;
	s->dsos = d;
	return d;
}

struct ty_dso *
ty_dsos_get(struct ty_dsos *s, const char *path)
{
	return ty_dsos_get_id(s, path, 0, 0, 0, 0, 0);
}

int
ty_dsos_set_source(struct ty_dsos *s, const char *path, const char *src, uint64_t dev, uint64_t ino)
{
	struct ty_dso *d = ty_dsos_get(s, path);

	if (!d)
		return -ENOMEM;
	snprintf(d->src, sizeof(d->src), "%s", src);
	d->dev = dev, d->ino = ino; /* that very file, when it is read */
	return 0;
}

const char *
ty_dso_source(const struct ty_dso *d)
{
	return *d->src ? d->src : NULL;
}

const char *
ty_dso_path(const struct ty_dso *d)
{
	return d->path;
}

static void
load(struct ty_dso *d)
{
	if (d->loaded && !d->released)
		return;
	if (d->released) { /* read again whole: what stayed is read again too */
		free(d->segs);
		d->segs = NULL;
		d->nsegs = 0;
		d->build_id[0] = '\0';
		d->released = 0;
	}
	d->loaded = 1;
	load_dso(d->set, d);
}

void
ty_dso_release(struct ty_dso *d)
{
	if (!d->loaded || d->released)
		return;
	dso_close(d);
	ty_symtab_release(&d->tab);
	free(d->fdes);
	d->fdes = NULL;
	d->nfdes = d->capfdes = 0;
	ty_cfi_cache_drop(d->set->cfi, d->src);
	d->released = 1;
}

int
ty_dso_info(const struct ty_dso *d, struct ty_dso_info *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!d->loaded)
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

const char *
ty_dso_symbol(struct ty_dso *d, uint64_t addr)
{
	const struct ty_sym *sym;

	load(d);
	sym = ty_symtab_find(&d->tab, addr);
	return sym ? ty_symtab_name(&d->tab, sym) : fde_symbol(d, addr);
}

uint64_t
ty_dso_vaddr(struct ty_dso *d, uint64_t off)
{
	size_t i;

	load(d);
	for (i = 0; i < d->nsegs; i++)
		if (off >= d->segs[i].off && off < d->segs[i].off + d->segs[i].filesz)
			return off - d->segs[i].off + d->segs[i].vaddr;
	return off;
}

#ifdef HAVE_LIBDW
/* The name of the function DIE (following its abstract origin):
 * demangled linkage name, else DW_AT_name. */
static const char *
die_name(struct ty_dso *d, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	char *dm;

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (n && (dm = ty_demangle(n))) {
		const char *p = ty_symtab_pool_add(&d->tab.pool, dm, strlen(dm));
		free(dm);
		if (p)
			return p;
	}
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}
#endif

size_t
ty_dso_frames(struct ty_dso *d, uint64_t addr, const char *name, struct ty_dso_frame *frames,
	      size_t max)
{
#ifdef HAVE_LIBDW
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Line *l;
	const char *file = NULL;
	size_t n = 0, nfiles = 0;
	int nscopes, i, line = 0;

	if (!d->dwarf || !name || max == 0 || !dwarf_addrdie(d->dwarf, addr, &cu))
		return 0;
	if (dwarf_dieoffset(&cu) + 1 != d->cu_off) {
		/* Another unit: libdw keeps each unit's line table until its
		 * handle ends, a DWARF-rich library's hundreds of MiB. Past
		 * LINES_HELD rows, a new handle (the results given out so far
		 * have been copied: the caller's contract). */
		Dwarf_Lines *rows;
		size_t nrows;
		if (d->lines_held >= LINES_HELD) {
			dwarf_end(d->dwarf);
			shed(d);
			d->lines_held = 0;
			if (!(d->dwarf = dwarf_begin_elf(d->dwarf_elf, DWARF_C_READ, NULL)) ||
			    !dwarf_addrdie(d->dwarf, addr, &cu))
				return 0;
		}
		d->cu_off = dwarf_dieoffset(&cu) + 1;
		if (dwarf_getsrclines(&cu, &rows, &nrows) == 0)
			d->lines_held += nrows;
	}
	if ((l = dwarf_getsrc_die(&cu, addr))) {
		file = dwarf_linesrc(l, NULL, NULL);
		dwarf_lineno(l, &line);
	}
	nscopes = dwarf_getscopes(&cu, addr, &scopes);
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
	frames[n].name = name;
	frames[n].file = file ? base_name(file) : NULL;
	frames[n].line = line > 0 ? (unsigned)line : 0;
	frames[n].inlined = 0;
	return n + 1;
#else
	(void)d, (void)addr, (void)name, (void)frames, (void)max;
	return 0;
#endif
}
