/* t-kcache.c - the per-boot cache of the core kernel's symbols: a miss
 * writes it, a hit reads no kallsyms, an address outside the core reads
 * kallsyms for what lies outside it, and damaged, foreign or stale files are ignored and rewritten,
 * never a wrong name. Fixture kallsyms and boot-id files; the live
 * /proc/kallsyms too when it shows addresses. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tachy/cachedir.h"
#include "tachy/symbols.h"

#define CORE_SYMS                                                                                  \
	"ffffffff81000000 T _stext\n"                                                              \
	"ffffffff81000100 t do_thing\n"                                                            \
	"ffffffff81000100 t do_thing_alias\n"                                                      \
	"ffffffff81000200 D some_data\n"                                                           \
	"ffffffff81000300 T other\n"                                                               \
	"ffffffff81000400 W weak_one\n"                                                            \
	"ffffffff81000500 T _etext\n"

static const char fixture[] = CORE_SYMS "ffffffffc0001000 t mod_func\t[mod]\n"
					"ffffffffc0002000 t bpf_prog_1\t[bpf]\n";

/* Addresses whose names the tests compare with and without the cache. */
static const uint64_t probes[] = {
    0xffffffff80ffffffull, 0xffffffff81000000ull, 0xffffffff81000001ull, 0xffffffff810000ffull,
    0xffffffff81000100ull, 0xffffffff81000150ull, 0xffffffff81000200ull, 0xffffffff81000250ull,
    0xffffffff81000300ull, 0xffffffff810003ffull, 0xffffffff81000400ull, 0xffffffff81000480ull,
    0xffffffff81000500ull,
};

static char top[] = "/tmp/t-kcache-XXXXXX";
static char ksyms[64], bootf[64], cdir[64], cfile[128];

static void
put(const char *path, const char *text, size_t len)
{
	FILE *fp = fopen(path, "w");

	CHECK(fp != NULL);
	if (!fp)
		return;
	CHECK(fwrite(text, 1, len, fp) == len);
	fclose(fp);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *buf = malloc(1 << 16);

	*len = 0;
	if (fp && buf)
		*len = fread(buf, 1, 1 << 16, fp);
	if (fp)
		fclose(fp);
	return buf;
}

static struct ty_symbols *
new_syms(const char *kallsyms)
{
	struct ty_symbols *s = ty_symbols_new();

	ty_symbols_set_kallsyms(s, kallsyms);
	ty_symbols_set_boot_id(s, bootf);
	ty_symbols_set_cache_dir(s, cdir);
	return s;
}

static const char *
name_at(struct ty_symbols *s, uint64_t ip)
{
	struct ty_sym_result r;

	ty_symbols_resolve(s, 1, ip, 0, 1, &r);
	return r.name;
}

static int
same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void
reset(void)
{
	unlink(cfile);
	put(ksyms, fixture, strlen(fixture));
	put(bootf, "1234abcd-0000-4000-8000-000000000001\n", 37);
}

static void
test_miss_then_hit(void)
{
	struct ty_symbols *s;
	struct stat st;

	reset();
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing");
	CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
	ty_symbols_free(s);
	CHECK_INT(stat(cfile, &st), 0); /* the miss wrote it */
	CHECK_INT(st.st_mode & 0777, 0600);
	CHECK_INT(stat(cdir, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0700);
	/* The hit reads no kallsyms: even a missing one. */
	s = new_syms("/nonexistent/kallsyms");
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing");
	CHECK_STR(name_at(s, 0xffffffff81000420ull), "weak_one");
	CHECK_INT(ty_symbols_kallsyms_reads(s), 0);
	CHECK_INT((int)ty_symbols_nwarnings(s), 0);
	ty_symbols_free(s);
}

/* The cached names are those of a full read, and an address outside the
 * core (a module, past the last symbol) reads the whole of kallsyms. */
static void
test_same_names(void)
{
	struct ty_symbols *full = ty_symbols_new(), *s;
	const char *kept;
	size_t i;

	reset();
	ty_symbols_set_kallsyms(full, ksyms);
	ty_symbols_free(new_syms(ksyms)); /* nothing resolved: nothing written */
	CHECK(access(cfile, F_OK) != 0);
	s = new_syms(ksyms);
	(void)name_at(s, 0xffffffff81000000ull);
	ty_symbols_free(s);
	s = new_syms(ksyms);
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const char *a = name_at(full, probes[i]), *b = name_at(s, probes[i]);
		if (!same(a, b))
			printf("# at %llx: %s without the cache, %s with it\n",
			       (unsigned long long)probes[i], a ? a : "NULL", b ? b : "NULL");
		CHECK(same(a, b));
	}
	CHECK_INT(ty_symbols_kallsyms_reads(s), 1); /* the probe below the core read it */
	ty_symbols_free(s);
	s = new_syms(ksyms);
	kept = name_at(s, 0xffffffff81000150ull);
	CHECK_STR(kept, "do_thing"); /* the first of the aliases, as a full read */
	CHECK_INT(ty_symbols_kallsyms_reads(s), 0);
	CHECK_STR(name_at(s, 0xffffffffc0001010ull), "mod_func");
	CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
	CHECK_STR(kept, "do_thing"); /* earlier results stay valid */
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing");
	CHECK_STR(name_at(s, 0xffffffffc0002000ull), "bpf_prog_1");
	CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
	ty_symbols_free(s);
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000510ull), "_etext"); /* past the last: full read */
	CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
	ty_symbols_free(s);
	ty_symbols_free(full);
}

