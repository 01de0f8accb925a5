/* listing.h - git's list of the workspace's files (`git ls-files`), started
 * as soon as the root is known so it runs while the configs are parsed. */
#ifndef VX_ORCHESTRATOR_LISTING_H
#define VX_ORCHESTRATOR_LISTING_H

#include "util/spawn.h"
#include "util/strbuf.h"

/* Starts `git ls-files -z --cached --others --exclude-standard` in root in
 * the background. Returns NULL when it could not start (no error: the
 * listing is then asked for at listing_finish). */
struct spawned *listing_start(const char *root);

/* Collects the listing started (started may be NULL or already collected:
 * git is asked now, in root) into out, NUL-separated. Returns git's exit
 * status, or -1 with errno when it could not run. */
int listing_finish(struct spawned *started, const char *root, struct strbuf *out);

#endif
