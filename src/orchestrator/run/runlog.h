/* runlog.h - what each run did with the cache, one line per run in the
 * store's directory, so `vx cache stats` can give the hit rate of the last
 * runs. */
#ifndef VX_RUN_RUNLOG_H
#define VX_RUN_RUNLOG_H

#include <stddef.h>

struct runlog_line {
	long long when; /* unix seconds */
	size_t hits, misses;
};

/* Appends one line to <dir>/runs.log with a single O_APPEND write, so
 * concurrent runs never interleave within a line. Failure costs nothing but
 * the record. */
void runlog_append(const char *dir, size_t hits, size_t misses);
/* Reads up to max of the newest lines into out (oldest first). Returns how
 * many were read (0 when there is no log). */
size_t runlog_read(const char *dir, struct runlog_line *out, size_t max);

#endif
