/* offcpu-phases.c [SCALE] - a program that computes 0.80 s, sleeps 0.70 s
 * in nanosleep and blocks 0.45 s in read() of a pipe (woken by a timer's
 * signal handler that writes to it), each in a function of its own, times
 * SCALE (default 1). It prints its own clock's share of each phase
 * ("compute_phase 41.0% sleep_phase 35.9% read_phase 23.1%"), for a wall
 * profile to be checked against. */
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
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
on_alarm(int sig)
{
	char c = 'x';
	(void)sig;
	if (write(fds[1], &c, 1) < 0)
		_exit(3);
}

static void __attribute__((noipa))
compute_phase(double secs)
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

static void __attribute__((noipa))
sleep_phase(double secs)
{
	struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void __attribute__((noipa))
read_phase(double secs)
{
	struct itimerval it = {{0, 0}, {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e6)}};
	char c;
	setitimer(ITIMER_REAL, &it, NULL);
	while (read(fds[0], &c, 1) < 0 && errno == EINTR)
		;
}

int
main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1, t[3], a, b, c, d;
	struct sigaction sa = {0};

	if (scale <= 0 || scale > 100) {
		fprintf(stderr, "usage: offcpu-phases [SCALE (0-100]]\n");
		return 2;
	}
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(fds) < 0)
		return 1;
	a = now();
	compute_phase(0.80 * scale);
	b = now();
	sleep_phase(0.70 * scale);
	c = now();
	read_phase(0.45 * scale);
	d = now();
	t[0] = b - a, t[1] = c - b, t[2] = d - c;
	printf("compute_phase %.1f%% sleep_phase %.1f%% read_phase %.1f%%\n", 100 * t[0] / (d - a),
	       100 * t[1] / (d - a), 100 * t[2] / (d - a));
	return 0;
}
