/* cachedir.h - tachy's own cache directory ($TACHY_CACHE_DIR, else
 * $XDG_CACHE_HOME/tachy, else ~/.cache/tachy; chosen by the command): the
 * per-boot table of the kernel's symbols (kallsyms.c) and debug files with
 * their DWARF decompressed (debugcache.c). A cache is used only when it is
 * ours: its directory owned by the effective user and reached through no
 * other user's symbolic link, each file in it regular, ours and writable by
 * no one else. Files are written whole, to a temporary file renamed into
 * place, so that a reader sees the old file or the new one. A cache that
 * cannot be used is no error: tachy does the work again. */
#ifndef TACHY_CACHEDIR_H
#define TACHY_CACHEDIR_H

#include <stddef.h>
#include <sys/types.h>

/* The directory DIR, opened (O_PATH), made first with its missing parents
 * (mode 0700) when CREATE. -1 when it is missing, not ours, or reached
 * through another user's symbolic link. The caller closes it. */
int ty_cachedir_open(const char *dir, int create);

/* The file NAME in the cache directory DFD, opened read-only; -1 when it
 * is missing, a link, not a regular file, not ours or writable by others.
 * Its size in *SIZE. */
int ty_cachedir_openat(int dfd, const char *name, size_t *size);

/* Write LEN bytes of BUF to DFD's NAME (mode 0600) whole. 0, or -1 with
 * nothing left behind. */
int ty_cachedir_put(int dfd, const char *name, const void *buf, size_t len);

/* A new temporary file for NAME in DFD (mode 0600) holding BUF[LEN]: 0
 * with its name in *TMP (malloc'd; the caller changes it, then calls
 * ty_cachedir_commit), or -1 with nothing left behind. */
int ty_cachedir_tmp(int dfd, const char *name, const void *buf, size_t len, char **tmp);

/* Move DFD's temporary file TMP (from ty_cachedir_tmp) to NAME when OK,
 * else remove it. 0 when it was moved. */
int ty_cachedir_commit(int dfd, const char *tmp, const char *name, int ok);

#endif
