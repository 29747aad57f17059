/* svg.c - SVG writing shared by plots and flame graphs. */
#include <string.h>

#include "tachy/svg.h"
#include "tachy/utf8.h"

void
ty_svg_escape(FILE *fp, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	while (*s) {
		switch (*s) {
		case '&': fputs("&amp;", fp); s++; continue;
		case '<': fputs("&lt;", fp); s++; continue;
		case '>': fputs("&gt;", fp); s++; continue;
		case '"': fputs("&quot;", fp); s++; continue;
		case '\'': fputs("&#39;", fp); s++; continue;
		}
		if ((*s < 0x20 && *s != '\t' && *s != '\n') || *s == 0x7f) {
			fputs("\xef\xbf\xbd", fp);
			s++;
			continue;
		}
		n = ty_utf8_seqlen((const char *)s);
		if (n == 0) {
			fputs("\xef\xbf\xbd", fp);
			s++;
			continue;
		}
		fwrite(s, 1, (size_t)n, fp);
		s += n;
	}
}
