/* figure-text.c - numbers of saved results as people read them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figure-text.h"
#include "term.h"

struct prefix {
	double scale;
	const char *name;
};

static const struct prefix times[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
static const struct prefix counts[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
static const struct prefix bytes[] = {
    {1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}, {1, "B"}};

static const struct prefix *
pick(const struct prefix *p, size_t n, double ref)
{
	size_t i;

	ref = fabs(ref);
	for (i = 0; i + 1 < n; i++)
		if (ref >= p[i].scale)
			return &p[i];
	return &p[n - 1];
}

static char *
fixed(char *buf, size_t size, double x, const char *suffix)
{
	double a = fabs(x);
	int dec = a < 10 ? 3 : a < 100 ? 2 : a < 1000 ? 1 : 0;

	snprintf(buf, size, "%.*f%s%s", dec, x, *suffix ? " " : "", suffix);
	return buf;
}

void
figure_text_scale(double ref, const char *unit, double *scale, const char **suffix)
{
	static char other[64];
	const struct prefix *p;
	double k = 1;

	if (strcmp(unit, "ns") == 0 || strcmp(unit, "us") == 0 || strcmp(unit, "ms") == 0) {
		k = unit[0] == 'n' ? 1e-9 : unit[0] == 'u' ? 1e-6 : 1e-3;
		unit = "s";
	} else if (strcmp(unit, "KiB") == 0) {
		k = 1024;
		unit = "B";
	}
	ref *= k;
	if (strcmp(unit, "s") == 0)
		p = pick(times, sizeof(times) / sizeof(times[0]), ref);
	else if (strcmp(unit, "B") == 0)
		p = pick(bytes, sizeof(bytes) / sizeof(bytes[0]), ref);
	else
		p = pick(counts, sizeof(counts) / sizeof(counts[0]), ref);
	*scale = k / p->scale;
	if (strcmp(unit, "s") == 0 || strcmp(unit, "B") == 0 || unit[0] == '\0') {
		*suffix = p->scale == 1e-6 && strcmp(unit, "s") == 0 ? term_glyph("us") : p->name;
	} else {
		snprintf(other, sizeof(other), "%s %s", p->name, unit);
		*suffix = other;
	}
}

char *
figure_text_value(char *buf, size_t size, double v, double ref, const char *unit)
{
	const char *suffix;
	double scale;

	if (!isfinite(v)) {
		snprintf(buf, size, "?");
		return buf;
	}
	if (!isfinite(ref) || ref == 0)
		ref = v;
	figure_text_scale(ref, unit, &scale, &suffix);
	if (v == 0) { /* "0ms" beside other milliseconds; "0s", "0B", "0" alone */
		if (ref == 0 && ty_comparison_unit_is_time(unit))
			suffix = "s";
		snprintf(buf, size, "0%s%s", *suffix ? " " : "", suffix);
		return buf;
	}
	/* far above REF's unit (a table's first row in ms, this one in
	 * hours): in its own unit, and past the largest unit in %g, never
	 * a number of 30 digits, or "inf", when the scaling overflows */
	if (!(fabs(v * scale) < 1e5))
		figure_text_scale(v, unit, &scale, &suffix);
	if (!(fabs(v * scale) < 1e5)) {
		snprintf(buf, size, "%.3g%s%s", v * scale, *suffix ? " " : "", suffix);
		return buf;
	}
	return fixed(buf, size, v * scale, suffix);
}

char *
figure_text_pct(char *buf, size_t size, double pct)
{
	double a = fabs(pct);

	if (!isfinite(pct))
		snprintf(buf, size, "?");
	else if (a >= 1e5) /* a thousandfold and more: "+6.76e+11%" */
		snprintf(buf, size, "%+.3g%%", pct);
	else
		snprintf(buf, size, "%+.*f%%", a < 1 ? 2 : 1, pct);
	return buf;
}

const char *
figure_text_metric(const char *figure)
{
	static const char *const names[][2] = {{"wall", "wall time"},
					       {"cpu", "CPU time (user+sys)"},
					       {"user", "user time"},
					       {"system", "system time"}};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(figure, names[i][0]) == 0)
			return names[i][1];
	return figure;
}

