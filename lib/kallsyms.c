/* kallsyms.c - the kernel's symbols from /proc/kallsyms, and the per-boot
 * cache of the core kernel's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/cachedir.h"
#include "tachy/demangle.h"
#include "tachy/kallsyms.h"
#include "tachy/kmod.h"
#include "tachy/outfile.h"
#include "tachy/safefile.h"

struct kc_ent {
	uint64_t addr;
	uint32_t name; /* offset in the arena */
	uint32_t zero;
};

struct ty_kallsyms {
	struct ty_symtab table;
	int tried;
	char *kallsyms_path;
	char *cache_dir;    /* per-boot core kernel symbol cache; NULL: none */
	char *boot_id_path; /* NULL: the kernel's */
	void *kcache_map;   /* the cache file, mapped; cached names point into it */
	size_t kcache_len;
	const struct kc_ent *kc_ent; /* its entries, sorted by address */
	size_t kc_n;
	const char *kc_arena;
	uint64_t core_lo, core_hi; /* the cached table covers [core_lo, core_hi] */
	int partial;		   /* the cache names the core kernel's addresses */
	int beyond;		   /* ...and the table what lies outside them */
	unsigned kallsyms_reads;
	struct ty_kmod *kmod; /* module symbols (kmod.c), from the full read */
	struct ty_symtab_warnings *warn;
};

struct ty_kallsyms *
ty_kallsyms_new(struct ty_symtab_warnings *w)
{
	struct ty_kallsyms *k = calloc(1, sizeof(*k));

	if (k)
		k->warn = w;
	return k;
}

void
ty_kallsyms_free(struct ty_kallsyms *k)
{
	if (!k)
		return;
	ty_symtab_release(&k->table);
	free(k->kallsyms_path);
	free(k->cache_dir);
	free(k->boot_id_path);
	ty_kmod_free(k->kmod);
	if (k->kcache_map)
		munmap(k->kcache_map, k->kcache_len);
	free(k);
}

void
ty_kallsyms_set_path(struct ty_kallsyms *k, const char *path)
{
	free(k->kallsyms_path);
	k->kallsyms_path = strdup(path);
}

void
ty_kallsyms_set_cache_dir(struct ty_kallsyms *k, const char *dir)
{
	free(k->cache_dir);
	k->cache_dir = dir && *dir ? strdup(dir) : NULL;
}

void
ty_kallsyms_set_boot_id(struct ty_kallsyms *k, const char *path)
{
	free(k->boot_id_path);
	k->boot_id_path = path ? strdup(path) : NULL;
}

/* Copy NAME (demangled: C++, Rust) into a growing arena; returns the
 * arena offset, or (size_t)-1 when out of memory. */
static size_t
arena_add(char **arena, size_t *len, size_t *cap, const char *name)
{
	char *dm = ty_demangle(name);
	const char *src = dm ? dm : name;
	size_t n = strlen(src) + 1, off = *len;

	if (ty_array_grow(arena, 1, *len + n, cap) < 0) {
		free(dm);
		return (size_t)-1;
	}
	memcpy(*arena + off, src, n);
	*len += n;
	free(dm);
	return off;
}

/* Parse one kallsyms line "ADDR TYPE NAME [module]" at P; returns the next
 * line, or NULL at the end. *NAME is NUL-terminated in place; *CORE says
 * the line names no module (it is the core kernel's). */
static char *
kallsyms_line(char *p, char *end, unsigned long long *addr, char *type, char **name, int *core)
{
	char *nl = memchr(p, '\n', (size_t)(end - p)), *q;
	unsigned long long v = 0;
	int c;

	if (!nl)
		nl = end;
	*name = NULL;
	for (q = p; q < nl && (c = *q) != ' '; q++) {
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			goto next;
		v = v << 4 | (unsigned)d;
	}
	if (nl - q < 4 || q[2] != ' ')
		goto next;
	*addr = v;
	*type = q[1];
	*name = q + 3;
	for (q += 3; q < nl && *q != ' ' && *q != '\t'; q++)
		;
	*core = q == nl;
	*q = '\0';
next:
	return nl < end ? nl + 1 : NULL;
}

/* How internal a kernel name looks, for the choice among names at one
 * address (by_addr): its leading underscores, and more for the "__pi_"
 * copies of the position-independent startup code
 * (__pi___x86_indirect_thunk_r12 beside __x86_indirect_thunk_r12). */
static unsigned char
kernel_under(const char *name)
{
	unsigned n = 0;

	if (strncmp(name, "__pi_", 5) == 0)
		return 9;
	while (name[n] == '_' && n < 8)
		n++;
	return (unsigned char)n;
}

/* The per-boot cache of the core kernel's symbols: one file, DIR/kallsyms,
 * in the machine's byte order:
 *   struct kc_head, then nsyms struct kc_ent sorted by strictly increasing
 *   address (no duplicates), then arena_len bytes of NUL-terminated names
 *   (the last byte a NUL) that the entries point into. */
