/* listing.h - the workspace's files as git sees them: the tracked ones
 * (`git ls-files --cached`, started as soon as the root is known so it runs
 * while the configs are parsed) and the untracked ones git does not
 * ignore, found by a walk of the workspace through the kept listings with
 * git's ignore answers kept (keys/ignores.h): what `git ls-files
 * --cached --others --exclude-standard` prints, without git's walk of the
 * whole tree every run (issue 20). */
#ifndef VX_KEYS_LISTING_H
#define VX_KEYS_LISTING_H

#include "orchestrator/keys/ignores.h"
#include "util/listcache.h"
#include "util/readcache.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* The names below which no input lies, never entered by a walk for
 * inputs: .git, node_modules, .vx (NULL-terminated). */
extern const char *const listing_skip_names[];

/* git started for one listing. */
struct listing;

/* Starts git in root in the background: `git ls-files -z --cached
 * --stage`, and when cache_dir is NULL (a run whose cache has kept nothing
 * yet: a fresh clone, a cache cleaned) `--others --exclude-standard` too:
 * git's walk then runs on another core while vx reads the configs, where
 * vx's would read every directory. Else vx's walk starts on a thread of
 * its own, going by the listings and answers kept in cache_dir. Call after
 * fs_anchor (util/io.h). Returns NULL when git could not start (no error:
 * it is then asked at listing_finish). */
struct listing *listing_start(const char *root, const char *cache_dir);

/* Waits for the walk started (l may be NULL) and moves the listings and
 * answers it loaded from cache_dir (and kept up to date) to *lc and *ig;
 * sets them NULL when it loaded none from there. */
void listing_take_kept(struct listing *l, const char *cache_dir, struct listcache **lc,
		       struct ignores **ig);

/* Waits for what l started, and frees l (NULL: nothing). */
void listing_abandon(struct listing *l);

/* Collects the files git listed and the walk found (started may be NULL
 * or already collected: git is asked now, in root, for --others too when
 * lc is NULL). Unless git listed them, walks root for the untracked files:
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
