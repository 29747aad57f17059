/* utf8.h - UTF-8 validation for the writers that must escape text. */
#ifndef TACHY_UTF8_H
#define TACHY_UTF8_H

/* Length (1-4) of the valid UTF-8 sequence at S, or 0 when S does not
 * start one (overlong forms, surrogates and truncated sequences are invalid).
 * S must be NUL-terminated. */
int ty_utf8_seqlen(const char *s);

#endif
