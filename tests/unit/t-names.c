/* t-names.c - names for code without a symbol table, on binaries the test
 * compiles: PLT entries (with and without IBT's .plt.sec), an untyped code
 * label, aliases, .eh_frame function ranges of a stripped copy, a
 * .gnu_debuglink debug file (its CRC checked), MiniDebugInfo made with
 * objcopy and xz as Fedora does, debuginfod from a loopback server, JIT
 * code in a perf map, a child's samples before its exec, inline frames
 * and source lines with -O2 -g. Damaged inputs give a warning and a
 * fallback name, never a crash. */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "tachy/symbols.h"

static const char prog[] =
    "#include <stdlib.h>\n"
    "int tn_pub(int x);\n"
    "__attribute__((noinline)) int tn_pub(int x) { return x * 3 + 1; }\n"
    "extern int __tn_pub(int) __attribute__((alias(\"tn_pub\")));\n"
    "static int __GI_tn_pub(int) __attribute__((alias(\"tn_pub\"), used));\n"
    "__asm__(\".text\\n.globl tn_label\\ntn_label:\\n\\tnop\\n\\tnop\\n\\tret\\n\");\n"
    "__attribute__((noinline)) static int tn_static(int x) { volatile int y = x; return y * 5; "
    "}\n"
    "static inline __attribute__((always_inline)) int tn_inl(int x) {\n"
    "\tint s = 0;\n"
    "\tfor (int i = 0; i < x; i++) s += i * x;\n"
    "\treturn s;\n"
    "}\n"
    "__attribute__((noinline)) int tn_outer(int x) { return tn_inl(x) + 1; }\n"
    "int main(int argc, char **argv) {\n"
    "\tchar *p = malloc(16 + argc);\n"
    "\tint r = tn_pub(argc) + tn_static(argc) + tn_outer(argc) + (p != 0);\n"
    "\tfree(p);\n"
    "\treturn r & 1;\n"
    "}\n";

static char dir[64];

