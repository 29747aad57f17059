/* spawn.c - a child held before exec: clone(CLONE_VM), a futex, execve. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawner/helper-proto.h"
#include "tachy/clock.h"
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
	struct rusage ru;
	uint32_t zero = 0;
	long r;
	int i;

	if (!o->same_group)
		raw_syscall(SYS_setpgid, 0, 0, 0, 0);
	/* The parent may have died before the prctl (the classic race): then
	 * no signal comes, and the child is already another's. */
	if (o->pdeathsig && (raw_syscall(SYS_prctl, PR_SET_PDEATHSIG, o->pdeathsig, 0, 0) < 0 ||
			     raw_syscall(SYS_getppid, 0, 0, 0, 0) != sp->parent))
		raw_syscall(SYS_exit_group, 127, 0, 0, 0);
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
	/* The switches so far are ours (a sleep on the futex): taken off the
	 * run's rusage. */
	if (raw_syscall(SYS_getrusage, RUSAGE_SELF, (long)&ru, 0, 0) == 0) {
		sp->pre_csw[0] = ru.ru_nvcsw;
		sp->pre_csw[1] = ru.ru_nivcsw;
	}
	r = raw_syscall(SYS_execve, (long)o->path, (long)o->argv, (long)o->envp, 0);
	child_fail(sp, r);
	return 127;
}

static void helper_stop(struct ty_spawner *sp);
static pid_t helper_create(struct ty_spawner *sp, const struct ty_spawn_opts *o,
			   struct ty_error *e);
static int start_helper(struct ty_spawner *sp, int guard_only, struct ty_error *e);

/* Whether the helper clones the runs (else it is only a guard, or none). */
static int
helper_clones(const struct ty_spawner *sp)
{
	return sp->helper_fd >= 0;
}

/* Tell the helper (or guard) which process group to kill should tachy die
 * while the child PID of O lives: its own, unless it shares ours. Through
 * the shared page: no system call. */
static void
guard_watch(struct ty_spawner *sp, const struct ty_spawn_opts *o, pid_t pid)
{
	struct ty_helper_shm *shm = sp->helper_shm;

	if (shm)
		__atomic_store_n(&shm->watch, o->pdeathsig && !o->same_group ? (int32_t)pid : 0,
				 __ATOMIC_RELEASE);
}

int
ty_spawn_init(struct ty_spawner *sp, struct ty_error *e)
{
	memset(sp, 0, sizeof(*sp));
	sp->pidfd = -1;
	sp->helper_fd = -1;
	sp->guard_fd = -1;
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
	helper_stop(sp);
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
	if (stat(path, st) != 0) /* a directory we may not search hides nothing we can run */
		return errno == EACCES ? -ENOENT : -errno;
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

int
ty_spawn_unobservable(const char *path, char *why, size_t size)
{
	struct statvfs vfs;
	struct passwd *pw;
	struct stat st;
	char owner[32];

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (access(path, R_OK) != 0 && errno == EACCES)
		return snprintf(why, size, "%s cannot be read by this user", path), 1;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ||
	    (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)))
		return 0; /* the set-ID bits are ignored here */
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid()) {
		if ((pw = getpwuid(st.st_uid)))
			snprintf(owner, sizeof(owner), "%s", pw->pw_name);
		else
			snprintf(owner, sizeof(owner), "uid %lu", (unsigned long)st.st_uid);
		return snprintf(why, size, "%s is set-user-ID %s", path, owner), 1;
	}
	if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid())
		return snprintf(why, size, "%s is set-group-ID (gid %lu)", path,
				(unsigned long)st.st_gid),
		       1;
	return 0;
}

pid_t
ty_spawn_create(struct ty_spawner *sp, const struct ty_spawn_opts *o, struct ty_error *e)
{
	int flags = CLONE_VM | SIGCHLD;
	int pidfd = -1;
	pid_t pid;

	/* The child's own children outlive a SIGKILLed tachy: a guard kills
	 * its process group then (where the helper does not run already;
	 * without one, only the child gets its signal). */
	if (o->pdeathsig && !o->same_group && sp->helper_fd < 0 && sp->guard_fd < 0 &&
	    !sp->guard_tried) {
		sp->guard_tried = 1;
		start_helper(sp, 1, NULL);
	}
	sp->opts = o;
	if (helper_clones(sp))
		return helper_create(sp, o, e);
	sp->child_errno = 0;
	sp->pre_csw[0] = sp->pre_csw[1] = 0;
	sp->parent = getpid();
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
	guard_watch(sp, o, pid);
	return pid;
}

