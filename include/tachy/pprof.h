/* pprof.h - a profile exported as pprof's profile.proto. */
#ifndef TACHY_PPROF_H
#define TACHY_PPROF_H

#include <stddef.h>

#include "tachy/error.h"
#include "tachy/profile.h"

/* Write P as pprof's profile.proto to PATH, gzip-compressed (zlib).
 * Returns 0, -ENOTSUP with "not built with zlib", or a negative errno
 * with E filled. */
int ty_pprof_write(const struct ty_profile *p, const char *path, struct ty_error *e);
/* Encode P as an uncompressed profile.proto into a malloc'd buffer. */
int ty_pprof_encode(const struct ty_profile *p, unsigned char **buf, size_t *len);

#endif
