/* counters.c - perf_event_open counting groups (see counters.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tachy/counters.h"
#include "tachy/perfevent.h"
#include "tachy/runner.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

static int
k_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
       unsigned long flags)
{
	return ty_perfevent_open(attr, pid, cpu, group_fd, flags);
}

static int
k_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg) < 0 ? -errno : 0;
}

static long
k_read(void *ctx, int fd, void *buf, unsigned long size)
{
	ssize_t n = read(fd, buf, size);

	return n < 0 ? -errno : (long)n;
}

static int
k_close(void *ctx, int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

static int
k_paranoid(void *ctx)
{
	int level, ret = ty_perfevent_paranoid(&level);

	return ret < 0 ? ret : level;
}

const struct ty_counters_backend ty_counters_kernel = {
    k_open, k_ioctl, k_read, k_close, k_paranoid, NULL,
};

int
ty_counters_init(struct ty_counters *c, const struct ty_event_list *l,
		 const struct ty_counters_backend *be, struct ty_error *e)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->be = be ? *be : ty_counters_kernel;
	c->n = l->n;
	c->c = calloc(l->n ? l->n : 1, sizeof(*c->c));
	c->buf_len = 3 + l->n;
	c->buf = calloc(c->buf_len, sizeof(*c->buf));
	if (!c->c || !c->buf) {
		ty_counters_release(c);
		return ty_error_set(e, -ENOMEM, "out of memory for %zu counters", l->n);
	}
	for (i = 0; i < l->n; i++) {
		c->c[i].ev = l->ev[i];
		c->c[i].fd = -1;
		c->c[i].keeper = -1;
		c->c[i].leader = (int)i;
	}
	return 0;
}

void
ty_counters_release(struct ty_counters *c)
{
	size_t i;

	if (c->c)
		ty_counters_close(c);
	for (i = 0; i < c->n; i++)
		if (c->c[i].keeper >= 0)
			c->be.close(c->be.ctx, c->c[i].keeper);
	free(c->c);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

void
ty_counters_close(struct ty_counters *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->c[i].fd >= 0) {
			c->be.close(c->be.ctx, c->c[i].fd);
			c->c[i].fd = -1;
		}
}

static void
raise_note(struct ty_counters *c, unsigned note, const char *msg)
{
	if (c->notes & note)
		return;
	c->notes |= note;
	snprintf(c->note_msg, sizeof(c->note_msg), "%s", msg);
}

unsigned
ty_counters_note(struct ty_counters *c, const char **msg)
{
	unsigned fresh = c->notes & ~c->notes_told;
	unsigned note;

	if (!fresh)
		return 0;
	note = fresh & -fresh;
	c->notes_told |= note;
	if (msg)
		*msg = c->note_msg;
	return note;
}

/* "kernel.perf_event_paranoid is 3" or why it could not be read. */
static void
paranoid_text(struct ty_counters *c, char *buf, size_t len)
{
	int p = c->be.paranoid ? c->be.paranoid(c->be.ctx) : -ENOENT;

	if (p < 0 && p > -4096)
		snprintf(buf, len, "%s cannot be read (%s)", PARANOID_PATH, strerror(-p));
	else
		snprintf(buf, len, "kernel.perf_event_paranoid is %d", p);
}

static int
is_unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -ENXIO;
}

/* Where event I goes: the fd of the first open event of its group, or -1. */
static int
group_fd_for(struct ty_counters *c, size_t i)
{
	size_t j;

	c->c[i].leader = (int)i;
	if (!c->c[i].ev.group)
		return -1;
	for (j = 0; j < i; j++)
		if (c->c[j].ev.group == c->c[i].ev.group && c->c[j].fd >= 0) {
			c->c[i].leader = c->c[j].leader;
			return c->c[c->c[j].leader].fd;
		}
	return -1;
}

static void
make_attr(struct ty_counters *c, size_t i, int group_fd, struct perf_event_attr *a)
{
	const struct ty_event *ev = &c->c[i].ev;

	*a = ev->attr;
	a->size = sizeof(*a);
	a->inherit = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (ev->group)
		a->read_format |= PERF_FORMAT_GROUP;
	/* The leader starts at exec; members follow it. */
	a->disabled = group_fd < 0;
	a->enable_on_exec = group_fd < 0;
	if (c->user_only && !(ev->flags & TY_EVENT_PRIV_GIVEN)) {
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
	}
}

/* Handle a refused open of event I; returns 1 to retry it, 0 to go on,
 * or a negative code to stop. */
