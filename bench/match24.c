/* match24.c - a program of 24 functions of equal work for
 * bench/runprof-match.sh: `match24 N PCT` runs each f_k N iterations, and
 * f7 more, so that the whole program takes PCT percent longer (PCT 0: all
 * equal; PCT 3: f7 does 1 + 0.03 * 24 = 1.72 times its work). */
#include <stdlib.h>

volatile unsigned long sink;

#define F(k)                                                                                       \
	__attribute__((noinline)) void f##k(long n)                                                \
	{                                                                                          \
		for (long i = 0; i < n; i++)                                                       \
			sink += (unsigned long)i * (k + 1);                                        \
	}                                                                                          \
	extern int f##k##_defined
F(0);
F(1);
F(2);
F(3);
F(4);
F(5);
F(6);
F(7);
F(8);
F(9);
F(10);
F(11);
F(12);
F(13);
F(14);
F(15);
F(16);
F(17);
F(18);
F(19);
F(20);
F(21);
F(22);
F(23);

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	double pct = argc > 2 ? atof(argv[2]) : 0;
	void (*f[24])(long) = {f0,  f1,	 f2,  f3,  f4,	f5,  f6,  f7,  f8,  f9,	 f10, f11,
			       f12, f13, f14, f15, f16, f17, f18, f19, f20, f21, f22, f23};

	for (int k = 0; k < 24; k++)
		f[k](k == 7 ? (long)((double)n * (1 + pct / 100 * 24)) : n);
	return 0;
}
