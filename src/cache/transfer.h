/* transfer.h - a cache entry as one body, for the remote cache: out of the
 * store for an upload, into the store from a download (docs/remote-cache.md).
 *
 * The body is "vx-entry 1 N\n", the N bytes of the manifest, then the
 * archive as the store keeps it. A downloaded body enters the store only
 * once it is whole and checked, by the temp+rename path a save takes: a
 * torn or hostile body is never restored and never lands in the store. */
#ifndef VX_CACHE_TRANSFER_H
#define VX_CACHE_TRANSFER_H

#include <stddef.h>
#include <stdint.h>

#include "cache/store.h"
#include "util/strbuf.h"

/* The body of key's entry: *head (caller frees, *head_len bytes) then
 * *archive_size bytes of *archive_fd (opened here, O_CLOEXEC; caller
 * closes). Returns 0, or -1 after error() (1 when there is no entry). */
int transfer_export(const struct store *st, const char *key, char **head, size_t *head_len,
		    int *archive_fd, uint64_t *archive_size);

/* A temporary file for a download of key, in its shard (made). Returns the
 * fd and *name, relative to the store (the caller unlinks it at the
 * store's fd and frees it), or -1 after error(). */
int transfer_tmp(const struct store *st, const char *key, char **name);

/* Whether the first n bytes of a body can begin an entry's (a remote's
 * GET checks them as they arrive, remote.h): 1 they do (its head whole,
 * then the manifest's "{"), 0 not known yet, -1 they cannot. */
int transfer_body_begins(const char *buf, size_t n);

/* Checks the body in fd (from offset 0), the file tmp (transfer_tmp's):
 * its head, a manifest that parses and names key, an archive of the
 * manifest's size and checksum; then renames tmp into the store as key's
 * entry, a bundle (STORE_BUNDLE_SUFFIX): one file, no copy. Returns 0 (tmp
 * is gone); 1 when the body is refused (why says why; nothing entered the
 * store); -1 after error(). */
int transfer_import(const struct store *st, const char *key, int fd, const char *tmp,
		    struct strbuf *why);

#endif
