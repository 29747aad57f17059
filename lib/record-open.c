/* record-open.c - the sampler opened for a recording, with its
 * fallbacks: ring sizes, user space only, cpu-clock (record-open.h). */
#include <errno.h>
#include <link.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tachy/clock.h"
#include "tachy/duty.h"
#include "tachy/record-peek.h"
#include "tachy/record.h"
#include "tachy/sample-cost.h"
#include "tachy/sampler.h"
#include "tachy/unwind.h"

#include "record-open.h"

#define DUTY_MAX_FDS 256 /* events turned on and off at most */

struct site {
	uintptr_t addr; /* execve in this process */
	char path[4096];
	uint64_t offset;
	int found;
};

/* The file and file offset of the segment of one loaded object that holds
 * S->addr, for a uprobe there. */
static int
site_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct site *s = arg;
	int i;

	(void)size;
	if (!info->dlpi_name || info->dlpi_name[0] != '/')
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || s->addr < lo ||
		    s->addr - lo >= ph->p_filesz)
			continue;
		if ((size_t)snprintf(s->path, sizeof(s->path), "%s", info->dlpi_name) >=
		    sizeof(s->path))
			return 0;
		s->offset = ph->p_offset + (s->addr - lo);
		s->found = 1;
		return 1;
	}
	return 0;
}

/* The exec probe (sampler.h): a uprobe at the execve of the C library
 * this process uses, the one the programs of a machine use, found in
 * memory (no file is read). Only with call chains of samples that can
 * land in the kernel, where exec windows are. */
static void
exec_probe(struct ty_recorder *r, struct ty_sampler_opts *so)
{
	static struct site s;

	so->exec_probe_path = NULL;
	if (r->cg == TY_CG_NONE || so->exclude_kernel || so->exclude_user ||
	    r->o.off_cpu == TY_OFFCPU_ONLY || getenv("TACHY_NO_EXEC_PROBE"))
		return;
	if (!s.found) {
		s.addr = (uintptr_t)&execve;
		dl_iterate_phdr(site_of, &s);
	}
	if (s.found) {
		so->exec_probe_path = s.path;
		so->exec_probe_offset = s.offset;
	}
}

/* User space only: the context-switch event samples in the kernel, so it
 * gives no sample at all; the switch records still come. Say so, once. */
