/* vf.c - N rounds of vfork() + execve() of itself ("vf child"): each
 * child spins in child_work() for a while, the parent in parent_work()
 * between the rounds. Samples fall in the parent, in the child before its
 * exec (in the parent's image) and after it. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

volatile unsigned long sink;
extern char **environ;

__attribute__((noipa)) void
child_work(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i ^ (i >> 3);
}

__attribute__((noipa)) void
parent_work(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i * 7;
}

int
main(int argc, char **argv)
{
	int i, st;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		child_work(2000000);
		return 0;
	}
	for (i = 0; i < 150; i++) {
		char *args[] = {argv[0], "child", NULL};
		pid_t pid = vfork();
		if (pid == 0) {
			execve("/proc/self/exe", args, environ);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		parent_work(500000);
	}
	return 0;
}
