/* record-open.h - the recorder's state and the opening of its sampler
 * (private to lib/: record.c and record-open.c are one module in two
 * files, struct ty_recorder of record.h, and include this for that reason
 * only).
 *
 * record.c starts the recording (a command launched, a process attached
 * to, or every CPU), waits in poll() while it lasts, unwinds each sample
 * and fills the profile's meta at the end; record-open.c opens the
 * sampler for it with its fallbacks: the rings sized to the locked-memory
 * limit, user space only where the kernel refuses more, cpu-clock where
 * there is no hardware event, the chains at switch-outs kept to a rate. */
#ifndef TACHY_LIB_RECORD_OPEN_H
#define TACHY_LIB_RECORD_OPEN_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "tachy/collect.h"
#include "tachy/duty.h"
#include "tachy/error.h"
#include "tachy/record-diag.h"
#include "tachy/record-peek.h"
#include "tachy/record-track.h"
#include "tachy/record.h"
#include "tachy/sampler.h"
#include "tachy/spawn.h"
#include "tachy/unwind.h"

/* The last frame of lost chains (record.c): named at the end, when it is a
 * runtime's root (runtime.goexit, ...) its chains count as complete. */
struct ty_record_tail {
	uint32_t pid;
	uint64_t pc, time, n; /* N: chains that ended there (0: a free slot) */
};

struct ty_recorder {
	struct ty_record_opts o;
	struct ty_sampler *s;
	struct ty_collector *c;
	struct ty_symbols *syms;
	struct ty_event ev;
	int exclude_kernel, kernel_refused;
	struct ty_spawner sp;
	struct ty_spawn_opts so; /* must outlive the held child */
	int sp_init;
	char path[PATH_MAX];
	pid_t child;	  /* the command (0 when attached) */
	int reaped;	  /* the child was waited for */
	uint64_t stop_ns; /* when an interrupt was passed on to the child */
	int interrupted;
	struct ty_usage usage;
	struct ty_exit exit;
	uint64_t t0, t1;
	uint64_t t0_unix; /* CLOCK_REALTIME at t0 */
	char ename[TY_EVENT_NAME_MAX];
	int fell_back;
	enum ty_callgraph cg;
	uint32_t stack_size;
	uint32_t sw_stack_size;	       /* copied at a switch-out */
	struct ty_unwinder *uw;	       /* TY_CG_DWARF */
	struct ty_sampler_rec scratch; /* a sample with its unwound chain */
	struct ty_record_unwind_stats ust;
	uint32_t last_load_pid; /* the maps last read for a lost chain */
	uint64_t last_load_ns;
	struct ty_record_tail *tails; /* open addressing, a power of two */
	size_t ntails, tailcap;
	int last_load_new;	      /* that read found mappings: the next may come at once */
	unsigned pages;		      /* data pages per ring */
	struct ty_record_track track; /* the mappings (lazy tracking by default) */
	int unsampled;		      /* the kernel took the events off the command (said once) */
	char *limits;		      /* what off-CPU recording is missing here */
	struct ty_record_diag diag;   /* unwind_log: every sample's chain, judged at the end */
	char *pname;		      /* attached: "-p PID (comm)" */
	pid_t *tids;		      /* attached: the threads it has */
	int ntids;
	struct ty_duty duty;	    /* the chains at switch-outs (duty.hz 0: all, or none) */
	struct ty_record_peek peek; /* user space only: blocked threads' chains from /proc */
	int peeking, peek_said;
	double sample_ns; /* the kernel's work per sample (ty_sample_cost; 0: not measured) */
	struct ty_error sample_why; /* why it was not measured (empty: not tried) */
	uint64_t cmd_samples; /* -a with a command: its processes' samples (after the wait)... */
	int cmd_ok;	      /* ...counted (ty_collector_tree_samples) */
};

/* Pass a warning to the caller's callback (ty_record_opts.warn), if any. */
void ty_record_warn(struct ty_recorder *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Open the sampler on the command, the process or every CPU as r->o asks,
 * with the fallbacks: rings halved down to 128 pages over the locked-memory
 * limit, user space only where perf_event_paranoid refuses the kernel,
 * cpu-clock where the hardware event is missing. Sets up the off-CPU
 * chains' duty cycle and the lazy trackers. Returns 0 or a negative errno
 * with ERR set. */
int ty_record_open_sampler(struct ty_recorder *r, struct ty_error *err);

/* The kernel's work per sample into R->sample_ns (record's added CPU),
 * after the recording, on as many samples as it took (SAMPLES); 0 with
 * R->sample_why where it cannot be measured. */
void ty_record_measure_sample(struct ty_recorder *r, uint64_t samples);

#endif
