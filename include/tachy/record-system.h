/* record-system.h - what tachy record -a adds to the recorder: whether
 * this user may sample every process, the picture of the processes that
 * were running when the recording began (from /proc), the idle task's
 * name, and the facts a system-wide profile carries. */
#ifndef TACHY_RECORD_SYSTEM_H
#define TACHY_RECORD_SYSTEM_H

#include <stdint.h>

#include "tachy/error.h"
#include "tachy/profile.h"
#include "tachy/sampler.h"

/* The name given to the idle task (pid 0, one per CPU). */
#define TY_IDLE_COMM "[idle]"

/* May this process sample every process on CPU (the first of CPUS, or 0)?
 * Opens and closes one cpu-clock event there, user space only. Returns 0;
 * -EACCES with E saying why and how to allow it (perf_event_paranoid,
 * CAP_PERFMON); -ENODEV when that CPU is offline; or another negative
 * errno. */
int ty_record_system_check(const int *cpus, int ncpus, struct ty_error *e);

/* Hand FN (with ARG) what perf would have recorded of the processes
 * running now had it been there when they started: from ROOT ("/proc"),
 * a COMM record for every thread and an MMAP record for every executable
 * mapping of a file or a special one ([vdso]; a deleted file's under its
 * "(deleted)" name), all at time 0 (before anything recorded), and the idle
 * task's name (TY_IDLE_COMM). Anonymous executable memory is left to the
 * process's perf map (JIT). Returns the number of processes, or a
 * negative errno with E filled. */
long ty_record_system_synthesize(const char *root, ty_sampler_rec_fn fn, void *arg,
				 struct ty_error *e);

/* Fill the facts of a system-wide profile P: system_wide, the CPUs (CPUS,
 * NCPUS; NULL: every one of NCONF), the command line ("-a [-C LIST] [--
 * ARGV]"), and as the workload's CPU time the on-CPU time of every sample
 * but the idle task's (clock events; else 0). Returns 0 or -ENOMEM. */
int ty_record_system_meta(struct ty_profile *p, const int *cpus, int ncpus, int nconf,
			  char *const *argv);

/* The share of P's samples (by weight) that are the idle task's, in
 * [0, 1]; 0 for an empty profile. */
double ty_record_system_idle(const struct ty_profile *p);

#endif
