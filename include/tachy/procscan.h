/* procscan.h - the processes running now, read from /proc (or a fixture
 * with the same layout): each one's name, parent, state, whether it is a
 * kernel thread, its threads and their names, and its executable mappings.
 * A system-wide recording starts from this picture (perf's "synthesized"
 * events): the processes that began before it are named and their code
 * symbolized as if their mmap records had been seen.
 *
 * The reader is forgiving of what /proc does while it reads (a process or
 * a thread that ends is skipped, a half-read file is what it is) and
 * strict about what it keeps: a line or field that does not parse is
 * skipped, never guessed at. */
#ifndef TACHY_PROCSCAN_H
#define TACHY_PROCSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"

#define TY_PROC_COMM 64 /* bytes of a name kept (the kernel's are 16) */

enum ty_proc_map_kind {
	TY_PMAP_FILE,	 /* a file that is still there */
	TY_PMAP_DELETED, /* "PATH (deleted)": replaced or removed since it was mapped */
	TY_PMAP_SPECIAL, /* "[vdso]", "[vsyscall]"... */
	TY_PMAP_ANON,	 /* no file: JIT code, trampolines */
};

struct ty_proc_map {
	uint64_t start, end, pgoff;
	enum ty_proc_map_kind kind;
	char *path; /* as /proc says it ("(deleted)" kept); NULL for TY_PMAP_ANON */
};

struct ty_proc_thread {
	uint32_t tid;
	char comm[TY_PROC_COMM];
};

struct ty_proc {
	uint32_t pid, ppid;
	char state;  /* stat's: R S D Z T t I X... ('?' unread) */
	int kthread; /* a kernel thread (PF_KTHREAD): no user space, no maps */
	char comm[TY_PROC_COMM];
	struct ty_proc_thread *threads; /* the main thread first */
	size_t nthreads;
	struct ty_proc_map *maps; /* executable mappings only, in address order */
	size_t nmaps;
};

struct ty_procscan {
	struct ty_proc *procs; /* by increasing pid */
	size_t n;
};

/* Read every process under ROOT ("/proc"): each numeric directory's stat,
 * comm, task/ and (WANT_MAPS) maps. Pid 0 is never listed (the idle tasks
 * have no directory). Returns 0, or a negative errno with E filled when
 * ROOT itself cannot be read; S is then empty. The caller releases S. */
int ty_procscan_read(struct ty_procscan *s, const char *root, int want_maps, struct ty_error *e);

/* Parse one process's stat text (BUF, LEN bytes) into P's pid, comm,
 * state, ppid and kthread. Returns 0, or -EINVAL when it is not a stat
 * line (tests and the fuzz target). */
int ty_procscan_parse_stat(const char *buf, size_t len, struct ty_proc *p);

/* Parse maps text (BUF, LEN bytes) into P's executable mappings (appended).
 * Returns the number added, or -ENOMEM. Lines that do not parse are
 * skipped. */
long ty_procscan_parse_maps(const char *buf, size_t len, struct ty_proc *p);

void ty_procscan_release(struct ty_procscan *s);

#endif
