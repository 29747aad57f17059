/* debugcache.c - debug files kept with their DWARF decompressed, by
 * build-id (see debugcache.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

#include "tachy/array.h"
#include "tachy/cachedir.h"
#include "tachy/debugcache.h"
#include "tachy/elfview.h"
#include "tachy/safefile.h"

static size_t cache_max = TY_DEBUGCACHE_MAX;

void
ty_debugcache_set_max(size_t max)
{
	cache_max = max ? max : TY_DEBUGCACHE_MAX;
}

#ifdef HAVE_LIBELF

/* The size of ELF's compressed sections once inflated, in *OUT; 0 when
 * none is compressed. -1 when a compression header cannot be read. */
static int
inflated_size(Elf *elf, size_t *out)
{
	Elf_Scn *scn = NULL;
	size_t n = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		if (!gelf_getchdr(scn, &ch) || ch.ch_size > cache_max)
			return -1;
		n += ch.ch_size;
	}
	*out = n;
	return 0;
}

/* The cached file NAME in DFD as an Elf with BUILD_ID and no compressed
 * section, else NULL. */
static Elf *
open_cached(int dfd, const char *name, const char *build_id, int *fd)
{
	char id[129];
	size_t size, len = 0, z = 1;
	const char *img;
	Elf *e;

	if ((*fd = ty_cachedir_openat(dfd, name, &size)) < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && (img = elf_rawfile(e, &len)) &&
	    ty_elfview_build_id_hex(img, len, id) && strcmp(id, build_id) == 0 &&
	    inflated_size(e, &z) == 0 && z == 0)
		return e;
	if (e)
		elf_end(e);
	close(*fd);
	*fd = -1;
	return NULL;
}

struct entry {
	char name[160];
	time_t mtime;
	size_t size;
};

static int
older(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* Make room for NEED bytes: remove the oldest ".debug" files of DFD until
 * the rest and NEED fit in the cache's maximum. */
static void
make_room(int dfd, size_t need)
{
	int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = lfd >= 0 ? fdopendir(lfd) : NULL;
	struct entry *es = NULL;
	size_t n = 0, cap = 0, total = need, i;
	struct dirent *de;

	if (!dir) {
		if (lfd >= 0)
			close(lfd);
		return;
	}
	while ((de = readdir(dir))) {
		struct stat st;
		size_t len = strlen(de->d_name);
		if (len < 7 || len >= sizeof(es->name) || strcmp(de->d_name + len - 6, ".debug") ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) || ty_array_grow(&es, sizeof(*es), n + 1, &cap) < 0)
			continue;
		memcpy(es[n].name, de->d_name, len + 1);
		es[n].mtime = st.st_mtime;
		es[n].size = (size_t)st.st_size;
		total += es[n++].size;
	}
	closedir(dir);
	if (n)
		qsort(es, n, sizeof(*es), older);
	for (i = 0; i < n && total > cache_max; i++)
		if (unlinkat(dfd, es[i].name, 0) == 0)
			total -= es[i].size;
	free(es);
}

/* A section of the image: where it comes from, how it is stored there. */
struct part {
	Elf_Scn *scn;
	GElf_Shdr sh;
	char name[40];
	int z;	      /* 0 stored as is, 1 SHF_COMPRESSED (zlib), 2 .zdebug_ (GNU) */
	size_t size;  /* in the image */
	size_t off;   /* in the image */
	size_t align; /* in the image */
	int dropped;
};

/* The first reason a section was left out, said once by the caller. */
static void __attribute__((format(printf, 3, 4)))
say(struct ty_debugcache_out *o, int *nsaid, const char *fmt, ...)
{
	va_list ap;

	if ((*nsaid)++)
		return;
	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
}

static uint64_t
be64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Where the stored bytes of P begin in its raw data, and what they
 * inflate to (*SIZE); -1 when its header cannot be read or it is not zlib. */
static int
compressed(struct part *p, const unsigned char **in, size_t *inlen, size_t *size)
{
	Elf_Data *raw = elf_rawdata(p->scn, NULL);
	const unsigned char *b = raw ? raw->d_buf : NULL;
	size_t n = raw ? raw->d_size : 0;

	if (!b)
		return -1;
	if (p->z == 2) { /* "ZLIB", the size big-endian, the stream */
		if (n < 12 || memcmp(b, "ZLIB", 4) != 0)
			return -1;
		*size = be64(b + 4) > SIZE_MAX ? SIZE_MAX : (size_t)be64(b + 4);
		*in = b + 12, *inlen = n - 12;
		return 0;
	}
	if (n < sizeof(Elf64_Chdr))
		return -1;
	{
		Elf64_Chdr ch;
		memcpy(&ch, b, sizeof(ch));
		if (ch.ch_type != ELFCOMPRESS_ZLIB)
			return -1;
		*size = ch.ch_size > SIZE_MAX ? SIZE_MAX : (size_t)ch.ch_size;
		p->align = ch.ch_addralign ? (size_t)ch.ch_addralign : 1;
		*in = b + sizeof(ch), *inlen = n - sizeof(ch);
	}
	return 0;
}

