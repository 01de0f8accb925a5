/* keyset.h - every task's key of a run (SPEC §6) and what each folds: its
 * inputs listed and hashed, its programs (toolchain.h), its environment,
 * its command, its external dependencies (the lockfile's closure) and its
 * dependencies' keys, each ingredient written to the key and to the facts
 * --explain-key prints by one call, so the two cannot drift. The task
 * cache (run/taskcache.h) answers hits and saves by these keys. */
#ifndef VX_KEYS_KEYSET_H
#define VX_KEYS_KEYSET_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/key.h"
#include "cache/statcache.h"
#include "orchestrator/config/workspace.h"
#include "orchestrator/keys/externals.h"
#include "orchestrator/keys/ignores.h"
#include "orchestrator/plan/graph.h"
#include "util/listcache.h"
#include "util/vec.h"

struct listing;

struct task_inputs {
	struct strvec paths;	      /* workspace-relative, sorted */
	char (*hashes)[KEY_HEX_SIZE]; /* parallel to paths; "" when unreadable */
};

struct keyset {
	const struct workspace *ws;
	const struct graph *g;
	bool traced;		 /* sandboxed tasks run under strace this run: part of their
				  * key, so an entry saved untraced never answers a traced run */
	struct statcache *sc;	 /* the hashes through it (borrowed), or NULL */
	struct listcache *lc;	 /* directory listings for the input walk (borrowed), or NULL */
	struct ignores *ig;	 /* git's ignore answers (borrowed), or NULL */
	struct readcache *reads; /* the load's kept reads (config/workspace.h's
				  * workspace_loader; borrowed), or NULL */
	struct listing *listing; /* the input walk the load started (listing.h;
				  * borrowed), or NULL */
	const char *cache_dir;	 /* the run's cache directory: no input lies in it (set
				  * by keyset_compute; borrowed) */
	/* Per graph node, filled by keyset_compute. */
	char (*keys)[KEY_HEX_SIZE];
	struct task_inputs *inputs;
	struct task_inputs *facts; /* per node: files and, named "//env/NAME", "//dep/ID",
				    * "//command"..., the other ingredients: saved in
				    * the manifest, so -v can say what changed */
	struct task_inputs *tools; /* per node: the programs it runs (toolchain.h),
				    * canonical paths and content hashes */
	struct externals ext;	   /* each project's external dependencies (the lockfile) */
	long long hash_ms;	   /* time spent listing and hashing */
};

/* Prepares the keys of g's nodes; sc, lc, ig, reads and listing may be
 * set after. */
void keyset_init(struct keyset *ks, const struct workspace *ws, const struct graph *g, bool traced);
/* Computes every node's key from its inputs, env, command (the node's,
 * -- ARGS appended), programs and its dependencies' keys; the lockfile's
 * closures are kept in cache_dir when write_externals. Returns 0, or -1
 * after an error line. */
int keyset_compute(struct keyset *ks, const char *cache_dir, bool write_externals);
/* vx watch, after a change: the inputs of the nodes touched marks are
 * listed and hashed again, and the keys of those nodes and of every node
 * downstream of one whose key changed are folded again. Sets changed[i]
 * to whether node i's key differs now. Returns 0, or -1 after an error
 * line. */
int keyset_rekey(struct keyset *ks, const bool *touched, bool *changed);
/* Hashes n absolute paths, through the stat cache when there is one:
 * hashes[i] as filehash_many gives it, errs[i] its errno or 0. */
void keyset_hash(const struct keyset *ks, const char *const *paths, size_t n,
		 char (*hashes)[KEY_HEX_SIZE], int *errs);
/* Node i's facts gain "//exec/PATH" for each program its traced run
 * exec'd (absolute, canonical), with its content hash: saved with its
 * entry, they are what a later hit checks are still the programs here
 * (issue 18). Not in its key. */
void keyset_add_execs(struct keyset *ks, size_t i, const struct strvec *execs);
void keyset_release(struct keyset *ks);

#endif
