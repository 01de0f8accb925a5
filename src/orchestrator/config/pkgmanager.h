/* pkgmanager.h - the package manager a workspace is run with. */
#ifndef VX_CONFIG_PKGMANAGER_H
#define VX_CONFIG_PKGMANAGER_H

#include <stdbool.h>

struct cJSON;

/* The package manager a workspace is run with: from packageManager in the
 * root package.json ("pnpm@9.1.0"), else from its lockfile. */
struct package_manager {
	char name[8];	    /* "npm", "pnpm", "yarn", "bun" */
	char version[32];   /* "9.1.0", or "" when not written */
	const char *source; /* static: "packageManager in package.json", "pnpm-lock.yaml",
			     * …, or "none found (npm assumed)" */
	bool pre_post;	    /* it runs a script's "pre" and "post" scripts around it:
			     * npm, Yarn classic (1.x), pnpm as its
			     * enable-pre-post-scripts says (on from pnpm 9); not
			     * Yarn berry or Bun */
};

/* Sets *pm to the package manager of the workspace at root, whose
 * package.json is pkg (NULL: none, or not JSON): its packageManager, else
 * its lockfile's (npm when there is none). */
void package_manager_detect(const char *root, const struct cJSON *pkg, struct package_manager *pm);

#endif
