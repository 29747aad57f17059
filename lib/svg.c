/* svg.c - SVG writing shared by plots and flame graphs. */
#include <math.h>
#include <stdlib.h>
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
		case '&':
			fputs("&amp;", fp);
			s++;
			continue;
		case '<':
			fputs("&lt;", fp);
			s++;
			continue;
		case '>':
			fputs("&gt;", fp);
			s++;
			continue;
		case '"':
			fputs("&quot;", fp);
			s++;
			continue;
		case '\'':
			fputs("&#39;", fp);
			s++;
			continue;
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

/* ---- plots ---- */

#define FONT "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
#define C_BAR "#4e79a7"
#define C_MEDIAN "#e15759"
#define C_MEAN "#333333"
#define C_AXIS "#666666"
#define C_GRID "#e6e6e6"
#define C_UP "#d62728"
#define C_DOWN "#2ca02c"
#define C_SAME "#8c8c8c"

void
ty_svg_begin(FILE *fp, double w, double h)
{
	fprintf(fp,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" " FONT ">\n"
		"<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
		w, h, w, h, w, h);
}

void
ty_svg_end(FILE *fp)
{
	fputs("</svg>\n", fp);
}

void
ty_svg_text(FILE *fp, double x, double y, const char *anchor, double size, int bold,
	    const char *text)
{
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%.0f\"%s>", x, y,
		anchor, size, bold ? " font-weight=\"bold\"" : "");
	ty_svg_escape(fp, text);
	fputs("</text>\n", fp);
}

static void
line(FILE *fp, double x1, double y1, double x2, double y2, const char *colour, double width,
     const char *dash)
{
	fprintf(fp,
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		"stroke-width=\"%.1f\"%s%s%s/>\n",
		x1, y1, x2, y2, colour, width, dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
		dash ? "\"" : "");
}

/* A "nice" tick step for RANGE split in about N parts: 1, 2 or 5 x 10^k. */
static double
nice_step(double range, int n)
{
	double raw = range / n, mag, f;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

double
ty_svg_round_range(double *lo, double *hi, int n)
{
	double step = nice_step(*hi - *lo, n);

	*lo = floor(*lo / step + 1e-9) * step;
	*hi = ceil(*hi / step - 1e-9) * step;
	if (!(*hi > *lo))
		*hi = *lo + step;
	return step;
}

/* The data range [*LO, *HI] of X, widened when flat. */
static void
range_of(const double *x, size_t n, double *lo, double *hi)
{
	size_t i;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		*lo = fmin(*lo, x[i]);
		*hi = fmax(*hi, x[i]);
	}
	if (!isfinite(*lo)) {
		*lo = 0;
		*hi = 1;
	}
	if (*hi == 0 && *lo == 0) { /* all zero: an axis from 0, never below */
		*hi = 1;
	} else if (*hi - *lo < 1e-12 * fmax(1, fabs(*hi))) {
		double d = fabs(*hi) > 0 ? fabs(*hi) * 0.05 : 1;
		*lo -= d;
		*hi += d;
	}
}

static void
tick_label(char *buf, size_t size, double v, double step, const char *unit)
{
	int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);

	if (fabs(v) < step * 1e-9)
		v = 0;
	snprintf(buf, size, "%.*f%s", dec > 9 ? 9 : dec, v, unit);
}

/* Ticks along the x axis of the plot area (X0..X1 at baseline Y) for
 * values LO..HI; vertical grid lines up to TOP when TOP < Y. */
static void
x_axis(FILE *fp, double x0, double x1, double y, double top, double lo, double hi, const char *unit,
       int whole)
{
	double step = nice_step(hi - lo, 5), v, px;
	char buf[64];

	if (whole && step < 1) /* run numbers: 1, 2, 3, never 1.5 */
		step = 1;
	line(fp, x0, y, x1, y, C_AXIS, 1, NULL);
	for (v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
		px = x0 + (v - lo) / (hi - lo) * (x1 - x0);
		if (top < y)
			line(fp, px, top, px, y, C_GRID, 1, NULL);
		line(fp, px, y, px, y + 4, C_AXIS, 1, NULL);
		tick_label(buf, sizeof(buf), v, step, unit);
		ty_svg_text(fp, px, y + 16, "middle", 11, 0, buf);
	}
}

