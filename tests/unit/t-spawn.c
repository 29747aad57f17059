/* t-spawn.c - the held child: resolution, hold, release, reap, fds, kill. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "tachy/spawn.h"

extern char **environ;

static struct ty_spawner sp;

/* Run ARGV (resolved) with stdout to OUT_FD; returns the wait status code. */
static int
run(char **argv, int out_fd, int64_t timeout_ns, volatile int *stop, struct ty_usage *u,
    struct ty_exit *x)
{
	struct ty_spawn_opts o = {0};
	struct ty_error e;
	char path[PATH_MAX];
	pid_t pid;

	if (ty_spawn_resolve(argv[0], path, sizeof(path), &e) < 0)
		return -1;
	o.path = path;
	o.argv = argv;
	o.envp = environ;
	o.fd[0] = -1;
	o.fd[1] = out_fd;
	o.fd[2] = -1;
	o.drain_fd = -1;
	o.want_pidfd = timeout_ns > 0 || stop;
	pid = ty_spawn_create(&sp, &o, &e);
	if (pid < 0)
		return -1;
	ty_spawn_go(&sp);
	return ty_spawn_wait(&sp, timeout_ns, stop, u, x, &e);
}

static void
test_resolve(void)
{
	struct ty_error e;
	char buf[PATH_MAX];

	CHECK_INT(ty_spawn_resolve("sh", buf, sizeof(buf), &e), 0);
	CHECK(buf[0] == '/');
	CHECK_INT(ty_spawn_resolve("no-such-program-tachy", buf, sizeof(buf), &e), -ENOENT);
	CHECK(strstr(e.msg, "command not found") != NULL);
	CHECK_INT(ty_spawn_resolve("/etc", buf, sizeof(buf), &e), -EACCES);
	CHECK(strstr(e.msg, "directory") != NULL);
	CHECK_INT(ty_spawn_resolve("/etc/passwd", buf, sizeof(buf), &e), -EACCES);
	CHECK_INT(ty_spawn_resolve("", buf, sizeof(buf), &e), -ENOENT);
	CHECK_INT(ty_spawn_resolve("/bin/sh", buf, 4, &e), -ENAMETOOLONG);
}

static void
test_exit_status(void)
{
	char *t[] = {"true", NULL}, *f[] = {"false", NULL};
	char *k[] = {"sh", "-c", "kill -TERM $$", NULL}, *x3[] = {"sh", "-c", "exit 3", NULL};
	struct ty_usage u;
	struct ty_exit x;

	CHECK_INT(run(t, -1, 0, NULL, &u, &x), 0);
	CHECK_INT(x.exit_code, 0);
	CHECK_INT(x.signal, 0);
	CHECK(u.maxrss_kb > 0);
	CHECK(u.minflt > 0);
	CHECK_INT(run(f, -1, 0, NULL, &u, &x), 0);
	CHECK_INT(x.exit_code, 1);
	CHECK_INT(run(x3, -1, 0, NULL, &u, &x), 0);
	CHECK_INT(x.exit_code, 3);
	CHECK_INT(run(k, -1, 0, NULL, &u, &x), 0);
	CHECK_INT(x.signal, SIGTERM);
	CHECK_INT(x.exit_code, -1);
}

static void
test_held(void)
{
	char *argv[] = {"sh", "-c", "exit 7", NULL};
	struct ty_spawn_opts o = {0};
	struct ty_error e;
	struct ty_usage u;
	struct ty_exit x;
	char path[PATH_MAX], link[64], exe[PATH_MAX], self[PATH_MAX];
	ssize_t n, m;
	pid_t pid;

	ty_spawn_resolve("sh", path, sizeof(path), &e);
	o.path = path;
	o.argv = argv;
	o.envp = environ;
	o.fd[0] = o.fd[1] = o.fd[2] = -1;
	o.drain_fd = -1;
	pid = ty_spawn_create(&sp, &o, &e);
	CHECK(pid > 0);
	/* Held: it has not exec'd, so it is still this test program (or the
	 * helper it was cloned from). */
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	m = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0 && m > 0);
	if (n > 0 && m > 0) {
		exe[n] = self[m] = '\0';
		if (sp.helper_fd >= 0)
			CHECK(strstr(exe, "tachy-spawner") != NULL);
		else
			CHECK_STR(exe, self);
	}
	usleep(20000);
	CHECK_INT(kill(pid, 0), 0);
	ty_spawn_go(&sp);
	CHECK_INT(ty_spawn_wait(&sp, 0, NULL, &u, &x, &e), 0);
	CHECK_INT(x.exit_code, 7);
	CHECK_INT(x.exec_errno, 0);
}

static void
test_exec_error(void)
{
	char *argv[] = {"passwd", NULL};
	struct ty_spawn_opts o = {0};
	struct ty_error e;
	struct ty_usage u;
	struct ty_exit x;

	o.path = "/etc/passwd"; /* not executable: execve fails in the child */
	o.argv = argv;
	o.envp = environ;
	o.fd[0] = o.fd[1] = o.fd[2] = -1;
	o.drain_fd = -1;
	CHECK(ty_spawn_create(&sp, &o, &e) > 0);
	ty_spawn_go(&sp);
	CHECK_INT(ty_spawn_wait(&sp, 0, NULL, &u, &x, &e), 0);
	CHECK_INT(x.exit_code, 127);
	CHECK_INT(x.exec_errno, EACCES);
}

