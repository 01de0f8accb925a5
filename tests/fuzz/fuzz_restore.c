/* libFuzzer target: a cache entry's archive restored into a project, as a
 * remote cache (or a damaged store) may serve it. Whatever the bytes, the
 * extraction must stay below its root: nothing made, removed or changed
 * beside it (a canary file and the root's parent listing are checked), no
 * hard link made to what lies outside, and no crash, leak or read out of
 * bounds on the way.
 *
 * The first byte picks the form: bit 0 set, the rest is a tar stream that
 * is wrapped in a zstd frame here (so the tar reader is reached without
 * the fuzzer having to find a valid frame); clear, the rest is the archive
 * as stored (a zstd frame, or not). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "cache/restore.h"
#include "util/die.h"
#include "util/path.h"
#include "util/strbuf.h"

static const char canary_text[] = "canary: restore never reaches here\n";

static int unlock(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D || flag == FTW_DNR)
		chmod(path, 0700);
	(void)st;
	return 0;
}

static int drop(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

/* Removes dir and all it holds, whatever modes the archive gave. */
static void remove_all(const char *dir)
{
	nftw(dir, unlock, 16, FTW_PHYS); /* pre-order: a parent opened before its children */
	if (nftw(dir, drop, 16, FTW_PHYS | FTW_DEPTH) < 0 && errno != ENOENT)
		abort();
}

/* The names in dir other than "." and "..", counted; aborts on any that is
 * not one of the two expected. */
static void only_root_and_canary(const char *box)
{
	DIR *d = opendir(box);
	if (!d)
		abort();
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "root") && strcmp(de->d_name, "canary")) {
			fprintf(stderr, "restore escaped its root: %s/%s\n", box, de->d_name);
			abort();
		}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char box[] = "/tmp/vx-fuzz-restore-XXXXXX";
	static char *root, *canary;
	if (!root) {
		if (!mkdtemp(box))
			abort();
		root = path_join(box, "root");
		canary = path_join(box, "canary");
	}
	remove_all(root);
	if (mkdir(root, 0755) < 0)
		abort();
	int cfd = open(canary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (cfd < 0 || write(cfd, canary_text, sizeof canary_text - 1) != sizeof canary_text - 1 ||
	    close(cfd) < 0)
		abort();

	const uint8_t *body = size ? data + 1 : data;
	size_t blen = size ? size - 1 : 0;
	void *frame = NULL;
	if (size && (data[0] & 1)) {
		size_t cap = ZSTD_compressBound(blen);
		frame = xmalloc(cap ? cap : 1);
		size_t n = ZSTD_compress(frame, cap, body, blen, 1);
		if (ZSTD_isError(n))
			abort();
		body = frame;
		blen = n;
	}
	int fd = memfd_create("archive", MFD_CLOEXEC);
	if (fd < 0 || (blen && write(fd, body, blen) != (ssize_t)blen) ||
	    lseek(fd, 0, SEEK_SET) < 0)
		abort();
	free(frame);

	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		abort();
	struct strbuf log = STRBUF_INIT;
	struct restore_log sink = restore_log_strbuf(&log);
	fflush(stderr);
	struct restore_opts o = {.log = &sink, .limit = 1u << 20};
	restore_archive(fd, rootfd, &o);
	close(rootfd);
	close(fd);
	strbuf_release(&log);

	only_root_and_canary(box);
	struct stat st;
	char got[sizeof canary_text];
	int rfd = open(canary, O_RDONLY | O_CLOEXEC);
	ssize_t n = rfd < 0 ? -1 : read(rfd, got, sizeof got);
	if (rfd < 0 || fstat(rfd, &st) < 0 || st.st_nlink != 1 || n != sizeof canary_text - 1 ||
	    memcmp(got, canary_text, (size_t)n) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "restore touched the canary beside its root\n");
		abort();
	}
	close(rfd);
	return 0;
}
