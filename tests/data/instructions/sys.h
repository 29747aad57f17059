/* sys.h - raw Linux x86-64 system calls for the --instructions cases:
 * programs without libc (cc -static -nostdlib), whose instruction counts
 * depend neither on the environment nor on argv, so a count by hand under
 * valgrind equals tachy's. */
static long
sys3(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static long
sys4(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}

static void __attribute__((noreturn))
sys_exit(int code)
{
	for (;;)
		sys3(60, code, 0, 0);
}
