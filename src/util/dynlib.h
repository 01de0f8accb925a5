/* dynlib.h - a shared library opened when first needed (dlopen), its
 * functions looked up into a table of pointers. vx is built against the
 * library's headers; a process that never needs it never maps it. */
#ifndef VX_UTIL_DYNLIB_H
#define VX_UTIL_DYNLIB_H

#include <stddef.h>

/* One function: its symbol, and where its pointer goes in the table. */
struct dynlib_sym {
	const char *name;
	size_t off;
};
#define DYNLIB_SYM(type, member, name)                                                             \
	{                                                                                          \
		name, offsetof(type, member)                                                       \
	}

/* Opens soname (kept open for the process) and stores the address of each
 * of the n symbols at its offset in table. Returns 0, or -1 with *why set
 * (dlerror's text: no such library, or one too old to have a symbol). */
int dynlib_load(const char *soname, const struct dynlib_sym *syms, size_t n, void *table,
		const char **why);

#endif
