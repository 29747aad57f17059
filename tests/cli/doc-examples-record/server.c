/* server.c - the stand-in of tachy-record(1)'s and tachy-report(1)'s examples:
 * calls malloc (of 200 KB: mmap) and two functions named ip_* in a loop; with -DBRK, also moves
 * the break up and down (the "brk_test"); with --wait, starts once a file
 * named "go" exists (so tachy record -p can attach first). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static long
ip_input(long x)
{
	long i, s = 0;

	for (i = 0; i < 20; i++)
		s += (x ^ i) * 7;
	return s;
}

__attribute__((noinline)) static long
ip_output(long x)
{
	return ip_input(x + 1) / 3;
}

int
main(int argc, char **argv)
{
	long i, s = 0;

	mallopt(M_MMAP_THRESHOLD, 65536); /* every malloc below an mmap */
	if (argc > 1 && strcmp(argv[1], "--wait") == 0)
		while (access("go", F_OK) != 0)
			usleep(1000);
	for (i = 0; i < 10000; i++) {
		char *p = malloc((size_t)(200000 + i % 4096));
		if (!p)
			return 1;
		p[0] = (char)i;
		s += ip_input(p[0]) + ip_output(i);
		free(p);
#ifdef BRK
		if (sbrk(65536) != (void *)-1)
			sbrk(-65536);
#endif
	}
	printf("%ld\n", s);
	return 0;
}