static int
refused(struct ty_counters *c, size_t i, int err, struct ty_error *e)
{
	struct ty_counter *k = &c->c[i];
	char why[160], msg[400];

	if (is_unsupported(err)) {
		k->state = TY_COUNTER_UNSUPPORTED;
		snprintf(k->msg, sizeof(k->msg), "not supported by this CPU or hypervisor");
		return 0;
	}
	if (err == -EACCES || err == -EPERM) {
		paranoid_text(c, why, sizeof(why));
		if (!c->user_only && !(k->ev.flags & TY_EVENT_PRIV_GIVEN)) {
			c->user_only = 1;
			snprintf(msg, sizeof(msg),
				 "kernel counting is not permitted (%s): counting user space only",
				 why);
			raise_note(c, TY_COUNTERS_NOTE_USER_ONLY, msg);
			return 1;
		}
		if (k->ev.flags & TY_EVENT_PRIV_GIVEN && !k->ev.attr.exclude_kernel) {
			k->state = TY_COUNTER_FAILED;
			snprintf(k->msg, sizeof(k->msg), "not permitted (%s)", why);
			return 0;
		}
		c->off = 1;
		c->notes_told |= c->notes & TY_COUNTERS_NOTE_USER_ONLY; /* moot now */
		snprintf(msg, sizeof(msg),
			 "counting is not permitted (%s; run as root or lower it with "
			 "'sysctl kernel.perf_event_paranoid=1'): counters are off",
			 why);
		raise_note(c, TY_COUNTERS_NOTE_NOT_PERMITTED, msg);
		return 0;
	}
	if (err == -ENOSYS) {
		c->off = 1;
		raise_note(c, TY_COUNTERS_NOTE_NOT_PERMITTED,
			   "this kernel has no perf_event_open (ENOSYS): counters are off");
		return 0;
	}
	if (err == -EMFILE || err == -ENFILE) {
		/* (also when an open left too few descriptors: crowded()) */
		/* each counter is a descriptor: the run goes on with those
		 * opened, the rest left out and said why */
		struct rlimit rl;

		k->state = TY_COUNTER_FAILED;
		if (err == -EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_cur != RLIM_INFINITY)
			snprintf(k->msg, sizeof(k->msg),
				 "cannot be opened: too many open files (the limit, ulimit -n, is "
				 "%llu: raise it, or --no-counters counts nothing)",
				 (unsigned long long)rl.rlim_cur);
		else
			snprintf(k->msg, sizeof(k->msg),
				 "cannot be opened: %s (raise the limit, or --no-counters counts "
				 "nothing)",
				 strerror(-err));
		return 0;
	}
	if (err == -ENOMEM || err == -ESRCH)
		return ty_error_set(e, err, "cannot open counter '%s': %s", k->ev.name,
				    strerror(-err));
	k->state = TY_COUNTER_FAILED;
	snprintf(k->msg, sizeof(k->msg), "cannot be opened: %s", strerror(-err));
	return 0;
}

int
ty_counters_user_only(const struct ty_counters *c, size_t i)
{
	const struct ty_counter *k = &c->c[i];

	if (k->ev.flags & TY_EVENT_PRIV_GIVEN)
		return k->ev.attr.exclude_kernel && !k->ev.attr.exclude_user;
	return c->user_only;
}

void
ty_counters_label(const struct ty_counters *c, size_t i, char *buf, size_t len)
{
	const struct ty_counter *k = &c->c[i];

	snprintf(buf, len, "%s%s", k->ev.name,
		 !(k->ev.flags & TY_EVENT_PRIV_GIVEN) && ty_counters_user_only(c, i) ? ":u" : "");
}

/* The first event of a kind turns a switch on in the kernel (a static
 * key: code is patched on every CPU), and closing the last one turns it
 * off again; in a virtual machine that costs ~30 us per event and per
 * run. A disabled copy of each event, opened once on ourselves and kept
 * until release, keeps the switches on: it never counts anything. */
/* Descriptors kept free for the runs themselves (their standard input
 * and output, a pipe, the spawner, the exports): counters are what gives
 * way under a low limit (ulimit -n), never the benchmark. */
#define FD_RESERVE 8

/* Whether FD, just opened, is among the last FD_RESERVE the limit allows. */
static int
crowded(int fd)
{
	struct rlimit rl;

	return fd >= 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	       (rlim_t)fd + FD_RESERVE >= rl.rlim_cur;
}

