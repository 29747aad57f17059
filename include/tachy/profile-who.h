/* profile-who.h - who and where in a profile: keeping the samples of some
 * commands, processes or CPUs (report --comm, --pid, --cpu, before any
 * view), and the flat profile per process or per CPU (report --by process,
 * --by cpu). */
#ifndef TACHY_PROFILE_WHO_H
#define TACHY_PROFILE_WHO_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/cpulist.h"
#include "tachy/profile-views.h"

/* What to keep: a sample stays when its thread's name is one of COMMS (or
 * NCOMMS is 0), its process one of PIDS (or NPIDS is 0) and its CPU in
 * CPUS (or CPUS is NULL). */
struct ty_prof_filter {
	const char *const *comms;
	size_t ncomms;
	const uint32_t *pids;
	size_t npids;
	const struct ty_cpulist *cpus;
};

/* Keep the samples of P that F lets through (P's weight follows).
 * Returns the number kept, or -ENOMEM. */
long ty_profile_filter(struct ty_profile *p, const struct ty_prof_filter *f);

/* The flat profile of P per process ("comm [pid]", the name of its main
 * thread where known) or per CPU ("cpu N"), self = total, sorted by SORT,
 * into OUT (as ty_profile_views_flat makes the other views). Returns 0 or
 * -ENOMEM. */
int ty_profile_flat_who(const struct ty_profile *p, int by_cpu, enum ty_prof_sort sort,
			struct ty_profile_views_flat *out);

#endif
