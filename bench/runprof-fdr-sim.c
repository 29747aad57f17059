/* runprof-fdr-sim.c - how often `tachy run --profile` flags a function
 * other than the planted one, on simulated per-run counts shaped as
 * bench/runprof-power.c's program: 24 functions, fK with K/300 of PER_RUN
 * samples a run (Poisson), one of f24, f12, f4 given 3% of the whole more
 * on the new side, ROUNDS rounds paired (Wilcoxon signed-rank, as run
 * --profile pairs them), Holm at 100 - CONFIDENCE percent as run --profile
 * adjusts (SIM_BH=1 in the environment: Benjamini-Hochberg instead);
 * every fourth trial A/A. Prints the planted trials where fK was ranked
 * first and flagged, those where another function was flagged too, and the
 * A/A trials with any flagged. Fixed seed: the same figures every time.
 *   make bench-progs
 *   build/std/bench/runprof-fdr-sim TRIALS PER_RUN ROUNDS [CONFIDENCE]   (4000 500 30 95) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tachy/runprof-diff.h"
#include "tachy/runprof.h"

#define NF 24
#define MAX_ROUNDS 1000

static uint64_t rng = 7;

static double
unif(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static uint32_t
poisson(double m)
{
	double l = exp(-m), t = 1;
	uint32_t k = 0;

	if (m > 30) { /* the normal approximation */
		double z = sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
		double v = m + sqrt(m) * z + 0.5;
		return v < 0 ? 0 : (uint32_t)v;
	}
	for (;;) {
		t *= unif();
		if (t <= l)
			return k;
		k++;
	}
}

/* One trial, PLANT the function given 3% of the whole (-1: A/A). Returns
 * the rows flagged; *OK: PLANT ranked first and flagged slower. */
static size_t
trial(int plant, double per_run, int rounds, double conf, int *ok)
{
	static uint32_t round_of[MAX_ROUNDS];
	struct ty_runprof p;
	struct ty_runprof_diff d;
	struct ty_runprof_diff_opts o = {0};
	struct ty_error e;
	uint32_t sym[NF];
	double mean[NF];
	char name[16];
	size_t flagged;
	int f, i, c;

	ty_runprof_init(&p, 2);
	for (f = 0; f < NF; f++) {
		snprintf(name, sizeof(name), "f%d", f + 1);
		sym[f] = ty_runprof_sym(&p, name, "prog");
		mean[f] = per_run * (f + 1) / 300.0;
	}
	for (i = 0; i < rounds; i++) {
		round_of[i] = (uint32_t)i;
		for (c = 0; c < 2; c++) {
			struct ty_runprof_ent en[NF];
			uint64_t tot = 0;
			for (f = 0; f < NF; f++) {
				double m = mean[f] + (c && f == plant ? 0.03 * per_run : 0);
				en[f] = (struct ty_runprof_ent){sym[f], poisson(m), 0};
				tot += en[f].self;
			}
			ty_runprof_add_run(&p, (size_t)c, tot, (double)tot * 2, en, NF);
		}
	}
	o.test = TY_TEST_MANN_WHITNEY;
	o.adjust = getenv("SIM_BH") ? TY_RUNPROF_BH : TY_RUNPROF_HOLM;
	o.confidence = conf;
	o.old_round = o.new_round = round_of;
	o.wall_change_ms = plant >= 0 ? 0.03 * per_run * 2 : 0;
	if (ty_runprof_diff(&p, 0, 1, &o, &d, &e) < 0) {
		fprintf(stderr, "runprof-fdr-sim: %s\n", e.msg);
		exit(1);
	}
	*ok = plant >= 0 && d.nrows && d.rows[0].sym == sym[plant] && d.rows[0].verdict > 0;
	flagged = d.nflagged;
	ty_runprof_diff_release(&d);
	ty_runprof_release(&p);
	return flagged;
}

int
main(int argc, char **argv)
{
	static const int planted[3] = {23, 11, 3}; /* f24, f12, f4 */
	int trials = argc > 1 ? atoi(argv[1]) : 4000, rounds = argc > 3 ? atoi(argv[3]) : 30;
	double per_run = argc > 2 ? atof(argv[2]) : 500, conf = argc > 4 ? atof(argv[4]) : 95;
	int t, ok, np = 0, naa = 0, found = 0, others = 0, aa = 0;

	if (trials < 4 || rounds < 6 || rounds > MAX_ROUNDS || !(per_run > 0)) {
		fprintf(stderr, "usage: runprof-fdr-sim TRIALS PER_RUN ROUNDS [CONFIDENCE]\n");
		return 2;
	}
	for (t = 0; t < trials; t++) {
		int plant = t % 4 == 3 ? -1 : planted[t % 4];
		size_t fl = trial(plant, per_run, rounds, conf, &ok);
		if (plant < 0) {
			naa++;
			aa += fl > 0;
			continue;
		}
		np++;
		found += ok;
		others += fl > (size_t)ok;
	}
	printf("%d planted trials (%g samples a run, %d rounds, %s at %g%%): planted first and "
	       "flagged in %d; another function flagged in %d (%.1f%%)\n",
	       np, per_run, rounds, getenv("SIM_BH") ? "BH" : "Holm", 100 - conf, found, others,
	       100.0 * others / np);
	printf("%d A/A trials: any function flagged in %d (%.1f%%)\n", naa, aa, 100.0 * aa / naa);
	return 0;
}
