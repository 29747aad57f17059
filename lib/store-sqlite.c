/* store-sqlite.c - the history in one SQLite file (store.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "store.h"
#include "tachy/dynlib.h"
#include "tachy/outfile.h"

#ifdef HAVE_SQLITE3
#include <sqlite3.h>

/* SQLite's functions, loaded by the first open (dynlib.h): linked in, its
 * 3,000 relocations cost every command's start-up 1.5 ms here. */
#define SQ3_FUNCS(X)                                                                               \
	X(exec)                                                                                    \
	X(finalize)                                                                                \
	X(errcode)                                                                                 \
	X(close)                                                                                   \
	X(reset)                                                                                   \
	X(open_v2)                                                                                 \
	X(clear_bindings)                                                                          \
	X(system_errno)                                                                            \
	X(step)                                                                                    \
	X(prepare_v2)                                                                              \
	X(extended_result_codes)                                                                   \
	X(errstr)                                                                                  \
	X(errmsg)                                                                                  \
	X(column_text)                                                                             \
	X(column_count)                                                                            \
	X(busy_timeout)                                                                            \
	X(bind_text)                                                                               \
	X(bind_parameter_index)                                                                    \
	X(bind_null)
#define SQ3_PTR(f) __typeof__(sqlite3_##f) *f;
static struct {
	SQ3_FUNCS(SQ3_PTR)
} sq3;

static int
sq3_load(struct ty_error *e)
{
#define SQ3_SYM(f) {"sqlite3_" #f, (void **)&sq3.f},
	static const struct ty_dynlib_sym syms[] = {SQ3_FUNCS(SQ3_SYM)};

	return ty_dynlib_load("libsqlite3.so.0", "libsqlite3-0", syms,
			      sizeof(syms) / sizeof(syms[0]), e);
}

/* Prepared statements are kept by the address of their SQL text (history.c
 * passes string constants), so a bulk add prepares each one once. */
#define CACHE 32
struct sq {
	sqlite3 *db;
	int lockfd; /* a read lock of an immutable reader, else -1 */
	const char *sql[CACHE];
	sqlite3_stmt *st[CACHE];
};

/* The error of RC on DB as a sentence naming the store: the reason of a
 * failed system call where SQLite kept one ("No space left on device"). */
static int
db_error(struct ty_store *s, sqlite3 *db, int rc, struct ty_error *e)
{
	const char *msg = db ? sq3.errmsg(db) : sq3.errstr(rc);
	int sys = db ? sq3.system_errno(db) : 0, prim = rc & 0xff;

	if (prim == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT)
		return ty_error_set(e, sys == EDQUOT ? -EDQUOT : -ENOSPC, "database '%s': %s",
				    s->name, strerror(sys == EDQUOT ? EDQUOT : ENOSPC));
	if (prim == SQLITE_CORRUPT)
		return ty_error_set(e, -EINVAL,
				    "database '%s' is corrupt (%s): restore it from a backup "
				    "(sqlite3 '%s' .recover saves what is readable)",
				    s->name, msg, s->name);
	if (prim == SQLITE_NOTADB || prim == SQLITE_FORMAT)
		return ty_error_set(e, -EINVAL, "database '%s': %s", s->name, msg);
	if ((prim == SQLITE_CANTOPEN || prim == SQLITE_IOERR || prim == SQLITE_READONLY) && sys &&
	    sys != ENOENT)
		return ty_error_set(e,
				    sys == EACCES || sys == EPERM || sys == EROFS ? -EACCES : -EIO,
				    "database '%s': %s (%s)", s->name, msg, strerror(sys));
	if (prim == SQLITE_CANTOPEN)
		return ty_error_set(e, -ENOENT, "database '%s': %s", s->name, msg);
	if (prim == SQLITE_READONLY || prim == SQLITE_PERM || prim == SQLITE_AUTH)
		return ty_error_set(e, -EACCES, "database '%s': %s", s->name, msg);
	if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
		return ty_error_set(e, -EBUSY,
				    "database '%s': %s (another tachy held it for over a minute)",
				    s->name, msg);
	return ty_error_set(e, -EIO, "database '%s': %s", s->name, msg);
}

