/* markdown.h - text that lands in markdown (GitHub's, CommonMark) stays text.
 *
 * The one escaping for every markdown tachy writes (run --export-markdown,
 * compare --format markdown): a name that comes from outside can neither
 * end a table cell, nor open a code span, emphasis or link, nor become
 * HTML. */
#ifndef TACHY_MARKDOWN_H
#define TACHY_MARKDOWN_H

#include <stdio.h>

/* Write S to FP as markdown text, for a table cell or a line: the
 * characters that end a cell or open a span (| * _ ` \) backslash-
 * escaped, < > & as entities, line breaks as spaces and other control
 * characters as '?'. */
void ty_markdown_escape(FILE *fp, const char *s);

#endif
