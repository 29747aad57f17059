/* record.c - the recorder: a held child (ty_spawn_*), the sampler on it,
 * the mappings kept known while it runs, its end reaped with wait4(). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/collect.h"
#include "tachy/duty.h"
#include "tachy/record-system.h"
#include "tachy/record.h"
#include "tachy/sampler.h"
#include "tachy/spawn.h"
#include "tachy/sysinfo.h"
#include "tachy/unwind.h"

/* The unwinder marks exact pcs as the sampler does. */
_Static_assert(TY_UNWIND_EXACT == TY_FRAME_EXACT, "one exact-pc bit");

extern char **environ;

struct cover {
	uint32_t tid;
	uint64_t since; /* its forks after this time inherit a tracker */
};

struct reread {
	uint32_t pid;
	uint64_t last;	   /* when its maps were last read */
	uint64_t backoff;  /* the next read waits this long after it (ns) */
	uint64_t periodic; /* when they were last read for the once-a-second look */
	int due;	   /* a sample fell outside its known mappings */
	int seen;	   /* sampled since the last read */
};

struct uwdiag; /* see "unwind diagnostics" */
struct uwproc;

struct ty_recorder {
	struct ty_record_opts o;
	struct ty_sampler *s;
	struct ty_collector *c;
	struct ty_symbols *syms;
	struct ty_event ev;
	int exclude_kernel, kernel_refused;
	struct ty_spawner sp;
	struct ty_spawn_opts so; /* must outlive the held child */
	int sp_init;
	char path[PATH_MAX];
	pid_t child;	  /* the command (0 when attached) */
	int reaped;	  /* the child was waited for */
	uint64_t stop_ns; /* when an interrupt was passed on to the child */
	int interrupted;
	struct ty_usage usage;
	struct ty_exit exit;
	uint64_t t0, t1;
	uint64_t t0_unix; /* CLOCK_REALTIME at t0 */
	char ename[TY_EVENT_NAME_MAX];
	int fell_back;
	enum ty_callgraph cg;
	uint32_t stack_size;
	uint32_t sw_stack_size;	       /* copied at a switch-out */
	struct ty_unwinder *uw;	       /* TY_CG_DWARF */
	struct ty_sampler_rec scratch; /* a sample with its unwound chain */
	struct ty_record_unwind_stats ust;
	uint32_t last_load_pid; /* the maps last read for a lost chain */
	uint64_t last_load_ns;
	unsigned pages; /* data pages per ring */
	/* Lazy mapping tracking (the default for a command, see lazy_step). */
	int lazy, proc_maps;
	uint64_t maps_at;  /* proc_maps: the last snapshot */
	uint64_t close_at; /* the first trackers close then, unless... */
	int forked;	   /* ...the command started another process */
	struct cover *cov; /* threads whose forks inherit trackers (after the close) */
	size_t ncov, covcap;
	uint32_t *todo; /* processes to track now (their parent was not tracked) */
	size_t ntodo, todocap;
	int want_all;	      /* track every thread of the first process (see track_all) */
	unsigned long wcount; /* watcher records since wstart */
	uint64_t wstart;
	uint32_t *gone; /* tracked processes that exited */
	size_t ngone, gonecap;
	struct reread *rr; /* processes sampled since the close */
	size_t nrr, rrlast, rrcap;
	int track_warned;
	int watch_lost;	   /* the watcher lost records: forks may have been missed */
	int unsampled;	   /* the kernel took the events off the command (said once) */
	char *limits;	   /* what off-CPU recording is missing here */
	struct uwdiag *dg; /* unwind_log: every sample's chain, judged at the end */
	size_t ndg, dgcap;
	struct uwproc *dp; /* unwind_log: comm, fork and exec of each process seen */
	size_t ndp, dpcap;
	char *pname; /* attached: "-p PID (comm)" */
	pid_t *tids; /* attached: the threads it has */
	int ntids;
	struct ty_duty duty; /* the chains at switch-outs (duty.hz 0: all, or none) */
};

