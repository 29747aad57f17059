/* offcpu-mix.c [CYCLES] - a program whose time goes 40% to computing, 35%
 * to nanosleep and 25% to a blocking read of a pipe (woken by a timer's
 * signal handler that writes to it), in cycles of 20 ms. It prints its own
 * clock's shares of each, for record --wall to be checked against. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static volatile unsigned long sink;

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
on_alarm(int sig)
{
	char c = 'x';
	(void)sig;
	if (write(fds[1], &c, 1) < 0)
		_exit(3);
}

static void __attribute__((noinline))
compute(double secs)
{
	double end = now() + secs;
	unsigned long x = sink;
	while (now() < end) {
		int i;
		for (i = 0; i < 20000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	}
	sink = x;
}

static void __attribute__((noinline))
nap(double secs)
{
	struct timespec ts = {0, (long)(secs * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void __attribute__((noinline))
wait_pipe(double secs)
{
	struct itimerval it = {{0, 0}, {0, (long)(secs * 1e6)}};
	char c;
	setitimer(ITIMER_REAL, &it, NULL);
	while (read(fds[0], &c, 1) < 0 && errno == EINTR)
		;
}

int
main(int argc, char **argv)
{
	int cycles = argc > 1 ? atoi(argv[1]) : 100, i;
	double t[4] = {0, 0, 0, 0}, a, b, total;
	struct sigaction sa = {0};

	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(fds) < 0)
		return 1;
	a = now();
	for (i = 0; i < cycles; i++) {
		double x = now();
		compute(0.008);
		b = now(), t[0] += b - x, x = b;
		nap(0.007);
		b = now(), t[1] += b - x, x = b;
		wait_pipe(0.005);
		b = now(), t[2] += b - x;
	}
	total = now() - a;
	printf("compute %.1f%% sleep %.1f%% pipe %.1f%% of %.3f s\n", 100 * t[0] / total,
	       100 * t[1] / total, 100 * t[2] / total, total);
	return 0;
}
