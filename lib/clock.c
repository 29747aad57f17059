/* clock.c - the benchmark tick counter, and the cost of every clock.
 *
 * The tick counter follows seed 001: keep raw counter ticks, normalise to
 * nanoseconds only when a figure is read. The TSC is used only where the
 * CPU says it is constant and nonstop and the kernel still offers it as a
 * clock source; it is calibrated against CLOCK_MONOTONIC by bracketing
 * rdtsc between two clock_gettime calls at both ends of a short sleep. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "tachy/clock.h"
#include "tachy/perfevent.h"
#include "tachy/sysinfo.h"

#if TY_CLOCK_HAVE_X86
#include <cpuid.h>
#endif

#define NS_PER_S 1000000000.0

uint64_t
ty_clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
ty_clock_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- what the CPU says --- */

#if TY_CLOCK_HAVE_X86
static int
cpuid_edx_bit(unsigned leaf, int bit)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(leaf, &a, &b, &c, &d))
		return 0;
	return (d >> bit) & 1;
}
#endif

int
ty_clock_cpu_has_tsc(void)
{
#if TY_CLOCK_HAVE_X86
	return cpuid_edx_bit(1, 4);
#else
	return 0;
#endif
}

int
ty_clock_cpu_has_rdtscp(void)
{
#if TY_CLOCK_HAVE_X86
	return cpuid_edx_bit(0x80000001u, 27);
#else
	return 0;
#endif
}

int
ty_clock_cpu_invariant_tsc(void)
{
#if TY_CLOCK_HAVE_X86
	return cpuid_edx_bit(0x80000007u, 8);
#else
	return 0;
#endif
}

/* --- calibration --- */

#if TY_CLOCK_HAVE_X86
/* A TSC reading and the CLOCK_MONOTONIC time it was taken at: the middle
 * of the tightest of a few brackets. */
static void
tsc_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	*tsc = *ns = 0;
	int i;

	for (i = 0; i < 9; i++) {
		uint64_t t0 = ty_clock_now_ns();
		uint64_t x = __rdtsc();
		uint64_t t1 = ty_clock_now_ns();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = x;
			*ns = t0 + (t1 - t0) / 2;
		}
	}
}
#endif

void
ty_clock_calibration_start(struct ty_clock_calibration *cal)
{
	memset(cal, 0, sizeof(*cal));
#if TY_CLOCK_HAVE_X86
	if (ty_clock_cpu_has_tsc()) {
		tsc_pair(&cal->tsc0, &cal->ns0);
		cal->started = 1;
	}
#endif
}

/* Finish CAL: wait for what is missing of MS, take the second pair. */
static int
calibration_finish(const struct ty_clock_calibration *cal, unsigned ms, double *hz,
		   struct ty_error *e)
{
#if TY_CLOCK_HAVE_X86
	uint64_t tsc1 = 0, ns1, want = (uint64_t)(ms ? ms : 1) * 1000000u;
	struct timespec ts;

