/* record.c - the recorder: a held child (ty_spawn_*), the sampler on it,
 * the mappings kept known while it runs, its end reaped with wait4(). */
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

#include "tachy/argv.h"
#include "tachy/array.h"
#include "tachy/clock.h"
#include "tachy/collect.h"
#include "tachy/duty.h"
#include "tachy/record-diag.h"
#include "tachy/record-peek.h"
#include "tachy/record-system.h"
#include "tachy/record-track.h"
#include "tachy/record.h"
#include "tachy/sampler.h"
#include "tachy/spawn.h"
#include "tachy/unwind.h"

#include "record-open.h"

/* The unwinder marks exact pcs as the sampler does. */
_Static_assert(TY_UNWIND_EXACT == TY_FRAME_EXACT, "one exact-pc bit");

extern char **environ;

void
ty_record_warn(struct ty_recorder *r, const char *fmt, ...)
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

/* The recording starts now: t0 on the samples' clock and on the wall's. */
static void
mark_start(struct ty_recorder *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	r->t0 = ty_clock_now_ns();
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

	if (!r->duty.hz || r->stop_ns || (t = ty_clock_now_ns()) < r->duty.at)
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

/* The outermost functions of a runtime's threads that the frame pointer
 * walks to but no CFI marks as outermost: Go's goroutines return into
 * runtime.goexit, its threads start in runtime.mstart (runtime.rt0_go on
 * the first), all entered from the entry code _rt0_amd64; assembly
 * functions carry ".abi0" in the symbol table. */
static int
root_name(const char *name)
{
	static const char *const roots[] = {"runtime.goexit", "runtime.mstart",	  "runtime.rt0_go",
					    "_rt0_amd64",     "_rt0_amd64_linux", "start_thread",
					    "__clone",	      "__clone3",	  "clone",
					    "clone3",	      "thread_start",	  "_start"};
	size_t i, len;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		len = strlen(roots[i]);
		if (strncmp(name, roots[i], len) == 0 &&
		    (name[len] == '\0' || strcmp(name + len, ".abi0") == 0))
			return 1;
	}
	return 0;
}

#define TAILS_MAX (1u << 16) /* distinct last frames kept; more are not named */

/* Keep FRAME, the last of a chain the walk lost, to be named at the end
 * (tails_roots): naming it now would read the files' symbols, and a JIT's
 * perf map before it is written, while the command runs. */
static void
tail_add(struct ty_recorder *r, const struct ty_sampler_rec *rec, uint64_t frame)
{
	uint64_t pc = frame & ~TY_FRAME_EXACT;
	size_t i, mask;

	if (pc >= (1ull << 47) || pc == 0)
		return;
	pc -= (frame & TY_FRAME_EXACT) ? 0 : 1; /* a return address: the call's */
	if (2 * (r->ntails + 1) > r->tailcap) {
		size_t cap = r->tailcap ? 2 * r->tailcap : 1024, j;
		struct ty_record_tail *t;
		if (cap > 2 * TAILS_MAX || !(t = calloc(cap, sizeof(*t))))
			return;
		for (j = 0; j < r->tailcap; j++) {
			struct ty_record_tail *o = &r->tails[j];
			if (!o->n)
				continue;
			for (i = (o->pc >> 4 ^ o->pid) & (cap - 1); t[i].n; i = (i + 1) & (cap - 1))
				;
			t[i] = *o;
		}
		free(r->tails);
		r->tails = t;
		r->tailcap = cap;
	}
	mask = r->tailcap - 1;
	for (i = (pc >> 4 ^ rec->pid) & mask; r->tails[i].n; i = (i + 1) & mask)
		if (r->tails[i].pc == pc && r->tails[i].pid == rec->pid) {
			r->tails[i].n++;
			return;
		}
	r->tails[i] = (struct ty_record_tail){rec->pid, pc, rec->time, 1};
	r->ntails++;
}