/* Write BAD as the cache file, then check that it is ignored (the name
 * comes from kallsyms, which is read) and rewritten as GOOD. */
static void
check_ignored(const char *what, const char *bad, size_t len, const char *good, size_t glen)
{
	struct ty_symbols *s;
	size_t n;
	char *now;
	struct stat st;
	int ok;

	unlink(cfile);
	put(cfile, bad, len);
	chmod(cfile, 0600);
	s = new_syms(ksyms);
	ok = same(name_at(s, 0xffffffff81000350ull), "other") && ty_symbols_kallsyms_reads(s) == 1;
	ty_symbols_free(s);
	now = slurp(cfile, &n);
	ok = ok && n == glen && memcmp(now, good, n) == 0 && stat(cfile, &st) == 0 &&
	     (st.st_mode & 0777) == 0600;
	if (!ok)
		printf("# cache file %s: not ignored or not rewritten\n", what);
	CHECK(ok);
	free(now);
}

static void
poke64(char *buf, size_t off, uint64_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

static void
poke32(char *buf, size_t off, uint32_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

static void
test_damaged(void)
{
	struct ty_symbols *s;
	size_t glen, plen, len, ents, arena;
	char *good, *bad, what[64];
	uint64_t n, alen;

	reset();
	s = new_syms(ksyms);
	(void)name_at(s, 0xffffffff81000000ull);
	ty_symbols_free(s);
	good = slurp(cfile, &glen);
	bad = malloc(glen + 16);
	CHECK(glen > 96 + TY_CACHEDIR_TRAILER);
	plen = glen - TY_CACHEDIR_TRAILER; /* the table, then the trailer */
	memcpy(&n, good + 64, 8);
	memcpy(&alen, good + 72, 8);
	CHECK_INT((int)n, 5); /* _stext do_thing other weak_one _etext */
	ents = 96;
	arena = ents + 16 * n;
	CHECK(arena + alen == plen);
	for (len = 0; len < glen; len++) {
		snprintf(what, sizeof(what), "truncated to %zu bytes", len);
		check_ignored(what, good, len, good, glen);
	}
	memcpy(bad, good, glen);
	memset(bad + glen, 0, 16);
	check_ignored("with 16 more bytes", bad, glen + 16, good, glen);
	memcpy(bad, good, glen);
	bad[arena + 1] ^=
	    1; /* a name changed: the trailer's CRC-32 catches it, the table's checks would not */
	check_ignored("a bit flipped", bad, glen, good, glen);
	/* each damage below comes with a trailer that matches: the table's own checks */
#define MUTATE(what, stmt)                                                                         \
	do {                                                                                       \
		memcpy(bad, good, glen);                                                           \
		stmt;                                                                              \
		ty_cachedir_trailer(bad, plen, (unsigned char *)bad + plen);                       \
		check_ignored(what, bad, glen, good, glen);                                        \
	} while (0)
	MUTATE("bad magic", bad[0] ^= 1);
	MUTATE("other version", poke32(bad, 8, 1)); /* the format before kernel_under */
	MUTATE("a later version", poke32(bad, 8, 3));
	MUTATE("other entry size", poke32(bad, 12, 24));
	MUTATE("other boot id", bad[16] = '9');
	MUTATE("more symbols", poke64(bad, 64, n + 1));
	MUTATE("fewer symbols", poke64(bad, 64, n - 1));
	MUTATE("no symbols", poke64(bad, 64, 0));
	MUTATE("huge count", poke64(bad, 64, UINT64_MAX / 8));
	MUTATE("longer arena", poke64(bad, 72, alen + 1));
	MUTATE("shorter arena", poke64(bad, 72, alen - 1));
	MUTATE("text start", poke64(bad, 80, 0xffffffff81000001ull));
	MUTATE("text end", poke64(bad, 88, 0xffffffffc0002000ull));
	MUTATE("name past the arena", poke32(bad, ents + 16 + 8, (uint32_t)alen));
	MUTATE("name far past the arena", poke32(bad, ents + 16 + 8, UINT32_MAX));
	MUTATE("unterminated arena", bad[plen - 1] = 'x');
	MUTATE("unsorted", poke64(bad, ents + 16, 0xffffffff81000350ull));
	MUTATE("duplicate address", poke64(bad, ents + 16, 0xffffffff81000000ull));
	MUTATE("address zero", (poke64(bad, ents, 0), poke64(bad, 80, 0)));
#undef MUTATE
	/* Writable by others, a symlink, another owner: not ours to trust. */
	unlink(cfile);
	put(cfile, good, glen);
	chmod(cfile, 0620);
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000350ull), "other");
	CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
	ty_symbols_free(s);
	unlink(cfile);
	put(bootf, "1234abcd-0000-4000-8000-000000000001\n", 37);
	{
		char target[300];
		snprintf(target, sizeof(target), "%s.target", cfile);
		put(target, good, glen);
		chmod(target, 0600);
		CHECK_INT(symlink(target, cfile), 0);
		s = new_syms(ksyms);
		CHECK_STR(name_at(s, 0xffffffff81000350ull), "other");
		CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
		ty_symbols_free(s);
		unlink(target);
	}
	if (geteuid() == 0) {
		unlink(cfile);
		put(cfile, good, glen);
		chmod(cfile, 0600);
		CHECK_INT(chown(cfile, 1, 1), 0);
		s = new_syms(ksyms);
		CHECK_STR(name_at(s, 0xffffffff81000350ull), "other");
		CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
		ty_symbols_free(s);
	} else {
		printf("# skip: another owner's cache file needs root\n");
	}
	/* A FIFO: not opened for a blocking read (no writer would come). */
	unlink(cfile);
	CHECK_INT(mkfifo(cfile, 0600), 0);
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000350ull), "other");
	CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
	ty_symbols_free(s);
	s = new_syms("/nonexistent/kallsyms"); /* each was rewritten */
	CHECK_STR(name_at(s, 0xffffffff81000350ull), "other");
	ty_symbols_free(s);
	free(good);
	free(bad);
}

