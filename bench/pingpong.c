/* pingpong.c [ROUNDS [WORK [CPU]]] - two threads ping-ponging a byte over
 * two pipes: every round trip blocks each thread once, two context
 * switches, with WORK loop iterations by each thread between them. CPU >= 0
 * pins both threads to that CPU (unpinned, a wake-up across CPUs costs a
 * VM's idle exit and the rate falls to ~25,000 switches a second here).
 * It prints the rate by its own clock.
 *
 * pingpong -c RATE [CPU]: calibrate: the WORK that brings a pinned (or not)
 * ping-pong to RATE switches a second, printed alone on stdout (secant steps
 * on short runs, the median of three at each). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* One ping-pong of ROUNDS round trips: switches a second. */
static double
run(void)
{
	struct timespec t0, t1;
	pthread_t t;
	char c = 'x';
	long i;

	if (pthread_create(&t, NULL, pong, NULL) != 0)
		exit(1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < rounds; i++) {
		spin();
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	return 2 * rounds / ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median3(void)
{
	double r[3];
	int i;

	for (i = 0; i < 3; i++)
		r[i] = run();
	qsort(r, 3, sizeof(r[0]), dcmp);
	return r[1];
}

int
main(int argc, char **argv)
{
	int calibrate = argc > 1 && strcmp(argv[1], "-c") == 0;
	int cpu = argc > 3 ? atoi(argv[3]) : -1;
	double rate;

	if (pipe(ab) < 0 || pipe(ba) < 0)
		return 1;
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("pingpong: sched_setaffinity");
			return 1;
		}
	}
	if (calibrate) { /* a switch takes A + B * WORK seconds: secant steps */
		double want = argc > 2 ? atof(argv[2]) : 100000, t0, t1;
		long w0 = 0, w1 = 10000, w;
		int i;
		rounds = 10000;
		work = w0, t0 = 1 / median3();
		work = w1, t1 = 1 / median3();
		for (i = 0; i < 4; i++) {
			w = t1 == t0 ? w1 : w1 + (long)((1 / want - t1) * (w1 - w0) / (t1 - t0));
			if (w < 0)
				w = 0;
			if (w == w1)
				break;
			w0 = w1, t0 = t1;
			w1 = w, work = w, t1 = 1 / median3();
		}
		printf("%ld\n", w1);
		return 0;
	}
	rounds = argc > 1 ? atol(argv[1]) : 100000;
	work = argc > 2 ? atol(argv[2]) : work;
	rate = run();
	fprintf(stderr, "%ld round trips (work %ld%s): %.0f switches/s\n", rounds, work,
		cpu >= 0 ? ", pinned" : "", rate);
	return 0;
}
