/* cachedir.h - tachy's own cache directory ($TACHY_CACHE_DIR, else
 * $XDG_CACHE_HOME/tachy, else ~/.cache/tachy; chosen by the command): the
 * per-boot table of the kernel's symbols (kallsyms.c) and debug files with
 * their DWARF decompressed (debugcache.c); and the rule by which tachy
 * judges any path of its own files that the environment names (the cache,
 * the history's database).
 *
 * The rule: the path is walked from "/" one directory at a time, each
 * opened relative to the one before with O_PATH | O_NOFOLLOW (nothing is
 * resolved by name twice, so a link swapped in later is not followed).
 * Every directory on the way must be owned by the effective user or by
 * root and writable by no one else (the group-write bit of a user private
 * group, umask 002, gives no one else a write); a sticky directory open to
 * others (/tmp) is taken as an ancestor only when the entry below it is
 * the user's own or root's, since no one else can rename or remove that.
 * A symbolic link is followed when it is the user's or root's, its target
 * walked by the same rule.
 * The cache directory itself is the user's own. So root never writes into
 * a place another user controls, and never makes directories there.
 *
 * A cache file is written whole, to a temporary file renamed into place,
 * with a trailer (its size and its CRC-32) that is checked on every use: a
 * file that is cut short or altered is removed (a note says so, see
 * ty_cachedir_note) and the caller makes it again. A cache that cannot be
 * used is no error: tachy does the work again. */
#ifndef TACHY_CACHEDIR_H
#define TACHY_CACHEDIR_H

#include <stddef.h>
#include <sys/types.h>

#include "tachy/error.h"

#define TY_CACHEDIR_CREATE 1 /* make the missing directories (0700) */
#define TY_CACHEDIR_OURS 2   /* the last must be the user's own */
#define TY_CACHEDIR_TRAILER 24

/* Walk the directory DIR under the rule above (a relative DIR from the
 * current directory's absolute path), with FLAGS. Returns its descriptor
 * (O_PATH; the caller closes it); -ENOENT when a part is missing (every
 * part before it passed); -EPERM, -ENOTDIR, -ELOOP... with E naming the
 * directory or link and why. */
int ty_cachedir_walk(const char *dir, int flags, struct ty_error *e);

/* Whether PATH, a file tachy will write (a database), may be written: its
 * directories pass the rule (those missing are fine: made, they will be
 * the user's), and where the last is a sticky directory open to others,
 * the file, if it exists, is the user's. 0, or a negative errno with E
 * saying which part fails and why. */
int ty_cachedir_check_file(const char *path, struct ty_error *e);

/* The cache directory DIR, opened (O_PATH), made first with its missing
 * parents (mode 0700) when CREATE. -1 when it is missing or fails the
 * rule. The caller closes it. */
int ty_cachedir_open(const char *dir, int create);

/* The file NAME in the cache directory DFD, opened read-only, its size
 * without the trailer in *SIZE. -1 when it is missing, a link, not a
 * regular file, not ours or writable by others; -1 too, and the file
 * removed with a note, when its trailer does not match it. */
int ty_cachedir_openat(int dfd, const char *name, size_t *size);

/* Check the trailer of the cache file FD: 0 with the size before it in
 * *SIZE; -EBADMSG with WHY[WHYSIZE] saying what is wrong ("cut short",
 * "altered"), or another negative errno. */
int ty_cachedir_verify(int fd, size_t *size, char *why, size_t whysize);

/* The trailer of the contents BUF[LEN], into OUT (tests make files with
 * it). */
void ty_cachedir_trailer(const void *buf, size_t len, unsigned char out[TY_CACHEDIR_TRAILER]);

/* Write LEN bytes of BUF, and the trailer, to DFD's NAME (mode 0600)
 * whole. 0, or -1 with nothing left behind. */
int ty_cachedir_put(int dfd, const char *name, const void *buf, size_t len);

/* A new temporary file for NAME in DFD (mode 0600) holding BUF[LEN]: 0
 * with its name in *TMP (malloc'd; the caller changes it, then calls
 * ty_cachedir_commit), or -1 with nothing left behind. */
int ty_cachedir_tmp(int dfd, const char *name, const void *buf, size_t len, char **tmp);

/* When OK, give DFD's temporary file TMP (from ty_cachedir_tmp) its
 * trailer and move it to NAME, else remove it. 0 when it was moved. */
int ty_cachedir_commit(int dfd, const char *tmp, const char *name, int ok);

/* The notes gathered since the start (process-wide, as the cache is):
 * "the cache file 'PATH' was cut short ...: removed, and made again". The
 * I-th, or NULL past the last. */
const char *ty_cachedir_note(size_t i);
void ty_cachedir_notes_clear(void);

#endif
