/* crc32.c - CRC-32, reflected, polynomial 0xedb88320: by carry-less
 * multiplication (PCLMULQDQ) where the CPU has it, 64 bytes a step (a 10 MB
 * cached debug file is checked in about a millisecond), else by a table
 * of 8 slices (eight bytes a step). */
#include <pthread.h>

#include "tachy/crc32.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_CLMUL 1
#endif

static uint32_t tab[8][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

#ifdef HAVE_CLMUL
/* The folding constants: lo fold by 512 bits, hi; then by 128 bits. */
static uint64_t k512[2], k128[2];
static int clmul;
#endif

#ifdef HAVE_CLMUL
/* x^K mod P, P = x^32 + ... (0x104c11db7, the unreflected polynomial),
 * bit-reversed into 64 bits: the coefficient of x^d at bit 63 - d, as a
 * reflected operand of PCLMULQDQ holds it. */
static uint64_t
xpow_rev(unsigned k)
{
	uint64_t r = 1, v = 0;
	unsigned i;

	for (i = 0; i < k; i++) {
		r <<= 1;
		if (r & (1ull << 32))
			r ^= 0x104c11db7ull;
	}
	for (i = 0; i < 32; i++)
		if (r & (1ull << i))
			v |= 1ull << (63 - i);
	return v;
}
#endif

static void
make_table(void)
{
	uint32_t i, c;
	int k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			tab[k][i] = tab[0][tab[k - 1][i] & 0xff] ^ (tab[k - 1][i] >> 8);
#ifdef HAVE_CLMUL
	/* A 128-bit lane X (its first 8 bytes H, the higher powers; its last
	 * L) D bits before the end is H x^(D+64) + L x^D; the reflected
	 * product of PCLMULQDQ is one power higher than the product, hence
	 * the constants x^(D+63) and x^(D-1) mod P. */
	k512[0] = xpow_rev(512 + 63);
	k512[1] = xpow_rev(512 - 1);
	k128[0] = xpow_rev(128 + 63);
	k128[1] = xpow_rev(128 - 1);
	clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
#endif
}

/* The register CRC (not inverted) after BUF[0..N), eight bytes a step. */
static uint32_t
slices(uint32_t crc, const unsigned char *p, size_t n)
{
	for (; n >= 8; n -= 8, p += 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);
		crc = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^ tab[5][(lo >> 16) & 0xff] ^
		      tab[4][lo >> 24] ^ tab[3][p[4]] ^ tab[2][p[5]] ^ tab[1][p[6]] ^ tab[0][p[7]];
	}
	for (; n > 0; n--, p++)
		crc = tab[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
	return crc;
}

#ifdef HAVE_CLMUL
__attribute__((target("pclmul,sse2"))) static inline __m128i
fold(__m128i x, __m128i k, __m128i next)
{
	return _mm_xor_si128(
	    _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)),
	    next);
}

/* The register CRC (not inverted) after the first N & ~63 bytes of P
 * (N >= 64), four lanes of 128 bits folded 512 bits a step, then into
 * one, whose 16 bytes the table finishes: a message of those bytes has
 * the CRC of all that came before. */
__attribute__((target("pclmul,sse2"))) static uint32_t
lanes(uint32_t crc, const unsigned char *p, size_t n)
{
	const __m128i k4 = _mm_set_epi64x((long long)k512[1], (long long)k512[0]);
	const __m128i k1 = _mm_set_epi64x((long long)k128[1], (long long)k128[0]);
	__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p),
		b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16)),
		c = _mm_loadu_si128((const __m128i *)(const void *)(p + 32)),
		d = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
	unsigned char last[16];

	a = _mm_xor_si128(a, _mm_cvtsi32_si128((int)crc));
	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
		a = fold(a, k4, _mm_loadu_si128((const __m128i *)(const void *)p));
		b = fold(b, k4, _mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
		c = fold(c, k4, _mm_loadu_si128((const __m128i *)(const void *)(p + 32)));
		d = fold(d, k4, _mm_loadu_si128((const __m128i *)(const void *)(p + 48)));
	}
	a = fold(fold(fold(a, k1, b), k1, c), k1, d);
	_mm_storeu_si128((__m128i *)(void *)last, a);
	return slices(0, last, 16);
}
#endif

uint32_t
ty_crc32(uint32_t crc, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	pthread_once(&tab_once, make_table);
	crc = ~crc;
#ifdef HAVE_CLMUL
	if (clmul && n >= 256) {
		crc = lanes(crc, p, n);
		p += n & ~(size_t)63;
		n &= 63;
	}
#endif
	return ~slices(crc, p, n);
}
