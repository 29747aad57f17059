/* profile-who.c - filters by command, process and CPU, and the flat
 * profile per process or per CPU. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/profile-who.h"

/* The thread of each tid of P, in a sorted index for look-ups. */
struct tindex {
	uint32_t *tid, *idx;
	size_t n;
};

static struct tindex *sort_ctx;

static int
tidx_cmp(const void *a, const void *b)
{
	uint32_t x = sort_ctx->tid[*(const uint32_t *)a], y = sort_ctx->tid[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

static int
tindex_build(struct tindex *t, const struct ty_profile *p)
{
	uint32_t *order;
	size_t i;

	t->n = p->nthreads;
	t->tid = malloc((t->n ? t->n : 1) * sizeof(*t->tid));
	t->idx = malloc((t->n ? t->n : 1) * sizeof(*t->idx));
	order = malloc((t->n ? t->n : 1) * sizeof(*order));
	if (!t->tid || !t->idx || !order) {
		free(t->tid), free(t->idx), free(order);
		return -ENOMEM;
	}
	for (i = 0; i < t->n; i++)
		t->tid[i] = p->threads[i].tid, order[i] = (uint32_t)i;
	sort_ctx = t;
	qsort(order, t->n, sizeof(*order), tidx_cmp);
	for (i = 0; i < t->n; i++)
		t->idx[i] = order[i];
	for (i = 0; i < t->n; i++)
		order[i] = t->tid[t->idx[i]];
	free(t->tid);
	t->tid = order; /* now sorted, idx[i] the thread of tid[i] */
	return 0;
}

static const struct ty_prof_thread *
tindex_find(const struct tindex *t, const struct ty_profile *p, uint32_t tid)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->tid[mid] == tid)
			return &p->threads[t->idx[mid]];
		if (t->tid[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void
tindex_release(struct tindex *t)
{
	free(t->tid), free(t->idx);
}

static int
keep(const struct ty_profile *p, const struct ty_prof_thread *t, const struct ty_prof_sample *s,
     const struct ty_prof_filter *f)
{
	size_t i;
	int ok;

	if (f->cpus && !ty_cpulist_has(f->cpus, (int)s->cpu))
		return 0;
	if (f->npids) {
		for (i = 0, ok = 0; t && i < f->npids && !ok; i++)
			ok = t->pid == f->pids[i];
		if (!ok)
			return 0;
	}
	if (f->ncomms) {
		for (i = 0, ok = 0; t && i < f->ncomms && !ok; i++)
			ok = strcmp(p->strings[t->comm], f->comms[i]) == 0;
		if (!ok)
			return 0;
	}
	return 1;
}

long
ty_profile_filter(struct ty_profile *p, const struct ty_prof_filter *f)
{
	struct tindex t;
	size_t i, n = 0;

	if (tindex_build(&t, p) < 0)
		return -ENOMEM;
	p->weight = 0;
	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *s = &p->samples[i];
		if (!keep(p, tindex_find(&t, p, s->tid), s, f))
			continue;
		p->samples[n++] = *s;
		p->weight += (double)s->period;
	}
	p->nsamples = n;
	tindex_release(&t);
	return (long)n;
}

static int
row_for(struct ty_profile_views_flat *f, size_t *cap, uint32_t **keys, size_t *kcap, uint32_t key,
	const char *name)
{
	size_t i;

	for (i = 0; i < f->nrows; i++) /* processes and CPUs: hundreds at most */
		if ((*keys)[i] == key)
			return (int)i;
	if (ty_array_grow(&f->rows, sizeof(*f->rows), f->nrows + 1, cap) < 0 ||
	    ty_array_grow(keys, sizeof(**keys), f->nrows + 1, kcap) < 0)
		return -ENOMEM;
	memset(&f->rows[f->nrows], 0, sizeof(*f->rows));
	if (!(f->rows[f->nrows].name = strdup(name)))
		return -ENOMEM;
	(*keys)[f->nrows] = key;
	return (int)f->nrows++;
}

int
ty_profile_flat_who(const struct ty_profile *p, int by_cpu, enum ty_prof_sort sort,
		    struct ty_profile_views_flat *out)
{
	struct tindex t;
	uint32_t *keys = NULL;
	size_t cap = 0, kcap = 0, i;
	int ret = -ENOMEM, r;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < p->nsamples; i++)
		out->weight += (double)p->samples[i].period;
	out->samples = p->nsamples;
	if (tindex_build(&t, p) < 0)
		return -ENOMEM;
	for (i = 0; i < p->nsamples; i++) {
		const struct ty_prof_sample *s = &p->samples[i];
		const struct ty_prof_thread *th = tindex_find(&t, p, s->tid), *main_;
		uint32_t key = by_cpu ? s->cpu : th ? th->pid : UINT32_MAX;
		char name[512];
		struct ty_profile_views_row *row;
		if (by_cpu) {
			snprintf(name, sizeof(name), "cpu %u", s->cpu);
		} else if (!th) {
			snprintf(name, sizeof(name), "? [tid %u]", s->tid);
			key = UINT32_MAX - 1 - s->tid; /* each unknown thread apart */
		} else {
			main_ = tindex_find(&t, p, th->pid);
			snprintf(name, sizeof(name), "%s [%u]",
				 p->strings[(main_ ? main_ : th)->comm], th->pid);
		}
		if ((r = row_for(out, &cap, &keys, &kcap, key, name)) < 0)
			goto out;
		row = &out->rows[r];
		ty_profile_views_row_count(row, s);
	}
	ty_profile_views_flat_sort(out, sort);
	ret = 0;
out:
	free(keys);
	tindex_release(&t);
	if (ret < 0)
		ty_profile_views_flat_release(out);
	return ret;
}
