/* outfile.c - file output written whole or not at all.
 *
 * A regular file (or a name that does not exist yet) is written to a
 * temporary file beside it, then fsynced and renamed over it, so a full
 * disk or an interruption leaves the old file intact. A symbolic link is
 * followed, and the temporary file is made beside its target, so the link
 * stays a link. Anything else that exists (a device such as /dev/null, a
 * FIFO, a socket, /dev/stdout, /dev/fd/N) cannot be replaced and is not:
 * it is opened and written in place. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static int
open_in_place(struct ty_outfile *of, const char *path, struct ty_error *e)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		err = errno;
	else if (!(of->path = strdup(path)))
		close(fd), err = ENOMEM;
	else if (attach_stream(of, fd) == 0)
		return 0;
	else
		err = ENOMEM;
	ty_outfile_abort(of);
	return ty_error_set(e, -err, "cannot write '%s': %s", path, strerror(err));
}

int
ty_outfile_open(struct ty_outfile *of, const char *path, struct ty_error *e)
{
	struct stat st;
	const char *dest, *slash;
	char *real = NULL;
	mode_t mode;
	size_t dirlen, len;
	int fd;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	if (strcmp(path, "-") == 0) {
		of->fp = stdout;
		of->is_stdout = 1;
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return ty_error_set(e, -EISDIR, "cannot write '%s': %s", path,
					    strerror(EISDIR));
		return open_in_place(of, path, e);
	}
	mode = 0666 & ~umask(umask(0));
	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777; /* keep the mode of the file replaced */
	dest = path;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		dest = real;
	of->path = strdup(dest);
	free(real);
	if (!of->path)
		return ty_error_set(e, -ENOMEM, "cannot write '%s': out of memory", path);
	slash = strrchr(of->path, '/');
	dirlen = slash ? (size_t)(slash - of->path + 1) : 0;
	len = strlen(of->path) + 32;
	if (!(of->tmp = malloc(len))) {
		ty_outfile_abort(of);
		return ty_error_set(e, -ENOMEM, "cannot write '%s': out of memory", path);
	}
	snprintf(of->tmp, len, "%.*s.%s.tmpXXXXXX", (int)dirlen, of->path, of->path + dirlen);
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		int err = errno;
		free(of->tmp);
		of->tmp = NULL;
		ty_outfile_abort(of);
		return ty_error_set(e, -err, "cannot write '%s': %s", path, strerror(err));
	}
	fchmod(fd, mode);
	if (attach_stream(of, fd) < 0) {
		ty_outfile_abort(of);
		return ty_error_set(e, -ENOMEM, "cannot write '%s': out of memory", path);
	}
	return 0;
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
	if (!of->werr && of->tmp && fsync(of->fd) != 0 && errno != EINVAL)
		of->werr = errno;
	if (fclose(of->fp) != 0 && !of->werr)
		of->werr = EIO;
	of->fp = NULL;
	err = of->werr;
	if (!err && of->tmp && rename(of->tmp, of->path) != 0)
		err = errno;
	if (err) {
		ty_error_set(e, -err, "cannot write '%s': %s", name, strerror(err));
		ty_outfile_abort(of);
		return -err;
	}
	free(of->tmp);
	free(of->path);
	of->tmp = of->path = NULL;
	return 0;
}

void
ty_outfile_abort(struct ty_outfile *of)
{
	if (of->fp && !of->is_stdout)
		fclose(of->fp); /* closes the descriptor too */
	of->fp = NULL;
	of->fd = -1;
	if (of->tmp)
		unlink(of->tmp);
	free(of->tmp);
	free(of->path);
	of->tmp = of->path = NULL;
}
