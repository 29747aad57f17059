/* runprof-json.h - per-run profiles (runprof.h) in tachy's JSON export,
 * compactly: tachy.profile holds
 *
 *   "hz": 499, "callchain": true, "user_only": false, "lost": 0,
 *   "cost_ms": 3.2,
 *   "symbols": [["loop_b", "/tmp/planted"], ...],
 *   "runs": [ [ [SAMPLES, MS, SYM, SELF, TOTAL, SYM, SELF, TOTAL, ...],
 *               ... one array per run ... ],
 *             ... one list per entry of results[], in its order ... ]
 *
 * SYM indexes symbols; SELF and TOTAL are the run's samples with the
 * function as the leaf and anywhere on the chain; MS is the time all the
 * run's SAMPLES stand for. A result whose list is empty was not profiled.
 *
 * The exact counts of run --instructions --profile (runprof.h's EXACT)
 * say "counts": "instructions" (absent: samples) and "hz": 0: SAMPLES is
 * then the run's instructions, MS the same number, SELF and TOTAL each
 * function's count (up to 2^53), the object names "" (cachegrind names
 * none). A reader that knows no "counts" refuses the file at its hz.
 *
 * The reader checks everything: types, an index out of range, counts that
 * are negative, not whole, above 2^32 - 1 (2^53 for instructions) or above
 * the run's samples, a
 * symbol twice in a run, a list whose length is not the result's runs. */
#ifndef TACHY_RUNPROF_JSON_H
#define TACHY_RUNPROF_JSON_H

#include <stddef.h>

#include "tachy/error.h"
#include "tachy/jsonw.h"
#include "tachy/results.h"
#include "tachy/runprof.h"

/* Write the "profile" member (key and object) of P for the results of RS
 * that have runs (as ty_results_write_json writes them) to W. */
void ty_runprof_json_write(const struct ty_runprof *p, const struct ty_results *rs,
			   struct ty_jsonw *w);

/* Read tachy.profile, PROF (a jansson json_t *), of a file of NRESULTS
 * results into a new *OUT with a command per benchmark read: benchmark b is
 * results[ORIG[b]] and had NRUNS[b] runs. FILE names the file in messages.
 * Returns 0; -EINVAL with E ("FILE: tachy.profile.runs[1][3]: ..."); -ENOMEM;
 * -ENOTSUP without jansson. */
int ty_runprof_json_read(struct ty_runprof **out, const void *prof, const size_t *orig,
			 const size_t *nruns, size_t nbenches, size_t nresults, const char *file,
			 struct ty_error *e);

/* Free *P from ty_runprof_json_read (NULL is fine). */
void ty_runprof_json_free(struct ty_runprof *p);

/* Append command SRC_CMD of SRC to DST as command DST_CMD (its runs added
 * after those DST has), the symbols interned again. Returns 0, -EINVAL or
 * -ENOMEM. */
int ty_runprof_copy_cmd(struct ty_runprof *dst, size_t dst_cmd, const struct ty_runprof *src,
			size_t src_cmd);

/* The same for runs FIRST .. FIRST + N - 1 of SRC_CMD only (-EINVAL when
 * they are not all there). */
int ty_runprof_copy_runs(struct ty_runprof *dst, size_t dst_cmd, const struct ty_runprof *src,
			 size_t src_cmd, size_t first, size_t n);

/* Command CMD of P alone, as the tachy.profile of a file of one result
 * (the symbols its runs use only, numbered again in order of use), on one
 * line: how tachy history keeps a result's profile. Returns malloc'd text,
 * NULL when out of memory. */
char *ty_runprof_json_text(const struct ty_runprof *p, size_t cmd);

/* Read TEXT as ty_runprof_json_text writes it, the profile of a result of
 * NRUNS runs, into a new *OUT of one command (free with
 * ty_runprof_json_free), checked as ty_runprof_json_read checks. WHAT
 * names it in messages. Returns 0; -EINVAL with E (not JSON, a bad value,
 * NRUNS not its runs); -ENOMEM; -ENOTSUP without jansson. */
int ty_runprof_json_read_text(struct ty_runprof **out, const char *text, size_t nruns,
			      const char *what, struct ty_error *e);

#endif
