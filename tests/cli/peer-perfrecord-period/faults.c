/* faults.c N: touch N fresh pages (no huge pages), then print the minor
 * faults this process took (getrusage), for the sampling period's check. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000, page = sysconf(_SC_PAGESIZE), i;
	struct rusage ru;
	char *p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	madvise(p, (size_t)(n * page), MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	getrusage(RUSAGE_SELF, &ru);
	printf("%ld\n", ru.ru_minflt);
	return 0;
}
