/* profile-cachegrind.h - Valgrind's cachegrind output files
 * (cachegrind.out.PID): the reader, and the profile model built from one.
 *
 * The format (cachegrind 3.x, and the compressed names of callgrind-style
 * files): header lines ("desc: ...", "cmd: ...", "version: ...",
 * "creator: ..."), then "events: Ir [Dr ...]", then the body: "fl=FILE"
 * (also "fi=" and "fe=": a file of inlined code), "fn=NAME", and count
 * lines "LINE C1 C2 ..." (missing trailing counts are 0), and at the end
 * "summary: C1 C2 ..." (the totals, checked against the body's sums). A
 * name may be given as "(N) NAME" the first time and "(N)" after, files
 * and functions numbered apart. Blank lines and "#" comments are skipped.
 *
 * Only the first event's counts are kept, per (file, function): with
 * --cache-sim=no it is Ir, the instructions executed. Cachegrind counts
 * self counts only (each instruction where it is): no inclusive counts. */
#ifndef TACHY_PROFILE_CACHEGRIND_H
#define TACHY_PROFILE_CACHEGRIND_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/array.h"
#include "tachy/error.h"

struct ty_profile;

/* One function's count (of the first event) in one file. */
struct ty_cg_func {
	char *name, *file;
	uint64_t count;
};

struct ty_cachegrind {
	char *cmd;		  /* "cmd:" (NULL: none) */
	char *event;		  /* the first event's name ("Ir") */
	size_t nevents;		  /* events on the "events:" line */
	uint64_t total;		  /* the first event's sum over the body */
	int have_summary;	  /* a "summary:" line was read (and matched) */
	struct ty_cg_func *funcs; /* in the order first seen */
	size_t nfuncs, cap;
	struct ty_idmap index; /* private */
};

/* Parse BUF[0..LEN) (NAME for messages) into CG (zeroed by the caller, or
 * released). Returns 0, or -EINVAL with E saying what and on which line is
 * wrong (not a cachegrind file, a bad count, a summary that does not add
 * up), or -ENOMEM. */
int ty_cachegrind_parse(const char *buf, size_t len, const char *name, struct ty_cachegrind *cg,
			struct ty_error *e);

/* Read and parse file PATH. Returns 0 or a negative errno with E set. */
int ty_cachegrind_read(const char *path, struct ty_cachegrind *cg, struct ty_error *e);

/* Whether BUF[0..LEN), a file's start, looks like a cachegrind file (a
 * "desc:", "cmd:", "version:", "creator:" or "events:" line first). */
int ty_cachegrind_sniff(const char *buf, size_t len);

void ty_cachegrind_release(struct ty_cachegrind *cg);

/* A profile of CG: one sample per (file, function) weighing its count,
 * the functions by name (DSO ""): cachegrind splits one over the files of
 * its inlined code, and names no object file. The event and command in
 * meta. NULL when out of memory. */
struct ty_profile *ty_cachegrind_profile(const struct ty_cachegrind *cg);

#endif
