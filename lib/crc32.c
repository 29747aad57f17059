/* crc32.c - CRC-32 (reflected, polynomial 0xedb88320) and CRC-32C
 * (0x82f63b78), by a table of 8 slices (eight bytes a step: a 100 MB
 * profile is checked in well under a second); CRC-32C by the processor's
 * crc32 instruction where it has one (SSE4.2: a cache file of 5 MB in
 * under a millisecond). */
#include <pthread.h>
#include <string.h>

#include "tachy/crc32.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>
#define HAVE_CRC32C_INSN 1
#endif

static uint32_t tab[8][256], tabc[8][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT, tabc_once = PTHREAD_ONCE_INIT;

static void
make(uint32_t t[8][256], uint32_t poly)
{
	uint32_t i, c;
	int k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? poly ^ (c >> 1) : c >> 1;
		t[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			t[k][i] = t[0][t[k - 1][i] & 0xff] ^ (t[k - 1][i] >> 8);
}

static void
make_table(void)
{
	make(tab, 0xedb88320u);
}

static void
make_tablec(void)
{
	make(tabc, 0x82f63b78u);
}

/* CRC (not inverted) over P[0..N) by the slices of T. */
static uint32_t
sliced(uint32_t t[8][256], uint32_t crc, const unsigned char *p, size_t n)
{
	for (; n >= 8; n -= 8, p += 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);
		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
		      t[4][lo >> 24] ^ t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
	}
	for (; n > 0; n--, p++)
		crc = t[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
	return crc;
}

#ifdef HAVE_CRC32C_INSN
__attribute__((target("sse4.2"))) static uint32_t
insn(uint32_t crc, const unsigned char *p, size_t n)
{
	uint64_t c = crc, v;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&v, p, 8);
		c = _mm_crc32_u64(c, v);
	}
	crc = (uint32_t)c;
	for (; n > 0; n--, p++)
		crc = _mm_crc32_u8(crc, *p);
	return crc;
}
#endif

uint32_t
ty_crc32c_table(uint32_t crc, const void *buf, size_t n)
{
	pthread_once(&tabc_once, make_tablec);
	return ~sliced(tabc, ~crc, buf, n);
}

uint32_t
ty_crc32c(uint32_t crc, const void *buf, size_t n)
{
#ifdef HAVE_CRC32C_INSN
	if (__builtin_cpu_supports("sse4.2"))
		return ~insn(~crc, buf, n);
#endif
	return ty_crc32c_table(crc, buf, n);
}

uint32_t
ty_crc32(uint32_t crc, const void *buf, size_t n)
{
	pthread_once(&tab_once, make_table);
	return ~sliced(tab, ~crc, buf, n);
}
