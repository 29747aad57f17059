/* record-exec.h - the recorder's count of the samples inside an execve
 * call: once the old image is gone, a sample holds the registers of the
 * call (the old program's pc and sp) and no stack, and its chain is lost;
 * the collector gives it the chain of that call from the exec probe
 * (collect-exec.c). Such a sample counts as complete where the probe's
 * chain of the call was: the same thread, the same stack pointer, the pc
 * in the probed function (or in the probe's step out of line, [uprobes])
 * and the call the latest of the thread's before it. Matched at the end:
 * the probe's samples and the others come from different rings, in no
 * order between them. */
#ifndef TACHY_RECORD_EXEC_H
#define TACHY_RECORD_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/record-diag.h"
#include "tachy/symbols.h"

struct ty_record_exec_at; /* a call or a sample: thread, time, pc and sp */

/* Zero-initialised is empty. */
struct ty_record_exec {
	struct ty_record_exec_at *calls, *lost;
	size_t ncalls, capcalls, nlost, caplost;
};

/* The exec probe's sample of an execve call by thread TID of PID at TIME
 * (user pc IP, sp SP) whose chain was COMPLETE or not. */
void ty_record_exec_call(struct ty_record_exec *x, uint32_t pid, uint32_t tid, uint64_t time,
			 uint64_t ip, uint64_t sp, int complete);

/* A sample whose chain was lost with at most one user frame (at most
 * 65,536 kept): one inside an execve call, maybe. */
void ty_record_exec_lost(struct ty_record_exec *x, uint32_t pid, uint32_t tid, uint64_t time,
			 uint64_t ip, uint64_t sp);

/* The lost samples inside an execve call whose chain was complete (SYMS
 * tells the [uprobes] page), each marked complete in G (NULL: none). */
size_t ty_record_exec_complete(struct ty_record_exec *x, struct ty_symbols *syms,
			       struct ty_record_diag *g);

void ty_record_exec_release(struct ty_record_exec *x);

#endif
