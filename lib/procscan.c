/* procscan.c - the processes running now, from /proc: names, parents,
 * states, threads and executable mappings. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/procscan.h"

#define PF_KTHREAD_FLAG 0x00200000u /* include/linux/sched.h */

/* Read ROOT/REL into BUF (at most LEN-1 bytes, NUL-terminated). Returns
 * the length, or -1. */
static ssize_t
slurp(const char *root, const char *rel, char *buf, size_t len)
{
	char path[4096];
	ssize_t n, got = 0;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
		return -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/* A decimal number of at most 10 digits, all of S[0..N) (N > 0). */
static int
decimal(const char *s, size_t n, uint32_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 10)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int
ty_procscan_parse_stat(const char *buf, size_t len, struct ty_proc *p)
{
	const char *open_ = memchr(buf, '(', len), *close_ = NULL, *q, *end = buf + len;
	unsigned long long flags = 0;
	char *e;
	size_t i, n;
	int field;

	for (q = buf + len; q > buf; q--) /* the name may hold ')' itself */
		if (q[-1] == ')') {
			close_ = q - 1;
			break;
		}
	if (!open_ || !close_ || close_ < open_ || open_ < buf + 2 || open_[-1] != ' ' ||
	    decimal(buf, (size_t)(open_ - 1 - buf), &p->pid) < 0)
		return -EINVAL;
	n = (size_t)(close_ - open_ - 1);
	if (n >= sizeof(p->comm))
		n = sizeof(p->comm) - 1;
	memcpy(p->comm, open_ + 1, n);
	p->comm[n] = '\0';
	for (i = 0; i < n; i++) /* a name is shown on one line */
		if ((unsigned char)p->comm[i] < ' ')
			p->comm[i] = '?';
	q = close_ + 1;
	if (end - q < 4 || q[0] != ' ' || q[2] != ' ')
		return -EINVAL;
	p->state = q[1];
	q += 3;
	/* fields 4 (ppid) to 9 (flags) */
	for (field = 4; field <= 9; field++) {
		const char *sp = memchr(q, ' ', (size_t)(end - q));
		size_t k = sp ? (size_t)(sp - q) : (size_t)(end - q);
		char num[32];
		if (k == 0 || k >= sizeof(num))
			return -EINVAL;
		memcpy(num, q, k);
		num[k] = '\0';
		if (field == 4 && decimal(num, k, &p->ppid) < 0)
			return -EINVAL;
		if (field == 9) {
			errno = 0;
			flags = strtoull(num, &e, 10);
			if (*e || errno)
				return -EINVAL;
		}
		if (!sp && field < 9)
			return -EINVAL;
		q = sp ? sp + 1 : end;
	}
	p->kthread = (flags & PF_KTHREAD_FLAG) != 0;
	return 0;
}

/* A name into DST (TY_PROC_COMM bytes), cut to fit. */
static void
set_comm(char *dst, const char *src)
{
	size_t n = strnlen(src, TY_PROC_COMM - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int
add_map(struct ty_proc *p, size_t *cap, const struct ty_proc_map *m, const char *path, size_t plen)
{
	struct ty_proc_map *d;

	if (ty_array_grow(&p->maps, sizeof(*p->maps), p->nmaps + 1, cap) < 0)
		return -ENOMEM;
	d = &p->maps[p->nmaps];
	*d = *m;
	d->path = NULL;
	if (path && !(d->path = strndup(path, plen)))
		return -ENOMEM;
	p->nmaps++;
	return 0;
}

/* One maps line "LO-HI PERMS OFF DEV INODE [PATH]" of LEN bytes. */
static int
map_line(const char *s, size_t len, struct ty_proc *p, size_t *cap)
{
	struct ty_proc_map m = {0};
	unsigned long long lo, hi, off;
	char perms[8], line[8192];
	int pos = 0;
	const char *path;
	size_t plen;

	if (len >= sizeof(line))
		return 0;
	memcpy(line, s, len);
	line[len] = '\0';
	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perms, &off, &pos) != 4 ||
	    pos == 0 || hi <= lo || strlen(perms) != 4 || perms[2] != 'x')
		return 0;
	path = line + pos;
	while (*path == ' ')
		path++;
	plen = strlen(path);
	m.start = lo, m.end = hi, m.pgoff = off;
	if (plen == 0)
		m.kind = TY_PMAP_ANON;
	else if (path[0] == '[')
		m.kind = TY_PMAP_SPECIAL;
	else if (plen > 10 && strcmp(path + plen - 10, " (deleted)") == 0)
		m.kind = TY_PMAP_DELETED;
	else if (path[0] == '/')
		m.kind = TY_PMAP_FILE;
	else
		return 0; /* not a path: skipped, not guessed at */
	return add_map(p, cap, &m, m.kind == TY_PMAP_ANON ? NULL : path, plen) < 0 ? -ENOMEM : 1;
}

long
ty_procscan_parse_maps(const char *buf, size_t len, struct ty_proc *p)
{
	size_t cap = p->nmaps, off = 0;
	long added = 0;

	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;
		int r = map_line(buf + off, n, p, &cap);
		if (r < 0)
			return r;
		added += r;
		off += n + 1;
	}
	return added;
}

static int
pid_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct ty_proc *)a)->pid, y = ((const struct ty_proc *)b)->pid;
	return x < y ? -1 : x > y;
}

static int
tid_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct ty_proc_thread *)a)->tid,
		 y = ((const struct ty_proc_thread *)b)->tid;
	return x < y ? -1 : x > y;
}

/* The threads of P from ROOT/PID/task: each one's name (the main thread's
 * is P's own, first). */
