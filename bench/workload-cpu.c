/* workload-cpu.c - a CPU-bound program for bench/record-overhead.sh: runs
 * about SECONDS (default 2) of arithmetic in two functions. */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) static void
spin_a(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * 7;
}

__attribute__((noinline)) static void
spin_b(long n)
{
	for (long i = 0; i < n; i++)
		sink ^= (unsigned long)i;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000000;

	spin_a(n * 6 / 10);
	spin_b(n * 4 / 10);
	return 0;
}
