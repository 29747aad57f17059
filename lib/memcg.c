/* memcg.c - a memory cgroup of our own, its peak reset and read per run. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/memcg.h"

/* DIR/FILE into OUT; -ENAMETOOLONG when it does not fit. */
static int
join(char *out, size_t size, const char *dir, const char *file)
{
	int n = snprintf(out, size, "%s/%s", dir, file);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static const char *
root_of(const char *root)
{
	return root && strcmp(root, "/") != 0 ? root : "";
}

/* The path, relative to its hierarchy's mount, of our group in the v1
 * hierarchy with the memory controller (VERSION 1) or in the unified one
 * (VERSION 2), from ROOT/proc/self/cgroup. Returns 0 or -ENOENT. */
static int
own_group(const char *root, int version, char *out, size_t size)
{
	char path[PATH_MAX], line[4096];
	FILE *f;
	int rc = -ENOENT;

	snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
	if (!(f = fopen(path, "re")))
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *rel, *nl;
		if (!ctl || !(rel = strchr(ctl + 1, ':')))
			continue;
		*rel++ = '\0';
		*ctl++ = '\0';
		if ((nl = strchr(rel, '\n')))
			*nl = '\0';
		if (version == 2 ? strcmp(line, "0") == 0 && *ctl == '\0' : *ctl != '\0') {
			if (version == 1) {
				char *tok, *save;
				int mem = 0;
				for (tok = strtok_r(ctl, ",", &save); tok;
				     tok = strtok_r(NULL, ",", &save))
					mem |= strcmp(tok, "memory") == 0;
				if (!mem)
					continue;
			}
			if (*rel != '/' || strstr(rel, "/..") || strlen(rel) >= size)
				continue;
			strcpy(out, rel);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* Whether FILE under DIR holds the word WORD. */
static int
has_word(const char *dir, const char *file, const char *word)
{
	char path[PATH_MAX], buf[1024], *tok, *save;
	ssize_t n;
	int fd;

	if (join(path, sizeof(path), dir, file) < 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (strcmp(tok, word) == 0)
			return 1;
	return 0;
}

static int
exists(const char *dir, const char *file)
{
	char path[PATH_MAX];

	return join(path, sizeof(path), dir, file) == 0 && access(path, F_OK) == 0;
}

/* The mount point of the hierarchy of VERSION under ROOT, into OUT. */
static int
mount_of(const char *root, int version, char *out, size_t size)
{
	static const char *const v2[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
	size_t i;

	if (version == 1) {
		snprintf(out, size, "%s/sys/fs/cgroup/memory", root);
		return exists(out, "memory.max_usage_in_bytes") ? 0 : -ENOENT;
	}
	for (i = 0; i < 2; i++) {
		snprintf(out, size, "%s%s", root, v2[i]);
		if (exists(out, "cgroup.controllers"))
			return 0;
	}
	return -ENOENT;
}

static int
open_version(struct ty_memcg *m, const char *root, int version, const char *name,
	     struct ty_error *e)
{
	char mnt[PATH_MAX], rel[PATH_MAX], parent[PATH_MAX];
	const char *peak = version == 2 ? "memory.peak" : "memory.max_usage_in_bytes";
	int rc;

	if ((rc = mount_of(root, version, mnt, sizeof(mnt))) < 0 ||
	    (rc = own_group(root, version, rel, sizeof(rel))) < 0)
		return ty_error_set(e, rc, "no cgroup v%d memory controller", version);
	if (snprintf(parent, sizeof(parent), "%s%s", mnt, strcmp(rel, "/") ? rel : "") >=
	    (int)sizeof(parent))
		return ty_error_set(e, -ENAMETOOLONG, "cgroup path too long");
	if (version == 2 && !has_word(parent, "cgroup.subtree_control", "memory"))
		return ty_error_set(
		    e, -ENOENT, "the memory controller is not enabled below our cgroup v2 group");
	if (join(m->dir, sizeof(m->dir), parent, name) < 0)
		return ty_error_set(e, -ENAMETOOLONG, "cgroup path too long");
	if (mkdir(m->dir, 0755) == 0)
		m->created = 1;
	else if (errno != EEXIST)
		return ty_error_set(e, -errno, "cannot make the cgroup %s: %s", m->dir,
				    strerror(errno));
	m->peak_fd = join(mnt, sizeof(mnt), m->dir, peak) < 0 ? -1 : open(mnt, O_RDWR | O_CLOEXEC);
	if (m->peak_fd < 0) {
		rc = -errno;
		ty_memcg_close(m);
		return ty_error_set(e, rc, "cannot open %s: %s", mnt, strerror(-rc));
	}
	m->version = version;
	if (ty_memcg_reset(m) < 0) {
		ty_memcg_close(m);
		return ty_error_set(e, -EOPNOTSUPP, "%s cannot be reset (Linux < 6.12)", peak);
	}
	return 0;
}

int
ty_memcg_open(struct ty_memcg *m, const char *root, const char *name, struct ty_error *e)
{
	int rc;

	memset(m, 0, sizeof(*m));
	m->peak_fd = -1;
	root = root_of(root);
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return ty_error_set(e, -EINVAL, "bad cgroup name");
	rc = open_version(m, root, 2, name, e);
	if (rc == 0)
		return 0;
	return open_version(m, root, 1, name, e);
}

int
ty_memcg_enter(struct ty_memcg *m, pid_t pid, struct ty_error *e)
{
	char path[PATH_MAX], buf[32];
	int fd, n, rc = 0;

	if (join(path, sizeof(path), m->dir, "cgroup.procs") < 0 ||
	    (fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return ty_error_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)pid);
	if (write(fd, buf, (size_t)n) != n)
		rc = ty_error_set(e, -errno, "cannot move process %ld into %s: %s", (long)pid,
				  m->dir, strerror(errno));
	close(fd);
	return rc;
}

int
ty_memcg_reset(struct ty_memcg *m)
{
	/* v1: writing 0 sets the peak to the current usage; v2 (>= 6.12):
	 * any write starts a new peak for this open file */
	const char *w = m->version == 2 ? "reset\n" : "0\n";

	if (m->peak_fd < 0)
		return -EBADF;
	return pwrite(m->peak_fd, w, strlen(w), 0) == (ssize_t)strlen(w) ? 0 : -errno;
}

long
ty_memcg_peak_kb(struct ty_memcg *m)
{
	char buf[64], *end;
	unsigned long long v;
	ssize_t n;

	if (m->peak_fd < 0)
		return -EBADF;
	n = pread(m->peak_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EIO;
	return (long)(v / 1024);
}

const char *
ty_memcg_method(const struct ty_memcg *m)
{
	return m->version == 2 ? "cgroup-v2" : m->version == 1 ? "cgroup-v1" : NULL;
}

void
ty_memcg_close(struct ty_memcg *m)
{
	if (m->peak_fd >= 0)
		close(m->peak_fd);
	m->peak_fd = -1;
	if (m->created)
		rmdir(m->dir);
	m->created = 0;
	m->version = 0;
}
