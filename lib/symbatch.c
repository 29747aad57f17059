/* symbatch.c - addresses resolved in one batch, file by file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/symbatch.h"

#define NONE 0xffffffffu

/* 40 bytes: a system-wide minute asks for a hundred thousand addresses. */
struct entry {
	uint64_t ip;
	uint64_t at;	 /* the time asked for; after the run, the address in the DSO */
	const char *dso; /* after the run, owned by the symbols: a path, "[unknown]" */
	uint32_t pid, tag;
	uint32_t name;	 /* in strs, NONE: no name */
	uint32_t frame0; /* its frames from here to the one marked last; NONE: none */
};

struct frame {
	uint32_t name, file; /* in strs; file NONE: unknown */
	uint32_t line : 30, inlined : 1, last : 1;
};

struct ty_symbatch {
	struct ty_symbols *s;
	size_t max; /* frames kept per address */
	struct entry *v;
	size_t n, cap;
	uint32_t *slots; /* open addressing over v, NONE empty */
	size_t nslots;
	struct frame *fr;
	size_t nfr, capfr;
	char *strs; /* the names, each once (as far as the map tells) */
	size_t nstrs, capstrs;
	struct ty_idmap strmap; /* a name's hash -> its offset */
	struct ty_dso_frame *tmp;
	size_t released;
};

struct ty_symbatch *
ty_symbatch_new(struct ty_symbols *s, size_t max_frames)
{
	struct ty_symbatch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->s = s;
	b->max = max_frames;
	if (!(b->tmp = calloc(max_frames ? max_frames : 1, sizeof(*b->tmp)))) {
		free(b);
		return NULL;
	}
	return b;
}

void
ty_symbatch_free(struct ty_symbatch *b)
{
	if (!b)
		return;
	free(b->v);
	free(b->slots);
	free(b->fr);
	free(b->strs);
	ty_idmap_release(&b->strmap);
	free(b->tmp);
	free(b);
}

size_t
ty_symbatch_released(const struct ty_symbatch *b)
{
	return b->released;
}

static size_t
slot_of(uint32_t pid, uint32_t tag, uint64_t ip, size_t mask)
{
	return (size_t)((ip * 0x9e3779b97f4a7c15ull) ^ pid ^ ((uint64_t)tag << 40)) & mask;
}

/* The entry of (PID, TAG, IP), or NONE; *AT its slot or the free one. */
static uint32_t
find(const struct ty_symbatch *b, uint32_t pid, uint32_t tag, uint64_t ip, size_t *at)
{
	size_t j;

	if (!b->nslots)
		return NONE;
	for (j = slot_of(pid, tag, ip, b->nslots - 1); b->slots[j] != NONE;
	     j = (j + 1) & (b->nslots - 1)) {
		const struct entry *e = &b->v[b->slots[j]];
		if (e->ip == ip && e->pid == pid && e->tag == tag)
			return b->slots[j];
	}
	if (at)
		*at = j;
	return NONE;
}

static int
grow_slots(struct ty_symbatch *b)
{
	size_t n = b->nslots ? 2 * b->nslots : 1024, i, j;
	uint32_t *s = malloc(n * sizeof(*s));

	if (!s)
		return -ENOMEM;
	memset(s, 0xff, n * sizeof(*s));
	for (i = 0; i < b->n; i++) {
		const struct entry *e = &b->v[i];
		for (j = slot_of(e->pid, e->tag, e->ip, n - 1); s[j] != NONE; j = (j + 1) & (n - 1))
			;
		s[j] = (uint32_t)i;
	}
	free(b->slots);
	b->slots = s;
	b->nslots = n;
	return 0;
}

int
ty_symbatch_add(struct ty_symbatch *b, uint32_t pid, uint32_t tag, uint64_t ip, uint64_t time)
{
	struct entry *e;
	size_t j = 0;

	if (ip >= TY_KERNEL_START)
		return -EINVAL;
	if (find(b, pid, tag, ip, NULL) != NONE)
		return 0;
	if (b->n + 1 >= NONE || ((b->n + 1) * 2 > b->nslots && grow_slots(b) < 0) ||
	    ty_array_grow(&b->v, sizeof(*b->v), b->n + 1, &b->cap) < 0)
		return -ENOMEM;
	find(b, pid, tag, ip, &j);
	e = &b->v[b->n];
	*e = (struct entry){ip, time, NULL, pid, tag, NONE, NONE};
	b->slots[j] = (uint32_t)b->n++;
	return 0;
}

/* STR's offset in B's strings, added when new. */
static int
intern(struct ty_symbatch *b, const char *str, uint32_t *out)
{
	size_t len = strlen(str);
	uint32_t *slot = ty_idmap_get(&b->strmap, ty_array_hash(str, len, 0));

	if (!slot)
		return -ENOMEM;
	if (*slot != NONE && strcmp(b->strs + *slot, str) == 0) {
		*out = *slot;
		return 0;
	}
	if (b->nstrs + len + 1 >= NONE ||
	    ty_array_grow(&b->strs, 1, b->nstrs + len + 1, &b->capstrs) < 0)
		return -ENOMEM;
	memcpy(b->strs + b->nstrs, str, len + 1);
	*out = (uint32_t)b->nstrs;
	if (*slot == NONE) /* else another name of the same hash keeps the slot */
		*slot = *out;
	b->nstrs += len + 1;
	return 0;
}

