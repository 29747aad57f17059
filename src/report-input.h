/* report-input.h - the files tachy report reads: tachy's own profiles,
 * cachegrind's output files and perf's perf.data, each into the profile
 * model. */
#ifndef TACHY_REPORT_INPUT_H
#define TACHY_REPORT_INPUT_H

#include "tachy/profile.h"

/* Read PATH into *P: a perf.data file (its event EVENT's samples, NULL:
 * the first event's), a cachegrind output file, else a tachy profile.
 * Returns 0, or the exit status after saying why on stderr (2: not a
 * profile, bad input; 1: out of memory). */
int report_load(const char *path, const char *event, struct ty_profile **p);

/* Whether PATH is a perf.data file (its magic). */
int report_is_perfdata(const char *path);

#endif
