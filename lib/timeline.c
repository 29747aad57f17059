/* timeline.c - a profile as timelines per thread, for the viewers people
 * use: the Firefox Profiler's processed profile format (version
 * TY_TIMELINE_FIREFOX_VERSION, the one its own importers upgrade from) and
 * speedscope's file format (sampled profiles). Both keep the samples in
 * time order per thread with their weights, so on- and off-CPU time draw
 * one wall-clock timeline. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/jsonw.h"
#include "tachy/outfile.h"
#include "tachy/timeline.h"

/* The threads of P that have samples, and each one's samples in time
 * order: thread T's are order[start[T] .. start[T + 1]). */
struct lanes {
	uint32_t *tids, *pids, *comms; /* comm: string index, TY_NONE unknown */
	size_t n;
	size_t *start, *order;
	uint64_t t0; /* the first sample's time */
};

static const struct ty_profile *sort_p;

static int
sample_cmp(const void *a, const void *b)
{
	const struct ty_prof_sample *x = &sort_p->samples[*(const size_t *)a];
	const struct ty_prof_sample *y = &sort_p->samples[*(const size_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void
lanes_release(struct lanes *l)
{
	free(l->tids), free(l->pids), free(l->comms), free(l->start), free(l->order);
	memset(l, 0, sizeof(*l));
}

static int
lanes_build(const struct ty_profile *p, struct lanes *l)
{
	size_t i, n = p->nsamples, cap = 0, pcap = 0, ccap = 0, scap = 0;
	uint32_t j;

	memset(l, 0, sizeof(*l));
	l->t0 = UINT64_MAX;
	if (!(l->order = malloc((n ? n : 1) * sizeof(size_t))))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		l->order[i] = i;
		if (p->samples[i].time < l->t0)
			l->t0 = p->samples[i].time;
	}
	if (l->t0 == UINT64_MAX)
		l->t0 = 0;
	sort_p = p;
	if (n > 1)
		qsort(l->order, n, sizeof(size_t), sample_cmp);
	for (i = 0; i < n; i++) {
		const struct ty_prof_sample *s = &p->samples[l->order[i]];
		if (i > 0 && p->samples[l->order[i - 1]].tid == s->tid)
			continue;
		if (ty_array_grow(&l->tids, 4, l->n + 1, &cap) < 0 ||
		    ty_array_grow(&l->pids, 4, l->n + 1, &pcap) < 0 ||
		    ty_array_grow(&l->comms, 4, l->n + 1, &ccap) < 0 ||
		    ty_array_grow(&l->start, sizeof(size_t), l->n + 2, &scap) < 0) {
			lanes_release(l);
			return -ENOMEM;
		}
		l->tids[l->n] = s->tid;
		l->pids[l->n] = s->tid;
		l->comms[l->n] = TY_NONE;
		for (j = 0; j < p->nthreads; j++)
			if (p->threads[j].tid == s->tid) {
				l->pids[l->n] = p->threads[j].pid;
				l->comms[l->n] = p->threads[j].comm;
			}
		l->start[l->n++] = i;
	}
	if (ty_array_grow(&l->start, sizeof(size_t), l->n + 1, &scap) < 0) {
		lanes_release(l);
		return -ENOMEM;
	}
	l->start[l->n] = n;
	return 0;
}

static const char *
lane_comm(const struct ty_profile *p, const struct lanes *l, size_t t)
{
	return l->comms[t] == TY_NONE ? "?" : p->strings[l->comms[t]];
}

static void
lane_name(const struct ty_profile *p, const struct lanes *l, size_t t, char *buf, size_t len)
{
	snprintf(buf, len, "%s [%u]", lane_comm(p, l, t), l->tids[t]);
}

static int
finish(FILE *fp)
{
	fputc('\n', fp);
	return ferror(fp) ? -EIO : 0;
}

/* --- speedscope ----------------------------------------------------------- */

int
ty_timeline_speedscope_write_fp(const struct ty_profile *p, FILE *fp)
{
	struct ty_jsonw w;
	struct lanes l;
	size_t t, i, best = 0;
	double bestw = -1;
	uint32_t f, st;
	char name[512];

	if (lanes_build(p, &l) < 0)
		return -ENOMEM;
	ty_jsonw_init(&w, fp, 0);
	ty_jsonw_object_begin(&w);
	ty_jsonw_kstring(&w, "$schema", "https://www.speedscope.app/file-format-schema.json");
	ty_jsonw_key(&w, "shared");
	ty_jsonw_object_begin(&w);
	ty_jsonw_key(&w, "frames");
	ty_jsonw_array_begin(&w);
	/* frame F is function F; then one pseudo-frame per off-CPU state */
	for (f = 0; f < p->nfuncs; f++) {
		ty_jsonw_object_begin(&w);
		ty_jsonw_kstring(&w, "name", ty_profile_func_name(p, f));
		ty_jsonw_kstring(&w, "file", ty_profile_func_dso(p, f));
		ty_jsonw_object_end(&w);
	}
	for (st = TY_STATE_CPU + 1; st < TY_NSTATES; st++) {
		ty_jsonw_object_begin(&w);
		ty_jsonw_kstring(&w, "name", ty_profile_state_frame(st));
		ty_jsonw_object_end(&w);
	}
	ty_jsonw_array_end(&w);
	ty_jsonw_object_end(&w);
	ty_jsonw_key(&w, "profiles");
	ty_jsonw_array_begin(&w);
	for (t = 0; t < l.n; t++) {
		double total = 0;
		for (i = l.start[t]; i < l.start[t + 1]; i++)
			total += (double)p->samples[l.order[i]].period;
		if (total > bestw)
			bestw = total, best = t;
		lane_name(p, &l, t, name, sizeof(name));
		ty_jsonw_object_begin(&w);
		ty_jsonw_kstring(&w, "type", "sampled");
		ty_jsonw_kstring(&w, "name", name);
		ty_jsonw_kstring(&w, "unit", p->meta.period_ns ? "nanoseconds" : "none");
		ty_jsonw_kuint(&w, "startValue", 0);
		ty_jsonw_kdouble(&w, "endValue", total);
		ty_jsonw_key(&w, "samples");
		ty_jsonw_array_begin(&w);
		for (i = l.start[t]; i < l.start[t + 1]; i++) {
			const struct ty_prof_sample *s = &p->samples[l.order[i]];
			uint32_t k;
			ty_jsonw_array_begin(&w); /* root first */
			for (k = p->stack_off[s->stack + 1]; k-- > p->stack_off[s->stack];)
				ty_jsonw_uint(&w, p->locs[p->frames[k]].func);
			if (s->state != TY_STATE_CPU)
				ty_jsonw_uint(&w, p->nfuncs + s->state - 1);
			ty_jsonw_array_end(&w);
		}
		ty_jsonw_array_end(&w);
		ty_jsonw_key(&w, "weights");
		ty_jsonw_array_begin(&w);
		for (i = l.start[t]; i < l.start[t + 1]; i++)
			ty_jsonw_uint(&w, p->samples[l.order[i]].period);
		ty_jsonw_array_end(&w);
		ty_jsonw_object_end(&w);
	}
	ty_jsonw_array_end(&w);
	ty_jsonw_kstring(&w, "name",
			 p->meta.command && *p->meta.command ? p->meta.command : "tachy profile");
	ty_jsonw_kuint(&w, "activeProfileIndex", best);
	ty_jsonw_kstring(&w, "exporter", "tachy");
	ty_jsonw_object_end(&w);
	lanes_release(&l);
	return finish(fp);
}

/* --- the Firefox Profiler ------------------------------------------------- */

/* Categories: 0 is the default (grey) one; then user, kernel, and one per
 * off-CPU state. */
enum { CAT_OTHER, CAT_USER, CAT_KERNEL, CAT_STATE0 };
static const char *const cat_names[] = {"Other", "User", "Kernel",   "Sleeping",
					"I/O",	 "Lock", "Runnable", "Blocked"};
static const char *const cat_colors[] = {"grey", "yellow", "orange",  "lightblue",
					 "blue", "red",	   "magenta", "darkgrey"};

static uint32_t
state_category(uint32_t state)
{
	return CAT_STATE0 + state - 1;
}

/* One thread's tables, built from its samples. */
struct ffthread {
	struct ty_idmap stacks, frames, funcs, resources;
	uint32_t *st_frame, *st_prefix; /* stack table */
	size_t nst, cst, cpst;
	uint32_t *fr_loc; /* frame -> location, or TY_NONE - state for a pseudo-frame */
	uint32_t *fr_func;
	size_t nfr, cfr, cffr;
	uint32_t *fn_func; /* func -> function, or TY_NONE - state */
	uint32_t *fn_res;  /* func -> resource, TY_NONE for none */
	size_t nfn, cfn, cfres;
	uint32_t *rs_dso; /* resource -> DSO string */
	size_t nrs, crs;
	uint32_t *sample_stack;
};

static void
ffthread_release(struct ffthread *t)
{
	ty_idmap_release(&t->stacks), ty_idmap_release(&t->frames), ty_idmap_release(&t->funcs);
	ty_idmap_release(&t->resources);
	free(t->st_frame), free(t->st_prefix), free(t->fr_loc), free(t->fn_func), free(t->rs_dso);
	free(t->fr_func), free(t->fn_res);
	free(t->sample_stack);
	memset(t, 0, sizeof(*t));
}

/* Append V to the array *A of *N (capacity *C); returns the index or TY_NONE. */
static uint32_t
push(uint32_t **a, size_t *n, size_t *c, uint32_t v)
{
	if (*n + 1 >= TY_NONE || ty_array_grow(a, sizeof(**a), *n + 1, c) < 0)
		return TY_NONE;
	(*a)[*n] = v;
	return (uint32_t)(*n)++;
}

static uint32_t
ff_resource(struct ffthread *t, uint32_t dso)
{
	uint32_t *v = ty_idmap_get(&t->resources, dso);

	if (v && *v == TY_NONE)
		*v = push(&t->rs_dso, &t->nrs, &t->crs, dso);
	return v ? *v : TY_NONE;
}

/* Function F of P, or pseudo-function for STATE (F == TY_NONE). */
static uint32_t
ff_func(struct ffthread *t, const struct ty_profile *p, uint32_t f, uint32_t state)
{
	uint64_t key = f == TY_NONE ? (1ull << 40) + state : f;
	uint32_t *v = ty_idmap_get(&t->funcs, key);

	if (v && *v == TY_NONE) {
		uint32_t r = TY_NONE;
		size_t n = t->nfn;
		if (f != TY_NONE && (r = ff_resource(t, p->funcs[f].dso)) == TY_NONE)
			return TY_NONE;
		if (push(&t->fn_res, &n, &t->cfres, r) == TY_NONE)
			return TY_NONE;
		*v = push(&t->fn_func, &t->nfn, &t->cfn, f == TY_NONE ? TY_NONE - state : f);
	}
	return v ? *v : TY_NONE;
}

static uint32_t
ff_frame(struct ffthread *t, const struct ty_profile *p, uint32_t loc, uint32_t state)
{
	uint64_t key = loc == TY_NONE ? (1ull << 40) + state : loc;
	uint32_t *v = ty_idmap_get(&t->frames, key);

	if (v && *v == TY_NONE) {
		uint32_t fn = ff_func(t, p, loc == TY_NONE ? TY_NONE : p->locs[loc].func, state);
		size_t n = t->nfr;
		if (fn == TY_NONE || push(&t->fr_func, &n, &t->cffr, fn) == TY_NONE)
			return TY_NONE;
		*v = push(&t->fr_loc, &t->nfr, &t->cfr, loc == TY_NONE ? TY_NONE - state : loc);
	}
	return v ? *v : TY_NONE;
}

static uint32_t
ff_stack(struct ffthread *t, uint32_t prefix, uint32_t frame)
{
	uint64_t key = ((uint64_t)(prefix + 1) << 32) | frame;
	uint32_t *v = ty_idmap_get(&t->stacks, key);

	if (v && *v == TY_NONE) {
		size_t n = t->nst;
		if (push(&t->st_prefix, &n, &t->cpst, prefix) == TY_NONE)
			return TY_NONE;
		*v = push(&t->st_frame, &t->nst, &t->cst, frame);
	}
	return v ? *v : TY_NONE;
}

static int
ff_build(struct ffthread *t, const struct ty_profile *p, const struct lanes *l, size_t lane)
{
	size_t i, n = l->start[lane + 1] - l->start[lane];

	memset(t, 0, sizeof(*t));
	if (!(t->sample_stack = malloc((n ? n : 1) * sizeof(uint32_t))))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct ty_prof_sample *s = &p->samples[l->order[l->start[lane] + i]];
		uint32_t k, st = TY_NONE, fr;
		for (k = p->stack_off[s->stack + 1]; k-- > p->stack_off[s->stack];) {
			if ((fr = ff_frame(t, p, p->frames[k], 0)) == TY_NONE ||
			    (st = ff_stack(t, st, fr)) == TY_NONE)
				return -ENOMEM;
		}
		if (s->state != TY_STATE_CPU &&
		    ((fr = ff_frame(t, p, TY_NONE, s->state)) == TY_NONE ||
		     (st = ff_stack(t, st, fr)) == TY_NONE))
			return -ENOMEM;
		t->sample_stack[i] = st;
	}
	return 0;
}

static int
is_kernel_dso(const char *dso)
{
	return strncmp(dso, "[kernel", 7) == 0 || strstr(dso, ".ko") != NULL;
}

/* The index in the profile's libs of DSO string D, or -1. */
static int64_t
lib_index(const struct ty_profile *p, uint32_t d)
{
	uint32_t i;

	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].dso == d)
			return i;
	return -1;
}

