/* runprof-spill.h - a sampler's records copied out of its rings while a
 * measured run goes on, for run --profile's stack copies (lib/runprof.c).
 *
 * A sample with a copy of the user stack takes kilobytes of ring: a run of
 * a few seconds would fill any ring that is drained only after the reap.
 * A thread polls the rings (woken by the kernel at their watermark) and
 * copies each record, decoded, into memory: no unwinding, no names, no
 * system call but poll while the run is timed. After the reap the thread is
 * stopped and the records are handed on in the order they were drained,
 * where the unwinding and the resolving happen, outside the timed region. */
#ifndef TACHY_RUNPROF_SPILL_H
#define TACHY_RUNPROF_SPILL_H

#include <stddef.h>

#include "tachy/error.h"
#include "tachy/sampler.h"

struct ty_runprof_spill;

/* A spill, its memory kept from run to run. NULL when out of memory (or
 * of file descriptors). */
struct ty_runprof_spill *ty_runprof_spill_new(void);

/* Start a thread copying S's records out of its rings as they fill (S
 * must outlive it: stop it first), the records of the last run forgotten.
 * Returns 0, or a negative errno with E filled. */
int ty_runprof_spill_start(struct ty_runprof_spill *sp, struct ty_sampler *s, struct ty_error *e);

/* Stop and join the thread, and drain what came after its last wake-up;
 * *CPU_MS (may be NULL) gets the CPU time the thread took. Returns 0, or the negative errno of a
 * corrupt ring or of memory the thread could not get (E filled); the records kept until then stay.
 */
int ty_runprof_spill_stop(struct ty_runprof_spill *sp, double *cpu_ms, struct ty_error *e);

/* Hand the records kept to FN, in the order they were drained (each
 * drain: every record but the samples, then the samples, as
 * ty_sampler_drain). Returns their number. Only after the stop. */
long ty_runprof_spill_replay(const struct ty_runprof_spill *sp, ty_sampler_rec_fn fn, void *arg);

/* Bytes kept (tests, statistics). */
size_t ty_runprof_spill_bytes(const struct ty_runprof_spill *sp);

/* Stop the thread if it still runs, and free SP (may be NULL). */
void ty_runprof_spill_free(struct ty_runprof_spill *sp);

#endif
