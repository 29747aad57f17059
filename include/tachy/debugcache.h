/* debugcache.h - debug files with their DWARF decompressed, kept by
 * build-id in tachy's cache directory (cachedir.h) as DIR/debug/ID.debug.
 * Debian's -dbg packages (libc6-dbg: libc and ld.so) compress their
 * .debug_* sections (SHF_COMPRESSED, zlib), and libdw inflates them whole
 * each time it opens the file: a fixed cost of every recording that
 * resolves a frame in libc (~0.1-0.2 s of CPU on this machine). The first
 * recording writes the sections libdw needs decompressed (not the whole
 * file: a 600 MB binary is not copied for a section of 600 bytes); later
 * ones map it. The directory
 * keeps at most TY_DEBUGCACHE_MAX bytes (2 GiB) of them: adding a file
 * removes the oldest (by the time each was written) beyond. Only with
 * libelf (HAVE_LIBELF); else nothing is cached. */
#ifndef TACHY_DEBUGCACHE_H
#define TACHY_DEBUGCACHE_H

#include <stddef.h>

#define TY_DEBUGCACHE_MAX ((size_t)2 << 30)

/* What ty_debugcache_get gives: the image libdw reads (ELF, an Elf *),
 * mapped from the cache (FD) or in memory (MEM); and the first reason a
 * section was left out (WHY, "" when none), for the caller to say. */
struct ty_debugcache_out {
	void *elf;
	int fd;
	void *mem;
	char why[400];
};

/* For the ELF file ELF (an Elf *, build-id BUILD_ID in hex, named FILE in
 * messages): when it holds compressed DWARF, the image libdw reads instead
 * of it: its build-id note and the DWARF sections of the line and inline
 * lookups (safefile.h's list), each inflated within
 * ty_safefile_inflate_max(); a section over it, one that claims more than
 * its stored bytes can inflate to (zlib: about 1,000 times), or any other,
 * is never inflated. Kept in the cache under DIR when one was inflated and DIR and
 * BUILD_ID are not "" (written there first when missing); else in memory.
 * Returns 0 with O->elf NULL when ELF has no compressed DWARF (libdw reads
 * ELF itself), 0 with O->elf the image, or -1 when the DWARF must not be
 * read (O->why says why when there is something to say). Let go with
 * ty_debugcache_out_close. */
int ty_debugcache_get(const char *dir, const char *build_id, void *elf, const char *file,
		      struct ty_debugcache_out *o);
void ty_debugcache_out_close(struct ty_debugcache_out *o);

/* Keep at most MAX bytes instead of TY_DEBUGCACHE_MAX (tests); 0 restores
 * the default. */
void ty_debugcache_set_max(size_t max);

#endif
