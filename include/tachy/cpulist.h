/* cpulist.h - CPU lists in perf's and the kernel's spelling ("0", "0-3,6",
 * "0-7:2" is not accepted): parsing into a sorted set of CPU numbers, and
 * writing a set back in the shortest form ("0-3,6"). */
#ifndef TACHY_CPULIST_H
#define TACHY_CPULIST_H

#include <stddef.h>

#include "tachy/error.h"

#define TY_CPULIST_MAX 4096 /* CPU numbers are below this */

struct ty_cpulist {
	int *cpus; /* sorted, each once */
	size_t n;
};

/* Parse TEXT ("N", "N-M", joined by commas; blanks not allowed) into L
 * (the caller releases it). Every CPU must be below LIMIT (at most
 * TY_CPULIST_MAX; give the machine's count of configured CPUs to reject
 * those it has not). Returns 0, or -EINVAL with E naming the bad part
 * ("-C 0-x: 'x' is not a CPU number"), or -ENOMEM. L is empty on error. */
int ty_cpulist_parse(struct ty_cpulist *l, const char *text, int limit, struct ty_error *e);

/* Is CPU in L? */
int ty_cpulist_has(const struct ty_cpulist *l, int cpu);

/* Write L into BUF (LEN bytes) as "0-3,6"; "" when empty, cut with "..."
 * when it does not fit. Returns BUF. */
char *ty_cpulist_format(const struct ty_cpulist *l, char *buf, size_t len);

void ty_cpulist_release(struct ty_cpulist *l);

#endif
