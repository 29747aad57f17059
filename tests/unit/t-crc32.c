/* t-crc32.c - CRC-32 against a bit-at-a-time reference and known values:
 * every length around the folded path's steps (64-byte blocks from 256
 * bytes on), at every alignment, chained in two parts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tachy/crc32.h"

static uint32_t
reference(uint32_t crc, const unsigned char *p, size_t n)
{
	int k;

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	}
	return ~crc;
}

int
main(void)
{
	static unsigned char buf[4096 + 16];
	size_t len, off, cut, bad = 0, badchain = 0;
	uint32_t seed = 12345;

	for (len = 0; len < sizeof(buf); len++) {
		seed = seed * 1103515245u + 12345u;
		buf[len] = (unsigned char)(seed >> 16);
	}
	CHECK_INT(ty_crc32(0, "", 0), 0);
	CHECK_INT(ty_crc32(0, "123456789", 9), 0xcbf43926u);
	memset(buf + 4096, 0, 16);
	for (len = 0; len <= 1200; len++)
		for (off = 0; off < 16; off++)
			bad += ty_crc32(0x5a5a5a5au, buf + off, len) !=
			       reference(0x5a5a5a5au, buf + off, len);
	CHECK_INT(bad, 0);
	for (len = 4000; len <= 4096; len += 3)
		bad += ty_crc32(0, buf, len) != reference(0, buf, len);
	CHECK_INT(bad, 0);
	for (cut = 0; cut <= 700; cut += 7)
		badchain += ty_crc32(ty_crc32(0, buf, cut), buf + cut, 3000 - cut) !=
			    reference(0, buf, 3000);
	CHECK_INT(badchain, 0);
	return check_done();
}
