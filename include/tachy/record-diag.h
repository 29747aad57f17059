/* record-diag.h - the recorder's unwind diagnostics (TACHY_UNWIND_DEBUG,
 * record.h's unwind_log): every sample's chain kept with why it ended,
 * and at the end the incomplete ones, or those with a frame in no mapping,
 * written with the program they were in, then the counts by program and
 * cause. A diagnostic for developers: the caller names the stream. */
#ifndef TACHY_RECORD_DIAG_H
#define TACHY_RECORD_DIAG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tachy/sampler.h"
#include "tachy/symbols.h"
#include "tachy/unwind.h"

struct ty_record_diag_chain;
struct ty_record_diag_proc;

/* Zero-initialised is empty. */
struct ty_record_diag {
	struct ty_record_diag_chain *dg; /* every sample's chain (at most 200,000) */
	size_t ndg, dgcap;
	struct ty_record_diag_proc *dp; /* comm, fork and exec of each process seen */
	size_t ndp, dpcap;
};

/* Note a FORK or COMM record REC (others are ignored). */
void ty_record_diag_record(struct ty_record_diag *g, const struct ty_sampler_rec *rec);

/* Keep the chain of sample REC from its frame K on (the user frames), how
 * it ENDed and whether the maps were read again for it (RETRIED). UW, the
 * unwinder that made it (NULL: none), says why it stopped. */
void ty_record_diag_sample(struct ty_record_diag *g, const struct ty_sampler_rec *rec, size_t k,
			   enum ty_unwind_end end, int retried, struct ty_unwinder *uw);

/* The lost chains of PID whose last frame is at PC (a return address's
 * call: one byte back) ended in a runtime's root: complete. */
void ty_record_diag_root(struct ty_record_diag *g, uint32_t pid, uint64_t pc);

/* The chain of thread TID's sample at TIME is COMPLETE (or not) now: it
 * was inside an execve call and has the call's chain from the exec probe
 * (collect.h's ty_collector_grafts). */
void ty_record_diag_exec(struct ty_record_diag *g, uint32_t tid, uint64_t time, int complete);

/* Write to F every chain kept that is incomplete or has a frame in no
 * mapping of SYMS (the mappings known now, as the profile's names are),
 * then the counts by program and cause. CHILD is the command's pid (0:
 * none), T0 the start of the recording on the samples' clock. */
void ty_record_diag_report(struct ty_record_diag *g, FILE *f, struct ty_symbols *syms, pid_t child,
			   uint64_t t0);

/* Free what G holds (G itself is the caller's). */
void ty_record_diag_release(struct ty_record_diag *g);

#endif
