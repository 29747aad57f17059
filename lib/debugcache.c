/* debugcache.c - debug files kept with their DWARF decompressed, by
 * build-id (see debugcache.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

#include "tachy/array.h"
#include "tachy/cachedir.h"
#include "tachy/debugcache.h"
#include "tachy/elfview.h"

static size_t cache_max = TY_DEBUGCACHE_MAX;

void
ty_debugcache_set_max(size_t max)
{
	cache_max = max ? max : TY_DEBUGCACHE_MAX;
}

#ifdef HAVE_LIBELF

/* The size of ELF's compressed sections once inflated, in *OUT; 0 when
 * none is compressed. -1 when a compression header cannot be read. */
static int
inflated_size(Elf *elf, size_t *out)
{
	Elf_Scn *scn = NULL;
	size_t n = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		if (!gelf_getchdr(scn, &ch) || ch.ch_size > cache_max)
			return -1;
		n += ch.ch_size;
	}
	*out = n;
	return 0;
}

/* The cached file NAME in DFD as an Elf with BUILD_ID and no compressed
 * section, else NULL. */
static Elf *
open_cached(int dfd, const char *name, const char *build_id, int *fd)
{
	char id[129];
	size_t size, len = 0, z = 1;
	const char *img;
	Elf *e;

	if ((*fd = ty_cachedir_openat(dfd, name, &size)) < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && (img = elf_rawfile(e, &len)) &&
	    ty_elfview_build_id_hex(img, len, id) && strcmp(id, build_id) == 0 &&
	    inflated_size(e, &z) == 0 && z == 0)
		return e;
	if (e)
		elf_end(e);
	close(*fd);
	*fd = -1;
	return NULL;
}

/* Rewrite the copy FD of a file with its compressed sections inflated. */
static int
inflate_in_place(int fd)
{
	Elf *e = elf_begin(fd, ELF_C_RDWR, NULL);
	Elf_Scn *scn = NULL;
	int ok = e && elf_kind(e) == ELF_K_ELF;

	while (ok && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			ok = 0;
		else if ((sh.sh_flags & SHF_COMPRESSED) && sh.sh_type != SHT_NOBITS)
			ok = elf_compress(scn, 0, 0) >= 0;
	}
	if (ok && elf_update(e, ELF_C_WRITE) < 0)
		ok = 0;
	if (e)
		elf_end(e);
	return ok ? 0 : -1;
}

struct entry {
	char name[160];
	time_t mtime;
	size_t size;
};

static int
older(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* Make room for NEED bytes: remove the oldest ".debug" files of DFD until
 * the rest and NEED fit in the cache's maximum. */
static void
make_room(int dfd, size_t need)
{
	int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = lfd >= 0 ? fdopendir(lfd) : NULL;
	struct entry *es = NULL;
	size_t n = 0, cap = 0, total = need, i;
	struct dirent *de;

	if (!dir) {
		if (lfd >= 0)
			close(lfd);
		return;
	}
	while ((de = readdir(dir))) {
		struct stat st;
		size_t len = strlen(de->d_name);
		if (len < 7 || len >= sizeof(es->name) || strcmp(de->d_name + len - 6, ".debug") ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) || ty_array_grow(&es, sizeof(*es), n + 1, &cap) < 0)
			continue;
		memcpy(es[n].name, de->d_name, len + 1);
		es[n].mtime = st.st_mtime;
		es[n].size = (size_t)st.st_size;
		total += es[n++].size;
	}
	closedir(dir);
	if (n)
		qsort(es, n, sizeof(*es), older);
	for (i = 0; i < n && total > cache_max; i++)
		if (unlinkat(dfd, es[i].name, 0) == 0)
			total -= es[i].size;
	free(es);
}

/* Write SRC, inflated, as DFD's NAME. */
static void
put(int dfd, const char *name, Elf *src, size_t need)
{
	size_t len = 0;
	const char *img = elf_rawfile(src, &len);
	char *tmp = NULL;
	int rw, ok;

	if (!img || len + need > cache_max)
		return;
	make_room(dfd, len + need);
	if (ty_cachedir_tmp(dfd, name, img, len, &tmp) < 0)
		return;
	ok = (rw = openat(dfd, tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) >= 0 &&
	     inflate_in_place(rw) == 0;
	if (rw >= 0 && close(rw) != 0)
		ok = 0;
	ty_cachedir_commit(dfd, tmp, name, ok);
	free(tmp);
}

void *
ty_debugcache_get(const char *dir, const char *build_id, void *elf, int *fd)
{
	char path[4200], name[160];
	size_t need = 0;
	Elf *e = NULL;
	int dfd;

	*fd = -1;
	if (!dir || !*dir || !build_id || !*build_id || strlen(build_id) > 128 ||
	    inflated_size(elf, &need) != 0 || need == 0 ||
	    (size_t)snprintf(path, sizeof(path), "%s/debug", dir) >= sizeof(path))
		return NULL;
	snprintf(name, sizeof(name), "%s.debug", build_id);
	if ((dfd = ty_cachedir_open(path, 1)) < 0)
		return NULL;
	if (!(e = open_cached(dfd, name, build_id, fd))) {
		put(dfd, name, elf, need);
		e = open_cached(dfd, name, build_id, fd);
	}
	close(dfd);
	return e;
}

#else

void *
ty_debugcache_get(const char *dir, const char *build_id, void *elf, int *fd)
{
	(void)dir, (void)build_id, (void)elf;
	*fd = -1;
	return NULL;
}

#endif