#define KC_MAGIC "TYKSYMS\n"
#define KC_VERSION 2 /* 2: aliases chosen by kernel_under */
#define KC_IDLEN 48
#define KC_MAXSIZE (256u << 20)
/* what is read of a kallsyms file at most (this kernel's: ~15 MiB) */
#define KALLSYMS_MAX ((size_t)256 << 20)

struct kc_head {
	char magic[8];
	uint32_t version;
	uint32_t entry_size;
	char boot_id[KC_IDLEN]; /* NUL-padded */
	uint64_t nsyms, arena_len;
	uint64_t text_lo, text_hi; /* first and last address */
};

_Static_assert(sizeof(struct kc_head) == 96, "cache header layout");
_Static_assert(sizeof(struct kc_ent) == 16, "cache entry layout");

static int
kcache_enabled(const struct ty_kallsyms *k)
{
	return k->cache_dir && (!k->kallsyms_path || k->boot_id_path);
}

/* This boot's id, NUL-padded into ID; -1 when it cannot be read. */
static int
boot_id(const struct ty_kallsyms *k, char id[KC_IDLEN])
{
	const char *path = k->boot_id_path ? k->boot_id_path : "/proc/sys/kernel/random/boot_id";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t i;

	if (fd < 0)
		return -1;
	memset(id, 0, KC_IDLEN);
	n = read(fd, id, KC_IDLEN);
	close(fd);
	if (n <= 0 || n == KC_IDLEN)
		return -1;
	if (id[n - 1] == '\n')
		id[--n] = '\0';
	for (i = 0; i < (size_t)n; i++)
		if (!strchr("0123456789abcdefABCDEF-", id[i]) || !id[i])
			return -1;
	return n > 0 ? 0 : -1;
}

/* Write LEN bytes of BUF to DIR/kallsyms: a temporary file, then a rename. */
static void
kcache_put(const char *dir, const char *buf, size_t len)
{
	int dfd = ty_cachedir_open(dir, 1);

	if (dfd >= 0) {
		ty_cachedir_put(dfd, "kallsyms", buf, len);
		close(dfd);
	}
}

/* Write the sorted, duplicate-free core table SYMS[N] for boot ID. */
static void
kcache_write(struct ty_kallsyms *k, const char *id, const struct ty_sym *syms, size_t n)
{
	struct kc_head h = {.version = KC_VERSION, .entry_size = sizeof(struct kc_ent)};
	struct kc_ent *ent;
	size_t alen = 0, off = 0, i;
	char *buf, *arena;

	for (i = 0; i < n; i++)
		alen += strlen(syms[i].name) + 1;
	if (alen > UINT32_MAX || sizeof(h) + n * sizeof(*ent) + alen > KC_MAXSIZE)
		return;
	if (!(buf = calloc(1, sizeof(h) + n * sizeof(*ent) + alen)))
		return;
	memcpy(h.magic, KC_MAGIC, sizeof(h.magic));
	memcpy(h.boot_id, id, KC_IDLEN);
	h.nsyms = n;
	h.arena_len = alen;
	h.text_lo = syms[0].addr;
	h.text_hi = syms[n - 1].addr;
	memcpy(buf, &h, sizeof(h));
	ent = (struct kc_ent *)(void *)(buf + sizeof(h));
	arena = buf + sizeof(h) + n * sizeof(*ent);
	for (i = 0; i < n; i++) {
		size_t len = strlen(syms[i].name) + 1;
		ent[i].addr = syms[i].addr;
		ent[i].name = (uint32_t)off;
		memcpy(arena + off, syms[i].name, len);
		off += len;
	}
	kcache_put(k->cache_dir, buf, sizeof(h) + n * sizeof(*ent) + alen);
	free(buf);
}

/* The address range [*LO, *HI] of the core symbols of the kallsyms table
 * ALL[N] (CORE[i]: line i names no module); -1 when there is nothing to
 * cache: no core symbol, one at zero, or a module's among them (the cached
 * table alone must name every address of its range as the full one does). */
static int
core_range(const struct ty_sym *all, const unsigned char *core, size_t n, uint64_t *lo,
	   uint64_t *hi)
{
	size_t i;

	*lo = UINT64_MAX;
	*hi = 0;
	for (i = 0; i < n; i++)
		if (core[i]) {
			*lo = all[i].addr < *lo ? all[i].addr : *lo;
			*hi = all[i].addr > *hi ? all[i].addr : *hi;
		}
	if (*lo == 0 || *lo > *hi)
		return -1;
	for (i = 0; i < n; i++)
		if (!core[i] && all[i].addr >= *lo && all[i].addr <= *hi)
			return -1;
	return 0;
}

