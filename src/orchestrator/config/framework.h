/* framework.h - Turborepo's framework inference (issue 42): a package whose
 * package.json depends on a framework (next, vite, nuxt, ...) has that
 * framework's public variables (NEXT_PUBLIC_*, VITE_*, ...) in its tasks'
 * keys, since the framework bakes them into what it builds. The table is
 * the one turbo 2.11.13 carries (docs/turborepo.md), in its order: the
 * first framework a package matches is its framework. */
#ifndef VX_CONFIG_FRAMEWORK_H
#define VX_CONFIG_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>

#include "util/vec.h"

struct framework {
	const char *slug;	 /* "nextjs", as turbo --dry=json says it */
	const char *const *env;	 /* wildcards and names, NULL-terminated */
	const char *const *deps; /* the dependencies that make it, NULL-terminated */
	bool all;		 /* every one of deps (else any one) */
	/* a variable set to a value that brings in more names, or NULL */
	const char *when_name, *when_value;
	const char *const *when_env;
};

/* The framework of a package that depends on the names of deps (its
 * dependencies, devDependencies and optionalDependencies: not its
 * peerDependencies, as Turborepo), or NULL. */
const struct framework *framework_infer(const struct strvec *deps);

/* Appends to out the names of the variables of environ that fw keys: those
 * its wildcards match, and its conditional names when their condition
 * holds. Sorted, once each. */
void framework_env_names(const struct framework *fw, char *const *environ_, struct strvec *out);

/* Whether fw keys the variable called name (len bytes) in an environment
 * where the condition names are as getenv says. */
bool framework_keys(const struct framework *fw, const char *name, size_t len);

#endif
