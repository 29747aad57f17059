/* dso.h - one file's symbols, read when first asked for: ELF .symtab and
 * .dynsym through libelf (lib/elfsyms.c), PIE and shared-library load bias,
 * the vDSO (tachy's own image: the kernel maps the same one into every
 * process), and names where the symbol table has none: untyped code labels
 * (ld.so's _start), PLT entries, separate debug files (by build-id,
 * .gnu_debuglink with its CRC, path, and debuginfod when DEBUGINFOD_URLS
 * is set and tachy is built with libdebuginfod), MiniDebugInfo
 * (.gnu_debugdata, with liblzma), and else the function ranges of the
 * call-frame information (the file's one table in lib/cfi.c's cache):
 * "DSO+0xSTART", DSO the file's base name and START the range's link-time
 * address. Inline frames and source lines come from the DWARF of the file
 * or of its debug file (libdw).
 *
 * Without elfutils (no HAVE_LIBELF) no file is read and one warning says
 * "not built with elfutils". A stripped, unreadable or corrupt binary gives
 * no names and a warning, never a failure. Not thread-safe. */
#ifndef TACHY_DSO_H
#define TACHY_DSO_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/cfi.h"
#include "tachy/symtab.h"

struct ty_dso;	/* one file, by path */
struct ty_dsos; /* the files read, one per path */

/* An empty set of files whose call-frame tables come from CFI and whose
 * warnings go to W (the caller keeps both). NULL when out of memory. */
struct ty_dsos *ty_dsos_new(struct ty_cfi_cache *cfi, struct ty_symtab_warnings *w);
void ty_dsos_free(struct ty_dsos *s);

/* Look for separate debug files under DIR instead of /usr/lib/debug
 * (tests; see ty_symbols_set_debug_root). */
void ty_dsos_set_debug_root(struct ty_dsos *s, const char *dir);

/* Keep debug files with compressed DWARF decompressed under DIR/debug
 * (debugcache.h; see ty_symbols_set_cache_dir). NULL or "": no cache. */
void ty_dsos_set_cache_dir(struct ty_dsos *s, const char *dir);

/* The file PATH ("/usr/bin/x", "[vdso]", or a name that is no file, such
 * as "[heap]" or "//anon", which has no symbols), added when new, not read
 * yet. NULL when out of memory. Owned by S. */
struct ty_dso *ty_dsos_get(struct ty_dsos *s, const char *path);

/* The same for a mapping of PID at [LO, HI) whose file had device DEV and
 * inode INO (0: not known): a file replaced at PATH since is another
 * file. Judged when added (safefile.h's ty_safefile_mapped): a replaced
 * file is read from /proc/PID/map_files where readable, else its names
 * are left raw, with a warning either way. */
struct ty_dso *ty_dsos_get_id(struct ty_dsos *s, const char *path, uint32_t pid, uint64_t lo,
			      uint64_t hi, uint64_t dev, uint64_t ino);

/* Read the file PATH (as recorded) from SRC, the file of device DEV and
 * inode INO (a copy of the recorded build: perf's build-id cache,
 * debuginfod): its symbols, debug files and call-frame table. Before any
 * of PATH's addresses is resolved. Returns 0 or -ENOMEM. */
int ty_dsos_set_source(struct ty_dsos *s, const char *path, const char *src, uint64_t dev,
		       uint64_t ino);

/* The path to read D's file by (its path, or the mapped file kept open
 * when its path was replaced); NULL when there is none (left raw). */
const char *ty_dso_source(const struct ty_dso *d);

/* The file PATH if it was added, else NULL. */
struct ty_dso *ty_dsos_find(const struct ty_dsos *s, const char *path);

/* D's path, owned by D. */
const char *ty_dso_path(const struct ty_dso *d);

/* The link-time address of the file offset OFF (through the PT_LOAD
 * segments; OFF itself when none holds it), reading D first. */
uint64_t ty_dso_vaddr(struct ty_dso *d, uint64_t off);

/* The name of the link-time address ADDR in D (its symbol, else the
 * call-frame range's DSO+0xSTART), reading D first; NULL when none. Lives
 * as long as D, or until ty_dso_release. */
const char *ty_dso_symbol(struct ty_dso *d, uint64_t addr);

/* Let go of what reading D took: its symbol table and names, the mapped
 * file and debug file, their DWARF, and its call-frame table in the cache
 * (where no other path shares it). Its path, segments and build-id stay
 * (ty_dso_info). Names and frames had from D before are dangling; a later
 * look-up reads D again. */
void ty_dso_release(struct ty_dso *d);

/* What a read DSO says of itself: its executable segment in link-time
 * addresses and the file offset it starts at, and its GNU build-id. */
struct ty_dso_info {
	uint64_t start, limit, offset;
	const char *build_id; /* hex, "" when none; owned by the DSO */
};

/* Fill OUT for D. Returns 0, or -1 when D was not read (no address of it
 * resolved yet) or has neither an executable segment nor a build-id. */
int ty_dso_info(const struct ty_dso *d, struct ty_dso_info *out);

/* One source-level frame of an address. */
struct ty_dso_frame {
	const char *name; /* function (an inlined callee, or the symbol itself) */
	const char *file; /* source file (base name), NULL when unknown */
	unsigned line;	  /* 0 when unknown */
	int inlined;	  /* an inlined callee */
};

/* The inline chain and source lines of the link-time address ADDR of the
 * read D, whose symbol is NAME: FRAMES[0] is the innermost inlined callee,
 * each one's caller follows, and the last is NAME (whose line is the one
 * executing in it). At most MAX frames. Returns the number filled, 0
 * without DWARF for ADDR (or not built with libdw). The names live as long
 * as D, or until ty_dso_release; the source files until the next call on D
 * (its line tables are let go past a bound). */
size_t ty_dso_frames(struct ty_dso *d, uint64_t addr, const char *name, struct ty_dso_frame *frames,
		     size_t max);

#endif