	if (!cal->started)
		return ty_error_set(e, -ENOTSUP, "this CPU has no time stamp counter");
	ns1 = ty_clock_now_ns();
	if (ns1 > cal->ns0 && ns1 - cal->ns0 < want) {
		uint64_t left = want - (ns1 - cal->ns0);
		ts.tv_sec = (time_t)(left / 1000000000u);
		ts.tv_nsec = (long)(left % 1000000000u);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	tsc_pair(&tsc1, &ns1);
	if (ns1 <= cal->ns0 || tsc1 <= cal->tsc0)
		return ty_error_set(e, -EIO,
				    "cannot calibrate the TSC: it did not advance with "
				    "CLOCK_MONOTONIC");
	*hz = (double)(tsc1 - cal->tsc0) * NS_PER_S / (double)(ns1 - cal->ns0);
	return 0;
#else
	(void)cal;
	(void)ms;
	(void)hz;
	return ty_error_set(e, -ENOTSUP, "no time stamp counter: this is not an x86 CPU");
#endif
}

int
ty_clock_calibrate_tsc(unsigned ms, double *hz, struct ty_error *e)
{
	struct ty_clock_calibration cal;

	ty_clock_calibration_start(&cal);
	return calibration_finish(&cal, ms, hz, e);
}

/* --- the tick counter --- */

static void
set_monotonic(struct ty_tick_clock *c, const char *why)
{
	c->kind = TY_CLOCK_MONOTONIC;
	c->ns_per_tick = 1.0;
	c->hz = NS_PER_S;
	snprintf(c->why, sizeof(c->why), "%.250s", why);
	c->base = ty_clock_ticks(c);
}

int
ty_clock_init_kind(struct ty_tick_clock *c, enum ty_clock_kind kind, struct ty_error *e)
{
	double hz = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	if (kind == TY_CLOCK_MONOTONIC) {
		set_monotonic(c, "CLOCK_MONOTONIC was asked for");
		return 0;
	}
	rc = ty_clock_calibrate_tsc(20, &hz, e);
	if (rc < 0)
		return rc;
	c->kind = TY_CLOCK_TSC;
	c->hz = hz;
	c->ns_per_tick = NS_PER_S / hz;
	snprintf(c->why, sizeof(c->why), "the TSC was asked for");
	c->base = ty_clock_ticks(c);
	return 0;
}

/* The first flags line of ROOT/proc/cpuinfo into BUF ("" if none). */
static void
read_cpu_flags(const char *root, char *buf, size_t size)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root ? root : "");
	fp = fopen(path, "re");
	if (!fp)
		return;
	while ((len = getline(&line, &cap, fp)) > 0) {
		if ((strncmp(line, "flags", 5) == 0 || strncmp(line, "Features", 8) == 0) &&
		    strchr(line, ':')) {
			snprintf(buf, size, "%s", strchr(line, ':') + 1);
			break;
		}
	}
	free(line);
	fclose(fp);
}

enum ty_clock_kind
ty_clock_choose(const char *root, char *why, size_t size)
{
	char flags[4096], sources[256];

	if (root && strcmp(root, "/") == 0)
		root = NULL;
	if (!TY_CLOCK_HAVE_X86) {
		snprintf(why, size, "not an x86 CPU: no TSC");
		return TY_CLOCK_MONOTONIC;
	}
	read_cpu_flags(root, flags, sizeof(flags));
	if (!flags[0] || strspn(flags, " \t\n") == strlen(flags)) {
		snprintf(why, size, "the CPU's flags are not visible: no /proc/cpuinfo");
		return TY_CLOCK_MONOTONIC;
	}
	if (!ty_sysinfo_has_flag(flags, "tsc") || !ty_clock_cpu_has_tsc()) {
		snprintf(why, size, "this CPU has no TSC");
		return TY_CLOCK_MONOTONIC;
	}
	if (!ty_sysinfo_has_flag(flags, "constant_tsc") ||
	    !ty_sysinfo_has_flag(flags, "nonstop_tsc")) {
		snprintf(why, size, "the TSC is not both constant and nonstop");
		return TY_CLOCK_MONOTONIC;
	}
	if (ty_sysinfo_read(root,
			    "/sys/devices/system/clocksource/clocksource0/"
			    "available_clocksource",
			    sources, sizeof(sources)) > 0 &&
	    !ty_sysinfo_has_flag(sources, "tsc")) {
		snprintf(why, size,
			 "the kernel judged the TSC unstable: it is not an available "
			 "clock source");
		return TY_CLOCK_MONOTONIC;
	}
	snprintf(why, size, "the TSC is constant and nonstop");
	return TY_CLOCK_TSC;
}

int
ty_clock_init_calibrated(struct ty_tick_clock *c, const char *root,
			 const struct ty_clock_calibration *cal, struct ty_error *e)
{
	char why[sizeof(c->why)];
	struct ty_error err;
	double hz = 0;

	memset(c, 0, sizeof(*c));
	if (ty_clock_choose(root, why, sizeof(why)) == TY_CLOCK_MONOTONIC) {
		set_monotonic(c, why);
		return 0;
	}
	if (calibration_finish(cal, 2, &hz, &err) < 0) {
		set_monotonic(c, err.msg);
		return 0;
	}
	c->kind = TY_CLOCK_TSC;
	c->hz = hz;
	c->ns_per_tick = NS_PER_S / hz;
	snprintf(c->why, sizeof(c->why), "%s", why);
	c->base = ty_clock_ticks(c);
	(void)e;
	return 0;
}