void
ty_spawn_go(struct ty_spawner *sp)
{
	volatile uint32_t *go = &sp->go;

	if (helper_clones(sp)) /* a shared futex: the child is the helper's */
		go = &((struct ty_helper_shm *)sp->helper_shm)->go;
	if (__atomic_exchange_n(go, 1, __ATOMIC_ACQ_REL) == 2)
		syscall(SYS_futex, go, FUTEX_WAKE, 1, NULL, NULL, 0);
}

void
ty_spawn_kill(struct ty_spawner *sp, int sig)
{
	if (sp->pid <= 0)
		return;
	if (kill(-sp->pid, sig) != 0)
		kill(sp->pid, sig);
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
			int64_t left = deadline - (int64_t)ty_clock_now_ns();
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
	memset(u, 0, sizeof(*u));
	u->user_ns = (int64_t)ru->ru_utime.tv_sec * 1000000000 + ru->ru_utime.tv_usec * 1000;
	u->system_ns = (int64_t)ru->ru_stime.tv_sec * 1000000000 + ru->ru_stime.tv_usec * 1000;
	u->maxrss_kb = ru->ru_maxrss;
	u->minflt = ru->ru_minflt;
	u->majflt = ru->ru_majflt;
	u->nvcsw = ru->ru_nvcsw;
	u->nivcsw = ru->ru_nivcsw;
}

/* ---- the helper ---- */

/* The helper program, linked in by the Makefile (empty when it could not be
 * built for this machine). */
extern const unsigned char ty_spawner_blob[], ty_spawner_blob_end[];

static void
helper_stop(struct ty_spawner *sp)
{
	int status;

	if (sp->pinned > 0) /* ours back: the runs from now on are cloned here */
		sched_setaffinity(0, sizeof(sp->orig), &sp->orig);
	sp->pinned = 0;

	if (sp->helper_shm) /* no death: it is to kill nothing */
		__atomic_store_n(&((struct ty_helper_shm *)sp->helper_shm)->bye, 1,
				 __ATOMIC_RELEASE);
	if (sp->helper_fd >= 0)
		close(sp->helper_fd); /* EOF ends it */
	sp->helper_fd = -1;
	if (sp->guard_fd >= 0)
		close(sp->guard_fd);
	sp->guard_fd = -1;
	if (sp->helper_pid > 0)
		while (waitpid(sp->helper_pid, &status, 0) < 0 && errno == EINTR)
			;
	sp->helper_pid = 0;
	if (sp->helper_shm)
		munmap(sp->helper_shm, 4096);
	sp->helper_shm = NULL;
	free(sp->req);
	sp->req = NULL;
	sp->req_cap = 0;
	if (sp->launcher) {
		ty_spawn_release(sp->launcher);
		free(sp->launcher);
		sp->launcher = NULL;
	}
}

/* Write N bytes to a file or socket (to a socket without SIGPIPE: a helper
 * gone is an error, not our end). */
static int
write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == ENOTSOCK)
			w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EPIPE;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read N bytes from the helper. It waits in poll, not in read: a reader
 * blocked in read is also woken when the helper takes our request off the
 * socket (its write-space wake-up), a context switch for nothing. */
