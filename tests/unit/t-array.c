/* t-array.c - the growing-array helper. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "tachy/array.h"

/* The index map: new keys read TY_IDMAP_NONE, set values survive the
 * growth from 64 slots, keys that differ only in their high bits (the
 * kernel's addresses, (1 << 40) + state pseudo-keys) stay apart. */
static void
test_idmap(void)
{
	struct ty_idmap m = {0};
	uint64_t i;
	uint32_t *v;
	int ok = 1;

	CHECK((v = ty_idmap_get(&m, 7)) != NULL);
	CHECK_INT(*v, TY_IDMAP_NONE);
	*v = 70;
	CHECK_INT(*ty_idmap_get(&m, 7), 70);
	CHECK_INT(m.n, 1);
	for (i = 0; i < 5000; i++) {
		uint64_t key = i % 2 ? (i << 40) : i * 3 + 100;
		if (!(v = ty_idmap_get(&m, key)))
			break;
		ok &= *v == TY_IDMAP_NONE;
		*v = (uint32_t)i;
	}
	CHECK(ok);
	CHECK_INT(m.n, 5001);
	CHECK(m.cap >= 2 * m.n);
	for (i = 0; i < 5000; i++)
		ok &= *ty_idmap_get(&m, i % 2 ? (i << 40) : i * 3 + 100) == (uint32_t)i;
	CHECK(ok);
	CHECK_INT(*ty_idmap_get(&m, 7), 70);
	CHECK_INT(m.n, 5001);
	/* a lookup that adds nothing */
	CHECK_INT(ty_idmap_find(&m, 7), 70);
	CHECK_INT(ty_idmap_find(&m, 4999ull << 40), 4999);
	CHECK_INT(ty_idmap_find(&m, 8), TY_IDMAP_NONE);
	CHECK_INT(ty_idmap_find(&m, 1ull << 41), TY_IDMAP_NONE);
	CHECK_INT(m.n, 5001);
	ty_idmap_release(&m);
	CHECK_INT(ty_idmap_find(&m, 7), TY_IDMAP_NONE); /* empty */
	CHECK_INT(m.cap, 0);
	CHECK(m.k == NULL && m.v == NULL);
}

int
main(void)
{
	int *v = NULL;
	size_t cap = 0, n, i;
	int ok = 1;

	CHECK_INT(ty_array_grow(&v, sizeof(*v), 0, &cap), 0);
	CHECK_INT(cap, 0);
	for (n = 0; n < 1000; n++) {
		if (ty_array_grow(&v, sizeof(*v), n + 1, &cap) < 0)
			break;
		v[n] = (int)n;
	}
	CHECK_INT(n, 1000);
	CHECK_INT(cap, 1024); /* 16 doubled */
	for (i = 0; i < n; i++)
		ok &= v[i] == (int)i;
	CHECK(ok);
	/* An impossible size leaves the array as it was. */
	CHECK_INT(ty_array_grow(&v, sizeof(*v), SIZE_MAX / 2, &cap), -ENOMEM);
	CHECK_INT(cap, 1024);
	CHECK_INT(v[999], 999);
	free(v);
	test_idmap();
	return check_done();
}