int
ty_clock_init(struct ty_tick_clock *c, const char *root, struct ty_error *e)
{
	struct ty_clock_calibration cal;

	ty_clock_calibration_start(&cal);
	return ty_clock_init_calibrated(c, root, &cal, e);
}

int64_t
ty_clock_since_init_ns(void *clock)
{
	const struct ty_tick_clock *c = clock;

	return (int64_t)ty_clock_elapsed_ns(c, c->base, ty_clock_ticks(c));
}

double
ty_clock_ticks_to_ns(const struct ty_tick_clock *c, uint64_t ticks)
{
	return c->kind == TY_CLOCK_TSC ? (double)ticks * c->ns_per_tick : (double)ticks;
}

uint64_t
ty_clock_elapsed_ns(const struct ty_tick_clock *c, uint64_t start, uint64_t end)
{
	if (end <= start)
		return 0;
	if (c->kind != TY_CLOCK_TSC)
		return end - start;
	return (uint64_t)((double)(end - start) * c->ns_per_tick + 0.5);
}

const char *
ty_clock_name(const struct ty_tick_clock *c)
{
	return c->kind == TY_CLOCK_TSC ? "tsc" : "CLOCK_MONOTONIC";
}

/* --- measuring every clock --- */

struct ctx {
	int perf_fd;
};

