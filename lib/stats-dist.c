/* stats-dist.c - the distributions behind the tests and intervals.
 *
 * The Student t CDF goes through the regularized incomplete beta function
 * (a continued fraction, evaluated on whichever side of the mean converges
 * and keeps the small tail exact); its quantile is found by Newton steps in
 * log scale, safeguarded by bisection. The normal quantile is Acklam's
 * rational approximation polished by Halley steps on erfc. */
#include <float.h>
#include <math.h>

#include "tachy/stats-dist.h"

/* Beyond this many degrees of freedom the incomplete beta's continued
 * fraction converges too slowly; the expansions in 1/df are exact to
 * double precision there. */
#define TY_T_ASYMPTOTIC_DF 1e7

/* lgamma(a) - lgamma(a + b), without the cancellation of two large
 * lgammas when a is large (Stirling's series for the correction). */
static double
lgamma_diff(double a, double b)
{
	if (a < 20 || a + b < 20)
		return lgamma(a) - lgamma(a + b);
	double c = a + b;
	double corr_a = 1 / (12 * a) - 1 / (360 * a * a * a) + 1 / (1260 * pow(a, 5));
	double corr_c = 1 / (12 * c) - 1 / (360 * c * c * c) + 1 / (1260 * pow(c, 5));
	return -(a - 0.5) * log1p(b / a) - b * log(c) + b + corr_a - corr_c;
}

/* log of the beta function B(a, b). */
static double
lbeta(double a, double b)
{
	if (a < b)
		return lbeta(b, a);
	/* a >= b: B = Gamma(b) Gamma(a) / Gamma(a + b) */
	return lgamma(b) + lgamma_diff(a, b);
}

/* The continued fraction of I_x(a, b) (modified Lentz). */
static double
beta_cf(double x, double a, double b)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m < 100000; m++) {
		double m2 = 2.0 * m, num, del;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b), with Y = 1 - x given separately
 * so that values of x close to 1 keep their precision. */
static double
ibeta(double x, double y, double a, double b)
{
	double lfront;

	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	/* log x and log y from whichever of x, y is small, so that neither
	 * loses digits when the other is close to 1 (large df) */
	lfront =
	    a * (x > 0.5 ? log1p(-y) : log(x)) + b * (y > 0.5 ? log1p(-x) : log(y)) - lbeta(a, b);
	if (x < (a + 1) / (a + b + 2))
		return exp(lfront) * beta_cf(x, a, b) / a;
	return 1 - exp(lfront) * beta_cf(y, b, a) / b;
}

/* The same, as the upper tail 1 - I_x(a, b) = I_y(b, a). */
static double
ibetac(double x, double y, double a, double b)
{
	return ibeta(y, x, b, a);
}

/* P(T <= -s) for s >= 0: the lower tail, computed without cancellation. */
static double
t_lower_tail(double s, double df)
{
	double s2 = s * s;

	if (isinf(s))
		return 0;
	if (isinf(s2)) /* s beyond 1e154: x = df / s^2 without overflow */
		return 0.5 * ibeta(df / s / s, 1, df / 2, 0.5);
	/* x = df / (df + s^2), y = s^2 / (df + s^2) */
	return 0.5 * ibeta(df / (df + s2), s2 / (df + s2), df / 2, 0.5);
}

/* P(-s < T <= 0) = 1/2 - P(T <= -s), for s >= 0, computed directly. */
static double
t_center(double s, double df)
{
	double s2 = s * s;

	if (isinf(s))
		return 0.5;
	if (isinf(s2))
		return 0.5 * ibetac(df / s / s, 1, df / 2, 0.5);
	return 0.5 * ibetac(df / (df + s2), s2 / (df + s2), df / 2, 0.5);
}

/* log I_x(a, b), given log x and log y (y = 1 - x) as well, for tails too
 * small for a double (the quantiles of small df reach past 1e300). */
static double
ibeta_log(double lx, double ly, double x, double y, double a, double b)
{
	double lfront = a * lx + b * ly - lbeta(a, b);

	if (x < (a + 1) / (a + b + 2))
		return lfront + log(beta_cf(x, a, b) / a);
	return log1p(-exp(lfront) * beta_cf(y, b, a) / b);
}

/* log P(T <= -s) for s >= 0, for any s up to DBL_MAX. */
static double
t_log_lower_tail(double s, double df)
{
	double s2 = s * s, x, y, lx, ly;

	if (isinf(s))
		return -INFINITY;
	if (isinf(s2)) {
		lx = log(df) - 2 * log(s);
		x = exp(lx);
		y = 1;
		ly = -x;
	} else {
		x = df / (df + s2);
		y = s2 / (df + s2);
		lx = x > 0.5 ? log1p(-y) : log(df) - log(df + s2);
		ly = y > 0.5 ? log1p(-x) : log(s2) - log(df + s2);
	}
	return log(0.5) + ibeta_log(lx, ly, x, y, df / 2, 0.5);
}

/* log P(-s < T <= 0), for s >= 0. */
static double
t_log_center(double s, double df)
{
	return log(t_center(s, df));
}