static int __attribute__((format(printf, 1, 2))) sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The address nm gives SYM in FILE, 0 when none. */
static uint64_t
nm_addr(const char *file, const char *sym)
{
	char cmd[512], line[512], name[256], type;
	unsigned long long a;
	uint64_t r = 0;
	FILE *fp;

	snprintf(cmd, sizeof(cmd), "nm %s 2>/dev/null", file);
	if (!(fp = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && strcmp(name, sym) == 0)
			r = a;
	pclose(fp);
	return r;
}

/* The address objdump gives SYM@plt in FILE, 0 when none. */
static uint64_t
plt_addr(const char *file, const char *sym)
{
	char cmd[512], line[512], want[300];
	unsigned long long a;
	uint64_t r = 0;
	FILE *fp;

	snprintf(cmd, sizeof(cmd), "objdump -d %s 2>/dev/null", file);
	snprintf(want, sizeof(want), "<%s@plt>:", sym);
	if (!(fp = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, want) && sscanf(line, "%llx", &a) == 1)
			r = a;
	pclose(fp);
	return r;
}

static const char *
look(const char *file, uint64_t addr)
{
	static char buf[512];
	struct ty_symbols *s = ty_symbols_new();
	const char *n;

	ty_symbols_set_debug_root(s, "/nonexistent");
	n = ty_symbols_lookup_file(s, file, addr);
	snprintf(buf, sizeof(buf), "%s", n ? n : "(null)");
	ty_symbols_free(s);
	return buf;
}

/* The name of ADDR in FILE, and whether a warning contains WANT. */
static const char *
look_warn(const char *file, uint64_t addr, const char *want, int *warned)
{
	static char buf[512];
	struct ty_symbols *s = ty_symbols_new();
	const char *n;
	size_t i;

	ty_symbols_set_debug_root(s, "/nonexistent");
	n = ty_symbols_lookup_file(s, file, addr);
	snprintf(buf, sizeof(buf), "%s", n ? n : "(null)");
	*warned = 0;
	for (i = 0; i < ty_symbols_nwarnings(s); i++)
		if (strstr(ty_symbols_warning(s, i), want))
			*warned = 1;
	ty_symbols_free(s);
	return buf;
}

static void
test_plt_labels_aliases(void)
{
	char pi[128], pl[128];
	uint64_t a;

	snprintf(pi, sizeof(pi), "%s/pi", dir);
	snprintf(pl, sizeof(pl), "%s/pl", dir);
	/* IBT: calls go through .plt.sec; the lazy stubs in .plt. */
	CHECK_INT(sh("cc -O2 -g -fcf-protection=full -Wl,-z,ibtplt -o %s %s/p.c", pi, dir), 0);
	CHECK_INT(sh("cc -O2 -g -fcf-protection=none -o %s %s/p.c", pl, dir), 0);
	CHECK((a = plt_addr(pi, "malloc")) != 0);
	CHECK_STR(look(pi, a + 4), "malloc@plt");
	CHECK_STR(look(pi, plt_addr(pi, "free")), "free@plt");
	CHECK_STR(look(pi, plt_addr(pi, "__cxa_finalize")), "__cxa_finalize@plt"); /* .plt.got */
	CHECK((a = plt_addr(pl, "malloc")) != 0);
	CHECK_STR(look(pl, a + 2), "malloc@plt");
	CHECK_STR(look(pl, plt_addr(pl, "free")), "free@plt");
	/* An untyped label in .text names its code up to the next symbol. */
	CHECK_STR(look(pi, nm_addr(pi, "tn_label") + 1), "tn_label");
	/* tn_pub, not __tn_pub (underscores) nor __GI_tn_pub (local). */
	CHECK_STR(look(pi, nm_addr(pi, "tn_pub")), "tn_pub");
	CHECK_STR(look(pi, nm_addr(pi, "tn_static") + 1), "tn_static");
}

/* A library's call to its own hidden IFUNC goes through a PLT entry with
 * an IRELATIVE relocation (no symbol; its addend is the resolver): named
 * for the IFUNC symbol at the resolver, or objdump's *ABS*+0xADDR when the
 * copy is stripped. */
static void
test_plt_irelative(void)
{
	char so[128], st[128], src[128], name[300] = "", line[512], cmd[300];
	unsigned long long a = 0;
	FILE *fp;

	snprintf(so, sizeof(so), "%s/libif.so", dir);
	snprintf(st, sizeof(st), "%s/libif-stripped.so", dir);
	snprintf(src, sizeof(src), "%s/if.c", dir);
	if (!(fp = fopen(src, "w")))
		return;
	fputs(
	    "static int tn_impl(void) { return 7; }\n"
	    "static void *__tn_resolve(void) { return (void *)tn_impl; }\n"
	    "int tn_ifunc(void) __attribute__((ifunc(\"__tn_resolve\"), visibility(\"hidden\")));\n"
	    "int tn_call(void) { return tn_ifunc() + 1; }\n",
	    fp);
	fclose(fp);
	CHECK_INT(sh("cc -O2 -fPIC -shared -o %s %s && strip -o %s %s", so, src, st, so), 0);
	snprintf(cmd, sizeof(cmd), "objdump -d %s 2>/dev/null", st);
	if (!(fp = popen(cmd, "r")))
		return;
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, "<*ABS*+0x") && strstr(line, "@plt>:") &&
		    sscanf(line, "%llx <%299[^>]>", &a, name) == 2)
			break;
	pclose(fp);
	if (!CHECK(a != 0)) /* ld made no IRELATIVE PLT entry */
		return;
	CHECK_STR(look(so, a), "tn_ifunc@plt");
	CHECK_STR(look(st, a), name);
}

/* libc's aliases, as Debian ships it. */
static void
test_libc_aliases(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	char cmd[256], line[256], name[128], type;
	unsigned long long a, m = 0, r = 0;
	FILE *fp;

	if (access(libc, R_OK) != 0) {
		printf("# skip: no %s\n", libc);
		return;
	}
	snprintf(cmd, sizeof(cmd), "nm -D %s 2>/dev/null", libc);
	if (!(fp = popen(cmd, "r")))
		return;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3) {
			name[strcspn(name, "@")] = '\0'; /* the version */
			if (strcmp(name, "__libc_malloc") == 0)
				m = a;
			if (strcmp(name, "__libc_read") == 0 || strcmp(name, "__read") == 0)
				r = a;
		}
	pclose(fp);
	CHECK(m != 0);
	CHECK_STR(look(libc, m), "malloc");
	if (r)
		CHECK_STR(look(libc, r), "read");
}

