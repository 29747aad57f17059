/* t-crc32.c - CRC-32 and CRC-32C: the standard check values, chaining,
 * and the processor's CRC-32C against the tables' on every length and
 * alignment. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tachy/crc32.h"

static void
test_check_values(void)
{
	const char *s = "123456789";

	CHECK_INT(ty_crc32(0, s, 9), 0xcbf43926u);
	CHECK_INT(ty_crc32c(0, s, 9), 0xe3069283u);
	CHECK_INT(ty_crc32c_table(0, s, 9), 0xe3069283u);
	CHECK_INT(ty_crc32(0, "", 0), 0);
	CHECK_INT(ty_crc32c(0, "", 0), 0);
	/* chained: a then b is the CRC of both */
	CHECK_INT(ty_crc32(ty_crc32(0, s, 4), s + 4, 5), 0xcbf43926u);
	CHECK_INT(ty_crc32c(ty_crc32c(0, s, 4), s + 4, 5), 0xe3069283u);
	/* RFC 3720's vectors: 32 zeros, 32 0xff */
	{
		unsigned char z[32];
		memset(z, 0, sizeof(z));
		CHECK_INT(ty_crc32c(0, z, sizeof(z)), 0x8a9136aau);
		memset(z, 0xff, sizeof(z));
		CHECK_INT(ty_crc32c(0, z, sizeof(z)), 0x62a8ab43u);
	}
}

static void
test_insn_matches_tables(void)
{
	unsigned char buf[300];
	size_t i, off, len;
	int bad = 0;
	uint32_t x = 12345;

	for (i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
	for (off = 0; off < 8; off++)
		for (len = 0; off + len <= sizeof(buf); len += 7)
			bad += ty_crc32c(7, buf + off, len) != ty_crc32c_table(7, buf + off, len);
	CHECK_INT(bad, 0);
}

int
main(void)
{
	test_check_values();
	test_insn_matches_tables();
	return check_done();
}