/* The chains lost in a runtime's root, named now: complete. */
static void
tails_roots(struct ty_recorder *r)
{
	struct ty_sym_result res;
	size_t i;

	for (i = 0; i < r->tailcap; i++) {
		struct ty_record_tail *t = &r->tails[i];
		if (!t->n)
			continue;
		ty_symbols_resolve(r->syms, t->pid, t->pc, t->time, 0, &res);
		if (res.name && root_name(res.name)) {
			r->ust.complete += t->n;
			if (r->o.unwind_log)
				ty_record_diag_root(&r->diag, t->pid, t->pc);
		}
	}
	free(r->tails);
	r->tails = NULL;
	r->ntails = r->tailcap = 0;
}

/* The samples inside an execve call, whose chains the collector gave the
 * chain of the call from the exec probe (collect-exec.c): complete or not
 * as that one is. */
static void
exec_grafts(struct ty_recorder *r)
{
	const struct ty_collector_graft *g;
	size_t i, n = ty_collector_grafts(r->c, &g);

	for (i = 0; i < n; i++) {
		if (g[i].complete)
			r->ust.complete++;
		else if (r->ust.complete)
			r->ust.complete--;
		if (r->o.unwind_log)
			ty_record_diag_exec(&r->diag, g[i].tid, g[i].time, g[i].complete);
	}
}

/* A sample with a user stack: its chain is the kernel's part, then the
 * user frames unwound from the copy, and [truncated] where the copy ended
 * it. A chain lost in code outside the mappings known reads the maps of
 * the process again (at most every 20 ms, unless the last read found new
 * ones: a JIT maps its code regions one after another) and is unwound once
 * more. */
