/* summary.h - the run summary JSON of `vx run --summarize` (SPEC §5). */
#ifndef VX_RUN_SUMMARY_H
#define VX_RUN_SUMMARY_H

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskcache.h"

/* Writes the summary of a finished run to path (NULL: <root>/.vx/runs/<id>.json),
 * through a temporary file renamed into place. jobs are parallel to g's
 * nodes. Returns 0 and prints where it went, or -1 after a warning (the
 * run goes on: its status is its tasks'). */
int summary_write(const char *path, const struct graph *g, const struct job *jobs,
		  const struct taskcache *tc, int exit_code, long long total_ms);

#endif
