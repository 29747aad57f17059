/* t-debugcache.c - debug files kept decompressed by build-id: the inline
 * frames and lines of a program built with compressed DWARF (cc -gz) are
 * the same without the cache, with it cold and with it warm, at every
 * address of a function; the cached file is ours, 0600 and uncompressed; a
 * damaged file or a link in its place is replaced, never followed; a cache
 * directory that is not ours is not used; the oldest files go when the
 * cache is full. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tachy/debugcache.h"
#include "tachy/dso.h"
#include "tachy/symbols.h"

#if defined(HAVE_LIBELF) && defined(HAVE_LIBDW)

#define BASE 0x400000ull

static char dir[] = "/tmp/t-debugcache.XXXXXX";

/* Build prog N (cc -O2 -g -gz=zlib, not PIE: mapped at BASE, its link
 * addresses are its run-time ones), its work function's start and size
 * in *START, *SIZE and its build-id in ID. 0, or -1 when cc cannot. */
static int
build(int n, uint64_t *start, uint64_t *size, char id[129])
{
	char cmd[2048], path[256];
	unsigned long long a = 0, z = 0;
	FILE *f;
	int ok;

	snprintf(cmd, sizeof(cmd),
		 "cd %s && printf '%%s\\n' 'static inline __attribute__((always_inline)) int "
		 "sq(int x) { return x * x + %d; }' '__attribute__((noinline)) int work(int x) "
		 "{ int s = 0; for (int i = 0; i < x; i++) s += sq(i) ^ s; return s; }' "
		 "'int main(int c, char **v) { (void)v; return work(c); }' >p%d.c && "
		 "cc -O2 -g -gz=zlib -no-pie -fno-PIE -o p%d p%d.c 2>/dev/null && "
		 "nm -S p%d | awk '$4 == \"work\" { print $1, $2 }' >a%d && "
		 "readelf -n p%d | awk '/Build ID/ { print $3 }' >id%d && "
		 "readelf -S -W p%d | grep -q ' \\.debug_info .* C '",
		 dir, n, n, n, n, n, n, n, n, n);
	if (system(cmd) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/a%d", dir, n);
	if (!(f = fopen(path, "r")))
		return -1;
	ok = fscanf(f, "%llx %llx", &a, &z) == 2;
	fclose(f);
	snprintf(path, sizeof(path), "%s/id%d", dir, n);
	if (!(f = fopen(path, "r")))
		return -1;
	ok = ok && fscanf(f, "%128s", id) == 1;
	fclose(f);
	*start = a;
	*size = z;
	return ok && z > 0 ? 0 : -1;
}

/* Every address of work in prog N resolved by S, as text: each frame's
 * name, file, line and whether inlined; how many were inlined in *NINL. */
static char *
frames_of(struct ty_symbols *s, int n, uint64_t start, uint64_t size, size_t *ninl)
{
	char path[256], *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	uint64_t ip;

	snprintf(path, sizeof(path), "%s/p%d", dir, n);
	ty_symbols_add_mmap(s, 1, BASE, 0x100000, 0, path, 0);
	*ninl = 0;
	for (ip = start; ip < start + size; ip++) {
		struct ty_sym_result r;
		struct ty_dso_frame f[8];
		size_t k, nf;
		ty_symbols_resolve(s, 1, ip, 0, 0, &r);
		nf = r.name ? ty_symbols_frames(s, &r, f, 8) : 0;
		fprintf(m, "%llx %s:", (unsigned long long)ip, r.name ? r.name : "?");
		for (k = 0; k < nf; k++) {
			fprintf(m, " %s@%s:%u%s", f[k].name, f[k].file ? f[k].file : "?", f[k].line,
				f[k].inlined ? "i" : "");
			*ninl += f[k].inlined;
		}
		fputc('\n', m);
	}
	fclose(m);
	return out;
}

static char *
resolve(const char *cache, int n, uint64_t start, uint64_t size, size_t *ninl)
{
	struct ty_symbols *s = ty_symbols_new();
	char *t;

	if (!s)
		return NULL;
	ty_symbols_set_cache_dir(s, cache);
	t = frames_of(s, n, start, size, ninl);
	ty_symbols_free(s);
	return t;
}

static void
test_cache(void)
{
	char cache[128], file[512], file2[512], id[129], id2[129], cmd[1024];
	uint64_t start, size, start2, size2;
	char *plain, *cold, *warm, *t;
	size_t ninl = 0, k;
	struct stat st;
	FILE *f;

	if (build(1, &start, &size, id) != 0) {
		printf("t-debugcache: cc cannot build with -gz=zlib here: test skipped\n");
		return;
	}
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(file, sizeof(file), "%s/debug/%s.debug", cache, id);
	plain = resolve(NULL, 1, start, size, &ninl);
	CHECK(plain && strstr(plain, " work@p1.c:"));
	CHECK(ninl > 0); /* sq inlined into work, with lines */
	CHECK(stat(file, &st) != 0);
	cold = resolve(cache, 1, start, size, &k);
	CHECK(cold && plain && strcmp(cold, plain) == 0);
	/* written: ours, 0600, no compressed section left */
	if (CHECK(stat(file, &st) == 0)) {
		CHECK_INT(st.st_mode & 0777, 0600);
		CHECK(st.st_uid == geteuid());
	}
	snprintf(cmd, sizeof(cmd), "readelf -S -W %s | grep -q ' \\.debug_info .* C '", file);
	CHECK(system(cmd) != 0);
	warm = resolve(cache, 1, start, size, &k);
	CHECK(warm && plain && strcmp(warm, plain) == 0);

	/* a damaged file in its place: not read, written again */
	if ((f = fopen(file, "w"))) {
		fputs("not an ELF file\n", f);
		fclose(f);
	}
	t = resolve(cache, 1, start, size, &k);
	CHECK(t && plain && strcmp(t, plain) == 0);
	free(t);
	CHECK(stat(file, &st) == 0 && st.st_size > 100);
	/* writable by others: not read */
	CHECK(chmod(file, 0666) == 0);
	t = resolve(cache, 1, start, size, &k);
	CHECK(t && plain && strcmp(t, plain) == 0);
	free(t);
	CHECK(stat(file, &st) == 0 && (st.st_mode & 0777) == 0600); /* replaced */
	/* a symbolic link in its place: replaced, its target untouched */
	snprintf(file2, sizeof(file2), "%s/target", dir);
	if ((f = fopen(file2, "w"))) {
		fputs("target\n", f);
		fclose(f);
	}
	CHECK(unlink(file) == 0 && symlink(file2, file) == 0);
	t = resolve(cache, 1, start, size, &k);
	CHECK(t && plain && strcmp(t, plain) == 0);
	free(t);
	CHECK(lstat(file, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(stat(file2, &st) == 0 && st.st_size == 7);

	/* full: a second program's file pushes the first one out */
	if (CHECK(build(2, &start2, &size2, id2) == 0) && CHECK(stat(file, &st) == 0)) {
		ty_debugcache_set_max((size_t)st.st_size * 3 / 2);
		t = resolve(cache, 2, start2, size2, &k);
		CHECK(t && strstr(t, " work@p2.c:"));
		free(t);
		snprintf(file2, sizeof(file2), "%s/debug/%s.debug", cache, id2);
		CHECK(stat(file2, &st) == 0);
		CHECK(stat(file, &st) != 0 && errno == ENOENT);
		/* one over the maximum by itself: not cached, still named */
		ty_debugcache_set_max(100);
		t = resolve(cache, 1, start, size, &k);
		CHECK(t && plain && strcmp(t, plain) == 0);
		free(t);
		CHECK(stat(file, &st) != 0);
		ty_debugcache_set_max(0);
	}

	/* a cache directory that is not ours: not used */
	if (geteuid() == 0) {
		snprintf(cmd, sizeof(cmd),
			 "rm -rf %s/debug && mkdir -p %s/debug && chown 65534 %s/debug", cache,
			 cache, cache);
		if (CHECK(system(cmd) == 0)) {
			t = resolve(cache, 1, start, size, &k);
			CHECK(t && plain && strcmp(t, plain) == 0);
			free(t);
			CHECK(stat(file, &st) != 0);
		}
	}
	free(plain);
	free(cold);
	free(warm);
}

int
main(void)
{
	char cmd[256];

	if (system("cc --version >/dev/null 2>&1 && readelf --version >/dev/null 2>&1") != 0) {
		printf("t-debugcache: no cc or readelf here: test skipped\n");
		return check_done();
	}
	if (!CHECK(mkdtemp(dir) != NULL))
		return check_done();
	test_cache();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return check_done();
}

#else

int
main(void)
{
	printf("t-debugcache: built without libelf and libdw: nothing cached, test skipped\n");
	return check_done();
}

#endif
