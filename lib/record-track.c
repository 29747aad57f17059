/* record-track.c - the mappings of the recorded processes while recording.
 *
 * Lazy tracking: mmap records cost every mmap(2) of every process something
 * as long as one event asks for them (seed 002), so by default they are
 * asked for only while they are needed: during the first 100 ms of the
 * command (its loader maps its libraries), and for the whole run once it
 * starts another process (fork and exec, the libraries of short-lived
 * processes). A command that stays one process runs without them after 100
 * ms: a library it maps later is read from /proc/PID/maps when a sample
 * falls outside the mappings known (at once, then less often while the reads
 * find nothing new). If the command forks or execs after that, the watcher
 * wakes tachy at once and the new process (or program) gets trackers of its
 * own (the race is closed by reading its maps after they are open); its
 * descendants inherit them. A fork also gets every thread of the first
 * process tracked (track_all), so that nothing it starts later races, and
 * the watcher closes; so does a storm of watcher records (thousands of
 * threads a second). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/clock.h"
#include "tachy/record-track.h"

struct ty_record_track_cover {
	uint32_t tid;
	uint64_t since; /* its forks after this time inherit a tracker */
};

struct ty_record_track_reread {
	uint32_t pid;
	uint64_t last;	   /* when its maps were last read */
	uint64_t backoff;  /* the next read waits this long after it (ns) */
	uint64_t periodic; /* when they were last read for the once-a-second look */
	int due;	   /* a sample fell outside its known mappings */
	int seen;	   /* sampled since the last read */
};

static void warn(struct ty_record_track *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
warn(struct ty_record_track *m, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!m->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	m->warn(msg, m->warn_arg);
}

/* /proc/PID/maps read into the symbols; a failure other than the process
 * being gone said once: without the mappings, names and chains are lost. */
static int
load_maps(struct ty_record_track *m, uint32_t pid, uint64_t t)
{
	struct ty_error err;
	int n = ty_symbols_load_maps(m->syms, "/proc", pid, t, &err);

	if (n < 0 && err.code != -ENOENT && err.code != -ESRCH && !m->maps_warned++)
		warn(m,
		     "%s: the mappings of the recorded processes are not known, so their "
		     "functions and call chains are lost%s",
		     err.msg,
		     err.code == -EMFILE || err.code == -ENFILE
			 ? " (raise the limit of open files: ulimit -n 1024)"
			 : "");
	return n;
}

void
ty_record_track_release(struct ty_record_track *m)
{
	free(m->cov);
	free(m->todo);
	free(m->gone);
	free(m->rr);
	m->cov = NULL;
	m->todo = m->gone = NULL;
	m->rr = NULL;
	m->ncov = m->ntodo = m->ngone = m->nrr = 0;
}

void
ty_record_track_snapshot(struct ty_record_track *m)
{
	uint32_t pids[256];
	size_t n = ty_collector_pids(m->c, pids, 256), i;

	if (n > 256)
		n = 256;
	for (i = 0; i < n; i++)
		load_maps(m, pids[i], ty_clock_now_ns());
	if (m->pid)
		load_maps(m, (uint32_t)m->pid, ty_clock_now_ns());
}

void
ty_record_track_tick(struct ty_record_track *m)
{
	uint64_t t = ty_clock_now_ns();

	if (t - m->maps_at >= 50000000ull) {
		ty_record_track_snapshot(m);
		m->maps_at = t;
	}
}

void
ty_record_track_each_thread(long pid, int (*take)(void *arg, long tid), void *arg)
{
	char path[64];
	int round, taken;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	for (round = 0; round < 16; round++) {
		DIR *d = opendir(path);
		struct dirent *de;
		if (!d)
			return;
		for (taken = 0; (de = readdir(d));) {
			long tid = strtol(de->d_name, NULL, 10);
			if (tid > 0)
				taken += take(arg, tid);
		}
		closedir(d);
		if (!taken)
			return;
	}
}

#define PERIODIC_NS 1000000000ull /* the maps of a sampled process: once a second */
#define REREAD_MAX_NS                                                                              \
	2000000000ull /* a read that finds nothing new doubles the wait                            \
			 for the next, up to this */

static struct ty_record_track_cover *
cover_find(struct ty_record_track *m, uint32_t tid)
{
	size_t i;

	for (i = 0; i < m->ncov; i++)
		if (m->cov[i].tid == tid)
			return &m->cov[i];
	return NULL;
}

static void
cover_add(struct ty_record_track *m, uint32_t tid, uint64_t since)
{
	struct ty_record_track_cover *c = cover_find(m, tid);

	if (c) {
		c->since = since;
		return;
	}
	if (ty_array_grow(&m->cov, sizeof(*m->cov), m->ncov + 1, &m->covcap) == 0)
		m->cov[m->ncov++] = (struct ty_record_track_cover){tid, since};
}

static void
cover_drop(struct ty_record_track *m, uint32_t tid)
{
	struct ty_record_track_cover *c = cover_find(m, tid);

	if (c)
		*c = m->cov[--m->ncov];
}

static void
push_pid(uint32_t **v, size_t *n, size_t *cap, uint32_t pid)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i] == pid)
			return;
	if (ty_array_grow(v, sizeof(**v), *n + 1, cap) == 0)
		(*v)[(*n)++] = pid;
}

