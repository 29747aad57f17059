/* sampler.c - per-CPU perf_event sampling rings, drained in order (their
 * records are decoded by sampler-decode.c). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/perfevent.h"
#include "tachy/sampler.h"

struct ring {
	int fd, cpu;
	void *base; /* header page + data pages */
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	size_t size;		/* data bytes, a power of two */
	unsigned char *scratch; /* a record that wraps is copied here */
	size_t scratch_size;
	uint64_t meta; /* phased drains: other records handed over up to here */
};

struct tracked { /* a process with trackers of its own */
	pid_t pid;
	int *fds; /* one per ring, -1 where it could not be opened */
};

struct ty_sampler {
	int nrings;
	struct ring *rings;
	int *extra; /* events of other threads, writing into the rings */
	int nextra;
	size_t extracap;
	struct perf_event_attr attr; /* the sampling events' */
	size_t map_len;
	struct ty_sampler_layout layout;
	/* lazy_mmap */
	struct perf_event_attr track_attr; /* a tracker as ty_sampler_track_pid opens it */
	int *trk;			   /* the first trackers, one per ring; NULL: closed */
	struct ring *watch;		   /* watcher rings, one per ring */
	int nwatch;
	size_t watch_len;
	struct tracked *tp;
	int ntp;
	size_t tpcap;
	int lazy_err; /* why the trackers or watchers could not be opened */
	/* switch_samples: the context-switches events, one per ring and thread */
	struct perf_event_attr sw_attr;
	uint64_t *sw_ids; /* the ids of every event whose samples are switch-outs */
	int nswid;
	int *sw_fds, nsw;
	size_t swcap, swidcap;
	/* exec_probe_path: the uprobes at execve, one per ring */
	int *ex_fds, nex, ex_err;
	uint64_t *ex_ids;
	size_t excap, exidcap;
};

static long
perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return ty_perfevent_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

uint64_t
ty_sampler_max_rate(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long v = 0;

	if (!fp)
		return 0;
	if (fscanf(fp, "%llu", &v) != 1)
		v = 0;
	fclose(fp);
	return v;
}

static int
online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

static void
fill_attr(struct perf_event_attr *a, const struct ty_sampler_opts *o, unsigned pages)
{
	ty_perfevent_attr_init(a, o->type, o->config);
	a->config1 = o->config1;
	a->config2 = o->config2;
	a->freq = o->use_freq ? 1 : 0;
	a->sample_period = o->rate; /* union with sample_freq */
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	/* A fixed period is every sample's: with PERF_SAMPLE_PERIOD asked for,
	 * the kernel samples a software event or a tracepoint at every
	 * occurrence whatever the period (page-faults -c 100 gave a sample a
	 * fault); perf record leaves it out for -c too. The context-switches
	 * event beside (switch_samples) shares the layout and its period 1. */
	if (o->use_freq || o->switch_samples)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	if (o->callchain)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->regs_user && o->stack_user) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = o->regs_user;
		a->sample_stack_user = o->stack_user;
		a->exclude_callchain_user = 1; /* the user chain is unwound from the copy */
	}
	if (o->switch_samples || o->exec_probe_path) /* which event a sample is from */
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	a->context_switch = o->context_switch || o->switch_samples;
	a->disabled = 1;
	a->inherit = !o->system_wide; /* a CPU's event sees every task already */
	a->enable_on_exec = o->enable_on_exec && !o->system_wide ? 1 : 0;
	a->exclude_kernel = o->exclude_kernel ? 1 : 0;
	a->exclude_user = o->exclude_user ? 1 : 0;
	a->exclude_callchain_kernel = o->exclude_kernel ? 1 : 0;
	a->exclude_hv = 1;
	/* executable mappings only: mmap_data stays 0 */
	a->mmap = !o->no_mmap_records && !o->lazy_mmap;
	a->mmap2 = a->mmap;
	a->use_clockid = 1; /* times comparable with clock_gettime() */
	a->clockid = CLOCK_MONOTONIC;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->watermark = 1;
	a->wakeup_watermark =
	    (uint32_t)(pages * (size_t)getpagesize() / (o->wakeup_div ? o->wakeup_div : 2));
}

