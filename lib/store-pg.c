/* store-pg.c - the history in a PostgreSQL database (store.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "tachy/dynlib.h"

#ifdef HAVE_LIBPQ
#include <libpq-fe.h>

/* libpq's functions, loaded by the first open (dynlib.h): linked in, libpq
 * and the 25 libraries it needs would load with every command. */
#define PQ_FUNCS(X)                                                                                \
	X(PQconnectStart)                                                                          \
	X(PQconnectPoll)                                                                           \
	X(PQsocket)                                                                                \
	X(PQstatus)                                                                                \
	X(PQerrorMessage)                                                                          \
	X(PQsetNoticeProcessor)                                                                    \
	X(PQclear)                                                                                 \
	X(PQresultStatus)                                                                          \
	X(PQresultErrorField)                                                                      \
	X(PQreset)                                                                                 \
	X(PQntuples)                                                                               \
	X(PQnfields)                                                                               \
	X(PQgetvalue)                                                                              \
	X(PQgetisnull)                                                                             \
	X(PQfreemem)                                                                               \
	X(PQfinish)                                                                                \
	X(PQexecParams)                                                                            \
	X(PQconninfoParse)                                                                         \
	X(PQconninfoFree)
#define PQ_PTR(f) __typeof__(f) *f;
static struct {
	PQ_FUNCS(PQ_PTR)
} pq;

static int
pq_load(struct ty_error *e)
{
#define PQ_SYM(f) {#f, (void **)&pq.f},
	static const struct ty_dynlib_sym syms[] = {PQ_FUNCS(PQ_SYM)};

	return ty_dynlib_load("libpq.so.5", "libpq5", syms, sizeof(syms) / sizeof(syms[0]), e);
}

/* The first line of libpq's message, without its trailing newline, and
 * without any secret of the connection string. */
static int
pg_error(struct ty_store *s, int code, const char *what, const char *msg, struct ty_error *e)
{
	size_t len = strcspn(msg ? msg : "", "\n");

	ty_error_set(e, code, "database '%s': %s%.*s", s->name, what, (int)len, msg ? msg : "");
	if (e)
		ty_store_scrub(s, e->msg, sizeof(e->msg));
	return code;
}

/* The code for a failed statement of class STATE (SQLSTATE). */
static int
pg_code(struct ty_store *s, const char *state)
{
	if (pq.PQstatus(s->db) != CONNECTION_OK)
		return -ECONNRESET;
	if (!state)
		return -EIO;
	/* serialization failure, deadlock: the transaction is to be run again */
	if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
		return -EAGAIN;
	/* connection exceptions, the server shutting down */
	if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0)
		return -ECONNRESET;
	if (strncmp(state, "42", 2) == 0)
		return -EINVAL; /* the schema is not what tachy wrote */
	if (strcmp(state, "53100") == 0)
		return -ENOSPC; /* disk full */
	return -EIO;
}

static int
pg_exec(struct ty_store *s, const char *sql, const char *const *params, int nparams,
	ty_store_row_fn fn, void *ctx, struct ty_error *e)
{
	PGresult *res = pq.PQexecParams(s->db, sql, nparams, NULL, params, NULL, NULL, 0);
	ExecStatusType st = pq.PQresultStatus(res);
	const char *vals[64];
	int rows, cols, i, k, ret = 0;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		int code = pg_code(s, pq.PQresultErrorField(res, PG_DIAG_SQLSTATE));
		ret = pg_error(s, code, "", pq.PQerrorMessage(s->db), e);
		pq.PQclear(res);
		return ret;
	}
	rows = pq.PQntuples(res);
	cols = pq.PQnfields(res);
	if (cols > 64)
		cols = 64;
	for (i = 0; i < rows && fn && !ret; i++) {
		for (k = 0; k < cols; k++)
			vals[k] = pq.PQgetisnull(res, i, k) ? NULL : pq.PQgetvalue(res, i, k);
		ret = fn(ctx, cols, vals);
	}
	pq.PQclear(res);
	return ret;
}

