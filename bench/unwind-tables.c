/* unwind-tables.c - what building a binary's unwind table costs (issue 12:
 * is an on-disk cache by build-id worth having?). For each FILE: the
 * first sample's cost (open, map, and set up the lazy table through
 * .eh_frame_hdr, then make the rows of one FDE), the cost of each further
 * FDE's rows made on first use, a look-up once made, and the whole table
 * built eagerly for comparison. Medians of REPS rounds.
 *
 * Usage: unwind-tables REPS FILE... */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tachy/cfi.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The executable section's range (the largest), where pcs are drawn. */
static int
text_range(const unsigned char *img, size_t len, uint64_t *lo, uint64_t *hi)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *sh;
	unsigned i;

	*lo = *hi = 0;
	if (len < sizeof(*eh) || !eh->e_shoff || eh->e_shoff > len ||
	    (uint64_t)eh->e_shnum * sizeof(*sh) > len - eh->e_shoff)
		return -1;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_PROGBITS && (sh[i].sh_flags & SHF_EXECINSTR) &&
		    sh[i].sh_size > *hi - *lo) {
			*lo = sh[i].sh_addr;
			*hi = sh[i].sh_addr + sh[i].sh_size;
		}
	return *hi > *lo ? 0 : -1;
}

#define NPC 1000

int
main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 0, a, r;

	if (reps < 1 || argc < 3) {
		fprintf(stderr, "usage: unwind-tables REPS FILE...\n");
		return 2;
	}
	printf("%-28s %8s %9s %11s %11s %10s %11s\n", "file", "MB", "rows", "first (us)",
	       "FDE (us)", "look (ns)", "eager (ms)");
	for (a = 2; a < argc; a++) {
		double *first = calloc((size_t)reps, sizeof(double)),
		       *fde = calloc((size_t)reps, sizeof(double)),
		       *look = calloc((size_t)reps, sizeof(double)),
		       *eager = calloc((size_t)reps, sizeof(double));
		uint64_t pcs[NPC], lo, hi, seed = 88172645463325252ull;
		size_t rows = 0, i;
		struct stat st;
		struct ty_error e;
		int fd = open(argv[a], O_RDONLY);
		void *img;

		if (fd < 0 || fstat(fd, &st) != 0 || !first || !fde || !look || !eager) {
			perror(argv[a]);
			return 1;
		}
		img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (img == MAP_FAILED || text_range(img, (size_t)st.st_size, &lo, &hi) < 0) {
			fprintf(stderr, "%s: no text section\n", argv[a]);
			return 1;
		}
		munmap(img, (size_t)st.st_size);
		for (i = 0; i < NPC; i++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			pcs[i] = lo + seed % (hi - lo);
		}
		for (r = 0; r < reps; r++) {
			struct ty_cfi_table *t, *te;
			double t0 = now(), t1, t2, t3, t4, t5;
			/* the first sample: what the unwinder does for a new file */
			fd = open(argv[a], O_RDONLY | O_CLOEXEC);
			img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			close(fd);
			if (ty_cfi_table_open(img, (size_t)st.st_size, &t, &e) < 0)
				return 1;
			ty_cfi_table_find(t, pcs[0]);
			t1 = now();
			for (i = 1; i < NPC; i++) /* mostly FDEs not made yet */
				ty_cfi_table_find(t, pcs[i]);
			t2 = now();
			for (i = 0; i < NPC; i++) /* all made */
				ty_cfi_table_find(t, pcs[i]);
			t3 = now();
			ty_cfi_table_free(t);
			t4 = now();
			if (ty_cfi_table_build(img, (size_t)st.st_size, &te, &e) < 0)
				return 1;
			t5 = now();
			rows = ty_cfi_table_rows(te);
			ty_cfi_table_free(te);
			munmap(img, (size_t)st.st_size);
			first[r] = (t1 - t0) * 1e6;
			fde[r] = (t2 - t1) * 1e6 / (NPC - 1);
			look[r] = (t3 - t2) * 1e9 / NPC;
			eager[r] = (t5 - t4) * 1e3;
		}
		printf("%-28.28s %8.1f %9zu %11.1f %11.2f %10.0f %11.1f\n",
		       strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a],
		       (double)st.st_size / 1048576.0, rows, median(first, reps), median(fde, reps),
		       median(look, reps), median(eager, reps));
		free(first);
		free(fde);
		free(look);
		free(eager);
	}
	return 0;
}