/* A FORK, EXIT or COMM record from the watcher. */
static void
on_watch(const struct ty_sampler_rec *rec, void *arg)
{
	struct ty_record_track *m = arg;
	struct ty_record_track_cover *parent;

	m->wcount++;
	if (rec->type == TY_SAMPLER_REC_EXIT) {
		if (cover_find(m, rec->tid)) {
			cover_drop(m, rec->tid);
			push_pid(&m->gone, &m->ngone, &m->gonecap, rec->tid);
		}
		return;
	}
	if (rec->type == TY_SAMPLER_REC_LOST)
		m->watch_lost = 1;
	if (rec->type == TY_SAMPLER_REC_COMM && rec->exec && !ty_sampler_tracking(m->s)) {
		/* A new program in an untracked process: its loader is about
		 * to map its libraries. */
		if (!cover_find(m, rec->tid))
			push_pid(&m->todo, &m->ntodo, &m->todocap, rec->pid);
		return;
	}
	if (rec->type != TY_SAMPLER_REC_FORK)
		return;
	if (rec->pid != rec->ppid)
		m->forked = 1;
	if (ty_sampler_tracking(m->s))
		return; /* the first trackers are inherited by everyone */
	parent = cover_find(m, rec->ptid);
	if (parent && parent->since <= rec->time) {
		cover_add(m, rec->tid, rec->time); /* it inherited its parent's tracker */
	} else if (rec->pid != rec->ppid) {
		/* The new process now; then every thread of the command's
		 * first process, so that what it starts next inherits a
		 * tracker without a race. */
		push_pid(&m->todo, &m->ntodo, &m->todocap, rec->pid);
		m->want_all = 1;
	}
}

/* Track the processes in m->todo, whose parent had no tracker when it
 * forked them (or that exec'd untracked). Their maps are read after the
 * trackers are open: what they mapped before is not lost. */
static void
track_new(struct ty_record_track *m)
{
	struct ty_error err;
	size_t i;

	for (i = 0; i < m->ntodo; i++) {
		uint32_t pid = m->todo[i];
		int ret = ty_sampler_track_pid(m->s, (pid_t)pid, &err);
		if (ret == 0)
			cover_add(m, pid, ty_clock_now_ns());
		else if (ret != -ESRCH && !m->track_warned++)
			warn(m, "%s: its libraries may show as raw addresses", err.msg);
		if (ret != -ESRCH)
			load_maps(m, pid, ty_clock_now_ns());
	}
	m->ntodo = 0;
	for (i = 0; i < m->ngone; i++)
		ty_sampler_untrack_pid(m->s, (pid_t)m->gone[i]);
	m->ngone = 0;
}

/* track_all: a thread of the command's first process gets trackers. */
static int
take_tracked(void *arg, long tid)
{
	struct ty_record_track *m = arg;
	struct ty_error err;

	if (cover_find(m, (uint32_t)tid))
		return 0;
	if (ty_sampler_track_pid(m->s, (pid_t)tid, &err) < 0) {
		if (err.code != -ESRCH && !m->track_warned++)
			warn(m, "%s: libraries loaded later may show as raw addresses", err.msg);
		return 0;
	}
	cover_add(m, (uint32_t)tid, ty_clock_now_ns());
	return 1;
}

/* Trackers on every thread of the command's first process: from then on
 * all it starts inherits them, and the watcher is no longer needed. For a
 * command that starts processes after its first 100 ms, or creates threads
 * by the thousand (the watcher would wake tachy for each). */
