/* cmd-record.c - tachy record: sample where a command spends its time. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tachy/events.h"
#include "tachy/outfile.h"
#include "tachy/profile.h"
#include "tachy/sampler.h"
#include "tachy/symbols.h"

static const char usage_text[] =
    "usage: tachy record [-g] [-F HZ | -c PERIOD] [-e EVENT] [-o FILE] [-m PAGES]\n"
    "                    [--proc-maps | --mmap-records] [--user | --kernel] [-q]\n"
    "                    (-- COMMAND [ARG...] | -p PID)\n"
    "\n"
    "Sample where COMMAND (with all its threads and children) or the running\n"
    "process PID spends its time, and write a self-contained profile.\n"
    "\n";

static const char footer[] =
    "\n"
    "At the end one line says how many samples were taken and lost, and the CPU\n"
    "time the profiler used against the workload's; a second line what share of\n"
    "the workload's CPU time the samples cover. See tachy-record(1).\n";

struct opts {
	const char *event, *output;
	long freq, period, pid, pages;
	int callchain, user, quiet, proc_maps, mmap_records;
	char **argv;
};

static volatile sig_atomic_t interrupted, nsignals;

static void
on_signal(int sig)
{
	interrupted = sig;
	nsignals++;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t
tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
	int user = 0, kernel = 0, rc;
	struct cli_option options[] = {
	    OPT_LONG('F', "freq", &o->freq, "HZ", 1, 10000000, "samples per second (default 999)"),
	    OPT_LONG('c', "period", &o->period, "N", 1, (double)(1L << 62),
		     "one sample every N events instead of -F"),
	    OPT_STRING('e', "event", &o->event, "EVENT",
		       "what to sample, as tachy run -e names it; default\n"
		       "cycles where the CPU has it, else cpu-clock"),
	    OPT_FLAG('g', "call-graph", &o->callchain, "record call chains (frame pointers)"),
	    OPT_STRING('o', "output", &o->output, "FILE",
		       "profile file (default tachy.prof, - for stdout: the\n"
		       "command's stdout then goes to stderr)"),
	    OPT_LONG('p', "pid", &o->pid, "PID", 1, 1L << 22,
		     "attach to a running process (all its threads) until it\n"
		     "exits or Ctrl-C"),
	    OPT_LONG('m', "mmap-pages", &o->pages, "N", 1, 1L << 20,
		     "ring buffer pages per CPU, a power of two (default 128)"),
	    OPT_FLAG(0, "proc-maps", &o->proc_maps,
		     "no mmap records at all: read /proc/PID/maps every\n"
		     "50 ms instead (processes that live less than that\n"
		     "keep raw addresses)"),
	    OPT_FLAG(0, "mmap-records", &o->mmap_records,
		     "mmap records for the whole run (by default they stop\n"
		     "100 ms after start when the command has started no\n"
		     "other process: every mmap(2) pays for them)"),
	    OPT_FLAG(0, "user", &user, "user space only"),
	    OPT_FLAG(0, "kernel", &kernel,
		     "kernel samples too, or fail (default: kernel samples\n"
		     "where allowed -- root, CAP_PERFMON or\n"
		     "perf_event_paranoid <= 1 -- else user space only)"),
	    OPT_FLAG('q', "quiet", &o->quiet, "no summary line"),
	    OPT_HELP('h', "help", "this help"),
	    OPT_END(),
	};
	const struct cli_parser parser = {usage_text, options, footer, CLI_STOP_AT_OPERAND, 23};
	struct cli_args args;

	memset(o, 0, sizeof(*o));
	o->output = "tachy.prof";
	o->pages = 128;
	if ((rc = cli_parse(&parser, argc, argv, &args)))
		return rc;
	o->argv = args.v;
	if (o->pages & (o->pages - 1))
		return cli_usage_error("-m %ld: the ring size must be a power of two", o->pages);
	if (o->freq && o->period)
		return cli_usage_error("-F and -c exclude each other (a frequency or a period)");
	if (!o->freq)
		o->freq = 999;
	if (o->proc_maps && o->mmap_records)
		return cli_usage_error("--proc-maps and --mmap-records exclude each other");
	if (user && kernel)
		return cli_usage_error("--user and --kernel exclude each other");
	o->user = user ? 1 : kernel ? -1 : 0;
	if (o->pid && o->argv[0])
		return cli_usage_error("give either -p PID or a command, not both");
	if (!o->pid && !o->argv[0])
		return cli_usage_error("no command to record (tachy record [options] -- COMMAND)");
	return 0;
}

/* Does the command get a process group of its own? Not when tachy runs in
 * the foreground of a terminal: the command keeps the terminal (and Ctrl-C
 * reaches it directly). Elsewhere it does, so that an interrupt sent to
 * tachy alone can be passed on to the command and all its children. */
