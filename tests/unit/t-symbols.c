/* t-symbols.c - address -> symbol: our own PIE through its maps, a fake
 * kallsyms, corrupt and missing binaries, demangling. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_LIBDW
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#endif

#include "check.h"
#include "tachy/symbatch.h"
#include "tachy/symbols.h"
#include "tachy/symtab.h"

__attribute__((noinline)) int tsym_marker_function(int x);

__attribute__((noinline)) int
tsym_marker_function(int x)
{
	return x * 7 + 1;
}

static void
test_self(void)
{
	struct ty_symbols *s = ty_symbols_new();
	struct ty_error e = {0};
	struct ty_sym_result r;
	uint64_t ip = (uint64_t)(uintptr_t)&tsym_marker_function;

	CHECK(ty_symbols_load_maps(s, "/proc", (uint32_t)getpid(), 0, &e) > 0);
	CHECK_INT(ty_symbols_load_maps(s, "/proc", (uint32_t)getpid(), 0, &e), 0); /* known */
	ty_symbols_resolve(s, (uint32_t)getpid(), ip + 2, 0, 0, &r);
#ifdef HAVE_LIBELF
	CHECK_STR(r.name, "tsym_marker_function");
#else
	CHECK(r.name == NULL);
	CHECK(ty_symbols_nwarnings(s) >= 1);
#endif
	CHECK(r.dso && strstr(r.dso, "t-symbols"));
	CHECK(!r.kernel);
	/* An address nobody mapped. */
	ty_symbols_resolve(s, (uint32_t)getpid(), 16, 0, 0, &r);
	CHECK(r.name == NULL);
	CHECK_STR(r.dso, "[unknown]");
	/* A process we know nothing of. */
	ty_symbols_resolve(s, 999999999, ip, 0, 0, &r);
	CHECK(r.name == NULL);
	CHECK_INT(ty_symbols_load_maps(s, "/nonexistent", 1, 0, &e) < 0, 1);
	ty_symbols_free(s);
}

/* Executable memory of no file in /proc/PID/maps (a JIT's code) is tracked
 * as "//anon", as a mmap record names it; data without x is not. */
static void
test_anon_exec(void)
{
	char dir[] = "/tmp/t-symbols-XXXXXX", path[64];
	struct ty_symbols *s = ty_symbols_new();
	struct ty_error e = {0};
	struct ty_sym_map m;
	FILE *fp;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/7", dir);
	CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof(path), "%s/7/maps", dir);
	CHECK((fp = fopen(path, "w")) != NULL);
	fputs("7f0000000000-7f0000010000 rwxp 00000000 00:00 0 \n"
	      "7f0000010000-7f0000020000 rw-p 00000000 00:00 0 \n"
	      "7f0000020000-7f0000030000 r-xp 00000000 00:00 0    [anon:jit]\n",
	      fp);
	fclose(fp);
	CHECK_INT(ty_symbols_load_maps(s, dir, 7, 5, &e), 2);
	CHECK_INT(ty_symbols_load_maps(s, dir, 7, 6, &e), 0); /* known */
	CHECK(ty_symbols_covers(s, 7, 0x7f0000000100ull));
	CHECK(!ty_symbols_covers(s, 7, 0x7f0000010100ull));
	CHECK_INT(ty_symbols_find_map(s, 7, 0x7f0000000100ull, 1, &m), 0);
	CHECK_STR(m.path, "//anon");
	CHECK_INT(ty_symbols_find_map(s, 7, 0x7f0000020100ull, 1, &m), 0);
	CHECK_STR(m.path, "[anon:jit]");
	unlink(path);
	snprintf(path, sizeof(path), "%s/7", dir);
	rmdir(path);
	rmdir(dir);
	ty_symbols_free(s);
}