/* A new boot: the old cache is ignored, and replaced. */
static void
test_new_boot(void)
{
	static const char renamed[] = "ffffffff81000000 T _stext\n"
				      "ffffffff81000100 t do_thing_v2\n"
				      "ffffffff81000500 T _etext\n";
	struct ty_symbols *s;

	reset();
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing");
	ty_symbols_free(s);
	put(bootf, "1234abcd-0000-4000-8000-000000000002\n", 37);
	put(ksyms, renamed, strlen(renamed));
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing_v2");
	CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
	ty_symbols_free(s);
	s = new_syms("/nonexistent/kallsyms");
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing_v2");
	ty_symbols_free(s);
	/* No boot id, or a strange one: no cache at all. */
	unlink(cfile);
	put(bootf, "not a boot id!\n", 15);
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing_v2");
	ty_symbols_free(s);
	CHECK(access(cfile, F_OK) != 0);
	unlink(bootf);
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing_v2");
	ty_symbols_free(s);
	CHECK(access(cfile, F_OK) != 0);
}

/* No cache when it could not stand for a full read, or is turned off. */
static void
test_not_written(void)
{
	static const char zeros[] = "0000000000000000 T _stext\n0000000000000000 T foo\n";
	static const char inside[] = "ffffffff81000000 T _stext\n"
				     "ffffffff81000100 t modular\t[mod]\n"
				     "ffffffff81000500 T _etext\n";
	struct ty_symbols *s;

	reset();
	put(ksyms, zeros, strlen(zeros)); /* kptr_restrict: as without a cache */
	s = new_syms(ksyms);
	CHECK(name_at(s, 0xffffffff81000150ull) == NULL);
	CHECK_INT((int)ty_symbols_nwarnings(s), 1);
	ty_symbols_free(s);
	CHECK(access(cfile, F_OK) != 0);
	put(ksyms, inside, strlen(inside)); /* a module among the core symbols */
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "modular");
	ty_symbols_free(s);
	CHECK(access(cfile, F_OK) != 0);
	reset();
	s = new_syms(ksyms);
	ty_symbols_set_cache_dir(s, ""); /* off */
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing");
	ty_symbols_free(s);
	CHECK(access(cfile, F_OK) != 0);
	s = ty_symbols_new(); /* a fixture kallsyms with the machine's boot id: off */
	ty_symbols_set_kallsyms(s, ksyms);
	ty_symbols_set_cache_dir(s, cdir);
	CHECK_STR(name_at(s, 0xffffffff81000150ull), "do_thing");
	ty_symbols_free(s);
	CHECK(access(cfile, F_OK) != 0);
}

