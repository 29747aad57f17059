/* perfmap.c - JIT code named by /tmp/perf-PID.map. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/perfmap.h"
#include "tachy/safefile.h"

/* One JIT region named in a perf map. */
struct jit_sym {
	uint64_t start, end;
	const char *name;
	uint32_t seq;
};

/* The perf map of one process. */
struct pmap {
	uint32_t pid;
	int tried;	     /* read (or given) */
	struct jit_sym *jit; /* sorted by start */
	size_t njit;
	char *jit_path;
	struct ty_symtab_pool *jit_pool;
	struct pmap *next;
};

#define NBUCKET 256

struct ty_perfmap {
	struct pmap *maps[NBUCKET];
	char *dir; /* "/tmp" unless set */
	struct ty_symtab_warnings *warn;
};

struct ty_perfmap *
ty_perfmap_new(struct ty_symtab_warnings *w)
{
	struct ty_perfmap *pm = calloc(1, sizeof(*pm));

	if (pm)
		pm->warn = w;
	return pm;
}

void
ty_perfmap_free(struct ty_perfmap *pm)
{
	size_t i;

	if (!pm)
		return;
	for (i = 0; i < NBUCKET; i++) {
		struct pmap *sp = pm->maps[i], *n;
		for (; sp; sp = n) {
			n = sp->next;
			free(sp->jit);
			free(sp->jit_path);
			ty_symtab_pool_free(sp->jit_pool);
			free(sp);
		}
	}
	free(pm->dir);
	free(pm);
}

void
ty_perfmap_set_dir(struct ty_perfmap *pm, const char *dir)
{
	free(pm->dir);
	pm->dir = dir ? strdup(dir) : NULL;
}

static struct pmap *
get_map(const struct ty_perfmap *pm, uint32_t pid, int create)
{
	struct pmap *sp;

	for (sp = pm->maps[pid % NBUCKET]; sp; sp = sp->next)
		if (sp->pid == pid)
			return sp;
	if (!create || !(sp = calloc(1, sizeof(*sp))))
		return NULL;
	sp->pid = pid;
	sp->next = pm->maps[pid % NBUCKET];
	((struct ty_perfmap *)pm)->maps[pid % NBUCKET] = sp;
	return sp;
}

int
ty_perfmap_known(const struct ty_perfmap *pm, uint32_t pid)
{
	const struct pmap *sp = get_map(pm, pid, 0);

	return sp && sp->tried;
}

static int
jit_cmp(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->seq < y->seq) - (x->seq > y->seq); /* the latest first */
}

static int
hex_field(const char **p, const char *end, uint64_t *out)
{
	const char *q = *p;
	uint64_t v = 0;
	int n = 0;

	if (end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	for (; q < end; q++, n++) {
		int c = *q, d = c >= '0' && c <= '9'   ? c - '0'
				: c >= 'a' && c <= 'f' ? c - 'a' + 10
				: c >= 'A' && c <= 'F' ? c - 'A' + 10
						       : -1;
		if (d < 0)
			break;
		if (n == 16)
			return -1;
		v = v << 4 | (unsigned)d;
	}
	if (n == 0)
		return -1;
	*p = q;
	*out = v;
	return 0;
}

/* One perf map line [P, END): "START SIZE name", hex numbers. */
static int
perf_map_line(const char *p, const char *end, uint64_t *start, uint64_t *size, const char **name,
	      size_t *len)
{
	if (memchr(p, '\0', (size_t)(end - p)))
		return -1;
	if (end > p && end[-1] == '\r')
		end--;
	if (hex_field(&p, end, start) < 0 || p == end || (*p != ' ' && *p != '\t'))
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (hex_field(&p, end, size) < 0 || p == end || (*p != ' ' && *p != '\t'))
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *size == 0 || *start + *size < *start)
		return -1;
	*name = p;
	*len = (size_t)(end - p) > 1024 ? 1024 : (size_t)(end - p);
	return 0;
}

