/* collect.c - sampler records -> a resolved profile.
 *
 * During the recording only cheap work is done: samples are appended and
 * their raw stacks interned; names are resolved once at the end, once per
 * distinct (process, address), file by file (lib/symbatch.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect-offcpu.h"
#include "tachy/array.h"
#include "tachy/collect.h"
#include "tachy/symbatch.h"

struct ty_collector *
ty_collector_new(struct ty_symbols *syms)
{
	struct ty_collector *c = calloc(1, sizeof(*c));

	if (c)
		c->syms = syms;
	return c;
}

void
ty_collector_free(struct ty_collector *c)
{
	size_t i;

	if (!c)
		return;
	free(c->words);
	free(c->stack_off);
	free(c->slots);
	free(c->samples);
	free(c->threads);
	for (i = 0; i < c->nswl; i++)
		free(c->swl[i].v);
	free(c->swl);
	ty_idmap_release(&c->swmap);
	free(c->from_chain);
	free(c->execs);
	free(c->entries);
	free(c->forks);
	ty_collector_exec_free(c);
	free(c);
}

uint64_t
ty_collector_samples(const struct ty_collector *c)
{
	return c->nsamples;
}

uint64_t
ty_collector_lost(const struct ty_collector *c)
{
	return c->lost;
}

uint64_t
ty_collector_throttled(const struct ty_collector *c)
{
	return c->throttled;
}

uint64_t
ty_collector_unthrottled(const struct ty_collector *c)
{
	return c->unthrottled;
}

size_t
ty_collector_pids(const struct ty_collector *c, uint32_t *out, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < c->nthreads; i++) {
		for (j = 0; j < i && c->threads[j].pid != c->threads[i].pid; j++)
			;
		if (j < i)
			continue;
		if (n < max)
			out[n] = c->threads[i].pid;
		n++;
	}
	return n;
}

static uint64_t
stack_hash(uint64_t key, const uint64_t *ips, uint64_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ key, i, v;

	for (i = 0; i < n; i++) {
		memcpy(&v, &ips[i], 8);
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 31;
	}
	return h;
}

static int
stack_eq(const struct ty_collector *c, uint32_t s, uint64_t key, const uint64_t *ips, uint64_t n)
{
	const uint64_t *w = c->words + c->stack_off[s];

	return w[0] == key && w[1] == n && memcmp(w + 2, ips, n * 8) == 0;
}

static int
rehash(struct ty_collector *c)
{
	size_t n = c->nslots ? c->nslots * 2 : 1024, i, j;
	uint32_t *ns = malloc(n * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	memset(ns, 0xff, n * sizeof(*ns));
	for (i = 0; i < c->nstacks; i++) {
		const uint64_t *w = c->words + c->stack_off[i];
		for (j = stack_hash(w[0], w + 2, w[1]) & (n - 1); ns[j] != TY_NONE;
		     j = (j + 1) & (n - 1))
			;
		ns[j] = (uint32_t)i;
	}
	free(c->slots);
	c->slots = ns;
	c->nslots = n;
	return 0;
}

/* KEY: the pid in the low 32 bits; above, the epoch + 1 of a stack split
 * off at the end (see split_epochs), 0 for the stacks of the recording. */
uint32_t
ty_collector_intern_stack(struct ty_collector *c, uint64_t key, const uint64_t *ips, uint64_t n)
{
	size_t j;

	if ((c->nstacks + 1) * 2 > c->nslots && rehash(c) < 0)
		return TY_NONE;
	for (j = stack_hash(key, ips, n) & (c->nslots - 1); c->slots[j] != TY_NONE;
	     j = (j + 1) & (c->nslots - 1))
		if (stack_eq(c, c->slots[j], key, ips, n))
			return c->slots[j];
	if (ty_array_grow(&c->words, 8, c->nwords + 2 + n, &c->capwords) < 0 ||
	    ty_array_grow(&c->stack_off, sizeof(size_t), c->nstacks + 1, &c->capstacks) < 0)
		return TY_NONE;
	c->stack_off[c->nstacks] = c->nwords;
	c->words[c->nwords++] = key;
	c->words[c->nwords++] = n;
	memcpy(c->words + c->nwords, ips, n * 8);
	c->nwords += n;
	c->slots[j] = c->nstacks;
	return c->nstacks++;
}

