/* store.h - the cache directory as a whole: where an entry's files live, the
 * short lock that makes an entry's two files change together, last use, size,
 * clean and prune (docs/cache-store.md). Entries' contents are entry.c's. */
#ifndef VX_CACHE_STORE_H
#define VX_CACHE_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define STORE_ARCHIVE_SUFFIX ".tar.zst"
#define STORE_MANIFEST_SUFFIX ".json"
/* An entry as the remote cache sends it (transfer.h's body: head, manifest,
 * archive, one file): how a remote hit is kept, one file where a local save
 * makes two. A manifest of the same key, when there is one, is read first. */
#define STORE_BUNDLE_SUFFIX ".vxe"
/* Temporary files of entries being written start with this. */
#define STORE_TMP_PREFIX ".tmp-"
/* An unlocked temporary file untouched this long is a killed writer's
 * (the lock is taken right after the file is made). */
#define STORE_TMP_GRACE 10

/* Filled by store_open; released by store_close. */
struct store {
	char *path;    /* absolute */
	int dirfd;     /* O_CLOEXEC; every file of the store is reached through it */
	int read_only; /* 0, or why vx cannot write it (EROFS: a CI cache restored
			* read-only, a shared NFS mount; EACCES): it is read, its
			* hits restored, and nothing of it is written */
};

/* Opens dir, creating it and its parents 0755 when missing. dir itself may
 * be a symlink (a cache moved to a bigger disk); nothing below it is ever
 * followed. Sets read_only. Returns 0, or -1 after error(). */
int store_open(struct store *st, const char *dir);
void store_close(struct store *st);

/* True when key can name an entry: 2 to 64 lowercase hex digits. */
bool store_key_valid(const char *key);
/* The shard directory of key, relative to the store: its first two digits.
 * The one place an entry's shard is named. */
void store_shard_name(const char *key, char shard[3]);
/* Returns "<key[0:2]>/<key><suffix>", relative to the store; caller frees. */
char *store_entry_name(const char *key, const char *suffix);
/* Returns the absolute path of an entry file; caller frees. */
char *store_entry_path(const struct store *st, const char *key, const char *suffix);
/* Creates a temporary file of key's entry, "<shard>/.tmp-<key>-XXXXXX"
 * relative to the store (the shard must exist), O_RDWR, mode 0644. Every
 * file of the store is reached through its fd, so no entry's path grows
 * with the workspace's (issue 39: a workspace ~4000 characters deep never
 * cached: "File name too long"). Returns the fd and *name, or -1 after
 * error(). */
int store_tmp_create(const struct store *st, const char *key, char **name);
/* Removes what lies at name (relative to the store) when it is not what
 * the store keeps there, a directory for dir, else a regular file, with a
 * warning naming it: the store's names are vx's alone, so anything else
 * there is a damaged store's debris. Returns 0 (also when nothing is
 * there), or -1 after error(). */
int store_repair(const struct store *st, const char *name, bool dir);
/* Removes the temporary files of key's entry whose writers are gone (see
 * store_prune), saying how much a killed save left. Returns how many. */
int store_sweep_tmp(const struct store *st, const char *key);
/* Makes the shard directory of key (repaired first). Returns 0, or -1
 * after error(). */
int store_shard_make(const struct store *st, const char *key);

/* Takes the store's lock (flock on <dir>/.lock, opened afresh so a forked
 * child never shares its parent's lock): shared for reading an entry's pair
 * of files, exclusive for replacing or deleting a pair. Held for a few
 * syscalls, never while a task runs. A read-only store's lock is taken
 * shared through a read-only open of the file, or not at all when it does
 * not exist (no writer ever took it). Returns the fd to give to
 * store_unlock, or -1 after error(). */
int store_lock(const struct store *st, bool exclusive);
void store_unlock(int fd);

/* Records that key was used now: the manifest's mtime is the entry's last
 * use (atime is not trusted: relatime and noatime). Returns 0, or -1 with
 * errno set (ENOENT: no such entry). */
int store_touch(const struct store *st, const char *key);

/* Removes key's entry (manifest first, then archive and bundle) under the
 * exclusive lock: an entry saved only to be uploaded (`--cache` with a
 * remote that writes and a local cache that does not). Returns 0 (also
 * when there was none), or -1 after error(). */
int store_remove(const struct store *st, const char *key);

struct store_stats {
	uint64_t entries; /* manifests */
	uint64_t bytes;	  /* every file of the store: entries, orphans, temporaries */
	time_t oldest;	  /* least recent last use; 0 when no entry */
	time_t newest;
};

/* Returns 0 with *out filled, or -1 after error(). */
int store_stats(const struct store *st, struct store_stats *out);
/* Removes every entry and temporary file and the emptied shard directories;
 * a file the store did not make is left alone. Returns 0, or -1 after
 * error(). */
int store_clean(const struct store *st);
/* Removes orphans (an archive with no manifest; a temporary file whose
 * writer is gone: unlocked (entry_tmp_create locks it) and untouched for
 * STORE_TMP_GRACE seconds, or untouched for an hour), then evicts least
 * recently used entries, manifest first, until the store holds at most
 * max_bytes. Returns the entries evicted, or -1
 * after error(). */
long store_prune(const struct store *st, uint64_t max_bytes);

#endif
