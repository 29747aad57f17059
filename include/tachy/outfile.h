/* outfile.h - write a file whole or not at all.
 *
 * Output goes to a temporary file in the destination's directory; commit
 * flushes, fsyncs and renames it over the destination, so a full disk or
 * an interruption leaves the old file intact. The name "-" means stdout. */
#ifndef TACHY_OUTFILE_H
#define TACHY_OUTFILE_H

#include <stdio.h>

#include "tachy/error.h"

struct ty_outfile {
	FILE *fp;   /* write here */
	char *path; /* destination (owned) */
	char *tmp;  /* temporary name (owned), NULL for stdout */
	int is_stdout;
	int fd;	  /* the descriptor under FP, -1 for stdout */
	int werr; /* errno of the first failed write, 0 when none */
};

/* Open a temporary file beside PATH (or stdout for "-").
 * Returns 0, or a negative errno with E filled. */
int ty_outfile_open(struct ty_outfile *of, const char *path, struct ty_error *e);

/* Flush, check every write, fsync and rename into place; releases OF.
 * Returns 0, or a negative errno with E filled (the destination is then
 * untouched and the temporary removed). */
int ty_outfile_commit(struct ty_outfile *of, struct ty_error *e);

/* Give up: remove the temporary file and release OF. Safe to call twice. */
void ty_outfile_abort(struct ty_outfile *of);

#endif
