/* svg.h - SVG writing shared by plots and flame graphs.
 *
 * Escaping lives here, once: every piece of text that reaches an SVG or
 * HTML page (command names, symbol names) goes through ty_svg_escape. */
#ifndef TACHY_SVG_H
#define TACHY_SVG_H

#include <stdio.h>

/* Write S to FP escaped for XML/HTML text and attribute values: & < > " '
 * become entities, control characters (but tab and newline) and invalid
 * UTF-8 bytes become U+FFFD, so hostile names are shown, never run. */
void ty_svg_escape(FILE *fp, const char *s);

#endif