/* A cache directory reached through nobody's link in a sticky directory
 * is neither written nor read; our own link there is followed. */
static void
test_planted_dir(void)
{
	char shared[128], link[192], target[128], file[192];
	struct ty_symbols *s;

	if (geteuid() != 0) {
		printf("# skip: a link owned by nobody needs root\n");
		return;
	}
	reset();
	snprintf(shared, sizeof(shared), "%s/shared", top);
	snprintf(target, sizeof(target), "%s/target", top);
	snprintf(link, sizeof(link), "%s/cache", shared);
	snprintf(file, sizeof(file), "%s/kallsyms", target);
	CHECK_INT(mkdir(shared, 01777), 0);
	CHECK_INT(chmod(shared, 01777), 0);
	CHECK_INT(mkdir(target, 0700), 0);
	CHECK_INT(symlink(target, link), 0);
	CHECK_INT(lchown(link, 65534, 65534), 0);
	s = ty_symbols_new();
	ty_symbols_set_kallsyms(s, ksyms);
	ty_symbols_set_boot_id(s, bootf);
	ty_symbols_set_cache_dir(s, link);
	CHECK_STR(name_at(s, 0xffffffff81000350ull), "other");
	ty_symbols_free(s);
	CHECK(access(file, F_OK) != 0);
	CHECK_INT(lchown(link, 0, 0), 0);
	s = ty_symbols_new();
	ty_symbols_set_kallsyms(s, ksyms);
	ty_symbols_set_boot_id(s, bootf);
	ty_symbols_set_cache_dir(s, link);
	CHECK_STR(name_at(s, 0xffffffff81000350ull), "other");
	ty_symbols_free(s);
	CHECK(access(file, F_OK) == 0);
	unlink(file);
	unlink(link);
	rmdir(target);
	rmdir(shared);
}

/* The live kernel: every core symbol named alike with and without it. */
static void
test_live(void)
{
	struct ty_symbols *full = ty_symbols_new(), *s;
	char dir[300], line[512], name[256], mod[256], type;
	unsigned long long addr;
	size_t n = 0, cap = 0, bad = 0, i;
	uint64_t *addrs = NULL;
	FILE *fp = fopen("/proc/kallsyms", "r");
	const char *a;

	snprintf(dir, sizeof(dir), "%s/live", top);
	a = name_at(full, 0xffffffff81000000ull);
	(void)a;
	if (!fp || ty_symbols_kallsyms_reads(full) != 1 || ty_symbols_nwarnings(full) != 0) {
		printf("# skip: /proc/kallsyms shows no addresses here\n");
		if (fp)
			fclose(fp);
		ty_symbols_free(full);
		return;
	}
	s = ty_symbols_new();
	ty_symbols_set_cache_dir(s, dir);
	(void)name_at(s, 0xffffffff81000000ull); /* writes it */
	ty_symbols_free(s);
	s = ty_symbols_new();
	ty_symbols_set_cache_dir(s, dir);
	while (fgets(line, sizeof(line), fp)) {
		int k = sscanf(line, "%llx %c %255s %255s", &addr, &type, name, mod);
		uint64_t *na;
		if (k != 3 || !strchr("tTwW", type))
			continue;
		if (n == cap && (na = realloc(addrs, (cap = cap ? 2 * cap : 4096) * sizeof(*na))))
			addrs = na;
		if (n < cap && addrs)
			addrs[n++] = addr;
	}
	fclose(fp);
	CHECK(n > 1000);
	for (i = 0; i < n; i++) /* every core symbol from the cache alone */
		bad += !same(name_at(full, addrs[i]), name_at(s, addrs[i]));
	CHECK_INT((int)bad, 0);
	if (ty_symbols_kallsyms_reads(s) != 0)
		printf("# note: the live cache was not used (a module inside the core range?)\n");
	for (i = 0; i < n; i++) /* and past each (past the last reads the whole) */
		bad += !same(name_at(full, addrs[i] + 1), name_at(s, addrs[i] + 1));
	CHECK_INT((int)bad, 0);
	free(addrs);
	ty_symbols_free(s);
	ty_symbols_free(full);
	snprintf(line, sizeof(line), "%s/kallsyms", dir);
	unlink(line);
	rmdir(dir);
}

