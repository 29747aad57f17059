/* fuzz-results.c - libFuzzer target for the JSON results reader
 * (lib/results-read.c): tachy's exports and hyperfine's. Every input must
 * give results (at least one benchmark, a wall figure of finite values)
 * or -EINVAL/-ENOTSUP/-ENOMEM with a message; never a crash. Per-run
 * profiles (tachy.profile) read must hold only valid indices and counts,
 * and the per-function tests between their benchmarks must run.
 *
 *   make fuzz && build/fuzz/fuzz-results tests/fuzz/corpus/results
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/results-read.h"
#include "tachy/runprof-diff.h"
#include "tachy/runprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_profile(const struct ty_results_saved *r)
{
	const struct ty_runprof *p = r->profile;
	struct ty_runprof_diff_opts o = {.test = TY_TEST_MANN_WHITNEY, .confidence = 95};
	struct ty_runprof_diff d;
	struct ty_error e;
	size_t c, i, k;

	if (p->ncmds != r->nbenches)
		abort();
	for (c = 0; c < p->ncmds; c++) {
		if (p->cmds[c].nruns && p->cmds[c].nruns != r->benches[c].nruns)
			abort();
		for (i = 0; i < p->cmds[c].nruns; i++) {
			const struct ty_runprof_run *run = &p->cmds[c].runs[i];
			for (k = 0; k < run->n; k++) {
				const struct ty_runprof_ent *en = &p->ents[run->first + k];
				if (en->sym >= p->nsyms || en->self > run->samples ||
				    en->total > run->samples)
					abort();
			}
		}
		o.old_round = r->benches[0].rounds;
		o.new_round = r->benches[c].rounds;
		if (ty_runprof_diff(p, 0, c, &o, &d, &e) == 0) {
			for (i = 0; i < d.nrows; i++)
				if (d.rows[i].sym != TY_RUNPROF_POOLED && d.rows[i].sym >= p->nsyms)
					abort();
			ty_runprof_diff_release(&d);
		} else if (!e.msg[0]) {
			abort();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_results_saved r;
	struct ty_error e = {0};
	char *text = malloc(size + 1);
	size_t i, j, k;
	int rc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&r, 0, sizeof(r));
	rc = ty_results_read_text(&r, text, "fuzz.json", &e);
	free(text);
	if (rc < 0) {
		if (!e.msg[0])
			abort(); /* every refusal says why */
		return 0;
	}
	if (r.nbenches < 1)
		abort();
	for (i = 0; i < r.nbenches; i++) {
		const struct ty_results_saved_bench *b = &r.benches[i];
		if (!b->label || !b->command || !ty_results_saved_figure_named(b, "wall"))
			abort();
		for (j = 0; j < b->nfigs; j++)
			for (k = 0; k < b->figs[j].n; k++)
				if (!isfinite(b->figs[j].values[k]))
					abort();
	}
	(void)ty_results_saved_env_value(&r, "kernel");
	if (r.profile)
		check_profile(&r);
	ty_results_saved_release(&r);
	ty_results_saved_release(&r);
	return 0;
}
