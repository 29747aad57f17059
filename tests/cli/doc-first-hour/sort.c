/* sort.c - the program of README's "Your first hour": sorts N pseudo-random
 * integers (N the first argument, default DEFAULT_N: 1000000) with a merge sort and
 * prints their sum, so the two builds (-O0, -O2) can be compared. */
#include <stdio.h>
#include <stdlib.h>

#ifndef DEFAULT_N
#define DEFAULT_N 1000000
#endif

static void
merge_sort(int *a, int *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	merge_sort(a, tmp, h);
	merge_sort(a + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	for (i = 0; i < n; i++)
		a[i] = tmp[i];
}

int
main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : DEFAULT_N, i;
	int *a = malloc(n * sizeof(*a)), *tmp = malloc(n * sizeof(*tmp));
	unsigned x = 1;
	long long sum = 0;

	if (!a || !tmp)
		return 1;
	for (i = 0; i < n; i++)
		a[i] = (int)((x = x * 1103515245u + 12345u) >> 8);
	merge_sort(a, tmp, n);
	for (i = 0; i < n; i++)
		sum += (long long)a[i] * (long long)(i % 7);
	printf("%lld\n", sum);
	free(a);
	free(tmp);
	return 0;
}
