/* pprof.c - pprof export (stub). */
#include <errno.h>
#include "tachy/profile.h"
int
ty_pprof_write(const struct ty_profile *p, const char *path, struct ty_error *e)
{
	return ty_error_set(e, -ENOTSUP, "not yet");
}