/* The most a zlib stream inflates to per byte stored (deflate's longest
 * match, 258 bytes, in a code of 2 bits at best: about 1032), with room. */
#define ZLIB_RATIO_MAX 1100

static size_t
align_up(size_t x, size_t a)
{
	if (a < 1 || a > 4096 || (a & (a - 1)))
		a = 8;
	return (x + a - 1) & ~(a - 1);
}

/* The image of ELF (64-bit, little-endian) that libdw reads: its notes
 * (the build-id), .gnu_debugaltlink and the DWARF sections of the line and
 * inline lookups, each inflated within the bound; no other section. NULL
 * when none is left. *NEED: whether one was inflated. */
static unsigned char *
image(Elf *elf, const char *file, struct ty_debugcache_out *o, size_t *len, int *need)
{
	struct part *ps = NULL;
	size_t n = 0, cap = 0, shstrndx, i, off, stroff, names, nkept = 0;
	size_t max = ty_safefile_inflate_max();
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	unsigned char *img = NULL;
	int nsaid = 0;

	*need = 0;
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		struct part *p;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strlen(name) >= 32)
			continue;
		if (!(sh.sh_type == SHT_NOTE && sh.sh_size <= 65536) &&
		    strcmp(name, ".gnu_debugaltlink") != 0 &&
		    !(ty_safefile_section_needed(name) &&
		      (strncmp(name, ".debug_", 7) == 0 || strncmp(name, ".zdebug_", 8) == 0)))
			continue; /* never inflated */
		if (ty_array_grow(&ps, sizeof(*ps), n + 1, &cap) < 0)
			goto fail;
		p = &ps[n++];
		memset(p, 0, sizeof(*p));
		p->scn = scn;
		p->sh = sh;
		p->z = (sh.sh_flags & SHF_COMPRESSED)	   ? 1
		       : strncmp(name, ".zdebug_", 8) == 0 ? 2
							   : 0;
		snprintf(p->name, sizeof(p->name), "%s%s", p->z == 2 ? ".debug_" : "",
			 p->z == 2 ? name + 8 : name);
		p->size = (size_t)sh.sh_size;
		p->align = sh.sh_addralign ? (size_t)sh.sh_addralign : 1;
		if (p->z) {
			const unsigned char *in;
			size_t inlen;
			if (compressed(p, &in, &inlen, &p->size) < 0) {
				say(o, &nsaid,
				    "the section %s of %s is not zlib data: its lines are not read",
				    p->name, file);
				p->dropped = 1;
				continue;
			}
		}
		if (p->size > max) {
			say(o, &nsaid,
			    "the section %s of %s would take %zu MiB, over tachy's bound of %zu "
			    "MiB "
			    "a section: not read (lines and inline frames that need it are left "
			    "out)",
			    p->name, file, p->size >> 20, max >> 20);
			p->dropped = 1;
		} else if (p->z && p->size / ZLIB_RATIO_MAX > p->sh.sh_size + 64) {
			/* the size it claims cannot come out of so few bytes (a
			 * hostile or damaged file): refused before any memory
			 * is taken for it (an image holds its claimed size) */
			say(o, &nsaid,
			    "the section %s of %s claims %zu MiB from %llu bytes, more than "
			    "zlib inflates them to: not read (lines and inline frames that need "
			    "it are left out)",
			    p->name, file, p->size >> 20, (unsigned long long)p->sh.sh_size);
			p->dropped = 1;
		}
	}
	/* the layout: header, sections, their names, the section headers */
	off = sizeof(Elf64_Ehdr);
	names = 1 + sizeof(".shstrtab");
	for (i = 0; i < n; i++) {
		if (ps[i].dropped)
			continue;
		ps[i].off = off = align_up(off, ps[i].align);
		off += ps[i].size;
		names += strlen(ps[i].name) + 1;
		nkept++;
	}
	if (!nkept)
		goto fail;
	stroff = off;
	off += names;
	off = align_up(off, 8);
	*len = off + (nkept + 2) * sizeof(Elf64_Shdr);
	if (!(img = calloc(1, *len)))
		goto fail;
	for (i = 0; i < n; i++) {
		struct part *p = &ps[i];
		const unsigned char *in;
		size_t inlen;
		Elf_Data *raw;
		int r;
		if (p->dropped)
			continue;
		if (!p->z) {
			if ((raw = elf_rawdata(p->scn, NULL)) && raw->d_buf &&
			    raw->d_size == p->size)
				memcpy(img + p->off, raw->d_buf, p->size);
			else
				p->dropped = 1;
			continue;
		}
		compressed(p, &in, &inlen, &p->size);
		if ((r = ty_safefile_inflate(in, inlen, img + p->off, p->size)) < 0) {
			say(o, &nsaid, "the section %s of %s %s: not read", p->name, file,
			    r == -EFBIG ? "inflates past the size it gives" : "is damaged");
			p->dropped = 1;
			continue;
		}
		*need = 1;
	}
	{
		Elf64_Ehdr *e = (Elf64_Ehdr *)img;
		Elf64_Shdr *sh = (Elf64_Shdr *)(img + off);
		char *str = (char *)img + stroff;
		size_t at = 1, k = 1;

		memcpy(e->e_ident, elf_getident(elf, NULL), EI_NIDENT);
		e->e_type = eh.e_type;
		e->e_machine = eh.e_machine;
		e->e_version = EV_CURRENT;
		e->e_entry = eh.e_entry;
		e->e_flags = eh.e_flags;
		e->e_ehsize = sizeof(Elf64_Ehdr);
		e->e_shentsize = sizeof(Elf64_Shdr);
		e->e_shoff = off;
		for (i = 0; i < n; i++) {
			if (ps[i].dropped)
				continue;
			sh[k].sh_name = (Elf64_Word)at;
			memcpy(str + at, ps[i].name, strlen(ps[i].name) + 1);
			at += strlen(ps[i].name) + 1;
			sh[k].sh_type = ps[i].sh.sh_type;
			sh[k].sh_flags = ps[i].sh.sh_flags & ~(uint64_t)SHF_COMPRESSED;
			sh[k].sh_addr = ps[i].sh.sh_addr;
			sh[k].sh_offset = ps[i].off;
			sh[k].sh_size = ps[i].size;
			sh[k].sh_addralign = ps[i].align;
			k++;
		}
		sh[k].sh_name = (Elf64_Word)at;
		memcpy(str + at, ".shstrtab", sizeof(".shstrtab"));
		sh[k].sh_type = SHT_STRTAB;
		sh[k].sh_offset = stroff;
		sh[k].sh_size = at + sizeof(".shstrtab");
		sh[k].sh_addralign = 1;
		e->e_shnum = (Elf64_Half)(k + 1);
		e->e_shstrndx = (Elf64_Half)k;
	}
	free(ps);
	return img;
