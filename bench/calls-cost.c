/* calls-cost.c - the workload of bench/calls-cost.sh: CALLS calls of a
 * function whose body loops N times, the function beginning with a push
 * (KIND p: what the kernel emulates at a probe's trap) or with a mov (KIND
 * s: stepped out of line, a second trap). It prints the time it started
 * (CLOCK_REALTIME: the probes are placed before the exec) and its own CPU
 * time over the calls.
 * Usage: calls-cost N CALLS p|s */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

#if defined(__x86_64__)
/* The loop in each function's own body (its samples its self time). */
void pushed_work(long n), stepped_work(long n);
__asm__(".text\n.globl pushed_work\n.type pushed_work,@function\npushed_work:\n"
	"\tpush %rbp\n\tmov %rsp,%rbp\n\txor %ecx,%ecx\n"
	"1:\tcmp %rdi,%rcx\n\tjge 2f\n\taddq %rcx,sink(%rip)\n\tinc %rcx\n\tjmp 1b\n"
	"2:\tpop %rbp\n\tret\n.size pushed_work,.-pushed_work\n"
	".globl stepped_work\n.type stepped_work,@function\nstepped_work:\n"
	"\tmov %rdi,%rax\n\txor %ecx,%ecx\n"
	"1:\tcmp %rax,%rcx\n\tjge 2f\n\taddq %rcx,sink(%rip)\n\tinc %rcx\n\tjmp 1b\n"
	"2:\tret\n.size stepped_work,.-stepped_work\n");
#else
__attribute__((noinline)) void
pushed_work(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i;
}
__attribute__((noinline)) void
stepped_work(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i;
}
#endif

static double
now(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double start = now(CLOCK_REALTIME), t0, t1;
	long n, calls, i;
	void (*f)(long);

	if (argc != 4)
		return 2;
	n = atol(argv[1]), calls = atol(argv[2]);
	f = argv[3][0] == 's' ? stepped_work : pushed_work;
	t0 = now(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < calls; i++)
		f(n);
	t1 = now(CLOCK_PROCESS_CPUTIME_ID);
	printf("start %.6f cpu %.6f\n", start, t1 - t0);
	return 0;
}
