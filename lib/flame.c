/* flame.c - interactive flame graphs (stub). */
#include <errno.h>
#include "tachy/profile.h"
int
ty_flame_write(const struct ty_profile *p, const struct ty_flame_opts *o, FILE *fp)
{
	return -ENOTSUP;
}