void
ty_svg_y_axis(FILE *fp, double x, double y0, double y1, double right, double lo, double hi,
	      const char *unit, int whole)
{
	double step = nice_step(hi - lo, 4), v, py;
	char buf[64];

	if (whole && step < 1)
		step = 1;
	line(fp, x, y0, x, y1, C_AXIS, 1, NULL);
	for (v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
		py = y0 - (v - lo) / (hi - lo) * (y0 - y1);
		line(fp, x, py, right, py, C_GRID, 1, NULL);
		tick_label(buf, sizeof(buf), v, step, unit);
		ty_svg_text(fp, x - 5, py + 4, "end", 11, 0, buf);
	}
}

void
ty_svg_axis_label(FILE *fp, double x, double y, int vertical, const char *text)
{
	if (!text)
		return;
	fprintf(fp,
		"<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		"font-size=\"11\" fill=\"%s\"",
		x, y, C_AXIS);
	if (vertical)
		fprintf(fp, " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
	fputc('>', fp);
	ty_svg_escape(fp, text);
	fputs("</text>\n", fp);
}

void
ty_svg_x_labels(FILE *fp, const double *px, const char *const *labels, size_t n, double y,
		double min_gap)
{
	double last = -INFINITY;
	size_t i, every = 1;

	if (n > 1 && px[n - 1] > px[0]) { /* about every EVERY-th fits */
		double gap = (px[n - 1] - px[0]) / (double)(n - 1);
		every = gap >= min_gap ? 1 : (size_t)ceil(min_gap / gap);
	}
	for (i = 0; i < n; i++) {
		int end = i + 1 == n;
		if (!end && i % every)
			continue;
		/* the last is always shown: the one before it gives way */
		if (!end && i + every >= n && px[n - 1] - px[i] < min_gap)
			continue;
		if (px[i] - last < min_gap && !end)
			continue;
		line(fp, px[i], y - 12, px[i], y - 8, C_AXIS, 1, NULL);
		ty_svg_text(fp, px[i], y, "middle", 10, 0, labels[i]);
		last = px[i];
	}
}

/* The inner plot area of F: room for the title above, the tick labels and
 * the axis labels below and to the left. */
static void
plot_area(const struct ty_svg_frame *f, double left, double *px0, double *px1, double *py0,
	  double *py1)
{
	*px0 = f->x + left;
	*px1 = f->x + f->w - 10;
	*py0 = f->y + f->h - 36;
	*py1 = f->y + 30;
}

void
ty_svg_histogram(FILE *fp, const struct ty_svg_frame *f, const double *x, size_t n, double median,
		 double lo, double hi, double mean, const char *unit, const char *title)
{
	double dlo, dhi, pad, bw, px0, px1, py0, py1, sx, sy;
	size_t *count, k, i, b, cmax = 1;

	range_of(x, n, &dlo, &dhi);
	if (f->xlo < f->xhi) {
		dlo = f->xlo;
		dhi = f->xhi;
	}
	pad = (dhi - dlo) * 0.05;
	dlo -= pad;
	dhi += pad;
	k = (size_t)ceil(2 * cbrt((double)(n ? n : 1)));
	k = k < 6 ? 6 : k > 60 ? 60 : k;
	if (f->xlo < f->xhi) { /* a shared axis: bins about as wide as on its own */
		double olo, ohi;
		range_of(x, n, &olo, &ohi);
		k = (size_t)fmin(120, (double)k * (dhi - dlo) / (1.1 * (ohi - olo)));
		k = k < 6 ? 6 : k;
	}
	if (!(count = calloc(k, sizeof(*count))))
		return;
	bw = (dhi - dlo) / (double)k;
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		b = (size_t)((x[i] - dlo) / bw);
		b = b >= k ? k - 1 : b;
		if (++count[b] > cmax)
			cmax = count[b];
	}
	plot_area(f, 55, &px0, &px1, &py0, &py1);
	sx = (px1 - px0) / (dhi - dlo);
	sy = (py0 - py1) / (double)cmax;
	ty_svg_text(fp, f->x + 5, f->y + 14, "start", 11, 0, title);
	ty_svg_y_axis(fp, px0, py0, py1, px1, 0, (double)cmax, "", 1);
	for (b = 0; b < k; b++)
		if (count[b])
			fprintf(fp,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"%s\" fill-opacity=\"0.85\"/>\n",
				px0 + (double)b * bw * sx + 0.5, py0 - (double)count[b] * sy,
				fmax(0.5, bw * sx - 1), (double)count[b] * sy, C_BAR);
	free(count);
	if (isfinite(lo) && isfinite(hi))
		fprintf(fp,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			"fill-opacity=\"0.22\"/>\n",
			px0 + (fmax(lo, dlo) - dlo) * sx, py1,
			fmax(1, (fmin(hi, dhi) - fmax(lo, dlo)) * sx), py0 - py1, C_MEDIAN);
	x_axis(fp, px0, px1, py0, py0, dlo, dhi, "", 0);
	ty_svg_axis_label(fp, (px0 + px1) / 2, py0 + 31, 0, f->xlabel ? f->xlabel : unit);
	ty_svg_axis_label(fp, f->x + 12, (py0 + py1) / 2, 1, "count (runs)");
	if (isfinite(mean))
		line(fp, px0 + (mean - dlo) * sx, py1, px0 + (mean - dlo) * sx, py0, C_MEAN, 1.5,
		     "5,3");
	if (isfinite(median))
		line(fp, px0 + (median - dlo) * sx, py1 - 4, px0 + (median - dlo) * sx, py0,
		     C_MEDIAN, 2, NULL);
}

