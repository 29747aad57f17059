/* offcpu-nofp.c - built -O2 without frame pointers: main sleeps in
 * nanosleep (nap) and blocks reading a pipe (wait_pipe), and a thread
 * blocks reading another (reader -> wait_pipe), each ROUNDS times (default
 * 10); a child process writes the bytes. The off-CPU chains of
 * record --off-cpu -g must reach main and the thread's start through
 * these frames. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int a[2], b[2], rounds = 10;

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
	for (i = 0; i < rounds; i++)
		if (wait_pipe(b[0]) != 1)
			exit(1);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	int i;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (pipe(a) < 0 || pipe(b) < 0)
		return 1;
	if (fork() == 0) {
		for (i = 0; i < rounds; i++) {
			struct timespec ts = {0, 3000000};
			nanosleep(&ts, NULL);
			if (write(a[1], "x", 1) != 1 || write(b[1], "y", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	if (pthread_create(&t, NULL, reader, NULL) != 0)
		return 1;
	for (i = 0; i < rounds; i++) {
		nap();
		if (wait_pipe(a[0]) != 1)
			return 1;
	}
	pthread_join(t, NULL);
	return 0;
}
