/* collect-offcpu.c - the collector's off-CPU pairing (see
 * collect-offcpu.h): switch records kept per thread as they come (a
 * thread leaves one CPU and comes back on another: its records are in two
 * rings, drained in any order), sorted and paired at the end, the chains
 * of the switch-outs without one taken from those around them, and the
 * kind of wait told from the kernel's frames. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect-offcpu.h"

static int sw_cmp(const void *a, const void *b);

/* The switch entries of thread TID, or NULL (out of memory). */
static struct swlist *
swlist(struct ty_collector *c, uint32_t tid)
{
	uint32_t *slot;

	if (c->swlast && c->swl[c->swlast - 1].tid == tid)
		return &c->swl[c->swlast - 1];
	/* room for a new list first: nothing to undo in the map */
	if (ty_array_grow(&c->swl, sizeof(*c->swl), c->nswl + 1, &c->capswl) < 0 ||
	    !(slot = ty_idmap_get(&c->swmap, tid)))
		return NULL;
	if (*slot == TY_IDMAP_NONE) {
		memset(&c->swl[c->nswl], 0, sizeof(*c->swl));
		c->swl[c->nswl].tid = tid;
		*slot = (uint32_t)c->nswl++;
		c->new_lists++;
	}
	c->swlast = *slot + 1;
	return &c->swl[*slot];
}

void
ty_collector_switch(struct ty_collector *c, const struct ty_sampler_rec *r, int kind,
		    uint32_t stack)
{
	struct swlist *l = swlist(c, r->tid);
	struct sw *last, e = {r->time, r->cpu, stack, (uint8_t)kind, (uint8_t)r->preempt, 0};

	if (!l) {
		c->oom = 1;
		return;
	}
	last = l->n ? &l->v[l->n - 1] : NULL;
	c->nout += kind == SW_OUT;
	if (kind == SW_OUT && r->time > l->last_out)
		l->last_out = r->time;
	if (kind == SW_IN && r->time > l->last_in)
		l->last_in = r->time;
	/* The kernel writes a switch-out record right after the sample of
	 * the same switch, in the same ring: one entry holds both (its stack
	 * is the sample's), a third fewer entries to pair. */
	if (kind == SW_OUT && last && last->kind == SW_SAMPLE && last->cpu == r->cpu &&
	    last->time <= r->time) {
		last->kind = SW_OUT;
		last->time = r->time;
		last->preempt = (uint8_t)r->preempt;
		return;
	}
	if (last && sw_cmp(last, &e) > 0)
		l->disordered = 1;
	if (ty_array_grow(&l->v, sizeof(*l->v), l->n + 1, &l->cap) < 0) {
		c->oom = 1;
		return;
	}
	l->v[l->n++] = e;
}

void
ty_collector_sched_switch(struct ty_collector *c, const struct ty_sampler_rec *r, int out,
			  uint32_t state)
{
	struct swlist *l;

	ty_collector_switch(c, r, out ? SW_OUT : SW_IN, TY_NONE);
	if (out && state != TY_STATE_RUNNABLE && (l = swlist(c, r->tid)) && l->n &&
	    l->v[l->n - 1].kind == SW_OUT)
		l->v[l->n - 1].hint = (uint8_t)state;
}

void
ty_collector_switch_exit(struct ty_collector *c, uint32_t tid)
{
	uint32_t *slot;

	if (c->nswl && (slot = ty_idmap_get(&c->swmap, tid)) && *slot != TY_IDMAP_NONE)
		c->swl[*slot].exited = 1;
}

void
ty_collector_peek(struct ty_collector *c, const struct ty_sampler_rec *r)
{
	uint32_t s = r->nr ? ty_collector_intern_stack(c, KEY_OF(r), r->chain, r->nr) : TY_NONE;
	struct swlist *l;

	if (s == TY_NONE) {
		c->oom |= r->nr != 0;
		return;
	}
	ty_collector_switch(c, r, SW_PEEK, s);
	if ((l = swlist(c, r->tid)) && r->time > l->peeked)
		l->peeked = r->time;
}

size_t
ty_collector_off_cpu(struct ty_collector *c, uint32_t *tids, size_t max)
{
	size_t k, n = 0;

	for (k = 0; k < c->nswl && n < max; k++) {
		const struct swlist *l = &c->swl[(c->offcur + k) % c->nswl];
		if (!l->exited && l->last_out > l->last_in && l->peeked < l->last_out)
			tids[n++] = l->tid;
	}
	if (c->nswl)
		c->offcur = (c->offcur + k) % c->nswl;
	return n;
}

