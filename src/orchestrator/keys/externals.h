/* externals.h - each project's external dependencies as a key ingredient:
 * the workspace's lockfile read by lockfile/ into one closure hash per
 * project (SPEC §6; docs/lockfiles.md). A run whose lockfile's stat and
 * projects are unchanged reads a snapshot under the cache directory and
 * parses nothing. */
#ifndef VX_KEYS_EXTERNALS_H
#define VX_KEYS_EXTERNALS_H

#include <stdbool.h>

#include "cache/key.h"
#include "lockfile/lockfile.h"
#include "orchestrator/config/workspace.h"
#include "util/strbuf.h"

struct externals {
	char *path;	  /* the lockfile, absolute; NULL: none, nothing keyed */
	const char *name; /* its file name ("pnpm-lock.yaml") */
	enum lock_format fmt;
	bool whole;		    /* unreadable (said once): every project keyed by its content */
	char content[KEY_HEX_SIZE]; /* xxh128 of its bytes */
	char (*hash)[KEY_HEX_SIZE]; /* per project (ws->projects order): its closure's */
	/* for externals_explain, built on demand */
	const struct workspace *ws;
	char *cache_dir;
	struct lock_importer *imp;
	size_t n_imp;			     /* the projects, and the root when it is none */
	struct strvec root_deps, root_specs; /* that root's package.json dependencies */
	struct lockset *now, *old;
	char old_content[KEY_HEX_SIZE];
};

/* Finds the workspace's lockfile (the package manager's, else the first of
 * pnpm-lock.yaml, npm-shrinkwrap.json, package-lock.json, yarn.lock,
 * bun.lock, bun.lockb present) and fills x. write: a run that may write
 * its cache directory (the snapshot, and the lockfile's copy that -v
 * compares with later); a dry run writes nothing. A lockfile vx cannot read
 * is one warning naming it and the reason, and keys by its content: never
 * an error. */
void externals_load(struct externals *x, const struct workspace *ws, const char *cache_dir,
		    bool write);
void externals_release(struct externals *x);

/* Whether name is the file name of a lockfile vx reads (any of the six):
 * vx watch plans again when one changes, as an install leaves it. */
bool externals_is_lockfile(const char *name);
/* The i-th of those names, NULL past the last. */
const char *externals_lockfile_name(size_t i);

/* The workspace's lockfile pruned to the projects marked in keep
 * (ws->projects order) and the root (`vx prune`; lockset_prune). Sets
 * *name to its file name and fills out, and appends to extra the
 * root-relative files it names; returns 1. Returns 0 when the workspace
 * has no lockfile, or -1 with the reason in err (unreadable, a format vx
 * does not read or prune). */
int externals_prune(const struct workspace *ws, const bool *keep, const char **name,
		    struct strbuf *out, struct strvec *extra, struct strbuf *err);

/* Says in out what changed in project p's closure since the one keyed by
 * the lockfile whose content hash was old: "react 18.2.0 → 18.3.1, …". */
void externals_explain(struct externals *x, size_t p, const char *old, struct strbuf *out);

#endif
