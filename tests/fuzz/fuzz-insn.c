/* fuzz-insn.c - libFuzzer target for the x86-64 instruction length decoder
 * and ty_insn_resume (record --calls reads a probed function's code from
 * its ELF file): the first two bytes give the function's size, the rest is
 * its code; every length lies within the bytes given and 15, every offset
 * within the function. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/insn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *code;
	size_t have, fsize;
	int len, at, next = -9;

	if (size < 2)
		return 0;
	fsize = (size_t)data[0] | (size_t)data[1] << 8;
	have = size - 2;
	if (!(code = malloc(have ? have : 1))) /* exactly HAVE: the sanitizer sees overreads */
		return 0;
	memcpy(code, data + 2, have);
	len = ty_insn_len(code, have);
	if (len == 0 || len < -1 || len > 15 || (len > 0 && (size_t)len > have))
		abort();
	at = ty_insn_resume(code, fsize, have, &next);
	if (at == 0 || at < TY_INSN_UNKNOWN || (at > 0 && at != len))
		abort();
	if (next < 0 || (next > 0 && (at <= 0 || next <= at || (size_t)next >= fsize)))
		abort();
	free(code);
	return 0;
}
