/* clock.h - the tick counter for benchmarks, and what every clock costs.
 *
 * Seed 001's design: raw ticks are stored, and converted to nanoseconds
 * only when read. The tick source is the TSC where the CPU says it is
 * constant and nonstop (and the kernel still lists it as a clock source),
 * calibrated against CLOCK_MONOTONIC; CLOCK_MONOTONIC (ticks = ns)
 * everywhere else, including every machine that is not x86.
 */
#ifndef TACHY_CLOCK_H
#define TACHY_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* TY_CLOCK_NO_X86 builds the code of other CPUs on x86, to test it. */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(TY_CLOCK_NO_X86)
#include <x86intrin.h>
#define TY_CLOCK_HAVE_X86 1
#else
#define TY_CLOCK_HAVE_X86 0
#endif

#include "tachy/error.h"

enum ty_clock_kind { TY_CLOCK_MONOTONIC, TY_CLOCK_TSC };

struct ty_tick_clock {
	enum ty_clock_kind kind;
	double ns_per_tick; /* 1.0 for CLOCK_MONOTONIC */
	double hz;	    /* ticks per second (1e9 for CLOCK_MONOTONIC) */
	char why[256];	    /* why this source was chosen, one sentence */
	uint64_t base;	    /* the reading at init, for ty_clock_since_init_ns */
};

/* Choose and calibrate the tick source for the machine described under
 * ROOT (NULL or "/" = this one; the CPU flags and clock sources are read
 * there, the TSC itself is always this CPU's). Calibration takes ~20 ms.
 * Never fails for want of a TSC: it falls back to CLOCK_MONOTONIC.
 * Returns 0, or a negative errno with E filled if no clock works at all. */
int ty_clock_init(struct ty_tick_clock *c, const char *root, struct ty_error *e);

/* Calibration that overlaps other work: ty_clock_calibration_start takes
 * the first (TSC, CLOCK_MONOTONIC) pair; ty_clock_init_calibrated then does
 * what ty_clock_init does, taking the second pair now (sleeping only for
 * what is missing of 2 ms: a bracket of ~100 ns over 2 ms is 50 ppm), so the time spent between the
 * two, e.g. reading the machine's facts, is not spent twice. */
struct ty_clock_calibration {
	uint64_t tsc0, ns0;
	int started;
};
void ty_clock_calibration_start(struct ty_clock_calibration *cal);
int ty_clock_init_calibrated(struct ty_tick_clock *c, const char *root,
			     const struct ty_clock_calibration *cal, struct ty_error *e);

/* Which source ty_clock_init would choose for ROOT, without calibrating;
 * WHY gets the reason (one sentence). */
enum ty_clock_kind ty_clock_choose(const char *root, char *why, size_t size);

/* Set C up as the given KIND regardless of the machine's flags (tests,
 * --clock options). TY_CLOCK_TSC fails with -ENOTSUP where there is none. */
int ty_clock_init_kind(struct ty_tick_clock *c, enum ty_clock_kind kind, struct ty_error *e);

/* One raw reading. Cheap: rdtsc or a vDSO clock_gettime. */
static inline uint64_t
ty_clock_ticks(const struct ty_tick_clock *c)
{
	struct timespec ts;

#if TY_CLOCK_HAVE_X86
	if (c->kind == TY_CLOCK_TSC)
		return __rdtsc();
#endif
	(void)c;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* TICKS (a difference of two readings) in nanoseconds. */
double ty_clock_ticks_to_ns(const struct ty_tick_clock *c, uint64_t ticks);

/* The interval START..END in whole nanoseconds (0 if END < START). */
uint64_t ty_clock_elapsed_ns(const struct ty_tick_clock *c, uint64_t start, uint64_t end);

/* Nanoseconds since C was set up; CLOCK is a struct ty_tick_clock *. The
 * shape of tachy run's clock callback (runner.h: now_ns(ctx)). */
int64_t ty_clock_since_init_ns(void *clock);

/* CLOCK_MONOTONIC now, in nanoseconds: the one helper for timing that
 * needs no tick clock (deadlines, rate limits, the runner's default, and
 * the clock perf samples carry). */
uint64_t ty_clock_now_ns(void);

/* The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), in nanoseconds:
 * its own time only, whatever else a loaded machine runs (a system call,
 * not the vDSO). */
uint64_t ty_clock_thread_ns(void);

/* "tsc" or "CLOCK_MONOTONIC": the export's "clock" field. */
const char *ty_clock_name(const struct ty_tick_clock *c);

/* Measure the TSC's frequency against CLOCK_MONOTONIC over about MS
 * milliseconds. Returns 0 and sets *HZ, or -ENOTSUP (no TSC here). */
int ty_clock_calibrate_tsc(unsigned ms, double *hz, struct ty_error *e);

/* What the CPU itself says (cpuid), independent of any ROOT: 1 or 0. */
int ty_clock_cpu_has_tsc(void);
int ty_clock_cpu_has_rdtscp(void);
int ty_clock_cpu_invariant_tsc(void);

/* --- measuring every clock (tachy clocks) --- */

#define TY_CLOCK_PROBES 16

struct ty_clock_probe {
	char name[40];		 /* "rdtsc", "CLOCK_MONOTONIC", "gettimeofday"... */
	const char *kind;	 /* "wall", "cpu" (process/thread CPU time), "counter" */
	int available;		 /* 0: see why */
	char why[200];		 /* why it is not available */
	double cost_ns;		 /* median cost of one read over the batches */
	double cost_lo_ns;	 /* first quartile of the batch costs */
	double cost_hi_ns;	 /* third quartile */
	double getres_ns;	 /* clock_getres where it applies, else 0 */
	double step_ns;		 /* smallest non-zero step observed, 0 if none seen */
	int backwards;		 /* -1 not measured, else backward steps seen, in
				  * consecutive reads and from CPU to CPU */
	double backwards_max_ns; /* the largest backward step */
	int cpus;		 /* CPUs read on (1: the cross-CPU test was not run) */
};

struct ty_clock_report {
	size_t n;
	struct ty_clock_probe probe[TY_CLOCK_PROBES];
	double tsc_hz; /* measured, 0 without a TSC */
};

/* Measure every clock a benchmark could use on this machine: cost of one
 * read (median over batches of reads, with quartiles), smallest non-zero
 * step, and whether readings went backwards while the calling thread was
 * pinned to each allowed CPU in turn (its affinity is restored). Takes
 * about a second. Returns 0 (unavailable clocks say why), or a negative
 * errno with E filled. */
int ty_clock_measure(struct ty_clock_report *r, struct ty_error *e);

#endif
