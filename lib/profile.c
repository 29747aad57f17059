/* profile.c - the profile model, its file format, and aggregation. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/outfile.h"
#include "tachy/profile-who.h"
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
hash_bytes(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;
	size_t i;

	h ^= 0xcbf29ce484222325ull;
	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

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

static int
grow32(void *pp, size_t elem, size_t need, uint32_t *cap)
{
	size_t c = *cap;
	int r;

	if (need >= TY_NONE)
		return -ENOMEM;
	r = ty_array_grow(pp, elem, need, &c);
	*cap = (uint32_t)c;
	return r;
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
				   h32(hash_bytes(p->strings[i], strlen(p->strings[i]), 0)),
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

	if (!x ||
	    !(s = itab_find(&x->strings, h32(hash_bytes(str, strlen(str), 0)), eq_string, p, str)))
		return TY_NONE;
	if (s->idx != TY_NONE)
		return s->idx;
	if (grow32(&p->strings, sizeof(*p->strings), p->nstrings + 1, &p->cap_strings) < 0 ||
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
	if (grow32(&p->funcs, sizeof(*p->funcs), p->nfuncs + 1, &p->cap_funcs) < 0)
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
	if (grow32(&p->locs, sizeof(*p->locs), p->nlocs + 1, &p->cap_locs) < 0)
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
	if (grow32(&p->stack_off, sizeof(uint32_t), p->nstacks + 2, &p->cap_stacks) < 0 ||
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
	if (grow32(&p->threads, sizeof(*p->threads), p->nthreads + 1, &p->cap_threads) < 0)
		return TY_NONE;
	p->threads[p->nthreads] = (struct ty_prof_thread){pid, tid, c};
	itab_put(&x->threads, s, p->nthreads);
	return p->nthreads++;
}

int
ty_profile_mapping(struct ty_profile *p, const struct ty_prof_mapping *m)
{
	struct ty_prof_mapping *n = realloc(p->maps, (p->nmaps + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	p->maps = n;
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
	struct ty_prof_call *v = realloc(p->calls, (p->ncalls + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->calls = v;
	p->calls[p->ncalls++] = (struct ty_prof_call){f, count};
	return 0;
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
	if (m->off_cpu_chained >= n)
		return -1;
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

/* --- views ------------------------------------------------------------------ */

/* Weight and sample count of every stack in every state: W[s * TY_NSTATES
 * + state], and their sums over the states in W[s] of *SUM (SN: counts). */
struct sweights {
	double *w, *sum;
	uint64_t *n, *sn;
};

static void
sweights_release(struct sweights *sw)
{
	free(sw->w), free(sw->sum), free(sw->n), free(sw->sn);
}

static int
stack_weights(const struct ty_profile *p, struct sweights *sw)
{
	size_t i, ns = p->nstacks ? p->nstacks : 1;

	sw->w = calloc(ns * TY_NSTATES, sizeof(*sw->w));
	sw->n = calloc(ns * TY_NSTATES, sizeof(*sw->n));
	sw->sum = calloc(ns, sizeof(*sw->sum));
	sw->sn = calloc(ns, sizeof(*sw->sn));
	if (!sw->w || !sw->n || !sw->sum || !sw->sn) {
		sweights_release(sw);
		return -ENOMEM;
	}
	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *x = &p->samples[i];
		size_t k = (size_t)x->stack * TY_NSTATES + x->state;
		sw->w[k] += (double)x->period;
		sw->n[k]++;
		sw->sum[x->stack] += (double)x->period;
		sw->sn[x->stack]++;
	}
	return 0;
}

static uint32_t
leaf_func(const struct ty_profile *p, uint32_t s)
{
	if (p->stack_off[s] == p->stack_off[s + 1])
		return TY_NONE;
	return p->locs[p->frames[p->stack_off[s]]].func;
}

