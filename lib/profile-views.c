/* profile-views.c - views of a profile: flat, callers and callees, call
 * tree, folded stacks, diff. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/profile-views.h"

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

void
ty_profile_views_row_count(struct ty_profile_views_row *row, const struct ty_prof_sample *s)
{
	row->self_weight += (double)s->period;
	row->total_weight += (double)s->period;
	if (s->state != TY_STATE_CPU)
		row->self_off += (double)s->period;
	row->self_samples++;
	row->total_samples++;
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
add_row(struct ty_profile_views_flat *f, size_t *cap, const char *name, const char *dso)
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
flat_by_key(const struct ty_profile *p, enum ty_prof_by by, struct ty_profile_views_flat *f,
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
flat_by_thread(const struct ty_profile *p, int comm, int state, struct ty_profile_views_flat *f)
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
		struct ty_profile_views_row *row;
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
		ty_profile_views_row_count(row, s);
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
	const struct ty_profile_views_row *x = a, *y = b;
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

void
ty_profile_views_flat_sort(struct ty_profile_views_flat *f, enum ty_prof_sort sort)
{
	sort_key = sort;
	if (f->nrows > 1)
		qsort(f->rows, f->nrows, sizeof(*f->rows), row_cmp);
}

int
ty_profile_views_flat(const struct ty_profile *p, enum ty_prof_by by, enum ty_prof_sort sort,
		      struct ty_profile_views_flat *out)
{
	struct sweights sw;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	if (by == TY_BY_PROCESS || by == TY_BY_CPU)
		return -EINVAL; /* profile-who.c's */
	for (i = 0; i < p->nsamples; i++)
		out->weight += (double)p->samples[i].period;
	out->samples = p->nsamples;
	if (by == TY_BY_THREAD || by == TY_BY_COMM || by == TY_BY_STATE) {
		ret = flat_by_thread(p, by == TY_BY_COMM, by == TY_BY_STATE, out);
	} else {
		if (stack_weights(p, &sw) < 0)
			return -ENOMEM;
		ret = flat_by_key(p, by, out, &sw);
		sweights_release(&sw);
	}
	if (ret < 0) {
		ty_profile_views_flat_release(out);
		return ret;
	}
	ty_profile_views_flat_sort(out, sort);
	return 0;
}

void
ty_profile_views_flat_release(struct ty_profile_views_flat *f)
{
	size_t i;

	for (i = 0; i < f->nrows; i++)
		free(f->rows[i].name);
	free(f->rows);
	memset(f, 0, sizeof(*f));
}

/* --- call tree ----------------------------------------------------------------- */

static uint64_t
node_hash(uint32_t parent, uint32_t key)
{
	return ty_array_hash(&key, sizeof(key), parent);
}

/* The child of PARENT for the function of key KEY (NAME in DSO), added
 * when new. */
static uint32_t
tree_child(struct ty_profile_views_tree *t, uint32_t parent, uint32_t key, const char *name,
	   const char *dso)
{
	size_t j;
	struct ty_profile_views_node *nd;

	if (key == UINT32_MAX)
		return TY_NONE;
	if ((t->n + 1) * 2 > t->nslots) {
		size_t ns = t->nslots ? t->nslots * 2 : 1024, i;
		uint32_t *s = malloc(ns * 4);
		if (!s)
			return TY_NONE;
		memset(s, 0xff, ns * 4);
		for (i = 1; i < t->n; i++) {
			nd = &t->nodes[i];
			for (j = node_hash(nd->parent, nd->key) & (ns - 1); s[j] != TY_NONE;
			     j = (j + 1) & (ns - 1))
				;
			s[j] = (uint32_t)i;
		}
		free(t->slots);
		t->slots = s;
		t->nslots = ns;
	}
	for (j = node_hash(parent, key) & (t->nslots - 1); t->slots[j] != TY_NONE;
	     j = (j + 1) & (t->nslots - 1)) {
		nd = &t->nodes[t->slots[j]];
		if (nd->parent == parent && nd->key == key)
			return t->slots[j];
	}
	if (ty_array_grow32(&t->nodes, sizeof(*t->nodes), t->n + 1, &t->cap) < 0)
		return TY_NONE;
	nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->name = name;
	nd->dso = dso;
	nd->key = key;
	nd->parent = parent;
	nd->sibling = t->nodes[parent].child;
	nd->child = TY_NONE;
	t->nodes[parent].child = t->n;
	t->slots[j] = t->n;
	return t->n++;
}

