/* comparable.h - whether two sides of a comparison were measured under
 * conditions that let them be compared (comparable.c): the machine, the
 * kernel, the load, and (for a history) whether the baseline still stands
 * among the results after it.
 *
 * The judging never changes a verdict's numbers: it says what the verdict
 * stands on. Each finding names the facts of both sides and the fix. Pure
 * functions of the recorded facts: the same facts always give the same
 * words. */
#ifndef TACHY_COMPARABLE_H
#define TACHY_COMPARABLE_H

#include <stddef.h>

struct ty_results_saved;

/* The recorded facts of one side (one or several results files). */
struct ty_comparable_side {
	const char *name;      /* how findings name the side ("old.json", "abc123"); not owned */
	const char *host;      /* hostname, NULL unknown (these point into the files) */
	const char *cpu_model; /* NULL unknown */
	const char *kernel;    /* NULL unknown */
	int cpus;	       /* logical CPUs, -1 unknown */
	double load;	       /* load average (1 min) when the run started, -1 unknown */
	int busy;	       /* other processes running when it started, -1 unknown */
	double cpu_s;	       /* the runs' user + system time in total, seconds */
	double wall_s;	       /* their wall time in total, seconds */
	double nivcsw;	       /* their involuntary context switches in total, -1 unknown */
};

/* The facts of N results files FILES (the environment of the first that
 * records each; the runs of every benchmark of all) into S, named NAME.
 * S points into FILES: keep them while S is used. N == 0 gives a side
 * with nothing known. */
void ty_comparable_side_of(struct ty_comparable_side *s, const char *name,
			   const struct ty_results_saved *files, size_t n);

enum ty_comparable_kind {
	TY_COMPARABLE_MACHINE, /* another host, CPU model or CPU count */
	TY_COMPARABLE_KERNEL,  /* one machine, another kernel */
	TY_COMPARABLE_LOAD,    /* clearly different load */
	TY_COMPARABLE_STALE,   /* the baseline outside every later result */
};

/* One finding: the facts of both sides and what to do, in words. */
struct ty_comparable_finding {
	enum ty_comparable_kind kind;
	char facts[400];
	char fix[240];
};

/* The key of KIND in files ("machine", "kernel", "load", "stale_baseline"). */
const char *ty_comparable_kind_key(enum ty_comparable_kind kind);

/* Judge OLD against NEW: up to MAX findings into OUT, machine first, then
 * kernel (only on one machine), then load. Returns the number found (it
 * may be over MAX: only MAX are written). Equal or unknown facts give
 * none. */
size_t ty_comparable_judge(const struct ty_comparable_side *old,
			   const struct ty_comparable_side *new, struct ty_comparable_finding *out,
			   size_t max);

/* A later result of a history: its name (a commit) and the range of its
 * values. */
struct ty_comparable_range {
	const char *name;
	double lo, hi;
};

/* Whether the baseline BASE_NAME of benchmark BENCH, with median MEDIAN,
 * lies beyond every one of the N later results LATER (at least 2 of them),
 * on one side, by more than 5% of the median: then F is filled and 1
 * returned, else 0. */
int ty_comparable_stale(const char *bench, const char *base_name, double median,
			const struct ty_comparable_range *later, size_t n,
			struct ty_comparable_finding *f);

#endif
