/* simdist.h - synthetic samples from known distributions, reproducibly.
 *
 * Used by the statistical validation (tests/unit/t-verdict.c and
 * bench/validation.c): a fixed-seed generator (splitmix64 seeding a
 * xoshiro256**) and the shapes benchmark noise takes. Header-only. */
#ifndef TACHY_SIMDIST_H
#define TACHY_SIMDIST_H

#include <math.h>
#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

static inline uint64_t
sim_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void
sim_seed(struct sim_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = sim_splitmix(&seed);
}

static inline uint64_t
sim_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t
sim_next(struct sim_rng *r)
{
	uint64_t *s = r->s, out = sim_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rotl(s[3], 45);
	return out;
}

/* Uniform in (0, 1). */
static inline double
sim_uniform(struct sim_rng *r)
{
	return ((double)(sim_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* Standard normal (Box-Muller; one of the pair is dropped for simplicity). */
static inline double
sim_normal(struct sim_rng *r)
{
	double u = sim_uniform(r), v = sim_uniform(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

enum sim_shape { SIM_NORMAL, SIM_LOGNORMAL, SIM_OUTLIERS, SIM_BIMODAL, SIM_NSHAPES };

static const char *const sim_shape_names[] = {"normal", "log-normal", "with outliers", "bimodal"};

/* One run time with centre MU and relative noise CV (e.g. 0.02 for 2%):
 *   normal      N(mu, (cv mu)^2)
 *   log-normal  mu * exp(N(0, cv^2)): skewed to the right, as times are
 *   outliers    normal, but 5% of runs take 1.5 to 3 times as long (another
 *               process got the CPU)
 *   bimodal     normal around mu or, half the time, mu (1 + 4 cv): two
 *               states (a cache or frequency that flips between runs) */
static inline double
sim_draw(struct sim_rng *r, enum sim_shape shape, double mu, double cv)
{
	switch (shape) {
	case SIM_NORMAL:
		return mu * (1 + cv * sim_normal(r));
	case SIM_LOGNORMAL:
		return mu * exp(cv * sim_normal(r));
	case SIM_OUTLIERS:
		if (sim_uniform(r) < 0.05)
			return mu * (1.5 + 1.5 * sim_uniform(r));
		return mu * (1 + cv * sim_normal(r));
	case SIM_BIMODAL:
		return mu * ((sim_uniform(r) < 0.5 ? 1 : 1 + 4 * cv) + cv * sim_normal(r));
	default:
		return mu;
	}
}

/* P(X >= K) for X ~ Binomial(N, P), exactly (in log space). */
static inline double
sim_binom_upper(long n, long k, double p)
{
	double sum = 0, lp = log(p), lq = log1p(-p);
	long i;

	for (i = k; i <= n; i++)
		sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) + i * lp +
			   (n - i) * lq);
	return sum;
}

/* The largest count of successes in N trials at rate P that is still
 * plausible: the smallest K with P(X > K) < TAIL. */
static inline long
sim_binom_limit(long n, double p, double tail)
{
	long k = (long)(n * p);

	while (k < n && sim_binom_upper(n, k + 1, p) >= tail)
		k++;
	return k;
}

#endif
