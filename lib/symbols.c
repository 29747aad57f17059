/* symbols.c - address -> symbol: the facade over the address spaces
 * (addrspace.c), the files (dso.c), their call-frame tables (cfi.c), the
 * kernel's symbols (kallsyms.c) and JIT perf maps (perfmap.c). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "tachy/addrspace.h"
#include "tachy/kallsyms.h"
#include "tachy/perfmap.h"
#include "tachy/symbols.h"

struct ty_symbols {
	struct ty_symtab_warnings warn;
	struct ty_cfi_cache *cfi;
	struct ty_dsos *dsos;
	struct ty_addrspace *as;
	struct ty_kallsyms *kernel;
	struct ty_perfmap *jit;
	const volatile sig_atomic_t *stop; /* set: files are no longer read */
	int stopped;
};

struct ty_symbols *
ty_symbols_new(void)
{
	struct ty_symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (!(s->cfi = ty_cfi_cache_new()) || !(s->dsos = ty_dsos_new(s->cfi, &s->warn)) ||
	    !(s->as = ty_addrspace_new()) || !(s->kernel = ty_kallsyms_new(&s->warn)) ||
	    !(s->jit = ty_perfmap_new(&s->warn))) {
		ty_symbols_free(s);
		return NULL;
	}
	return s;
}

void
ty_symbols_free(struct ty_symbols *s)
{
	if (!s)
		return;
	ty_perfmap_free(s->jit);
	ty_kallsyms_free(s->kernel);
	ty_addrspace_free(s->as);
	ty_dsos_free(s->dsos);
	ty_cfi_cache_free(s->cfi);
	ty_symtab_warnings_release(&s->warn);
	free(s);
}

struct ty_addrspace *
ty_symbols_addrspace(struct ty_symbols *s)
{
	return s->as;
}

struct ty_cfi_cache *
ty_symbols_cfi(struct ty_symbols *s)
{
	return s->cfi;
}

void
ty_symbols_set_kallsyms(struct ty_symbols *s, const char *path)
{
	ty_kallsyms_set_path(s->kernel, path);
}

void
ty_symbols_set_cache_dir(struct ty_symbols *s, const char *dir)
{
	ty_kallsyms_set_cache_dir(s->kernel, dir);
	ty_dsos_set_cache_dir(s->dsos, dir);
}

void
ty_symbols_set_boot_id(struct ty_symbols *s, const char *path)
{
	ty_kallsyms_set_boot_id(s->kernel, path);
}

void
ty_symbols_set_debug_root(struct ty_symbols *s, const char *dir)
{
	ty_dsos_set_debug_root(s->dsos, dir);
}

int
ty_symbols_set_source(struct ty_symbols *s, const char *path, const char *src, uint64_t dev,
		      uint64_t ino)
{
	return ty_dsos_set_source(s->dsos, path, src, dev, ino);
}

void
ty_symbols_set_perf_map_dir(struct ty_symbols *s, const char *dir)
{
	ty_perfmap_set_dir(s->jit, dir);
}

long
ty_symbols_add_perf_map(struct ty_symbols *s, uint32_t pid, const char *buf, size_t len)
{
	return ty_perfmap_add(s->jit, pid, buf, len);
}

unsigned
ty_symbols_kallsyms_reads(const struct ty_symbols *s)
{
	return ty_kallsyms_reads(s->kernel);
}

size_t
ty_symbols_nwarnings(const struct ty_symbols *s)
{
	return s->warn.n;
}

const char *
ty_symbols_warning(const struct ty_symbols *s, size_t i)
{
	return i < s->warn.n ? s->warn.msg[i] : NULL;
}

void
ty_symbols_set_stop(struct ty_symbols *s, const volatile sig_atomic_t *flag)
{
	s->stop = flag;
}

/* --- address spaces ----------------------------------------------------- */

int
ty_symbols_add_mmap(struct ty_symbols *s, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *file, uint64_t time)
{
	return ty_symbols_add_mmap_id(s, pid, start, len, pgoff, file, 0, 0, time);
}

int
ty_symbols_add_mmap_id(struct ty_symbols *s, uint32_t pid, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *file, uint64_t dev, uint64_t ino, uint64_t time)
{
	struct ty_dso *d = ty_dsos_get_id(s->dsos, file, pid, start, start + len, dev, ino);

	if (!d)
		return -ENOMEM;
	return ty_addrspace_add_mmap(s->as, pid, start, len, pgoff, d, ty_dso_path(d), time);
}

int
ty_symbols_fork(struct ty_symbols *s, uint32_t pid, uint32_t ppid, uint64_t time)
{
	return ty_addrspace_fork(s->as, pid, ppid, time);
}

int
ty_symbols_exec(struct ty_symbols *s, uint32_t pid, uint64_t time)
{
	return ty_addrspace_exec(s->as, pid, time);
}

size_t
ty_symbols_epoch(struct ty_symbols *s, uint32_t pid, uint64_t time)
{
	return ty_addrspace_epoch(s->as, pid, time);
}

