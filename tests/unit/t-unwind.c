/* t-unwind.c - the CFI unwinder on snapshots of programs this test
 * compiles (-O2 -fomit-frame-pointer: tests/unit/data/unwind-prog.c and
 * unwind-lib.c): exact chains through alloca, a signal handler, two
 * threads and a library loaded with dlopen; a stack copy too short ends
 * the chain as truncated; damaged tables never crash. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tachy/symbols.h"
#include "tachy/unwind.h"

#define SNAP_STACK 16384

struct snap {
	uint64_t regs[24];
	uint64_t len;
	unsigned char stack[SNAP_STACK];
};

static char dir[PATH_MAX], prog[PATH_MAX + 16], lib[PATH_MAX + 16];

static int
build(void)
{
	char cmd[4 * PATH_MAX];
	const char *src = getenv("TOP") ? getenv("TOP") : ".";
	int n;

	snprintf(dir, sizeof(dir), "/tmp/t-unwind.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(lib, sizeof(lib), "%s/libt.so", dir);
	n = snprintf(cmd, sizeof(cmd),
		     "cc -O2 -fomit-frame-pointer -rdynamic -o %s %s/tests/unit/data/unwind-prog.c "
		     "-pthread -ldl && cc -O2 -fomit-frame-pointer -shared -fPIC -o %s "
		     "%s/tests/unit/data/unwind-lib.c && %s %s %s",
		     prog, src, lib, src, prog, dir, lib);
	if (n < 0 || (size_t)n >= sizeof(cmd))
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}

static int
read_snap(int n, struct snap *s)
{
	char path[PATH_MAX + 32];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%d/snap", dir, n);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	ok = read(fd, s, sizeof(*s)) == (ssize_t)sizeof(*s);
	close(fd);
	return ok && s->len <= SNAP_STACK ? 0 : -1;
}

/* Unwind snapshot N (its maps read as those of "process" N) and name the
 * frames in the program and its library, innermost first, joined by
 * spaces; *END says how the chain ended; LEN < 0: the whole copy. */
static int all_names; /* name the frames of every file, not only ours */

static void
chain_of(int n, long len, char *out, size_t size, enum ty_unwind_end *end, size_t *nframes,
	 int *unmapped)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_unwinder *u = ty_unwind_new(ty_symbols_addrspace(syms), ty_symbols_cfi(syms));
	static struct snap s;
	struct ty_unwind_sample us;
	struct ty_error e;
	uint64_t frames[256];
	size_t k, i;

	out[0] = '\0';
	*unmapped = 0;
	*nframes = 0;
	*end = TY_UNWIND_LOST;
	if (read_snap(n, &s) < 0 || ty_symbols_load_maps(syms, dir, (uint32_t)n, 0, &e) < 0) {
		ty_unwind_free(u);
		ty_symbols_free(syms);
		snprintf(out, size, "(no snapshot %d)", n);
		return;
	}
	memset(&us, 0, sizeof(us));
	us.pid = (uint32_t)n;
	memcpy(us.regs, s.regs, sizeof(us.regs));
	us.mask = TY_UNWIND_REGS_MASK;
	us.stack = s.stack;
	us.stack_len = len >= 0 && (uint64_t)len < s.len ? (uint64_t)len : s.len;
	us.stack_full = len >= 0;
	k = ty_unwind_sample(u, &us, frames, 256, end);
	*nframes = k;
	for (i = 0; i < k; i++) {
		struct ty_sym_result r;
		uint64_t a = frames[i] & ~TY_UNWIND_EXACT;
		if (!(frames[i] & TY_UNWIND_EXACT))
			a--; /* a return address: the call before it */
		ty_symbols_resolve(syms, (uint32_t)n, a, 0, 0, &r);
		if (strcmp(r.dso, "[unknown]") == 0)
			(*unmapped)++;
		if (r.name && (all_names || strcmp(r.dso, prog) == 0 || strcmp(r.dso, lib) == 0)) {
			size_t l = strlen(out);
			snprintf(out + l, size - l, "%s%s", l ? " " : "", r.name);
		}
	}
	ty_unwind_free(u);
	ty_symbols_free(syms);
}

static void
check_chain(int n, const char *want)
{
	char got[1024];
	enum ty_unwind_end end;
	size_t k;
	int unmapped;

	chain_of(n, -1, got, sizeof(got), &end, &k, &unmapped);
	CHECK_STR(got, want);
	CHECK_INT(end, TY_UNWIND_COMPLETE);
	CHECK_INT(unmapped, 0);
}

