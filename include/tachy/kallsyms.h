/* kallsyms.h - the kernel's symbols: /proc/kallsyms (text symbols, the
 * core kernel's and the modules'), and a per-boot cache of the core
 * kernel's, so that later runs on the same boot need not read it. Not
 * thread-safe. */
#ifndef TACHY_KALLSYMS_H
#define TACHY_KALLSYMS_H

#include <stdint.h>

#include "tachy/symtab.h"

struct ty_kallsyms;

/* Kernel symbols, read when first asked for; warnings (unreadable,
 * addresses hidden by kptr_restrict) go to W, which the caller keeps.
 * NULL when out of memory. */
struct ty_kallsyms *ty_kallsyms_new(struct ty_symtab_warnings *w);
void ty_kallsyms_free(struct ty_kallsyms *k);

/* Read PATH instead of /proc/kallsyms (tests). */
void ty_kallsyms_set_path(struct ty_kallsyms *k, const char *path);

/* Keep the core kernel's symbols in DIR/kallsyms, keyed by the boot id
 * (see ty_symbols_set_cache_dir). NULL or "": no cache (the default). */
void ty_kallsyms_set_cache_dir(struct ty_kallsyms *k, const char *dir);

/* Read the boot id from PATH instead of /proc/sys/kernel/random/boot_id;
 * this also lets a kallsyms path other than the default use the cache. */
void ty_kallsyms_set_boot_id(struct ty_kallsyms *k, const char *path);

/* The name of the kernel address IP, NULL when unknown: from the cache
 * while it covers IP, else from kallsyms (read once, a chunk at a time:
 * beside the cache only what lies outside the core kernel is kept). In
 * *MODULE the module's DSO name ("[ext4]") when IP is in a module (kmod.h),
 * else NULL. The strings live as long as K. */
const char *ty_kallsyms_name(struct ty_kallsyms *k, uint64_t ip, const char **module);

/* How many times the whole of kallsyms was read (tests). */
unsigned ty_kallsyms_reads(const struct ty_kallsyms *k);

#endif
