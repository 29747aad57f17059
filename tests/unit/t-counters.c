/* t-counters.c - counting on simulated machines (and once on this one). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "tachy/counters.h"
#include "tachy/runner.h"

#define MAXFD 64

/* A simulated kernel. */
struct fake {
	int has_pmu;		   /* hardware events exist */
	int hw_errno;		   /* what opening a missing hardware event gives */
	int paranoid;		   /* value of the sysctl */
	int kernel_denied;	   /* EACCES unless exclude_kernel */
	int all_denied;		   /* EACCES always */
	uint64_t enabled, running; /* times reported by read */
	int opens, reads, closes;
	int open_fds;
	struct {
		struct perf_event_attr attr;
		int group_fd;
		pid_t pid;
		int used;
		uint64_t count;
		int members[8], nmembers;
	} fd[MAXFD];
};

static int
f_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
       unsigned long flags)
{
	struct fake *f = ctx;
	int fd;

	f->opens++;
	if (f->all_denied)
		return -EACCES;
	if (f->kernel_denied && !attr->exclude_kernel)
		return -EACCES;
	if ((attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE ||
	     attr->type == PERF_TYPE_RAW) &&
	    !f->has_pmu)
		return -f->hw_errno;
	if (group_fd >= 0 && (group_fd >= MAXFD || !f->fd[group_fd].used))
		return -EBADF;
	for (fd = 3; fd < MAXFD && f->fd[fd].used; fd++)
		;
	if (fd == MAXFD)
		return -EMFILE;
	f->fd[fd].used = 1;
	f->fd[fd].attr = *attr;
	f->fd[fd].group_fd = group_fd;
	f->fd[fd].pid = pid;
	f->fd[fd].count = 1000 * (attr->type + 1) + attr->config; /* recognisable */
	f->fd[fd].nmembers = 0;
	if (group_fd >= 0)
		f->fd[group_fd].members[f->fd[group_fd].nmembers++] = fd;
	f->open_fds++;
	return fd;
}

static int
f_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
	return 0;
}

static long
f_read(void *ctx, int fd, void *buf, unsigned long size)
{
	struct fake *f = ctx;
	uint64_t *v = buf;
	int i;

	f->reads++;
	if (fd < 0 || fd >= MAXFD || !f->fd[fd].used)
		return -EBADF;
	if (f->fd[fd].attr.read_format & PERF_FORMAT_GROUP) {
		int nr = 1 + f->fd[fd].nmembers;

		if (size < (3 + (unsigned long)nr) * 8)
			return -ENOSPC;
		v[0] = (uint64_t)nr;
		v[1] = f->enabled;
		v[2] = f->running;
		v[3] = f->fd[fd].count;
		for (i = 0; i < f->fd[fd].nmembers; i++)
			v[4 + i] = f->fd[f->fd[fd].members[i]].count;
		return (3 + nr) * 8;
	}
	if (size < 24)
		return -ENOSPC;
	v[0] = f->fd[fd].count;
	v[1] = f->enabled;
	v[2] = f->running;
	return 24;
}

static int
f_close(void *ctx, int fd)
{
	struct fake *f = ctx;

	f->closes++;
	if (fd < 0 || fd >= MAXFD || !f->fd[fd].used)
		return -EBADF;
	f->fd[fd].used = 0;
	f->open_fds--;
	return 0;
}

static int
f_paranoid(void *ctx)
{
	return ((struct fake *)ctx)->paranoid;
}

static struct ty_counters_backend
backend(struct fake *f)
{
	struct ty_counters_backend be = {f_open, f_ioctl, f_read, f_close, f_paranoid, f};

	return be;
}

static void
defaults(struct ty_event_list *l)
{
	struct ty_error e;

	ty_event_list_init(l);
	ty_event_list_add_defaults(l, &e);
}

