/* cachedir.c - tachy's own cache directory: its path judged one directory
 * at a time, its files written whole with a trailer and checked on use
 * (see cachedir.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/cachedir.h"
#include "tachy/crc32.h"
#include "tachy/outfile.h"

#define MAX_LINKS 40 /* as the kernel's own limit on a path's links */

/* ---- the rule ---- */

/* Whether GID is UID's user private group (useradd's USERGROUPS_ENAB, the
 * umask 002 of Debian and Ubuntu): UID's primary group, of UID's name,
 * with no other member. Its group-write bit gives no one else a write. */
static int
private_group(uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);
	char name[256];
	struct group *gr;

	if (!pw || pw->pw_gid != gid || strlen(pw->pw_name) >= sizeof(name))
		return 0;
	strcpy(name, pw->pw_name); /* getgrgid may reuse getpwuid's buffer */
	gr = getgrgid(gid);
	return gr && strcmp(gr->gr_name, name) == 0 && (!gr->gr_mem || !gr->gr_mem[0]);
}

/* Whether someone other than its owner may add, rename or remove entries
 * of the directory ST. */
static int
open_to_others(const struct stat *st)
{
	if (st->st_mode & S_IWOTH)
		return 1;
	return (st->st_mode & S_IWGRP) && !private_group(st->st_uid, st->st_gid);
}

struct walk {
	char shown[PATH_MAX]; /* the path walked so far, for messages */
	int fd;		      /* the directory reached (O_PATH) */
	int open;	      /* it is sticky and open to others: the next entry must be ours */
	uid_t uid;
};

/* Judge the entry ST (named W->shown) reached from W's directory: owned by
 * the user or root (below a sticky directory open to others, no one else
 * can rename or remove it). */
static int
judge_owner(const struct walk *w, const struct stat *st, const char *what, struct ty_error *e)
{
	if (st->st_uid == w->uid || st->st_uid == 0)
		return 0;
	if (w->open)
		return ty_error_set(e, -EPERM,
				    "%s '%s' is owned by uid %u, in a directory open to others "
				    "(sticky): only the user's own or root's is taken there",
				    what, w->shown, (unsigned)st->st_uid);
	return ty_error_set(e, -EPERM, "%s '%s' is owned by uid %u, another user", what, w->shown,
			    (unsigned)st->st_uid);
}

/* Judge the directory ST just reached; on success W->open says whether
 * the next entry must be the user's. */
static int
judge_dir(struct walk *w, const struct stat *st, struct ty_error *e)
{
	int rc;

	if (!S_ISDIR(st->st_mode))
		return ty_error_set(e, -ENOTDIR, "'%s' is not a directory", w->shown);
	if ((rc = judge_owner(w, st, "the directory", e)) < 0)
		return rc;
	w->open = open_to_others(st);
	if (w->open && !(st->st_mode & S_ISVTX))
		return ty_error_set(e, -EPERM,
				    "the directory '%s' is writable by others (mode %04o): "
				    "anyone could replace what lies in it",
				    w->shown, (unsigned)(st->st_mode & 07777));
	return 0;
}

static void
shown_add(struct walk *w, const char *name)
{
	size_t n = strlen(w->shown);

	if (n + 1 + strlen(name) < sizeof(w->shown))
		snprintf(w->shown + n, sizeof(w->shown) - n, "%s%s",
			 n && w->shown[n - 1] == '/' ? "" : "/", name);
}