/* Cache the part [LO, HI] of the finished (sorted, duplicate-free) full
 * table D: the core kernel's symbols, as the full table names them. */
static void
kcache_save(struct ty_kallsyms *k, const struct ty_symtab *d, uint64_t lo, uint64_t hi)
{
	char id[KC_IDLEN];
	size_t i = 0, j;

	if (boot_id(k, id) < 0)
		return;
	while (i < d->n && d->syms[i].addr < lo)
		i++;
	for (j = i; j < d->n && d->syms[j].addr <= hi; j++)
		;
	if (j > i)
		kcache_write(k, id, d->syms + i, j - i);
}

/* Check the cache file BUF[LEN] and make it the kernel table. */
static int
kcache_parse(struct ty_kallsyms *k, const char *buf, size_t len, const char *id)
{
	const struct kc_ent *ent =
	    (const struct kc_ent *)(const void *)(buf + sizeof(struct kc_head));
	struct kc_head h;
	const char *arena;
	size_t room = len - sizeof(h), n, i;

	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, KC_MAGIC, sizeof(h.magic)) != 0 || h.version != KC_VERSION ||
	    h.entry_size != sizeof(*ent) || memcmp(h.boot_id, id, KC_IDLEN) != 0)
		return -1;
	if (h.nsyms == 0 || h.nsyms > room / sizeof(*ent) ||
	    h.arena_len != room - h.nsyms * sizeof(*ent) || h.arena_len == 0)
		return -1;
	n = h.nsyms;
	arena = buf + sizeof(h) + n * sizeof(*ent);
	if (arena[h.arena_len - 1] != '\0' || h.text_lo == 0 || ent[0].addr != h.text_lo ||
	    ent[n - 1].addr != h.text_hi)
		return -1;
	for (i = 0; i < n; i++)
		if (ent[i].name >= h.arena_len || (i > 0 && ent[i].addr <= ent[i - 1].addr))
			return -1;
	k->kc_ent = ent;
	k->kc_n = n;
	k->kc_arena = arena;
	k->core_lo = h.text_lo;
	k->core_hi = h.text_hi;
	k->partial = 1;
	return 0;
}

/* Load this boot's cached core table; -1 when there is none we can trust.
 * The file is mapped, not read: only our own user can change it, and
 * tachy replaces it by rename, never in place. */
static int
kcache_load(struct ty_kallsyms *k)
{
	char id[KC_IDLEN];
	size_t size;
	void *map;
	int fd, dfd;

	if (!kcache_enabled(k) || boot_id(k, id) < 0 ||
	    (dfd = ty_cachedir_open(k->cache_dir, 0)) < 0)
		return -1;
	fd = ty_cachedir_openat(dfd, "kallsyms", &size);
	close(dfd);
	if (fd < 0)
		return -1;
	if (size < sizeof(struct kc_head) || size > KC_MAXSIZE) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	if (kcache_parse(k, map, size, id) < 0) {
		munmap(map, size);
		return -1;
	}
	/* Checking it read every page (its CRC): let them go; a look-up
	 * brings back the few it reads, from the page cache. */
	madvise(map, size, MADV_DONTNEED);
	k->kcache_map = map;
	k->kcache_len = size;
	return 0;
}

/* The cached name of IP, in [core_lo, core_hi]: as find_sym on the full
 * table (a symbol spans up to the next one). */
static const char *
kcache_find(const struct ty_kallsyms *k, uint64_t ip)
{
	const struct kc_ent *e = k->kc_ent;
	size_t lo = 0, hi = k->kc_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	if (lo < k->kc_n || ip - e[lo - 1].addr < 4096)
		return k->kc_arena + e[lo - 1].name;
	return NULL;
}

/* What load_kallsyms keeps while it reads. */
struct kload {
	unsigned char *core; /* line i names no module */
	size_t cap, ccap, alen, acap;
	int nonzero;
};

/* The kallsyms lines BUF[LEN] (whole lines) into K's table. Beside the
 * cached core table (K->partial), only what lies outside it is kept: the
 * modules' symbols, and the core's first and last as their bounds (no
 * other core symbol can be the one before an address outside [core_lo,
 * core_hi], so those names are as a full table gives them). -1 when out
 * of memory. */
