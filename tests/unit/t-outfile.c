/* t-outfile.c - output is whole or absent, and never replaces what is not a file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "tachy/outfile.h"

static char dir[] = "/tmp/t-outfile.XXXXXX";

static char *
slurp(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static int
write_text(const char *path, const char *text, struct ty_error *e)
{
	struct ty_outfile of;
	int rc = ty_outfile_open(&of, path, e);

	if (rc < 0)
		return rc;
	fputs(text, of.fp);
	return ty_outfile_commit(&of, e);
}

static void
regular_files(void)
{
	struct ty_error e;
	struct ty_outfile of;
	char path[256], link[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/a.json", dir);
	CHECK_INT(write_text(path, "one", &e), 0);
	CHECK_STR(slurp(path), "one");
	chmod(path, 0600);
	CHECK_INT(write_text(path, "two", &e), 0);
	CHECK_STR(slurp(path), "two");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);

	/* Aborted: the old content stays, no temporary is left behind. */
	CHECK_INT(ty_outfile_open(&of, path, &e), 0);
	fputs("three", of.fp);
	ty_outfile_abort(&of);
	ty_outfile_abort(&of);
	CHECK_STR(slurp(path), "two");

	/* A symbolic link stays a link; its target gets the content. */
	snprintf(link, sizeof(link), "%s/link.json", dir);
	CHECK(symlink("a.json", link) == 0);
	CHECK_INT(write_text(link, "four", &e), 0);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK_STR(slurp(path), "four");

	/* A directory is refused, a missing directory named. */
	CHECK_INT(write_text(dir, "x", &e), -EISDIR);
	snprintf(path, sizeof(path), "%s/no/such.json", dir);
	CHECK_INT(write_text(path, "x", &e), -ENOENT);
	CHECK(strstr(e.msg, "no/such.json") != NULL);
}

