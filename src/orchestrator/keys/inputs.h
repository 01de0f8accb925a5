/* inputs.h - the files a task's key folds (SPEC §2.2 "Default inputs") and
 * the files its output globs match on disk now. */
#ifndef VX_KEYS_INPUTS_H
#define VX_KEYS_INPUTS_H

#include <stdbool.h>

#include "orchestrator/plan/graph.h"
#include "orchestrator/keys/ignores.h"
#include "orchestrator/config/workspace.h"
#include "util/listcache.h"
#include "util/strmap.h"
#include "util/vec.h"

struct listing;

/* What one run knows of the workspace's files; filled by inputs_init. */
struct inputs {
	const struct workspace *ws;
	bool in_git;		    /* the root lies in a git work tree */
	struct strvec git_files;    /* root-relative, sorted: tracked and untracked, not ignored */
	struct strmap projects;	    /* project rel -> index, to find the project owning a path */
	struct listcache *listings; /* outside git: directory listings kept across runs, or NULL */
	const struct readcache *reads; /* the load's kept reads, whose stat of a walk's
					* root is taken (borrowed), or NULL */
	char *cache_rel;	       /* the cache directory, root-relative, when it lies in the
					* workspace (not under a .vx/, skipped anyway); else NULL */
	/* the files the workspace's own workspaceFiles globs (turbo.json's
	 * globalDependencies) match, walked once a run by the first
	 * inputs_collect, sorted */
	struct strvec ws_files;
	bool ws_files_done;
};

/* Finds once the files git tracks or would track under the root (so what
 * git ignores is left out), collecting started, the listing the
 * workspace's load started (listing.h; NULL: none), taking the stats of
 * reads (the load's kept reads, or NULL) and asking ignores (NULL: none
 * kept); outside a work tree, or without git, the file system is walked
 * instead, per task. Either way each directory's listing is taken from
 * listings (util/listcache.h; NULL: every directory read) while the
 * directory is unchanged. No file of cache_dir (absolute; NULL: none) is
 * ever an input, wherever it lies (issue 57 item 7: a cache under a
 * project's sources made every run miss on its own runs.log). Returns 0
 * (it cannot fail). */
int inputs_init(struct inputs *in, const struct workspace *ws, struct listing *started,
		const struct readcache *reads, struct listcache *listings, struct ignores *ignores,
		const char *cache_dir);
void inputs_release(struct inputs *in);

/* Appends to out the workspace-relative paths of t's input files, sorted and
 * unique: inputs.files globs (relative to the project, "!" taking back),
 * else every file of the project but .git/, node_modules/, .vx/, the cache
 * directory, the task's
 * outputs and nested projects' directories; then inputs.workspaceFiles of the
 * task and of the workspace (relative to the root). Returns 0, or -1 after
 * an error line (a directory that cannot be read). */
int inputs_collect(struct inputs *in, const struct task_node *t, struct strvec *out);

/* Appends to out the project-relative paths that globs (outputs, "!" taking
 * back) match under project_dir now: regular files, links, fifos, sockets
 * and devices (which no entry can hold: a save refuses them, archive.h),
 * and directories that are empty. Returns 0, or -1 after an error line. */
int outputs_collect(const char *project_dir, const lstr_vec *globs, struct strvec *out);

#endif
