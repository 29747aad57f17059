/* demangle.c - C++ and Rust names demangled (see demangle.h). */
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "tachy/array.h"
#include "tachy/demangle.h"
#include "tachy/dynlib.h"

#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

#ifdef HAVE_LIBIBERTY

/* The demangled text, gathered from the demangler's callback. Past
 * TY_DEMANGLE_MAX_OUT (or out of memory) the demangling is given up at
 * once: a few hundred bytes of back-references ask for terabytes
 * ("_RMC0" "T"x40 "p" "B..._E"x40), and libiberty has no bound of its own.
 * The callback jumps out of it: the _callback entry points are
 * libiberty's "allocation-less demangler interfaces" (their state is on
 * the stack, no lock is taken), so nothing is left behind. */
struct sink {
	char *buf;
	size_t len, cap;
	jmp_buf out;
};

static void
sink_put(const char *s, size_t n, void *opaque)
{
	struct sink *k = opaque;

	if (!n) /* libiberty's Rust printer passes (NULL, 0) */
		return;
	if (n >= TY_DEMANGLE_MAX_OUT - k->len ||
	    ty_array_grow(&k->buf, 1, k->len + n + 1, &k->cap) < 0)
		longjmp(k->out, 1);
	memcpy(k->buf + k->len, s, n);
	k->len += n;
	k->buf[k->len] = '\0';
}

/* libiberty's Rust demangler decides what is Rust: a v0 name (_R...), or a
 * legacy one whose last element is the 17h<16 hex> hash (a C++ name never
 * ends so). Its output drops the hash and any suffix after the closing E
 * or after a v0 path (.llvm.N, .cold), as perf's names do. Everything
 * else that starts _Z is C++, its clone suffixes printed " [clone .cold]".
 * DMGL_PARAMS | DMGL_ANSI: a C++ function's parameters and qualifiers,
 * "ns::Box<long>::spin(long) const". */
#define DMGL_FLAGS (DMGL_PARAMS | DMGL_ANSI)

typedef int (*demangler_fn)(const char *, int, demangle_callbackref, void *);

/* FN's demangling of NAME into K (emptied first); 1 when it succeeded
 * within the bounds. */
static int
run(demangler_fn fn, const char *name, struct sink *k)
{
	k->len = 0;
	if (setjmp(k->out))
		return 0;
	return fn(name, DMGL_FLAGS, sink_put, k) && k->len;
}

static char *
demangle_with(const char *name)
{
	struct sink k = {0};

	if (run(rust_demangle_callback, name, &k) ||
	    (name[1] == 'Z' && run(cplus_demangle_v3_callback, name, &k)))
		return k.buf;
	free(k.buf);
	return NULL;
}

int
ty_demangle_can(void)
{
	return 1;
}

int
ty_demangle_can_rust(void)
{
	return 1;
}

const char *
ty_demangle_backend(void)
{
	return "libiberty";
}

#else /* !HAVE_LIBIBERTY: C++ only, through libstdc++ when it loads */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void
cxa_load(void)
{
	const struct ty_dynlib_sym sym = {"__cxa_demangle", (void **)&cxa_demangle};

	if (ty_dynlib_load("libstdc++.so.6", "libstdc++6", &sym, 1, NULL) < 0)
		cxa_demangle = NULL;
}

static char *
demangle_with(const char *name)
{
	int status = -1;
	char *out;

	pthread_once(&cxa_once, cxa_load);
	if (name[1] != 'Z' || !cxa_demangle)
		return NULL;
	out = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0 || !out || strlen(out) >= TY_DEMANGLE_MAX_OUT) {
		free(out);
		return NULL;
	}
	return out;
}

int
ty_demangle_can(void)
{
	pthread_once(&cxa_once, cxa_load);
	return cxa_demangle != NULL;
}

int
ty_demangle_can_rust(void)
{
	return 0;
}

const char *
ty_demangle_backend(void)
{
	return ty_demangle_can() ? "libstdc++" : "none";
}

#endif

/* Cut a C++ clone's suffixes off the demangled D ("foo(int) [clone
 * .isra.0] [clone .cold]" -> "foo(int)"), as perf's names drop them: the
 * cold part and the compiler's copies of a function are that function.
 * Both demanglers print each suffix of the mangled name's end (.cold,
 * .isra.0, .constprop.0, .part.1, .llvm.N) so: " [clone ." then [a-z0-9_.]
 * then "]". Only such groups up to the end are cut (a name of the
 * program's own may hold that text), and never the whole name. */
static void
drop_clones(char *d)
{
	static const char tag[] = " [clone .";
	char *cut, *p;

	for (cut = strstr(d + 1, tag); cut; cut = strstr(cut + 1, tag)) {
		p = cut;
		while (!strncmp(p, tag, sizeof(tag) - 1)) {
			p += sizeof(tag) - 1;
			p += strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_.");
			if (*p++ != ']')
				break;
			if (!*p) {
				*cut = '\0';
				return;
			}
		}
	}
}

char *
ty_demangle(const char *name)
{
	char *d;

	/* Only _Z (C++, Rust legacy) and _R (Rust v0): libiberty's other
	 * schemes would read a C name such as foo__bar as Ada's foo.bar. */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	if (strnlen(name, TY_DEMANGLE_MAX_IN + 1) > TY_DEMANGLE_MAX_IN)
		return NULL;
	if ((d = demangle_with(name)) && name[1] == 'Z')
		drop_clones(d);
	return d;
}