static const struct ty_sampler_rec *
unwind(struct ty_recorder *r, const struct ty_sampler_rec *rec, uint64_t mask, int counted)
{
	struct ty_sampler_rec *out = &r->scratch;
	struct ty_unwind_sample us;
	enum ty_unwind_end end;
	size_t room, n, k;
	uint64_t t0 = ty_clock_now_ns(); /* the vDSO's: a thread CPU clock is a system call */
	int again;

	k = ty_unwind_input(rec, mask, out, &us);
	room = TY_SAMPLER_MAX_STACK - 1 - k;
	for (again = 0;; again++) {
		struct ty_unwind_stats st;
		uint64_t miss;
		n = ty_unwind_sample(r->uw, &us, out->chainbuf + k, room, &end);
		if (end != TY_UNWIND_LOST || again || !n ||
		    (miss = out->chainbuf[k + n - 1] & ~TY_FRAME_EXACT) >= (1ull << 47))
			break;
		if (ty_symbols_covers(r->syms, rec->pid, miss)) {
			/* a caller in no mapping (the JIT's newest code) */
			ty_unwind_stats(r->uw, &st);
			miss = st.unmapped;
		}
		if (!miss || miss >= (1ull << 47) || ty_symbols_covers(r->syms, rec->pid, miss) ||
		    (r->last_load_pid == rec->pid && !r->last_load_new &&
		     t0 / 1000 - r->last_load_ns / 1000 < 20000))
			break;
		{
			struct ty_error err;
			r->last_load_pid = rec->pid;
			r->last_load_ns = t0;
			r->last_load_new = 0;
			if (ty_symbols_load_maps(r->syms, "/proc", rec->pid, ty_clock_now_ns(),
						 &err) <= 0)
				break;
			r->last_load_new = 1; /* a JIT's next region: read again at once */
			ty_unwind_forget(r->uw);
		}
	}
	if (end == TY_UNWIND_TRUNCATED || end == TY_UNWIND_MAXED) /* the copy or the */
		out->chainbuf[k + n++] = TY_FRAME_TRUNCATED;	  /* frames kept cut it */
	out->nr = k + n;
	out->complete = end == TY_UNWIND_COMPLETE; /* the collector's grafts need it */
	if (!counted) /* an exec probe's: not a sample of the profile */
		return out;
	r->ust.samples++;
	if (end == TY_UNWIND_LOST && n)
		tail_add(r, rec, out->chainbuf[k + n - 1]);
	if (end == TY_UNWIND_COMPLETE) {
		struct ty_unwind_stats st;
		int b = 0;
		r->ust.complete++;
		ty_unwind_stats(r->uw, &st);
		while (b < 7 && st.depth > (1024ull << b))
			b++;
		r->ust.depth[b]++;
	}
	if (end == TY_UNWIND_TRUNCATED || end == TY_UNWIND_MAXED)
		r->ust.truncated++;
	r->ust.unwind_ns += ty_clock_now_ns() - t0;
	if (r->o.unwind_log)
		ty_record_diag_sample(&r->diag, out, k, end, again, r->uw);
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
		ty_record_diag_record(&r->diag, rec);
	if (r->track.lazy && rec->type == TY_SAMPLER_REC_SAMPLE && !ty_sampler_tracking(r->s))
		ty_record_track_sample(&r->track, rec);
	if (rec->type == TY_SAMPLER_REC_EXEC_ENTRY) {
		/* an execve call of the command's (of any process, -a): the
		 * probe sees every process */
		if (!r->o.system_wide && !ty_collector_forked(r->c, rec->pid) &&
		    !(r->child && rec->pid == (uint32_t)r->child) &&
		    !(r->o.pid && rec->pid == (uint32_t)r->o.pid))
			return;
		if (r->uw && rec->regs_abi)
			rec = unwind(r, rec, TY_UNWIND_REGS_MASK, 0);
		r->ust.exec_calls++;
		ty_collector_record(rec, r->c);
		return;
	}
	if (r->uw &&
	    (rec->type == TY_SAMPLER_REC_SAMPLE || rec->type == TY_SAMPLER_REC_SWITCH_SAMPLE) &&
	    rec->regs_abi)
		rec = unwind(r, rec, TY_UNWIND_REGS_MASK, 1);
	else if (r->o.unwind_log && rec->type == TY_SAMPLER_REC_SAMPLE)
		ty_record_diag_sample(&r->diag, rec, 0,
				      r->cg == TY_CG_DWARF ? TY_UNWIND_LOST : TY_UNWIND_COMPLETE, 0,
				      r->uw);
	else if (r->uw && (rec->type == TY_SAMPLER_REC_MMAP ||
			   (rec->type == TY_SAMPLER_REC_COMM && rec->exec)))
		ty_unwind_forget(r->uw);
	r->duty.sw += rec->type == TY_SAMPLER_REC_SWITCH && rec->out;
	r->duty.n += rec->type == TY_SAMPLER_REC_SWITCH_SAMPLE;
	ty_collector_record(rec, r->c);
}

/* A blocked thread's state read from /proc (record-peek.c): unwound as a
 * sample is, the chain of the interval it was read in. */
static void
on_peek(const struct ty_sampler_rec *rec, uint64_t mask, void *arg)
{
	struct ty_recorder *r = arg;

	ty_collector_peek(r->c, unwind(r, rec, mask, 1));
}

/* User space only, with -g: look at the threads off the CPU (every 10 ms). */
static void
peek_step(struct ty_recorder *r)
{
	if (!r->peeking || r->stop_ns)
		return;
	ty_record_peek_look(&r->peek, r->c, ty_clock_now_ns(), on_peek, r);
	if (r->peek.denied && !r->peek_said) {
		r->peek_said = 1;
		ty_record_warn(
		    r,
		    "cannot read the stacks of the command's blocked threads (%s): off-CPU "
		    "intervals keep the attribution said above",
		    strerror(-r->peek.denied));
	}
}

