/* config_names.h - the names of the files that decide what vx runs (SPEC
 * §4): a sandboxed task writes one only where a write grant names that
 * very file, and no fix, printed or learned, ever names one. */
#ifndef VX_SANDBOX_CONFIG_NAMES_H
#define VX_SANDBOX_CONFIG_NAMES_H

#include <stdbool.h>

#include "util/vec.h"

/* vx.yaml, package.json, turbo.json(c), pnpm-workspace.yaml and the
 * lockfiles; NULL-terminated. */
extern const char *const config_names[];

/* Whether name (a path's last component) is one of config_names. */
bool config_name(const char *name);

/* Appends to out DIR/NAME for each file that decides what vx runs in
 * project dir dir: vx.yaml, package.json, turbo.json(c); with root (the
 * workspace root) also pnpm-workspace.yaml and the lockfiles. */
void config_paths(const char *dir, bool root, struct strvec *out);

#endif