static const struct tcomm *
find_thread(const struct ty_collector *c, uint32_t tid)
{
	size_t i;

	for (i = c->nthreads; i-- > 0;)
		if (c->threads[i].tid == tid)
			return &c->threads[i];
	return NULL;
}

int
ty_collector_forked(const struct ty_collector *c, uint32_t pid)
{
	size_t i;

	for (i = c->nthreads; i-- > 0;)
		if (c->threads[i].pid == pid && c->threads[i].fork_time)
			return 1;
	return 0;
}

/* By time, then pid (ties between independent forks: the same order on
 * every run). */
static int
fork_by_time(const void *a, const void *b)
{
	const struct fork_ev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int
fork_by_pid(const void *a, const void *b)
{
	const struct fork_ev *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The process tree is derived here, once, from the forks in time order
 * (a fork drained before its parent's, from another CPU's ring, still
 * counts): each fork starts an incarnation of its pid, the command's
 * where its parent's current one is. A sample counts where the latest
 * incarnation of its pid begun by its time is the command's: a pid reused
 * by another's fork, or one the command's fork reuses, is not followed
 * outside the command's time with it. */
int
ty_collector_tree_samples(const struct ty_collector *c, uint32_t root, uint64_t *n)
{
	struct fork_ev *v;
	struct ty_idmap cur = {0}; /* pid -> its current incarnation's is the command's */
	uint32_t *slot;
	size_t i, nv = c->nforks + 1;

	*n = 0;
	if (c->forks_oom || c->oom || !(v = malloc(nv * sizeof(*v))))
		return -ENOMEM;
	if (c->nforks)
		memcpy(v, c->forks, c->nforks * sizeof(*v));
	qsort(v, c->nforks, sizeof(*v), fork_by_time);
	if (!(slot = ty_idmap_get(&cur, root)))
		goto oom;
	*slot = 1;
	for (i = 0; i < c->nforks; i++) {
		uint32_t in = ty_idmap_find(&cur, v[i].ppid) == 1;
		if (!(slot = ty_idmap_get(&cur, v[i].pid)))
			goto oom;
		*slot = in;
		v[i].ppid = in; /* from here on: the incarnation's is the command's */
	}
	ty_idmap_release(&cur);
	v[c->nforks] = (struct fork_ev){0, root, 1}; /* the command, from the start */
	qsort(v, nv, sizeof(*v), fork_by_pid);
	for (i = 0; i < c->nsamples; i++) {
		const struct raw_sample *s = &c->samples[i];
		uint32_t pid = (uint32_t)c->words[c->stack_off[s->stack]];
		size_t lo = 0, hi = nv; /* the first after (pid, time) */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid].pid < pid || (v[mid].pid == pid && v[mid].time <= s->time))
				lo = mid + 1;
			else
				hi = mid;
		}
		*n += s->state == TY_STATE_CPU && lo > 0 && v[lo - 1].pid == pid && v[lo - 1].ppid;
	}
	free(v);
	return 0;
oom:
	ty_idmap_release(&cur);
	free(v);
	return -ENOMEM;
}

uint32_t
ty_collector_pid_of(const struct ty_collector *c, uint32_t tid)
{
	const struct tcomm *t = find_thread(c, tid);

	return t ? t->pid : tid;
}

static struct tcomm *
thread(struct ty_collector *c, uint32_t pid, uint32_t tid)
{
	struct tcomm *t = (struct tcomm *)find_thread(c, tid);

	if (t)
		return t;
	if (ty_array_grow(&c->threads, sizeof(*c->threads), c->nthreads + 1, &c->capthreads) < 0)
		return NULL;
	memset(&c->threads[c->nthreads], 0, sizeof(*c->threads));
	c->threads[c->nthreads].pid = pid;
	c->threads[c->nthreads].tid = tid;
	return &c->threads[c->nthreads++];
}

/* Thread T was named NAME at TIME (a COMM record). The names are kept in
 * the order they happened, not read: a wrapper's exec (taskset, env) and
 * the command's may come from two rings in either order. */
