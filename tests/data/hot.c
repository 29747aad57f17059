/* hot.c - a test program with known hot functions: loop_a does 6/10 of the
 * iterations and loop_b 4/10, both called from work(), called from main(). */
#include <stdlib.h>

volatile unsigned long sink;

/* Called now and then so that the loops are not leaf functions: a leaf may
 * run without its own frame, and frame-pointer call chains skip its caller. */
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

__attribute__((noinline)) void
work(long n)
{
	loop_a(n * 6);
	loop_b(n * 4);
}

int
main(int argc, char **argv)
{
	work(argc > 1 ? atol(argv[1]) : 30000000);
	return 0;
}
