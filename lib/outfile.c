/* outfile.c - file output written whole or not at all.
 *
 * A regular file (or a name that does not exist yet) is written to a
 * temporary file beside it (an O_TMPFILE where the file system has them,
 * else ".NAME.tachy-XXXXXX"), then fsynced and renamed over it, so a full
 * disk or an interruption leaves the old file intact. A symbolic link is
 * followed, and the file is made beside its target, so the link stays a
 * link. Anything else that exists (a device such as /dev/null, a FIFO, a
 * socket, /dev/stdout, /dev/fd/N) cannot be replaced and is not: it is
 * opened and written in place.
 *
 * The name is walked one component at a time with O_PATH descriptors, so
 * what is checked is what is used: a symbolic link is looked at through a
 * descriptor of the link itself, the temporary file is made and renamed
 * relative to the descriptor of its directory. A link owned by another
 * user in a sticky or world-writable directory (someone else's trap in
 * /tmp) is refused, whatever fs.protected_symlinks says. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "tachy/outfile.h"

/* The stream writes through here, so the reason of a failed write (ENOSPC,
 * EDQUOT, EPIPE...) is kept exactly rather than read from a stale errno. */
static ssize_t
cookie_write(void *cookie, const char *buf, size_t n)
{
	struct ty_outfile *of = cookie;
	size_t done = 0;
	ssize_t w;

	while (done < n) {
		w = write(of->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!of->werr)
				of->werr = w < 0 ? errno : EIO;
			return (ssize_t)done; /* 0 on error: never negative (fopencookie(3)) */
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int
cookie_close(void *cookie)
{
	struct ty_outfile *of = cookie;
	int rc = close(of->fd);

	if (rc != 0 && !of->werr)
		of->werr = errno;
	of->fd = -1;
	return rc;
}

/* Put a stream over FD (owned from now on). Returns 0 or -ENOMEM. */
static int
attach_stream(struct ty_outfile *of, int fd)
{
	cookie_io_functions_t io = {.write = cookie_write, .close = cookie_close};

	of->fd = fd;
	of->fp = fopencookie(of, "w", io);
	if (!of->fp) {
		close(fd);
		of->fd = -1;
		return -ENOMEM;
	}
	return 0;
}

#define MAX_LINKS 40		 /* as the kernel's MAXSYMLINKS */
#define PROC_SUPER_MAGIC_ 0x9fa0 /* linux/magic.h */

/* Whether the link LST in the directory DST may be followed: the rule of
 * the kernel's may_follow_link (a link in a sticky world-writable
 * directory is followed only by its owner, or when the directory's owner
 * owns it too), for sticky or world-writable directories alike. */
static int
link_trusted(const struct stat *dst, const struct stat *lst)
{
	if (!(dst->st_mode & (S_ISVTX | S_IWOTH)))
		return 1;
	return lst->st_uid == geteuid() || lst->st_uid == dst->st_uid;
}

static char *
join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s%s", dir, *dir && dir[strlen(dir) - 1] != '/' ? "/" : "", name);
	return s;
}

/* Where a walk ends: the last component NAME in the directory DFD. */
struct spot {
	int dfd;
	char *name;	/* NULL when the walk wanted the directory itself */
	struct stat st; /* NAME, not followed, when EXISTS */
	int exists;
	int fd; /* NAME opened for writing through a /proc magic link, else -1 */
};

struct walker {
	const char *path; /* as given, for messages */
	const char *verb; /* "write", "use" */
	char *rest;	  /* what is left to walk (owned) */
	char *shown;	  /* the directory walked so far, for messages (owned) */
	int dfd;
	int links;
};

static int
walk_fail(struct walker *w, int err, struct ty_error *e)
{
	ty_error_set(e, -err, "cannot %s '%s': %s", w->verb, w->path, strerror(err));
	return -err;
}

/* What the user can do about ERR met in a directory. */
static const char *
dir_fix(int err)
{
	switch (err) {
	case ENOENT:
		return " (create it first, or write elsewhere)";
	case EACCES:
	case EPERM:
		return " (fix its permissions, or write elsewhere)";
	case EROFS:
		return " (write elsewhere)";
	default:
		return "";
	}
}

/* A failure in the directory DIR (NULL: W's) on the way to W->path, named
 * as such: "no such directory" says more than the file's ENOENT. */
static int
walk_fail_dir(struct walker *w, const char *dir, int err, struct ty_error *e)
{
	const char *d = dir ? dir : w->shown;

	if (err == ENOENT)
		ty_error_set(e, -err, "cannot %s '%s': the directory '%s' does not exist%s",
			     w->verb, w->path, d, dir_fix(err));
	else if (err == ENOTDIR)
		ty_error_set(e, -err, "cannot %s '%s': '%s' is not a directory", w->verb, w->path,
			     d);
	else if (err == EACCES)
		ty_error_set(e, -err, "cannot %s '%s': the directory '%s' cannot be searched: %s%s",
			     w->verb, w->path, d, strerror(err), dir_fix(err));
	else
		ty_error_set(e, -err, "cannot %s '%s': the directory '%s': %s%s", w->verb, w->path,
			     d, strerror(err), dir_fix(err));
	return -err;
}

static int
on_procfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC_;
}

