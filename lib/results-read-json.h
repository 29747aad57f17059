/* results-read-json.h - the JSON reading helpers of results-read.c
 * (private to lib/: results-read.c and results-read-json.c are one module
 * in two files, and include this for that reason only): a reader's state,
 * the path to the value being read (results[1].tachy.runs[3].wall_ns) for
 * its errors, members fetched with their type checked, figures checked
 * against the largest a measurement can be. With jansson only. */
#ifndef TACHY_LIB_RESULTS_READ_JSON_H
#define TACHY_LIB_RESULTS_READ_JSON_H

#ifdef HAVE_JANSSON
#include <jansson.h>
#include <stddef.h>

#include "tachy/error.h"

/* The reading state: the file's name and the path to the current value. */
struct reader {
	const char *file;
	char where[256];
	struct ty_error *e;
};

/* The largest figures read: past these no figure is a measurement (nor
 * would its sums and squares stay finite), so the file is refused. */
#define TIME_MAX_S 1e9			 /* seconds: 31 years */
#define COUNT_MAX 18446744073709551616.0 /* 2^64: beyond any counter */

/* An error at the reader's place: -EINVAL with E naming the file and
 * the path ("top level" at the root). */
int rr_bad(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* -ENOMEM, the file named. */
int rr_nomem(struct reader *rd);

/* Descend into KEY (when not NULL) or [INDEX]; returns the old length to
 * give back to rr_up(). */
size_t rr_down(struct reader *rd, const char *key, size_t index);
void rr_up(struct reader *rd, size_t len);

/* "an object", "a string", ... for messages. */
const char *rr_type_name(const json_t *v);

/* Fetch member KEY of object O into *OUT with its type checked (JSON_REAL:
 * any number). REQUIRED: absent is an error; otherwise *OUT is NULL. */
int rr_member(struct reader *rd, const json_t *o, const char *key, json_type want, int required,
	      json_t **out);

/* The largest time in UNIT ("s", "ms", "us", "ns") a counter may hold;
 * 0 when UNIT is no time. */
double rr_time_max(const char *unit);

/* A finite number >= 0 and <= MAX at V (path already set), MAX in UNIT
 * ("s", "ns", or "" for counts); NULLOK lets null be NAN. */
int rr_nonneg_number(struct reader *rd, const json_t *v, int nullok, double max, const char *unit,
		     double *out);

#endif
#endif
