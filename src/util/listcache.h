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

/* Writes the file atomically when a listing was recorded or dropped since
 * the load; else nothing. Returns 0, or -1 after a warning (a cache). */
int listcache_save(struct listcache *lc);

/* How many listings were answered and recorded (tests, benchmarks). */
void listcache_counts(const struct listcache *lc, size_t *hits, size_t *puts);

void listcache_free(struct listcache *lc);

#endif
