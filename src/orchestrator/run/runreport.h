/* runreport.h - what a run reports of its sandboxed tasks: each judged
 * task's text report as it finishes, and the --report json|sarif|github
 * document of a finished run (each task's row for violations/report.c). */
#ifndef VX_RUN_RUNREPORT_H
#define VX_RUN_RUNREPORT_H

#include <stdio.h>

#include "orchestrator/plan/graph.h"
#include "orchestrator/run/runopts.h"
#include "orchestrator/run/sandbox_job.h"
#include "orchestrator/run/scheduler.h"
#include "orchestrator/run/taskcache.h"

/* After node i was judged (sandbox_jobs_judge): prints to out its text
 * report (violations/report.h: violations, notes, fix) when it has one: it
 * had a violation, or it failed with a note or a read to grant; a
 * persistent task judged untraced, the walls it ran under first. Nothing
 * with --report json|sarif|github (the document carries it). */
void runreport_task(const struct sandbox_jobs *sj, size_t i, const struct job *job, FILE *out);
/* Prints the document of mode (REPORT_JSON, REPORT_SARIF or REPORT_GITHUB)
 * to out. */
void runreport_print(enum run_report mode, const struct graph *g, const struct job *jobs,
		     const struct taskcache *tc, const struct sandbox_jobs *sj, FILE *out);

#endif
