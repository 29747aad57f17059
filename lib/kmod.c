/* kmod.c - kernel module symbols from kallsyms, with the module as DSO. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tachy/array.h"
#include "tachy/kmod.h"
#include "tachy/safefile.h"

#define LAST_SPAN 4096		    /* a module's last symbol covers this much at most */
#define CORE UINT32_MAX		    /* the module index of a core kernel symbol */
#define KMOD_MAX ((size_t)64 << 20) /* what is read of /proc/modules at most */

struct ksym {
	uint64_t addr;
	uint32_t name, mod; /* NAME: offset in the arena; MOD: module index */
};

struct ty_kmod {
	struct ksym *syms; /* the core's too (mod CORE): where a module's end */
	size_t n, cap, nmodsyms;
	char *arena;
	size_t alen, acap;
	uint32_t *mods; /* arena offsets of "[name]" */
	size_t nmods, mcap;
};

static long
arena_add(struct ty_kmod *k, const char *s, size_t n)
{
	size_t off = k->alen;

	if (ty_array_grow(&k->arena, 1, k->alen + n + 1, &k->acap) < 0)
		return -1;
	memcpy(k->arena + off, s, n);
	k->arena[off + n] = '\0';
	k->alen += n + 1;
	return (long)off;
}

/* The index of module [NAME] (N bytes), added when new; -1 when out of
 * memory. Lines of one module come together, so the last one is tried
 * first. */
static long
module(struct ty_kmod *k, const char *name, size_t n)
{
	size_t i;
	long off;

	for (i = k->nmods; i-- > 0;)
		if (strlen(k->arena + k->mods[i]) == n + 2 &&
		    memcmp(k->arena + k->mods[i] + 1, name, n) == 0)
			return (long)i;
	if (ty_array_grow(&k->mods, sizeof(*k->mods), k->nmods + 1, &k->mcap) < 0 ||
	    (off = arena_add(k, "[", 1)) < 0)
		return -1;
	k->alen--; /* append the name and "]" to "[" */
	if (arena_add(k, name, n) < 0)
		return -1;
	k->alen--;
	if (arena_add(k, "]", 1) < 0)
		return -1;
	k->mods[k->nmods] = (uint32_t)off;
	return (long)k->nmods++;
}

/* One line "ADDR TYPE NAME\t[MODULE]" (LEN bytes, no newline): 1 kept, 0
 * skipped, -1 out of memory. */
static int
line(struct ty_kmod *k, const char *s, size_t len)
{
	const char *end = s + len, *p = s, *name, *mod, *mend;
	uint64_t v = 0;
	int digits = 0;
	long m, off;

	for (; p < end && *p != ' '; p++, digits++) {
		int c = *p, d = c >= '0' && c <= '9'   ? c - '0'
				: c >= 'a' && c <= 'f' ? c - 'a' + 10
				: c >= 'A' && c <= 'F' ? c - 'A' + 10
						       : -1;
		if (d < 0 || digits == 16)
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits || end - p < 4 || p[2] != ' ' || !strchr("tTwW", p[1]) || !p[1])
		return 0;
	name = p + 3;
	for (p = name; p < end && *p != '\t' && *p != ' '; p++)
		;
	if (p == name)
		return 0;
	if (p == end) { /* the core kernel's: kept as a bound, unnamed */
		if (v == 0 || ty_array_grow(&k->syms, sizeof(*k->syms), k->n + 1, &k->cap) < 0)
			return v == 0 ? 0 : -1;
		k->syms[k->n++] = (struct ksym){v, 0, CORE};
		return 1;
	}
	mod = p;
	while (mod < end && (*mod == '\t' || *mod == ' '))
		mod++;
	if (end - mod < 3 || *mod != '[')
		return 0;
	mend = memchr(mod, ']', (size_t)(end - mod));
	if (!mend || mend == mod + 1 || memchr(name, '\0', (size_t)(p - name)) ||
	    memchr(mod, '\0', (size_t)(mend - mod)))
		return 0; /* no module, or a NUL byte: not a kallsyms line */
	if (v == 0)
		return 0; /* kptr_restrict: no addresses */
	if ((m = module(k, mod + 1, (size_t)(mend - mod - 1))) < 0 ||
	    (off = arena_add(k, name, (size_t)(p - name))) < 0 ||
	    ty_array_grow(&k->syms, sizeof(*k->syms), k->n + 1, &k->cap) < 0)
		return -1;
	k->syms[k->n++] = (struct ksym){v, (uint32_t)off, (uint32_t)m};
	return 1;
}

