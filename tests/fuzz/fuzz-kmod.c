/* fuzz-kmod.c - libFuzzer target for the module symbol reader (kallsyms
 * lines with [module]). Every input is read (bad lines skipped); every
 * look-up then names a module symbol with its module, or nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/kmod.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_kmod *k;
	uint64_t probes[5] = {0, 0xffffffffc0200000ull, 0xffffffffc0200100ull, UINT64_MAX, 0};
	const char *mod, *name;
	size_t i;

	if (size >= 8)
		memcpy(&probes[4], data, 8);
	if (ty_kmod_parse(&k, (const char *)data, size) < 0)
		return 0;
	for (i = 0; i < 5; i++) {
		mod = NULL;
		name = ty_kmod_lookup(k, probes[i], &mod);
		if (name && (!mod || mod[0] != '[' || mod[strlen(mod) - 1] != ']'))
			abort();
	}
	ty_kmod_free(k);
	return 0;
}
