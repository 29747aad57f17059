/* fuzz-perfdata.c - libFuzzer target for the perf.data reader
 * (lib/profile-perfdata.c): the header, events, features and every record
 * of the data section walked in the three ways the loader walks them. What
 * it accepts must hold together: at least one event, every id naming one,
 * the data section inside the file.
 *
 *   make fuzz && ./build/fuzz/fuzz-perfdata tests/fuzz/corpus/perfdata
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/profile-perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
on_rec(const struct ty_sampler_rec *r, int ev, void *arg)
{
	size_t *n = arg;

	if (r->nr > TY_SAMPLER_MAX_STACK || (r->name && strlen(r->name) > 1u << 20))
		abort();
	*n += (size_t)(ev + 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_perfdata pd;
	struct ty_error err;
	size_t i, n = 0;

	memset(&pd, 0, sizeof(pd));
	if (ty_perfdata_parse(data, size, "fuzz", &pd, &err) == 0) {
		if (!pd.nevents || pd.data_off > size || pd.data_len > size - pd.data_off)
			abort();
		for (i = 0; i < pd.nids; i++)
			if (pd.ids[i].ev >= pd.nevents)
				abort();
		ty_perfdata_each(&pd, 0, on_rec, &n);
		ty_perfdata_each(&pd, 1, on_rec, &n);
		ty_perfdata_each(&pd, -1, on_rec, &n);
		ty_perfdata_find_event(&pd, "cpu-clock");
	}
	ty_perfdata_release(&pd);
	return 0;
}