static void
test_output_and_cpus(void)
{
	char tmpl[] = "/tmp/t-spawn-XXXXXX", buf[256] = {0};
	char *argv[] = {"grep", "^Cpus_allowed_list", "/proc/self/status", NULL};
	struct ty_spawn_opts o = {0};
	struct ty_error e;
	struct ty_usage u;
	struct ty_exit x;
	char path[PATH_MAX];
	cpu_set_t one;
	int fd = mkstemp(tmpl);

	CHECK(fd >= 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ty_spawn_resolve("grep", path, sizeof(path), &e);
	o.path = path;
	o.argv = argv;
	o.envp = environ;
	o.fd[0] = -1;
	o.fd[1] = fd;
	o.fd[2] = -1;
	o.cpus = &one;
	o.drain_fd = -1;
	CHECK(ty_spawn_create(&sp, &o, &e) > 0);
	ty_spawn_go(&sp);
	CHECK_INT(ty_spawn_wait(&sp, 0, NULL, &u, &x, &e), 0);
	CHECK_INT(x.exit_code, 0);
	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) > 0);
	CHECK_STR(buf, "Cpus_allowed_list:\t0\n");
	close(fd);
	unlink(tmpl);
}

static void
test_timeout_and_stop(void)
{
	char *argv[] = {"sleep", "5", NULL};
	struct ty_usage u;
	struct ty_exit x;
	volatile int stop = 1;

	CHECK_INT(run(argv, -1, 50000000, NULL, &u, &x), 0);
	CHECK_INT(x.timed_out, 1);
	CHECK_INT(x.signal, SIGKILL);
	/* A stop asked for: the child is killed and the wait says so. */
	CHECK_INT(run(argv, -1, 0, &stop, &u, &x), 1);
	CHECK_INT(x.signal, SIGKILL);
}

/* With the helper, a small program's peak RSS is its own: far below ours
 * (this test binary's), the floor a few dozen KiB. */
static void
test_helper_rss(void)
{
	char *argv[] = {"true", NULL};
	struct ty_usage u;
	struct ty_exit x;
	int i;

	CHECK_STR(ty_spawn_rss_method(&sp), "helper");
	for (i = 0; i < 3; i++) {
		CHECK_INT(run(argv, -1, 0, NULL, &u, &x), 0);
		CHECK_INT(x.exit_code, 0);
		CHECK(u.maxrss_floor_kb > 0 && u.maxrss_floor_kb < 256);
		CHECK(u.maxrss_kb > u.maxrss_floor_kb);
	}
}

/* The runs are our own children (the helper clones them with
 * CLONE_PARENT), in a process group of their own, and their arguments,
 * environment and descriptors are the ones given (a spare child is cloned
 * before they are known). */
static void
test_parent_and_group(void)
{
	char tmpl[] = "/tmp/t-spawn-XXXXXX", buf[256] = {0}, want[256];
	char *argv[] = {"sh", "-c",
			"read -r s </proc/$$/stat; set -- $s; echo $PPID $5 $$ \"$TSPAWN\"", NULL};
	char *envp[] = {"TSPAWN=a b", "PATH=/usr/bin:/bin", NULL};
	struct ty_spawn_opts o = {0};
	struct ty_error e;
	struct ty_usage u;
	struct ty_exit x;
	char path[PATH_MAX];
	int fd = mkstemp(tmpl), i;
	pid_t pid;

	CHECK(fd >= 0);
	ty_spawn_resolve("sh", path, sizeof(path), &e);
	o.path = path;
	o.argv = argv;
	o.envp = envp;
	o.fd[0] = -1;
	o.fd[1] = fd;
	o.fd[2] = -1;
	o.drain_fd = -1;
	for (i = 0; i < 6; i++) {
		/* a child killed at once (maybe before it read what to run, which
		 * must then not be left to the next) */
		char *sl[] = {"sleep", "5", NULL};
		volatile int stop = 1;
		struct ty_exit kx;

		CHECK_INT(run(sl, -1, 0, &stop, &u, &kx), 1);
		CHECK(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0);
		CHECK((pid = ty_spawn_create(&sp, &o, &e)) > 0);
		ty_spawn_go(&sp);
		CHECK_INT(ty_spawn_wait(&sp, 0, NULL, &u, &x, &e), 0);
		CHECK_INT(x.exit_code, 0);
		memset(buf, 0, sizeof(buf));
		CHECK(pread(fd, buf, sizeof(buf) - 1, 0) > 0);
		snprintf(want, sizeof(want), "%ld %ld %ld a b\n", (long)getpid(), (long)pid,
			 (long)pid);
		CHECK_STR(buf, want);
	}
	close(fd);
	unlink(tmpl);
}

static void
all_tests(void)
{
	test_exit_status();
	test_held();
	test_exec_error();
	test_output_and_cpus();
	test_timeout_and_stop();
	test_parent_and_group();
}

int
main(void)
{
	struct ty_error e;

	CHECK_INT(ty_spawn_init(&sp, &e), 0);
	CHECK_STR(ty_spawn_rss_method(&sp), "self");
	test_resolve();
	all_tests();
	/* the same through the helper */
	CHECK_INT(ty_spawn_start_helper(&sp, &e), 0);
	if (sp.helper_fd >= 0) {
		all_tests();
		test_helper_rss();
	}
	ty_spawn_release(&sp);
	/* nothing of ours is left: no run, no spare child, no helper */
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
	return check_done();
}
