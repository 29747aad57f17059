/* figure-text.h - figures, verdicts and names of results as people read
 * them, in text (compare, plot, history, run; src/ only). */
#ifndef TACHY_FIGURE_TEXT_H
#define TACHY_FIGURE_TEXT_H

#include <stddef.h>

#include "tachy/comparison.h"

/* Write V, a value in UNIT ("s", "ns", "KiB", "" for a count, ...), to BUF
 * with a prefix chosen for REF (so a column shares one scale): "10.40ms",
 * "1.235M", "1.75MiB". Zero prints as "0" with the prefix of REF ("0ms"),
 * or of no prefix when REF is 0 too ("0s", "0B", "0"). Non-finite values
 * print as "?". Returns BUF. */
char *figure_text_value(char *buf, size_t size, double v, double ref, const char *unit);

/* A signed percentage: "+6.0%", "-12%", "?" when not finite. Returns BUF. */
char *figure_text_pct(char *buf, size_t size, double pct);

/* S cut to at most MAX characters, "…" ("..." where the locale is not
 * UTF-8: term_glyph) marking a cut, into BUF (SIZE >=
 * 8 bytes; a cut never splits a UTF-8 sequence). Returns BUF. */
char *figure_text_truncate(char *buf, size_t size, const char *s, size_t max);

/* The display width of UTF-8 text S (code points). */
size_t figure_text_width(const char *s);

/* The scale a comparison row's centres share: the old centre, else the new
 * one when the old is 0. */
double figure_text_row_ref(const struct ty_cmp_row *r);

/* The cells of a comparison row: "slower", "faster" or "~" (one vocabulary
 * for every figure); a centre with its interval "10.40ms ±0.6%" (REF picks the scale),
 * "1.000 [0, 2.000]" where the interval is as wide as the centre, "±n/a" without one;
 * the change with its interval "+6.0% [+5.0%, +7.1%]", or "+6.0% n/a (too few
 * distinct values)" where none can be had; a p-value. */
const char *figure_text_verdict(const struct ty_cmp_row *r);
char *figure_text_centre(char *buf, size_t size, const struct ty_centre *c, double ref,
			 const char *unit);
char *figure_text_change(char *buf, size_t size, const struct ty_cmp_row *r);
char *figure_text_p(char *buf, size_t size, double p);

/* What a regression gate on FIGURE found, for its message: "gate (wall
 * time): slower by more than 5%:
 * +12.3% [+7.1%, +17.9%] at 95% confidence" (TY_GATE_TRIP), "may be slower
 * by more than 5%, not proven: +6.1% [+2.0%, +10.3%] at 95% confidence"
 * (TY_GATE_UNPROVEN), "not proven slower by more than 5%: ..." (TY_GATE_PASS),
 * "too few runs to prove a change: +6.1%" (TY_GATE_TOO_FEW); an interval
 * that cannot be had says "interval n/a (WHY)". INTERVAL says whether LO,
 * HI mean something. FASTER: the gate of --fail-if-faster ("faster by more
 * than 5%"). Returns BUF. */
char *figure_text_gate(char *buf, size_t size, const char *figure, enum ty_gate g, double limit,
		       int faster, double rel, double lo, double hi, enum ty_interval interval,
		       double confidence);

/* FIGURE as a gate names it: "wall time", "CPU time (user+sys)", "user
 * time", "system time", else the figure's own name. */
const char *figure_text_metric(const char *figure);

/* The prefix for values like REF in UNIT: *SCALE to multiply them by and
 * the suffix to print ("ms", "k", "MiB"), for axes. */
void figure_text_scale(double ref, const char *unit, double *scale, const char **suffix);

#endif