static int
read_threads(const char *root, struct ty_proc *p)
{
	char rel[4096], buf[256];
	struct dirent *d;
	size_t cap = 0;
	DIR *dir;

	snprintf(rel, sizeof(rel), "%s/%u/task", root, p->pid);
	if ((dir = opendir(rel))) {
		while ((d = readdir(dir))) {
			struct ty_proc_thread *t;
			uint32_t tid;
			ssize_t n;
			if (decimal(d->d_name, strlen(d->d_name), &tid) < 0)
				continue;
			if (ty_array_grow(&p->threads, sizeof(*p->threads), p->nthreads + 1, &cap) <
			    0) {
				closedir(dir);
				return -ENOMEM;
			}
			t = &p->threads[p->nthreads];
			t->tid = tid;
			snprintf(t->comm, sizeof(t->comm), "%s", p->comm);
			snprintf(rel, sizeof(rel), "%u/task/%u/comm", p->pid, tid);
			if (tid != p->pid && (n = slurp(root, rel, buf, sizeof(buf))) > 0) {
				buf[strcspn(buf, "\n")] = '\0';
				set_comm(t->comm, buf);
			}
			p->nthreads++;
		}
		closedir(dir);
	}
	if (p->nthreads > 1)
		qsort(p->threads, p->nthreads, sizeof(*p->threads), tid_cmp);
	/* the main thread first (a zombie's task/ may be empty: it alone) */
	if (!p->nthreads || p->threads[0].tid != p->pid) {
		size_t i;
		for (i = 0; i < p->nthreads && p->threads[i].tid != p->pid; i++)
			;
		if (i == p->nthreads) {
			if (ty_array_grow(&p->threads, sizeof(*p->threads), p->nthreads + 1, &cap) <
			    0)
				return -ENOMEM;
			p->threads[p->nthreads].tid = p->pid;
			snprintf(p->threads[p->nthreads].comm, TY_PROC_COMM, "%s", p->comm);
			i = p->nthreads++;
		}
		{
			struct ty_proc_thread main_ = p->threads[i];
			memmove(p->threads + 1, p->threads, i * sizeof(*p->threads));
			p->threads[0] = main_;
		}
	}
	return 0;
}

static void
proc_release(struct ty_proc *p)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	free(p->maps);
	free(p->threads);
}

/* One process ROOT/PID: 1 read, 0 gone (or not a process), or -ENOMEM. */
static int
read_proc(const char *root, uint32_t pid, int want_maps, struct ty_proc *p)
{
	char rel[64], stat[1024], *maps;
	ssize_t n;
	int ret;

	memset(p, 0, sizeof(*p));
	snprintf(rel, sizeof(rel), "%u/stat", pid);
	if ((n = slurp(root, rel, stat, sizeof(stat))) <= 0 ||
	    ty_procscan_parse_stat(stat, (size_t)n, p) < 0 || p->pid != pid)
		return 0;
	snprintf(rel, sizeof(rel), "%u/comm", pid); /* the name, unabridged by parens */
	if ((n = slurp(root, rel, stat, sizeof(stat))) > 0) {
		stat[strcspn(stat, "\n")] = '\0';
		if (*stat)
			set_comm(p->comm, stat);
	}
	if ((ret = read_threads(root, p)) < 0)
		return ret;
	if (!want_maps || p->kthread || p->state == 'Z' || p->state == 'X')
		return 1;
	{
		size_t cap = 1 << 16, len = 0;
		char path[4096];
		FILE *fp;
		snprintf(path, sizeof(path), "%s/%u/maps", root, pid);
		if (!(fp = fopen(path, "r")))
			return 1; /* gone, or not ours to read: named, not symbolized */
		if (!(maps = malloc(cap))) {
			fclose(fp);
			return -ENOMEM;
		}
		while ((n = (ssize_t)fread(maps + len, 1, cap - len, fp)) > 0) {
			len += (size_t)n;
			if (len == cap && ty_array_grow(&maps, 1, cap + 1, &cap) < 0) {
				free(maps);
				fclose(fp);
				return -ENOMEM;
			}
		}
		fclose(fp);
		ret = ty_procscan_parse_maps(maps, len, p) < 0 ? -ENOMEM : 1;
		free(maps);
	}
	return ret;
}

int
ty_procscan_read(struct ty_procscan *s, const char *root, int want_maps, struct ty_error *e)
{
	struct dirent *d;
	size_t cap = 0;
	DIR *dir;

	memset(s, 0, sizeof(*s));
	if (!(dir = opendir(root)))
		return ty_error_set(e, -errno, "cannot read %s: %s", root, strerror(errno));
	while ((d = readdir(dir))) {
		uint32_t pid;
		int r;
		if (decimal(d->d_name, strlen(d->d_name), &pid) < 0 || pid == 0)
			continue;
		if (ty_array_grow(&s->procs, sizeof(*s->procs), s->n + 1, &cap) < 0) {
			closedir(dir);
			ty_procscan_release(s);
			return ty_error_set(e, -ENOMEM, "out of memory");
		}
		r = read_proc(root, pid, want_maps, &s->procs[s->n]);
		if (r < 0) {
			proc_release(&s->procs[s->n]);
			closedir(dir);
			ty_procscan_release(s);
			return ty_error_set(e, -ENOMEM, "out of memory");
		}
		if (r == 1)
			s->n++;
		else
			proc_release(&s->procs[s->n]);
	}
	closedir(dir);
	if (s->n > 1)
		qsort(s->procs, s->n, sizeof(*s->procs), pid_cmp);
	return 0;
}

void
ty_procscan_release(struct ty_procscan *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		proc_release(&s->procs[i]);
	free(s->procs);
	s->procs = NULL;
	s->n = 0;
}
