/* fstest.h - real temporary directories for the cache's unit tests: make
 * one under /tmp, put files in it, read them back, remove it all. Dies on a
 * failed syscall, since a test that cannot set up has nothing to check. */
#ifndef VX_TEST_FSTEST_H
#define VX_TEST_FSTEST_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "util/die.h"
#include "util/strbuf.h"

static inline char *fs_tmpdir(void)
{
	char *t = xstrdup("/tmp/vx-test-XXXXXX");
	if (!mkdtemp(t))
		die_errno("mkdtemp");
	return t;
}

static inline void fs_write(const char *dir, const char *rel, const char *data, mode_t mode)
{
	char *p = xasprintf("%s/%s", dir, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t n = strlen(data);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n || fchmod(fd, mode) < 0 || close(fd) < 0)
		die_errno("write %s", p);
	free(p);
}

static inline void fs_mkdir(const char *dir, const char *rel, mode_t mode)
{
	char *p = xasprintf("%s/%s", dir, rel);
	if (mkdir(p, mode) < 0 || chmod(p, mode) < 0)
		die_errno("mkdir %s", p);
	free(p);
}

static inline void fs_symlink(const char *dir, const char *rel, const char *target)
{
	char *p = xasprintf("%s/%s", dir, rel);
	if (symlink(target, p) < 0)
		die_errno("symlink %s", p);
	free(p);
}

/* Returns the file's contents, or NULL when it cannot be read; caller frees. */
static inline char *fs_read(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	struct strbuf sb = STRBUF_INIT;
	int ret = strbuf_read_file(&sb, p);
	free(p);
	if (ret < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* Returns the permission bits, or -1 when missing (lstat: a link is a link). */
static inline int fs_mode(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	struct stat st;
	int ret = lstat(p, &st) < 0 ? -1 : (int)(st.st_mode & 0777);
	free(p);
	return ret;
}

/* Returns S_IFREG, S_IFDIR, S_IFLNK... or 0 when missing. */
static inline int fs_type(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	struct stat st;
	int ret = lstat(p, &st) < 0 ? 0 : (int)(st.st_mode & S_IFMT);
	free(p);
	return ret;
}

/* Returns the link's text or NULL; caller frees. */
static inline char *fs_readlink(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	char buf[4096];
	ssize_t n = readlink(p, buf, sizeof buf - 1);
	free(p);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

static inline int fs_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP)
		return rmdir(p);
	return unlink(p);
}

static inline int fs_chmod_dirs(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)f;
	if (flag == FTW_D)
		chmod(p, (st->st_mode & 0777) | 0700);
	return 0;
}

/* Removes dir and all below it (a 0555 directory too); links not followed. */
static inline void fs_rmtree(const char *dir)
{
	nftw(dir, fs_chmod_dirs, 16, FTW_PHYS);
	if (nftw(dir, fs_rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "warning: cannot remove %s: %s\n", dir, strerror(errno));
}

/* XXH3-128 of a file as 32 hex; "" when unreadable. */
static inline void fs_hash(const char *path, char out[33])
{
	out[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	XXH3_state_t *st = XXH3_createState();
	XXH3_128bits_reset(st);
	char *buf = xmalloc(1 << 16);
	ssize_t k;
	while ((k = read(fd, buf, 1 << 16)) > 0)
		XXH3_128bits_update(st, buf, (size_t)k);
	XXH128_hash_t h = XXH3_128bits_digest(st);
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64,
		 (unsigned long long)h.low64);
	free(buf);
	XXH3_freeState(st);
	close(fd);
}

/* Flips one byte of a file at off. */
static inline void fs_flip(const char *path, off_t off)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	unsigned char c;
	if (fd < 0 || pread(fd, &c, 1, off) != 1)
		die_errno("flip %s", path);
	c ^= 0x5a;
	if (pwrite(fd, &c, 1, off) != 1 || close(fd) < 0)
		die_errno("flip %s", path);
}

static inline off_t fs_size(const char *path)
{
	struct stat st;
	return stat(path, &st) < 0 ? -1 : st.st_size;
}

#endif
