/* history.c - the result store (history.h): schema, versions, adding and
 * loading results, over a SQLite or PostgreSQL backend (store.h); and the
 * git facts a result is stored with. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "tachy/array.h"
#include "tachy/history.h"
#include "tachy/jsonw.h"
#include "tachy/numparse.h"
#include "tachy/results-saved.h"
#include "tachy/runprof-json.h"

extern char **environ;

/* ---- schema ---- */

/* Version 1. Every run of a figure is kept, in run order, as one text list
 * of numbers (samples.vals): a result adds a row per figure, not per run,
 * so 10,000 results are a few tens of thousands of rows. */
#define SCHEMA_V1(ID, BIG)                                                                         \
	"CREATE TABLE tachy_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",                     \
	    "CREATE TABLE machines (id " ID ", name TEXT NOT NULL UNIQUE)",                        \
	    "CREATE TABLE commits (id " ID ", rev TEXT NOT NULL UNIQUE, branch TEXT, "             \
	    "commit_time " BIG ", commit_order " BIG ")",                                          \
	    "CREATE TABLE results (id " ID ", benchmark TEXT NOT NULL, command TEXT, "             \
	    "commit_id " BIG " NOT NULL REFERENCES commits(id), "                                  \
	    "machine_id " BIG " NOT NULL REFERENCES machines(id), added TEXT NOT NULL, "           \
	    "source TEXT, environment TEXT, tags TEXT)",                                           \
	    "CREATE TABLE samples (result_id " BIG " NOT NULL REFERENCES results(id), "            \
	    "figure TEXT NOT NULL, unit TEXT NOT NULL, n INTEGER NOT NULL, vals TEXT NOT NULL, "   \
	    "PRIMARY KEY (result_id, figure))",                                                    \
	    "CREATE INDEX results_series ON results (benchmark, machine_id)",                      \
	    "CREATE INDEX samples_figure ON samples (figure)",                                     \
	    "INSERT INTO tachy_meta (key, value) VALUES ('schema_version', '1')"

/* Version 2: the per-run profiles of tachy run --profile (runprof-json.h's
 * tachy.profile for the one result, its symbols only: profiles.data, with
 * its number of runs), and the warm-up runs the run left out
 * (results.left_out; NULL where not known, as for every result before).
 * Only added: every version-1 row stays as it was. */
#define MIGRATE_V2(BIG)                                                                            \
	"ALTER TABLE results ADD COLUMN left_out " BIG,                                            \
	    "CREATE TABLE profiles (result_id " BIG " PRIMARY KEY REFERENCES results(id), "        \
	    "runs " BIG " NOT NULL, data TEXT NOT NULL)"

#define SET_VERSION(V) "UPDATE tachy_meta SET value = '" #V "' WHERE key = 'schema_version'"

static const char *const schema_sqlite[] = {SCHEMA_V1("INTEGER PRIMARY KEY", "INTEGER"),
					    MIGRATE_V2("INTEGER"), SET_VERSION(2), NULL};
static const char *const schema_pg[] = {SCHEMA_V1("BIGSERIAL PRIMARY KEY", "BIGINT"),
					MIGRATE_V2("BIGINT"), SET_VERSION(2), NULL};

/* Migrations: migrations[v - 1] takes a store from version v to v + 1
 * (its last statement sets the version), for SQLite and PostgreSQL. */
static const char *const v2_sqlite[] = {MIGRATE_V2("INTEGER"), SET_VERSION(2), NULL};
static const char *const v2_pg[] = {MIGRATE_V2("BIGINT"), SET_VERSION(2), NULL};
static const char *const *const migrations[][2] = {{v2_sqlite, v2_pg}};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == TY_HISTORY_SCHEMA - 1,
	       "a migration to every version");

static const char sql_has_meta_sqlite[] =
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'tachy_meta'";
static const char sql_tables_sqlite[] = "SELECT count(*) FROM sqlite_master";
static const char sql_has_meta_pg[] =
    "SELECT count(*) FROM information_schema.tables WHERE table_name = 'tachy_meta' "
    "AND table_schema = current_schema()";
static const char sql_tables_pg[] =
    "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()";
