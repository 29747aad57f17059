/* folded.h - a profile's folded stacks as a string (malloc'd), for the
 * unit tests of the profile and of the collector. */
#ifndef TACHY_TEST_FOLDED_H
#define TACHY_TEST_FOLDED_H

#include <stdio.h>

#include "check.h"
#include "tachy/profile-views.h"

static char *
folded(const struct ty_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	CHECK_INT(ty_profile_views_folded(p, fp), 0);
	fclose(fp);
	return buf;
}

#endif
