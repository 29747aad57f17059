/* profile.c - the profile model: interning, builders, queries. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/profile.h"

/* --- interning: open addressing over indices ------------------------------ */

struct slot {
	uint32_t idx; /* TY_NONE when empty */
	uint32_t hash;
};

struct itab {
	struct slot *s;
	size_t cap, n; /* cap is a power of two */
};

typedef int (*eq_fn)(const void *ctx, uint32_t idx, const void *key);

static uint64_t
hash_u32s(const uint32_t *v, size_t n, uint64_t h)
{
	size_t i;

	h ^= 0x9e3779b97f4a7c15ull * (n + 1);
	for (i = 0; i < n; i++) {
		h = (h ^ v[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	return h ^ (h >> 32);
}

static int
itab_grow(struct itab *t)
{
	size_t nc = t->cap ? t->cap * 2 : 64, i;
	struct slot *ns = malloc(nc * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (i = 0; i < nc; i++)
		ns[i].idx = TY_NONE;
	for (i = 0; i < t->cap; i++) {
		size_t j;
		if (t->s[i].idx == TY_NONE)
			continue;
		for (j = t->s[i].hash & (nc - 1); ns[j].idx != TY_NONE; j = (j + 1) & (nc - 1))
			;
		ns[j] = t->s[i];
	}
	free(t->s);
	t->s = ns;
	t->cap = nc;
	return 0;
}

/* The slot holding KEY, or the empty slot where it goes (NULL: no memory). */
static struct slot *
itab_find(struct itab *t, uint32_t h, eq_fn eq, const void *ctx, const void *key)
{
	size_t j;

	if ((t->n + 1) * 4 > t->cap * 3 && itab_grow(t) < 0)
		return NULL;
	for (j = h & (t->cap - 1); t->s[j].idx != TY_NONE; j = (j + 1) & (t->cap - 1))
		if (t->s[j].hash == h && eq(ctx, t->s[j].idx, key))
			return &t->s[j];
	t->s[j].hash = h;
	return &t->s[j];
}

static void
itab_put(struct itab *t, struct slot *s, uint32_t idx)
{
	s->idx = idx;
	t->n++;
}

/* --- the model -------------------------------------------------------------- */

struct pindex {
	struct itab strings, funcs, locs, stacks, threads;
};

struct ty_profile *
ty_profile_new(void)
{
	struct ty_profile *p = calloc(1, sizeof(*p));

	if (p && !(p->stack_off = calloc(1, sizeof(uint32_t)))) {
		free(p);
		return NULL;
	}
	return p;
}

static void
index_free(struct pindex *x)
{
	if (!x)
		return;
	free(x->strings.s);
	free(x->funcs.s);
	free(x->locs.s);
	free(x->stacks.s);
	free(x->threads.s);
	free(x);
}

void
ty_profile_free(struct ty_profile *p)
{
	uint32_t i;

	if (!p)
		return;
	for (i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->funcs);
	free(p->locs);
	free(p->stack_off);
	free(p->frames);
	free(p->threads);
	free(p->maps);
	free(p->calls);
	free(p->samples);
	free(p->meta.event);
	free(p->meta.command);
	free(p->meta.off_cpu_limits);
	free(p->meta.cpus);
	index_free(p->index);
	free(p);
}

static int
eq_string(const void *ctx, uint32_t idx, const void *key)
{
	const struct ty_profile *p = ctx;
	return strcmp(p->strings[idx], key) == 0;
}

static int
eq_func(const void *ctx, uint32_t idx, const void *key)
{
	const struct ty_profile *p = ctx;
	return memcmp(&p->funcs[idx], key, sizeof(struct ty_prof_func)) == 0;
}

static int
eq_loc(const void *ctx, uint32_t idx, const void *key)
{
	const struct ty_profile *p = ctx;
	const struct ty_prof_loc *k = key;
	return p->locs[idx].addr == k->addr && p->locs[idx].func == k->func;
}

struct stack_key {
	const uint32_t *v;
	uint32_t n;
};

static int
eq_stack(const void *ctx, uint32_t idx, const void *key)
{
	const struct ty_profile *p = ctx;
	const struct stack_key *k = key;
	uint32_t n = p->stack_off[idx + 1] - p->stack_off[idx];
	return n == k->n && memcmp(p->frames + p->stack_off[idx], k->v, n * 4) == 0;
}

static int
eq_thread(const void *ctx, uint32_t idx, const void *key)
{
	const struct ty_profile *p = ctx;
	return p->threads[idx].tid == *(const uint32_t *)key;
}

static uint32_t
h32(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t
loc_hash(const struct ty_prof_loc *l)
{
	uint32_t v[3] = {(uint32_t)l->addr, (uint32_t)(l->addr >> 32), l->func};
	return h32(hash_u32s(v, 3, 1));
}

static uint32_t
stack_hash(const struct ty_profile *p, uint32_t i)
{
	return h32(
	    hash_u32s(p->frames + p->stack_off[i], p->stack_off[i + 1] - p->stack_off[i], 2));
}

/* Build the interning tables of a profile that was read from a file. */
static struct pindex *
get_index(struct ty_profile *p)
{
	struct pindex *x = p->index;
	struct slot *s;
	uint32_t i;

	if (x)
		return x;
	if (!(x = calloc(1, sizeof(*x))))
		return NULL;
	p->index = x;
	for (i = 0; i < p->nstrings; i++)
		if ((s = itab_find(&x->strings,
				   h32(ty_array_hash(p->strings[i], strlen(p->strings[i]), 0)),
				   eq_string, p, p->strings[i])) &&
		    s->idx == TY_NONE)
			itab_put(&x->strings, s, i);
	for (i = 0; i < p->nfuncs; i++)
		if ((s = itab_find(&x->funcs, h32(hash_u32s(&p->funcs[i].name, 2, 0)), eq_func, p,
				   &p->funcs[i])) &&
		    s->idx == TY_NONE)
			itab_put(&x->funcs, s, i);
	for (i = 0; i < p->nlocs; i++)
		if ((s = itab_find(&x->locs, loc_hash(&p->locs[i]), eq_loc, p, &p->locs[i])) &&
		    s->idx == TY_NONE)
			itab_put(&x->locs, s, i);
	for (i = 0; i < p->nstacks; i++) {
		struct stack_key k = {p->frames + p->stack_off[i],
				      p->stack_off[i + 1] - p->stack_off[i]};
		if ((s = itab_find(&x->stacks, stack_hash(p, i), eq_stack, p, &k)) &&
		    s->idx == TY_NONE)
			itab_put(&x->stacks, s, i);
	}
	for (i = 0; i < p->nthreads; i++)
		if ((s = itab_find(&x->threads, p->threads[i].tid * 2654435761u, eq_thread, p,
				   &p->threads[i].tid)) &&
		    s->idx == TY_NONE)
			itab_put(&x->threads, s, i);
	return x;
}

uint32_t
ty_profile_string(struct ty_profile *p, const char *str)
{
	struct pindex *x = get_index(p);
	struct slot *s;
	char *copy;

	if (!x || !(s = itab_find(&x->strings, h32(ty_array_hash(str, strlen(str), 0)), eq_string,
				  p, str)))
		return TY_NONE;
	if (s->idx != TY_NONE)
		return s->idx;
	if (ty_array_grow32(&p->strings, sizeof(*p->strings), p->nstrings + 1, &p->cap_strings) <
		0 ||
	    !(copy = strdup(str)))
		return TY_NONE;
	p->strings[p->nstrings] = copy;
	itab_put(&x->strings, s, p->nstrings);
	return p->nstrings++;
}

uint32_t
ty_profile_func(struct ty_profile *p, const char *name, const char *dso)
{
	struct ty_prof_func f = {ty_profile_string(p, name), ty_profile_string(p, dso)};
	struct pindex *x = p->index;
	struct slot *s;

	if (f.name == TY_NONE || f.dso == TY_NONE ||
	    !(s = itab_find(&x->funcs, h32(hash_u32s(&f.name, 2, 0)), eq_func, p, &f)))
		return TY_NONE;
	if (s->idx != TY_NONE)
		return s->idx;
	if (ty_array_grow32(&p->funcs, sizeof(*p->funcs), p->nfuncs + 1, &p->cap_funcs) < 0)
		return TY_NONE;
	p->funcs[p->nfuncs] = f;
	itab_put(&x->funcs, s, p->nfuncs);
	return p->nfuncs++;
}

uint32_t
ty_profile_loc(struct ty_profile *p, uint64_t addr, uint32_t func)
{
	struct ty_prof_loc l = {addr, func, TY_NONE};
	struct pindex *x = get_index(p);
	struct slot *s;

	if (!x || func >= p->nfuncs || !(s = itab_find(&x->locs, loc_hash(&l), eq_loc, p, &l)))
		return TY_NONE;
	if (s->idx != TY_NONE)
		return s->idx;
	if (ty_array_grow32(&p->locs, sizeof(*p->locs), p->nlocs + 1, &p->cap_locs) < 0)
		return TY_NONE;
	p->locs[p->nlocs] = l;
	itab_put(&x->locs, s, p->nlocs);
	return p->nlocs++;
}

int
ty_profile_loc_line(struct ty_profile *p, uint32_t l, const char *line)
{
	uint32_t str;

	if (l >= p->nlocs || p->locs[l].line != TY_NONE)
		return 0;
	if ((str = ty_profile_string(p, line)) == TY_NONE)
		return -ENOMEM;
	p->locs[l].line = str;
	return 0;
}

uint32_t
ty_profile_stack(struct ty_profile *p, const uint32_t *locs, uint32_t n)
{
	struct pindex *x = get_index(p);
	struct stack_key k = {locs, n};
	struct slot *s;
	uint32_t i;

	if (!x || !(s = itab_find(&x->stacks, h32(hash_u32s(locs, n, 2)), eq_stack, p, &k)))
		return TY_NONE;
	if (s->idx != TY_NONE)
		return s->idx;
	for (i = 0; i < n; i++)
		if (locs[i] >= p->nlocs)
			return TY_NONE;
	if (ty_array_grow32(&p->stack_off, sizeof(uint32_t), p->nstacks + 2, &p->cap_stacks) < 0 ||
	    p->nframes + n >= TY_NONE ||
	    ty_array_grow(&p->frames, sizeof(uint32_t), p->nframes + n, &p->cap_frames) < 0)
		return TY_NONE;
	if (n) /* an empty stack: off-CPU time with no chain */
		memcpy(p->frames + p->nframes, locs, n * sizeof(uint32_t));
	p->nframes += n;
	p->stack_off[p->nstacks + 1] = (uint32_t)p->nframes;
	itab_put(&x->stacks, s, p->nstacks);
	return p->nstacks++;
}

uint32_t
ty_profile_thread(struct ty_profile *p, uint32_t pid, uint32_t tid, const char *comm)
{
	struct pindex *x = get_index(p);
	uint32_t c = ty_profile_string(p, comm);
	struct slot *s;

	if (!x || c == TY_NONE ||
	    !(s = itab_find(&x->threads, tid * 2654435761u, eq_thread, p, &tid)))
		return TY_NONE;
	if (s->idx != TY_NONE) {
		p->threads[s->idx].comm = c;
		p->threads[s->idx].pid = pid;
		return s->idx;
	}
	if (ty_array_grow32(&p->threads, sizeof(*p->threads), p->nthreads + 1, &p->cap_threads) < 0)
		return TY_NONE;
	p->threads[p->nthreads] = (struct ty_prof_thread){pid, tid, c};
	itab_put(&x->threads, s, p->nthreads);
	return p->nthreads++;
}

int
ty_profile_mapping(struct ty_profile *p, const struct ty_prof_mapping *m)
{
	if (ty_array_grow32(&p->maps, sizeof(*p->maps), (size_t)p->nmaps + 1, &p->cap_maps) < 0)
		return -ENOMEM;
	p->maps[p->nmaps++] = *m;
	return 0;
}

int
ty_profile_sample(struct ty_profile *p, const struct ty_prof_sample *s)
{
	if (s->stack >= p->nstacks || s->state >= TY_NSTATES)
		return -EINVAL;
	if (ty_array_grow(&p->samples, sizeof(*s), p->nsamples + 1, &p->cap_samples) < 0)
		return -ENOMEM;
	p->samples[p->nsamples++] = *s;
	p->weight += (double)s->period;
	return 0;
}

static const char *const state_names[TY_NSTATES] = {"on-CPU", "sleeping", "I/O",
						    "lock",   "runnable", "blocked"};
static const char *const state_frames[TY_NSTATES] = {NULL,
						     "[off-CPU: sleeping]",
						     "[off-CPU: I/O]",
						     "[off-CPU: lock]",
						     "[off-CPU: runnable]",
						     "[off-CPU: blocked]"};

const char *
ty_profile_state_name(uint32_t state)
{
	return state < TY_NSTATES ? state_names[state] : "?";
}

const char *
ty_profile_state_frame(uint32_t state)
{
	return state < TY_NSTATES ? state_frames[state] : NULL;
}

int
ty_profile_calls(struct ty_profile *p, uint32_t f, uint64_t count)
{
	if (ty_array_grow32(&p->calls, sizeof(*p->calls), (size_t)p->ncalls + 1, &p->cap_calls) < 0)
		return -ENOMEM;
	p->calls[p->ncalls++] = (struct ty_prof_call){f, count, 0, TY_TRAP_UNKNOWN};
	return 0;
}

void
ty_profile_calls_share(char *buf, size_t size, double cost, double work)
{
	if (!(work > 0))
		snprintf(buf, size, "%s", "");
	else if (cost < work)
		snprintf(buf, size,
			 ", %.1f%% of the workload's %.3f s of CPU (the traps are in it)",
			 100 * cost / work, work);
	else /* the calibration's hits cost more than the workload's did */
		snprintf(buf, size,
			 ", about all of the workload's %.3f s of CPU (the estimate passes it: "
			 "these hits cost less than the calibration's)",
			 work);
}

double
ty_profile_self_per_call(const struct ty_profile *p, uint32_t call, double self_s, int *bound)
{
	const struct ty_prof_call *c = &p->calls[call];
	double d = (double)p->meta.calls_disturb_ps / 1000, per;

	*bound = p->meta.calls_hit_ps != 0 && c->trap_state != TY_TRAP_TAKEN;
	if (c->trap_state == TY_TRAP_TAKEN)
		self_s -= ty_profile_seconds(p, (double)c->trap);
	per = c->count && self_s > 0 ? self_s * 1e9 / (double)c->count : 0;
	return per > d ? per - d : per;
}

uint64_t
ty_profile_leaf_weight(const struct ty_profile *p, uint32_t f, const uint64_t *addrs, size_t n)
{
	uint64_t w = 0;
	size_t i, k;

	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *s = &p->samples[i];
		const struct ty_prof_loc *l;
		if (s->state != TY_STATE_CPU || s->stack >= p->nstacks ||
		    p->stack_off[s->stack] == p->stack_off[s->stack + 1])
			continue;
		l = &p->locs[p->frames[p->stack_off[s->stack]]];
		for (k = 0; l->func == f && k < n; k++)
			if (l->addr == addrs[k]) {
				w += s->period;
				break;
			}
	}
	return w;
}

int64_t
ty_profile_call_count(const struct ty_profile *p, uint32_t f)
{
	uint32_t i;

	for (i = 0; i < p->ncalls; i++) /* a few dozen at most (TY_CALLS_MAX) */
		if (p->calls[i].func == f)
			return (int64_t)p->calls[i].count;
	return -1;
}

int
ty_profile_has_off_cpu(const struct ty_profile *p)
{
	size_t i;

	if (p->meta.off_cpu != TY_OFFCPU_NONE)
		return 1;
	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].state != TY_STATE_CPU)
			return 1;
	return 0;
}

void
ty_profile_keep(struct ty_profile *p, int on, int off)
{
	size_t i, n = 0;

	p->weight = 0;
	for (i = 0; i < p->nsamples; i++) {
		int cpu = p->samples[i].state == TY_STATE_CPU;
		if (cpu ? !on : !off)
			continue;
		p->samples[n++] = p->samples[i];
		p->weight += (double)p->samples[i].period;
	}
	p->nsamples = n;
}

void
ty_profile_state_weights(const struct ty_profile *p, double *w)
{
	size_t i;

	memset(w, 0, TY_NSTATES * sizeof(*w));
	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].state < TY_NSTATES)
			w[p->samples[i].state] += (double)p->samples[i].period;
}