/* Strings: the profile's, then the marker and pseudo names after them. */
static uint32_t
marker_string(const struct ty_profile *p, uint32_t state)
{
	return p->nstrings + state - 1;
}

static void
uint_array(struct ty_jsonw *w, const char *key, const uint32_t *v, size_t n, int none_is_null)
{
	size_t i;

	ty_jsonw_key(w, key);
	ty_jsonw_array_begin(w);
	for (i = 0; i < n; i++) {
		if (none_is_null && v[i] == TY_NONE)
			ty_jsonw_null(w);
		else
			ty_jsonw_uint(w, v[i]);
	}
	ty_jsonw_array_end(w);
}

/* An array of N copies of one JSON value written by FN. */
static void
same_array(struct ty_jsonw *w, const char *key, size_t n, int kind)
{
	size_t i;

	ty_jsonw_key(w, key);
	ty_jsonw_array_begin(w);
	for (i = 0; i < n; i++) {
		if (kind == 0)
			ty_jsonw_null(w);
		else if (kind == 1)
			ty_jsonw_bool(w, 0);
		else
			ty_jsonw_int(w, kind == 2 ? 0 : -1);
	}
	ty_jsonw_array_end(w);
}

static void
ff_tables(struct ty_jsonw *w, const struct ty_profile *p, const struct ffthread *t)
{
	size_t i;

	ty_jsonw_key(w, "stackTable");
	ty_jsonw_object_begin(w);
	uint_array(w, "frame", t->st_frame, t->nst, 0);
	uint_array(w, "prefix", t->st_prefix, t->nst, 1);
	ty_jsonw_kuint(w, "length", t->nst);
	ty_jsonw_object_end(w);

	ty_jsonw_key(w, "frameTable");
	ty_jsonw_object_begin(w);
	ty_jsonw_key(w, "address");
	ty_jsonw_array_begin(w);
	for (i = 0; i < t->nfr; i++) {
		uint32_t loc = t->fr_loc[i];
		/* JSON numbers are exact to 2^53: kernel addresses are not */
		if (loc >= p->nlocs || p->locs[loc].addr >= (1ull << 53))
			ty_jsonw_int(w, -1);
		else
			ty_jsonw_uint(w, p->locs[loc].addr);
	}
	ty_jsonw_array_end(w);
	same_array(w, "inlineDepth", t->nfr, 2);
	ty_jsonw_key(w, "category");
	ty_jsonw_array_begin(w);
	for (i = 0; i < t->nfr; i++) {
		uint32_t loc = t->fr_loc[i];
		if (loc >= p->nlocs)
			ty_jsonw_uint(w, state_category(TY_NONE - loc));
		else
			ty_jsonw_uint(w, is_kernel_dso(ty_profile_func_dso(p, p->locs[loc].func))
					     ? CAT_KERNEL
					     : CAT_USER);
	}
	ty_jsonw_array_end(w);
	same_array(w, "subcategory", t->nfr, 2);
	uint_array(w, "func", t->fr_func, t->nfr, 0);
	same_array(w, "nativeSymbol", t->nfr, 0);
	same_array(w, "innerWindowID", t->nfr, 0);
	same_array(w, "line", t->nfr, 0);
	same_array(w, "column", t->nfr, 0);
	ty_jsonw_kuint(w, "length", t->nfr);
	ty_jsonw_object_end(w);

	ty_jsonw_key(w, "funcTable");
	ty_jsonw_object_begin(w);
	ty_jsonw_key(w, "name");
	ty_jsonw_array_begin(w);
	for (i = 0; i < t->nfn; i++)
		ty_jsonw_uint(w, t->fn_func[i] < p->nfuncs
				     ? p->funcs[t->fn_func[i]].name
				     : marker_string(p, TY_NONE - t->fn_func[i]));
	ty_jsonw_array_end(w);
	same_array(w, "isJS", t->nfn, 1);
	same_array(w, "relevantForJS", t->nfn, 1);
	ty_jsonw_key(w, "resource");
	ty_jsonw_array_begin(w);
	for (i = 0; i < t->nfn; i++)
		if (t->fn_res[i] == TY_NONE)
			ty_jsonw_int(w, -1);
		else
			ty_jsonw_uint(w, t->fn_res[i]);
	ty_jsonw_array_end(w);
	same_array(w, "fileName", t->nfn, 0);
	same_array(w, "lineNumber", t->nfn, 0);
	same_array(w, "columnNumber", t->nfn, 0);
	ty_jsonw_kuint(w, "length", t->nfn);
	ty_jsonw_object_end(w);

	ty_jsonw_key(w, "resourceTable");
	ty_jsonw_object_begin(w);
	ty_jsonw_kuint(w, "length", t->nrs);
	ty_jsonw_key(w, "lib");
	ty_jsonw_array_begin(w);
	for (i = 0; i < t->nrs; i++) {
		int64_t li = lib_index(p, t->rs_dso[i]);
		if (li < 0)
			ty_jsonw_null(w);
		else
			ty_jsonw_int(w, li);
	}
	ty_jsonw_array_end(w);
	uint_array(w, "name", t->rs_dso, t->nrs, 0);
	same_array(w, "host", t->nrs, 0);
	ty_jsonw_key(w, "type");
	ty_jsonw_array_begin(w);
	for (i = 0; i < t->nrs; i++)
		ty_jsonw_uint(w, 1); /* library */
	ty_jsonw_array_end(w);
	ty_jsonw_object_end(w);

	ty_jsonw_key(w, "nativeSymbols");
	ty_jsonw_object_begin(w);
	ty_jsonw_key(w, "libIndex");
	ty_jsonw_array_begin(w);
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "address");
	ty_jsonw_array_begin(w);
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "name");
	ty_jsonw_array_begin(w);
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "functionSize");
	ty_jsonw_array_begin(w);
	ty_jsonw_array_end(w);
	ty_jsonw_kuint(w, "length", 0);
	ty_jsonw_object_end(w);
}

