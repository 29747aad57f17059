/* fuzz-profile.c - libFuzzer target for the profile file reader.
 *   clang -g -fsanitize=fuzzer,address -Iinclude -D_GNU_SOURCE \
 *     tests/fuzz/fuzz-profile.c lib/profile.c lib/profile-file.c lib/profile-views.c \
 *     lib/profile-who.c lib/cpulist.c lib/timeline.c lib/jsonw.c lib/outfile.c \
 *     lib/error.c lib/array.c lib/utf8.c lib/crc32.c -lm -o fuzz-profile
 * Every input must give a profile or -EINVAL/-ENOMEM, and a profile read
 * must survive every view and export (seeds: tests/fuzz/corpus/profile/,
 * version 1, 2 and 3 profiles). Each input is read as it is (the checks of
 * format 3 refuse almost every mutation) and again with its checks made
 * good, so the section readers behind them are fuzzed as well.
 * (t-profile.c runs a smaller mutation loop in `make test`.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/crc32.h"
#include "tachy/profile-file.h"
#include "tachy/profile-views.h"
#include "tachy/timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void
wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
	p[3] = (uint8_t)(v >> 24);
}

/* Write the checks of format 3 into D (SIZE bytes): the header's, and
 * each section's as far as the sections can be walked. */
static void
reseal(uint8_t *d, size_t size)
{
	size_t off = 16;

	if (size < 16 || rd32(d + 8) < 3)
		return;
	wr32(d + 12, ty_crc32(0, d, 12));
	while (size - off >= 16) {
		uint64_t n = rd32(d + off + 8) | (uint64_t)rd32(d + off + 12) << 32;
		if (n > size - off - 16)
			break;
		wr32(d + off + 4, ty_crc32(ty_crc32(ty_crc32(0, d + off, 4), d + off + 8, 8),
					   d + off + 16, (size_t)n));
		off += 16 + (size_t)n;
	}
}

static void
exercise(const uint8_t *data, size_t size)
{
	struct ty_profile *p;
	struct ty_error e;
	struct ty_profile_views_flat f;
	FILE *null;

	if (ty_profile_parse(data, size, &p, &e) < 0)
		return;
	if (ty_profile_views_flat(p, TY_BY_SYMBOL, TY_SORT_SELF, &f) == 0)
		ty_profile_views_flat_release(&f);
	if (ty_profile_views_flat(p, TY_BY_THREAD, TY_SORT_SELF, &f) == 0)
		ty_profile_views_flat_release(&f);
	if (ty_profile_views_flat(p, TY_BY_STATE, TY_SORT_SELF, &f) == 0)
		ty_profile_views_flat_release(&f);
	if ((null = fopen("/dev/null", "w"))) {
		ty_profile_views_folded(p, null);
		ty_timeline_firefox_write_fp(p, null);
		ty_timeline_speedscope_write_fp(p, null);
		fclose(null);
	}
	ty_profile_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	exercise(data, size);
	if (size >= 16 && (copy = malloc(size))) {
		memcpy(copy, data, size);
		reseal(copy, size);
		if (memcmp(copy, data, size) != 0)
			exercise(copy, size);
		free(copy);
	}
	return 0;
}
