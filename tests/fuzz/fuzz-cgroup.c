/* fuzz-cgroup.c - libFuzzer target for the memory cgroup parsers
 * (lib/memcg.c): /proc/self/cgroup's text and a peak file's. The first
 * input byte picks the hierarchy version and the size of the output; a
 * group found must be an absolute path that fits, with no way up and no
 * newline, and a peak must be what the digits say.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
 *       tests/fuzz/fuzz-cgroup.c lib/memcg.c lib/error.c -o fuzz-cgroup
 *   ./fuzz-cgroup -max_total_time=60 tests/fuzz/corpus/cgroup
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/memcg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t sizes[] = {1, 2, 8, 64, 4096};
	char out[4096];
	size_t osize, i;
	int version, rc;
	long kb;

	if (size < 1)
		return 0;
	version = (data[0] & 1) + 1;
	osize = sizes[(data[0] >> 1) % 5];
	memset(out, 'Z', sizeof(out));
	rc = ty_memcg_parse_cgroup((const char *)data + 1, size - 1, version, out, osize);
	if (rc != 0 && rc != -ENOENT)
		abort();
	if (rc == 0) {
		size_t n = strnlen(out, osize);
		if (n == osize || out[0] != '/' || strstr(out, "/..") || memchr(out, '\n', n))
			abort();
		/* it is a line's tail in the input */
		if (!memmem(data + 1, size - 1, out, n))
			abort();
	}
	kb = ty_memcg_parse_peak((const char *)data + 1, size - 1);
	if (kb != -EIO) {
		unsigned long long v = 0;
		if (kb < 0)
			abort();
		for (i = 1; i < size && data[i] >= '0' && data[i] <= '9'; i++)
			v = v * 10 + (data[i] - '0');
		if ((unsigned long long)kb != v / 1024)
			abort();
	}
	return 0;
}
