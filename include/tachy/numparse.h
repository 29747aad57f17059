/* numparse.h - fast exact decimal parsing and number-file reading.
 *
 * Every value is bit-identical to what strtod(3) gives for the same text:
 * ordinary decimals take an exact fast path (Clinger's: at most 2^53 in
 * the significand and a power of ten up to 22), everything else goes to
 * strtod. Values that are not finite (nan, inf, overflow) are rejected. */
#ifndef TACHY_NUMPARSE_H
#define TACHY_NUMPARSE_H

#include <stddef.h>

#include "tachy/error.h"

/* Parse S[0..LEN) as one number, as strtod would (leading white space
 * allowed, nothing after the number). Returns 0 and stores it in *OUT;
 * -EINVAL when the text is not a number; -ERANGE when it is not finite. */
int ty_numparse(const char *s, size_t len, double *out);

/* How to find the number on a line, as ministat does: strip trailing white
 * space, split at any byte of DELIM, take field COLUMN (1-based). Lines
 * with fewer fields, and lines where a field up to COLUMN starts with '#',
 * are skipped. */
struct ty_numfile {
	int column;	   /* 1 by default */
	const char *delim; /* " \t" by default (NULL or "" mean the default) */
};

/* A growing array of numbers, in input order. */
struct ty_numbers {
	double *v;
	size_t n, cap;
};

void ty_numbers_init(struct ty_numbers *nums);
void ty_numbers_release(struct ty_numbers *nums);

/* Read the numbers of the file PATH ("-" is standard input), lines of up
 * to 16 MiB, appending them to NUMS. NAME is the file's name in messages.
 * Returns 0; -EINVAL with "Invalid data on line N in NAME" when a field is
 * not a finite number, or with "Line N in NAME is longer than 16 MiB" (a
 * file that is not numbers: /dev/zero, a binary); a negative errno with "Cannot open NAME: why" or
 * "Cannot read NAME: why"; -ENOMEM. OPT may be NULL for the defaults. */
int ty_numfile_read(const char *path, const char *name, const struct ty_numfile *opt,
		    struct ty_numbers *nums, struct ty_error *err);

/* The same, from the open file descriptor FD (not closed here). */
int ty_numfile_read_fd(int fd, const char *name, const struct ty_numfile *opt,
		       struct ty_numbers *nums, struct ty_error *err);

/* Read the N open files FDS[i] (not closed here; NAMES[i] in messages)
 * into NUMS[i] on up to THREADS threads (the caller's among them), each as
 * ty_numfile_read_fd would: RCS[i] and ERRS[i] are its return and message.
 * A regular file of 1 MiB or more is mapped and, when there are fewer
 * files than threads, split at line ends; its numbers keep their order,
 * its lines may be 16 MiB long as read does. DONE(i, ARG), when not NULL,
 * is called on one of the threads as soon as file I is read without error
 * (calls for different files may run at once). Returns 0, or -ENOMEM
 * before reading anything. */
int ty_numfile_read_many(const int *fds, const char *const *names, size_t n,
			 const struct ty_numfile *opt, unsigned threads,
			 void (*done)(size_t i, void *arg), void *arg, struct ty_numbers *nums,
			 int *rcs, struct ty_error *errs);

/* The same, from the bytes BUF[0..LEN) instead of a file (BUF is not
 * changed; lines may be of any length; the last may lack its newline). */
int ty_numfile_parse(const char *buf, size_t len, const char *name, const struct ty_numfile *opt,
		     struct ty_numbers *nums, struct ty_error *err);

#endif
