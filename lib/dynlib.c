/* dynlib.c - libraries loaded when first needed (see dynlib.h). */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "tachy/dynlib.h"

int
ty_dynlib_load(const char *soname, const char *pkg, const struct ty_dynlib_sym *syms, size_t n,
	       struct ty_error *e)
{
	const char *msg;
	size_t i;
	void *h;

	if (n && *syms[0].fn) /* loaded before */
		return 0;
	if (!(h = dlopen(soname, RTLD_NOW | RTLD_LOCAL))) {
		msg = dlerror();
		return ty_error_set(e, -ENOENT, "cannot load %s (install %s): %s", soname, pkg,
				    msg ? msg : "not found");
	}
	for (i = 0; i < n; i++)
		if (!(*syms[i].fn = dlsym(h, syms[i].name))) {
			size_t k;
			for (k = 0; k < n; k++)
				*syms[k].fn = NULL;
			dlclose(h);
			return ty_error_set(e, -ENOSYS, "%s has no %s: a newer %s is needed",
					    soname, syms[i].name, pkg);
		}
	return 0; /* kept loaded: the functions are used until tachy exits */
}
