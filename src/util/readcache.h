/* readcache.h - small files' bytes kept across runs (issue 20: a run whose
 * configs did not change reads none of them; one stat each instead of
 * open, fstat, read, close), and the names a directory was found without
 * (issue 20: a package's missing turbo.json costs nothing). A file's bytes are trusted while
 * stat(path) (following links, as open does) gives the device, inode, size, mtime and ctime in ns
 * it gave when they were read. The racy rule is the stat cache's: bytes read in the second the file
 * last changed, or earlier, are never kept, since a change in that same clock tick could leave
 * every field as it was. One file, written whole, holding only what the last run read, and only
 * when that differs from what was loaded; not thread-safe. */
#ifndef VX_UTIL_READCACHE_H
#define VX_UTIL_READCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

/* Files larger than this are read and never kept. */
#define READCACHE_MAX (256 * 1024)

struct readcache;

/* Reads the kept bytes at file (which need not exist). A missing, corrupt
 * or other-version file gives an empty cache (a corrupt one with a
 * warning). Never returns NULL. */
struct readcache *readcache_load(const char *file);

/* Appends path's bytes to sb: the kept ones when they are trusted, else
 * the file's (then kept). rc NULL: just reads. Returns 0, or -1 with errno
 * set as strbuf_read_file leaves it (ENOENT: no such file, then kept as
 * readcache_exists keeps it). */
int readcache_read(struct readcache *rc, const char *path, struct strbuf *sb);

/* Appends to out what readcache_keep_blob kept of path, when path's stat
 * data is still as it was when its bytes were read; else 0, nothing done.
 * Returns 1 when it did. */
int readcache_blob(struct readcache *rc, const char *path, struct strbuf *out);
/* Keeps blob (what the caller made of the bytes readcache_read just gave
 * for path: a parse) in place of the bytes, trusted as they were. Nothing
 * when the read did not keep them (racy) or rc is NULL. */
void readcache_keep_blob(struct readcache *rc, const char *path, const char *blob, size_t len);

/* Whether path (absolute) exists, as access(path, F_OK) says; a name found
 * missing is kept by its directory's stat data (a directory whose mtime
 * and ctime are unchanged gained no entry), so asking again while the
 * directory is unchanged costs at most one stat of it a run. rc NULL:
 * just access(). */
int readcache_exists(struct readcache *rc, const char *path);

/* Sets *st to this run's lstat of path when a readcache_read of it took one
 * and it was a regular file then; else false. The stat cache takes it
 * instead of asking again (a config file is an input of its project's
 * tasks): 2000 fewer system calls in a 1000-project run. */
struct stat;
bool readcache_lstat(const struct readcache *rc, const char *path, struct stat *st);

/* Sets *st to this run's stat of directory dir (links followed) when a
 * look for a missing name in it took one; else false. A walk rooted there
 * takes it instead of asking again. */
bool readcache_dir_stat(const struct readcache *rc, const char *dir, struct stat *st);

/* Forgets every stat taken so far (readcache_lstat, readcache_dir_stat, a
 * directory's check): they were lent to one computation of the keys. vx
 * watch computes them again in the same process, where a stat from the
 * first cycle would hide a file added since (t0400). */
void readcache_forget_stats(struct readcache *rc);

/* Writes the file atomically when this run read something not kept, or
 * left a kept file unread; else nothing. Returns 0, or -1 after a warning. */
int readcache_save(struct readcache *rc);

/* How many reads were answered from the kept bytes, and how many kept. */
void readcache_counts(const struct readcache *rc, size_t *hits, size_t *puts);

void readcache_free(struct readcache *rc);

#endif
