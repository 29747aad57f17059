/* dynlib.h - libraries loaded only by what needs them (dlopen): libpq and
 * libsqlite3 for a history (store-pg.c, store-sqlite.c), libdebuginfod
 * when DEBUGINFOD_URLS is set (dso.c), libpfm4 for a CPU event's name
 * (events.c). Linked in, they were mapped and relocated by every tachy
 * command at its start: libpq and libdebuginfod need 30 more libraries
 * (OpenSSL, GnuTLS, Kerberos, LDAP, curl), libpfm4 has 41,000 relocations
 * (its event tables), sqlite 3,000. `tachy stat` of two files of 100
 * numbers took 21 ms with them. Built against their headers (the probes of
 * HAVE_LIBPQ, HAVE_SQLITE3, HAVE_DEBUGINFOD and HAVE_LIBPFM), loaded by
 * soname. */
#ifndef TACHY_DYNLIB_H
#define TACHY_DYNLIB_H

#include <stddef.h>

#include "tachy/error.h"

/* One function to look up: its NAME and where its address goes (a
 * function pointer, cast as in dlsym(3): (void **)&fp). */
struct ty_dynlib_sym {
	const char *name;
	void **fn;
};

/* Load SONAME ("libpq.so.5") and fill every SYMS[i].fn, once: when
 * SYMS[0].fn is set already it returns 0 at once (a failure is tried
 * again, which costs a failed dlopen). Returns 0, or a negative errno with
 * E filled: -ENOENT naming the library, the Debian package PKG that has it
 * and the loader's message (the pointers are then left NULL); -ENOSYS
 * when a function is missing (a library too old). */
int ty_dynlib_load(const char *soname, const char *pkg, const struct ty_dynlib_sym *syms, size_t n,
		   struct ty_error *e);

#endif
