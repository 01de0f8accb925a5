/* sandbox_input.h - what sandbox_job.c and sandbox_judge.c share of a
 * task's sandbox input (sandbox_input.c); the input itself is made by
 * sandbox_jobs_request and sandbox_jobs_profile (sandbox_job.h). */
#ifndef VX_RUN_SANDBOX_INPUT_H
#define VX_RUN_SANDBOX_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "orchestrator/config/workspace.h"
#include "orchestrator/plan/graph.h"
#include "orchestrator/run/sandbox_job.h"
#include "util/vec.h"

/* Marks node i's dependencies in seen, transitively: their outputs are
 * readable and their projects keyed. */
void sandbox_jobs_mark_deps(const struct graph *g, size_t i, bool *seen);

/* What dependency d's output globs match, walked once per run (kept in
 * sj->jobs[d]); NULL when the walk failed. */
const struct strvec *sandbox_jobs_dep_outputs(struct sandbox_jobs *sj, size_t d);

/* t's write grants, appended to out as written (relative to its
 * project): allow.write, and its declared outputs that stay in the
 * project (issue 54 item 9). */
void sandbox_jobs_task_writes(const struct workspace *ws, const struct task_node *t,
			      struct strvec *out);

/* The vx.yaml a fix goes into, workspace-relative (malloc'd). */
char *sandbox_jobs_project_yaml(const struct sandbox_jobs *sj, const struct task_node *t);

#endif
