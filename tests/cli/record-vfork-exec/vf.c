/* vf.c - N rounds of vfork() + execve() of itself ("vf child"): each
 * child spins in child_work() for 3 ms of its CPU time, the parent in
 * parent_work() for 2 ms between the rounds (CPU time, not a count of
 * iterations: the same number of samples on a fast machine as on a slow
 * one). Samples fall in the parent, in the child before its exec (in the
 * parent's image), inside the exec, and after it. */
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

__attribute__((noipa)) void
parent_work(long long ns)
{
	long long end = cpu_ns() + ns;
	unsigned long i;

	do
		for (i = 0; i < 10000; i++)
			sink += i * 7;
	while (cpu_ns() < end);
}

int
main(int argc, char **argv)
{
	int i, st;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		child_work(3000000);
		return 0;
	}
	for (i = 0; i < 100; i++) {
		char *args[] = {argv[0], "child", NULL};
		pid_t pid = vfork();
		if (pid == 0) {
			execve("/proc/self/exe", args, environ);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		parent_work(2000000);
	}
	return 0;
}
