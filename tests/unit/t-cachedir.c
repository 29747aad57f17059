/* t-cachedir.c - the rule for the paths of tachy's own files (another
 * user's directory, one writable by others, a sticky one, links swapped
 * in) and the cache files' trailer (good, cut short, altered). Parts that
 * need another owner run as root only, and say so. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tachy/cachedir.h"

static char top[] = "/tmp/t-cachedir-XXXXXX";

static const char *
at(const char *rel)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, rel);
	return buf[k];
}

/* ty_cachedir_walk's result for REL with FLAGS; E's message in *MSG. */
static int
walk(const char *rel, int flags, struct ty_error *e)
{
	int fd = ty_cachedir_walk(at(rel), flags, e);

	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : fd;
}

static int
isdir(const char *rel)
{
	struct stat st;
	return lstat(at(rel), &st) == 0 && S_ISDIR(st.st_mode);
}

static void
test_made(void)
{
	struct ty_error e = {0};
	struct stat st;

	CHECK_INT(walk("a/b/c", TY_CACHEDIR_OURS, &e), -ENOENT); /* judged, not made */
	CHECK(!isdir("a"));
	CHECK_INT(walk("a/b/c", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), 0);
	CHECK(stat(at("a/b/c"), &st) == 0 && (st.st_mode & 0777) == 0700 && st.st_uid == geteuid());
	CHECK_INT(walk("a/./b/../b/c/", TY_CACHEDIR_OURS, &e), 0);
	CHECK_INT(ty_cachedir_walk("", 0, &e), -EINVAL);
	{ /* a relative path: from the current directory's absolute one */
		char cwd[512];
		int fd;
		if (CHECK(getcwd(cwd, sizeof(cwd)) != NULL) && CHECK(chdir(top) == 0)) {
			fd = ty_cachedir_walk("a/b/c", TY_CACHEDIR_OURS, &e);
			CHECK(fd >= 0);
			if (fd >= 0)
				close(fd);
			CHECK(chdir(cwd) == 0);
		}
	}
	/* a file where a directory should be */
	CHECK(close(open(at("a/file"), O_CREAT | O_WRONLY, 0600)) == 0);
	CHECK_INT(walk("a/file/x", TY_CACHEDIR_CREATE, &e), -ENOTDIR);
	CHECK(strstr(e.msg, "a/file' is not a directory") != NULL);
}

static void
test_open_to_others(void)
{
	struct ty_error e = {0};

	CHECK_INT(mkdir(at("w"), 0700), 0);
	CHECK_INT(chmod(at("w"), 0777), 0); /* world-writable, not sticky */
	CHECK_INT(walk("w/c", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), -EPERM);
	CHECK(strstr(e.msg, "/w' is writable by others (mode 0777)") != NULL);
	CHECK(!isdir("w/c")); /* nothing made there */
	CHECK_INT(chmod(at("w"), 0757), 0);
	CHECK_INT(walk("w/c", TY_CACHEDIR_CREATE, &e), -EPERM);
	CHECK_INT(chmod(at("w"), 0755), 0);
	CHECK_INT(walk("w/c", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), 0);
	/* the cache directory itself open to others: not ours to trust */
	CHECK_INT(chmod(at("w/c"), 0707), 0);
	CHECK_INT(walk("w/c", TY_CACHEDIR_OURS, &e), -EPERM);
	CHECK_INT(chmod(at("w/c"), 0700), 0);
	if (geteuid() != 0) {
		printf("# skip: a group that is not the user's own needs root (chgrp)\n");
		return;
	}
	/* group-writable, by a group others may be in (nogroup): refused; the
	 * user private group of Debian's umask 002 (root's own here): taken */
	CHECK_INT(chown(at("w"), 0, 65534), 0);
	CHECK_INT(chmod(at("w"), 0775), 0);
	CHECK_INT(walk("w/c", TY_CACHEDIR_OURS, &e), -EPERM);
	CHECK(strstr(e.msg, "writable by others (mode 0775)") != NULL);
	CHECK_INT(chown(at("w"), 0, 0), 0);
	CHECK_INT(walk("w/c", TY_CACHEDIR_OURS, &e), 0);
	CHECK_INT(chmod(at("w"), 0755), 0);
}