static void
test_stripped(void)
{
	char st[128], pi[128], name[256];
	uint64_t a;
	int w;

	snprintf(pi, sizeof(pi), "%s/pi", dir);
	snprintf(st, sizeof(st), "%s/st", dir);
	CHECK_INT(sh("objcopy --strip-all %s %s", pi, st), 0);
	/* Each stripped function is one range of the call-frame information,
	 * named for the file and the range's start. */
	a = nm_addr(pi, "tn_static");
	snprintf(name, sizeof(name), "st+0x%" PRIx64, a);
	CHECK_STR(look(st, a), name);
	CHECK_STR(look(st, a + 3), name);
	a = nm_addr(pi, "tn_outer");
	snprintf(name, sizeof(name), "st+0x%" PRIx64, a);
	CHECK_STR(look(st, a + 5), name);
	CHECK_STR(look(st, plt_addr(pi, "malloc")), "malloc@plt");
	/* The entry point keeps its name: the range at e_entry is _start. */
	a = nm_addr(pi, "_start");
	CHECK(a != 0);
	CHECK_STR(look(st, a + 1), "_start");
	CHECK_STR(look_warn(st, nm_addr(pi, "tn_outer"), "is stripped", &w), name);
	CHECK(w);
}

static void
test_debuglink(void)
{
	char pi[128], dl[128], d2[128], d3[128];
	uint64_t a;
	int w;

	snprintf(pi, sizeof(pi), "%s/pi", dir);
	snprintf(dl, sizeof(dl), "%s/dl", dir);
	a = nm_addr(pi, "tn_static");
	/* Beside the binary. */
	CHECK_INT(sh("objcopy --only-keep-debug %s %s/pi.debug && cd %s && objcopy --strip-all "
		     "--add-gnu-debuglink=pi.debug pi dl",
		     pi, dir, dir),
		  0);
	CHECK_STR(look(dl, a + 1), "tn_static");
	/* In .debug/ beside it. */
	snprintf(d2, sizeof(d2), "%s/d2", dir);
	CHECK_INT(
	    sh("mkdir -p %s/.debug && cp %s %s/ && cp %s/pi.debug %s/.debug/", d2, dl, d2, dir, d2),
	    0);
	snprintf(d2, sizeof(d2), "%s/d2/dl", dir);
	CHECK_STR(look(d2, a + 1), "tn_static");
	/* A file of that name that is not the debug file: its CRC differs. */
	snprintf(d3, sizeof(d3), "%s/d3", dir);
	CHECK_INT(sh("mkdir -p %s && cp %s %s/ && objcopy --only-keep-debug %s/pl %s/pi.debug", d3,
		     dl, d3, dir, d3),
		  0);
	snprintf(d3, sizeof(d3), "%s/d3/dl", dir);
	{
		char name[64];
		snprintf(name, sizeof(name), "dl+0x%" PRIx64, a);
		CHECK_STR(look_warn(d3, a, "CRC differs", &w), name);
		CHECK(w);
	}
	/* A damaged section: no NUL, no CRC. */
	CHECK_INT(sh("cd %s && printf 'xxxxxxx' > junk && objcopy --strip-all --add-section "
		     ".gnu_debuglink=junk pi badlink",
		     dir),
		  0);
	snprintf(d3, sizeof(d3), "%s/badlink", dir);
	look_warn(d3, a, "damaged .gnu_debuglink", &w);
	CHECK(w);
	/* By build-id under the debug root. */
	{
		struct ty_symbols *s = ty_symbols_new();
		char root[128], hex[130] = "", line[256];
		FILE *fp;
		snprintf(line, sizeof(line), "readelf -n %s | awk '/Build ID/{print $3}'", pi);
		if ((fp = popen(line, "r"))) {
			if (!fgets(hex, sizeof(hex), fp))
				hex[0] = '\0';
			pclose(fp);
		}
		hex[strcspn(hex, "\n")] = '\0';
		CHECK(strlen(hex) > 4);
		snprintf(root, sizeof(root), "%s/root", dir);
		CHECK_INT(
		    sh("mkdir -p %s/.build-id/%.2s && cp %s/pi.debug %s/.build-id/%.2s/%s.debug "
		       "&& objcopy --strip-all %s %s/byid",
		       root, hex, dir, root, hex, hex + 2, pi, dir),
		    0);
		ty_symbols_set_debug_root(s, root);
		snprintf(line, sizeof(line), "%s/byid", dir);
		CHECK_STR(ty_symbols_lookup_file(s, line, a + 1), "tn_static");
		ty_symbols_free(s);
	}
}

