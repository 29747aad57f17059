/* cachedir.c - tachy's own cache directory: made, checked, and written
 * whole (see cachedir.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/cachedir.h"
#include "tachy/outfile.h"

/* mkdir -p DIR, the parts it creates mode 0700. */
static int
make_dirs(const char *dir)
{
	char *p = strdup(dir), *q, c;
	struct stat st;
	int ret = -1;

	for (q = p ? p + 1 : NULL; q; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		c = *q;
		*q = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST)
			break;
		*q = c;
		if (!c) {
			ret = stat(p, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
			break;
		}
	}
	free(p);
	return ret;
}

int
ty_cachedir_open(const char *dir, int create)
{
	struct stat st;
	int dfd;

	if (!dir || !*dir || (create && make_dirs(dir) < 0))
		return -1;
	dfd = ty_outfile_open_dir(dir, NULL);
	if (dfd >= 0 && (fstat(dfd, &st) != 0 || st.st_uid != geteuid())) {
		close(dfd);
		dfd = -1;
	}
	return dfd < 0 ? -1 : dfd;
}

int
ty_cachedir_openat(int dfd, const char *name, size_t *size)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		close(fd);
		return -1;
	}
	*size = (size_t)st.st_size;
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

int
ty_cachedir_commit(int dfd, const char *tmp, const char *name, int ok)
{
	if (ok && renameat(dfd, tmp, dfd, name) == 0)
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
