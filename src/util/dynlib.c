/* dynlib.c - a shared library opened when first needed. */
#include "util/dynlib.h"

#include <dlfcn.h>

int dynlib_load(const char *soname, const struct dynlib_sym *syms, size_t n, void *table,
		const char **why)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		*why = dlerror();
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(h, syms[i].name);
		if (!f) {
			*why = dlerror();
			return -1;
		}
		/* POSIX: a function pointer and a void * convert both ways. */
		*(void **)((char *)table + syms[i].off) = f;
	}
	return 0;
}
