/* store-sqlite.c - the history in one SQLite file (store.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#ifdef HAVE_SQLITE3
#include <sqlite3.h>

/* Prepared statements are kept by the address of their SQL text (history.c
 * passes string constants), so a bulk add prepares each one once. */
#define CACHE 32
struct sq {
	sqlite3 *db;
	const char *sql[CACHE];
	sqlite3_stmt *st[CACHE];
};

static int
sq_error(struct ty_store *s, struct sq *q, int rc, struct ty_error *e)
{
	const char *msg = q->db ? sqlite3_errmsg(q->db) : sqlite3_errstr(rc);
	int code = -EIO;

	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT || rc == SQLITE_FORMAT)
		code = -EINVAL;
	else if (rc == SQLITE_CANTOPEN)
		code = -ENOENT;
	else if (rc == SQLITE_READONLY || rc == SQLITE_PERM || rc == SQLITE_AUTH)
		code = -EACCES;
	else if (rc == SQLITE_FULL)
		code = -ENOSPC;
	return ty_error_set(e, code, "database '%s': %s", s->name, msg);
}

static sqlite3_stmt *
sq_prepare(struct ty_store *s, struct sq *q, const char *sql, int *rc)
{
	sqlite3_stmt *st = NULL;
	int k, slot = -1;

	for (k = 0; k < CACHE; k++) {
		if (q->sql[k] == sql)
			return q->st[k];
		if (!q->sql[k] && slot < 0)
			slot = k;
	}
	*rc = sqlite3_prepare_v2(q->db, sql, -1, &st, NULL);
	if (*rc != SQLITE_OK)
		return NULL;
	if (slot >= 0) {
		q->sql[slot] = sql;
		q->st[slot] = st;
	}
	return st;
}

static int
sq_exec(struct ty_store *s, const char *sql, const char *const *params, int nparams,
	ty_store_row_fn fn, void *ctx, struct ty_error *e)
{
	struct sq *q = s->db;
	sqlite3_stmt *st;
	const char *vals[64];
	char pname[16];
	int rc = SQLITE_OK, k, ncols, cached, ret = 0;

	st = sq_prepare(s, q, sql, &rc);
	if (!st)
		return sq_error(s, q, rc, e);
	cached = 0;
	for (k = 0; k < CACHE; k++)
		cached |= q->st[k] == st;
	for (k = 0; k < nparams; k++) {
		int idx;
		snprintf(pname, sizeof(pname), "$%d", k + 1);
		idx = sqlite3_bind_parameter_index(st, pname);
		if (idx <= 0)
			continue;
		rc = params[k] ? sqlite3_bind_text(st, idx, params[k], -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, idx);
		if (rc != SQLITE_OK)
			goto fail;
	}
	ncols = sqlite3_column_count(st);
	if (ncols > 64)
		ncols = 64;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (k = 0; k < ncols; k++)
			vals[k] = (const char *)sqlite3_column_text(st, k);
		if (fn && (ret = fn(ctx, ncols, vals)) != 0)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		goto fail;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (!cached)
		sqlite3_finalize(st);
	return ret;
fail:
	ret = sq_error(s, q, rc, e);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (!cached)
		sqlite3_finalize(st);
	return ret;
}

static void
sq_close(struct ty_store *s)
{
	struct sq *q = s->db;
	int k;

	if (!q)
		return;
	for (k = 0; k < CACHE; k++)
		if (q->st[k])
			sqlite3_finalize(q->st[k]);
	sqlite3_close(q->db);
	free(q);
	s->db = NULL;
}

int
ty_store_sqlite_open(struct ty_store *s, const char *path, int create, struct ty_error *e)
{
	struct sq *q = calloc(1, sizeof(*q));
	int rc, flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);

	if (!q)
		return ty_error_set(e, -ENOMEM, "out of memory");
	s->kind = TY_STORE_SQLITE;
	s->db = q;
	s->exec = sq_exec;
	s->close = sq_close;
	rc = sqlite3_open_v2(path, &q->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		int st;
		if (rc == SQLITE_CANTOPEN && !create)
			st = ty_error_set(e, -ENOENT, "database '%s': no such history", s->name);
		else
			st = sq_error(s, q, rc, e);
		sq_close(s);
		return st;
	}
	/* concurrent writers wait for each other's transactions */
	sqlite3_busy_timeout(q->db, 60000);
	sqlite3_extended_result_codes(q->db, 0);
	/* A writer turns the write-ahead log on (it stays with the file):
	 * readers then never block writers, and a transaction costs one fsync
	 * at checkpoints instead of several per commit. A crash still loses
	 * nothing but the last transactions (synchronous NORMAL). */
	if (create && (rc = sq_exec(s, "PRAGMA journal_mode = WAL", NULL, 0, NULL, NULL, e)) < 0) {
		sq_close(s);
		return rc;
	}
	if ((rc = sq_exec(s, "PRAGMA synchronous = NORMAL", NULL, 0, NULL, NULL, e)) < 0) {
		sq_close(s);
		return rc;
	}
	return 0;
}

#else

int
ty_store_sqlite_open(struct ty_store *s, const char *path, int create, struct ty_error *e)
{
	(void)s;
	(void)path;
	(void)create;
	return ty_error_set(e, -ENOTSUP,
			    "not built with sqlite3 (install libsqlite3-dev and rebuild)");
}

#endif
