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

/* ---- plots (tachy plot) ----
 * Plain SVG, no scripts: every function writes elements into an <svg> the
 * caller opened with ty_svg_begin. Values are in display units (the caller
 * scales them, e.g. to ms) and UNIT is the suffix of the axis labels. */

/* Where a plot goes in the SVG: the outer box, labels included. */
struct ty_svg_frame {
	double x, y, w, h;
	double xlo, xhi; /* histograms: the x range to draw (when xlo < xhi), so two
			    can share an axis; else the data's */
};

/* Open an SVG document of W x H pixels (with its XML namespace) / close it. */
void ty_svg_begin(FILE *fp, double w, double h);
void ty_svg_end(FILE *fp);

/* Text at X, Y; ANCHOR "start", "middle" or "end"; SIZE in pixels; BOLD. */
void ty_svg_text(FILE *fp, double x, double y, const char *anchor, double size, int bold,
		 const char *text);

/* A histogram of X[0..N) with the median as a line, the interval LO..HI
 * (of the median) as a band, and the mean as a dashed line; TITLE above. */
void ty_svg_histogram(FILE *fp, const struct ty_svg_frame *f, const double *x, size_t n,
		      double median, double lo, double hi, double mean, const char *unit,
		      const char *title);

/* The runs X[0..N) in the order they were measured (a dot each, joined),
 * with the median as a line, so warm-up and drift show; TITLE above. */
void ty_svg_runs(FILE *fp, const struct ty_svg_frame *f, const double *x, size_t n, double median,
		 const char *unit, const char *title);

/* One change with its interval, in percent. VERDICT: +1 proven higher,
 * -1 proven lower, 0 not proven. */
struct ty_svg_change {
	const char *label;
	double rel, lo, hi;
	int verdict;
};

/* The changes C[0..N) as a dot each with its interval as a whisker, against
 * a line at 0%. Needs a frame about 40 + 22 N pixels high. */
void ty_svg_changes(FILE *fp, const struct ty_svg_frame *f, const struct ty_svg_change *c, size_t n,
		    const char *title);

#endif
