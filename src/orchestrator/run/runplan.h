/* runplan.h - a run's plan: the workspace, the selected graph, every
 * task's key, then its run part (the sandbox's state per task, a job per
 * task). `vx run` makes one and runs it once; `vx watch` keeps one across
 * cycles (watch/session.c). */
#ifndef VX_RUN_RUNPLAN_H
#define VX_RUN_RUNPLAN_H

#include <stdbool.h>

#include "orchestrator/config/workspace.h"
#include "orchestrator/plan/graph.h"
#include "orchestrator/run/runopts.h"
#include "orchestrator/run/sandbox_job.h"
#include "orchestrator/run/shardrun.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskcache.h"

/* A planned run: the workspace, the selected graph and every task's key,
 * then its run part (the sandbox's per-task state, a job per task), each
 * filled once, in that order. run_once runs it; `vx watch` runs one plan
 * again and again, with its run part made afresh and the keys of what
 * changed folded again, until a config changes. */
struct plan {
	struct workspace *ws;
	struct workspace_loader load; /* ws's load: the kept reads and the input walk
				       * it started, which the task cache takes */
	struct graph g;
	int lock_fd; /* the workspace's lock (wslock.h) while this plan runs, or -1 */
	char *cache_dir;
	char *reaper; /* vx-sandbox-init, the run's reaper (--reaper), or NULL */
	struct taskcache tc;
	bool tc_open;
	struct shardrun *shard; /* --shard's part of this run, or NULL */
	/* the run part */
	struct sandbox_jobs sj;
	bool sj_init;
	struct job *jobs;
	struct strvec *envs, *argvs; /* per job: its environment (made when it runs), its argv */
	size_t **deps;
};

/* Loads the workspace and builds the graph the options ask for. ld (NULL:
 * none) is the load's state kept for the run: the input listing starts
 * through it while the configs are read, and its kept reads stay; the
 * caller releases it (workspace_loader_release) whatever this returns.
 * Returns 0, or -1 after an error line. */
int runplan_graph(const struct run_opts *o, struct workspace_loader *ld, struct workspace **wsp,
		  struct graph *g);
/* Loads, selects, builds the graph, makes the run part and computes every
 * key. Returns 0, or 2 after an error line (p is then freed). */
int runplan_make(const struct run_opts *o, struct plan *p);
/* Settles the sandbox (a task that asked for one never runs without it,
 * SPEC §4: whether this machine can give it is known before anything
 * runs) and makes the jobs. Returns 0, or 2 after an error line. */
int plan_run_part(const struct run_opts *o, struct plan *p);
void plan_run_part_free(struct plan *p);
/* Frees p; a second call frees nothing. */
void plan_free(struct plan *p);

#endif