int
ty_symbols_covers(struct ty_symbols *s, uint32_t pid, uint64_t ip)
{
	return ty_addrspace_covers(s->as, pid, ip);
}

int
ty_symbols_load_maps(struct ty_symbols *s, const char *root, uint32_t pid, uint64_t time,
		     struct ty_error *e)
{
	char path[4096], line[4096 + 128], perms[8], file[4096];
	unsigned long long lo, hi, off, ino;
	unsigned maj, min;
	FILE *fp;
	int n, added = 0;

	snprintf(path, sizeof(path), "%s/%u/maps", root, pid);
	if (!(fp = fopen(path, "r")))
		return ty_error_set(e, -errno, "cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		file[0] = '\0';
		n = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &lo, &hi, perms, &off,
			   &maj, &min, &ino, file);
		if (n < 7 || !strchr(perms, 'x'))
			continue;
		/* Executable memory of no file is JIT code (node, the JVM, a
		 * perf map's regions): tracked as perf names it, so that its
		 * frames are walked by the frame pointer, not lost in "no
		 * mapping" (a mmap record of it, when mmap records are on,
		 * says "//anon" too). */
		if (!file[0])
			snprintf(file, sizeof(file), "%s", "//anon");
		if (ty_addrspace_known(s->as, pid, lo, hi, off, file))
			continue;
		if (ty_symbols_add_mmap_id(s, pid, lo, hi - lo, off, file, makedev(maj, min), ino,
					   time) < 0) {
			fclose(fp);
			return ty_error_set(e, -ENOMEM, "out of memory");
		}
		added++;
	}
	fclose(fp);
	return added;
}

int
ty_symbols_find_map(struct ty_symbols *s, uint32_t pid, uint64_t ip, uint64_t time,
		    struct ty_sym_map *out)
{
	struct ty_addrspace_map m;

	if (ty_addrspace_find(s->as, pid, ip, time, &m) < 0)
		return -1;
	out->start = m.start;
	out->end = m.end;
	out->pgoff = m.pgoff;
	out->path = m.path;
	return 0;
}

/* --- resolving ----------------------------------------------------------- */

/* A file we can read symbols from (not "//anon", "[heap]", "[anon:x]"). */
static int
is_file(const char *path)
{
	return (path[0] == '/' && path[1] != '/') || strcmp(path, "[vdso]") == 0;
}

/* Name IP from PID's perf map (JIT code), for a process known to the
 * address spaces or with a perf map given; 1 when it does. */
static int
jit_symbol(struct ty_symbols *s, uint32_t pid, uint64_t ip, struct ty_sym_result *r)
{
	const char *name, *path;

	if (!ty_addrspace_has(s->as, pid) && !ty_perfmap_known(s->jit, pid))
		return 0;
	if (!ty_perfmap_find(s->jit, pid, ip, &name, &path))
		return 0;
	r->name = name;
	r->dso = path;
	r->addr = ip;
	return 1;
}

void
ty_symbols_resolve(struct ty_symbols *s, uint32_t pid, uint64_t ip, uint64_t time, int kernel,
		   struct ty_sym_result *r)
{
	struct ty_addrspace_map m;
	const char *mod;

	memset(r, 0, sizeof(*r));
	r->addr = ip;
	if (kernel || ip >= TY_KERNEL_START) {
		r->kernel = 1;
		r->name = ty_kallsyms_name(s->kernel, ip, &mod);
		r->dso = mod ? mod : "[kernel.kallsyms]";
		return;
	}
	if (ty_addrspace_find(s->as, pid, ip, time, &m) < 0) {
		if (!jit_symbol(s, pid, ip, r))
			r->dso = "[unknown]";
		return;
	}
	if (!is_file(m.path) && jit_symbol(s, pid, ip, r))
		return;
	r->dso = m.path;
	if (s->stop && *s->stop) { /* asked to stop: no file is read any more */
		if (!s->stopped++)
			ty_symtab_warn(&s->warn, "stopped by a signal while naming addresses: "
						 "those not named yet are shown raw");
		r->addr = ip - m.start + m.pgoff;
		return;
	}
	r->handle = m.dso;
	r->addr = ty_dso_vaddr(m.dso, ip - m.start + m.pgoff);
	r->name = ty_dso_symbol(m.dso, r->addr);
}

size_t
ty_symbols_frames(struct ty_symbols *s, const struct ty_sym_result *r, struct ty_dso_frame *frames,
		  size_t max)
{
	(void)s;
	if (!r->handle || r->kernel)
		return 0;
	return ty_dso_frames((struct ty_dso *)r->handle, r->addr, r->name, frames, max);
}

int
ty_symbols_dso_info(struct ty_symbols *s, const char *path, struct ty_dso_info *out)
{
	struct ty_dso *d = ty_dsos_find(s->dsos, path);

	if (!d) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return ty_dso_info(d, out);
}

const char *
ty_symbols_lookup_file(struct ty_symbols *s, const char *path, uint64_t addr)
{
	struct ty_dso *d = ty_dsos_get(s->dsos, path);

	return d ? ty_dso_symbol(d, addr) : NULL;
}
