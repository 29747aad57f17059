/* store.h - what lib/history.c asks of a database (private to lib/).
 *
 * A backend runs one SQL statement at a time with text parameters written
 * $1, $2, ... (in order of first use) and hands every row back as text
 * (NULL for SQL NULL). store-sqlite.c and store-pg.c implement it; the SQL
 * itself, the schema and its versions, live in history.c, once. */
#ifndef TACHY_LIB_STORE_H
#define TACHY_LIB_STORE_H

#include "tachy/error.h"

/* Called per row; a nonzero return stops the statement and is returned. */
typedef int (*ty_store_row_fn)(void *ctx, int ncols, const char *const *vals);

enum ty_store_kind { TY_STORE_SQLITE, TY_STORE_PG };

struct ty_store {
	enum ty_store_kind kind;
	char *name; /* as shown in messages */
	void *db;
	/* Returns 0 or a negative errno with E naming the store. */
	int (*exec)(struct ty_store *s, const char *sql, const char *const *params, int nparams,
		    ty_store_row_fn fn, void *ctx, struct ty_error *e);
	void (*close)(struct ty_store *s);
};

/* Open the SQLite file PATH (created when CREATE) / connect to the
 * PostgreSQL URI. Return 0 or a negative errno with E set; -ENOTSUP when
 * the library was not built in. NAME is the store's name for messages. */
int ty_store_sqlite_open(struct ty_store *s, const char *path, int create, struct ty_error *e);
int ty_store_pg_open(struct ty_store *s, const char *uri, struct ty_error *e);

#endif
