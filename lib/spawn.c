/* spawn.c - a child held before exec: clone(CLONE_VM), a futex, execve. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tachy/spawn.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

#define STACK_SIZE (64 * 1024)

/* The child shares the parent's memory (and its TLS, so its errno) until it
 * execs: it makes raw system calls, which return -errno and touch nothing. */
#if defined(__x86_64__)
__attribute__((always_inline)) static inline long
raw_syscall(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
__attribute__((always_inline)) static inline long
raw_syscall(long n, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}
#else
static long
raw_syscall(long n, long a, long b, long c, long d)
{
	long r = syscall(n, a, b, c, d);
	return r == -1 ? -errno : r;
}
#endif

__attribute__((no_sanitize("address", "undefined"))) static void
child_fail(struct ty_spawner *sp, long err)
{
	sp->child_errno = (int)-err;
	raw_syscall(SYS_exit_group, 127, 0, 0, 0);
}

__attribute__((no_sanitize("address", "undefined"))) static int
child_main(void *arg)
{
	struct ty_spawner *sp = arg;
	const struct ty_spawn_opts *o = sp->opts;
	uint32_t zero = 0;
	long r;
	int i;

	if (!o->same_group)
		raw_syscall(SYS_setpgid, 0, 0, 0, 0);
	for (i = 0; i < 3; i++) {
		if (o->fd[i] < 0)
			continue;
		if (o->fd[i] == i) /* opened close-on-exec where it belongs: keep it open */
			r = raw_syscall(SYS_fcntl, i, F_SETFD, 0, 0);
		else
			r = raw_syscall(SYS_dup3, o->fd[i], i, 0, 0);
		if (r < 0)
			child_fail(sp, r);
	}
	if (o->cpus) {
		r = raw_syscall(SYS_sched_setaffinity, 0, sizeof(cpu_set_t), (long)o->cpus, 0);
		if (r < 0)
			child_fail(sp, r);
	}
	/* Say we are going to sleep (0 -> 2) unless already released. */
	if (__atomic_compare_exchange_n(&sp->go, &zero, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&sp->go, __ATOMIC_ACQUIRE) == 2)
			raw_syscall(SYS_futex, (long)&sp->go, FUTEX_WAIT, 2, 0);
	r = raw_syscall(SYS_execve, (long)o->path, (long)o->argv, (long)o->envp, 0);
	child_fail(sp, r);
	return 127;
}

int
ty_spawn_init(struct ty_spawner *sp, struct ty_error *e)
{
	memset(sp, 0, sizeof(*sp));
	sp->pidfd = -1;
	sp->stack_size = STACK_SIZE;
	sp->stack = mmap(NULL, sp->stack_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (sp->stack == MAP_FAILED) {
		sp->stack = NULL;
		return ty_error_set(e, -ENOMEM, "cannot allocate a stack for the child: %s",
				    strerror(errno));
	}
	return 0;
}

void
ty_spawn_release(struct ty_spawner *sp)
{
	if (sp->stack)
		munmap(sp->stack, sp->stack_size);
	sp->stack = NULL;
	if (sp->pidfd >= 0)
		close(sp->pidfd);
	sp->pidfd = -1;
}

static int
check_exec(const char *path, struct stat *st)
{
	if (stat(path, st) != 0)
		return -errno;
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (!S_ISREG(st->st_mode) || access(path, X_OK) != 0)
		return -EACCES;
	return 0;
}

static int
resolve_error(const char *name, int err, struct ty_error *e)
{
	if (err == -ENOENT)
		return ty_error_set(e, err, "cannot run '%s': command not found", name);
	if (err == -EISDIR)
		return ty_error_set(e, -EACCES, "cannot run '%s': it is a directory", name);
	if (err == -EACCES)
		return ty_error_set(e, err, "cannot run '%s': permission denied (not executable)",
				    name);
	return ty_error_set(e, err, "cannot run '%s': %s", name, strerror(-err));
}

int
ty_spawn_resolve(const char *name, char *buf, size_t size, struct ty_error *e)
{
	const char *p, *end, *path;
	struct stat st;
	int err, seen = -ENOENT;

	if (!*name)
		return ty_error_set(e, -ENOENT, "cannot run an empty command");
	if (strchr(name, '/')) {
		if (strlen(name) >= size)
			return ty_error_set(e, -ENAMETOOLONG,
					    "cannot run '%.64s...': name too long", name);
		err = check_exec(name, &st);
		if (err)
			return resolve_error(name, err, e);
		strcpy(buf, name);
		return 0;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		size_t dlen;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		dlen = (size_t)(end - p);
		if (dlen + strlen(name) + 2 <= size) {
			snprintf(buf, size, "%.*s%s%s", (int)dlen, p, dlen ? "/" : "", name);
			err = check_exec(buf, &st);
			if (err == 0)
				return 0;
			if (err == -EACCES || err == -EISDIR)
				seen = err;
		}
		if (!*end)
			break;
	}
	return resolve_error(name, seen, e);
}

pid_t
ty_spawn_create(struct ty_spawner *sp, const struct ty_spawn_opts *o, struct ty_error *e)
{
	int flags = CLONE_VM | SIGCHLD;
	int pidfd = -1;
	pid_t pid;

	sp->opts = o;
	sp->child_errno = 0;
	__atomic_store_n(&sp->go, 0, __ATOMIC_RELEASE);
	if (o->want_pidfd)
		flags |= CLONE_PIDFD;
	pid = clone(child_main, (char *)sp->stack + sp->stack_size, flags, sp, &pidfd);
	if (pid < 0)
		return ty_error_set(e, -errno, "cannot create a process for '%s': %s", o->path,
				    strerror(errno));
	sp->pid = pid;
	sp->pidfd = o->want_pidfd ? pidfd : -1;
	if (!o->same_group)
		setpgid(pid, pid); /* also here: no race with the first kill of the group */
	return pid;
}

void
ty_spawn_go(struct ty_spawner *sp)
{
	if (__atomic_exchange_n(&sp->go, 1, __ATOMIC_ACQ_REL) == 2)
		syscall(SYS_futex, &sp->go, FUTEX_WAKE, 1, NULL, NULL, 0);
}

void
ty_spawn_kill(struct ty_spawner *sp, int sig)
{
	if (sp->pid <= 0)
		return;
	if (kill(-sp->pid, sig) != 0)
		kill(sp->pid, sig);
}

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
drain(int fd)
{
	char buf[16384];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* Poll the pidfd (and the drain pipe) until the child has exited, the
 * deadline passed (returns 2) or a stop was asked for (returns 1). */
static int
poll_child(struct ty_spawner *sp, int64_t deadline, volatile int *stop)
{
	struct pollfd pfd[2];
	int n = 1, ms, r;

	pfd[0].fd = sp->pidfd;
	pfd[0].events = POLLIN;
	if (sp->opts->drain_fd >= 0) {
		pfd[1].fd = sp->opts->drain_fd;
		pfd[1].events = POLLIN;
		n = 2;
	}
	for (;;) {
		if (stop && *stop)
			return 1;
		ms = -1;
		if (deadline > 0) {
			int64_t left = deadline - mono_ns();
			if (left <= 0)
				return 2;
			ms = (int)((left + 999999) / 1000000);
		}
		r = poll(pfd, (nfds_t)n, ms);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		if (n == 2 && (pfd[1].revents & POLLIN))
			drain(pfd[1].fd);
		if (pfd[0].revents)
			return 0;
	}
}

static void
fill_usage(const struct rusage *ru, struct ty_usage *u)
{
	u->user_ns = (int64_t)ru->ru_utime.tv_sec * 1000000000 + ru->ru_utime.tv_usec * 1000;
	u->system_ns = (int64_t)ru->ru_stime.tv_sec * 1000000000 + ru->ru_stime.tv_usec * 1000;
	u->maxrss_kb = ru->ru_maxrss;
	u->minflt = ru->ru_minflt;
	u->majflt = ru->ru_majflt;
	u->nvcsw = ru->ru_nvcsw;
	u->nivcsw = ru->ru_nivcsw;
}

/* The child SP held ended with STATUS: forget it and fill U and X. */
static void
reaped(struct ty_spawner *sp, int status, const struct rusage *ru, struct ty_usage *u,
       struct ty_exit *x)
{
	if (sp->opts->drain_fd >= 0)
		drain(sp->opts->drain_fd);
	if (sp->pidfd >= 0) {
		close(sp->pidfd);
		sp->pidfd = -1;
	}
	sp->pid = 0;
	fill_usage(ru, u);
	x->exit_code = -1;
	if (WIFEXITED(status)) {
		x->exit_code = WEXITSTATUS(status);
		if (x->exit_code == 127 && sp->child_errno)
			x->exec_errno = sp->child_errno;
	} else if (WIFSIGNALED(status)) {
		x->signal = WTERMSIG(status);
		x->core_dumped = WCOREDUMP(status) != 0;
	}
}

int
ty_spawn_try_wait(struct ty_spawner *sp, struct ty_usage *u, struct ty_exit *x, struct ty_error *e)
{
	struct rusage ru;
	int status, r;
	pid_t got;

	if (sp->pid <= 0)
		return ty_error_set(e, -ECHILD, "no child to wait for");
	do
		got = wait4(sp->pid, &status, WNOHANG, &ru);
	while (got < 0 && errno == EINTR);
	if (got == 0)
		return 0;
	if (got < 0) {
		r = -errno;
		sp->pid = 0;
		return ty_error_set(e, r, "cannot wait for the child: %s", strerror(-r));
	}
	memset(x, 0, sizeof(*x));
	reaped(sp, status, &ru, u, x);
	return 1;
}

int
ty_spawn_wait(struct ty_spawner *sp, int64_t timeout_ns, volatile int *stop, struct ty_usage *u,
	      struct ty_exit *x, struct ty_error *e)
{
	struct rusage ru;
	int status, r, stopped = 0;
	pid_t got;

	memset(x, 0, sizeof(*x));
	if (sp->pidfd >= 0) {
		r = poll_child(sp, timeout_ns > 0 ? mono_ns() + timeout_ns : 0, stop);
		if (r == 1) {
			stopped = 1;
			ty_spawn_kill(sp, SIGKILL);
		} else if (r == 2) {
			x->timed_out = 1;
			ty_spawn_kill(sp, SIGKILL);
		} else if (r < 0) {
			ty_spawn_kill(sp, SIGKILL);
		}
	}
	for (;;) {
		got = wait4(sp->pid, &status, 0, &ru);
		if (got == sp->pid)
			break;
		if (got < 0 && errno == EINTR) {
			if (stop && *stop && !stopped) {
				stopped = 1;
				ty_spawn_kill(sp, SIGKILL);
			}
			continue;
		}
		r = -errno;
		sp->pid = 0;
		return ty_error_set(e, r, "cannot wait for the child: %s", strerror(-r));
	}
	reaped(sp, status, &ru, u, x);
	return stopped || (stop && *stop) ? 1 : 0;
}