static int
add_row(struct ty_flat *f, size_t *cap, const char *name, const char *dso)
{
	if (ty_array_grow(&f->rows, sizeof(*f->rows), f->nrows + 1, cap) < 0)
		return -ENOMEM;
	memset(&f->rows[f->nrows], 0, sizeof(*f->rows));
	if (!(f->rows[f->nrows].name = strdup(name)))
		return -ENOMEM;
	f->rows[f->nrows].dso = dso;
	f->nrows++;
	return 0;
}

/* Which functions are inlined callees (named "NAME (inlined)" by the
 * collector); NULL when out of memory. */
static unsigned char *
inlined_funcs(const struct ty_profile *p)
{
	unsigned char *v = calloc(p->nfuncs ? p->nfuncs : 1, 1);
	size_t i, n;

	for (i = 0; v && i < p->nfuncs; i++) {
		const char *name = ty_profile_func_name(p, (uint32_t)i);
		n = strlen(name);
		v[i] = n > 10 && strcmp(name + n - 10, " (inlined)") == 0;
	}
	return v;
}

/* Rows keyed by function (BY symbol), DSO string or source line (a line
 * string; a location without one by its function), self and total. */
static int
flat_by_key(const struct ty_profile *p, enum ty_prof_by by, struct ty_flat *f,
	    const struct sweights *sw)
{
	const double *w = sw->sum;
	const uint64_t *n = sw->sn;
	int key_dso = by == TY_BY_DSO;
	size_t nkeys = by == TY_BY_DSO	  ? p->nstrings
		       : by == TY_BY_LINE ? (size_t)p->nstrings + p->nfuncs
					  : p->nfuncs,
	       cap = 0, s, i;
	uint32_t *mark = calloc(nkeys ? nkeys : 1, 4), *row = malloc((nkeys ? nkeys : 1) * 4);
	unsigned char *inl = by == TY_BY_LINE ? NULL : inlined_funcs(p);
	int ret = -ENOMEM;

	if (!mark || !row || (by != TY_BY_LINE && !inl))
		goto out;
	memset(row, 0xff, (nkeys ? nkeys : 1) * 4);
	for (s = 0; s < p->nstacks; s++) {
		uint32_t leaf = leaf_func(p, (uint32_t)s), k;
		int self = 1;
		if (!n[s] || leaf == TY_NONE)
			continue;
		for (i = p->stack_off[s]; i < p->stack_off[s + 1]; i++) {
			uint32_t fn = p->locs[p->frames[i]].func, ln = p->locs[p->frames[i]].line;
			/* Per function or DSO, an inlined callee's time is its
			 * caller's (as perf and the symbol table count it); per
			 * line, the leaf's line is where the time went. */
			if (inl && inl[fn])
				continue;
			k = key_dso	       ? p->funcs[fn].dso
			    : by != TY_BY_LINE ? fn
			    : ln != TY_NONE    ? ln
					       : p->nstrings + fn;
			if (row[k] == TY_NONE) {
				const char *name = key_dso ? p->strings[k]
						   : by == TY_BY_LINE && ln != TY_NONE
						       ? p->strings[ln]
						       : ty_profile_func_name(p, fn);
				row[k] = (uint32_t)f->nrows;
				if (add_row(f, &cap, name,
					    key_dso ? NULL : ty_profile_func_dso(p, fn)) < 0)
					goto out;
			}
			if (self) {
				f->rows[row[k]].self_weight += w[s];
				f->rows[row[k]].self_samples += n[s];
				f->rows[row[k]].self_off += w[s] - sw->w[s * TY_NSTATES];
				self = 0;
			}
			if (mark[k] != s + 1) {
				mark[k] = (uint32_t)s + 1;
				f->rows[row[k]].total_weight += w[s];
				f->rows[row[k]].total_samples += n[s];
			}
		}
	}
	ret = 0;
out:
	free(mark);
	free(row);
	free(inl);
	return ret;
}

static const struct ty_prof_thread *
find_thread(const struct ty_profile *p, struct ty_idmap *tids, uint32_t tid)
{
	uint32_t *v = ty_idmap_get(tids, tid);
	return v && *v != TY_NONE ? &p->threads[*v] : NULL;
}