/* Start W at the root directory. */
static int
walk_root(struct walk *w, struct ty_error *e)
{
	struct stat st;

	if (w->fd >= 0)
		close(w->fd);
	strcpy(w->shown, "/");
	w->open = 0;
	if ((w->fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 || fstat(w->fd, &st) != 0)
		return ty_error_set(e, -errno, "cannot open '/': %s", strerror(errno));
	return judge_dir(w, &st, e);
}

/* Replace the link LFD (just judged) by its target in the path still to
 * walk, REST (of size SIZE), restarting W at "/" for an absolute one. */
static int
walk_link(struct walk *w, int lfd, char *rest, size_t size, struct ty_error *e)
{
	char target[PATH_MAX], *tmp;
	ssize_t n = readlinkat(lfd, "", target, sizeof(target) - 1);
	size_t left = strlen(rest);

	if (n <= 0)
		return ty_error_set(e, -EIO, "cannot read the link '%s'", w->shown);
	target[n] = '\0';
	if ((size_t)n + 1 + left + 1 > size)
		return ty_error_set(e, -ENAMETOOLONG, "'%s': the path is too long", w->shown);
	/* REST becomes TARGET/REST */
	memmove(rest + n + 1, rest, left + 1);
	memcpy(rest, target, (size_t)n);
	rest[n] = '/';
	/* the link's name leaves the path shown; its target takes its place */
	if ((tmp = strrchr(w->shown, '/')))
		tmp[tmp == w->shown ? 1 : 0] = '\0';
	return target[0] == '/' ? walk_root(w, e) : 0;
}

/* One step of the walk: W's entry NAME, a directory (made 0700 when
 * missing and CREATE) or a link to follow. 1: a link, whose target is
 * now in REST; 0: W is in NAME; negative errno. */
static int
walk_step(struct walk *w, const char *name, int create, char *rest, size_t size, struct ty_error *e)
{
	struct stat st;
	int fd, rc;

	fd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(w->fd, name, 0700) != 0 && errno != EEXIST) {
			int err = errno;
			shown_add(w, name);
			return ty_error_set(e, -err, "cannot make the directory '%s': %s", w->shown,
					    strerror(err));
		}
		fd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	shown_add(w, name);
	if (fd < 0)
		return ty_error_set(e, -errno, "'%s': %s", w->shown, strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = ty_error_set(e, -errno, "'%s': %s", w->shown, strerror(errno));
	} else if (S_ISLNK(st.st_mode)) {
		if ((rc = judge_owner(w, &st, "the symbolic link", e)) == 0 &&
		    (rc = walk_link(w, fd, rest, size, e)) == 0)
			rc = 1;
	} else {
		int was_open = w->open;
		if ((rc = judge_dir(w, &st, e)) == 0) {
			close(w->fd);
			w->fd = fd;
			return 0;
		}
		w->open = was_open;
	}
	close(fd);
	return rc;
}

