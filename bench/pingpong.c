/* pingpong.c [ROUNDS [WORK]] - two threads ping-ponging a byte over two
 * pipes: every round trip blocks each thread once, two context switches;
 * WORK loop iterations between them (default 3000) bring it to about
 * 100,000 switches a second here. It prints the rate by its own clock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds, work = 3000;
static volatile unsigned long sink;

static void
spin(void)
{
	unsigned long x = sink;
	long i;

	for (i = 0; i < work; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}

static void *
pong(void *arg)
{
	char c;
	long i;

	(void)arg;
	for (i = 0; i < rounds; i++) {
		if (read(ab[0], &c, 1) != 1)
			exit(1);
		spin();
		if (write(ba[1], &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t t;
	char c = 'x';
	long i;
	double s;

	rounds = argc > 1 ? atol(argv[1]) : 100000;
	work = argc > 2 ? atol(argv[2]) : work;
	if (pipe(ab) < 0 || pipe(ba) < 0 || pthread_create(&t, NULL, pong, NULL) != 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < rounds; i++) {
		spin();
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr, "%ld round trips in %.3f s: %.0f switches/s\n", rounds, s, 2 * rounds / s);
	return 0;
}