static int
sq_error(struct ty_store *s, struct sq *q, int rc, struct ty_error *e)
{
	return db_error(s, q->db, rc, e);
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
	*rc = sq3.prepare_v2(q->db, sql, -1, &st, NULL);
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
		idx = sq3.bind_parameter_index(st, pname);
		if (idx <= 0)
			continue;
		rc = params[k] ? sq3.bind_text(st, idx, params[k], -1, SQLITE_TRANSIENT)
			       : sq3.bind_null(st, idx);
		if (rc != SQLITE_OK)
			goto fail;
	}
	ncols = sq3.column_count(st);
	if (ncols > 64)
		ncols = 64;
	while ((rc = sq3.step(st)) == SQLITE_ROW) {
		for (k = 0; k < ncols; k++)
			vals[k] = (const char *)sq3.column_text(st, k);
		if (fn && (ret = fn(ctx, ncols, vals)) != 0)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		goto fail;
	sq3.reset(st);
	sq3.clear_bindings(st);
	if (!cached)
		sq3.finalize(st);
	return ret;
fail:
	ret = sq_error(s, q, rc, e);
	sq3.reset(st);
	sq3.clear_bindings(st);
	if (!cached)
		sq3.finalize(st);
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
			sq3.finalize(q->st[k]);
	sq3.close(q->db);
	if (q->lockfd >= 0)
		close(q->lockfd);
	free(q);
	s->db = NULL;
}

/* Files up to this size are checked whole when opened: quick_check reads
 * every page, about 3 ms of CPU per MiB in the page cache (0.11 s for a
 * file of 32 MiB and 60,000 results, where `history list` itself takes
 * 0.3 to 0.4 s), so bigger files are only judged by the errors SQLite
 * meets while reading them. */
#define QUICK_CHECK_MAX (64L << 20)

/* The path of NAME in the directory DIRFD, through the directory's real
 * name as /proc knows it (malloc'd; NULL when /proc cannot say). */
static char *
real_path(int dirfd, const char *name)
{
	char proc[64], dir[PATH_MAX], *out;
	ssize_t n;
	size_t len;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
	n = readlink(proc, dir, sizeof(dir) - 1);
	if (n <= 0 || dir[0] != '/')
		return NULL;
	dir[n] = '\0';
	len = (size_t)n + strlen(name) + 2;
	if ((out = malloc(len)))
		snprintf(out, len, "%s%s%s", dir, n == 1 ? "" : "/", name);
	return out;
}

/* PATH's directory part joined with NAME (malloc'd), when /proc cannot
 * name the directory. */
static char *
beside(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	size_t d = slash ? (size_t)(slash - path) + 1 : 0, len = d + strlen(name) + 1;
	char *out = malloc(len);

	if (out)
		snprintf(out, len, "%.*s%s", (int)d, path, name);
	return out;
}

/* Make the missing directories above PATH (0700), each in a directory
 * walked under outfile.h's rule for links; *MADE gets the length of the
 * first one made (0: none), for unmake_parents. */
