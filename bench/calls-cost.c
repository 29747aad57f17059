/* calls-cost.c - the workload of bench/calls-cost.sh: CALLS calls of a
 * function whose body loops N times, the function beginning with a push
 * (KIND p: what the kernel emulates at a probe's trap) or with a mov (KIND
 * s: stepped out of line, a second trap). It prints the time it started
 * (CLOCK_REALTIME: the probes are placed before the exec) and its own CPU
 * time over the calls. With a fourth argument, t, each block of 64 calls
 * is followed by 64 calls of its twin (the same code under another name,
 * not probed), whose CPU time per call it prints too: the function's own
 * time in the same run, under the same load and the same profiler.
 * Usage: calls-cost N CALLS p|s */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

#if defined(__x86_64__)
/* The loop in each function's own body (its samples its self time). */
void pushed_work(long n), stepped_work(long n), pushed_twin(long n), stepped_twin(long n);
#define PUSHED(name)                                                                               \
	".p2align 6\n.globl " name "\n.type " name ",@function\n" name ":\n"                       \
	"\tpush %rbp\n\tmov %rsp,%rbp\n\txor %ecx,%ecx\n"                                          \
	"1:\tcmp %rdi,%rcx\n\tjge 2f\n\taddq %rcx,sink(%rip)\n\tinc %rcx\n\tjmp 1b\n"              \
	"2:\tpop %rbp\n\tret\n.size " name ",.-" name "\n"
#define STEPPED(name)                                                                              \
	".p2align 6\n.globl " name "\n.type " name ",@function\n" name ":\n"                       \
	"\tmov %rdi,%rax\n\txor %ecx,%ecx\n"                                                       \
	"1:\tcmp %rax,%rcx\n\tjge 2f\n\taddq %rcx,sink(%rip)\n\tinc %rcx\n\tjmp 1b\n"              \
	"2:\tret\n.size " name ",.-" name "\n"
__asm__(".text\n" PUSHED("pushed_work") STEPPED("stepped_work") PUSHED("pushed_twin")
	    STEPPED("stepped_twin"));
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
__attribute__((noinline)) void
pushed_twin(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i;
}
__attribute__((noinline)) void
stepped_twin(long n)
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
	double start = now(CLOCK_REALTIME), t0, t1, twin = 0;
	long n, calls, i, k;
	void (*f)(long), (*g)(long);

	if (argc != 4 && argc != 5)
		return 2;
	n = atol(argv[1]), calls = atol(argv[2]);
	f = argv[3][0] == 's' ? stepped_work : pushed_work;
	g = argv[3][0] == 's' ? stepped_twin : pushed_twin;
	t0 = now(CLOCK_PROCESS_CPUTIME_ID);
	if (argc == 4) {
		for (i = 0; i < calls; i++)
			f(n);
	} else {
		for (i = 0; i < calls; i += 64) {
			double a;
			for (k = i; k < calls && k < i + 64; k++)
				f(n);
			a = now(CLOCK_THREAD_CPUTIME_ID);
			for (k = i; k < calls && k < i + 64; k++)
				g(n);
			twin += now(CLOCK_THREAD_CPUTIME_ID) - a;
		}
	}
	t1 = now(CLOCK_PROCESS_CPUTIME_ID);
	printf("start %.6f cpu %.6f twin %.9f\n", start, t1 - t0, calls ? twin / calls : 0);
	return 0;
}
