/* counters.h - counting with perf_event_open, on a held child.
 *
 * A counter set is opened on a process (usually a child held before exec):
 * every event is opened disabled with enable_on_exec and inherit, so it
 * counts the program from its exec on, with its threads and children.
 * Events that must be counted together (cycles with instructions) are
 * opened as a group. After the child is reaped, one read per group gives
 * each event's count with its enabled and running times, so multiplexed
 * counts are scaled (count * enabled / running) and the running share is
 * kept.
 *
 * What the machine does not allow is learned once per set and remembered:
 * an event it does not have (ENOENT, EOPNOTSUPP, ...) is marked
 * unsupported and never opened again; when perf_event_paranoid forbids
 * kernel counting, events fall back to user-only counting (exclude_kernel)
 * once for all; when counting is not permitted at all, the set says why
 * and stays off.
 *
 * The system calls go through a backend (struct ty_counters_backend), so
 * tests can present any machine. */
#ifndef TACHY_COUNTERS_H
#define TACHY_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

#include "tachy/error.h"
#include "tachy/events.h"
#include "tachy/results.h"

/* The kernel, or a simulation of it. Each function returns what the
 * system call returns on success, and a negative errno on failure. */
struct ty_counters_backend {
	int (*open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags);
	int (*ioctl)(void *ctx, int fd, unsigned long request, unsigned long arg);
	long (*read)(void *ctx, int fd, void *buf, unsigned long size);
	int (*close)(void *ctx, int fd);
	/* The value of /proc/sys/kernel/perf_event_paranoid (or -ENOENT). */
	int (*paranoid)(void *ctx);
	void *ctx;
};

/* The real kernel. */
extern const struct ty_counters_backend ty_counters_kernel;

/* State of one event in a set. */
enum ty_counter_state {
	TY_COUNTER_UNTRIED,	/* not opened yet */
	TY_COUNTER_OK,		/* opens and counts */
	TY_COUNTER_UNSUPPORTED, /* the machine does not have it: left out */
	TY_COUNTER_FAILED,	/* another error (EINVAL, ...): left out, see msg */
};

/* One reading of one event. */
struct ty_counter_value {
	uint64_t count;	  /* raw count */
	uint64_t enabled; /* ns the event was enabled */
	uint64_t running; /* ns it was actually counting */
};

struct ty_counter {
	struct ty_event ev; /* a copy of the event; attr as last opened */
	enum ty_counter_state state;
	char msg[256]; /* why it is unsupported or failed */
	int fd;	       /* -1 when closed */
	int keeper;    /* a disabled copy on ourselves, or -1 (see counters.c) */
	int leader;    /* index of its group leader in the set (itself if alone) */
	uint64_t id;   /* kernel id (PERF_FORMAT_ID) */
};

/* Notes for the user, each raised at most once per set. */
enum {
	TY_COUNTERS_NOTE_USER_ONLY = 1,	    /* paranoid: fell back to user-only counting */
	TY_COUNTERS_NOTE_NOT_PERMITTED = 2, /* counting is not permitted at all: off */
};

struct ty_counters {
	struct ty_counter *c;
	size_t n;
	struct ty_counters_backend be;
	int user_only;	     /* exclude_kernel forced on (paranoid fallback) */
	int off;	     /* counting not permitted: nothing is opened */
	unsigned notes;	     /* TY_COUNTERS_NOTE_* raised so far */
	unsigned notes_told; /* those already handed to the caller */
	char note_msg[400];  /* the sentence for the last note raised */
	uint64_t *buf;	     /* read buffer */
	size_t buf_len;
};

/* Set up C for the events of L (copied), counting through BE (NULL: the
 * kernel). Nothing is opened yet. Returns 0 or -ENOMEM. */
int ty_counters_init(struct ty_counters *c, const struct ty_event_list *l,
		     const struct ty_counters_backend *be, struct ty_error *e);

/* Free what C holds (closing what is open). */
void ty_counters_release(struct ty_counters *c);

/* Open every usable event on process PID (disabled, enable_on_exec,
 * inherit), in their groups. Events found unsupported are marked and left
 * out from now on; a paranoid refusal switches to user-only counting; a
 * refusal even then turns the set off (ty_counters_note says why).
 * Returns the number of events opened (0 is not an error), or a negative
 * code when an open failed for an unexpected reason on every event. */
int ty_counters_open(struct ty_counters *c, pid_t pid, struct ty_error *e);

/* Read every open event into V[0..c->n) (V[i] stays zero for events not
 * open). Returns 0 or a negative code with E set. */
int ty_counters_read(struct ty_counters *c, struct ty_counter_value *v, struct ty_error *e);

/* Close every open event (the set keeps what it learned). */
void ty_counters_close(struct ty_counters *c);

