/* outfile.c - atomic file output: temporary file, fsync, rename. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/outfile.h"

int
ty_outfile_open(struct ty_outfile *of, const char *path, struct ty_error *e)
{
	const char *slash;
	size_t dirlen;
	int fd;

	memset(of, 0, sizeof(*of));
	if (strcmp(path, "-") == 0) {
		of->fp = stdout;
		of->is_stdout = 1;
		return 0;
	}
	of->path = strdup(path);
	slash = strrchr(path, '/');
	dirlen = slash ? (size_t)(slash - path + 1) : 0;
	of->tmp = malloc(dirlen + strlen(path) + 32);
	if (!of->path || !of->tmp) {
		ty_outfile_abort(of);
		return ty_error_set(e, -ENOMEM, "cannot write '%s': out of memory", path);
	}
	snprintf(of->tmp, dirlen + strlen(path) + 32, "%.*s.%s.tmpXXXXXX", (int)dirlen, path,
		 path + dirlen);
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		int err = errno;
		free(of->tmp);
		of->tmp = NULL;
		ty_outfile_abort(of);
		return ty_error_set(e, -err, "cannot write '%s': %s", path, strerror(err));
	}
	fchmod(fd, 0644 & ~umask(umask(0)));
	of->fp = fdopen(fd, "w");
	if (!of->fp) {
		int err = errno;
		close(fd);
		ty_outfile_abort(of);
		return ty_error_set(e, -err, "cannot write '%s': %s", path, strerror(err));
	}
	return 0;
}

int
ty_outfile_commit(struct ty_outfile *of, struct ty_error *e)
{
	int err = 0;

	if (of->is_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			err = errno ? errno : EIO;
		of->fp = NULL;
		if (err)
			return ty_error_set(e, -err, "cannot write to standard output: %s",
					    strerror(err));
		return 0;
	}
	if (!of->fp)
		return ty_error_set(e, -EBADF, "cannot write '%s': not open",
				    of->path ? of->path : "?");
	if (fflush(of->fp) != 0 || ferror(of->fp))
		err = errno ? errno : EIO;
	if (!err && fsync(fileno(of->fp)) != 0 && errno != EINVAL)
		err = errno;
	if (fclose(of->fp) != 0 && !err)
		err = errno ? errno : EIO;
	of->fp = NULL;
	if (!err && rename(of->tmp, of->path) != 0)
		err = errno;
	if (err) {
		ty_error_set(e, -err, "cannot write '%s': %s", of->path, strerror(err));
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
		fclose(of->fp);
	of->fp = NULL;
	if (of->tmp)
		unlink(of->tmp);
	free(of->tmp);
	free(of->path);
	of->tmp = of->path = NULL;
}
