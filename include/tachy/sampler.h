/* sampler.h - sampling with perf_event_open: one event and one mmap ring
 * buffer per CPU, read with the kernel's barrier protocol; the records the
 * kernel writes into them are decoded by sampler-decode.c (its header,
 * included here, has struct ty_sampler_rec).
 *
 * Each ring is drained on its own (data_head load-acquire, data_tail
 * store-release); nothing is shared between the rings, so no lock is taken.
 * Only executable mappings are tracked (mmap_data = 0), so a workload that
 * maps data memory all day does not pay for the profiler's bookkeeping. */
#ifndef TACHY_SAMPLER_H
#define TACHY_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tachy/error.h"
#include "tachy/sampler-decode.h"

/* What to sample and how. */
struct ty_sampler_opts {
	uint32_t type;	 /* PERF_TYPE_* */
	uint64_t config; /* PERF_COUNT_* or raw */
	uint64_t config1, config2;
	int use_freq; /* 1: sample_freq = rate (Hz); 0: sample_period = rate */
	uint64_t rate;
	int callchain;	     /* record frame-pointer call chains */
	uint64_t regs_user;  /* PERF_SAMPLE_REGS_USER mask (0: none) */
	uint32_t stack_user; /* PERF_SAMPLE_STACK_USER bytes (0: none); with CALLCHAIN,
				the kernel's chain is then the kernel part only */
	int exclude_kernel;  /* user space only */
	int exclude_user;    /* kernel only (an event's :k) */
	pid_t pid;	     /* the process sampled (with its threads and children) */
	const pid_t *tids;   /* attaching: the other threads PID already has; their
				samples go to the same per-CPU rings */
	int ntids;
	int enable_on_exec;	    /* start counting when PID execs (a spawned, held child) */
	unsigned mmap_pages;	    /* data pages per ring, a power of two (0: 128) */
	int no_mmap_records;	    /* no MMAP records at all: the caller reads
				       /proc/PID/maps instead (see tachy-record(1)) */
	int lazy_mmap;		    /* MMAP records come from separate tracking events
				       that ty_sampler_track_stop closes, and a watcher
				       ring reports every fork at once (see below) */
	int context_switch;	    /* off-CPU time: the kernel's PERF_RECORD_SWITCH
				       records of every thread (TY_SAMPLER_REC_SWITCH) */
	int switch_samples;	    /* and a context-switches event sampled at every
				       switch-out, with the call chain there
				       (TY_SAMPLER_REC_SWITCH_SAMPLE), beside the sampling event */
	uint32_t switch_stack_user; /* switch_samples with stack_user: the bytes of
				       user stack their samples copy (0: stack_user) */
	unsigned wakeup_div;	    /* the poller wakes when 1/WAKEUP_DIV of a ring is
				       full (0: 2, half the ring) */
	int system_wide;	    /* every process and the kernel on each CPU (pid -1;
				       PID, enable_on_exec, tids and lazy_mmap unused) */
	const int *cpus;	    /* system_wide: these CPUs only (NULL: every one) */
	int ncpus;
	/* A uprobe at the entry of execve in this file (its real path) at
	   this offset, on every CPU and every process (CAP_PERFMON): its
	   samples (TY_SAMPLER_REC_EXEC_ENTRY, the same layout) hold the chain
	   of each execve call, which the kernel's samples later in that
	   execve cannot reach once the old image is gone. Where it cannot be
	   opened the sampler goes on without it (ty_sampler_exec_probes). */
	const char *exec_probe_path;
	uint64_t exec_probe_offset;
};

struct ty_sampler;

/* Open one sampling event per online CPU for O->pid (inherited by its
 * threads and children), each with its own ring buffer. The events start
 * disabled unless O->enable_on_exec. Returns 0 and *OUT, or a negative errno
 * with E saying what failed ("cannot sample cpu-clock: ...") */
int ty_sampler_open(struct ty_sampler **out, const struct ty_sampler_opts *o, struct ty_error *e);

/* Sample one more thread TID of the process (attaching: a thread that
 * appeared after O->tids was listed), started at once. Returns 0, or a
 * negative errno with E filled (-ESRCH: the thread is gone). */
int ty_sampler_add_thread(struct ty_sampler *s, pid_t tid, struct ty_error *e);

