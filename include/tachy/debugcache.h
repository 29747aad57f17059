/* debugcache.h - debug files with their DWARF decompressed, kept by
 * build-id in tachy's cache directory (cachedir.h) as DIR/debug/ID.debug.
 * Debian's -dbg packages (libc6-dbg: libc and ld.so) compress their
 * .debug_* sections (SHF_COMPRESSED, zlib), and libdw inflates them whole
 * each time it opens the file: a fixed cost of every recording that
 * resolves a frame in libc (~0.1-0.2 s of CPU on this machine). The first
 * recording writes the file decompressed; later ones map it. The directory
 * keeps at most TY_DEBUGCACHE_MAX bytes (2 GiB) of them: adding a file
 * removes the oldest (by the time each was written) beyond. Only with
 * libelf (HAVE_LIBELF); else nothing is cached. */
#ifndef TACHY_DEBUGCACHE_H
#define TACHY_DEBUGCACHE_H

#include <stddef.h>

#define TY_DEBUGCACHE_MAX ((size_t)2 << 30)

/* For the ELF file ELF (an Elf *, build-id BUILD_ID in hex), holding
 * compressed sections: the same file decompressed, from the cache under
 * DIR, written there first when missing. Returns the Elf * (the caller
 * calls elf_end, then closes *FD), or NULL when ELF has no compressed
 * section, DIR is NULL or "", BUILD_ID is "", or the cache cannot be
 * used (not ours, full disk, a file over TY_DEBUGCACHE_MAX): the caller
 * then reads ELF itself. */
void *ty_debugcache_get(const char *dir, const char *build_id, void *elf, int *fd);

/* Keep at most MAX bytes instead of TY_DEBUGCACHE_MAX (tests); 0 restores
 * the default. */
void ty_debugcache_set_max(size_t max);

#endif
