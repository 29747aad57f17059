/* spawnloop.c - the peer of bench/run-overhead.sh: the least a harness can
 * do, N runs of a program with posix_spawn + wait4, nothing else. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

int
main(int argc, char **argv)
{
	struct rusage ru;
	long i, n;
	pid_t pid;
	int st;

	if (argc < 3) {
		fprintf(stderr, "usage: spawnloop N PROG [ARG...]\n");
		return 2;
	}
	n = atol(argv[1]);
	for (i = 0; i < n; i++) {
		if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0) {
			perror("posix_spawn");
			return 1;
		}
		if (wait4(pid, &st, 0, &ru) < 0) {
			perror("wait4");
			return 1;
		}
	}
	return 0;
}
