/* t-outfile.c - output is whole or absent, and never replaces what is not a file. */
#include <errno.h>
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
	special_files();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return check_done();
}
