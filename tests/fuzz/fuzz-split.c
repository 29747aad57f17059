/* fuzz-split.c - libFuzzer target for the command splitter
 * (ty_argv_split, lib/argv.c): every string is split or refused with
 * a message; what is split joins (ty_argv_join) into a string that
 * splits back into the same words.
 *
 *   make fuzz && build/fuzz/fuzz-split tests/fuzz/corpus/split
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_error e = {0};
	char *text = malloc(size + 1), **v = NULL, **back = NULL, *joined;
	int n, m, i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	n = ty_argv_split(text, &v, &e);
	free(text);
	if (n < 0) {
		if (!e.msg[0])
			abort();
		return 0;
	}
	if (n == 0 || v[n] != NULL)
		abort();
	if (!(joined = ty_argv_join(v, (size_t)n)))
		abort();
	m = ty_argv_split(joined, &back, &e);
	if (m != n)
		abort();
	for (i = 0; i < n; i++)
		if (strcmp(v[i], back[i]) != 0)
			abort();
	free(joined);
	free(back);
	free(v);
	return 0;
}
