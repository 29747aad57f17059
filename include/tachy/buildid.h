/* buildid.h - the file of a build-id, where a recording names one (perf
 * record's build-id feature): a copy in perf's build-id cache, or from
 * debuginfod, for a program rebuilt or a library updated since it was
 * recorded, or a recording from another machine.
 *
 * perf's build-id cache (perf record fills it; perf buildid-cache -a adds
 * to it) is DIR/.build-id/XX/REST, a symbolic link to DIR/PATH/ID, a
 * folder holding the file as "elf" (and a debug file as "debug"); perf
 * before 4.6 kept the file itself at DIR/PATH/ID. DIR is ~/.debug unless
 * perf's config says buildid.dir (the caller finds it). A file found
 * there is judged as safefile.h judges every file others control (a FIFO,
 * a device, a directory are refused without blocking) and must carry the
 * build-id wanted: a link to any other file is refused, with a reason. */
#ifndef TACHY_BUILDID_H
#define TACHY_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* Where a file came from. */
enum ty_buildid_from {
	TY_BUILDID_NONE,
	TY_BUILDID_CACHE,      /* perf's build-id cache */
	TY_BUILDID_DEBUGINFOD, /* a debuginfod server (DEBUGINFOD_URLS) */
};

struct ty_buildid_finder;

/* A finder that looks in perf's build-id cache DIR (NULL or "": none),
 * then asks debuginfod when DEBUGINFOD is set (the caller sets it when
 * DEBUGINFOD_URLS is: no network otherwise). NULL when out of memory. */
struct ty_buildid_finder *ty_buildid_finder_new(const char *dir, int debuginfod);
void ty_buildid_finder_free(struct ty_buildid_finder *f);

/* The file recorded at PATH with the build-id HEX (lowercase hex): its
 * path into OUT (OUTLEN bytes) and its device and inode into *DEV and
 * *INO (to open that very file later); returns where it came from, or
 * TY_BUILDID_NONE when neither has it. A file refused on the way (not a
 * regular file, another build-id) is said in WHY ("" when none was). */
enum ty_buildid_from ty_buildid_find(struct ty_buildid_finder *f, const char *hex, const char *path,
				     char *out, size_t outlen, uint64_t *dev, uint64_t *ino,
				     char *why, size_t whylen);

/* Does the file PATH (a regular file, opened as safefile.h says) carry
 * the build-id HEX? 1 yes, 0 another or none (its own in GOT, "" when
 * none), -1 when it cannot be read (WHY says why). */
int ty_buildid_check(const char *path, const char *hex, char got[129], uint64_t *dev, uint64_t *ino,
		     char *why, size_t whylen);

#endif
