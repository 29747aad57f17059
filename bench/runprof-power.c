/* runprof-power.c - a program of 24 functions with known shares of its
 * time, one of them made slower on request, for bench/runprof-power.sh.
 *
 *   runprof-power N [K]
 *
 * f1 .. f24 run the same loop, fK for K N iterations: fK's share of the
 * 300 N iterations is K/300. With K given (1..24), fK also runs 9 N more:
 * 3% of the whole added to that one function, so the program is 3% slower
 * and fK 1 + 9/K times slower (f24 1.375x, f12 1.75x, f4 3.25x). main calls
 * each through a short chain (stepK -> fK) so that total times differ from
 * self times. */
#include <stdlib.h>

volatile unsigned long sink;

#define LOOP(n)                                                                                    \
	do {                                                                                       \
		unsigned long s = sink;                                                            \
		for (long i = 0; i < (n); i++)                                                     \
			s = s * 6364136223846793005ul + (unsigned long)i;                          \
		sink = s;                                                                          \
	} while (0)

#define FN(k)                                                                                      \
	__attribute__((noinline)) void f##k(long n)                                                \
	{                                                                                          \
		LOOP(n);                                                                           \
	}                                                                                          \
	__attribute__((noinline)) void step##k(long n)                                             \
	{                                                                                          \
		f##k(n);                                                                           \
		__asm__ volatile("");                                                              \
	}

/* clang-format off */
FN(1)
FN(2)
FN(3)
FN(4)
FN(5)
FN(6)
FN(7)
FN(8)
FN(9)
FN(10)
FN(11)
FN(12)
FN(13)
FN(14)
FN(15)
FN(16)
FN(17)
FN(18)
FN(19)
FN(20)
FN(21)
FN(22)
FN(23)
FN(24)
/* clang-format on */

static void (*const steps[24])(long) = {
    step1,  step2,  step3,  step4,  step5,  step6,  step7,  step8,  step9,  step10, step11, step12,
    step13, step14, step15, step16, step17, step18, step19, step20, step21, step22, step23, step24};

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, k = argc > 2 ? atol(argv[2]) : 0;
	int i;

	for (i = 0; i < 24; i++)
		steps[i](n * (i + 1) + (k == i + 1 ? 9 * n : 0));
	return 0;
}