static inline uint64_t
ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
tv_us(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

static inline uint64_t
rusage_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static inline uint64_t
perf_read(const struct ctx *x)
{
	uint64_t v = 0;

	if (read(x->perf_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

#if TY_CLOCK_HAVE_X86
static inline uint64_t
rdtscp_read(void)
{
	unsigned aux;

	return __rdtscp(&aux);
}
#endif

/* One function reads once, the other N times in a loop the compiler can
 * inline the read into, so the cost measured is the read's own. */
#define PROBE(id, expr)                                                                            \
	static uint64_t read_##id(const struct ctx *x)                                             \
	{                                                                                          \
		(void)x;                                                                           \
		return (expr);                                                                     \
	}                                                                                          \
	static uint64_t batch_##id(const struct ctx *x, unsigned n)                                \
	{                                                                                          \
		uint64_t acc = 0;                                                                  \
		unsigned i;                                                                        \
		(void)x;                                                                           \
		for (i = 0; i < n; i++)                                                            \
			acc += (expr);                                                             \
		return acc;                                                                        \
	}

#if TY_CLOCK_HAVE_X86
PROBE(rdtsc, __rdtsc())
PROBE(rdtscp, rdtscp_read())
#else
/* Listed everywhere, so other CPUs say they have none. */
PROBE(rdtsc, 0)
PROBE(rdtscp, 0)
#endif
PROBE(mono, ts_ns(CLOCK_MONOTONIC))
PROBE(mono_raw, ts_ns(CLOCK_MONOTONIC_RAW))
PROBE(mono_coarse, ts_ns(CLOCK_MONOTONIC_COARSE))
PROBE(realtime, ts_ns(CLOCK_REALTIME))
PROBE(boottime, ts_ns(CLOCK_BOOTTIME))
PROBE(process_cpu, ts_ns(CLOCK_PROCESS_CPUTIME_ID))
PROBE(thread_cpu, ts_ns(CLOCK_THREAD_CPUTIME_ID))
PROBE(gettimeofday, tv_us())
PROBE(getrusage, rusage_us())
PROBE(perf_task_clock, perf_read(x))

enum need { NEED_NONE, NEED_TSC, NEED_RDTSCP, NEED_PERF };

struct probe_def {
	const char *name, *kind;
	uint64_t (*read)(const struct ctx *);
	uint64_t (*batch)(const struct ctx *, unsigned);
	double ns_per_unit; /* 0: the measured TSC period */
	int clockid;	    /* for clock_getres, -1 none */
	enum need need;
};

#define DEF(name, kind, id, unit, clk, need)                                                       \
	{                                                                                          \
		name, kind, read_##id, batch_##id, unit, clk, need                                 \
	}

static const struct probe_def defs[] = {
    DEF("rdtsc", "counter", rdtsc, 0, -1, NEED_TSC),
    DEF("rdtscp", "counter", rdtscp, 0, -1, NEED_RDTSCP),
    DEF("CLOCK_MONOTONIC", "wall", mono, 1, CLOCK_MONOTONIC, NEED_NONE),
    DEF("CLOCK_MONOTONIC_RAW", "wall", mono_raw, 1, CLOCK_MONOTONIC_RAW, NEED_NONE),
    DEF("CLOCK_MONOTONIC_COARSE", "wall", mono_coarse, 1, CLOCK_MONOTONIC_COARSE, NEED_NONE),
    DEF("CLOCK_REALTIME", "wall", realtime, 1, CLOCK_REALTIME, NEED_NONE),
    DEF("CLOCK_BOOTTIME", "wall", boottime, 1, CLOCK_BOOTTIME, NEED_NONE),
    DEF("CLOCK_PROCESS_CPUTIME_ID", "cpu", process_cpu, 1, CLOCK_PROCESS_CPUTIME_ID, NEED_NONE),
    DEF("CLOCK_THREAD_CPUTIME_ID", "cpu", thread_cpu, 1, CLOCK_THREAD_CPUTIME_ID, NEED_NONE),
    DEF("gettimeofday", "wall", gettimeofday, 1000, -1, NEED_NONE),
    DEF("getrusage", "cpu", getrusage, 1000, -1, NEED_NONE),
    DEF("perf task-clock", "cpu", perf_task_clock, 1, -1, NEED_PERF),
};

#define BATCHES 41
#define BATCH_NS 200000.0     /* aim for batches of about 0.2 ms */
#define STEP_NS 20000000u     /* look for the smallest step for 20 ms */
#define STEP_READS 100000000u /* the time limit ends the loop first */
#define ROUNDS 40	      /* cross-CPU rounds */

static volatile uint64_t sink;

/* qsort's order of doubles (not stats-summary.c's: clock.c builds alone,
 * with sysinfo.c and perfevent.c, for the case clocks-other-cpu). */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
quantile(const double *sorted, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;

	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (pos - (double)i) * (sorted[i + 1] - sorted[i]);
}

static void
measure_cost(const struct probe_def *d, const struct ctx *x, struct ty_clock_probe *p)
{
	double cost[BATCHES], est;
	uint64_t t0, t1;
	unsigned n;
	int i;

	/* Estimate, then size the batches. */
	t0 = ty_clock_now_ns();
	sink += d->batch(x, 100);
	t1 = ty_clock_now_ns();
	est = (double)(t1 - t0) / 100.0;
	n = est > 0 ? (unsigned)(BATCH_NS / est) : 20000;
	if (n < 10)
		n = 10;
	if (n > 20000)
		n = 20000;
	for (i = 0; i < BATCHES; i++) {
		t0 = ty_clock_now_ns();
		sink += d->batch(x, n);
		t1 = ty_clock_now_ns();
		cost[i] = (double)(t1 - t0) / n;
	}
	qsort(cost, BATCHES, sizeof(cost[0]), cmp_double);
	p->cost_ns = quantile(cost, BATCHES, 0.5);
	p->cost_lo_ns = quantile(cost, BATCHES, 0.25);
	p->cost_hi_ns = quantile(cost, BATCHES, 0.75);
}

static void
note_backwards(struct ty_clock_probe *p, uint64_t prev, uint64_t v, double unit)
{
	double d = (double)(prev - v) * unit;

	if (p->backwards < 0)
		p->backwards = 0;
	p->backwards++;
	if (d > p->backwards_max_ns)
		p->backwards_max_ns = d;
}

static void
measure_step(const struct probe_def *d, const struct ctx *x, struct ty_clock_probe *p, double unit)
{
	uint64_t start = ty_clock_now_ns(), prev, v, best = 0;
	unsigned i;

	prev = d->read(x);
	for (i = 1; i < STEP_READS; i++) {
		v = d->read(x);
		if (v > prev && (best == 0 || v - prev < best))
			best = v - prev;
		else if (v < prev)
			note_backwards(p, prev, v, unit);
		prev = v;
		if ((i & 255) == 0 && ty_clock_now_ns() - start > STEP_NS)
			break;
	}
	p->step_ns = (double)best * unit;
	if (p->backwards < 0)
		p->backwards = 0;
	p->cpus = 1;
}

static int
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void
measure_cross_cpu(const struct probe_def *d, const struct ctx *x, struct ty_clock_probe *p,
		  double unit, const cpu_set_t *allowed)
{
	uint64_t prev = 0, v;
	int have = 0, r, cpu, visited = 0;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		visited += CPU_ISSET(cpu, allowed) ? 1 : 0;
	if (visited < 2)
		return;
	visited = 0;
	for (r = 0; r < ROUNDS; r++) {
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, allowed) || pin(cpu) != 0)
				continue;
			if (r == 0)
				visited++;
			v = d->read(x);
			if (have && v < prev)
				note_backwards(p, prev, v, unit);
			prev = v;
			have = 1;
		}
	}
	p->cpus = visited;
	sched_setaffinity(0, sizeof(*allowed), allowed);
}

static int
open_task_clock(char *why, size_t size)
{
	struct perf_event_attr attr;
	int fd;

	ty_perfevent_attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	fd = ty_perfevent_open_user(&attr, 0, -1, -1, 0);
	if (fd < 0)
		snprintf(why, size, "perf_event_open: %s%s", strerror(errno),
			 errno == EACCES || errno == EPERM ? " (see perf_event_paranoid)" : "");
	return fd;
}

static int
probe_available(const struct probe_def *d, const struct ctx *x, double tsc_hz,
		struct ty_clock_probe *p)
{
	struct timespec res;

	switch (d->need) {
	case NEED_TSC:
		if (!TY_CLOCK_HAVE_X86) {
			snprintf(p->why, sizeof(p->why), "not an x86 CPU: no rdtsc instruction");
			return 0;
		}
		if (!ty_clock_cpu_has_tsc() || tsc_hz <= 0) {
			snprintf(p->why, sizeof(p->why), "this CPU has no TSC");
			return 0;
		}
		break;
	case NEED_RDTSCP:
		if (!TY_CLOCK_HAVE_X86) {
			snprintf(p->why, sizeof(p->why), "not an x86 CPU: no rdtscp instruction");
			return 0;
		}
		if (!ty_clock_cpu_has_rdtscp() || tsc_hz <= 0) {
			snprintf(p->why, sizeof(p->why), "this CPU has no rdtscp instruction");
			return 0;
		}
		break;
	case NEED_PERF:
		if (x->perf_fd < 0)
			return 0; /* why was filled when opening */
		break;
	case NEED_NONE:
		break;
	}
	if (d->clockid >= 0 && clock_getres((clockid_t)d->clockid, &res) != 0) {
		snprintf(p->why, sizeof(p->why), "clock_getres: %s", strerror(errno));
		return 0;
	}
	if (d->clockid >= 0)
		p->getres_ns = (double)res.tv_sec * NS_PER_S + (double)res.tv_nsec;
	return 1;
}

int
ty_clock_measure(struct ty_clock_report *r, struct ty_error *e)
{
	char perf_why[200] = "";
	struct ctx x;
	cpu_set_t allowed;
	size_t i, n = sizeof(defs) / sizeof(defs[0]);
	int have_mask;

	memset(r, 0, sizeof(*r));
	if (ty_clock_cpu_has_tsc() && ty_clock_calibrate_tsc(50, &r->tsc_hz, NULL) < 0)
		r->tsc_hz = 0;
	x.perf_fd = open_task_clock(perf_why, sizeof(perf_why));
	have_mask = sched_getaffinity(0, sizeof(allowed), &allowed) == 0;
	for (i = 0; i < n && i < TY_CLOCK_PROBES; i++) {
		const struct probe_def *d = &defs[i];
		struct ty_clock_probe *p = &r->probe[r->n++];
		double unit = d->ns_per_unit > 0 ? d->ns_per_unit
			      : r->tsc_hz > 0	 ? NS_PER_S / r->tsc_hz
						 : 0;

		snprintf(p->name, sizeof(p->name), "%s", d->name);
		p->kind = d->kind;
		p->backwards = -1;
		if (d->need == NEED_PERF && x.perf_fd < 0)
			snprintf(p->why, sizeof(p->why), "%s", perf_why);
		if (!probe_available(d, &x, r->tsc_hz, p))
			continue;
		p->available = 1;
		measure_cost(d, &x, p);
		measure_step(d, &x, p, unit);
		if (have_mask)
			measure_cross_cpu(d, &x, p, unit, &allowed);
	}
	if (x.perf_fd >= 0)
		close(x.perf_fd);
	(void)e;
	return 0;
}
