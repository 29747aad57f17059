/* leaf-key.c - name another profiler's sampled addresses the way tachy
 * names its own (record-unwind.sh's agreement figure): the common key of
 * a perf sample and a tachy sample is the function tachy's resolver
 * (lib/symbols.c: symbol tables, aliases, PLT, and for stripped code the
 * .eh_frame FDE holding the address, DSO+0xSTART) gives the leaf address.
 *
 * Reads one leaf a line, "DSO<TAB>ADDR" as perf script prints a frame: DSO
 * a file's path and ADDR (hex) the file offset perf gives for the frame
 * (its map-relative address), or DSO [kernel.kallsyms] and ADDR the
 * kernel's address; and prints for every line "NAME<TAB>DSO", NAME
 * "[unknown]" where tachy has no name. Each file is looked up through a
 * mapping of its own made up for it (offset 0 at a fixed address), so that
 * tachy's resolver turns the offset into a link-time address as it does
 * for its own samples. Lines it cannot read print "[unknown]" too.
 *
 * Usage: leaf-key < LEAVES > NAMES */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/symbols.h"

#define BASE 0x100000000000ull /* where every file is "mapped" */

struct file {
	char *path;
	uint32_t pid; /* the made-up process it is mapped in */
};

int
main(void)
{
	struct ty_symbols *s = ty_symbols_new();
	struct file *files = NULL;
	size_t nfiles = 0;
	char line[4608];
	uint64_t bad = 0;

	if (!s)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		char *tab = strchr(line, '\t'), *end;
		unsigned long long a;
		struct ty_sym_result r;
		const char *dso;
		size_t i;

		if (!tab || (a = strtoull(tab + 1, &end, 16), end == tab + 1)) {
			bad++;
			puts("[unknown]\t[unknown]");
			continue;
		}
		*tab = '\0';
		if (strcmp(line, "[kernel.kallsyms]") == 0) {
			ty_symbols_resolve(s, 0, a, 1, 1, &r);
		} else {
			for (i = 0; i < nfiles && strcmp(files[i].path, line) != 0; i++)
				;
			if (i == nfiles) {
				struct file *nf = realloc(files, (nfiles + 1) * sizeof(*files));
				if (!nf || !(nf[nfiles].path = strdup(line)))
					return 1;
				files = nf;
				files[nfiles].pid = (uint32_t)(nfiles + 1);
				if (ty_symbols_add_mmap(s, files[nfiles].pid, BASE, 1ull << 40, 0,
							line, 0) < 0)
					return 1;
				nfiles++;
			}
			ty_symbols_resolve(s, files[i].pid, BASE + a, 1, 0, &r);
		}
		dso = strrchr(r.dso, '/') ? strrchr(r.dso, '/') + 1 : r.dso;
		printf("%s\t%s\n", r.name ? r.name : "[unknown]", dso);
	}
	if (bad)
		fprintf(stderr, "leaf-key: %" PRIu64 " lines not understood\n", bad);
	while (nfiles)
		free(files[--nfiles].path);
	free(files);
	ty_symbols_free(s);
	return 0;
}
