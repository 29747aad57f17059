/* resfmt.h - numbers of saved results as people read them (compare, plot). */
#ifndef TACHY_RESFMT_H
#define TACHY_RESFMT_H

#include <stddef.h>

/* Write V, a value in UNIT ("s", "ns", "KiB", "" for a count, ...), to BUF
 * with a prefix chosen for REF (so a column shares one scale): "10.40ms",
 * "1.235M", "1.75MiB". Non-finite values print as "?". Returns BUF. */
char *resfmt_value(char *buf, size_t size, double v, double ref, const char *unit);

/* A signed percentage: "+6.0%", "-12%", "?" when not finite. Returns BUF. */
char *resfmt_pct(char *buf, size_t size, double pct);

/* The display width of UTF-8 text S (code points). */
size_t resfmt_width(const char *s);

#endif
