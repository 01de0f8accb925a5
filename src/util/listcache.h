/* listcache.h - directory listings kept across runs (issue 20), each
 * trusted while the directory's lstat data (device, inode, mtime and ctime
 * in ns) is what it was when listed: a directory whose mtime and ctime are
 * unchanged gained, lost and renamed no entry. The racy rule is the stat
 * cache's (docs/cache.md): a listing taken in the second the directory
 * last changed, or earlier, is never trusted, since a change in that same
 * clock tick would leave its times as they were. One file, written whole
 * and only when it changed; not thread-safe (one run's walk owns it). */
#ifndef VX_UTIL_LISTCACHE_H
#define VX_UTIL_LISTCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct listcache;

struct listcache_entry {
	char *name;
	unsigned char type; /* d_type; DT_UNKNOWN when the file system did not say */
};

/* Reads the listings at file (which need not exist). A missing, corrupt or
 * other-version file gives an empty cache (a corrupt one with a warning).
 * Never returns NULL. */
struct listcache *listcache_load(const char *file);

/* The entries of dir (absolute, as the walk names it), sorted by name,
 * when st (dir's lstat now) is the stat data of a trusted listing of it;
 * else NULL. Sets *n. */
const struct listcache_entry *listcache_get(struct listcache *lc, const char *dir,
					    const struct stat *st, size_t *n);

/* Records the n entries (copied; any order) read from dir after st (its
 * fstat) was taken, at or after second t0 (fs_clock_sec). */
void listcache_put(struct listcache *lc, const char *dir, const struct stat *st, int64_t t0,
		   const struct listcache_entry *e, size_t n);

/* A directory's entries read now, when no kept listing answered. */
struct listcache_scratch {
	struct listcache_entry *v;
	size_t n, alloc;
};

/* Lists the directory at (looked up from atfd; a final link followed only
 * when follow), named dir (absolute) in lc, sorted by name: the kept
 * listing when st (the directory's stat data this run, or NULL: taken now)
 * is a trusted one's, valid until dir is listed again or lc is freed;
 * else the directory read now into scratch (emptied first) and, with lc,
 * kept (fstat'ed before it is read: a change while it is read leaves other
 * times than the ones recorded). lc may be NULL: every directory is read.
 * Sets *n. Returns NULL with errno on failure (ENOTDIR: not a directory,
 * or a link not followed). */
const struct listcache_entry *listcache_list(struct listcache *lc, int atfd, const char *at,
					     const char *dir, bool follow, const struct stat *st,
					     struct listcache_scratch *scratch, size_t *n);

/* Frees scratch's names and array. */
void listcache_scratch_release(struct listcache_scratch *scratch);

/* Writes the file atomically when a listing was recorded or dropped since
 * the load; else nothing. Returns 0, or -1 after a warning (a cache). */
int listcache_save(struct listcache *lc);

/* How many listings were answered and recorded (tests, benchmarks). */
void listcache_counts(const struct listcache *lc, size_t *hits, size_t *puts);

void listcache_free(struct listcache *lc);

#endif
