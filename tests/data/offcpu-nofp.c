/* offcpu-nofp.c - built -O2 without frame pointers: main sleeps in
 * nanosleep (nap) and blocks reading a pipe (wait_pipe), and a thread
 * blocks reading another (reader -> wait_pipe), each ROUNDS times (default
 * 10); a child process writes the bytes. The off-CPU chains of
 * record --off-cpu -g must reach main and the thread's start through
 * these frames.
 *
 * Every read blocks, however the machine schedules the three: before each
 * read the reader says so on a third pipe, and the child writes its byte
 * only once /proc shows that thread asleep (it can then only be asleep in
 * that read). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int a[2], b[2], go[2], rounds = 10;
static volatile long reader_tid;

__attribute__((noipa)) static int
wait_pipe(int fd)
{
	char c;

	return (int)read(fd, &c, 1);
}

__attribute__((noipa)) static void
nap(void)
{
	struct timespec ts = {0, 2000000};

	nanosleep(&ts, NULL);
}

__attribute__((noipa)) static void *
reader(void *arg)
{
	int i;

	(void)arg;
	reader_tid = syscall(SYS_gettid);
	for (i = 0; i < rounds; i++)
		if (write(go[1], "r", 1) != 1 || wait_pipe(b[0]) != 1)
			exit(1);
	return NULL;
}

/* Writes V in decimal at P; returns the end (no stdio after fork in a
 * threaded process). */
static char *
put_num(char *p, long v)
{
	char d[24];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	while (n > 0)
		*p++ = d[--n];
	return p;
}

/* Waits until thread TID of process PID is asleep ('S' in its stat). */
static void
until_asleep(long pid, long tid)
{
	struct timespec ts = {0, 100000};
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	p = put_num(stpcpy(path, "/proc/"), pid);
	p = put_num(stpcpy(p, "/task/"), tid);
	strcpy(p, "/stat");
	for (;;) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			_exit(1);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			_exit(1);
		buf[n] = '\0';
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		nanosleep(&ts, NULL);
	}
}

int
main(int argc, char **argv)
{
	pthread_t t;
	long me = (long)getpid(), tid;
	char c;
	int i;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (pipe(a) < 0 || pipe(b) < 0 || pipe(go) < 0)
		return 1;
	if (pthread_create(&t, NULL, reader, NULL) != 0)
		return 1;
	while (!reader_tid)
		sched_yield();
	tid = reader_tid;
	if (fork() == 0) {
		for (i = 0; i < 2 * rounds; i++) {
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			until_asleep(me, c == 'm' ? me : tid);
			if (write(c == 'm' ? a[1] : b[1], c == 'm' ? "x" : "y", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	for (i = 0; i < rounds; i++) {
		nap();
		if (write(go[1], "m", 1) != 1 || wait_pipe(a[0]) != 1)
			return 1;
	}
	pthread_join(t, NULL);
	return 0;
}
