/* nofp-chain.c - a hot leaf called through two levels, main -> outer ->
 * middle -> leaf, for code built without frame pointers (-O2
 * -fomit-frame-pointer): only an unwinder that reads the CFI finds leaf's
 * callers. `nofp-chain N` runs leaf's loop N times. */
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long
leaf(long n)
{
	unsigned long s = 0;

	for (long i = 0; i < n; i++)
		s += ((unsigned long)i * 7) ^ sink;
	return s;
}

__attribute__((noinline)) unsigned long
middle(long n)
{
	unsigned long s = leaf(n);

	sink += s;
	return s + 1;
}

__attribute__((noinline)) unsigned long
outer(long n)
{
	unsigned long s = middle(n);

	sink += s;
	return s + 2;
}

int
main(int argc, char **argv)
{
	sink = outer(argc > 1 ? atol(argv[1]) : 1000000);
	return 0;
}
