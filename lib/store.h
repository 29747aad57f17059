/* store.h - what lib/history.c asks of a database (private to lib/).
 *
 * A backend runs one SQL statement at a time with text parameters written
 * $1, $2, ... (in order of first use) and hands every row back as text
 * (NULL for SQL NULL). store-sqlite.c and store-pg.c implement it; the SQL
 * itself, the schema and its versions, live in history.c, once. store.c
 * tells the kinds of name apart and keeps their secrets out of messages. */
#ifndef TACHY_LIB_STORE_H
#define TACHY_LIB_STORE_H

#include <stddef.h>

#include "tachy/error.h"

/* Called per row; a nonzero return stops the statement and is returned. */
typedef int (*ty_store_row_fn)(void *ctx, int ncols, const char *const *vals);

enum ty_store_kind { TY_STORE_SQLITE, TY_STORE_PG };

#define TY_STORE_SECRETS 8

struct ty_store {
	enum ty_store_kind kind;
	char *name; /* as shown in messages: no secret in it */
	void *db;
	/* Returns 0 or a negative errno with E naming the store: -EAGAIN for
	 * a transaction to be run again (a serialization failure or a
	 * deadlock), -ECONNRESET when the connection was lost. */
	int (*exec)(struct ty_store *s, const char *sql, const char *const *params, int nparams,
		    ty_store_row_fn fn, void *ctx, struct ty_error *e);
	/* Connect again after -ECONNRESET (NULL where there is no connection). */
	int (*reset)(struct ty_store *s, struct ty_error *e);
	void (*close)(struct ty_store *s);
	char *secrets[TY_STORE_SECRETS]; /* passwords in the name, scrubbed from messages */
	int nsecrets;
};

/* An open history (history.h): the store and the schema version it
 * holds (older than TY_HISTORY_SCHEMA only when opened to read; what the
 * later versions added is then not there). Shared by lib/history*.c. */
struct ty_history {
	struct ty_store s;
	int version;
};

/* Whether DB names a PostgreSQL store (a postgresql:// or postgres:// URI,
 * or libpq's keyword form "host=... dbname=...") or a SQLite file. */
enum ty_store_kind ty_store_kind_of(const char *db);

/* DB as shown in messages (malloc'd, NULL when out of memory): a URI's
 * user:PASSWORD@ and every password= or sslpassword= value as "***". The
 * secrets go to S->secrets when S is not NULL. */
char *ty_store_shown(const char *db, struct ty_store *s);

/* Replace every secret of S found in MSG (of SIZE bytes) with "***". */
void ty_store_scrub(const struct ty_store *s, char *msg, size_t size);

/* Free S->name and the secrets (wiped first). */
void ty_store_forget(struct ty_store *s);

/* Sleep before retry ATTEMPT (0, 1, ...): 10 ms doubling up to 1 s, with
 * a random jitter of +-50% so that writers who collided do not again. */
void ty_store_backoff(int attempt);

/* Open the SQLite file PATH: for reading and writing when WRITE (then a
 * missing file is made whole: a temporary beside it gets INIT's
 * statements, then is linked in place, so that a failure leaves nothing),
 * else read-only (immutable on a read-only file system). PATH, its
 * directory and SQLite's journal and WAL files are never reached through
 * another user's symbolic link (outfile.h's rule). A small file is checked
 * with SQLite's quick_check. Return 0 or a negative errno with E set:
 * -ENOTSUP when the library was not built in, -ENOENT no such file,
 * -EINVAL not a database or a corrupt one, -EPERM an untrusted link,
 * -ENOSPC, -EACCES, -EIO. S->name names it in messages. */
int ty_store_sqlite_open(struct ty_store *s, const char *path, int write, const char *const *init,
			 struct ty_error *e);

/* Connect to the PostgreSQL store CONNINFO (a URI or the keyword form).
 * Returns 0 or a negative errno with E set: -EINVAL for a connection
 * string libpq does not take, -ECONNREFUSED, -ENOTSUP. */
int ty_store_pg_open(struct ty_store *s, const char *conninfo, struct ty_error *e);

#endif
