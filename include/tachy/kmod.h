/* kmod.h - kernel module symbols: the text symbols of /proc/kallsyms that
 * name a module ("ADDR t NAME\t[MODULE]"), so that an address in a module
 * is named with its function and, as its DSO, the module ("[ext4]"), as
 * perf shows it. The table is read once, when the first kernel address
 * outside the core kernel's cached text needs it. */
#ifndef TACHY_KMOD_H
#define TACHY_KMOD_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"

struct ty_kmod;

/* Read the module symbols of the kallsyms-format text BUF (LEN bytes).
 * Lines of the core kernel, of non-text symbols, or that do not parse are
 * skipped. Returns 0 and *OUT (possibly with no symbol: a kernel without
 * modules), or -ENOMEM. */
int ty_kmod_parse(struct ty_kmod **out, const char *buf, size_t len);

/* The same in steps, for a file read in chunks: an empty table, then
 * whole lines fed (a chunk ends at a newline or at the file's end), then
 * the table sorted. -ENOMEM where the feed ran out (free K). */
int ty_kmod_begin(struct ty_kmod **out);
int ty_kmod_feed(struct ty_kmod *k, const char *buf, size_t len);
void ty_kmod_end(struct ty_kmod *k);

/* The same from the file PATH (/proc/kallsyms). Returns 0 and *OUT, or a
 * negative errno with E filled. */
int ty_kmod_read(struct ty_kmod **out, const char *path, struct ty_error *e);

/* The module symbol covering the kernel address IP: its name, and in
 * *MODULE the module's DSO name ("[ext4]"); NULL when IP is in no module
 * (past a module's last symbol by more than 4 KiB, or before its first).
 * Strings live as long as K. */
const char *ty_kmod_lookup(const struct ty_kmod *k, uint64_t ip, const char **module);

/* How many module symbols and modules K holds. */
size_t ty_kmod_nsyms(const struct ty_kmod *k);
size_t ty_kmod_nmodules(const struct ty_kmod *k);

void ty_kmod_free(struct ty_kmod *k);

#endif
