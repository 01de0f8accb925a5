/* tsconfig.h - a tsconfig.json's compilerOptions.paths as tsc takes them,
 * its "extends" followed, for vx boundaries' path aliases
 * (docs/boundaries.md, "How an import resolves"). */
#ifndef VX_CLI_TSCONFIG_H
#define VX_CLI_TSCONFIG_H

#include <stdbool.h>

#include "util/vec.h"

/* The tsconfigs found so far, each read once. */
struct tsconfigs {
	const char *top; /* the directory the search stops at (the workspace root) */
	VEC(struct tsconfig *) v;
};

/* The effective paths of the tsconfig.json nearest to dir (dir, then its
 * parents up to kept->top), its "extends" followed as tsc does (a
 * relative or absolute file, ".json" implied; a package in node_modules,
 * its "tsconfig" file or a file in it; a list, later ones over earlier):
 * the paths of the nearest config that sets them, resolved against the
 * baseUrl of the nearest that sets one, else that config's directory.
 * Into *out: the config, or NULL when there is none. Returns 0, or -1
 * after "vx: FILE:LINE:COL: MESSAGE" (an "extends" that goes round, or
 * deeper than 32). An "extends" that names nothing there is a warning
 * and left out; a file that is no JSON has no paths. */
int tsconfig_for(struct tsconfigs *kept, const char *dir, const struct tsconfig **out);

/* Resolves spec through t's paths (t may be NULL): each target of the
 * pattern that matches it (the longest prefix wins, an exact pattern
 * over every wildcard), absolute and normalized, into out. Returns
 * whether a pattern matched. */
bool tsconfig_alias(const struct tsconfig *t, const char *spec, struct strvec *out);

void tsconfigs_free(struct tsconfigs *kept);

#endif