/* The context-switches event beside the sampling one: a sample at every
 * switch-out (period 1) while it is on (ty_sampler_switch_samples), its
 * call chain where the thread went to sleep. (Not a longer period: with
 * PERF_SAMPLE_PERIOD in sample_type the kernel samples a software event at
 * every occurrence whatever the period; the frequency mode's period, which
 * a new thread inherits from its parent, does not come back down for a
 * thread that switches rarely, and a fixed one aliases with a loop.) */
static void
switch_attr(struct perf_event_attr *a, const struct perf_event_attr *sampling, uint32_t stack_user)
{
	*a = *sampling;
	if (stack_user && a->sample_stack_user) /* the size is in each sample */
		a->sample_stack_user = stack_user;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a->freq = 0;
	a->sample_period = 1;
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 0;
	a->context_switch = 0; /* the sampling event carries the records */
}

static int
add_switch_id(struct ty_sampler *s, int fd)
{
	uint64_t id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	if (ty_array_grow(&s->sw_ids, sizeof(uint64_t), (size_t)s->nswid + 1, &s->swidcap) < 0)
		return -ENOMEM;
	s->sw_ids[s->nswid++] = id;
	return 0;
}

/* Open the context-switches event of thread or process PID on ring I,
 * writing into that ring, and learn its id. */
static int
open_switch(struct ty_sampler *s, const struct perf_event_attr *a, pid_t pid, int i)
{
	long fd;
	int err;

	if (ty_array_grow(&s->sw_fds, sizeof(int), (size_t)s->nsw + 1, &s->swcap) < 0)
		return -ENOMEM;
	if ((fd = perf_open((struct perf_event_attr *)a, pid, s->rings[i].cpu)) < 0)
		return -errno;
	s->sw_fds[s->nsw++] = (int)fd;
	if ((err = add_switch_id(s, (int)fd)) < 0)
		return err;
	if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[i].fd) < 0)
		return -errno;
	return 0;
}

static int
is_switch_sample(const struct ty_sampler *s, uint64_t id)
{
	int i;

	for (i = 0; i < s->nswid; i++)
		if (s->sw_ids[i] == id)
			return 1;
	return 0;
}

#define EXEC_PROBE_STACK 16384 /* bytes of user stack an exec probe's sample copies */

static int
is_exec_probe(const struct ty_sampler *s, uint64_t id)
{
	int i;

	for (i = 0; i < s->nex; i++)
		if (s->ex_ids[i] == id)
			return 1;
	return 0;
}

/* The exec probe of ring I: a uprobe at O's execve entry on every process
 * of the ring's CPU (not a task's: the uprobe PMU's events are not
 * inherited), sampled at every hit with the sampling events' layout and
 * written into the ring. */
static int
open_exec_probe(struct ty_sampler *s, const struct perf_event_attr *sampling,
		const struct ty_sampler_opts *o, int type, int i)
{
	struct perf_event_attr a = *sampling;
	long fd;

	if (type < 0)
		return -ENODEV;
	if (ty_array_grow(&s->ex_fds, sizeof(int), (size_t)s->nex + 1, &s->excap) < 0 ||
	    ty_array_grow(&s->ex_ids, sizeof(uint64_t), (size_t)s->nex + 1, &s->exidcap) < 0)
		return -ENOMEM;
	a.type = (uint32_t)type;
	a.config = 0; /* the entry, not the return */
	a.config1 = (uint64_t)(uintptr_t)o->exec_probe_path;
	a.config2 = o->exec_probe_offset;
	a.freq = 0;
	a.sample_period = 1;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = a.context_switch = 0;
	a.inherit = 0;
	a.enable_on_exec = 0;
	a.disabled = 0;			/* on every process from now: not a task's */
	a.exclude_callchain_kernel = 1; /* the probe's trap, not the caller's */
	/* Every process's execve writes into these rings, a copy each (those
	 * of processes not recorded are dropped): the stacks an exec is
	 * called from are shallow, and a copy at most this large keeps a busy
	 * machine's execs from filling them. */
	if (a.sample_stack_user > EXEC_PROBE_STACK)
		a.sample_stack_user = EXEC_PROBE_STACK;
	a.watermark = 0;
	a.wakeup_events = 0;
	if ((fd = perf_open(&a, -1, s->rings[i].cpu)) < 0)
		return -errno;
	s->ex_fds[s->nex] = (int)fd;
	if (ioctl((int)fd, PERF_EVENT_IOC_ID, &s->ex_ids[s->nex]) < 0 ||
	    ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[i].fd) < 0) {
		int err = -errno;
		close((int)fd);
		return err;
	}
	s->nex++;
	return 0;
}

