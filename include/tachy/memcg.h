/* memcg.h - the peak memory of a whole process tree, from a memory cgroup.
 *
 * A cgroup of our own is made under the one tachy is in (cgroup v2 with the
 * memory controller: memory.peak, Linux >= 5.19, reset per run by a write,
 * Linux >= 6.12; cgroup v1's memory controller: memory.max_usage_in_bytes,
 * reset per run by writing 0). The spawner is moved into it, so every run
 * and all of its descendants are born there; the figure of one run is the
 * group's peak charge between the reset before the run and its end.
 *
 * What it counts differs by version (tachy-run(1) defines both): v2's
 * memory.peak is anonymous memory, page cache and kernel memory charged to
 * the group; v1's max_usage_in_bytes is anonymous memory and page cache,
 * including cache pages that earlier runs brought in and that are still
 * charged to the group. Either way it is the tree's, not one process's.
 *
 * Every path is read under a root directory ("" or "/" for the live
 * machine) so tests can present a fixture. */
#ifndef TACHY_MEMCG_H
#define TACHY_MEMCG_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "tachy/error.h"

struct ty_memcg {
	int version;	    /* 1 or 2; 0 when none is open */
	char dir[PATH_MAX]; /* the group we made */
	int peak_fd;	    /* memory.peak or memory.max_usage_in_bytes */
	int created;	    /* we made DIR (and remove it at close) */
};

/* Find the memory cgroup tachy is in under ROOT (ROOT/proc/self/cgroup,
 * the hierarchies under ROOT/sys/fs/cgroup) and make a group of our own
 * below it, named NAME. Returns 0, or a negative errno with E saying why
 * none can be used (-ENOENT: no memory controller; -EACCES: not ours to
 * write; -EOPNOTSUPP: a peak that cannot be reset). */
int ty_memcg_open(struct ty_memcg *m, const char *root, const char *name, struct ty_error *e);

/* Move process PID (with the children it makes from then on) into M's
 * group. Returns 0 or a negative errno with E set. */
int ty_memcg_enter(struct ty_memcg *m, pid_t pid, struct ty_error *e);

/* Start a new peak: from now on ty_memcg_peak_kb() is the highest charge
 * since this call. Returns 0 or a negative errno. */
int ty_memcg_reset(struct ty_memcg *m);

/* The group's peak charge since the last reset, KiB; negative errno when it
 * cannot be read. */
long ty_memcg_peak_kb(struct ty_memcg *m);

/* The path of our group, relative to its hierarchy's mount, from the text
 * of /proc/self/cgroup (LEN bytes): in the unified hierarchy (VERSION 2,
 * the "0::PATH" line) or in the v1 hierarchy with the memory controller
 * (VERSION 1). Lines that are not ID:CONTROLLERS:/PATH with a numeric ID,
 * and paths with "/..", are skipped. Writes OUT (SIZE bytes) and returns 0,
 * or -ENOENT when there is none (or it does not fit). */
int ty_memcg_parse_cgroup(const char *text, size_t len, int version, char *out, size_t size);

/* A peak file's text (LEN bytes: decimal bytes, an optional newline) in
 * KiB, or -EIO for anything else (a sign, blanks, junk, out of range). */
long ty_memcg_parse_peak(const char *text, size_t len);

/* The processes in M's group now (its cgroup.procs, each ending in a
 * line break): a malloc'd array in *OUT (the caller frees it), *N long.
 * Every process the runs start is born there, whatever session or process
 * group it moves to (a daemon's double fork and setsid included). Returns
 * 0 or a negative errno. */
int ty_memcg_procs(const struct ty_memcg *m, pid_t **out, size_t *n);

/* "cgroup-v1" or "cgroup-v2"; NULL when M is not open. */
const char *ty_memcg_method(const struct ty_memcg *m);

/* Close M and remove its group (its processes must have ended). */
void ty_memcg_close(struct ty_memcg *m);

#endif
