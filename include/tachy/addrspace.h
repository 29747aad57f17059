/* addrspace.h - the address spaces of sampled processes: which file is
 * mapped where in each process, as mmap, fork and exec records (or a read
 * of /proc/PID/maps) tell it, and over time: a child's samples before its
 * exec fall in its parent's image, samples taken while the kernel runs an
 * exec in the old program's. The files are the caller's (lib/symbols.c
 * gives each mapping its struct ty_dso, read by lib/dso.c); this module
 * keeps only their address and path. Not thread-safe. */
#ifndef TACHY_ADDRSPACE_H
#define TACHY_ADDRSPACE_H

#include <stddef.h>
#include <stdint.h>

struct ty_dso;
struct ty_addrspace;

/* An empty set of address spaces; NULL when out of memory. */
struct ty_addrspace *ty_addrspace_new(void);
void ty_addrspace_free(struct ty_addrspace *as);

/* Record an executable mapping of the file PATH (DSO, the caller's, with
 * PATH its name, both kept by the caller as long as AS) at [START,
 * START+LEN) with file offset PGOFF in process PID, seen at TIME. Returns
 * 0 or -ENOMEM. */
int ty_addrspace_add_mmap(struct ty_addrspace *as, uint32_t pid, uint64_t start, uint64_t len,
			  uint64_t pgoff, struct ty_dso *dso, const char *path, uint64_t time);

/* PID was forked from PPID at TIME (it starts with PPID's mappings).
 * Returns 0 or -ENOMEM. */
int ty_addrspace_fork(struct ty_addrspace *as, uint32_t pid, uint32_t ppid, uint64_t time);

/* PID called exec at TIME: mappings seen before TIME no longer apply.
 * Returns 0 or -ENOMEM. */
int ty_addrspace_exec(struct ty_addrspace *as, uint32_t pid, uint64_t time);

/* How many times, up to TIME, the addresses of PID began to mean something
 * else (an exec, or a mapping over one of another file). */
size_t ty_addrspace_epoch(struct ty_addrspace *as, uint32_t pid, uint64_t time);

/* Is anything known of PID (a mapping, a fork or an exec)? */
int ty_addrspace_has(const struct ty_addrspace *as, uint32_t pid);

/* Does a mapping known for PID since its last exec (or inherited from its
 * parent before the fork) cover the user-space address IP? */
int ty_addrspace_covers(struct ty_addrspace *as, uint32_t pid, uint64_t ip);

/* Does PID have the mapping [LO, HI) of PATH at offset OFF since its last
 * exec? */
int ty_addrspace_known(struct ty_addrspace *as, uint32_t pid, uint64_t lo, uint64_t hi,
		       uint64_t off, const char *path);

/* One mapping: PATH and DSO as given to ty_addrspace_add_mmap. */
struct ty_addrspace_map {
	uint64_t start, end, pgoff;
	const char *path;
	struct ty_dso *dso;
};

/* The mapping of PID covering IP at TIME: the latest one mapped before TIME
 * (and after the exec before TIME); else the first one seen after TIME and
 * before the next exec (a mapping read from /proc/PID/maps carries the time
 * it was read, not the time it was made); else, when no exec came before
 * TIME, the parent's at the fork; else, after an exec, the image before it
 * (the kernel samples the old program's registers while it runs the exec);
 * else any that covers it. Returns 0, or -1 when none covers IP. */
int ty_addrspace_find(struct ty_addrspace *as, uint32_t pid, uint64_t ip, uint64_t time,
		      struct ty_addrspace_map *out);

#endif