static void
track_all(struct ty_record_track *m)
{

	ty_record_track_each_thread((long)m->child, take_tracked, m);
	load_maps(m, (uint32_t)m->child, ty_clock_now_ns());
}

/* Read the watcher until no process is left to track, then close the first
 * trackers when their time is up and the command is still one process. */
static int
drain_watch(struct ty_record_track *m, struct ty_error *e)
{
	long ret;
	int round;

	for (round = 0; round < 16; round++) {
		if ((ret = ty_sampler_drain_watch(m->s, on_watch, m, e)) < 0)
			return (int)ret;
		if (!m->ntodo && !m->ngone)
			break;
		track_new(m);
	}
	return 0;
}

int
ty_record_track_step(struct ty_record_track *m, struct ty_error *e)
{
	uint64_t t = ty_clock_now_ns();

	int ret;

	if ((ret = drain_watch(m, e)) < 0)
		return ret;
	if (m->watch_lost) { /* processes we did not hear of: look at them all */
		m->watch_lost = 0;
		ty_record_track_snapshot(m);
	}
	if (!ty_sampler_tracking(m->s)) {
		if (t - m->wstart >= 1000000000ull) {
			m->wstart = t;
			m->wcount = 0;
		} else if (m->wcount > 1000) {
			m->want_all = 1; /* a storm of threads or processes */
		}
		if (m->want_all) {
			track_all(m);
			if ((ret = drain_watch(m, e)) < 0) /* what came before the trackers */
				return ret;
			ty_sampler_watch_stop(m->s);
			m->lazy = 0;
		}
		return 0;
	}
	if (t < m->close_at)
		return 0;
	if (m->forked) { /* several processes: tracking stays, the watcher goes */
		ty_sampler_watch_stop(m->s);
		m->lazy = 0;
		return 0;
	}
	/* What the trackers saw is in the rings; what comes later, the next
	 * look at the maps finds (ty_record_track_reread). */
	ty_sampler_track_stop(m->s);
	m->wstart = ty_clock_now_ns();
	m->wcount = 0;
	/* A fork between the last drain and the close lost its inherited
	 * tracker with it: the watcher shows it, and it is not covered. */
	return ty_record_track_step(m, e);
}

void
ty_record_track_sample(struct ty_record_track *m, const struct ty_sampler_rec *rec)
{
	uint64_t ip = rec->ip;
	size_t i = m->rrlast;

	if (!rec->user) {
		for (i = 0, ip = 0; i < rec->nr; i++)
			if (rec->chain[i] < TY_KERNEL_START) {
				ip = rec->chain[i];
				break;
			}
		if (!ip)
			return;
		i = m->rrlast;
	}
	if (i >= m->nrr || m->rr[i].pid != rec->pid) {
		for (i = 0; i < m->nrr && m->rr[i].pid != rec->pid; i++)
			;
		if (i == m->nrr) {
			if (ty_array_grow(&m->rr, sizeof(*m->rr), m->nrr + 1, &m->rrcap) < 0)
				return;
			m->rr[m->nrr++] = (struct ty_record_track_reread){rec->pid, 0, 0, 0, 0, 0};
		}
		m->rrlast = i;
	}
	m->rr[i].seen = 1;
	if (!m->rr[i].due && !ty_symbols_covers(m->syms, rec->pid, ip))
		m->rr[i].due = 1;
}

void
ty_record_track_reread(struct ty_record_track *m)
{
	uint64_t t = ty_clock_now_ns();
	size_t i;

	for (i = 0; i < m->nrr; i++) {
		struct ty_record_track_reread *x = &m->rr[i];
		int n;
		if (x->seen && t - x->periodic >= PERIODIC_NS)
			x->due = 1;
		if (!x->due || (x->last && t - x->last < x->backoff))
			continue;
		x->due = x->seen = 0;
		x->last = x->periodic = t;
		/* New mappings: read again at the next sample outside them.
		 * None (code outside any file, JIT): wait longer each time. */
		if ((n = load_maps(m, x->pid, t)) > 0)
			x->backoff = 0;
		else if (n == 0)
			x->backoff = x->backoff ? 2 * x->backoff : 100000000ull;
		else
			x->backoff = REREAD_MAX_NS; /* gone */
		if (x->backoff > REREAD_MAX_NS)
			x->backoff = REREAD_MAX_NS;
	}
}