/* Rows per thread or per command: self only (total = self). */
static int
flat_by_thread(const struct ty_profile *p, int comm, int state, struct ty_flat *f)
{
	struct ty_idmap tids = {0}, rows = {0};
	size_t cap = 0, i;
	int ret = -ENOMEM;

	for (i = 0; i < p->nthreads; i++) {
		uint32_t *v = ty_idmap_get(&tids, p->threads[i].tid);
		if (!v)
			goto out;
		*v = (uint32_t)i;
	}
	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *s = &p->samples[i];
		const struct ty_prof_thread *t = find_thread(p, &tids, s->tid);
		uint32_t key = state ? s->state : comm ? (t ? t->comm : TY_NONE - 1) : s->tid, *r;
		struct ty_flat_row *row;
		if (!(r = ty_idmap_get(&rows, key)))
			goto out;
		if (*r == TY_NONE) {
			char name[512];
			const char *c = t ? p->strings[t->comm] : "?";
			if (state)
				snprintf(name, sizeof(name), "%s", ty_profile_state_name(s->state));
			else if (comm)
				snprintf(name, sizeof(name), "%s", c);
			else
				snprintf(name, sizeof(name), "%s [%u]", c, s->tid);
			*r = (uint32_t)f->nrows;
			if (add_row(f, &cap, name, NULL) < 0)
				goto out;
		}
		row = &f->rows[*r];
		row->self_weight += (double)s->period;
		row->total_weight += (double)s->period;
		if (s->state != TY_STATE_CPU)
			row->self_off += (double)s->period;
		row->self_samples++;
		row->total_samples++;
	}
	ret = 0;
out:
	ty_idmap_release(&tids), ty_idmap_release(&rows);
	return ret;
}

static enum ty_prof_sort sort_key;

static int
row_cmp(const void *a, const void *b)
{
	const struct ty_flat_row *x = a, *y = b;
	int c;

	switch (sort_key) {
	case TY_SORT_TOTAL:
		if (x->total_weight != y->total_weight)
			return x->total_weight < y->total_weight ? 1 : -1;
		break;
	case TY_SORT_SAMPLES:
		if (x->self_samples != y->self_samples)
			return x->self_samples < y->self_samples ? 1 : -1;
		break;
	case TY_SORT_SELF:
		if (x->self_weight != y->self_weight)
			return x->self_weight < y->self_weight ? 1 : -1;
		if (x->total_weight != y->total_weight)
			return x->total_weight < y->total_weight ? 1 : -1;
		break;
	case TY_SORT_NAME:
		break;
	}
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return strcmp(x->dso ? x->dso : "", y->dso ? y->dso : "");
}

static void
sort_rows(struct ty_flat *f, enum ty_prof_sort sort)
{
	sort_key = sort;
	if (f->nrows > 1)
		qsort(f->rows, f->nrows, sizeof(*f->rows), row_cmp);
}

int
ty_profile_flat(const struct ty_profile *p, enum ty_prof_by by, enum ty_prof_sort sort,
		struct ty_flat *out)
{
	struct sweights sw;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < p->nsamples; i++)
		out->weight += (double)p->samples[i].period;
	out->samples = p->nsamples;
	if (by == TY_BY_PROCESS || by == TY_BY_CPU) {
		ret = ty_profile_flat_who(p, by == TY_BY_CPU, out);
	} else if (by == TY_BY_THREAD || by == TY_BY_COMM || by == TY_BY_STATE) {
		ret = flat_by_thread(p, by == TY_BY_COMM, by == TY_BY_STATE, out);
	} else {
		if (stack_weights(p, &sw) < 0)
			return -ENOMEM;
		ret = flat_by_key(p, by, out, &sw);
		sweights_release(&sw);
	}
	if (ret < 0) {
		ty_flat_release(out);
		return ret;
	}
	sort_rows(out, sort);
	return 0;
}

void
ty_flat_release(struct ty_flat *f)
{
	size_t i;

	for (i = 0; i < f->nrows; i++)
		free(f->rows[i].name);
	free(f->rows);
	memset(f, 0, sizeof(*f));
}

/* --- call tree ----------------------------------------------------------------- */

