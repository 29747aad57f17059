/* histcli.h - what tachy run shares with tachy history (src/ only). */
#ifndef TACHY_HISTCLI_H
#define TACHY_HISTCLI_H

#include <stddef.h>

#include "tachy/results-read.h"

/* Where the history is: DB (--db), else $TACHY_DB, else the default
 * location (history.h). Writes it to BUF; returns 0, or prints why not
 * and returns EXIT_USAGE. */
int histcli_db(const char *db, char *buf, size_t size);

/* Store FILES[0..N) in the history DB (NULL: as histcli_db finds it) under
 * COMMIT (NULL: git's HEAD in the current directory), BRANCH, MACHINE,
 * TAGS (each NULL: unknown / from the files). Prints what went wrong
 * ("tachy CMD: ...") and returns an exit status; QUIET 0 also says how
 * many results were stored, on stderr. */
int histcli_store(const char *db, const char *commit, const char *branch, const char *machine,
		  const char *tags, const struct ty_results_saved *files, size_t n, int quiet);

#endif
