/* elfview.h - the one reader of ELF images' headers: a bounds-checked view
 * of a 64-bit little-endian ELF file or in-memory image (the vDSO), its
 * program and section headers, sections by name, the dynamic DT_INIT and
 * the GNU build-id. Every read is checked against the image's length: a
 * damaged or truncated image gives "none", never a read outside it.
 *
 * The symbol tables, relocations and DWARF of lib/dso.c are read through
 * libelf and libdw, which need an Elf handle; what both the call-frame
 * tables (lib/cfi.c) and the symbols need of a file's headers (its
 * build-id) is read here, once. */
#ifndef TACHY_ELFVIEW_H
#define TACHY_ELFVIEW_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"

struct ty_elfview {
	const unsigned char *img;
	size_t len;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph; /* NULL when the program headers are unusable */
	unsigned phnum;
};

/* View IMAGE[LEN] (8-byte aligned in memory). Returns 0, or -EINVAL with E
 * set when it is not a 64-bit little-endian ELF image. */
int ty_elfview_init(struct ty_elfview *v, const void *image, size_t len, struct ty_error *e);

/* IMAGE + OFF when [OFF, OFF + SIZE) lies inside the image, else NULL. */
const void *ty_elfview_at(const struct ty_elfview *v, uint64_t off, uint64_t size);

/* The contents of the section NAME (not SHT_NOBITS): *P, *SIZE and its
 * link-time address *ADDR. Returns 0, or -1 when there is none (or no
 * usable section headers). */
int ty_elfview_section(const struct ty_elfview *v, const char *name, const unsigned char **p,
		       uint64_t *size, uint64_t *addr);

/* The GNU build-id (NT_GNU_BUILD_ID), from the note sections, else the
 * PT_NOTE segments: copied into ID (at most MAX bytes). Returns its length,
 * 0 when there is none (or it is longer than MAX). */
size_t ty_elfview_build_id(const struct ty_elfview *v, unsigned char *id, size_t max);

/* The build-id of IMAGE[LEN] as lowercase hex into HEX (2 * 64 + 1 bytes),
 * "" when none or not an image we read. Returns its length in bytes. */
size_t ty_elfview_build_id_hex(const void *image, size_t len, char hex[129]);

/* DT_INIT of the PT_DYNAMIC segment (_init), 0 when none. */
uint64_t ty_elfview_init_func(const struct ty_elfview *v);

/* The image of this process's vDSO (the kernel maps the same one into
 * every process) and its length through its section headers; NULL when
 * there is none. */
const void *ty_elfview_vdso(size_t *len);

/* Map the regular file PATH read-only, opened by safefile.h's rules: its
 * contents and *LEN (at least an ELF header's size). NULL when it cannot be
 * opened, is not a regular file or is shorter. Unmap with munmap(ptr, *len). */
void *ty_elfview_map_file(const char *path, size_t *len);

/* Is IMAGE[LEN] a read-only private mapping of the file FD in this
 * process (its /proc/self/maps), so that its pages may be let go (MADV_
 * DONTNEED) and come back from the file when read? 0 for memory of any
 * other kind (libelf reads a file it could not map into the heap). */
int ty_elfview_is_file_map(const void *image, size_t len, int fd);

#endif
