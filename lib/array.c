/* array.c - the one growing-array helper. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

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
