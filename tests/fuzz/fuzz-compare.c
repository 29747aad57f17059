/* fuzz-compare.c - libFuzzer target for what tachy compare reads (a tachy
 * or hyperfine JSON export, lib/results-read.c) and for what it does with
 * it (lib/comparison.c): pairing runs by round in an interleaved file,
 * warm-ups left out (tachy.left_out, or found by ty_verdict_series), every
 * test. Nothing may crash; every row's verdict is -1, 0 or 1 and its paired
 * rounds no more than its runs; a left-out count is never above the runs.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -D_GNU_SOURCE \
 *       -DHAVE_JANSSON tests/fuzz/fuzz-compare.c lib/results-read.c lib/results-saved.c \
 *       lib/comparison.c lib/verdict.c lib/stats.c lib/error.c -ljansson -lm \
 *       -o fuzz-compare
 *   ./fuzz-compare -max_total_time=60 tests/fuzz/corpus/compare
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/comparison.h"
#include "tachy/results-read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum ty_test tests[] = {TY_TEST_MANN_WHITNEY, TY_TEST_YUEN, TY_TEST_WELCH,
					     TY_TEST_STUDENT};
	struct ty_cmp_options o = {.confidence = 95};
	struct ty_results_saved f;
	struct ty_cmp_table c;
	struct ty_error e;
	char *text;
	size_t i, j;

	if (size < 1 || !(text = malloc(size)))
		return 0;
	/* the first byte picks the test and the options */
	o.test = tests[data[0] & 3];
	o.keep_warmup = (data[0] >> 2) & 1;
	o.no_pairing = (data[0] >> 3) & 1;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (ty_results_read_text(&f, text, "fuzz.json", &e) == 0) {
		for (i = 0; i < f.nbenches; i++)
			if (f.benches[i].left_out > (long)f.benches[i].nruns)
				abort();
		if (ty_comparison_build(&c, &f, 1, &o, &e) == 0) {
			for (j = 0; j < c.nrows; j++) {
				const struct ty_cmp_row *r = &c.rows[j];
				if (r->v.verdict < -1 || r->v.verdict > 1 ||
				    r->v.pairs > r->old->nruns || r->skip_old > r->old->nruns)
					abort();
			}
			ty_comparison_release(&c);
		}
		ty_results_saved_release(&f);
	}
	free(text);
	return 0;
}