/* Entries of DIR other than . and ..; the names go to LIST. */
static int
entries(const char *d, char *list, size_t len)
{
	DIR *dp = opendir(d);
	struct dirent *de;
	int n = 0;

	list[0] = '\0';
	if (!dp)
		return -1;
	while ((de = readdir(dp)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			n++;
			snprintf(list + strlen(list), len - strlen(list), "%s ", de->d_name);
		}
	closedir(dp);
	return n;
}

static mode_t
mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void
modes(void)
{
	struct ty_error e;
	char sub[128], path[256], list[512];
	mode_t old = umask(077);

	snprintf(sub, sizeof(sub), "%s/modes", dir);
	CHECK(mkdir(sub, 0755) == 0);
	/* New files: 0666 less the umask. */
	snprintf(path, sizeof(path), "%s/u077.json", sub);
	CHECK_INT(write_text(path, "a", &e), 0);
	CHECK_INT(mode_of(path), 0600);
	umask(022);
	snprintf(path, sizeof(path), "%s/u022.json", sub);
	CHECK_INT(write_text(path, "b", &e), 0);
	CHECK_INT(mode_of(path), 0644);
	/* A replaced file keeps its mode, under either umask. */
	CHECK(chmod(path, 0640) == 0);
	CHECK_INT(write_text(path, "c", &e), 0);
	CHECK_INT(mode_of(path), 0640);
	CHECK_STR(slurp(path), "c");
	umask(077);
	CHECK(chmod(path, 0664) == 0);
	CHECK_INT(write_text(path, "d", &e), 0);
	CHECK_INT(mode_of(path), 0664);
	umask(old);
	/* No temporary is left behind, committed or aborted. */
	{
		struct ty_outfile of;
		CHECK_INT(ty_outfile_open(&of, path, &e), 0);
		fputs("e", of.fp);
		ty_outfile_abort(&of);
	}
	CHECK_INT(entries(sub, list, sizeof(list)), 2);
	CHECK_STR(slurp(path), "d");
}

static void
temp_names(void)
{
	char *tmp = NULL, sub[256], list[512];
	int dfd, fd;

	CHECK(ty_outfile_is_tmp(".a.json.tachy-Ab12cD"));
	CHECK(!ty_outfile_is_tmp("a.json"));
	CHECK(!ty_outfile_is_tmp(".a.json"));
	CHECK(!ty_outfile_is_tmp(".tachy-Ab12cD"));
	snprintf(sub, sizeof(sub), "%s/tmps", dir);
	CHECK(mkdir(sub, 0700) == 0);
	dfd = open(sub, O_PATH | O_DIRECTORY);
	fd = ty_outfile_tmpat(dfd, "x.json", 0600, &tmp);
	CHECK(fd >= 0 && tmp && strncmp(tmp, ".x.json.tachy-", 14) == 0 && strlen(tmp) == 20);
	CHECK(tmp && ty_outfile_is_tmp(tmp));
	CHECK_INT(entries(sub, list, sizeof(list)), 1);
	if (fd >= 0)
		close(fd);
	close(dfd);
	free(tmp);
}

/* Links another user planted in a shared directory are not followed. */
static void
planted_links(void)
{
	struct ty_error e;
	char shared[128], link[256], victim[256], path[256];
	struct stat st;
	int fd;

	if (geteuid() != 0) {
		printf("# skip planted links: needs root (a link owned by nobody)\n");
		return;
	}
	snprintf(shared, sizeof(shared), "%s/shared", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	CHECK(mkdir(shared, 01777) == 0 && chmod(shared, 01777) == 0);
	CHECK_INT(write_text(victim, "precious", &e), 0);

	/* nobody's link to our file in a sticky directory: refused, named. */
	snprintf(link, sizeof(link), "%s/x.json", shared);
	CHECK(symlink(victim, link) == 0 && lchown(link, 65534, 65534) == 0);
	CHECK_INT(write_text(link, "owned", &e), -EPERM);
	CHECK(strstr(e.msg, "x.json") && strstr(e.msg, "symbolic link owned by another user"));
	CHECK_STR(slurp(victim), "precious");
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));

	/* ... also as a directory on the way, and for ty_outfile_open_dir. */
	snprintf(link, sizeof(link), "%s/d", shared);
	CHECK(symlink(dir, link) == 0 && lchown(link, 65534, 65534) == 0);
	snprintf(path, sizeof(path), "%s/d/victim", shared);
	CHECK_INT(write_text(path, "owned", &e), -EPERM);
	CHECK_STR(slurp(victim), "precious");
	CHECK_INT(ty_outfile_open_dir(link, &e), -EPERM);
	CHECK(strstr(e.msg, "refusing to use") != NULL);

	/* Without the sticky bit and world write, the same link is followed. */
	CHECK(chmod(shared, 0755) == 0);
	CHECK_INT(write_text(path, "mine", &e), 0);
	CHECK_STR(slurp(victim), "mine");
	fd = ty_outfile_open_dir(link, &e);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);

	/* Our own link in a sticky directory is followed. */
	CHECK(chmod(shared, 01777) == 0);
	snprintf(link, sizeof(link), "%s/ours.json", shared);
	CHECK(symlink(victim, link) == 0);
	CHECK_INT(write_text(link, "ours", &e), 0);
	CHECK_STR(slurp(victim), "ours");

	/* nobody's plain file there is replaced, without lending its mode. */
	snprintf(path, sizeof(path), "%s/plain.json", shared);
	CHECK(close(open(path, O_CREAT | O_WRONLY, 0666)) == 0 && chmod(path, 0666) == 0 &&
	      chown(path, 65534, 65534) == 0);
	CHECK_INT(write_text(path, "root's", &e), 0);
	CHECK(stat(path, &st) == 0 && st.st_uid == 0 && !(st.st_mode & 022));
}

static void
special_files(void)
{
	struct ty_error e;
	char fifo[256];
	struct stat st;
	pid_t pid;
	int status;

	/* A FIFO is written in place, not replaced by a regular file. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	pid = fork();
	if (pid == 0) {
		char *got = slurp(fifo);
		_exit(got && strcmp(got, "through the pipe") == 0 ? 0 : 1);
	}
	CHECK_INT(write_text(fifo, "through the pipe", &e), 0);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));

	/* A full device says so exactly: ENOSPC, not a generic I/O error. */
	if (access("/dev/full", W_OK) == 0) {
		char big[8192];
		struct ty_outfile of;

		memset(big, 'x', sizeof(big));
		CHECK_INT(ty_outfile_open(&of, "/dev/full", &e), 0);
		fwrite(big, 1, sizeof(big), of.fp);
		CHECK_INT(ty_outfile_commit(&of, &e), -ENOSPC);
		CHECK(strstr(e.msg, "No space left on device") != NULL);
		CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
	}
}

int
main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	regular_files();
	modes();
	temp_names();
	planted_links();
	special_files();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return check_done();
}