static void
test_minidebuginfo(void)
{
	char md[128], name[64];
	uint64_t a;
	int w;

	if (sh("command -v xz >/dev/null") != 0) {
		printf("# skip: no xz\n");
		return;
	}
	snprintf(md, sizeof(md), "%s/pi", dir);
	a = nm_addr(md, "tn_static");
	snprintf(md, sizeof(md), "%s/md", dir);
	/* Fedora's recipe: the symbols of the debug file without DWARF,
	 * xz-compressed, in .gnu_debugdata of the stripped binary. */
	CHECK_INT(sh("cd %s && objcopy --only-keep-debug pi mini && objcopy --strip-debug "
		     "--remove-section .comment mini mini2 && rm -f mini2.xz && xz -k mini2 && "
		     "objcopy --strip-all --add-section .gnu_debugdata=mini2.xz pi md",
		     dir),
		  0);
#ifdef HAVE_LZMA
	CHECK_STR(look(md, a + 1), "tn_static");
#else
	look_warn(md, a + 1, "not built with liblzma", &w);
	CHECK(w);
#endif
	/* Damaged: not xz data, and xz data that is not ELF. */
	snprintf(name, sizeof(name), "bad+0x%" PRIx64, a);
	CHECK_INT(sh("cd %s && printf 'not xz at all' > junk2 && objcopy --strip-all --add-section "
		     ".gnu_debugdata=junk2 pi bad",
		     dir),
		  0);
	snprintf(md, sizeof(md), "%s/bad", dir);
	CHECK_STR(look_warn(md, a, "MiniDebugInfo", &w), name);
	CHECK(w);
	CHECK_INT(sh("cd %s && printf 'plain text' | xz > junk3 && objcopy --strip-all "
		     "--add-section .gnu_debugdata=junk3 pi bad",
		     dir),
		  0);
	CHECK_STR(look_warn(md, a, "MiniDebugInfo", &w), name);
#ifdef HAVE_LZMA
	CHECK(w);
#endif
}

