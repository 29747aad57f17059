/* results-saved.h - saved results: what a results file holds, as compare,
 * plot, history and run's --bisect use it (results-saved.c). Made by
 * reading a file (results-read.h) or from the results of this run
 * (ty_results_saved_from), the two giving the same thing. */
#ifndef TACHY_RESULTS_SAVED_H
#define TACHY_RESULTS_SAVED_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"
#include "tachy/results-export.h"

/* The newest schema this reader knows. */
#define TY_RESULTS_SCHEMA 1

/* One figure of one benchmark: wall time, user/system time, a counter. */
struct ty_results_saved_figure {
	char *name;	/* "wall", "user", "system", or a counter name */
	char *unit;	/* "s" for times, "ns", "" (a count), ... */
	double *values; /* per run, in run order, in UNIT; n of them */
	size_t n;
	size_t missing; /* runs without a value (null in the file): not in values */
	int user_only;	/* a counter counted in user space only (its name ends in ":u") */
	int exact;	/* a count a deterministic program repeats exactly (counters[NAME].exact:
			   run --instructions): repeated counts give exact verdicts */
	size_t *run;	/* the run (0-based index into the runs) of each value; NULL:
			   value i is run i (a figure built by hand, no value missing) */
};

/* One benchmarked command. */
struct ty_results_saved_bench {
	char *command;			      /* as run */
	char *name;			      /* tachy.name, else the command */
	struct ty_results_saved_figure *figs; /* figs[0] is "wall", in seconds */
	size_t nfigs;
	char **warnings; /* tachy.warnings, as written by run */
	size_t nwarnings;
	size_t dup;		/* 0: the name is unique in the file; else k when it is
				   the k-th benchmark of that name (1-based) */
	char *label;		/* to show: the name, "NAME #k" when not unique (set by
				   the reader) */
	const char *maxrss_why; /* why it has no maxrss figure when the file said
				   so (a static sentence), else NULL */
	size_t nruns;		/* runs in the file (the length of "times") */
	uint32_t *rounds;	/* tachy.runs[].round of each run, NULL when absent */
	long left_out;		/* tachy.left_out (a warm-up left out by run), -1 when absent */
};

struct ty_runprof;

/* One results file. */
struct ty_results_saved {
	char *path;
	int schema; /* tachy.schema, or 0 for a hyperfine export */
	struct ty_results_saved_bench *benches;
	size_t nbenches;   /* at least 1 */
	size_t reference;  /* tachy.reference, else 0 */
	double confidence; /* tachy.confidence, else 0 (not given) */
	char *test;	   /* tachy.test, else NULL */
	char *order;	   /* tachy.order ("interleaved"...), else NULL */
	char **env_keys;   /* tachy.environment, values as text; */
	char **env_values; /* nenv == 0 when the file has none */
	size_t nenv;
	int interrupted;	    /* tachy.interrupted is true */
	char *reference_norun;	    /* the reference was left out (no run): its
				       name, "" when unknown (tachy.not_run without
				       tachy.reference); else NULL */
	struct ty_runprof *profile; /* tachy.profile: a command per benchmark (runprof-json.h),
				       NULL when the file has none */
	/* What a reader must know about the file (benchmarks left out,
	 * interrupted): sentences without the file's name. */
	char **notes;
	size_t nnotes;
};

/* Free what R holds. Safe on a zeroed or released R. */
void ty_results_saved_release(struct ty_results_saved *r);
/* Free what one benchmark B, one figure F holds (not B, F themselves). */
void ty_results_saved_bench_release(struct ty_results_saved_bench *b);
void ty_results_saved_figure_release(struct ty_results_saved_figure *f);

/* A figure NAME/UNIT added to B with room for N values (none yet);
 * returns it, or NULL when out of memory (B unchanged). */
struct ty_results_saved_figure *ty_results_saved_figure_add(struct ty_results_saved_bench *b,
							    const char *name, const char *unit,
							    size_t n);

/* Give R's benchmarks their labels: the name, or "NAME #k" (dup k) where
 * several share it, with a note per shared name that names them by
 * ORIG[i], the index in the file's results[] of benches[i]. Returns 0 or
 * -ENOMEM. */
int ty_results_saved_label(struct ty_results_saved *r, const size_t *orig);

/* The figure called NAME of B, or NULL. */
const struct ty_results_saved_figure *
ty_results_saved_figure_named(const struct ty_results_saved_bench *b, const char *name);

/* The value of environment key KEY in R, or NULL. */
const char *ty_results_saved_env_value(const struct ty_results_saved *r, const char *key);

/* Append a printf-formatted string to the string vector *V of *N items
 * (the notes of a file, of a comparison). Returns 0 or -ENOMEM. */
int ty_results_saved_strv_addf(char ***v, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Saved results made from RS, the results of this run, as reading RS's
 * --export-json (ENV and ENV_CTX filling its environment, NULL:
 * ty_results_env_default) would give them, field for field, but without a
 * JSON text in between; the environment's values as text as the reader
 * gives them (ty_jsonw_init_members). PATH names it (its path, and in
 * messages). The per-run profiles (RS->profile) are not carried: PROFILE
 * is NULL. RS must have been analysed (ty_results_analyze). Returns 0;
 * -EINVAL with E when no command has a finished run, or an environment
 * fact is an object or an array; -ENOMEM. On failure R holds nothing. */
struct ty_results;
int ty_results_saved_from(struct ty_results_saved *r, const struct ty_results *rs,
			  ty_results_env_fn env, void *env_ctx, const char *path,
			  struct ty_error *e);

#endif
