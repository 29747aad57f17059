/* history.h - results kept with their commits, and the commits where
 * performance changed.
 *
 * Two halves. The store (ty_history_open ... ty_history_close) keeps every
 * run of every benchmark with its commit, branch, commit time and order,
 * machine, machine facts and tags, in SQLite (one file, HAVE_SQLITE3) or
 * PostgreSQL (a "postgresql://" or "postgres://" URI, HAVE_LIBPQ), under
 * one schema that tachy creates, versions and migrates. Change-point
 * detection (ty_history_detect) is pure: E-Divisive means (Matteson and
 * James 2014) located on per-commit centres, each candidate judged by a
 * Welch t test weighted by run counts and corrected for the choice of the
 * split (see tachy-history(1) for the method and its limits). */
#ifndef TACHY_HISTORY_H
#define TACHY_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/error.h"
#include "tachy/results-read.h"

/* The schema this tachy writes; an older one is migrated, a newer one refused. */
#define TY_HISTORY_SCHEMA 2

/* ---- change points ---- */

/* One commit of a series: the centre of its runs (their median), the
 * weight (number of runs), the interval of the centre, and the spread of
 * one run about it (a robust variance, (1.4826 MAD)^2; 0 or NAN when not
 * known, as for fewer than 3 runs). */
struct ty_history_point {
	double centre, lo, hi;
	double weight;
	double run_var;
};

struct ty_history_change {
	size_t index;			     /* first point of the new level */
	size_t n_before, n_after;	     /* points in the levels either side */
	double before, before_lo, before_hi; /* weighted mean of the level before, interval */
	double after, after_lo, after_hi;
	double change_pct, ci_low, ci_high; /* (after / before - 1) * 100 with its interval */
	double p;			    /* p-value, corrected for the choice of the split */
	int single;			    /* the newest point alone against the level before it */
};

struct ty_history_detect_opts {
	double max_p;	       /* change points kept have p below this (0.001) */
	size_t window;	       /* points per window of the split step (50) */
	double confidence;     /* of the intervals, percent (95) */
	double min_change_pct; /* changes smaller than this are dropped (0) */
};

/* Defaults: max_p 0.001, window 50, confidence 95, min_change_pct 0. */
void ty_history_detect_defaults(struct ty_history_detect_opts *o);

/* The smallest step, in percent of the level, that a change in the middle
 * of X[0..N) (or of a window of O->window commits) would be found with
 * probability POWER (0.8) at O->max_p, by the test ty_history_detect uses,
 * from the spread of X (a series in which nothing was found: one level).
 * NAN when X is too short (fewer than 4 commits) or its level is 0. */
double ty_history_min_step(const struct ty_history_point *x, size_t n,
			   const struct ty_history_detect_opts *o, double power);

/* Find the change points of X[0..N) (in commit order). Stores a malloc'd
 * array in *OUT (the caller frees it) and its length in *NOUT, in index
 * order. Returns 0, -EINVAL (E: a non-finite centre or weight) or -ENOMEM. */
int ty_history_detect(const struct ty_history_point *x, size_t n,
		      const struct ty_history_detect_opts *o, struct ty_history_change **out,
		      size_t *nout, struct ty_error *e);

/* The centre of VALUES[0..N) for a point (median; interval by
 * ty_verdict_median_ci at CONFIDENCE, min..max when N is too small) and
 * the runs' spread (run_var). Reorders VALUES. Returns 0 or -ENOMEM. */
int ty_history_point_of(double *values, size_t n, double confidence, struct ty_history_point *p);

/* ---- the store ---- */

struct ty_history; /* an open store */

/* Where the history lives when neither --db nor TACHY_DB says:
 * $XDG_DATA_HOME/tachy/history.db, else $HOME/.local/share/tachy/history.db.
 * Writes it to BUF. Returns 0, or -ENOENT when neither variable is set. */
int ty_history_default_db(char *buf, size_t size);

/* Whether DB names a PostgreSQL server (a URI or libpq's keywords), not a
 * SQLite file. */
int ty_history_is_server(const char *db);

/* Open the store DB: a PostgreSQL URI, or a SQLite file. With CREATE the
 * file (and its directory) and the schema are made when missing, and an
 * older schema is migrated (in one transaction: only added to, nothing
 * lost); without it a missing store is an error and an older schema is
 * read as it is (what later versions keep is then not there). Returns 0;
 * -ENOTSUP (not built with sqlite3 / libpq), -ENOENT (no such store),
 * -EINVAL (not a tachy history, a corrupt file, a newer schema),
 * -ECONNREFUSED (server unreachable), -EIO; E names DB. */
int ty_history_open(struct ty_history **h, const char *db, int create, struct ty_error *e);
void ty_history_close(struct ty_history *h);
/* DB as shown in messages (a URI's password hidden). */
const char *ty_history_name(const struct ty_history *h);

/* What a result is stored with. Unknown fields are NULL / -1. */
struct ty_history_meta {
	const char *commit;   /* required */
	const char *branch;   /* NULL: unknown */
	int64_t commit_time;  /* seconds since the epoch, -1 unknown */
	int64_t commit_order; /* git rev-list --count, -1 unknown (then the order added) */
	const char *machine;  /* NULL: the files' hostname, else "unknown" */
	const char *tags;     /* free text, NULL none */
	/* For files without an environment (hyperfine's): the machine's facts
	 * as a JSON object and its name, NULL: "{}" and "unknown". */
	const char *env_json, *env_machine;
};