static void
pg_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void
pg_close(struct ty_store *s)
{
	if (s->db)
		pq.PQfinish(s->db);
	s->db = NULL;
}

static int
pg_reset(struct ty_store *s, struct ty_error *e)
{
	pq.PQreset(s->db);
	if (pq.PQstatus(s->db) != CONNECTION_OK)
		return pg_error(s, -ECONNREFUSED,
				"cannot connect again: ", pq.PQerrorMessage(s->db), e);
	pq.PQsetNoticeProcessor(s->db, pg_quiet, NULL);
	return 0;
}

/* connect_timeout of OPTS in ms (libpq's rule: at least 2 s), -1: none. */
static int
connect_timeout_ms(const PQconninfoOption *opts)
{
	long t;

	for (; opts && opts->keyword; opts++)
		if (strcmp(opts->keyword, "connect_timeout") == 0 && opts->val && *opts->val) {
			t = strtol(opts->val, NULL, 10);
			return t <= 0 ? -1 : t < 2 ? 2000 : t > 86400 ? 86400000 : (int)t * 1000;
		}
	return -1;
}

/* Drive C's connection to its end, as PQconnectdb does (within TIMEOUT_MS
 * of quiet when not -1). Returns 0 (C's status says how it ended), or -1
 * on a timeout. */
static int
connect_poll(PGconn *c, int timeout_ms)
{
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	struct pollfd pfd;

	for (;;) {
		if (st == PGRES_POLLING_OK || st == PGRES_POLLING_FAILED)
			return 0;
		pfd.fd = pq.PQsocket(c);
		pfd.events = st == PGRES_POLLING_READING ? POLLIN : POLLOUT;
		pfd.revents = 0;
		if (pfd.fd < 0)
			return 0;
		if (poll(&pfd, 1, timeout_ms) == 0)
			return -1;
		st = pq.PQconnectPoll(c);
	}
}

int
ty_store_pg_open(struct ty_store *s, const char *conninfo, struct ty_error *e)
{
	PQconninfoOption *opts;
	char *err = NULL;
	PGconn *c;
	int rc, timeout_ms;

	s->kind = TY_STORE_PG;
	s->exec = pg_exec;
	s->reset = pg_reset;
	s->close = pg_close;
	if ((rc = pq_load(e)) < 0) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e ? e->msg : "");
		return pg_error(s, rc, "", why, e);
	}
	/* a string libpq cannot parse is bad input, not an unreachable server */
	if (!(opts = pq.PQconninfoParse(conninfo, &err))) {
		rc = pg_error(s, err ? -EINVAL : -ENOMEM,
			      "not a PostgreSQL connection string: ", err ? err : "out of memory",
			      e);
		pq.PQfreemem(err);
		return rc;
	}
	timeout_ms = connect_timeout_ms(opts);
	pq.PQconninfoFree(opts);
	/* started, not PQconnectdb: the server's notices during the start-up
	 * ("terminating connection due to immediate shutdown") go to the quiet
	 * processor, not raw to stderr */
	c = pq.PQconnectStart(conninfo);
	s->db = c;
	if (!c)
		return ty_error_set(e, -ENOMEM, "out of memory");
	pq.PQsetNoticeProcessor(c, pg_quiet, NULL);
	if (pq.PQstatus(c) != CONNECTION_BAD && connect_poll(c, timeout_ms) < 0) {
		rc = pg_error(s, -ETIMEDOUT, "cannot connect: ", "timeout expired", e);
		pg_close(s);
		return rc;
	}
	if (pq.PQstatus(c) != CONNECTION_OK) {
		rc = pg_error(s, -ECONNREFUSED, "cannot connect: ", pq.PQerrorMessage(c), e);
		pg_close(s);
		return rc;
	}
	return 0;
}

#else

int
ty_store_pg_open(struct ty_store *s, const char *conninfo, struct ty_error *e)
{
	(void)s;
	(void)conninfo;
	return ty_error_set(e, -ENOTSUP, "not built with libpq (install libpq-dev and rebuild)");
}

#endif
