/* initpath.h - where vx-sandbox-init is: found from vx's own binary, never
 * from PATH (a package's node_modules/.bin must not be able to stand in
 * for the program that runs first inside every wall). */
#ifndef VX_SANDBOX_INITPATH_H
#define VX_SANDBOX_INITPATH_H

#include "util/strbuf.h"

/* Returns the path of the vx-sandbox-init of the vx binary at self (its
 * resolved path: no symlink left, so a vx reached through one on PATH or
 * in node_modules/.bin answers for the binary itself), malloc'd: the first
 * regular executable file of DIR/vx-sandbox-init (a build tree: CMake
 * builds both into one directory) and DIR/../libexec/vx/vx-sandbox-init
 * (an install: cmake/install.cmake), DIR being self's directory. NULL when
 * neither is one, or self is NULL; then, when looked is not NULL, the
 * places looked are appended to it ("A nor B"). */
char *initpath_of(const char *self, struct strbuf *looked);

/* initpath_of the running vx (/proc/self/exe, resolved). */
char *initpath_find(struct strbuf *looked);

#endif
