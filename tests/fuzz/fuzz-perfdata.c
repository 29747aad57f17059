/* fuzz-perfdata.c - libFuzzer target for the perf.data reader
 * (lib/profile-perfdata.c): the header, events, features and every record
 * of the data section walked in the three ways the loader walks them, and
 * the tracepoints' formats in the tracing data and each sample's
 * sched_switch fields (lib/profile-perfdata-sched.c). What it accepts must
 * hold together: at least one event, every id naming one, the data section
 * inside the file, the tracing data inside it too, a format's fields inside
 * what they say they need.
 *
 *   make fuzz && ./build/fuzz/fuzz-perfdata tests/fuzz/corpus/perfdata
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/profile-perfdata-sched.h"
#include "tachy/profile-perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ty_tp_switch sw; /* the last sched_switch format found */

static void
on_rec(const struct ty_sampler_rec *r, int ev, void *arg)
{
	size_t *n = arg;
	uint32_t prev, next;
	uint64_t state;

	if (r->nr > TY_SAMPLER_MAX_STACK || (r->name && strlen(r->name) > 1u << 20))
		abort();
	if (r->raw && ty_tp_switch_read(&sw, r->raw, r->raw_size, &prev, &state, &next) == 0)
		*n += ty_tp_switch_state(state) + prev + next;
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
		if (pd.tracing && (pd.tracing < pd.buf || pd.tracing_len > size ||
				   (size_t)(pd.tracing - pd.buf) > size - pd.tracing_len))
			abort();
		memset(&sw, 0, sizeof(sw));
		for (i = 0; i < pd.nevents; i++) {
			char name[64], why[160];
			if (pd.events[i].type == 2 &&
			    ty_tp_format(pd.tracing, pd.tracing_len, pd.events[i].config, name,
					 sizeof(name), &sw, why, sizeof(why)) == 0 &&
			    sw.need &&
			    (sw.prev_pid.off + sw.prev_pid.size > sw.need ||
			     sw.next_pid.off + sw.next_pid.size > sw.need ||
			     sw.prev_state.off + sw.prev_state.size > sw.need))
				abort();
		}
		ty_perfdata_each(&pd, 0, on_rec, &n);
		ty_perfdata_each(&pd, 1, on_rec, &n);
		ty_perfdata_each(&pd, -1, on_rec, &n);
		ty_perfdata_find_event(&pd, "cpu-clock");
	}
	ty_perfdata_release(&pd);
	return 0;
}