static int
read_all(int fd, void *buf, size_t n)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	char *p = buf;
	ssize_t r;

	while (n) {
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -errno;
		r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EPIPE;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int
memfd_with(const char *name, const void *data, size_t size)
{
	int fd = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (write_all(fd, data, size) < 0 || ftruncate(fd, (off_t)size) < 0) {
		close(fd);
		return -EIO;
	}
	return fd;
}

int
ty_spawn_start_helper(struct ty_spawner *sp, struct ty_error *e)
{
	if (sp->helper_fd >= 0)
		return 0;
	helper_stop(sp); /* a guard becomes the helper */
	return start_helper(sp, 0, e);
}

void
ty_spawn_guard_cgroup(struct ty_spawner *sp, const char *dir)
{
	struct ty_helper_shm *shm = sp->helper_shm;

	if (!shm)
		return;
	if (strlen(dir) >= sizeof(shm->cgroup))
		return; /* not cut short: another group */
	memcpy(shm->cgroup, dir, strlen(dir) + 1);
}

/* Start the helper: it clones the runs from now on, or with GUARD_ONLY it
 * only watches (the children are cloned here). */
static int
start_helper(struct ty_spawner *sp, int guard_only, struct ty_error *e)
{
	static char *const argv[] = {"tachy-spawner", NULL}, *const envp[] = {NULL};
	size_t size = (size_t)(ty_spawner_blob_end - ty_spawner_blob);
	struct ty_spawn_opts o;
	struct ty_usage u;
	struct ty_exit x;
	char path[64], page[4096];
	int exe = -1, mem = -1, sv[2] = {-1, -1}, rc;
	pid_t pid;

	if (size == 0)
		return ty_error_set(e, -ENOSYS, "not built with the spawner helper");
	memset(page, 0, sizeof(page));
	if ((exe = memfd_with("tachy-spawner", ty_spawner_blob, size)) < 0 ||
	    (mem = memfd_with("tachy-spawner-page", page, sizeof(page))) < 0) {
		rc = exe < 0 ? exe : mem;
		goto fail;
	}
	sp->helper_shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mem, 0);
	if (sp->helper_shm == MAP_FAILED) {
		sp->helper_shm = NULL;
		rc = -errno;
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		rc = -errno;
		goto fail;
	}
	sp->launcher = malloc(sizeof(*sp->launcher));
	if (!sp->launcher || (rc = ty_spawn_init(sp->launcher, e)) < 0) {
		free(sp->launcher);
		sp->launcher = NULL;
		rc = -ENOMEM;
		goto fail;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", exe);
	memset(&o, 0, sizeof(o));
	o.path = path;
	o.argv = argv;
	o.envp = envp;
	o.fd[0] = sv[1];
	o.fd[1] = mem;
	o.fd[2] = 2;
	o.drain_fd = -1;
	/* No PR_SET_PDEATHSIG: it outlives tachy to kill what the runs left;
	 * tachy's death closes its socket, which ends it. */
	o.pdeathsig = 0;
	pid = ty_spawn_create(sp->launcher, &o, e);
	if (pid < 0) {
		rc = pid;
		goto fail;
	}
	ty_spawn_go(sp->launcher);
	close(sv[1]);
	sv[1] = -1;
	sp->helper_pid = pid;
	sp->helper_fd = sv[0];
	close(exe);
	close(mem);
	if (guard_only)
		sp->pinned = -1; /* it clones nothing but the first: no pinning */
	/* A first run of nothing proves it works: the exec may be refused
	 * (vm.memfd_noexec, a noexec /proc). */
	{
		static char *const targv[] = {"true", NULL};
		struct ty_spawn_opts t;

		memset(&t, 0, sizeof(t));
		t.path = "/proc/self/fd/-1"; /* fails in the child: exercises the round trip */
		t.argv = targv;
		t.envp = envp;
		t.fd[0] = t.fd[1] = t.fd[2] = -1;
		t.drain_fd = -1;
		if ((rc = ty_spawn_create(sp, &t, e)) < 0)
			goto stop;
		ty_spawn_go(sp);
		if ((rc = ty_spawn_wait(sp, 0, NULL, &u, &x, e)) < 0)
			goto stop;
		if (x.exec_errno != ENOENT) {
			rc = ty_error_set(e, -EIO, "the spawner helper does not work");
			goto stop;
		}
	}
	if (guard_only) { /* it clones nothing more: the children are ours */
		sp->guard_fd = sp->helper_fd;
		sp->helper_fd = -1;
	}
	return 0;
fail:
	if (exe >= 0)
		close(exe);
	if (mem >= 0)
		close(mem);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	helper_stop(sp);
	return ty_error_set(e, rc, "cannot start the spawner helper: %s", strerror(-rc));
stop:
	helper_stop(sp);
	return rc;
}

const char *
ty_spawn_rss_method(const struct ty_spawner *sp)
{
	return helper_clones(sp) ? "helper" : "self";
}

static size_t
strings_size(char *const *v, uint32_t *count)
{
	size_t n = 0;

	for (*count = 0; v[*count]; (*count)++)
		n += strlen(v[*count]) + 1;
	return n;
}

/* Hold the helper and us on the CPU we are on, so that a request and its
 * reply wake the other on this CPU: the runs spent ~0.1 ms each waiting
 * for a wake-up on the other CPU (an idle virtual CPU wakes up slowly),
 * where a posix_spawn loop keeps its children on its own CPU. The runs
 * get our affinity from before back (the child sets it before it execs),
 * so they are placed as before; only the helper and we stay here. */
static void
helper_pin(struct ty_spawner *sp)
{
	cpu_set_t one;
	int cpu;

	sp->pinned = -1;
	if (sp->no_pin)
		return;
	if (sched_getaffinity(0, sizeof(sp->orig), &sp->orig) != 0 || (cpu = sched_getcpu()) < 0 ||
	    cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(sp->helper_pid, sizeof(one), &one) != 0)
		return;
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		sched_setaffinity(sp->helper_pid, sizeof(sp->orig), &sp->orig);
		return;
	}
	sp->pinned = 1;
}

