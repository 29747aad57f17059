/* gate.h - the regression gate of run, compare, history compare and
 * run --bisect: --fail-if-slower P on the figure --gate-on names, judged
 * on the rows of comparison.c (the one verdict), and the line that points
 * to a CPU figure where it proves what the wall time does not (src/ only). */
#ifndef TACHY_GATE_H
#define TACHY_GATE_H

#include <stddef.h>

#include "cli.h"
#include "tachy/comparison.h"

struct gate {
	const char *metric; /* --gate-on: NULL: wall */
	double limit;	    /* --fail-if-slower P; NAN: no gate */
	double faster;	    /* --fail-if-faster P; NAN: no gate */
};

/* Is either gate set? */
int gate_set(const struct gate *g);

/* --gate-on METRIC (a callback of cli.h): wall, cpu, user, system,
 * task-clock or a counter's name, into a const char *. */
int gate_opt_metric(const struct cli_option *opt, const char *typed, char **args);

/* The figure G gates: its --gate-on, else "wall". */
const char *gate_figure(const struct gate *g);

/* FILES[0..N) compared as OPT says (its figures replaced by the gate's)
 * into C, released by the caller with ty_comparison_release. Returns 0, or
 * says why with cli_error and returns EXIT_USAGE (a pair of benchmarks
 * without the gate's figure on both sides: named, with the figures both
 * have) or EXIT_RUNTIME. */
int gate_table(struct ty_cmp_table *c, const struct ty_results_saved *files, size_t n,
	       const struct ty_cmp_options *opt, const struct gate *g);

/* How the gate judged row R (one of the gate's figure), MSG the gate line
 * ("gate (user time): slower by more than 2%: +15.8% [...] at 95%
 * confidence"). */
typedef void gate_say_fn(void *ctx, const struct ty_cmp_row *r, enum ty_gate verdict,
			 const char *msg);

/* Judge every row of C on G's figure, calling SAY for each (every row,
 * TY_GATE_PASS included; a row twice when both --fail-if-slower and
 * --fail-if-faster are set: "faster by more than P" is the mirror of
 * "slower", the interval's other bound). Returns the worst of them: TY_GATE_TRIP before
 * TY_GATE_UNPROVEN, TY_GATE_TOO_FEW and TY_GATE_PASS. */
enum ty_gate gate_judge(const struct ty_cmp_table *c, const struct gate *g, gate_say_fn *say,
			void *ctx);

/* The CPU figure that can prove what the wall time does not: FILES[0..N)
 * compared as OPT says on the wall time and task-clock where both sides
 * counted it, else the CPU time (user + system), into C (released by the
 * caller). Returns 0 (C empty when there is nothing to compare) or -ENOMEM. */
int gate_cpu_table(struct ty_cmp_table *c, const struct ty_results_saved *files, size_t n,
		   const struct ty_cmp_options *opt);

/* The row of C (a gate_cpu_table) with the CPU figure of the pair of OLD
 * and NEW when the wall time's comparison of that pair proves nothing and
 * the CPU figure's proves a change; else NULL. */
const struct ty_cmp_row *gate_cpu_row(const struct ty_cmp_table *c,
				      const struct ty_results_saved_bench *old,
				      const struct ty_results_saved_bench *new);

/* The line that says it, into BUF: "CPU time (user+sys): +9.4% [+5.7%,
 * +11.9%] slower: proven where the wall time is not (...); gate on it with
 * --gate-on cpu". Returns BUF. */
char *gate_cpu_text(char *buf, size_t size, const struct ty_cmp_row *r);

#endif
