/* fuzz-kmod.c - libFuzzer target for the module symbol reader (kallsyms
 * lines with [module]). Every input is read (bad lines skipped); every
 * look-up then names a module symbol with its module, or nothing; and
 * read in two feeds cut at a line's end, the same names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/kmod.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_kmod *k, *k2 = NULL;
	const char *cut;
	size_t half = size / 2;
	uint64_t probes[5] = {0, 0xffffffffc0200000ull, 0xffffffffc0200100ull, UINT64_MAX, 0};
	const char *mod, *name;
	size_t i;

	if (size >= 8)
		memcpy(&probes[4], data, 8);
	if (ty_kmod_parse(&k, (const char *)data, size) < 0)
		return 0;
	cut = half ? memrchr(data, '\n', half) : NULL;
	half = cut ? (size_t)(cut - (const char *)data) + 1 : 0;
	if (ty_kmod_begin(&k2) == 0 && ty_kmod_feed(k2, (const char *)data, half) == 0 &&
	    ty_kmod_feed(k2, (const char *)data + half, size - half) == 0)
		ty_kmod_end(k2);
	else {
		ty_kmod_free(k2);
		k2 = NULL;
	}
	for (i = 0; i < 5; i++) {
		const char *mod2 = NULL, *name2;
		mod = NULL;
		name = ty_kmod_lookup(k, probes[i], &mod);
		if (name && (!mod || mod[0] != '[' || mod[strlen(mod) - 1] != ']'))
			abort();
		if (k2 &&
		    ((name2 = ty_kmod_lookup(k2, probes[i], &mod2)) != NULL) != (name != NULL))
			abort();
		if (k2 && name && (strcmp(name, name2) != 0 || strcmp(mod, mod2) != 0))
			abort();
	}
	ty_kmod_free(k);
	ty_kmod_free(k2);
	return 0;
}