static int
drain(struct ty_recorder *r, struct ty_error *e)
{
	long ret;

	if (r->uw)
		ty_unwind_forget(r->uw); /* /proc may have been read since */
	if ((ret = ty_sampler_drain(r->s, on_record, r, e)) < 0)
		return (int)ret;
	if (r->track.lazy && r->track.nrr)
		ty_record_track_reread(&r->track);
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
 * have seen it). If the command is still there 0.9 s later, or a second
 * signal comes, kill it (and again every 0.9 s, should a process escape):
 * a signal ends a recording within a second. */
static void
stop_command(struct ty_recorder *r, const struct ty_record_stop *stop)
{
	struct ty_error err;
	uint64_t t = ty_clock_now_ns();

	if (!r->stop_ns) {
		ty_sampler_disable(r->s, &err);
		signal_command(r, stop->sig);
		r->stop_ns = t;
	} else if (stop->count > 1 || t - r->stop_ns > 900000000ull) {
		signal_command(r, SIGKILL);
		r->stop_ns = t;
	}
}

/* How long poll() may sleep: for the trackers, the mappings and the end,
 * and until the chains' next step. */
static int
poll_ms(const struct ty_recorder *r, int pidfd, int stopping)
{
	uint64_t t = ty_clock_now_ns();
	int ms;

	if (r->track.proc_maps || stopping)
		ms = 50;
	else if (r->track.lazy && ty_sampler_tracking(r->s))
		ms = t >= r->track.close_at ? 0 : (int)((r->track.close_at - t) / 1000000) + 1;
	else if (r->track.lazy)
		ms = 100; /* samples outside known mappings are looked up soon */
	else
		ms = pidfd >= 0 ? 1000 : 100;
	if (r->duty.hz && !r->stop_ns && !stopping) {
		int d = t >= r->duty.at ? 0 : (int)((r->duty.at - t + 999999) / 1000000);
		if (d < ms)
			ms = d;
	}
	if (r->peeking && !r->peek.denied && !r->stop_ns && !stopping) {
		int d = t >= r->peek.next_ns ? 0 : (int)((r->peek.next_ns - t + 999999) / 1000000);
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
	ty_record_warn(
	    r,
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
		return r->o.duration_ns && ty_clock_now_ns() - r->t0 >= r->o.duration_ns;
	if (r->o.duration_ns && ty_clock_now_ns() - r->t0 >= r->o.duration_ns)
		return 1; /* attached for --duration */
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
		nw = r->track.lazy ? ty_sampler_nwatch(r->s) : 0;
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
		if (r->track.lazy && (ret = ty_record_track_step(&r->track, e)) < 0)
			break;
		if ((ret = drain(r, e)) < 0)
			break;
		duty_step(r);
		peek_step(r);
		/* A ring whose task is gone hangs up: stop polling it, and stop
		 * when every ring has hung up. */
		for (i = 0, hup = 0; i < n; i++) {
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;
			hup += pfd[i].fd < 0;
		}
		if (hup == n && !r->child)
			done = 1;
		if (r->track.proc_maps && !done)
			ty_record_track_tick(&r->track);
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
	r->t1 = ty_clock_now_ns();
	if (ret < 0)
		return ret;
	ty_sampler_disable(r->s, e);
	if ((ret = drain(r, e)) < 0)
		return ret;
	/* -a with a command: its processes' samples, from the fork records
	 * kept (nothing of it in the drain) */
	if (r->o.system_wide && r->child)
		r->cmd_ok =
		    ty_collector_tree_samples(r->c, (uint32_t)r->child, &r->cmd_samples) == 0;
	return 0;
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
take_sampled(void *arg, long tid)
{
	struct ty_recorder *r = arg;
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
	int ret, i;

	r->pname = attached_name(r->o.pid);
	ty_record_track_each_thread(r->o.pid, take_sampled, r);
	if ((ret = ty_symbols_load_maps(r->syms, "/proc", (uint32_t)r->o.pid, 0, e)) < 0)
		return ret;
	if ((ret = ty_record_open_sampler(r, e)) < 0 || (ret = ty_sampler_enable(r->s, e)) < 0)
		return ret;
	/* Named again now that the events are on: a thread that exec'd
	 * between the listing and the opening (a shell's child, attached
	 * before its exec) has its new name, and any later exec a COMM
	 * record after this one. */
	for (i = 0; i < r->ntids; i++)
		name_thread(r, r->tids[i]);
	/* A thread created by one not yet sampled when it was listed
	 * inherited nothing. */
	ty_record_track_each_thread(r->o.pid, take_sampled, r);
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
		ty_record_warn(
		    r,
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
	r->track.lazy = r->o.maps == TY_MAPS_LAZY && r->o.off_cpu == TY_OFFCPU_NONE;
	r->track.proc_maps = r->o.maps == TY_MAPS_PROC;
	if ((pid = ty_spawn_create(&r->sp, so, e)) < 0)
		return (int)pid;
	r->child = r->track.child = pid;
	if ((ret = ty_record_open_sampler(r, e)) < 0 ||
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
	r->track.close_at = r->t0 + TY_RECORD_TRACK_CLOSE_NS;
	ty_spawn_go(&r->sp);
	return 0;
}

static int
system_start(struct ty_recorder *r, struct ty_error *e)
{
	int ret;

	r->o.maps = TY_MAPS_MMAP_RECORDS; /* every process's, all along */
	r->track.lazy = r->track.proc_maps = 0;
	if (r->o.argv && r->o.argv[0])
		return launch(r, &r->so, e);
	if ((ret = ty_record_open_sampler(r, e)) < 0)
		return ret;
	if ((ret = system_begin(r, e)) < 0)
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
	r->track.proc_maps = o->maps == TY_MAPS_PROC;
	r->track.syms = syms;
	r->track.pid = o->pid;
	r->track.warn = o->warn;
	r->track.warn_arg = o->warn_arg;
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
	if (o->no_names)
		ty_collector_no_names(r->c);
	r->track.c = r->c;
	ret = o->system_wide ? system_start(r, e) : o->pid ? attach(r, e) : launch(r, &r->so, e);
	if (ret < 0) {
		ty_record_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

/* How many words ARGV (NULL-terminated) has. */
static size_t
argv_count(char *const *argv)
{
	size_t n = 0;

	while (argv[n])
		n++;
	return n;
}

int
ty_record_finish(struct ty_recorder *r, struct ty_profile *p, struct ty_error *e)
{
	struct rusage self;
	size_t i;
	int ret;

	if ((ret = ty_collector_finish(r->c, p, e)) < 0)
		return ret;
	tails_roots(r);
	exec_grafts(r);
	if (r->o.unwind_log)
		ty_record_diag_report(&r->diag, r->o.unwind_log, r->syms, r->child, r->t0);
	p->meta.event = strdup(r->ename);
	p->meta.command = r->o.pid ? r->pname : ty_argv_join(r->o.argv, argv_count(r->o.argv));
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
	if (p->nsamples) /* after the workload, in tachy's own CPU below */
		ty_record_measure_sample(r, p->nsamples);
	p->meta.sample_cost_ps = (uint64_t)(r->sample_ns * 1000 + 0.5);
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
ty_record_command_samples(const struct ty_recorder *r, uint64_t *samples, uint64_t *cpu_ns)
{
	*samples = r->cmd_samples;
	*cpu_ns = (uint64_t)r->usage.user_ns + (uint64_t)r->usage.system_ns;
	return r->o.system_wide && r->child && r->reaped && r->cmd_ok;
}

const char *
ty_record_sample_cost_error(const struct ty_recorder *r)
{
	return r->sample_ns == 0 && r->sample_why.msg[0] ? r->sample_why.msg : NULL;
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
	struct ty_unwind_stats us = {0, 0, 0, 0, TY_STOP_END, 0};

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
	ty_record_peek_free(&r->peek);
	free(r->pname);
	free(r->limits);
	free(r->tids);
	free(r->tails);
	ty_record_track_release(&r->track);
	ty_record_diag_release(&r->diag);
	free(r);
}