/* Refuse the link LST, named NAME in W->dfd, when it is not to be followed. */
static int
walk_link_check(struct walker *w, const struct stat *lst, const char *name, struct ty_error *e)
{
	struct stat dst;
	char *at;

	if (fstat(w->dfd, &dst) != 0)
		return walk_fail(w, errno, e);
	if (link_trusted(&dst, lst))
		return 0;
	at = join(w->shown, name);
	ty_error_set(e, -EPERM,
		     "refusing to %s '%s': '%s' is a symbolic link owned by another user "
		     "(uid %u) in the %s directory '%s'",
		     w->verb, w->path, at ? at : name, (unsigned)lst->st_uid,
		     dst.st_mode & S_ISVTX ? "sticky" : "world-writable", w->shown);
	free(at);
	return -EPERM;
}

/* The link LFD (named NAME in W->dfd): refuse it when untrusted, else put
 * its target in front of what is left to walk, from P. */
static int
walk_link(struct walker *w, int lfd, const struct stat *lst, const char *name, const char *p,
	  struct ty_error *e)
{
	char target[PATH_MAX], *rest;
	ssize_t n;
	size_t len;

	int rc = walk_link_check(w, lst, name, e);

	if (rc < 0)
		return rc;
	if (++w->links > MAX_LINKS)
		return walk_fail(w, ELOOP, e);
	n = readlinkat(lfd, "", target, sizeof(target));
	if (n < 0)
		return walk_fail(w, errno, e);
	if ((size_t)n >= sizeof(target) || n == 0)
		return walk_fail(w, n ? ENAMETOOLONG : ENOENT, e);
	target[n] = '\0';
	len = (size_t)n + strlen(p) + 2;
	if (!(rest = malloc(len)))
		return walk_fail(w, ENOMEM, e);
	snprintf(rest, len, "%s%s%s", target, *p ? "/" : "", p);
	free(w->rest);
	w->rest = rest;
	if (target[0] == '/') {
		close(w->dfd);
		free(w->shown);
		w->shown = strdup("/");
		if ((w->dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return walk_fail(w, errno, e);
	}
	return 0;
}

/* Step into the directory NFD, named NAME. */
static int
walk_into(struct walker *w, int nfd, const char *name, struct ty_error *e)
{
	char *shown = strcmp(w->shown, ".") == 0 ? strdup(name) : join(w->shown, name);

	if (!shown)
		return close(nfd), walk_fail(w, ENOMEM, e);
	free(w->shown);
	w->shown = shown;
	close(w->dfd);
	w->dfd = nfd;
	return 0;
}

/* Walk PATH to its last component (or, with WANT_DIR 1, to the directory it
 * names; with 2, to a last component that no /proc magic link may stand
 * for) into SP. Returns 0 or a negative errno with E filled. */
static int
walk(const char *path, const char *verb, int want_dir, struct spot *sp, struct ty_error *e)
{
	int name_only = want_dir == 2;

	struct walker w = {.path = path, .verb = verb};
	struct stat st;
	char *p, *end, *q, *name;
	int nfd, last, rc = 0;

	memset(sp, 0, sizeof(*sp));
	sp->dfd = sp->fd = -1;
	if (name_only)
		want_dir = 0;
	if (!*path)
		return walk_fail(&w, ENOENT, e);
	w.rest = strdup(path);
	w.shown = strdup(*path == '/' ? "/" : ".");
	w.dfd = open(*path == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!w.rest || !w.shown)
		rc = walk_fail(&w, ENOMEM, e);
	else if (w.dfd < 0)
		rc = walk_fail(&w, errno, e);
	for (p = w.rest; rc == 0;) {
		while (*p == '/')
			p++;
		if (!*p) { /* "/", or a name ending in '/': the directory itself */
			if (!want_dir)
				rc = walk_fail(&w, EISDIR, e);
			break;
		}
		end = strchrnul(p, '/');
		for (q = end; *q == '/'; q++)
			;
		last = !*q && !*end && !want_dir;
		if (*end)
			*end = '\0';
		name = p;
		p = q;
		if (last && (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)) {
			rc = walk_fail(&w, EISDIR, e);
			break;
		}
		if (strcmp(name, ".") == 0)
			continue;
		nfd = openat(w.dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && last && errno == ENOENT) {
			sp->name = strdup(name);
			break;
		}
		if (nfd < 0 && (errno == EACCES || (!last && errno == ENOENT))) {
			/* the directory W.shown may not be searched, or the
			 * directory NAME in it is missing */
			int err = errno;
			char *at = err != ENOENT	       ? NULL
				   : strcmp(w.shown, ".") == 0 ? strdup(name)
							       : join(w.shown, name);

			rc = walk_fail_dir(&w, at, err, e);
			free(at);
			break;
		}
		if (nfd < 0 || fstat(nfd, &st) != 0) {
			rc = walk_fail(&w, errno, e);
			if (nfd >= 0)
				close(nfd);
			break;
		}
		if (S_ISLNK(st.st_mode) && last && name_only && on_procfs(w.dfd)) {
			close(nfd);
			rc = walk_fail(&w, EINVAL, e);
			break;
		}
		if (S_ISLNK(st.st_mode) && last && on_procfs(w.dfd)) {
			/* /dev/stdout, /dev/fd/N: a /proc magic link names no
			 * path to walk; what it stands for is written in place. */
			rc = walk_link_check(&w, &st, name, e);
			close(nfd);
			if (rc == 0 &&
			    (sp->fd = openat(w.dfd, name,
					     O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC)) < 0)
				rc = walk_fail(&w, errno, e);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			rc = walk_link(&w, nfd, &st, name, p, e);
			close(nfd);
			p = w.rest;
			continue;
		}
		if (!last) {
			if (!S_ISDIR(st.st_mode)) {
				char *at =
				    strcmp(w.shown, ".") == 0 ? strdup(name) : join(w.shown, name);

				close(nfd);
				rc = walk_fail_dir(&w, at, ENOTDIR, e);
				free(at);
				break;
			}
			rc = walk_into(&w, nfd, name, e);
			continue;
		}
		close(nfd);
		if (S_ISDIR(st.st_mode)) {
			rc = walk_fail(&w, EISDIR, e);
			break;
		}
		sp->name = strdup(name);
		sp->st = st;
		sp->exists = 1;
		break;
	}
	if (rc == 0 && !want_dir && !sp->name && sp->fd < 0)
		rc = walk_fail(&w, ENOMEM, e);
	free(w.rest);
	free(w.shown);
	if (rc < 0) {
		if (w.dfd >= 0)
			close(w.dfd);
		free(sp->name);
		sp->name = NULL;
		return rc;
	}
	sp->dfd = w.dfd;
	return 0;
}
/* Six characters no other run picks: getrandom, else the clock. */
static void
tmp_suffix(char out[7])
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	struct timespec ts;
	uint64_t x;
	int i;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)getpid() << 20 ^
		    (uint64_t)(uintptr_t)r;
		for (i = 0; i < 6; i++, x >>= 8)
			r[i] = (unsigned char)x;
	}
	for (i = 0; i < 6; i++)
		out[i] = abc[r[i] % (sizeof(abc) - 1)];
	out[6] = '\0';
}