static void
test_other_owner(void)
{
	struct ty_error e = {0};

	if (geteuid() != 0) {
		printf("# skip: a directory of another user's needs root (chown)\n");
		return;
	}
	CHECK_INT(mkdir(at("nob"), 0755), 0);
	CHECK_INT(chown(at("nob"), 65534, 65534), 0);
	CHECK_INT(walk("nob/cache", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), -EPERM);
	CHECK(strstr(e.msg, "/nob' is owned by uid 65534, another user") != NULL);
	CHECK(!isdir("nob/cache")); /* root made nothing in it */
	/* the cache directory itself another user's */
	CHECK_INT(mkdir(at("mine"), 0700), 0);
	CHECK_INT(mkdir(at("mine/c"), 0700), 0);
	CHECK_INT(chown(at("mine/c"), 65534, 65534), 0);
	CHECK_INT(walk("mine/c", TY_CACHEDIR_OURS, &e), -EPERM);
	CHECK_INT(walk("mine/c/debug", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), -EPERM);
	CHECK(!isdir("mine/c/debug"));
	/* a database's file: the same rule for its directories */
	CHECK_INT(ty_cachedir_check_file(at("nob/h.db"), &e), -EPERM);
	CHECK_INT(ty_cachedir_check_file(at("nob/x/y/h.db"), &e), -EPERM);
	CHECK_INT(ty_cachedir_check_file(at("mine/new/h.db"), &e), 0); /* made, it will be ours */
}

static void
test_sticky(void)
{
	struct ty_error e = {0};

	CHECK_INT(mkdir(at("tmp"), 0700), 0);
	CHECK_INT(chmod(at("tmp"), 01777), 0);
	CHECK_INT(walk("tmp", TY_CACHEDIR_OURS, &e), -EPERM); /* /tmp itself: no cache */
	CHECK_INT(walk("tmp/c/d", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), 0);
	CHECK(isdir("tmp/c/d"));
	CHECK_INT(ty_cachedir_check_file(at("tmp/h.db"), &e), 0); /* missing: ours when made */
	CHECK(close(open(at("tmp/h.db"), O_CREAT | O_WRONLY, 0600)) == 0);
	CHECK_INT(ty_cachedir_check_file(at("tmp/h.db"), &e), 0);
	if (geteuid() != 0) {
		printf("# skip: another user's entry in a sticky directory needs root\n");
		return;
	}
	/* below a sticky directory only the user's own entry or root's is taken:
	 * another user's is theirs to rename and swap */
	CHECK_INT(mkdir(at("tmp/n"), 0755), 0);
	CHECK_INT(chown(at("tmp/n"), 65534, 65534), 0);
	CHECK_INT(walk("tmp/n/c", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), -EPERM);
	CHECK(strstr(e.msg, "/tmp/n' is owned by uid 65534, in a directory open to others") !=
	      NULL);
	CHECK(!isdir("tmp/n/c"));
	CHECK_INT(chown(at("tmp/h.db"), 65534, 65534), 0);
	CHECK_INT(ty_cachedir_check_file(at("tmp/h.db"), &e), -EPERM);
	CHECK(strstr(e.msg, "h.db' is owned by uid 65534") != NULL);
}

static void
test_links(void)
{
	struct ty_error e = {0};
	struct stat a, b;
	int fd;

	CHECK_INT(mkdir(at("l"), 0700), 0);
	CHECK_INT(mkdir(at("l/target"), 0700), 0);
	CHECK_INT(symlink("target", at("l/rel")), 0);
	CHECK_INT(symlink(at("l/target"), at("l/abs")), 0);
	/* the user's own links are followed, their targets judged alike */
	fd = ty_cachedir_walk(at("l/rel"), TY_CACHEDIR_OURS, &e);
	CHECK(fd >= 0 && fstat(fd, &a) == 0 && stat(at("l/target"), &b) == 0 &&
	      a.st_ino == b.st_ino);
	if (fd >= 0)
		close(fd);
	CHECK_INT(walk("l/abs/sub", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), 0);
	CHECK(isdir("l/target/sub"));
	CHECK_INT(symlink("loop", at("l/loop")), 0);
	CHECK_INT(walk("l/loop", 0, &e), -ELOOP);
	if (geteuid() != 0) {
		printf("# skip: a link of another user's needs root (lchown)\n");
		return;
	}
	/* a cache's debug/ swapped for another user's link to a root-only
	 * directory: not followed, nothing made in the target */
	CHECK_INT(mkdir(at("c"), 0700), 0);
	CHECK_INT(mkdir(at("rootonly"), 0700), 0);
	CHECK_INT(walk("c/debug", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), 0);
	CHECK_INT(rmdir(at("c/debug")), 0);
	CHECK_INT(symlink(at("rootonly"), at("c/debug")), 0);
	CHECK_INT(lchown(at("c/debug"), 65534, 65534), 0);
	CHECK_INT(walk("c/debug/x", TY_CACHEDIR_OURS | TY_CACHEDIR_CREATE, &e), -EPERM);
	CHECK(strstr(e.msg, "symbolic link") && strstr(e.msg, "/c/debug' is owned by uid 65534"));
	CHECK(!isdir("rootonly/x"));
	CHECK_INT(ty_cachedir_open(at("c/debug"), 1), -1);
	/* in a sticky directory, another user's link is theirs to swap */
	CHECK_INT(mkdir(at("st"), 0700), 0);
	CHECK_INT(chmod(at("st"), 01777), 0);
	CHECK_INT(symlink(at("rootonly"), at("st/debug")), 0);
	CHECK_INT(lchown(at("st/debug"), 65534, 65534), 0);
	CHECK_INT(walk("st/debug/y", TY_CACHEDIR_CREATE, &e), -EPERM);
	CHECK(!isdir("rootonly/y"));
}

