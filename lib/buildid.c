/* buildid.c - the file of a build-id: perf's build-id cache, debuginfod
 * (buildid.h). */
#include "tachy/buildid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#include "tachy/dynlib.h"
#include "tachy/elfview.h"
#include "tachy/safefile.h"

struct ty_buildid_finder {
	char *dir;
	int debuginfod, tried;
	void *client; /* a debuginfod_client */
};

#ifdef HAVE_DEBUGINFOD
/* libdebuginfod, loaded when first asked (dynlib.h: as dso.c does). */
static struct {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_find_executable) *find_executable;
	__typeof__(debuginfod_end) *end;
} dfd;
#endif

struct ty_buildid_finder *
ty_buildid_finder_new(const char *dir, int debuginfod)
{
	struct ty_buildid_finder *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (dir && *dir && !(f->dir = strdup(dir))) {
		free(f);
		return NULL;
	}
	f->debuginfod = debuginfod;
	return f;
}

void
ty_buildid_finder_free(struct ty_buildid_finder *f)
{
	if (!f)
		return;
#ifdef HAVE_DEBUGINFOD
	if (f->client)
		dfd.end(f->client);
#endif
	free(f->dir);
	free(f);
}

int
ty_buildid_check(const char *path, const char *hex, char got[129], uint64_t *dev, uint64_t *ino,
		 char *why, size_t whylen)
{
	char w[TY_SAFEFILE_WHY];
	struct stat st;
	size_t len = 0;
	void *img;
	int fd = ty_safefile_open(path, NULL, &st, w);

	got[0] = '\0';
	if (fd < 0) {
		snprintf(why, whylen, "%s", w);
		return -1;
	}
	if (st.st_size < 64 ||
	    (img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		snprintf(why, whylen, "is not an ELF file");
		close(fd);
		return -1;
	}
	len = (size_t)st.st_size;
	close(fd);
	ty_elfview_build_id_hex(img, len, got);
	munmap(img, len);
	*dev = st.st_dev;
	*ino = st.st_ino;
	return strcmp(got, hex) == 0;
}

/* Is the candidate PATH the file of HEX? Its identity in *DEV, *INO;
 * a candidate that exists but is refused is said in WHY. */
static int
candidate(const char *path, const char *hex, uint64_t *dev, uint64_t *ino, char *why, size_t whylen)
{
	char got[129], w[TY_SAFEFILE_WHY];
	struct stat st;
	int r;

	if (lstat(path, &st) < 0)
		return 0; /* not there: no reason to give */
	r = ty_buildid_check(path, hex, got, dev, ino, w, sizeof(w));
	if (!*why && r < 0) /* the first refusal is said */
		snprintf(why, whylen, "%s %s: ignored", path, w);
	else if (!*why && r == 0)
		snprintf(why, whylen, "%s has build-id %s, not %s: ignored", path,
			 *got ? got : "(none)", hex);
	return r > 0;
}

/* In perf's build-id cache: the layouts of perf 4.6 and later (a folder
 * per build-id holding "elf", else "debug") and before (the file). */
static int
from_cache(const struct ty_buildid_finder *f, const char *hex, const char *path, char *out,
	   size_t outlen, uint64_t *dev, uint64_t *ino, char *why, size_t whylen)
{
	static const char *const leaf[] = {"/elf", "", "/debug"};
	size_t i, byid;

	if (!f->dir || strlen(hex) < 3 || path[0] != '/')
		return 0;
	for (i = 0; i < 6; i++) {
		struct stat st;
		int n;
		byid = i % 2 == 0;
		n = byid ? snprintf(out, outlen, "%s/.build-id/%.2s/%s%s", f->dir, hex, hex + 2,
				    leaf[i / 2])
			 : snprintf(out, outlen, "%s%s/%s%s", f->dir, path, hex, leaf[i / 2]);
		if (n < 0 || (size_t)n >= outlen)
			continue;
		/* the old layout's name is the new one's folder */
		if (i / 2 == 1 && stat(out, &st) == 0 && S_ISDIR(st.st_mode))
			continue;
		if (candidate(out, hex, dev, ino, why, whylen))
			return 1;
	}
	return 0;
}

#ifdef HAVE_DEBUGINFOD
static int
from_debuginfod(struct ty_buildid_finder *f, const char *hex, char *out, size_t outlen,
		uint64_t *dev, uint64_t *ino, char *why, size_t whylen)
{
	static const struct ty_dynlib_sym syms[] = {
	    {"debuginfod_begin", (void **)&dfd.begin},
	    {"debuginfod_find_executable", (void **)&dfd.find_executable},
	    {"debuginfod_end", (void **)&dfd.end}};
	struct ty_error e = {0};
	char *got = NULL;
	int fd;

	if (!f->tried) {
		f->tried = 1;
		if (ty_dynlib_load("libdebuginfod.so.1", "libdebuginfod1", syms, 3, &e) < 0)
			snprintf(why, whylen, "DEBUGINFOD_URLS is set, but %s", e.msg);
		else
			f->client = dfd.begin();
	}
	if (!f->client)
		return 0;
	fd = dfd.find_executable(f->client, (const unsigned char *)hex, 0, &got);
	if (fd < 0) {
		snprintf(why, whylen, "debuginfod has no file of build-id %s: %s", hex,
			 strerror(-fd));
		return 0;
	}
	close(fd);
	snprintf(out, outlen, "%s", got ? got : "");
	free(got);
	return *out && candidate(out, hex, dev, ino, why, whylen);
}
#endif

enum ty_buildid_from
ty_buildid_find(struct ty_buildid_finder *f, const char *hex, const char *path, char *out,
		size_t outlen, uint64_t *dev, uint64_t *ino, char *why, size_t whylen)
{
	why[0] = '\0';
	if (!*hex || strspn(hex, "0123456789abcdef") != strlen(hex))
		return TY_BUILDID_NONE;
	if (from_cache(f, hex, path, out, outlen, dev, ino, why, whylen))
		return TY_BUILDID_CACHE;
#ifdef HAVE_DEBUGINFOD
	if (f->debuginfod && from_debuginfod(f, hex, out, outlen, dev, ino, why, whylen))
		return TY_BUILDID_DEBUGINFOD;
#endif
	out[0] = '\0';
	return TY_BUILDID_NONE;
}
