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

/* The directory a restore moves the current outputs into, in the project
 * (PREFIX + 6 random characters), gone when the restore ends: a watch
 * takes a change below it as the run's own. */
#define RESTORE_ASIDE_PREFIX ".vx-restore-"

enum restore_result {
	RESTORE_WRITTEN = 0,
	RESTORE_IN_PLACE = 1, /* every output already matched: nothing written */
};

/* Makes the project's outputs what the entry holds and appends the captured
 * log to log (when not NULL). current lists the output globs' matches now
 * on disk (project-relative). When every output of the manifest is on disk
 * with its type, mode and hash, and current names nothing else, writes
 * nothing and returns RESTORE_IN_PLACE. Otherwise moves every current match
 * aside (never through a symlink), extracts the archive, checking each
 * member against the manifest, and removes what it moved aside, returning
 * RESTORE_WRITTEN. Returns -1 after error(): an unsafe path, an I/O error
 * or a refused member; then what the extraction wrote is removed and the
 * current matches are put back, so the outputs are as they were before it
 * began (issue 37: a restore that failed midway left directories at 0700,
 * and the task's next save recorded them). */
int restore_entry(struct entry *e, const char *project_dir, const char *const *current,
		  size_t n_current, struct strbuf *log);
/* restore_entry with the log going to sink (NULL: dropped). */
int restore_entry_to(struct entry *e, const char *project_dir, const char *const *current,
		     size_t n_current, const struct restore_log *sink);

struct restore_opts {
	const struct restore_log *log; /* where the log goes; NULL: dropped */
	bool log_only;		       /* stop at the first member that is not the log */
	uint64_t limit;		       /* the files' total size at most; 0: no bound */
	const struct manifest *expect; /* every member must be one of its outputs, as it
					* records it (type, mode, size, link text, and a
					* file's content hash, computed as it streams),
					* and every output a member; NULL: unchecked */
	struct strvec *made;	       /* when set: each member's path, as it is written */
};

/* Extracts the archive at fd's current offset below rootfd: every member is
 * reached with fsafe_open_parent (no symlink followed), an existing
 * non-directory at a member's place is replaced (a directory member keeps an
 * existing directory), files get exactly their recorded mode, directory
 * modes are set last. The log's bytes go to o->log. With o->log_only, stops
 * at the first member that is not the log and writes nothing. A run of zero
 * bytes (4 KiB blocks) is written as a hole, so a sparse output comes back
 * sparse (issue 36: `truncate -s 2G` made a 65 KB entry whose restore wrote
 * 2 GiB of real blocks); o->limit bounds the files' total size, checked
 * from each header before a byte is written. With o->expect, a member that
 * differs from the manifest refuses the entry (issue 37: a forged archive
 * with the manifest's size and checksum updated restored altered content
 * as a hit). Returns 0, or -1 after error(); a refused member stops the
 * extraction with what came before it already written. */
int restore_archive(int fd, int rootfd, const struct restore_opts *o);

#endif
