/* fswatch.h - directories watched for changes, on vx's event loop (Linux:
 * inotify), for `vx watch` (docs/watch.md).
 *
 * One watch per directory that can hold an input, never per file: the
 * caller adds the trees its inputs live in, and a skip predicate keeps
 * node_modules, .git, .vx and outputs out (watching node_modules is what
 * exhausted inotify's limit for turbo watch: turborepo#12398). A directory
 * created later is watched, then scanned once, so files made in it before
 * its watch existed are not missed.
 *
 * Events are coalesced into one batch: it is handed over once the tree has
 * been quiet for FSWATCH_QUIET_MS, and at most FSWATCH_MAX_MS after its
 * first event, so an editor's save burst or a `git checkout` of thousands
 * of files is one batch. */
#ifndef VX_UTIL_FSWATCH_H
#define VX_UTIL_FSWATCH_H

#include <stdbool.h>

#include "util/loop.h"
#include "util/strbuf.h"
#include "util/vec.h"

#define FSWATCH_QUIET_MS 50
#define FSWATCH_MAX_MS 1000

struct fswatch;

/* One batch: the paths that changed (absolute, sorted, each once; a
 * directory created or removed is one path, and what a new directory held
 * is listed too), or overflow: the kernel dropped events, so anything may
 * have changed. */
typedef void fswatch_fn(const struct strvec *paths, bool overflow, void *ctx);
/* Should the tree at dir (absolute) be left unwatched? */
typedef bool fswatch_skip_fn(const char *dir, void *ctx);

/* A watcher whose batches go to fn on l. Returns NULL with one line in err. */
struct fswatch *fswatch_new(struct loop *l, fswatch_fn *fn, fswatch_skip_fn *skip, void *ctx,
			    struct strbuf *err);
/* Watches dir and every directory below it that skip does not leave out.
 * Returns 0, or -1 with one line in err: over the kernel's limit, the line
 * names the sysctl (fs.inotify.max_user_watches), its value and how many
 * watches this tree needs (the caller exits 2: never watch less silently). */
int fswatch_add_tree(struct fswatch *w, const char *dir, struct strbuf *err);
/* Directories watched now. */
size_t fswatch_count(const struct fswatch *w);
void fswatch_free(struct fswatch *w);

#endif
