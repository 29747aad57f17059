/* results-read.h - read saved results (results-saved.h) from tachy's JSON
 * exports (schema 1, see docs/json-schema.md) and hyperfine's
 * --export-json files.
 *
 * The reader checks every field it uses: malformed or truncated JSON, a
 * missing or mistyped field, an empty result list or an unknown schema
 * version is an error naming the file and the place (line and column for
 * syntax, a path such as results[2].tachy.runs[4].wall_ns for content).
 * Nothing is guessed. A benchmark without a single run ("times": [], as an
 * interrupted run leaves it) is left out with a note, not an error, unless
 * no benchmark of the file has a run. Needs jansson (HAVE_JANSSON); without it every read
 * fails with "not built with jansson". */
#ifndef TACHY_RESULTS_READ_H
#define TACHY_RESULTS_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tachy/error.h"
#include "tachy/results-saved.h"

/* Read PATH into R (the caller owns R; release with ty_results_saved_release).
 * Returns 0; -EINVAL with E naming PATH and the place for bad content;
 * -ENOENT/-EACCES/... when it cannot be opened; -ENOTSUP without jansson;
 * -ENOMEM. On failure R holds nothing. */
int ty_results_read_file(struct ty_results_saved *r, const char *path, struct ty_error *e);

/* As ty_results_read_file, from the open stream FP (read to its end, not
 * closed); PATH only names it in messages. */
int ty_results_read_stream(struct ty_results_saved *r, FILE *fp, const char *path,
			   struct ty_error *e);

/* As ty_results_read, from the NUL-terminated TEXT; PATH only names it in
 * messages. */
int ty_results_read_text(struct ty_results_saved *r, const char *text, const char *path,
			 struct ty_error *e);

#endif
