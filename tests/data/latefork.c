/* latefork.c - a workload for tachy record's lazy mapping tracking: one
 * process for 200 ms, then it maps libm with dlopen and spends 300 ms in it,
 * then it forks and execs ARGV[1..] twice. By then tachy has stopped asking
 * for mmap records (they stop 100 ms after start for a single process).
 * latefork -e PROG ARG...: after the 200 ms, exec PROG itself instead. */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void
spin(double seconds)
{
	double t0 = now();

	while (now() - t0 < seconds)
		for (int i = 0; i < 1000; i++)
			sink = sink + i;
}

int
main(int argc, char **argv)
{
	double (*f)(double);
	double t0;
	void *h;

	spin(0.2);
	if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'e') {
		execv(argv[2], argv + 2);
		return 127;
	}
	if (!(h = dlopen("libm.so.6", RTLD_NOW)) || !(f = (double (*)(double))dlsym(h, "cbrt")))
		return 2;
	for (t0 = now(); now() - t0 < 0.3;)
		for (int i = 0; i < 1000; i++)
			sink = f(sink + i);
	for (int k = 0; k < 2 && argc > 1; k++) {
		pid_t p = fork();
		if (p == 0) {
			execv(argv[1], argv + 1);
			_exit(127);
		}
		if (p < 0 || waitpid(p, NULL, 0) != p)
			return 1;
	}
	return 0;
}
