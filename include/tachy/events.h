/* events.h - event names -> struct perf_event_attr.
 *
 * Understands what perf stat -e understands for counting: the generic
 * hardware and software names and their aliases (cycles, cpu-cycles,
 * task-clock, cs, faults, ...), hardware cache events
 * (L1-dcache-load-misses, LLC-loads, dTLB-store-misses, ...), raw events
 * (r1a2), the :u :k :h modifiers, groups ({cycles,instructions}), and,
 * when built with libpfm4, the CPU's own event names
 * (INST_RETIRED:ANY_P). Pure: no system call is made here except by
 * libpfm4, which reads the CPU's identity once. */
#ifndef TACHY_EVENTS_H
#define TACHY_EVENTS_H

#include <linux/perf_event.h>
#include <stddef.h>

#include "tachy/error.h"

#define TY_EVENT_NAME_MAX 128

/* What an event is, for perf stat's derived figures. */
enum ty_event_kind {
	TY_EVENT_OTHER,
	TY_EVENT_TASK_CLOCK, /* task-clock or cpu-clock: nanoseconds of CPU time */
	TY_EVENT_CYCLES,
	TY_EVENT_INSTRUCTIONS,
	TY_EVENT_BRANCHES,
	TY_EVENT_BRANCH_MISSES,
	TY_EVENT_CACHE_REFERENCES,
	TY_EVENT_CACHE_MISSES,
	TY_EVENT_CACHE_ACCESS, /* a hardware cache event counting accesses */
	TY_EVENT_CACHE_MISS,   /* a hardware cache event counting misses */
};

/* Where a modifier left the privilege levels. */
enum {
	TY_EVENT_PRIV_GIVEN = 1, /* :u, :k or :h given: no paranoid fallback */
};

struct ty_event {
	char name[TY_EVENT_NAME_MAX]; /* as written: "cycles:u" */
	struct perf_event_attr attr;  /* type, config, config1/2, exclude_* set */
	enum ty_event_kind kind;
	unsigned cache_id; /* for cache events: cache (0..6) and op << 8 */
	const char *unit;  /* "msec" for clocks, else "" */
	double scale;	   /* count * scale = value shown in unit (1e-6 for clocks) */
	unsigned flags;	   /* TY_EVENT_PRIV_GIVEN */
	int group;	   /* events with the same group number > 0 are counted
			      together; 0 = alone */
};

/* A list of events, in the order given. The caller owns it: init it,
 * add to it, release it. */
struct ty_event_list {
	struct ty_event *ev;
	size_t n, cap;
	int next_group; /* last group number handed out */
};

void ty_event_list_init(struct ty_event_list *l);
void ty_event_list_release(struct ty_event_list *l);

/* Parse one event NAME (no commas, no braces) into EV. Returns 0, or
 * -EINVAL ("unknown event 'foo'", "bad modifier ..."), -ENOTSUP (a CPU
 * event name when not built with libpfm4) with E set. */
int ty_event_parse(const char *name, struct ty_event *ev, struct ty_error *e);

/* Parse a comma-separated LIST ("cycles,{instructions,branches}:u,...")
 * and append its events to L. Braces make a group counted together.
 * Duplicates (same name) are added once. Returns 0 or a negative code
 * with E set; on error L is left as it was. */
int ty_event_list_add(struct ty_event_list *l, const char *list, struct ty_error *e);

/* Append perf stat's default events: task-clock, context-switches,
 * cpu-migrations, page-faults, {cycles, instructions}, branches,
 * branch-misses, cache-references, cache-misses. Returns 0 or -ENOMEM. */
int ty_event_list_add_defaults(struct ty_event_list *l, struct ty_error *e);

/* Whether EV counts only what the kernel does (context switches and CPU
 * migrations happen in the scheduler): counted in user space only, it is
 * always 0. */
int ty_event_kernel_side(const struct ty_event *ev);

/* Index of the event named NAME in L, or -1. */
int ty_event_list_find(const struct ty_event_list *l, const char *name);

/* Index of the first event of KIND in L, or -1. */
int ty_event_list_find_kind(const struct ty_event_list *l, enum ty_event_kind kind);

#endif