/* debuginfod: a loopback server (python3) serving buildid/ID/debuginfo. */
static void
test_debuginfod(void)
{
#ifdef HAVE_DEBUGINFOD
	char pi[128], line[512], hex[130] = "", port[32] = "";
	struct ty_symbols *s;
	uint64_t a;
	FILE *fp;
	int i;

	if (sh("command -v python3 >/dev/null") != 0) {
		printf("# skip: no python3 for a debuginfod server\n");
		return;
	}
	snprintf(pi, sizeof(pi), "%s/pi", dir);
	a = nm_addr(pi, "tn_static");
	snprintf(line, sizeof(line), "readelf -n %s | awk '/Build ID/{print $3}'", pi);
	if ((fp = popen(line, "r"))) {
		if (!fgets(hex, sizeof(hex), fp))
			hex[0] = '\0';
		pclose(fp);
	}
	hex[strcspn(hex, "\n")] = '\0';
	CHECK_INT(sh("cd %s && mkdir -p srv/buildid/%s && cp pi.debug srv/buildid/%s/debuginfo && "
		     "objcopy --strip-all pi nolink",
		     dir, hex, hex),
		  0);
	/* The server stops by itself after 60 s; the test kills it first. */
	CHECK_INT(sh("cd %s/srv && (timeout 60 python3 -c 'import http.server,socketserver,sys\n"
		     "h=http.server.SimpleHTTPRequestHandler\n"
		     "h.log_message=lambda *a: None\n"
		     "s=socketserver.TCPServer((\"127.0.0.1\",0),h)\n"
		     "open(\"../port.tmp\",\"w\").write(str(s.server_address[1]))\n"
		     "import os; os.rename(\"../port.tmp\",\"../port\")\n"
		     "s.serve_forever()' >/dev/null 2>&1 & echo $! > ../server.pid)",
		     dir),
		  0);
	snprintf(line, sizeof(line), "%s/port", dir);
	for (i = 0; i < 100 && access(line, R_OK) != 0; i++)
		usleep(50000);
	if ((fp = fopen(line, "r"))) {
		if (!fgets(port, sizeof(port), fp))
			port[0] = '\0';
		fclose(fp);
	}
	if (!*port) {
		printf("# skip: the loopback debuginfod server did not start\n");
	} else {
		snprintf(line, sizeof(line), "http://127.0.0.1:%s", port);
		setenv("DEBUGINFOD_URLS", line, 1);
		snprintf(line, sizeof(line), "%s/dcache", dir);
		setenv("DEBUGINFOD_CACHE_PATH", line, 1);
		setenv("DEBUGINFOD_TIMEOUT", "10", 1);
		s = ty_symbols_new();
		ty_symbols_set_debug_root(s, "/nonexistent");
		snprintf(line, sizeof(line), "%s/nolink", dir);
		CHECK_STR(ty_symbols_lookup_file(s, line, a + 1), "tn_static");
		ty_symbols_free(s);
		unsetenv("DEBUGINFOD_URLS");
	}
	sh("kill $(cat %s/server.pid) 2>/dev/null", dir);
#else
	printf("# skip: not built with libdebuginfod\n");
#endif
}

static void
test_jit(void)
{
	static const char map[] = "7f0000001000 100 jitted_loop\n"
				  "0x7f0000002000 0x40 [] Lua::function with spaces\r\n"
				  "garbage line\n"
				  "7f0000003000 zz bad_size\n"
				  "7f0000004000 0 zero_size\n"
				  "ffffffffffffffff 10 wraps\n"
				  "\n"
				  "7f0000001000 100 recompiled_loop\n"
				  "7f0000005000 10\n";
	struct ty_symbols *s = ty_symbols_new();
	struct ty_sym_result r;
	char path[128];
	FILE *fp;

	CHECK_INT(ty_symbols_add_perf_map(s, 77, map, sizeof(map) - 1), 5);
	ty_symbols_resolve(s, 77, 0x7f0000001080, 0, 0, &r);
	CHECK_STR(r.name, "recompiled_loop"); /* the latest line wins */
	ty_symbols_resolve(s, 77, 0x7f0000002010, 0, 0, &r);
	CHECK_STR(r.name, "[] Lua::function with spaces");
	ty_symbols_resolve(s, 77, 0x7f0000002040, 0, 0, &r); /* past the end */
	CHECK(r.name == NULL);
	CHECK_STR(r.dso, "[unknown]");
	ty_symbols_free(s);

	/* From the file, for code in an anonymous mapping. */
	s = ty_symbols_new();
	ty_symbols_set_perf_map_dir(s, dir);
	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	if ((fp = fopen(path, "w"))) {
		fputs("7f00000a0000 20 js::fast_path\nbroken\n", fp);
		fclose(fp);
	}
	ty_symbols_add_mmap(s, 4242, 0x7f00000a0000, 0x10000, 0, "//anon", 1);
	ty_symbols_resolve(s, 4242, 0x7f00000a0004, 2, 0, &r);
	CHECK_STR(r.name, "js::fast_path");
	CHECK_STR(r.dso, path);
	CHECK(ty_symbols_nwarnings(s) == 1 && strstr(ty_symbols_warning(s, 0), "1 malformed line"));
	ty_symbols_free(s);
}

