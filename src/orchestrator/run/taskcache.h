/* taskcache.h - the cache as the run sees it: every task's key, computed up
 * front, and the scheduler hooks that replay a hit and save a success. */
#ifndef VX_RUN_TASKCACHE_H
#define VX_RUN_TASKCACHE_H

#include <stdbool.h>

#include "cache/cachestate.h"
#include "cache/inplace.h"
#include "cache/saver.h"
#include "cache/key.h"
#include "cache/statcache.h"
#include "cache/store.h"
#include "orchestrator/keys/externals.h"
#include "orchestrator/plan/graph.h"
#include "orchestrator/keys/ignores.h"
#include "orchestrator/keys/inputs.h"
#include "orchestrator/keys/keyset.h"
#include "orchestrator/run/scheduler.h"
#include "util/loop.h"

enum cache_status {
	CACHE_DISABLED, /* cache: false, persistent, no command, or --no-cache */
	CACHE_MISS,
	CACHE_HIT,
	CACHE_BAD, /* an entry was there but failed verification: a miss */
};

struct taskcache {
	const struct workspace *ws;
	const struct graph *g;
	bool read, write; /* --force clears read; --no-cache clears both */
	int verbose;
	bool dry_run;	    /* write nothing: no store created, no stat cache saved */
	char *dir;	    /* the store's directory, absolute */
	struct store store; /* opened by taskcache_open when read or write */
	bool store_open;
	struct statcache *sc;	   /* kept in the store; the keys hash through it */
	struct listcache *lc;	   /* directory listings for the input walk, or NULL */
	struct ignores *ig;	   /* git's ignore answers (keys/ignores.h), or NULL */
	struct inplace *ip;	   /* outputs left in place: the fast hit (cache/inplace.h) */
	struct readcache *reads;   /* the load's kept reads (taskcache_opts.load;
				    * borrowed), saved by each checkpoint, or NULL */
	int level;		   /* zstd level */
	struct keyset ks;	   /* every node's key and its ingredients (keys/keyset.h),
				    * filled by taskcache_keys */
	enum cache_status *status; /* set by the before hook or taskcache_probe */
	struct saver *saver;	   /* saves entries off the loop, between taskcache_start
				    * and taskcache_finish; NULL: saves in the after hook */
	const char *spill_dir;	   /* set by the caller: where a hit's long log spills
				    * (scheduler_opts.spill_dir); NULL: kept in memory */
	struct remote *remote;	   /* the remote cache (cache.remote, VX_REMOTE_CACHE_*,
				    * TURBO_*), or NULL: none, or --no-remote */
	bool remote_only;	   /* --remote-only, or --cache without local:r: the local
				    * store is only the remote's staging */
	bool keep_local;	   /* false (--cache without local:w): an entry saved or
				    * fetched is only the remote's way, removed after */
	bool *imported;		   /* per node: fetched from the remote into the store
				    * this run, not there before (removed at the
				    * finish when !keep_local) */
	bool *from_remote;	   /* per node: its hit came from the remote cache */
	struct prefetch *prefetch; /* the run's remote lookups ahead of need, between
				    * taskcache_start and _finish, or NULL */
	size_t *prefetch_of;	   /* per node: 1 + its index in the prefetch, 0: not in it */
	/* Per node, where its cache answer is this cycle (cache/cachestate.h):
	 * moved only by cacheflow.c, through cache_state_after. */
	enum cache_state *state;
	/* Per node, the job in CACHE_STATE_PREFETCH, whose hook the loop asks
	 * again when the prefetch's post says its key settled (issue 58 item
	 * 4: it was asked every 2 ms). */
	struct job **waiting;
	struct strvec *saving;	 /* per node: the outputs a save in flight archives */
	struct worker *worker;	 /* the run's pool (util/worker.h): restores, remote
				  * GETs, the prefetch, saves and uploads off the
				  * loop, between taskcache_start and _finish;
				  * NULL: in the hook */
	struct fetch **fetching; /* per node: its hit on its way while its state is
				  * OPEN, RESTORE or ANSWERED (cacheflow.c), or NULL */
};

enum remote_mode { REMOTE_DEFAULT, REMOTE_OFF, REMOTE_ONLY };

struct taskcache_opts {
	const char *dir; /* the store (workspace_cache_dir), copied */
	bool read, write, dry_run;
	enum remote_mode remote; /* --no-remote, --remote-only */
	/* --cache: a side's read or write taken away (all false: read and
	 * write say it for both sides) */
	bool no_local_read, no_local_write, no_remote_read, no_remote_write;
	bool traced; /* sandboxed tasks run under strace (the tracer probed) */
	int verbose;
	/* the workspace's load (config/workspace.h): its kept reads, which
	 * the stat cache and the keys read through and the checkpoints save,
	 * and the input walk it started; borrowed, it outlives the task
	 * cache. NULL: none. */
	struct workspace_loader *load;
};

/* Prepares the cache of a run and, when read or write, opens its store (a
 * dry run only reads a store that exists). Returns 0, or -1 after an error
 * line. */
int taskcache_open(struct taskcache *tc, const struct workspace *ws, const struct graph *g,
		   const struct taskcache_opts *o);

/* Computes every node's key (SPEC §6) from its inputs, env, command (the
 * node's, -- ARGS appended) and its dependencies' keys. Returns 0, or -1
 * after an error line. */
int taskcache_keys(struct taskcache *tc);

