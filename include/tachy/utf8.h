/* utf8.h - UTF-8 validation for the writers that must escape text. */
#ifndef TACHY_UTF8_H
#define TACHY_UTF8_H

/* Length (1-4) of the valid UTF-8 sequence at S, or 0 when S does not
 * start one (overlong forms, surrogates and truncated sequences are invalid).
 * S must be NUL-terminated. */
int ty_utf8_seqlen(const char *s);

/* S with every control character written as \xHH, one escape per byte:
 * C0 controls (ESC, BEL, CR, LF, tab...), DEL, the C1 controls (U+0080 to
 * U+009F, two escapes for their two UTF-8 bytes), bytes that are not valid
 * UTF-8, and a backslash that an 'x' follows. Everything else (printable
 * ASCII, other UTF-8, other backslashes) is kept. Reversible: every \xHH
 * (two lowercase hex digits) is the byte HH, and nothing else is an escape.
 * Returns a malloc'd string (the caller frees it), NULL when out of memory. */
char *ty_utf8_escape(const char *s);

/* Whether ty_utf8_escape would change S. */
int ty_utf8_needs_escape(const char *s);

#endif
