/* profile-file.h - the profile's self-contained file format.
 *
 * Version 3, little-endian: the magic "TACHYPRF", u32 version, u32 check,
 * then sections {u32 tag, u32 check, u64 length, payload} ending with an
 * END section; each check is a CRC-32 (profile-file.c says of what). See
 * profile-file.c for each payload. Versions 1 and 2 (checks 0) are read
 * too, unchecked. Readers reject a bad magic, another version, a bad check,
 * truncation, and any index out of range. */
#ifndef TACHY_PROFILE_FILE_H
#define TACHY_PROFILE_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "tachy/error.h"
#include "tachy/profile.h"

#define TY_PROFILE_MAGIC "TACHYPRF"
#define TY_PROFILE_VERSION 3	 /* 3: a CRC-32 per section */
#define TY_PROFILE_VERSION_MIN 1 /* the oldest version read */

/* Write P to PATH ("-" for stdout) atomically. Returns 0 or a negative
 * errno with E filled. */
int ty_profile_write(const struct ty_profile *p, const char *path, struct ty_error *e);

/* Write P to OUT (an open ty_outfile's stream, say; PATH names it in
 * errors); write errors are the caller's to check. Returns 0 or -ENOMEM
 * with E filled. */
int ty_profile_write_fp(const struct ty_profile *p, FILE *out, const char *path,
			struct ty_error *e);

/* Read PATH into a new profile. Returns 0 and *OUT, -EINVAL with E filled
 * for a file that is not a valid tachy profile (bad magic, other version,
 * truncated, an index out of range), or another negative errno. */
int ty_profile_read(const char *path, struct ty_profile **out, struct ty_error *e);
/* The same from memory (BUF is not kept). */
int ty_profile_parse(const void *buf, size_t len, struct ty_profile **out, struct ty_error *e);

#endif
