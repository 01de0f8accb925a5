/* turbo.h - turbo.json as configuration: a Turborepo repository runs under
 * vx unchanged, and vx.yaml beside it overlays it per task and field
 * (docs/turborepo.md). */
#ifndef VX_CONFIG_TURBO_H
#define VX_CONFIG_TURBO_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/config/config.h"

/* Reads root/turbo.json (else root/turbo.jsonc) into cfg, the root's
 * configuration: its tasks become the defaults every project inherits (and
 * "//#name" the root's own), each under cfg's own task of the same name
 * field by field; globalDependencies and globalEnv join the workspace
 * inputs. A key vx does not support is one warning at its FILE:LINE:COL; a
 * key it cannot honour safely is an error. Returns 1 when a turbo.json was
 * read, 0 when there is none, -1 after an error line. */
int turbo_load(const char *root, struct config *cfg);

/* Reads a package's turbo.json in dir ("extends": ["//"]) into cfg: its
 * tasks, each extending the root's "package#task" (else "task") field by
 * field as the package's vx.yaml would, "$TURBO_EXTENDS$" in a list
 * putting the root's list before its own. Turborepo's rules: extends is
 * ["//"] and is required, a task is named without a package, global keys
 * belong in the root. Returns 1 when one was read, 0 when there is none,
 * -1 after an error line. Reads and probes go through reads (NULL: the
 * files). */
struct readcache;
int turbo_load_package(struct readcache *reads, const char *dir, const char *package,
		       const struct config *root, struct config *cfg);

/* The same for text (len bytes) as read from path, for the tests and the
 * fuzzer. */
int turbo_parse(const char *path, char *text, size_t len, struct config *cfg);

/* Whether the turbo.json (or .jsonc) in dir is a root one: it has no
 * "extends" (a package's turbo.json extends the root's). Returns 1 when
 * it is, 0 when it is not or there is none, -1 after an error line when
 * one is there and cannot be read (a FIFO, a directory). */
int turbo_is_root(const char *dir);

#endif