/* The pseudo-frames of stack S's off-CPU time, under its leaf NODE. */
static int
tree_add_off(struct ty_profile_views_tree *t, const struct sweights *sw, size_t s, uint32_t node,
	     int old, double scale)
{
	uint32_t st, k;

	for (st = TY_STATE_CPU + 1; st < TY_NSTATES; st++) {
		double w = sw->w[s * TY_NSTATES + st];
		if (!sw->n[s * TY_NSTATES + st])
			continue;
		const char *name = ty_profile_state_frame(st);
		k = tree_child(t, node,
			       ty_profile_match_keys_add(&t->keys, &t->match, !old, name, ""), name,
			       "");
		if (k == TY_NONE)
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
tree_add(struct ty_profile_views_tree *t, const struct ty_profile *p, int old, double scale)
{
	struct sweights sw;
	const double *w;
	const uint64_t *n;
	size_t s, i;
	uint32_t f, *fkey = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(*fkey));

	/* each function's key once (the new profile is side 1, OLD side 0) */
	for (f = 0; fkey && f < p->nfuncs; f++)
		if ((fkey[f] = ty_profile_match_keys_add(
			 &t->keys, &t->match, !old, ty_profile_func_name(p, f),
			 ty_profile_func_dso(p, f))) == UINT32_MAX) {
			free(fkey);
			fkey = NULL;
		}
	if (!fkey || stack_weights(p, &sw) < 0) {
		free(fkey);
		return -ENOMEM;
	}
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
			node = tree_child(t, node, fkey[fn], ty_profile_func_name(p, fn),
					  ty_profile_func_dso(p, fn));
			if (node == TY_NONE) {
				sweights_release(&sw);
				free(fkey);
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
			free(fkey);
			return -ENOMEM;
		}
	}
	sweights_release(&sw);
	free(fkey);
	return 0;
}

int
ty_profile_views_tree_build(struct ty_profile_views_tree *t, const struct ty_profile *p,
			    const struct ty_profile *old)
{
	return ty_profile_views_tree_build_match(t, p, old, NULL);
}

int
ty_profile_views_tree_build_match(struct ty_profile_views_tree *t, const struct ty_profile *p,
				  const struct ty_profile *old, const struct ty_profile_match *m)
{
	double wn = 0, wo = 0;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (m)
		t->match = *m;
	else
		t->match.mode = TY_MATCH_PATH_SYM;
	if (ty_array_grow32(&t->nodes, sizeof(*t->nodes), 1, &t->cap) < 0)
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
	ty_profile_views_tree_release(t);
	return -ENOMEM;
}

void
ty_profile_views_tree_release(struct ty_profile_views_tree *t)
{
	free(t->nodes);
	free(t->slots);
	ty_profile_match_keys_release(&t->keys);
	memset(t, 0, sizeof(*t));
}

static const struct ty_profile_views_tree *sort_tree;

static int
node_cmp(const void *a, const void *b)
{
	const struct ty_profile_views_node *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct ty_profile_views_node *y = &sort_tree->nodes[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->dso, y->dso);
}