fail:
	free(ps);
	free(img);
	return NULL;
}

/* Does ELF hold a compressed DWARF section (SHF_COMPRESSED or .zdebug_)? */
static int
compressed_dwarf(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (strncmp(name, ".zdebug", 7) == 0 ||
		    ((sh.sh_flags & SHF_COMPRESSED) && strncmp(name, ".debug", 6) == 0))
			return 1;
	}
	return 0;
}

int
ty_debugcache_get(const char *dir, const char *build_id, void *elf, const char *file,
		  struct ty_debugcache_out *o)
{
	char path[4200], name[160];
	unsigned char *img;
	size_t len = 0;
	int dfd = -1, need;
	char *ident;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!compressed_dwarf(elf))
		return 0;
	if (!(ident = elf_getident(elf, NULL)) || ident[EI_CLASS] != ELFCLASS64 ||
	    ident[EI_DATA] != ELFDATA2LSB) {
		snprintf(o->why, sizeof(o->why),
			 "%s has compressed DWARF in a 32-bit or big-endian file: its lines are "
			 "not read",
			 file);
		return -1;
	}
	if (dir && *dir && build_id && *build_id && strlen(build_id) <= 128 &&
	    (size_t)snprintf(path, sizeof(path), "%s/debug", dir) < sizeof(path)) {
		snprintf(name, sizeof(name), "%s.debug", build_id);
		if ((dfd = ty_cachedir_open(path, 1)) >= 0 &&
		    (o->elf = open_cached(dfd, name, build_id, &o->fd))) {
			close(dfd);
			return 0;
		}
	}
	if (!(img = image(elf, file, o, &len, &need))) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	if (dfd >= 0 && need && len <= cache_max) {
		make_room(dfd, len);
		if (ty_cachedir_put(dfd, name, img, len) == 0 &&
		    (o->elf = open_cached(dfd, name, build_id, &o->fd))) {
			free(img);
			close(dfd);
			return 0;
		}
	}
	if (dfd >= 0)
		close(dfd);
	if (!(o->elf = elf_memory((char *)img, len))) {
		free(img);
		return -1;
	}
	o->mem = img;
	return 0;
}

void
ty_debugcache_out_close(struct ty_debugcache_out *o)
{
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	free(o->mem);
	o->elf = o->mem = NULL;
	o->fd = -1;
}

#else

int
ty_debugcache_get(const char *dir, const char *build_id, void *elf, const char *file,
		  struct ty_debugcache_out *o)
{
	(void)dir, (void)build_id, (void)elf, (void)file;
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	return 0;
}

void
ty_debugcache_out_close(struct ty_debugcache_out *o)
{
	(void)o;
}

#endif
