/* history-plot.h - the trend picture of tachy history plot (src/ only). */
#ifndef TACHY_HISTORY_PLOT_H
#define TACHY_HISTORY_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "tachy/history.h"

/* Write the series S[0..N) of the history NAME to FP: an SVG, inside an
 * HTML page when HTML; each series' medians per commit with their 95%
 * intervals, its change points and the levels between them, every name
 * escaped. Returns 0, or -ENOMEM. */
int history_plot_write(FILE *fp, const char *name, struct ty_history_series *s, size_t n, int html);

#endif
