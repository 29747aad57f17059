/* record-track.h - the mappings of the recorded processes while the
 * recorder (record.h) runs, so that every sampled address can be named at
 * the end: mmap records all along, /proc/PID/maps every 50 ms
 * (--proc-maps), or, by default for a command, lazy tracking (mmap records
 * only while they are needed; record-track.c says when). The recorder owns
 * the struct and calls these from its poll loop; nothing here prints or
 * waits. */
#ifndef TACHY_RECORD_TRACK_H
#define TACHY_RECORD_TRACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tachy/collect.h"
#include "tachy/error.h"
#include "tachy/sampler.h"
#include "tachy/symbols.h"

struct ty_record_track_cover;
struct ty_record_track_reread;

struct ty_record_track {
	/* The recorder's, set before the calls below (S once it is open). */
	struct ty_sampler *s;
	struct ty_symbols *syms; /* learns the mappings */
	struct ty_collector *c;	 /* the processes seen so far */
	pid_t child;		 /* the command (0: none) */
	pid_t pid;		 /* the process attached to (0: none) */
	int lazy;		 /* lazy tracking: trackers and a watcher (see below) */
	int proc_maps;		 /* /proc/PID/maps every 50 ms instead of mmap records */
	uint64_t close_at;	 /* lazy: the first trackers close then, unless... */
	void (*warn)(const char *msg, void *arg); /* what a user should hear of */
	void *warn_arg;
	/* record-track.c's own. */
	uint64_t maps_at;		   /* proc_maps: the last snapshot */
	int forked;			   /* ...the command started another process */
	struct ty_record_track_cover *cov; /* threads whose forks inherit trackers */
	size_t ncov, covcap;
	uint32_t *todo; /* processes to track now (their parent was not tracked) */
	size_t ntodo, todocap;
	int want_all;	      /* track every thread of the first process */
	unsigned long wcount; /* watcher records since wstart */
	uint64_t wstart;
	uint32_t *gone; /* tracked processes that exited */
	size_t ngone, gonecap;
	struct ty_record_track_reread *rr; /* processes sampled since the close */
	size_t nrr, rrlast, rrcap;
	int track_warned, maps_warned;
	int watch_lost; /* the watcher lost records: forks may have been missed */
};

/* How long the first trackers of a command stay (from its start). */
#define TY_RECORD_TRACK_CLOSE_NS 100000000ull

/* Free what M holds (M itself is the caller's). */
void ty_record_track_release(struct ty_record_track *m);

/* Take the executable mappings of every process seen so far, and of the
 * process attached to, from /proc (those already known are skipped). */
void ty_record_track_snapshot(struct ty_record_track *m);

/* proc_maps: ty_record_track_snapshot every 50 ms, however often the
 * recorder wakes. */
void ty_record_track_tick(struct ty_record_track *m);

/* Lazy tracking, at each wake: read the watcher, give trackers to the new
 * processes, close the first trackers when their time is up. Returns 0 or
 * a negative errno with E filled. */
int ty_record_track_step(struct ty_record_track *m, struct ty_error *e);

/* Lazy tracking after the close: note the sample REC if it fell outside
 * the mappings known for its process (ty_record_track_reread reads them). */
void ty_record_track_sample(struct ty_record_track *m, const struct ty_sampler_rec *rec);

/* Lazy tracking after the close: read the maps of the processes with
 * samples outside their mappings (at once, then less often while the reads
 * find nothing new), and once a second those of every process sampled: a
 * library unloaded and another loaded at the same place would otherwise go
 * unseen. */
void ty_record_track_reread(struct ty_record_track *m);

/* Call TAKE(ARG, TID) for every thread in /proc/PID/task, and read the list
 * again until TAKE takes none of it (it returns 1 for a thread it took): a
 * thread created by one not yet taken when the list was read would be
 * missed. At most 16 lists. */
void ty_record_track_each_thread(long pid, int (*take)(void *arg, long tid), void *arg);

#endif
