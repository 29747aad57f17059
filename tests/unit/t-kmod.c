/* t-kmod.c - kernel module symbols from a kallsyms-format fixture
 * (tests/unit/data/kallsyms-modules): module text symbols named with the
 * module as DSO, the core kernel's left to the kernel table, bad lines
 * skipped; then through ty_symbols_resolve. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tachy/kmod.h"
#include "tachy/symbols.h"

static void
lookups(const struct ty_kmod *k)
{
	const char *mod = NULL;

	CHECK_INT(ty_kmod_nsyms(k), 7);
	CHECK_INT(ty_kmod_nmodules(k), 3);
	CHECK(ty_kmod_lookup(k, 0xffffffff81000100ull, &mod) == NULL); /* the core's */
	CHECK(ty_kmod_lookup(k, 0xffffffffc01fffffull, &mod) == NULL); /* before all */
	CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0200000ull, &mod), "ext4_sync_fs");
	CHECK_STR(mod, "[ext4]");
	CHECK_STR(ty_kmod_lookup(k, 0xffffffffc020007full, &mod), "ext4_sync_fs");
	CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0200080ull, &mod), "ext4_alias_first");
	/* two names at one address: the one listed first */
	CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0200100ull, &mod), "ext4_file_write_iter");
	CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0200fffull, &mod), "ext4_file_write_iter");
	CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0200fffull + 1 + 4096, &mod), NULL);
	CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0300041ull, &mod), "e1000_clean");
	CHECK_STR(mod, "[e1000]");
	CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0400010ull, &mod), "tramp");
	CHECK_STR(mod, "[__builtin__ftrace]");
	CHECK(ty_kmod_lookup(k, 0xffffffffc0500000ull, &mod) == NULL);
}

int
main(void)
{
	const char *top = getenv("TOP");
	char path[4096];
	struct ty_kmod *k;
	struct ty_error e = {0};
	struct ty_symbols *s;
	struct ty_sym_result r;
	const char *empty = "", *mod = NULL;

	snprintf(path, sizeof(path), "%s/tests/unit/data/kallsyms-modules", top ? top : ".");
	CHECK_INT(ty_kmod_read(&k, path, &e), 0);
	if (k)
		lookups(k);
	ty_kmod_free(k);
	CHECK(ty_kmod_read(&k, "/nonexistent/kallsyms", &e) < 0);
	CHECK(k == NULL);
	{ /* a FIFO where the file was expected: refused at once, never waited on */
		char fifo[] = "/tmp/t-kmod-XXXXXX";
		char *dir = mkdtemp(fifo), fp[64];
		CHECK(dir != NULL);
		snprintf(fp, sizeof(fp), "%s/fifo", dir ? dir : "/tmp");
		CHECK_INT(mkfifo(fp, 0600), 0);
		CHECK_INT(ty_kmod_read(&k, fp, &e), -EINVAL);
		CHECK(strstr(e.msg, "is a FIFO") != NULL);
		CHECK(k == NULL);
		unlink(fp);
		rmdir(dir);
	}
	CHECK_INT(ty_kmod_parse(&k, empty, 0), 0);
	CHECK_INT(ty_kmod_nsyms(k), 0);
	CHECK(ty_kmod_lookup(k, 0xffffffffc0200000ull, NULL) == NULL);
	ty_kmod_free(k);
	{ /* a NUL byte in a module's or a symbol's name: the line is skipped */
		static const char nul[] = "ffffffffc0200000 t ext4_sync\0fs\t[ext4]\n"
					  "ffffffffc0200080 t ext4_a\t[ex\0t4]\n"
					  "ffffffffc0300000 t e1000_intr\t[e1000]\n";

		CHECK_INT(ty_kmod_parse(&k, nul, sizeof(nul) - 1), 0);
		CHECK_INT(ty_kmod_nsyms(k), 1);
		CHECK_INT(ty_kmod_nmodules(k), 1);
		CHECK(ty_kmod_lookup(k, 0xffffffffc0200080ull, &mod) == NULL);
		CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0300010ull, &mod), "e1000_intr");
		CHECK_STR(mod, "[e1000]");
		ty_kmod_free(k);
	}
	{ /* runs of the core's lines, before and between a module's: only
	   * where a module's symbols end do they matter, and there they do */
		static const char runs[] = "ffffffff81000000 T a\nffffffff81000100 T b\n"
					   "ffffffff81000200 T c\nffffffffc0200000 t m1\t[x]\n"
					   "ffffffffc0200100 T core1\nffffffffc0200200 T core2\n"
					   "ffffffffc0200300 t m2\t[x]\nffffffffc0200400 T core3\n"
					   "ffffffffc0200500 T core4\nffffffffc0300000 t m3\t[y]\n";

		CHECK_INT(ty_kmod_parse(&k, runs, sizeof(runs) - 1), 0);
		CHECK_INT(ty_kmod_nsyms(k), 3);
		CHECK(ty_kmod_lookup(k, 0xffffffff81000150ull, &mod) == NULL);
		CHECK(ty_kmod_lookup(k, 0xffffffff81000250ull, &mod) == NULL);
		CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0200050ull, &mod), "m1");
		CHECK(ty_kmod_lookup(k, 0xffffffffc0200150ull, &mod) == NULL);
		CHECK(ty_kmod_lookup(k, 0xffffffffc0200250ull, &mod) == NULL);
		CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0200300ull, &mod), "m2");
		CHECK_STR(ty_kmod_lookup(k, 0xffffffffc02003ffull, &mod), "m2");
		CHECK(ty_kmod_lookup(k, 0xffffffffc0200400ull, &mod) == NULL);
		CHECK(ty_kmod_lookup(k, 0xffffffffc0200600ull, &mod) == NULL);
		CHECK_STR(ty_kmod_lookup(k, 0xffffffffc0300010ull, &mod), "m3");
		CHECK_STR(mod, "[y]");
		ty_kmod_free(k);
	}

	s = ty_symbols_new();
	ty_symbols_set_kallsyms(s, path);
	ty_symbols_resolve(s, 1, 0xffffffffc0300010ull, 0, 1, &r);
	CHECK_STR(r.name, "e1000_intr");
	CHECK_STR(r.dso, "[e1000]");
	CHECK_INT(r.kernel, 1);
	ty_symbols_resolve(s, 1, 0xffffffff81000180ull, 0, 1, &r);
	CHECK_STR(r.name, "do_one_initcall");
	CHECK_STR(r.dso, "[kernel.kallsyms]");
	ty_symbols_free(s);
	return check_done();
}