static char *
tmp_name(const char *name)
{
	size_t n = strlen(name) + sizeof(".tachy-XXXXXX") + 1;
	char *s = malloc(n), sfx[7];

	if (s) {
		tmp_suffix(sfx);
		snprintf(s, n, ".%s.tachy-%s", name, sfx);
	}
	return s;
}

int
ty_outfile_tmpat(int dirfd, const char *name, mode_t mode, char **tmp)
{
	int fd, tries;

	for (tries = 0; tries < 100; tries++) {
		if (!(*tmp = tmp_name(name)))
			return -ENOMEM;
		fd =
		    openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		free(*tmp);
		*tmp = NULL;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int
ty_outfile_is_tmp(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '.' && n > 14 && strncmp(name + n - 13, ".tachy-", 7) == 0;
}

int
ty_outfile_resolve(const char *path, const char *verb, char **name, struct stat *st,
		   struct ty_error *e)
{
	struct spot sp;
	int rc = walk(path, verb, 2, &sp, e);

	if (rc < 0)
		return rc;
	*name = sp.name;
	memset(st, 0, sizeof(*st));
	if (sp.exists)
		*st = sp.st;
	return sp.dfd;
}

int
ty_outfile_open_dir(const char *dir, struct ty_error *e)
{
	struct spot sp;
	int rc = walk(dir, "use", 1, &sp, e);

	return rc < 0 ? rc : sp.dfd;
}

static int
out_of_memory(struct ty_outfile *of, const char *path, struct ty_error *e)
{
	ty_outfile_abort(of);
	return ty_error_set(e, -ENOMEM, "cannot write '%s': out of memory", path);
}

static int
fail(struct ty_outfile *of, const char *path, int err, struct ty_error *e)
{
	ty_outfile_abort(of);
	return ty_error_set(e, -err, "cannot write '%s': %s", path, strerror(err));
}

/* No new file could be made beside PATH (its replacement is written
 * there first, then renamed): the directory is what refused. */
static int
fail_create(struct ty_outfile *of, const char *path, int err, struct ty_error *e)
{
	const char *slash = strrchr(path, '/');
	int n = slash ? (int)(slash - path) : 1;

	if (slash == path)
		n = 1;
	ty_outfile_abort(of);
	return ty_error_set(e, -err,
			    "cannot write '%s': cannot create a file in the directory '%.*s': %s%s",
			    path, n, slash ? path : ".", strerror(err), dir_fix(err));
}

/* An existing device, FIFO or socket SP->name: opened and written in
 * place (not followed, and checked to be what the walk saw). */
static int
open_in_place(struct ty_outfile *of, const char *path, struct spot *sp, struct ty_error *e)
{
	struct stat st;
	int fd = openat(sp->dfd, sp->name, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return fail(of, path, errno, e);
	if (fstat(fd, &st) != 0 || st.st_dev != sp->st.st_dev || st.st_ino != sp->st.st_ino) {
		close(fd);
		return fail(of, path, EAGAIN, e);
	}
	free(sp->name);
	sp->name = NULL;
	return attach_stream(of, fd) < 0 ? out_of_memory(of, path, e) : 0;
}

/* A nameless temporary file in DIRFD, when the file system makes them and
 * /proc can link them at commit (else -1: a named one is made). */
static int
open_anon(int dirfd)
{
	int fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);

	if (fd >= 0 && access("/proc/self/fd", X_OK) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The descriptor N of /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
 * else -1. Written through a duplicate, as a shell does for these names,
 * the output shares the offset of what tachy prints there (a new open
 * of the file would write from its start, over it). */
static int
own_fd(const char *path)
{
	const char *n = NULL;
	char *end;
	long fd;

	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	if (strncmp(path, "/dev/fd/", 8) == 0)
		n = path + 8;
	else if (strncmp(path, "/proc/self/fd/", 14) == 0)
		n = path + 14;
	if (!n || *n < '0' || *n > '9')
		return -1;
	errno = 0;
	fd = strtol(n, &end, 10);
	return *end || errno || fd > INT_MAX ? -1 : (int)fd;
}

int
ty_outfile_open(struct ty_outfile *of, const char *path, struct ty_error *e)
{
	struct spot sp;
	int fd, rc;

	memset(of, 0, sizeof(*of));
	of->fd = of->dirfd = -1;
	if (strcmp(path, "-") == 0) {
		of->fp = stdout;
		of->is_stdout = 1;
		return 0;
	}
	if (!(of->path = strdup(path)))
		return out_of_memory(of, path, e);
	if ((fd = own_fd(path)) >= 0 && fcntl(fd, F_GETFL) >= 0) {
		if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return fail(of, path, errno, e);
		return attach_stream(of, fd) < 0 ? out_of_memory(of, path, e) : 0;
	}
	if ((rc = walk(path, "write", 0, &sp, e)) < 0) {
		ty_outfile_abort(of);
		return rc;
	}
	of->dirfd = sp.dfd;
	if (sp.fd >= 0)
		return attach_stream(of, sp.fd) < 0 ? out_of_memory(of, path, e) : 0;
	if (sp.exists && !S_ISREG(sp.st.st_mode)) {
		rc = open_in_place(of, path, &sp, e);
		free(sp.name);
		return rc;
	}
	of->name = sp.name;
	/* The kernel takes the umask off 0666 (or applies the directory's
	 * default ACL) as for any new file; a file of ours that is replaced
	 * keeps its mode. Another user's file does not lend us its mode: a
	 * world-writable one planted in /tmp would stay editable. */
	if ((fd = open_anon(of->dirfd)) >= 0)
		of->anon = 1;
	else if ((fd = ty_outfile_tmpat(of->dirfd, of->name, 0666, &of->tmp)) < 0)
		return fd == -EACCES || fd == -EPERM || fd == -EROFS ? fail_create(of, path, -fd, e)
								     : fail(of, path, -fd, e);
	if (sp.exists && sp.st.st_uid == geteuid() && fchmod(fd, sp.st.st_mode & 07777) != 0) {
		rc = errno;
		close(fd);
		return fail(of, path, rc, e);
	}
	return attach_stream(of, fd) < 0 ? out_of_memory(of, path, e) : 0;
}

/* Give the O_TMPFILE a temporary name, to be renamed over the destination. */
static int
link_anon(struct ty_outfile *of)
{
	char proc[64];
	int tries, rc;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", of->fd);
	for (tries = 0; tries < 100; tries++) {
		if (!(of->tmp = tmp_name(of->name)))
			return ENOMEM;
		rc = linkat(AT_FDCWD, proc, of->dirfd, of->tmp, AT_SYMLINK_FOLLOW);
		if (rc == 0)
			return 0;
		rc = errno;
		free(of->tmp);
		of->tmp = NULL;
		if (rc != EEXIST)
			return rc;
	}
	return EEXIST;
}

int
ty_outfile_commit(struct ty_outfile *of, struct ty_error *e)
{
	const char *name = of->path ? of->path : "standard output";
	int err = 0;

	if (!of->fp)
		return ty_error_set(e, -EBADF, "cannot write '%s': not open", name);
	if (of->is_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			err = errno ? errno : EIO;
		of->fp = NULL;
		if (err)
			return ty_error_set(e, -err, "cannot write to standard output: %s",
					    strerror(err));
		return 0;
	}
	if ((fflush(of->fp) != 0 || ferror(of->fp)) && !of->werr)
		of->werr = EIO;
	/* fsync matters for the renamed file; devices and pipes may refuse it. */
	if (!of->werr && of->name && fsync(of->fd) != 0 && errno != EINVAL)
		of->werr = errno;
	if (!of->werr && of->anon)
		of->werr = link_anon(of);
	if (fclose(of->fp) != 0 && !of->werr)
		of->werr = EIO;
	of->fp = NULL;
	err = of->werr;
	if (!err && of->tmp && renameat(of->dirfd, of->tmp, of->dirfd, of->name) != 0)
		err = errno;
	if (err) {
		ty_error_set(e, -err, "cannot write '%s': %s", name, strerror(err));
		ty_outfile_abort(of);
		return -err;
	}
	free(of->tmp);
	of->tmp = NULL;
	ty_outfile_abort(of);
	return 0;
}

void
ty_outfile_abort(struct ty_outfile *of)
{
	if (of->fp && !of->is_stdout)
		fclose(of->fp); /* closes the descriptor too */
	of->fp = NULL;
	of->fd = -1;
	if (of->tmp && of->dirfd >= 0)
		unlinkat(of->dirfd, of->tmp, 0);
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	free(of->tmp);
	free(of->path);
	free(of->name);
	of->tmp = of->path = of->name = NULL;
}
