/* fuzz-perfmap.c - libFuzzer target for the perf map reader (JIT code
 * named in /tmp/perf-PID.map).
 *   clang -g -fsanitize=fuzzer,address,undefined -Iinclude -D_GNU_SOURCE \
 *     tests/fuzz/fuzz-perfmap.c LIB_SOURCES -lelf -ldw -lm -pthread -o fuzz-perfmap
 * (LIB_SOURCES: every lib/ source file.) Every input is read (bad lines skipped), and every address
 * then resolves to a name of the map or to none. */
#include <stdint.h>
#include <string.h>

#include "tachy/symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_symbols *s = ty_symbols_new();
	struct ty_sym_result r;
	uint64_t probes[8] = {
	    0, 1, 0x1000, 0x7f0000001000, 0x7f0000001080, UINT64_MAX / 2, UINT64_MAX - 1, 0};
	size_t i;

	if (!s)
		return 0;
	ty_symbols_set_perf_map_dir(s, "/nonexistent");
	if (size >= 8)
		memcpy(&probes[7], data, 8);
	if (ty_symbols_add_perf_map(s, 1, (const char *)data, size) >= 0)
		for (i = 0; i < 8; i++)
			if (probes[i] < TY_KERNEL_START)
				ty_symbols_resolve(s, 1, probes[i], 0, 0, &r);
	ty_symbols_free(s);
	return 0;
}
