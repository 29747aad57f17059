/* jit-late.c - a JIT that maps its code late: after ARGV[1] ms (0: at
 * once), four regions of anonymous executable memory one after another,
 * each named in /tmp/perf-PID.map as it is made and run at once. The code
 * recurses 8 deep with frame pointers, as node's does, then spins; the
 * program stops after 0.6 s of its own CPU time (not the wall's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* f(depth %rdi, spins %rsi):
 *  0: push %rbp; mov %rsp,%rbp; dec %rdi; jz 16
 *  9: call 0; jmp 24
 * 16: mov %rsi,%rcx; 19: dec %rcx; jnz 19
 * 24: pop %rbp; ret */
static const unsigned char code[] = {
    0x55, 0x48, 0x89, 0xe5, 0x48, 0xff, 0xcf, 0x74, 0x07, 0xe8, 0xf2, 0xff, 0xff,
    0xff, 0xeb, 0x08, 0x48, 0x89, 0xf1, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0x5d, 0xc3};

static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 0;
	struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
	char path[64];
	FILE *fp;
	int r;

	if ((fp = fopen("jit.pid", "w"))) { /* for the test to remove the map */
		fprintf(fp, "%d\n", (int)getpid());
		fclose(fp);
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(fp = fopen(path, "w")))
		return 1;
	nanosleep(&wait, NULL);
	for (r = 0; r < 4; r++) {
		unsigned char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		void (*f)(long, long) = (void (*)(long, long))m;
		if (m == MAP_FAILED)
			return 1;
		memcpy(m, code, sizeof(code));
		fprintf(fp, "%lx %zx jit_recurse_%d\n", (unsigned long)m, sizeof(code), r);
		fflush(fp);
		while (cpu_s() < 0.15 * (r + 1))
			f(8, 1 << 20);
	}
	fclose(fp);
	return 0;
}