static uint64_t
node_hash(uint32_t parent, const char *name, const char *dso)
{
	uint64_t h = hash_bytes(name, strlen(name), parent);
	return hash_bytes(dso, strlen(dso), h);
}

static uint32_t
tree_child(struct ty_tree *t, uint32_t parent, const char *name, const char *dso)
{
	size_t j;
	struct ty_tree_node *nd;

	if ((t->n + 1) * 2 > t->nslots) {
		size_t ns = t->nslots ? t->nslots * 2 : 1024, i;
		uint32_t *s = malloc(ns * 4);
		if (!s)
			return TY_NONE;
		memset(s, 0xff, ns * 4);
		for (i = 1; i < t->n; i++) {
			nd = &t->nodes[i];
			for (j = node_hash(nd->parent, nd->name, nd->dso) & (ns - 1);
			     s[j] != TY_NONE; j = (j + 1) & (ns - 1))
				;
			s[j] = (uint32_t)i;
		}
		free(t->slots);
		t->slots = s;
		t->nslots = ns;
	}
	for (j = node_hash(parent, name, dso) & (t->nslots - 1); t->slots[j] != TY_NONE;
	     j = (j + 1) & (t->nslots - 1)) {
		nd = &t->nodes[t->slots[j]];
		if (nd->parent == parent && strcmp(nd->name, name) == 0 &&
		    strcmp(nd->dso, dso) == 0)
			return t->slots[j];
	}
	if (grow32(&t->nodes, sizeof(*t->nodes), t->n + 1, &t->cap) < 0)
		return TY_NONE;
	nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->name = name;
	nd->dso = dso;
	nd->parent = parent;
	nd->sibling = t->nodes[parent].child;
	nd->child = TY_NONE;
	t->nodes[parent].child = t->n;
	t->slots[j] = t->n;
	return t->n++;
}

/* The pseudo-frames of stack S's off-CPU time, under its leaf NODE. */
static int
tree_add_off(struct ty_tree *t, const struct sweights *sw, size_t s, uint32_t node, int old,
	     double scale)
{
	uint32_t st, k;

	for (st = TY_STATE_CPU + 1; st < TY_NSTATES; st++) {
		double w = sw->w[s * TY_NSTATES + st];
		if (!sw->n[s * TY_NSTATES + st])
			continue;
		if ((k = tree_child(t, node, ty_profile_state_frame(st), "")) == TY_NONE)
			return -ENOMEM;
		t->nodes[k].state = st;
		if (old) {
			t->nodes[k].old_total += w * scale;
			t->nodes[k].old_self += w * scale;
		} else {
			t->nodes[k].total += w;
			t->nodes[k].self += w;
			t->nodes[k].off += w;
			t->nodes[k].total_n += sw->n[s * TY_NSTATES + st];
			t->nodes[k].self_n += sw->n[s * TY_NSTATES + st];
		}
	}
	return 0;
}

static int
tree_add(struct ty_tree *t, const struct ty_profile *p, int old, double scale)
{
	struct sweights sw;
	const double *w;
	const uint64_t *n;
	size_t s, i;

	if (stack_weights(p, &sw) < 0)
		return -ENOMEM;
	w = sw.sum;
	n = sw.sn;
	for (s = 0; s < p->nstacks; s++) {
		uint32_t node = 0;
		double on = sw.w[s * TY_NSTATES];
		uint64_t on_n = sw.n[s * TY_NSTATES];
		if (!n[s])
			continue;
		for (i = p->stack_off[s + 1]; i-- > p->stack_off[s];) {
			uint32_t fn = p->locs[p->frames[i]].func;
			node = tree_child(t, node, ty_profile_func_name(p, fn),
					  ty_profile_func_dso(p, fn));
			if (node == TY_NONE) {
				sweights_release(&sw);
				return -ENOMEM;
			}
			if (old) {
				t->nodes[node].old_total += w[s] * scale;
			} else {
				t->nodes[node].total += w[s];
				t->nodes[node].total_n += n[s];
				t->nodes[node].off += w[s] - on;
			}
		}
		if (old) {
			t->nodes[node].old_self += on * scale;
			t->nodes[0].old_total += w[s] * scale;
		} else {
			t->nodes[node].self += on;
			t->nodes[node].self_n += on_n;
			t->nodes[0].total += w[s];
			t->nodes[0].total_n += n[s];
			t->nodes[0].off += w[s] - on;
		}
		if (on_n < n[s] && tree_add_off(t, &sw, s, node, old, scale) < 0) {
			sweights_release(&sw);
			return -ENOMEM;
		}
	}
	sweights_release(&sw);
	return 0;
}

