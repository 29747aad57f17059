/* helper.c - tachy's spawner: a tiny process that clones the measured runs.
 *
 * Linux folds the high-water RSS of the address space a process execs from
 * into that process's ru_maxrss, so a run cloned from tachy (megabytes) can
 * never show less than tachy's own peak. This program is built without libc
 * (a few pages of text, data and stack), started once by lib/spawn.c from an
 * in-memory copy, and clones every run from its own tiny address space: the
 * runs' ru_maxrss is then their own down to a few dozen KiB.
 *
 * The runs are cloned with CLONE_PARENT: they are tachy's children, not
 * ours, so tachy reaps them with wait4() itself (their rusage, the peak RSS
 * included, is the same: the address space they exec from is still ours)
 * and we have nothing to do between a reply and the next request.
 *
 * Protocol (fd 0 is a stream socket to tachy, fd 1 a shared page):
 *   tachy -> helper: struct ty_helper_req, three fds (SCM_RIGHTS), then
 *                    req.len bytes: path, argv strings, envp strings (NUL-ended)
 *   helper -> tachy: struct ty_helper_pid (the held child's pid or -errno)
 *   tachy releases the child through the futex word in the shared page and
 *   reaps it; only then does it send the next request (the child runs on
 *   our stack and reads our copy of the request until it execs).
 * EOF on fd 0 ends the helper. When tachy has not set the page's bye flag
 * first, tachy has died (SIGKILL): the runs got SIGKILL with it (their
 * PR_SET_PDEATHSIG), but not what they started, so the helper then kills
 * the process group the page names (the current run's) and every process
 * in the runs' cgroup, if tachy named one (cgroup.kill where the kernel
 * has it, else each pid of cgroup.procs until none is left). The helper
 * itself has no PR_SET_PDEATHSIG: it must outlive tachy to do that.
 * lib/spawn.c also starts it only for this (a guard: no request but the
 * first) where tachy clones the children itself.
 * Only raw system calls; nothing here may call into a library. */
#include <stddef.h>
#include <stdint.h>

#include <asm/unistd.h>
#include <linux/fcntl.h>
#include <linux/futex.h>
#include <linux/mman.h>
#include <linux/prctl.h>
#include <linux/sched.h>

#include "helper-proto.h"

#define SIGKILL 9
#define SIGCHLD 17
#define SOL_SOCKET 1
#define SCM_RIGHTS 1
#define MSG_CMSG_CLOEXEC 0x40000000
#define POLLIN 1
#define STACK_SIZE (32 * 1024)

struct k_iovec {
	void *base;
	size_t len;
};

struct k_msghdr {
	void *name;
	int namelen;
	struct k_iovec *iov;
	size_t iovlen;
	void *control;
	size_t controllen;
	unsigned flags;
};

struct k_pollfd {
	int fd;
	short events, revents;
};

struct k_cmsghdr {
	size_t len;
	int level;
	int type;
	int fds[3];
};

#if defined(__x86_64__)
static long
sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

__asm__(".text\n"
	".globl _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	and $-16, %rsp\n"
	"	call helper_main\n"
	"	mov %eax, %edi\n"
	"	mov $231, %eax\n"
	"	syscall\n"
	"	hlt\n"
	/* long clone_run(flags, stack_top, fn, arg): the child calls fn(arg)
	   on its own stack and exits with its value */
	".globl clone_run\n"
	"clone_run:\n"
	"	sub $16, %rsi\n"
	"	mov %rdx, 0(%rsi)\n"
	"	mov %rcx, 8(%rsi)\n"
	"	xor %edx, %edx\n"
	"	xor %r10d, %r10d\n"
	"	xor %r8d, %r8d\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	xor %ebp, %ebp\n"
	"	pop %rax\n"
	"	pop %rdi\n"
	"	call *%rax\n"
	"	mov %eax, %edi\n"
	"	mov $60, %eax\n"
	"	syscall\n"
	"	hlt\n"
	"1:	ret\n");
#elif defined(__aarch64__)
static long
sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

__asm__(".text\n"
	".globl _start\n"
	"_start:\n"
	"	mov x29, xzr\n"
	"	bl helper_main\n"
	"	mov x8, #94\n"
	"	svc 0\n"
	".globl clone_run\n"
	"clone_run:\n"
	"	stp x2, x3, [x1, #-16]!\n"
	"	mov x8, #220\n"
	"	mov x2, xzr\n"
	"	mov x3, xzr\n"
	"	mov x4, xzr\n"
	"	svc 0\n"
	"	cbnz x0, 1f\n"
	"	ldp x1, x0, [sp], #16\n"
	"	mov x29, xzr\n"
	"	blr x1\n"
	"	mov x8, #93\n"
	"	svc 0\n"
	"1:	ret\n");
