/* fuzz-cfi.c - libFuzzer target for the call-frame table reader: any bytes
 * as an ELF image (.eh_frame, .eh_frame_hdr, .debug_frame), built eagerly
 * and lazily, then looked up (rows and FDE ranges) at pcs the input names;
 * never a crash, never a read outside the image. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/cfi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_cfi_table *t;
	struct ty_error e;
	uint64_t *img = malloc(size / 8 + 1 > 0 ? (size / 8 + 1) * 8 : 8); /* aligned */
	size_t i;

	if (!img)
		return 0;
	memcpy(img, data, size);
	if (ty_cfi_table_build(img, size, &t, &e) == 0) {
		for (i = 0; i + 8 <= size && i < 512; i += 8) {
			uint64_t pc;
			memcpy(&pc, data + i, 8);
			ty_cfi_table_find(t, pc);
			ty_cfi_table_find(t, pc & 0xffffff);
		}
		ty_cfi_table_rows(t);
		ty_cfi_table_free(t);
	}
	if (ty_cfi_table_open(img, size, &t, &e) == 0) {
		for (i = 0; i + 8 <= size && i < 512; i += 8) {
			uint64_t pc, a, b;
			memcpy(&pc, data + i, 8);
			ty_cfi_table_find(t, pc & 0xffffff);
			ty_cfi_table_fde(t, pc, &a, &b);
			ty_cfi_table_fde(t, pc & 0xffffff, &a, &b);
		}
		ty_cfi_table_free(t);
	}
	free(img);
	return 0;
}