static const char sql_version[] = "SELECT value FROM tachy_meta WHERE key = 'schema_version'";

static int
exec0(struct ty_history *h, const char *sql, struct ty_error *e)
{
	return h->s.exec(&h->s, sql, NULL, 0, NULL, NULL, e);
}

static int
row_text(void *ctx, int ncols, const char *const *vals)
{
	char **out = ctx;

	free(*out);
	*out = strdup(ncols > 0 && vals[0] ? vals[0] : "");
	return *out ? 0 : -ENOMEM;
}

static int
query_text(struct ty_history *h, const char *sql, const char *const *p, int np, char **out,
	   struct ty_error *e)
{
	int rc;

	*out = NULL;
	rc = h->s.exec(&h->s, sql, p, np, row_text, out, e);
	if (rc == -ENOMEM)
		ty_error_set(e, rc, "out of memory");
	return rc;
}

static int
begin(struct ty_history *h, int write, struct ty_error *e)
{
	if (h->s.kind == TY_STORE_SQLITE)
		return exec0(h, write ? "BEGIN IMMEDIATE" : "BEGIN", e);
	return exec0(h, "BEGIN", e);
}

static void
rollback(struct ty_history *h)
{
	exec0(h, "ROLLBACK", NULL);
}

/* Check the schema version; create the schema (CREATE) or migrate an older one. */
static int
schema_check(struct ty_history *h, int create, struct ty_error *e)
{
	int pg = h->s.kind == TY_STORE_PG, rc;
	const char *const *st;
	char *txt = NULL, *end;
	long v;

	if ((rc = begin(h, create, e)) < 0)
		return rc;
	/* one tachy at a time creates or migrates a PostgreSQL schema */
	if (pg && create && (rc = exec0(h, "SELECT pg_advisory_xact_lock(7447420)", e)) < 0)
		goto fail;
	if ((rc = query_text(h, pg ? sql_has_meta_pg : sql_has_meta_sqlite, NULL, 0, &txt, e)) < 0)
		goto fail;
	if (!txt || strcmp(txt, "0") == 0) {
		free(txt);
		if ((rc = query_text(h, pg ? sql_tables_pg : sql_tables_sqlite, NULL, 0, &txt, e)) <
		    0)
			goto fail;
		if (txt && strcmp(txt, "0") != 0) {
			rc = ty_error_set(
			    e, -EINVAL,
			    "database '%s' is not a tachy history (it has other tables)",
			    h->s.name);
			goto fail;
		}
		if (!create) {
			rc = ty_error_set(e, -ENOENT,
					  "database '%s' holds no history yet (add results first: "
					  "tachy history add, or tachy run --history)",
					  h->s.name);
			goto fail;
		}
		for (st = pg ? schema_pg : schema_sqlite; *st; st++)
			if ((rc = exec0(h, *st, e)) < 0)
				goto fail;
		h->version = TY_HISTORY_SCHEMA;
		free(txt);
		return exec0(h, "COMMIT", e);
	}
	free(txt);
	txt = NULL;
	if ((rc = query_text(h, sql_version, NULL, 0, &txt, e)) < 0)
		goto fail;
	errno = 0;
	v = txt ? strtol(txt, &end, 10) : 0;
	if (!txt || errno || end == txt || *end || v < 1) {
		rc = ty_error_set(e, -EINVAL, "database '%s' has no valid schema version ('%s')",
				  h->s.name, txt ? txt : "");
		goto fail;
	}
	if (v > TY_HISTORY_SCHEMA) {
		rc = ty_error_set(e, -EINVAL,
				  "database '%s' has schema version %ld, newer than this tachy's "
				  "(%d): use a newer tachy",
				  h->s.name, v, TY_HISTORY_SCHEMA);
		goto fail;
	}
	/* A reader reads an older store as it is (what a version added is
	 * simply not there: h->version says so); a writer migrates it, in
	 * this transaction, so that a failure leaves it as it was. */
	for (; create && v < TY_HISTORY_SCHEMA; v++)
		for (st = migrations[v - 1][pg]; *st; st++)
			if ((rc = exec0(h, *st, e)) < 0)
				goto fail;
	h->version = (int)v;
	free(txt);
	return exec0(h, "COMMIT", e);
fail:
	free(txt);
	rollback(h);
	return rc;
}

