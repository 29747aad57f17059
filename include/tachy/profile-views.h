/* profile-views.h - views of a profile: the flat profile (by symbol,
 * thread, command, DSO, source line or state), callers and callees, the
 * call tree (a diff's too), FlameGraph's folded stacks, and the
 * per-function diff of two profiles. */
#ifndef TACHY_PROFILE_VIEWS_H
#define TACHY_PROFILE_VIEWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tachy/profile-match.h"
#include "tachy/profile.h"

/* TY_BY_LINE: per source line of the locations ("file:line"; a location
 * without one counts under its function's name). TY_BY_STATE: per state. */
enum ty_prof_by {
	TY_BY_SYMBOL,
	TY_BY_THREAD,
	TY_BY_COMM,
	TY_BY_DSO,
	TY_BY_LINE,
	TY_BY_STATE,
	TY_BY_PROCESS, /* "comm [pid]" (profile-who.c's ty_profile_flat_who) */
	TY_BY_CPU      /* "cpu N" (profile-who.c's ty_profile_flat_who) */
};
enum ty_prof_sort { TY_SORT_SELF, TY_SORT_TOTAL, TY_SORT_NAME, TY_SORT_SAMPLES };

struct ty_profile_views_row {
	char *name;	 /* owned by the row set */
	const char *dso; /* NULL for thread, comm and dso rows */
	uint64_t self_samples, total_samples;
	double self_weight, total_weight; /* sums of periods */
	double self_off;		  /* of self_weight, off the CPU */
};

/* Sample S counted as ROW's own: self = total, as in the rows of a
 * thread, a command, a state, a process or a CPU. */
void ty_profile_views_row_count(struct ty_profile_views_row *row, const struct ty_prof_sample *s);

struct ty_profile_views_flat;
/* Sort F's rows by SORT, as ty_profile_views_flat sorts them. */
void ty_profile_views_flat_sort(struct ty_profile_views_flat *f, enum ty_prof_sort sort);

struct ty_profile_views_flat {
	struct ty_profile_views_row *rows;
	size_t nrows;
	uint64_t samples;
	double weight;
};

/* Aggregate P by BY, sorted by SORT (self: descending self weight, then
 * name). Total (with children) counts each function once per sample.
 * Returns 0, -ENOMEM, or -EINVAL for TY_BY_PROCESS and TY_BY_CPU (made
 * by profile-who.h's ty_profile_flat_who). */
int ty_profile_views_flat(const struct ty_profile *p, enum ty_prof_by by, enum ty_prof_sort sort,
			  struct ty_profile_views_flat *out);
void ty_profile_views_flat_release(struct ty_profile_views_flat *f);

/* The call tree: node 0 is the root; children of a node are linked. */
struct ty_profile_views_node {
	const char *name, *dso; /* NULL for the root; owned by the profiles */
	uint32_t parent, child, sibling;
	double self, total;	    /* weights */
	double old_self, old_total; /* second profile of a diff, normalised */
	double off;		    /* of total, off the CPU */
	uint32_t state;		    /* a pseudo-frame's state (TY_STATE_CPU: a function) */
	uint64_t self_n, total_n;   /* samples */
	uint32_t key;		    /* the function's key (the tree's keys) */
};

struct ty_profile_views_tree {
	struct ty_profile_views_node *nodes;
	uint32_t n, cap;
	uint32_t *slots; /* (parent, key) -> node */
	size_t nslots;
	struct ty_profile_match match;	   /* how the two profiles' functions are matched */
	struct ty_profile_match_keys keys; /* the functions' keys (profile-match.h) */
};

/* Build the top-down call tree of P (root -> leaf); off-CPU time ends in a
 * pseudo-frame per state under the function it was spent in (its name is
 * ty_profile_state_frame's, its dso ""). With OLD (may be NULL),
 * also add OLD's weights into old_* scaled to P's total weight, merging
 * nodes by function name and DSO. Returns 0 or -ENOMEM. */
int ty_profile_views_tree_build(struct ty_profile_views_tree *t, const struct ty_profile *p,
				const struct ty_profile *old);
/* The same, OLD's nodes merged with P's where their functions match as M
 * says (profile-match.h; M->main[0] is OLD's program, main[1] P's). With
 * M NULL: by name and full path, as ty_profile_views_tree_build. */
int ty_profile_views_tree_build_match(struct ty_profile_views_tree *t, const struct ty_profile *p,
				      const struct ty_profile *old,
				      const struct ty_profile_match *m);
void ty_profile_views_tree_release(struct ty_profile_views_tree *t);
/* Children of N sorted by NAME ascending (for stable output). */
void ty_profile_views_tree_sort_children(struct ty_profile_views_tree *t,
					 const struct ty_profile *p);
/* Children of every node sorted by total weight, largest first (equal
 * totals by name): the order of a call tree read from the top. */
void ty_profile_views_tree_sort_by_total(struct ty_profile_views_tree *t);

/* Write FlameGraph's folded stacks ("root;...;leaf COUNT", lines sorted)
 * to FP: counts in samples, or in nanoseconds when P has off-CPU time (so
 * that on- and off-CPU time share one unit). Returns 0, or -EIO when FP
 * fails. */
int ty_profile_views_folded(const struct ty_profile *p, FILE *fp);

/* Callers (UP = 1) or callees (UP = 0) of the functions named SYM: one row
 * per neighbour, weight = samples in which that pair occurs; a callee row
 * named "[self]" holds SYM's own time. *MATCHED is the total of SYM.
 * Returns 0, -ENOENT when no function is called SYM, or -ENOMEM. */
int ty_profile_views_neighbours(const struct ty_profile *p, const char *sym, int up,
				struct ty_profile_views_flat *out,
				struct ty_profile_views_row *matched);

/* Per-function change between OLD and NEW, in percent of each profile's
 * total weight. */
struct ty_profile_views_diff_row {
	char *name;
	const char *dso;     /* the new profile's, else the old's */
	const char *old_dso; /* by symbol: the old profile's (NULL: not in it) */
	double old_self, new_self, old_total, new_total; /* percent */
};
struct ty_profile_views_diff {
	struct ty_profile_views_diff_row *rows;
	size_t nrows;
};
/* The flat profiles of OLD and NEW by BY, their rows matched by key as
 * the flat profile keys them (function name and DSO, DSO, thread, command,
 * source line). Rows sorted by |new_self - old_self| descending. Returns 0
 * or -ENOMEM. */
int ty_profile_views_diff(const struct ty_profile *old, const struct ty_profile *new_,
			  enum ty_prof_by by, struct ty_profile_views_diff *out);
/* The same, by symbol its rows matched as M says (profile-match.h: M->main
 * the two programs, old first); the others by key as above. A row's name
 * is the function's as M matches it ("[unknown]"). With M NULL: by name
 * and full path, as ty_profile_views_diff. */
int ty_profile_views_diff_match(const struct ty_profile *old, const struct ty_profile *new_,
				enum ty_prof_by by, const struct ty_profile_match *m,
				struct ty_profile_views_diff *out);
void ty_profile_views_diff_release(struct ty_profile_views_diff *d);

#endif