static double
ms(const struct lanes *l, uint64_t t)
{
	return (double)(t - l->t0) / 1e6;
}

static void
ff_samples(struct ty_jsonw *w, const struct ty_profile *p, const struct lanes *l, size_t lane,
	   const struct ffthread *t)
{
	size_t i, lo = l->start[lane], hi = l->start[lane + 1];
	int clock = p->meta.period_ns;

	ty_jsonw_key(w, "samples");
	ty_jsonw_object_begin(w);
	uint_array(w, "stack", t->sample_stack, hi - lo, 0);
	ty_jsonw_key(w, "time");
	ty_jsonw_array_begin(w);
	for (i = lo; i < hi; i++)
		ty_jsonw_double(w, ms(l, p->samples[l->order[i]].time));
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "weight");
	if (clock) { /* durations: a wall-clock call tree in milliseconds */
		ty_jsonw_array_begin(w);
		for (i = lo; i < hi; i++)
			ty_jsonw_double(w, (double)p->samples[l->order[i]].period / 1e6);
		ty_jsonw_array_end(w);
	} else {
		ty_jsonw_null(w);
	}
	ty_jsonw_kstring(w, "weightType", clock ? "tracing-ms" : "samples");
	if (clock) {
		ty_jsonw_key(w, "threadCPUDelta");
		ty_jsonw_array_begin(w);
		for (i = lo; i < hi; i++) {
			const struct ty_prof_sample *s = &p->samples[l->order[i]];
			ty_jsonw_uint(w, s->state == TY_STATE_CPU ? s->period : 0);
		}
		ty_jsonw_array_end(w);
	}
	ty_jsonw_kuint(w, "length", hi - lo);
	ty_jsonw_object_end(w);
}