static int
resolve(struct ty_symbatch *b, struct entry *e)
{
	struct ty_sym_result r;
	size_t n = 0, k;

	ty_symbols_resolve(b->s, e->pid, e->ip, e->at, 0, &r);
	e->dso = r.dso;
	e->at = r.addr;
	if (r.name) {
		if (intern(b, r.name, &e->name) < 0)
			return -ENOMEM;
		n = ty_symbols_frames(b->s, &r, b->tmp, b->max);
	}
	if (ty_array_grow(&b->fr, sizeof(*b->fr), b->nfr + n, &b->capfr) < 0)
		return -ENOMEM;
	if (b->nfr + n >= NONE)
		return -ENOMEM;
	e->frame0 = n ? (uint32_t)b->nfr : NONE;
	for (k = 0; k < n; k++) {
		struct frame *f = &b->fr[b->nfr + k];
		f->file = NONE;
		if (intern(b, b->tmp[k].name, &f->name) < 0 ||
		    (b->tmp[k].file && intern(b, b->tmp[k].file, &f->file) < 0))
			return -ENOMEM;
		f->line = b->tmp[k].line < (1u << 30) ? b->tmp[k].line : 0;
		f->inlined = b->tmp[k].inlined != 0;
		f->last = k + 1 == n;
	}
	b->nfr += n;
	return 0;
}

/* By the address in the file (OFF, the context), then the entry. */
static int
by_offset(const void *x, const void *y, void *ctx)
{
	const uint64_t *off = ctx;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;

	if (off[i] != off[j])
		return off[i] < off[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

int
ty_symbatch_run(struct ty_symbatch *b)
{
	struct ty_idmap groups = {0}; /* a file -> its group */
	uint32_t *group = malloc((b->n ? b->n : 1) * sizeof(*group)), ngroups = 0, *slot;
	struct ty_dso **file = malloc((b->n ? b->n : 1) * sizeof(*file));
	struct ty_addrspace_map m;
	uint32_t *order = malloc((b->n ? b->n : 1) * sizeof(*order)), *start = NULL;
	uint64_t *off = malloc((b->n ? b->n : 1) * sizeof(*off)); /* in its file */
	size_t i;
	int ret = -ENOMEM;

	if (!group || !order || !file || !off)
		goto out;
	ty_array_trim(); /* the caller's walk let go of its tables */
	/* One group per file, in the order of its first address; an address
	 * of no file is a group of its own, where it comes. In a group, the
	 * addresses in the file's order: its DWARF's units one after another
	 * (ty_dso_frames keeps a bounded number of their line tables). */
	for (i = 0; i < b->n; i++) {
		const struct entry *e = &b->v[i];
		file[i] =
		    ty_addrspace_find(ty_symbols_addrspace(b->s), e->pid, e->ip, e->at, &m) == 0
			? m.dso
			: NULL;
		off[i] = file[i] ? e->ip - m.start + m.pgoff : 0;
		if (!file[i]) {
			group[i] = ngroups++;
			continue;
		}
		if (!(slot = ty_idmap_get(&groups, (uint64_t)(uintptr_t)file[i])))
			goto out;
		if (*slot == TY_IDMAP_NONE)
			*slot = ngroups++;
		group[i] = *slot;
	}
	if (!(start = calloc((size_t)ngroups + 1, sizeof(*start))))
		goto out;
	for (i = 0; i < b->n; i++) /* counting sort, stable */
		start[group[i] + 1]++;
	for (i = 0; i < ngroups; i++)
		start[i + 1] += start[i];
	for (i = 0; i < b->n; i++)
		order[start[group[i]]++] = (uint32_t)i;
	for (i = 0; i < ngroups; i++) /* start[i]: the end of group i now */
		if (start[i] - (i ? start[i - 1] : 0) > 1)
			qsort_r(order + (i ? start[i - 1] : 0), start[i] - (i ? start[i - 1] : 0),
				sizeof(*order), by_offset, off);
	for (i = 0; i < b->n; i++) {
		if (resolve(b, &b->v[order[i]]) < 0)
			goto out;
		if (file[order[i]] && (i + 1 == b->n || group[order[i + 1]] != group[order[i]])) {
			ty_dso_release(file[order[i]]);
			b->released++;
		}
	}
	ret = 0;
out:
	ty_idmap_release(&groups);
	free(group);
	free(order);
	free(start);
	free(file);
	free(off);
	return ret;
}

long
ty_symbatch_get(const struct ty_symbatch *b, uint32_t pid, uint32_t tag, uint64_t ip,
		struct ty_sym_result *r, struct ty_dso_frame *frames, size_t max)
{
	uint32_t i = find(b, pid, tag, ip, NULL);
	const struct entry *e;
	const struct frame *f;
	size_t n = 0;

	if (i == NONE)
		return -1;
	e = &b->v[i];
	memset(r, 0, sizeof(*r));
	r->name = e->name == NONE ? NULL : b->strs + e->name;
	r->dso = e->dso;
	r->addr = e->at;
	for (f = e->frame0 == NONE ? NULL : &b->fr[e->frame0]; f && n < max;
	     f = f->last ? NULL : f + 1) {
		frames[n].name = b->strs + f->name;
		frames[n].file = f->file == NONE ? NULL : b->strs + f->file;
		frames[n].line = f->line;
		frames[n].inlined = f->inlined;
		n++;
	}
	return (long)n;
}
