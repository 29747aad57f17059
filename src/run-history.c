/* run-history.c - tachy run's --history and --bisect (run-history.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare-input.h"
#include "figure-text.h"
#include "history-store.h"
#include "run-history.h"
#include "tachy/comparison.h"
#include "tachy/history.h"
#include "tachy/runprof-json.h"
#include "tachy/runprof.h"

int
run_history_prepare(struct run_history *h)
{
	struct ty_error e = {0};
	int rc;

#ifndef HAVE_JANSSON
	if (h->bisect) /* BASE is read; the run's own results need no JSON reader */
		return cli_error(128, "--bisect: not built with jansson");
#endif
	if (h->history) {
		/* the store must take the results before anything is measured */
		struct ty_history *store;
		struct ty_history_git g;
		char path[4096];
		if (ty_history_git_describe(NULL, NULL, &g) < 0)
			return cli_usage_error("--history: not in a git work tree (export with "
					       "--export-json and store it with tachy history add "
					       "--commit REV)");
		if ((rc = history_store_db(h->db, 1, path, sizeof(path))))
			return rc;
		if ((rc = ty_history_open(&store, path, 1, &e)) < 0)
			return cli_error(rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME, "%s", e.msg);
		ty_history_close(store);
	}
	if (!h->bisect)
		return 0;
	if ((rc = ty_results_read_file(&h->base, h->bisect, &e)) < 0)
		return cli_error(rc == -ENOTSUP || rc == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE,
				 "--bisect: %s", e.msg);
	h->base_read = 1;
	return 0;
}

void
run_history_release(struct run_history *h)
{
	if (h->base_read)
		ty_results_saved_release(&h->base);
	h->base_read = 0;
}

/* RS as saved results, as its --export-json would read back (so history
 * and bisect see exactly what the export holds). Returns 0 or an exit
 * status. */
static int
as_saved(const struct ty_results *rs, ty_results_env_fn env, void *ctx,
	 struct ty_results_saved *out)
{
	struct ty_error e = {0};
	int rc = ty_results_saved_from(out, rs, env, ctx, "this run", &e);

	if (rc < 0)
		return cli_error(rc == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE, "%s", e.msg);
	return 0;
}

/* The per-run profiles of RS (run --profile) carried into NOW, a command
 * per benchmark as the export's reader makes them, so that the history
 * keeps them with the results. Returns 0 or an exit status. */
static int
carry_profile(const struct ty_results *rs, struct ty_results_saved *now)
{
	const struct ty_runprof *src = rs->profile;
	struct ty_runprof *p;
	size_t c, b = 0;

	if (!src)
		return 0;
	if (!(p = calloc(1, sizeof(*p))) || ty_runprof_init(p, now->nbenches) < 0) {
		free(p);
		return cli_error(EXIT_RUNTIME, "out of memory");
	}
	p->hz = src->hz;
	p->exact = src->exact;
	p->callchain = src->callchain;
	p->stack_size = src->stack_size;
	p->user_only = src->user_only;
	p->lost = src->lost;
	p->cost_ms = src->cost_ms;
	now->profile = p;
	/* the benchmarks are the commands that ran, in order (results-saved.h) */
	for (c = 0; c < rs->n && b < now->nbenches; c++) {
		if (!rs->r[c].nruns)
			continue;
		if (c < src->ncmds && src->cmds[c].nruns == rs->r[c].nruns &&
		    ty_runprof_copy_cmd(p, b, src, c) < 0)
			return cli_error(EXIT_RUNTIME, "out of memory");
		b++;
	}
	return 0;
}

/* git bisect's word for a status that is not a verdict: 128 or more
 * aborts the bisect (usage, Ctrl-C), 125 skips the commit. */
int
run_history_bisect_status(int st)
{
	if (st == EXIT_USAGE)
		return 128;
	if (st == EXIT_INTERRUPTED)
		return 130;
	return 125;
}

/* What the gate made of a row, in git bisect's words. */
static void
bisect_say(void *ctx, const struct ty_cmp_row *r, enum ty_gate g, const char *m)
{
	const struct run_history *h = ctx;

	fprintf(stderr, "tachy run: --bisect: '%s' against %s: %s: %s\n", r->new->label, h->bisect,
		m,
		g == TY_GATE_TRIP   ? "bad"
		: g == TY_GATE_PASS ? "good"
				    : "skip (inconclusive)");
}

static int
bisect_verdict(struct run_history *h, const struct ty_results_saved *now,
	       const struct run_history_stats *s)
{
	struct ty_cmp_options opt = {.test = s->test, .confidence = s->confidence};
	struct gate g = s->gate;
	struct ty_results_saved files[2];
	struct ty_cmp_table c;
	enum ty_gate worst;
	int st;

	char pair[2048], *pairs[1] = {pair};

	if (!gate_set(&g)) /* bad: proven slower; with --fail-if-faster alone, proven faster */
		g.limit = 0;
	memcpy(&files[0], &h->base, sizeof(files[0]));
	memcpy(&files[1], now, sizeof(files[1]));
	/* one benchmark each side: they pair whatever their names (a bisected
	 * command may have been renamed) */
	if (h->base.nbenches == 1 && now->nbenches == 1 &&
	    snprintf(pair, sizeof(pair), "%s=%s", h->base.benches[0].label, now->benches[0].label) <
		(int)sizeof(pair) &&
	    strcmp(h->base.benches[0].label, now->benches[0].label) != 0) {
		opt.match.pairs = pairs;
		opt.match.npairs = 1;
	}
	/* the one gate of run, compare and history: bad only when proven
	 * slower by more than P at the confidence; skip when the estimate is
	 * beyond P but not proven, or nothing can be proven */
	if ((st = gate_table(&c, files, 2, &opt, &g)))
		return st == EXIT_USAGE ? 128 : 125;
	{ /* what the verdict stands on: a baseline measured under other load */
		struct ty_comparable_finding f[COMPARE_INPUT_FINDINGS];
		compare_input_comparable(&h->base, 1, h->bisect, now, 1, "this commit", f);
	}
	worst = gate_judge(&c, &g, bisect_say, h);
	ty_comparison_release(&c);
	return worst == TY_GATE_TRIP ? 1 : worst == TY_GATE_PASS ? 0 : 125;
}

int
run_history_finish(struct run_history *h, const struct ty_results *rs, ty_results_env_fn env,
		   void *ctx, const struct run_history_stats *s, int st)
{
	struct ty_results_saved now;
	int rc;

	if (!h->history && !h->bisect)
		return st;
	h->done = 1;
	if (st) /* a command failed, an export could not be written, Ctrl-C */
		return h->bisect ? run_history_bisect_status(st) : st;
	if ((rc = as_saved(rs, env, ctx, &now)))
		return h->bisect ? run_history_bisect_status(rc) : rc;
	if (h->history && !(st = carry_profile(rs, &now)))
		st = history_store_add(h->db, NULL, NULL, NULL, NULL, &now, 1, 0);
	if (h->bisect)
		st = st ? run_history_bisect_status(st) : bisect_verdict(h, &now, s);
	ty_results_saved_release(&now);
	return st;
}
