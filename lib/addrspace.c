/* addrspace.c - which file is mapped where in each sampled process, and
 * when. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/addrspace.h"
#include "tachy/array.h"

struct map {
	uint64_t start, end, pgoff, time;
	struct ty_dso *dso;
	const char *path; /* the DSO's name, the caller's */
};

struct space {
	uint32_t pid, ppid;
	uint64_t fork_time, exec_time;
	int has_parent;
	struct map *maps;
	size_t nmaps, cap;
	uint64_t *changes; /* times the same address began to mean something else */
	size_t nchanges, capchanges;
	uint64_t *execs; /* exec times, ascending */
	size_t nexecs, capexecs;
	struct space *next;
};

#define NBUCKET 256

struct ty_addrspace {
	struct space *spaces[NBUCKET];
};

struct ty_addrspace *
ty_addrspace_new(void)
{
	return calloc(1, sizeof(struct ty_addrspace));
}

void
ty_addrspace_free(struct ty_addrspace *as)
{
	size_t i;

	if (!as)
		return;
	for (i = 0; i < NBUCKET; i++) {
		struct space *sp = as->spaces[i], *n;
		for (; sp; sp = n) {
			n = sp->next;
			free(sp->maps);
			free(sp->changes);
			free(sp->execs);
			free(sp);
		}
	}
	free(as);
}

static struct space *
get_space(struct ty_addrspace *as, uint32_t pid, int create)
{
	struct space *sp;

	for (sp = as->spaces[pid % NBUCKET]; sp; sp = sp->next)
		if (sp->pid == pid)
			return sp;
	if (!create || !(sp = calloc(1, sizeof(*sp))))
		return NULL;
	sp->pid = pid;
	sp->next = as->spaces[pid % NBUCKET];
	as->spaces[pid % NBUCKET] = sp;
	return sp;
}

/* Does [LO, HI) of file D at PGOFF cover addresses a mapping of SP (since
 * its exec) gave to another file or another part of the file? */
static int
replaces(const struct space *sp, uint64_t lo, uint64_t hi, uint64_t pgoff, const struct ty_dso *d)
{
	size_t i;

	for (i = 0; i < sp->nmaps; i++) {
		const struct map *m = &sp->maps[i];
		if (m->start < hi && lo < m->end && m->time >= sp->exec_time &&
		    (m->dso != d || m->start - m->pgoff != lo - pgoff))
			return 1;
	}
	return 0;
}

/* Keep the change times of SP sorted (records come nearly in order). */
static int
add_change(struct space *sp, uint64_t time)
{
	size_t i;

	if (ty_array_grow(&sp->changes, sizeof(*sp->changes), sp->nchanges + 1, &sp->capchanges) <
	    0)
		return -ENOMEM;
	for (i = sp->nchanges; i > 0 && sp->changes[i - 1] > time; i--)
		sp->changes[i] = sp->changes[i - 1];
	sp->changes[i] = time;
	sp->nchanges++;
	return 0;
}

