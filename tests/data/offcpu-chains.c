/* offcpu-chains.c [ROUNDS [NAPS]] - a busy phase, then a quiet one, for
 * record --off-cpu -g's chains at a sample of the switch-outs: first the
 * main thread and a second one ping-pong a byte ROUNDS times on two pipes
 * (thousands of switch-outs a second); then a third thread sleeps NAPS
 * times in long_nap (2 ms) and in short_nap (0.5 ms), one after the other.
 * It prints its own clock's share of each nap in the third thread's sleep
 * time. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds = 20000, naps = 100;
static double in_long, in_short;

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
pong(void *arg)
{
	long i;
	char c;

	for (i = 0; i < rounds; i++)
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			exit(3);
	return arg;
}

static void
sleep_ns(long ns)
{
	struct timespec ts = {0, ns};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* two functions of different bodies: the compiler must not fold them */
static void __attribute__((noinline))
long_nap(void)
{
	double t = now();
	sleep_ns(2000000);
	in_long += now() - t;
}

static void __attribute__((noinline))
short_nap(void)
{
	double t = now();
	sleep_ns(500000);
	in_short += now() - t;
}

static void *
napper(void *arg)
{
	long i;

	for (i = 0; i < naps; i++) {
		long_nap();
		short_nap();
	}
	return arg;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	long i;
	char c = 'x';

	if (argc > 1)
		rounds = atol(argv[1]);
	if (argc > 2)
		naps = atol(argv[2]);
	if (pipe(ab) < 0 || pipe(ba) < 0 || pthread_create(&t, NULL, pong, NULL) != 0)
		return 1;
	for (i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 3;
	pthread_join(t, NULL);
	if (pthread_create(&t, NULL, napper, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("long_nap %.1f%% short_nap %.1f%%\n", 100 * in_long / (in_long + in_short),
	       100 * in_short / (in_long + in_short));
	return 0;
}