static void
ff_markers(struct ty_jsonw *w, const struct ty_profile *p, const struct lanes *l, size_t lane)
{
	size_t i, lo = l->start[lane], hi = l->start[lane + 1], n = 0;
	int pass;

	for (i = lo; i < hi; i++)
		n += p->samples[l->order[i]].state != TY_STATE_CPU;
	ty_jsonw_key(w, "markers");
	ty_jsonw_object_begin(w);
	for (pass = 0; pass < 6; pass++) {
		static const char *const keys[] = {"data",    "name",  "startTime",
						   "endTime", "phase", "category"};
		ty_jsonw_key(w, keys[pass]);
		ty_jsonw_array_begin(w);
		for (i = lo; i < hi; i++) {
			const struct ty_prof_sample *s = &p->samples[l->order[i]];
			if (s->state == TY_STATE_CPU)
				continue;
			switch (pass) {
			case 0:
				ty_jsonw_object_begin(w);
				ty_jsonw_kstring(w, "type", "OffCPU");
				ty_jsonw_kstring(w, "state", ty_profile_state_name(s->state));
				ty_jsonw_object_end(w);
				break;
			case 1:
				ty_jsonw_uint(w, marker_string(p, s->state));
				break;
			case 2:
				ty_jsonw_double(w, ms(l, s->time));
				break;
			case 3:
				ty_jsonw_double(w, ms(l, s->time + s->period));
				break;
			case 4:
				ty_jsonw_uint(w, 1); /* an interval */
				break;
			default:
				ty_jsonw_uint(w, state_category(s->state));
			}
		}
		ty_jsonw_array_end(w);
	}
	ty_jsonw_kuint(w, "length", n);
	ty_jsonw_object_end(w);
}

