/* profile-perfdata.h - the reader of perf's perf.data files (perf record's
 * output, file mode and pipe mode): the header, the events (each one's
 * perf_event_attr and sample ids), the feature sections tachy uses
 * (build-ids, command line, event names, host, the tracing data's
 * tracepoint formats) and the data section's
 * records, which are the kernel's ring records and are decoded by
 * sampler-decode.c with each event's layout. Records perf adds of its own
 * (finished rounds, id indexes, ...) and feature sections not known are
 * skipped; AUXTRACE payloads are stepped over.
 *
 * The file format (tools/perf/util/header.c in Linux): a 104-byte header
 * ("PERFILE2", its size, the size of one attr entry, the sections of the
 * attrs, the data and the event types, a 256-bit map of the features
 * present), the attrs (a perf_event_attr and the section of its ids each),
 * the data, and after the data one section per feature present, in the
 * bits' order. A pipe-mode file has a 16-byte header ("PERFILE2", 16) and
 * carries its attrs and features as records in the stream.
 *
 * Every read is bounds-checked against the file; sizes beyond it are an
 * error (the header and the attrs) or a warning and the rest skipped (the
 * data section, a feature). */
#ifndef TACHY_PROFILE_PERFDATA_H
#define TACHY_PROFILE_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"
#include "tachy/sampler-decode.h"

#define TY_PERFDATA_MAGIC "PERFILE2"
#define TY_PERFDATA_MAX_EVENTS 4096 /* events (attrs) read at most */
#define TY_PERFDATA_MAX_WARNINGS 32

/* One event of the recording. */
struct ty_perfdata_event {
	char *name;    /* "cycles:u" (the event description; else "TYPE:CONFIG") */
	uint32_t type; /* perf_event_attr's */
	uint64_t config;
	uint64_t sample_type;
	uint64_t period_or_freq; /* sample_period or sample_freq */
	int freq;
	int exclude_kernel, exclude_user, exclude_callchain_user;
	int sample_id_all, context_switch;
	uint64_t regs_user;  /* sample_regs_user */
	uint32_t stack_user; /* sample_stack_user */
	struct ty_sampler_layout layout;
	uint64_t nsamples; /* samples of this event in the data */
};

/* A build-id the file names (the build-id feature). */
struct ty_perfdata_buildid {
	char *path;
	char hex[41]; /* the build-id in hex (up to 20 bytes) */
	uint32_t pid;
	int kernel; /* a kernel or module's */
};

struct ty_perfdata {
	const unsigned char *buf; /* the file (mapped by ty_perfdata_open, else the caller's) */
	size_t len;
	int mapped;
	/* ty_perfdata_open's file, open (fd_open) while PD lives: the walks
	 * read the data section from it in windows, not through the mapping
	 * (each 64 KiB of a mapping touched costs a page fault) */
	int fd, fd_open;
	unsigned char *win; /* the window: the file's bytes [win_lo, win_hi) */
	uint64_t win_lo, win_hi;
	int pipe; /* pipe mode */
	struct ty_perfdata_event *events;
	size_t nevents, capevents;
	struct { /* sample id -> event, sorted by id */
		uint64_t id;
		uint32_t ev;
	} * ids;
	size_t nids, capids;
	uint64_t data_off, data_len; /* the data section (pipe mode: the stream after the header) */
	char *cmdline; /* perf's own command line, words joined by spaces (NULL: none) */
	char *hostname, *osrelease, *arch;
	uint32_t nrcpus;	      /* online (0: not said) */
	const unsigned char *tracing; /* the tracing data (tracepoints' formats), in BUF... */
	size_t tracing_len;	      /* ...of this many bytes (NULL, 0: none) */
	struct ty_perfdata_buildid *bids;
	size_t nbids, capbids;
	/* what was skipped, for the caller to say */
	uint64_t unknown_records, bad_records, foreign_samples, aux_bytes;
	int compressed; /* PERF_RECORD_COMPRESSED records (perf record -z): skipped */
	char *warnings[TY_PERFDATA_MAX_WARNINGS];
	size_t nwarnings;
};

/* Whether BUF[0..LEN), a file's start, is a perf.data file (its magic,
 * either byte order). */
int ty_perfdata_sniff(const void *buf, size_t len);

/* Parse the perf.data image BUF[0..LEN) (kept, not copied: it must live as
 * long as PD) into PD (zeroed by the caller). NAME is the file's name in
 * messages. Returns 0, or -EINVAL with E saying what is wrong (not a
 * perf.data file, the other byte order, truncated header or attrs, no
 * events, sizes beyond the file), or -ENOMEM. */
int ty_perfdata_parse(const void *buf, size_t len, const char *name, struct ty_perfdata *pd,
		      struct ty_error *e);

/* Map PATH and parse it as ty_perfdata_parse does; the walks read its
 * data section with pread. Returns 0, or -ENOENT, -EINVAL and the like
 * with E filled. */
int ty_perfdata_open(const char *path, struct ty_perfdata *pd, struct ty_error *e);

/* The index of the event named NAME ("cycles" matches "cycles:u"), or -1. */
int ty_perfdata_find_event(const struct ty_perfdata *pd, const char *name);

/* Called for each record of the data section, decoded with its event's
 * layout: EV is the event's index (-1: a non-sample record whose event is
 * not known; it was decoded with the first event's layout). */
typedef void (*ty_perfdata_fn)(const struct ty_sampler_rec *r, int ev, void *arg);

/* Walk the data section, calling FN for each record the sampler's
 * decoder knows (SAMPLES: 1 the samples only, 0 every other record only,
 * -1 all), in file order. Records that do not decode are counted in
 * bad_records and skipped; a record running past the section ends the
 * walk with a warning. Returns the number of records passed to FN. */
long ty_perfdata_each(struct ty_perfdata *pd, int samples, ty_perfdata_fn fn, void *arg);

/* Record a warning (printf-style) in PD, at most TY_PERFDATA_MAX_WARNINGS
 * kept. */
void ty_perfdata_warn(struct ty_perfdata *pd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Free what PD holds (and unmap the file it mapped); PD is zeroed. */
void ty_perfdata_release(struct ty_perfdata *pd);

#endif
