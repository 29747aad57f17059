/* fuzz-profile.c - libFuzzer target for the profile file reader.
 *   clang -g -fsanitize=fuzzer,address -Iinclude -D_GNU_SOURCE \
 *     tests/fuzz/fuzz-profile.c lib/profile.c lib/profile-file.c lib/timeline.c \
 *     lib/jsonw.c lib/outfile.c lib/error.c lib/array.c lib/utf8.c -lm -o fuzz-profile
 * Every input must give a profile or -EINVAL/-ENOMEM, and a profile read
 * must survive every view and export (seeds: tests/fuzz/corpus/profile/,
 * a version 1 and a version 2 profile). (t-profile.c runs a smaller mutation loop in
 * `make test`.) */
#include <stdint.h>
#include <stdio.h>

#include "tachy/flame.h"
#include "tachy/profile-file.h"
#include "tachy/profile-views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_profile *p;
	struct ty_error e;
	struct ty_profile_views_flat f;
	FILE *null;

	if (ty_profile_parse(data, size, &p, &e) < 0)
		return 0;
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
	return 0;
}