static int
sym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name; /* the first line wins */
}

/* Is every symbol of the address group at I (to *END) the core's? */
static int
all_core(const struct ty_kmod *k, size_t i, size_t *end)
{
	int core = 1;

	for (*end = i; *end < k->n && k->syms[*end].addr == k->syms[i].addr; ++*end)
		core &= k->syms[*end].mod == CORE;
	return core;
}

/* The core's bounds only matter where a module's symbols end: of a run of
 * addresses that hold the core's symbols only, the first is kept (a
 * look-up there or after it, up to the next module symbol, finds the core
 * and says none, as before). A kernel's 100,000 core lines become a few. */
static void
squeeze(struct ty_kmod *k)
{
	size_t i = 0, end, n = 0;
	int prev_core = 0, core;
	struct ksym *v;

	while (i < k->n) {
		core = all_core(k, i, &end);
		if (!(core && prev_core)) {
			memmove(k->syms + n, k->syms + i, (end - i) * sizeof(*k->syms));
			n += end - i;
		}
		prev_core = core;
		i = end;
	}
	k->n = n;
	/* shrunk to fit (realloc, not grown) */
	if (n < k->cap && (v = realloc(k->syms, (n ? n : 1) * sizeof(*v)))) {
		k->syms = v;
		k->cap = n ? n : 1;
	}
}

int
ty_kmod_begin(struct ty_kmod **out)
{
	return (*out = calloc(1, sizeof(**out))) ? 0 : -ENOMEM;
}

int
ty_kmod_feed(struct ty_kmod *k, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;
		if (line(k, buf + off, n) < 0)
			return -ENOMEM;
		off += n + 1;
	}
	return 0;
}

void
ty_kmod_end(struct ty_kmod *k)
{
	size_t i;

	if (k->n > 1)
		qsort(k->syms, k->n, sizeof(*k->syms), sym_cmp);
	for (i = 0; i < k->n; i++)
		k->nmodsyms += k->syms[i].mod != CORE;
	squeeze(k);
}

int
ty_kmod_parse(struct ty_kmod **out, const char *buf, size_t len)
{
	if (ty_kmod_begin(out) < 0)
		return -ENOMEM;
	if (ty_kmod_feed(*out, buf, len) < 0) {
		ty_kmod_free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	ty_kmod_end(*out);
	return 0;
}

int
ty_kmod_read(struct ty_kmod **out, const char *path, struct ty_error *e)
{
	char why[TY_SAFEFILE_WHY];
	int fd = ty_safefile_open(path, NULL, NULL, why);
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int ret;

	*out = NULL;
	if (!fp) {
		ret = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		return ty_error_set(e, ret, "cannot read %s: %s", path,
				    fd < 0 ? why : strerror(-ret));
	}
	do { /* /proc files have no size: read in chunks, up to a bound */
		if (len >= KMOD_MAX) {
			fclose(fp);
			free(buf);
			return ty_error_set(e, -EFBIG, "%s is over %zu MiB", path,
					    (size_t)KMOD_MAX >> 20);
		}
		if (ty_array_grow(&buf, 1, len + 65536, &cap) < 0) {
			fclose(fp);
			free(buf);
			return ty_error_set(e, -ENOMEM, "out of memory");
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n > 0);
	fclose(fp);
	ret = ty_kmod_parse(out, buf, len);
	free(buf);
	return ret < 0 ? ty_error_set(e, ret, "out of memory") : 0;
}

const char *
ty_kmod_lookup(const struct ty_kmod *k, uint64_t ip, const char **module)
{
	size_t lo = 0, hi = k ? k->n : 0;
	const struct ksym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &k->syms[lo - 1];
	while (s > k->syms && s[-1].addr == s->addr) /* of names at one address, the first */
		s--;
	if (s->mod == CORE)
		return NULL;
	/* the last symbol of its module (the next is another's, or none):
	 * a bounded span, not the gap up to the next module */
	if ((lo == k->n || k->syms[lo].mod != s->mod) && ip - k->syms[lo - 1].addr >= LAST_SPAN)
		return NULL;
	if (module)
		*module = k->arena + k->mods[s->mod];
	return k->arena + s->name;
}

size_t
ty_kmod_nsyms(const struct ty_kmod *k)
{
	return k ? k->nmodsyms : 0;
}

size_t
ty_kmod_nmodules(const struct ty_kmod *k)
{
	return k ? k->nmods : 0;
}

void
ty_kmod_free(struct ty_kmod *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->arena);
	free(k->mods);
	free(k);
}