static void
keep(struct ty_counters *c, size_t i, const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr;
	int fd;

	a.disabled = 1;
	a.inherit = 0;
	a.enable_on_exec = 0;
	a.read_format = 0;
	fd = c->be.open(c->be.ctx, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (crowded(fd)) { /* the counters come first, their keepers after */
		c->be.close(c->be.ctx, fd);
		fd = -1;
	}
	c->c[i].keeper = fd >= 0 ? fd : -1;
}

int
ty_counters_open(struct ty_counters *c, pid_t pid, struct ty_error *e)
{
	struct perf_event_attr attr;
	size_t i;
	int opened = 0, ret;

	for (i = 0; i < c->n && !c->off; i++) {
		struct ty_counter *k = &c->c[i];
		int gfd, fd;

		if (k->state == TY_COUNTER_UNSUPPORTED || k->state == TY_COUNTER_FAILED)
			continue;
		do {
			gfd = group_fd_for(c, i);
			make_attr(c, i, gfd, &attr);
			fd = c->be.open(c->be.ctx, &attr, pid, -1, gfd, PERF_FLAG_FD_CLOEXEC);
			if (crowded(fd)) {
				c->be.close(c->be.ctx, fd);
				fd = -EMFILE;
			}
			ret = fd < 0 ? refused(c, i, fd, e) : 0;
		} while (ret == 1);
		if (ret < 0) {
			ty_counters_close(c);
			return ret;
		}
		if (fd >= 0) {
			if (k->state == TY_COUNTER_UNTRIED)
				keep(c, i, &attr);
			k->fd = fd;
			k->state = TY_COUNTER_OK;
			k->ev.attr = attr;
			opened++;
		}
	}
	if (c->off) {
		ty_counters_close(c);
		return 0;
	}
	return opened;
}

static int
read_fail(struct ty_counter *k, long got, struct ty_error *e)
{
	if (got < 0)
		return ty_error_set(e, (int)got, "cannot read counter '%s': %s", k->ev.name,
				    strerror((int)-got));
	return ty_error_set(e, -EIO, "cannot read counter '%s': short read", k->ev.name);
}

/* Read the group led by event L into V. */
static int
read_group(struct ty_counters *c, size_t l, struct ty_counter_value *v, struct ty_error *e)
{
	size_t j, idx = 0, want;
	long got;
	uint64_t nr;

	want = c->buf_len * sizeof(uint64_t);
	got = c->be.read(c->be.ctx, c->c[l].fd, c->buf, want);
	if (got < (long)(3 * sizeof(uint64_t)))
		return read_fail(&c->c[l], got, e);
	nr = c->buf[0];
	if (nr > c->n || (size_t)got < (3 + nr) * sizeof(uint64_t))
		return read_fail(&c->c[l], 0, e);
	for (j = l; j < c->n && idx < nr; j++) {
		if (c->c[j].fd < 0 || c->c[j].leader != (int)l)
			continue;
		v[j].enabled = c->buf[1];
		v[j].running = c->buf[2];
		v[j].count = c->buf[3 + idx++];
	}
	return 0;
}

int
ty_counters_read(struct ty_counters *c, struct ty_counter_value *v, struct ty_error *e)
{
	size_t i;
	long got;
	int ret;

	memset(v, 0, c->n * sizeof(*v));
	for (i = 0; i < c->n; i++) {
		struct ty_counter *k = &c->c[i];

		if (k->fd < 0 || k->leader != (int)i)
			continue;
		if (k->ev.group) {
			ret = read_group(c, i, v, e);
			if (ret < 0)
				return ret;
			continue;
		}
		got = c->be.read(c->be.ctx, k->fd, c->buf, 3 * sizeof(uint64_t));
		if (got != (long)(3 * sizeof(uint64_t)))
			return read_fail(k, got, e);
		v[i].count = c->buf[0];
		v[i].enabled = c->buf[1];
		v[i].running = c->buf[2];
	}
	return 0;
}

double
ty_counters_scale(const struct ty_counter_value *v, double *share)
{
	if (v->enabled == 0 || v->running == v->enabled) {
		if (share)
			*share = 1;
		return (double)v->count;
	}
	if (v->running == 0) {
		if (share)
			*share = 0;
		return 0;
	}
	if (share)
		*share = (double)v->running / (double)v->enabled;
	return (double)v->count * ((double)v->enabled / (double)v->running);
}

const char *
ty_counters_state_name(enum ty_counter_state s)
{
	switch (s) {
	case TY_COUNTER_UNTRIED:
		return "not tried";
	case TY_COUNTER_OK:
		return "ok";
	case TY_COUNTER_UNSUPPORTED:
		return "not supported";
	case TY_COUNTER_FAILED:
		return "failed";
	}
	return "?";
}

/* perf's words for the accesses of a cache (a miss ratio's unit). */
static const char *
cache_accesses(unsigned cache_id)
{
	static const char *const w[] = {"of all L1-dcache accesses",  "of all L1-icache accesses",
					"of all LL-cache accesses",   "of all dTLB cache accesses",
					"of all iTLB cache accesses", "of all branch accesses",
					"of all node accesses"};

	return (cache_id & 0xff) < 7 ? w[cache_id & 0xff] : "of all accesses";
}

/* Is event O the base of event EV's ratio? */
static int
ratio_base(const struct ty_event *ev, const struct ty_event *o)
{
	switch (ev->kind) {
	case TY_EVENT_INSTRUCTIONS:
		return o->kind == TY_EVENT_CYCLES;
	case TY_EVENT_BRANCH_MISSES:
		return o->kind == TY_EVENT_BRANCHES;
	case TY_EVENT_CACHE_MISSES:
		return o->kind == TY_EVENT_CACHE_REFERENCES;
	case TY_EVENT_CACHE_MISS:
		return o->kind == TY_EVENT_CACHE_ACCESS && o->cache_id == ev->cache_id;
	default:
		return 0;
	}
}

static int
ratio(const struct ty_event_list *l, const double *means, size_t i, struct ty_derived *d)
{
	const struct ty_event *ev = &l->ev[i];
	size_t j;

	for (j = 0; j < l->n; j++)
		if (ratio_base(ev, &l->ev[j]) && !isnan(means[j]) && means[j] > 0)
			break;
	if (j == l->n)
		return 0;
	if (ev->kind == TY_EVENT_INSTRUCTIONS) {
		d->value = means[i] / means[j];
		d->format = TY_DERIVED_IPC;
		snprintf(d->unit, sizeof(d->unit), "insn per cycle");
		return 1;
	}
	d->value = 100 * means[i] / means[j];
	d->format = TY_DERIVED_PCT;
	snprintf(d->unit, sizeof(d->unit), "%s",
		 ev->kind == TY_EVENT_BRANCH_MISSES  ? "of all branches"
		 : ev->kind == TY_EVENT_CACHE_MISSES ? "of all cache refs"
						     : cache_accesses(ev->cache_id));
	return 1;
}

int
ty_counters_derived(const struct ty_event_list *l, const double *means, double wall_ns, size_t i,
		    struct ty_derived *d)
{
	const struct ty_event *ev = &l->ev[i];
	double clk = NAN, rate;
	size_t j;

	if (i >= l->n || isnan(means[i]))
		return 0;
	for (j = 0; j < l->n && isnan(clk); j++)
		if (l->ev[j].kind == TY_EVENT_TASK_CLOCK && !isnan(means[j]))
			clk = means[j];
	d->format = TY_DERIVED_RATE;
	if (ev->kind == TY_EVENT_TASK_CLOCK) {
		if (!(wall_ns > 0))
			return 0;
		d->value = means[i] / wall_ns;
		snprintf(d->unit, sizeof(d->unit), "CPUs utilized");
		return 1;
	}
	if (ev->kind == TY_EVENT_CYCLES) {
		if (!(clk > 0))
			return 0;
		d->value = means[i] / clk;
		snprintf(d->unit, sizeof(d->unit), "GHz");
		return 1;
	}
	if (ratio(l, means, i, d))
		return 1;
	if (!(clk > 0))
		return 0;
	rate = 1e9 * means[i] / clk;
	snprintf(d->unit, sizeof(d->unit), "/sec");
	if (rate > 1e9)
		rate /= 1e9, snprintf(d->unit, sizeof(d->unit), "G/sec");
	else if (rate > 1e6)
		rate /= 1e6, snprintf(d->unit, sizeof(d->unit), "M/sec");
	else if (rate > 1e3)
		rate /= 1e3, snprintf(d->unit, sizeof(d->unit), "K/sec");
	d->value = rate;
	return 1;
}

int
ty_counters_derived_format(const struct ty_derived *d, char *buf, size_t len)
{
	switch (d->format) {
	case TY_DERIVED_IPC:
		return snprintf(buf, len, "%7.2f", d->value);
	case TY_DERIVED_PCT:
		return snprintf(buf, len, "%7.2f%%", d->value);
	default:
		return snprintf(buf, len, "%8.3f", d->value);
	}
}

/* ---- the per-run counting probe ---- */

int
ty_counters_probe_init(struct ty_counters_probe *p, const struct ty_event_list *l,
		       const struct ty_counters_backend *be, struct ty_error *e)
{
	size_t i, n = l->n;
	int ret;

	memset(p, 0, sizeof(*p));
	if ((ret = ty_counters_init(&p->set, l, be, e)) < 0)
		return ret;
	p->desc = calloc(n, sizeof(*p->desc));
	p->label = calloc(n, sizeof(*p->label));
	p->v = calloc(n, sizeof(*p->v));
	p->running_ns = calloc(n, sizeof(*p->running_ns));
	p->nread = calloc(n, sizeof(*p->nread));
	if (!p->desc || !p->label || !p->v || !p->running_ns || !p->nread)
		return ty_error_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const struct ty_event *ev = &l->ev[i];

		snprintf(p->label[i], sizeof(p->label[i]), "%s", ev->name);
		p->desc[i].name = p->label[i];
		p->desc[i].unit = ev->kind == TY_EVENT_TASK_CLOCK ? "ns" : "";
		p->desc[i].supported = 1;
		p->desc[i].running_share = 1;
		p->desc[i].lower_is_better = 1;
	}
	return 0;
}