/* Give up the exec probes (one could not be opened): the sampling goes on. */
static void
close_exec_probes(struct ty_sampler *s, int err)
{
	int i;

	for (i = 0; i < s->nex; i++)
		close(s->ex_fds[i]);
	s->nex = 0;
	s->ex_err = err;
}

int
ty_sampler_exec_probes(const struct ty_sampler *s)
{
	return s->ex_err ? s->ex_err : s->nex;
}

/* A dummy software event carrying only side-band records: MMAP (a
 * tracker) or FORK/EXIT/COMM (a watcher, waking its poller on every record). The
 * same sample_type as the sampling events, so one layout decodes them. */
static void
sideband_attr(struct perf_event_attr *a, const struct perf_event_attr *sampling, int watcher)
{
	ty_perfevent_attr_init(a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a->sample_period = 1;
	a->sample_type = sampling->sample_type;
	a->sample_regs_user = sampling->sample_regs_user;
	a->sample_stack_user = sampling->sample_stack_user;
	a->disabled = sampling->disabled;
	a->enable_on_exec = sampling->enable_on_exec;
	a->inherit = 1;
	a->exclude_kernel = sampling->exclude_kernel;
	a->exclude_hv = 1;
	a->use_clockid = 1;
	a->clockid = sampling->clockid;
	a->sample_id_all = 1;
	if (watcher) {
		a->task = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->watermark = 1;
		a->wakeup_watermark = 1; /* wake the poller on every record */
	} else {
		a->mmap = 1;
		a->mmap2 = 1;
	}
}

static int
map_ring(struct ring *r, size_t map_len, size_t page)
{
	r->base = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->pg = r->base;
	r->data = (unsigned char *)r->base + page;
	r->size = map_len - page;
	return 0;
}

static int
open_error(struct ty_error *e, int err, const struct ty_sampler_opts *o)
{
	const char *why = strerror(err);

	if (err == EACCES || err == EPERM)
		why = "permission denied (see /proc/sys/kernel/perf_event_paranoid, or run "
		      "with CAP_PERFMON)";
	else if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		why = "not supported by this CPU or hypervisor";
	else if (err == ESRCH)
		why = "no such process";
	else if (err == EINVAL && o->use_freq)
		why = "invalid argument (is -F above perf_event_max_sample_rate?)";
	return ty_error_set(e, -err, "cannot open sampling event (type %u, config %llu): %s",
			    o->type, (unsigned long long)o->config, why);
}

/* One more event per CPU for thread TID, redirected into that CPU's ring
 * (PERF_EVENT_IOC_SET_OUTPUT): one ring per CPU, whatever the number of
 * threads. -ESRCH when the thread is gone. */
static int
add_thread(struct ty_sampler *s, const struct perf_event_attr *a, pid_t tid)
{
	int i;

	for (i = 0; i < s->nrings; i++) {
		long fd;
		if (ty_array_grow(&s->extra, sizeof(int), (size_t)s->nextra + 1, &s->extracap) < 0)
			return -ENOMEM;
		if ((fd = perf_open((struct perf_event_attr *)a, tid, s->rings[i].cpu)) < 0)
			return -errno;
		s->extra[s->nextra++] = (int)fd;
		if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[i].fd) < 0)
			return -errno;
		if (s->nsw) {
			struct perf_event_attr sa = s->sw_attr;
			int err;
			sa.disabled = a->disabled;
			sa.enable_on_exec = a->enable_on_exec;
			if ((err = open_switch(s, &sa, tid, i)) < 0)
				return err;
		}
	}
	return 0;
}

/* The other threads O->tids of O->pid; one that is gone already is skipped. */
static int
add_threads(struct ty_sampler *s, const struct perf_event_attr *a, const struct ty_sampler_opts *o)
{
	int t, err;

	for (t = 0; t < o->ntids; t++)
		if (o->tids[t] != o->pid && (err = add_thread(s, a, o->tids[t])) < 0 &&
		    err != -ESRCH)
			return err;
	return 0;
}

