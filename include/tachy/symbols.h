/* symbols.h - address -> symbol, the facade of the profiling side's
 * symbol modules: the address spaces of sampled processes (addrspace.h:
 * from mmap, fork and exec records, a child's samples before its exec in
 * its parent's image), the files mapped there (dso.h: ELF symbols, debug
 * files, names for stripped code, inline frames), their call-frame tables
 * (cfi.h: one per file, shared with the unwinder), the kernel's symbols
 * (kallsyms.h, with its per-boot cache) and JIT perf maps (perfmap.h). Of
 * several names at one address the global one wins over weak and local
 * aliases, then the one with fewer leading underscores ("malloc", not
 * "__GI___libc_malloc"); C++ and Rust names are demangled (demangle.h).
 *
 * Without elfutils (no HAVE_LIBELF) every user address stays raw and one
 * warning says "not built with elfutils". A stripped, unreadable or corrupt
 * binary gives raw addresses and a warning, never a failure. */
#ifndef TACHY_SYMBOLS_H
#define TACHY_SYMBOLS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "tachy/addrspace.h"
#include "tachy/cfi.h"
#include "tachy/dso.h"
#include "tachy/error.h"

/* Addresses from here up are the kernel's (x86-64 and arm64 with 48-bit
 * user space). */
#define TY_KERNEL_START 0xffff800000000000ull

struct ty_symbols;

/* One resolved address. Strings are owned by the ty_symbols and live as
 * long as it does. */
struct ty_sym_result {
	const char *name; /* function name (demangled), NULL when unknown */
	const char *dso;  /* file of the mapping, "[kernel.kallsyms]", "[vdso]", "[unknown]" */
	uint64_t addr;	  /* address inside the DSO (link-time vaddr), or the raw ip */
	int kernel;
	const void *handle; /* the DSO read (for ty_symbols_frames); NULL: none */
};

/* Allocate an empty set of address spaces. Returns NULL when out of memory. */
struct ty_symbols *ty_symbols_new(void);
void ty_symbols_free(struct ty_symbols *s);

/* The address spaces and the call-frame tables of S, for an unwinder
 * (ty_unwind_new); owned by S. */
struct ty_addrspace *ty_symbols_addrspace(struct ty_symbols *s);
struct ty_cfi_cache *ty_symbols_cfi(struct ty_symbols *s);

/* Read kernel symbols from PATH instead of /proc/kallsyms (tests). */
void ty_symbols_set_kallsyms(struct ty_symbols *s, const char *path);

/* Keep a per-boot cache of the core kernel's symbols (kallsyms lines of no
 * module) in DIR/kallsyms, keyed by the boot id, so that later runs on the
 * same boot need not read /proc/kallsyms. DIR and its missing parents are
 * created 0700 when the cache is first written. NULL or "" disables the
 * cache (the default). The cache is used only with the default kallsyms
 * path, unless ty_symbols_set_boot_id was called too. A cache file that is
 * not ours, writable by others, stale or damaged is ignored and rewritten;
 * an address outside the cached core text reads the whole of kallsyms, so
 * names are always those a full read gives. Debug files whose DWARF is
 * compressed are kept decompressed in DIR/debug (debugcache.h). */
void ty_symbols_set_cache_dir(struct ty_symbols *s, const char *dir);

/* Read the boot id from PATH instead of /proc/sys/kernel/random/boot_id;
 * this also lets a kallsyms PATH other than the default use the cache
 * (tests). */
void ty_symbols_set_boot_id(struct ty_symbols *s, const char *path);

/* Look for separate debug files under DIR instead of /usr/lib/debug
 * (by build-id: DIR/.build-id/xx/yyyy.debug; by .gnu_debuglink:
 * DIR/<the binary's directory>/NAME; by path: DIR/<path>.debug). Tests. */
void ty_symbols_set_debug_root(struct ty_symbols *s, const char *dir);

/* Read the symbols and call-frame table of the file recorded at PATH
 * from SRC instead, the file of device DEV and inode INO (a copy of the
 * recorded build: dso.h's ty_dsos_set_source). Returns 0 or -ENOMEM. */
int ty_symbols_set_source(struct ty_symbols *s, const char *path, const char *src, uint64_t dev,
			  uint64_t ino);

/* Read JIT perf maps from DIR/perf-PID.map instead of /tmp (tests). */
void ty_symbols_set_perf_map_dir(struct ty_symbols *s, const char *dir);

/* Use BUF[LEN], text in perf's map format (lines "START SIZE name", START
 * and SIZE in hex, 0x optional), as the perf map of process PID: addresses
 * no file mapping covers resolve to its names (JIT code), the latest line
 * winning for one START. Malformed lines are skipped. Returns the number
 * of lines skipped, or -ENOMEM. ty_symbols_resolve reads
 * /tmp/perf-PID.map itself, once per process, when it is a regular file
 * owned by this user or root. */
