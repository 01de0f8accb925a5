/* profile.h - `vx run --profile=FILE`: the run as a Chrome trace. */
#ifndef VX_RUN_PROFILE_H
#define VX_RUN_PROFILE_H

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/sandbox_job.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskcache.h"

/* Writes the finished run's tasks to path in the Trace Event Format
 * (chrome://tracing, Perfetto, speedscope): one complete event per task
 * that ran or was replayed, from its start for its duration, on the lane
 * of the slot it held (no two overlapping tasks share a lane), with its
 * status and cache outcome as args, and a sandboxed task's own steps in µs
 * (sandbox_jobs_phases; sj may be NULL). Returns 0, or -1 after an error
 * line. */
int profile_write(const char *path, const struct graph *g, const struct job *jobs,
		  const struct taskcache *tc, const struct sandbox_jobs *sj);

#endif
