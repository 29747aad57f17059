/* record-exec.c - the samples inside an execve call counted by the chain
 * of the call (record-exec.h). */
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/record-exec.h"

#define LOST_MAX 65536 /* lost samples kept */
#define IN_CALL 16     /* the syscall's return address is this near the probed entry */

struct ty_record_exec_at {
	uint32_t pid, tid;
	uint64_t time, ip, sp;
	int complete;
};

static void
add(struct ty_record_exec_at **v, size_t *n, size_t *cap, const struct ty_record_exec_at *a)
{
	if (ty_array_grow(v, sizeof(**v), *n + 1, cap) == 0)
		(*v)[(*n)++] = *a;
}

void
ty_record_exec_call(struct ty_record_exec *x, uint32_t pid, uint32_t tid, uint64_t time,
		    uint64_t ip, uint64_t sp, int complete)
{
	struct ty_record_exec_at a = {pid, tid, time, ip, sp, complete};

	add(&x->calls, &x->ncalls, &x->capcalls, &a);
}

void
ty_record_exec_lost(struct ty_record_exec *x, uint32_t pid, uint32_t tid, uint64_t time,
		    uint64_t ip, uint64_t sp)
{
	struct ty_record_exec_at a = {pid, tid, time, ip, sp, 0};

	if (x->nlost < LOST_MAX)
		add(&x->lost, &x->nlost, &x->caplost, &a);
}

/* By thread, then time. */
static int
at_cmp(const void *a, const void *b)
{
	const struct ty_record_exec_at *p = a, *q = b;

	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	return p->time < q->time ? -1 : p->time > q->time;
}

/* Is IP of PID at TIME in the kernel's [uprobes] page (a step out of
 * line: the probed instruction run there, the stack as at the probe)? */
static int
in_xol(struct ty_symbols *syms, uint32_t pid, uint64_t ip, uint64_t time)
{
	struct ty_sym_map m;

	return ty_symbols_find_map(syms, pid, ip, time, &m) == 0 && m.path &&
	       strcmp(m.path, "[uprobes]") == 0;
}

size_t
ty_record_exec_complete(struct ty_record_exec *x, struct ty_symbols *syms, struct ty_record_diag *g)
{
	size_t i, j = 0, n = 0;

	if (!x->ncalls || !x->nlost)
		return 0;
	qsort(x->calls, x->ncalls, sizeof(*x->calls), at_cmp);
	qsort(x->lost, x->nlost, sizeof(*x->lost), at_cmp);
	for (i = 0; i < x->nlost; i++) {
		const struct ty_record_exec_at *s = &x->lost[i], *c;
		/* the thread's latest call at or before the sample */
		while (j < x->ncalls && at_cmp(&x->calls[j], s) <= 0)
			j++;
		if (j == 0 || (c = &x->calls[j - 1])->tid != s->tid || c->pid != s->pid ||
		    !c->complete || c->sp != s->sp)
			continue;
		if (!(s->ip >= c->ip && s->ip - c->ip < IN_CALL) &&
		    !in_xol(syms, s->pid, s->ip, s->time))
			continue;
		n++;
		if (g)
			ty_record_diag_exec(g, s->tid, s->time);
	}
	return n;
}

void
ty_record_exec_release(struct ty_record_exec *x)
{
	free(x->calls);
	free(x->lost);
	memset(x, 0, sizeof(*x));
}
