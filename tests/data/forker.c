/* forker.c - a process tree for the tests of what a SIGKILLed tachy leaves:
 * forker N FILE forks N children; each appends its pid to FILE (one line,
 * one write) and then blocks for good, as does the parent. The test knows
 * that all have started when FILE has N lines. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char line[32];
	int i, n, fd, len;

	if (argc != 3 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: forker N FILE\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("forker: fork");
			return 1;
		}
		if (pid == 0) {
			len = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
			fd = open(argv[2], O_WRONLY | O_APPEND | O_CREAT, 0644);
			if (fd < 0 || write(fd, line, (size_t)len) != len)
				_exit(1);
			close(fd);
			for (;;)
				pause();
		}
	}
	for (;;)
		pause();
}
