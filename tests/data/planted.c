/* planted.c - a test program with a planted slowdown: `planted N K` runs
 * loop_a for 6N iterations and loop_b for 4KN, so K = 3 makes loop_b (and
 * only it) three times slower than K = 1. */
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) void
tick(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) void
loop_a(long n)
{
	for (long i = 0; i < n; i++)
		if (((sink += (unsigned long)i * 3) & 0xfffff) == 0)
			tick();
}

__attribute__((noinline)) void
loop_b(long n)
{
	for (long i = 0; i < n; i++)
		if (((sink += (unsigned long)i ^ 5) & 0xfffff) == 0)
			tick();
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, k = argc > 2 ? atol(argv[2]) : 1;

	loop_a(n * 6);
	loop_b(n * 4 * k);
	return 0;
}
