/* restore.h - putting a cache entry's outputs back into a project: the
 * rules of what is replaced, what is kept, and what is never touched. */
#ifndef VX_CACHE_RESTORE_H
#define VX_CACHE_RESTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/entry.h"
#include "util/strbuf.h"

/* Where an entry's captured log goes as it is read, a chunk at a time
 * (never whole in memory: a log can be far larger than its entry). add
 * returns 0, or -1 to stop the restore. */
struct restore_log {
	int (*add)(void *ctx, const char *buf, size_t n);
	void *ctx;
};

/* A sink appending to sb. */
struct restore_log restore_log_strbuf(struct strbuf *sb);

enum restore_result {
	RESTORE_WRITTEN = 0,
	RESTORE_IN_PLACE = 1, /* every output already matched: nothing written */
};

/* Makes the project's outputs what the entry holds and appends the captured
 * log to log (when not NULL). current lists the output globs' matches now
 * on disk (project-relative). When every output of the manifest is on disk
 * with its type, mode and hash, and current names nothing else, writes
 * nothing and returns RESTORE_IN_PLACE. Otherwise deletes every current match
 * (recursively, never through a symlink) and extracts the archive, returning
 * RESTORE_WRITTEN. Returns -1 after error(): an unsafe path, an I/O error or
 * a refused member, with the outputs possibly half restored (the caller
 * should run the task). */
int restore_entry(struct entry *e, const char *project_dir, const char *const *current,
		  size_t n_current, struct strbuf *log);
/* restore_entry with the log going to sink (NULL: dropped). */
int restore_entry_to(struct entry *e, const char *project_dir, const char *const *current,
		     size_t n_current, const struct restore_log *sink);

/* Extracts the archive at fd's current offset below rootfd: every member is
 * reached with fsafe_open_parent (no symlink followed), an existing
 * non-directory at a member's place is replaced (a directory member keeps an
 * existing directory), files get exactly their recorded mode, directory
 * modes are set last. The log's bytes go to log (dropped when NULL). With log_only, stops at the first member that is not the log and
 * writes nothing. A run of zero bytes (4 KiB blocks) is written as a hole,
 * so a sparse output comes back sparse (issue 36: `truncate -s 2G` made a
 * 65 KB entry whose restore wrote 2 GiB of real blocks); limit (0: none)
 * bounds the files' total size, checked from each header before a byte is
 * written. Returns 0, or -1 after error(); a refused member stops the
 * extraction with what came before it already written. */
int restore_archive(int fd, int rootfd, const struct restore_log *log, bool log_only,
		    uint64_t limit);

#endif