static void
off_cpu_limits(struct ty_recorder *r)
{
	char why[128];
	const char *to;

	if (r->kernel_refused)
		snprintf(why, sizeof(why),
			 "perf_event_paranoid is %d here, and tachy has no CAP_PERFMON",
			 ty_sampler_paranoid());
	else
		snprintf(why, sizeof(why), "%s", "user space only was asked for");
	if (r->peeking) /* chains read from /proc while the waits last */
		to = r->o.off_cpu == TY_OFFCPU_WALL
			 ? "; the call chain of a wait seen while it lasted (some 10 ms or more) "
			   "was read from /proc and the thread's stack, the other intervals took "
			   "one of their thread's, else their last on-CPU sample before them;"
			 : "; the call chain of a wait seen while it lasted (some 10 ms or more) "
			   "was read from /proc and the thread's stack, the other intervals took "
			   "one of their thread's, else no function;";
	else
		to = r->o.off_cpu == TY_OFFCPU_WALL
			 ? ", but each interval is attributed to the thread's last on-CPU sample "
			   "before it (not the call where it blocked), and"
			 : ", but each interval is attributed to no function (add on-CPU samples "
			   "with --wall to attribute it), and";
	free(r->limits);
	if (asprintf(&r->limits,
		     "%s: the kernel gives no call chain at a switch-out in user-space-only mode. "
		     "Off-CPU time per thread is exact (from the kernel's switch records)%s "
		     "sleeping, I/O and lock waits are not told apart (\"blocked\"); preemption "
		     "is (\"runnable\")",
		     why, to) < 0)
		r->limits = NULL;
	else
		ty_record_warn(r, "%s", r->limits);
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

int
ty_record_open_sampler(struct ty_recorder *r, struct ty_error *err)
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
	so.no_mmap_records = r->track.proc_maps;
	so.lazy_mmap = r->track.lazy;
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
		exec_probe(r, &so);
		ret = ty_sampler_open(&r->s, &so, err);
		r->pages = so.mmap_pages ? so.mmap_pages : 128;
		if (ret == 0 && r->track.lazy && !r->o.mmap_pages && so.mmap_pages > 128 &&
		    (ty_sampler_lazy_error(r->s) == -EPERM ||
		     ty_sampler_lazy_error(r->s) == -ENOMEM)) {
			/* The rings fit the user's locked-memory limit but left
			 * no room for the mapping watchers: smaller rings rather
			 * than maps read every 50 ms (which misses the libraries
			 * of a process that execs and ends between two reads). */
			ty_sampler_free(r->s);
			r->s = NULL;
			fit_rings(r, &so, so.mmap_pages / 2, page);
			continue;
		}
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
		if ((ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV) &&
		    (!explicit_ev || r->o.fallback) && r->ev.attr.type != PERF_TYPE_SOFTWARE) {
			ty_event_parse("cpu-clock", &r->ev, err);
			r->fell_back = 1;
			continue;
		}
		{
			char msg[TY_ERROR_MAX];
			int missing = ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV;
			snprintf(msg, sizeof(msg), "%s", err->msg);
			/* what the machine has instead: the kernel's clocks are
			 * always there */
			ty_error_set(err, ret == -ENOENT ? -ENODEV : ret, "event '%s': %s%s",
				     r->ev.name, msg,
				     missing && r->ev.attr.type != PERF_TYPE_SOFTWARE
					 ? "; this machine has cpu-clock (and task-clock): -e "
					   "cpu-clock, or --fallback to use it where an event is "
					   "missing"
					 : "");
		}
		return ret == -ENOENT ? -ENODEV : ret;
	}
	snprintf(r->ename, sizeof(r->ename), "%s",
		 r->o.off_cpu == TY_OFFCPU_ONLY ? "context-switches" : r->ev.name);
	if (r->o.off_cpu != TY_OFFCPU_NONE && r->exclude_kernel && r->uw && !r->o.system_wide) {
		/* no chain from the kernel at a switch-out: read the blocked
		 * threads' from /proc, at the rate the chains keep */
		if (ty_record_peek_init(&r->peek, switch_hz(r), r->sw_stack_size,
					ty_clock_now_ns()) < 0)
			return ty_error_set(err, -ENOMEM, "out of memory");
		r->peeking = 1;
	}
	if (r->o.off_cpu != TY_OFFCPU_NONE && r->exclude_kernel)
		off_cpu_limits(r);
	hz = so.switch_samples && !r->exclude_kernel ? switch_hz(r) : 0;
	if (hz && ty_sampler_nswitch(r->s) > DUTY_MAX_FDS) {
		/* attached to a process of many threads: each turn would be
		 * an ioctl per thread and CPU */
		ty_record_warn(
		    r,
		    "%d context-switch events (a thread per CPU) are too many to turn on and "
		    "off: a call chain at every switch-out (as --off-cpu-chains all)",
		    ty_sampler_nswitch(r->s));
		hz = 0;
	}
	t = ty_clock_now_ns();
	ty_duty_init(&r->duty, hz, t, t ^ ((uint64_t)getpid() << 32));
	r->track.s = r->s;
	if (r->track.lazy && (ret = ty_sampler_lazy_error(r->s)) < 0) {
		ty_record_warn(r,
			       "cannot open the mapping trackers (%s): reading /proc/PID/maps "
			       "every 50 ms instead (see --proc-maps)",
			       strerror(-ret));
		r->track.lazy = 0;
		r->track.proc_maps = 1;
	}
	return 0;
}

/* The kernel's work per sample, with the recording's event and what its
 * samples hold (not with off-CPU records: theirs is per switch), after the
 * recording and only where it took samples: a recording without any (a
 * short command) pays nothing for it, and the workload never runs beside
 * the calibration. Not measured: 0, nothing stated. */
void
ty_record_measure_sample(struct ty_recorder *r, uint64_t samples)
{
	struct ty_sample_cost_opts so = {0};
	int tries;

	so.samples = samples;
	if (r->o.off_cpu != TY_OFFCPU_NONE)
		return;
	so.type = r->ev.attr.type;
	so.config = r->ev.attr.config;
	so.exclude_kernel = r->exclude_kernel;
	so.callchain = r->cg != TY_CG_NONE;
	if (r->cg == TY_CG_DWARF) {
		so.regs_user = TY_UNWIND_REGS_MASK;
		so.stack_user = r->stack_size;
	}
	/* a round that took no sample (the rate the kernel allows lowered
	 * under load) is tried again: three tries, then the reason is kept */
	for (tries = 0; tries < 3; tries++) {
		ty_error_clear(&r->sample_why);
		if (ty_sample_cost(&so, &r->sample_ns, &r->sample_why) == 0)
			return;
	}
	r->sample_ns = 0;
}
