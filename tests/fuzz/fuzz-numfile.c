/* fuzz-numfile.c - libFuzzer target for the number-file reader and the
 * number parser (lib/numparse.c). The first input byte picks the column
 * and the delimiters; every value read must be finite, and ty_numparse
 * must agree with strtod.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
 *       tests/fuzz/fuzz-numfile.c lib/numparse.c lib/error.c -lm -o fuzz-numfile
 *   ./fuzz-numfile -max_total_time=60
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/numparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *delims[] = {" \t", ",", ":;", "e", ".", "0", " ", "#"};
	struct ty_numbers nums;
	struct ty_error err;
	struct ty_numfile opt;
	size_t i;
	double v;

	if (size < 1)
		return 0;
	opt.column = 1 + (data[0] & 3);
	opt.delim = delims[(data[0] >> 2) & 7];
	ty_numbers_init(&nums);
	(void)ty_numfile_parse((const char *)data + 1, size - 1, "fuzz", &opt, &nums, &err);
	for (i = 0; i < nums.n; i++)
		if (!isfinite(nums.v[i]))
			abort();
	ty_numbers_release(&nums);
	if (size < 64 && !memchr(data + 1, 0, size - 1)) {
		char buf[64], *end;
		double want;

		memcpy(buf, data + 1, size - 1);
		buf[size - 1] = '\0';
		want = strtod(buf, &end);
		if (ty_numparse(buf, size - 1, &v) == 0 &&
		    (*end != '\0' || memcmp(&v, &want, sizeof(v)) != 0))
			abort();
	}
	return 0;
}
