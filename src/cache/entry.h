/* entry.h - one cache entry: <store>/<key[0:2]>/<key>.tar.zst (the outputs
 * and the log, archive.h) and <key>.json (the manifest), saved, verified and
 * restored (docs/cache-store.md). */
#ifndef VX_CACHE_ENTRY_H
#define VX_CACHE_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cache/archive.h"
#include "cache/inplace.h"
#include "cache/manifest.h"
#include "cache/store.h"
#include "util/strbuf.h"
#include "util/vec.h"

struct entry_input {
	const char *path;
	const char *hash;
};

struct entry_save_request {
	const char *key;	 /* store_key_valid */
	const char *task;	 /* "project#task" */
	const char *project_dir; /* outputs are relative to it */
	/* The current matches of the output globs. A directory brings its whole
	 * tree, a path brings its parent directories; what lies below a symlink
	 * is not taken (the link is). */
	const char *const *outputs;
	size_t n_outputs;
	const struct entry_input *inputs; /* stored as given */
	size_t n_inputs;
	int log_fd;	 /* the captured log from its offset to its end, or -1 ... */
	const void *log; /* ... then these log_len bytes (NULL when 0) */
	size_t log_len;
	int exit_code;
	uint64_t duration_ms;
	int level;    /* zstd level; 0 for ARCHIVE_LEVEL_DEFAULT */
	bool durable; /* fsync both files and the shard before and after the renames */
	/* When not NULL (and empty), filled with each member as it was read:
	 * the in-place record of what the entry holds (inplace_put). */
	struct inplace_seen *seen;
};

/* Writes the entry: the archive, then the manifest, each to a temporary name
 * in the shard renamed into place, both renames under the store's exclusive
 * lock so a concurrent writer of the same key cannot pair its archive with
 * this manifest. Fills *out when not NULL. Returns 0, or -1 after error()
 * (nothing is left behind but, on a crash, a temporary that store_prune
 * removes). */
int entry_save(const struct store *st, const struct entry_save_request *req, struct manifest *out);

enum entry_status {
	ENTRY_ERROR = -1, /* the store could not be read; error() printed */
	ENTRY_HIT = 0,	  /* e is open and verified */
	ENTRY_MISS = 1,	  /* no manifest: no entry */
	ENTRY_BAD = 2,	  /* a manifest that does not parse, or an archive missing or
			     not matching its size and checksum: the reason is in why,
			     nothing printed; the caller warns once, treats it as a miss
			     and the next save replaces it */
};

/* Filled by entry_open; released by entry_close. */
struct entry {
	struct manifest m;
	int archive_fd;		/* verified against m; the inode is pinned even if the
				   entry is replaced or pruned meanwhile */
	off_t archive_off;	/* where the archive starts in it: 0, or a bundle's
				   (STORE_BUNDLE_SUFFIX) after its head and manifest */
	uint64_t restore_limit; /* set by the caller: the bytes restore_entry may write at
				 * most (files' sizes, holes included); 0: no bound */
	/* set by the caller, or NULL: regular files (sorted, project-relative)
	 * known to hold this entry's content, their lstat matching an
	 * in-place record made for its key: restore's in-place check takes
	 * their content on that word and hashes only the others */
	const struct strvec *trusted;
	/* set by the caller, or NULL: filled with each output's lstat as the
	 * in-place check saw it (from_ns before the first); whole when the
	 * restore returns RESTORE_IN_PLACE, the new in-place record's */
	struct inplace_seen *seen;
};

/* Creates "<shard>/.tmp-<key>-XXXXXX" (mode 0644; the shard must exist),
 * locked while it is written (store_sweep_tmp). Returns the fd and *name,
 * relative to the store, or -1 after error(). */
int entry_tmp_create(const struct store *st, const char *key, char **name);

/* A bundle's head line ("vx-entry 1 N\n") lies in its first bytes. */
#define ENTRY_BUNDLE_MAGIC "vx-entry 1 "
#define ENTRY_BUNDLE_HEAD_MAX 63
/* Whether the n bytes of buf can begin a bundle: its head's length (its
 * "\n" included) with *manifest_len set to N, 0 when they can but do not
 * hold the whole head yet, -1 when no bundle begins so (another magic, a
 * length that is no number, is 0, or passes the largest manifest read). */
int entry_bundle_head(const char *buf, size_t n, uint64_t *manifest_len);
/* The head of a bundle ("vx-entry 1 N\n", then N bytes of manifest, then
 * the archive) in fd: parses its manifest into m and sets *archive_off.
 * Returns 0, or 1 with the reason in why (m untouched). */
int entry_bundle_read(int fd, struct manifest *m, off_t *archive_off, struct strbuf *why);
/* Verifies that the archive in fd from off is the manifest's: its size and
 * checksum. Returns 0, 1 with the reason in why, or -1 with errno. */
int entry_archive_check(int fd, off_t off, const struct manifest *m, struct strbuf *why);

/* Looks key up and verifies it. Returns an enum entry_status. */
int entry_open(const struct store *st, const char *key, struct entry *e, struct strbuf *why);
void entry_close(struct entry *e);

#endif
