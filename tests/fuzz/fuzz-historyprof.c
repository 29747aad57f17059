/* fuzz-historyprof.c - libFuzzer target for the per-run profile tachy
 * history reads back from a database it does not control (profiles.data,
 * read by ty_runprof_json_read_text with the run count of profiles.runs):
 * the first byte is the run count (0..15), the rest the stored text. What
 * is taken must hold together (every symbol index in range, no count above
 * its run's samples, the runs asked for), and what is taken must come
 * back the same (instruction counts as such) through the writer (ty_runprof_json_text). Nothing may
 * crash.
 *
 *   make FUZZ=1 build/fuzz/fuzz-historyprof
 *   ./build/fuzz/fuzz-historyprof -max_total_time=60 tests/fuzz/corpus/historyprof
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/runprof-json.h"
#include "tachy/runprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const struct ty_runprof *p, size_t nruns)
{
	const struct ty_runprof_cmd *c = &p->cmds[0];
	size_t i, k;

	if (p->ncmds != 1 || (c->nruns && c->nruns != nruns))
		abort();
	for (i = 0; i < c->nruns; i++)
		for (k = 0; k < c->runs[i].n; k++) {
			const struct ty_runprof_ent *en = &p->ents[c->runs[i].first + k];
			if (en->sym >= p->nsyms || en->self > c->runs[i].samples ||
			    en->total > c->runs[i].samples)
				abort();
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ty_runprof *p = NULL, *q = NULL;
	struct ty_error e;
	size_t nruns, i, k;
	char *text, *again;

	if (size < 1)
		return 0;
	nruns = data[0] % 16;
	if (!(text = malloc(size)))
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (ty_runprof_json_read_text(&p, text, nruns, "fuzz", &e) == 0) {
		check(p, nruns);
		if (!(again = ty_runprof_json_text(p, 0)))
			abort();
		if (ty_runprof_json_read_text(&q, again, p->cmds[0].nruns ? nruns : 0, "again",
					      &e) != 0)
			abort();
		check(q, nruns);
		if (q->cmds[0].nruns != p->cmds[0].nruns || q->exact != p->exact)
			abort();
		for (i = 0; i < p->cmds[0].nruns; i++) {
			const struct ty_runprof_run *a = &p->cmds[0].runs[i],
						    *b = &q->cmds[0].runs[i];
			if (a->samples != b->samples || a->n != b->n)
				abort();
			for (k = 0; k < a->n; k++) {
				const struct ty_runprof_ent *x = &p->ents[a->first + k],
							    *y = &q->ents[b->first + k];
				if (x->self != y->self || x->total != y->total ||
				    strcmp(p->syms[x->sym].name, q->syms[y->sym].name) != 0 ||
				    strcmp(p->syms[x->sym].dso, q->syms[y->sym].dso) != 0)
					abort();
			}
		}
		free(again);
		ty_runprof_json_free(q);
		ty_runprof_json_free(p);
	}
	free(text);
	return 0;
}
