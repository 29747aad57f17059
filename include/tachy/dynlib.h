/* dynlib.h - libraries loaded only by what needs them (dlopen): libpq for
 * a history kept in PostgreSQL (store-pg.c), libdebuginfod when
 * DEBUGINFOD_URLS is set (dso.c). Linked in, they and what they need
 * (OpenSSL, GnuTLS, Kerberos, LDAP, curl: 30 more libraries) were mapped
 * and relocated by every tachy command at its start: 8x the start-up of
 * `tachy --version` without them on this machine. Built against their
 * headers (the probe of HAVE_LIBPQ and HAVE_DEBUGINFOD), loaded by
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

/* Load SONAME ("libpq.so.5") and fill every SYMS[i].fn. Returns 0, or a
 * negative errno with E filled: -ENOENT naming the library, the Debian
 * package PKG that has it and the loader's message (the pointers are then
 * left NULL); -ENOSYS when a function is missing (a library too old). */
int ty_dynlib_load(const char *soname, const char *pkg, const struct ty_dynlib_sym *syms, size_t n,
		   struct ty_error *e);

#endif
