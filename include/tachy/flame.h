/* flame.h - interactive flame graphs (SVG) of a profile, differential
 * ones of two. */
#ifndef TACHY_FLAME_H
#define TACHY_FLAME_H

#include <stdio.h>

#include "tachy/profile-match.h"
#include "tachy/profile.h"

struct ty_flame_opts {
	const char *title;
	int width;		      /* pixels, 0 for 1200 */
	const struct ty_profile *old; /* non-NULL: differential flame graph */
	/* How OLD's functions meet P's (profile-match.h; main[0] OLD's
	 * program, main[1] P's); NULL: by name and full path. */
	const struct ty_profile_match *match;
	/* Differential, coloured by a verdict (tachy run --profile --flame):
	 * with SHADE set, each frame of a function is coloured only as SHADE
	 * says for (NAME, DSO): it returns +1 (red: slower), -1 (blue:
	 * faster) or 0 (grey: no change proven), puts the colour's strength
	 * in *LEVEL (0..1) and a note for the frame's details in INFO ("" for
	 * none). LEGEND replaces the line under the title. */
	int (*shade)(void *arg, const char *name, const char *dso, double *level, char *info,
		     size_t len);
	void *shade_arg;
	const char *legend;
	/* Non-NULL: the weights are counts of this ("instructions"), shown
	 * as such in each frame's details instead of a number of samples. */
	const char *unit;
	/* Frames narrower than this many pixels are left out, and so are the
	 * rows only they would fill (the picture as tall as what it shows);
	 * 0 for 0.1 (FlameGraph's). */
	double min_width;
};

/* Write an interactive, self-contained flame graph SVG of P to FP: hover
 * shows details, click zooms, search highlights; every name escaped.
 * Returns 0, -ENOMEM, or -EIO when FP fails. */
int ty_flame_write(const struct ty_profile *p, const struct ty_flame_opts *o, FILE *fp);

#endif
