/* history-detect.c - how well does `tachy history detect` find the commits
 * where performance changed? Synthetic histories through the code path of
 * detect (ty_history_point_of, ty_history_detect of lib/history-detect.c):
 *
 *   HISTORIES histories of 1,000 commits, 10 runs per commit, 1% noise
 *   (normal), a slow outlier run now and then (1% of runs, +20% to +100%),
 *   and 12 steps per history at known commits (two each of +2%, -2%, +5%,
 *   -5%, +10%, -10%, at least 40 commits apart).
 *
 * For each step size: the share found within 1 commit of where it began;
 * and the false change points (farther than 3 commits from every step) per
 * 1,000 commits. The same histories go through the rule "flag a commit whose
 * mean differs from the previous commit's by more than 2 sigma" (sigma: the
 * standard error of that difference) for contrast; then both again with 5
 * odd commits per history (every run of the commit 8% slower, at least 6
 * commits from a step), which no rule should take for a change. Then the speed of detect
 * on 100 series of 1,000 commits. Deterministic (fixed seed).
 *
 * Usage: history-detect [HISTORIES] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tachy/history.h"

#define COMMITS 1000
#define RUNS 10
#define STEPS 12

static uint64_t rng = 0x9e3779b97f4a7c15ull;

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

static const double sizes[STEPS] = {0.02, -0.02, 0.05, -0.05, 0.10, -0.10,
				    0.02, -0.02, 0.05, -0.05, 0.10, -0.10};

struct history {
	size_t at[STEPS]; /* where each step begins */
	double size[STEPS];
	double runs[COMMITS][RUNS];
};

static int
taken(const size_t *at, size_t k, size_t pos)
{
	size_t i;

	for (i = 0; i < k; i++)
		if ((pos > at[i] ? pos - at[i] : at[i] - pos) < 40)
			return 1;
	return 0;
}

static size_t odd_commits; /* per history: commits whose runs are all 8% slower */

/* Within 5 commits of a step of H? */
static int
near_step(const struct history *h, size_t pos)
{
	size_t k;

	for (k = 0; k < STEPS; k++)
		if ((pos > h->at[k] ? pos - h->at[k] : h->at[k] - pos) <= 5)
			return 1;
	return 0;
}

static void
make_history(struct history *h)
{
	size_t odd[8];
	size_t k, i, r, order[STEPS];
	double level = 1.0;

	for (k = 0; k < STEPS; k++) {
		size_t pos;
		do
			pos = 40 + (size_t)(uniform() * (COMMITS - 80));
		while (taken(h->at, k, pos));
		h->at[k] = pos;
	}
	/* sizes in a random order along the history */
	for (k = 0; k < STEPS; k++)
		order[k] = k;
	for (k = STEPS - 1; k > 0; k--) {
		size_t j = (size_t)(uniform() * (double)(k + 1)), t = order[k];
		order[k] = order[j];
		order[j] = t;
	}
	for (k = 0; k < STEPS; k++)
		h->size[k] = sizes[order[k]];
	for (k = 0; k < odd_commits && k < 8; k++) {
		size_t pos;
		do
			pos = 5 + (size_t)(uniform() * (COMMITS - 10));
		while (near_step(h, pos));
		odd[k] = pos;
	}
	for (i = 0; i < COMMITS; i++) {
		for (k = 0; k < STEPS; k++)
			if (h->at[k] == i)
				level *= 1 + h->size[k];
		for (r = 0; r < RUNS; r++) {
			double v = level * (1 + 0.01 * normal());
			if (uniform() < 0.01)
				v *= 1.2 + 0.8 * uniform();
			h->runs[i][r] = v;
		}
		for (k = 0; k < odd_commits && k < 8; k++)
			if (odd[k] == i)
				for (r = 0; r < RUNS; r++)
					h->runs[i][r] *= 1.08;
	}
}

struct score {
	size_t found[3], total[3]; /* by |size|: 2, 5, 10 */
	size_t false_cp, commits;
};

static size_t
size_class(double s)
{
	double a = fabs(s);
	return a < 0.03 ? 0 : a < 0.07 ? 1 : 2;
}

static void
score_cps(const struct history *h, const size_t *cp, size_t ncp, struct score *sc)
{
	size_t k, j;

	for (k = 0; k < STEPS; k++) {
		int hit = 0;
		for (j = 0; j < ncp; j++)
			if ((cp[j] > h->at[k] ? cp[j] - h->at[k] : h->at[k] - cp[j]) <= 1)
				hit = 1;
		sc->total[size_class(h->size[k])]++;
		sc->found[size_class(h->size[k])] += (size_t)hit;
	}
	for (j = 0; j < ncp; j++) {
		int near = 0;
		for (k = 0; k < STEPS; k++)
			if ((cp[j] > h->at[k] ? cp[j] - h->at[k] : h->at[k] - cp[j]) <= 3)
				near = 1;
		sc->false_cp += (size_t)!near;
	}
	sc->commits += COMMITS;
}

