/* gate-loop.c - a CPU-bound loop for bench/gate-cpu.sh: N iterations times
 * FACTOR (gate-loop N FACTOR), so FACTOR 1.05 is a 5% CPU slowdown. */
#include <stdlib.h>

volatile unsigned long sink;

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	double f = argc > 2 ? atof(argv[2]) : 1;
	long m = (long)((double)n * f);

	for (long i = 0; i < m; i++)
		sink += (unsigned long)i * 7;
	return 0;
}