/* Walk PATH under the rule; W->fd is the last directory reached. */
static int
walk(struct walk *w, const char *path, int flags, struct ty_error *e)
{
	char *rest = malloc(PATH_MAX), *p, nm[NAME_MAX + 1];
	int rc, links = 0;
	size_t n;

	w->fd = -1;
	w->uid = geteuid();
	if (!rest)
		return ty_error_set(e, -ENOMEM, "out of memory");
	rest[0] = '\0';
	if (path[0] != '/' && !getcwd(rest, PATH_MAX)) {
		int err = errno;
		free(rest);
		return ty_error_set(e, -err, "'%.64s': cannot name the current directory: %s", path,
				    strerror(err));
	}
	if (strlen(rest) + strlen(path) + 2 > PATH_MAX) {
		free(rest);
		return ty_error_set(e, -ENAMETOOLONG, "'%.64s...': the path is too long", path);
	}
	if (path[0] != '/')
		strcat(rest, "/");
	strcat(rest, path);
	rc = walk_root(w, e);
	while (rc >= 0) {
		for (p = rest; *p == '/'; p++)
			;
		if (!*p)
			break;
		if ((n = strcspn(p, "/")) > NAME_MAX) {
			rc = ty_error_set(e, -ENAMETOOLONG, "'%s': a name in it is too long", path);
			break;
		}
		memcpy(nm, p, n);
		nm[n] = '\0';
		/* what is left moves to the buffer's start: a link's target goes before it */
		memmove(rest, p + n, strlen(p + n) + 1);
		if (strcmp(nm, ".") == 0)
			continue;
		rc = walk_step(w, nm, flags & TY_CACHEDIR_CREATE, rest, PATH_MAX, e);
		if (rc == 1 && ++links > MAX_LINKS)
			rc = ty_error_set(e, -ELOOP, "'%s': too many symbolic links", path);
	}
	free(rest);
	if (rc >= 0 && (flags & TY_CACHEDIR_OURS)) {
		struct stat st;
		if (fstat(w->fd, &st) != 0)
			rc = ty_error_set(e, -errno, "'%s': %s", w->shown, strerror(errno));
		else if (st.st_uid != w->uid || w->open)
			rc = ty_error_set(e, -EPERM,
					  "the directory '%s' is not the user's own (uid %u, mode "
					  "%04o)",
					  w->shown, (unsigned)st.st_uid,
					  (unsigned)(st.st_mode & 07777));
	}
	if (rc < 0 && w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
	return rc < 0 ? rc : 0;
}

int
ty_cachedir_walk(const char *dir, int flags, struct ty_error *e)
{
	struct walk w;
	int rc;

	if (!dir || !*dir)
		return ty_error_set(e, -EINVAL, "no directory given");
	rc = walk(&w, dir, flags, e);
	return rc < 0 ? rc : w.fd;
}

int
ty_cachedir_check_file(const char *path, struct ty_error *e)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char dir[PATH_MAX];
	struct walk w;
	struct stat st;
	int rc;

	if (!path || !*path || (slash && !slash[1]))
		return ty_error_set(e, -EINVAL, "'%s' names no file", path ? path : "");
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return ty_error_set(e, -ENAMETOOLONG, "'%.64s...': the path is too long", path);
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if ((rc = walk(&w, dir, 0, e)) < 0)
		return rc == -ENOENT ? 0 : rc; /* what is missing will be the user's */
	/* in a directory open to others (sticky), the file must be ours */
	rc = 0;
	if (w.open && fstatat(w.fd, slash ? slash + 1 : path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_uid != w.uid)
		rc = ty_error_set(e, -EPERM,
				  "'%s' is owned by uid %u, in a directory open to others (sticky)",
				  path, (unsigned)st.st_uid);
	close(w.fd);
	return rc;
}

int
ty_cachedir_open(const char *dir, int create)
{
	int fd;

	if (!dir || !*dir)
		return -1;
	fd = ty_cachedir_walk(dir, TY_CACHEDIR_OURS | (create ? TY_CACHEDIR_CREATE : 0), NULL);
	return fd < 0 ? -1 : fd;
}

/* ---- files with a trailer ---- */

struct trailer {
	char magic[8];	  /* TRAILER_MAGIC */
	uint64_t size;	  /* of what precedes the trailer */
	uint32_t crc;	  /* its CRC-32 (crc32.h) */
	uint32_t version; /* 1 */
};

#define TRAILER_MAGIC "tachy\x00c\x01"

_Static_assert(sizeof(struct trailer) == TY_CACHEDIR_TRAILER, "trailer layout");

void
ty_cachedir_trailer(const void *buf, size_t len, unsigned char out[TY_CACHEDIR_TRAILER])
{
	struct trailer t = {.size = len, .crc = ty_crc32(0, buf, len), .version = 1};

	memcpy(t.magic, TRAILER_MAGIC, sizeof(t.magic));
	memcpy(out, &t, sizeof(t));
}

/* The notes of damaged files removed (process-wide, as the cache is). */
static char **notes;
static size_t nnotes, capnotes;

static void
note(int dfd, const char *name, const char *why)
{
	char link[64], dir[PATH_MAX], *msg;
	ssize_t n;
	size_t i, len;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
	n = readlink(link, dir, sizeof(dir) - 1);
	dir[n > 0 ? n : 0] = '\0';
	len = strlen(dir) + strlen(name) + strlen(why) + 64;
	if (!(msg = malloc(len)))
		return;
	snprintf(msg, len, "the cache file '%s%s%s' was %s: removed, and made again", dir,
		 *dir ? "/" : "", name, why);
	for (i = 0; i < nnotes; i++)
		if (strcmp(notes[i], msg) == 0)
			break;
	if (i < nnotes || ty_array_grow(&notes, sizeof(*notes), nnotes + 1, &capnotes) < 0) {
		free(msg);
		return;
	}
	notes[nnotes++] = msg;
}

const char *
ty_cachedir_note(size_t i)
{
	return i < nnotes ? notes[i] : NULL;
}

void
ty_cachedir_notes_clear(void)
{
	size_t i;

	for (i = 0; i < nnotes; i++)
		free(notes[i]);
	free(notes);
	notes = NULL;
	nnotes = capnotes = 0;
}

int
ty_cachedir_verify(int fd, size_t *size, char *why, size_t whysize)
{
	unsigned char buf[65536];
	struct stat st;
	struct trailer t;
	size_t len, done = 0;
	uint32_t crc = 0;

	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(t)) {
		snprintf(why, whysize, "cut short (%lld bytes, no trailer)", (long long)st.st_size);
		return -EBADMSG;
	}
	len = (size_t)st.st_size - sizeof(t);
	if (pread(fd, &t, sizeof(t), (off_t)len) != (ssize_t)sizeof(t) ||
	    memcmp(t.magic, TRAILER_MAGIC, sizeof(t.magic)) != 0 || t.version != 1) {
		snprintf(why, whysize,
			 "cut short, or written by an older tachy (%lld bytes, no trailer)",
			 (long long)st.st_size);
		return -EBADMSG;
	}
	if (t.size != len) {
		snprintf(why, whysize, "cut short or grown (%zu bytes, its trailer says %llu)", len,
			 (unsigned long long)t.size);
		return -EBADMSG;
	}
	/* read, not mapped: a page of a mapping costs a fault the first time
	 * it is touched, more than the copy on a VM */
	while (done < len) {
		ssize_t n = pread(fd, buf, len - done < sizeof(buf) ? len - done : sizeof(buf),
				  (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			snprintf(why, whysize, "cut short while read");
			return -EBADMSG;
		}
		crc = ty_crc32(crc, buf, (size_t)n);
		done += (size_t)n;
	}
	if (crc != t.crc) {
		snprintf(why, whysize, "altered (its CRC-32 does not match its trailer's)");
		return -EBADMSG;
	}
	*size = len;
	return 0;
}

int
ty_cachedir_openat(int dfd, const char *name, size_t *size)
{
	struct stat st;
	char why[128];
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		close(fd);
		return -1;
	}
	if ((rc = ty_cachedir_verify(fd, size, why, sizeof(why))) < 0) {
		close(fd);
		/* ours, in our own directory: it goes, and the caller makes it again */
		if (rc == -EBADMSG && unlinkat(dfd, name, 0) == 0)
			note(dfd, name, why);
		return -1;
	}
	return fd;
}

