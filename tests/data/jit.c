/* jit.c - a tiny JIT: copies a spin loop into anonymous executable memory,
 * names it in /tmp/perf-PID.map as JIT compilers do for perf, and runs it. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int
main(void)
{
	/* mov $N, %rcx; 1: dec %rcx; jnz 1b; ret */
	static const unsigned char code[] = {0x48, 0xb9, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,
					     0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3};
	char path[64];
	unsigned char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FILE *fp;

	if (m == MAP_FAILED)
		return 1;
	memcpy(m, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(fp = fopen(path, "w")))
		return 1;
	fprintf(fp, "%lx %zx jitted_spin_loop\n", (unsigned long)m, sizeof(code));
	fclose(fp);
	if ((fp = fopen("jit.pid", "w"))) { /* for the test to remove the map */
		fprintf(fp, "%d\n", (int)getpid());
		fclose(fp);
	}
	((void (*)(void))m)();
	return 0;
}