void
ty_collector_switch_sample(struct ty_collector *c, const struct ty_sampler_rec *r)
{
	const uint64_t *ips = r->nr ? r->chain : &r->ip;
	uint64_t n = r->nr ? r->nr : 1;
	uint32_t s = ty_collector_intern_stack(c, KEY_OF(r), ips, n);

	if (s == TY_NONE)
		c->oom = 1;
	else
		ty_collector_switch(c, r, SW_SAMPLE, s);
}

static int
sw_cmp(const void *a, const void *b)
{
	const struct sw *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* Merge the sorted runs V[0..m) and V[m..n) through TMP. */
static void
merge_runs(struct sw *v, size_t m, size_t n, struct sw *tmp)
{
	size_t i = 0, j = m, k = 0;

	if (m == 0 || m == n || sw_cmp(&v[m - 1], &v[m]) <= 0)
		return;
	while (i < m && j < n)
		tmp[k++] = sw_cmp(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < m)
		tmp[k++] = v[i++];
	memcpy(v, tmp, k * sizeof(*v)); /* what is left of v[j..n) is in place */
}

/* Sort V[0..n) (one thread's entries) by time: a natural merge sort. The
 * entries are a few sorted runs (each drain of a ring appends one), so
 * this is a pass or two (one entry out of place made qsort sort them all). */
static void
sort_thread(struct sw *v, size_t n, struct sw *tmp)
{
	size_t i, runs;

	for (;;) {
		/* merge each pair of neighbouring runs, left to right */
		for (i = 0, runs = 0; i < n; runs++) {
			size_t m = i + 1, e;
			while (m < n && sw_cmp(&v[m - 1], &v[m]) <= 0)
				m++;
			if (m == n) {
				runs++;
				break;
			}
			for (e = m + 1; e < n && sw_cmp(&v[e - 1], &v[e]) <= 0; e++)
				;
			merge_runs(v + i, m - i, e - i, tmp);
			i = e;
		}
		if (runs <= 1)
			return;
	}
}

static const struct raw_sample *sort_samples;

static int
idx_cmp(const void *a, const void *b)
{
	const struct raw_sample *x = &sort_samples[*(const size_t *)a];
	const struct raw_sample *y = &sort_samples[*(const size_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The stack of TID's last on-CPU sample before T (ORDER: the on-CPU
 * samples sorted by thread and time), or TY_NONE. */
static uint32_t
last_sample(const struct ty_collector *c, const size_t *order, size_t n, uint32_t tid, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first sample not before (tid, t) */
		size_t mid = lo + (hi - lo) / 2;
		const struct raw_sample *m = &c->samples[order[mid]];
		if (m->tid < tid || (m->tid == tid && m->time < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || c->samples[order[lo - 1]].tid != tid)
		return TY_NONE;
	return c->samples[order[lo - 1]].stack;
}

static int
list_cmp(const void *a, const void *b)
{
	const struct swlist *x = *(const struct swlist *const *)a;
	const struct swlist *y = *(const struct swlist *const *)b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* How far apart two durations are: the larger over the smaller. */
static double
dur_ratio(uint64_t a, uint64_t b)
{
	double x = (double)(a ? a : 1), y = (double)(b ? b : 1);

	return x > y ? x / y : y / x;
}

#define DONORS 16 /* the chained intervals around an unchained one it looks at */

/* The off-CPU samples FIRST.. of one thread without a chain of their own
 * (TY_NONE) each take the chain of one that has one (from_chain 2): of the
 * DONORS around it in time (half before, half after, where there are)
 * that were preempted or not as it was, the one whose duration is nearest
 * its own (then the nearest in time). A chain sampled in a window thus
 * stands for the intervals around it that are like it: a long sleep
 * between short waits on a lock takes a sleep's chain where one was
 * sampled near. DONOR has room for one index each. */
static void
impute(struct ty_collector *c, size_t first, size_t *donor)
{
	int kind;

	for (kind = 0; kind < 2; kind++) {
		size_t nd = 0, k, p = 0;
		for (k = first; k < c->nsamples; k++)
			if (c->from_chain[k - c->first_off] == 1 &&
			    (c->samples[k].state == TY_STATE_RUNNABLE) == kind)
				donor[nd++] = k;
		if (!nd)
			continue;
		for (k = first; k < c->nsamples; k++) {
			struct raw_sample *s = &c->samples[k];
			size_t lo, hi, j, best;
			double bd = 0, bt = 0;
			if (c->from_chain[k - c->first_off] == 1 ||
			    (s->state == TY_STATE_RUNNABLE) != kind)
				continue;
			while (p < nd && c->samples[donor[p]].time < s->time)
				p++;
			lo = p > DONORS / 2 ? p - DONORS / 2 : 0;
			hi = lo + DONORS < nd ? lo + DONORS : nd;
			if (hi - lo < DONORS)
				lo = hi > DONORS ? hi - DONORS : 0;
			for (best = SIZE_MAX, j = lo; j < hi; j++) {
				const struct raw_sample *d = &c->samples[donor[j]];
				double r = dur_ratio(d->period, s->period);
				double dt = d->time > s->time ? (double)(d->time - s->time)
							      : (double)(s->time - d->time);
				if (best == SIZE_MAX || r < bd || (r == bd && dt < bt))
					best = donor[j], bd = r, bt = dt;
			}
			s->stack = c->samples[best].stack;
			c->from_chain[k - c->first_off] = 2;
		}
	}
}

/* Pair the entries of one thread's list L (sorted) into off-CPU samples;
 * PREV has room for one index per switch-out of L. */
static int
pair_thread(struct ty_collector *c, const struct swlist *l, const size_t *order, size_t non,
	    uint32_t *empty, size_t *prev)
{
	const struct sw *v = l->v;
	size_t i, j, n = l->n, first = c->nsamples;

	for (i = 0; i < n; i++) {
		const struct sw *o = &v[i], *in = NULL, *smp = NULL, *peek = NULL;
		struct raw_sample rs;
		if (o->kind != SW_OUT)
			continue;
		for (j = i + 1; j < n; j++) {
			if (v[j].kind == SW_PEEK && !peek)
				peek = &v[j];
			if (v[j].kind == SW_IN) {
				in = &v[j];
				break;
			}
			if (v[j].kind == SW_OUT) /* its switch-in was lost */
				break;
		}
		if (!in)
			continue;
		/* the context-switch sample comes just before its switch-out
		 * (mostly merged into it by ty_collector_switch) */
		if (o->stack != TY_NONE)
			smp = o;
		for (j = i; !smp && j-- > 0 && v[j].kind != SW_IN;)
			if (v[j].kind == SW_SAMPLE) {
				smp = &v[j];
				break;
			}
		if (!smp) /* none from the kernel: one read while it lasted */
			smp = peek;
		rs.time = o->time;
		rs.period = in->time - o->time;
		rs.tid = l->tid;
		rs.cpu = o->cpu;
		rs.state =
		    o->preempt ? TY_STATE_RUNNABLE : TY_STATE_BLOCKED | (uint32_t)o->hint << 8;
		rs.stack = smp ? smp->stack : TY_NONE;
		if (smp)
			c->chained++, c->chained_ns += rs.period;
		/* room was made for every switch-out */
		c->from_chain[c->nsamples - c->first_off] = smp != NULL;
		c->samples[c->nsamples++] = rs;
	}
	impute(c, first, prev);
	for (i = first; i < c->nsamples; i++) {
		struct raw_sample *rs = &c->samples[i];
		if (rs->stack == TY_NONE) /* no chain in the thread: its last sample */
			rs->stack = last_sample(c, order, non, rs->tid, rs->time);
		if (rs->stack == TY_NONE) {
			if (*empty == TY_NONE &&
			    (*empty = ty_collector_intern_stack(c, 0, &rs->time, 0)) == TY_NONE)
				return -ENOMEM;
			rs->stack = *empty;
		}
	}
	return 0;
}

/* Turn the switch records into off-CPU samples: each switch-out with the
 * next switch-in of its thread, its time off the CPU as the weight; the
 * stack is the context-switch sample taken at that switch-out (from_chain
 * 1), or else one such of its thread (2, impute: only a share of the
 * switch-outs had a chain, or a sample was lost), or else the thread's
 * last on-CPU sample (0), or else none. The state is runnable when the
 * kernel says it was preempted; the others are told apart from the
 * kernel's call chain once it is resolved (ty_collector_classify). Threads in the
 * order of their ids. */
int
ty_collector_pair_switches(struct ty_collector *c)
{
	size_t i, non = c->nsamples, *order = NULL, cap = 0, most = 0, longest = 0, *prev = NULL;
	struct swlist **lists = NULL;
	struct sw *tmp = NULL;
	uint32_t empty = TY_NONE;
	int ret = -ENOMEM;

	c->first_off = c->nsamples;
	if (!c->nswl)
		return 0;
	if (ty_array_grow(&c->samples, sizeof(*c->samples), c->nsamples + c->nout + 1,
			  &c->capsamples) < 0 ||
	    ty_array_grow(&c->from_chain, 1, c->nout + 1, &cap) < 0 ||
	    !(order = malloc((non ? non : 1) * sizeof(*order))) ||
	    !(lists = malloc(c->nswl * sizeof(*lists))))
		goto out;
	for (i = 0; i < non; i++)
		order[i] = i;
	sort_samples = c->samples;
	if (non > 1)
		qsort(order, non, sizeof(*order), idx_cmp);
	for (i = 0; i < c->nswl; i++) {
		lists[i] = &c->swl[i];
		if (c->swl[i].disordered && c->swl[i].n > most)
			most = c->swl[i].n;
		if (c->swl[i].n > longest)
			longest = c->swl[i].n;
	}
	qsort(lists, c->nswl, sizeof(*lists), list_cmp);
	if ((most && !(tmp = malloc(most * sizeof(*tmp)))) ||
	    !(prev = malloc((longest ? longest : 1) * sizeof(*prev))))
		goto out;
	for (i = 0; i < c->nswl; i++) {
		if (lists[i]->disordered) {
			sort_thread(lists[i]->v, lists[i]->n, tmp);
			lists[i]->disordered = 0;
		}
		if (pair_thread(c, lists[i], order, non, &empty, prev) < 0)
			goto out;
	}
	ret = 0;
out:
	free(order);
	free(lists);
	free(tmp);
	free(prev);
	return ret;
}

/* What a thread that went off the CPU in the kernel's STACK (resolved,
 * leaf first) waited for: a lock (a futex, a kernel mutex or semaphore),
 * I/O (a pipe, a socket, a terminal, a disk, poll), or a sleep (nanosleep,
 * a timer, a child), in that order of precedence; else it is blocked on
 * something not told apart. */
uint32_t
ty_collector_classify(const struct ty_profile *p, uint32_t stack)
{
	static const char *const lock[] = {
	    "futex_wait", "__futex_wait", "futex_q_lock", "mutex_lock",	  "__mutex_lock",
	    "rwsem_down", "__down",	  "rt_mutex",	  "percpu_rwsem", NULL};
	static const char *const io[] = {
	    "io_schedule",  "pipe_read",    "pipe_write",  "pipe_wait",	       "wait_for_partner",
	    "sk_wait_data", "unix_stream_", "tcp_recvmsg", "inet_csk_accept",  "do_select",
	    "do_sys_poll",  "do_poll",	    "ep_poll",	   "n_tty_read",       "wait_woken",
	    "folio_wait",   "wait_on_page", "__lock_page", "bit_wait_io",      "blk_",
	    "jbd2_",	    "nfs_",	    "fuse_",	   "__wait_on_buffer", NULL};
	static const char *const sleep[] = {"do_nanosleep",
					    "hrtimer_nanosleep",
					    "schedule_hrtimeout",
					    "schedule_timeout",
					    "do_wait",
					    "kernel_wait4",
					    "sigsuspend",
					    "sys_pause",
					    "do_sigtimedwait",
					    NULL};
	static const char *const *const kinds[] = {lock, io, sleep};
	static const uint32_t states[] = {TY_STATE_LOCK, TY_STATE_IO, TY_STATE_SLEEP};
	uint32_t k, i;
	int j;

	for (k = 0; k < 3; k++)
		for (i = p->stack_off[stack]; i < p->stack_off[stack + 1]; i++) {
			uint32_t f = p->locs[p->frames[i]].func;
			const char *name = ty_profile_func_name(p, f);
			if (ty_profile_func_dso(p, f)[0] != '[') /* the kernel's frames only */
				continue;
			for (j = 0; kinds[k][j]; j++)
				if (strstr(name, kinds[k][j]))
					return states[k];
		}
	return TY_STATE_BLOCKED;
}
