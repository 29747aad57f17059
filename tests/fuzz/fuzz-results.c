/* fuzz-results.c - libFuzzer target for the JSON results reader
 * (lib/results_read.c): tachy's exports and hyperfine's. Every input must
 * give results (at least one benchmark, a wall figure of finite values)
 * or -EINVAL/-ENOTSUP/-ENOMEM with a message; never a crash.
 *
 *   make fuzz && build/fuzz/fuzz-results tests/fuzz/corpus/results
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/results_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_saved r;
	struct ty_error e = {0};
	char *text = malloc(size + 1);
	size_t i, j, k;
	int rc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&r, 0, sizeof(r));
	rc = ty_results_read_text(&r, text, "fuzz.json", &e);
	free(text);
	if (rc < 0) {
		if (!e.msg[0])
			abort(); /* every refusal says why */
		return 0;
	}
	if (r.nbenches < 1)
		abort();
	for (i = 0; i < r.nbenches; i++) {
		const struct ty_saved_bench *b = &r.benches[i];
		if (!b->label || !b->command || !ty_results_read_figure(b, "wall"))
			abort();
		for (j = 0; j < b->nfigs; j++)
			for (k = 0; k < b->figs[j].n; k++)
				if (!isfinite(b->figs[j].values[k]))
					abort();
	}
	(void)ty_results_read_env(&r, "kernel");
	ty_results_read_release(&r);
	ty_results_read_release(&r);
	return 0;
}
