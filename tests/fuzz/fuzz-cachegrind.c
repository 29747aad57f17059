/* fuzz-cachegrind.c - libFuzzer target for the cachegrind output reader
 * (lib/profile-cachegrind.c). What it accepts must add up: the functions'
 * counts sum to the total (which the summary line matched), and the
 * profile built from it weighs the same.
 *
 *   make fuzz && ./build/fuzz/fuzz-cachegrind tests/fuzz/corpus/cachegrind
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/profile-cachegrind.h"
#include "tachy/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_cachegrind cg;
	struct ty_error err;
	struct ty_profile *p;
	uint64_t sum = 0;
	size_t i;

	memset(&cg, 0, sizeof(cg));
	if (ty_cachegrind_parse((const char *)data, size, "fuzz", &cg, &err) == 0) {
		if (!cg.event || !cg.have_summary)
			abort();
		for (i = 0; i < cg.nfuncs; i++)
			sum += cg.funcs[i].count;
		if (sum != cg.total)
			abort();
		if ((p = ty_cachegrind_profile(&cg))) {
			if (cg.total < ((uint64_t)1 << 52) && p->weight != (double)cg.total)
				abort();
			ty_profile_free(p);
		}
	}
	ty_cachegrind_release(&cg);
	return 0;
}
