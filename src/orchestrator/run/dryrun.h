/* dryrun.h - what a run would do, printed instead of running it:
 * --explain-key, --dry-run and --dry=json. */
#ifndef VX_RUN_DRYRUN_H
#define VX_RUN_DRYRUN_H

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/runopts.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/shardrun.h"
#include "orchestrator/run/taskcache.h"

/* --explain-key: the task's key and each ingredient folded into it, in
 * the order folded, with its hash (a file's content hash, an env value's,
 * a dependency's key), then what its last traced run read against its
 * key. Returns 0, or 2 when no task of the run has id. */
int dryrun_explain_key(const struct graph *g, const struct taskcache *tc, const char *id);
/* --dry-run (mode DRY_RUN_TEXT or DRY_RUN_JSON): each task, its key and whether it
 * would hit; with --shard (shard not NULL), whose it is ("shard", "owned":
 * this shard builds it, "answered": this shard makes sure it is built,
 * docs/ci.md). */
void dryrun_print(const struct graph *g, const struct job *jobs, struct taskcache *tc,
		  enum dry_run mode, const struct shardrun *shard);

/* --dry=json: the same in Turborepo's shape (turbodoc.h): its field
 * names and types, vx's values. */
void dryrun_print_turbo(const struct graph *g, const struct job *jobs, struct taskcache *tc);

#endif
