/* crc32.c - CRC-32, reflected, polynomial 0xedb88320, by a table of 8
 * slices (eight bytes a step: a 100 MB profile is checked in well under a
 * second). */
#include <pthread.h>

#include "tachy/crc32.h"

static uint32_t tab[8][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

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
}

uint32_t
ty_crc32(uint32_t crc, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	pthread_once(&tab_once, make_table);
	crc = ~crc;
	for (; n >= 8; n -= 8, p += 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);
		crc = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^ tab[5][(lo >> 16) & 0xff] ^
		      tab[4][lo >> 24] ^ tab[3][p[4]] ^ tab[2][p[5]] ^ tab[1][p[6]] ^ tab[0][p[7]];
	}
	for (; n > 0; n--, p++)
		crc = tab[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
	return ~crc;
}