/* A child's samples from before its exec are in the image it forked with. */
static void
test_before_exec(void)
{
	struct ty_symbols *s = ty_symbols_new();
	struct ty_sym_result r;

	ty_symbols_add_mmap(s, 10, 0x400000, 0x1000, 0, "/nonexistent/sh", 5);
	ty_symbols_fork(s, 11, 10, 6);
	ty_symbols_exec(s, 11, 8);
	ty_symbols_add_mmap(s, 11, 0x400000, 0x1000, 0, "/nonexistent/prog", 9);
	ty_symbols_resolve(s, 11, 0x400010, 7, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/sh");
	ty_symbols_resolve(s, 11, 0x400010, 10, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/prog");
	CHECK(ty_symbols_epoch(s, 11, 7) != ty_symbols_epoch(s, 11, 10));
	/* Two execs: the middle image between them. */
	ty_symbols_exec(s, 11, 20);
	ty_symbols_add_mmap(s, 11, 0x400000, 0x1000, 0, "/nonexistent/third", 21);
	ty_symbols_resolve(s, 11, 0x400010, 15, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/prog");
	ty_symbols_resolve(s, 11, 0x400010, 25, 0, &r);
	CHECK_STR(r.dso, "/nonexistent/third");
	ty_symbols_free(s);
}

static void
test_inline_lines(void)
{
#ifdef HAVE_LIBDW
	struct ty_symbols *s = ty_symbols_new();
	struct ty_dso_frame fr[8];
	struct ty_sym_result r;
	char pi[128];
	uint64_t a, lo, i;
	int found = 0, lined = 0;
	size_t n;

	snprintf(pi, sizeof(pi), "%s/pi", dir);
	lo = nm_addr(pi, "tn_outer");
	/* The PIE's text is at its file offsets: map the file at 0x400000. */
	ty_symbols_add_mmap(s, 1, 0x400000, 0x10000, 0, pi, 0);
	for (i = 0; i < 38; i++) {
		a = 0x400000 + lo + i;
		ty_symbols_resolve(s, 1, a, 1, 0, &r);
		if (!r.name || strcmp(r.name, "tn_outer") != 0)
			continue;
		n = ty_symbols_frames(s, &r, fr, 8);
		if (n >= 1 && fr[n - 1].file && strcmp(fr[n - 1].file, "p.c") == 0)
			lined = 1;
		if (n == 2 && strcmp(fr[0].name, "tn_inl") == 0 && fr[0].inlined &&
		    fr[0].line == 10 && fr[0].file && strcmp(fr[0].file, "p.c") == 0 &&
		    strcmp(fr[1].name, "tn_outer") == 0 && !fr[1].inlined && fr[1].line == 13)
			found = 1;
	}
	CHECK(lined);
	CHECK(found);
	/* No DWARF: no frames. */
	snprintf(pi, sizeof(pi), "%s/st", dir);
	ty_symbols_add_mmap(s, 2, 0x400000, 0x10000, 0, pi, 0);
	ty_symbols_resolve(s, 2, 0x400000 + lo + 1, 1, 0, &r);
	CHECK_INT(ty_symbols_frames(s, &r, fr, 8), 0);
	ty_symbols_free(s);
#else
	printf("# skip: not built with libdw\n");
#endif
}

int
main(void)
{
	char path[128];
	FILE *fp;

#ifndef HAVE_LIBELF
	printf("# skip: not built with elfutils\n");
	return check_done();
#endif
	if (sh("command -v cc >/dev/null && command -v objcopy >/dev/null && command -v nm "
	       ">/dev/null && command -v objdump >/dev/null") != 0) {
		printf("# skip: no cc or binutils\n");
		return check_done();
	}
	snprintf(dir, sizeof(dir), "/tmp/t-names.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/p.c", dir);
	if (!(fp = fopen(path, "w")))
		return 1;
	fputs(prog, fp);
	fclose(fp);
	test_plt_labels_aliases();
	test_plt_irelative();
	test_libc_aliases();
	test_stripped();
	test_debuglink();
	test_minidebuginfo();
	test_debuginfod();
	test_jit();
	test_before_exec();
	test_inline_lines();
	sh("rm -rf %s", dir);
	return check_done();
}
