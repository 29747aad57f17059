/* loop.c - a deterministic loop of N rounds (-DN=...), planted in a
 * function of its own (-DPLANT=K: K more rounds in planted()). */
#include "sys.h"

#ifndef N
#define N 100000
#endif
#ifndef PLANT
#define PLANT 0
#endif

volatile long sink = 1; /* in .data: Valgrind reads the symbols of a file with a
			 * writable segment from the file only */

__attribute__((noinline)) static void
work(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) static void
planted(long n)
{
	for (long i = 0; i < n; i++)
		sink ^= i;
}

void
_start(void)
{
	work(N);
	planted(1000 + PLANT);
	sys_exit(0);
}
