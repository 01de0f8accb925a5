/* joblog.h - what a job printed: its log in memory, spilled past a bound
 * to an unlinked file with its tail kept, and lost with a warning when the
 * spill fails (docs/output.md). */
#ifndef VX_RUN_JOBLOG_H
#define VX_RUN_JOBLOG_H

#include <stddef.h>

#include "orchestrator/run/scheduler.h"

/* A command's output past this is spilled to a file (issue 12: 150 MB of
 * output cost 150 MB of RSS); the tail kept in memory is this long. */
#define JOBLOG_MEM ((size_t)8 << 20)
#define JOBLOG_TAIL ((size_t)64 << 10)

/* The log's end (the spill's tail, or the log itself) as *n bytes. */
const char *joblog_end(const struct job *job, size_t *n);

/* Appends n bytes to job's log as a command's output is: in memory up to
 * JOBLOG_MEM, then, with spill_dir, the whole log in an unlinked
 * file there (log_fd) and its tail in memory. A cache hit's replayed log
 * goes the same way (issue 36: a 150 MB log cost ~600 MB to replay). */
void joblog_add(struct job *job, const char *spill_dir, const char *buf, size_t n);
/* Empties job's log, a spilled one's file closed. */
void joblog_reset(struct job *job);

/* Frees the job's log and closes its spill. */
void joblog_release(struct job *job);

#endif