static void
add_name(struct tcomm *t, uint64_t time, const char *name)
{
	unsigned i;

	if (t->nhist == NAMES) { /* the oldest goes, unless this is older still */
		if (time < t->hist[0].time)
			return;
		memmove(t->hist, t->hist + 1, (NAMES - 1) * sizeof(*t->hist));
		t->nhist--;
	}
	for (i = t->nhist; i > 0 && t->hist[i - 1].time > time; i--)
		t->hist[i] = t->hist[i - 1];
	t->hist[i].time = time;
	snprintf(t->hist[i].comm, sizeof(t->hist[i].comm), "%s", name);
	t->nhist++;
	memcpy(t->comm, t->hist[t->nhist - 1].comm, sizeof(t->comm));
}

size_t
ty_collector_new_threads(struct ty_collector *c)
{
	size_t n = c->new_lists;

	c->new_lists = 0;
	return n;
}

static void
on_sample(struct ty_collector *c, const struct ty_sampler_rec *r)
{
	const uint64_t *ips = r->nr ? r->chain : &r->ip;
	uint64_t n = r->nr ? r->nr : 1;
	uint32_t s = ty_collector_intern_stack(c, KEY_OF(r), ips, n);

	if (s == TY_NONE ||
	    ty_array_grow(&c->samples, sizeof(*c->samples), c->nsamples + 1, &c->capsamples) < 0) {
		c->oom = 1;
		return;
	}
	c->samples[c->nsamples++] =
	    (struct raw_sample){r->time, r->period, r->tid, r->cpu, s, TY_STATE_CPU};
}

void
ty_collector_record(const struct ty_sampler_rec *r, void *arg)
{
	struct ty_collector *c = arg;
	struct tcomm *t;

	switch (r->type) {
	case TY_SAMPLER_REC_SAMPLE:
		on_sample(c, r);
		break;
	case TY_SAMPLER_REC_SWITCH:
		ty_collector_switch(c, r, r->out ? SW_OUT : SW_IN, TY_NONE);
		break;
	case TY_SAMPLER_REC_SWITCH_SAMPLE:
		ty_collector_switch_sample(c, r);
		break;
	case TY_SAMPLER_REC_EXEC_ENTRY:
		ty_collector_exec_entry(c, r);
		break;
	case TY_SAMPLER_REC_MMAP:
		if (ty_symbols_add_mmap_id(c->syms, r->pid, r->start, r->len, r->pgoff, r->name,
					   r->dev, r->ino, r->time) < 0)
			c->oom = 1;
		break;
	case TY_SAMPLER_REC_COMM:
		if ((t = thread(c, r->pid, r->tid)))
			add_name(t, r->time, r->name);
		if (r->exec) {
			ty_symbols_exec(c->syms, r->pid, r->time);
			if (ty_array_grow(&c->execs, sizeof(*c->execs), c->nexecs + 1,
					  &c->capexecs) < 0)
				c->oom = 1;
			else
				c->execs[c->nexecs++] = (struct exec_ev){r->pid, r->time};
		}
		break;
	case TY_SAMPLER_REC_FORK: {
		char comm[32] = "";
		struct tcomm *parent = thread(c, r->ppid, r->ptid);
		ty_symbols_fork(c->syms, r->pid, r->ppid, r->time);
		if (parent)
			memcpy(comm, parent->comm, sizeof(comm));
		if ((t = thread(c, r->pid, r->tid))) {
			if (!t->nhist)
				memcpy(t->comm, comm, sizeof(comm));
			t->ptid = r->ptid;
			t->fork_time = r->time;
		}
		if (r->pid == r->ppid) /* a thread */
			break;
		if (ty_array_grow(&c->forks, sizeof(*c->forks), c->nforks + 1, &c->capforks) < 0)
			c->forks_oom = 1;
		else
			c->forks[c->nforks++] = (struct fork_ev){r->time, r->pid, r->ppid};
		break;
	}
	case TY_SAMPLER_REC_EXIT: /* one for every thread that ends */
		ty_collector_switch_exit(c, r->tid);
		break;
	case TY_SAMPLER_REC_LOST:
		c->lost += r->lost;
		break;
	case TY_SAMPLER_REC_THROTTLE:
		c->throttled++;
		break;
	case TY_SAMPLER_REC_UNTHROTTLE:
		c->unthrottled++;
		break;
	default:
		break;
	}
}