static void
with_pmu(void)
{
	struct fake f = {.has_pmu = 1, .enabled = 5000, .running = 5000};
	struct ty_counters_backend be = backend(&f);
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_counter_value v[10];
	struct ty_error e;
	int cyc, ins;
	double share;

	defaults(&l);
	CHECK_INT(ty_counters_init(&c, &l, &be, &e), 0);
	CHECK_INT(ty_counters_open(&c, 1234, &e), 10);
	cyc = ty_event_list_find(&l, "cycles");
	ins = ty_event_list_find(&l, "instructions");
	/* the attr: inherit, leader disabled until exec, member follows it */
	CHECK_INT(f.fd[c.c[0].fd].attr.inherit, 1);
	CHECK_INT(f.fd[c.c[0].fd].attr.disabled, 1);
	CHECK_INT(f.fd[c.c[0].fd].attr.enable_on_exec, 1);
	CHECK_INT(f.fd[c.c[0].fd].attr.exclude_kernel, 0);
	CHECK_INT(f.fd[c.c[0].fd].attr.read_format,
		  PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	CHECK_INT(f.fd[c.c[ins].fd].group_fd, c.c[cyc].fd);
	CHECK_INT(f.fd[c.c[ins].fd].attr.disabled, 0);
	CHECK_INT(f.fd[c.c[ins].fd].attr.enable_on_exec, 0);
	CHECK(f.fd[c.c[cyc].fd].attr.read_format & PERF_FORMAT_GROUP);
	CHECK_INT(c.c[ins].leader, cyc);
	CHECK_INT(ty_counters_read(&c, v, &e), 0);
	CHECK_INT(f.reads, 9); /* one per group */
	CHECK_INT(v[cyc].count, 1000 + PERF_COUNT_HW_CPU_CYCLES);
	CHECK_INT(v[ins].count, 1000 + PERF_COUNT_HW_INSTRUCTIONS);
	CHECK_INT(v[0].count, 2000 + PERF_COUNT_SW_TASK_CLOCK);
	CHECK_NEAR(ty_counters_scale(&v[ins], &share), 1001, 0);
	CHECK_NEAR(share, 1, 0);
	CHECK_INT(ty_counters_note(&c, NULL), 0);
	/* user and kernel: no ":u" on any label */
	{
		char lab[160];
		CHECK_INT(ty_counters_user_only(&c, 0), 0);
		ty_counters_label(&c, 0, lab, sizeof(lab));
		CHECK_STR(lab, "task-clock");
	}
	/* a disabled copy of each event stays open on ourselves */
	CHECK_INT(c.c[ins].keeper >= 0, 1);
	CHECK_INT(f.fd[c.c[ins].keeper].pid, 0);
	CHECK_INT(f.fd[c.c[ins].keeper].attr.disabled, 1);
	CHECK_INT(f.fd[c.c[ins].keeper].attr.inherit, 0);
	CHECK_INT(f.fd[c.c[ins].keeper].attr.enable_on_exec, 0);
	CHECK_INT(f.fd[c.c[ins].keeper].group_fd, -1);
	ty_counters_close(&c);
	CHECK_INT(f.open_fds, 10);
	CHECK_INT(f.closes, 10);
	/* the next run opens the events only */
	f.opens = 0;
	CHECK_INT(ty_counters_open(&c, 1235, &e), 10);
	CHECK_INT(f.opens, 10);
	ty_counters_release(&c);
	CHECK_INT(f.open_fds, 0);
	ty_event_list_release(&l);
}

static void
without_pmu(int err)
{
	struct fake f = {.has_pmu = 0, .hw_errno = err, .enabled = 5, .running = 5};
	struct ty_counters_backend be = backend(&f);
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_counter_value v[10];
	struct ty_error e;
	size_t i;

	defaults(&l);
	ty_counters_init(&c, &l, &be, &e);
	CHECK_INT(ty_counters_open(&c, 1234, &e), 4);
	CHECK_INT(f.opens, 14); /* 10 events tried, 4 keepers */
	for (i = 0; i < 10; i++)
		CHECK_INT(c.c[i].state, i < 4 ? TY_COUNTER_OK : TY_COUNTER_UNSUPPORTED);
	CHECK_STR(ty_counters_state_name(c.c[4].state), "not supported");
	CHECK_INT(ty_counters_read(&c, v, &e), 0);
	CHECK_INT(v[3].count, 2000 + PERF_COUNT_SW_PAGE_FAULTS);
	CHECK_INT(v[4].count, 0);
	ty_counters_close(&c);
	/* the second run does not try the missing events again */
	CHECK_INT(ty_counters_open(&c, 1235, &e), 4);
	CHECK_INT(f.opens, 18);
	ty_counters_release(&c);
	CHECK_INT(f.open_fds, 0);
	ty_event_list_release(&l);
}

static void
leader_missing(void)
{
	/* a group whose leader the machine lacks: the next member leads */
	struct fake f = {.has_pmu = 0, .hw_errno = ENOENT, .enabled = 5, .running = 5};
	struct ty_counters_backend be = backend(&f);
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_counter_value v[3];
	struct ty_error e;

	ty_event_list_init(&l);
	CHECK_INT(ty_event_list_add(&l, "{cycles,task-clock,page-faults}", &e), 0);
	ty_counters_init(&c, &l, &be, &e);
	CHECK_INT(ty_counters_open(&c, 1, &e), 2);
	CHECK_INT(c.c[1].leader, 1);
	CHECK_INT(c.c[2].leader, 1);
	CHECK_INT(f.fd[c.c[1].fd].attr.disabled, 1);
	CHECK_INT(f.fd[c.c[2].fd].group_fd, c.c[1].fd);
	CHECK_INT(ty_counters_read(&c, v, &e), 0);
	CHECK_INT(v[0].count, 0);
	CHECK_INT(v[1].count, 2000 + PERF_COUNT_SW_TASK_CLOCK);
	CHECK_INT(v[2].count, 2000 + PERF_COUNT_SW_PAGE_FAULTS);
	ty_counters_release(&c);
	ty_event_list_release(&l);
}

/* A :u the user gave: user-only, labelled as written (no second ":u"). */
static void
given_user(void)
{
	struct fake f = {.has_pmu = 1, .enabled = 1, .running = 1};
	struct ty_counters_backend be = backend(&f);
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_error e;
	char lab[160];

	ty_event_list_init(&l);
	CHECK_INT(ty_event_list_add(&l, "cycles:u,instructions", &e), 0);
	ty_counters_init(&c, &l, &be, &e);
	CHECK_INT(ty_counters_open(&c, 1, &e), 2);
	CHECK_INT(ty_counters_user_only(&c, 0), 1);
	ty_counters_label(&c, 0, lab, sizeof(lab));
	CHECK_STR(lab, "cycles:u");
	CHECK_INT(ty_counters_user_only(&c, 1), 0);
	ty_counters_label(&c, 1, lab, sizeof(lab));
	CHECK_STR(lab, "instructions");
	ty_counters_release(&c);
	ty_event_list_release(&l);
}

static void
paranoid(void)
{
	struct fake f = {
	    .has_pmu = 1, .kernel_denied = 1, .paranoid = 2, .enabled = 1, .running = 1};
	struct ty_counters_backend be = backend(&f);
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_error e;
	const char *msg = NULL;
	size_t i;

	defaults(&l);
	ty_event_list_add(&l, "cycles:k", &e);
	ty_counters_init(&c, &l, &be, &e);
	CHECK_INT(ty_counters_open(&c, 1, &e), 10);
	CHECK_INT(c.user_only, 1);
	for (i = 0; i < 10; i++)
		CHECK_INT(f.fd[c.c[i].fd].attr.exclude_kernel, 1);
	/* an explicit :k cannot fall back */
	CHECK_INT(c.c[10].state, TY_COUNTER_FAILED);
	CHECK_STR(c.c[10].msg, "not permitted (kernel.perf_event_paranoid is 2)");
	CHECK_INT(ty_counters_note(&c, &msg), TY_COUNTERS_NOTE_USER_ONLY);
	CHECK_STR(msg, "kernel counting is not permitted (kernel.perf_event_paranoid is 2): "
		       "counting user space only");
	CHECK_INT(ty_counters_note(&c, &msg), 0);
	/* user-only: perf's ":u" labels; the explicit :k keeps its name; the
	 * scheduler's events are known to count nothing then */
	{
		char lab[160];
		int cs = ty_event_list_find(&l, "context-switches");
		int mig = ty_event_list_find(&l, "cpu-migrations");
		CHECK_INT(ty_counters_user_only(&c, 0), 1);
		ty_counters_label(&c, 0, lab, sizeof(lab));
		CHECK_STR(lab, "task-clock:u");
		ty_counters_label(&c, (size_t)cs, lab, sizeof(lab));
		CHECK_STR(lab, "context-switches:u");
		CHECK_INT(ty_counters_user_only(&c, 10), 0);
		ty_counters_label(&c, 10, lab, sizeof(lab));
		CHECK_STR(lab, "cycles:k");
		CHECK_INT(ty_event_kernel_side(&c.c[cs].ev), 1);
		CHECK_INT(ty_event_kernel_side(&c.c[mig].ev), 1);
		CHECK_INT(ty_event_kernel_side(&c.c[0].ev), 0);
		CHECK_INT(ty_event_kernel_side(&c.c[ty_event_list_find(&l, "page-faults")].ev), 0);
	}
	ty_counters_close(&c);
	/* said once: the next run opens user-only at once and says nothing */
	f.opens = 0;
	CHECK_INT(ty_counters_open(&c, 2, &e), 10);
	CHECK_INT(f.opens, 10);
	CHECK_INT(ty_counters_note(&c, &msg), 0);
	ty_counters_release(&c);
	ty_event_list_release(&l);
}

static void
not_permitted(void)
{
	struct fake f = {.all_denied = 1, .paranoid = 3};
	struct ty_counters_backend be = backend(&f);
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_counter_value v[10];
	struct ty_error e;
	const char *msg = NULL;

	defaults(&l);
	ty_counters_init(&c, &l, &be, &e);
	CHECK_INT(ty_counters_open(&c, 1, &e), 0);
	CHECK_INT(c.off, 1);
	CHECK_INT(ty_counters_note(&c, &msg), TY_COUNTERS_NOTE_NOT_PERMITTED);
	CHECK_INT(ty_counters_note(&c, &msg), 0);
	CHECK_STR(msg, "counting is not permitted (kernel.perf_event_paranoid is 3; run as root "
		       "or lower it with 'sysctl kernel.perf_event_paranoid=1'): counters are off");
	CHECK_INT(ty_counters_read(&c, v, &e), 0);
	CHECK_INT(v[0].count, 0);
	f.opens = 0;
	CHECK_INT(ty_counters_open(&c, 2, &e), 0);
	CHECK_INT(f.opens, 0);
	CHECK_INT(f.open_fds, 0);
	ty_counters_release(&c);
	/* the sysctl cannot be read */
	f.paranoid = -ENOENT;
	ty_counters_init(&c, &l, &be, &e);
	ty_counters_open(&c, 1, &e);
	ty_counters_note(&c, &msg);
	CHECK(strstr(msg, "/proc/sys/kernel/perf_event_paranoid cannot be read") != NULL);
	ty_counters_release(&c);
	ty_event_list_release(&l);
}

static void
multiplexed(void)
{
	struct fake f = {.has_pmu = 1, .enabled = 1000, .running = 250};
	struct ty_counters_backend be = backend(&f);
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_counter_value v[2], z = {7, 0, 0}, never = {7, 100, 0};
	struct ty_error e;
	double share;

	ty_event_list_init(&l);
	ty_event_list_add(&l, "{cycles,instructions}", &e);
	ty_counters_init(&c, &l, &be, &e);
	CHECK_INT(ty_counters_open(&c, 1, &e), 2);
	CHECK_INT(ty_counters_read(&c, v, &e), 0);
	CHECK_INT(v[0].enabled, 1000);
	CHECK_INT(v[1].running, 250);
	CHECK_NEAR(ty_counters_scale(&v[0], &share), 4 * 1000.0, 1e-9);
	CHECK_NEAR(share, 0.25, 1e-12);
	CHECK_NEAR(ty_counters_scale(&v[1], NULL), 4 * 1001.0, 1e-9);
	CHECK_NEAR(ty_counters_scale(&z, &share), 7, 0);
	CHECK_NEAR(share, 1, 0);
	CHECK_NEAR(ty_counters_scale(&never, &share), 0, 0);
	CHECK_NEAR(share, 0, 0);
	ty_counters_release(&c);
	ty_event_list_release(&l);
}

static void
other_errors(void)
{
	struct fake f = {.has_pmu = 1, .enabled = 1, .running = 1};
	struct ty_counters_backend be = backend(&f);
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_counter_value v[40];
	struct ty_error e;
	int i;

	/* too many open files (ulimit -n): the counters opened count, the
	 * others are left out, saying why and what does without them */
	ty_event_list_init(&l);
	ty_event_list_add(&l, "task-clock", &e);
	ty_event_list_add(&l, "page-faults", &e);
	for (i = 4; i < MAXFD; i++) /* one descriptor left: task-clock's */
		f.fd[i].used = 1;
	ty_counters_init(&c, &l, &be, &e);
	CHECK_INT(ty_counters_open(&c, 1, &e), 1);
	CHECK_INT(c.c[0].state, TY_COUNTER_OK);
	CHECK_INT(c.c[1].state, TY_COUNTER_FAILED);
	CHECK(strncmp(c.c[1].msg,
		      "cannot be opened: too many open files (the limit, ulimit -n, is ", 64) == 0);
	CHECK(strstr(c.c[1].msg, ": raise it, or --no-counters counts nothing)") != NULL);
	ty_counters_close(&c);
	/* none can be opened: nothing counted, no error (the times are) */
	f.fd[3].used = 1;
	CHECK_INT(ty_counters_open(&c, 1, &e), 0);
	CHECK_INT(c.c[0].state, TY_COUNTER_FAILED);
	ty_counters_release(&c);
	for (i = 3; i < MAXFD; i++)
		f.fd[i].used = 0;
	ty_event_list_release(&l);
	ty_event_list_init(&l);
	ty_event_list_add(&l, "task-clock", &e);
	ty_counters_init(&c, &l, &be, &e);
	/* a read that fails */
	CHECK_INT(ty_counters_open(&c, 1, &e), 1);
	f_close(&f, c.c[0].fd);
	CHECK_INT(ty_counters_read(&c, v, &e), -EBADF);
	CHECK_STR(e.msg, "cannot read counter 'task-clock': Bad file descriptor");
	c.c[0].fd = -1;
	ty_counters_release(&c);
	ty_event_list_release(&l);
}

/* perf stat's derived figures, from means. */
static void
derived_one(const struct ty_event_list *l, const double *m, const char *name, const char *text,
	    const char *unit)
{
	struct ty_derived d;
	char buf[32];
	int i = ty_event_list_find(l, name);

	CHECK(i >= 0);
	if (!text) {
		CHECK_INT(ty_counters_derived(l, m, 1e9, (size_t)i, &d), 0);
		return;
	}
	CHECK_INT(ty_counters_derived(l, m, 1e9, (size_t)i, &d), 1);
	ty_counters_derived_format(&d, buf, sizeof(buf));
	CHECK_STR(buf, text);
	CHECK_STR(d.unit, unit);
}

static void
derived(void)
{
	struct ty_event_list l;
	struct ty_error e;
	/* task-clock 2 s of CPU in 1 s of wall time */
	double m[14] = {2e9, 4000, 10, 4e6, 6e9, 9e9, 3e9, 3e7, 1e8, 2.5e7, 4e9, 2e8, 1e6, 0};

	ty_event_list_init(&l);
	ty_event_list_add_defaults(&l, &e);
	CHECK_INT(
	    ty_event_list_add(&l, "L1-dcache-loads,L1-dcache-load-misses,LLC-load-misses,r10", &e),
	    0);
	derived_one(&l, m, "task-clock", "   2.000", "CPUs utilized");
	derived_one(&l, m, "context-switches", "   2.000", "K/sec");
	derived_one(&l, m, "cpu-migrations", "   5.000", "/sec");
	derived_one(&l, m, "page-faults", "   2.000", "M/sec");
	derived_one(&l, m, "cycles", "   3.000", "GHz");
	derived_one(&l, m, "instructions", "   1.50", "insn per cycle");
	derived_one(&l, m, "branches", "   1.500", "G/sec");
	derived_one(&l, m, "branch-misses", "   1.00%", "of all branches");
	derived_one(&l, m, "cache-references", "  50.000", "M/sec");
	derived_one(&l, m, "cache-misses", "  25.00%", "of all cache refs");
	derived_one(&l, m, "L1-dcache-load-misses", "   5.00%", "of all L1-dcache accesses");
	derived_one(&l, m, "LLC-load-misses", " 500.000", "K/sec"); /* no LLC-loads: a rate */
	derived_one(&l, m, "r10", "   0.000", "/sec");
	/* what was not counted gives no figure, and bases that are missing fall back */
	m[4] = NAN; /* cycles */
	derived_one(&l, m, "cycles", NULL, NULL);
	derived_one(&l, m, "instructions", "   4.500", "G/sec");
	m[0] = NAN; /* task-clock */
	derived_one(&l, m, "task-clock", NULL, NULL);
	derived_one(&l, m, "context-switches", NULL, NULL);
	derived_one(&l, m, "branch-misses", "   1.00%", "of all branches");
	ty_event_list_release(&l);
}

/* The real kernel: count /bin/true from its exec. */
static void
real_kernel(void)
{
	struct ty_event_list l;
	struct ty_counters c;
	struct ty_counter_value v[2];
	struct ty_error e;
	int p[2], st, n;
	pid_t pid;
	char x = 0;

	ty_event_list_init(&l);
	ty_event_list_add(&l, "task-clock,page-faults", &e);
	ty_counters_init(&c, &l, NULL, &e);
	if (pipe(p) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &x, 1) != 1)
			_exit(126);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	n = ty_counters_open(&c, pid, &e);
	if (write(p[1], &x, 1) != 1)
		n = -1;
	close(p[1]);
	waitpid(pid, &st, 0);
	if (n == 2) {
		CHECK_INT(ty_counters_read(&c, v, &e), 0);
		CHECK(v[0].count > 1000); /* > 1 us of CPU time */
		CHECK(v[1].count > 10);	  /* an exec faults pages in */
		CHECK(v[0].enabled > 0 && v[0].running == v[0].enabled);
	} else {
		printf("# real kernel: counting not available here (%d)\n", n);
	}
	ty_counters_release(&c);
	ty_event_list_release(&l);
}