/* vx watch, after a change: the inputs of the nodes touched marks are
 * listed and hashed again, and the keys of those nodes and of every node
 * downstream of one whose key changed are folded again. Sets changed[i]
 * to whether node i's key differs now. Returns 0, or -1 after an error
 * line. */
int taskcache_rekey(struct taskcache *tc, const bool *touched, bool *changed);

/* Saves the stat cache and the in-place record now (a watch between
 * cycles: a kill -9 later loses nothing they learnt). */
void taskcache_checkpoint(struct taskcache *tc);

/* Returns whether node i would hit without restoring anything (dry runs). */
enum cache_status taskcache_probe(struct taskcache *tc, size_t i);

/* What the cache says of a ready task. */
enum taskcache_answer {
	TASKCACHE_RUN,	   /* a miss, or no cache: run it */
	TASKCACHE_HIT,	   /* a verified hit restored its outputs; job->log holds its log */
	TASKCACHE_PENDING, /* its entry is being opened, fetched or restored off the
			    * loop, or its remote lookup is in flight: job->pending
			    * is cleared when it is settled, and the hook asked
			    * again answers */
};
/* Scheduler hooks' halves; ctx is the taskcache, job->data the task_node.
 * after: a task that succeeded is saved; a failed save costs a warning,
 * never the task (it always keeps the verdict). */
enum taskcache_answer taskcache_before(struct job *job, void *ctx);
void taskcache_after(struct job *job, void *ctx);

/* Around one run on loop l: from here the after hook hands each save to a
 * worker thread (started at the first save) and holds the job (job->held) until the save ends, so
 * archiving a task's outputs never stops the loop; finish waits for the
 * saves in flight. Without start, the after hook saves in place. */
void taskcache_start(struct taskcache *tc, struct loop *l);
void taskcache_finish(struct taskcache *tc);
/* The run stops starting jobs: each job waiting on its remote lookup is
 * let go (it ends skipped), and the lookups not yet begun are not begun. */
void taskcache_stop(struct taskcache *tc);

/* Saves the stat cache and frees everything (finishing first). */
void taskcache_close(struct taskcache *tc);

/* The workspace-relative files node i's key folds when the node is cached
 * this run (it is cacheable, or has no command: its inputs are its
 * dependents' through its key; its key was computed, and the cache is read
 * or written), else NULL: the one answer to "is this task cached", which
 * the sandbox checks its reads against. */
const struct strvec *taskcache_keyed_files(const struct taskcache *tc, size_t i);
/* Records the programs node i's traced run exec'd from outside the
 * workspace (canonical paths): their hashes go into its entry as
 * "//exec/PATH", not into its key, and a later hit of that entry, or of its
 * outputs in place, holds only while each is unchanged (issue 18). */
void taskcache_set_execs(struct taskcache *tc, size_t i, const struct strvec *execs);
/* The programs node i's key holds (toolchain.h), canonical; NULL when it
 * is not cached. */
const struct strvec *taskcache_tools(const struct taskcache *tc, size_t i);
/* Keeps what node i's traced run read ("K PATH", "U PATH", "O PATH": the
 * verdict's reads) under the cache directory, for --explain-key. */
void taskcache_set_reads(struct taskcache *tc, size_t i, const struct strvec *reads);
/* Appends to out what node i's last traced run read, as kept; returns
 * false when none is. */
bool taskcache_get_reads(const struct taskcache *tc, size_t i, struct strvec *out);

/* "PATH\tHASH\n" for each "//exec/PATH" fact: of names/hashes (n), or of
 * a manifest's inputs when m. Caller frees. */
char *taskcache_exec_blob(char **names, char (*hashes)[KEY_HEX_SIZE], size_t n,
			  const struct manifest *m);
/* Whether a program of blob (taskcache_exec_blob's) is no longer the one
 * recorded: its content hash differs, or it is gone. Says the first in
 * which when which is not NULL. */
bool taskcache_tools_changed(struct taskcache *tc, const char *blob, struct strbuf *which);
/* Says on stderr why node i missed: which of its key's ingredients differ
 * from the manifest of the task's last saved run. */
void taskcache_explain_miss(struct taskcache *tc, size_t i);

/* Returns the index of the node owning job (jobs and nodes are parallel). */
size_t taskcache_node_of(const struct taskcache *tc, const struct job *job);

const char *cache_status_name(enum cache_status s);
/* True when t is ever cached: it has a command, cache is on, not persistent. */
bool taskcache_cacheable(const struct task_node *t);

/* Whether a miss may still be looked up in the remote cache (one is
 * configured for reading and it has not gone off). */
bool taskcache_remote_readable(const struct taskcache *tc);
/* Before the cache is open: whether the run would have a remote cache to
 * read (one is named by the config or the environment, mode is not
 * REMOTE_OFF, and the run reads the cache). */
bool taskcache_remote_named(const struct workspace *ws, enum remote_mode mode, bool read);

/* The dry run's question: does the remote cache hold node i's key (a HEAD;
 * false when there is no remote to read, or the task is not cacheable)? */
bool taskcache_remote_has(struct taskcache *tc, size_t i);

/* How long node i's cached run took, as its entry in the local store says
 * (Turborepo's timeSaved), or -1: no entry there (a remote-only run's is
 * gone after the run), or it does not read. Reads the manifest, never the
 * archive. */
long long taskcache_saved_ms(const struct taskcache *tc, size_t i);

#endif