static void
ff_thread(struct ty_jsonw *w, const struct ty_profile *p, const struct lanes *l, size_t lane,
	  const struct ffthread *t)
{
	const struct ty_prof_sample *first = &p->samples[l->order[l->start[lane]]];
	char pid[16];
	size_t k;
	const char *pname = lane_comm(p, l, lane);

	for (k = 0; k < l->n; k++) /* the process's name: its main thread's */
		if (l->tids[k] == l->pids[lane])
			pname = lane_comm(p, l, k);
	snprintf(pid, sizeof(pid), "%u", l->pids[lane]);
	ty_jsonw_object_begin(w);
	ty_jsonw_kstring(w, "processType", "default");
	ty_jsonw_kdouble(w, "processStartupTime", 0);
	ty_jsonw_key(w, "processShutdownTime");
	ty_jsonw_null(w);
	ty_jsonw_kdouble(w, "registerTime", ms(l, first->time));
	ty_jsonw_key(w, "unregisterTime");
	ty_jsonw_null(w);
	ty_jsonw_key(w, "pausedRanges");
	ty_jsonw_array_begin(w);
	ty_jsonw_array_end(w);
	ty_jsonw_kstring(w, "name", lane_comm(p, l, lane));
	ty_jsonw_kbool(w, "isMainThread", l->tids[lane] == l->pids[lane]);
	ty_jsonw_kstring(w, "processName", pname);
	ty_jsonw_kstring(w, "pid", pid);
	ty_jsonw_kuint(w, "tid", l->tids[lane]);
	ff_samples(w, p, l, lane, t);
	ff_markers(w, p, l, lane);
	ff_tables(w, p, t);
	ty_jsonw_object_end(w);
}