void
ty_counters_probe_release(struct ty_counters_probe *p)
{
	ty_counters_release(&p->set);
	free(p->desc);
	free(p->label);
	free(p->v);
	free(p->running_ns);
	free(p->nread);
	memset(p, 0, sizeof(*p));
}

int
ty_counters_user_only_zero(const struct ty_counters *c, size_t i)
{
	return c->c[i].state == TY_COUNTER_OK && ty_counters_user_only(c, i) &&
	       ty_event_kernel_side(&c->c[i].ev);
}

static int
probe_attach(void *ctx, pid_t pid, struct ty_error *e)
{
	struct ty_counters_probe *p = ctx;
	int ret = ty_counters_open(&p->set, pid, e);
	size_t i;

	if (ret < 0)
		return ret;
	if (p->attached++ == 0) {
		for (i = 0; i < p->set.n; i++) {
			p->desc[i].supported = !p->set.off && p->set.c[i].state == TY_COUNTER_OK;
			if (p->set.off)
				continue;
			/* perf's label; perf stat's layouts print the kernel-side
			 * events as perf does (0), the report leaves them out */
			ty_counters_label(&p->set, i, p->label[i], sizeof(p->label[i]));
			p->desc[i].user_only = ty_counters_user_only(&p->set, i);
			if (ty_counters_user_only_zero(&p->set, i) && !p->keep_kernel_zero)
				p->desc[i].supported = 0;
		}
	}
	return 0;
}

