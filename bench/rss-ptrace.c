/* rss-ptrace.c - the road not taken for tachy run's peak RSS, measured:
 * N runs of a program, each traced (vfork, PTRACE_TRACEME, stopped at its
 * exec) to its exit stop (PTRACE_O_TRACEEXIT) where /proc/PID/status gives its own VmHWM, then
 * reaped with wait4. bench/rss-methods.sh compares its time with the
 * posix_spawn loop (bench/spawnloop.c) and with tachy's spawner helper.
 *   rss-ptrace N PROG [ARG...]   prints the largest VmHWM seen, in KiB */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long
hwm_kb(pid_t pid)
{
	char path[64], buf[4096], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\nVmHWM:");
	return p ? atol(p + 7) : -1;
}

int
main(int argc, char **argv)
{
	long i, n, kb, max = 0;
	struct rusage ru;
	pid_t pid;
	int st;

	if (argc < 3) {
		fprintf(stderr, "usage: rss-ptrace N PROG [ARG...]\n");
		return 2;
	}
	n = atol(argv[1]);
	for (i = 0; i < n; i++) {
		pid = vfork();
		if (pid == 0) { /* traced from its exec on: it stops there */
			ptrace(PTRACE_TRACEME, 0, 0, 0);
			execv(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0)
			return 1;
		if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st) ||
		    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACEEXIT) != 0) {
			perror("ptrace");
			return 1;
		}
		ptrace(PTRACE_CONT, pid, 0, 0);
		for (;;) {
			if (waitpid(pid, &st, 0) < 0)
				return 1;
			if (WIFEXITED(st) || WIFSIGNALED(st))
				break;
			if (WIFSTOPPED(st) && st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
				kb = hwm_kb(pid);
				if (kb > max)
					max = kb;
				ptrace(PTRACE_CONT, pid, 0, 0);
				wait4(pid, &st, 0, &ru);
				break;
			}
			ptrace(PTRACE_CONT, pid, 0, WIFSTOPPED(st) ? WSTOPSIG(st) : 0);
		}
	}
	printf("%ld\n", max);
	return 0;
}
