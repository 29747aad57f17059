/* history-plot.c - tachy history plot: each series' medians per commit with
 * their intervals, its change points and levels, as SVG or an HTML page
 * (history-plot.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure-text.h"
#include "history-plot.h"
#include "history-store.h"
#include "tachy/svg.h"

#define PW 900.0
#define PH 260.0

static void
plot_series(FILE *fp, double y0, struct ty_history_series *s, const struct ty_history_point *p,
	    const struct ty_history_change *ch, size_t nch)
{
	double lo = INFINITY, hi = -INFINITY, x0 = 80, w = PW - 100, top = y0 + 40, h = PH - 90;
	double scale, span, in = 12, *px;
	const char *suffix, **revs;
	char title[600], lab[64], (*cut)[9];
	size_t k, j;

	figure_text_scale(p[0].centre, s->unit, &scale, &suffix);
	for (k = 0; k < s->n; k++) { /* in display units from here on */
		double a = isfinite(p[k].lo) ? p[k].lo : p[k].centre;
		double z = isfinite(p[k].hi) ? p[k].hi : p[k].centre;
		lo = fmin(lo, a * scale);
		hi = fmax(hi, z * scale);
	}
	if (!(hi > lo))
		hi = lo + fabs(lo) * 0.01 + 1e-12;
	span = hi - lo;
	lo -= span * 0.05;
	hi += span * 0.05;
	ty_svg_round_range(&lo, &hi, 4); /* ticks on round values, the ends on ticks */
	/* the first and last commits inside the frame, not on its edges */
#define X(i) (x0 + in + (s->n > 1 ? (w - 2 * in) * (double)(i) / (double)(s->n - 1) : w / 2 - in))
#define Y(v) (top + h - h * ((v)*scale - lo) / (hi - lo))
	/* the names as they are: ty_svg_text escapes them for SVG */
	snprintf(title, sizeof(title), "%s on %s: %s, %zu commits, %zu change point%s",
		 s->benchmark, s->machine, s->figure, s->n, nch, nch == 1 ? "" : "s");
	ty_svg_text(fp, 10, y0 + 20, "start", 15, 1, title);
	fprintf(fp,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#ccc\"/>\n",
		x0, top, w, h);
	ty_svg_y_axis(fp, x0, top + h, top, x0 + w, lo, hi, "", 0);
	snprintf(lab, sizeof(lab), *suffix ? "%s (%s)" : "%s", s->figure, suffix);
	ty_svg_axis_label(fp, 16, top + h / 2, 1, lab);
	for (k = 0; k < s->n; k++)
		if (isfinite(p[k].lo) && isfinite(p[k].hi))
			fprintf(fp,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#9ab\" stroke-width=\"1\"/>\n",
				X(k), Y(p[k].lo), X(k), Y(p[k].hi));
	fprintf(fp, "<polyline fill=\"none\" stroke=\"#246\" stroke-width=\"1.2\" points=\"");
	for (k = 0; k < s->n; k++)
		fprintf(fp, "%.1f,%.1f ", X(k), Y(p[k].centre));
	fprintf(fp, "\"/>\n");
	/* the levels between change points, as detect measured them */
	for (j = 0; j <= nch && nch; j++) {
		size_t a = j ? ch[j - 1].index : 0, e = j < nch ? ch[j].index : s->n;
		double v = j < nch ? ch[j].before : ch[nch - 1].after;
		if (e > a && isfinite(v))
			fprintf(fp,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#e90\" stroke-width=\"2\" opacity=\"0.7\"/>\n",
				X(a), Y(v), X(e - 1), Y(v));
	}
	for (j = 0; j < nch; j++) {
		const struct ty_history_change *c = &ch[j];
		double xx = X(c->index);
		char pc[32], label[128];
		fprintf(fp,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-dasharray=\"4 3\"/>\n",
			xx, top, xx, top + h, c->change_pct > 0 ? "#c22" : "#2a2");
		figure_text_pct(pc, sizeof(pc), c->change_pct);
		snprintf(label, sizeof(label), "%s at %.8s", pc, s->commits[c->index].rev);
		ty_svg_text(fp, xx + 3, top + 12 + 12 * (double)(j % 3), "start", 10, 1, label);
	}
	/* the commits under their points, thinned to what fits (8 characters) */
	px = malloc(s->n * sizeof(*px));
	revs = malloc(s->n * sizeof(*revs));
	cut = malloc(s->n * sizeof(*cut));
	if (px && revs && cut) {
		for (k = 0; k < s->n; k++) {
			px[k] = X(k);
			snprintf(cut[k], sizeof(cut[k]), "%.8s", s->commits[k].rev);
			revs[k] = cut[k];
		}
		ty_svg_x_labels(fp, px, revs, s->n, top + h + 16, 60);
	}
	free(px);
	free(revs);
	free(cut);
	ty_svg_axis_label(fp, x0 + w / 2, top + h + 34, 0, "commit");
#undef X
#undef Y
}

int
history_plot_write(FILE *fp, const char *name, struct ty_history_series *s, size_t n, int html)
{
	struct ty_error e = {0};
	size_t i;
	int rc = 0;

	if (html) {
		fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<title>tachy history: ",
		      fp);
		ty_svg_escape(fp, name);
		fputs("</title>\n<style>body{font-family:sans-serif;margin:1em}</style>\n</head>\n"
		      "<body>\n<h1>tachy history</h1>\n<p>",
		      fp);
		ty_svg_escape(fp, name);
		fputs(": medians per commit with their 95% intervals; dashed lines mark the "
		      "change points (red slower, green faster), orange lines the levels "
		      "between them.</p>\n",
		      fp);
	}
	ty_svg_begin(fp, PW, PH * (double)(n ? n : 1));
	if (!n)
		ty_svg_text(fp, 10, 30, "start", 14, 0, "no results");
	for (i = 0; i < n; i++) {
		struct ty_history_point *p = history_store_points(&s[i]);
		struct ty_history_change *ch = NULL;
		size_t nch = 0;
		if (!p) {
			rc = -ENOMEM;
			break;
		}
		if (ty_history_detect(p, s[i].n, NULL, &ch, &nch, &e) < 0)
			nch = 0;
		plot_series(fp, PH * (double)i, &s[i], p, ch, nch);
		free(p);
		free(ch);
	}
	ty_svg_end(fp);
	if (html)
		fputs("</body>\n</html>\n", fp);
	return rc;
}