void
ty_svg_runs(FILE *fp, const struct ty_svg_frame *f, const double *x, size_t n, double median,
	    const char *unit, const char *title)
{
	double dlo, dhi, pad, px0, px1, py0, py1, sx, sy, inset;
	size_t i;

	range_of(x, n, &dlo, &dhi);
	if (f->xlo < f->xhi) { /* the values' axis shared with the other commands */
		dlo = f->xlo;
		dhi = f->xhi;
	}
	pad = (dhi - dlo) * 0.08;
	dlo -= pad;
	dhi += pad;
	plot_area(f, 65, &px0, &px1, &py0, &py1);
	inset = 6; /* the first and last run inside the frame, not on its edge */
	sx = n > 1 ? (px1 - px0 - 2 * inset) / (double)(n - 1) : 0;
	sy = (py0 - py1) / (dhi - dlo);
	ty_svg_text(fp, f->x + 5, f->y + 14, "start", 11, 0, title);
	ty_svg_y_axis(fp, px0, py0, py1, px1, dlo, dhi, "", 0);
	/* run numbers 1..N at the runs' places (inset from both ends) */
	x_axis(fp, px0 + inset, px1 - inset, py0, py0, 1, n > 1 ? (double)n : 2, "", 1);
	line(fp, px0, py0, px1, py0, C_AXIS, 1, NULL);
	ty_svg_axis_label(fp, (px0 + px1) / 2, py0 + 31, 0, "run number");
	ty_svg_axis_label(fp, f->x + 12, (py0 + py1) / 2, 1, f->xlabel ? f->xlabel : unit);
	px0 += inset;
	if (isfinite(median))
		line(fp, px0 - inset, py0 - (median - dlo) * sy, px1, py0 - (median - dlo) * sy,
		     C_MEDIAN, 1.5, NULL);
	fprintf(fp,
		"<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1\" "
		"stroke-opacity=\"0.5\" points=\"",
		C_BAR);
	for (i = 0; i < n; i++)
		if (isfinite(x[i]))
			fprintf(fp, "%s%.1f,%.1f", i ? " " : "", px0 + (double)i * sx,
				py0 - (x[i] - dlo) * sy);
	fputs("\"/>\n", fp);
	for (i = 0; i < n && n <= 2000; i++)
		if (isfinite(x[i]))
			fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
				px0 + (double)i * sx, py0 - (x[i] - dlo) * sy, C_BAR);
}

static const char *
change_colour(int verdict)
{
	return verdict > 0 ? C_UP : verdict < 0 ? C_DOWN : C_SAME;
}

