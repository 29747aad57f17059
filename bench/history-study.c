/* history-study.c - the planted-step history study (issue 24, item 9):
 * how often does `tachy history detect` find a step, how many change points
 * does it make up, and what does it say when it finds nothing? Synthetic
 * histories through the code path of detect (ty_history_point_of, then
 * ty_history_detect and ty_history_min_step of lib/history-detect.c):
 *
 *   10-, 30- and 200-commit histories, 10 runs per commit, one step of 0%
 *   (none: every change point is false), 3%, 5%, 10%, 20% or 30% at a
 *   commit drawn from the middle half (the 10-commit ones: commit 6, as the
 *   issue's); two noise levels: "quiet" (runs 2% normal, commits 0.5%) and
 *   "loaded" (runs 12% log-normal, 5% of runs 1.2x-2x slower, commits 1%).
 *
 * Per cell: found (a change point within 1 commit of the step), false
 * change points per history (farther than 1 commit from it), and the median
 * "a step of X% would have been found" that detect prints for the histories
 * where it found nothing. Each cell twice: with the runs' own spread (this
 * version) and with per-commit medians only (run_var 0: the test before),
 * as the ratio of the found rates. Deterministic (fixed seed).
 *
 * Usage: history-study [HISTORIES-PER-CELL] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/history.h"

#define RUNS 10
#define MAXC 200

static uint64_t rng = 0x2545f4914f6cdd1dull;

static double
uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

struct noise {
	const char *name;
	double run, commit, outlier_share;
	int lognormal;
};

static const struct noise noises[] = {
    {"quiet", 0.02, 0.005, 0, 0},
    {"loaded", 0.12, 0.01, 0.05, 1},
};

/* One history of N commits with a step of PCT at AT into P (with the runs'
 * spread when RUNVAR, else medians only). */
static void
history(const struct noise *z, size_t n, size_t at, double pct, struct ty_history_point *p,
	struct ty_history_point *p0)
{
	double v[RUNS];
	size_t i, r;

	for (i = 0; i < n; i++) {
		double level = 0.010 * (i >= at ? 1 + pct / 100 : 1) * (1 + z->commit * normal());
		for (r = 0; r < RUNS; r++) {
			double e = z->lognormal ? exp(z->run * normal()) : 1 + z->run * normal();
			if (uniform() < z->outlier_share)
				e *= 1.2 + 0.8 * uniform();
			v[r] = level * e;
		}
		ty_history_point_of(v, RUNS, 95, &p[i]);
		p0[i] = p[i];
		p0[i].run_var = 0;
	}
}

struct tally {
	size_t found, falses, quiet;
	double steps[1000];
};

static void
judge(const struct ty_history_point *p, size_t n, size_t at, double pct, struct tally *t)
{
	struct ty_history_change *ch = NULL;
	struct ty_history_detect_opts o;
	struct ty_error e = {0};
	size_t nch = 0, k;
	int hit = 0;

	ty_history_detect_defaults(&o);
	if (ty_history_detect(p, n, &o, &ch, &nch, &e) < 0) {
		fprintf(stderr, "history-study: %s\n", e.msg);
		exit(1);
	}
	for (k = 0; k < nch; k++) {
		int near = pct > 0 && (ch[k].index + 1 >= at && ch[k].index <= at + 1);
		if (near && !hit)
			hit = 1;
		else
			t->falses++;
	}
	t->found += (size_t)hit;
	if (!nch && t->quiet < 1000)
		t->steps[t->quiet++] = ty_history_min_step(p, n, &o, 0.8);
	free(ch);
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = {10, 30, 200};
	static const double pcts[] = {0, 3, 5, 10, 20, 30};
	struct ty_history_point p[MAXC], p0[MAXC];
	int h = argc > 1 ? atoi(argv[1]) : 200;
	size_t zi, si, pi;
	char ratio[32];

	if (h < 1 || h > 1000)
		h = 200;
	printf("%d histories per cell, %d runs per commit, max_p 0.001; found: within 1 commit\n",
	       h, RUNS);
	printf("%-6s %7s %5s  %8s %8s %6s  %10s %9s  %s\n", "noise", "commits", "step", "found",
	       "medians", "ratio", "false/hist", "(medians)", "median 'a step of X%'");
	for (zi = 0; zi < sizeof(noises) / sizeof(noises[0]); zi++)
		for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
			for (pi = 0; pi < sizeof(pcts) / sizeof(pcts[0]); pi++) {
				size_t n = sizes[si], i;
				struct tally *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
				if (!a || !b)
					return 1;
				for (i = 0; i < (size_t)h; i++) {
					size_t at =
					    n == 10 ? 5
						    : n / 4 + (size_t)(uniform() * (double)(n / 2));
					history(&noises[zi], n, at, pcts[pi], p, p0);
					judge(p, n, at, pcts[pi], a);
					judge(p0, n, at, pcts[pi], b);
				}
				qsort(a->steps, a->quiet, sizeof(double), cmp);
				snprintf(ratio, sizeof(ratio), "%.2fx",
					 b->found ? (double)a->found / (double)b->found : NAN);
				printf("%-6s %7zu %4.0f%%  %7.1f%% %7.1f%% %6s  %10.3f %9.3f  ",
				       noises[zi].name, n, pcts[pi], 100.0 * (double)a->found / h,
				       100.0 * (double)b->found / h, pcts[pi] > 0 ? ratio : "",
				       (double)a->falses / h, (double)b->falses / h);
				if (a->quiet)
					printf("%.1f%% (%zu quiet)\n", a->steps[a->quiet / 2],
					       a->quiet);
				else
					printf("-\n");
				free(a);
				free(b);
			}
	return 0;
}
