/* ignores.h - git's answers to "is this untracked path ignored?" (`git
 * check-ignore`), kept across runs (issue 20).
 *
 * An answer depends on the exclude rules alone: the .gitignore files from
 * the repository's top down to the path, $GIT_DIR/info/exclude, the file
 * core.excludesFile names, and the config files that name it. Kept answers
 * are trusted while each of those files' stat data (a missing file's
 * absence too) and git's environment are what they were when the answers
 * were given: the files outside the workspace as each walk starts at the
 * root (vx watch walks many times in one process), each .gitignore inside
 * it as the walk enters the directory holding it (ignores_enter), before
 * any path under it is asked for. A rule file
 * changed in the second the answers were learned, or later, keeps nothing
 * (the racy rule of the other kept files, docs/cache.md). */
#ifndef VX_KEYS_IGNORES_H
#define VX_KEYS_IGNORES_H

#include <stdbool.h>

#include "util/strbuf.h"

struct ignores;

/* The answers kept at file (NULL: keep none; a missing, corrupt or
 * other-version file gives none), for the work tree of the workspace at
 * root (absolute). Never returns NULL. */
struct ignores *ignores_load(const char *file, const char *root);

/* The walk entered directory rel ("" the root; no trailing '/'), whose
 * listing holds a ".gitignore" or not: when that is not what the kept
 * answers were given under, every answer under rel is dropped; at the
 * root, all of them when a rule file outside the tree changed. Returns 0,
 * or -1 with errno when the .gitignore could not be looked at. */
int ignores_enter(struct ignores *ig, const char *rel, bool has_gitignore);

/* The kept answer for rel (root-relative; a directory's ends in '/'): 1
 * ignored, 0 not, -1 not known. */
int ignores_get(struct ignores *ig, const char *rel);

/* Asks git about each of the n paths (as ignores_get names them) in one
 * `git check-ignore`, and records the answers. Returns 0, or -1 after a
 * warning (git failed; nothing recorded). */
int ignores_ask(struct ignores *ig, char *const *paths, size_t n);

/* Writes the answers used or given this run atomically, when they may be
 * kept and changed. Returns 0, or -1 after a warning (a cache). */
int ignores_save(struct ignores *ig);

/* How many answers were taken from the kept ones, and how many asked of
 * git this run (tests, benchmarks). */
void ignores_counts(const struct ignores *ig, size_t *kept, size_t *asked);

void ignores_free(struct ignores *ig);

#endif
