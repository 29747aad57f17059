/* comparison.h - compare saved results: pair benchmarks across files (or
 * against a file's reference), pick the figures both sides have, and give
 * each pair and figure its verdict (verdict.h), with a geometric-mean row
 * per figure and notes for what a reader must know (too few runs, values
 * missing, differing environments, warnings recorded by the run). */
#ifndef TACHY_COMPARISON_H
#define TACHY_COMPARISON_H

#include <stddef.h>

#include "tachy/error.h"
#include "tachy/results-read.h"
#include "tachy/verdict.h"

/* How to pair benchmarks of the old file with those of a new one. */
struct ty_match {
	char **pairs; /* "OLD=NEW" rules (the split is where both names exist) */
	size_t npairs;
	char *key_re; /* extended regex: names pair when their keys (the first
			 capture group, else the whole match) are equal */
};

struct ty_cmp_options {
	enum ty_test test;
	double confidence;   /* percent */
	const char *figures; /* NULL: time and counters; "all"; or "wall,task-clock" */
	struct ty_match match;
	const char *reference; /* single-file mode: name of the reference, NULL: the file's */
	int keep_warmup;       /* keep the runs of a warm-up (else left out: tachy.left_out,
				  or found by ty_verdict_series in files without it) */
	int no_pairing;	       /* never pair rounds (else paired within an interleaved file) */
	int match_functions;   /* the per-run profiles' functions matched across the sides as
				  profile-match.h's enum ty_match_mode (0: dso,sym) */
};

/* One row: a benchmark pair and one figure. */
struct ty_cmp_row {
	size_t set; /* index into sets[] */
	const struct ty_results_saved_bench *old, *new;
	const char *figure, *unit;
	struct ty_verdict v;
	int is_time;		   /* the unit is a duration ("s", "ns") */
	size_t skip_old, skip_new; /* first runs left out as a warm-up */
	size_t notes[4];	   /* indices into notes[] (1-based; 0 = none) */
};

/* A geometric mean over the rows of one set with one figure. */
struct ty_cmp_geomean {
	size_t set;
	const char *figure, *unit;
	size_t n;	      /* rows it covers */
	double old, new, rel; /* geometric means of the centres, change in % */
};

/* One comparison set: an old file against a new one (or a file against
 * its own reference: old == new). */
struct ty_cmp_set {
	const struct ty_results_saved *old, *new;
	char **env_diffs; /* "kernel: '6.1' in a.json, '6.2' in b.json" */
	size_t nenv_diffs;
	char **unmatched; /* benchmark names without a partner */
	size_t nunmatched;
};

struct ty_cmp_table {
	struct ty_cmp_options opt;
	struct ty_cmp_set *sets;
	size_t nsets;
	struct ty_cmp_row *rows;
	size_t nrows;
	struct ty_cmp_geomean *geo;
	size_t ngeo;
	char **notes;  /* footnotes: first those of the files (benchmarks */
	size_t nnotes; /* left out, interrupted runs), then those of rows */
};

/* Compare FILES[1..N) against FILES[0], or, when N == 1, every benchmark
 * of FILES[0] against its reference. The files must outlive C. Returns 0;
 * -EINVAL with E (nothing pairs, a bad --match regex, an unknown figure or
 * reference); -ENOMEM. Release C with ty_comparison_release. */
int ty_comparison_build(struct ty_cmp_table *c, const struct ty_results_saved *files, size_t n,
			const struct ty_cmp_options *opt, struct ty_error *e);

void ty_comparison_release(struct ty_cmp_table *c);

/* 1 when UNIT names a duration. */
int ty_comparison_unit_is_time(const char *unit);

#endif