char *
figure_text_gate(char *buf, size_t size, const char *figure, enum ty_gate g, double limit,
		 int faster, double rel, double lo, double hi, enum ty_interval interval,
		 double confidence)
{
	char r[32], l[32], h[32], iv[96];
	int len;

	figure_text_pct(r, sizeof(r), rel);
	if (interval == TY_INTERVAL_OK)
		snprintf(iv, sizeof(iv), "[%s, %s]", figure_text_pct(l, sizeof(l), lo),
			 figure_text_pct(h, sizeof(h), hi));
	else
		snprintf(iv, sizeof(iv), "interval n/a (%s)", ty_verdict_interval_why(interval));
	len = snprintf(buf, size, "gate (%s): ",
		       strcmp(figure, "cpu") == 0 ? "CPU time, user+sys"
						  : figure_text_metric(figure));
	if (len < 0 || (size_t)len >= size)
		return buf;
	buf += len;
	size -= (size_t)len;
	if (g == TY_GATE_TOO_FEW)
		snprintf(buf, size, "too few runs to prove a change: %s", r);
	else
		snprintf(buf, size, "%s%s by more than %g%%%s: %s %s at %g%% confidence",
			 g == TY_GATE_TRIP	 ? ""
			 : g == TY_GATE_UNPROVEN ? "may be "
						 : "not proven ",
			 faster ? "faster" : "slower", limit,
			 g == TY_GATE_UNPROVEN ? ", not proven" : "", r, iv, confidence);
	return buf - len;
}

size_t
figure_text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

double
figure_text_row_ref(const struct ty_cmp_row *r)
{
	return r->v.old.centre != 0 ? r->v.old.centre : r->v.new.centre;
}

const char *
figure_text_verdict(const struct ty_cmp_row *r)
{
	return ty_verdict_word_name(r->v.verdict);
}

char *
figure_text_centre(char *buf, size_t size, const struct ty_centre *c, double ref, const char *unit)
{
	char v[64];
	double h = fmax(c->hi - c->centre, c->centre - c->lo);

	figure_text_value(v, sizeof(v), c->centre, ref, unit);
	if (!c->exact_ci || !isfinite(h)) /* no interval to be had: said, never as infinite */
		snprintf(buf, size, "%s %sn/a", v, term_glyph("pm"));
	else if (c->centre != 0 && h < fabs(c->centre))
		snprintf(buf, size, "%s %s%.*f%%", v, term_glyph("pm"),
			 100 * h / fabs(c->centre) < 10 ? 1 : 0, 100 * h / fabs(c->centre));
	else if (c->centre != 0) { /* as wide as the centre: its bounds, not "±155%" */
		char lo[32], hi[32];
		snprintf(buf, size, "%s [%s, %s]", v,
			 figure_text_value(lo, sizeof(lo), c->lo, ref, unit),
			 figure_text_value(hi, sizeof(hi), c->hi, ref, unit));
	} else
		snprintf(buf, size, "%s", v);
	return buf;
}

char *
figure_text_change(char *buf, size_t size, const struct ty_cmp_row *r)
{
	char a[32], b[32], c[32];

	if (r->v.old.centre == 0) { /* no relative change against a zero reference */
		snprintf(buf, size, r->v.new.centre == 0 ? "none (both 0)" : "from 0");
		return buf;
	}
	figure_text_pct(a, sizeof(a), r->v.c.rel);
	if (r->v.interval == TY_INTERVAL_TOO_FEW) /* a footnote says so */
		snprintf(buf, size, "%s", a);
	else if (r->v.interval != TY_INTERVAL_OK)
		snprintf(buf, size, "%s n/a (%s)", a, ty_verdict_interval_why(r->v.interval));
	else
		snprintf(buf, size, "%s [%s, %s]", a, figure_text_pct(b, sizeof(b), r->v.c.rel_lo),
			 figure_text_pct(c, sizeof(c), r->v.c.rel_hi));
	return buf;
}

char *
figure_text_p(char *buf, size_t size, double p)
{
	if (!isfinite(p))
		snprintf(buf, size, "n/a");
	else if (p < 0.001)
		snprintf(buf, size, "<0.001");
	else
		snprintf(buf, size, "%.3f", p);
	return buf;
}

char *
figure_text_truncate(char *buf, size_t size, const char *s, size_t max)
{
	const char *mark = term_glyph("dots"); /* … or ... */
	size_t i, cps = 0, cut = 0, mw = figure_text_width(mark);

	/* CUT: where the last character that fits with room for the mark starts. */
	for (i = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (cps + mw < max && i + 4 + 4 < size)
			cut = i + 1;
		cps++;
	}
	if (cps <= max && i < size) {
		memcpy(buf, s, i + 1);
		return buf;
	}
	while (s[cut] && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut++; /* never split a character */
	memcpy(buf, s, cut);
	memcpy(buf + cut, mark, strlen(mark) + 1);
	return buf;
}
