/* t-array.c - the growing-array helper. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "tachy/array.h"

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
	return check_done();
}