/* A note not yet told (one of TY_COUNTERS_NOTE_*), with its sentence in
 * *MSG (owned by C), or 0. Each note is handed out once. */
unsigned ty_counters_note(struct ty_counters *c, const char **msg);

/* The scaled count of V: count * enabled / running (the count itself when
 * nothing was multiplexed; 0 when it never ran). *SHARE (may be NULL) gets
 * running / enabled (1 when enabled is 0). */
double ty_counters_scale(const struct ty_counter_value *v, double *share);

/* perf stat's derived figure of an event ("# 0.950 CPUs utilized"). */
enum ty_derived_format {
	TY_DERIVED_RATE, /* "%8.3f": CPUs utilized, GHz, rates per second */
	TY_DERIVED_IPC,	 /* "%7.2f": insn per cycle */
	TY_DERIVED_PCT,	 /* "%7.2f%%": miss ratios */
};
struct ty_derived {
	double value;
	enum ty_derived_format format;
	char unit[32]; /* "CPUs utilized", "GHz", "insn per cycle", "of all branches",
			  "of all L1-dcache accesses", "K/sec", ... */
};

/* The derived figure of event I of L, as perf stat computes it from means:
 * MEANS[j] is the mean count of event j (task-clock in ns; NAN when it was
 * not counted), WALL_NS the mean wall time. task-clock: CPUs utilized
 * (task-clock / wall); cycles: GHz (cycles / task-clock); instructions:
 * insn per cycle; branch-misses, cache-misses and cache miss events: the
 * percentage of their branches, cache-references or accesses of the same
 * cache; any other event (or a ratio whose base is missing): its rate per
 * second of task-clock. Returns 1 and fills D, or 0 when there is none. */
int ty_counters_derived(const struct ty_event_list *l, const double *means, double wall_ns,
			size_t i, struct ty_derived *d);

/* D as perf prints it into BUF ("   0.950", "   1.23", "   4.56%");
 * returns the length. */
int ty_counters_derived_format(const struct ty_derived *d, char *buf, size_t len);

/* Whether event I of C counts user space only (exclude_kernel): the
 * paranoid fallback, or a :u the user gave. Known once it was opened. */
int ty_counters_user_only(const struct ty_counters *c, size_t i);

/* Whether event I of C, opened, counts only in the kernel while it is
 * counted in user space only: it can only read 0. */
int ty_counters_user_only_zero(const struct ty_counters *c, size_t i);

/* Event I's name as perf stat prints it, into BUF: its name as written,
 * with perf's ":u" added when it counts user space only and was given no
 * modifier ("task-clock:u"). */
void ty_counters_label(const struct ty_counters *c, size_t i, char *buf, size_t len);

/* Name of state S: "ok", "not supported", ... */
const char *ty_counters_state_name(enum ty_counter_state s);

/* --- the per-run counting probe ---
 *
 * A set counted on every measured run of a benchmark, as a probe of the
 * runner (runner.h, struct ty_probe): opened on the held child at attach,
 * read and closed after the reap at collect. Its values, one per event,
 * are described by DESC, which it keeps learning as runs go: which events
 * the machine counts, which were multiplexed and by how much. */
struct ty_counters_probe {
	struct ty_counters set;
	struct ty_value_desc *desc;	      /* one per event: the probe's values */
	char (*label)[TY_EVENT_NAME_MAX + 4]; /* per event: its name in every output,
						 perf's "task-clock:u" in user-only
						 mode (desc[i].name points here) */
	struct ty_counter_value *v;	      /* the last reading */
	double *running_ns;		      /* per event: sum of running time */
	size_t *nread;			      /* per event: runs counted */
	int attached;			      /* attach calls so far */
	/* Events that count only in the kernel, when the set counts user
	 * space only, read 0: they are unsupported values unless this is set
	 * (perf stat's layouts print them, as perf does). */
	int keep_kernel_zero;
};

/* Set P up to count the events of L (copied) through BE (NULL: the
 * kernel); nothing is opened yet. Returns 0, or -ENOMEM with E set (P is
 * then to be released all the same). */
int ty_counters_probe_init(struct ty_counters_probe *p, const struct ty_event_list *l,
			   const struct ty_counters_backend *be, struct ty_error *e);

/* Free what P holds. */
void ty_counters_probe_release(struct ty_counters_probe *p);

/* Fill PROBE (runner.h) with P's name ("counters"), values and callbacks;
 * P must outlive the benchmark. */
struct ty_probe;
void ty_counters_probe_get(struct ty_counters_probe *p, struct ty_probe *probe);

/* After the runs: what was learned while counting into D[0..set.n) (the
 * runner's copy of P's descriptions): an event never read is unsupported,
 * and the scaling and running share of each. */
void ty_counters_probe_finish(struct ty_counters_probe *p, struct ty_value_desc *d);

#endif