int
ty_sampler_add_thread(struct ty_sampler *s, pid_t tid, struct ty_error *e)
{
	struct perf_event_attr a = s->attr;
	int err;

	a.disabled = 0; /* the others run already */
	a.enable_on_exec = 0;
	if ((err = add_thread(s, &a, tid)) < 0)
		return ty_error_set(e, err, "cannot sample thread %d: %s", (int)tid,
				    strerror(-err));
	return 0;
}

/* N trackers on PID, one per ring, each writing into its ring; FDS gets
 * -1 where a CPU refused (it went offline). */
static int
open_trackers(struct ty_sampler *s, const struct perf_event_attr *a, pid_t pid, int *fds)
{
	int i, err;

	for (i = 0; i < s->nrings; i++)
		fds[i] = -1;
	for (i = 0; i < s->nrings; i++) {
		long fd = perf_open((struct perf_event_attr *)a, pid, s->rings[i].cpu);
		if (fd < 0) {
			if (errno == ENODEV)
				continue;
			goto fail;
		}
		fds[i] = (int)fd;
		if (ioctl(fds[i], PERF_EVENT_IOC_SET_OUTPUT, s->rings[i].fd) < 0)
			goto fail;
	}
	return 0;
fail:
	err = -errno;
	for (i = 0; i < s->nrings; i++)
		if (fds[i] >= 0)
			close(fds[i]), fds[i] = -1;
	return err;
}

/* lazy_mmap: the first trackers and the watchers, on PID. */
static int
open_lazy(struct ty_sampler *s, const struct perf_event_attr *sampling, pid_t pid, size_t page)
{
	struct perf_event_attr w;
	int i, err;

	sideband_attr(&s->track_attr, sampling, 0);
	if (!(s->watch = calloc((size_t)s->nrings, sizeof(*s->watch))) ||
	    !(s->trk = malloc((size_t)s->nrings * sizeof(int))))
		return -ENOMEM;
	if ((err = open_trackers(s, &s->track_attr, pid, s->trk)) < 0) {
		free(s->trk);
		s->trk = NULL;
		return err;
	}
	/* Later trackers start at once: their process runs already. */
	s->track_attr.disabled = 0;
	s->track_attr.enable_on_exec = 0;
	sideband_attr(&w, sampling, 1);
	s->watch_len = 9 * page; /* FORK/EXIT records are 56 bytes */
	for (i = 0; i < s->nrings; i++) {
		struct ring *r = &s->watch[s->nwatch];
		long fd = perf_open(&w, pid, s->rings[i].cpu);
		if (fd < 0)
			return -errno;
		r->fd = (int)fd;
		r->cpu = s->rings[i].cpu;
		s->nwatch++;
		if ((err = map_ring(r, s->watch_len, page)) < 0)
			return err;
	}
	return 0;
}