long
ty_perfmap_add(struct ty_perfmap *pm, uint32_t pid, const char *buf, size_t len)
{
	struct pmap *sp = get_map(pm, pid, 1);
	const char *p = buf, *end = buf + len;
	size_t cap = 0, i, n = 0;
	long skipped = 0;
	char path[4200];

	if (!sp)
		return -ENOMEM;
	sp->tried = 1;
	free(sp->jit);
	ty_symtab_pool_free(sp->jit_pool);
	free(sp->jit_path);
	sp->jit = NULL;
	sp->jit_pool = NULL;
	sp->njit = 0;
	snprintf(path, sizeof(path), "%s/perf-%u.map", pm->dir ? pm->dir : "/tmp", pid);
	if (!(sp->jit_path = strdup(path)))
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *name;
		uint64_t start, size;
		size_t nlen;
		if (!nl)
			nl = end;
		if (nl == p || (nl - p == 1 && *p == '\r')) { /* empty line */
			p = nl + 1;
			continue;
		}
		if (perf_map_line(p, nl, &start, &size, &name, &nlen) < 0) {
			skipped++;
		} else {
			if (ty_array_grow(&sp->jit, sizeof(*sp->jit), sp->njit + 1, &cap) < 0)
				return -ENOMEM;
			if (!(sp->jit[sp->njit].name =
				  ty_symtab_pool_add(&sp->jit_pool, name, nlen)))
				return -ENOMEM;
			sp->jit[sp->njit].start = start;
			sp->jit[sp->njit].end = start + size;
			sp->jit[sp->njit].seq = (uint32_t)sp->njit;
			sp->njit++;
		}
		p = nl + 1;
	}
	if (sp->njit)
		qsort(sp->jit, sp->njit, sizeof(*sp->jit), jit_cmp);
	for (i = 0; i < sp->njit; i++) /* one entry per start: the latest */
		if (n == 0 || sp->jit[n - 1].start != sp->jit[i].start)
			sp->jit[n++] = sp->jit[i];
	sp->njit = n;
	return skipped;
}

#define PERF_MAP_MAX (256u << 20)

/* Read /tmp/perf-PID.map once, when it is a regular file of ours (or
 * root's), as perf does: another user's file could name our code. */
static void
load_perf_map(struct ty_perfmap *pm, struct pmap *sp)
{
	struct ty_safefile_want want = {0, 0, PERF_MAP_MAX, 1};
	char path[4200], why[TY_SAFEFILE_WHY], *buf;
	struct stat st;
	long skipped;
	size_t got = 0;
	ssize_t n;
	int fd;

	sp->tried = 1;
	snprintf(path, sizeof(path), "%s/perf-%u.map", pm->dir ? pm->dir : "/tmp", sp->pid);
	if ((fd = ty_safefile_open(path, &want, &st, why)) < 0) {
		if (fd != -ENOENT)
			ty_symtab_warn(
			    pm->warn, "%s %s%s: ignored", path,
			    fd == -EINVAL || fd == -EFBIG ? "" : "cannot be read: ", why);
		return;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		ty_symtab_warn(pm->warn, "%s is not owned by this user or root: ignored", path);
		close(fd);
		return;
	}
	if (!(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return;
	}
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	skipped = ty_perfmap_add(pm, sp->pid, buf, got);
	free(buf);
	if (skipped > 0)
		ty_symtab_warn(pm->warn, "%s: %ld malformed line%s skipped", path, skipped,
			       skipped == 1 ? "" : "s");
}

int
ty_perfmap_find(struct ty_perfmap *pm, uint32_t pid, uint64_t ip, const char **name,
		const char **path)
{
	struct pmap *sp = get_map(pm, pid, 1);
	size_t lo = 0, hi;

	if (!sp)
		return 0;
	if (!sp->tried)
		load_perf_map(pm, sp);
	for (hi = sp->njit; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp->jit[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || ip >= sp->jit[lo - 1].end)
		return 0;
	*name = sp->jit[lo - 1].name;
	*path = sp->jit_path;
	return 1;
}
