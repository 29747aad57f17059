/* threads.c - a test program whose two threads spin in different functions
 * for SECONDS (default 1) of CPU time each, after a short pause; with a
 * second argument GOFILE, the pause lasts until GOFILE exists (for -p
 * tests: the test makes it once tachy is attached). */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double seconds = 1;
static const char *gofile;

static void
wait_for(const char *path)
{
	while (access(path, F_OK) != 0)
		usleep(10000);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void *
spin_main_thread(void *arg)
{
	volatile unsigned long x = 0;

	do
		for (int i = 0; i < 1000000; i++)
			x++;
	while (now() < seconds);
	return arg;
}

__attribute__((noinline)) static void *
spin_other_thread(void *arg)
{
	volatile unsigned long x = 0;

	if (gofile)
		wait_for(gofile);
	do
		for (int i = 0; i < 1000000; i++)
			x += 3;
	while (now() < seconds);
	return arg;
}

int
main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		seconds = atof(argv[1]);
	if (argc > 2)
		gofile = argv[2];
	pthread_create(&t, NULL, spin_other_thread, NULL);
	if (gofile) /* both threads exist while tachy attaches */
		wait_for(gofile);
	else
		usleep(300000); /* time for tachy record -p to attach */
	spin_main_thread(NULL);
	pthread_join(t, NULL);
	return 0;
}