const char *
ty_profile_func_name(const struct ty_profile *p, uint32_t f)
{
	return p->strings[p->funcs[f].name];
}

const char *
ty_profile_func_dso(const struct ty_profile *p, uint32_t f)
{
	return p->strings[p->funcs[f].dso];
}

double
ty_profile_seconds(const struct ty_profile *p, double weight)
{
	if (p->meta.period_ns)
		return weight / 1e9;
	return p->weight > 0 ? weight / p->weight * (double)p->meta.workload_cpu_ns / 1e9 : 0;
}

int
ty_profile_chains_note(const struct ty_profile *p, char *buf, size_t len)
{
	const struct ty_prof_meta *m = &p->meta;
	uint64_t n = 0, ns = 0;
	size_t i;
	char rate[64] = "";

	if (!m->off_cpu || !m->callchain || m->off_cpu_chained == 0 || len == 0)
		return -1;
	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].state != TY_STATE_CPU)
			n++, ns += p->samples[i].period;
	if (m->off_cpu_chained >= n) {
		snprintf(buf, len,
			 "all %" PRIu64
			 " off-CPU intervals have a call chain of their own, 100%% of "
			 "the off-CPU time",
			 n);
		return 0;
	}
	if (m->switch_chain_hz)
		snprintf(rate, sizeof(rate), " (--off-cpu-chains %" PRIu64 ")", m->switch_chain_hz);
	snprintf(buf, len,
		 "%" PRIu64 " of %" PRIu64 " off-CPU intervals have a call chain of their own%s, "
		 "%.1f%% of the off-CPU time; each of the others took the chain of one near it "
		 "in its thread with the nearest duration (every duration is exact)",
		 m->off_cpu_chained, n, rate,
		 ns ? 100.0 * (double)m->off_cpu_chained_ns / (double)ns : 0.0);
	return 0;
}