static void
test_fork_exec(void)
{
	struct ty_symbols *s = ty_symbols_new();
	struct ty_sym_result r;

	ty_symbols_add_mmap(s, 10, 0x400000, 0x1000, 0, "/nonexistent/a", 5);
	ty_symbols_fork(s, 11, 10, 6);
	ty_symbols_resolve(s, 11, 0x400010, 7, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/a"); /* inherited from the parent */
	ty_symbols_exec(s, 11, 8);
	ty_symbols_add_mmap(s, 11, 0x400000, 0x1000, 0, "/nonexistent/b", 9);
	ty_symbols_resolve(s, 11, 0x400010, 10, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/b");
	CHECK(r.name == NULL);
	CHECK(ty_symbols_nwarnings(s) >= 1); /* cannot read it: a warning, not a crash */
	/* A sample taken while the kernel ran the exec carries the old
	 * program's registers (its execve call, in the parent's libc): after
	 * the exec, an address no mapping of the new program covers is the
	 * old image's; one the new program maps stays the new program's. */
	ty_symbols_add_mmap(s, 10, 0x7000000, 0x1000, 0, "/nonexistent/libc", 5);
	ty_symbols_resolve(s, 11, 0x7000010, 8, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/libc");
	ty_symbols_resolve(s, 11, 0x400010, 8, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/b");
	ty_symbols_add_mmap(s, 11, 0x7000000, 0x1000, 0, "/nonexistent/libc2", 12);
	ty_symbols_resolve(s, 11, 0x7000010, 13, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/libc2");
	/* A process exec'd twice: its own image before the second exec. */
	ty_symbols_exec(s, 11, 20);
	ty_symbols_resolve(s, 11, 0x7000010, 21, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/libc2");
	ty_symbols_free(s);
}

/* What lazy mapping tracking asks before reading /proc/PID/maps again. */
static void
test_covers(void)
{
	struct ty_symbols *s = ty_symbols_new();

	CHECK(!ty_symbols_covers(s, 10, 0x400010)); /* nothing known */
	ty_symbols_add_mmap(s, 10, 0x400000, 0x1000, 0, "/nonexistent/a", 5);
	CHECK(ty_symbols_covers(s, 10, 0x400010));
	CHECK(ty_symbols_covers(s, 10, 0x400fff));
	CHECK(!ty_symbols_covers(s, 10, 0x401000)); /* the end is not inside */
	CHECK(!ty_symbols_covers(s, 10, 0x3fffff));
	ty_symbols_fork(s, 11, 10, 6);
	CHECK(ty_symbols_covers(s, 11, 0x400010)); /* the parent's, from before the fork */
	ty_symbols_add_mmap(s, 10, 0x500000, 0x1000, 0, "/nonexistent/c", 7);
	CHECK(ty_symbols_covers(s, 10, 0x500010));
	CHECK(!ty_symbols_covers(s, 11, 0x500010)); /* mapped by the parent after the fork */
	ty_symbols_exec(s, 10, 8);
	CHECK(!ty_symbols_covers(s, 10, 0x400010)); /* gone with the exec */
	ty_symbols_add_mmap(s, 10, 0x400000, 0x2000, 0, "/nonexistent/b", 9);
	CHECK(ty_symbols_covers(s, 10, 0x401010));
	CHECK(ty_symbols_covers(s, 11, 0x400010)); /* the child keeps its own view */
	ty_symbols_free(s);
}

/* Epochs: when the addresses of a process begin to mean something else. */
static void
test_epochs(void)
{
	struct ty_symbols *s = ty_symbols_new();
	struct ty_sym_result r;

	ty_symbols_add_mmap(s, 20, 0x1000, 0x1000, 0, "/nonexistent/a", 5);
	ty_symbols_add_mmap(s, 20, 0x1000, 0x800, 0, "/nonexistent/a", 6);  /* same file, place */
	ty_symbols_add_mmap(s, 20, 0x3000, 0x1000, 0, "/nonexistent/c", 7); /* elsewhere */
	CHECK_INT(ty_symbols_epoch(s, 20, 100), 0);
	ty_symbols_add_mmap(s, 20, 0x1800, 0x1000, 0, "/nonexistent/b", 50); /* over a */
	CHECK_INT(ty_symbols_epoch(s, 20, 49), 0);
	CHECK_INT(ty_symbols_epoch(s, 20, 50), 1);
	ty_symbols_exec(s, 20, 60);
	CHECK_INT(ty_symbols_epoch(s, 20, 59), 1);
	CHECK_INT(ty_symbols_epoch(s, 20, 70), 2);
	CHECK_INT(ty_symbols_epoch(s, 99, 70), 0); /* unknown process */
	/* Before any mapping was seen: the first one seen after (read from
	 * /proc/PID/maps later), not the last one. */
	ty_symbols_add_mmap(s, 21, 0x1000, 0x1000, 0, "/nonexistent/d", 10);
	ty_symbols_add_mmap(s, 21, 0x1000, 0x1000, 0, "/nonexistent/e", 20);
	ty_symbols_resolve(s, 21, 0x1010, 1, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/d");
	ty_symbols_resolve(s, 21, 0x1010, 25, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/e");
	ty_symbols_free(s);
}

static void
test_corrupt_elf(void)
{
	char path[] = "/tmp/t-symbols-XXXXXX";
	int fd = mkstemp(path);
	struct ty_symbols *s = ty_symbols_new();
	struct ty_sym_result r;
	char junk[4096];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 131 + 7);
	memcpy(junk, "\177ELF\002\001\001", 7); /* a header that lies */
	CHECK(write(fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk));
	close(fd);
	ty_symbols_add_mmap(s, 1, 0x10000, 0x1000, 0, path, 0);
	ty_symbols_resolve(s, 1, 0x10010, 1, 0, &r);
	CHECK(r.name == NULL);
	CHECK(ty_symbols_nwarnings(s) >= 1);
	unlink(path);
	ty_symbols_free(s);
}

static void
test_kallsyms(void)
{
	char path[] = "/tmp/t-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	struct ty_symbols *s = ty_symbols_new();
	struct ty_sym_result r;

	fputs("ffffffff81000000 T _stext\nffffffff81000100 t do_thing\n"
	      "ffffffff81000200 D some_data\nffffffff81000300 T other\t[mod]\n"
	      "garbage line\nffffffff81000400 T lastone",
	      fp); /* no final newline */
	fclose(fp);
	ty_symbols_set_kallsyms(s, path);
	ty_symbols_resolve(s, 1, 0xffffffff81000150ull, 0, 1, &r);
	CHECK_STR(r.name, "do_thing");
	CHECK_STR(r.dso, "[kernel.kallsyms]");
	CHECK(r.kernel);
	ty_symbols_resolve(s, 1, 0xffffffff81000350ull, 0, 1, &r);
	CHECK_STR(r.name, "other");
	CHECK_STR(r.dso, "[mod]"); /* a module's symbol: the module as its DSO */
	CHECK(r.kernel);
	ty_symbols_resolve(s, 1, 0xffffffff81000410ull, 0, 1, &r);
	CHECK_STR(r.name, "lastone");
	ty_symbols_free(s);
	/* of aliases at one address: not the __pi_ copy, fewer underscores */
	fp = fopen(path, "w");
	fputs("ffffffff81000000 T __pi___x86_indirect_thunk_r12\n"
	      "ffffffff81000000 T __x86_indirect_thunk_r12\n"
	      "ffffffff81000100 T __do_sys_read\nffffffff81000100 T ksys_read\n",
	      fp);
	fclose(fp);
	s = ty_symbols_new();
	ty_symbols_set_kallsyms(s, path);
	ty_symbols_resolve(s, 1, 0xffffffff81000010ull, 0, 1, &r);
	CHECK_STR(r.name, "__x86_indirect_thunk_r12");
	ty_symbols_resolve(s, 1, 0xffffffff81000110ull, 0, 1, &r);
	CHECK_STR(r.name, "ksys_read");
	ty_symbols_free(s);
	/* kptr_restrict: all addresses zero -> raw addresses and a warning */
	fp = fopen(path, "w");
	fputs("0000000000000000 T _stext\n0000000000000000 T foo\n", fp);
	fclose(fp);
	s = ty_symbols_new();
	ty_symbols_set_kallsyms(s, path);
	ty_symbols_resolve(s, 1, 0xffffffff81000150ull, 0, 1, &r);
	CHECK(r.name == NULL);
	CHECK_INT(ty_symbols_nwarnings(s), 1);
	unlink(path);
	ty_symbols_free(s);
}

/* One warning names every stripped file, each once, in the order seen. */
static void
test_warn_stripped(void)
{
	struct ty_symtab_warnings w = {0};

	ty_symtab_warn(&w, "first");
	ty_symtab_warn_stripped(&w, "/a/liba.so", "liba.so");
	CHECK_INT(w.n, 2);
	CHECK_STR(w.msg[1], "/a/liba.so is stripped (no .symtab, no debug file): functions it "
			    "does not export are named liba.so+0xADDRESS");
	ty_symtab_warn_stripped(&w, "/b/b", "b");
	ty_symtab_warn_stripped(&w, "/a/liba.so", "liba.so");
	ty_symtab_warn(&w, "last");
	ty_symtab_warn_stripped(&w, "/c", "c");
	CHECK_INT(w.n, 3);
	CHECK_STR(w.msg[1], "/a/liba.so, /b/b and /c are stripped (no .symtab, no debug file): "
			    "functions they do not export are named FILE+0xADDRESS");
	CHECK_STR(w.msg[2], "last");
	ty_symtab_warnings_release(&w);
	CHECK_INT(w.n, 0);
}

/* A stripped executable (PIE: lea main(%rip),%rdi; not PIE: mov $main,%rdi
 * in _start) names main by what _start passes __libc_start_main; a
 * function main calls stays unnamed (DSO+0x...), a shared library has no
 * main. The addresses come from nm on the copy before stripping. */
static void
test_stripped_main(void)
{
#ifdef HAVE_LIBELF
	static const char *const flags[] = {"-pie -fPIE", "-no-pie -fno-PIE"};
	char dir[] = "/tmp/t-symbols.XXXXXX", cmd[1024], path[64], addrs[64];
	size_t k;

	if (system("cc --version >/dev/null 2>&1 && strip --version >/dev/null 2>&1") != 0) {
		printf("t-symbols: no cc or strip here: stripped-main test skipped\n");
		return;
	}
	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	for (k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
		struct ty_symbols *s = ty_symbols_new();
		unsigned long long m = 0, w = 0;
		FILE *f;
		const char *n;

		snprintf(cmd, sizeof(cmd),
			 "cd %s && printf '%%s\\n' '__attribute__((noinline)) int work(int x) { "
			 "return x * 3 + 1; }' 'int main(int c, char **v) { (void)v; return "
			 "work(c); }' >p.c && cc -O1 %s -o p p.c && nm p | awk '$3 == \"main\" "
			 "|| $3 == \"work\" { print $3, $1 }' | sort >a && cp p p.s && strip p.s",
			 dir, flags[k]);
		if (!CHECK(system(cmd) == 0))
			break;
		snprintf(addrs, sizeof(addrs), "%s/a", dir);
		f = fopen(addrs, "r");
		if (!CHECK(f != NULL))
			break;
		CHECK_INT(fscanf(f, "main %llx work %llx", &m, &w), 2);
		fclose(f);
		snprintf(path, sizeof(path), "%s/p.s", dir);
		n = ty_symbols_lookup_file(s, path, m);
		CHECK_STR(n, "main");
		n = ty_symbols_lookup_file(s, path, m + 1);
		CHECK_STR(n, "main");
		n = ty_symbols_lookup_file(s, path, w);
		CHECK(n && strcmp(n, "main") != 0 && strstr(n, "p.s+0x"));
		ty_symbols_free(s);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
#endif
}

/* A damaged symbol table is said, naming the file and what is wrong,
 * never silently shown as FILE+0xADDR: ten damages made by
 * tests/data/elfdamage.py in copies of a program built here. */
static void
test_damaged_symtab(void)
{
#ifdef HAVE_LIBELF
	static const struct {
		const char *kind, *said;
	} cases[] = {
	    {"entsize0", ".symtab of %s is damaged: its entry size (sh_entsize) is 0, not 24"},
	    {"entsize7", ".symtab of %s is damaged: its entry size (sh_entsize) is 7, not 24"},
	    {"size", ".symtab of %s is damaged: its size "},
	    {"offset", ".symtab of %s is damaged: it lies beyond the end of the file"},
	    {"link-range", ".symtab of %s is damaged: its string table (sh_link 999) is no "
			   "section of the file"},
	    {"link-type", ".symtab of %s is damaged: its string table (sh_link "},
	    {"strtab-size", ".symtab of %s is damaged: its string table lies beyond the end"},
	    {"strtab-nul", ".symtab of %s is damaged: its string table does not end in a NUL"},
	    {"names", ".symtab of %s is damaged: "},
	    {"shndx", ".symtab of %s is damaged: "},
	};
	char dir[] = "/tmp/t-symbols.XXXXXX", cmd[1024], path[96], want[256];
	unsigned long long w = 0;
	size_t k, i;
	FILE *f;

	if (system("cc --version >/dev/null 2>&1 && python3 --version >/dev/null 2>&1") != 0) {
		printf("t-symbols: no cc or python3 here: damaged-symtab test skipped\n");
		return;
	}
	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	snprintf(cmd, sizeof(cmd),
		 "cd %s && printf '%%s\\n' '__attribute__((noinline)) int work(int x) { "
		 "return x * 3 + 1; }' 'int main(int c, char **v) { (void)v; return "
		 "work(c); }' >p.c && cc -O1 -no-pie -fno-PIE -o p p.c && nm p | awk '$3 == "
		 "\"work\" { print $1 }' >a",
		 dir);
	if (!CHECK(system(cmd) == 0) || !CHECK((f = fopen(strcat(strcpy(path, dir), "/a"), "r"))))
		goto out;
	CHECK_INT(fscanf(f, "%llx", &w), 1);
	fclose(f);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ty_symbols *s = ty_symbols_new();
		const char *n;
		int said = 0;

		snprintf(path, sizeof(path), "%s/p.%s", dir, cases[k].kind);
		snprintf(cmd, sizeof(cmd), "python3 %s/tests/data/elfdamage.py %s/p %s %s",
			 getenv("TOP") ? getenv("TOP") : ".", dir, path, cases[k].kind);
		if (!CHECK(system(cmd) == 0)) {
			ty_symbols_free(s);
			break;
		}
		n = ty_symbols_lookup_file(s, path, w);
		if (!CHECK(!n || strcmp(n, "work") != 0))
			printf("  %s: named %s\n", cases[k].kind, n);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(want, sizeof(want), cases[k].said, path); /* the case's own "%s" */
#pragma GCC diagnostic pop
		for (i = 0; i < ty_symbols_nwarnings(s); i++)
			said |= strncmp(ty_symbols_warning(s, i), want, strlen(want)) == 0;
		if (!CHECK(said)) {
			printf("  %s: wanted a warning starting '%s', got:\n", cases[k].kind, want);
			for (i = 0; i < ty_symbols_nwarnings(s); i++)
				printf("    %s\n", ty_symbols_warning(s, i));
		}
		ty_symbols_free(s);
	}
	/* the undamaged program: named, nothing said */
	{
		struct ty_symbols *s = ty_symbols_new();

		snprintf(path, sizeof(path), "%s/p", dir);
		CHECK_STR(ty_symbols_lookup_file(s, path, w), "work");
		CHECK_INT(ty_symbols_nwarnings(s), 0);
		ty_symbols_free(s);
	}
out:
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
#endif
}

/* The batch names what ty_symbols_resolve and ty_symbols_frames name, one
 * file at a time: every file it read is let go once its addresses are
 * named (and read again by a later look-up, to the same names), the
 * build-id and segments staying. */
static void
test_batch(void)
{
	struct ty_symbols *s = ty_symbols_new(), *direct = ty_symbols_new();
	struct ty_symbatch *b = ty_symbatch_new(s, 8);
	struct ty_error e = {0};
	uint32_t pid = (uint32_t)getpid();
	const uint64_t ips[] = {
	    (uint64_t)(uintptr_t)&tsym_marker_function + 2, (uint64_t)(uintptr_t)&fopen + 1, 16,
	    (uint64_t)(uintptr_t)&test_batch + 8, (uint64_t)(uintptr_t)&strtoul + 3};
	struct ty_dso_frame fb[8], fd[8];
	struct ty_dso_info info, again;
	struct ty_sym_result rb, rd;
	size_t i, k, nfiles = 0;
	long n;

	if (!CHECK(s && direct && b))
		goto out;
	CHECK(ty_symbols_load_maps(s, "/proc", pid, 0, &e) > 0);
	CHECK(ty_symbols_load_maps(direct, "/proc", pid, 0, &e) > 0);
	for (i = 0; i < sizeof(ips) / sizeof(*ips); i++) {
		CHECK_INT(ty_symbatch_add(b, pid, 0, ips[i], 0), 0);
		CHECK_INT(ty_symbatch_add(b, pid, 0, ips[i], 0), 0); /* once */
	}
	CHECK_INT(ty_symbatch_get(b, pid, 1, ips[0], &rb, fb, 8), -1); /* another tag */
	CHECK_INT(ty_symbatch_add(b, pid, 0, TY_KERNEL_START + 16, 0), -EINVAL);
	CHECK_INT(ty_symbatch_run(b), 0);
	for (i = 0; i < sizeof(ips) / sizeof(*ips); i++) {
		ty_symbols_resolve(direct, pid, ips[i], 0, 0, &rd);
		k = rd.name ? ty_symbols_frames(direct, &rd, fd, 8) : 0;
		n = ty_symbatch_get(b, pid, 0, ips[i], &rb, fb, 8);
		if (!CHECK(n == (long)k))
			continue;
		CHECK_STR(rb.name, rd.name);
		CHECK_STR(rb.dso, rd.dso);
		CHECK(rb.addr == rd.addr);
		CHECK(rb.handle == NULL);
		for (k = 0; k < (size_t)n; k++) {
			CHECK_STR(fb[k].name, fd[k].name);
			CHECK_STR(fb[k].file, fd[k].file);
			CHECK_INT(fb[k].line, fd[k].line);
			CHECK_INT(fb[k].inlined, fd[k].inlined);
		}
	}
#ifdef HAVE_LIBELF
	ty_symbatch_get(b, pid, 0, ips[0], &rb, fb, 8);
	CHECK_STR(rb.name, "tsym_marker_function");
#endif
#ifdef HAVE_LIBDW /* this program has DWARF: the function's own frame, with its line */
	n = ty_symbatch_get(b, pid, 0, ips[3], &rb, fb, 8);
	if (CHECK(n > 0)) {
		CHECK_STR(fb[n - 1].name, "test_batch");
		CHECK(fb[n - 1].line > 0 && fb[n - 1].file && strstr(fb[n - 1].file, "t-symbols"));
	}
#endif
	/* each file mapped where an address is (this program, libc, a
	 * sanitizer's runtime) let go once */
	for (i = 0; i < sizeof(ips) / sizeof(*ips); i++) {
		ty_symbols_resolve(direct, pid, ips[i], 0, 0, &rd);
		for (k = 0; k < i; k++) {
			ty_symbols_resolve(direct, pid, ips[k], 0, 0, &rb);
			if (strcmp(rb.dso, rd.dso) == 0)
				break;
		}
		nfiles += k == i && rd.dso[0] == '/';
	}
	CHECK(nfiles >= 2);
	CHECK_INT(ty_symbatch_released(b), nfiles);
	ty_symbols_resolve(direct, pid, ips[0], 0, 0, &rd);
	/* what stays: the build-id and the executable segment */
	CHECK_INT(ty_symbols_dso_info(s, rd.dso, &info),
		  ty_symbols_dso_info(direct, rd.dso, &again));
	CHECK_STR(info.build_id ? info.build_id : "", again.build_id ? again.build_id : "");
	CHECK(info.start == again.start && info.limit == again.limit);
	/* read again after it was let go, to the same name */
	ty_symbols_resolve(s, pid, ips[0], 0, 0, &rb);
	ty_symbols_resolve(direct, pid, ips[0], 0, 0, &rd);
	CHECK_STR(rb.name, rd.name);
out:
	ty_symbatch_free(b);
	ty_symbols_free(s);
	ty_symbols_free(direct);
}

#ifdef HAVE_LIBDW
/* The line-table rows of all the units of the file FD's DWARF. */
static size_t
dwarf_rows(int fd)
{
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	Dwarf_Off off = 0, next;
	size_t hsize, rows = 0, n;
	Dwarf_Die cu;
	Dwarf_Lines *lines;

	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0)
			rows += n;
		off = next;
	}
	if (dw)
		dwarf_end(dw);
	return rows;
}
#endif

/* A batch over every function of this program (its DWARF has more line
 * rows than a file's handle keeps, so the handle is renewed on the way):
 * the names, inline frames and lines are those of one look-up at a time,
 * made in the reverse order. */
static void
test_batch_many(void)
{
#ifdef HAVE_LIBDW
	struct ty_symbols *s = ty_symbols_new(), *direct = ty_symbols_new();
	struct ty_symbatch *b = ty_symbatch_new(s, 8);
	int fd = open("/proc/self/exe", O_RDONLY);
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t *ips = NULL, bias = 0;
	size_t nips = 0, i, k, bad = 0, rows;
	uint32_t pid = (uint32_t)getpid();
	struct ty_error e = {0};

	if (!CHECK(s && direct && b && fd >= 0))
		goto out;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			Elf_Data *data = elf_getdata(scn, NULL);
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			GElf_Sym sym;
			ips = calloc(n ? n : 1, sizeof(*ips));
			for (i = 0; ips && data && i < n; i++)
				if (gelf_getsym(data, (int)i, &sym) &&
				    GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_value &&
				    sym.st_size > 1) {
					const char *nm = elf_strptr(elf, sh.sh_link, sym.st_name);
					ips[nips++] = sym.st_value + sym.st_size / 2;
					if (nm && strcmp(nm, "tsym_marker_function") == 0)
						bias = (uint64_t)(uintptr_t)&tsym_marker_function -
						       sym.st_value;
				}
		}
	rows = dwarf_rows(fd);
	if (!CHECK(nips > 100 && bias))
		goto out;
	if (rows <= 16384) /* a build without -g, or a small one */
		printf("# %zu line rows: the handle is not renewed here\n", rows);
	CHECK(ty_symbols_load_maps(s, "/proc", pid, 0, &e) > 0);
	CHECK(ty_symbols_load_maps(direct, "/proc", pid, 0, &e) > 0);
	for (i = 0; i < nips; i++)
		CHECK_INT(ty_symbatch_add(b, pid, 0, ips[i] + bias, 0), 0);
	CHECK_INT(ty_symbatch_run(b), 0);
	for (i = nips; i-- > 0;) {
		struct ty_dso_frame fb[8], fd8[8];
		struct ty_sym_result rb, rd;
		long n = ty_symbatch_get(b, pid, 0, ips[i] + bias, &rb, fb, 8), m;
		ty_symbols_resolve(direct, pid, ips[i] + bias, 0, 0, &rd);
		m = rd.name ? (long)ty_symbols_frames(direct, &rd, fd8, 8) : 0;
		int same = n == m && (rb.name == rd.name ||
				      (rb.name && rd.name && strcmp(rb.name, rd.name) == 0));
		for (k = 0; same && k < (size_t)n; k++)
			same =
			    strcmp(fb[k].name, fd8[k].name) == 0 && fb[k].line == fd8[k].line &&
			    fb[k].inlined == fd8[k].inlined &&
			    (fb[k].file == fd8[k].file ||
			     (fb[k].file && fd8[k].file && strcmp(fb[k].file, fd8[k].file) == 0));
		if (!same && bad++ < 5)
			printf("# %s: the batch and one look-up differ\n", rd.name ? rd.name : "?");
	}
	CHECK_INT((int)bad, 0);
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(ips);
	ty_symbatch_free(b);
	ty_symbols_free(s);
	ty_symbols_free(direct);
#endif
}

int
main(void)
{
	test_self();
	test_anon_exec();
	test_fork_exec();
	test_covers();
	test_epochs();
	test_corrupt_elf();
	test_kallsyms();
	test_warn_stripped();
	test_stripped_main();
	test_damaged_symtab();
	test_batch();
	test_batch_many();
	return check_done();
}
