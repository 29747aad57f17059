/* profile-perfdata-load.h - a perf.data recording (profile-perfdata.h) to
 * tachy's profile model, as tachy record makes one: the mappings, names,
 * forks and exits to the collector first (in time order), then the samples
 * of one event, each with a user stack copy (perf record --call-graph
 * dwarf) unwound by tachy's CFI unwinder (unwind.h) as record -g does, the
 * kernel's chains (--call-graph fp) as they are, or of a sched_switch
 * tracepoint (perf record -e sched:sched_switch, perf sched record): each
 * switch-out paired with the thread's next switch-in into its time off the
 * CPU, by state (profile-perfdata-sched.h), as tachy record --off-cpu; the addresses named by
 * the recorded builds (buildid.h: perf's build-id cache, the files on this
 * machine that are those builds, debuginfod) and their debug files
 * (symbols.h), each file here whose build-id differs from the one the
 * recording names said in a warning, with the source used instead. */
#ifndef TACHY_PROFILE_PERFDATA_LOAD_H
#define TACHY_PROFILE_PERFDATA_LOAD_H

#include <stdint.h>

#include "tachy/error.h"
#include "tachy/profile-perfdata.h"
#include "tachy/profile.h"
#include "tachy/symbols.h"

struct ty_perfdata_load_opts {
	const char *event; /* the event's name (perf's -e NAME); NULL: the first */
	/* where the recorded builds are looked for (buildid.h): perf's
	 * build-id cache (~/.debug; NULL: none), then debuginfod when set */
	const char *buildid_dir;
	int debuginfod;
	/* each warning (a file's build-id differs, records skipped, ...) */
	void (*warn)(const char *msg, void *arg);
	void *warn_arg;
};

/* What the load did, for the caller to say. */
struct ty_perfdata_load_stats {
	int event;		  /* the event's index */
	uint64_t samples;	  /* of the event, kept */
	uint64_t unwound;	  /* samples with a user stack copy, unwound */
	uint64_t complete;	  /* ... to the outermost frame */
	uint64_t truncated;	  /* ... cut by the end of the copy */
	uint64_t buildids_differ; /* files whose build-id is not the recorded one */
	uint64_t raw_short;	  /* sched_switch samples with a raw record cut short */
	uint64_t from_cache;	  /* files read from perf's build-id cache... */
	uint64_t from_debuginfod; /* ...and from debuginfod */
};

/* Make a profile of the event O->event of PD, resolving with SYMS (the
 * caller's, set up as for tachy record; it learns the recording's
 * mappings). Returns 0 and *OUT (the caller frees it), or -EINVAL when no
 * event has that name (E lists them) or the event has no samples in the
 * file, or -ENOMEM. */
int ty_perfdata_load(struct ty_perfdata *pd, const struct ty_perfdata_load_opts *o,
		     struct ty_symbols *syms, struct ty_profile **out,
		     struct ty_perfdata_load_stats *st, struct ty_error *e);

#endif
