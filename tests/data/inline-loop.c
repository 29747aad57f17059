#include <stdlib.h>
static inline __attribute__((always_inline)) long inl_work(long x) {
	long s = 0;
	for (long i = 0; i < x; i++) s += (i * x) ^ (s >> 3);
	return s;
}
__attribute__((noinline)) long outer(long x) { return inl_work(x) + 1; }
int main(void) {
	long t = 0;
	for (int k = 0; k < 3000; k++) t += outer(100000 + k);
	char *p = malloc(t & 0xff); free(p);
	return (int)(t & 1);
}
