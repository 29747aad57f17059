/* outfile.h - write a file whole or not at all.
 *
 * Output goes to a temporary file in the destination's directory; commit
 * flushes, fsyncs and renames it over the destination, so a full disk or
 * an interruption leaves the old file intact. The name "-" means stdout.
 *
 * Names are resolved one component at a time, relative to directory
 * descriptors: a symbolic link owned by another user in a sticky or
 * world-writable directory is never followed (the rule of the kernel's
 * fs.protected_symlinks, applied whatever that sysctl says), and nothing
 * checked can be swapped before it is used. A new file gets 0666 less the
 * umask; a replaced file of ours keeps its mode. */
#ifndef TACHY_OUTFILE_H
#define TACHY_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

#include "tachy/error.h"

struct ty_outfile {
	FILE *fp;   /* write here */
	char *path; /* destination as given (owned), for messages */
	char *name; /* its last component, in DIRFD (owned); NULL when in place */
	char *tmp;  /* temporary name in DIRFD (owned), NULL when none has a name */
	int is_stdout;
	int fd;	   /* the descriptor under FP, -1 for stdout */
	int dirfd; /* the destination's directory (O_PATH), -1 when none */
	int anon;  /* FD is an O_TMPFILE: linked at commit */
	int werr;  /* errno of the first failed write, 0 when none */
};

/* Open a temporary file beside PATH (or stdout for "-"); a device, FIFO
 * or socket is written in place. Returns 0, or a negative errno with E
 * filled (-EPERM naming the link for an untrusted symbolic link). */
int ty_outfile_open(struct ty_outfile *of, const char *path, struct ty_error *e);

/* Flush, check every write, fsync and rename into place; releases OF.
 * Returns 0, or a negative errno with E filled (the destination is then
 * untouched and the temporary removed). */
int ty_outfile_commit(struct ty_outfile *of, struct ty_error *e);

/* Give up: remove the temporary file and release OF. Safe to call twice. */
void ty_outfile_abort(struct ty_outfile *of);

/* Open the directory DIR (O_PATH | O_DIRECTORY, close-on-exec) under the
 * same rule for symbolic links as ty_outfile_open. Returns the descriptor
 * (the caller closes it), or a negative errno with E filled. */
int ty_outfile_open_dir(const char *dir, struct ty_error *e);

/* Resolve PATH (a file to be used by name: a database) under the same
 * rule, VERB naming the use in messages ("write", "open"): returns the
 * descriptor of its directory (O_PATH; the caller closes it) and puts its
 * last component, never a symbolic link, in *NAME (malloc'd) and what it
 * is in *ST (st_mode 0 when it does not exist). Returns a negative errno
 * with E filled: -EPERM for an untrusted link, -EINVAL for a /proc link. */
struct stat;
int ty_outfile_resolve(const char *path, const char *verb, char **name, struct stat *st,
		       struct ty_error *e);

/* Create a new temporary file ".NAME.tachy-XXXXXX" in DIRFD with MODE
 * (less the umask), O_EXCL, close-on-exec; its name goes to *TMP (the
 * caller frees it). Returns the descriptor or a negative errno. */
int ty_outfile_tmpat(int dirfd, const char *name, mode_t mode, char **tmp);

/* Whether the directory entry NAME is one of those temporary files (a
 * tachy killed before its commit leaves it): readers skip it. */
int ty_outfile_is_tmp(const char *name);

#endif
