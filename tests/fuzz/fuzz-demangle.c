/* fuzz-demangle.c - libFuzzer target for the demangler (demangle.h): any
 * bytes as a symbol name, as they are and behind "_Z" and "_R" (to reach
 * the C++ and Rust readers at once). Never a crash, and a name comes back
 * NULL or non-empty and bounded (TY_DEMANGLE_MAX_OUT), whatever the input's
 * length, nesting or back-references. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
one(const char *name)
{
	char *d = ty_demangle(name);

	if (d && (!d[0] || strlen(d) >= TY_DEMANGLE_MAX_OUT))
		abort();
	free(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefix[] = {"", "_Z", "_R", "_ZN"};
	size_t i, p;
	char *s;

	if (size > 3 * TY_DEMANGLE_MAX_IN) /* past the bound is refused at once */
		size = 3 * TY_DEMANGLE_MAX_IN;
	if (!(s = malloc(size + 4)))
		return 0;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++) {
		p = strlen(prefix[i]);
		memcpy(s, prefix[i], p);
		memcpy(s + p, data, size);
		s[p + size] = '\0'; /* a NUL in the input ends the name early */
		one(s);
	}
	free(s);
	return 0;
}