static int
make_parents(const char *path, size_t *made, struct ty_error *e)
{
	char buf[PATH_MAX], *p, *slash;
	int fd;

	if (strlen(path) >= sizeof(buf))
		return ty_error_set(e, -ENAMETOOLONG, "database '%s': %s", path,
				    strerror(ENAMETOOLONG));
	strcpy(buf, path);
	for (p = buf + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		fd = ty_outfile_open_dir(buf, e);
		if (fd == -ENOENT) {
			slash = strrchr(buf, '/');
			if (slash && slash != buf) {
				*slash = '\0';
				fd = ty_outfile_open_dir(buf, e);
				*slash = '/';
			} else {
				fd = open(slash ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (fd < 0)
					fd = -errno;
			}
			if (fd >= 0 && mkdirat(fd, slash ? slash + 1 : buf, 0700) != 0 &&
			    errno != EEXIST) {
				int err = errno;
				close(fd);
				return ty_error_set(e, -err, "cannot make the directory '%s': %s",
						    buf, strerror(err));
			}
			if (fd >= 0 && !*made)
				*made = strlen(buf);
		}
		if (fd < 0)
			return fd;
		close(fd);
		*p = '/';
	}
	return 0;
}

/* Remove the directories above PATH that make_parents made (from the
 * deepest up to the one of length MADE), where they are still empty. */
static void
unmake_parents(const char *path, size_t made)
{
	char buf[PATH_MAX], *slash;

	if (!made || strlen(path) >= sizeof(buf))
		return;
	strcpy(buf, path);
	while ((slash = strrchr(buf, '/')) && (size_t)(slash - buf) >= made) {
		*slash = '\0';
		if (rmdir(buf) != 0)
			return;
	}
}

static void
unlink_tmp(int dirfd, const char *tmp)
{
	static const char *const sfx[] = {"", "-journal", "-wal", "-shm"};
	char buf[PATH_MAX];
	size_t k;

	for (k = 0; k < sizeof(sfx) / sizeof(sfx[0]); k++) {
		snprintf(buf, sizeof(buf), "%s%s", tmp, sfx[k]);
		unlinkat(dirfd, buf, 0);
	}
}

/* Make the new database NAME in DIRFD whole: a temporary file beside it
 * gets INIT's statements and the write-ahead log, is synced, then linked
 * in place (where another tachy made it first, theirs is kept). On any
 * failure, a full disk included, nothing is left behind. */
static int
create_new(struct ty_store *s, int dirfd, const char *path, const char *name,
	   const char *const *init, struct ty_error *e)
{
	char *tmp = NULL, *full;
	sqlite3 *db = NULL;
	int fd, rc = 0, err, nofollow = 0;

	if ((fd = ty_outfile_tmpat(dirfd, name, 0666, &tmp)) < 0)
		return ty_error_set(e, fd, "cannot create database '%s': %s", s->name,
				    strerror(-fd));
	if ((full = real_path(dirfd, tmp)))
		nofollow = SQLITE_OPEN_NOFOLLOW;
	else
		full = beside(path, tmp);
	if (!full) {
		rc = ty_error_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	err = sq3.open_v2(full, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | nofollow, NULL);
	if (err == SQLITE_OK)
		err = sq3.exec(db, "BEGIN", NULL, NULL, NULL);
	for (; err == SQLITE_OK && init && *init; init++)
		err = sq3.exec(db, *init, NULL, NULL, NULL);
	if (err == SQLITE_OK)
		err = sq3.exec(db, "COMMIT", NULL, NULL, NULL);
	/* the log stays with the file: readers never block writers after */
	if (err == SQLITE_OK)
		err = sq3.exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
	if (err != SQLITE_OK) {
		rc = db_error(s, db, err, e);
		goto out;
	}
	if ((err = sq3.close(db)) != SQLITE_OK) {
		rc = db_error(s, db, err, e);
		goto out;
	}
	db = NULL;
	if (fsync(fd) != 0 || (linkat(dirfd, tmp, dirfd, name, 0) != 0 && errno != EEXIST)) {
		err = errno;
		rc = ty_error_set(e, err == ENOSPC ? -ENOSPC : -err,
				  "cannot create database '%s': %s", s->name, strerror(err));
		goto out;
	}
	err = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (err >= 0) {
		fsync(err);
		close(err);
	}
out:
	if (db)
		sq3.close(db);
	unlink_tmp(dirfd, tmp);
	close(fd);
	free(full);
	free(tmp);
	return rc;
}

/* Refuse a symbolic link where SQLite keeps NAME's journal, log or
 * shared memory: SQLite never follows one (it opens them O_NOFOLLOW), so
 * whoever planted it gets a clear refusal rather than an I/O error. */
static int
sidecar_links(struct ty_store *s, int dirfd, const char *name, struct ty_error *e)
{
	static const char *const sfx[] = {"-journal", "-wal", "-shm"};
	char buf[PATH_MAX];
	struct stat st;
	size_t k;

	for (k = 0; k < sizeof(sfx) / sizeof(sfx[0]); k++) {
		snprintf(buf, sizeof(buf), "%s%s", name, sfx[k]);
		if (fstatat(dirfd, buf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			return ty_error_set(e, -EPERM,
					    "refusing to use database '%s': its %s file '%s%s' is "
					    "a symbolic link (owned by uid %u); SQLite's files are "
					    "never links: remove it",
					    s->name,
					    k == 0   ? "journal"
					    : k == 1 ? "log"
						     : "shared-memory",
					    s->name, sfx[k], (unsigned)st.st_uid);
	}
	return 0;
}

/* PATH as a URI that opens it immutable (malloc'd). */
static char *
immutable_uri(const char *path)
{
	char *out = malloc(strlen(path) * 3 + 32), *o = out;
	const char *p;

	if (!out)
		return NULL;
	o += sprintf(o, "file:");
	for (p = path; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '/' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z') ||
		    c == '.' || c == '-' || c == '_')
			*o++ = (char)c;
		else
			o += sprintf(o, "%%%02X", c);
	}
	strcpy(o, "?immutable=1");
	return out;
}

/* quick_check's first complaint, on one line, into CTX (256 bytes). */
static int
row_first(void *ctx, int ncols, const char *const *vals)
{
	const char *v = ncols > 0 && vals[0] ? vals[0] : "", *skip = "*** in database main ***";
	char *out = ctx, *p;

	if (strncmp(v, skip, strlen(skip)) == 0)
		v += strlen(skip);
	v += strspn(v, "\n");
	snprintf(out, 256, "%s", v);
	for (p = out; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return 0;
}

/* Open FULL (WRITE or read-only) into Q and read its first page (with
 * quick_check when CHECK): SQLITE_OK or SQLite's code, with the check's
 * complaint in BAD. */
static int
open_db(struct ty_store *s, struct sq *q, const char *full, int flags, int check, char *bad,
	struct ty_error *e)
{
	int rc = sq3.open_v2(full, &q->db, flags | SQLITE_OPEN_NOMUTEX, NULL);

	bad[0] = '\0';
	if (rc != SQLITE_OK)
		return rc;
	/* concurrent writers wait for each other's transactions */
	sq3.busy_timeout(q->db, 60000);
	sq3.extended_result_codes(q->db, 0);
	rc = sq3.exec(q->db, "PRAGMA cell_size_check = ON", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return rc;
	if (check) {
		if (sq_exec(s, "PRAGMA quick_check(1)", NULL, 0, row_first, bad, e) < 0)
			return sq3.errcode(q->db) ? sq3.errcode(q->db) : SQLITE_IOERR;
		if (strcmp(bad, "ok") == 0)
			bad[0] = '\0';
		return SQLITE_OK;
	}
	return sq_exec(s, "SELECT count(*) FROM sqlite_master", NULL, 0, NULL, NULL, e) < 0
		   ? (sq3.errcode(q->db) ? sq3.errcode(q->db) : SQLITE_IOERR)
		   : SQLITE_OK;
}

static void
close_db(struct sq *q)
{
	int k;

	for (k = 0; k < CACHE; k++)
		if (q->st[k])
			sq3.finalize(q->st[k]);
	memset(q->sql, 0, sizeof(q->sql));
	memset(q->st, 0, sizeof(q->st));
	sq3.close(q->db);
	q->db = NULL;
}

/* Whether NAME has no log with changes not yet in the file. */
static int
no_log(int dirfd, const char *name)
{
	char buf[PATH_MAX];
	struct stat st;

	snprintf(buf, sizeof(buf), "%s-wal", name);
	return fstatat(dirfd, buf, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_size == 0;
}

static int
read_only_fs(int dirfd)
{
	struct statvfs sv;

	return fstatvfs(dirfd, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

int
ty_store_sqlite_open(struct ty_store *s, const char *path, int write, const char *const *init,
		     struct ty_error *e)
{
	struct sq *q = calloc(1, sizeof(*q));
	char *name = NULL, *full = NULL, bad[256];
	size_t made = 0;
	struct stat st;
	int rc, dirfd, flags, check;

	if (sq3_load(e) < 0) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e ? e->msg : "");
		free(q);
		return ty_error_set(e, -ENOENT, "database '%s': %s", s->name, why);
	}
	if (!q)
		return ty_error_set(e, -ENOMEM, "out of memory");
	q->lockfd = -1;
	s->kind = TY_STORE_SQLITE;
	s->db = q;
	s->exec = sq_exec;
	s->reset = NULL;
	s->close = sq_close;
	dirfd = ty_outfile_resolve(path, write ? "write" : "read", &name, &st, e);
	if (dirfd == -ENOENT && write && (rc = make_parents(path, &made, e)) < 0)
		goto fail;
	if (dirfd == -ENOENT && write)
		dirfd = ty_outfile_resolve(path, "write", &name, &st, e);
	if (dirfd == -ENOENT || (dirfd >= 0 && !st.st_mode && !write)) {
		rc = ty_error_set(e, -ENOENT, "database '%s': %s", s->name, strerror(ENOENT));
		goto fail;
	}
	if ((rc = dirfd) < 0)
		goto fail;
	if (!st.st_mode) {
		if ((rc = create_new(s, dirfd, path, name, init, e)) < 0) {
			unmake_parents(path, made);
			goto fail;
		}
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			st.st_mode = 0;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = ty_error_set(e, -EINVAL, "database '%s' is not a regular file", s->name);
		goto fail;
	}
	if ((rc = sidecar_links(s, dirfd, name, e)) < 0)
		goto fail;
	/* SQLite would open it read-only and fail at the first write */
	if (write && faccessat(dirfd, name, W_OK, AT_EACCESS) != 0) {
		int err = errno;
		rc = ty_error_set(e, -EACCES, "cannot add to database '%s': %s", s->name,
				  strerror(err));
		goto fail;
	}
	/* SQLite opens the file, its journal and its log by name, with
	 * O_NOFOLLOW; given the directory's real name, SQLITE_OPEN_NOFOLLOW
	 * refuses any link in that name, one planted since the walk too. */
	flags = write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	if ((full = real_path(dirfd, name)))
		flags |= SQLITE_OPEN_NOFOLLOW;
	else if (!(full = beside(path, name))) {
		rc = ty_error_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	check = st.st_size <= QUICK_CHECK_MAX;
	rc = open_db(s, q, full, flags, check, bad, e);
	if (rc != SQLITE_OK && !write &&
	    (rc == SQLITE_CANTOPEN || rc == SQLITE_IOERR || rc == SQLITE_READONLY ||
	     rc == SQLITE_FULL) &&
	    (read_only_fs(dirfd) || no_log(dirfd, name))) {
		/* A reader that cannot make SQLite's log and shared-memory
		 * files (a read-only file system, another user's directory, a
		 * full disk) reads the file as it is, immutable, when no log
		 * holds changes not yet in it; a read lock of its own keeps the
		 * last writer to close from folding a log into it meanwhile. */
		char *uri = immutable_uri(full);
		close_db(q);
		q->lockfd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (q->lockfd >= 0) {
			struct flock fl = {.l_type = F_RDLCK,
					   .l_whence = SEEK_SET,
					   .l_start = 0x40000002,
					   .l_len = 510};
			fcntl(q->lockfd, F_SETLK, &fl);
		}
		rc =
		    uri ? open_db(s, q, uri, flags | SQLITE_OPEN_URI, check, bad, e) : SQLITE_NOMEM;
		free(uri);
	}
	if (rc != SQLITE_OK) {
		rc = db_error(s, q->db, rc, e);
		goto fail;
	}
	if (bad[0]) {
		rc = ty_error_set(e, -EINVAL,
				  "database '%s' is corrupt (SQLite's quick_check: %s): restore it "
				  "from a backup (sqlite3 '%s' .recover saves what is readable)",
				  s->name, bad, s->name);
		goto fail;
	}
	if (write && (rc = sq_exec(s, "PRAGMA synchronous = NORMAL", NULL, 0, NULL, NULL, e)) < 0)
		goto fail;
	close(dirfd);
	free(name);
	free(full);
	return 0;
fail:
	if (dirfd >= 0)
		close(dirfd);
	free(name);
	free(full);
	sq_close(s);
	return rc;
}

#else

int
ty_store_sqlite_open(struct ty_store *s, const char *path, int write, const char *const *init,
		     struct ty_error *e)
{
	(void)s;
	(void)path;
	(void)write;
	(void)init;
	return ty_error_set(e, -ENOTSUP,
			    "not built with sqlite3 (install libsqlite3-dev and rebuild)");
}

#endif