/* A kallsyms of many chunks (lines across the reads' boundaries), with
 * modules below and above the core: beside the cache, an address outside
 * the core reads only what lies outside it, and every name is the full
 * table's; the core's names still come from the cache. */
static void
test_large(void)
{
	enum { NCORE = 6000, NMOD = 300 };
	size_t cap = (size_t)(NCORE + 2 * NMOD) * 64, len = 0, i, j, bad = 0;
	char *text = malloc(cap);
	uint64_t *at = malloc((NCORE + 2 * NMOD) * sizeof(*at)), deltas[] = {0, 1, 0x7f, 0xfff};
	struct ty_symbols *full, *s;
	size_t nat = 0;

	CHECK(text && at);
	if (!text || !at)
		goto out;
	for (i = 0; i < NMOD; i++) { /* below the core */
		at[nat] = 0xffffffff80000000ull + i * 0x40;
		len += (size_t)snprintf(text + len, cap - len, "%016llx t low_%zu\t[lowmod]\n",
					(unsigned long long)at[nat++], i);
	}
	for (i = 0; i < NCORE; i++) {
		at[nat] = 0xffffffff81000000ull + i * 0x30;
		len +=
		    (size_t)snprintf(text + len, cap - len, "%016llx %c core_function_number_%zu\n",
				     (unsigned long long)at[nat++], i % 3 ? 't' : 'T', i);
	}
	for (i = 0; i < NMOD; i++) { /* above, in two modules, a gap between */
		at[nat] = 0xffffffffc0000000ull + i * 0x50 + (i >= NMOD / 2 ? 0x100000 : 0);
		len += (size_t)snprintf(text + len, cap - len, "%016llx t mod_%zu\t[%s]\n",
					(unsigned long long)at[nat++], i,
					i < NMOD / 2 ? "first" : "second");
	}
	CHECK(len > 3 * 65536);
	reset();
	put(ksyms, text, len);
	full = ty_symbols_new();
	ty_symbols_set_kallsyms(full, ksyms);
	s = new_syms(ksyms);
	(void)name_at(s, 0xffffffff81000000ull); /* writes the cache */
	ty_symbols_free(s);
	s = new_syms(ksyms);
	CHECK_STR(name_at(s, 0xffffffff81000000ull + 17 * 0x30 + 5), "core_function_number_17");
	CHECK_INT(ty_symbols_kallsyms_reads(s), 0);
	for (i = 0; i < nat; i++)
		for (j = 0; j < sizeof(deltas) / sizeof(*deltas); j++) {
			uint64_t ip = at[i] + deltas[j];
			const char *a = name_at(full, ip), *b = name_at(s, ip);
			if (!same(a, b) && bad++ < 5)
				printf("# at %llx: %s without the cache, %s with it\n",
				       (unsigned long long)ip, a ? a : "NULL", b ? b : "NULL");
		}
	CHECK_INT((int)bad, 0);
	CHECK_INT(ty_symbols_kallsyms_reads(s), 1);
	CHECK_STR(name_at(full, 0xffffffffc0000000ull + 0x50 + 1), "mod_1");
	CHECK_STR(name_at(s, 0xffffffffc0000000ull + 0x50 + 1), "mod_1");
	CHECK_STR(name_at(s, 0xffffffff81000000ull + (NCORE - 1) * 0x30),
		  "core_function_number_5999");
	ty_symbols_free(s);
	ty_symbols_free(full);
out:
	free(text);
	free(at);
}

int
main(void)
{
	char sub[300];

	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", top);
	snprintf(bootf, sizeof(bootf), "%s/boot_id", top);
	snprintf(cdir, sizeof(cdir), "%s/c/d", top);
	snprintf(cfile, sizeof(cfile), "%s/kallsyms", cdir);
	test_miss_then_hit();
	test_same_names();
	test_damaged();
	test_new_boot();
	test_not_written();
	test_planted_dir();
	test_large();
	test_live();
	unlink(cfile);
	unlink(ksyms);
	unlink(bootf);
	rmdir(cdir);
	snprintf(sub, sizeof(sub), "%s/c", top);
	rmdir(sub);
	rmdir(top);
	return check_done();
}
