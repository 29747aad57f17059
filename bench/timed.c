/* timed.c - run a command, print its wall time and CPU time (user + system
 * of it and its waited-for children) in seconds to the microsecond:
 * /usr/bin/time gives the CPU time in hundredths, too coarse for a start-up.
 * Usage: timed OUTFILE CMD ARGS... (the command's output is its own) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *fp;

	if (argc < 3) {
		fprintf(stderr, "usage: timed OUTFILE CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) {
		perror("timed");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	fp = fopen(argv[1], "w");
	if (!fp) {
		perror(argv[1]);
		return 2;
	}
	fprintf(fp, "%.6f %.6f\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	fclose(fp);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
