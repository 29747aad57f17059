/* ep.c - N rounds of starting itself ("ep child"), by vfork() + execve()
 * and by posix_spawn() in turn; each child spins in child_work() for 1 ms
 * of its CPU time. Samples fall inside each exec: before the point of no
 * return, with the old image's stack, and after it, without. */
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;
extern char **environ;

static long long
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noipa)) void
child_work(long long ns)
{
	long long end = cpu_ns() + ns;
	unsigned long i;

	do
		for (i = 0; i < 10000; i++)
			sink += i ^ (i >> 3);
	while (cpu_ns() < end);
}

__attribute__((noipa)) pid_t
start_vfork(char **args)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execve("/proc/self/exe", args, environ);
		_exit(127);
	}
	return pid;
}

__attribute__((noipa)) pid_t
start_spawn(char **args)
{
	pid_t pid;

	return posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) ? -1 : pid;
}

int
main(int argc, char **argv)
{
	int i, st;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		child_work(1000000);
		return 0;
	}
	for (i = 0; i < 300; i++) {
		char *args[] = {argv[0], "child", NULL};
		pid_t pid = i % 2 ? start_spawn(args) : start_vfork(args);
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	return 0;
}