static int
load_lines(struct ty_kallsyms *k, struct kload *l, char *buf, size_t len)
{
	struct ty_symtab *d = &k->table;
	char *p, *name, type;
	unsigned long long addr;
	int iscore = 0;
	size_t off;

	for (p = buf; p && p < buf + len;) {
		p = kallsyms_line(p, buf + len, &addr, &type, &name, &iscore);
		if (!name || (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		if (addr)
			l->nonzero = 1;
		if (k->partial && iscore && addr != k->core_lo && addr != k->core_hi)
			continue;
		if (ty_array_grow(&d->syms, sizeof(*d->syms), d->n + 1, &l->cap) < 0 ||
		    ty_array_grow(&l->core, 1, d->n + 1, &l->ccap) < 0)
			return -1;
		if ((off = arena_add(&d->names, &l->alen, &l->acap, name)) == (size_t)-1)
			return -1;
		d->syms[d->n] = (struct ty_sym){.addr = addr,
						.name = (const char *)(uintptr_t)off,
						.seq = (uint32_t)d->n,
						.under = kernel_under(name)};
		l->core[d->n] = (unsigned char)iscore;
		d->n++;
	}
	return 0;
}

#define KALLSYMS_CHUNK 65536 /* read at once; a line is at most ~600 bytes */

/* Read kallsyms into K's table (all of it, or beside the cache what lies
 * outside it) and its module table, a chunk at a time. */
static void
load_kallsyms(struct ty_kallsyms *k)
{
	const char *path = k->kallsyms_path ? k->kallsyms_path : "/proc/kallsyms";
	struct ty_symtab *d = &k->table;
	char why[TY_SAFEFILE_WHY];
	int fd = ty_safefile_open(path, NULL, NULL, why);
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "r");
	char *buf = NULL, *nl;
	struct kload l = {0};
	size_t have = 0, total = 0, n, upto, i;
	int cache, eof = 0, feed = !k->kmod;
	uint64_t lo = 0, hi = 0;

	if (!fp) {
		if (fd >= 0) {
			snprintf(why, sizeof(why), "%s", strerror(errno));
			close(fd);
		}
		ty_symtab_warn(k->warn, "cannot read %s: %s; kernel addresses shown raw", path,
			       why);
		return;
	}
	k->kallsyms_reads++;
	if (!(buf = malloc(KALLSYMS_CHUNK)) || (feed && ty_kmod_begin(&k->kmod) < 0))
		goto out;
	while (!eof) { /* /proc files have no size: read in chunks, up to a bound */
		if (total >= KALLSYMS_MAX) {
			ty_symtab_warn(k->warn, "%s is over %zu MiB: read only that much", path,
				       (size_t)KALLSYMS_MAX >> 20);
			break;
		}
		n = fread(buf + have, 1, KALLSYMS_CHUNK - have, fp);
		eof = n == 0;
		have += n;
		total += n;
		nl = memrchr(buf, '\n', have);
		upto = eof ? have : nl ? (size_t)(nl - buf) + 1 : have; /* no line: junk */
		/* the module table first: load_lines cuts the lines */
		if ((feed && ty_kmod_feed(k->kmod, buf, upto) < 0) ||
		    load_lines(k, &l, buf, upto) < 0)
			break;
		memmove(buf, buf + upto, have - upto);
		have -= upto;
	}
out:
	fclose(fp);
	free(buf);
	if (feed && k->kmod)
		ty_kmod_end(k->kmod);
	for (i = 0; i < d->n; i++)
		d->syms[i].name = d->names + (uintptr_t)d->syms[i].name;
	if (!l.nonzero) {
		d->n = 0;
		free(l.core);
		ty_symtab_warn(k->warn,
			       "%s shows no addresses (kptr_restrict?): kernel addresses shown raw",
			       path);
		return;
	}
	/* Not when the cache was read: it is good. */
	cache =
	    !k->kcache_map && kcache_enabled(k) && core_range(d->syms, l.core, d->n, &lo, &hi) == 0;
	free(l.core);
	ty_symtab_finish(d);
	if (cache)
		kcache_save(k, d, lo, hi);
}

/* Make the kernel table cover IP: the cached core table when it does,
 * else the whole of kallsyms (read once). */
static void
kernel_table(struct ty_kallsyms *k, uint64_t ip)
{
	if (!k->tried) {
		k->tried = 1;
		if (kcache_load(k) < 0)
			load_kallsyms(k);
	}
	if (k->partial && !k->beyond && (ip < k->core_lo || ip > k->core_hi)) {
		k->beyond = 1; /* the cache still names the core */
		load_kallsyms(k);
	}
}

const char *
ty_kallsyms_name(struct ty_kallsyms *k, uint64_t ip, const char **module)
{
	const struct ty_sym *sym;
	const char *name, *mod;

	*module = NULL;
	kernel_table(k, ip);
	if (k->partial && ip >= k->core_lo && ip <= k->core_hi)
		return kcache_find(k, ip);
	/* from the module table load_kallsyms made, then its table (beside
	 * the cache: what lies outside the core) */
	if ((name = ty_kmod_lookup(k->kmod, ip, &mod))) {
		*module = mod;
		return name;
	}
	sym = ty_symtab_find(&k->table, ip);
	return sym ? sym->name : NULL;
}

unsigned
ty_kallsyms_reads(const struct ty_kallsyms *k)
{
	return k->kallsyms_reads;
}