/* Breakpad's id of an ELF build-id (hex): the first 16 bytes as a GUID
 * (the first three fields byte-swapped), then an age of 0. */
static void
breakpad_id(const char *hex, char *out, size_t len)
{
	static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
	size_t n = strlen(hex), i;

	if (n < 32 || len < 34) {
		snprintf(out, len, "%s", "");
		return;
	}
	for (i = 0; i < 16; i++) {
		const char *b = hex + 2 * order[i];
		out[2 * i] = (char)(b[0] >= 'a' ? b[0] - 32 : b[0]);
		out[2 * i + 1] = (char)(b[1] >= 'a' ? b[1] - 32 : b[1]);
	}
	out[32] = '0';
	out[33] = '\0';
}

/* The wall-clock time (ms since the epoch) of the timeline's zero, the
 * first sample's time; 0 when the profile does not know its start. */
static double
ff_start_ms(const struct ty_profile *p, const struct lanes *l)
{
	const struct ty_prof_meta *m = &p->meta;

	if (!m->start_unix_ns)
		return 0;
	return ((double)m->start_unix_ns + ((double)l->t0 - (double)m->start_mono_ns)) / 1e6;
}

static void
ff_meta(struct ty_jsonw *w, const struct ty_profile *p, const struct lanes *l)
{
	const struct ty_prof_meta *m = &p->meta;
	size_t i;

	ty_jsonw_key(w, "meta");
	ty_jsonw_object_begin(w);
	ty_jsonw_kdouble(w, "interval",
			 m->use_freq && m->rate	   ? 1000.0 / (double)m->rate
			 : m->period_ns && m->rate ? (double)m->rate / 1e6
						   : 1);
	ty_jsonw_kdouble(w, "startTime", ff_start_ms(p, l));
	ty_jsonw_kint(w, "processType", 0);
	ty_jsonw_kstring(w, "product", m->command && *m->command ? m->command : "tachy");
	ty_jsonw_kstring(w, "importedFrom", "tachy");
	ty_jsonw_kint(w, "stackwalk", m->callchain ? 1 : 0);
	ty_jsonw_kbool(w, "debug", 0);
	ty_jsonw_kint(w, "version", 24); /* the Gecko format's: not read here */
	ty_jsonw_kint(w, "preprocessedProfileVersion", TY_TIMELINE_FIREFOX_VERSION);
	ty_jsonw_kbool(w, "symbolicated", 1);
	ty_jsonw_kbool(w, "usesOnlyOneStackType", 1);
	ty_jsonw_kbool(w, "sourceCodeIsNotOnSearchfox", 1);
	if (m->command && *m->command)
		ty_jsonw_kstring(w, "arguments", m->command);
	if (m->period_ns) {
		ty_jsonw_key(w, "sampleUnits");
		ty_jsonw_object_begin(w);
		ty_jsonw_kstring(w, "time", "ms");
		ty_jsonw_kstring(w, "eventDelay", "ms");
		ty_jsonw_kstring(w, "threadCPUDelta", "ns");
		ty_jsonw_object_end(w);
	}
	ty_jsonw_key(w, "categories");
	ty_jsonw_array_begin(w);
	for (i = 0; i < sizeof(cat_names) / sizeof(*cat_names); i++) {
		ty_jsonw_object_begin(w);
		ty_jsonw_kstring(w, "name", cat_names[i]);
		ty_jsonw_kstring(w, "color", cat_colors[i]);
		ty_jsonw_key(w, "subcategories");
		ty_jsonw_array_begin(w);
		ty_jsonw_string(w, "Other");
		ty_jsonw_array_end(w);
		ty_jsonw_object_end(w);
	}
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "markerSchema");
	ty_jsonw_array_begin(w);
	ty_jsonw_object_begin(w);
	ty_jsonw_kstring(w, "name", "OffCPU");
	ty_jsonw_kstring(w, "tooltipLabel", "Off-CPU: {marker.data.state}");
	ty_jsonw_kstring(w, "tableLabel", "{marker.data.state}");
	ty_jsonw_kstring(w, "chartLabel", "{marker.data.state}");
	ty_jsonw_key(w, "display");
	ty_jsonw_array_begin(w);
	ty_jsonw_string(w, "marker-chart");
	ty_jsonw_string(w, "marker-table");
	ty_jsonw_string(w, "timeline-overview");
	ty_jsonw_array_end(w);
	ty_jsonw_key(w, "fields");
	ty_jsonw_array_begin(w);
	ty_jsonw_object_begin(w);
	ty_jsonw_kstring(w, "key", "state");
	ty_jsonw_kstring(w, "label", "State");
	ty_jsonw_kstring(w, "format", "string");
	ty_jsonw_object_end(w);
	ty_jsonw_array_end(w);
	ty_jsonw_kstring(w, "description",
			 "The thread was off the CPU: sleeping, waiting for "
			 "I/O or a lock, or preempted (runnable)");
	ty_jsonw_object_end(w);
	ty_jsonw_array_end(w);
	ty_jsonw_object_end(w);
}