static void warn(struct ty_recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
warn(struct ty_recorder *r, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!r->o.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->o.warn(msg, r->o.warn_arg);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define DUTY_MAX_FDS 256 /* events turned on and off at most */

/* The recording starts now: t0 on the samples' clock and on the wall's. */
static void
mark_start(struct ty_recorder *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	r->t0 = now_ns();
	r->t0_unix = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* An ioctl failed: every chain event on (as many as will), no more turning. */
static void
duty_give_up(struct ty_recorder *r)
{
	ty_sampler_switch_samples(r->s, 1);
	r->duty.hz = 0;
}

/* The chains at switch-outs kept to about --off-cpu-chains a second
 * (lib/duty.c). */
static void
duty_step(struct ty_recorder *r)
{
	enum ty_duty_action a;
	uint64_t t;

	if (!r->duty.hz || r->stop_ns || (t = now_ns()) < r->duty.at)
		return;
	a = ty_duty_step(&r->duty, t, ty_collector_new_threads(r->c));
	if (a != TY_DUTY_KEEP && ty_sampler_switch_samples(r->s, a != TY_DUTY_OFF) < 0)
		duty_give_up(r);
}

static uint64_t
tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

int
ty_record_paranoid(void)
{
	char buf[32];
	char *end;
	long v;

	if (ty_sysinfo_read(NULL, "/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) <= 0)
		return 2;
	v = strtol(buf, &end, 10);
	return end == buf ? 2 : (int)v;
}

/* User space only: the context-switch event samples in the kernel, so it
 * gives no sample at all; the switch records still come. Say so, once. */
static void
off_cpu_limits(struct ty_recorder *r)
{
	char why[128];

	if (r->kernel_refused)
		snprintf(why, sizeof(why),
			 "perf_event_paranoid is %d here, and tachy has no CAP_PERFMON",
			 ty_record_paranoid());
	else
		snprintf(why, sizeof(why), "%s", "user space only was asked for");
	free(r->limits);
	if (asprintf(&r->limits,
		     "%s: the kernel gives no call chain at a switch-out in user-space-only mode. "
		     "Off-CPU time per thread is exact (from the kernel's switch records), but "
		     "each interval is attributed to %s, and sleeping, I/O and lock waits are "
		     "not told apart (\"blocked\"); preemption is (\"runnable\")",
		     why,
		     r->o.off_cpu == TY_OFFCPU_WALL
			 ? "the thread's last on-CPU sample before it (not the call where it "
			   "blocked)"
			 : "no function (add on-CPU samples with --wall to attribute it)") < 0)
		r->limits = NULL;
	else
		warn(r, "%s", r->limits);
}

/* The ring fraction at which the poller wakes with stack copies of
 * STACK bytes: every 32 copies, at most half the ring. */
static unsigned
dwarf_wakeup(unsigned pages, uint32_t stack)
{
	size_t div = stack ? (size_t)pages * (size_t)getpagesize() / ((size_t)stack * 32) : 2;

	return div < 2 ? 2 : (unsigned)div;
}

/* Default rings of PAGES pages instead (a user's locked-memory limit, or
 * the total cap): the default stack copy made smaller where a ring would
 * hold fewer than 32, and the poller's wake-up fraction set again. */
static void
fit_rings(struct ty_recorder *r, struct ty_sampler_opts *so, unsigned pages, size_t page)
{
	so->mmap_pages = pages;
	if (so->stack_user && !r->o.stack_size &&
	    (size_t)so->stack_user * 32 > (size_t)pages * page)
		so->stack_user = r->stack_size = (uint32_t)(pages * page / 32);
	if (r->o.off_cpu == TY_OFFCPU_NONE && r->cg == TY_CG_DWARF)
		so->wakeup_div = dwarf_wakeup(pages, so->stack_user);
}

/* The switch-out samples' rate in Hz (0: every switch-out). Without call
 * chains there are none (--off-cpu) or every one is kept (--wall: the
 * scheduler's address only, for the few that matter). */
static uint64_t
switch_hz(const struct ty_recorder *r)
{
	if (r->cg == TY_CG_NONE || r->o.switch_chains == TY_RECORD_CHAINS_ALL)
		return 0;
	return r->o.switch_chains ? r->o.switch_chains : TY_RECORD_CHAINS_DEFAULT;
}

static int
open_sampler(struct ty_recorder *r, struct ty_error *err)
{
	struct ty_sampler_opts so = {0};
	int ret, explicit_ev = r->o.explicit_event;
	size_t page = (size_t)getpagesize();
	uint64_t hz, t;

	so.use_freq = r->o.use_freq;
	so.rate = r->o.rate;
	so.callchain = r->cg != TY_CG_NONE;
	so.pid = r->o.pid ? r->o.pid : r->child;
	so.enable_on_exec = r->o.pid == 0 && !r->o.system_wide;
	so.system_wide = r->o.system_wide;
	so.cpus = r->o.cpus;
	so.ncpus = r->o.ncpus;
	so.mmap_pages = r->o.mmap_pages;
	if (r->cg == TY_CG_DWARF) {
		so.regs_user = TY_UNWIND_REGS_MASK;
		so.stack_user = r->stack_size;
		so.switch_stack_user = r->sw_stack_size;
		if (r->o.off_cpu == TY_OFFCPU_ONLY) /* every sample is a switch-out */
			so.stack_user = r->sw_stack_size;
		/* Stack copies fill a ring fast: room for 128, the poller woken
		 * every 32 (dwarf_wakeup), so a drainer the scheduler keeps
		 * waiting (tens of ms on a loaded machine) has 96 more; see
		 * BENCHMARKS.md. */
		if (!r->o.mmap_pages)
			so.mmap_pages = so.stack_user > 32768 ? 2048 : 1024;
	}
	if (r->o.off_cpu != TY_OFFCPU_NONE && !r->o.mmap_pages)
		/* two records and a sample per switch; with a stack copy in
		 * each, 220 MB a second at 100,000 switches: the 6 MiB of room
		 * after the wake-up at a quarter of the ring last 27 ms, which
		 * a drainer waiting for a CPU on a loaded machine needs */
		so.mmap_pages = r->cg == TY_CG_DWARF ? 2048 : 512;
	if (r->o.off_cpu != TY_OFFCPU_NONE && r->cg == TY_CG_DWARF)
		so.wakeup_div = 4;
	else if (r->cg == TY_CG_DWARF)
		so.wakeup_div = dwarf_wakeup(so.mmap_pages, so.stack_user);
	if (!r->o.mmap_pages && so.mmap_pages > 128) {
		/* The default rings together at most 256 MiB of locked memory
		 * (a ring per CPU: 2048 pages on 64 CPUs would be 512 MiB). */
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);
		unsigned pages = so.mmap_pages;

		while (pages > 128 && ncpu > 0 && (size_t)ncpu * pages * page > ((size_t)256 << 20))
			pages /= 2;
		if (pages != so.mmap_pages)
			fit_rings(r, &so, pages, page);
	}
	so.no_mmap_records = r->proc_maps;
	so.lazy_mmap = r->lazy;
	so.tids = r->tids;
	so.ntids = r->ntids;
	if (r->ev.flags & TY_EVENT_PRIV_GIVEN) /* :u or :k say it */
		r->exclude_kernel = r->ev.attr.exclude_kernel;
	else
		r->exclude_kernel = r->o.user > 0;
	for (;;) {
		so.type = r->ev.attr.type;
		so.config = r->ev.attr.config;
		so.config1 = r->ev.attr.config1;
		so.config2 = r->ev.attr.config2;
		so.exclude_kernel = r->exclude_kernel;
		so.exclude_user = r->ev.attr.exclude_user;
		/* With chains, a context-switches event beside the one that
		 * carries the switch records: turned off and on (duty_step)
		 * while the records go on. */
		so.switch_samples = r->o.off_cpu == TY_OFFCPU_WALL ||
				    (r->o.off_cpu == TY_OFFCPU_ONLY && r->cg != TY_CG_NONE);
		if (r->o.off_cpu == TY_OFFCPU_ONLY) { /* no on-CPU sampling */
			/* Without call chains a switch-out's sample would hold
			 * one address, the scheduler's own: the switch records
			 * alone give the durations and the preemptions, for half
			 * the kernel's cost (0.3 us a switch less). */
			so.type = PERF_TYPE_SOFTWARE;
			so.config = PERF_COUNT_SW_DUMMY;
			so.context_switch = 1;
			so.use_freq = 0;
			so.rate = 1;
		}
		ret = ty_sampler_open(&r->s, &so, err);
		r->pages = so.mmap_pages ? so.mmap_pages : 128;
		if (ret == 0)
			break;
		if ((ret == -EPERM || ret == -ENOMEM) && !r->o.mmap_pages && so.mmap_pages > 128) {
			/* Over the locked-memory limit of a user: rings half as
			 * large, down to 128 pages, and the default stack copy
			 * smaller where the ring would hold fewer than 32 (16384
			 * at 128 pages). */
			fit_rings(r, &so, so.mmap_pages / 2 < 128 ? 128 : so.mmap_pages / 2, page);
			continue;
		}
		if ((ret == -EACCES || ret == -EPERM) && !r->exclude_kernel && r->o.user == 0 &&
		    !(r->ev.flags & TY_EVENT_PRIV_GIVEN)) {
			r->exclude_kernel = 1; /* perf_event_paranoid >= 2: user space only */
			r->kernel_refused = 1;
			continue;
		}
		if ((ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV) && !explicit_ev &&
		    r->ev.attr.type == PERF_TYPE_HARDWARE) {
			ty_event_parse("cpu-clock", &r->ev, err);
			r->fell_back = 1;
			continue;
		}
		{
			char msg[TY_ERROR_MAX];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			ty_error_set(err, ret == -ENOENT ? -ENODEV : ret, "event '%s': %s",
				     r->ev.name, msg);
		}
		return ret == -ENOENT ? -ENODEV : ret;
	}
	snprintf(r->ename, sizeof(r->ename), "%s",
		 r->o.off_cpu == TY_OFFCPU_ONLY ? "context-switches" : r->ev.name);
	if (r->o.off_cpu != TY_OFFCPU_NONE && r->exclude_kernel)
		off_cpu_limits(r);
	hz = so.switch_samples && !r->exclude_kernel ? switch_hz(r) : 0;
	if (hz && ty_sampler_nswitch(r->s) > DUTY_MAX_FDS) {
		/* attached to a process of many threads: each turn would be
		 * an ioctl per thread and CPU */
		warn(r,
		     "%d context-switch events (a thread per CPU) are too many to turn on and "
		     "off: a call chain at every switch-out (as --off-cpu-chains all)",
		     ty_sampler_nswitch(r->s));
		hz = 0;
	}
	t = now_ns();
	ty_duty_init(&r->duty, hz, t, t ^ ((uint64_t)getpid() << 32));
	if (r->lazy && (ret = ty_sampler_lazy_error(r->s)) < 0) {
		warn(r,
		     "cannot open the mapping trackers (%s): reading /proc/PID/maps "
		     "every 50 ms instead (see --proc-maps)",
		     strerror(-ret));
		r->lazy = 0;
		r->proc_maps = 1;
	}
	return 0;
}

/* --proc-maps: take the executable mappings of every process seen so far
 * from /proc (those already known are skipped). */
static void
snapshot_maps(struct ty_recorder *r)
{
	uint32_t pids[256];
	size_t n = ty_collector_pids(r->c, pids, 256), i;
	struct ty_error err;

	if (n > 256)
		n = 256;
	for (i = 0; i < n; i++)
		ty_symbols_load_maps(r->syms, "/proc", pids[i], now_ns(), &err);
	if (r->o.pid)
		ty_symbols_load_maps(r->syms, "/proc", (uint32_t)r->o.pid, now_ns(), &err);
}

/* Call TAKE for every thread in /proc/PID/task, and read the list again
 * until TAKE takes none of it (it returns 1 for a thread it took): a thread
 * created by one not yet taken when the list was read would be missed. At
 * most 16 lists. */
static void
each_thread(struct ty_recorder *r, long pid, int (*take)(struct ty_recorder *r, long tid))
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
				taken += take(r, tid);
		}
		closedir(d);
		if (!taken)
			return;
	}
}

/* --- lazy mapping tracking ------------------------------------------------
 * mmap records cost every mmap(2) of every process something as long as one
 * event asks for them (seed 002), so by default they are asked for only
 * while they are needed: during the first 100 ms of the command (its loader
 * maps its libraries), and for the whole run once it starts another process
 * (fork and exec, the libraries of short-lived processes). A command that
 * stays one process runs without them after 100 ms: a library it maps later
 * is read from /proc/PID/maps when a sample falls outside the mappings
 * known (at once, then less often while the reads find nothing new). If the
 * command forks or execs after that, the watcher wakes tachy at once and the
 * new process (or program) gets trackers of its own (the race is closed by
 * reading its maps after they are open); its descendants inherit them. A
 * fork also gets every thread of the first process tracked (track_all), so
 * that nothing it starts later races, and the watcher closes; so does a
 * storm of watcher records (thousands of threads a second). */

#define LAZY_CLOSE_NS 100000000ull /* trackers stay this long after start */
#define PERIODIC_NS 1000000000ull  /* the maps of a sampled process: once a second */
#define REREAD_MAX_NS                                                                              \
	2000000000ull /* a read that finds nothing new doubles the wait                            \
			 for the next, up to this */

static struct cover *
cover_find(struct ty_recorder *r, uint32_t tid)
{
	size_t i;

	for (i = 0; i < r->ncov; i++)
		if (r->cov[i].tid == tid)
			return &r->cov[i];
	return NULL;
}

static void
cover_add(struct ty_recorder *r, uint32_t tid, uint64_t since)
{
	struct cover *c = cover_find(r, tid);

	if (c) {
		c->since = since;
		return;
	}
	if (ty_array_grow(&r->cov, sizeof(*r->cov), r->ncov + 1, &r->covcap) == 0)
		r->cov[r->ncov++] = (struct cover){tid, since};
}

static void
cover_drop(struct ty_recorder *r, uint32_t tid)
{
	struct cover *c = cover_find(r, tid);

	if (c)
		*c = r->cov[--r->ncov];
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
	struct ty_recorder *r = arg;
	struct cover *parent;

	r->wcount++;
	if (rec->type == TY_SAMPLER_REC_EXIT) {
		if (cover_find(r, rec->tid)) {
			cover_drop(r, rec->tid);
			push_pid(&r->gone, &r->ngone, &r->gonecap, rec->tid);
		}
		return;
	}
	if (rec->type == TY_SAMPLER_REC_LOST)
		r->watch_lost = 1;
	if (rec->type == TY_SAMPLER_REC_COMM && rec->exec && !ty_sampler_tracking(r->s)) {
		/* A new program in an untracked process: its loader is about
		 * to map its libraries. */
		if (!cover_find(r, rec->tid))
			push_pid(&r->todo, &r->ntodo, &r->todocap, rec->pid);
		return;
	}
	if (rec->type != TY_SAMPLER_REC_FORK)
		return;
	if (rec->pid != rec->ppid)
		r->forked = 1;
	if (ty_sampler_tracking(r->s))
		return; /* the first trackers are inherited by everyone */
	parent = cover_find(r, rec->ptid);
	if (parent && parent->since <= rec->time) {
		cover_add(r, rec->tid, rec->time); /* it inherited its parent's tracker */
	} else if (rec->pid != rec->ppid) {
		/* The new process now; then every thread of the command's
		 * first process, so that what it starts next inherits a
		 * tracker without a race. */
		push_pid(&r->todo, &r->ntodo, &r->todocap, rec->pid);
		r->want_all = 1;
	}
}

/* Track the processes in r->todo, whose parent had no tracker when it
 * forked them (or that exec'd untracked). Their maps are read after the
 * trackers are open: what they mapped before is not lost. */
static void
track_new(struct ty_recorder *r)
{
	struct ty_error err;
	size_t i;

	for (i = 0; i < r->ntodo; i++) {
		uint32_t pid = r->todo[i];
		int ret = ty_sampler_track_pid(r->s, (pid_t)pid, &err);
		if (ret == 0)
			cover_add(r, pid, now_ns());
		else if (ret != -ESRCH && !r->track_warned++)
			warn(r, "%s: its libraries may show as raw addresses", err.msg);
		if (ret != -ESRCH)
			ty_symbols_load_maps(r->syms, "/proc", pid, now_ns(), &err);
	}
	r->ntodo = 0;
	for (i = 0; i < r->ngone; i++)
		ty_sampler_untrack_pid(r->s, (pid_t)r->gone[i]);
	r->ngone = 0;
}

/* track_all: a thread of the command's first process gets trackers. */
static int
take_tracked(struct ty_recorder *r, long tid)
{
	struct ty_error err;

	if (cover_find(r, (uint32_t)tid))
		return 0;
	if (ty_sampler_track_pid(r->s, (pid_t)tid, &err) < 0) {
		if (err.code != -ESRCH && !r->track_warned++)
			warn(r, "%s: libraries loaded later may show as raw addresses", err.msg);
		return 0;
	}
	cover_add(r, (uint32_t)tid, now_ns());
	return 1;
}

/* Trackers on every thread of the command's first process: from then on
 * all it starts inherits them, and the watcher is no longer needed. For a
 * command that starts processes after its first 100 ms, or creates threads
 * by the thousand (the watcher would wake tachy for each). */
static void
track_all(struct ty_recorder *r)
{
	struct ty_error err;

	each_thread(r, (long)r->child, take_tracked);
	ty_symbols_load_maps(r->syms, "/proc", (uint32_t)r->child, now_ns(), &err);
}

/* Read the watcher until no process is left to track, then close the first
 * trackers when their time is up and the command is still one process. */
static int
drain_watch(struct ty_recorder *r, struct ty_error *e)
{
	long ret;
	int round;

	for (round = 0; round < 16; round++) {
		if ((ret = ty_sampler_drain_watch(r->s, on_watch, r, e)) < 0)
			return (int)ret;
		if (!r->ntodo && !r->ngone)
			break;
		track_new(r);
	}
	return 0;
}

static int
lazy_step(struct ty_recorder *r, struct ty_error *e)
{
	uint64_t t = now_ns();

	int ret;

	if ((ret = drain_watch(r, e)) < 0)
		return ret;
	if (r->watch_lost) { /* processes we did not hear of: look at them all */
		r->watch_lost = 0;
		snapshot_maps(r);
	}
	if (!ty_sampler_tracking(r->s)) {
		if (t - r->wstart >= 1000000000ull) {
			r->wstart = t;
			r->wcount = 0;
		} else if (r->wcount > 1000) {
			r->want_all = 1; /* a storm of threads or processes */
		}
		if (r->want_all) {
			track_all(r);
			if ((ret = drain_watch(r, e)) < 0) /* what came before the trackers */
				return ret;
			ty_sampler_watch_stop(r->s);
			r->lazy = 0;
		}
		return 0;
	}
	if (t < r->close_at)
		return 0;
	if (r->forked) { /* several processes: tracking stays, the watcher goes */
		ty_sampler_watch_stop(r->s);
		r->lazy = 0;
		return 0;
	}
	/* What the trackers saw is in the rings; what comes later, the next
	 * look at the maps finds (reread_maps). */
	ty_sampler_track_stop(r->s);
	r->wstart = now_ns();
	r->wcount = 0;
	/* A fork between the last drain and the close lost its inherited
	 * tracker with it: the watcher shows it, and it is not covered. */
	return lazy_step(r, e);
}

/* After the close: a sample outside the mappings known for its process. */
static void
check_sample(struct ty_recorder *r, const struct ty_sampler_rec *rec)
{
	uint64_t ip = rec->ip;
	size_t i = r->rrlast;

	if (!rec->user) {
		for (i = 0, ip = 0; i < rec->nr; i++)
			if (rec->chain[i] < TY_KERNEL_START) {
				ip = rec->chain[i];
				break;
			}
		if (!ip)
			return;
		i = r->rrlast;
	}
	if (i >= r->nrr || r->rr[i].pid != rec->pid) {
		for (i = 0; i < r->nrr && r->rr[i].pid != rec->pid; i++)
			;
		if (i == r->nrr) {
			if (ty_array_grow(&r->rr, sizeof(*r->rr), r->nrr + 1, &r->rrcap) < 0)
				return;
			r->rr[r->nrr++] = (struct reread){rec->pid, 0, 0, 0, 0, 0};
		}
		r->rrlast = i;
	}
	r->rr[i].seen = 1;
	if (!r->rr[i].due && !ty_symbols_covers(r->syms, rec->pid, ip))
		r->rr[i].due = 1;
}

/* Read the maps of the processes with samples outside their mappings, and
 * once a second those of every process sampled: a library unloaded and
 * another loaded at the same place would otherwise go unseen. */
static void
reread_maps(struct ty_recorder *r)
{
	struct ty_error err;
	uint64_t t = now_ns();
	size_t i;

	for (i = 0; i < r->nrr; i++) {
		struct reread *x = &r->rr[i];
		int n;
		if (x->seen && t - x->periodic >= PERIODIC_NS)
			x->due = 1;
		if (!x->due || (x->last && t - x->last < x->backoff))
			continue;
		x->due = x->seen = 0;
		x->last = x->periodic = t;
		/* New mappings: read again at the next sample outside them.
		 * None (code outside any file, JIT): wait longer each time. */
		if ((n = ty_symbols_load_maps(r->syms, "/proc", x->pid, t, &err)) > 0)
			x->backoff = 0;
		else if (n == 0)
			x->backoff = x->backoff ? 2 * x->backoff : 100000000ull;
		else
			x->backoff = REREAD_MAX_NS; /* gone */
		if (x->backoff > REREAD_MAX_NS)
			x->backoff = REREAD_MAX_NS;
	}
}

/* --- unwind diagnostics (TACHY_UNWIND_DEBUG) --------------------------------
 * Every sample's chain is kept with why it ended; at the end each one that
 * is incomplete or has a frame in no mapping (judged with the mappings
 * known then, as the profile's names are) is printed with the program it
 * was in, where it was relative to the process's fork and exec, the
 * mapping of its leaf and of its last frame and the cause, then the counts
 * by program and cause. */

#define DIAG_MAX 200000 /* samples kept */

struct uwdiag {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t n, stack_dyn, stack_size;
	uint8_t end, stop, user, retried;
	uint64_t *frames; /* innermost first */
};

struct uwproc {
	uint32_t pid, ppid;
	uint64_t fork_time, exec_time; /* 0: none seen */
	char comm[16], old[16];	       /* after and before the last exec */
};

static struct uwproc *
diag_proc(struct ty_recorder *r, uint32_t pid)
{
	size_t i;

	for (i = 0; i < r->ndp; i++)
		if (r->dp[i].pid == pid)
			return &r->dp[i];
	if (ty_array_grow(&r->dp, sizeof(*r->dp), r->ndp + 1, &r->dpcap) < 0)
		return NULL;
	memset(&r->dp[r->ndp], 0, sizeof(*r->dp));
	r->dp[r->ndp].pid = pid;
	return &r->dp[r->ndp++];
}

static void
diag_record(struct ty_recorder *r, const struct ty_sampler_rec *rec)
{
	struct uwproc *p, *pp;

	if (rec->type == TY_SAMPLER_REC_FORK && rec->pid != rec->ppid &&
	    (p = diag_proc(r, rec->pid))) {
		p->ppid = rec->ppid;
		p->fork_time = rec->time;
		if ((pp = diag_proc(r, rec->ppid))) {
			p = diag_proc(r, rec->pid); /* (the array may have moved) */
			if (!p->comm[0])
				memcpy(p->comm, pp->comm, sizeof(p->comm));
			if (!p->old[0] && p->exec_time) /* its exec came first (another ring) */
				memcpy(p->old, pp->comm, sizeof(p->old));
		}
	} else if (rec->type == TY_SAMPLER_REC_COMM && rec->pid == rec->tid &&
		   (p = diag_proc(r, rec->pid))) {
		if (rec->exec) {
			memcpy(p->old, p->comm, sizeof(p->old));
			p->exec_time = rec->time;
		}
		snprintf(p->comm, sizeof(p->comm), "%s", rec->name);
	}
}

#define DIAG_NOREGS 9 /* a stop reason of diag_sample: the sample has no user registers */

static void
diag_sample(struct ty_recorder *r, const struct ty_sampler_rec *rec, size_t k,
	    enum ty_unwind_end end, int retried)
{
	struct ty_unwind_stats st = {0, 0, 0, 0, TY_STOP_END};
	struct uwdiag *d;

	if (r->ndg >= DIAG_MAX || ty_array_grow(&r->dg, sizeof(*r->dg), r->ndg + 1, &r->dgcap) < 0)
		return;
	if (r->uw && rec->regs_abi)
		ty_unwind_stats(r->uw, &st);
	else
		st.stop = DIAG_NOREGS;
	d = &r->dg[r->ndg];
	*d = (struct uwdiag){rec->pid,
			     rec->tid,
			     (uint64_t)rec->time,
			     (uint32_t)(rec->nr - k),
			     (uint32_t)rec->stack_dyn,
			     (uint32_t)rec->stack_size,
			     (uint8_t)end,
			     (uint8_t)st.stop,
			     (uint8_t)rec->user,
			     (uint8_t)retried,
			     NULL};
	if (!(d->frames = malloc(d->n * sizeof(*d->frames))))
		return;
	memcpy(d->frames, rec->chain + k, d->n * sizeof(*d->frames));
	r->ndg++;
}

/* "FILE+0xOFFSET" (a file offset), or why there is none; in BUF. */
static const char *
map_name(struct ty_recorder *r, uint32_t pid, uint64_t ip, uint64_t time, char *buf, size_t len)
{
	struct ty_sym_map m;
	const char *slash;

	ip &= ~TY_FRAME_EXACT;
	if (ip == TY_FRAME_TRUNCATED)
		return "[truncated]";
	if (ip >= (1ull << 47))
		return "(not a user address)";
	if (ty_symbols_find_map(r->syms, pid, ip, time, &m) < 0)
		return "(no mapping)";
	slash = strrchr(m.path, '/');
	snprintf(buf, len, "%s+%#llx", slash ? slash + 1 : m.path,
		 (unsigned long long)(ip - m.start + m.pgoff));
	return buf;
}

struct diag_count {
	char key[96];
	unsigned long n;
};

static void
diag_report(struct ty_recorder *r)
{
	static const char *const ends[] = {"complete", "truncated", "lost", "maxed"};
	static const char *const stops[] = {"end",
					    "no mapping",
					    "no CFI in the file",
					    "no CFI row here",
					    "CFA/RA unreadable",
					    "sp not moving up",
					    "kernel address",
					    "above the copy",
					    "above a short copy",
					    "no user registers"};
	struct diag_count *cnt = NULL;
	size_t ncnt = 0, cap = 0, i, j, bad = 0;
	FILE *f = r->o.unwind_log;

	for (i = 0; i < r->ndg; i++) {
		struct uwdiag *d = &r->dg[i];
		struct uwproc *p = diag_proc(r, d->pid);
		const char *phase, *comm;
		char key[96], b1[128], b2[128];
		long unm = -1;
		for (j = 0; j < d->n; j++) {
			uint64_t ip = d->frames[j] & ~TY_FRAME_EXACT;
			struct ty_sym_map m;
			if (ip != TY_FRAME_TRUNCATED && ip < (1ull << 47) &&
			    ty_symbols_find_map(r->syms, d->pid, ip, d->time, &m) < 0) {
				unm = (long)j;
				break;
			}
		}
		if (d->end == TY_UNWIND_COMPLETE && unm < 0)
			continue;
		bad++;
		if (d->n > 1 && d->frames[d->n - 1] == TY_FRAME_TRUNCATED)
			d->n--; /* the last frame shown is the last real one */
		if (!p)
			phase = "unknown pid", comm = "?";
		else if (p->exec_time && d->time < p->exec_time)
			phase = "pre-exec", comm = p->old[0] ? p->old : "?";
		else if (p->exec_time)
			phase = "after exec", comm = p->comm;
		else if (p->fork_time)
			phase = "forked, no exec", comm = p->comm;
		else
			phase = d->pid == (uint32_t)r->child ? "the command" : "unknown pid",
			comm = p->comm;
		fprintf(
		    f,
		    "unwind: pid %u tid %u %s (%s) t+%.3fs %s: %s, stopped: %s; %u frames, leaf "
		    "%#llx in %s, last %#llx in %s; stack copy %u/%u bytes",
		    d->pid, d->tid, comm, phase, (double)(d->time - r->t0) / 1e9,
		    d->user ? "user" : "kernel", ends[d->end & 3], stops[d->stop % 10], d->n,
		    d->n ? (unsigned long long)(d->frames[0] & ~TY_FRAME_EXACT) : 0ull,
		    d->n ? map_name(r, d->pid, d->frames[0], d->time, b1, sizeof(b1)) : "-",
		    d->n ? (unsigned long long)(d->frames[d->n - 1] & ~TY_FRAME_EXACT) : 0ull,
		    d->n ? map_name(r, d->pid, d->frames[d->n - 1], d->time, b2, sizeof(b2)) : "-",
		    d->stack_dyn, d->stack_size);
		if (unm >= 0)
			fprintf(f, "; frame #%ld %#llx in no mapping", unm,
				(unsigned long long)(d->frames[unm] & ~TY_FRAME_EXACT));
		fprintf(f, "%s\n", d->retried ? " (maps read again)" : "");
		snprintf(key, sizeof(key), "%s %s: %s%s", comm, phase,
			 d->end == TY_UNWIND_COMPLETE ? "complete" : stops[d->stop % 10],
			 unm >= 0 ? ", frame in no mapping" : "");
		for (j = 0; j < ncnt && strcmp(cnt[j].key, key) != 0; j++)
			;
		if (j == ncnt) {
			if (ty_array_grow(&cnt, sizeof(*cnt), ncnt + 1, &cap) < 0)
				continue;
			snprintf(cnt[ncnt].key, sizeof(cnt[ncnt].key), "%s", key);
			cnt[ncnt++].n = 0;
		}
		cnt[j].n++;
	}
	fprintf(f, "unwind: %zu of %zu samples incomplete or with a frame in no mapping\n", bad,
		r->ndg);
	for (j = 0; j < ncnt; j++)
		fprintf(f, "unwind: %6lu  %s\n", cnt[j].n, cnt[j].key);
	fflush(f);
	free(cnt);
}

/* A sample with a user stack: its chain is the kernel's part, then the
 * user frames unwound from the copy, and [truncated] where the copy ended
 * it. A chain lost in code outside the mappings known reads the maps of
 * the process again (at most every 20 ms) and is unwound once more. */
static const struct ty_sampler_rec *
unwind(struct ty_recorder *r, const struct ty_sampler_rec *rec)
{
	struct ty_sampler_rec *out = &r->scratch;
	struct ty_unwind_sample us;
	enum ty_unwind_end end;
	size_t room, n, k;
	uint64_t t0 = now_ns(); /* the vDSO's: a thread CPU clock is a system call */
	int again;

	memcpy(out, rec, sizeof(*out));
	out->chain = out->chainbuf;
	k = rec->nr;
	if (k > TY_SAMPLER_MAX_STACK - 2)
		k = TY_SAMPLER_MAX_STACK - 2;
	room = TY_SAMPLER_MAX_STACK - 1 - k;
	us.pid = rec->pid;
	us.time = rec->time;
	memcpy(us.regs, rec->regs, sizeof(us.regs));
	us.mask = TY_UNWIND_REGS_MASK;
	us.stack = rec->stack;
	us.stack_len = rec->stack_dyn;
	us.stack_full = rec->stack_size && rec->stack_dyn == rec->stack_size;
	for (again = 0;; again++) {
		n = ty_unwind_sample(r->uw, &us, out->chainbuf + k, room, &end);
		if (end != TY_UNWIND_LOST || again || !n ||
		    (out->chainbuf[k + n - 1] & ~TY_FRAME_EXACT) >= (1ull << 47) ||
		    ty_symbols_covers(r->syms, rec->pid,
				      out->chainbuf[k + n - 1] & ~TY_FRAME_EXACT) ||
		    (r->last_load_pid == rec->pid && t0 / 1000 - r->last_load_ns / 1000 < 20000))
			break;
		{
			struct ty_error err;
			r->last_load_pid = rec->pid;
			r->last_load_ns = t0;
			if (ty_symbols_load_maps(r->syms, "/proc", rec->pid, now_ns(), &err) <= 0)
				break;
			ty_unwind_forget(r->uw);
		}
	}
	r->ust.samples++;
	if (end == TY_UNWIND_COMPLETE) {
		struct ty_unwind_stats st;
		int b = 0;
		r->ust.complete++;
		ty_unwind_stats(r->uw, &st);
		while (b < 7 && st.depth > (1024ull << b))
			b++;
		r->ust.depth[b]++;
	}
	if (end == TY_UNWIND_TRUNCATED || end == TY_UNWIND_MAXED) { /* the copy or the */
		r->ust.truncated++;				    /* frames kept cut it */
		out->chainbuf[k + n++] = TY_FRAME_TRUNCATED;
	}
	out->nr = k + n;
	r->ust.unwind_ns += now_ns() - t0;
	if (r->o.unwind_log)
		diag_sample(r, out, k, end, again);
	return out;
}

static void
on_record(const struct ty_sampler_rec *rec, void *arg)
{
	struct ty_recorder *r = arg;

	if (r->o.system_wide && rec->tid == 0 &&
	    (rec->type == TY_SAMPLER_REC_SWITCH || rec->type == TY_SAMPLER_REC_SWITCH_SAMPLE))
		return; /* the idle task is not off the CPU when a CPU works */
	if (r->o.unwind_log)
		diag_record(r, rec);
	if (r->lazy && rec->type == TY_SAMPLER_REC_SAMPLE && !ty_sampler_tracking(r->s))
		check_sample(r, rec);
	if (r->uw &&
	    (rec->type == TY_SAMPLER_REC_SAMPLE || rec->type == TY_SAMPLER_REC_SWITCH_SAMPLE) &&
	    rec->regs_abi)
		rec = unwind(r, rec);
	else if (r->o.unwind_log && rec->type == TY_SAMPLER_REC_SAMPLE)
		diag_sample(r, rec, 0, r->cg == TY_CG_DWARF ? TY_UNWIND_LOST : TY_UNWIND_COMPLETE,
			    0);
	else if (r->uw && (rec->type == TY_SAMPLER_REC_MMAP ||
			   (rec->type == TY_SAMPLER_REC_COMM && rec->exec)))
		ty_unwind_forget(r->uw);
	r->duty.sw += rec->type == TY_SAMPLER_REC_SWITCH && rec->out;
	r->duty.n += rec->type == TY_SAMPLER_REC_SWITCH_SAMPLE;
	ty_collector_record(rec, r->c);
}

static int
drain(struct ty_recorder *r, struct ty_error *e)
{
	long ret;

	if (r->uw)
		ty_unwind_forget(r->uw); /* /proc may have been read since */
	if ((ret = ty_sampler_drain(r->s, on_record, r, e)) < 0)
		return (int)ret;
	if (r->lazy && r->nrr)
		reread_maps(r);
	return 0;
}

static void
signal_command(struct ty_recorder *r, int sig)
{
	if (r->reaped)
		return;
	ty_spawn_kill(&r->sp, sig);
}

/* Stopped: stop sampling and pass the signal on to the command (it may not
 * have seen it). If the command is still there 2 s later, or a second
 * signal comes, kill it (and again every 2 s, should a process escape). */
static void
stop_command(struct ty_recorder *r, const struct ty_record_stop *stop)
{
	struct ty_error err;
	uint64_t t = now_ns();

	if (!r->stop_ns) {
		ty_sampler_disable(r->s, &err);
		signal_command(r, stop->sig);
		r->stop_ns = t;
	} else if (stop->count > 1 || t - r->stop_ns > 2000000000ull) {
		signal_command(r, SIGKILL);
		r->stop_ns = t;
	}
}

/* How long poll() may sleep: for the trackers, the mappings and the end,
 * and until the chains' next step. */
static int
poll_ms(const struct ty_recorder *r, int pidfd, int stopping)
{
	uint64_t t = now_ns();
	int ms;

	if (r->proc_maps || stopping)
		ms = 50;
	else if (r->lazy && ty_sampler_tracking(r->s))
		ms = t >= r->close_at ? 0 : (int)((r->close_at - t) / 1000000) + 1;
	else if (r->lazy)
		ms = 100; /* samples outside known mappings are looked up soon */
	else
		ms = pidfd >= 0 ? 1000 : 100;
	if (r->duty.hz && !r->stop_ns && !stopping) {
		int d = t >= r->duty.at ? 0 : (int)((r->duty.at - t + 999999) / 1000000);
		if (d < ms)
			ms = d;
	}
	if (r->o.duration_ns && !r->child) {
		uint64_t end = r->t0 + r->o.duration_ns;
		int d = t >= end ? 0 : (int)((end - t + 999999) / 1000000);
		if (d < ms)
			ms = d;
	}
	return ms;
}

/* Why the kernel took tachy's events off process PID while it runs: its
 * credentials changed on exec (a set-user-ID or set-group-ID program: the
 * kernel does not let an unprivileged user observe it), or its maps cannot
 * be read. Writes the reason to WHY; 0 when none is found (it ended). */
static int
unobservable(pid_t pid, char *why, size_t size)
{
	char path[64], buf[4096], *l;
	unsigned long id[2][4];
	ssize_t n;
	int fd, k, got = 0;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (k = 0; k < 2; k++)
		if ((l = strstr(buf, k ? "\nGid:" : "\nUid:")) &&
		    sscanf(l + 5, "%lu %lu %lu %lu", &id[k][0], &id[k][1], &id[k][2], &id[k][3]) ==
			4)
			got |= 1 << k;
	if ((got & 1) && id[0][1] != (unsigned long)geteuid())
		return snprintf(why, size, "a set-user-ID program (it runs as uid %lu)", id[0][1]),
		       1;
	if ((got & 2) && id[1][1] != (unsigned long)getegid())
		return snprintf(why, size, "a set-group-ID program (it runs as gid %lu)", id[1][1]),
		       1;
	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 && errno == EACCES)
		return snprintf(why, size, "its maps are unreadable to this user"), 1;
	if (fd >= 0)
		close(fd);
	return 0;
}