int
ty_tree_build(struct ty_tree *t, const struct ty_profile *p, const struct ty_profile *old)
{
	double wn = 0, wo = 0;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (grow32(&t->nodes, sizeof(*t->nodes), 1, &t->cap) < 0)
		return -ENOMEM;
	memset(t->nodes, 0, sizeof(*t->nodes));
	t->nodes[0].child = t->nodes[0].sibling = t->nodes[0].parent = TY_NONE;
	t->n = 1;
	if (tree_add(t, p, 0, 1) < 0)
		goto oom;
	if (old) {
		for (i = 0; i < p->nsamples; i++)
			wn += (double)p->samples[i].period;
		for (i = 0; i < old->nsamples; i++)
			wo += (double)old->samples[i].period;
		if (tree_add(t, old, 1, wo > 0 ? wn / wo : 0) < 0)
			goto oom;
	}
	return 0;
oom:
	ty_tree_release(t);
	return -ENOMEM;
}

void
ty_tree_release(struct ty_tree *t)
{
	free(t->nodes);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static const struct ty_tree *sort_tree;

static int
node_cmp(const void *a, const void *b)
{
	const struct ty_tree_node *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct ty_tree_node *y = &sort_tree->nodes[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->dso, y->dso);
}

/* Largest total first; equal totals by name. */
static int
node_cmp_total(const void *a, const void *b)
{
	const struct ty_tree_node *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct ty_tree_node *y = &sort_tree->nodes[*(const uint32_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return node_cmp(a, b);
}

static void
sort_children(struct ty_tree *t, int (*cmp)(const void *, const void *))
{
	uint32_t *kids = malloc((t->n ? t->n : 1) * 4), i, k, m;

	if (!kids)
		return;
	sort_tree = t;
	for (i = 0; i < t->n; i++) {
		for (m = 0, k = t->nodes[i].child; k != TY_NONE; k = t->nodes[k].sibling)
			kids[m++] = k;
		if (m < 2)
			continue;
		qsort(kids, m, 4, cmp);
		t->nodes[i].child = kids[0];
		for (k = 0; k + 1 < m; k++)
			t->nodes[kids[k]].sibling = kids[k + 1];
		t->nodes[kids[m - 1]].sibling = TY_NONE;
	}
	free(kids);
}

void
ty_tree_sort_children(struct ty_tree *t, const struct ty_profile *p)
{
	(void)p;
	sort_children(t, node_cmp);
}

void
ty_tree_sort_by_total(struct ty_tree *t)
{
	sort_children(t, node_cmp_total);
}

/* --- folded stacks ---------------------------------------------------------------- */

struct fline {
	char *s;
	uint64_t n;
};

static int
fline_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->s, ((const struct fline *)b)->s);
}

struct fold {
	char *path;
	size_t len, cap;
	struct fline *lines;
	size_t n, lcap;
	int weights; /* counts are self weights (ns), not samples */
};

static int
fold_put(struct fold *f, char c)
{
	if (ty_array_grow(&f->path, 1, f->len + 1, &f->cap) < 0)
		return -ENOMEM;
	f->path[f->len++] = c;
	return 0;
}

/* Collect "a;b;c" for every node with samples of its own. */
static int
fold_node(const struct ty_tree *t, uint32_t i, struct fold *f)
{
	size_t mark = f->len;
	uint32_t k;

	if (i != 0) {
		const struct ty_tree_node *nd = &t->nodes[i];
		const char *c;
		if (mark && fold_put(f, ';') < 0)
			return -ENOMEM;
		/* The format has no escapes: a ';' would split the frame and a
		 * line break the line. */
		for (c = nd->name; *c; c++)
			if (fold_put(f, *c == ';' ? ':' : *c == '\n' || *c == '\r' ? ' ' : *c) < 0)
				return -ENOMEM;
		if (nd->self_n) {
			if (ty_array_grow(&f->lines, sizeof(*f->lines), f->n + 1, &f->lcap) < 0 ||
			    !(f->lines[f->n].s = strndup(f->path, f->len)))
				return -ENOMEM;
			f->lines[f->n++].n = !f->weights	 ? nd->self_n
					     : nd->self < 0x1p64 ? (uint64_t)(nd->self + 0.5)
								 : UINT64_MAX;
		}
	}
	for (k = t->nodes[i].child; k != TY_NONE; k = t->nodes[k].sibling)
		if (fold_node(t, k, f) < 0)
			return -ENOMEM;
	f->len = mark;
	return 0;
}

int
ty_profile_folded(const struct ty_profile *p, FILE *fp)
{
	struct ty_tree t;
	struct fold f = {0};
	struct fline *lines;
	size_t n, i, j;
	int ret;

	if (ty_tree_build(&t, p, NULL) < 0)
		return -ENOMEM;
	f.weights = ty_profile_has_off_cpu(p);
	ret = fold_node(&t, 0, &f);
	lines = f.lines;
	n = f.n;
	if (ret == 0 && n > 1)
		qsort(lines, n, sizeof(*lines), fline_cmp);
	for (i = 0; ret == 0 && i < n; i = j) {
		uint64_t count = lines[i].n;
		for (j = i + 1; j < n && strcmp(lines[j].s, lines[i].s) == 0; j++)
			count += lines[j].n;
		fprintf(fp, "%s %" PRIu64 "\n", lines[i].s, count);
	}
	for (i = 0; i < n; i++)
		free(lines[i].s);
	free(lines);
	free(f.path);
	ty_tree_release(&t);
	if (ret == 0 && ferror(fp))
		ret = -EIO;
	return ret;
}

/* --- callers and callees -------------------------------------------------------------- */

int
ty_profile_neighbours(const struct ty_profile *p, const char *sym, int up, struct ty_flat *out,
		      struct ty_flat_row *matched)
{
	struct sweights sw;
	const double *w;
	const uint64_t *n;
	uint32_t *mark, *row, self_row = TY_NONE, edge_row = TY_NONE;
	size_t s, i, cap = 0, nf = p->nfuncs ? p->nfuncs : 1;
	int found = 0, ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	memset(matched, 0, sizeof(*matched));
	if (stack_weights(p, &sw) < 0)
		return -ENOMEM;
	w = sw.sum;
	n = sw.sn;
	mark = calloc(nf, 4);
	row = malloc(nf * 4);
	if (!mark || !row)
		goto done;
	memset(row, 0xff, nf * 4);
	for (i = 0; i < p->nfuncs; i++)
		if (strcmp(ty_profile_func_name(p, (uint32_t)i), sym) == 0)
			found = 1;
	if (!found) {
		ret = -ENOENT;
		goto done;
	}
	for (s = 0; s < p->nstacks; s++) {
		size_t lo = p->stack_off[s], hi = p->stack_off[s + 1];
		int hit = 0, self_seen = 0, edge_seen = 0;
		if (!n[s])
			continue;
		for (i = lo; i < hi; i++) {
			uint32_t fn = p->locs[p->frames[i]].func, nb = TY_NONE;
			uint32_t *r;
			const char *name;
			if (strcmp(ty_profile_func_name(p, fn), sym) != 0)
				continue;
			hit = 1;
			if (up ? i + 1 == hi : i == lo) {
				r = up ? &edge_row : &self_row;
				name = up ? "[root]" : "[self]";
				if (up ? edge_seen++ : self_seen++)
					continue;
			} else {
				nb = p->locs[p->frames[up ? i + 1 : i - 1]].func;
				if (mark[nb] == s + 1)
					continue;
				mark[nb] = (uint32_t)s + 1;
				r = &row[nb];
				name = ty_profile_func_name(p, nb);
			}
			if (*r == TY_NONE) {
				*r = (uint32_t)out->nrows;
				if (add_row(out, &cap, name,
					    nb == TY_NONE ? NULL : ty_profile_func_dso(p, nb)) < 0)
					goto done;
			}
			out->rows[*r].self_weight += w[s];
			out->rows[*r].self_off += w[s] - sw.w[s * TY_NSTATES];
			out->rows[*r].self_samples += n[s];
			out->rows[*r].total_weight += w[s];
			out->rows[*r].total_samples += n[s];
		}
		if (hit) {
			matched->self_off += w[s] - sw.w[s * TY_NSTATES];
			matched->total_weight += w[s];
			matched->total_samples += n[s];
		}
		out->weight += w[s];
		out->samples += n[s];
	}
	sort_rows(out, TY_SORT_SELF);
	ret = 0;
done:
	if (ret < 0)
		ty_flat_release(out);
	sweights_release(&sw);
	free(mark), free(row);
	return ret;
}

/* --- diff -------------------------------------------------------------------------------- */

static int
name_cmp(const void *a, const void *b)
{
	const struct ty_flat_row *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->dso ? x->dso : "", y->dso ? y->dso : "");
}

