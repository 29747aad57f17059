/* argv.h - command strings and words.
 *
 * A command given as one string ("sort -k2 'my file'") becomes the words
 * a POSIX shell would give it, without a shell and without expansion:
 * what only a shell can do (pipes, redirections, $, globs, a leading ~,
 * an assignment or a reserved word first) is refused with a message that
 * names the fix (--shell sh). Words become a string again with the
 * quoting that splits back into the same words. */
#ifndef TACHY_ARGV_H
#define TACHY_ARGV_H

#include <stddef.h>

#include "tachy/error.h"

/* Split command string S into words as a POSIX shell would (blanks,
 * single and double quotes, backslashes), with no expansion. *ARGV gets a
 * NULL-terminated array allocated in one block (free() it). Returns the
 * number of words, or -EINVAL with E set for an empty command, an
 * unterminated quote, or an unquoted shell operator (| & ; < > $ `) that
 * needs --shell. */
int ty_argv_split(const char *s, char ***argv, struct ty_error *e);

/* ARGV[0..ARGC) as one string that ty_argv_split (and a shell) reads
 * back as the same words: plain words as they are, others in single
 * quotes. Returns a malloc()ed string, or NULL when out of memory. */
char *ty_argv_join(char *const *argv, size_t argc);

/* The argv that runs command TEXT through SHELL: SHELL split into words
 * as a command is ("bash --norc", "sh -e"), then "-c", TEXT. *ARGV gets a
 * NULL-terminated array allocated in one block (free() it). Returns the
 * number of words, or -EINVAL (a shell that cannot be split) or -ENOMEM
 * with E set. */
int ty_argv_shell(const char *shell, const char *text, char ***argv, struct ty_error *e);

#endif
