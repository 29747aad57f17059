/* workload-mmap.c - an mmap/munmap-heavy program (seed 002's brk/mmap
 * tests): N rounds of mapping 64 KiB, touching it, unmapping it. */
#include <stdlib.h>
#include <sys/mman.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;

	for (long i = 0; i < n; i++) {
		char *p =
		    mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		p[0] = 1;
		p[32768] = 2;
		munmap(p, 65536);
	}
	return 0;
}