static int
own_group(void)
{
	pid_t fg = tcgetpgrp(STDIN_FILENO);

	return fg < 0 || fg != getpgrp();
}

/* Fork COMMAND held before exec: it execs when a byte arrives on *GO.
 * OUTFD >= 0 becomes its stdout (-o -: the profile owns tachy's stdout). */
static pid_t
spawn_held(char **argv, int pgrp, int outfd, int *go, int *fail)
{
	int gp[2], fp[2];
	pid_t pid;

	if (pipe2(gp, O_CLOEXEC) < 0 || pipe2(fp, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char b;
		int err;
		close(gp[1]);
		close(fp[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (pgrp)
			setpgid(0, 0);
		if (outfd >= 0 && dup2(outfd, STDOUT_FILENO) < 0)
			_exit(127);
		if (read(gp[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		err = errno;
		if (write(fp[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	if (pgrp)
		setpgid(pid, pid); /* also here: no race with the first kill */
	close(gp[0]);
	close(fp[1]);
	*go = gp[1];
	*fail = fp[0];
	return pid;
}

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

struct run {
	struct opts *o;
	struct ty_sampler *s;
	struct ty_collector *c;
	struct ty_symbols *syms;
	struct ty_event ev;
	int exclude_kernel, kernel_refused;
	pid_t child;
	int pgrp;	       /* the child leads its own process group */
	struct ty_outfile out; /* -o, opened before the command starts */
	int out_open;
	uint64_t stop_ns; /* when an interrupt was passed on to the child */
	int status;
	struct rusage ru;
	uint64_t t0, t1;
	char ename[TY_EVENT_NAME_MAX];
	int fell_back;
	/* Lazy mapping tracking (the default for a command, see lazy_step). */
	int lazy;
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
	size_t nrr, rrcap, rrlast;
	int track_warned;
	int watch_lost; /* the watcher lost records: forks may have been missed */
	char *pname;	/* -p: "-p PID (comm)" */
	pid_t *tids;	/* -p: the threads it has */
	int ntids;
};

static int
paranoid(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = 2;
		fclose(fp);
	}
	return v;
}

static int
open_sampler(struct run *r, struct ty_error *err)
{
	struct ty_sampler_opts so = {0};
	int ret, explicit_ev = r->o->event != NULL;

	so.use_freq = r->o->period == 0;
	so.rate = so.use_freq ? (uint64_t)r->o->freq : (uint64_t)r->o->period;
	so.callchain = r->o->callchain;
	so.pid = r->o->pid ? (pid_t)r->o->pid : r->child;
	so.enable_on_exec = r->o->pid == 0;
	so.mmap_pages = (unsigned)r->o->pages;
	so.no_mmap_records = r->o->proc_maps;
	so.lazy_mmap = r->lazy;
	so.tids = r->tids;
	so.ntids = r->ntids;
	if (r->ev.flags & TY_EVENT_PRIV_GIVEN) /* :u or :k say it */
		r->exclude_kernel = r->ev.attr.exclude_kernel;
	else
		r->exclude_kernel = r->o->user > 0;
	for (;;) {
		so.type = r->ev.attr.type;
		so.config = r->ev.attr.config;
		so.config1 = r->ev.attr.config1;
		so.config2 = r->ev.attr.config2;
		so.exclude_kernel = r->exclude_kernel;
		so.exclude_user = r->ev.attr.exclude_user;
		ret = ty_sampler_open(&r->s, &so, err);
		if (ret == 0)
			break;
		if ((ret == -EACCES || ret == -EPERM) && !r->exclude_kernel && r->o->user == 0 &&
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
			ty_error_set(err, ret, "event '%s': %s", r->ev.name, msg);
		}
		return ret;
	}
	snprintf(r->ename, sizeof(r->ename), "%s", r->ev.name);
	if (r->lazy && (ret = ty_sampler_lazy_error(r->s)) < 0) {
		if (!r->o->quiet)
			cli_warn("cannot open the mapping trackers (%s): reading /proc/PID/maps "
				 "every 50 ms instead (see --proc-maps)",
				 strerror(-ret));
		r->lazy = 0;
		r->o->proc_maps = 1;
	}
	return 0;
}

/* --proc-maps: take the executable mappings of every process seen so far
 * from /proc (those already known are skipped). */
static void
snapshot_maps(struct run *r)
{
	uint32_t pids[256];
	size_t n = ty_collector_pids(r->c, pids, 256), i;
	struct ty_error err;

	if (n > 256)
		n = 256;
	for (i = 0; i < n; i++)
		ty_symbols_load_maps(r->syms, "/proc", pids[i], now_ns(), &err);
	if (r->o->pid)
		ty_symbols_load_maps(r->syms, "/proc", (uint32_t)r->o->pid, now_ns(), &err);
}

/* Call TAKE for every thread in /proc/PID/task, and read the list again
 * until TAKE takes none of it (it returns 1 for a thread it took): a thread
 * created by one not yet taken when the list was read would be missed. At
 * most 16 lists. */
static void
each_thread(struct run *r, long pid, int (*take)(struct run *r, long tid))
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
cover_find(struct run *r, uint32_t tid)
{
	size_t i;

	for (i = 0; i < r->ncov; i++)
		if (r->cov[i].tid == tid)
			return &r->cov[i];
	return NULL;
}

static void
cover_add(struct run *r, uint32_t tid, uint64_t since)
{
	struct cover *c = cover_find(r, tid);

	if (c) {
		c->since = since;
		return;
	}
	if (ty_profile_grow(&r->cov, sizeof(*r->cov), r->ncov + 1, &r->covcap) == 0)
		r->cov[r->ncov++] = (struct cover){tid, since};
}

static void
cover_drop(struct run *r, uint32_t tid)
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
	if (ty_profile_grow(v, sizeof(**v), *n + 1, cap) == 0)
		(*v)[(*n)++] = pid;
}

/* A FORK, EXIT or COMM record from the watcher. */
static void
on_watch(const struct ty_record *rec, void *arg)
{
	struct run *r = arg;
	struct cover *parent;

	r->wcount++;
	if (rec->type == TY_REC_EXIT) {
		if (cover_find(r, rec->tid)) {
			cover_drop(r, rec->tid);
			push_pid(&r->gone, &r->ngone, &r->gonecap, rec->tid);
		}
		return;
	}
	if (rec->type == TY_REC_LOST)
		r->watch_lost = 1;
	if (rec->type == TY_REC_COMM && rec->exec && !ty_sampler_tracking(r->s)) {
		/* A new program in an untracked process: its loader is about
		 * to map its libraries. */
		if (!cover_find(r, rec->tid))
			push_pid(&r->todo, &r->ntodo, &r->todocap, rec->pid);
		return;
	}
	if (rec->type != TY_REC_FORK)
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
track_new(struct run *r)
{
	struct ty_error err;
	size_t i;

	for (i = 0; i < r->ntodo; i++) {
		uint32_t pid = r->todo[i];
		int ret = ty_sampler_track_pid(r->s, (pid_t)pid, &err);
		if (ret == 0)
			cover_add(r, pid, now_ns());
		else if (ret != -ESRCH && !r->track_warned++ && !r->o->quiet)
			cli_warn("%s: its libraries may show as raw addresses", err.msg);
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
take_tracked(struct run *r, long tid)
{
	struct ty_error err;

	if (cover_find(r, (uint32_t)tid))
		return 0;
	if (ty_sampler_track_pid(r->s, (pid_t)tid, &err) < 0) {
		if (err.code != -ESRCH && !r->track_warned++ && !r->o->quiet)
			cli_warn("%s: libraries loaded later may show as raw addresses", err.msg);
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
track_all(struct run *r)
{
	struct ty_error err;

	each_thread(r, (long)r->child, take_tracked);
	ty_symbols_load_maps(r->syms, "/proc", (uint32_t)r->child, now_ns(), &err);
}

/* Read the watcher until no process is left to track, then close the first
 * trackers when their time is up and the command is still one process. */
static int
drain_watch(struct run *r)
{
	struct ty_error err;
	int round;

	for (round = 0; round < 16; round++) {
		if (ty_sampler_drain_watch(r->s, on_watch, r, &err) < 0)
			return cli_error(EXIT_RUNTIME, "%s", err.msg);
		if (!r->ntodo && !r->ngone)
			break;
		track_new(r);
	}
	return 0;
}

static int
lazy_step(struct run *r)
{
	uint64_t t = now_ns();

	if (drain_watch(r))
		return EXIT_RUNTIME;
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
			if (drain_watch(r)) /* what came before the trackers */
				return EXIT_RUNTIME;
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
	return lazy_step(r);
}

/* After the close: a sample outside the mappings known for its process. */
static void
check_sample(struct run *r, const struct ty_record *rec)
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
			if (ty_profile_grow(&r->rr, sizeof(*r->rr), r->nrr + 1, &r->rrcap) < 0)
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
reread_maps(struct run *r)
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

static void
on_record(const struct ty_record *rec, void *arg)
{
	struct run *r = arg;

	if (r->lazy && rec->type == TY_REC_SAMPLE && !ty_sampler_tracking(r->s))
		check_sample(r, rec);
	ty_collector_record(rec, r->c);
}

static int
drain(struct run *r)
{
	struct ty_error err;

	if (ty_sampler_drain(r->s, on_record, r, &err) < 0)
		return cli_error(EXIT_RUNTIME, "%s", err.msg);
	if (r->lazy && r->nrr)
		reread_maps(r);
	return 0;
}

static void
signal_command(struct run *r, int sig)
{
	if (!r->pgrp || kill(-r->child, sig) < 0)
		kill(r->child, sig);
}

/* tachy was interrupted: stop sampling and pass the signal on to the
 * command (it may not have seen it). If the command is still there 2 s
 * later, or a second signal comes, kill it (and again every 2 s, should a
 * process escape). */
static void
stop_command(struct run *r)
{
	struct ty_error err;
	uint64_t t = now_ns();

	if (!r->stop_ns) {
		ty_sampler_disable(r->s, &err);
		signal_command(r, interrupted);
		r->stop_ns = t;
	} else if (nsignals > 1 || t - r->stop_ns > 2000000000ull) {
		signal_command(r, SIGKILL);
		r->stop_ns = t;
	}
}

/* How long poll() may sleep. */
static int
poll_ms(const struct run *r, int pidfd)
{
	if (r->o->proc_maps || interrupted)
		return 50;
	if (r->lazy && ty_sampler_tracking(r->s)) {
		uint64_t t = now_ns();
		return t >= r->close_at ? 0 : (int)((r->close_at - t) / 1000000) + 1;
	}
	if (r->lazy)
		return 100; /* samples outside known mappings are looked up soon */
	return pidfd >= 0 ? 1000 : 100;
}

/* Sleep in poll() until a ring passes its watermark, the watcher has news
 * or the child exits. */
static int
wait_loop(struct run *r)
{
	int n = ty_sampler_nrings(r->s), i, pidfd = -1, done = 0, hup, nw;
	struct pollfd *pfd = calloc((size_t)(2 * n) + 1, sizeof(*pfd));

	if (!pfd)
		return cli_error(EXIT_RUNTIME, "out of memory");
	pidfd = (int)syscall(SYS_pidfd_open, r->child ? r->child : (pid_t)r->o->pid, 0);
	for (i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ty_sampler_fd(r->s, i), POLLIN, 0};
	pfd[n] = (struct pollfd){pidfd, POLLIN, 0};
	while (!done) {
		int k;
		nw = r->lazy ? ty_sampler_nwatch(r->s) : 0;
		for (i = 0; i < nw; i++)
			pfd[n + 1 + i] = (struct pollfd){ty_sampler_watch_fd(r->s, i), POLLIN, 0};
		k = poll(pfd, (nfds_t)(n + 1 + nw), poll_ms(r, pidfd));
		if (k < 0 && errno != EINTR)
			break;
		if (r->lazy && lazy_step(r)) {
			free(pfd);
			return EXIT_RUNTIME;
		}
		if (drain(r)) {
			free(pfd);
			return EXIT_RUNTIME;
		}
		/* A ring whose task is gone hangs up: stop polling it, and stop
		 * when every ring has hung up. */
		for (i = 0, hup = 0; i < n; i++) {
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;
			hup += pfd[i].fd < 0;
		}
		if (hup == n && !r->child)
			done = 1;
		if (r->o->proc_maps && !done)
			snapshot_maps(r);
		if (r->child) {
			if (wait4(r->child, &r->status, WNOHANG, &r->ru) == r->child)
				done = 1;
		} else if ((pidfd >= 0 && (pfd[n].revents & POLLIN)) ||
			   (pidfd < 0 && kill((pid_t)r->o->pid, 0) < 0 && errno == ESRCH)) {
			done = 1;
		}
		if (interrupted && !r->child)
			done = 1;
		if (interrupted && r->child && !done)
			stop_command(r);
	}
	if (pidfd >= 0)
		close(pidfd);
	free(pfd);
	return 0;
}

/* -p: the kernel reports no names for threads that exist already. */
static void
name_thread(struct run *r, long tid)
{
	char path[96], comm[64] = "";
	struct ty_record rec;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/comm", r->o->pid, tid);
	if (!(fp = fopen(path, "r")))
		return;
	if (fgets(comm, sizeof(comm), fp)) {
		comm[strcspn(comm, "\n")] = '\0';
		memset(&rec, 0, offsetof(struct ty_record, chainbuf));
		rec.type = TY_REC_COMM;
		rec.pid = (uint32_t)r->o->pid;
		rec.tid = (uint32_t)tid;
		rec.name = comm;
		ty_collector_record(&rec, r->c);
	}
	fclose(fp);
}

/* -p: a thread of PID not in r->tids yet (later ones are inherited); with
 * a sampler open, it is sampled at once. */
static int
take_sampled(struct run *r, long tid)
{
	struct ty_error err;
	size_t cap = (size_t)r->ntids;
	int i;

	for (i = 0; i < r->ntids; i++)
		if (r->tids[i] == (pid_t)tid)
			return 0;
	if (r->s && ty_sampler_add_thread(r->s, (pid_t)tid, &err) < 0)
		return 0; /* gone already (or no more fds: inherited or lost) */
	if (ty_profile_grow(&r->tids, sizeof(*r->tids), (size_t)r->ntids + 1, &cap) < 0)
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

/* Does the profile go where tachy's stdout goes (-o -, -o /dev/stdout)? Then
 * the command's stdout must go elsewhere (to stderr), not into the profile. */
static int
profile_on_stdout(const struct run *r)
{
	struct stat a, b;

	if (r->out.is_stdout)
		return 1;
	if (fstat(STDOUT_FILENO, &b) != 0)
		return 0;
	if (stat(r->o->output, &a) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 1; /* -o /dev/stdout: its temporary file replaces stdout's */
	return r->out.fd >= 0 && fstat(r->out.fd, &a) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int
start(struct run *r, struct ty_error *err)
{
	int go = -1, fail = -1, ret, child_err = 0;

	if (r->o->pid) {
		r->pname = attached_name(r->o->pid);
		each_thread(r, r->o->pid, take_sampled);
		if ((ret = ty_symbols_load_maps(r->syms, "/proc", (uint32_t)r->o->pid, 0, err)) < 0)
			return cli_error(ret == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME, "%s",
					 err->msg);
		if (open_sampler(r, err) < 0 || ty_sampler_enable(r->s, err) < 0)
			return cli_error(EXIT_RUNTIME, "%s", err->msg);
		/* A thread created by one not yet sampled when it was listed
		 * inherited nothing. */
		each_thread(r, r->o->pid, take_sampled);
		r->t0 = now_ns();
		return 0;
	}
	r->pgrp = own_group();
	r->lazy = !r->o->proc_maps && !r->o->mmap_records;
	r->child =
	    spawn_held(r->o->argv, r->pgrp, profile_on_stdout(r) ? STDERR_FILENO : -1, &go, &fail);
	if (r->child < 0)
		return cli_error(EXIT_RUNTIME, "cannot start '%s': %s", r->o->argv[0],
				 strerror(errno));
	if (open_sampler(r, err) < 0) {
		kill(r->child, SIGKILL);
		waitpid(r->child, NULL, 0);
		return cli_error(EXIT_RUNTIME, "%s", err->msg);
	}
	r->t0 = now_ns();
	r->close_at = r->t0 + LAZY_CLOSE_NS;
	if (write(go, "x", 1) != 1)
		return cli_error(EXIT_RUNTIME, "cannot release the command: %s", strerror(errno));
	close(go);
	if (read(fail, &child_err, sizeof(child_err)) == sizeof(child_err)) {
		waitpid(r->child, NULL, 0);
		close(fail);
		return cli_error(child_err == ENOENT ? EXIT_USAGE : EXIT_RUNTIME,
				 "cannot run '%s': %s", r->o->argv[0], strerror(child_err));
	}
	close(fail);
	return 0;
}

static char *
join_argv(char **argv)
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

static void
summary(struct run *r, const struct ty_profile *p, uint64_t self_cpu)
{
	double work = (double)p->meta.workload_cpu_ns / 1e9, me = (double)self_cpu / 1e9;
	char rate[64], space[96], cover[512];

	if (r->o->period)
		snprintf(rate, sizeof(rate), "every %ld events", r->o->period);
	else
		snprintf(rate, sizeof(rate), "at %ld Hz", r->o->freq);
	if (!r->exclude_kernel)
		snprintf(space, sizeof(space), " (kernel included)");
	else if (r->kernel_refused)
		snprintf(space, sizeof(space), " (user space only: perf_event_paranoid is %d)",
			 paranoid());
	else
		snprintf(space, sizeof(space), " (user space only)");
	fprintf(stderr,
		"tachy record: %zu samples of %s%s %s%s%s, %llu lost, %llu throttled; profiler "
		"CPU %.3f s = %.2f%% of the workload's %.3f s; wrote %s\n",
		p->nsamples, r->ename, r->fell_back ? " (no cycles event here)" : "", rate,
		r->o->callchain ? " with call chains" : "", space, (unsigned long long)p->meta.lost,
		(unsigned long long)p->meta.throttled, me, work > 0 ? 100 * me / work : 0, work,
		r->o->output);
	if (!r->o->pid && ty_profile_coverage(p, cover, sizeof(cover)) == 0)
		fprintf(stderr, "tachy record: %s\n", cover);
}

static int
finish(struct run *r, struct ty_error *err)
{
	struct ty_profile *p = ty_profile_new();
	struct rusage self;
	size_t i;
	int ret;

	if (!p)
		return cli_error(EXIT_RUNTIME, "out of memory");
	if (ty_collector_finish(r->c, p, err) < 0) {
		ty_profile_free(p);
		return cli_error(EXIT_RUNTIME, "%s", err->msg);
	}
	p->meta.event = strdup(r->ename);
	p->meta.command = r->o->pid ? r->pname : join_argv(r->o->argv);
	r->pname = NULL;
	p->meta.use_freq = r->o->period == 0;
	p->meta.rate = p->meta.use_freq ? (uint64_t)r->o->freq : (uint64_t)r->o->period;
	p->meta.callchain = r->o->callchain;
	p->meta.period_ns = r->ev.kind == TY_EVENT_TASK_CLOCK;
	p->meta.wall_ns = r->t1 - r->t0;
	p->meta.workload_cpu_ns = tv_ns(r->ru.ru_utime) + tv_ns(r->ru.ru_stime);
	p->meta.workload_sys_ns = tv_ns(r->ru.ru_stime);
	p->meta.user_only = r->exclude_kernel;
	p->meta.kernel_refused = r->kernel_refused;
	p->meta.processes = (uint32_t)ty_collector_pids(r->c, NULL, 0);
	getrusage(RUSAGE_SELF, &self);
	p->meta.profiler_cpu_ns = tv_ns(self.ru_utime) + tv_ns(self.ru_stime);
	if (r->o->pid) { /* the workload's CPU time is not ours to wait for */
		uint64_t sum = 0;
		for (i = 0; i < p->nsamples; i++)
			sum += p->samples[i].period;
		p->meta.workload_cpu_ns = p->meta.period_ns ? sum : 0;
		p->meta.workload_sys_ns = 0;
	}
	for (i = 0; i < ty_symbols_nwarnings(r->syms); i++)
		if (!r->o->quiet)
			cli_warn("%s", ty_symbols_warning(r->syms, i));
	ret = ty_profile_write_fp(p, r->out.fp, r->o->output, err);
	r->out_open = 0;
	if (ret < 0)
		ty_outfile_abort(&r->out);
	else
		ret = ty_outfile_commit(&r->out, err);
	if (ret < 0) {
		ty_profile_free(p);
		return cli_error(EXIT_RUNTIME, "%s", err->msg);
	}
	if (!r->o->quiet) {
		if (p->meta.lost)
			cli_warn("%llu samples were lost: the ring buffers filled up (try -m %ld)",
				 (unsigned long long)p->meta.lost, r->o->pages * 4);
		if (p->meta.throttled)
			cli_warn(
			    "the kernel throttled sampling %llu times (perf_event_max_sample_rate "
			    "is %llu): lower -F",
			    (unsigned long long)p->meta.throttled,
			    (unsigned long long)ty_sampler_max_rate());
		summary(r, p, p->meta.profiler_cpu_ns);
	}
	ty_profile_free(p);
	return 0;
}

/* 130 when tachy or the command was interrupted; a warning when the command
 * failed or died from another signal. */
static int
exit_status(const struct run *r)
{
	int sig = r->child && WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;

	if (r->child && interrupted)
		return EXIT_INTERRUPTED;
	if (sig == SIGINT || sig == SIGTERM)
		return EXIT_INTERRUPTED;
	if (r->o->quiet)
		return EXIT_OK;
	if (sig) {
		const char *name = sigabbrev_np(sig);
		if (name)
			cli_warn("the command was killed by SIG%s%s", name,
				 WCOREDUMP(r->status) ? " (core dumped)" : "");
		else
			cli_warn("the command was killed by signal %d", sig);
	} else if (r->child && WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0) {
		cli_warn("the command exited with status %d", WEXITSTATUS(r->status));
	}
	return EXIT_OK;
}

/* The per-boot kernel symbol cache: $TACHY_CACHE_DIR ("" disables it),
 * else $XDG_CACHE_HOME/tachy, else $HOME/.cache/tachy; not in another
 * user's home (sudo keeping HOME), where root would leave root's files. */
static void
set_cache_dir(struct ty_symbols *s)
{
	const char *v = getenv("TACHY_CACHE_DIR");
	char dir[4096];
	struct stat st;
	int n = -1;

	if (v) {
		ty_symbols_set_cache_dir(s, v);
		return;
	}
	if ((v = getenv("XDG_CACHE_HOME")) && *v == '/')
		n = snprintf(dir, sizeof(dir), "%s/tachy", v);
	else if ((v = getenv("HOME")) && *v == '/' && stat(v, &st) == 0 && st.st_uid == geteuid())
		n = snprintf(dir, sizeof(dir), "%s/.cache/tachy", v);
	if (n > 0 && (size_t)n < sizeof(dir))
		ty_symbols_set_cache_dir(s, dir);
}

int cmd_record(int argc, char **argv);

int
cmd_record(int argc, char **argv)
{
	struct opts o;
	struct run r;
	struct ty_error err = {0};
	uint64_t max;
	int ret;

	if ((ret = parse_args(argc, argv, &o)) != 0)
		return ret < 0 ? cli_finish_stdout(EXIT_OK) : ret;
	memset(&r, 0, sizeof(r));
	r.o = &o;
	if (ty_event_parse(o.event ? o.event : "cycles", &r.ev, &err) < 0)
		return cli_usage_error("%s", err.msg);
	max = ty_sampler_max_rate();
	if (!o.period && max && (uint64_t)o.freq > max)
		return cli_usage_error("-F %ld is above the kernel's limit of %llu samples per "
				       "second (/proc/sys/kernel/perf_event_max_sample_rate)",
				       o.freq, (unsigned long long)max);
	r.syms = ty_symbols_new();
	r.c = ty_collector_new(r.syms);
	if (!r.syms || !r.c)
		return cli_error(EXIT_RUNTIME, "out of memory");
	set_cache_dir(r.syms);
	/* A bad -o fails now, not after a long recording. */
	if (ty_outfile_open(&r.out, o.output, &err) < 0) {
		ty_collector_free(r.c);
		ty_symbols_free(r.syms);
		return cli_error(EXIT_RUNTIME, "%s", err.msg);
	}
	r.out_open = 1;
	if (r.out.fd >= 0) /* the command need not inherit it */
		fcntl(r.out.fd, F_SETFD, FD_CLOEXEC);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = start(&r, &err);
	if (ret == 0)
		ret = wait_loop(&r);
	r.t1 = now_ns();
	if (r.s && ret == 0) {
		ty_sampler_disable(r.s, &err);
		ret = drain(&r);
	}
	if (ret == 0)
		ret = finish(&r, &err);
	if (r.out_open)
		ty_outfile_abort(&r.out);
	ty_sampler_free(r.s);
	ty_collector_free(r.c);
	ty_symbols_free(r.syms);
	free(r.pname);
	free(r.tids);
	free(r.cov);
	free(r.todo);
	free(r.gone);
	free(r.rr);
	return ret ? ret : exit_status(&r);
}

const struct cmd_info cmd_info_record = {"record", 50, "sample where a command spends its time",
					 cmd_record};
