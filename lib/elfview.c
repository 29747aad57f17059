/* elfview.c - a bounds-checked view of a 64-bit ELF image's headers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "tachy/elfview.h"
#include "tachy/safefile.h"

int
ty_elfview_init(struct ty_elfview *v, const void *image, size_t len, struct ty_error *e)
{
	const Elf64_Ehdr *eh;

	memset(v, 0, sizeof(*v));
	v->img = image;
	v->len = len;
	if (((uintptr_t)image & 7) != 0)
		return ty_error_set(e, -EINVAL, "the ELF image is not aligned in memory");
	eh = ty_elfview_at(v, 0, sizeof(Elf64_Ehdr));
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return ty_error_set(e, -EINVAL, "not a 64-bit little-endian ELF image");
	v->eh = eh;
	if (eh->e_phoff && !(eh->e_phoff & 7) && eh->e_phentsize == sizeof(Elf64_Phdr))
		v->ph = ty_elfview_at(v, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr));
	v->phnum = v->ph ? eh->e_phnum : 0;
	return 0;
}

const void *
ty_elfview_at(const struct ty_elfview *v, uint64_t off, uint64_t size)
{
	if (off > v->len || size > v->len - off)
		return NULL;
	return v->img + off;
}

/* The section headers and the section names' string table. */
static const Elf64_Shdr *
section_headers(const struct ty_elfview *v, const char **names, uint64_t *names_size)
{
	const Elf64_Ehdr *eh = v->eh;
	const Elf64_Shdr *sh, *strs;

	if (!eh->e_shoff || (eh->e_shoff & 7) || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = ty_elfview_at(v, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh));
	if (!sh)
		return NULL;
	strs = &sh[eh->e_shstrndx];
	*names = ty_elfview_at(v, strs->sh_offset, strs->sh_size);
	*names_size = strs->sh_size;
	return *names && *names_size ? sh : NULL;
}

int
ty_elfview_section(const struct ty_elfview *v, const char *name, const unsigned char **p,
		   uint64_t *size, uint64_t *addr)
{
	const Elf64_Shdr *sh;
	const char *names;
	uint64_t nsize;
	unsigned i;

	if (!(sh = section_headers(v, &names, &nsize)))
		return -1;
	for (i = 0; i < v->eh->e_shnum; i++) {
		if (sh[i].sh_name >= nsize || sh[i].sh_type == SHT_NOBITS)
			continue;
		if (strncmp(names + sh[i].sh_name, name, nsize - sh[i].sh_name) != 0)
			continue;
		if (!(*p = ty_elfview_at(v, sh[i].sh_offset, sh[i].sh_size)))
			return -1;
		*size = sh[i].sh_size;
		*addr = sh[i].sh_addr;
		return 0;
	}
	return -1;
}

static uint64_t
align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* The GNU build-id among the notes [P, P + SIZE), aligned to ALIGN (4, or
 * 8 for notes in an 8-aligned section or segment). */
static size_t
note_build_id(const unsigned char *p, uint64_t size, uint64_t align, unsigned char *id, size_t max)
{
	uint64_t off = 0;

	if (align != 8)
		align = 4;
	while (size - off >= 12) {
		uint32_t nsz, dsz, type;
		uint64_t name, desc, next;
		memcpy(&nsz, p + off, 4);
		memcpy(&dsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name = off + 12;
		desc = align_up(name + nsz, align);
		next = align_up(desc + dsz, align);
		if (desc > size || dsz > size - desc)
			return 0;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(p + name, "GNU", 4) == 0 &&
		    dsz > 0 && dsz <= max) {
			memcpy(id, p + desc, dsz);
			return dsz;
		}
		if (next >= size)
			return 0;
		off = next;
	}
	return 0;
}

size_t
ty_elfview_build_id(const struct ty_elfview *v, unsigned char *id, size_t max)
{
	const Elf64_Shdr *sh;
	const unsigned char *p;
	const char *names;
	uint64_t nsize;
	size_t n;
	unsigned i;

	if ((sh = section_headers(v, &names, &nsize)))
		for (i = 0; i < v->eh->e_shnum; i++)
			if (sh[i].sh_type == SHT_NOTE &&
			    (p = ty_elfview_at(v, sh[i].sh_offset, sh[i].sh_size)) &&
			    (n = note_build_id(p, sh[i].sh_size, sh[i].sh_addralign, id, max)))
				return n;
	for (i = 0; i < v->phnum; i++)
		if (v->ph[i].p_type == PT_NOTE &&
		    (p = ty_elfview_at(v, v->ph[i].p_offset, v->ph[i].p_filesz)) &&
		    (n = note_build_id(p, v->ph[i].p_filesz, v->ph[i].p_align, id, max)))
			return n;
	return 0;
}

size_t
ty_elfview_build_id_hex(const void *image, size_t len, char hex[129])
{
	struct ty_elfview v;
	unsigned char id[64];
	size_t n = 0, i;

	hex[0] = '\0';
	if (image && ty_elfview_init(&v, image, len, NULL) == 0)
		n = ty_elfview_build_id(&v, id, sizeof(id));
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return n;
}

uint64_t
ty_elfview_init_func(const struct ty_elfview *v)
{
	unsigned i;

	for (i = 0; i < v->phnum; i++) {
		const Elf64_Dyn *d;
		uint64_t k, n = v->ph[i].p_filesz / sizeof(Elf64_Dyn);
		if (v->ph[i].p_type != PT_DYNAMIC || (v->ph[i].p_offset & 7) ||
		    !(d = ty_elfview_at(v, v->ph[i].p_offset, n * sizeof(Elf64_Dyn))))
			continue;
		for (k = 0; k < n && d[k].d_tag != DT_NULL; k++)
			if (d[k].d_tag == DT_INIT)
				return d[k].d_un.d_ptr;
	}
	return 0;
}

const void *
ty_elfview_vdso(size_t *len)
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

void *
ty_elfview_map_file(const char *path, size_t *len)
{
	char why[TY_SAFEFILE_WHY];

	return ty_safefile_map(path, NULL, sizeof(Elf64_Ehdr), len, why);
}

int
ty_elfview_is_file_map(const void *image, size_t len, int fd)
{
	uintptr_t lo = (uintptr_t)image, hi = lo + len;
	unsigned long long a, b, off, ino;
	unsigned maj, mnr;
	char line[4096], perm[8];
	struct stat st;
	FILE *fp;
	int ok = 0;

	if (!image || !len || (lo & 4095) || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !(fp = fopen("/proc/self/maps", "re")))
		return 0;
	while (!ok && fgets(line, sizeof(line), fp))
		ok = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &a, &b, perm, &off, &maj, &mnr,
			    &ino) == 7 &&
		     a == lo && b >= hi && off == 0 && strcmp(perm, "r--p") == 0 &&
		     ino == (unsigned long long)st.st_ino && makedev(maj, mnr) == st.st_dev;
	fclose(fp);
	return ok;
}