static pid_t
helper_create(struct ty_spawner *sp, const struct ty_spawn_opts *o, struct ty_error *e)
{
	struct ty_helper_req req;
	struct ty_helper_pid hp;
	struct iovec iov[2];
	struct msghdr mh;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(3 * sizeof(int))];
	} cm;
	size_t len, plen = strlen(o->path) + 1, off;
	char *const *v;
	char *p;
	int i, fds[3], rc;
	ssize_t w;

	memset(&req, 0, sizeof(req));
	req.magic = TY_HELPER_MAGIC;
	req.flags = TY_HELPER_PDEATHSIG;
	if (o->same_group) {
		req.flags |= TY_HELPER_SAME_GROUP;
		req.pgid = (int32_t)getpgrp();
	}
	len = plen + strings_size(o->argv, &req.argc) + strings_size(o->envp, &req.envc);
	if (len > (1u << 30))
		return ty_error_set(e, -E2BIG, "cannot run '%s': arguments too long", o->path);
	req.len = (uint32_t)len;
	if (!sp->pinned)
		helper_pin(sp);
	if (o->cpus || sp->pinned > 0) {
		const cpu_set_t *c = o->cpus ? o->cpus : &sp->orig;

		req.flags |= TY_HELPER_CPUS;
		memcpy(req.cpus, c, sizeof(req.cpus) < sizeof(*c) ? sizeof(req.cpus) : sizeof(*c));
	}
	if (len > sp->req_cap) {
		free(sp->req);
		sp->req_cap = len + 4096;
		if (!(sp->req = malloc(sp->req_cap))) {
			sp->req_cap = 0;
			return ty_error_set(e, -ENOMEM, "out of memory");
		}
	}
	p = sp->req;
	memcpy(p, o->path, plen);
	p += plen;
	for (v = o->argv;; v = o->envp) {
		for (i = 0; v[i]; i++) {
			size_t n = strlen(v[i]) + 1;
			memcpy(p, v[i], n);
			p += n;
		}
		if (v == o->envp)
			break;
	}
	for (i = 0; i < 3; i++)
		fds[i] = o->fd[i] >= 0 ? o->fd[i] : i;
	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	iov[0].iov_base = &req;
	iov[0].iov_len = sizeof(req);
	iov[1].iov_base = sp->req;
	iov[1].iov_len = len;
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	mh.msg_control = cm.buf;
	mh.msg_controllen = sizeof(cm.buf);
	cm.h.cmsg_level = SOL_SOCKET;
	cm.h.cmsg_type = SCM_RIGHTS;
	cm.h.cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(&cm.h), fds, sizeof(fds));
	do
		w = sendmsg(sp->helper_fd, &mh, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return ty_error_set(e, -errno, "cannot reach the spawner helper: %s",
				    strerror(errno));
	off = (size_t)w;
	if (off < sizeof(req)) /* the fds went with the first byte */
		rc = write_all(sp->helper_fd, (char *)&req + off, sizeof(req) - off) ||
		     write_all(sp->helper_fd, sp->req, len);
	else
		rc = write_all(sp->helper_fd, sp->req + (off - sizeof(req)),
			       len - (off - sizeof(req)));
	if (rc || (rc = read_all(sp->helper_fd, &hp, sizeof(hp))) < 0)
		return ty_error_set(e, -EPIPE, "the spawner helper went away");
	if (hp.pid < 0)
		return ty_error_set(e, hp.pid, "cannot create a process for '%s': %s", o->path,
				    strerror(-hp.pid));
	/* Our child (the helper clones it with CLONE_PARENT): reaped by
	 * ty_spawn_wait as one cloned here is. */
	sp->pid = hp.pid;
	if (!o->same_group)
		setpgid(hp.pid, hp.pid); /* no race with the first kill of the group */
	guard_watch(sp, o, hp.pid);
	sp->pidfd = -1;
	if (o->want_pidfd && (sp->pidfd = (int)syscall(SYS_pidfd_open, hp.pid, 0)) < 0) {
		rc = -errno;
		ty_spawn_kill(sp, SIGKILL);
		ty_spawn_go(sp);
		while (waitpid(hp.pid, NULL, 0) < 0 && errno == EINTR)
			;
		sp->pid = 0;
		sp->pidfd = -1;
		return ty_error_set(e, rc, "cannot create a process for '%s': %s", o->path,
				    strerror(-rc));
	}
	return hp.pid;
}