int
ty_sampler_open(struct ty_sampler **out, const struct ty_sampler_opts *o, struct ty_error *e)
{
	struct ty_sampler *s;
	struct perf_event_attr a;
	unsigned pages = o->mmap_pages ? o->mmap_pages : 128;
	size_t page = (size_t)getpagesize();
	int ncpu = online_cpus(), i, err;
	int uprobe = o->exec_probe_path ? ty_perfevent_pmu_type("uprobe") : -1;
	pid_t pid = o->system_wide ? -1 : o->pid;

	*out = NULL;
	if (pages & (pages - 1))
		return ty_error_set(e, -EINVAL, "ring size %u pages is not a power of two", pages);
	s = calloc(1, sizeof(*s));
	if (o->system_wide && o->cpus && o->ncpus > ncpu)
		ncpu = o->ncpus;
	if (!s || !(s->rings = calloc((size_t)ncpu, sizeof(*s->rings)))) {
		free(s);
		return ty_error_set(e, -ENOMEM, "cannot open sampler: out of memory");
	}
	fill_attr(&a, o, pages);
	s->attr = a;
	s->layout.sample_type = a.sample_type;
	s->layout.regs_user = a.sample_regs_user;
	s->layout.sample_id_all = 1;
	s->layout.period = a.sample_type & PERF_SAMPLE_PERIOD ? 0 : o->rate;
	s->map_len = (pages + 1) * page;
	if (o->system_wide && o->cpus)
		ncpu = o->ncpus;
	for (i = 0; i < ncpu; i++) {
		struct ring *r = &s->rings[s->nrings];
		int cpu = o->system_wide && o->cpus ? o->cpus[i] : i;
		long fd = perf_open(&a, pid, cpu);

		if (fd < 0) {
			err = errno;
			if ((err == ENODEV || err == EINVAL) && !(o->system_wide && o->cpus))
				if (s->nrings > 0 || i + 1 < ncpu) /* offline CPU */
					continue;
			ty_sampler_free(s);
			if (o->system_wide && o->cpus && err == ENODEV)
				return ty_error_set(e, -ENODEV, "CPU %d is offline", cpu);
			return open_error(e, err, o);
		}
		r->fd = (int)fd;
		r->cpu = cpu;
		s->nrings++;
		if ((err = map_ring(r, s->map_len, page)) < 0) {
			size_t kib = s->map_len / 1024;

			ty_sampler_free(s);
			return ty_error_set(e, err,
					    "cannot map a %zu KiB sample buffer for CPU %d: %s "
					    "(see /proc/sys/kernel/perf_event_mlock_kb)",
					    kib, cpu, strerror(-err));
		}
		if (o->switch_samples) {
			switch_attr(&s->sw_attr, &a, o->switch_stack_user);
			if ((err = open_switch(s, &s->sw_attr, pid, s->nrings - 1)) < 0) {
				ty_sampler_free(s);
				return ty_error_set(e, err, "cannot sample context switches: %s",
						    strerror(-err));
			}
		}
		if (o->exec_probe_path && !s->ex_err &&
		    (err = open_exec_probe(s, &a, o, uprobe, s->nrings - 1)) < 0)
			close_exec_probes(s, err);
	}
	if (!o->system_wide && o->ntids > 0 && (err = add_threads(s, &a, o)) < 0) {
		ty_sampler_free(s);
		return open_error(e, -err, o);
	}
	if (o->lazy_mmap && !o->system_wide && s->nrings > 0 &&
	    (err = open_lazy(s, &a, o->pid, page)) < 0) {
		/* Sampling works without them: the caller reads /proc instead. */
		ty_sampler_track_stop(s);
		ty_sampler_watch_stop(s);
		s->lazy_err = err;
	}
	if (s->nrings == 0) {
		ty_sampler_free(s);
		return ty_error_set(e, -ENODEV, "cannot open sampling event: no CPU online");
	}
	*out = s;
	return 0;
}

/* Close the trackers FDS (one per ring, -1 where none) and free them. */
static void
close_trackers(const struct ty_sampler *s, int *fds)
{
	int i;

	for (i = 0; fds && i < s->nrings; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}

void
ty_sampler_track_stop(struct ty_sampler *s)
{
	close_trackers(s, s->trk);
	s->trk = NULL;
}

int
ty_sampler_lazy_error(const struct ty_sampler *s)
{
	return s->lazy_err;
}

int
ty_sampler_tracking(const struct ty_sampler *s)
{
	return s->trk != NULL;
}

int
ty_sampler_track_pid(struct ty_sampler *s, pid_t pid, struct ty_error *e)
{
	struct tracked *t;
	int err;

	if (ty_array_grow(&s->tp, sizeof(*s->tp), (size_t)s->ntp + 1, &s->tpcap) < 0)
		return ty_error_set(e, -ENOMEM, "out of memory");
	t = &s->tp[s->ntp];
	t->pid = pid;
	if (!(t->fds = malloc((size_t)s->nrings * sizeof(int))))
		return ty_error_set(e, -ENOMEM, "out of memory");
	if ((err = open_trackers(s, &s->track_attr, pid, t->fds)) < 0) {
		free(t->fds);
		return ty_error_set(e, err, "cannot track the mappings of process %d: %s", (int)pid,
				    strerror(-err));
	}
	s->ntp++;
	return 0;
}

void
ty_sampler_untrack_pid(struct ty_sampler *s, pid_t pid)
{
	int i;

	for (i = 0; i < s->ntp; i++) {
		if (s->tp[i].pid != pid)
			continue;
		close_trackers(s, s->tp[i].fds);
		s->tp[i--] = s->tp[--s->ntp];
	}
}

int
ty_sampler_nwatch(const struct ty_sampler *s)
{
	return s->nwatch;
}

int
ty_sampler_watch_fd(const struct ty_sampler *s, int i)
{
	return s->watch[i].fd;
}

/* Unmap and close N rings of LEN bytes, and free the array. */
static void
close_rings(struct ring *rings, int n, size_t len)
{
	int i;

	for (i = 0; i < n; i++) {
		if (rings[i].base)
			munmap(rings[i].base, len);
		close(rings[i].fd);
		free(rings[i].scratch);
	}
	free(rings);
}

void
ty_sampler_watch_stop(struct ty_sampler *s)
{
	close_rings(s->watch, s->nwatch, s->watch_len);
	s->watch = NULL;
	s->nwatch = 0;
}

static int
ioctl_all(struct ty_sampler *s, unsigned long req, const char *what, struct ty_error *e)
{
	int i;

	for (i = 0; i < s->nrings + s->nextra; i++)
		if (ioctl(i < s->nrings ? s->rings[i].fd : s->extra[i - s->nrings], req, 0) < 0)
			return ty_error_set(e, -errno, "cannot %s sampling: %s", what,
					    strerror(errno));
	for (i = 0; i < s->nsw; i++)
		if (ioctl(s->sw_fds[i], req, 0) < 0)
			return ty_error_set(e, -errno, "cannot %s sampling: %s", what,
					    strerror(errno));
	for (i = 0; i < s->nex; i++) /* on from the start; stopped with the rest */
		ioctl(s->ex_fds[i], req, 0);
	return 0;
}

int
ty_sampler_enable(struct ty_sampler *s, struct ty_error *e)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE, "enable", e);
}