/* The per-run probe (a struct ty_probe of runner.h): each run's values
 * scaled, the multiplexing learned into the descriptions, the set closed
 * after each run; finish says which events were ever read. */
static void
probe(void)
{
	struct fake f = {.has_pmu = 1, .enabled = 1000, .running = 250};
	struct ty_counters_backend be = backend(&f);
	struct ty_counters_probe cp;
	struct ty_event_list l;
	struct ty_value_desc d[3];
	struct ty_probe p;
	struct ty_error e;
	double v[3];

	ty_event_list_init(&l);
	ty_event_list_add(&l, "task-clock,{cycles,instructions}", &e);
	CHECK_INT(ty_counters_probe_init(&cp, &l, &be, &e), 0);
	ty_counters_probe_get(&cp, &p);
	CHECK_STR(p.name, "counters");
	CHECK_INT(p.nvalues, 3);
	CHECK_STR(p.values[0].unit, "ns");
	CHECK_STR(p.values[1].name, "cycles");
	CHECK_STR(p.values[2].unit, "");
	CHECK_INT(p.attach(p.ctx, 1234, &e), 0);
	CHECK_INT(f.opens > 0, 1);
	CHECK_INT(p.collect(p.ctx, 1234, v, &e), 0);
	CHECK_NEAR(v[1], 4 * 1000.0, 1e-9); /* cycles, running a quarter of the time */
	CHECK_NEAR(v[2], 4 * 1001.0, 1e-9);
	CHECK_INT(cp.set.c[1].fd, -1); /* closed after the run */
	CHECK_INT(cp.desc[1].scaled, 1);
	CHECK_NEAR(cp.desc[1].running_share, 0.25, 1e-12);
	CHECK_INT(cp.nread[1], 1);
	/* a discarded run: closed, not read */
	CHECK_INT(p.attach(p.ctx, 1235, &e), 0);
	p.detach(p.ctx, 1235);
	CHECK_INT(cp.set.c[1].fd, -1);
	CHECK_INT(cp.nread[1], 1);
	memcpy(d, cp.desc, sizeof(d));
	cp.nread[0] = 0; /* as if task-clock had never been read */
	ty_counters_probe_finish(&cp, d);
	CHECK_INT(d[0].supported, 0);
	CHECK_INT(d[1].supported, 1);
	CHECK_INT(d[2].scaled, 1);
	CHECK_INT(cp.desc[0].supported, 0);
	ty_counters_probe_release(&cp);
	CHECK_INT(f.open_fds, 0);
	ty_event_list_release(&l);
}

int
main(void)
{
	with_pmu();
	without_pmu(ENOENT);
	without_pmu(EOPNOTSUPP);
	leader_missing();
	paranoid();
	given_user();
	not_permitted();
	multiplexed();
	probe();
	other_errors();
	derived();
	real_kernel();
	return check_done();
}