static int
diff_cmp(const void *a, const void *b)
{
	const struct ty_diff_row *x = a, *y = b;
	double dx = x->new_self - x->old_self, dy = y->new_self - y->old_self;
	int c;

	dx = dx < 0 ? -dx : dx;
	dy = dy < 0 ? -dy : dy;
	if (dx != dy)
		return dx < dy ? 1 : -1;
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return strcmp(x->dso, y->dso);
}

int
ty_profile_diff(const struct ty_profile *old, const struct ty_profile *new_, enum ty_prof_by by,
		struct ty_diff *out)
{
	struct ty_flat a, b;
	size_t i = 0, j = 0, cap = 0;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	/* The rows of each flat profile, matched by their keys (name and DSO). */
	if (ty_profile_flat(old, by, TY_SORT_NAME, &a) < 0)
		return -ENOMEM;
	if (ty_profile_flat(new_, by, TY_SORT_NAME, &b) < 0) {
		ty_flat_release(&a);
		return -ENOMEM;
	}
	while (i < a.nrows || j < b.nrows) {
		struct ty_flat_row *x = i < a.nrows ? &a.rows[i] : NULL;
		struct ty_flat_row *y = j < b.nrows ? &b.rows[j] : NULL;
		int c = !x ? 1 : !y ? -1 : name_cmp(x, y);
		struct ty_diff_row *d;
		if (ty_array_grow(&out->rows, sizeof(*out->rows), out->nrows + 1, &cap) < 0)
			goto done;
		d = &out->rows[out->nrows];
		memset(d, 0, sizeof(*d));
		if (!(d->name = strdup(c <= 0 ? x->name : y->name)))
			goto done;
		out->nrows++;
		/* DSO strings must outlive the flats: take them from the profiles. */
		d->dso = c <= 0 ? x->dso : y->dso;
		if (c <= 0) {
			d->old_self = a.weight > 0 ? 100 * x->self_weight / a.weight : 0;
			d->old_total = a.weight > 0 ? 100 * x->total_weight / a.weight : 0;
			i++;
		}
		if (c >= 0) {
			d->new_self = b.weight > 0 ? 100 * y->self_weight / b.weight : 0;
			d->new_total = b.weight > 0 ? 100 * y->total_weight / b.weight : 0;
			j++;
		}
	}
	if (out->nrows > 1)
		qsort(out->rows, out->nrows, sizeof(*out->rows), diff_cmp);
	ret = 0;
done:
	ty_flat_release(&a);
	ty_flat_release(&b);
	if (ret < 0)
		ty_diff_release(out);
	return ret;
}

void
ty_diff_release(struct ty_diff *d)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		free(d->rows[i].name);
	free(d->rows);
	memset(d, 0, sizeof(*d));
}
