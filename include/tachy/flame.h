/* flame.h - interactive flame graphs (SVG) of a profile, differential
 * ones of two. */
#ifndef TACHY_FLAME_H
#define TACHY_FLAME_H

#include <stdio.h>

#include "tachy/profile.h"

struct ty_flame_opts {
	const char *title;
	int width;		      /* pixels, 0 for 1200 */
	const struct ty_profile *old; /* non-NULL: differential flame graph */
};

/* Write an interactive, self-contained flame graph SVG of P to FP: hover
 * shows details, click zooms, search highlights; every name escaped.
 * Returns 0, -ENOMEM, or -EIO when FP fails. */
int ty_flame_write(const struct ty_profile *p, const struct ty_flame_opts *o, FILE *fp);

#endif
