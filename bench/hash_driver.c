/* hash_driver - times vx's cold file hashing for bench/hash.
 *
 *   hash_driver [-t THREADS] [-e] < NUL-separated paths
 *
 * Hashes every path with filehash_many on THREADS threads (default 1) and
 * prints "files N bytes B seconds S MiB/s R". With -e it only evicts the
 * files from the page cache (posix_fadvise DONTNEED, which drops clean pages
 * of these files alone, unlike a global drop_caches) and prints nothing. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/filehash.h"
#include "util/die.h"
#include "util/strbuf.h"
#include "util/vec.h"

static void evict(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return; /* a symlink or a vanished file: nothing cached to drop */
	int r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (r)
		die("posix_fadvise %s: %s", path, strerror(r));
	close(fd);
}

static double now(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die_errno("clock_gettime");
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int threads = 1, only_evict = 0, opt;
	while ((opt = getopt(argc, argv, "t:e")) != -1) {
		if (opt == 't')
			threads = atoi(optarg);
		else if (opt == 'e')
			only_evict = 1;
		else
			die("usage: hash_driver [-t THREADS] [-e] < paths");
	}

	struct strbuf in = STRBUF_INIT;
	if (strbuf_read_fd(&in, 0) < 0)
		die_errno("reading stdin");
	struct strvec paths = STRVEC_INIT;
	for (size_t off = 0; off < in.len;) {
		size_t len = strnlen(in.buf + off, in.len - off);
		if (len)
			strvec_push_nodup(&paths, xstrndup(in.buf + off, len));
		off += len + 1;
	}
	strbuf_release(&in);

	if (only_evict) {
		for (size_t i = 0; i < paths.n; i++)
			evict(paths.v[i]);
		strvec_clear(&paths);
		return 0;
	}

	unsigned long long bytes = 0;
	for (size_t i = 0; i < paths.n; i++) {
		struct stat st;
		if (lstat(paths.v[i], &st) == 0 && S_ISREG(st.st_mode))
			bytes += (unsigned long long)st.st_size;
	}
	char(*out)[KEY_HEX_SIZE] = xcalloc(paths.n ? paths.n : 1, sizeof *out);
	int *errs = xcalloc(paths.n ? paths.n : 1, sizeof *errs);

	double t = now();
	size_t failed = filehash_many((const char *const *)paths.v, paths.n, out, errs, threads);
	t = now() - t;

	if (failed)
		fprintf(stderr, "hash_driver: %zu files could not be hashed\n", failed);
	printf("files %zu bytes %llu seconds %.4f MiB/s %.1f\n", paths.n, bytes, t,
	       (double)bytes / (1024.0 * 1024.0) / t);
	free(out);
	free(errs);
	strvec_clear(&paths);
	return failed ? 1 : 0;
}
