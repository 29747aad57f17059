/* array.c - the one growing-array helper, and the index map. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"

int
ty_array_grow(void *pp, size_t elem, size_t need, size_t *cap)
{
	void **p = pp;
	size_t nc;
	void *np;

	if (need <= *cap)
		return 0;
	if (elem == 0 || need > SIZE_MAX / elem)
		return -ENOMEM;
	nc = *cap ? *cap : 16;
	while (nc < need)
		nc = nc > SIZE_MAX / 2 ? need : nc * 2;
	if (nc > SIZE_MAX / elem)
		nc = need;
	np = realloc(*p, nc * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

void
ty_idmap_release(struct ty_idmap *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

uint32_t *
ty_idmap_get(struct ty_idmap *m, uint64_t key)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap) {
		struct ty_idmap nm = {0};
		size_t i;
		nm.cap = m->cap ? m->cap * 2 : 64;
		nm.k = malloc(nm.cap * sizeof(*nm.k));
		nm.v = malloc(nm.cap * sizeof(*nm.v));
		if (!nm.k || !nm.v) {
			ty_idmap_release(&nm);
			return NULL;
		}
		memset(nm.v, 0xff, nm.cap * sizeof(*nm.v));
		for (i = 0; i < m->cap; i++)
			if (m->v[i] != TY_IDMAP_NONE)
				*ty_idmap_get(&nm, m->k[i]) = m->v[i];
		nm.n = m->n;
		ty_idmap_release(m);
		*m = nm;
	}
	for (j = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
	     m->v[j] != TY_IDMAP_NONE; j = (j + 1) & (m->cap - 1))
		if (m->k[j] == key)
			return &m->v[j];
	m->k[j] = key;
	m->n++;
	return &m->v[j];
}

uint32_t
ty_idmap_find(const struct ty_idmap *m, uint64_t key)
{
	size_t j;

	if (!m->cap)
		return TY_IDMAP_NONE;
	for (j = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
	     m->v[j] != TY_IDMAP_NONE; j = (j + 1) & (m->cap - 1))
		if (m->k[j] == key)
			return m->v[j];
	return TY_IDMAP_NONE;
}

int
ty_array_grow32(void *pp, size_t elem, size_t need, uint32_t *cap)
{
	size_t c = *cap;
	int r;

	if (need >= UINT32_MAX)
		return -ENOMEM;
	r = ty_array_grow(pp, elem, need, &c);
	*cap = (uint32_t)c;
	return r;
}

void
ty_array_trim(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

uint64_t
ty_array_hash(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;
	size_t i;

	h ^= 0xcbf29ce484222325ull;
	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}
