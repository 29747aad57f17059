/* work.c - a workload whose counts do not depend on the machine's noise:
 * touches PAGES fresh pages (PAGES page faults), sleeps SLEEPS times
 * (SLEEPS context switches), then spins until it has used MS milliseconds
 * of CPU time since main() began (task-clock). */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 50, pages = argc > 2 ? atol(argv[2]) : 1000;
	long sleeps = argc > 3 ? atol(argv[3]) : 20, i;
	struct timespec ts = {0, 1000000}, t0;
	char *p = mmap(NULL, (size_t)(pages + 1) * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, (size_t)(pages + 1) * 4096, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		p[i * 4096] = 1;
	for (i = 0; i < sleeps; i++)
		nanosleep(&ts, NULL);
	for (;;) {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		if ((ts.tv_sec - t0.tv_sec) * 1000000000L + ts.tv_nsec - t0.tv_nsec >=
		    ms * 1000000L)
			break;
	}
	return 0;
}