size_t
ty_addrspace_epoch(struct ty_addrspace *as, uint32_t pid, uint64_t time)
{
	struct space *sp = get_space(as, pid, 0);
	size_t lo = 0, hi;

	if (!sp || !sp->nchanges)
		return 0;
	for (hi = sp->nchanges; lo < hi;) { /* changes at or before TIME */
		size_t mid = (lo + hi) / 2;
		if (sp->changes[mid] <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
ty_addrspace_add_mmap(struct ty_addrspace *as, uint32_t pid, uint64_t start, uint64_t len,
		      uint64_t pgoff, struct ty_dso *d, const char *path, uint64_t time)
{
	struct space *sp = get_space(as, pid, 1);

	if (!sp)
		return -ENOMEM;
	if (replaces(sp, start, start + len, pgoff, d) && add_change(sp, time) < 0)
		return -ENOMEM;
	if (ty_array_grow(&sp->maps, sizeof(*sp->maps), sp->nmaps + 1, &sp->cap) < 0)
		return -ENOMEM;
	sp->maps[sp->nmaps++] = (struct map){start, start + len, pgoff, time, d, path};
	return 0;
}

int
ty_addrspace_fork(struct ty_addrspace *as, uint32_t pid, uint32_t ppid, uint64_t time)
{
	struct space *sp;

	if (pid == ppid)
		return 0;
	if (!(sp = get_space(as, pid, 1)))
		return -ENOMEM;
	sp->ppid = ppid;
	sp->fork_time = time;
	sp->has_parent = 1;
	return 0;
}

int
ty_addrspace_exec(struct ty_addrspace *as, uint32_t pid, uint64_t time)
{
	struct space *sp = get_space(as, pid, 1);

	size_t i;

	if (!sp || add_change(sp, time) < 0)
		return -ENOMEM;
	if (ty_array_grow(&sp->execs, sizeof(*sp->execs), sp->nexecs + 1, &sp->capexecs) < 0)
		return -ENOMEM;
	for (i = sp->nexecs; i > 0 && sp->execs[i - 1] > time; i--)
		sp->execs[i] = sp->execs[i - 1];
	sp->execs[i] = time;
	sp->nexecs++;
	/* The parent's mappings are gone from then on (samples from before
	 * still see them: see exec_window). */
	sp->exec_time = sp->execs[sp->nexecs - 1];
	return 0;
}

/* The exec epoch of SP holding TIME: [*LO, *HI) between its execs; returns
 * 1 when an exec came at or before TIME (the parent's mappings are gone). */
static int
exec_window(const struct space *sp, uint64_t time, uint64_t *lo, uint64_t *hi)
{
	size_t a = 0, b = sp->nexecs;

	while (a < b) { /* the first exec after TIME */
		size_t mid = (a + b) / 2;
		if (sp->execs[mid] <= time)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a > 0 ? sp->execs[a - 1] : 0;
	*hi = a < sp->nexecs ? sp->execs[a] : UINT64_MAX;
	return a > 0;
}

int
ty_addrspace_known(struct ty_addrspace *as, uint32_t pid, uint64_t lo, uint64_t hi, uint64_t off,
		   const char *file)
{
	struct space *sp = get_space(as, pid, 0);
	size_t i;

	for (i = 0; sp && i < sp->nmaps; i++) {
		const struct map *m = &sp->maps[i];
		if (m->start == lo && m->end == hi && m->pgoff == off && m->time >= sp->exec_time &&
		    strcmp(m->path, file) == 0)
			return 1;
	}
	return 0;
}

/* The mapping of PID covering IP at TIME: the latest one mapped before TIME
 * (and after the exec before TIME); else the first one seen after TIME and
 * before the next exec (a mapping read from /proc/PID/maps carries the time
 * it was read, not the time it was made); else, when no exec came before
 * TIME, the parent's at the fork (a child's samples before its exec are in
 * its parent's image); else, after an exec, the image before it (the
 * kernel samples the old program's registers while it runs the exec); else
 * any that covers it. */
static const struct map *
find_map(struct ty_addrspace *as, uint32_t pid, uint64_t ip, uint64_t time, int depth)
{
	struct space *sp = get_space(as, pid, 0);
	const struct map *best = NULL, *next = NULL, *any = NULL;
	uint64_t lo, hi;
	size_t i;
	int execd;

	if (!sp || depth > 64)
		return NULL;
	execd = exec_window(sp, time, &lo, &hi);
	for (i = 0; i < sp->nmaps; i++) {
		const struct map *m = &sp->maps[i];
		if (ip < m->start || ip >= m->end)
			continue;
		if (m->time <= time && m->time >= lo && (!best || m->time >= best->time))
			best = m;
		if (m->time > time && m->time < hi && (!next || m->time < next->time))
			next = m;
		if (!any || m->time >= any->time)
			any = m;
	}
	if (best)
		return best;
	if (next)
		return next;
	if (sp->has_parent && !execd) {
		const struct map *m = find_map(as, sp->ppid, ip, sp->fork_time, depth + 1);
		if (m)
			return m;
	}
	if (execd && lo > 0) {
		/* In no mapping of the new program: the user registers of a
		 * sample taken while the kernel ran the exec are still the old
		 * program's (its execve call), the stack already gone. */
		const struct map *m = find_map(as, pid, ip, lo - 1, depth + 1);
		if (m)
			return m;
	}
	return any;
}

int
ty_addrspace_covers(struct ty_addrspace *as, uint32_t pid, uint64_t ip)
{
	struct space *sp = get_space(as, pid, 0);
	uint64_t until = UINT64_MAX;
	size_t i;
	int depth;

	/* Only mappings since the last exec count (a binary exec'd later may
	 * sit where the old one did), and a parent's only from before the fork. */
	for (depth = 0; sp && depth <= 64; depth++) {
		for (i = 0; i < sp->nmaps; i++) {
			const struct map *m = &sp->maps[i];
			/* (a parent's exec after the fork is not the child's) */
			if (ip >= m->start && ip < m->end && m->time <= until &&
			    (m->time >= sp->exec_time || sp->exec_time > until))
				return 1;
		}
		if (!sp->has_parent || (sp->nexecs && sp->execs[0] <= until))
			break;
		until = sp->fork_time;
		sp = get_space(as, sp->ppid, 0);
	}
	return 0;
}

int
ty_addrspace_find(struct ty_addrspace *as, uint32_t pid, uint64_t ip, uint64_t time,
		  struct ty_addrspace_map *out)
{
	const struct map *m = find_map(as, pid, ip, time, 0);

	if (!m)
		return -1;
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	out->path = m->path;
	out->dso = m->dso;
	return 0;
}

int
ty_addrspace_has(const struct ty_addrspace *as, uint32_t pid)
{
	return get_space((struct ty_addrspace *)as, pid, 0) != NULL;
}