/* (pid, epoch, address) -> its locations, for the resolution pass: one,
 * or the inlined callees first and then the function (run[loc .. loc+n)). */
struct lockey {
	uint64_t addr;
	uint32_t pid, epoch, loc, n; /* loc TY_NONE: empty */
};

struct loctab { /* open addressing, at most half full */
	struct lockey *v;
	size_t cap, n;
};

static size_t
lockey_slot(uint64_t addr, uint32_t pid, uint32_t epoch, size_t cap)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) ^ pid ^ ((uint64_t)epoch << 40)) & (cap - 1);
}

/* Room in T for one more key: it grows with the distinct addresses (a
 * system-wide recording's stacks hold millions of words, most of them the
 * same few thousand addresses). */
static int
loctab_room(struct loctab *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024, i, j;
	struct lockey *v;

	if ((t->n + 1) * 2 <= t->cap)
		return 0;
	if (!(v = malloc(cap * sizeof(*v))))
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		v[i].loc = TY_NONE;
	for (i = 0; i < t->cap; i++) {
		const struct lockey *x = &t->v[i];
		if (x->loc == TY_NONE)
			continue;
		for (j = lockey_slot(x->addr, x->pid, x->epoch, cap); v[j].loc != TY_NONE;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = *x;
	}
	free(t->v);
	t->v = v;
	t->cap = cap;
	return 0;
}

struct runs {
	uint32_t *v;
	size_t n, cap;
};

#define MAX_INLINE 16

/* Add the location of R's frame FR (NAME, inlined or not) to RUNS. */
static int
add_frame(struct ty_profile *p, struct runs *runs, const struct ty_sym_result *r, const char *name,
	  const struct ty_dso_frame *fr)
{
	char buf[600];
	uint32_t f, l;

	if (fr && fr->inlined) {
		snprintf(buf, sizeof(buf), "%.500s (inlined)", fr->name);
		name = buf;
	}
	if ((f = ty_profile_func(p, name, r->dso)) == TY_NONE ||
	    (l = ty_profile_loc(p, r->addr, f)) == TY_NONE)
		return -ENOMEM;
	if (fr && fr->file && fr->line) {
		snprintf(buf, sizeof(buf), "%.500s:%u", fr->file, fr->line);
		if (ty_profile_loc_line(p, l, buf) < 0)
			return -ENOMEM;
	}
	if (ty_array_grow(&runs->v, sizeof(*runs->v), runs->n + 1, &runs->cap) < 0)
		return -ENOMEM;
	runs->v[runs->n++] = l;
	return 0;
}

static const struct lockey *
resolve(struct ty_collector *c, struct ty_profile *p, struct loctab *t, struct runs *runs,
	uint32_t pid, uint32_t epoch, uint64_t addr, uint64_t time)
{
	struct ty_dso_frame fr[MAX_INLINE];
	struct ty_sym_result r;
	size_t nfr, k, first;
	char buf[512];
	const char *name;
	long l;
	size_t j;

	if (loctab_room(t) < 0)
		return NULL;
	for (j = lockey_slot(addr, pid, epoch, t->cap); t->v[j].loc != TY_NONE;
	     j = (j + 1) & (t->cap - 1))
		if (t->v[j].addr == addr && t->v[j].pid == pid && t->v[j].epoch == epoch)
			return &t->v[j];
	nfr = 0;
	if (addr == TY_FRAME_TRUNCATED) { /* the stack copy ended the chain */
		memset(&r, 0, sizeof(r));
		r.name = "[truncated]";
		r.dso = "[truncated]";
	} else if (c->no_names) {
		memset(&r, 0, sizeof(r));
		r.addr = addr;
		r.dso = "[not named]";
	} else if (addr < TY_KERNEL_START && c->planning) { /* resolved later */
		if (ty_symbatch_add(c->batch, pid, epoch, addr, time) < 0)
			return NULL;
		memset(&r, 0, sizeof(r));
		r.name = r.dso = "[pending]";
	} else if (addr >= TY_KERNEL_START || !c->batch ||
		   (l = ty_symbatch_get(c->batch, pid, epoch, addr, &r, fr, MAX_INLINE)) < 0) {
		ty_symbols_resolve(c->syms, pid, addr, time, 0, &r);
		nfr = r.name ? ty_symbols_frames(c->syms, &r, fr, MAX_INLINE) : 0;
	} else {
		nfr = (size_t)l;
	}
	name = r.name;
	if (!name) {
		snprintf(buf, sizeof(buf), "[unknown] 0x%" PRIx64 " in %s", r.addr,
			 strrchr(r.dso, '/') ? strrchr(r.dso, '/') + 1 : r.dso);
		name = buf;
	}
	first = runs->n;
	if (nfr == 0 && add_frame(p, runs, &r, name, NULL) < 0)
		return NULL;
	for (k = 0; k < nfr; k++)
		if (add_frame(p, runs, &r, name, &fr[k]) < 0)
			return NULL;
	t->v[j] = (struct lockey){addr, pid, epoch, (uint32_t)first, (uint32_t)(runs->n - first)};
	t->n++;
	return &t->v[j];
}

/* Is a sample's one user frame A, inside execve, the new image's entry
 * (its registers set for it: late in the exec, past load_elf_binary), as
 * the mappings from the exec on name it? Then its chain is the new
 * program's, whole. (Named in the second walk: the first asks for it.) */
static int
new_entry(struct ty_collector *c, struct ty_profile *p, struct loctab *tab, struct runs *runs,
	  uint32_t pid, uint32_t ep, uint64_t a, uint64_t t)
{
	const struct lockey *key = resolve(c, p, tab, runs, pid, ep, a, t);

	return key && key->n &&
	       strcmp(ty_profile_func_name(p, p->locs[runs->v[key->loc + key->n - 1]].func),
		      "_start") == 0;
}

/* The epoch of each raw stack (TY_SYMBOLS: the addresses of a process
 * began to mean something else after an exec or a mapping over another
 * file's). A stack whose samples fall in several epochs is split, one
 * stack per epoch, so that each is resolved against its own mappings.
 * *EPOCHS gets the epoch of every stack (after the split). */
static int
split_epochs(struct ty_collector *c, uint32_t **epochs)
{
	uint32_t *ep = NULL, nold = c->nstacks, pid = 0;
	unsigned char *mixed = calloc(nold ? nold : 1, 1);
	size_t cap = 0, i;
	uint64_t ips[TY_SAMPLER_MAX_STACK];
	int any = 0;

	if (!mixed || ty_array_grow(&ep, sizeof(*ep), nold ? nold : 1, &cap) < 0)
		goto oom;
	memset(ep, 0xff, cap * sizeof(*ep));
	for (i = 0; i < c->nsamples; i++) {
		struct raw_sample *r = &c->samples[i];
		uint32_t e;
		pid = (uint32_t)c->words[c->stack_off[r->stack]];
		e = (uint32_t)ty_symbols_epoch(c->syms, pid, r->time);
		if (ep[r->stack] == TY_NONE)
			ep[r->stack] = e;
		else if (ep[r->stack] != e)
			mixed[r->stack] = 1, any = 1;
	}
	for (i = 0; any && i < c->nsamples; i++) {
		struct raw_sample *r = &c->samples[i];
		const uint64_t *w;
		uint32_t e, ns, n;
		if (r->stack >= nold || !mixed[r->stack])
			continue;
		w = c->words + c->stack_off[r->stack];
		pid = (uint32_t)w[0];
		if ((e = (uint32_t)ty_symbols_epoch(c->syms, pid, r->time)) == ep[r->stack])
			continue;
		n = (uint32_t)w[1];
		memcpy(ips, w + 2, n * 8); /* interning may move the words */
		if ((ns = ty_collector_intern_stack(
			 c, (w[0] & KEY_ROOTED) | pid | (uint64_t)(e + 1) << 32, ips, n)) ==
			TY_NONE ||
		    ty_array_grow(&ep, sizeof(*ep), (size_t)ns + 1, &cap) < 0)
			goto oom;
		ep[ns] = e;
		r->stack = ns;
	}
	free(mixed);
	*epochs = ep;
	return 0;
oom:
	free(mixed);
	free(ep);
	return -ENOMEM;
}

/* The first sample time of each raw stack (mappings are looked up then). */
static uint64_t *
first_times(const struct ty_collector *c)
{
	uint64_t *t = malloc((c->nstacks ? c->nstacks : 1) * sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	memset(t, 0xff, (c->nstacks ? c->nstacks : 1) * sizeof(*t));
	for (i = 0; i < c->nsamples; i++)
		if (c->samples[i].time < t[c->samples[i].stack])
			t[c->samples[i].stack] = c->samples[i].time;
	return t;
}

/* One mapping per DSO the functions name, where its file was read: its
 * executable segment and build-id (for pprof's symbolizers). */
static int
add_mappings(struct ty_collector *c, struct ty_profile *p)
{
	uint32_t i, j, nstr = p->nstrings;
	struct ty_dso_info info;
	struct ty_prof_mapping m;

	for (i = 0; i < nstr; i++) {
		for (j = 0; j < p->nfuncs && p->funcs[j].dso != i; j++)
			;
		if (j == p->nfuncs || ty_symbols_dso_info(c->syms, p->strings[i], &info) < 0)
			continue;
		m.dso = i;
		m.build_id = TY_NONE;
		if (info.build_id && *info.build_id &&
		    (m.build_id = ty_profile_string(p, info.build_id)) == TY_NONE)
			return -ENOMEM;
		m.start = info.start;
		m.limit = info.limit;
		m.offset = info.offset;
		if (ty_profile_mapping(p, &m) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A thread without a COMM record of its own has the name its creator had
 * when it created it (through at most 16 creators without one either):
 * the creator's records may have been read after the fork, from another
 * ring. */
static void
name_threads(struct ty_collector *c)
{
	size_t i;

	for (i = 0; i < c->nthreads; i++) {
		const struct tcomm *t = &c->threads[i], *u;
		uint64_t when = t->fork_time;
		unsigned k;
		int depth;
		if (t->nhist || !t->ptid)
			continue;
		for (depth = 0; (u = find_thread(c, t->ptid)) && u != t; depth++) {
			t = u;
			if (t->nhist || !t->ptid || depth == 15)
				break;
			when = t->fork_time;
		}
		if (!t->nhist || t == &c->threads[i])
			continue;
		for (k = t->nhist; k > 1 && t->hist[k - 1].time > when; k--)
			;
		memcpy(c->threads[i].comm, t->hist[k - 1].comm, sizeof(c->threads[i].comm));
	}
}

/* Is a chain's user leaf IP, resolved as location L, the exec probe's
 * instruction stepped out of line: at the start of a slot of the kernel's
 * [uprobes] page (128 bytes each), in no file? */
static int
is_xol(const struct ty_profile *p, uint64_t ip, uint32_t l)
{
	if (ip == TY_FRAME_TRUNCATED || ((ip & ~TY_FRAME_EXACT) & 0x7f) >= 16)
		return 0;
	return strncmp(ty_profile_func_name(p, p->locs[l].func), "[unknown]", 9) == 0;
}

void
ty_collector_no_names(struct ty_collector *c)
{
	c->no_names = 1;
}

int
ty_collector_finish(struct ty_collector *c, struct ty_profile *p, struct ty_error *e)
{
	size_t i, j, k;
	struct loctab tab = {0};
	struct runs runs = {0};
	struct ty_profile *real = p, *scratch = NULL;
	uint32_t *map = NULL, locs[TY_SAMPLER_MAX_STACK * 2], *epochs = NULL, nl;
	uint64_t *times = NULL;
	unsigned char *cls = NULL;
	size_t ncls = 0;

	if (c->oom)
		return ty_error_set(e, -ENOMEM, "out of memory while recording");
	if (ty_collector_pair_switches(c) < 0)
		return ty_error_set(e, -ENOMEM, "out of memory while pairing context switches");
	if (split_epochs(c, &epochs) < 0)
		return ty_error_set(e, -ENOMEM, "out of memory while resolving symbols");
	if (ty_collector_exec_prepare(c, &epochs) < 0)
		goto oom;
	map = malloc((c->nstacks ? c->nstacks : 1) * sizeof(*map));
	times = first_times(c);
	if (!map || !times)
		goto oom;
	ty_collector_exec_times(c, times);
	/* Two walks over the stacks: the first, into a scratch profile, asks
	 * the batch for every user address the second will name; in between,
	 * the batch reads the files one at a time. */
	if (c->no_names) /* one walk, nothing to ask for */
		goto walk;
	if (!(c->batch = ty_symbatch_new(c->syms, MAX_INLINE)) || !(scratch = ty_profile_new()))
		goto oom;
	c->planning = 1;
	p = scratch;
walk:
	for (i = 0; i < c->nstacks; i++) {
		const uint64_t *w = c->words + c->stack_off[i];
		uint32_t pid = (uint32_t)w[0], n = (uint32_t)w[1];
		/* inexec: 1 inside execve, 2 its old program's pc (then
		 * [exec]), 0 elsewhere; newimg: begin_new_exec seen. */
		int inexec = 0, newimg = 0;
		uint64_t when = 0;
		uint32_t nfirst = 0, nuser_at = TY_NONE, userj = 0;
		for (j = 0, nl = 0; j < n; j++) {
			/* A caller's frame holds a return address: look up the
			 * call instruction before it. */
			uint64_t a = w[2 + j] - (j > 0 && w[2 + j] > 0), t = times[i];
			uint32_t ep = epochs[i] == TY_NONE ? 0 : epochs[i];
			/* Unwound by tachy: an interrupted pc (the sample's, or
			 * one a signal frame saved) is looked up as it is. */
			if (w[2 + j] < TY_KERNEL_START && (w[2 + j] & TY_FRAME_EXACT))
				a = w[2 + j] & ~TY_FRAME_EXACT;
			else if (w[2 + j] == TY_FRAME_TRUNCATED)
				a = TY_FRAME_TRUNCATED;
			if (inexec == 1 && a < TY_KERNEL_START && j + 1 == n &&
			    new_entry(c, p, &tab, &runs, pid, ep, a, t)) {
				inexec = 0; /* the new image's first instruction */
			} else if (inexec && a < TY_KERNEL_START) {
				/* The old program's pc, in its old mappings;
				 * the rest of its chain is the new image's. */
				if (inexec == 1 && ty_collector_exec_tail(c, pid, t, &when))
					inexec = 2, t = when ? when - 1 : 0;
				else if (inexec == 1)
					inexec = newimg ? 2 : 0; /* not yet the COMM */
				if (inexec == 2) {
					ep |= 0x80000000u;
					a = w[2 + j] & ~TY_FRAME_EXACT;
				}
			}
			const struct lockey *key = resolve(c, p, &tab, &runs, pid, ep, a, t);
			if (!key)
				goto oom;
			if (nuser_at == TY_NONE && a < TY_KERNEL_START && key->n)
				nuser_at = nl, userj = j; /* the user leaf: its location */
			if (inexec == 2) {
				uint32_t f = p->locs[runs.v[key->loc]].func;
				for (k = 0; ty_profile_func_dso(p, f)[0] != '[' && k < key->n &&
					    nl < sizeof(locs) / sizeof(*locs);
				     k++)
					locs[nl++] = runs.v[key->loc + k];
				break;
			}
			if (a >= TY_KERNEL_START && key->n) {
				int x = ty_collector_is_exec_call(
				    p, p->locs[runs.v[key->loc + key->n - 1]].func);
				inexec |= x == 1;
				newimg |= x == 2;
			}
			/* Inlined callees add frames; a chain too long for the
			 * buffer loses its outermost ones. */
			for (k = 0; k < key->n && nl < sizeof(locs) / sizeof(*locs); k++)
				locs[nl++] = runs.v[key->loc + k];
			if (j == 0)
				nfirst = nl;
		}
		if (inexec == 1 && (newimg || ty_collector_exec_tail(c, pid, times[i], &when)))
			inexec = 2; /* a chain of the kernel's frames only */
		if (inexec == 2 && nl < sizeof(locs) / sizeof(*locs)) {
			uint32_t f = ty_profile_func(p, "[exec]", "[exec]"), l;
			if (f == TY_NONE || (l = ty_profile_loc(p, 0, f)) == TY_NONE)
				goto oom;
			locs[nl++] = l;
			ty_collector_exec_window(c, (uint32_t)i, pid, 0, nl - 1);
		} else if (c->nentries && nuser_at != TY_NONE &&
			   is_xol(p, w[2 + userj], locs[nuser_at])) {
			ty_collector_exec_window(c, (uint32_t)i, pid, 1, nuser_at);
		}
		if (c->planning)
			continue;
		if ((k = (size_t)ty_collector_is_entry(c, (uint32_t)i))) {
			if (ty_collector_exec_keep(c, (uint32_t)i, locs, nl, nfirst) < 0)
				goto oom;
			map[i] = TY_NONE;
			if (k == 1) /* no sample's */
				continue;
		}
		if ((map[i] = ty_profile_stack(p, locs, nl)) == TY_NONE)
			goto oom;
	}
	free(tab.v); /* before the batch reads the files, or the samples are added */
	tab = (struct loctab){0};
	free(runs.v);
	runs = (struct runs){0};
	if (c->planning) {
		c->planning = 0;
		p = real;
		ty_profile_free(scratch);
		scratch = NULL;
		if (ty_symbatch_run(c->batch) < 0)
			goto oom;
		goto walk;
	}
	ty_symbatch_free(c->batch);
	c->batch = NULL;
	/* The raw stacks are the profile's now (MAP): let them go. */
	free(c->words);
	free(c->stack_off);
	free(c->slots);
	c->words = NULL, c->stack_off = NULL, c->slots = NULL;
	c->nwords = c->capwords = c->capstacks = c->nslots = 0;
	c->nstacks = 0;
	name_threads(c);
	for (i = 0; i < c->nthreads; i++)
		if (ty_profile_thread(p, c->threads[i].pid, c->threads[i].tid,
				      c->threads[i].comm[0] ? c->threads[i].comm : "?") == TY_NONE)
			goto oom;
	/* The state of each stack's off-CPU intervals: classified once per
	 * stack (1 + the state; 0: not yet). */
	if (c->nsamples > c->first_off && !(cls = calloc(ncls = p->nstacks ? p->nstacks : 1, 1)))
		goto oom;
	for (i = 0; i < c->nsamples; i++) {
		const struct raw_sample *r = &c->samples[i];
		struct ty_prof_sample s = {r->time, r->period,	   r->tid,
					   r->cpu,  map[r->stack], r->state & 0xff};
		/* an off-CPU interval's chain counts where it is its switch-out's */
		if (c->nentries &&
		    (s.stack = ty_collector_exec_graft(
			 c, p, r, s.stack,
			 i < c->first_off || c->from_chain[i - c->first_off] == 1)) == TY_NONE)
			goto oom;
		if (i >= c->first_off && s.state == TY_STATE_BLOCKED &&
		    c->from_chain[i - c->first_off]) {
			if (s.stack >= ncls) { /* a graft's, made since */
				size_t old = ncls;
				if (ty_array_grow(&cls, 1, (size_t)s.stack + 1, &ncls) < 0)
					goto oom;
				memset(cls + old, 0, ncls - old);
			}
			if (!cls[s.stack])
				cls[s.stack] =
				    (unsigned char)(1 + ty_collector_classify(p, s.stack));
			s.state = cls[s.stack] - 1u;
		}
		if (s.state == TY_STATE_BLOCKED && r->state >> 8) /* what sched_switch said */
			s.state = r->state >> 8;
		if (ty_profile_sample(p, &s) < 0)
			goto oom;
	}
	if (add_mappings(c, p) < 0)
		goto oom;
	p->meta.lost = c->lost;
	p->meta.off_cpu_chained = c->chained;
	p->meta.off_cpu_chained_ns = c->chained_ns;
	p->meta.throttled = c->throttled;
	p->meta.unthrottled = c->unthrottled;
	free(runs.v);
	free(tab.v);
	free(map);
	free(times);
	free(epochs);
	free(cls);
	return 0;
oom:
	ty_profile_free(scratch);
	ty_symbatch_free(c->batch);
	c->batch = NULL;
	c->planning = 0;
	free(runs.v);
	free(tab.v);
	free(map);
	free(times);
	free(epochs);
	free(cls);
	return ty_error_set(e, -ENOMEM, "out of memory while resolving symbols");
}