#else
#error "the spawner helper knows x86_64 and aarch64"
#endif

#define sys(n, a, b, c) sys6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)

long clone_run(long flags, void *stack_top, int (*fn)(void *), void *arg);
int helper_main(void);

/* The compiler may call these for struct copies. */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

void *
memset(void *d, int c, size_t n)
{
	unsigned char *p = d;

	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *
memcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}

static unsigned char child_stack[STACK_SIZE] __attribute__((aligned(16)));

struct run {
	struct ty_helper_req req;
	struct ty_helper_shm *shm;
	int fds[3];
	const char *path;
	char **argv, **envp;
	long parent; /* tachy's pid: the runs' parent (CLONE_PARENT) */
};

static int
child_main(void *arg)
{
	struct run *R = arg;
	uint32_t zero = 0;
	long r, ru[18]; /* struct rusage: two timevals, then 14 longs */
	int i;

	if (!(R->req.flags & TY_HELPER_SAME_GROUP))
		sys(__NR_setpgid, 0, 0, 0);
	else if ((r = sys(__NR_setpgid, 0, R->req.pgid, 0)) < 0)
		goto fail; /* tachy's group, where its terminal's signals go */
	/* After the prctl, the parent must still be tachy (it may have died
	 * just before: then no signal would ever come). */
	if ((R->req.flags & TY_HELPER_PDEATHSIG) &&
	    (sys(__NR_prctl, PR_SET_PDEATHSIG, SIGKILL, 0) < 0 ||
	     sys(__NR_getppid, 0, 0, 0) != R->parent))
		sys(__NR_exit_group, 127, 0, 0);
	for (i = 0; i < 3; i++) {
		r = sys(__NR_dup3, R->fds[i], i, 0);
		if (r < 0)
			goto fail;
	}
	if (R->req.flags & TY_HELPER_CPUS) {
		r = sys(__NR_sched_setaffinity, 0, sizeof(R->req.cpus), R->req.cpus);
		if (r < 0)
			goto fail;
	}
	/* tachy is usually on our CPU (lib/spawn.c holds it and us there),
	 * woken by our reply: let it attach the counters and release us now,
	 * rather than sleep and be woken (a wake-up may place us on another,
	 * idle CPU, whose wake-up at our exit is slow in a virtual machine). */
	if (!__atomic_load_n(&R->shm->go, __ATOMIC_ACQUIRE))
		sys(__NR_sched_yield, 0, 0, 0);
	if (__atomic_compare_exchange_n(&R->shm->go, &zero, 2, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		while (__atomic_load_n(&R->shm->go, __ATOMIC_ACQUIRE) == 2)
			sys6(__NR_futex, (long)&R->shm->go, FUTEX_WAIT, 2, 0, 0, 0);
	/* The switches so far are ours (a yield, a sleep on the futex): the
	 * run's rusage counts them, tachy takes them off. */
	if (sys(__NR_getrusage, 0 /* RUSAGE_SELF */, ru, 0) == 0) {
		R->shm->pre_csw[0] = ru[16]; /* ru_nvcsw */
		R->shm->pre_csw[1] = ru[17]; /* ru_nivcsw */
	}
	r = sys(__NR_execve, R->path, R->argv, R->envp);
fail:
	R->shm->child_errno = (int)-r;
	sys(__NR_exit_group, 127, 0, 0);
	return 127;
}

static int
write_all(const void *buf, size_t n)
{
	const char *p = buf;
	long r;

	while (n) {
		r = sys(__NR_write, 0, p, n);
		if (r == -4) /* EINTR */
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int
read_all(void *buf, size_t n)
{
	char *p = buf;
	long r;

	while (n) {
		r = sys(__NR_read, 0, p, n);
		if (r == -4)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Our own peak RSS (VmHWM of /proc/self/status) in KiB, 0 when unknown:
 * the floor under every run's ru_maxrss. */
static long
own_hwm_kb(void)
{
	static char buf[4096];
	long fd, n, kb = 0;
	char *p, *end;

	fd = sys6(__NR_openat, -100, (long)"/proc/self/status", O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return 0;
	n = sys(__NR_read, fd, buf, sizeof(buf) - 1);
	sys(__NR_close, fd, 0, 0);
	if (n <= 0)
		return 0;
	end = buf + n;
	for (p = buf; p + 6 < end; p++) {
		if ((p == buf || p[-1] == '\n') && p[0] == 'V' && p[1] == 'm' && p[2] == 'H' &&
		    p[3] == 'W' && p[4] == 'M' && p[5] == ':') {
			for (p += 6; p < end && (*p == ' ' || *p == '\t'); p++)
				;
			for (; p < end && *p >= '0' && *p <= '9'; p++)
				kb = kb * 10 + (*p - '0');
			return kb;
		}
	}
	return 0;
}

/* The request's strings, and the pointer arrays to them, in one mapping
 * that grows when a request needs more. */
static char *area;
static size_t area_size;

static int
area_fit(size_t need, size_t keep)
{
	long p;

	if (need <= area_size)
		return 0;
	need = (need + 65535) & ~(size_t)65535;
	p = sys6(__NR_mmap, 0, (long)need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	if (p < 0 && p > -4096)
		return -1;
	if (area) {
		memcpy((char *)p, area, keep);
		sys(__NR_munmap, area, area_size, 0);
	}
	area = (char *)p;
	area_size = need;
	return 1;
}

/* A request: its header and fds in R, and as much of its strings as came
 * with them at the start of the area (*GOT bytes). */
static int
recv_req(struct run *R, size_t *got)
{
	struct k_cmsghdr cm;
	struct k_iovec iov[2] = {{&R->req, sizeof(R->req)}, {area, area_size}};
	struct k_msghdr mh;
	struct k_pollfd pfd = {0, POLLIN, 0};
	long r;

	memset(&mh, 0, sizeof(mh));
	memset(&cm, 0, sizeof(cm));
	mh.iov = iov;
	mh.iovlen = area ? 2 : 1;
	mh.control = &cm;
	mh.controllen = sizeof(cm);
	/* Wait in ppoll, not in recvmsg: a reader blocked in recvmsg is also
	 * woken each time tachy reads our reply (the socket's write-space
	 * wake-up), which would cost two context switches per run. */
	do
		r = sys6(__NR_ppoll, (long)&pfd, 1, 0, 0, 0, 0);
	while (r == -4);
	if (r < 0)
		return -1;
	do
		r = sys(__NR_recvmsg, 0, &mh, MSG_CMSG_CLOEXEC);
	while (r == -4);
	if (r <= 0)
		return -1;
	if (cm.level != SOL_SOCKET || cm.type != SCM_RIGHTS ||
	    cm.len != offsetof(struct k_cmsghdr, fds) + sizeof(cm.fds))
		return -1;
	R->fds[0] = cm.fds[0];
	R->fds[1] = cm.fds[1];
	R->fds[2] = cm.fds[2];
	*got = (size_t)r > sizeof(R->req) ? (size_t)r - sizeof(R->req) : 0;
	if ((size_t)r < sizeof(R->req) && read_all((char *)&R->req + r, sizeof(R->req) - (size_t)r))
		return -1;
	return 0;
}

static struct ty_helper_shm *shm;

/* Sleep NS nanoseconds. */
static void
nap(long ns)
{
	long ts[2] = {0, ns};

	sys(__NR_nanosleep, ts, 0, 0);
}

/* Kill each process in cgroup.procs (PATH) but us; returns how many there
 * were, or -1 when the file cannot be read. */
static long
kill_procs(const char *path, long self)
{
	static char buf[4096];
	long fd, n, pid = -1, others = 0;
	int i;

	fd = sys6(__NR_openat, -100, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return -1;
	while ((n = sys(__NR_read, fd, buf, sizeof(buf))) > 0 || n == -4) {
		for (i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				pid = (pid < 0 ? 0 : pid * 10) + (buf[i] - '0');
				continue;
			}
			if (pid > 0 && pid != self) {
				sys(__NR_kill, pid, SIGKILL, 0);
				others++;
			}
			pid = -1;
		}
	}
	sys(__NR_close, fd, 0, 0);
	if (pid > 0 && pid != self) {
		sys(__NR_kill, pid, SIGKILL, 0);
		others++;
	}
	return others;
}

/* PATH (room for 16 more bytes) is DIR (N bytes) with "/NAME" after it. */
static const char *
in_dir(char *path, size_t n, const char *name)
{
	size_t i;

	path[n] = '/';
	for (i = 0; name[i]; i++)
		path[n + 1 + i] = name[i];
	path[n + 1 + i] = 0;
	return path;
}

/* Write the decimal V to the file PATH; 0 when it took it. */
static int
write_num(const char *path, long v)
{
	char num[24], *p = num + sizeof(num);
	long fd, r;

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	fd = sys6(__NR_openat, -100, (long)path, O_WRONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return -1;
	r = sys(__NR_write, fd, p, num + sizeof(num) - p);
	sys(__NR_close, fd, 0, 0);
	return r == num + sizeof(num) - p ? 0 : -1;
}

/* tachy died: kill what its runs left (see the top). */
static void
reap(void)
{
	static char path[sizeof(shm->cgroup) + 16], parent[sizeof(path)];
	int32_t group = __atomic_load_n(&shm->watch, __ATOMIC_ACQUIRE);
	long self = sys(__NR_getpid, 0, 0, 0), ns = 1000000;
	size_t n = 0, up;
	int round, out;

	/* the kernel sends a group's signal to a child being forked too */
	if (group > 0)
		sys(__NR_kill, -group, SIGKILL, 0);
	while (n < sizeof(shm->cgroup) - 1 && shm->cgroup[n])
		path[n] = parent[n] = shm->cgroup[n], n++;
	if (n == 0 || path[0] != '/')
		return;
	/* Out of the group first (into tachy's, its parent), so as to remove
	 * it once empty; where we may not, we stay and spare ourselves. */
	for (up = n - 1; up > 0 && path[up] != '/'; up--)
		;
	out = up > 0 && write_num(in_dir(parent, up, "cgroup.procs"), self) == 0;
	if (out) /* cgroup v2, Linux >= 5.14: the whole group at once */
		write_num(in_dir(path, n, "cgroup.kill"), 1);
	/* Else (cgroup v1) each process: one forked while we read escapes one
	 * round, not the next; bounded (about 20 s) should some keep coming. */
	for (round = 0; round < 400 && kill_procs(in_dir(path, n, "cgroup.procs"), self) > 0;
	     round++) {
		nap(ns);
		if (ns < 50000000)
			ns *= 2;
	}
	path[n] = 0;
	/* what was just killed may hold the group a moment (EBUSY) */
	for (round = 0, ns = 1000000; out && round < 40; round++) {
		if (sys(__NR_unlinkat, -100, path, 0x200 /* AT_REMOVEDIR */) != -16 /* EBUSY */)
			break;
		nap(ns);
		if (ns < 50000000)
			ns *= 2;
	}
}

static int serve(void);

int
helper_main(void)
{
	long r = sys6(__NR_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 1, 0);
	int rc;

	if (r < 0 && r > -4096)
		return 1;
	shm = (struct ty_helper_shm *)r;
	rc = serve();
	if (!__atomic_load_n(&shm->bye, __ATOMIC_ACQUIRE))
		reap();
	return rc;
}

static int
serve(void)
{
	struct ty_helper_pid hp;
	struct run R;
	long r, pid;
	size_t got;
	int i, grew = 1;
	char **v;
	char *s;

	/* The child's stack is in our peak from the start, so that the floor
	 * read before a clone is the floor at the child's exec. */
	for (i = 0; i < STACK_SIZE; i += 4096)
		((volatile unsigned char *)child_stack)[i] = 0;
	memset(&R, 0, sizeof(R));
	R.shm = shm;
	R.parent = sys(__NR_getppid, 0, 0, 0);
	for (;;) {
		/* R is not touched until the next request has come: the last
		 * child may read it until it execs, and tachy asks again only
		 * once it has reaped that child. */
		if (recv_req(&R, &got) < 0)
			return 0;
		if (R.req.magic != TY_HELPER_MAGIC || R.req.len > (1u << 30) ||
		    R.req.argc + R.req.envc > (1u << 24) || got > R.req.len)
			return 1;
		r = area_fit(((R.req.len + 15) & ~(size_t)15) +
				 ((size_t)R.req.argc + R.req.envc + 2) * sizeof(char *),
			     got);
		if (r < 0)
			return 1;
		grew |= (int)r;
		if (got < R.req.len && read_all(area + got, R.req.len - got) < 0)
			return 1;
		/* path\0 argv[0]\0 ... argv[argc-1]\0 envp[0]\0 ... */
		v = (char **)(area + ((R.req.len + 15) & ~(size_t)15));
		s = area;
		for (i = -1; i < (int)(R.req.argc + R.req.envc); i++) {
			char *end = area + R.req.len;
			if (i == -1)
				R.path = s;
			else if ((uint32_t)i < R.req.argc)
				v[i] = s;
			else
				v[i + 1] = s;
			while (s < end && *s)
				s++;
			if (s >= end)
				return 1;
			s++;
		}
		v[R.req.argc] = 0;
		v[R.req.argc + 1 + R.req.envc] = 0;
		R.argv = v;
		R.envp = v + R.req.argc + 1;
		if (grew) { /* the strings' pages are in our peak from now on */
			shm->floor_kb = own_hwm_kb();
			grew = 0;
		}
		__atomic_store_n(&shm->go, 0, __ATOMIC_RELEASE);
		shm->child_errno = 0;
		shm->pre_csw[0] = shm->pre_csw[1] = 0;
		/* tachy's child; its exit signal is ours (SIGCHLD) */
		pid = clone_run(CLONE_VM | CLONE_PARENT | SIGCHLD, child_stack + STACK_SIZE,
				child_main, &R);
		hp.pid = (int32_t)pid;
		if (write_all(&hp, sizeof(hp)) < 0)
			return 1;
		/* after the reply: tachy waits for it, not for this */
		for (i = 0; i < 3; i++)
			sys(__NR_close, R.fds[i], 0, 0);
	}
}
