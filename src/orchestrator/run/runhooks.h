/* runhooks.h - the scheduler's hooks of a run: the one place the cache's,
 * the shard's, the sandbox's and vx watch's answers become the
 * scheduler's. */
#ifndef VX_RUN_RUNHOOKS_H
#define VX_RUN_RUNHOOKS_H

#include <stdbool.h>

#include "orchestrator/config/workspace.h"
#include "orchestrator/run/run.h"
#include "orchestrator/run/sandbox_job.h"
#include "orchestrator/run/shardrun.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskcache.h"

/* The run's hooks: the cache first; a task that will really run gets its
 * environment only then, so a fully cached run of 1000 tasks never copies
 * the environment 1000 times. */
struct run_hooks {
	struct taskcache *tc;
	struct sandbox_jobs *sj;
	const struct workspace *ws;
	struct strvec *envs; /* per job, parallel to the graph's nodes */
	bool only;	     /* --only: a task whose dependencies did not run is not saved */
	const struct run_watch_hooks *wh; /* vx watch's, or NULL */
	struct shardrun *shard;		  /* --shard's part of the run, or NULL */
	const struct job *jobs;		  /* the run's, parallel to the graph's nodes */
	bool *tainted; /* --continue=always: built on a failed task (directly or not),
			* so never saved; NULL otherwise */
};

/* Before a job: the cache (a hit is done), the shard (another's task
 * waits for its upload), then the sandbox or the task's environment. */
enum before_result run_before(struct job *job, void *ctx);
/* After a job: a retry of a sandbox's setup failure, the verdict (a
 * violation fails the task), then the cache's save. */
enum after_result run_after(struct job *job, void *ctx);
/* The run stops starting jobs: the cache lets go of the jobs waiting on
 * their remote lookups (taskcache_stop), the shard of those waiting for
 * another shard's upload (shardrun_stop). */
void run_stop_hook(void *ctx);

#endif
