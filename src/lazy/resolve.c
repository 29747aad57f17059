/* resolve.c - tachy's linked libraries (libdw, libelf, jansson, liblzma,
 * zlib) loaded at the first call of one of their functions, not at every
 * start: mapped and relocated by the loader, they were half of `tachy
 * stat`'s time on two files of 100 numbers, which calls none of them.
 *
 * The tachy binary is linked without them: each function it calls is a
 * stub (stubs.sh, at build time, from the objects' undefined symbols) that
 * jumps through ty_lazy_fn[i]; while that is NULL, the stub saves the
 * argument registers and calls ty_lazy_resolve, which dlopens the library
 * and fills the addresses of all its functions. The unit tests and bench
 * programs link the libraries as before. Built only where the stubs are
 * written (x86-64); elsewhere tachy links the libraries. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "resolve.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *
ty_lazy_resolve(unsigned i)
{
	unsigned lib = ty_lazy.lib[i], k;
	const char *why;
	void *h, *fn;

	pthread_mutex_lock(&lock);
	if ((fn = __atomic_load_n(&ty_lazy_fn[i], __ATOMIC_ACQUIRE)))
		goto out;
	h = dlopen(ty_lazy.soname[lib], RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		why = dlerror();
		dprintf(STDERR_FILENO, "tachy: cannot load %s (install %s): %s\n",
			ty_lazy.soname[lib], ty_lazy.package[lib], why ? why : "not found");
		_exit(127);
	}
	for (k = 0; k < ty_lazy_count; k++) {
		if (ty_lazy.lib[k] != lib)
			continue;
		if (!(fn = dlsym(h, ty_lazy.name[k]))) {
			dprintf(STDERR_FILENO,
				"tachy: %s has no %s: install the %s that tachy was built "
				"with\n",
				ty_lazy.soname[lib], ty_lazy.name[k], ty_lazy.package[lib]);
			_exit(127);
		}
		__atomic_store_n(&ty_lazy_fn[k], fn, __ATOMIC_RELEASE);
	}
	fn = ty_lazy_fn[i];
out:
	pthread_mutex_unlock(&lock);
	return fn;
}