/* Enable / disable all events (for attaching to a running process). */
int ty_sampler_enable(struct ty_sampler *s, struct ty_error *e);
int ty_sampler_disable(struct ty_sampler *s, struct ty_error *e);

/* How many exec probes are open (one per ring), or the negative errno
 * that kept them closed (0: none asked for). */
int ty_sampler_exec_probes(const struct ty_sampler *s);

/* Turn the context-switches events of switch_samples on or off (all their
 * inherited copies in every thread), the switch records staying on; every
 * event is tried. Returns 0 or the first negative errno. */
int ty_sampler_switch_samples(struct ty_sampler *s, int on);

/* How many context-switches events switch_samples opened (one per ring,
 * and one per ring for each thread added when attached). */
int ty_sampler_nswitch(const struct ty_sampler *s);

/* Number of rings and the file descriptor of ring I (poll it for POLLIN). */
int ty_sampler_nrings(const struct ty_sampler *s);
int ty_sampler_fd(const struct ty_sampler *s, int i);

typedef void (*ty_sampler_rec_fn)(const struct ty_sampler_rec *r, void *arg);

/* Drain every ring, calling FN for each record: first every record but the
 * samples of all the rings, then the samples, each ring's in the order the
 * kernel wrote them (a sample in one ring may follow the fork, exec or mmap
 * of its process in another). Returns the number of records, or a negative
 * errno when a ring is corrupt (E filled). */
long ty_sampler_drain(struct ty_sampler *s, ty_sampler_rec_fn fn, void *arg, struct ty_error *e);

/* The layout the rings use, for tests and tools. */
const struct ty_sampler_layout *ty_sampler_layout(const struct ty_sampler *s);

/* The kernel's perf_event_max_sample_rate (0 when unreadable). */
uint64_t ty_sampler_max_rate(void);

/* Lazy mapping tracking (O->lazy_mmap). As long as any event asks for MMAP
 * records, the kernel prepares one for every mmap(2) of every process, the
 * data mappings it then drops included: an mmap-heavy workload pays for it
 * (seed 002). With lazy_mmap the MMAP records come from separate dummy
 * events ("trackers") writing into the same per-CPU rings, which the caller
 * can close once the workload's start-up is over, and reopen for one new
 * process (ty_sampler_track_pid) whose parent was not tracked when it
 * forked. A small watcher ring per CPU receives every FORK, EXIT and COMM
 * record of the workload and wakes its poller on each, so that the caller
 * learns of a new process or an exec at once. */

/* 0, or the negative errno for which ty_sampler_open could not open the
 * trackers or the watchers: the sampler then works as with no_mmap_records
 * (the caller reads /proc/PID/maps). */
int ty_sampler_lazy_error(const struct ty_sampler *s);

/* Close the trackers opened with the sampler (on O->pid and inherited). */
void ty_sampler_track_stop(struct ty_sampler *s);

/* Is the first tracker still open? */
int ty_sampler_tracking(const struct ty_sampler *s);

/* Track the process or thread PID (and what it forks from now on) with
 * trackers of its own. Returns 0, or a negative errno with E filled
 * (ESRCH: PID is gone). */
int ty_sampler_track_pid(struct ty_sampler *s, pid_t pid, struct ty_error *e);

/* Close the trackers of PID (it has exited); nothing when it has none. */
void ty_sampler_untrack_pid(struct ty_sampler *s, pid_t pid);

/* Number of watcher rings (0 without lazy_mmap), the file descriptor to
 * poll for POLLIN of watcher ring I, and the drain of all of them (FORK,
 * EXIT and COMM records only; the sampling rings carry the same records). */
int ty_sampler_nwatch(const struct ty_sampler *s);
int ty_sampler_watch_fd(const struct ty_sampler *s, int i);
long ty_sampler_drain_watch(struct ty_sampler *s, ty_sampler_rec_fn fn, void *arg,
			    struct ty_error *e);

/* Close the watchers (the caller no longer needs to hear of forks). */
void ty_sampler_watch_stop(struct ty_sampler *s);

/* Close events and unmap rings; S may be NULL. */
void ty_sampler_free(struct ty_sampler *s);

/* perf_event_paranoid of this machine (2 when unreadable). */
int ty_sampler_paranoid(void);

#endif
