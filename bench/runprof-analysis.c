/* runprof-analysis.c - the time of `tachy run --profile`'s analysis: 100
 * runs x 2 commands x 5,000 functions of Poisson counts (a few samples a
 * run each, as at 499 Hz), paired by round; the median of 5 timings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tachy/runprof-diff.h"
#include "tachy/runprof.h"

#define RUNS 100
#define FUNCS 5000

static uint64_t rng = 88172645463325252ull;

static double
unif(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

static uint32_t
poisson(double m)
{
	double l = exp(-m), t = 1;
	uint32_t k = 0;

	for (;;) {
		t *= unif();
		if (t <= l)
			return k;
		k++;
	}
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(void)
{
	static struct ty_runprof_ent en[FUNCS];
	struct ty_runprof p;
	struct ty_runprof_diff d;
	struct ty_runprof_diff_opts o = {0};
	struct ty_error e;
	uint32_t rounds[RUNS], sym[FUNCS];
	double t[5];
	char name[32];
	size_t i, c, f, k, rows = 0;

	ty_runprof_init(&p, 2);
	for (f = 0; f < FUNCS; f++) {
		snprintf(name, sizeof(name), "function_%zu", f);
		sym[f] = ty_runprof_sym(&p, name, "/usr/lib/libbig.so");
	}
	for (i = 0; i < RUNS; i++) {
		rounds[i] = (uint32_t)i;
		for (c = 0; c < 2; c++) {
			uint64_t tot = 0;
			for (f = 0, k = 0; f < FUNCS; f++) {
				uint32_t s = poisson(2.0 * 20 / (double)(f + 20));
				if (s) {
					en[k++] = (struct ty_runprof_ent){sym[f], s, s};
					tot += s;
				}
			}
			ty_runprof_add_run(&p, c, tot, 2.0 * (double)tot, en, k);
		}
	}
	o.test = TY_TEST_MANN_WHITNEY;
	o.confidence = 95;
	o.old_round = o.new_round = rounds;
	for (k = 0; k < 5; k++) {
		double t0 = now();
		if (ty_runprof_diff(&p, 0, 1, &o, &d, &e) < 0) {
			fprintf(stderr, "%s\n", e.msg);
			return 1;
		}
		t[k] = now() - t0;
		rows = d.nrows;
		ty_runprof_diff_release(&d);
	}
	qsort(t, 5, sizeof(t[0]), cmp);
	printf("analysis: %d runs x 2 commands x %d functions (%zu rows tested): %.1f ms "
	       "(median of 5)\n",
	       RUNS, FUNCS, rows, t[2] * 1e3);
	ty_runprof_release(&p);
	return 0;
}
