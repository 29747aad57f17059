/* demangle.h - symbol names as their authors wrote them: C++ (Itanium
 * _Z...), Rust's legacy scheme (_ZN...17h<16 hex>E, the hash dropped) and
 * Rust's v0 scheme (_R...), named as perf names them. The one place that
 * demangles: symtab.c, kallsyms.c, dso.c and symbols.c go through it.
 *
 * Built with libiberty (libiberty-dev: HAVE_LIBIBERTY) it knows all three
 * schemes. Without it (make NO_OPTIONAL=1, or no libiberty-dev) C++ names
 * are demangled with libstdc++'s __cxa_demangle where that can be loaded
 * (a Rust legacy name then keeps its hash and its $LT$ escapes, as C++
 * reads it) and v0 names stay mangled.
 *
 * Suffixes are dropped, as perf's names drop them: a C++ clone's (.cold,
 * .isra.0, .constprop.0, .part.1, .llvm.N) is named for its function,
 * "foo(int)" (perf: "foo"; tachy keeps C++ parameters, as it always did);
 * a Rust name's (.llvm.N from ThinLTO, .cold) too, "work::count_words". */
#ifndef TACHY_DEMANGLE_H
#define TACHY_DEMANGLE_H

#include <stddef.h>

/* Names longer than this are not demangled (they stay as they are): the
 * demangler's work and stack grow with the name's length. (C++ names stop
 * at 1,024 characters: libiberty's bound, and libstdc++'s, the same code.) */
#define TY_DEMANGLE_MAX_IN 8192
/* A demangled name longer than this is given up (the mangled name stays):
 * a hostile name's back-references could otherwise expand it without end. */
#define TY_DEMANGLE_MAX_OUT 65536

/* The demangled NAME, malloc'd, or NULL: not a mangled name (a C name), a
 * malformed one, one longer than the limits above, one this build cannot
 * demangle, or out of memory. Safe from several threads. */
char *ty_demangle(const char *name);

/* 1 when C++ names can be demangled on this machine (libiberty built in,
 * or libstdc++ loadable). */
int ty_demangle_can(void);

/* 1 when Rust names (legacy and v0) can be demangled: libiberty built in. */
int ty_demangle_can_rust(void);

/* What demangles in this build: "libiberty", "libstdc++" or "none". */
const char *ty_demangle_backend(void);

#endif
