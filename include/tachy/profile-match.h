/* profile-match.h - which function of one profile is which of another:
 * the one home of a function's identity across two builds, asked by every
 * differential view (runprof-diff.c for run --profile, compare and history
 * compare; profile-views.c's diff and differential tree for report --diff
 * and both flame graphs).
 *
 * A function is (NAME, DSO) in a profile; across the two sides of a
 * comparison it is matched by a key made under a mode (perf diff's -s is
 * the model):
 *   sym       the name alone: one function of that name, whatever object;
 *   dso,sym   the name and the part its object plays (the default): the
 *             side's main program is "the program" whatever its path or
 *             file name; a library is its file name with the version cut
 *             to the major (libfoo.so.1.2.3 is libfoo.so.1, its soname as
 *             distributions name them); the kernel and its modules, [vdso]
 *             and the other pseudo-objects by their names; JIT code named
 *             by /tmp/perf-PID.map is one object "[perf-map]" (the PID
 *             changes every run); any other executable by its file name;
 *   path,sym  the name and the object's full path (how tachy matched
 *             before: two builds at two paths share nothing).
 * An address that no symbol names, "[unknown] 0xADDR in FILE", is one
 * function "[unknown]" per object under sym and dso,sym: its address moves
 * between two builds, and each side's unnamed time then meets the other's
 * instead of splitting into rows found on one side only. Names a stripped
 * file's CFI gives ("app+0x1130") are kept: they match across copies of
 * one build, not across builds (nothing else could tell which is which).
 * Never a build-id or a full path alone under the default mode. */
#ifndef TACHY_PROFILE_MATCH_H
#define TACHY_PROFILE_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "tachy/array.h"

struct ty_profile;

enum ty_match_mode {
	TY_MATCH_DSO_SYM = 0, /* the default */
	TY_MATCH_SYM,
	TY_MATCH_PATH_SYM,
};

#define TY_MATCH_PROGRAM "[program]" /* the object key of a side's main program */

/* How the two sides are matched: the mode, and each side's main program
 * (0 old, 1 new) as its profile names the DSO (a path), or NULL when it
 * is not known (nothing is then "the program" on that side). */
struct ty_profile_match {
	enum ty_match_mode mode;
	const char *main[2];
};

/* The mode spelt S ("sym", "dso,sym", "path,sym"; "dso" and "path" are
 * taken too) into *M. Returns 0, or -EINVAL for anything else. */
int ty_profile_match_parse(const char *s, enum ty_match_mode *m);

/* "dso,sym", "sym", "path,sym". */
const char *ty_profile_match_mode_name(enum ty_match_mode m);

/* The words a section header says: "name and object", "name only",
 * "name and full path". */
const char *ty_profile_match_mode_words(enum ty_match_mode m);

/* The object key of DSO on SIDE under M into BUF (SIZE > 0; cut to fit):
 * TY_MATCH_PROGRAM, "libc.so.6", "[kernel.kallsyms]", a path under
 * path,sym, "" under sym. Returns BUF. */
const char *ty_profile_match_object(const struct ty_profile_match *m, int side, const char *dso,
				    char *buf, size_t size);

/* NAME as M matches it: "[unknown]" for "[unknown] 0xADDR in FILE" under
 * sym and dso,sym, else NAME. */
const char *ty_profile_match_name(const struct ty_profile_match *m, const char *name);

/* The key of function NAME in DSO on SIDE (0 old, 1 new) under M: two
 * functions of the two sides are the same when their keys are equal.
 * Returns a string the caller frees, or NULL when out of memory. */
char *ty_profile_match_key(const struct ty_profile_match *m, int side, const char *name,
			   const char *dso);

/* Keys interned: one index per distinct key, the view's row or node. */
struct ty_profile_match_keys {
	char **keys;
	uint32_t n, cap;
	struct ty_idmap index;
};

/* The index of the key of (NAME, DSO) on SIDE under M in K, added when
 * new. Returns it, or UINT32_MAX when out of memory. */
uint32_t ty_profile_match_keys_add(struct ty_profile_match_keys *k,
				   const struct ty_profile_match *m, int side, const char *name,
				   const char *dso);
void ty_profile_match_keys_release(struct ty_profile_match_keys *k);

/* The main program among the objects DSOS[0..N) of one side (WEIGHTS[i]
 * its samples, or NULL): the one COMMAND's first word names (its path as
 * typed, relative paths matched at the end of the DSO's; else its file
 * name), else the executable (a file that is no library: no ".so" in its
 * name) with the most weight. COMMAND may be NULL (a profile of an attached
 * process or of every CPU). Returns one of DSOS, or NULL when no object is
 * a file. */
const char *ty_profile_match_main(const char *command, const char *const *dsos,
				  const double *weights, size_t n);

/* The main program of recorded profile P: ty_profile_match_main over its
 * functions' objects (their self samples' weight) and meta.command.
 * Returns a string of P's, or NULL. */
const char *ty_profile_match_main_of(const struct ty_profile *p);

/* The object to show on a row whose function is in OLD_DSO on the old side
 * and NEW_DSO on the new (either NULL: on one side only): the file name,
 * or "OLD -> NEW" when the two file names differ. Returns BUF. */
const char *ty_profile_match_shown(const char *old_dso, const char *new_dso, char *buf,
				   size_t size);

#endif
