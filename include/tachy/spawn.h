/* spawn.h - create a child held before exec, release it, reap it.
 *
 * The child is created with clone(CLONE_VM) on a small private stack (no
 * copy of the parent's page tables, which is what makes fork() slow), puts
 * itself in its own process group, sets up its file descriptors and CPU
 * affinity, and then waits on a futex until the parent releases it; only
 * then does it execve(). The parent can attach performance counters to the
 * held pid and read the clock right before the release, so the set-up costs
 * stay outside the measured window. The resource figures come from wait4()
 * of that child alone (never RUSAGE_CHILDREN, which mixes children).
 *
 * One spawner holds at most one child at a time (the child borrows the
 * spawner's stack until it execs or exits).
 *
 * Peak memory: at exec Linux folds the high-water RSS of the address space
 * the child was cloned from into the child's ru_maxrss, so a child cloned
 * from tachy never shows less than tachy's own peak (megabytes). After
 * ty_spawn_start_helper() the children are cloned instead by a tiny helper
 * process (lib/spawner/helper.c, no libc, a few dozen KiB) that tachy
 * starts once: their ru_maxrss is then their own. The helper clones them
 * with CLONE_PARENT, so they are still our children (reaped, killed and
 * waited for as the ones we clone).
 *
 * A SIGKILLed tachy: a child with pdeathsig gets that signal, but what it
 * started does not. So the helper outlives tachy: when tachy's end of its
 * socket closes without a goodbye (ty_spawn_release), it SIGKILLs the
 * current child's process group, and every process in the runs' cgroup if
 * one was named (ty_spawn_guard_cgroup). Where tachy clones the children
 * itself, ty_spawn_create starts the same program as a guard that only
 * does that. A process that left the group (setsid) and is in no such
 * cgroup is out of its reach, as is a child that shares tachy's group. */
#ifndef TACHY_SPAWN_H
#define TACHY_SPAWN_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include "tachy/error.h"

/* What the child is to run and with what. */
struct ty_spawn_opts {
	const char *path;      /* resolved executable (see ty_spawn_resolve) */
	char *const *argv;     /* argv[0] is passed as is */
	char *const *envp;     /* the environment */
	int fd[3];	       /* dup2()ed onto 0, 1, 2 in the child; -1 leaves it as is */
	const cpu_set_t *cpus; /* sched_setaffinity() before exec, or NULL */
	int drain_fd;	       /* >= 0: the parent reads and discards this pipe while waiting */
	int want_pidfd;	       /* ask for a pidfd (needed for timeouts and draining) */
	int pdeathsig;	       /* > 0: the child gets this signal when its parent dies,
				  and its process group SIGKILL (see above) */
	int same_group;	       /* stay in the parent's process group (a terminal's
				  foreground job: Ctrl-C reaches the child directly) */
};

/* What wait4() said about one child. Times in nanoseconds. */
struct ty_usage {
	int64_t user_ns, system_ns;
	long maxrss_kb;	      /* ru_maxrss, kilobytes */
	long maxrss_floor_kb; /* the peak RSS (VmHWM) of the process the child was
				 cloned from: Linux folds it into the child's
				 ru_maxrss at exec, so a maxrss_kb not above it says
				 nothing of the command; 0 when unknown (the helper's
				 is set by ty_spawn_wait, tachy's by the runner) */
	long tree_peak_kb;    /* the peak charge of the run's memory cgroup (the whole
				 tree, see memcg.h), 0 when none (set by the runner) */
	long minflt, majflt;  /* page faults without / with I/O */
	long nvcsw, nivcsw;   /* voluntary / involuntary context switches */
};

/* How the child ended. */
struct ty_exit {
	int exit_code;	 /* exit status when exited, else -1 */
	int signal;	 /* terminating signal, else 0 */
	int timed_out;	 /* killed by the parent after the timeout */
	int exec_errno;	 /* execve() (or set-up) failed in the child with this errno, else 0 */
	int core_dumped; /* the terminating signal left a core dump */
};

