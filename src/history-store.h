/* history-store.h - the history's store as tachy history and tachy run
 * --history reach it (src/ only; the store itself is lib/history.c). */
#ifndef TACHY_HISTORY_STORE_H
#define TACHY_HISTORY_STORE_H

#include <stddef.h>

#include "tachy/history.h"
#include "tachy/results-saved.h"

/* Where the history is: DB (--db), else $TACHY_DB, else the default
 * location (history.h). Writes it to BUF; returns 0, or prints why not
 * and returns EXIT_USAGE. With WRITE, a SQLite file the environment named
 * must pass cachedir.h's rule (no directory of it another user's, or
 * open to others), so that root never makes or writes a history in a
 * place another user controls (sudo keeps HOME). */
int history_store_db(const char *db, int write, char *buf, size_t size);

/* The exit status of a store error RC: EXIT_USAGE for -EINVAL (not a
 * tachy history, a bad value), else EXIT_RUNTIME. */
int history_store_status(int rc);

/* Open the store DB (as history_store_db finds it) into *H, made when
 * missing with CREATE. Returns 0, or prints why not and returns an exit
 * status. */
int history_store_open(const char *db, int create, struct ty_history **h);

/* Store FILES[0..N) in the history DB (NULL: as history_store_db finds it)
 * under COMMIT (NULL: git's HEAD in the current directory), BRANCH,
 * MACHINE, TAGS (each NULL: unknown / from the files). Prints what went
 * wrong ("tachy CMD: ...") and returns an exit status; QUIET 0 also says
 * how many results were stored, on stderr. */
int history_store_add(const char *db, const char *commit, const char *branch, const char *machine,
		      const char *tags, const struct ty_results_saved *files, size_t n, int quiet);

/* The points (median and interval at 95%) of S's commits, malloc'd; NULL
 * when out of memory. */
struct ty_history_point *history_store_points(struct ty_history_series *s);

#endif