/* Every ring hung up while the command runs: the kernel took the events
 * off it. Say why, once; polling goes on for the end only (a hung-up
 * descriptor is not polled: it would wake tachy at once, for ever). */
static void
check_observable(struct ty_recorder *r)
{
	char why[128];

	if (r->unsampled || !unobservable(r->child, why, sizeof(why)))
		return;
	r->unsampled = 1;
	warn(r,
	     "the command cannot be sampled: it is %s, and the kernel took tachy's events off "
	     "it; record it as root or as the user it runs as",
	     why);
}

/* Has the command (or the process attached to) ended? */
static int
ended(struct ty_recorder *r, int pidfd, const struct pollfd *pfd, struct ty_error *e)
{
	int ret;

	if (r->child) {
		ret = ty_spawn_try_wait(&r->sp, &r->usage, &r->exit, e);
		if (ret < 0)
			return ret;
		r->reaped = ret == 1;
		return ret;
	}
	if (r->o.system_wide) /* no command: until --duration or the stop word */
		return r->o.duration_ns && now_ns() - r->t0 >= r->o.duration_ns;
	if (pidfd >= 0)
		return (pfd->revents & POLLIN) != 0;
	return kill(r->o.pid, 0) < 0 && errno == ESRCH;
}

int
ty_record_wait(struct ty_recorder *r, const struct ty_record_stop *stop, struct ty_error *e)
{
	int n = ty_sampler_nrings(r->s), i, pidfd, own_pidfd = -1, done = 0, hup, nw, ret = 0;
	struct pollfd *pfd = calloc((size_t)(2 * n) + 1, sizeof(*pfd));
	unsigned char *whup = calloc((size_t)n + 1, 1); /* watchers that hung up */
	uint64_t t;

	if (!pfd || !whup) {
		free(pfd);
		free(whup);
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	if (r->child)
		pidfd = r->sp.pidfd;
	else if (r->o.system_wide)
		pidfd = -1;
	else
		pidfd = own_pidfd = (int)syscall(SYS_pidfd_open, r->o.pid, 0);
	for (i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ty_sampler_fd(r->s, i), POLLIN, 0};
	pfd[n] = (struct pollfd){pidfd, POLLIN, 0};
	while (!done) {
		int k, stopping = stop && stop->sig;
		nw = r->lazy ? ty_sampler_nwatch(r->s) : 0;
		if (nw > n)
			nw = n;
		for (i = 0; i < nw; i++)
			pfd[n + 1 + i] =
			    (struct pollfd){whup[i] ? -1 : ty_sampler_watch_fd(r->s, i), POLLIN, 0};
		k = poll(pfd, (nfds_t)(n + 1 + nw), poll_ms(r, pidfd, stopping));
		if (k < 0 && errno != EINTR)
			break;
		for (i = 0; i < nw; i++) /* still read on each wake, no longer polled */
			if (pfd[n + 1 + i].revents & (POLLHUP | POLLERR))
				whup[i] = 1;
		if (r->lazy && (ret = lazy_step(r, e)) < 0)
			break;
		if ((ret = drain(r, e)) < 0)
			break;
		duty_step(r);
		/* A ring whose task is gone hangs up: stop polling it, and stop
		 * when every ring has hung up. */
		for (i = 0, hup = 0; i < n; i++) {
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;
			hup += pfd[i].fd < 0;
		}
		if (hup == n && !r->child)
			done = 1;
		if (r->proc_maps && !done && (t = now_ns()) - r->maps_at >= 50000000ull) {
			snapshot_maps(r); /* every 50 ms, however often tachy wakes */
			r->maps_at = t;
		}
		if ((ret = ended(r, pidfd, &pfd[n], e)) < 0)
			break;
		done |= ret;
		ret = 0;
		if (!done && hup == n && r->child)
			check_observable(r);
		stopping = stop && stop->sig;
		if (stopping) {
			r->interrupted = 1;
			if (!r->child)
				done = 1;
			else if (!done)
				stop_command(r, stop);
		}
	}
	if (own_pidfd >= 0)
		close(own_pidfd);
	free(pfd);
	free(whup);
	r->t1 = now_ns();
	if (ret < 0)
		return ret;
	ty_sampler_disable(r->s, e);
	return drain(r, e);
}

/* Attached: the kernel reports no names for threads that exist already. */
static void
name_thread(struct ty_recorder *r, long tid)
{
	char path[96], comm[64] = "";
	struct ty_sampler_rec rec;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/comm", (long)r->o.pid, tid);
	if (!(fp = fopen(path, "r")))
		return;
	if (fgets(comm, sizeof(comm), fp)) {
		comm[strcspn(comm, "\n")] = '\0';
		memset(&rec, 0, offsetof(struct ty_sampler_rec, chainbuf));
		rec.type = TY_SAMPLER_REC_COMM;
		rec.pid = (uint32_t)r->o.pid;
		rec.tid = (uint32_t)tid;
		rec.name = comm;
		ty_collector_record(&rec, r->c);
	}
	fclose(fp);
}

/* Attached: a thread of PID not in r->tids yet (later ones are inherited);
 * with a sampler open, it is sampled at once. */
static int
take_sampled(struct ty_recorder *r, long tid)
{
	struct ty_error err;
	size_t cap = (size_t)r->ntids;
	int i;

	for (i = 0; i < r->ntids; i++)
		if (r->tids[i] == (pid_t)tid)
			return 0;
	if (r->s && ty_sampler_add_thread(r->s, (pid_t)tid, &err) < 0)
		return 0; /* gone already (or no more fds: inherited or lost) */
	if (ty_array_grow(&r->tids, sizeof(*r->tids), (size_t)r->ntids + 1, &cap) < 0)
		return 0;
	r->tids[r->ntids++] = (pid_t)tid;
	name_thread(r, tid);
	return 1;
}

static char *
attached_name(long pid)
{
	char path[64], comm[64] = "?", *s;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if ((fp = fopen(path, "r"))) {
		if (fgets(comm, sizeof(comm), fp))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(fp);
	}
	if (asprintf(&s, "-p %ld (%s)", pid, comm) < 0)
		return NULL;
	return s;
}

static int
attach(struct ty_recorder *r, struct ty_error *e)
{
	int ret;

	r->pname = attached_name(r->o.pid);
	each_thread(r, r->o.pid, take_sampled);
	if ((ret = ty_symbols_load_maps(r->syms, "/proc", (uint32_t)r->o.pid, 0, e)) < 0)
		return ret;
	if ((ret = open_sampler(r, e)) < 0 || (ret = ty_sampler_enable(r->s, e)) < 0)
		return ret;
	/* A thread created by one not yet sampled when it was listed
	 * inherited nothing. */
	each_thread(r, r->o.pid, take_sampled);
	mark_start(r);
	return 0;
}

/* -a: the events on every CPU are on before the processes running now
 * are read from /proc, so that what starts meanwhile has records. */
static int
system_begin(struct ty_recorder *r, struct ty_error *e)
{
	long n;
	int ret;

	if ((ret = ty_sampler_enable(r->s, e)) < 0)
		return ret;
	if ((n = ty_record_system_synthesize("/proc", ty_collector_record, r->c, e)) < 0)
		return (int)n;
	return 0;
}

static int
launch(struct ty_recorder *r, struct ty_spawn_opts *so, struct ty_error *e)
{
	struct ty_error ignore;
	char why[PATH_MAX + 64];
	pid_t pid;
	int ret;

	if ((ret = ty_spawn_resolve(r->o.argv[0], r->path, sizeof(r->path), e)) < 0)
		return ret == -ENOENT ? ret : -EACCES;
	if (ty_spawn_unobservable(r->path, why, sizeof(why))) {
		r->unsampled = 1; /* said now; check_observable need not */
		warn(r,
		     "the command cannot be sampled: %s, and the kernel does not let this user "
		     "observe it; record it as root or as the user it runs as",
		     why);
	}
	if ((ret = ty_spawn_init(&r->sp, e)) < 0)
		return ret;
	r->sp_init = 1;
	so->path = r->path;
	so->argv = r->o.argv;
	so->envp = environ;
	so->fd[0] = so->fd[2] = -1;
	so->fd[1] = r->o.stdout_fd;
	so->drain_fd = -1;
	so->want_pidfd = 1;
	so->same_group = r->o.same_group;
	so->pdeathsig = SIGKILL; /* no command left running when tachy dies */
	/* Off the CPU, mmap records for the whole run: closing the lazy
	 * trackers changes the generation of the threads' event contexts, and
	 * the kernel then switches every event out and in at each context
	 * switch instead of swapping the contexts (0.5 us more a switch). */
	r->lazy = r->o.maps == TY_MAPS_LAZY && r->o.off_cpu == TY_OFFCPU_NONE;
	r->proc_maps = r->o.maps == TY_MAPS_PROC;
	if ((pid = ty_spawn_create(&r->sp, so, e)) < 0)
		return (int)pid;
	r->child = pid;
	if ((ret = open_sampler(r, e)) < 0 ||
	    (r->o.system_wide && (ret = system_begin(r, e)) < 0)) {
		ty_spawn_kill(&r->sp, SIGKILL);
		ty_spawn_wait(&r->sp, 0, NULL, &r->usage, &r->exit, &ignore);
		r->reaped = 1;
		return ret;
	}
	if (r->o.on_child && (ret = r->o.on_child(pid, r->o.on_child_arg, e)) < 0) {
		ty_spawn_kill(&r->sp, SIGKILL);
		ty_spawn_wait(&r->sp, 0, NULL, &r->usage, &r->exit, &ignore);
		r->reaped = 1;
		return ret;
	}
	mark_start(r);
	r->close_at = r->t0 + LAZY_CLOSE_NS;
	ty_spawn_go(&r->sp);
	return 0;
}

static int
system_start(struct ty_recorder *r, struct ty_error *e)
{
	int ret;

	r->o.maps = TY_MAPS_MMAP_RECORDS; /* every process's, all along */
	r->lazy = r->proc_maps = 0;
	if (r->o.argv && r->o.argv[0])
		return launch(r, &r->so, e);
	if ((ret = open_sampler(r, e)) < 0 || (ret = system_begin(r, e)) < 0)
		return ret;
	mark_start(r);
	return 0;
}

int
ty_record_start(struct ty_recorder **out, const struct ty_record_opts *o, struct ty_symbols *syms,
		struct ty_error *e)
{
	struct ty_recorder *r = calloc(1, sizeof(*r));
	int ret;

	*out = NULL;
	if (!r)
		return ty_error_set(e, -ENOMEM, "out of memory");
	r->o = *o;
	r->ev = o->ev;
	r->syms = syms;
	r->proc_maps = o->maps == TY_MAPS_PROC;
	r->cg = o->callgraph;
	r->stack_size = o->stack_size ? (o->stack_size + 7) & ~7u : TY_RECORD_STACK_DEFAULT;
	if (r->stack_size > TY_RECORD_STACK_MAX)
		r->stack_size = TY_RECORD_STACK_MAX;
#if defined(__x86_64__)
	if (r->cg == TY_CG_AUTO)
		r->cg = TY_CG_DWARF;
#else
	if (r->cg == TY_CG_AUTO || r->cg == TY_CG_DWARF)
		r->cg = TY_CG_FP; /* the unwinder knows x86-64 only */
#endif
	r->sw_stack_size = o->stack_size ? r->stack_size : TY_RECORD_OFFCPU_STACK_DEFAULT;
	if (r->cg == TY_CG_DWARF &&
	    !(r->uw = ty_unwind_new(ty_symbols_addrspace(syms), ty_symbols_cfi(syms)))) {
		free(r);
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	if (!(r->c = ty_collector_new(syms))) {
		free(r);
		return ty_error_set(e, -ENOMEM, "out of memory");
	}
	ret = o->system_wide ? system_start(r, e) : o->pid ? attach(r, e) : launch(r, &r->so, e);
	if (ret < 0) {
		ty_record_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

static char *
join_argv(char *const *argv)
{
	size_t n = 1, i;
	char *s;

	for (i = 0; argv[i]; i++)
		n += strlen(argv[i]) + 1;
	if (!(s = calloc(1, n)))
		return NULL;
	for (i = 0; argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

int
ty_record_finish(struct ty_recorder *r, struct ty_profile *p, struct ty_error *e)
{
	struct rusage self;
	size_t i;
	int ret;

	if ((ret = ty_collector_finish(r->c, p, e)) < 0)
		return ret;
	if (r->o.unwind_log)
		diag_report(r);
	p->meta.event = strdup(r->ename);
	p->meta.command = r->o.pid ? r->pname : join_argv(r->o.argv);
	r->pname = NULL;
	p->meta.use_freq = r->o.use_freq;
	p->meta.rate = r->o.rate;
	p->meta.callchain = r->cg != TY_CG_NONE;
	p->meta.period_ns = r->ev.kind == TY_EVENT_TASK_CLOCK || r->o.off_cpu == TY_OFFCPU_ONLY;
	p->meta.off_cpu = r->o.off_cpu;
	if (r->limits)
		p->meta.off_cpu_limits = strdup(r->limits);
	if (r->o.off_cpu == TY_OFFCPU_ONLY)
		p->meta.use_freq = 0, p->meta.rate = 1;
	if (r->o.off_cpu != TY_OFFCPU_NONE) /* the rate kept (0: every chain) */
		p->meta.switch_chain_hz = r->duty.hz;
	p->meta.wall_ns = r->t1 - r->t0;
	p->meta.start_unix_ns = r->t0_unix;
	p->meta.start_mono_ns = r->t0;
	p->meta.workload_cpu_ns = (uint64_t)r->usage.user_ns + (uint64_t)r->usage.system_ns;
	p->meta.workload_sys_ns = (uint64_t)r->usage.system_ns;
	p->meta.user_only = r->exclude_kernel;
	p->meta.kernel_refused = r->kernel_refused;
	p->meta.processes = (uint32_t)ty_collector_pids(r->c, NULL, 0);
	getrusage(RUSAGE_SELF, &self);
	p->meta.profiler_cpu_ns = tv_ns(self.ru_utime) + tv_ns(self.ru_stime);
	if (r->o.system_wide)
		return ty_record_system_meta(p, r->o.cpus, r->o.ncpus,
					     (int)sysconf(_SC_NPROCESSORS_CONF), r->o.argv) < 0
			   ? ty_error_set(e, -ENOMEM, "out of memory")
			   : 0;
	if (r->o.pid) { /* the workload's CPU time is not ours to wait for */
		uint64_t sum = 0;
		for (i = 0; i < p->nsamples; i++)
			if (p->samples[i].state == TY_STATE_CPU)
				sum += p->samples[i].period;
		p->meta.workload_cpu_ns = p->meta.period_ns ? sum : 0;
		p->meta.workload_sys_ns = 0;
	}
	return 0;
}

const struct ty_exit *
ty_record_exit(const struct ty_recorder *r)
{
	return r->child && r->reaped ? &r->exit : NULL;
}

int
ty_record_interrupted(const struct ty_recorder *r)
{
	return r->interrupted;
}

const char *
ty_record_event_name(const struct ty_recorder *r)
{
	return r->ename;
}

int
ty_record_fell_back(const struct ty_recorder *r)
{
	return r->fell_back;
}

int
ty_record_kernel_refused(const struct ty_recorder *r)
{
	return r->kernel_refused;
}

const char *
ty_record_off_cpu_limits(const struct ty_recorder *r)
{
	return r->limits;
}

int
ty_record_user_only(const struct ty_recorder *r)
{
	return r->exclude_kernel;
}

unsigned
ty_record_ring_pages(const struct ty_recorder *r)
{
	return r->pages;
}

enum ty_callgraph
ty_record_callgraph(const struct ty_recorder *r, uint32_t *stack_size)
{
	if (stack_size)
		*stack_size = r->stack_size;
	return r->cg;
}

uint32_t
ty_record_switch_stack(const struct ty_recorder *r)
{
	return r->o.off_cpu != TY_OFFCPU_NONE ? r->sw_stack_size : 0;
}

void
ty_record_unwind_stats(const struct ty_recorder *r, struct ty_record_unwind_stats *st)
{
	struct ty_unwind_stats us = {0, 0, 0, 0, TY_STOP_END};

	*st = r->ust;
	if (r->uw)
		ty_unwind_stats(r->uw, &us);
	st->cfi_frames = us.cfi_frames;
	st->fp_frames = us.fp_frames;
}

void
ty_record_free(struct ty_recorder *r)
{
	struct ty_error ignore;
	size_t i;

	if (!r)
		return;
	if (r->child && !r->reaped) {
		ty_spawn_kill(&r->sp, SIGKILL);
		ty_spawn_wait(&r->sp, 0, NULL, &r->usage, &r->exit, &ignore);
	}
	if (r->sp_init)
		ty_spawn_release(&r->sp);
	ty_sampler_free(r->s);
	ty_collector_free(r->c);
	ty_unwind_free(r->uw);
	free(r->pname);
	free(r->limits);
	free(r->tids);
	free(r->cov);
	free(r->todo);
	free(r->gone);
	free(r->rr);
	for (i = 0; i < r->ndg; i++)
		free(r->dg[i].frames);
	free(r->dg);
	free(r->dp);
	free(r);
}