long ty_symbols_add_perf_map(struct ty_symbols *s, uint32_t pid, const char *buf, size_t len);

/* How many times the whole of kallsyms was read so far (0 when the kernel
 * symbols came from the cache or were not needed yet; tests). */
unsigned ty_symbols_kallsyms_reads(const struct ty_symbols *s);

/* Record an executable mapping of FILE at [START, START+LEN) with file
 * offset PGOFF in process PID, seen at TIME. Returns 0 or -ENOMEM. */
int ty_symbols_add_mmap(struct ty_symbols *s, uint32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *file, uint64_t time);

/* The same, the mapping's file known by its device DEV and inode INO (from
 * the kernel's MMAP2 records or /proc/PID/maps; 0: not known): a file
 * replaced at FILE since is not read for it (dso.h's ty_dsos_get_id). */
int ty_symbols_add_mmap_id(struct ty_symbols *s, uint32_t pid, uint64_t start, uint64_t len,
			   uint64_t pgoff, const char *file, uint64_t dev, uint64_t ino,
			   uint64_t time);

/* PID was forked from PPID at TIME (it starts with PPID's mappings). */
int ty_symbols_fork(struct ty_symbols *s, uint32_t pid, uint32_t ppid, uint64_t time);

/* PID called exec at TIME: mappings seen before TIME no longer apply. */
int ty_symbols_exec(struct ty_symbols *s, uint32_t pid, uint64_t time);

/* Read the executable mappings of a running PID from ROOT/PID/maps (ROOT
 * is usually "/proc"), as seen at TIME (CLOCK_MONOTONIC ns; 0: always).
 * Mappings already known are not added twice. Returns the number of
 * mappings added, or a negative errno with E filled. */
int ty_symbols_load_maps(struct ty_symbols *s, const char *root, uint32_t pid, uint64_t time,
			 struct ty_error *e);

/* How many times, up to TIME, the addresses of PID began to mean something
 * else (an exec, or a mapping over one of another file): samples with the
 * same addresses but another epoch must be resolved apart. */
size_t ty_symbols_epoch(struct ty_symbols *s, uint32_t pid, uint64_t time);

/* Does a mapping known for PID since its last exec (or inherited from its
 * parent before the fork) cover the user-space address IP? */
int ty_symbols_covers(struct ty_symbols *s, uint32_t pid, uint64_t ip);

/* Resolve IP in process PID at TIME. KERNEL says the ip was sampled in
 * kernel mode (also assumed for addresses in the kernel half). Always
 * succeeds: unknown addresses give name NULL. */
void ty_symbols_resolve(struct ty_symbols *s, uint32_t pid, uint64_t ip, uint64_t time, int kernel,
			struct ty_sym_result *r);

/* The inline chain and source lines of R (a ty_symbols_resolve result),
 * from the DWARF of its file or of its debug file (libdw): FRAMES[0] is
 * the innermost inlined callee, each one's caller follows, and the last is
 * the function R names (whose line is the one executing in it). At most
 * MAX frames. Returns the number filled, 0 without DWARF for R's address
 * (or not built with libdw). Copy the strings before the next call: a
 * file's line tables are let go past a bound (ty_dso_frames). */
size_t ty_symbols_frames(struct ty_symbols *s, const struct ty_sym_result *r,
			 struct ty_dso_frame *frames, size_t max);

/* Fill OUT (struct ty_dso_info, dso.h) for the DSO PATH whose symbols
 * were read (by a resolve).
 * Returns 0, or -1 when PATH is unknown or unread. */
int ty_symbols_dso_info(struct ty_symbols *s, const char *path, struct ty_dso_info *out);

/* Symbol of ADDR (a link-time address) inside the ELF file PATH, as
 * ty_symbols_resolve would name it, or NULL (tests and tools). */
const char *ty_symbols_lookup_file(struct ty_symbols *s, const char *path, uint64_t addr);

/* The mapping of the user address IP in PID at TIME, as ty_symbols_resolve
 * would pick it (the unwinder's look-up). PATH is the mapped file,
 * "[vdso]" or another bracketed name, owned by S. Returns 0, or -1 when no
 * mapping is known. */
struct ty_sym_map {
	uint64_t start, end, pgoff;
	const char *path;
};
int ty_symbols_find_map(struct ty_symbols *s, uint32_t pid, uint64_t ip, uint64_t time,
			struct ty_sym_map *out);

/* Stop reading files once *FLAG is set (a signal handler's flag; NULL:
 * never): the addresses not named yet are resolved to their file and
 * offset only, with one warning. A long resolution ends soon after. */
void ty_symbols_set_stop(struct ty_symbols *s, const volatile sig_atomic_t *flag);

/* Warnings gathered while reading symbols ("no symbols in /bin/x (stripped?):
 * addresses shown raw"), each once. */
size_t ty_symbols_nwarnings(const struct ty_symbols *s);
const char *ty_symbols_warning(const struct ty_symbols *s, size_t i);

#endif
