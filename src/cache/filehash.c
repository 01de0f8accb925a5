#include "cache/filehash.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "util/die.h"
#include "util/io.h"
#include "util/thread.h"

/* 128 KiB: the kernel's default readahead window, so one read() per window;
 * larger buffers measured no faster (docs/cache-hashing.md). */
#define CHUNK_SIZE (128 * 1024)

/* Seeds the hash of a symlink's target text, so a link "x -> abc" never hashes
 * like a regular file holding "abc": the two differ as inputs, since the cache
 * restores a link as a link. */
#define SYMLINK_SEED UINT64_C(0x76786c696e6b) /* "vxlink" */

/* One buffer per thread: a heap buffer per file costs an mmap and munmap
 * each (128 KiB is glibc's mmap threshold), which dominates small files. */
static _Thread_local unsigned char chunk[CHUNK_SIZE];

static void hash_to_hex(XXH128_hash_t h, char hex[KEY_HEX_SIZE])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, h);
	key_hex(c.digest, hex);
}

/* A file that fits in one chunk is hashed in one call (XXH3's one-shot
 * path is faster than the streaming state for small inputs and gives the
 * same value). */
int filehash_fd(int fd, char hex[KEY_HEX_SIZE])
{
	return filehash_fd_sized(fd, -1, hex);
}

/* A regular file's read comes back short only at its end: when the bytes
 * read so far are the size fstat gave, the read that would return 0 is not
 * made (it was a third of a cold run's reads). A file that grew since
 * reads on. */
int filehash_fd_sized(int fd, long long size, char hex[KEY_HEX_SIZE])
{
	XXH3_state_t *st = NULL;
	size_t have = 0;
	long long total = 0;
	for (;;) {
		ssize_t r = read(fd, chunk + have, CHUNK_SIZE - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			XXH3_freeState(st);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		have += (size_t)r;
		total += r;
		if (have < CHUNK_SIZE) {
			if (total == size)
				break;
			continue;
		}
		if (!st) {
			st = XXH3_createState();
			if (!st)
				die("out of memory");
			XXH3_128bits_reset(st);
		}
		XXH3_128bits_update(st, chunk, have);
		have = 0;
	}
	if (!st) {
		hash_to_hex(XXH3_128bits(chunk, have), hex);
		return 0;
	}
	XXH3_128bits_update(st, chunk, have);
	hash_to_hex(XXH3_128bits_digest(st), hex);
	XXH3_freeState(st);
	return 0;
}

/* Hashes the target text of the symlink at path. Returns 0, or -1 with errno
 * set (EINVAL when path is no longer a symlink). */
static int hash_symlink(const char *path, char hex[KEY_HEX_SIZE])
{
	size_t size = 256;
	for (;;) {
		char *buf = xmalloc(size);
		ssize_t r = readlink(path, buf, size);
		if (r < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return -1;
		}
		if ((size_t)r < size) {
			hash_to_hex(XXH3_128bits_withSeed(buf, (size_t)r, SYMLINK_SEED), hex);
			free(buf);
			return 0;
		}
		/* Truncated: the target is at least size bytes long. */
		free(buf);
		size *= 2;
	}
}

int filehash_path(const char *path, char hex[KEY_HEX_SIZE])
{
	/* O_NOFOLLOW: a final symlink fails with ELOOP instead of being followed,
	 * and is then hashed as a link. O_NONBLOCK: opening a FIFO must not hang
	 * the run; a regular file ignores it. */
	const char *rel;
	int at = fs_at(path, &rel), fd;
	do
		fd = openat(at, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		int e = errno;
		struct stat st;
		if (e == ELOOP && !fstatat(at, rel, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			return hash_symlink(path, hex);
		errno = e;
		return -1;
	}

	struct stat st;
	int ret = -1, e = 0;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (S_ISDIR(st.st_mode))
		e = EISDIR;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else if (filehash_fd_sized(fd, (long long)st.st_size, hex) < 0)
		e = errno;
	else
		ret = 0;
	/* The fd was only read; a close error cannot lose data. */
	close(fd);
	errno = e;
	return ret;
}

struct batch {
	const char *const *paths;
	size_t n;
	char (*out)[KEY_HEX_SIZE];
	int *errnos;
	atomic_size_t next;   /* the next index to claim; each worker takes one at a time */
	atomic_size_t failed; /* failures so far */
};

/* Files are claimed one at a time, not in fixed slices: one 1 GiB file among
 * small ones must not leave a slice's owner working alone. */
static void *batch_work(void *arg)
{
	struct batch *b = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&b->next, 1);
		if (i >= b->n)
			return NULL;
		if (filehash_path(b->paths[i], b->out[i]) == 0) {
			b->errnos[i] = 0;
			continue;
		}
		b->errnos[i] = errno ? errno : EIO;
		b->out[i][0] = '\0';
		atomic_fetch_add(&b->failed, 1);
	}
}

int filehash_default_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1)
		cpus = 1;
	return cpus >= 4 ? 8 : (int)(2 * cpus);
}

size_t filehash_many(const char *const *paths, size_t n, char (*out)[KEY_HEX_SIZE], int *errnos,
		     int threads)
{
	struct batch b = {.paths = paths, .n = n, .out = out, .errnos = errnos};
	atomic_init(&b.next, 0);
	atomic_init(&b.failed, 0);

	size_t want = (size_t)(threads > 0 ? threads : filehash_default_threads());
	if (want > n)
		want = n;
	/* The calling thread is one of the workers. A thread that cannot be
	 * started only costs parallelism: the others claim its share. */
	size_t started = 0;
	pthread_t *tids = want > 1 ? xcalloc(want - 1, sizeof *tids) : NULL;
	for (size_t t = 0; t + 1 < want; t++) {
		if (thread_start(&tids[started], NULL, batch_work, &b) != 0)
			break;
		started++;
	}
	batch_work(&b);
	for (size_t t = 0; t < started; t++)
		if (pthread_join(tids[t], NULL) != 0)
			die("BUG: pthread_join failed");
	free(tids);
	return atomic_load(&b.failed);
}