/* The PLT's FDE carries the standard expression: a PLT rule, and the CFA
 * it gives depends on where in its 16-byte entry the pc is. */
static void
plt_rows(const struct ty_cfi_table *t, const unsigned char *img, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	const char *names = (const char *)img + sh[eh->e_shstrndx].sh_offset;
	const struct ty_cfi_row *row;
	int i, found = 0;

	if (eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > len)
		return;
	for (i = 0; i < eh->e_shnum; i++) {
		if (strcmp(names + sh[i].sh_name, ".plt") != 0)
			continue;
		found = 1;
		/* The second entry (the first is PLT0) */
		row = ty_cfi_table_find(t, sh[i].sh_addr + 16 + 4);
		CHECK(row && row->cfa_kind == TY_CFA_PLT && row->cfa_reg == 7);
		if (row)
			CHECK(row->cfa_off == 8 && row->plt_arg >= 10 && row->plt_arg <= 11);
	}
	CHECK(found);
}

/* One table per build-id: snapshot 1 unwound again as process 101, whose
 * maps show the program under another path (a copy, the same build-id;
 * its maps line has the copy's inode, as the kernel would show),
 * by the same unwinder: the same chain, no new table. */
static void
shared_table(void)
{
	static char cmd[10 * PATH_MAX];
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_unwinder *u = ty_unwind_new(ty_symbols_addrspace(syms), ty_symbols_cfi(syms));
	struct ty_unwind_stats st1, st2;
	struct ty_unwind_sample us;
	struct ty_error e;
	static struct snap s;
	uint64_t f1[64], f2[64];
	enum ty_unwind_end end;
	size_t k1, k2;
	uint32_t pid;

	snprintf(
	    cmd, sizeof(cmd),
	    "cp %s %s/prog2 && mkdir -p %s/101 && awk -v p=%s -v q=%s/prog2 -v i=$(stat -c %%i "
	    "%s/prog2) '$6 == p { $5 = i; $6 = q } 1' %s/1/maps > %s/101/maps",
	    prog, dir, dir, prog, dir, dir, dir, dir);
	if (!CHECK(system(cmd) == 0) || read_snap(1, &s) < 0 ||
	    ty_symbols_load_maps(syms, dir, 1, 0, &e) < 0 ||
	    ty_symbols_load_maps(syms, dir, 101, 0, &e) < 0) {
		CHECK(!"cannot set up process 101");
		goto out;
	}
	memset(&us, 0, sizeof(us));
	memcpy(us.regs, s.regs, sizeof(us.regs));
	us.mask = TY_UNWIND_REGS_MASK;
	us.stack = s.stack;
	us.stack_len = s.len;
	for (pid = 1; pid <= 101; pid += 100) {
		us.pid = pid;
		if (pid == 1) {
			k1 = ty_unwind_sample(u, &us, f1, 64, &end);
			ty_unwind_stats(u, &st1);
		} else {
			k2 = ty_unwind_sample(u, &us, f2, 64, &end);
			ty_unwind_stats(u, &st2);
		}
	}
	CHECK_INT(end, TY_UNWIND_COMPLETE);
	CHECK(k1 >= 4);
	CHECK(k1 == k2 && memcmp(f1, f2, k1 * sizeof(*f1)) == 0);
	CHECK(st1.tables >= 1);
	CHECK_INT(st2.tables, st1.tables); /* prog2's table is prog's */
out:
	ty_unwind_free(u);
	ty_symbols_free(syms);
}

/* The FDE ranges of a real table (lib/symbols.c names stripped code by
 * them): the lazy table (through .eh_frame_hdr) gives the ranges the
 * eager one does, every pc of a range maps to it, and ranges do not
 * overlap. */