int
ty_sampler_disable(struct ty_sampler *s, struct ty_error *e)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE, "disable", e);
}

int
ty_sampler_switch_samples(struct ty_sampler *s, int on)
{
	int i, err = 0;

	for (i = 0; i < s->nsw; i++) /* the kernel applies it to every inherited copy */
		if (ioctl(s->sw_fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) <
			0 &&
		    !err)
			err = -errno;
	return err;
}

int
ty_sampler_nswitch(const struct ty_sampler *s)
{
	return s->nsw;
}

int
ty_sampler_nrings(const struct ty_sampler *s)
{
	return s->nrings;
}

int
ty_sampler_fd(const struct ty_sampler *s, int i)
{
	return s->rings[i].fd;
}

const struct ty_sampler_layout *
ty_sampler_layout(const struct ty_sampler *s)
{
	return &s->layout;
}

/* Is a record of TYPE handed over with the samples (phase 2)? The switch
 * records are: the collector pairs a context-switch sample with the
 * switch-out the kernel writes right after it. */
static int
in_order(uint32_t type)
{
	return type == PERF_RECORD_SAMPLE || type == PERF_RECORD_SWITCH ||
	       type == PERF_RECORD_SWITCH_CPU_WIDE;
}

/* Decode and hand over the records between tail and HEAD of one ring; S
 * (may be NULL) tells the context-switches event's samples apart. PHASE 0:
 * every record, then the tail moves to HEAD; 1: all but samples and switch
 * records from where the last phase 1 stopped, the tail stays; 2: only
 * those, then the tail moves. */
