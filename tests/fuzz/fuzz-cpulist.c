/* fuzz-cpulist.c - libFuzzer target for the CPU-list parser (-C, --cpu).
 * Every input is accepted or refused with a message; an accepted list is
 * sorted, within the limit, and reads back the same from its own format. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/cpulist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_cpulist l, m;
	struct ty_error e;
	char *s = malloc(size + 1), buf[65536];
	size_t i;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (ty_cpulist_parse(&l, s, 64, &e) == 0) {
		for (i = 0; i < l.n; i++)
			if (l.cpus[i] < 0 || l.cpus[i] >= 64 || (i && l.cpus[i] <= l.cpus[i - 1]))
				abort();
		ty_cpulist_format(&l, buf, sizeof(buf));
		if (ty_cpulist_parse(&m, buf, 64, &e) != 0 || m.n != l.n)
			abort();
		ty_cpulist_release(&m);
		ty_cpulist_release(&l);
	}
	free(s);
	return 0;
}
