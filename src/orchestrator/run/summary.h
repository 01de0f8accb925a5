/* summary.h - the run summary of `vx run --summarize` (SPEC §5): Turborepo's
 * run summary (turbodoc.h), vx's own fields beside. */
#ifndef VX_RUN_SUMMARY_H
#define VX_RUN_SUMMARY_H

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/runopts.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskcache.h"

/* The wall clock in ms since the epoch: when the scheduler starts, for the
 * summary's times (a job's start_ms counts from it). */
long long summary_clock_ms(void);

/* Writes the summary of a finished run to o->summary_path (NULL:
 * <root>/.vx/runs/<id>.json), through a temporary file renamed into place.
 * jobs are parallel to g's nodes; jobs_t0_ms is summary_clock_ms() at the
 * scheduler's start, total_ms the run's whole time. Returns 0 and prints
 * where it went, or -1 after a warning (the run goes on: its status is
 * its tasks'). */
int summary_write(const struct run_opts *o, const struct graph *g, const struct job *jobs,
		  struct taskcache *tc, int exit_code, long long total_ms, long long jobs_t0_ms);

#endif
