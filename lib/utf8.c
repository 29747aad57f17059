/* utf8.c - UTF-8 validation, and the reversible escape of text for the
 * line-based formats (folded stacks, CSV). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/utf8.h"

int
ty_utf8_seqlen(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* Whether the byte at P must be written as \xHH: a C0 control, DEL, a
 * C1 control (U+0080..U+009F in UTF-8, 0xc2 0x80..0x9f), a byte that does
 * not start valid UTF-8, or a backslash that an 'x' follows (so a literal
 * "\x1b" reads back as itself). The length of what is kept as is, else. */
static int
kept(const unsigned char *p)
{
	int n;

	if (*p == '\\')
		return p[1] == 'x' ? 0 : 1;
	if (*p >= 0x20 && *p < 0x7f)
		return 1;
	if (*p < 0x80 || !(n = ty_utf8_seqlen((const char *)p)))
		return 0;
	return p[0] == 0xc2 && p[1] < 0xa0 ? 0 : n;
}

char *
ty_utf8_escape(const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;
	char *out, *q;
	size_t len = strlen(s);
	int n;

	if (len > (SIZE_MAX - 1) / 4 || !(out = malloc(len * 4 + 1)))
		return NULL;
	for (p = (const unsigned char *)s, q = out; *p;) {
		if ((n = kept(p))) {
			memcpy(q, p, (size_t)n);
			q += n;
			p += n;
			continue;
		}
		*q++ = '\\';
		*q++ = 'x';
		*q++ = hex[*p >> 4];
		*q++ = hex[*p & 15];
		p++;
	}
	*q = '\0';
	return out;
}

int
ty_utf8_needs_escape(const char *s)
{
	const unsigned char *p;
	int n;

	for (p = (const unsigned char *)s; *p && (n = kept(p)); p += n)
		;
	return *p != '\0';
}