/* An arrowhead at X, Y pointing left (DIR -1) or right (+1), and the value
 * V it stands for beside it: the interval goes on past the axis. */
static void
clip_mark(FILE *fp, double x, double y, int dir, double v, const char *colour)
{
	char buf[48];

	fprintf(fp,
		"<polygon class=\"clip\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\">"
		"<title>cut at the axis: it goes on to %+.3g%%</title></polygon>\n",
		x + 9 * dir, y, x, y - 5, x, y + 5, colour, v);
	snprintf(buf, sizeof(buf), "%+.3g%%", v);
	ty_svg_text(fp, x - 3 * dir, y - 6, dir > 0 ? "end" : "start", 9, 0, buf);
}

void
ty_svg_changes(FILE *fp, const struct ty_svg_frame *f, const struct ty_svg_change *c, size_t n,
	       const char *title)
{
	double lo = 0, hi = 0, px0 = f->x + f->w * 0.38, px1 = f->x + f->w - 30, sx, y, pad;
	double lim = 5, a, b;
	double top = f->y + 30, bottom = f->y + 30 + 22 * (double)n;
	size_t i;

	/* The axis spans every change and its interval, but an interval far
	 * wider than the changes (a noisy counter) is cut at 3 times the largest
	 * change, so it does not flatten the rest; a cut end is an arrow with
	 * the value it reaches. */
	for (i = 0; i < n; i++)
		if (isfinite(c[i].rel))
			lim = fmax(lim, 3 * fabs(c[i].rel));
	for (i = 0; i < n; i++) {
		a = isfinite(c[i].lo) ? c[i].lo : c[i].rel;
		b = isfinite(c[i].hi) ? c[i].hi : c[i].rel;
		if (isfinite(a))
			lo = fmin(lo, fmax(a, -lim));
		if (isfinite(b))
			hi = fmax(hi, fmin(b, lim));
	}
	pad = fmax((hi - lo) * 0.05, 0.5);
	lo -= pad;
	hi += pad;
	ty_svg_round_range(&lo, &hi, 5); /* the axis ends on round ticks */
	sx = (px1 - px0) / (hi - lo);
	ty_svg_text(fp, f->x + 5, f->y + 14, "start", 13, 1, title);
	x_axis(fp, px0, px1, bottom, top, lo, hi, "%", 0);
	ty_svg_axis_label(fp, (px0 + px1) / 2, bottom + 31, 0, "change (%)");
	line(fp, px0 + (0 - lo) * sx, top, px0 + (0 - lo) * sx, bottom, C_AXIS, 1.5, NULL);
	for (i = 0; i < n; i++) {
		const char *col = change_colour(c[i].verdict);
		y = top + 22 * (double)i + 11;
		ty_svg_text(fp, px0 - 8, y + 4, "end", 12, 0, c[i].label);
		if (!isfinite(c[i].rel))
			continue;
		if (isfinite(c[i].lo) && isfinite(c[i].hi)) {
			a = fmin(fmax(c[i].lo, lo), hi);
			b = fmax(fmin(c[i].hi, hi), lo);
			line(fp, px0 + (a - lo) * sx, y, px0 + (b - lo) * sx, y, col, 2, NULL);
			if (c[i].lo >= lo)
				line(fp, px0 + (a - lo) * sx, y - 5, px0 + (a - lo) * sx, y + 5,
				     col, 2, NULL);
			else
				clip_mark(fp, px0, y, -1, c[i].lo, col);
			if (c[i].hi <= hi)
				line(fp, px0 + (b - lo) * sx, y - 5, px0 + (b - lo) * sx, y + 5,
				     col, 2, NULL);
			else
				clip_mark(fp, px1, y, 1, c[i].hi, col);
		}
		if (c[i].rel < lo || c[i].rel > hi) {
			if (!(isfinite(c[i].lo) && isfinite(c[i].hi)))
				clip_mark(fp, c[i].rel < lo ? px0 : px1, y, c[i].rel < lo ? -1 : 1,
					  c[i].rel, col);
			continue;
		}
		fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\"/>\n",
			px0 + (c[i].rel - lo) * sx, y, col);
	}
}
