/* memcg.c - a memory cgroup of our own, its peak reset and read per run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/array.h"
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

/* Whether the comma-separated list S (N bytes) holds WORD. */
static int
has_token(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	const char *end = s + n, *c;

	for (; s < end; s = c + 1) {
		if (!(c = memchr(s, ',', (size_t)(end - s))))
			c = end;
		if ((size_t)(c - s) == w && memcmp(s, word, w) == 0)
			return 1;
	}
	return 0;
}

int
ty_memcg_parse_cgroup(const char *text, size_t len, int version, char *out, size_t size)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *c1 = memchr(p, ':', (size_t)(le - p)), *c2 = NULL, *q;
		size_t plen;
		int ok;

		if (c1)
			c2 = memchr(c1 + 1, ':', (size_t)(le - c1 - 1));
		/* ID:CONTROLLERS:PATH, ID all digits ("0" and no controllers:
		 * the unified hierarchy; v1: the one whose list holds "memory") */
		ok = c2 && c1 > p;
		for (q = p; ok && q < c1; q++)
			ok = *q >= '0' && *q <= '9';
		if (ok)
			ok = version == 2 ? c1 - p == 1 && *p == '0' && c2 == c1 + 1
					  : has_token(c1 + 1, (size_t)(c2 - c1 - 1), "memory");
		plen = ok ? (size_t)(le - c2 - 1) : 0;
		/* an absolute path, no way up, no NUL, and it fits */
		if (ok && plen > 0 && c2[1] == '/' && plen < size && !memchr(c2 + 1, '\0', plen)) {
			memcpy(out, c2 + 1, plen);
			out[plen] = '\0';
			if (!strstr(out, "/.."))
				return 0;
			out[0] = '\0';
		}
		p = nl ? nl + 1 : end;
	}
	return -ENOENT;
}

/* The path, relative to its hierarchy's mount, of our group in the v1
 * hierarchy with the memory controller (VERSION 1) or in the unified one
 * (VERSION 2), from ROOT/proc/self/cgroup (read whole: a line longer than
 * any buffer is not taken in pieces). Returns 0 or -ENOENT. */
static int
own_group(const char *root, int version, char *out, size_t size)
{
	char path[PATH_MAX], *buf;
	size_t len = 0, cap = 65536;
	ssize_t n;
	int fd, rc = -ENOENT;

	snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -ENOENT;
	if (!(buf = malloc(cap))) {
		close(fd);
		return -ENOMEM;
	}
	while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (len < cap) /* more than 64 KiB is not what the kernel writes */
		rc = ty_memcg_parse_cgroup(buf, len, version, out, size);
	free(buf);
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
	char buf[64];
	ssize_t n;

	if (m->peak_fd < 0)
		return -EBADF;
	n = pread(m->peak_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	return ty_memcg_parse_peak(buf, (size_t)n);
}

long
ty_memcg_parse_peak(const char *text, size_t len)
{
	unsigned long long v = 0;
	size_t i;

	/* digits and an optional newline: no sign (strtoull would take "-5"
	 * as 2^64 - 5), no blanks, nothing after */
	for (i = 0; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
		unsigned d = (unsigned)(text[i] - '0');
		if (v > ULLONG_MAX / 10 || (v == ULLONG_MAX / 10 && d > ULLONG_MAX % 10))
			return -EIO;
		v = v * 10 + d;
	}
	if (i == 0 || (i < len && !(text[i] == '\n' && i + 1 == len)))
		return -EIO;
	return v / 1024 > (unsigned long long)LONG_MAX ? -EIO : (long)(v / 1024);
}

int
ty_memcg_procs(const struct ty_memcg *m, pid_t **out, size_t *n)
{
	char path[PATH_MAX], buf[4096];
	size_t cap = 0, len = 0;
	pid_t *v = NULL;
	long pid = 0;
	int fd, digits = 0, rc = 0;
	ssize_t got, i;

	*out = NULL;
	*n = 0;
	if (!m->version || join(path, sizeof(path), m->dir, "cgroup.procs") < 0)
		return -ENOENT;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	while ((got = read(fd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR)) {
		for (i = 0; i < got; i++) {
			if (buf[i] >= '0' && buf[i] <= '9' && pid < 100000000) {
				pid = pid * 10 + (buf[i] - '0'), digits = 1;
				continue;
			}
			if (!digits)
				continue;
			if (ty_array_grow(&v, sizeof(*v), len + 1, &cap) < 0) {
				rc = -ENOMEM;
				goto out;
			}
			v[len++] = (pid_t)pid;
			pid = 0, digits = 0;
		}
	}
	if (got < 0)
		rc = -errno;
out:
	close(fd);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v;
	*n = len;
	return 0;
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