static int
probe_collect(void *ctx, pid_t pid, double *values, struct ty_error *e)
{
	struct ty_counters_probe *p = ctx;
	size_t i;
	int ret = ty_counters_read(&p->set, p->v, e);

	for (i = 0; i < p->set.n; i++) {
		double share;

		values[i] = NAN;
		if (ret < 0 || p->set.c[i].fd < 0)
			continue;
		values[i] = ty_counters_scale(&p->v[i], &share);
		if (share == 0) {
			values[i] = NAN; /* never counted: not a zero */
			continue;
		}
		if (share < 1) {
			p->desc[i].scaled = 1;
			if (share < p->desc[i].running_share)
				p->desc[i].running_share = share;
		}
		p->running_ns[i] += (double)p->v[i].running;
		p->nread[i]++;
	}
	ty_counters_close(&p->set);
	return ret < 0 ? ret : 0;
}

static void
probe_detach(void *ctx, pid_t pid)
{
	struct ty_counters_probe *p = ctx;

	ty_counters_close(&p->set);
}

void
ty_counters_probe_get(struct ty_counters_probe *p, struct ty_probe *probe)
{
	memset(probe, 0, sizeof(*probe));
	probe->name = "counters";
	probe->ctx = p;
	probe->nvalues = p->set.n;
	probe->values = p->desc;
	probe->attach = probe_attach;
	probe->collect = probe_collect;
	probe->detach = probe_detach;
}

void
ty_counters_probe_finish(struct ty_counters_probe *p, struct ty_value_desc *d)
{
	size_t i;

	for (i = 0; i < p->set.n; i++) {
		d[i].supported = p->desc[i].supported && p->nread[i] > 0;
		d[i].scaled = p->desc[i].scaled;
		d[i].running_share = p->desc[i].running_share;
		p->desc[i].supported = d[i].supported;
	}
}