/* The cache files: written with a trailer, checked on use. */
static void
test_trailer(void)
{
	static const char data[] = "some cached bytes\n";
	unsigned char tr[TY_CACHEDIR_TRAILER];
	size_t size = 0;
	struct stat st;
	int dfd, fd;
	FILE *f;

	ty_cachedir_notes_clear();
	dfd = ty_cachedir_open(at("files"), 1);
	if (!CHECK(dfd >= 0))
		return;
	CHECK_INT(ty_cachedir_put(dfd, "f", data, sizeof(data)), 0);
	CHECK(stat(at("files/f"), &st) == 0 &&
	      st.st_size == (off_t)(sizeof(data) + TY_CACHEDIR_TRAILER) &&
	      (st.st_mode & 0777) == 0600);
	fd = ty_cachedir_openat(dfd, "f", &size);
	CHECK(fd >= 0 && size == sizeof(data));
	if (fd >= 0)
		close(fd);
	CHECK(ty_cachedir_note(0) == NULL);
	/* cut short: refused, removed, said */
	CHECK_INT(truncate(at("files/f"), (off_t)sizeof(data) + 4), 0);
	CHECK_INT(ty_cachedir_openat(dfd, "f", &size), -1);
	CHECK(access(at("files/f"), F_OK) != 0);
	CHECK(ty_cachedir_note(0) && strstr(ty_cachedir_note(0), "files/f' was cut short"));
	/* altered, its trailer kept: the CRC-32 tells */
	CHECK_INT(ty_cachedir_put(dfd, "f", data, sizeof(data)), 0);
	if ((f = fopen(at("files/f"), "r+"))) {
		fputc('S', f);
		fclose(f);
	}
	CHECK_INT(ty_cachedir_openat(dfd, "f", &size), -1);
	CHECK(access(at("files/f"), F_OK) != 0);
	CHECK(ty_cachedir_note(1) && strstr(ty_cachedir_note(1), "was altered"));
	/* grown past its trailer */
	CHECK_INT(ty_cachedir_put(dfd, "f", data, sizeof(data)), 0);
	if ((f = fopen(at("files/f"), "a"))) {
		fputs("more", f);
		fclose(f);
	}
	CHECK_INT(ty_cachedir_openat(dfd, "f", &size), -1);
	/* a file made with the trailer by hand reads back */
	ty_cachedir_trailer(data, sizeof(data), tr);
	if ((f = fopen(at("files/g"), "w"))) {
		fwrite(data, 1, sizeof(data), f);
		fwrite(tr, 1, sizeof(tr), f);
		fclose(f);
	}
	CHECK_INT(chmod(at("files/g"), 0600), 0);
	fd = ty_cachedir_openat(dfd, "g", &size);
	CHECK(fd >= 0 && size == sizeof(data));
	if (fd >= 0)
		close(fd);
	/* writable by others: not used, and not ours to remove */
	CHECK_INT(chmod(at("files/g"), 0622), 0);
	CHECK_INT(ty_cachedir_openat(dfd, "g", &size), -1);
	CHECK(access(at("files/g"), F_OK) == 0);
	/* an empty payload is a file too */
	CHECK_INT(ty_cachedir_put(dfd, "e", "", 0), 0);
	fd = ty_cachedir_openat(dfd, "e", &size);
	CHECK(fd >= 0 && size == 0);
	if (fd >= 0)
		close(fd);
	close(dfd);
	ty_cachedir_notes_clear();
	CHECK(ty_cachedir_note(0) == NULL);
}

int
main(void)
{
	char cmd[128];

	if (!CHECK(mkdtemp(top) != NULL))
		return check_done();
	test_made();
	test_open_to_others();
	test_other_owner();
	test_sticky();
	test_links();
	test_trailer();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	CHECK(system(cmd) == 0);
	return check_done();
}