int
ty_profile_coverage(const struct ty_profile *p, char *buf, size_t len)
{
	const struct ty_prof_meta *m = &p->meta;
	double cpu = (double)m->workload_cpu_ns / 1e9, sys = (double)m->workload_sys_ns / 1e9;
	double got = 0, share;
	size_t i, n;

	if (!m->period_ns || m->workload_cpu_ns == 0 || len == 0 || m->off_cpu == TY_OFFCPU_ONLY)
		return -1;
	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].state == TY_STATE_CPU)
			got += (double)p->samples[i].period / 1e9;
	share = got / cpu;
	n = (size_t)snprintf(buf, len,
			     "samples cover %.3f s of the workload's %.3f s CPU time "
			     "(%.0f%%)",
			     got, cpu, 100 * share);
	if (n < len && share > 1.1 && got - cpu > 0.02) {
		/* wait4 counts the children reaped, the samples all of them */
		snprintf(buf + n, len - n,
			 "; more than the command's own: processes it started "
			 "were sampled but not waited for (still running at "
			 "its exit, or killed)");
		return 0;
	}
	if (n >= len || share >= 0.5 || cpu < 0.02)
		return 0;
	if (m->user_only && sys > 0.25 * cpu) {
		n += (size_t)snprintf(buf + n, len - n, "; its %.3f s in the kernel %s", sys,
				      m->kernel_refused ? "were not sampled (the kernel allows "
							  "user space only here)"
							: "were not sampled (--user)");
		if (n >= len || got >= 0.5 * (cpu - sys)) /* the user time is covered */
			return 0;
	}
	if (m->use_freq)
		snprintf(buf + n, len - n,
			 "; %s get few samples at %" PRIu64 " Hz: try -F %" PRIu64,
			 m->processes > 1 ? "short-lived processes" : "short runs", m->rate,
			 m->rate * 4 > 3999 ? m->rate * 4 : 3999);
	else
		snprintf(buf + n, len - n, "; try a smaller -c than %" PRIu64, m->rate);
	return 0;
}
