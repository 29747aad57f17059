/* crc32.h - CRC-32 (the polynomial of zlib, gzip, PNG and .gnu_debuglink).
 *
 * Used as a check of a file's integrity against bit flips and truncation
 * (the profile format's sections): not against an attacker, who can
 * recompute it. */
#ifndef TACHY_CRC32_H
#define TACHY_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of CRC's data followed by BUF[0..N): start with CRC 0;
 * ty_crc32(ty_crc32(0, a, m), b, n) is the CRC of a then b. */
uint32_t ty_crc32(uint32_t crc, const void *buf, size_t n);

#endif