/* Largest total first; equal totals by name. */
static int
node_cmp_total(const void *a, const void *b)
{
	const struct ty_profile_views_node *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct ty_profile_views_node *y = &sort_tree->nodes[*(const uint32_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return node_cmp(a, b);
}

static void
sort_children(struct ty_profile_views_tree *t, int (*cmp)(const void *, const void *))
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
ty_profile_views_tree_sort_children(struct ty_profile_views_tree *t, const struct ty_profile *p)
{
	(void)p;
	sort_children(t, node_cmp);
}

void
ty_profile_views_tree_sort_by_total(struct ty_profile_views_tree *t)
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
fold_node(const struct ty_profile_views_tree *t, uint32_t i, struct fold *f)
{
	size_t mark = f->len;
	uint32_t k;

	if (i != 0) {
		const struct ty_profile_views_node *nd = &t->nodes[i];
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
ty_profile_views_folded(const struct ty_profile *p, FILE *fp)
{
	struct ty_profile_views_tree t;
	struct fold f = {0};
	struct fline *lines;
	size_t n, i, j;
	int ret;

	if (ty_profile_views_tree_build(&t, p, NULL) < 0)
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
	ty_profile_views_tree_release(&t);
	if (ret == 0 && ferror(fp))
		ret = -EIO;
	return ret;
}

/* --- callers and callees -------------------------------------------------------------- */

int
ty_profile_views_neighbours(const struct ty_profile *p, const char *sym, int up,
			    struct ty_profile_views_flat *out, struct ty_profile_views_row *matched)
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
	ty_profile_views_flat_sort(out, TY_SORT_SELF);
	ret = 0;
done:
	if (ret < 0)
		ty_profile_views_flat_release(out);
	sweights_release(&sw);
	free(mark), free(row);
	return ret;
}

/* --- diff -------------------------------------------------------------------------------- */

static int
name_cmp(const void *a, const void *b)
{
	const struct ty_profile_views_row *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->dso ? x->dso : "", y->dso ? y->dso : "");
}

static int
diff_cmp(const void *a, const void *b)
{
	const struct ty_profile_views_diff_row *x = a, *y = b;
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
ty_profile_views_diff(const struct ty_profile *old, const struct ty_profile *new_,
		      enum ty_prof_by by, struct ty_profile_views_diff *out)
{
	return ty_profile_views_diff_match(old, new_, by, NULL, out);
}

/* The rows of A (old) and B (new) by symbol, matched by their keys under
 * M (profile-match.h), into OUT (unsorted). */
static int
diff_by_key(const struct ty_profile_views_flat *a, const struct ty_profile_views_flat *b,
	    const struct ty_profile_match *m, struct ty_profile_views_diff *out)
{
	struct ty_profile_match_keys keys = {0};
	const struct ty_profile_views_flat *side[2] = {a, b};
	uint32_t *rowof = NULL, k;
	size_t i, cap = 0, capr = 0;
	int s, ret = -ENOMEM;

	for (s = 0; s < 2; s++)
		for (i = 0; i < side[s]->nrows; i++) {
			const struct ty_profile_views_row *x = &side[s]->rows[i];
			const struct ty_profile_views_flat *f = side[s];
			struct ty_profile_views_diff_row *d;
			if ((k = ty_profile_match_keys_add(&keys, m, s, x->name, x->dso)) ==
			    UINT32_MAX)
				goto done;
			if (k >= capr) {
				size_t c0 = capr;
				if (ty_array_grow(&rowof, sizeof(*rowof), (size_t)k + 1, &capr) < 0)
					goto done;
				memset(rowof + c0, 0xff, (capr - c0) * sizeof(*rowof));
			}
			if (rowof[k] == UINT32_MAX) {
				if (ty_array_grow(&out->rows, sizeof(*out->rows), out->nrows + 1,
						  &cap) < 0)
					goto done;
				d = &out->rows[out->nrows];
				memset(d, 0, sizeof(*d));
				if (!(d->name = strdup(ty_profile_match_name(m, x->name))))
					goto done;
				rowof[k] = (uint32_t)out->nrows++;
			}
			d = &out->rows[rowof[k]];
			/* DSO strings must outlive the flats: the profiles' own */
			if (s == 0 && !d->old_dso)
				d->dso = d->old_dso = x->dso;
			else if (s == 1 && d->dso == d->old_dso)
				d->dso = x->dso; /* the new side's first */
			if (s == 0) {
				d->old_self += f->weight > 0 ? 100 * x->self_weight / f->weight : 0;
				d->old_total +=
				    f->weight > 0 ? 100 * x->total_weight / f->weight : 0;
			} else {
				d->new_self += f->weight > 0 ? 100 * x->self_weight / f->weight : 0;
				d->new_total +=
				    f->weight > 0 ? 100 * x->total_weight / f->weight : 0;
			}
		}
	ret = 0;
done:
	ty_profile_match_keys_release(&keys);
	free(rowof);
	return ret;
}

int
ty_profile_views_diff_match(const struct ty_profile *old, const struct ty_profile *new_,
			    enum ty_prof_by by, const struct ty_profile_match *m,
			    struct ty_profile_views_diff *out)
{
	struct ty_profile_views_flat a, b;
	struct ty_profile_match exact = {TY_MATCH_PATH_SYM, {NULL, NULL}};
	size_t i = 0, j = 0, cap = 0;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (ty_profile_views_flat(old, by, TY_SORT_NAME, &a) < 0)
		return -ENOMEM;
	if (ty_profile_views_flat(new_, by, TY_SORT_NAME, &b) < 0) {
		ty_profile_views_flat_release(&a);
		return -ENOMEM;
	}
	if (by == TY_BY_SYMBOL) { /* functions: matched as profile-match.h says */
		if (diff_by_key(&a, &b, m ? m : &exact, out) < 0)
			goto done;
		i = a.nrows;
		j = b.nrows;
	}
	/* The others: the rows of each flat profile, matched by their keys. */
	while (i < a.nrows || j < b.nrows) {
		struct ty_profile_views_row *x = i < a.nrows ? &a.rows[i] : NULL;
		struct ty_profile_views_row *y = j < b.nrows ? &b.rows[j] : NULL;
		int c = !x ? 1 : !y ? -1 : name_cmp(x, y);
		struct ty_profile_views_diff_row *d;
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
	ty_profile_views_flat_release(&a);
	ty_profile_views_flat_release(&b);
	if (ret < 0)
		ty_profile_views_diff_release(out);
	return ret;
}

void
ty_profile_views_diff_release(struct ty_profile_views_diff *d)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		free(d->rows[i].name);
	free(d->rows);
	memset(d, 0, sizeof(*d));
}
