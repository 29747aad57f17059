/* perfmap.h - names of JIT code from perf maps: /tmp/perf-PID.map, text
 * in perf's format (lines "START SIZE name", START and SIZE in hex, 0x
 * optional), one per process, read once, when it is a regular file owned
 * by this user or root (another user's file could name our code).
 * Malformed lines are skipped with one warning. Not thread-safe. */
#ifndef TACHY_PERFMAP_H
#define TACHY_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/symtab.h"

struct ty_perfmap;

/* The perf maps of processes, read when first asked for; warnings go to W,
 * which the caller keeps. NULL when out of memory. */
struct ty_perfmap *ty_perfmap_new(struct ty_symtab_warnings *w);
void ty_perfmap_free(struct ty_perfmap *pm);

/* Read DIR/perf-PID.map instead of /tmp's (tests). */
void ty_perfmap_set_dir(struct ty_perfmap *pm, const char *dir);

/* Use BUF[LEN] as the perf map of PID (replacing any read before), the
 * latest line winning for one START. Returns the number of malformed lines
 * skipped, or -ENOMEM. */
long ty_perfmap_add(struct ty_perfmap *pm, uint32_t pid, const char *buf, size_t len);

/* Has PID a perf map given or read already (perhaps empty)? */
int ty_perfmap_known(const struct ty_perfmap *pm, uint32_t pid);

/* The JIT symbol of PID covering IP: its *NAME and the map's *PATH (both
 * live as long as PM), reading the map first when it was not. Returns 1,
 * or 0 when none covers IP. */
int ty_perfmap_find(struct ty_perfmap *pm, uint32_t pid, uint64_t ip, const char **name,
		    const char **path);

#endif
