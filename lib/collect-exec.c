/* collect-exec.c - the collector's exec windows (see collect-offcpu.h):
 * which samples fall inside execve after the old image is gone, and the
 * chain of the execve call they belong to, from the exec probe; the
 * samples whose chain that made complete (or incomplete) are noted for
 * the recorder's count (ty_collector_grafts). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect-offcpu.h"
#include "tachy/symbols.h"

void
ty_collector_exec_entry(struct ty_collector *c, const struct ty_sampler_rec *r)
{
	const uint64_t *ips = r->nr ? r->chain : &r->ip;
	uint64_t n = r->nr ? r->nr : 1, k = 0;
	uint32_t s;

	while (k < n && ips[k] >= TY_KERNEL_START) /* the probe's trap, if any */
		k++;
	if (k == n)
		return;
	if ((s = ty_collector_intern_stack(c, KEY_OF(r), ips + k, n - k)) == TY_NONE ||
	    ty_array_grow(&c->entries, sizeof(*c->entries), c->nentries + 1, &c->capentries) < 0) {
		c->oom = 1;
		return;
	}
	c->entries[c->nentries++] = (struct exec_entry){{r->pid, r->time}, s};
}

/* Execs and entries: by (pid, time); an entry starts with its exec_ev. */
static int
ev_cmp(const void *a, const void *b)
{
	const struct exec_ev *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The index of the first of the N events at BASE (SIZE bytes each, each
 * starting with an exec_ev, sorted by ev_cmp) after (PID, TIME): the first
 * of a later time, or with AT_TOO the first of a later or the same time
 * (N, or one of another pid, when none is). */
static size_t
ev_after(const void *base, size_t n, size_t size, uint32_t pid, uint64_t time, int at_too)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct exec_ev *x = (const void *)((const char *)base + mid * size);
		if (x->pid < pid ||
		    (x->pid == pid && (x->time < time || (!at_too && x->time == time))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The index of the first exec of PID after TIME. */
static size_t
exec_after(const struct ty_collector *c, uint32_t pid, uint64_t time)
{
	return ev_after(c->execs, c->nexecs, sizeof(*c->execs), pid, time, 0);
}

int
ty_collector_exec_tail(const struct ty_collector *c, uint32_t pid, uint64_t time, uint64_t *when)
{
	size_t lo = exec_after(c, pid, time);

	if (lo == 0 || c->execs[lo - 1].pid != pid)
		return 0;
	*when = c->execs[lo - 1].time;
	return lo == c->nexecs || c->execs[lo].pid != pid ||
	       time - *when < c->execs[lo].time - time;
}

int
ty_collector_is_exec_call(const struct ty_profile *p, uint32_t f)
{
	static const char *const names[] = {"__x64_sys_execve",	  "__x64_sys_execveat",
					    "__ia32_sys_execve",  "__ia32_sys_execveat",
					    "__arm64_sys_execve", "__arm64_sys_execveat",
					    "do_execveat_common", NULL};
	const char *name = ty_profile_func_name(p, f);
	int i;

	if (ty_profile_func_dso(p, f)[0] != '[')
		return 0;
	if (strncmp(name, "begin_new_exec", 14) == 0)
		return 2;
	for (i = 0; names[i]; i++)
		if (strncmp(name, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

int
ty_collector_exec_prepare(struct ty_collector *c, uint32_t **epochs)
{
	size_t i;
	uint32_t *ep = *epochs, *v;

	if (c->nexecs)
		qsort(c->execs, c->nexecs, sizeof(*c->execs), ev_cmp);
	if (!c->nentries)
		return 0;
	qsort(c->entries, c->nentries, sizeof(*c->entries), ev_cmp);
	/* An entry's stack is resolved in the mappings of its call: one a
	 * sample has in another epoch is split off (as split_epochs does). */
	for (i = 0; i < c->nentries; i++) {
		struct exec_entry *x = &c->entries[i];
		uint32_t e = (uint32_t)ty_symbols_epoch(c->syms, x->at.pid, x->at.time), ns, n,
			 before;
		uint64_t ips[TY_SAMPLER_MAX_STACK];
		const uint64_t *w;
		if (ep[x->stack] == TY_NONE || ep[x->stack] == e) {
			ep[x->stack] = e;
			continue;
		}
		w = c->words + c->stack_off[x->stack];
		n = (uint32_t)w[1];
		memcpy(ips, w + 2, n * 8); /* interning may move the words */
		before = c->nstacks;
		if ((ns = ty_collector_intern_stack(
			 c, (w[0] & KEY_ROOTED) | x->at.pid | (uint64_t)(e + 1) << 32, ips, n)) ==
		    TY_NONE)
			return -ENOMEM;
		if (c->nstacks > before) { /* a new one */
			if (!(v = realloc(ep, (size_t)c->nstacks * sizeof(*ep))))
				return -ENOMEM;
			*epochs = ep = v;
			ep[ns] = TY_NONE;
		}
		if (ep[ns] == TY_NONE)
			ep[ns] = e;
		x->stack = ns;
	}
	if (!(c->eoff = malloc((size_t)c->nstacks * sizeof(uint32_t))) ||
	    !(c->elen = calloc(c->nstacks, sizeof(uint32_t))) ||
	    !(c->efirst = calloc(c->nstacks, sizeof(uint32_t))) ||
	    !(c->wpid = calloc(c->nstacks, sizeof(uint32_t))) ||
	    !(c->wkind = calloc(c->nstacks, 1)) ||
	    !(c->wkeep = calloc(c->nstacks, sizeof(uint32_t))) || !(c->rooted = malloc(c->nstacks)))
		return -ENOMEM;
	memset(c->eoff, 0xff, (size_t)c->nstacks * sizeof(uint32_t));
	for (i = 0; i < c->nstacks; i++) /* the raw stacks go before the grafts */
		c->rooted[i] = (c->words[c->stack_off[i]] & KEY_ROOTED) != 0;
	return 0;
}

void
ty_collector_exec_times(struct ty_collector *c, uint64_t *times)
{
	size_t i;

	for (i = 0; i < c->nentries; i++) /* 1: no sample has the stack, 2: some do */
		c->eoff[c->entries[i].stack] = times[c->entries[i].stack] == UINT64_MAX ? 1 : 2;
	for (i = 0; i < c->nentries; i++)
		if (c->entries[i].at.time < times[c->entries[i].stack])
			times[c->entries[i].stack] = c->entries[i].at.time;
}

int
ty_collector_is_entry(const struct ty_collector *c, uint32_t s)
{
	return c->eoff && c->eoff[s] != TY_NONE ? (int)c->eoff[s] : 0;
}

int
ty_collector_exec_keep(struct ty_collector *c, uint32_t s, const uint32_t *locs, uint32_t n,
		       uint32_t nfirst)
{
	if (ty_array_grow(&c->elocs, sizeof(uint32_t), c->nelocs + n, &c->capelocs) < 0)
		return -ENOMEM;
	memcpy(c->elocs + c->nelocs, locs, n * sizeof(uint32_t));
	c->eoff[s] = (uint32_t)c->nelocs;
	c->elen[s] = n;
	c->efirst[s] = nfirst;
	c->nelocs += n;
	return 0;
}

void
ty_collector_exec_window(struct ty_collector *c, uint32_t s, uint32_t pid, int xol, uint32_t keep)
{
	if (c->wpid)
		c->wpid[s] = pid, c->wkind[s] = xol ? 2 : 1, c->wkeep[s] = keep;
}

#define XOL_NS 50000000ull /* an entry's step out of line comes this soon after it */

/* The entry of the execve that a sample of PID at TIME in its exec window
 * is inside: the latest entry before TIME, with no more than one exec of
 * PID between the two (the one of this execve, when the sample is after
 * its point of no return). XOL: the sample is in the probe's step out of
 * line, right after its entry, before any exec. NULL when there is none. */
static const struct exec_entry *
entry_of(const struct ty_collector *c, uint32_t pid, uint64_t time, int xol)
{
	size_t lo = ev_after(c->entries, c->nentries, sizeof(*c->entries), pid, time, 1), a, b;
	const struct exec_entry *x;

	if (lo == 0 || (x = &c->entries[lo - 1])->at.pid != pid)
		return NULL;
	a = exec_after(c, pid, x->at.time);
	b = exec_after(c, pid, time);
	if (xol)
		return b == a && time - x->at.time < XOL_NS ? x : NULL;
	return b - a <= 1 ? x : NULL;
}

/* Sample R's chain, complete as its raw stack's was (WAS), is complete as
 * its entry's is (NOW): a change is noted. */
static int
note_graft(struct ty_collector *c, const struct raw_sample *r, int was, int now)
{
	if (was == now)
		return 0;
	if (ty_array_grow(&c->grafts, sizeof(*c->grafts), c->ngrafts + 1, &c->capgrafts) < 0)
		return -ENOMEM;
	c->grafts[c->ngrafts++] = (struct ty_collector_graft){r->tid, r->time, now};
	return 0;
}

uint32_t
ty_collector_exec_graft(struct ty_collector *c, struct ty_profile *p, const struct raw_sample *r,
			uint32_t pstack, int counted)
{
	const struct exec_entry *x;
	uint32_t locs[TY_SAMPLER_MAX_STACK * 2], n, m, k, from, s = r->stack, ns;
	const uint32_t *own, *el;
	int xol, cut = 0;

	if (!c->wpid || !c->wpid[s] ||
	    !(x = entry_of(c, c->wpid[s], r->time, xol = c->wkind[s] == 2)) ||
	    c->eoff[x->stack] == TY_NONE || !c->elen[x->stack])
		return pstack;
	own = p->frames + p->stack_off[pstack];
	n = p->stack_off[pstack + 1] - p->stack_off[pstack];
	el = c->elocs + c->eoff[x->stack];
	m = c->elen[x->stack];
	/* The first KEEP locations stay: all but [exec], the old program's pc
	 * last, the same function as the entry's leaf (else another execve
	 * than the probed one), then the entry's callers; or the kernel's
	 * part of a step's, then the whole of the entry's chain. */
	n = c->wkeep[s] < n ? c->wkeep[s] : n;
	from = xol ? 0 : c->efirst[x->stack];
	if (c->efirst[x->stack] == 0 || c->efirst[x->stack] > m ||
	    (!xol && (n == 0 || p->locs[own[n - 1]].func != p->locs[el[from - 1]].func)))
		return pstack;
	if ((size_t)n + (m - from) > sizeof(locs) / sizeof(*locs))
		m = (uint32_t)(sizeof(locs) / sizeof(*locs)) - n + from, cut = 1;
	memcpy(locs, own, n * sizeof(*locs));
	for (k = from; k < m; k++)
		locs[n + k - from] = el[k];
	if ((ns = ty_profile_stack(p, locs, n + m - from)) != TY_NONE && counted &&
	    note_graft(c, r, c->rooted[s], c->rooted[x->stack] && !cut) < 0)
		return TY_NONE;
	return ns;
}

size_t
ty_collector_grafts(const struct ty_collector *c, const struct ty_collector_graft **v)
{
	*v = c->grafts;
	return c->ngrafts;
}

void
ty_collector_exec_free(struct ty_collector *c)
{
	free(c->eoff);
	free(c->elen);
	free(c->efirst);
	free(c->elocs);
	free(c->wpid);
	free(c->wkind);
	free(c->wkeep);
	free(c->rooted);
	free(c->grafts);
	c->wkind = c->rooted = NULL;
	c->wkeep = NULL;
	c->grafts = NULL;
	c->ngrafts = c->capgrafts = 0;
	c->eoff = c->elen = c->efirst = c->elocs = c->wpid = NULL;
	c->nelocs = c->capelocs = 0;
}
