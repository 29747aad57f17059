/* timeline.h - a profile's samples over time, exported for the Firefox
 * Profiler and speedscope. */
#ifndef TACHY_TIMELINE_H
#define TACHY_TIMELINE_H

#include <stdio.h>

#include "tachy/error.h"
#include "tachy/profile.h"

/* The Firefox Profiler's processed profile format version written. */
#define TY_TIMELINE_FIREFOX_VERSION 57

/* Write P as a Firefox Profiler processed profile (one thread per tid, its
 * samples with their times and weights, off-CPU intervals as markers,
 * libraries, categories per state) / as speedscope's file format (one
 * sampled profile per thread, weights in nanoseconds or events) to PATH
 * through ty_outfile. Returns 0, or a negative errno with E filled. */
int ty_timeline_firefox_write(const struct ty_profile *p, const char *path, struct ty_error *e);
int ty_timeline_speedscope_write(const struct ty_profile *p, const char *path, struct ty_error *e);
/* The same into an open stream; -EIO when FP fails, -ENOMEM. */
int ty_timeline_firefox_write_fp(const struct ty_profile *p, FILE *fp);
int ty_timeline_speedscope_write_fp(const struct ty_profile *p, FILE *fp);

#endif
