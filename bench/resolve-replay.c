/* resolve-replay.c - the end of a system-wide recording, replayed: the
 * collector (lib/collect.c) is fed a made-up recording over real files
 * (processes mapping FILE..., call chains of NSAMPLES samples mixing the
 * kernel's functions and the files' code, drawn by a fixed generator), then
 * resolves it into a profile written to OUT. The same files give the same
 * profile, byte for byte, from one build of tachy to another: that is how a
 * change to symbol resolution is checked to change no name. Prints the
 * peak RSS (VmHWM) and what it was made of at the end, and the time taken.
 *
 * Usage: resolve-replay OUT NSAMPLES FILE...   (root: kernel addresses)
 * TACHY_CACHE_DIR: the kernel symbol cache, as tachy record uses it;
 * REPLAY_PHASES=1: the RSS after the recording and after the resolution too.
 * Built by `make bench-progs` into build/std/bench/resolve-replay. */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tachy/collect.h"
#include "tachy/profile-file.h"

#define POOL 1500 /* distinct addresses drawn per file */
#define PIDS 3	  /* processes mapping each file */

struct file {
	const char *path;
	uint64_t base, vaddr, off, len; /* the executable PT_LOAD, mapped at BASE */
	uint64_t pool[POOL];
};

static uint64_t seed = 0x2545f4914f6cdd1dull;

static uint64_t
rnd(void)
{
	seed ^= seed >> 12, seed ^= seed << 25, seed ^= seed >> 27;
	return seed * 0x2545f4914f6cdd1dull;
}

/* The executable segment of PATH (64-bit ELF); 0 when it has none. */
static int
exec_segment(struct file *f)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	const Elf64_Ehdr *eh;
	void *img;
	int ok = 0, i;

	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return 0;
	eh = img;
	for (i = 0; memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
		    eh->e_ident[EI_CLASS] == ELFCLASS64 && i < eh->e_phnum;
	     i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)img + eh->e_phoff +
							    (size_t)i * eh->e_phentsize);
		if ((size_t)((const char *)(ph + 1) - (const char *)img) > (size_t)st.st_size)
			break;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		f->vaddr = ph->p_vaddr & ~0xfffull;
		f->off = ph->p_offset & ~0xfffull;
		f->len = (ph->p_offset + ph->p_filesz - f->off + 0xfff) & ~0xfffull;
		ok = 1;
		break;
	}
	munmap(img, (size_t)st.st_size);
	return ok;
}

/* Every n-th text symbol of the kernel, plus an offset: NK addresses. */
static size_t
kernel_pool(uint64_t *out, size_t max)
{
	FILE *fp = fopen("/proc/kallsyms", "r");
	char line[512], type;
	unsigned long long a;
	size_t n = 0, seen = 0;

	if (!fp)
		return 0;
	while (n < max && fgets(line, sizeof(line), fp))
		if (sscanf(line, "%llx %c", &a, &type) == 2 && a && (type == 't' || type == 'T') &&
		    seen++ % 17 == 0)
			out[n++] = a + (rnd() % 16);
	fclose(fp);
	return n;
}

static void
status(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	char line[256];

	while (fp && fgets(line, sizeof(line), fp))
		if (strncmp(line, "VmHWM", 5) == 0 || strncmp(line, "RssAnon", 7) == 0 ||
		    strncmp(line, "RssFile", 7) == 0)
			fputs(line, stdout);
	if (fp)
		fclose(fp);
}

int
main(int argc, char **argv)
{
	static uint64_t kpool[4096];
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_collector *c = ty_collector_new(syms);
	struct ty_profile *p = ty_profile_new();
	struct ty_error e = {0};
	struct ty_sampler_rec r;
	struct file *files;
	size_t nf = 0, nk, i, j, nsamples;
	struct timespec t0, t1;
	uint64_t time = 1000;

	if (argc < 4) {
		fprintf(stderr, "usage: resolve-replay OUT NSAMPLES FILE...\n");
		return 2;
	}
	nsamples = strtoul(argv[2], NULL, 10);
	files = calloc((size_t)argc, sizeof(*files));
	if (!syms || !c || !p || !files)
		return 1;
	if (getenv("TACHY_CACHE_DIR")) /* the per-boot kernel symbol cache, as tachy record */
		ty_symbols_set_cache_dir(syms, getenv("TACHY_CACHE_DIR"));
	nk = kernel_pool(kpool, sizeof(kpool) / sizeof(*kpool));
	for (i = 3; i < (size_t)argc; i++) {
		struct file *f = &files[nf];
		f->path = argv[i];
		if (!exec_segment(f)) {
			fprintf(stderr, "resolve-replay: %s: no executable segment, skipped\n",
				argv[i]);
			continue;
		}
		f->base = 0x7f0000000000ull + (uint64_t)nf * 0x100000000ull;
		for (j = 0; j < POOL; j++)
			f->pool[j] = f->base + f->vaddr + rnd() % f->len;
		nf++;
	}
	memset(&r, 0, sizeof(r));
	for (i = 0; i < PIDS; i++) {
		char comm[16];
		r.type = TY_SAMPLER_REC_COMM;
		r.pid = r.tid = (uint32_t)(100 + i);
		r.time = time++;
		snprintf(comm, sizeof(comm), "proc%zu", i);
		r.name = comm;
		ty_collector_record(&r, c);
		r.type = TY_SAMPLER_REC_MMAP;
		for (j = 0; j < nf; j++) {
			r.start = files[j].base + files[j].vaddr;
			r.len = files[j].len;
			r.pgoff = files[j].off;
			r.name = files[j].path;
			ty_collector_record(&r, c);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nsamples; i++) {
		uint64_t n = 2 + rnd() % 14, k = 0;
		size_t home = rnd() % (nf ? nf : 1);
		memset(&r, 0, sizeof(r));
		r.type = TY_SAMPLER_REC_SAMPLE;
		r.pid = r.tid = (uint32_t)(100 + rnd() % PIDS);
		r.time = time++;
		r.period = 1000000;
		if (nk && rnd() % 2) /* in the kernel: a few of its frames first */
			for (; k < 1 + rnd() % 4 && k < n; k++)
				r.chainbuf[k] = kpool[rnd() % nk];
		for (; k < n && nf; k++) { /* then user code, mostly one file's */
			const struct file *f = &files[rnd() % 4 ? home : rnd() % nf];
			r.chainbuf[k] = f->pool[rnd() % POOL];
		}
		if (rnd() % 64 == 0 && k < n) /* an address no mapping covers */
			r.chainbuf[k++] = 0x10000 + rnd() % 0x1000;
		r.nr = k;
		r.chain = r.chainbuf;
		r.ip = r.chainbuf[0];
		ty_collector_record(&r, c);
	}
	if (getenv("REPLAY_PHASES"))
		printf("recorded:\n"), status();
	if (ty_collector_finish(c, p, &e) < 0 ||
	    (getenv("REPLAY_PHASES") && printf("resolved:\n") && (status(), 0)) ||
	    ty_profile_write(p, argv[1], &e) < 0) {
		fprintf(stderr, "resolve-replay: %s\n", e.msg);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%zu files, %zu samples, %u functions, %u locations; resolved and written in "
	       "%.2f s\n",
	       nf, nsamples, p->nfuncs, p->nlocs,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	status();
	for (i = 0; i < ty_symbols_nwarnings(syms); i++)
		printf("warning: %s\n", ty_symbols_warning(syms, i));
	ty_profile_free(p);
	ty_collector_free(c);
	ty_symbols_free(syms);
	free(files);
	return 0;
}
