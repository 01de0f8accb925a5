/* config_names.h - the names of the files that decide what vx runs (SPEC
 * §4): a sandboxed task writes one only where a write grant names that
 * very file, and no fix, printed or learned, ever names one. */
#ifndef VX_SANDBOX_CONFIG_NAMES_H
#define VX_SANDBOX_CONFIG_NAMES_H

#include <stdbool.h>

/* vx.yaml, package.json, turbo.json(c), pnpm-workspace.yaml and the
 * lockfiles; NULL-terminated. */
extern const char *const config_names[];

/* Whether name (a path's last component) is one of config_names. */
bool config_name(const char *name);

#endif
