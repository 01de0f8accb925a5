/* turbodoc.h - a run in Turborepo's shape: the document `turbo run
 * --dry=json` prints and the file `turbo run --summarize` writes, with
 * turbo 2.11.13's field names and types and vx's values (docs/turborepo.md;
 * t0187 and t0191 compare them with turbo's own). */
#ifndef VX_RUN_TURBODOC_H
#define VX_RUN_TURBODOC_H

#include <cjson/cJSON.h>

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/runopts.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskcache.h"

/* A finished run, for the summary; the dry run has none. */
struct turbodoc_run {
	const char *id;	      /* the summary's id (summary.c) */
	char *command;	      /* turbodoc_command's */
	long long start_ms;   /* wall clock (ms since the epoch) when the run began */
	long long end_ms;     /* ... and when it ended */
	long long jobs_t0_ms; /* wall clock of the scheduler's start: a job's start_ms
			       * counts from it */
	int exit_code;	      /* vx's own exit status (SPEC §5), not a task's */
	const bool *expanded; /* per node: list its outputs as they are now (it ran
			       * or was restored), or NULL: none */
};

/* The command Turborepo's execution.command would say for these options:
 * "vx run TASK... --filter=F..." (turbo's reads "turbo run ..."). Caller
 * frees. */
char *turbodoc_command(const struct run_opts *o);

/* Whether node i is in a summary's tasks[]: Turborepo lists the tasks that
 * started (ran, failed or hit), not those with nothing to run, nor those a
 * failure kept from starting. */
bool turbodoc_started(const struct job *j);

/* The document of the run: run NULL for --dry=json (every task, the cache
 * as a probe finds it), else the summary's (the tasks that started, the
 * cache as the run found it, each one's execution and the run's). Asks
 * git (or the CI's variables) for scm once. Caller frees with cJSON_Delete. */
cJSON *turbodoc_new(const struct graph *g, const struct job *jobs, struct taskcache *tc,
		    const struct turbodoc_run *run);

#endif
