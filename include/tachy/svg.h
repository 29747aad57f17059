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
	double xlo, xhi;    /* the values' range to draw (when xlo < xhi), so the
			       plots of several commands share one axis; else the data's */
	const char *xlabel; /* what the values are ("wall time (ms)"); NULL: UNIT */
};

/* Widen [*LO, *HI] to whole multiples of a round step (1, 2 or 5 x 10^k)
 * splitting it in about N parts; returns the step. */
double ty_svg_round_range(double *lo, double *hi, int n);

/* A y axis at X from Y0 (value LO) up to Y1 (HI), ticks on round values
 * (WHOLE: whole numbers only), grid lines across to RIGHT. */
void ty_svg_y_axis(FILE *fp, double x, double y0, double y1, double right, double lo, double hi,
		   const char *unit, int whole);

/* An axis' title centred at X, Y (VERTICAL: turned to read upwards). */
void ty_svg_axis_label(FILE *fp, double x, double y, int vertical, const char *text);

/* LABELS[0..N) under the points PX[0..N) at baseline Y, thinned to about
 * one every MIN_GAP pixels (the first and last always shown), each with a
 * tick. */
void ty_svg_x_labels(FILE *fp, const double *px, const char *const *labels, size_t n, double y,
		     double min_gap);

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
 * a line at 0%; an interval cut at the axis' end ends in an arrow
 * (class="clip") with the value it reaches. Needs a frame about 65 + 22 N
 * pixels high. */
void ty_svg_changes(FILE *fp, const struct ty_svg_frame *f, const struct ty_svg_change *c, size_t n,
		    const char *title);

#endif
