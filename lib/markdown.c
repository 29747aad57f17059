/* markdown.c - escaping for markdown text (markdown.h).
 *
 * Backslash escapes work everywhere but in code spans and raw HTML, so a
 * name is never put in a code span (a backtick in it would end the span,
 * and CommonMark has no escape inside one: a`<img onerror=...>`b became
 * HTML) but written as escaped text. */
#include <string.h>

#include "tachy/markdown.h"

void
ty_markdown_escape(FILE *fp, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c && strchr("|*_`\\", c))
			fprintf(fp, "\\%c", c);
		else if (c == '<')
			fputs("&lt;", fp);
		else if (c == '>')
			fputs("&gt;", fp);
		else if (c == '&')
			fputs("&amp;", fp);
		else if (c == '\n' || c == '\r')
			fputc(' ', fp);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', fp);
		else
			fputc(c, fp);
	}
}
