/* safefile.c - files that other people control, judged before they are
 * read (see safefile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "tachy/safefile.h"

static size_t inflate_max = TY_SAFEFILE_INFLATE_MAX;
static void (*between_hook)(const char *path);

size_t
ty_safefile_inflate_max(void)
{
	return inflate_max;
}

void
ty_safefile_set_inflate_max(size_t max)
{
	inflate_max = max ? max : TY_SAFEFILE_INFLATE_MAX;
}

void
ty_safefile_set_between_hook(void (*hook)(const char *path))
{
	between_hook = hook;
}

static const char *
kind(mode_t m)
{
	return S_ISFIFO(m)   ? "is a FIFO"
	       : S_ISCHR(m)  ? "is a character device"
	       : S_ISBLK(m)  ? "is a block device"
	       : S_ISSOCK(m) ? "is a socket"
	       : S_ISDIR(m)  ? "is a directory"
			     : "is not a regular file";
}

int
ty_safefile_same(const struct stat *st, uint64_t dev, uint64_t ino)
{
	if (!ino)
		return 1;
	if ((uint64_t)st->st_ino != ino)
		return 0;
	/* overlayfs and btrfs report an anonymous device (major 0) to stat
	 * and another one in the mappings: their inode decides */
	return major(st->st_dev) == 0 || major((dev_t)dev) == 0 || (uint64_t)st->st_dev == dev;
}

int
ty_safefile_open(const char *path, const struct ty_safefile_want *want, struct stat *out,
		 char why[TY_SAFEFILE_WHY])
{
	struct stat before, st;
	int fd, err;

	why[0] = '\0';
	/* stat first: a device is never opened (some do things on open) */
	if ((want && want->nofollow ? lstat(path, &before) : stat(path, &before)) != 0) {
		err = errno;
		snprintf(why, TY_SAFEFILE_WHY, "%s", strerror(err));
		return -err;
	}
	if (!S_ISREG(before.st_mode)) {
		snprintf(why, TY_SAFEFILE_WHY, "%s",
			 S_ISLNK(before.st_mode) ? "is a symbolic link" : kind(before.st_mode));
		return -EINVAL;
	}
	if (between_hook)
		between_hook(path);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
				 (want && want->nofollow ? O_NOFOLLOW : 0))) < 0) {
		err = errno;
		snprintf(why, TY_SAFEFILE_WHY, "%s", strerror(err));
		return -err;
	}
	if (fstat(fd, &st) != 0) {
		err = errno;
		close(fd);
		snprintf(why, TY_SAFEFILE_WHY, "%s", strerror(err));
		return -err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, TY_SAFEFILE_WHY, "%s", kind(st.st_mode));
		return -EINVAL;
	}
	if (st.st_ino != before.st_ino || st.st_dev != before.st_dev) {
		close(fd);
		snprintf(why, TY_SAFEFILE_WHY, "changed while it was being opened");
		return -ESTALE;
	}
	if (want && !ty_safefile_same(&st, want->dev, want->ino)) {
		close(fd);
		snprintf(why, TY_SAFEFILE_WHY, "was replaced on disk since it was mapped");
		return -ESTALE;
	}
	if (want && want->max_size && (uint64_t)st.st_size > want->max_size) {
		close(fd);
		snprintf(why, TY_SAFEFILE_WHY, "is larger than %llu bytes (%llu)",
			 (unsigned long long)want->max_size, (unsigned long long)st.st_size);
		return -EFBIG;
	}
	/* reads block where the file allows it; O_NONBLOCK was for the open */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (out)
		*out = st;
	return fd;
}

