/* shard.h - `vx run --shard I/N`: which of N CI jobs owns each task of a
 * graph. Every machine of a matrix must give the same answer from the same
 * graph, so the split depends on task ids and the timings it is handed,
 * never on the order of discovery or on what one machine has in .vx/
 * (docs/ci.md). */
#ifndef VX_PLAN_SHARD_H
#define VX_PLAN_SHARD_H

#include <stdbool.h>
#include <stddef.h>

struct shard_task {
	const char *id;	     /* "project#task": unique, the split's tie-breaker */
	bool noop;	     /* nothing to run: weighs nothing */
	long long weight_ms; /* its recorded duration; < 0: unknown (set by the
			      * caller, or by shard_timings_load) */
};

/* "I/N" with 1 <= I <= N <= SHARD_MAX into *index (0-based) and *count.
 * Returns 0, or -1 after an error line. */
#define SHARD_MAX 1024
int shard_parse(const char *spec, unsigned *index, unsigned *count);

/* Reads run summaries (--summarize files; a directory: every *.json in it,
 * in name order, so a later run's figure wins) and sets the weight of each
 * task that RAN in one of them (status "succeeded": a replay's time says
 * nothing of the work). Returns 0, or -1 after an error line naming the
 * file. */
int shard_timings_load(const char *path, struct shard_task *tasks, size_t n);

/* owner[i] in [0, count) for every task: longest first (a task of unknown
 * weight weighs the median of the known ones, 1 ms when none is known),
 * ties by id, each to the least loaded shard (ties: the lowest). The same
 * tasks in any order get the same owners. */
void shard_split(const struct shard_task *tasks, size_t n, unsigned count, unsigned *owner);

#endif
