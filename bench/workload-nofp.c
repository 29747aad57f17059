/* workload-nofp.c - a CPU-bound program for bench/record-unwind.sh and
 * record-overhead.sh, built -O2 -fomit-frame-pointer: three levels of
 * calls, alloca in the middle one, about N iterations (default 3e8). */
#include <alloca.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;

__attribute__((noinline)) static void
leaf(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * 7;
}

__attribute__((noinline)) static void
other(long n)
{
	for (long i = 0; i < n; i++)
		sink ^= (unsigned long)i;
}

__attribute__((noinline)) static void
mid(long n)
{
	char *p = alloca(64 + (size_t)(n & 255));

	memset(p, 1, 64);
	sink += (unsigned long)p[3];
	leaf(n * 6 / 10);
	other(n * 4 / 10);
	sink++;
}

__attribute__((noinline)) static void
top(long n)
{
	for (int k = 0; k < 10; k++)
		mid(n / 10);
	sink++;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000000;

	top(n);
	return 0;
}