void *
ty_safefile_map(const char *path, const struct ty_safefile_want *want, size_t min, size_t *len,
		char why[TY_SAFEFILE_WHY])
{
	struct stat st;
	void *img;
	int fd = ty_safefile_open(path, want, &st, why);

	if (fd < 0)
		return NULL;
	if ((size_t)st.st_size < min || st.st_size == 0) {
		close(fd);
		snprintf(why, TY_SAFEFILE_WHY, "is too short (%llu bytes)",
			 (unsigned long long)st.st_size);
		return NULL;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED) {
		snprintf(why, TY_SAFEFILE_WHY, "cannot be mapped: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return img;
}

int
ty_safefile_read(const char *path, const struct ty_safefile_want *want, char **buf, size_t *len,
		 char why[TY_SAFEFILE_WHY])
{
	struct stat st;
	size_t got = 0;
	ssize_t n = 0;
	int fd = ty_safefile_open(path, want, &st, why);
	char *b;

	if (fd < 0)
		return fd;
	if (!(b = malloc((size_t)st.st_size + 1))) {
		close(fd);
		snprintf(why, TY_SAFEFILE_WHY, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* at most the size fstat gave: a file growing while read stops there */
	while (got < (size_t)st.st_size &&
	       ((n = read(fd, b + got, (size_t)st.st_size - got)) > 0 || (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	if (n < 0) {
		int err = errno;
		snprintf(why, TY_SAFEFILE_WHY, "%s", strerror(err));
		close(fd);
		free(b);
		return -err;
	}
	close(fd);
	b[got] = '\0';
	*buf = b;
	*len = got;
	return 0;
}

int
ty_safefile_mapped(const char *path, uint32_t pid, uint64_t lo, uint64_t hi, uint64_t dev,
		   uint64_t ino, char *src, size_t srclen, int *fd, char why[TY_SAFEFILE_WHY])
{
	struct ty_safefile_want w = {dev, ino, 0, 0};
	struct stat st;
	char mf[96], mwhy[TY_SAFEFILE_WHY];
	size_t len;
	int deleted;

	*fd = -1;
	why[0] = '\0';
	snprintf(src, srclen, "%s", path);
	len = strlen(path);
	/* the kernel names a mapping whose file was deleted "PATH (deleted)" */
	deleted = len > 10 && strcmp(path + len - 10, " (deleted)") == 0;
	if (deleted && stat(path, &st) != 0)
		snprintf(why, TY_SAFEFILE_WHY, "%s", "was deleted or replaced since it was mapped");
	else if (!ino || stat(path, &st) != 0 ||
		 (S_ISREG(st.st_mode) && ty_safefile_same(&st, dev, ino)))
		return 0;
	else
		snprintf(why, TY_SAFEFILE_WHY, "%s",
			 S_ISREG(st.st_mode) ? "was replaced on disk since it was mapped"
					     : kind(st.st_mode));
	if (!pid)
		return -1;
	snprintf(mf, sizeof(mf), "/proc/%u/map_files/%llx-%llx", pid, (unsigned long long)lo,
		 (unsigned long long)hi);
	if ((*fd = ty_safefile_open(mf, &w, NULL, mwhy)) < 0) {
		*fd = -1;
		return -1;
	}
	snprintf(src, srclen, "/proc/self/fd/%d", *fd);
	return 1;
}

int
ty_safefile_inflate(const void *in, size_t inlen, void *out, size_t outlen)
{
#ifdef HAVE_ZLIB
	z_stream z;
	unsigned char extra;
	int r;

	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.next_out = out;
	/* zlib counts in uInt: a section of 4 GiB or more is over any bound */
	if (inlen > UINT32_MAX || outlen > UINT32_MAX) {
		inflateEnd(&z);
		return -EFBIG;
	}
	z.avail_in = (uInt)inlen;
	z.avail_out = (uInt)outlen;
	r = inflate(&z, Z_FINISH);
	if (r == Z_BUF_ERROR && z.avail_out == 0) {
		/* full: one byte more tells a longer stream from an exact one */
		z.next_out = &extra;
		z.avail_out = 1;
		r = inflate(&z, Z_FINISH);
		inflateEnd(&z);
		return r == Z_STREAM_END && z.avail_out == 1 ? 0
		       : z.avail_out == 0		     ? -EFBIG
							     : -EINVAL;
	}
	inflateEnd(&z);
	return r == Z_STREAM_END && z.avail_out == 0 ? 0 : -EINVAL;
#else
	(void)in, (void)inlen, (void)out, (void)outlen;
	return -ENOTSUP;
#endif
}

int
ty_safefile_section_needed(const char *name)
{
	static const char *const names[] = {
	    /* the unwinder and the names of stripped code */
	    ".eh_frame", ".eh_frame_hdr", ".debug_frame",
	    /* the symbol tables and MiniDebugInfo */
	    ".symtab", ".strtab", ".dynsym", ".dynstr", ".gnu_debugdata",
	    /* the DWARF of the line and inline lookups */
	    ".debug_info", ".debug_abbrev", ".debug_line", ".debug_line_str", ".debug_str",
	    ".debug_str_offsets", ".debug_ranges", ".debug_rnglists", ".debug_addr",
	    ".debug_aranges"};
	char buf[64];
	size_t i;

	if (strncmp(name, ".zdebug_", 8) == 0 && strlen(name) < sizeof(buf) - 1) {
		snprintf(buf, sizeof(buf), ".debug_%s", name + 8);
		name = buf;
	}
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}
