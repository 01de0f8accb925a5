/* pnpm.h - pnpm-workspace.yaml: the project list pnpm keeps out of
 * package.json (docs/config.md). */
#ifndef VX_CONFIG_PNPM_H
#define VX_CONFIG_PNPM_H

#include "orchestrator/config/config.h"

/* Appends the "packages:" globs of the pnpm-workspace.yaml at path to out,
 * the inclusions first and then the "!" exclusions (pnpm applies these
 * after every inclusion, wherever they are written), each with its place;
 * path must outlive out. Other keys (catalog:, onlyBuiltDependencies: …)
 * are pnpm's and left alone. Returns 1 when the file has packages:, 0 when
 * there is no file or no packages:, -1 after "vx: FILE:LINE:COL: ..." */
int pnpm_workspace_packages(const char *path, lstr_vec *out);
/* The same for text (len bytes) as the file at path would hold it. */
int pnpm_workspace_parse(const char *path, const char *text, size_t len, lstr_vec *out);

#endif
