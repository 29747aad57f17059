/* safefile.h - the one opener of files that other people control: the
 * executables, libraries and debug files the recorded processes map, perf
 * maps, and what is decompressed from them. A path a process names may be
 * a FIFO (an open that never returns), a device (/dev/zero: endless), a
 * socket, a directory, a file replaced since it was mapped, or a small
 * file that inflates to gigabytes. Here each is judged before it is read:
 * the path is stat'ed, then opened with O_NONBLOCK | O_NOCTTY | O_CLOEXEC
 * (a FIFO opened so returns at once), then fstat'ed before any read;
 * only a regular file, the same one stat saw, passes. Where the caller
 * knows the file a mapping held (its device and inode, from the kernel's
 * MMAP2 records or /proc/PID/maps), a different file is refused as
 * replaced. What is read is bounded by the caller's size limit, what is
 * decompressed by TY_SAFEFILE_INFLATE_MAX a section. Each refusal comes
 * with its reason, a phrase that follows the file's name ("is a FIFO"). */
#ifndef TACHY_SAFEFILE_H
#define TACHY_SAFEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* What a section may inflate to, at most (256 MiB): a section over it is
 * not read, with a warning naming the file and the section. */
#define TY_SAFEFILE_INFLATE_MAX ((size_t)256 << 20)

/* What the caller knows of the file it wants; zero fields are not
 * checked. */
struct ty_safefile_want {
	uint64_t dev, ino; /* the mapping's file (ino 0: not known) */
	uint64_t max_size; /* refuse a larger file (0: no limit) */
	int nofollow;	   /* refuse a symbolic link (a name in /tmp) */
};

/* Room for a reason, with the size and the limit it names. */
#define TY_SAFEFILE_WHY 160

/* Open PATH read-only after judging it (see above). Returns the
 * descriptor (its stat in *ST when ST is not NULL), or a negative errno
 * with the reason in WHY: -EINVAL not a regular file ("is a FIFO", "is a
 * character device", "is a socket", "is a directory"), -ESTALE another
 * file than the mapping's ("was replaced on disk since it was mapped") or
 * changed between stat and open, -EFBIG larger than WANT's max_size, else
 * the errno of stat or open. WANT may be NULL. */
int ty_safefile_open(const char *path, const struct ty_safefile_want *want, struct stat *st,
		     char why[TY_SAFEFILE_WHY]);

/* The same file as ST (device and inode, the rule of ty_safefile_open:
 * an anonymous device, such as overlayfs and btrfs give, is judged by its
 * inode alone, as their maps and stat differ). */
int ty_safefile_same(const struct stat *st, uint64_t dev, uint64_t ino);

/* PATH opened as above and mapped read-only, at least MIN bytes long:
 * the image and *LEN (munmap it), or NULL with the reason in WHY. */
void *ty_safefile_map(const char *path, const struct ty_safefile_want *want, size_t min,
		      size_t *len, char why[TY_SAFEFILE_WHY]);

/* PATH opened as above and read whole into a malloc'd buffer (NUL
 * terminated after *LEN bytes): 0, or a negative errno with WHY. */
int ty_safefile_read(const char *path, const struct ty_safefile_want *want, char **buf, size_t *len,
		     char why[TY_SAFEFILE_WHY]);

/* The file that PID's mapping [LO, HI) of PATH holds (device DEV, inode
 * INO), as a path to read it by. Returns 0 with SRC = PATH when PATH is
 * still that file (or INO is 0: not known); 1 when PATH was replaced but
 * /proc/PID/map_files/LO-HI (readable by root) still holds it: that file
 * opened and kept in *FD (the caller closes it), SRC "/proc/self/fd/N",
 * which stays readable after PID is gone; -1 when neither: WHY says what
 * PATH is now. A PATH that cannot be judged now (missing) is 0: its
 * opener says why later. */
int ty_safefile_mapped(const char *path, uint32_t pid, uint64_t lo, uint64_t hi, uint64_t dev,
		       uint64_t ino, char *src, size_t srclen, int *fd, char why[TY_SAFEFILE_WHY]);

/* The bound on what one section may inflate to: TY_SAFEFILE_INFLATE_MAX
 * unless set (tests; 0 restores it). */
size_t ty_safefile_inflate_max(void);
void ty_safefile_set_inflate_max(size_t max);

/* Inflate the zlib stream IN[INLEN] into OUT, which holds exactly OUTLEN
 * bytes: 0 when the stream ends there; -EFBIG when it would produce more
 * (a bomb that lies about its size stops at OUTLEN), -EINVAL when it is
 * not valid zlib data or ends short, -ENOTSUP without zlib. */
int ty_safefile_inflate(const void *in, size_t inlen, void *out, size_t outlen);

/* Is the ELF section NAME one that tachy reads: the call-frame tables,
 * symbol tables, MiniDebugInfo, and the DWARF of the line and inline
 * lookups (.zdebug_ names as their .debug_ ones)? No other is ever
 * decompressed. */
int ty_safefile_section_needed(const char *name);

/* Tests: a function called between the stat and the open of
 * ty_safefile_open (NULL: none), to replace the file in between. */
void ty_safefile_set_between_hook(void (*hook)(const char *path));

#endif
