/* stats-dist.h - the distributions behind tachy's tests and intervals:
 * Student's t and the standard normal, to double precision in the tails.
 * Pure functions. */
#ifndef TACHY_STATS_DIST_H
#define TACHY_STATS_DIST_H

/* Student's t distribution with DF degrees of freedom (DF > 0, real):
 * P(T <= t). */
double ty_stats_t_cdf(double t, double df);
/* The inverse of ty_stats_t_cdf, for 0 < P < 1 (NAN outside). */
double ty_stats_t_quantile(double p, double df);
/* The standard normal: P(Z <= z), and its inverse for 0 < P < 1. */
double ty_stats_normal_cdf(double z);
double ty_stats_normal_quantile(double p);

#endif