static void
fde_ranges(const unsigned char *img, size_t len)
{
	struct ty_cfi_table *eager, *lazy;
	struct ty_error e;
	uint64_t pc, s1, e1, s2, e2, prev_end = 0;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	uint64_t lo = 0, hi = 0;
	int i, found = 0, same = 1, inside = 1;

	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_PROGBITS && (sh[i].sh_flags & SHF_EXECINSTR) &&
		    sh[i].sh_size > hi - lo)
			lo = sh[i].sh_addr, hi = sh[i].sh_addr + sh[i].sh_size; /* .text */
	CHECK(hi > lo);
	CHECK_INT(ty_cfi_table_build(img, len, &eager, &e), 0);
	CHECK_INT(ty_cfi_table_open(img, len, &lazy, &e), 0);
	for (pc = lo; pc < hi; pc++) {
		int a = ty_cfi_table_fde(eager, pc, &s1, &e1),
		    b = ty_cfi_table_fde(lazy, pc, &s2, &e2);
		if (a != b || (a == 0 && (s1 != s2 || e1 != e2)))
			same = 0;
		if (a == 0) {
			found++;
			if (pc < s1 || pc >= e1 || s1 < prev_end)
				inside = 0;
			if (pc + 1 == e1)
				prev_end = e1;
		}
	}
	CHECK(found > 100);
	CHECK(same);
	CHECK(inside);
	CHECK_INT(ty_cfi_table_fde(eager, 0, &s1, &e1), -1);
	CHECK_INT(ty_cfi_table_fde(lazy, ~0ull, &s1, &e1), -1);
	ty_cfi_table_free(eager);
	ty_cfi_table_free(lazy);
}

/* Damaged copies of a real table: bytes of .eh_frame changed at random
 * (a fixed seed), built and looked up: never a crash. */
static void
damaged(const char *path)
{
	struct ty_cfi_table *t;
	struct ty_error e;
	struct stat st;
	unsigned char *img;
	unsigned seed = 12345;
	int fd = open(path, O_RDONLY), round, i, built = 0;

	if (fd < 0 || fstat(fd, &st) != 0 || !(img = malloc((size_t)st.st_size))) {
		CHECK(!"cannot read the program");
		if (fd >= 0)
			close(fd);
		return;
	}
	CHECK(read(fd, img, (size_t)st.st_size) == st.st_size);
	close(fd);
	CHECK_INT(ty_cfi_table_build(img, (size_t)st.st_size, &t, &e), 0);
	CHECK(ty_cfi_table_rows(t) > 10);
	plt_rows(t, img, (size_t)st.st_size);
	ty_cfi_table_free(t);
	fde_ranges(img, (size_t)st.st_size);
	for (round = 0; round < 300; round++) {
		unsigned char *copy = malloc((size_t)st.st_size);
		memcpy(copy, img, (size_t)st.st_size);
		for (i = 0; i < 1 + round % 16; i++) {
			seed = seed * 1103515245 + 12345;
			copy[(seed >> 4) % (size_t)st.st_size] = (unsigned char)(seed >> 16);
		}
		if (ty_cfi_table_build(copy, (size_t)st.st_size, &t, &e) == 0) {
			for (i = 0; i < 200; i++)
				ty_cfi_table_find(t, (uint64_t)i * 97);
			ty_cfi_table_free(t);
			built++;
		}
		if (ty_cfi_table_open(copy, (size_t)st.st_size, &t, &e) == 0) {
			uint64_t a, b;
			for (i = 0; i < 200; i++) {
				ty_cfi_table_find(t, (uint64_t)i * 97);
				ty_cfi_table_fde(t, (uint64_t)i * 89, &a, &b);
			}
			ty_cfi_table_free(t);
		}
		free(copy);
	}
	CHECK(built > 0);
	/* Truncated images and garbage are refused or give no rows. */
	CHECK_INT(ty_cfi_table_build(img, 10, &t, &e), -EINVAL);
	CHECK_INT(ty_cfi_table_build("garbage garbage garbage garbage garbage garbage garbage", 56,
				     &t, &e),
		  -EINVAL);
	for (i = 64; i < 4096 && i < st.st_size; i += 61)
		if (ty_cfi_table_build(img, (size_t)i, &t, &e) == 0)
			ty_cfi_table_free(t);
	free(img);
}

/* A frame found by the frame pointer (in a file with no call-frame
 * information: here one that cannot be read) whose return address lies in
 * no mapping is no frame: through code that keeps no frame pointer, %rbp
 * holds data and the chain stops, lost, at the last real frame. A return
 * address it finds in a mapping is kept. */
