/* runreport.h - the --report json|sarif|github document of a finished
 * run: each task's row for violations/report.c. */
#ifndef VX_RUN_RUNREPORT_H
#define VX_RUN_RUNREPORT_H

#include <stdio.h>

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/sandbox_job.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskcache.h"

/* Prints the document of mode (json, sarif or github) to out. */
void runreport_print(const char *mode, const struct graph *g, const struct job *jobs,
		     const struct taskcache *tc, const struct sandbox_jobs *sj, FILE *out);

#endif