/* The child SP held ended with STATUS: forget it and fill U and X. */
static void
reaped(struct ty_spawner *sp, int status, const struct rusage *ru, struct ty_usage *u,
       struct ty_exit *x)
{
	struct ty_helper_shm *shm = helper_clones(sp) ? sp->helper_shm : NULL;
	struct ty_helper_shm *guard = sp->helper_shm;
	int child_errno =
	    shm ? __atomic_load_n(&shm->child_errno, __ATOMIC_ACQUIRE) : sp->child_errno;

	if (sp->opts->drain_fd >= 0)
		drain(sp->opts->drain_fd);
	if (sp->pidfd >= 0) {
		close(sp->pidfd);
		sp->pidfd = -1;
	}
	/* Its group, once empty, is nothing to kill: its number may be
	 * another's one day. With members left, it stays watched. */
	if (guard && __atomic_load_n(&guard->watch, __ATOMIC_ACQUIRE) == sp->pid &&
	    kill(-sp->pid, 0) != 0 && errno == ESRCH)
		__atomic_store_n(&guard->watch, 0, __ATOMIC_RELEASE);
	sp->pid = 0;
	fill_usage(ru, u);
	{
		long v = shm ? (long)__atomic_load_n(&shm->pre_csw[0], __ATOMIC_ACQUIRE)
			     : sp->pre_csw[0];
		long iv = shm ? (long)__atomic_load_n(&shm->pre_csw[1], __ATOMIC_ACQUIRE)
			      : sp->pre_csw[1];

		u->nvcsw -= v > 0 && v <= u->nvcsw ? v : 0;
		u->nivcsw -= iv > 0 && iv <= u->nivcsw ? iv : 0;
	}
	if (shm) /* what the helper's peak was when it cloned the child */
		u->maxrss_floor_kb = (long)__atomic_load_n(&shm->floor_kb, __ATOMIC_ACQUIRE);
	x->exit_code = -1;
	if (WIFEXITED(status)) {
		x->exit_code = WEXITSTATUS(status);
		if (x->exit_code == 127 && child_errno)
			x->exec_errno = child_errno;
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
		r = poll_child(sp, timeout_ns > 0 ? (int64_t)ty_clock_now_ns() + timeout_ns : 0,
			       stop);
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
