/* statcache.h - the stat cache: path + lstat data -> content hash, kept across
 * runs in one file (like git's index), so a warm run reads no unchanged file.
 * Format and the racy-timestamp rule: docs/cache-hashing.md. Not thread-safe:
 * one run's loop owns it; statcache_lookup_many parallelises the hashing. */
#ifndef VX_CACHE_STATCACHE_H
#define VX_CACHE_STATCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/key.h"

/* On-disk format version: a file of another version loads as empty, silently.
 * 2: the save second and every entry's racy check are the file system's
 * clock (fs_clock_sec), not vx's; a version 1 file saved by a clock ahead
 * of the files' may hold entries racy by theirs (issue 57 item 5). */
#define STATCACHE_VERSION 2

struct statcache;

/* Counters for tests and `--summarize`-style output; reset only by load. */
struct statcache_stats {
	size_t lookups; /* paths asked for */
	size_t hits;	/* answered from the cache without reading the file */
	size_t hashed;	/* files read and hashed (misses, changes, racy entries) */
	size_t racy;	/* hashed entries too fresh to trust later (not saved) */
	size_t loaded;	/* entries taken from the file at load */
	size_t dropped; /* entries of the file not trusted at load (git's racy rule) */
};

/* Reads the stat cache at file (which need not exist). A missing file gives an
 * empty cache silently, and so does a file of another STATCACHE_VERSION; an
 * unreadable or corrupt one (bad magic, checksum, truncation) gives an empty
 * cache and one warning. Never returns NULL; dies only on OOM. file is copied
 * and is where statcache_save writes. */
struct statcache *statcache_load(const char *file);
/* Lookups take the lstat reads (NULL: none) took of a file this run
 * (readcache_lstat) instead of asking again: taken earlier in the run, it
 * is still a stat taken before the file is hashed, all the cache needs. */
struct readcache;
void statcache_use_reads(struct statcache *sc, const struct readcache *reads);

/* Writes into hex the content hash of path (as filehash_path computes it),
 * from the cache when path's lstat data (type and mode, size, mtime and
 * ctime in ns, inode, device) match a trusted entry, else by hashing the file
 * and recording the result. Paths are keys exactly as given: vx passes
 * absolute, normalized paths (see docs). Returns 0, or -1 with errno set when
 * path cannot be lstat'ed or hashed (a vanished path's entry is forgotten). */
int statcache_lookup_or_hash(struct statcache *sc, const char *path, char hex[KEY_HEX_SIZE]);

/* statcache_lookup_or_hash over n paths: every lstat and lookup first, then
 * the misses hashed on `threads` threads (0: filehash's default). errnos[i] is
 * 0 when out[i] holds the hash, else the errno (and out[i] is ""). Returns the
 * number of failures. */
size_t statcache_lookup_many(struct statcache *sc, const char *const *paths, size_t n,
			     char (*out)[KEY_HEX_SIZE], int *errnos, int threads);

/* Has path changed since this run took the lstat its hash was looked up
 * or computed by (size, mtime and ctime in ns, inode, device, type and
 * mode)? True too when it is gone, or was never looked up. One lstat. The
 * save asks it of every input: an entry pairs the key of one content with
 * outputs built from another when an input moved under its task (issue
 * 37, Bazel's rule). */
bool statcache_changed(struct statcache *sc, const char *path);

/* Writes the cache to its file atomically, when anything would change in
 * it (a hash recorded, a path found gone, an entry the racy rule dropped
 * at load; else it writes nothing): a temporary file in the same
 * directory (which must exist), then rename(2), so a concurrent reader sees
 * the old file or the new one, never a torn one; of two concurrent savers the
 * last rename wins. Entries too fresh to trust and paths found gone are left
 * out. Returns 0, or -1 after printing an error (the temporary is removed). */
int statcache_save(struct statcache *sc);

struct statcache_stats statcache_stats(const struct statcache *sc);

/* Frees sc without saving. NULL is fine. */
void statcache_free(struct statcache *sc);

#endif
