/* filehash.h - the content hash of one input file (xxHash3-128), alone or in
 * a parallel batch. See docs/cache-hashing.md for the measured figures. */
#ifndef VX_CACHE_FILEHASH_H
#define VX_CACHE_FILEHASH_H

#include <stddef.h>

#include "cache/key.h"

/* Returns the threads filehash_many uses when asked for 0: twice the online
 * CPUs, at most 8. Cold hashing waits on the disk, so threads beyond the
 * cores keep more reads in flight (docs/cache-hashing.md has the figures). */
int filehash_default_threads(void);

/* Hashes the file at path without following a final symlink:
 * - a regular file hashes as XXH3-128 of its bytes, exactly what `xxh128sum`
 *   prints for it;
 * - a symlink hashes its target text (readlink), in a separate hash domain
 *   (a seeded XXH3), so a link never hashes like a file holding its target
 *   text. The cache restores symlinks as symlinks, so the link, not what it
 *   points at, is the input; a dangling link is a fine input.
 * Writes 32 lowercase hex digits and a NUL into hex. Returns 0, or -1 with
 * errno set: the open/read/readlink failure, EISDIR for a directory, EINVAL
 * for anything else (FIFO, socket, device). Never blocks on a FIFO. */
int filehash_path(const char *path, char hex[KEY_HEX_SIZE]);
/* The content hash (XXH3-128, xxh128sum's digits) of fd's bytes from its
 * offset to EOF, the one a regular file's filehash_path is. Returns 0, or
 * -1 with errno set. */
int filehash_fd(int fd, char hex[KEY_HEX_SIZE]);
/* filehash_fd of a regular file fstat gave size bytes (-1: unknown): the
 * same hash, without the read that would return 0 when the file is still
 * that long. */
int filehash_fd_sized(int fd, long long size, char hex[KEY_HEX_SIZE]);

/* Hashes the n files paths[i] into out[i], as filehash_path does, spread over
 * `threads` threads (0: filehash_default_threads(); never more than n). errnos[i]
 * is 0 when out[i] holds a hash, else the errno filehash_path failed with (and
 * out[i] is ""). Returns the number of failures. The calling thread works too;
 * a thread that cannot be started only costs parallelism. Dies only on OOM. */
size_t filehash_many(const char *const *paths, size_t n, char (*out)[KEY_HEX_SIZE], int *errnos,
		     int threads);

#endif
