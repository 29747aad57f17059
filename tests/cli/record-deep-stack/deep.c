/* deep.c - recursion DEPTH frames deep (about 240 bytes each), then a
 * loop of N rounds at the bottom: the samples of spin() have chains as
 * deep as the recursion. */
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noipa)) unsigned long
spin(unsigned long n)
{
	unsigned long s = 0, i;

	for (i = 0; i < n; i++)
		s += (i * i) ^ sink;
	return s;
}

__attribute__((noipa)) unsigned long
rec(int d, unsigned long n)
{
	volatile char pad[200];
	unsigned long r;

	pad[0] = (char)d;
	if (d == 0)
		return spin(n);
	r = rec(d - 1, n) + (unsigned long)pad[0];
	sink += r;
	return r;
}

int
main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	sink = rec(atoi(argv[1]), strtoul(argv[2], NULL, 10));
	return 0;
}