/* ---- open ---- */

#define ADD_TRIES 12	 /* a transaction run again at most this often */
#define CONNECT_TRIES 30 /* connecting again: about 27 s in all */
static int after_lost(struct ty_history *h, const char *xid, int at_commit, struct ty_error *e);

int
ty_history_default_db(char *buf, size_t size)
{
	const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n;

	if (x && x[0] == '/')
		n = snprintf(buf, size, "%s/tachy/history.db", x);
	else if (home && home[0])
		n = snprintf(buf, size, "%s/.local/share/tachy/history.db", home);
	else
		return -ENOENT;
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int
ty_history_is_server(const char *db)
{
	return ty_store_kind_of(db) == TY_STORE_PG;
}

int
ty_history_open(struct ty_history **out, const char *db, int create, struct ty_error *e)
{
	struct ty_history *h = calloc(1, sizeof(*h));
	int rc, tries;

	*out = NULL;
	if (!h || !(h->s.name = ty_store_shown(db, &h->s))) {
		free(h);
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	if (ty_store_kind_of(db) == TY_STORE_PG)
		rc = ty_store_pg_open(&h->s, db, e);
	else
		rc = ty_store_sqlite_open(&h->s, db, create, schema_sqlite, e);
	if (rc < 0)
		goto fail;
	/* a server that restarts meanwhile: connect again and look again */
	for (tries = 1; (rc = schema_check(h, create, e)) == -ECONNRESET && tries < ADD_TRIES;
	     tries++)
		if (after_lost(h, NULL, 0, NULL) < 0)
			break;
	if (rc < 0)
		goto fail;
	*out = h;
	return 0;
fail:
	if (h->s.db)
		h->s.close(&h->s);
	ty_store_forget(&h->s);
	free(h);
	return rc;
}

void
ty_history_close(struct ty_history *h)
{
	if (!h)
		return;
	if (h->s.db)
		h->s.close(&h->s);
	ty_store_forget(&h->s);
	free(h);
}

const char *
ty_history_name(const struct ty_history *h)
{
	return h->s.name;
}

/* ---- add ---- */

static const char sql_machine[] =
    "INSERT INTO machines (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = "
    "excluded.name RETURNING id";
static const char sql_commit[] =
    "INSERT INTO commits (rev, branch, commit_time, commit_order) VALUES ($1, $2, $3, $4) "
    "ON CONFLICT (rev) DO UPDATE SET branch = COALESCE(excluded.branch, commits.branch), "
    "commit_time = COALESCE(excluded.commit_time, commits.commit_time), "
    "commit_order = COALESCE(excluded.commit_order, commits.commit_order) RETURNING id";
static const char sql_result[] =
    "INSERT INTO results (benchmark, command, commit_id, machine_id, added, source, "
    "environment, tags, left_out) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
    "CAST($9 AS BIGINT)) RETURNING id";
static const char sql_sample[] =
    "INSERT INTO samples (result_id, figure, unit, n, vals) VALUES ($1, $2, $3, $4, $5)";
static const char sql_profile[] =
    "INSERT INTO profiles (result_id, runs, data) VALUES ($1, CAST($2 AS BIGINT), $3)";

/* The file's environment as a JSON object (malloc'd), "{}" when it has none. */
static char *
env_json(const struct ty_results_saved *f)
{
	struct ty_jsonw w;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		return NULL;
	ty_jsonw_init(&w, fp, 0);
	ty_jsonw_object_begin(&w);
	for (i = 0; i < f->nenv; i++)
		ty_jsonw_kstring(&w, f->env_keys[i], f->env_values[i]);
	ty_jsonw_object_end(&w);
	if (fclose(fp) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* VALUES[0..N) as text separated by spaces (malloc'd), each in the
 * fewest digits that read back to the same double (so that most take
 * ty_numparse's exact fast path when loaded). */
static char *
values_text(const double *v, size_t n)
{
	char *buf = malloc(n * 26 + 1), *p = buf;
	size_t i;
	int prec;

	if (!buf)
		return NULL;
	*p = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			*p++ = ' ';
		for (prec = 15; prec < 17; prec++) {
			char tmp[32];
			snprintf(tmp, sizeof(tmp), "%.*g", prec, v[i]);
			if (strtod(tmp, NULL) == v[i])
				break;
		}
		p += sprintf(p, "%.*g", prec, v[i]);
	}
	return buf;
}

/* The per-run profile of benchmark B of F (result RID), when F has one
 * for each of B's runs. */
static int
add_profile(struct ty_history *h, const char *rid, const struct ty_results_saved *f,
	    const struct ty_results_saved_bench *b, struct ty_error *e)
{
	size_t k = (size_t)(b - f->benches);
	const char *q[3];
	char num[24], *data;
	int rc;

	if (!f->profile || k >= f->profile->ncmds || !f->profile->cmds[k].nruns ||
	    f->profile->cmds[k].nruns != b->nruns)
		return 0;
	if (!(data = ty_runprof_json_text(f->profile, k)))
		return ty_error_set(e, -ENOMEM, "out of memory");
	snprintf(num, sizeof(num), "%zu", b->nruns);
	q[0] = rid;
	q[1] = num;
	q[2] = data;
	rc = h->s.exec(&h->s, sql_profile, q, 3, NULL, NULL, e);
	free(data);
	return rc;
}

static int
add_bench(struct ty_history *h, const char *commit_id, const char *machine_id, const char *added,
	  const struct ty_results_saved *f, const struct ty_results_saved_bench *b, const char *env,
	  const char *tags, struct ty_error *e)
{
	char left[24];
	const char *p[9] = {b->label ? b->label : b->name,
			    b->command,
			    commit_id,
			    machine_id,
			    added,
			    f->path,
			    env,
			    tags,
			    b->left_out >= 0 ? left : NULL};
	char *rid = NULL, num[24], *vals;
	size_t k;
	int rc;

	snprintf(left, sizeof(left), "%ld", b->left_out);
	if ((rc = query_text(h, sql_result, p, 9, &rid, e)) < 0)
		return rc;
	for (k = 0; k < b->nfigs; k++) {
		const struct ty_results_saved_figure *g = &b->figs[k];
		const char *q[5];
		if (!g->n)
			continue;
		if (!(vals = values_text(g->values, g->n))) {
			free(rid);
			return ty_error_set(e, -ENOMEM, "out of memory");
		}
		snprintf(num, sizeof(num), "%zu", g->n);
		q[0] = rid;
		q[1] = g->name;
		q[2] = g->unit ? g->unit : "";
		q[3] = num;
		q[4] = vals;
		rc = h->s.exec(&h->s, sql_sample, q, 5, NULL, NULL, e);
		free(vals);
		if (rc < 0)
			break;
	}
	if (rc == 0)
		rc = add_profile(h, rid, f, b, e);
	free(rid);
	return rc;
}

/* The machine FILES[I] is stored under. */
static const char *
machine_of(const struct ty_history_meta *m, const struct ty_results_saved *f)
{
	const char *mach = m->machine;

	if (!mach || !mach[0])
		mach = ty_results_saved_env_value(f, "hostname");
	if ((!mach || !mach[0]) && !f->nenv)
		mach = m->env_machine;
	return mach && mach[0] ? mach : "unknown";
}

static int
cmp_machine(const void *a, const void *b)
{
	return strcmp(**(const char *const *const *)a, **(const char *const *const *)b);
}

/* One try of ty_history_add's transaction: MACH[i] is file i's machine,
 * MID[i] receives its id. *XID gets the PostgreSQL transaction's id, and
 * *AT_COMMIT is set when what failed was the COMMIT itself. */
static int
add_once(struct ty_history *h, const struct ty_history_meta *m,
	 const struct ty_results_saved *files, size_t n, const char **mach, char **mid,
	 const char *now, char **xid, int *at_commit, struct ty_error *e)
{
	char t[24], o[24], *cid = NULL, *env = NULL;
	const char *p[4], ***order = NULL;
	size_t i, j;
	int rc;

	snprintf(t, sizeof(t), "%" PRId64, m->commit_time);
	snprintf(o, sizeof(o), "%" PRId64, m->commit_order);
	for (i = 0; i < n; i++) {
		free(mid[i]);
		mid[i] = NULL;
	}
	if (!(order = malloc((n ? n : 1) * sizeof(*order))))
		return ty_error_set(e, -ENOMEM, "out of memory");
	if ((rc = begin(h, 1, e)) < 0) {
		free(order);
		return rc;
	}
	if (h->s.kind == TY_STORE_PG &&
	    (rc = query_text(h, "SELECT txid_current()", NULL, 0, xid, e)) < 0)
		goto fail;
	/* Rows are locked in one order by every writer, so that two never
	 * wait for each other: the commit, then the machines by name. */
	p[0] = m->commit;
	p[1] = m->branch;
	p[2] = m->commit_time >= 0 ? t : NULL;
	p[3] = m->commit_order >= 0 ? o : NULL;
	if ((rc = query_text(h, sql_commit, p, 4, &cid, e)) < 0)
		goto fail;
	for (i = 0; i < n; i++)
		order[i] = &mach[i];
	qsort(order, n, sizeof(*order), cmp_machine);
	for (i = 0; i < n; i++) {
		size_t k = (size_t)(order[i] - mach);
		if (i && strcmp(*order[i - 1], *order[i]) == 0) {
			size_t prev = (size_t)(order[i - 1] - mach);
			if (!(mid[k] = strdup(mid[prev]))) {
				rc = ty_error_set(e, -ENOMEM, "out of memory");
				goto fail;
			}
			continue;
		}
		p[0] = mach[k];
		if ((rc = query_text(h, sql_machine, p, 1, &mid[k], e)) < 0)
			goto fail;
	}
	for (i = 0; i < n; i++) {
		free(env);
		env = files[i].nenv || !m->env_json ? env_json(&files[i]) : strdup(m->env_json);
		if (!env) {
			rc = ty_error_set(e, -ENOMEM, "out of memory");
			goto fail;
		}
		for (j = 0; j < files[i].nbenches; j++)
			if ((rc = add_bench(h, cid, mid[i], now, &files[i], &files[i].benches[j],
					    env, m->tags, e)) < 0)
				goto fail;
	}
	if ((rc = exec0(h, "COMMIT", e)) < 0) {
		*at_commit = 1;
		goto fail;
	}
	free(order);
	free(cid);
	free(env);
	return 0;
fail:
	rollback(h);
	free(order);
	free(cid);
	free(env);
	return rc;
}

/* After the connection was lost: connect again (waiting for a server that
 * restarts), and say whether the transaction XID committed when the
 * COMMIT was what failed (1 committed, 0 not, -errno unknown). */
static int
after_lost(struct ty_history *h, const char *xid, int at_commit, struct ty_error *e)
{
	const char *p[1] = {xid};
	char *status = NULL;
	int k, rc = -ECONNRESET;

	if (!h->s.reset)
		return rc;
	for (k = 0; k < CONNECT_TRIES && (rc = h->s.reset(&h->s, e)) < 0; k++)
		ty_store_backoff(k + 4);
	if (rc < 0 || !at_commit || !xid)
		return rc < 0 ? rc : 0;
	/* the server knows what became of a recent transaction */
	for (k = 0; k < ADD_TRIES; k++) {
		rc = query_text(h, "SELECT txid_status(CAST($1 AS BIGINT))", p, 1, &status, e);
		if (rc < 0)
			break;
		if (!status || strcmp(status, "in progress") != 0)
			break;
		free(status);
		status = NULL;
		ty_store_backoff(k);
	}
	if (rc == 0)
		rc = status && strcmp(status, "committed") == 0;
	free(status);
	return rc;
}

int
ty_history_add(struct ty_history *h, const struct ty_history_meta *m,
	       const struct ty_results_saved *files, size_t n, size_t *added, struct ty_error *e)
{
	char now[32], **mid = NULL, *xid = NULL;
	const char **mach = NULL;
	size_t i, j, count = 0;
	time_t tt = time(NULL);
	struct tm tm;
	int rc = 0, tries, at_commit;

	*added = 0;
	if (h->version < TY_HISTORY_SCHEMA)
		return ty_error_set(e, -EINVAL, "database '%s' was opened to read, not to add to",
				    h->s.name);
	if (!m->commit || !m->commit[0])
		return ty_error_set(e, -EINVAL, "no commit to store the results under");
	for (i = 0; i < n; i++) {
		size_t runs = 0;
		for (j = 0; j < files[i].nbenches; j++)
			runs += files[i].benches[j].nfigs ? files[i].benches[j].figs[0].n : 0;
		if (!runs)
			return ty_error_set(e, -EINVAL,
					    "%s: no run to store (nothing written to '%s')",
					    files[i].path, h->s.name);
		count += files[i].nbenches;
	}
	mid = calloc(n ? n : 1, sizeof(*mid));
	mach = calloc(n ? n : 1, sizeof(*mach));
	if (!mid || !mach) {
		free(mid);
		free(mach);
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		mach[i] = machine_of(m, &files[i]);
	gmtime_r(&tt, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* A serialization failure, a deadlock or a lost connection rolls the
	 * transaction back: it is run again, after a jittered wait. */
	for (tries = 1;; tries++) {
		at_commit = 0;
		free(xid);
		xid = NULL;
		rc = add_once(h, m, files, n, mach, mid, now, &xid, &at_commit, e);
		if (rc == -ECONNRESET) {
			struct ty_error e2 = {0};
			int st = after_lost(h, xid, at_commit, &e2);
			if (st == 1) {
				rc = 0;
			} else if (st < 0 && at_commit) {
				ty_error_set(e, -EIO,
					     "database '%s': the connection was lost during COMMIT "
					     "and the server cannot say whether the results were "
					     "stored: look with tachy history show",
					     h->s.name);
				rc = -EIO;
				break;
			} else if (st < 0) {
				break;
			}
		}
		if (rc == 0 || (rc != -EAGAIN && rc != -ECONNRESET))
			break;
		if (tries == ADD_TRIES) {
			size_t len = strlen(e ? e->msg : "");
			if (e && len + 40 < sizeof(e->msg))
				snprintf(e->msg + len, sizeof(e->msg) - len,
					 " (gave up after %d tries)", tries);
			break;
		}
		if (rc == -EAGAIN)
			ty_store_backoff(tries - 1);
	}
	for (i = 0; i < n; i++)
		free(mid[i]);
	free(mid);
	free(mach);
	free(xid);
	if (rc == 0)
		*added = count;
	return rc;
}

/* ---- load ---- */

long
ty_history_parse_values(const char *text, double **out)
{
	size_t n = 0, cap = 0;
	double *v = NULL, x;
	const char *p = text;
	char *end;

	*out = NULL;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (!(*p == '-' || *p == '+' || *p == '.' || (*p >= '0' && *p <= '9')))
			goto bad;
		end = (char *)p + strcspn(p, " ");
		if (ty_numparse(p, (size_t)(end - p), &x) < 0 || !isfinite(x))
			goto bad;
		/* the count is returned as a long */
		if (n >= (size_t)LONG_MAX / 2 || ty_array_grow(&v, sizeof(*v), n + 1, &cap) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = x;
		p = end;
	}
	*out = v;
	return (long)n;
bad:
	free(v);
	return -EINVAL;
}

static const char sql_load[] =
    "SELECT r.benchmark, m.name, s.figure, s.unit, c.rev, c.branch, c.commit_time, "
    "c.commit_order, s.vals FROM samples s JOIN results r ON r.id = s.result_id "
    "JOIN commits c ON c.id = r.commit_id JOIN machines m ON m.id = r.machine_id "
    "WHERE s.figure = $1 AND (CAST($2 AS TEXT) IS NULL OR r.benchmark = $2) "
    "AND (CAST($3 AS TEXT) IS NULL OR m.name = $3) "
    "ORDER BY r.benchmark, m.name, (c.commit_order IS NULL), c.commit_order, c.id, r.id";

struct loader {
	struct ty_history_series *s;
	size_t n, cap;
	const char *name;
	struct ty_error *e;
};

static int64_t
int_or(const char *s)
{
	char *end;
	long long v;

	if (!s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || end == s || *end ? -1 : (int64_t)v;
}

static int
load_row(void *ctx, int ncols, const char *const *v)
{
	struct loader *L = ctx;
	struct ty_history_series *s;
	struct ty_history_commit *c;
	double *vals;
	long nv;
	size_t k;

	if (ncols < 9 || !v[0] || !v[1] || !v[2] || !v[4] || !v[8])
		return ty_error_set(L->e, -EINVAL, "database '%s': a result with a missing field",
				    L->name);
	nv = ty_history_parse_values(v[8], &vals);
	if (nv == -ENOMEM)
		return ty_error_set(L->e, -ENOMEM, "out of memory");
	if (nv < 0)
		return ty_error_set(L->e, -EINVAL,
				    "database '%s': the values of '%s' at %s are not numbers",
				    L->name, v[0], v[4]);
	s = L->n ? &L->s[L->n - 1] : NULL;
	if (!s || strcmp(s->benchmark, v[0]) || strcmp(s->machine, v[1])) {
		if (ty_array_grow(&L->s, sizeof(*L->s), L->n + 1, &L->cap) < 0)
			goto oom;
		s = &L->s[L->n++];
		memset(s, 0, sizeof(*s));
		s->benchmark = strdup(v[0]);
		s->machine = strdup(v[1]);
		s->figure = strdup(v[2]);
		s->unit = strdup(v[3] ? v[3] : "");
		if (!s->benchmark || !s->machine || !s->figure || !s->unit)
			goto oom;
	}
	c = s->n ? &s->commits[s->n - 1] : NULL;
	if (!c || strcmp(c->rev, v[4])) {
		/* not ty_array_grow: the series (history.h) has no capacity
		 * field; its count says it, the array growing by 16 commits
		 * at each multiple of 16 (commits arrive in order) */
		if ((s->n & 15) == 0) {
			struct ty_history_commit *nc =
			    realloc(s->commits, (s->n + 16) * sizeof(*nc));
			if (!nc)
				goto oom;
			s->commits = nc;
		}
		c = &s->commits[s->n++];
		memset(c, 0, sizeof(*c));
		c->rev = strdup(v[4]);
		c->branch = v[5] ? strdup(v[5]) : NULL;
		c->time = int_or(v[6]);
		c->order = int_or(v[7]);
		if (!c->rev || (v[5] && !c->branch))
			goto oom;
	}
	{ /* a result's values at once; the commit (history.h) has no capacity */
		double *nvv = realloc(c->values, (c->nvalues + (size_t)nv + 1) * sizeof(double));
		if (!nvv)
			goto oom;
		c->values = nvv;
		for (k = 0; k < (size_t)nv; k++)
			c->values[c->nvalues++] = vals[k];
		c->results++;
	}
	free(vals);
	return 0;
oom:
	free(vals);
	return ty_error_set(L->e, -ENOMEM, "out of memory");
}

static int
cmp_series(const void *a, const void *b)
{
	const struct ty_history_series *x = a, *y = b;
	int c = strcmp(x->benchmark, y->benchmark);
	return c ? c : strcmp(x->machine, y->machine);
}

void
ty_history_series_free(struct ty_history_series *s, size_t n)
{
	size_t i, k;

	for (i = 0; s && i < n; i++) {
		for (k = 0; k < s[i].n; k++) {
			free(s[i].commits[k].rev);
			free(s[i].commits[k].branch);
			free(s[i].commits[k].values);
		}
		free(s[i].commits);
		free(s[i].benchmark);
		free(s[i].machine);
		free(s[i].figure);
		free(s[i].unit);
	}
	free(s);
}

int
ty_history_load(struct ty_history *h, const char *bench, const char *machine, const char *figure,
		struct ty_history_series **out, size_t *nout, struct ty_error *e)
{
	struct loader L = {.name = h->s.name, .e = e};
	const char *p[3] = {figure ? figure : "wall", bench, machine};
	int rc;

	*out = NULL;
	*nout = 0;
	if ((rc = begin(h, 0, e)) < 0)
		return rc;
	rc = h->s.exec(&h->s, sql_load, p, 3, load_row, &L, e);
	exec0(h, "COMMIT", NULL);
	if (rc < 0) {
		ty_history_series_free(L.s, L.n);
		return rc;
	}
	if (L.n > 1)
		qsort(L.s, L.n, sizeof(*L.s), cmp_series);
	*out = L.s;
	*nout = L.n;
	return 0;
}

struct strv {
	char **v;
	size_t n, cap;
};

static int
figure_row(void *ctx, int ncols, const char *const *vals)
{
	struct strv *s = ctx;

	if (ncols < 1 || !vals[0])
		return 0;
	if (ty_array_grow(&s->v, sizeof(*s->v), s->n + 2, &s->cap) < 0)
		return -ENOMEM;
	if (!(s->v[s->n] = strdup(vals[0])))
		return -ENOMEM;
	s->v[++s->n] = NULL;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
ty_history_figures(struct ty_history *h, const char *bench, char ***out, struct ty_error *e)
{
	static const char sql[] = "SELECT DISTINCT s.figure FROM samples s JOIN results r ON "
				  "r.id = s.result_id WHERE CAST($1 AS TEXT) IS NULL OR "
				  "r.benchmark = $1";
	struct strv s = {0};
	const char *p[1] = {bench};
	size_t i;
	int rc;

	*out = NULL;
	rc = h->s.exec(&h->s, sql, p, 1, figure_row, &s, e);
	if (rc == -ENOMEM)
		ty_error_set(e, rc, "out of memory");
	if (rc < 0) {
		for (i = 0; i < s.n; i++)
			free(s.v[i]);
		free(s.v);
		return rc;
	}
	if (!s.v && !(s.v = calloc(1, sizeof(char *))))
		return ty_error_set(e, -ENOMEM, "out of memory");
	qsort(s.v, s.n, sizeof(char *), cmp_str);
	*out = s.v;
	return 0;
}

/* ---- git ---- */

/* Run git -C DIR ARGS... and read the first line of its output into BUF.
 * Returns 0, or -ENOENT when git fails or says nothing. */
static int
git_line(const char *dir, const char *const *args, char *buf, size_t size)
{
	const char *argv[12];
	int fds[2], status, k = 0, devnull;
	posix_spawn_file_actions_t fa;
	ssize_t got;
	size_t len = 0;
	pid_t pid;

	argv[k++] = "git";
	argv[k++] = "-C";
	argv[k++] = dir ? dir : ".";
	while (*args && k < 11)
		argv[k++] = *args++;
	argv[k] = NULL;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -ENOENT;
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	if (devnull >= 0) {
		posix_spawn_file_actions_adddup2(&fa, devnull, 0);
		posix_spawn_file_actions_adddup2(&fa, devnull, 2);
	}
	status = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (devnull >= 0)
		close(devnull);
	if (status != 0) {
		close(fds[0]);
		return -ENOENT;
	}
	while (len + 1 < size && (got = read(fds[0], buf + len, size - 1 - len)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)got;
	}
	/* drain whatever is left so git never blocks on a full pipe */
	{
		char sink[256];
		while (read(fds[0], sink, sizeof(sink)) > 0)
			;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !buf[0])
		return -ENOENT;
	return 0;
}

int
ty_history_git_describe(const char *dir, const char *rev, struct ty_history_git *g)
{
	char spec[300], buf[64];
	const char *a1[] = {"rev-parse", "--verify", "--quiet", spec, NULL};
	const char *a2[] = {"symbolic-ref", "--quiet", "--short", "HEAD", NULL};
	const char *a3[] = {"show", "-s", "--format=%ct", g->rev, NULL};
	const char *a4[] = {"rev-list", "--count", g->rev, NULL};

	memset(g, 0, sizeof(*g));
	g->time = g->order = -1;
	if (snprintf(spec, sizeof(spec), "%s^{commit}", rev ? rev : "HEAD") >= (int)sizeof(spec))
		return -ENOENT;
	if (rev && rev[0] == '-')
		return -ENOENT;
	if (git_line(dir, a1, g->rev, sizeof(g->rev)) < 0)
		return -ENOENT;
	if (!rev && git_line(dir, a2, g->branch, sizeof(g->branch)) == 0)
		g->has_branch = 1;
	if (git_line(dir, a3, buf, sizeof(buf)) == 0)
		g->time = int_or(buf);
	if (git_line(dir, a4, buf, sizeof(buf)) == 0)
		g->order = int_or(buf);
	return 0;
}