static int
write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Append the trailer to DFD's file TMP (as written whole). */
static int
seal(int dfd, const char *tmp)
{
	int fd = openat(dfd, tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC), ok = 0;
	unsigned char tr[TY_CACHEDIR_TRAILER];
	struct stat st;
	void *map = NULL;
	size_t len = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		len = (size_t)st.st_size;
		map = len ? mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0) : NULL;
		if (map != MAP_FAILED) {
			ty_cachedir_trailer(map, len, tr);
			ok = lseek(fd, 0, SEEK_END) == (off_t)len &&
			     write_all(fd, (char *)tr, sizeof(tr)) == 0;
			if (map)
				munmap(map, len);
		}
	}
	if (close(fd) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

int
ty_cachedir_commit(int dfd, const char *tmp, const char *name, int ok)
{
	if (ok && seal(dfd, tmp) == 0 && renameat(dfd, tmp, dfd, name) == 0)
		return 0;
	unlinkat(dfd, tmp, 0);
	return -1;
}

int
ty_cachedir_tmp(int dfd, const char *name, const void *buf, size_t len, char **tmp)
{
	int fd = ty_outfile_tmpat(dfd, name, 0600, tmp), ok;

	if (fd < 0)
		return -1;
	ok = fchmod(fd, 0600) == 0 && write_all(fd, buf, len) == 0;
	if (close(fd) != 0)
		ok = 0;
	if (!ok) {
		unlinkat(dfd, *tmp, 0);
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	return 0;
}

int
ty_cachedir_put(int dfd, const char *name, const void *buf, size_t len)
{
	char *tmp = NULL;
	int ret = -1;

	if (ty_cachedir_tmp(dfd, name, buf, len, &tmp) == 0)
		ret = ty_cachedir_commit(dfd, tmp, name, 1);
	free(tmp);
	return ret;
}