static long
drain_ring(const struct ty_sampler *s, struct ring *r, const struct ty_sampler_layout *l,
	   uint64_t head, int phase, ty_sampler_rec_fn fn, void *arg, struct ty_error *e)
{
	uint64_t tail = r->pg->data_tail;
	size_t mask = r->size - 1;
	long n = 0;
	struct ty_sampler_rec rec;

	if (phase == 1 && r->meta > tail)
		tail = r->meta;
	while (tail < head) {
		size_t off = (size_t)tail & mask;
		struct perf_event_header h;
		unsigned char *p;

		if (off + sizeof(h) <= r->size) {
			memcpy(&h, r->data + off, sizeof(h));
		} else {
			size_t first = r->size - off;
			memcpy(&h, r->data + off, first);
			memcpy((unsigned char *)&h + first, r->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail) {
			__atomic_store_n(&r->pg->data_tail, head, __ATOMIC_RELEASE);
			return ty_error_set(e, -EIO, "corrupt sample buffer: record of %u bytes",
					    h.size);
		}
		if (phase == 1 ? in_order(h.type)
			       : !in_order(h.type) && (phase == 2 || tail < r->meta)) {
			tail += h.size;
			continue;
		}
		/* A record that wraps around the end is copied first. */
		if (off + h.size <= r->size) {
			p = r->data + off;
		} else {
			size_t first = r->size - off;
			if (!r->scratch) { /* records are at most 64 KiB */
				if (!(r->scratch = malloc(65536)))
					return ty_error_set(e, -ENOMEM, "out of memory");
				r->scratch_size = 65536;
			}
			memcpy(r->scratch, r->data + off, first);
			memcpy(r->scratch + first, r->data, h.size - first);
			p = r->scratch;
		}
		if (ty_sampler_decode(p, h.size, l, &rec) == 0 &&
		    rec.type != TY_SAMPLER_REC_OTHER) {
			if (rec.type == TY_SAMPLER_REC_SAMPLE && s && s->nswid &&
			    is_switch_sample(s, rec.id))
				rec.type = TY_SAMPLER_REC_SWITCH_SAMPLE;
			else if (rec.type == TY_SAMPLER_REC_SAMPLE && s && s->nex &&
				 is_exec_probe(s, rec.id))
				rec.type = TY_SAMPLER_REC_EXEC_ENTRY;
			fn(&rec, arg);
		}
		tail += h.size;
		n++;
	}
	if (phase == 1)
		r->meta = tail;
	else
		__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/* The rings hold what each CPU saw in order, but not in order between
 * them: a child's first sample may be in one ring and its fork, its exec
 * or the mmap of its libraries in another. So the samples up to the heads
 * read first (with the switch records between them) go after every other
 * record of all the rings up to their heads read again after those:
 * whatever came before a sample is then known (its mappings looked up by
 * its time), and the samples' stack copies are read in place, never
 * copied. */
static long
drain_rings(const struct ty_sampler *s, struct ring *rings, int n,
	    const struct ty_sampler_layout *l, int phased, ty_sampler_rec_fn fn, void *arg,
	    struct ty_error *e)
{
	uint64_t heads[64], *hv = heads;
	long total = 0, k;
	int i, ph;

	if (phased && n > 64 && !(hv = malloc((size_t)n * sizeof(*hv))))
		phased = 0;
	for (i = 0; phased && i < n; i++)
		hv[i] = __atomic_load_n(&rings[i].pg->data_head, __ATOMIC_ACQUIRE);
	for (ph = phased ? 1 : 0; ph <= (phased ? 2 : 0); ph++)
		for (i = 0; i < n; i++) {
			uint64_t head =
			    ph == 2 ? hv[i]
				    : __atomic_load_n(&rings[i].pg->data_head, __ATOMIC_ACQUIRE);
			if ((k = drain_ring(s, &rings[i], l, head, ph, fn, arg, e)) < 0) {
				if (hv != heads)
					free(hv);
				return k;
			}
			total += k;
		}
	if (hv != heads)
		free(hv);
	return total;
}

long
ty_sampler_drain(struct ty_sampler *s, ty_sampler_rec_fn fn, void *arg, struct ty_error *e)
{
	return drain_rings(s, s->rings, s->nrings, &s->layout, 1, fn, arg, e);
}

long
ty_sampler_drain_watch(struct ty_sampler *s, ty_sampler_rec_fn fn, void *arg, struct ty_error *e)
{
	return drain_rings(NULL, s->watch, s->nwatch, &s->layout, 0, fn, arg, e);
}

void
ty_sampler_free(struct ty_sampler *s)
{
	int i;

	if (!s)
		return;
	ty_sampler_track_stop(s);
	ty_sampler_watch_stop(s);
	while (s->ntp > 0)
		ty_sampler_untrack_pid(s, s->tp[0].pid);
	free(s->tp);
	close_rings(s->rings, s->nrings, s->map_len);
	for (i = 0; i < s->nextra; i++)
		close(s->extra[i]);
	free(s->extra);
	for (i = 0; i < s->nsw; i++)
		close(s->sw_fds[i]);
	free(s->sw_fds);
	free(s->sw_ids);
	close_exec_probes(s, 0);
	free(s->ex_fds);
	free(s->ex_ids);
	free(s);
}

int
ty_sampler_paranoid(void)
{
	int level;

	return ty_perfevent_paranoid(&level) < 0 ? 2 : level;
}