static void
points_of(const struct history *h, struct ty_history_point *pts)
{
	double tmp[RUNS];
	size_t i;

	for (i = 0; i < COMMITS; i++) {
		memcpy(tmp, h->runs[i], sizeof(tmp));
		ty_history_point_of(tmp, RUNS, 95, &pts[i]);
	}
}

static size_t
detect(const struct ty_history_point *pts, size_t *cp)
{
	struct ty_history_change *ch;
	struct ty_error e = {0};
	size_t n, k;

	if (ty_history_detect(pts, COMMITS, NULL, &ch, &n, &e) < 0) {
		fprintf(stderr, "detect: %s\n", e.msg);
		exit(1);
	}
	for (k = 0; k < n; k++)
		cp[k] = ch[k].index;
	free(ch);
	return n;
}

/* The naive rule: |mean_i - mean_{i-1}| > 2 * sqrt(se_i^2 + se_{i-1}^2). */
static size_t
two_sigma(const struct history *h, size_t *cp)
{
	double m[COMMITS], se[COMMITS];
	size_t i, r, n = 0;

	for (i = 0; i < COMMITS; i++) {
		double s = 0, ss = 0;
		for (r = 0; r < RUNS; r++)
			s += h->runs[i][r];
		m[i] = s / RUNS;
		for (r = 0; r < RUNS; r++)
			ss += (h->runs[i][r] - m[i]) * (h->runs[i][r] - m[i]);
		se[i] = sqrt(ss / (RUNS - 1) / RUNS);
	}
	for (i = 1; i < COMMITS; i++)
		if (fabs(m[i] - m[i - 1]) > 2 * sqrt(se[i] * se[i] + se[i - 1] * se[i - 1]))
			cp[n++] = i;
	return n;
}

static void
print_score(const char *name, const struct score *s)
{
	printf("%-32s %6.1f%% %6.1f%% %6.1f%%  %8.2f\n", name,
	       100.0 * (double)s->found[0] / (double)s->total[0],
	       100.0 * (double)s->found[1] / (double)s->total[1],
	       100.0 * (double)s->found[2] / (double)s->total[2],
	       1000.0 * (double)s->false_cp / (double)s->commits);
}

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	size_t histories = argc > 1 ? (size_t)atol(argv[1]) : 100, i, ncp;
	struct history *h = malloc(sizeof(*h));
	struct ty_history_point *pts = malloc(COMMITS * sizeof(*pts));
	size_t *cp = malloc(COMMITS * sizeof(*cp));
	struct score ed = {0}, naive = {0};
	double t0, t1;

	if (!h || !pts || !cp)
		return 1;
	for (i = 0; i < histories; i++) {
		make_history(h);
		points_of(h, pts);
		ncp = detect(pts, cp);
		score_cps(h, cp, ncp, &ed);
		ncp = two_sigma(h, cp);
		score_cps(h, cp, ncp, &naive);
	}
	printf(
	    "%zu histories of %d commits x %d runs, 1%% noise, 1%% outlier runs, %d steps each\n",
	    histories, COMMITS, RUNS, STEPS);
	printf("%-32s %7s %7s %7s  %8s\n", "rule", "2%", "5%", "10%", "false/1k");
	print_score("E-Divisive (tachy history)", &ed);
	print_score("2 sigma vs previous commit", &naive);
	/* the same, with 5 odd commits per history (all runs 8% slower) */
	memset(&ed, 0, sizeof(ed));
	memset(&naive, 0, sizeof(naive));
	odd_commits = 5;
	for (i = 0; i < histories; i++) {
		make_history(h);
		points_of(h, pts);
		ncp = detect(pts, cp);
		score_cps(h, cp, ncp, &ed);
		ncp = two_sigma(h, cp);
		score_cps(h, cp, ncp, &naive);
	}
	odd_commits = 0;
	printf("with 5 odd commits (+8%%, one commit each) per history:\n");
	print_score("E-Divisive (tachy history)", &ed);
	print_score("2 sigma vs previous commit", &naive);
	/* speed: detect over 100 series of 1,000 commits */
	t0 = now();
	for (i = 0; i < 100; i++) {
		if (i % 10 == 0) {
			make_history(h);
			points_of(h, pts);
		}
		detect(pts, cp);
	}
	t1 = now();
	printf("detect, 100 series x %d commits: %.3f s\n", COMMITS, t1 - t0);
	free(h);
	free(pts);
	free(cp);
	return 0;
}
