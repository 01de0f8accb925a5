/* config_names.c - the names of the files that decide what vx runs. */
#include "sandbox/config_names.h"

#include <string.h>

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

bool config_name(const char *name)
{
	for (const char *const *c = config_names; *c; c++)
		if (!strcmp(name, *c))
			return true;
	return false;
}