double
ty_stats_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(df))
		return ty_stats_normal_cdf(t);
	if (df > TY_T_ASYMPTOTIC_DF) /* Abramowitz and Stegun 26.7.8 */
		return ty_stats_normal_cdf(t * (1 - 1 / (4 * df)) / sqrt(1 + t * t / (2 * df)));
	if (t < 0) {
		double f = t_lower_tail(-t, df);
		/* in logs only where the tail is too small for a double */
		return f > 1e-290 ? f : exp(t_log_lower_tail(-t, df));
	}
	return 1 - t_lower_tail(t, df);
}

/* log of the density of Student's t at T (any T up to DBL_MAX). */
static double
t_log_pdf(double t, double df)
{
	double lc, l1;

	/* Gamma((df+1)/2) / (Gamma(df/2) sqrt(df pi)) */
	lc = -lgamma_diff(df / 2, 0.5) - 0.5 * log(df * M_PI);
	t = fabs(t);
	l1 = t > 1e150 ? 2 * log(t) - log(df) : log1p(t * t / df);
	return lc - (df + 1) / 2 * l1;
}

/* Solve LG(e^u) = log TARGET for u, where LG, the log of a tail of the
 * t distribution, is monotone in u (increasing when DIR > 0, decreasing
 * when DIR < 0): in logs the heavy tails are nearly straight lines.
 * Newton steps, kept inside a bracket that bisection shrinks. Returns
 * e^u, or infinity when the root lies beyond the largest double. */
static double
t_solve(double (*lg)(double, double), int dir, double target, double df, double u)
{
	double lo = -745, hi = log(DBL_MAX), ltarget = log(target);
	int i;

	if (dir < 0 && lg(DBL_MAX, df) > ltarget)
		return INFINITY;
	if (u > hi)
		u = hi;
	for (i = 0; i < 400; i++) {
		double s = exp(u), lgv = lg(s, df), h = lgv - ltarget, dh, nu;

		if (h == 0)
			return s;
		/* move the bracket: h has the sign of dir * (u - root) */
		if ((h > 0) == (dir > 0))
			hi = u;
		else
			lo = u;
		dh = dir * exp(u + t_log_pdf(s, df) - lgv);
		nu = (isfinite(h) && dh > 0) ? u - h / dh : NAN;
		if (!(nu > lo && nu < hi))
			nu = lo / 2 + hi / 2;
		if (fabs(nu - u) <= 4 * DBL_EPSILON * fmax(1, fabs(u)) || hi - lo < 1e-15)
			return exp(nu);
		u = nu;
	}
	return exp(u);
}

/* Cornish-Fisher expansion of the t quantile from the normal one
 * (Abramowitz and Stegun 26.7.5). */
static double
t_cornish_fisher(double z, double df)
{
	double z2 = z * z, g1, g2, g3, g4;

	g1 = (z2 + 1) * z / 4;
	g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
	g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
	g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
	return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
}

double
ty_stats_t_quantile(double p, double df)
{
	double q, z, guess;
	int neg;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	if (isinf(df))
		return ty_stats_normal_quantile(p);
	neg = p < 0.5;
	q = neg ? p : 1 - p; /* exact for p >= 0.5 */
	if (df > TY_T_ASYMPTOTIC_DF) {
		z = -ty_stats_normal_quantile(q);
		z = t_cornish_fisher(z, df);
		return neg ? -z : z;
	}
	if (df == 1) {
		/* Cauchy: closed form */
		double s = 1 / tan(M_PI * q);
		return neg ? -s : s;
	}
	/* a starting point: the normal quantile, widened for small df */
	z = -ty_stats_normal_quantile(q);
	guess = z * (1 + (z * z + 1) / (4 * df));
	if (!(guess > 0))
		guess = 1e-300;
	if (q < 0.25)
		z = t_solve(t_log_lower_tail, -1, q, df, log(guess));
	else
		z = t_solve(t_log_center, 1, 0.5 - q, df, log(guess));
	return neg ? -z : z;
}

double
ty_stats_normal_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Acklam's approximation of the normal quantile (relative error 1.15e-9). */
static double
normal_quantile_approx(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
				   -2.759285104469687e+02, 1.383577518672690e+02,
				   -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
				   -1.556989798598866e+02, 6.680131188771972e+01,
				   -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
				   -2.400758277161838e+00, -2.549732539343734e+00,
				   4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
				   2.445134137142996e+00, 3.754408661907416e+00};
	double q, r;

	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	if (p > 1 - 0.02425) {
		q = sqrt(-2 * log1p(-p));
		return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	q = p - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double
ty_stats_normal_quantile(double p)
{
	double x, e, u;
	int i;

	if (!(p > 0 && p < 1))
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	if (p > 0.5)
		return -ty_stats_normal_quantile(1 - p);
	x = normal_quantile_approx(p);
	/* Halley steps on the lower tail: 0.5 erfc(-x/sqrt 2) = p */
	for (i = 0; i < 3; i++) {
		e = 0.5 * erfc(-x / M_SQRT2) - p;
		u = e * sqrt(2 * M_PI) * exp(x * x / 2);
		if (!isfinite(u))
			break;
		x = x - u / (1 + x * u / 2);
	}
	return x;
}
