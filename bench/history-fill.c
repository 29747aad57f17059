/* history-fill.c - fill a history for the speed benchmark of detect:
 * BENCHES benchmarks x COMMITS commits of 10 runs (1% noise, a 5% step in
 * the middle), one transaction per commit, through ty_history_add as
 * `tachy history add` stores them.
 *
 * Usage: history-fill DB BENCHES COMMITS */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/history.h"

static uint64_t rng = 7;

static double
uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

int
main(int argc, char **argv)
{
	struct ty_history *h;
	struct ty_error e = {0};
	size_t nb, nc, b, c, r, added;
	struct ty_results_saved file = {.path = "bench"};
	struct ty_results_saved_bench *benches;
	struct ty_results_saved_figure *figs;
	double *vals;
	char(*names)[32], rev[32];

	if (argc != 4)
		return 2;
	nb = (size_t)atol(argv[2]);
	nc = (size_t)atol(argv[3]);
	benches = calloc(nb, sizeof(*benches));
	figs = calloc(nb, sizeof(*figs));
	vals = calloc(nb * 10, sizeof(*vals));
	names = calloc(nb, sizeof(*names));
	if (!benches || !figs || !vals || !names)
		return 1;
	for (b = 0; b < nb; b++) {
		snprintf(names[b], sizeof(names[b]), "bench-%03zu", b);
		figs[b] = (struct ty_results_saved_figure){"wall", "s", vals + 10 * b, 10, 0};
		benches[b] = (struct ty_results_saved_bench){.command = names[b],
							     .name = names[b],
							     .label = names[b],
							     .figs = &figs[b],
							     .nfigs = 1};
	}
	file.benches = benches;
	file.nbenches = nb;
	if (ty_history_open(&h, argv[1], 1, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	for (c = 0; c < nc; c++) {
		struct ty_history_meta m = {rev, "main", -1, (int64_t)c, "bench-machine", NULL};
		snprintf(rev, sizeof(rev), "commit-%06zu", c);
		for (b = 0; b < nb; b++)
			for (r = 0; r < 10; r++)
				vals[10 * b + r] = (c >= nc / 2 ? 0.0105 : 0.01) *
						   (1 + 0.01 * sqrt(-2 * log(uniform())) *
							    cos(2 * M_PI * uniform()));
		if (ty_history_add(h, &m, &file, 1, &added, &e) < 0) {
			fprintf(stderr, "%s\n", e.msg);
			return 1;
		}
	}
	ty_history_close(h);
	return 0;
}