/* Store every benchmark of FILES[0..N) (each with its runs and figures,
 * the file's environment as the machine's facts) under META, in one
 * transaction: all or nothing. Stores the number of results in *ADDED.
 * Returns 0, -EINVAL (E: a file without a run) or a store error. */
int ty_history_add(struct ty_history *h, const struct ty_history_meta *meta,
		   const struct ty_results_saved *files, size_t n, size_t *added,
		   struct ty_error *e);

/* One commit of a series as stored: every run of every result of that
 * benchmark, machine and figure at that commit, pooled. */
struct ty_history_commit {
	char *rev, *branch;  /* branch NULL when unknown */
	int64_t time, order; /* -1 unknown */
	double *values;
	size_t nvalues;
	size_t results;
};

/* The series of one benchmark on one machine for one figure, in commit order. */
struct ty_history_series {
	char *benchmark, *machine, *figure, *unit;
	struct ty_history_commit *commits;
	size_t n;
};

/* Load the series of FIGURE (NULL: "wall") of BENCH (NULL: every
 * benchmark) on MACHINE (NULL: every machine), sorted by benchmark,
 * machine, then commit order. Stores a malloc'd array in *OUT (free with
 * ty_history_series_free). Returns 0, -EINVAL (a corrupt value) or a
 * store error. */
int ty_history_load(struct ty_history *h, const char *bench, const char *machine,
		    const char *figure, struct ty_history_series **out, size_t *nout,
		    struct ty_error *e);
void ty_history_series_free(struct ty_history_series *s, size_t n);

/* The figure names stored for BENCH (NULL: any), sorted, in a malloc'd
 * NULL-ended vector (free each and the vector). Returns 0 or an error. */
int ty_history_figures(struct ty_history *h, const char *bench, char ***out, struct ty_error *e);

/* Parse the stored value list TEXT (numbers separated by spaces) into a
 * malloc'd array. Returns the count, or -EINVAL for anything that is not a
 * finite number, or -ENOMEM. */
long ty_history_parse_values(const char *text, double **out);

/* ---- one commit, as saved results ---- */

/* The commit REV names in the store: REV itself, else the one commit
 * whose id starts with REV. Stores its id in *FULL (malloc'd) and the
 * machines with results at it in *MACHINES (a malloc'd NULL-ended vector,
 * sorted; free each and the vector). Returns 0; -ENOENT (no results at
 * such a commit), -EINVAL (REV starts more than one), or a store error;
 * E says which. */
int ty_history_commit_find(struct ty_history *h, const char *rev, char **full, char ***machines,
			   struct ty_error *e);

/* What is stored at commit REV (an id as stored) on MACHINE, as saved
 * results (results-saved.h), as tachy compare reads an export: a
 * benchmark per name (only BENCHES[0..NB) when NB), in name order, with
 * its wall time (OUT->path is REV cut to 12 characters). The benchmark's
 * results at REV are pooled in the order they were added, less the runs
 * each run left out as a warm-up (results.left_out; not known before
 * schema 2: left_out -1). Their per-run profiles (run --profile, kept
 * since schema 2) come as OUT->profile, a command per benchmark; where
 * some of a benchmark's results have one and others not, only those with
 * one are taken (OUT->notes says how many were left out), so that the
 * wall time and the functions are of the same runs. Release OUT with
 * ty_results_saved_release. Returns 0; -ENOENT (no such results);
 * -EINVAL (a stored value or profile that is not what tachy writes);
 * -ENOMEM; -ENOTSUP (a profile, without jansson); or a store error. */
struct ty_results_saved;
int ty_history_saved_at(struct ty_history *h, const char *rev, const char *machine,
			const char *const *benches, size_t nb, struct ty_results_saved *out,
			struct ty_error *e);

/* The facts of what is stored at commit REV (an id as stored) on MACHINE
 * that comparable.h judges, as saved results: the environment of the
 * newest result there (none where the store kept none, or cannot be read
 * without jansson) and a benchmark per result with its wall, user, system
 * and nivcsw figures as stored (no names). Release OUT with
 * ty_results_saved_release. Returns 0, -ENOENT (no results there), -ENOMEM
 * or a store error. */
int ty_history_facts_at(struct ty_history *h, const char *rev, const char *machine,
			struct ty_results_saved *out, struct ty_error *e);

/* Whether commit OLD is a stale baseline for benchmark BENCH on MACHINE:
 * its median wall time beyond every run of each of the (at least two)
 * commits after it up to NEW, in commit order (comparable.h's
 * ty_comparable_stale). Returns 1 with F filled, 0 (not stale, or NEW
 * not after OLD), or a store error. */
struct ty_comparable_finding;
int ty_history_stale(struct ty_history *h, const char *bench, const char *machine, const char *old,
		     const char *new, struct ty_comparable_finding *f, struct ty_error *e);

/* ---- git ---- */

/* Describe REV (NULL: HEAD) of the git work tree in DIR (NULL: "."), by
 * running git: the full commit id into REV_OUT, the branch (NULL when
 * detached), the commit time and order (rev-list --count). Returns 0, or
 * -ENOENT when DIR is no git work tree or REV no commit of it. */
struct ty_history_git {
	char rev[128];
	char branch[256];
	int has_branch;
	int64_t time, order;
};
int ty_history_git_describe(const char *dir, const char *rev, struct ty_history_git *g);

#endif
