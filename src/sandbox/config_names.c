/* config_names.c - the names of the files that decide what vx runs. */
#include "sandbox/config_names.h"

#include <string.h>

#include "util/path.h"

/* A project's (the root's too) first, then the root's own: its workspace
 * list and the lockfiles. */
const char *const config_names[] = {
    "vx.yaml",
    "package.json",
    "turbo.json",
    "turbo.jsonc",
    "pnpm-workspace.yaml",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lock",
    "bun.lockb",
    NULL,
};
#define PROJECT_NAMES 4

bool config_name(const char *name)
{
	for (const char *const *c = config_names; *c; c++)
		if (!strcmp(name, *c))
			return true;
	return false;
}

void config_paths(const char *dir, bool root, struct strvec *out)
{
	for (size_t i = 0; config_names[i] && (root || i < PROJECT_NAMES); i++)
		strvec_push_nodup(out, path_join(dir, config_names[i]));
}