static void
fp_into_nothing(void)
{
	struct ty_symbols *syms = ty_symbols_new();
	struct ty_unwinder *u;
	struct ty_unwind_sample us;
	uint64_t stack[8] = {0}, out[16];
	enum ty_unwind_end end;
	size_t k;

	ty_symbols_add_mmap(syms, 42, 0x400000, 0x10000, 0, "/nonexistent/t-unwind-nocfi", 1);
	u = ty_unwind_new(ty_symbols_addrspace(syms), ty_symbols_cfi(syms));
	memset(&us, 0, sizeof(us));
	us.pid = 42;
	us.time = 2;
	us.regs[8] = 0x401000;		     /* ip */
	us.regs[7] = 0x7ffd00000000;	     /* sp */
	us.regs[6] = 0x7ffd00000000 + 2 * 8; /* bp: stack[2] */
	us.mask = (1ull << 8) | (1ull << 7) | (1ull << 6);
	us.stack = (const unsigned char *)stack;
	us.stack_len = sizeof(stack);
	stack[2] = 0x7ffd00000000 + 5 * 8; /* saved bp: stack[5] */
	stack[3] = 0x12345678;		   /* a "return address" in no mapping */
	k = ty_unwind_sample(u, &us, out, 16, &end);
	CHECK_INT(k, 1);
	CHECK_INT(end, TY_UNWIND_LOST);
	stack[3] = 0x402345; /* in the mapping: a frame */
	stack[6] = 0x55;     /* then one in no mapping again */
	k = ty_unwind_sample(u, &us, out, 16, &end);
	CHECK_INT(k, 2);
	CHECK(k == 2 && (out[1] & ~TY_UNWIND_EXACT) == 0x402345);
	CHECK_INT(end, TY_UNWIND_LOST);
	ty_unwind_free(u);
	ty_symbols_free(syms);
}

int
main(void)
{
	char got[1024];
	enum ty_unwind_end end;
	size_t k;
	int unmapped;
	const Elf64_Ehdr *vdso = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);

	if (vdso) { /* the vDSO's table, from our own image */
		struct ty_cfi_table *t;
		struct ty_error e;
		size_t len = vdso->e_shoff + (size_t)vdso->e_shnum * vdso->e_shentsize;
		CHECK_INT(ty_cfi_table_build(vdso, len, &t, &e), 0);
		CHECK(t && ty_cfi_table_rows(t) > 0);
		ty_cfi_table_free(t);
	}
	fp_into_nothing();
	if (system("cc --version >/dev/null 2>&1") != 0) {
		printf("# skipped the compiled programs: no C compiler\n");
		return check_done();
	}
	if (build() < 0) {
		CHECK(!"cannot build and run tests/unit/data/unwind-prog.c");
		return check_done();
	}
#ifdef HAVE_LIBELF
	check_chain(1, "t1_leaf t1_mid t1_top main _start");
	check_chain(2, "t2_handler t2_raise main _start");
	check_chain(3, "t3_leaf t3_thread");
	check_chain(4, "t3_leaf t3_thread");
	check_chain(5, "lib_inner lib_fn t4_call main _start");
	check_chain(6, "t6_vfork t6_call main _start");
	check_chain(7, "t7_gap t7_call main _start");
	check_chain(8, "_init t8_call main _start");
	check_chain(9, "t9_nocfi t9_call main _start");
	check_chain(10, "t10_endbr t10_tramp t10_call main _start");
	check_chain(11, "t11_leaf t11_outer t11_call main _start");
	check_chain(12, "t12_init _init _start"); /* (through libc's start) */
	/* Through the signal frame: the interrupted kill() is named, looked up
	 * at its own pc. */
	all_names = 1;
	chain_of(2, -1, got, sizeof(got), &end, &k, &unmapped);
	all_names = 0;
	CHECK(strstr(got, "t2_handler ") == got);
	if (!CHECK(strstr(got, "kill t2_raise main ") != NULL))
		printf("     got \"%s\"\n", got);
#else
	printf("# skipped the names of frames: not built with elfutils\n");
#endif
	/* A copy that ends inside the chain: truncated, and every frame given
	 * is a real one. */
	chain_of(1, 64, got, sizeof(got), &end, &k, &unmapped);
	CHECK_INT(end, TY_UNWIND_TRUNCATED);
	CHECK(k >= 1);
	CHECK_INT(unmapped, 0);
	/* No stack at all: the sampled pc alone. */
	chain_of(1, 0, got, sizeof(got), &end, &k, &unmapped);
	CHECK_INT(k, 1);
	damaged(prog);
	shared_table();
	{
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			CHECK(!"cannot remove the scratch directory");
	}
	return check_done();
}
