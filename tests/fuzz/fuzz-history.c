/* fuzz-history.c - libFuzzer target for what tachy history reads back from
 * a database it does not control (a value list of samples.vals, parsed by
 * ty_history_parse_values) and for change-point detection on whatever
 * series those values make (lib/history-detect.c): every value parsed
 * must be finite, every change point inside the series, nothing may crash.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -D_GNU_SOURCE \
 *       tests/fuzz/fuzz-history.c lib/history-detect.c lib/history.c \
 *       lib/store-sqlite.c lib/store-pg.c lib/stats.c lib/verdict.c lib/jsonw.c \
 *       lib/utf8.c lib/error.c lib/results-read.c lib/results-saved.c lib/numparse.c -lm -o
 * fuzz-history
 *   ./fuzz-history -max_total_time=60 tests/fuzz/corpus/history
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_history_point *p;
	struct ty_history_change *ch;
	struct ty_error e;
	char *text = malloc(size + 1);
	double *v;
	long n, i;
	size_t nch, k, npts;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	n = ty_history_parse_values(text, &v);
	free(text);
	if (n < 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			abort();
	/* the values as per-commit centres, weights cycling 1..10 */
	npts = (size_t)n;
	p = calloc(npts + 1, sizeof(*p));
	if (!p) {
		free(v);
		return 0;
	}
	for (k = 0; k < npts; k++) {
		p[k].centre = v[k];
		p[k].lo = p[k].hi = v[k];
		p[k].weight = (double)(k % 10 + 1);
	}
	if (ty_history_detect(p, npts, NULL, &ch, &nch, &e) == 0) {
		for (k = 0; k < nch; k++)
			if (ch[k].index >= npts || (k && ch[k].index <= ch[k - 1].index))
				abort();
		free(ch);
	}
	free(p);
	free(v);
	return 0;
}