static void
ff_libs(struct ty_jsonw *w, const struct ty_profile *p)
{
	uint32_t i;
	char bp[40];

	ty_jsonw_key(w, "libs");
	ty_jsonw_array_begin(w);
	for (i = 0; i < p->nmaps; i++) {
		const char *path = p->strings[p->maps[i].dso];
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		const char *bid =
		    p->maps[i].build_id == TY_NONE ? "" : p->strings[p->maps[i].build_id];
		breakpad_id(bid, bp, sizeof(bp));
		ty_jsonw_object_begin(w);
		ty_jsonw_kstring(w, "arch", "");
		ty_jsonw_kstring(w, "name", base);
		ty_jsonw_kstring(w, "path", path);
		ty_jsonw_kstring(w, "debugName", base);
		ty_jsonw_kstring(w, "debugPath", path);
		ty_jsonw_kstring(w, "breakpadId", bp);
		ty_jsonw_key(w, "codeId");
		if (*bid)
			ty_jsonw_string(w, bid);
		else
			ty_jsonw_null(w);
		ty_jsonw_object_end(w);
	}
	ty_jsonw_array_end(w);
}

int
ty_timeline_firefox_write_fp(const struct ty_profile *p, FILE *fp)
{
	struct ty_jsonw w;
	struct lanes l;
	size_t t;
	uint32_t i;

	if (lanes_build(p, &l) < 0)
		return -ENOMEM;
	ty_jsonw_init(&w, fp, 0);
	ty_jsonw_object_begin(&w);
	ff_meta(&w, p, &l);
	ff_libs(&w, p);
	ty_jsonw_key(&w, "shared");
	ty_jsonw_object_begin(&w);
	ty_jsonw_key(&w, "stringArray");
	ty_jsonw_array_begin(&w);
	for (i = 0; i < p->nstrings; i++)
		ty_jsonw_string(&w, p->strings[i]);
	for (i = TY_STATE_CPU + 1; i < TY_NSTATES; i++)
		ty_jsonw_string(&w, ty_profile_state_frame(i));
	ty_jsonw_array_end(&w);
	ty_jsonw_object_end(&w);
	ty_jsonw_key(&w, "threads");
	ty_jsonw_array_begin(&w);
	for (t = 0; t < l.n; t++) {
		struct ffthread ft;
		if (ff_build(&ft, p, &l, t) < 0) {
			ffthread_release(&ft);
			lanes_release(&l);
			return -ENOMEM;
		}
		ff_thread(&w, p, &l, t, &ft);
		ffthread_release(&ft);
	}
	ty_jsonw_array_end(&w);
	ty_jsonw_key(&w, "pages");
	ty_jsonw_array_begin(&w);
	ty_jsonw_array_end(&w);
	ty_jsonw_key(&w, "counters");
	ty_jsonw_array_begin(&w);
	ty_jsonw_array_end(&w);
	ty_jsonw_key(&w, "profilerOverhead");
	ty_jsonw_array_begin(&w);
	ty_jsonw_array_end(&w);
	ty_jsonw_object_end(&w);
	lanes_release(&l);
	return finish(fp);
}

/* --- files ------------------------------------------------------------------ */

static int
write_file(const struct ty_profile *p, const char *path,
	   int (*fn)(const struct ty_profile *, FILE *), struct ty_error *e)
{
	struct ty_outfile of;
	int r;

	if ((r = ty_outfile_open(&of, path, e)) < 0)
		return r;
	if ((r = fn(p, of.fp)) == -EIO && of.werr)
		r = -of.werr; /* the write's own reason (ENOSPC), not the stream's EIO */
	if (r < 0) {
		ty_outfile_abort(&of);
		return ty_error_set(e, r, "cannot write '%s': %s", path,
				    r == -ENOMEM ? "out of memory" : strerror(-r));
	}
	return ty_outfile_commit(&of, e);
}

int
ty_timeline_firefox_write(const struct ty_profile *p, const char *path, struct ty_error *e)
{
	return write_file(p, path, ty_timeline_firefox_write_fp, e);
}

int
ty_timeline_speedscope_write(const struct ty_profile *p, const char *path, struct ty_error *e)
{
	return write_file(p, path, ty_timeline_speedscope_write_fp, e);
}
