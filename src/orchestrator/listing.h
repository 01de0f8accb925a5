/* listing.h - the workspace's files as git sees them: the tracked ones
 * (`git ls-files --cached`, started as soon as the root is known so it runs
 * while the configs are parsed) and the untracked ones git does not
 * ignore, found by a walk of the workspace through the kept listings with
 * git's ignore answers kept (orchestrator/ignores.h): what `git ls-files
 * --cached --others --exclude-standard` prints, without git's walk of the
 * whole tree every run (issue 20). */
#ifndef VX_ORCHESTRATOR_LISTING_H
#define VX_ORCHESTRATOR_LISTING_H

#include "orchestrator/ignores.h"
#include "util/listcache.h"
#include "util/readcache.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* Starts `git ls-files -z --cached` in root in the background. Returns
 * NULL when it could not start (no error: git is then asked at
 * listing_finish). */
struct spawned *listing_start(const char *root);

/* Collects the tracked files (started may be NULL or already collected:
 * git is asked now, in root), then walks root for the untracked ones:
 * through lc (NULL: every directory read), taking the stat of root that
 * reads took (NULL: none), asking ig (never NULL). Appends the paths,
 * root-relative, sorted and unique, to files: files as `git ls-files`
 * names them, and an untracked nested repository as "DIR/". Nothing is
 * entered below a directory named .git, node_modules or .vx (no input
 * lies there). Returns 0; git's exit status (> 0) when root is not in a
 * work tree, files untouched; -1 with errno when git could not run. */
int listing_finish(struct spawned *started, const char *root, struct listcache *lc,
		   const struct readcache *reads, struct ignores *ig, struct strvec *files);

#endif
