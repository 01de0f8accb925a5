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

/* git started for one listing. */
struct listing;

/* Starts git in root in the background: `git ls-files -z --cached`, and
 * with others `--others --exclude-standard` too, for a run whose cache has
 * kept nothing yet (a fresh clone, a cache cleaned): git's walk then runs
 * on another core while vx reads the configs, where vx's would read every
 * directory on the main one. Returns NULL when git could not
 * start (no error: it is then asked at listing_finish). */
struct listing *listing_start(const char *root, bool others);

/* Kills and reaps git if it still runs, and frees l (NULL: nothing). */
void listing_abandon(struct listing *l);

/* Collects the files git listed (started may be NULL or already
 * collected: git is asked now, in root, for --others too when lc is
 * NULL). Unless git listed them, walks root for the untracked files:
 * through lc (NULL: every directory read), taking the stat of root that
 * reads took (NULL: none), asking ig (never NULL). Appends the paths,
 * root-relative, sorted and unique, to files: files as `git ls-files`
 * names them, and an untracked nested repository as "DIR/". Nothing is
 * entered below a directory named .git, node_modules or .vx (no input
 * lies there). Returns 0; git's exit status (> 0) when root is not in a
 * work tree, files untouched; -1 with errno when git could not run. */
int listing_finish(struct listing *started, const char *root, struct listcache *lc,
		   const struct readcache *reads, struct ignores *ig, struct strvec *files);

#endif