struct ty_spawner {
	void *stack; /* the child's stack until it execs */
	size_t stack_size;
	/* Shared with the held child (same address space until exec). */
	volatile uint32_t go;	  /* futex word: 0 hold, 1 go */
	volatile int child_errno; /* set by the child when a set-up step or execve fails */
	volatile long pre_csw[2]; /* its voluntary and involuntary context switches
				     before execve: ours, taken off the run's */
	pid_t parent;		  /* who clones: the child's check after PR_SET_PDEATHSIG */
	/* The current child. */
	pid_t pid;
	int pidfd; /* -1 unless asked for */
	const struct ty_spawn_opts *opts;
	/* The helper (ty_spawn_start_helper), else helper_fd is -1. */
	pid_t helper_pid;
	int helper_fd;	  /* stream socket to it */
	void *helper_shm; /* the page shared with it and its children */
	char *req;	  /* the strings of a request, grown as needed */
	size_t req_cap;
	struct ty_spawner *launcher; /* the held child that became the helper */
	int pinned;		     /* we and the helper are held on one CPU: 1, could not
					be: -1, not tried yet: 0 (see helper_pin in spawn.c) */
	cpu_set_t orig;		     /* our affinity before that: the runs get it back */
	int no_pin;		     /* set by the caller: never pin (tachy run's
					TACHY_SPAWN_PIN=0) */
	int guard_fd;		     /* the socket to the helper when it clones nothing
					(a guard, see above; helper_fd is then -1), else -1 */
	int guard_tried;	     /* a guard was asked for once (it may have failed) */
};

/* Set up SP (allocates the child stack). Returns 0 or -ENOMEM with E set. */
int ty_spawn_init(struct ty_spawner *sp, struct ty_error *e);

/* Start the helper that clones the children from now on (see above).
 * Returns 0, or a negative errno with E set when it cannot be had (built
 * without it, no memfd, an exec-forbidding sysctl): SP then goes on
 * cloning the children itself. */
int ty_spawn_start_helper(struct ty_spawner *sp, struct ty_error *e);

/* Name the cgroup directory DIR (absolute) that the children are born in:
 * should tachy die, the helper kills every process in it. Nothing when no
 * helper runs. */
void ty_spawn_guard_cgroup(struct ty_spawner *sp, const char *dir);

/* How the children's peak RSS is measured: "helper" (wait4 of a child the
 * helper cloned: its floor is the helper's own peak, in usage.maxrss_floor_kb)
 * or "self" (wait4 of a child cloned from tachy: the floor is tachy's). */
const char *ty_spawn_rss_method(const struct ty_spawner *sp);

/* Free what SP holds (and end the helper). A held child must have been
 * reaped first. */
void ty_spawn_release(struct ty_spawner *sp);

/* Find NAME as execvp() would (PATH search when it has no slash) and check
 * that it is an executable regular file. Writes the path to BUF (SIZE
 * bytes). Returns 0, or -ENOENT/-EACCES/-ENAMETOOLONG with E set to
 * "cannot run 'NAME': ...". */
int ty_spawn_resolve(const char *name, char *buf, size_t size, struct ty_error *e);

/* Whether the kernel will take this process's perf events off the program
 * PATH when it is exec'd: an exec that changes credentials (a set-user-ID
 * program of another user, a set-group-ID one of another group, unless the
 * file system is nosuid or no_new_privs is set) or of a file this user
 * cannot read leaves the process not dumpable, and the kernel then neither
 * samples nor counts it for us. Returns 1 with WHY (SIZE bytes) saying
 * which, e.g. "/usr/bin/su is set-user-ID root"; 0 when it can be
 * observed (or PATH cannot be looked at). */
int ty_spawn_unobservable(const char *path, char *why, size_t size);

/* Create the child described by O, held before exec. O and everything it
 * points to must stay valid until the child is reaped. Returns the pid, or
 * a negative errno with E set. */
pid_t ty_spawn_create(struct ty_spawner *sp, const struct ty_spawn_opts *o, struct ty_error *e);

/* Release the held child: let it exec. */
void ty_spawn_go(struct ty_spawner *sp);

/* Wait for the child, draining O->drain_fd if any; when TIMEOUT_NS > 0 and
 * it runs longer, kill its process group and mark it timed out. When
 * *STOP becomes non-zero (a signal handler sets it; the wait is then
 * interrupted with EINTR) kill the process group too. Fills U and X.
 * Returns 0, 1 when *STOP was set (the run is to be discarded: the child
 * was killed, or ended while the stop came), or a negative errno with E
 * set. */
int ty_spawn_wait(struct ty_spawner *sp, int64_t timeout_ns, volatile int *stop, struct ty_usage *u,
		  struct ty_exit *x, struct ty_error *e);

/* Reap the child if it has ended, without waiting: returns 1 and fills U
 * and X when it was reaped, 0 while it runs, or a negative errno with E
 * set. */
int ty_spawn_try_wait(struct ty_spawner *sp, struct ty_usage *u, struct ty_exit *x,
		      struct ty_error *e);

/* Kill the process group of the current child (and the child) with SIG. */
void ty_spawn_kill(struct ty_spawner *sp, int sig);

#endif
